-- Golden scene: tycho.Text depth-tested with the scene: a label whose right half lies
-- behind a cube (the cube hides it), beside a label in front of the cube (drawn over it).
local tycho = require("tycho")
local engine = tycho.engine
local scene = engine.scene

engine:setPreset(tycho.presets.forward({ sky = { kind = "color", color = { 0.1, 0.12, 0.2 } }, taa = false, shadow = false }))

local cube = scene:add(tycho.GameObject.new({ name = "cube", position = { x = 0.8, y = 0, z = 0 } }))
cube:addComponent(tycho.MeshRenderer.new(tycho.mesh.cube(), tycho.material({ baseColor = { 0.8, 0.3, 0.2, 1 } })))
local sun = scene:add(tycho.GameObject.new({ name = "sun" }))
sun:addComponent(tycho.DirectionalLight.new({ direction = { x = -0.4, y = -1, z = -0.6 }, intensity = 3 }))

local big = tycho.font.default(32)
local behind = scene:add(tycho.GameObject.new({ name = "behind", position = { x = 0.2, y = 0.1, z = -2 } }))
behind:addComponent(tycho.Text.new({ text = "HIDDEN", align = "center", font = big, pixelsPerUnit = 40,
  color = { 1, 1, 0.3, 1 } }))
local front = scene:add(tycho.GameObject.new({ name = "front", position = { x = 0.8, y = -0.2, z = 0.7 } }))
front:addComponent(tycho.Text.new({ text = "front", align = "center", font = big, pixelsPerUnit = 80,
  color = { 0.6, 0.9, 1, 1 } }))

local camera = scene:add(tycho.GameObject.new({ name = "camera", position = { x = 0, y = 0, z = 4 } }))
camera:addComponent(tycho.Camera.perspective(60, 0.1, 100))
