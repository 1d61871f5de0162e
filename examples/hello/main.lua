-- examples/hello: a lit, shadowed sphere on a plane, in about twenty lines.
local tycho = require("tycho")
local engine = tycho.engine
local scene = engine.scene

engine:setPreset(tycho.presets.forward({ sky = { kind = "color" } }))

local ground = scene:add(tycho.GameObject.new({ name = "ground", scale = { x = 20, y = 1, z = 20 } }))
ground:addComponent(tycho.MeshRenderer.new(tycho.mesh.plane(), tycho.material({ baseColor = { 0.6, 0.6, 0.6, 1 } })))

local ball = scene:add(tycho.GameObject.new({ name = "ball", position = { x = 0, y = 0.5, z = 0 } }))
ball:addComponent(tycho.MeshRenderer.new(tycho.mesh.sphere(), tycho.material({ baseColor = { 0.9, 0.3, 0.2, 1 }, roughness = 0.4 })))

local sun = scene:add(tycho.GameObject.new("sun"))
sun:addComponent(tycho.DirectionalLight.new({ direction = tycho.vec3(-0.4, -1, -0.3), intensity = 3 }))

local camera = scene:add(tycho.GameObject.new({ name = "camera", position = { x = 0, y = 2.5, z = 6 } }))
camera.rotation:setAxisAngle(1, 0, 0, -0.32) -- looks at the ball
camera:addComponent(tycho.Camera.perspective(60, 0.1, 100))
