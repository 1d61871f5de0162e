-- Runs examples/orbit headless and checks what it simulates.
local testing = require("tycho.testing")
local tycho = require("tycho")
local dir = testing.here() .. "/.."

describe("examples/orbit", function()
  it("moves the moons along their planets' orbits", function()
    local engine = testing.runGame(dir, 60)
    local scene = engine.scene
    local planets = scene:findByTag("planet")
    assert.equals(3, #planets)
    assert.equals(60, scene.time.frameCount)
    local planet = planets[1]
    local moon = planet.children[1]
    -- A moon's world position is its planet's plus its own offset (the sun sits at 0).
    local pw, mw = planet.worldPosition, moon.worldPosition
    assert.near(pw.x + moon.position.x, mw.x, 1e-4)
    assert.near(pw.z + moon.position.z, mw.z, 1e-4)
    assert.near(4, math.sqrt(pw.x * pw.x + pw.z * pw.z), 1e-4)
  end)

  it("spawns comets from a prefab and destroys them when they burn out", function()
    local engine = testing.runGame(dir, 200)
    local comets = engine.scene:findByTag("comet")
    -- One comet every 30 ticks living 1.5 s (90 ticks): three alive at a time.
    assert.equals(3, #comets)
    for _, c in ipairs(comets) do assert.is_true(c.position.y < 10) end
  end)

  it("runs from the command line", function()
    local code, out = testing.exec("run", dir, "--headless", "--frames", "61")
    assert.equals(0, code, out)
    assert.truthy(out:find("t=1.0s planets=3", 1, true), out)
  end)

  it("draws the sun in the middle of a dark sky, with its planets around it", function()
    local out = os.tmpname() .. ".png"
    local code, log = testing.shell(("SDL_VIDEODRIVER=offscreen %s run %s --frames 30 --no-watch --screenshot %s --width 200 --height 150")
      :format(testing.quote(tycho.executable), testing.quote(dir), testing.quote(out)))
    assert.equals(0, code, log)
    local img = assert(tycho.image.load(out))
    os.remove(out)
    local function px(x, y)
      local i = (y * 200 + x) * 4 + 1
      return img.pixels:byte(i, i + 2)
    end
    local r, g, b = px(100, 75)
    assert.is_true(r > 180 and g > 150 and b < r, ("sun at the centre: %d %d %d"):format(r, g, b))
    r, g, b = px(3, 3)
    assert.is_true(r + g + b < 90, ("dark sky in the corner: %d %d %d"):format(r, g, b))
    -- Something other than sky and sun: the planets and moons, lit from the sun.
    local lit = 0
    for y = 0, 149 do
      for x = 0, 199 do
        local pr, pg, pb = px(x, y)
        local dx, dy = x - 100, y - 75
        if dx * dx + dy * dy > 20 * 20 and pr + pg + pb > 150 then lit = lit + 1 end
      end
    end
    assert.is_true(lit >= 10, ("lit pixels away from the sun: %d"):format(lit))
  end)
end)
