-- Golden scene: tycho.Text in the world: labels on objects under a perspective camera,
-- at two depths (the near one drawn over the far one), one turned, one centred and wrapped,
-- over a lit cube, and a tycho.draw label on top of them all.
local tycho = require("tycho")
local engine = tycho.engine
local scene = engine.scene

engine:setPreset(tycho.presets.forward({ sky = { kind = "color", color = { 0.1, 0.12, 0.2 } }, taa = false, shadow = false }))

local cube = scene:add(tycho.GameObject.new({ name = "cube", position = { x = 0, y = -0.6, z = -1 } }))
cube:addComponent(tycho.MeshRenderer.new(tycho.mesh.cube(), tycho.material({ baseColor = { 0.8, 0.3, 0.2, 1 } })))
local sun = scene:add(tycho.GameObject.new({ name = "sun" }))
sun:addComponent(tycho.DirectionalLight.new({ direction = { x = -0.4, y = -1, z = -0.6 }, intensity = 3 }))

local function label(name, text, opts, position, rotation)
  local go = scene:add(tycho.GameObject.new({ name = name, position = position, rotation = rotation }))
  opts.text = text
  go:addComponent(tycho.Text.new(opts))
  return go
end
local big = tycho.font.default(32)
label("far", "FAR AWAY", { color = { 0.6, 0.8, 1, 1 }, align = "center", font = big, pixelsPerUnit = 48 },
  { x = 0.6, y = 1.6, z = -4 })
label("near", "near", { color = { 1, 1, 0.3, 1 }, align = "center", font = big, pixelsPerUnit = 64 },
  { x = 0.6, y = 1.0, z = -2 })
label("turned", "Привет", { color = { 0.5, 1, 0.5, 1 }, pixelsPerUnit = 32 }, { x = -2.0, y = 0.6, z = -1 },
  tycho.quat.axisAngle(0, 1, 0, 0.7))
label("wrapped", "centred and wrapped", { align = "center", width = 100, color = { 1, 0.7, 0.9, 1 }, pixelsPerUnit = 64 },
  { x = 0, y = -0.9, z = 0.5 })

local camera = scene:add(tycho.GameObject.new({ name = "camera", position = { x = 0, y = 0, z = 3 } }))
camera:addComponent(tycho.Camera.perspective(60, 0.1, 100))

engine:beforeRender(function() tycho.draw.text("HUD on top", 88, 4, { color = { 1, 1, 1, 1 } }) end)
