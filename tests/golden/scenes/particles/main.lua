-- Golden scene: particles under an orthographic camera (2D). A burst of 400 from a fixed
-- seed, flying up in a 120-degree arc under gravity and fading from yellow to red, drawn
-- additively; beside it an alpha-blended fountain of blue squares (the white texture)
-- shrinking over their life, over a grey sprite so blending shows. The systems are
-- simulated 0.5 s at load; the run's two ticks add 2/60 s.
local tycho = require("tycho")
local engine = tycho.engine
local scene = engine.scene

engine:setPreset(tycho.presets.forward({ sky = { kind = "color", color = { 0.02, 0.02, 0.05 } }, taa = false, shadow = false }))

local backdrop = scene:add(tycho.GameObject.new({ name = "backdrop", position = { x = 2, y = 0, z = -1 }, scale = { x = 2.5, y = 4, z = 1 } }))
backdrop:addComponent(tycho.Sprite.new({ color = { 0.5, 0.5, 0.5, 1 } }))

local burst = scene:add(tycho.GameObject.new({ name = "burst", position = { x = -1.5, y = -1.5, z = 0 } }))
local fire = burst:addComponent(tycho.ParticleSystem.new({
  seed = 7,
  dimensions = 2,
  maxParticles = 400,
  speed = { 1, 4 },
  spread = math.rad(120),
  gravity = { 0, -3, 0 },
  lifetime = { 0.8, 1.2 },
  colors = { { 1, 0.9, 0.2, 1 }, { 1, 0.2, 0.1, 0.6 } },
  sizes = { 0.25, 0.1 },
  blend = "additive",
}))
fire:emit(400)
fire:simulate(0.5)

local fountain = scene:add(tycho.GameObject.new({ name = "fountain", position = { x = 2, y = -2, z = 0 } }))
local water = fountain:addComponent(tycho.ParticleSystem.new({
  seed = 3,
  dimensions = 2,
  rate = 200,
  speed = 3,
  spread = math.rad(30),
  gravity = { 0, -2, 0 },
  lifetime = 1.5,
  colors = { { 0.2, 0.5, 1, 0.8 } },
  sizes = { 0.3, 0.1 },
  texture = tycho.texture.new(1, 1, "\255\255\255\255", "white"),
}))
for _ = 1, 30 do water:simulate(1 / 60) end

local camera = scene:add(tycho.GameObject.new({ name = "camera", position = { x = 0, y = 0, z = 10 } }))
camera:addComponent(tycho.Camera.orthographic(3, 0.1, 100))
