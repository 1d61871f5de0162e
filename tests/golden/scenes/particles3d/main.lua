-- Golden scene: particles under a perspective camera (3D). A cone of 600 additive sparks
-- from a fixed seed rises from behind a cube, which hides the ones behind it (the pass
-- tests depth without writing it); the squares face the camera. Simulated 0.6 s at load.
local tycho = require("tycho")
local engine = tycho.engine
local scene = engine.scene

engine:setPreset(tycho.presets.forward({ sky = { kind = "color", color = { 0.05, 0.06, 0.1 } }, taa = false, shadow = false }))

local sun = scene:add(tycho.GameObject.new({ name = "sun" }))
sun:addComponent(tycho.DirectionalLight.new({ direction = { -0.4, -1, -0.5 }, intensity = 3 }))

local cube = scene:add(tycho.GameObject.new({ name = "cube", position = { x = 0, y = 0.5, z = 1 } }))
cube:addComponent(tycho.MeshRenderer.new(tycho.mesh.cube(), tycho.material({ baseColor = { 0.3, 0.6, 0.3, 1 } })))

local emitter = scene:add(tycho.GameObject.new({ name = "sparks", position = { x = 0, y = 0, z = -1 } }))
local sparks = emitter:addComponent(tycho.ParticleSystem.new({
  seed = 11,
  maxParticles = 600,
  speed = { 2, 4 },
  direction = { 0, 1, 0 },
  spread = math.rad(70),
  gravity = { 0, -1, 0 },
  lifetime = 2,
  colors = { { 1, 0.6, 0.2, 1 }, { 1, 0.3, 0.8, 0.5 } },
  sizes = { 0.25, 0.15 },
  blend = "additive",
}))
sparks:emit(600)
sparks:simulate(0.6)

local camera = scene:add(tycho.GameObject.new({ name = "camera", position = { x = 0, y = 1.5, z = 5 } }))
camera:addComponent(tycho.Camera.perspective(60, 0.1, 100))
