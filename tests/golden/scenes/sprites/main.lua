-- Golden scene: the 2D sprite path: an orthographic camera over the arcade's pixel-art
-- sprites (textured, tinted, a transparent one overlapping) on a dark background.
local tycho = require("tycho")
local engine = tycho.engine
local scene = engine.scene
local here = debug.getinfo(1, "S").source:sub(2):match("^(.*)/[^/]*$")
local assets = here .. "/../../../../examples/arcade/assets/"

engine:setPreset(tycho.presets.forward({ sky = { kind = "color", color = { 0.05, 0.05, 0.12 } }, taa = false, shadow = false }))

local ship = tycho.texture.load(assets .. "ship.png")
local enemy = tycho.texture.load(assets .. "enemy.png")
local function sprite(name, texture, x, y, size, color)
  local go = scene:add(tycho.GameObject.new({ name = name, position = { x = x, y = y, z = 0 }, scale = { x = size, y = size, z = 1 } }))
  go:addComponent(tycho.Sprite.new({ texture = texture, color = color }))
  return go
end
sprite("ship", ship, -2, -1, 2)
sprite("enemy", enemy, 2, 1, 2)
sprite("tinted", enemy, -2, 1.5, 1.5, { 1, 0.4, 0.4, 1 })
sprite("plain", nil, 1.5, -1.2, 1.5, { 0.2, 0.8, 0.9, 1 })
sprite("glass", nil, 2.2, -0.6, 1.5, { 1, 1, 1, 0.5 })

local camera = scene:add(tycho.GameObject.new({ name = "camera", position = { x = 0, y = 0, z = 10 } }))
camera:addComponent(tycho.Camera.orthographic(3, 0.1, 100))
