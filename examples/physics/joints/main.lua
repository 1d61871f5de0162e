-- examples/physics/joints: 3D joints (Bullet constraints) in a small scene: a wrecking ball
-- hung on a point joint swings through a wall of boxes; a chain of six links on hinges, pinned at one
-- end and let go below level, falls and swings; a windmill's sails turn on a hinge driven by its
-- motor. `tycho run examples/physics/joints`, or TYCHO_PHYSICS_SCENE=joints with
-- examples/physics. Joints: scripts/docs/physics.md#joints.
local tycho = require("tycho")
local engine = tycho.engine
local scene = engine.scene

engine:setPreset(tycho.presets.forward({ sky = { kind = "color" } }))

local function material(r, g, b) return tycho.material({ baseColor = { r, g, b, 1 }, roughness = 0.6 }) end

local function box(name, pos, size, mat, body)
  local go = tycho.GameObject.new({ name = name, position = pos, scale = size })
  go:addComponent(tycho.MeshRenderer.new(tycho.mesh.cube(), mat))
  if body then go:addComponent(tycho.RigidBody.new(body)) end
  go:addComponent(tycho.BoxCollider.new())
  return scene:add(go)
end

box("ground", { x = 0, y = -0.5, z = 0 }, { x = 40, y = 1, z = 40 }, material(0.55, 0.6, 0.55))

-- The wall: 3 rows of 4 boxes the ball swings through.
local wall = {}
local wallMat = material(0.85, 0.45, 0.2)
for row = 0, 2 do
  for i = 0, 3 do
    wall[#wall + 1] = box("brick", { x = 0.3, y = 0.5 + row, z = -1.5 + i }, { x = 1, y = 1, z = 1 }, wallMat,
      { mass = 1, friction = 0.6 })
  end
end

-- The wrecking ball: 6 m below a pivot, let go 6 m to one side (level with it) so it swings
-- down through the wall.
local PIVOT = { x = 0, y = 7.5, z = 0 }
local ball = tycho.GameObject.new({ name = "wrecking ball", position = { x = -6, y = 7.5, z = 0 }, scale = { x = 1.2, y = 1.2, z = 1.2 } })
ball:addComponent(tycho.MeshRenderer.new(tycho.mesh.sphere(), material(0.25, 0.25, 0.3)))
ball:addComponent(tycho.RigidBody.new({ mass = 40 }))
ball:addComponent(tycho.SphereCollider.new())
scene:add(ball)
local cable = scene.physics:joint({ type = "point", a = ball, anchor = PIVOT })

-- The chain: six links 0.5 long, held from a pin at its first and let go 30 degrees below
-- level, each joined to the next by a hinge at the point between them.
local chain, links = {}, {}
local CHAIN_PIN = { x = -4, y = 6, z = 6 }
local DROP = math.rad(-30)
local linkMat = material(0.6, 0.6, 0.7)
for i = 1, 6 do
  local c, s = math.cos(DROP), math.sin(DROP)
  chain[i] = box("link", { x = CHAIN_PIN.x + (0.5 * i - 0.25) * c, y = CHAIN_PIN.y + (0.5 * i - 0.25) * s, z = CHAIN_PIN.z },
    { x = 0.45, y = 0.2, z = 0.2 }, linkMat, { mass = 1 })
  chain[i].rotation:setAxisAngle(0, 0, 1, DROP)
  local at = { CHAIN_PIN.x + 0.5 * (i - 1) * c, CHAIN_PIN.y + 0.5 * (i - 1) * s, CHAIN_PIN.z }
  links[i] = scene.physics:joint({ type = "hinge", a = chain[i], b = chain[i - 1], anchor = at, axis = { 0, 0, 1 } })
end

-- The windmill: a tower, and sails on a hinge along the tower's facing axis (Z) that its
-- motor turns at half a turn a second.
box("mill", { x = 6, y = 2, z = -3 }, { x = 1, y = 4, z = 1 }, material(0.8, 0.8, 0.75))
local sails = tycho.GameObject.new({ name = "sails", position = { x = 6, y = 4, z = -2.3 } })
sails:addComponent(tycho.RigidBody.new({ mass = 2 }))
sails:addComponent(tycho.BoxCollider.new({ size = { x = 5, y = 0.4, z = 0.1 } }))
sails:addComponent(tycho.BoxCollider.new({ size = { x = 0.4, y = 5, z = 0.1 } }))
scene:add(sails)
for _, size in ipairs({ { x = 5, y = 0.4, z = 0.1 }, { x = 0.4, y = 5, z = 0.1 } }) do
  local look = tycho.GameObject.new({ name = "sail", scale = size })
  look:addComponent(tycho.MeshRenderer.new(tycho.mesh.cube(), material(0.9, 0.9, 0.95)))
  sails:addChild(look)
end
local mill = scene.physics:joint({ type = "hinge", a = sails, anchor = { 6, 4, -2.3 }, axis = { 0, 0, 1 },
  motorSpeed = math.pi, maxMotorTorque = 200 })

local sun = scene:add(tycho.GameObject.new("sun"))
sun:addComponent(tycho.DirectionalLight.new({ direction = tycho.vec3(-0.4, -1, -0.5), intensity = 3 }))

local camera = scene:add(tycho.GameObject.new({ name = "camera", position = { x = 0, y = 5, z = 17 } }))
camera.rotation:setAxisAngle(1, 0, 0, -0.2)
camera:addComponent(tycho.Camera.perspective(60, 0.1, 200))

return { ball = ball, cable = cable, pivot = PIVOT, wall = wall, chain = chain, chainPin = CHAIN_PIN, links = links,
  sails = sails, mill = mill }
