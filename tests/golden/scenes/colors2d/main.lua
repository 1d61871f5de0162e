-- Pixel scene: 2D colours reach the screen exactly. Under an orthographic camera (size 3 at
-- 160 x 120: 20 pixels a world unit) and the plain forward preset, the top row holds
-- 30-pixel sprites centred on row 30: untextured white {1, 1, 1}, grey {0.5, 0.5, 0.5},
-- {100/255, 0.2, 0.8}, and a texture of the bytes (200, 100, 50) drawn with a white tint, at
-- columns 20, 60, 100, 140. The bottom row draws the same four through tycho.ui, as 30-pixel
-- rectangles centred on row 90. The sky is black (no Sky feature). TYCHO_PIXELS_PRESET
-- names another preset (forwardPlus, deferred): sprites take the same path through each.
local tycho = require("tycho")
local engine = tycho.engine
local scene = engine.scene

local preset = tycho.presets[os.getenv("TYCHO_PIXELS_PRESET") or "forward"]
engine:setPreset(preset({ sky = false, taa = false, shadow = false }))
engine:addFeature(tycho.ui.feature())

local swatch = tycho.texture.new(4, 4, string.rep("\200\100\50\255", 16), "swatch")
local colors = { { 1, 1, 1 }, { 0.5, 0.5, 0.5 }, { 100 / 255, 0.2, 0.8 } }

local function sprite(i, opts)
  local x = (20 + 40 * (i - 1) - 80) / 20
  local go = scene:add(tycho.GameObject.new({ name = "sprite" .. i, position = { x = x, y = 1.5, z = 0 }, scale = { x = 1.5, y = 1.5, z = 1 } }))
  go:addComponent(tycho.Sprite.new(opts))
end
for i, c in ipairs(colors) do sprite(i, { color = c }) end
sprite(4, { texture = swatch, color = { 1, 1, 1 }, nearest = true })

engine:beforeRender(function()
  for i, c in ipairs(colors) do tycho.ui.rect(5 + 40 * (i - 1), 75, 30, 30, c) end
  tycho.ui.rect(125, 75, 30, 30, { 1, 1, 1, 1 }, swatch)
end)

local camera = scene:add(tycho.GameObject.new({ name = "camera", position = { x = 0, y = 0, z = 10 } }))
camera:addComponent(tycho.Camera.orthographic(3, 0.1, 100))
