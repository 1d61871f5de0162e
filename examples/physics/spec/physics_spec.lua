-- Runs examples/physics headless: the ball hits the tower and the tower falls; the walker
-- climbs the slope and comes back down. Then renders it offscreen and checks the screenshot.
local testing = require("tycho.testing")
local tycho = require("tycho")
local dir = testing.here() .. "/.."

local function named(scene, name)
  local out = {}
  for _, go in ipairs(scene.roots) do
    if go.name == name then out[#out + 1] = go end
  end
  return out
end

describe("examples/physics", function()
  it("stands a tower of 32 boxes until the ball comes", function()
    local engine = testing.runGame(dir, 25) -- under half a second: no ball yet
    local boxes = named(engine.scene, "box")
    assert.equals(32, #boxes)
    assert.equals(0, #named(engine.scene, "ball"))
    local top = 0
    for _, b in ipairs(boxes) do top = math.max(top, b.position.y) end
    assert.near(7.5, top, 0.1)
  end)

  it("throws a ball that hits the tower, and the tower falls", function()
    local engine = testing.runGame(dir, 300) -- five seconds
    local ball = named(engine.scene, "ball")[1]
    assert.truthy(ball, "no ball thrown")
    local hits = ball:getComponent(tycho.component("examples.physics.Ball")).hits
    assert.truthy(hits and hits > 0, "the ball hit no box")
    local top, fallen = 0, 0
    for _, b in ipairs(named(engine.scene, "box")) do
      local p = b.position
      assert.truthy(p.x == p.x and p.y == p.y and p.z == p.z)
      top = math.max(top, p.y)
      if p.y < 2.6 then fallen = fallen + 1 end
    end
    assert.truthy(top < 4, ("the tower still stands %.2f high"):format(top))
    assert.truthy(fallen >= 24, ("only %d of 32 boxes lie low"):format(fallen))
  end)

  it("walks the character up the slope and back down", function()
    local engine = testing.runGame(dir, 1)
    local walker = named(engine.scene, "walker")[1]
    local y0 = walker.position.y
    local high, x0 = y0, walker.position.x
    for _ = 1, 170 do
      engine:step(1 / 60)
      high = math.max(high, walker.position.y)
    end
    assert.truthy(walker.position.x < x0 - 4, "it did not walk")
    assert.truthy(high > y0 + 1.2, ("it climbed only %.2f"):format(high - y0))
    for _ = 1, 180 do engine:step(1 / 60) end
    assert.truthy(walker.position.y < high - 1, "it did not come back down")
    assert.near(0, walker.rotation.z, 1e-3) -- upright: its rotation is locked
  end)

  it("renders offscreen to a screenshot that is not flat", function()
    local out = os.tmpname() .. ".png"
    local code, log = testing.shell(("SDL_VIDEODRIVER=offscreen %s run %s --frames 40 --screenshot %s --width 200 --height 150")
      :format(testing.quote(tycho.executable), testing.quote(dir), testing.quote(out)))
    assert.equals(0, code, log)
    local img = assert(tycho.image.load(out))
    os.remove(out)
    assert.equals(200, img.width)
    assert.equals(150, img.height)
    -- Distinct colours over a coarse grid: sky, ground, ramp, the boxes' two colours.
    local seen, count = {}, 0
    for y = 0, 149, 5 do
      for x = 0, 199, 5 do
        local i = (y * 200 + x) * 4 + 1
        local r, g, b = img.pixels:byte(i, i + 2)
        local k = (r // 16) * 256 + (g // 16) * 16 + (b // 16)
        if not seen[k] then seen[k], count = true, count + 1 end
      end
    end
    assert.is_true(count >= 8, ("only %d distinct colours"):format(count))
    -- Orange boxes somewhere in the picture: red well over blue.
    local orange = 0
    for i = 1, #img.pixels, 4 * 7 do
      local r, _, b = img.pixels:byte(i, i + 2)
      if r > b + 60 then orange = orange + 1 end
    end
    assert.is_true(orange > 20, ("only %d orange samples"):format(orange))
  end)
end)
