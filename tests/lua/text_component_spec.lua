-- tests/lua/text_component_spec.lua: the Text component (scripts/tycho/text.lua), headless:
-- its options, their errors, and that a scene holding Texts renders frames (drawing itself
-- is the golden image tests/golden/world_text.png).

local GameObject = tycho.GameObject
local Engine = require("tycho.engine")

local function errorOf(fn)
  local ok, err = pcall(fn)
  assert.is_false(ok, "expected an error")
  return err
end

describe("tycho.Text", function()
  it("takes the documented options, with defaults", function()
    local t = tycho.Text.new({ text = "Hello" })
    assert.equals("Hello", t.text)
    assert.equals("left", t.align)
    assert.equals(0, t.width)
    assert.equals(16, t.font:getSize())
    local font = tycho.font.default(24)
    t = tycho.Text.new({ text = "x", font = font, color = { 1, 0, 0, 1 }, align = "center", width = 100, pixelsPerUnit = 50 })
    assert.equals(font, t.font)
    assert.equals("center", t.align)
    assert.equals(100, t.width)
    assert.equals(50, t.pixelsPerUnit)
  end)

  it("names the option that is wrong", function()
    assert.matches("bad argument #1 to 'new' %(table expected, got nil%)", errorOf(function() tycho.Text.new() end))
    assert.matches("%(text: string expected, got nil%)", errorOf(function() tycho.Text.new({}) end))
    assert.matches("%(font: Font expected, got string%)", errorOf(function() tycho.Text.new({ text = "a", font = "Vera" }) end))
    assert.matches("%(align:", errorOf(function() tycho.Text.new({ text = "a", align = "top" }) end))
    assert.matches("%(width:", errorOf(function() tycho.Text.new({ text = "a", width = -1 }) end))
    assert.matches("%(pixelsPerUnit:", errorOf(function() tycho.Text.new({ text = "a", pixelsPerUnit = 0 }) end))
  end)

  it("renders frames with Texts on objects, headless, and follows edits", function()
    local engine = Engine.new({ headless = true, width = 64, height = 64 })
    local go = engine.scene:add(GameObject.new("label"))
    local t = go:addComponent(tycho.Text.new({ text = "score 0", align = "right" }))
    local errors = {}
    engine.scene.onError = function(message) errors[#errors + 1] = message end
    for i = 1, 3 do
      t.text = "score " .. i
      engine:step(1 / 60)
    end
    assert.same({}, errors)
    assert.equals(0, (tycho.draw.queued()))
  end)
end)
