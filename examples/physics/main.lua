-- examples/physics: 3D physics (Bullet) in a small scene: a tower of boxes that a ball,
-- thrown half a second in, knocks down; and a character that walks up and down a slope.
-- Space throws another ball. Bodies and colliders are components; the engine steps them in
-- the physics phase and writes their poses back to the objects (scripts/docs/physics.md).
-- Joints have a scene of their own: joints/main.lua.
local tycho = require("tycho")

-- TYCHO_PHYSICS_SCENE=joints shows the joints scene (joints/main.lua) instead.
if os.getenv("TYCHO_PHYSICS_SCENE") == "joints" then
  local here = debug.getinfo(1, "S").source:sub(2):match("^(.*)/[^/]*$") or "."
  return dofile(here .. "/joints/main.lua")
end

local engine = tycho.engine
local scene = engine.scene

engine:setPreset(tycho.presets.forward({ sky = { kind = "color" } }))

local function material(r, g, b) return tycho.material({ baseColor = { r, g, b, 1 }, roughness = 0.6 }) end

-- A static box: drawn as a scaled cube, collided as a 1x1x1 box scaled by the object.
local function solid(name, pos, size, mat, rotation)
  local go = tycho.GameObject.new({ name = name, position = pos, scale = size })
  if rotation then go.rotation = rotation end
  go:addComponent(tycho.MeshRenderer.new(tycho.mesh.cube(), mat))
  go:addComponent(tycho.BoxCollider.new())
  return scene:add(go)
end

solid("ground", { x = 0, y = -0.5, z = 0 }, { x = 40, y = 1, z = 40 }, material(0.55, 0.6, 0.55))

-- The tower: 8 storeys of 2x2 boxes, the storeys turned alternately a little off square
-- so it stands like a real stack, not a solid block.
local tower = {}
local boxMats = { material(0.85, 0.45, 0.2), material(0.9, 0.75, 0.3) }
for storey = 0, 7 do
  for i = 0, 3 do
    local x, z = (i % 2) - 0.5, (i // 2) - 0.5
    local go = tycho.GameObject.new({ name = "box", position = { x = 2 + x * 1.02, y = 0.5 + storey * 1.0, z = z * 1.02 } })
    go:addComponent(tycho.MeshRenderer.new(tycho.mesh.cube(), boxMats[storey % 2 + 1]))
    go:addComponent(tycho.RigidBody.new({ mass = 1, friction = 0.6 }))
    go:addComponent(tycho.BoxCollider.new())
    tower[#tower + 1] = scene:add(go)
  end
end

-- The ball: a heavy sphere that says what it hit.
local Ball = tycho.component("examples.physics.Ball")
function Ball:onCollisionEnter(other)
  if other.name == "box" then self.hits = (self.hits or 0) + 1 end
end

local balls = {}
local function throw()
  local go = tycho.GameObject.new({ name = "ball", position = { x = -6, y = 2, z = 0 }, scale = { x = 0.8, y = 0.8, z = 0.8 } })
  go:addComponent(tycho.MeshRenderer.new(tycho.mesh.sphere(), tycho.material({ baseColor = { 0.2, 0.3, 0.9, 1 }, roughness = 0.3 })))
  go:addComponent(tycho.RigidBody.new({ mass = 8, restitution = 0.2 }))
  go:addComponent(tycho.SphereCollider.new())
  go:addComponent(Ball)
  go:getComponent(tycho.RigidBody):setVelocity({ x = 16, y = 3.5, z = 0 })
  balls[#balls + 1] = scene:add(go)
  return go
end

-- The slope: a ramp turned 20 degrees about Z, rising towards -x, and a walker on it: a
-- capsule that cannot tip over, driven by setting its horizontal velocity each step and
-- leaving its vertical velocity to gravity and the ramp.
local SLOPE = math.rad(20)
local ramp = tycho.quat()
ramp:setAxisAngle(0, 0, 1, -SLOPE)
solid("ramp", { x = -5, y = 0, z = -6 }, { x = 12, y = 1, z = 3 }, material(0.5, 0.5, 0.65), ramp)

local Walker = tycho.component("examples.physics.Walker")
function Walker:init() self.dir, self.clock = -1, 0 end
function Walker:physics(dt)
  self.clock = self.clock + dt
  if self.clock > 3 then self.dir, self.clock = -self.dir, 0 end -- up for 3 s, down for 3 s
  local body = self.gameObject:getComponent(tycho.RigidBody)
  local v = body.velocity
  body:setVelocity({ x = 2 * self.dir, y = v.y, z = 0 })
end

local walker = tycho.GameObject.new({ name = "walker", position = { x = -1.5, y = 0.8, z = -6 } })
walker:addComponent(tycho.RigidBody.new({ mass = 70, lockRotation = true, friction = 0 }))
walker:addComponent(tycho.CapsuleCollider.new({ radius = 0.4, height = 1.6 }))
walker:addComponent(Walker)
scene:add(walker)
-- Its look is a child, so the drawn cube's scale does not size the capsule.
local look = tycho.GameObject.new({ name = "walker look", scale = { x = 0.8, y = 1.6, z = 0.8 } })
look:addComponent(tycho.MeshRenderer.new(tycho.mesh.cube(), material(0.3, 0.75, 0.4)))
walker:addChild(look)

local sun = scene:add(tycho.GameObject.new("sun"))
sun:addComponent(tycho.DirectionalLight.new({ direction = tycho.vec3(-0.4, -1, -0.5), intensity = 3 }))

local camera = scene:add(tycho.GameObject.new({ name = "camera", position = { x = -2, y = 5, z = 14 } }))
camera.rotation:setAxisAngle(1, 0, 0, -0.3)
camera:addComponent(tycho.Camera.perspective(60, 0.1, 200))

-- The first ball half a second in; space throws another.
local Thrower = tycho.component("examples.physics.Thrower")
function Thrower:update(dt)
  self.elapsed = (self.elapsed or 0) + dt
  if not self.thrown and self.elapsed >= 0.5 then
    self.thrown = true
    throw()
  end
  if tycho.input.wasPressed("space") then throw() end
end
camera:addComponent(Thrower)

return { tower = tower, balls = balls, walker = walker, throw = throw }
