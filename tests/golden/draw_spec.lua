-- tests/golden/draw_spec.lua: tycho.draw with a window (SDL_VIDEODRIVER=offscreen in ctest):
-- the queue batches runs of one texture into one draw each and empties once drawn (scene
-- draw_queue), colours reach the screen as the bytes asked for, and text sits inside the
-- box whose top-left it was given (scenes shapes and text; golden_spec.lua compares them
-- whole).
local testing = require("tycho.testing")
local tycho = require("tycho")

local here = testing.here()
local WIDTH, HEIGHT = 160, 120

local function run(name, extra)
  local cmd = ("%s run %s --no-watch --width %d --height %d %s"):format(testing.quote(tycho.executable),
    testing.quote(here .. "/scenes/" .. name), WIDTH, HEIGHT, extra)
  local code, log = testing.shell(cmd)
  assert(code == 0, ("running %s failed (exit %s):\n%s"):format(name, tostring(code), log))
  return log
end

local function render(name)
  local out = os.tmpname() .. ".png"
  run(name, "--frames 2 --dt 0.016666667 --screenshot " .. testing.quote(out))
  local img = assert(tycho.image.load(out))
  os.remove(out)
  return img
end

local function rgb(img, x, y)
  local i = (y * img.width + x) * 4 + 1
  return ("%d,%d,%d"):format(img.pixels:byte(i, i + 2))
end

describe("tycho.draw with a window", function()
  it("draws a run of one texture as one draw and empties the queue each frame", function()
    local log = run("draw_queue", "--frames 3")
    local frames = 0
    for frame, quads, draws in log:gmatch("frame (%d+) queued: (%d+) quads, (%d+) draws") do
      frames = frames + 1
      assert.is_true(tonumber(quads) > 100 + 400, ("frame %s queued only %s quads"):format(frame, quads))
      assert.equals("3", draws) -- text, rectangles, text
    end
    assert.equals(3, frames)
    local afters = 0
    for quads, calls in log:gmatch("after: (%d+) quads, draw calls (%d+)") do
      afters = afters + 1
      assert.equals("0", quads)
      -- The preset's sky and tonemap passes, then three for the queue.
      assert.equals("5", calls)
    end
    assert.equals(3, afters)
  end)

  it("fills and outlines with the colour's bytes", function()
    local img = render("shapes")
    assert.equals("230,51,51", rgb(img, 20, 20))  -- fill {0.9, 0.2, 0.2}
    assert.equals("51,230,51", rgb(img, 56, 20))  -- the outline's left edge
    assert.equals("51,230,51", rgb(img, 95, 8))   -- its top-right corner
    assert.are_not.equals("51,230,51", rgb(img, 60, 20)) -- inside the outline: background
    assert.equals("51,102,255", rgb(img, 124, 24)) -- the filled circle's centre
  end)

  it("keeps text inside its box: nothing above or left of its top-left corner", function()
    local img = render("text")
    local bg = rgb(img, 150, 1)
    for x = 0, WIDTH - 1 do
      assert.equals(bg, rgb(img, x, 0), ("text above its box at column %d"):format(x))
      assert.equals(bg, rgb(img, x, 1), ("text above its box at column %d"):format(x))
    end
    for y = 0, 70 do
      for x = 0, 3 do assert.equals(bg, rgb(img, x, y), ("text left of its box at %d,%d"):format(x, y)) end
    end
    local lit = 0
    for x = 4, 100 do
      if rgb(img, x, 12) ~= bg then lit = lit + 1 end
    end
    assert.is_true(lit > 20, "the first line drew nothing")
  end)
end)

describe("the engine's own text", function()
  -- Pixels of img in [x0, x1] x [y0, y1] whose bytes satisfy pick.
  local function count(img, x0, y0, x1, y1, pick)
    local n = 0
    for y = y0, y1 do
      for x = x0, x1 do
        local i = (y * img.width + x) * 4 + 1
        if pick(img.pixels:byte(i, i + 2)) then n = n + 1 end
      end
    end
    return n
  end

  it("draws the debug overlay's panel and its TrueType text in its corner", function()
    local img = render("engine_text")
    -- The overlay's panel (black at 200/255 over the sky: about a fifth of its bytes) from
    -- 8,8, nothing of it in the margin, its first line white.
    local panel = function(r, g, b) return r < 30 and g < 30 and b < 40 end
    assert.equals(0, count(img, 0, 0, 6, 60, panel), "the panel reaches into the margin")
    assert.is_true(count(img, 8, 8, 60, 40, panel) > 300,
      "no dark panel in the top-left corner")
    -- A 120-line frame gets the overlay's smallest text (8 pixels): its first line's glyphs
    -- are thin, so light grey counts as white.
    assert.is_true(count(img, 10, 10, 150, 22, function(r, g, b) return r > 160 and g > 160 and b > 160 end) > 40,
      "the overlay's first line drew nothing white")
  end)

  it("draws tycho.ui text in its box", function()
    local img = render("ui_text")
    local yellow = function(r, g, b) return r > 150 and g > 150 and b < 90 end
    assert.is_true(count(img, 4, 100, 80, 116, yellow) > 15, "tycho.ui.text drew nothing yellow")
    assert.equals(0, count(img, 0, 0, 159, 99, yellow), "yellow above the text's box")
    assert.equals(0, count(img, 0, 100, 3, 119, yellow), "yellow left of the text's box")
  end)

  it("hides world text behind the scene's surfaces and draws it over them in front", function()
    local img = render("text_behind")
    local yellow = function(r, g, b) return r > 150 and g > 150 and b < 100 end
    -- HIDDEN's left half shows left of the cube; nothing yellow over the cube's face.
    assert.is_true(count(img, 50, 55, 86, 75, yellow) > 15, "the label's visible half is missing")
    assert.equals(0, count(img, 92, 56, 118, 66, yellow), "the label shows through the cube")
    -- "front" (light blue) over the cube's face.
    assert.is_true(count(img, 90, 64, 118, 80, function(r, g, b) return b > 200 and g > 180 and r < 200 end) > 10,
      "the label in front of the cube is hidden")
  end)
end)
