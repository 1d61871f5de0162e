-- examples/arcade: a small 2D shooter. An orthographic camera looks at a 16 x 12 field;
-- the ship moves with left/right (or a/d) and fires with space; enemies drift down from
-- the top. Bullets and enemies are prefabs with tags, spawned and destroyed as they hit
-- or leave the field; each hit scores 10. An enemy that rams the ship or gets past it
-- costs one of three lives; with none left the game is over, and space or enter plays
-- again. The score and lives are on screen (tycho.ui). Sprites are the PNGs in assets/.
-- A hit enemy bursts into debris that 2D physics throws and bounces off the floor, and into
-- sparks (a ParticleSystem); enemies flap as they fly (a SpriteAnimation over a two-frame
-- sheet), and the ship's engine trails a flame of particles.
local tycho = require("tycho")
local engine = tycho.engine
local scene = engine.scene
local input = tycho.input

local here = (debug.getinfo(1, "S").source:sub(2):match("^(.*)/[^/]*$")) or "."
local HALF_W, HALF_H = 8, 6 -- the field, in world units around the origin
local LIVES = 3
local SHIP_Y = -HALF_H + 1
local ui = tycho.ui

-- The orthographic camera draws untonemapped, so colours reach the screen as given. The sky
-- colour is linear (a lighting colour): toLinear takes the background's sRGB, (26, 26, 69).
engine:setPreset(tycho.presets.forward({ sky = { kind = "color", color = tycho.color.toLinear({ 0.1, 0.1, 0.27 }) } }))

local textures = {
  ship = tycho.texture.load(here .. "/assets/ship.png"),
  bullet = tycho.texture.load(here .. "/assets/bullet.png"),
  enemy = tycho.texture.load(here .. "/assets/enemy.png"),
}
local enemySheet = tycho.spriteSheet(tycho.texture.load(here .. "/assets/enemy_sheet.png"), 16, 16)
-- Sounds (content/sounds/make_sounds.lua writes them): one-shots, so they need no object.
local shotSound, hitSound = tycho.audio.load(here .. "/assets/shot.wav"), tycho.audio.load(here .. "/assets/hit.wav")

-- The game's state, on one object so specs and the HUD can read it. `state` is "playing"
-- or "over".
local Game = tycho.component("ArcadeGame")
function Game:init()
  self.seed = 12345
  self:reset()
end
function Game:reset()
  self.score, self.shots, self.kills, self.spawned = 0, 0, 0, 0
  self.lives, self.state, self.games = LIVES, "playing", (self.games or 0) + 1
  self.spawnTimer = 0
end
-- A small LCG: the same enemy columns on every run, so specs and screenshots repeat.
function Game:random()
  self.seed = (self.seed * 1103515245 + 12345) % 2147483648
  return self.seed / 2147483648
end
function Game:update(dt)
  if self.state == "over" then
    if input.wasPressed("space") or input.wasPressed("return") then self:restart() end
    return
  end
  self.spawnTimer = self.spawnTimer - dt
  if self.spawnTimer <= 0 then
    self.spawnTimer = 0.9
    self.spawned = self.spawned + 1
    scene:spawn("enemy", { x = (self:random() * 2 - 1) * (HALF_W - 1), y = HALF_H + 0.5, z = 0 })
  end
end
-- One life lost; the last one ends the game and clears the field.
function Game:loseLife()
  if self.state ~= "playing" then return end
  self.lives = self.lives - 1
  if self.lives > 0 then return end
  self.state = "over"
  for _, tag in ipairs({ "enemy", "bullet", "debris" }) do
    for _, go in ipairs(scene:findByTag(tag, { includePending = true })) do go:destroy() end
  end
  print(("game over, score %d"):format(self.score))
end
function Game:restart()
  self:reset()
  local ship = scene:findOneByTag("player")
  if ship then ship.position.x = 0 end
end

local Mover = tycho.component("ArcadeMover")
function Mover:init(vy) self.vy = vy end
function Mover:update(dt)
  local p = self.gameObject.position
  p.y = p.y + self.vy * dt
  if p.y > HALF_H + 1 or p.y < -HALF_H - 1 then self.gameObject:destroy() end
end

local Ship = tycho.component("ArcadeShip")
function Ship:init(game) self.game, self.speed, self.cooldown = game, 9, 0 end
function Ship:update(dt)
  if self.game.state ~= "playing" then return end
  local p = self.gameObject.position
  local dx = 0
  if input.isDown("left") or input.isDown("a") then dx = dx - 1 end
  if input.isDown("right") or input.isDown("d") then dx = dx + 1 end
  p.x = math.max(-HALF_W + 0.5, math.min(HALF_W - 0.5, p.x + dx * self.speed * dt))
  self.cooldown = self.cooldown - dt
  if input.isDown("space") and self.cooldown <= 0 then
    self.cooldown = 0.2
    self.game.shots = self.game.shots + 1
    scene:spawn("bullet", { x = p.x, y = p.y + 0.6, z = 0 })
    if shotSound then tycho.audio.play(shotSound, { volume = 0.5 }) end
  end
end

tycho.prefab("bullet", function(go)
  go:addTag("bullet")
  go.scale = { x = 0.5, y = 0.5, z = 1 }
  go:addComponent(tycho.Sprite.new({ texture = textures.bullet }))
  go:addComponent(Mover, 14)
end)

tycho.prefab("enemy", function(go)
  go:addTag("enemy")
  go:addComponent(tycho.Sprite.new({ texture = textures.enemy, nearest = true }))
  go:addComponent(tycho.SpriteAnimation.new({ sheet = enemySheet, clips = { fly = { frames = { 1, 2 }, fps = 4 } }, clip = "fly" }))
  go:addComponent(Mover, -2.5)
end)

-- Debris: a destroyed enemy bursts into four pieces that Box2D throws up, lets fall and
-- bounces off the floor below the ship, for a second and a half.
local Debris = tycho.component("ArcadeDebris")
function Debris:update(dt)
  self.life = (self.life or 1.5) - dt
  if self.life <= 0 then self.gameObject:destroy() end
end
tycho.prefab("debris", function(go)
  go:addTag("debris")
  go.scale = { x = 0.3, y = 0.3, z = 1 }
  go:addComponent(tycho.Sprite.new({ texture = textures.enemy }))
  go:addComponent(tycho.RigidBody2D.new({ restitution = 0.5, mass = 0.2 }))
  go:addComponent(tycho.BoxCollider2D.new())
  go:addComponent(Debris)
end)
-- Sparks: one system for every hit. Particles live in world space, so moving the emitter
-- to a hit and bursting leaves the earlier sparks where they were.
local sparksObject = scene:add(tycho.GameObject.new({ name = "sparks" }))
local sparks = sparksObject:addComponent(tycho.ParticleSystem.new({
  dimensions = 2, spread = 2 * math.pi, speed = { 2, 6 }, lifetime = { 0.25, 0.6 }, damping = 2,
  colors = { { 1, 1, 0.6, 1 }, { 0.5, 1, 0.3, 0.8 }, { 0.1, 0.6, 0.1, 0 } }, sizes = { 0.35, 0.05 },
  blend = "additive", maxParticles = 2000, seed = 7,
}))
local function burst(at)
  sparksObject.position.x, sparksObject.position.y = at.x, at.y
  sparks:emit(40)
  for i = 0, 3 do
    local piece = scene:spawn("debris", { x = at.x + (i % 2 - 0.5) * 0.3, y = at.y + (i // 2 - 0.5) * 0.3, z = 0 })
    piece:getComponent(tycho.RigidBody2D):setVelocity({ x = (i % 2 * 2 - 1) * (1.5 + i * 0.5), y = 4 + i })
    piece:getComponent(tycho.RigidBody2D).angularVelocity = (i - 1.5) * 6
  end
end
local floor = scene:add(tycho.GameObject.new({ name = "floor", position = { x = 0, y = -HALF_H - 0.5, z = 0 } }))
floor:addComponent(tycho.BoxCollider2D.new({ size = { x = HALF_W * 2, y = 1 } }))

local camera = scene:add(tycho.GameObject.new({ name = "camera", position = { x = 0, y = 0, z = 10 } }))
camera:addComponent(tycho.Camera.orthographic(HALF_H, 0.1, 100))

local gameObject = scene:add(tycho.GameObject.new({ name = "game", tags = { "game" } }))
local game = gameObject:addComponent(Game)

local ship = scene:add(tycho.GameObject.new({ name = "ship", tags = { "player" }, position = { x = 0, y = SHIP_Y, z = 0 } }))
ship:addComponent(tycho.Sprite.new({ texture = textures.ship }))
ship:addComponent(Ship, game)
-- The engine's flame, from below the ship: additive, rising no higher than the hull.
local exhaust = tycho.GameObject.new({ name = "exhaust", position = { x = 0, y = -0.45, z = 0 } })
ship:addChild(exhaust)
exhaust:addComponent(tycho.ParticleSystem.new({
  dimensions = 2, rate = 60, direction = { 0, -1, 0 }, spread = 0.5, speed = { 1.5, 2.5 }, lifetime = 0.3,
  colors = { { 1, 0.85, 0.4, 0.9 }, { 1, 0.3, 0.1, 0 } }, sizes = { 0.3, 0.08 }, blend = "additive", seed = 3,
}))

-- Hits: every bullet against every enemy once per tick (a few dozen of each at most); an
-- enemy on the ship, or past its line, costs a life.
scene:addSystem("postPhysics", function()
  if game.state ~= "playing" then return end
  local bullets, enemies = scene:findByTag("bullet"), scene:findByTag("enemy")
  local sp = ship.position
  for i = 1, #enemies do
    local e = enemies[i]
    local ep = e.position
    for j = 1, #bullets do
      local b = bullets[j]
      if b.enabled then
        local bp = b.position
        if math.abs(bp.x - ep.x) < 0.6 and math.abs(bp.y - ep.y) < 0.6 then
          b.enabled = false -- one bullet, one enemy
          b:destroy()
          burst(ep)
          e:destroy()
          e.enabled = false
          game.kills, game.score = game.kills + 1, game.score + 10
          if hitSound then tycho.audio.play(hitSound) end
          break
        end
      end
    end
    if e.enabled and ((math.abs(sp.x - ep.x) < 0.8 and math.abs(sp.y - ep.y) < 0.8) or ep.y < SHIP_Y - 0.8) then
      e.enabled = false
      e:destroy()
      game:loseLife()
      if game.state ~= "playing" then return end
    end
  end
end)

-- The HUD: score and lives while playing; the result and how to play again once over.
local WHITE, DIM, RED = { 1, 1, 1, 1 }, { 0.7, 0.75, 0.9, 1 }, { 1, 0.35, 0.3, 1 }
local function centred(w, y, text, color, scale)
  ui.text((w - ui.measure(text, scale)) / 2, y, text, color, scale)
end
local function drawHud(w, h)
  ui.text(16, 14, ("SCORE %d"):format(game.score), WHITE, 2)
  local lives = ("LIVES %d"):format(game.lives)
  ui.text(w - 16 - ui.measure(lives, 2), 14, lives, WHITE, 2)
  if game.state == "over" then
    ui.rect(0, h * 0.3, w, h * 0.4, { 0, 0, 0, 0.6 })
    centred(w, h * 0.36, "GAME OVER", RED, 4)
    centred(w, h * 0.48, ("score %d"):format(game.score), WHITE, 2)
    centred(w, h * 0.58, "press space or enter to play again", DIM, 2)
  end
end
engine:addFeature({ name = "ArcadeHUD", update = function(_, frame) drawHud(frame.width, frame.height) end })
engine:addFeature(ui.feature())

local lastScore = -1
engine:afterFrame(function()
  if game.score ~= lastScore then
    lastScore = game.score
    print(("score %d"):format(game.score))
  end
end)
