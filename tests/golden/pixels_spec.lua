-- tests/golden/pixels_spec.lua: exact pixel values. Each scene under scenes/ renders through
-- `tycho run --frames 2 --screenshot` at 160 x 120 (as golden_spec.lua does) and the spec
-- reads chosen pixels back from the PNG: colours a game asks for must reach the screen as
-- the bytes the docs promise, with no tolerance. Needs a GL 4.5 context (ctest runs it with
-- SDL_VIDEODRIVER=offscreen).
local testing = require("tycho.testing")
local tycho = require("tycho")

local here = testing.here()
local WIDTH, HEIGHT = 160, 120

local function render(name, env, frames)
  local out = os.tmpname() .. ".png"
  local cmd = ("%s%s run %s %s --screenshot %s --width %d --height %d"):format(
    env or "", testing.quote(tycho.executable), testing.quote(here .. "/scenes/" .. name),
    frames or "--frames 2 --dt 0.016666667", testing.quote(out), WIDTH, HEIGHT)
  local code, log = testing.shell(cmd)
  assert(code == 0, ("rendering %s failed (exit %s):\n%s"):format(name, tostring(code), log))
  local img, err = tycho.image.load(out)
  os.remove(out)
  assert(img, err)
  assert.equals(WIDTH, img.width)
  assert.equals(HEIGHT, img.height)
  return img
end

---r, g, b, a of the pixel at column x, row y (0-based, row 0 at the top).
local function pixel(img, x, y)
  local i = (y * img.width + x) * 4 + 1
  return img.pixels:byte(i, i + 3)
end

local function rgb(img, x, y)
  local r, g, b = pixel(img, x, y)
  return ("%d,%d,%d"):format(r, g, b)
end

describe("pixels", function()
  it("a black sky and a black ambient read back black: zero is a colour, not 'unset'", function()
    local img = render("black_sky")
    local lit = 0
    for y = 0, HEIGHT - 1, 3 do
      for x = 0, WIDTH - 1, 3 do
        local r, g, b = pixel(img, x, y)
        if r + g + b > 0 then lit = lit + 1 end
      end
    end
    assert.equals(0, lit, ("%d sampled pixels are not black; centre is %s"):format(lit, rgb(img, 80, 60)))
  end)
end)

describe("sprite edges", function()
  -- scenes/sprite_edges: three 48-pixel sprites centred on row 60 at columns 30, 80, 130.
  local TOP, BOTTOM = 36, 83
  local function bright(img, cx, y0, y1)
    local found
    for y = y0, y1 do
      for x = cx - 22, cx + 21 do
        local r, g, b = pixel(img, x, y)
        if math.max(r, g, b) > 100 then
          found = found or ("%d,%d at column %d, row %d"):format(r, g, math.floor(x), y)
        end
      end
    end
    return found
  end

  local img
  before_each(function() img = img or render("sprite_edges") end)

  it("a whole texture clamps: its bright top row never shows along the bottom edge", function()
    for _, cx in ipairs({ 30, 80 }) do
      assert.truthy(bright(img, cx, TOP, TOP + 3), "the top row did not draw at column " .. cx)
      local bleed = bright(img, cx, BOTTOM - 5, BOTTOM)
      assert.is_nil(bleed, ("bright pixel on the bottom edge of the sprite at column %d: %s"):format(cx, tostring(bleed)))
    end
  end)

  it("an atlas cell never samples its neighbour", function()
    local bleed = bright(img, 130, TOP, BOTTOM)
    assert.is_nil(bleed, "the dark cell shows its white neighbour: " .. tostring(bleed))
    local r, g, b = pixel(img, 130, 60)
    assert.is_true(r > 0 and r == g and g == b, ("the dark cell did not draw: %d,%d,%d"):format(r, g, b))
  end)
end)

describe("2D colours", function()
  -- scenes/colors2d: sprites on row 30, tycho.ui rectangles on row 90, at columns 20, 60,
  -- 100, 140: white, grey 0.5, {100/255, 0.2, 0.8}, a texture of bytes (200, 100, 50).
  -- Colours are sRGB like LÖVE's: a channel c shows as the byte c * 255 rounded, halves up.
  local EXPECTED = { "255,255,255", "128,128,128", "100,51,204", "200,100,50" }
  local img
  before_each(function() img = img or render("colors2d") end)

  it("sprites under an orthographic camera draw their colours exactly, untonemapped", function()
    for i, want in ipairs(EXPECTED) do
      assert.equals(want, rgb(img, 20 + 40 * (i - 1), 30), "sprite " .. i)
    end
  end)

  it("tycho.ui draws the same bytes, textures included", function()
    for i, want in ipairs(EXPECTED) do
      assert.equals(want, rgb(img, 20 + 40 * (i - 1), 90), "ui rectangle " .. i)
    end
  end)

  it("the background with no sky is black", function()
    assert.equals("0,0,0", rgb(img, 80, 60))
  end)

  it("every preset draws sprites the same way", function()
    for _, preset in ipairs({ "forwardPlus", "deferred" }) do
      local other = render("colors2d", "TYCHO_PIXELS_PRESET=" .. preset .. " ")
      for i, want in ipairs(EXPECTED) do
        assert.equals(want, rgb(other, 20 + 40 * (i - 1), 30), preset .. ": sprite " .. i)
      end
    end
  end)
end)

describe("physics interpolation", function()
  -- scenes/interpolation: a white sprite 20 pixels wide on a body that one 1/60 s step moves
  -- from x = 0 to x = 1 (20 pixels); the 0.025 s frame draws it with alpha 0.5.
  local FRAME = "--frames 1 --dt 0.025"
  local function lit(img, x) return (pixel(img, x, 60)) > 200 end

  it("draws a body between its last two steps, at the stepped pose when switched off", function()
    local blended = render("interpolation", nil, FRAME)
    assert.is_true(lit(blended, 82) and lit(blended, 97), "drawn at x = 0.5: columns 80..99")
    assert.is_false(lit(blended, 77) or lit(blended, 102))
    local stepped = render("interpolation", "TYCHO_SPEC_INTERPOLATE=0 ", FRAME)
    assert.is_true(lit(stepped, 92) and lit(stepped, 107), "drawn at x = 1: columns 90..109")
    assert.is_false(lit(stepped, 87) or lit(stepped, 112))
  end)
end)
