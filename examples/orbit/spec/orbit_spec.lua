-- Runs examples/orbit headless and checks what it simulates.
local testing = require("tycho.testing")
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
end)
