-- examples/arcade: a small 2D shooter. An orthographic camera looks at a 16 x 12 field;
-- the ship moves with left/right (or a/d) and fires with space; enemies drift down from
-- the top. Bullets and enemies are prefabs with tags, spawned and destroyed as they hit
-- or leave the field; each hit scores 10. Sprites are the PNGs in assets/.
local tycho = require("tycho")
local engine = tycho.engine
local scene = engine.scene
local input = tycho.input

local here = (debug.getinfo(1, "S").source:sub(2):match("^(.*)/[^/]*$")) or "."
local HALF_W, HALF_H = 8, 6 -- the field, in world units around the origin

-- The orthographic camera draws untonemapped, so colours reach the screen as given. The sky
-- colour is linear (a lighting colour): toLinear takes the background's sRGB, (26, 26, 69).
engine:setPreset(tycho.presets.forward({ sky = { kind = "color", color = tycho.color.toLinear({ 0.1, 0.1, 0.27 }) } }))

local textures = {
  ship = tycho.texture.load(here .. "/assets/ship.png"),
  bullet = tycho.texture.load(here .. "/assets/bullet.png"),
  enemy = tycho.texture.load(here .. "/assets/enemy.png"),
}
-- Sounds (content/sounds/make_sounds.lua writes them): one-shots, so they need no object.
local shotSound, hitSound = tycho.audio.load(here .. "/assets/shot.wav"), tycho.audio.load(here .. "/assets/hit.wav")

-- The game's state, on one object so specs and the HUD line can read it.
local Game = tycho.component("ArcadeGame")
function Game:init()
  self.score, self.shots, self.kills, self.spawned = 0, 0, 0, 0
  self.spawnTimer, self.seed = 0, 12345
end
-- A small LCG: the same enemy columns on every run, so specs and screenshots repeat.
function Game:random()
  self.seed = (self.seed * 1103515245 + 12345) % 2147483648
  return self.seed / 2147483648
end
function Game:update(dt)
  self.spawnTimer = self.spawnTimer - dt
  if self.spawnTimer <= 0 then
    self.spawnTimer = 0.9
    self.spawned = self.spawned + 1
    scene:spawn("enemy", { x = (self:random() * 2 - 1) * (HALF_W - 1), y = HALF_H + 0.5, z = 0 })
  end
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
  go:addComponent(tycho.Sprite.new({ texture = textures.enemy }))
  go:addComponent(Mover, -2.5)
end)

local camera = scene:add(tycho.GameObject.new({ name = "camera", position = { x = 0, y = 0, z = 10 } }))
camera:addComponent(tycho.Camera.orthographic(HALF_H, 0.1, 100))

local gameObject = scene:add(tycho.GameObject.new({ name = "game", tags = { "game" } }))
local game = gameObject:addComponent(Game)

local ship = scene:add(tycho.GameObject.new({ name = "ship", tags = { "player" }, position = { x = 0, y = -HALF_H + 1, z = 0 } }))
ship:addComponent(tycho.Sprite.new({ texture = textures.ship }))
ship:addComponent(Ship, game)

-- Hits: every bullet against every enemy once per tick (a few dozen of each at most).
scene:addSystem("postPhysics", function()
  local bullets, enemies = scene:findByTag("bullet"), scene:findByTag("enemy")
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
          e:destroy()
          game.kills, game.score = game.kills + 1, game.score + 10
          if hitSound then tycho.audio.play(hitSound) end
          break
        end
      end
    end
  end
end)

local lastScore = -1
engine:afterFrame(function()
  if game.score ~= lastScore then
    lastScore = game.score
    print(("score %d"):format(game.score))
  end
end)
