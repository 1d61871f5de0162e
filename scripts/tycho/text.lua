-- scripts/tycho/text.lua: the Text component (tycho.Text): a string on its GameObject, laid
-- out with a Font and drawn each rendered frame through tycho.draw's world text
-- (engine/render/draw2d.c): projected by the frame's camera, sorted back to front with the
-- other Texts and drawn over the scene, before the frame's tycho.draw calls. Its glyphs are
-- signed distance fields, so it stays sharp however large the camera shows it.
--
-- Units: the text is laid out in the font's pixels and `pixelsPerUnit` of them make one
-- world unit (default: the font's size, so a line is about one unit tall). Under an
-- orthographic camera of size S on a screen H pixels high, pixelsPerUnit = H / (2 * S)
-- draws the font pixel for pixel. The object's origin is the top of the text's box, at its
-- left edge, centre or right edge per `align`; lines run down the object's -Y.
local tycho = require("tycho")

local ALIGN = { left = true, center = true, right = true }

local function optError(key, msg) error(("bad argument #1 to 'new' (%s: %s)"):format(key, msg), 4) end

local function check(opts)
  if type(opts.text) ~= "string" and type(opts.text) ~= "number" then
    optError("text", "string expected, got " .. type(opts.text))
  end
  if opts.font ~= nil and (type(opts.font) ~= "userdata" or not tostring(opts.font):find("^Font")) then
    optError("font", "Font expected, got " .. type(opts.font))
  end
  if opts.color ~= nil and type(opts.color) ~= "table" then optError("color", "table expected, got " .. type(opts.color)) end
  if opts.align ~= nil and not ALIGN[opts.align] then
    optError("align", ("\"left\", \"center\" or \"right\" expected, got %s"):format(tostring(opts.align)))
  end
  if opts.width ~= nil and (type(opts.width) ~= "number" or opts.width < 0) then
    optError("width", "a number >= 0 expected")
  end
  if opts.pixelsPerUnit ~= nil and (type(opts.pixelsPerUnit) ~= "number" or opts.pixelsPerUnit <= 0) then
    optError("pixelsPerUnit", "a number > 0 expected")
  end
end

---@class tycho.Text: tycho.Component
local Text = tycho.component("Text")

function Text:init(opts)
  if type(opts) ~= "table" then error("bad argument #1 to 'new' (table expected, got " .. type(opts) .. ")", 3) end
  check(opts)
  self.text = opts.text
  self.font = opts.font or tycho.font.default(16)
  self.color = opts.color
  self.align = opts.align or "left"
  self.width = opts.width or 0
  self.pixelsPerUnit = opts.pixelsPerUnit
end

function Text:updateRender()
  local font = self.font
  tycho.draw._world(self.gameObject, self.text, font, self.color, self.align, self.width,
    self.pixelsPerUnit or font:getSize())
end

tycho.Text = Text
return Text
