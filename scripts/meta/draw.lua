---@meta tycho.draw
-- scripts/meta/draw.lua: LuaLS annotations for tycho.font, Font, tycho.draw and tycho.Text
-- (bindings/lua_text.c and bindings/lua_draw.c over engine/text/text.h and
-- engine/render/draw2d.h). Never loaded at run time; scripts/docs/reference.md lists them
-- under "2D drawing and text", scripts/docs/draw.md tells the story.

---A TrueType/OpenType face at one pixel size.
---@class tycho.Font
local Font = {}

---Pixels of the widest `\n`-separated line, shaped (kerning included).
---@param text string
---@return number
function Font:getWidth(text) end

---The distance between lines, in pixels.
---@return number
function Font:getHeight() end

---Pixels above the baseline.
---@return number
function Font:getAscent() end

---Pixels below the baseline (positive).
---@return number
function Font:getDescent() end

---The pixel size it was loaded at.
---@return number
function Font:getSize() end

---The lines text breaks into at this width: at `\n`, else at the last space that fits, else
---between glyphs; and the widest line's width.
---@param text string
---@param width number pixels, >= 0
---@return string[] lines
---@return number widest
function Font:wrap(text, width) end

---Rasterises text's glyphs into the glyph atlas now, so the first frame drawing them does not.
---@param text string
function Font:preload(text) end

---@class tycho.font
tycho.font = {}

---Loads a TrueType/OpenType file at size pixels.
---@param path string
---@param size? number (0, 512], default 12
---@return tycho.Font|nil font
---@return string|nil message when the file is missing, unreadable or not a font
function tycho.font.load(path, size) end

---The font the engine ships (DejaVu Sans), one Font per size.
---@param size? number default 12
---@return tycho.Font
function tycho.font.default(size) end

---@class tycho.FontStats
---@field pages integer atlas pages in use
---@field maxPages integer pages before the least recently used is reused
---@field glyphs integer glyphs rasterised since start
---@field evictions integer pages emptied for reuse since start

---@return tycho.FontStats
function tycho.font.stats() end

---Text on a GameObject, projected by the frame's camera and drawn over the scene, back to front.
---@class tycho.Text: tycho.Component
---@field text string|number
---@field font tycho.Font default tycho.font.default(16)
---@field color? tycho.Color
---@field align "left"|"center"|"right" where the object's origin sits on the box's top edge
---@field width number > 0: wraps to this many font pixels
---@field pixelsPerUnit? number font pixels per world unit; nil: the font's size
tycho.Text = {}

---@class tycho.TextOptions
---@field text string|number
---@field font? tycho.Font
---@field color? tycho.Color
---@field align? "left"|"center"|"right"
---@field width? number
---@field pixelsPerUnit? number

---@param opts tycho.TextOptions
---@return tycho.Text
function tycho.Text.new(opts) end

---@alias tycho.DrawMode "fill"|"line"
---@alias tycho.Color number[] {r, g, b [, a]} in 0..1, sRGB as given

---@class tycho.DrawTextOptions
---@field font? tycho.Font default tycho.font.default(12)
---@field color? tycho.Color
---@field align? "left"|"center"|"right"
---@field width? number wraps to this width and aligns each line in it

---@class tycho.DrawImageOptions
---@field rect? number[] {x, y, w, h} in the image's pixels
---@field scale? number|{x: number, y: number}
---@field rotation? number radians about the image's top-left
---@field color? tycho.Color

---Immediate-mode 2D drawing in screen pixels (top-left origin): queued, drawn over the next
---rendered frame in call order, then emptied; headless, dropped.
---@class tycho.draw
tycho.draw = {}

---@param str string|number
---@param x number the text box's left
---@param y number the text box's top
---@param opts? tycho.DrawTextOptions
function tycho.draw.text(str, x, y, opts) end

---@param mode tycho.DrawMode
---@param x number
---@param y number
---@param w number
---@param h number
---@param color? tycho.Color
function tycho.draw.rect(mode, x, y, w, h, color) end

---@param mode tycho.DrawMode
---@param x number centre
---@param y number centre
---@param r number radius, >= 0
---@param color? tycho.Color
function tycho.draw.circle(mode, x, y, r, color) end

---@param x1 number
---@param y1 number
---@param x2 number
---@param y2 number
---@param color? tycho.Color
---@param width? number pixels, default 1
function tycho.draw.line(x1, y1, x2, y2, color, width) end

---@param texture tycho.Texture
---@param x number
---@param y number
---@param opts? tycho.DrawImageOptions
function tycho.draw.image(texture, x, y, opts) end

---Quads and draws waiting for the next frame.
---@return integer quads
---@return integer draws
function tycho.draw.queued() end

---Drops the queue undrawn.
function tycho.draw.clear() end
