-- Drives examples/arcade headless with injected keys: the ship moves and fires, bullets
-- hit enemies, the score counts and shows, enemies cost lives, the game ends and starts
-- again.
local testing = require("tycho.testing")
local tycho = require("tycho")
local dir = testing.here() .. "/.."

local function key(kind, name) tycho.input.inject({ type = kind, key = name }) end

local function gameOf(engine)
  return engine.scene:findOneByTag("game"):getComponent(tycho.component("ArcadeGame"))
end

-- One frame as `tycho run` plays it: then the input edges close (a press lasts a frame).
local function step(engine, frames)
  for _ = 1, frames do
    engine:step(1 / 60)
    tycho.input.beginFrame()
  end
end

-- Records what the HUD draws with tycho.ui.text over `frames` frames (the last frame's).
local function hudText(engine, frames)
  local ui, real = tycho.ui, tycho.ui.text
  local seen
  engine:beforeFrame(function() seen = {} end)
  ui.text = function(x, y, text, ...)
    seen[#seen + 1] = text
    return real(x, y, text, ...)
  end
  local ok, err = pcall(step, engine, frames or 1)
  ui.text = real
  assert(ok, err)
  return table.concat(seen, "\n")
end

local function untilOver(engine, game, limit)
  for _ = 1, limit do
    if game.state == "over" then return true end
    step(engine, 1)
  end
  return game.state == "over"
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
    -- Enemies flap: their animation shows its two frames in turn on their Sprite.
    local anim = enemies[1]:getComponent(tycho.SpriteAnimation)
    assert.equals("fly", anim.clip)
    local frames = {}
    for _ = 1, 30 do
      step(engine, 1)
      frames[anim.frame] = enemies[1]:getComponent(tycho.Sprite).rect[1]
    end
    assert.same({ 0, 16 }, frames)
    -- The ship's engine keeps a flame of about rate * lifetime particles alive.
    local flame = scene:findOneByTag("player").children[1]:getComponent(tycho.ParticleSystem)
    assert.is_true(flame:getCount() >= 15 and flame:getCount() <= 19, tostring(flame:getCount()))
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
    -- The enemy burst into debris that physics throws up, drops and clears away.
    local debris = scene:findByTag("debris")
    assert.truthy(#debris >= 4, "no debris")
    local moved = false
    for _, d in ipairs(debris) do
      local p = d.position
      assert.truthy(p.x == p.x and p.y == p.y)
      if math.abs(d:getComponent(tycho.RigidBody2D).velocity.y) > 0.1 then moved = true end
    end
    assert.truthy(moved, "the debris does not move")
    -- And into sparks, 40 a hit, that fade within 0.6 s.
    local sparks
    for _, go in ipairs(scene.roots) do
      if go.name == "sparks" then sparks = go:getComponent(tycho.ParticleSystem) end
    end
    assert.equals(40 * game.kills, sparks:getEmitted())
    step(engine, 120)
    key("keyup", "space")
    step(engine, 120)
    assert.equals(0, #scene:findByTag("debris"))
  end)

  it("shows the score and the lives on screen", function()
    local engine = testing.runGame(dir, 1)
    local game = gameOf(engine)
    local hud = hudText(engine)
    assert.truthy(hud:find("SCORE 0", 1, true), hud)
    assert.truthy(hud:find("LIVES 3", 1, true), hud)
    engine.scene:spawn("enemy", { x = 0, y = 0, z = 0 })
    key("keydown", "space")
    step(engine, 40)
    key("keyup", "space")
    assert.is_true(game.score >= 10)
    hud = hudText(engine)
    assert.truthy(hud:find(("SCORE %d"):format(game.score), 1, true), hud)
  end)

  it("takes a life when an enemy rams the ship, and when one gets past it", function()
    local engine = testing.runGame(dir, 1)
    local scene = engine.scene
    local game = gameOf(engine)
    local ship = scene:findOneByTag("player")
    scene:spawn("enemy", { x = ship.position.x, y = ship.position.y + 0.3, z = 0 })
    step(engine, 2)
    assert.equals(2, game.lives)
    scene:spawn("enemy", { x = 6, y = ship.position.y - 0.5, z = 0 })
    step(engine, 30)
    assert.equals(1, game.lives)
    assert.equals("playing", game.state)
    assert.truthy(hudText(engine):find("LIVES 1", 1, true))
  end)

  it("ends with a game over screen and the score, and space or enter plays again", function()
    local engine = testing.runGame(dir, 1)
    local scene = engine.scene
    local game = gameOf(engine)
    -- Score a little first: an enemy straight above the ship, shot down.
    scene:spawn("enemy", { x = 0, y = 0, z = 0 })
    key("keydown", "space")
    step(engine, 40)
    key("keyup", "space")
    local score = game.score
    assert.is_true(score >= 10)
    -- Then stand still: the enemies get past, three lives go.
    assert.is_true(untilOver(engine, game, 60 * 20), "no game over in 20 s")
    assert.equals(0, game.lives)
    assert.equals(score, game.score)
    local hud = hudText(engine, 30)
    assert.truthy(hud:find("GAME OVER", 1, true), hud)
    assert.truthy(hud:find(("score %d"):format(score), 1, true), hud)
    assert.truthy(hud:find("press space or enter to play again", 1, true), hud)
    assert.equals(0, #scene:findByTag("enemy")) -- the field is cleared and stays so
    assert.equals(0, #scene:findByTag("bullet"))
    -- Enter plays again: a fresh score, full lives, enemies coming.
    key("keydown", "return")
    step(engine, 1)
    key("keyup", "return")
    assert.equals("playing", game.state)
    assert.equals(0, game.score)
    assert.equals(3, game.lives)
    step(engine, 60)
    assert.is_true(#scene:findByTag("enemy") >= 1)
    hud = hudText(engine)
    assert.truthy(hud:find("SCORE 0", 1, true), hud)
    assert.is_nil(hud:find("GAME OVER", 1, true), hud)
    -- Lose again; space restarts too.
    assert.is_true(untilOver(engine, game, 60 * 20))
    key("keydown", "space")
    step(engine, 1)
    key("keyup", "space")
    assert.equals("playing", game.state)
    assert.equals(3, game.games)
  end)

  it("runs from the command line", function()
    local code, out = testing.exec("run", dir, "--headless", "--frames", "3")
    assert.equals(0, code, out)
    assert.truthy(out:find("score 0", 1, true), out)
  end)
end)
