-- Pixel scene: sprites must not bleed from the opposite edge or from a neighbouring atlas
-- cell. An 8 x 8 texture with a white top row over dark grey is drawn whole, magnified six
-- times (6 pixels a texel), with linear and with nearest filtering; an 8 x 16 sheet whose top
-- cell is white and bottom cell dark grey is drawn as its dark cell alone (`rect`), linear.
-- Under an orthographic camera of size 3 at 160 x 120 a world unit is 20 pixels, so each
-- sprite (scale 2.4) is 48 pixels square, centred at x = -2.5, 0, 2.5 (columns 30, 80, 130).
local tycho = require("tycho")
local engine = tycho.engine
local scene = engine.scene

engine:setPreset(tycho.presets.forward({ sky = { kind = "color", color = { 0, 0, 0 } }, taa = false, shadow = false }))

local WHITE, DARK = "\255\255\255\255", "\40\40\40\255"
local function image(w, h, row)
  local rows = {}
  for y = 0, h - 1 do rows[#rows + 1] = row(y):rep(w) end
  return table.concat(rows)
end
local topRow = tycho.texture.new(8, 8, image(8, 8, function(y) return y == 0 and WHITE or DARK end), "top-row")
local sheet = tycho.texture.new(8, 16, image(8, 16, function(y) return y < 8 and WHITE or DARK end), "sheet")

local function sprite(name, x, opts)
  local go = scene:add(tycho.GameObject.new({ name = name, position = { x = x, y = 0, z = 0 }, scale = { x = 2.4, y = 2.4, z = 1 } }))
  go:addComponent(tycho.Sprite.new(opts))
end
sprite("linear", -2.5, { texture = topRow })
sprite("nearest", 0, { texture = topRow, nearest = true })
sprite("dark-cell", 2.5, { texture = sheet, rect = { 0, 8, 8, 8 } })

local camera = scene:add(tycho.GameObject.new({ name = "camera", position = { x = 0, y = 0, z = 10 } }))
camera:addComponent(tycho.Camera.orthographic(3, 0.1, 100))
