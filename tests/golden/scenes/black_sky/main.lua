-- Pixel scene: a black sky and a white cube with no light and a black ambient. Zero is a
-- colour: every pixel reads back black, through the forward preset (Sky, ForwardLit,
-- Tonemap) under a perspective camera.
local tycho = require("tycho")
local engine = tycho.engine
local scene = engine.scene

engine:setPreset(tycho.presets.forward({
  sky = { kind = "color", color = { 0, 0, 0 } },
  ambient = { 0, 0, 0 },
  taa = false,
  shadow = false,
}))

local cube = scene:add(tycho.GameObject.new({ name = "cube", scale = { x = 2, y = 2, z = 2 } }))
cube:addComponent(tycho.MeshRenderer.new(tycho.mesh.cube(), tycho.material({ baseColor = { 1, 1, 1 } })))

local camera = scene:add(tycho.GameObject.new({ name = "camera", position = { x = 0, y = 0, z = 5 } }))
camera:addComponent(tycho.Camera.perspective(60, 0.1, 100))
