-- tests/lua/draw_spec.lua: tycho.draw (bindings/lua_draw.c over engine/render/draw2d.h),
-- headless: every argument is checked as with a window, and the queue drops every call,
-- so nothing is kept. What it draws is tested by the golden images (tests/golden).

local draw = tycho.draw

-- The message of the error fn raises.
local function errorOf(fn)
  local ok, err = pcall(fn)
  assert.is_false(ok, "expected an error")
  return err
end

describe("tycho.draw", function()
  before_each(function() draw.clear() end)

  it("accepts every documented call and drops them headless", function()
    local font = tycho.font.default(14)
    draw.text("Score: 10", 10, 10)
    draw.text("wrapped text, centred", 10, 30, { font = font, color = { 1, 0, 0 }, align = "center", width = 80 })
    draw.text(42, 0, 0) -- a number prints as LÖVE's print does
    draw.rect("fill", 1, 2, 3, 4)
    draw.rect("line", 1, 2, 3, 4, { 0, 1, 0, 0.5 })
    draw.circle("fill", 50, 50, 10)
    draw.circle("line", 50, 50, 10, { 1, 1, 1 })
    draw.line(0, 0, 10, 10)
    draw.line(0, 0, 10, 10, { 1, 0, 0, 1 }, 3)
    draw.image(tycho.texture.new(2, 2), 5, 5, { rect = { 0, 0, 1, 1 }, scale = 2, rotation = 0.5, color = { 1, 1, 1 } })
    local quads, draws = draw.queued()
    assert.equals(0, quads)
    assert.equals(0, draws)
  end)

  it("names the argument a wrong mode, number or colour came in", function()
    assert.matches("bad argument #1 to 'rect' %(invalid option 'solid'%)", errorOf(function() draw.rect("solid", 0, 0, 1, 1) end))
    assert.matches("bad argument #3 to 'rect' %(number expected, got string%)", errorOf(function() draw.rect("fill", 0, "y", 1, 1) end))
    assert.matches("bad argument #6 to 'rect'", errorOf(function() draw.rect("fill", 0, 0, 1, 1, "red") end))
    assert.matches("bad argument #5 to 'circle'", errorOf(function() draw.circle("fill", 0, 0, 1, { "r", 0, 0 }) end))
    assert.matches("bad argument #4 to 'circle' %(radius", errorOf(function() draw.circle("line", 0, 0, -1) end))
    assert.matches("bad argument #4 to 'line'", errorOf(function() draw.line(0, 0, 1) end))
    assert.matches("bad argument #6 to 'line' %(width", errorOf(function() draw.line(0, 0, 1, 1, nil, -2) end))
  end)

  it("names the text option that is wrong", function()
    assert.matches("bad argument #1 to 'text' %(string expected, got nil%)", errorOf(function() draw.text(nil, 0, 0) end))
    assert.matches("bad argument #4 to 'text' %(font: Font expected, got number%)",
      errorOf(function() draw.text("x", 0, 0, { font = 3 }) end))
    assert.matches("bad argument #4 to 'text' %(font: Font expected",
      errorOf(function() draw.text("x", 0, 0, { font = tycho.texture.new(1, 1) }) end))
    assert.matches("bad argument #4 to 'text' %(align:", errorOf(function() draw.text("x", 0, 0, { align = "middle" }) end))
    assert.matches("bad argument #4 to 'text' %(width:", errorOf(function() draw.text("x", 0, 0, { width = -5 }) end))
    assert.matches("bad argument #4 to 'text' %(color:", errorOf(function() draw.text("x", 0, 0, { color = 1 }) end))
  end)

  it("names the image argument that is wrong", function()
    assert.matches("bad argument #1 to 'image' %(Texture expected", errorOf(function() draw.image("ship.png", 0, 0) end))
    local tex = tycho.texture.new(1, 1)
    assert.matches("bad argument #4 to 'image' %(rect:", errorOf(function() draw.image(tex, 0, 0, { rect = { 1, 2 } }) end))
    assert.matches("bad argument #4 to 'image' %(scale:", errorOf(function() draw.image(tex, 0, 0, { scale = "2" }) end))
  end)

  it("costs nothing headless: 10,000 text calls queue nothing", function()
    for i = 1, 10000 do draw.text("line " .. i, 0, i) end
    assert.equals(0, (draw.queued()))
  end)
end)
