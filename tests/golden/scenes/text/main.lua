-- Golden scene: TrueType text through tycho.draw: the shipped font at three sizes, Latin
-- with kerning pairs, Cyrillic and Greek, a glyph the font lacks (a box), wrapped and
-- right-aligned lines, and a font loaded from a file, over a flat background.
local tycho = require("tycho")
local engine = tycho.engine

engine:setPreset(tycho.presets.forward({ sky = { kind = "color", color = { 0.1, 0.1, 0.16 } }, taa = false, shadow = false }))
local here = debug.getinfo(1, "S").source:sub(2):match("^(.*)/[^/]*$")
local big = assert(tycho.font.load(here .. "/../../../../content/fonts/DejaVuSans.ttf", 24))

engine:beforeRender(function()
  local draw = tycho.draw
  draw.text("AVAWAY To", 4, 2, { font = big, color = { 1, 0.9, 0.3, 1 } })
  draw.text("Привет, мир", 4, 30, { font = tycho.font.default(16) })
  draw.text("αβγ ΩΣ λ", 4, 50, { font = tycho.font.default(16), color = { 0.5, 1, 0.6, 1 } })
  draw.text("small 10px 你", 4, 72, { font = tycho.font.default(10), color = { 0.7, 0.8, 1, 1 } })
  draw.text("wrapped and right aligned", 60, 88, { width = 96, align = "right", color = { 1, 0.6, 0.8, 1 } })
end)
