-- Golden scene: tycho.draw shapes in both modes: filled and outlined rectangles and
-- circles, lines of two widths, translucent overlap, and an image, in call order.
local tycho = require("tycho")
local engine = tycho.engine

engine:setPreset(tycho.presets.forward({ sky = { kind = "color", color = { 0.05, 0.05, 0.1 } }, taa = false, shadow = false }))
local here = debug.getinfo(1, "S").source:sub(2):match("^(.*)/[^/]*$")
local ship = assert(tycho.texture.load(here .. "/../../../../examples/arcade/assets/ship.png"))

engine:beforeRender(function()
  local draw = tycho.draw
  draw.rect("fill", 8, 8, 40, 30, { 0.9, 0.2, 0.2, 1 })
  draw.rect("line", 56, 8, 40, 30, { 0.2, 0.9, 0.2, 1 })
  draw.circle("fill", 124, 24, 16, { 0.2, 0.4, 1, 1 })
  draw.circle("line", 28, 70, 18, { 1, 1, 0.2, 1 })
  draw.rect("fill", 40, 50, 40, 30, { 1, 1, 1, 0.5 })
  draw.line(60, 100, 150, 60, { 1, 0.5, 0, 1 }, 3)
  draw.line(8, 112, 150, 112, { 0.8, 0.8, 0.8, 1 })
  draw.image(ship, 100, 70, { scale = 2, color = { 1, 1, 1, 1 } })
end)
