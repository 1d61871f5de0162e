-- tests/lua/font_spec.lua: TrueType fonts (bindings/lua_text.c over engine/text/):
-- loading and its failures, metrics, shaping, wrap widths and the glyph atlas's bounds,
-- as ../shared/API.md "2D drawing and text" states. Headless: nothing here needs a window.

local FONT = tycho.home .. "/content/fonts/DejaVuSans.ttf"

local function tmpFile(contents)
  local path = os.tmpname() .. ".ttf"
  local f = assert(io.open(path, "wb"))
  f:write(contents)
  f:close()
  return path
end

describe("tycho.font", function()
  it("loads the shipped font and a file, with metrics that fit together", function()
    local f = assert(tycho.font.default(16))
    assert.equals(16, f:getSize())
    assert.is_true(f:getAscent() > 0 and f:getDescent() > 0)
    assert.is_true(f:getHeight() >= f:getAscent() + f:getDescent())
    assert.is_true(f:getHeight() < 16 * 1.6)
    local g = assert(tycho.font.load(FONT, 32))
    assert.equals(32, g:getSize())
    assert.equals(tycho.font.default(16), tycho.font.default(16)) -- one Font per size
    assert.equals(12, tycho.font.default():getSize())             -- LÖVE's default size
  end)

  it("returns nil and a message for a missing file", function()
    local f, err = tycho.font.load("/no/such/dir/font.ttf", 12)
    assert.is_nil(f)
    assert.matches("/no/such/dir/font.ttf", err, 1, true)
  end)

  it("returns nil and a message for a corrupt or truncated font", function()
    local path = tmpFile("this is not a font file at all")
    local f, err = tycho.font.load(path, 12)
    assert.is_nil(f)
    assert.matches("not a font", err, 1, true)
    local real = assert(io.open(FONT, "rb")):read("a")
    os.remove(path)
    path = tmpFile(real:sub(1, 2000)) -- a real header, its tables cut off
    f, err = tycho.font.load(path, 12)
    os.remove(path)
    assert.is_nil(f)
    assert.is_string(err)
  end)

  it("raises a bad-argument error for a size out of range", function()
    assert.has_error(function() tycho.font.load(FONT, 0) end)
    local ok, err = pcall(tycho.font.load, FONT, 10000)
    assert.is_false(ok)
    assert.matches("bad argument #2", err, 1, true)
    ok, err = pcall(tycho.font.default, -1)
    assert.is_false(ok)
    assert.matches("bad argument #1", err, 1, true)
  end)

  it("getWidth never shrinks as a string grows, and is 0 for nothing", function()
    local f = tycho.font.default(14)
    local s = "Typography: AVAW fi ffl Привет αβγ 12345!"
    assert.equals(0, f:getWidth(""))
    local last = 0
    for i = 1, utf8.len(s) do
      local w = f:getWidth(s:sub(1, utf8.offset(s, i + 1) - 1))
      assert.is_true(w >= last, ("width fell at character %d: %g < %g"):format(i, w, last))
      last = w
    end
    assert.is_true(last > 200)
  end)

  it("scales with the size and measures the widest line", function()
    local small, big = tycho.font.load(FONT, 12), tycho.font.load(FONT, 48)
    local ws, wb = small:getWidth("Hello, world"), big:getWidth("Hello, world")
    assert.is_true(math.abs(wb / ws - 4) < 0.4, ("48 px is %gx 12 px"):format(wb / ws))
    assert.equals(small:getWidth("a much longer line"), small:getWidth("short\na much longer line\nmid"))
  end)

  it("shapes: kerning pulls AV together", function()
    local f = tycho.font.default(32)
    assert.is_true(f:getWidth("AV") < f:getWidth("A") + f:getWidth("V"))
  end)

  it("measures Cyrillic and Greek, and gives a missing glyph (a box) an advance", function()
    local f = tycho.font.default(16)
    assert.is_true(f:getWidth("Привет") > f:getWidth("При"))
    assert.is_true(f:getWidth("ΩΣλ") > 0)
    assert.is_true(f:getWidth("你") > 0)
  end)

  describe("wrap", function()
    local f = tycho.font.default(12)
    local text = "the quick brown fox jumps over the lazy dog and keeps on running far away"

    it("keeps every line within the width and every character, in order", function()
      for _, width in ipairs({ 40, 80, 120, 200, 1000 }) do
        local lines, widest = f:wrap(text, width)
        for _, line in ipairs(lines) do
          assert.is_true(f:getWidth(line) <= width, ("%q is wider than %d"):format(line, width))
          assert.is_nil(line:find("^ ") or line:find(" $"))
        end
        assert.equals(text:gsub(" ", ""), (table.concat(lines):gsub(" ", "")))
        -- Where every word fits, lines break only between words.
        if width >= 80 then assert.equals(text, table.concat(lines, " ")) end
        local most = 0
        for _, line in ipairs(lines) do most = math.max(most, f:getWidth(line)) end
        assert.equals(most, widest)
      end
    end)

    it("uses fewer lines as the width grows", function()
      local last = math.huge
      for width = 40, 400, 40 do
        local n = #f:wrap(text, width)
        assert.is_true(n <= last)
        last = n
      end
      assert.equals(1, #f:wrap(text, f:getWidth(text)))
    end)

    it("wraps a long paragraph whole, a line at a time", function()
      local words = {}
      for i = 1, 20000 do words[i] = "w" .. i end
      local long = table.concat(words, " ")
      local t0 = tycho.now()
      local lines = f:wrap(long, 200)
      -- Shaping the rest of the paragraph for every line would take seconds here.
      assert.is_true(tycho.now() - t0 < 2, "wrap took " .. (tycho.now() - t0) .. " s")
      assert.is_true(#lines > 500)
      assert.equals(long, table.concat(lines, " "))
      for i = 1, #lines, 97 do assert.is_true(f:getWidth(lines[i]) <= 200) end
    end)

    it("breaks at newlines, keeping empty lines", function()
      local lines = f:wrap("one\n\ntwo", 1000)
      assert.same({ "one", "", "two" }, lines)
    end)

    it("breaks a word wider than the width between glyphs", function()
      local lines = f:wrap("Supercalifragilistic", 30)
      assert.is_true(#lines > 2)
      assert.equals("Supercalifragilistic", table.concat(lines))
      for _, line in ipairs(lines) do assert.is_true(#line >= 1) end
    end)

    it("raises for a negative width and a non-string", function()
      local ok, err = pcall(function() return f:wrap("x", -1) end)
      assert.is_false(ok)
      assert.matches("bad argument #2 to 'wrap'", err, 1, true) -- a method call: self is not counted
      ok, err = pcall(function() return f:getWidth({}) end)
      assert.is_false(ok)
      assert.matches("bad argument #1 to 'getWidth'", err, 1, true)
    end)
  end)

  describe("the glyph atlas", function()
    it("holds 10,000 distinct CJK characters the font lacks as one box", function()
      local f = tycho.font.load(FONT, 20)
      local before = tycho.font.stats()
      local chars = {}
      for cp = 0x4E00, 0x4E00 + 9999 do chars[#chars + 1] = utf8.char(cp) end
      local s = table.concat(chars)
      f:preload(s)
      local after = tycho.font.stats()
      assert.equals(1, after.glyphs - before.glyphs)
      assert.is_true(f:getWidth(s) > 9999 * 5)
    end)

    it("never overflows with 10,000 distinct glyphs at large sizes: pages are reused", function()
      local chars = {}
      for cp = 0x21, 0x24FF do chars[#chars + 1] = utf8.char(cp) end
      local s = table.concat(chars)
      local before = tycho.font.stats()
      local fonts = {}
      for _, size in ipairs({ 24, 48, 96, 160 }) do
        fonts[#fonts + 1] = tycho.font.load(FONT, size)
        fonts[#fonts]:preload(s)
      end
      local after = tycho.font.stats()
      assert.is_true(after.glyphs - before.glyphs >= 10000, ("only %d glyphs"):format(after.glyphs - before.glyphs))
      assert.is_true(after.pages <= after.maxPages)
      assert.is_true(after.evictions > before.evictions)
      -- Evicted glyphs come back on the next use.
      fonts[1]:preload("Hello")
      assert.equals(fonts[1]:getWidth("Hello"), tycho.font.load(FONT, 24):getWidth("Hello"))
    end)
  end)
end)
