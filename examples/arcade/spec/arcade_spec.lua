-- Drives examples/arcade headless with injected keys: the ship moves and fires, bullets
-- hit enemies, the score counts.
local testing = require("tycho.testing")
local tycho = require("tycho")
local dir = testing.here() .. "/.."

local function key(kind, name) tycho.input.inject({ type = kind, key = name }) end

local function gameOf(engine)
  return engine.scene:findOneByTag("game"):getComponent(tycho.component("ArcadeGame"))
end

local function step(engine, frames)
  for _ = 1, frames do engine:step(1 / 60) end
end

describe("examples/arcade", function()
  before_each(function() tycho.input.reset() end)
  after_each(function() tycho.input.reset() end)

  it("builds the field: a camera, the ship, sprites, enemies from the top", function()
    local engine = testing.runGame(dir, 60)
    local scene = engine.scene
    local ship = scene:findOneByTag("player")
    assert.truthy(ship)
    assert.truthy(ship:getComponent(tycho.Sprite))
    assert.truthy(scene:findCamera())
    local enemies = scene:findByTag("enemy")
    assert.equals(2, #enemies) -- one at once, one 0.9 s later
    assert.is_true(enemies[1].position.y < 6.5)
    assert.equals(0, #scene:findByTag("bullet")) -- nothing fired without input
    assert.equals(0, gameOf(engine).shots)
  end)

  it("moves the ship with the arrow keys and keeps it on the field", function()
    local engine = testing.runGame(dir, 1)
    local ship = engine.scene:findOneByTag("player")
    assert.near(0, ship.position.x, 1e-6)
    key("keydown", "right")
    step(engine, 30) -- half a second at 9 units/s
    assert.near(4.5, ship.position.x, 0.2)
    step(engine, 120)
    assert.near(7.5, ship.position.x, 1e-4) -- clamped at the edge
    key("keyup", "right")
    key("keydown", "a")
    step(engine, 10)
    assert.is_true(ship.position.x < 7.5)
  end)

  it("spawns bullets while space is held, at the fire rate, and drops them off the top", function()
    local engine = testing.runGame(dir, 1)
    key("keydown", "space")
    step(engine, 30) -- 0.5 s at one shot every 0.2 s: shots at 0, 0.2, 0.4
    local game = gameOf(engine)
    assert.equals(3, game.shots)
    local bullets = engine.scene:findByTag("bullet")
    assert.is_true(#bullets >= 2 and #bullets <= 3, #bullets)
    assert.is_true(bullets[1].position.y > bullets[#bullets].position.y) -- the first flies ahead
    key("keyup", "space")
    step(engine, 90) -- 1.5 s at 14 units/s: every bullet has left the field
    assert.equals(0, #engine.scene:findByTag("bullet"))
    assert.equals(3, game.shots)
  end)

  it("destroys an enemy a bullet hits and scores it", function()
    local engine = testing.runGame(dir, 1)
    local scene = engine.scene
    local game = gameOf(engine)
    local target = scene:spawn("enemy", { x = 0, y = 0, z = 0 })
    local id = target.id
    step(engine, 1)
    assert.equals(target, scene:findById(id))
    key("keydown", "space")
    step(engine, 40)
    assert.is_nil(scene:findById(id))
    assert.is_true(game.kills >= 1)
    assert.equals(10 * game.kills, game.score)
    assert.is_true(game.score >= 10)
  end)

  it("runs from the command line", function()
    local code, out = testing.exec("run", dir, "--headless", "--frames", "3")
    assert.equals(0, code, out)
    assert.truthy(out:find("score 0", 1, true), out)
  end)
end)
