-- tests/golden/golden_spec.lua: golden-image tests. Each scene under scenes/ renders
-- through `tycho run --frames 2 --screenshot` at 160 x 120 with a fixed frame delta and no
-- TAA, and is compared with the reference NAME.png beside this file: a pixel matches when
-- every channel is within TOLERANCE, and at least MATCH of the pixels must match (llvmpipe
-- and GPU drivers differ a little at edges and in shadow filtering). On failure NAME.png.diff
-- is written: reference | rendered | mismatches in red. TYCHO_UPDATE_GOLDEN=1 rewrites the
-- references instead. Needs a GL 4.5 context: ctest runs it with SDL_VIDEODRIVER=offscreen.
local testing = require("tycho.testing")
local tycho = require("tycho")

local here = testing.here()
local WIDTH, HEIGHT = 160, 120
local TOLERANCE = 8
local MATCH = 0.995
local SCENES = { "forward", "forward_plus", "deferred", "sprites", "particles", "particles3d", "animation", "text", "shapes",
  "world_text", "text_behind" }
local update = os.getenv("TYCHO_UPDATE_GOLDEN") == "1"

local function render(name)
  local out = os.tmpname() .. ".png"
  local cmd = ("%s run %s --frames 2 --dt 0.016666667 --screenshot %s --width %d --height %d"):format(
    testing.quote(tycho.executable), testing.quote(here .. "/scenes/" .. name), testing.quote(out), WIDTH, HEIGHT)
  local code, log = testing.shell(cmd)
  assert(code == 0, ("rendering %s failed (exit %s):\n%s"):format(name, tostring(code), log))
  local img, err = tycho.image.load(out)
  os.remove(out)
  assert(img, err)
  return img, log
end

---Counts the pixels whose channels (r, g, b) are all within TOLERANCE; returns the count
---and a side-by-side diff image's pixels (reference | actual | red where they differ).
local function compare(ref, img)
  local a, b = ref.pixels, img.pixels
  local w, h = ref.width, ref.height
  local matched = 0
  local rows = {}
  for y = 0, h - 1 do
    local left, mid, right = {}, {}, {}
    for x = 0, w - 1 do
      local i = (y * w + x) * 4 + 1
      local r1, g1, b1 = a:byte(i, i + 2)
      local r2, g2, b2 = b:byte(i, i + 2)
      local ok = math.abs(r1 - r2) <= TOLERANCE and math.abs(g1 - g2) <= TOLERANCE and math.abs(b1 - b2) <= TOLERANCE
      if ok then matched = matched + 1 end
      left[#left + 1] = string.char(r1, g1, b1, 255)
      mid[#mid + 1] = string.char(r2, g2, b2, 255)
      if ok then
        local l = (r1 + g1 + b1) // 9 -- the reference, dimmed, for orientation
        right[#right + 1] = string.char(l, l, l, 255)
      else
        right[#right + 1] = "\255\0\0\255"
      end
    end
    rows[#rows + 1] = table.concat(left) .. table.concat(mid) .. table.concat(right)
  end
  return matched, table.concat(rows)
end

local function flatness(img)
  local lo, hi = 255, 0
  local p = img.pixels
  for i = 1, #p, 4 * 7 do
    local v = p:byte(i) + p:byte(i + 1) + p:byte(i + 2)
    if v < lo then lo = v end
    if v > hi then hi = v end
  end
  return hi - lo
end

describe("golden images", function()
  for _, name in ipairs(SCENES) do
    it(name, function()
      local img, log = render(name)
      assert.equals(WIDTH, img.width)
      assert.equals(HEIGHT, img.height)
      -- A flat image is a renderer that drew nothing: never a valid reference.
      assert.is_true(flatness(img) > 60, ("%s rendered a flat image:\n%s"):format(name, log))
      local refPath = ("%s/%s.png"):format(here, name)
      if update then
        assert(tycho.image.save(refPath, img.width, img.height, img.pixels))
        print(("golden: wrote %s"):format(refPath))
        return
      end
      local ref = tycho.image.load(refPath)
      assert(ref, ("no reference %s: render it with TYCHO_UPDATE_GOLDEN=1"):format(refPath))
      assert.equals(ref.width, img.width)
      assert.equals(ref.height, img.height)
      local matched, diff = compare(ref, img)
      local total = WIDTH * HEIGHT
      if matched < total * MATCH then
        local diffPath = refPath .. ".diff"
        tycho.image.save(diffPath, WIDTH * 3, HEIGHT, diff)
        error(("%s: %d of %d pixels differ by more than %d (at most %d may); see %s"):format(
          name, total - matched, total, TOLERANCE, math.floor(total * (1 - MATCH)), diffPath), 0)
      end
      os.remove(refPath .. ".diff")
    end)
  end
end)

describe("Lua fullscreen passes", function()
  it("two unnamed passes each run their own shader", function()
    local img, log = render("lua_passes")
    local i = ((HEIGHT // 2) * WIDTH + WIDTH // 2) * 4 + 1
    local r, g, b = img.pixels:byte(i, i + 2)
    assert.is_true(r > 150 and g > 150 and b < 60, ("centre is %d,%d,%d, not yellow:\n%s"):format(r, g, b, log))
  end)
end)

describe("the golden comparison", function()
  local function solid(w, h, r, g, b)
    return { width = w, height = h, pixels = string.rep(string.char(r, g, b, 255), w * h) }
  end

  it("accepts differences within the tolerance and counts those beyond it", function()
    local ref = solid(4, 2, 100, 100, 100)
    local near = solid(4, 2, 100 + TOLERANCE, 100 - TOLERANCE, 100)
    assert.equals(8, (compare(ref, near)))
    local far = solid(4, 2, 100, 100, 100 + TOLERANCE + 1)
    assert.equals(0, (compare(ref, far)))
  end)

  it("marks a mismatch red in the diff's third panel and survives a PNG round trip", function()
    local ref = solid(2, 1, 10, 20, 30)
    local img = { width = 2, height = 1, pixels = string.char(10, 20, 30, 255, 200, 20, 30, 255) }
    local matched, diff = compare(ref, img)
    assert.equals(1, matched)
    assert.equals(2 * 3 * 4, #diff)
    assert.equals("\255\0\0\255", diff:sub(21, 24))
    local path = os.tmpname() .. ".png"
    assert.is_true(tycho.image.save(path, 6, 1, diff))
    local back = assert(tycho.image.load(path))
    os.remove(path)
    assert.equals(6, back.width)
    assert.equals(diff, back.pixels)
  end)

  it("reports a file that is not an image as nil and a message", function()
    local img, err = tycho.image.load(here .. "/golden_spec.lua")
    assert.is_nil(img)
    assert.truthy(err:find("golden_spec.lua", 1, true))
  end)
end)
