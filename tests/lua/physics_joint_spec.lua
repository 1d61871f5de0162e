-- tests/lua/physics_joint_spec.lua: joints, 2D (Box2D joints) and 3D (Bullet constraints):
-- what each holds, against the formulas, and how they end.

local GameObject, Scene = tycho.GameObject, tycho.Scene

local J = dofile(require("tycho.testing").here() .. "/fixtures/joint_bodies.lua")
local DT = J.DT
local G = 9.81

local run, body = J.run, J.balls(0.1)

-- The mean period of go's swing through x = 0 (upwards crossings, interpolated), and the
-- largest distance from pivot seen on the way.
local function swing(scene, go, pivot, ticks)
  local last, crossings, far = go.position.x, {}, 0
  for i = 1, ticks do
    scene:update(DT)
    local p = go.position
    local x = p.x
    if last < 0 and x >= 0 then crossings[#crossings + 1] = (i - 1 + -last / (x - last)) * DT end
    last = x
    far = math.max(far, math.abs(math.sqrt((p.x - pivot[1]) ^ 2 + (p.y - pivot[2]) ^ 2 + (p.z - (pivot[3] or 0)) ^ 2)))
  end
  assert.is_true(#crossings >= 3, "the body swings")
  return (crossings[#crossings] - crossings[1]) / (#crossings - 1), far
end

-- A bob hung from pivot (0, 5) by length l, let go 5 degrees out.
local function bob(scene, dims, l)
  local a = math.rad(5)
  return body(scene, "bob", { l * math.sin(a), 5 - l * math.cos(a), 0 }, dims, { mass = 1 })
end

describe("2D joints", function()
  it("a revolute joint to the world swings a disc with the physical pendulum's period", function()
    local scene, l, r = Scene.new(), 2, 0.1
    local go = bob(scene, 2, l)
    local j = scene.physics2d:joint { type = "revolute", a = go, anchor = { 0, 5 } }
    assert.equals("revolute", j.type)
    assert.equals(go, j.a)
    assert.is_nil(j.b)
    local period, far = swing(scene, go, { 0, 5 }, 900)
    assert.near(2 * math.pi * math.sqrt((r * r / 2 + l * l) / (G * l)), period, 0.01)
    assert.near(l, far, 1e-3)
  end)

  it("a distance joint is a rod: the simple pendulum's period, and its length kept", function()
    local scene, l = Scene.new(), 3
    local go = bob(scene, 2, l)
    scene.physics2d:joint { type = "distance", a = go, anchorB = { 0, 5 } }
    local period, far = swing(scene, go, { 0, 5 }, 900)
    assert.near(2 * math.pi * math.sqrt(l / G), period, 0.01)
    assert.near(l, far, 1e-3)
  end)

  it("a weld holds two bodies as they were; a prismatic joint lets one move only along its axis", function()
    local scene = Scene.new()
    local a = body(scene, "a", { 0, 5, 0 }, 2)
    local b = body(scene, "b", { 1, 5, 0 }, 2)
    scene.physics2d:joint { type = "weld", a = a, b = b }
    local s = body(scene, "s", { 10, 5, 0 }, 2)
    scene.physics2d:joint { type = "prismatic", a = s, axis = { 1, 0 } }
    s:getComponent(tycho.RigidBody2D).velocity = { 2, 3 }
    run(scene, 90)
    assert.is_true(a.position.y < 0) -- the pair fell together
    assert.near(1, b.position.x - a.position.x, 1e-3)
    assert.near(0, b.position.y - a.position.y, 1e-3)
    assert.near(5, s.position.y, 1e-3) -- held up against gravity and the push
    assert.near(13, s.position.x, 1e-2) -- and free along x
  end)

  it("a wheel joint's spring sags by weight over stiffness", function()
    local scene = Scene.new()
    local go = body(scene, "wheel", { 0, 5, 0 }, 2, { mass = 2 })
    scene.physics2d:joint { type = "wheel", a = go, axis = { 0, 1 }, stiffness = 400, damping = 40 }
    run(scene, 240)
    assert.near(5 - 2 * G / 400, go.position.y, 2e-3)
    assert.near(0, go.position.x, 1e-4)
  end)

  it("ends with a destroyed object at the sweep, and holds again after a body is rebuilt", function()
    local scene = Scene.new()
    local go = bob(scene, 2, 2)
    local j = scene.physics2d:joint { type = "distance", a = go, anchorB = { 0, 5 } }
    run(scene, 10)
    go:addComponent(tycho.BoxCollider2D, { size = { x = 0.2, y = 0.2 } }) -- its body is rebuilt
    local _, far = swing(scene, go, { 0, 5 }, 600)
    assert.near(2, far, 1e-3)
    assert.is_true(j.alive)
    assert.equals(1, scene.physics2d.jointCount)
    local other = body(scene, "other", { 3, 5, 0 }, 2)
    local k = scene.physics2d:joint { type = "revolute", a = other, b = go, anchor = { 3, 5 } }
    go:destroy()
    run(scene, 1)
    assert.is_false(j.alive)
    assert.is_false(k.alive)
    assert.equals(0, scene.physics2d.jointCount)
    assert.has_error(function() return k.type end, "this joint was destroyed (by joint:destroy() or with one of its objects)")
    run(scene, 30)
    assert.is_true(other.position.y < 4) -- free: it falls
    k:destroy() -- a second end does nothing
  end)

  it("joint:destroy() lets go at once", function()
    local scene = Scene.new()
    local go = bob(scene, 2, 2)
    local j = scene.physics2d:joint { type = "revolute", a = go, anchor = { 0, 5 } }
    run(scene, 10)
    j:destroy()
    assert.is_false(j.alive)
    run(scene, 60)
    assert.is_true(go.position.y < 0)
    local k = scene.physics2d:joint { type = "weld", a = go } -- takes the slot j left
    assert.is_false(j.alive)
    assert.is_true(k.alive)
    assert.equals("Joint (weld)", tostring(k))
    assert.equals("Joint (destroyed)", tostring(j))
    local y = go.position.y
    run(scene, 30)
    assert.near(y, go.position.y, 1e-3) -- held where it was
  end)

  it("names what it refuses", function()
    local scene = Scene.new()
    local go = bob(scene, 2, 2)
    local bare = GameObject.new { name = "bare" }
    scene:add(bare)
    local w = scene.physics2d
    local function fails(opts, msg) assert.has_error(function() w:joint(opts) end, "bad argument #1 to 'joint' (" .. msg .. ")") end
    fails({ type = "rope", a = go }, "type must be 'revolute', 'distance', 'weld', 'prismatic' or 'wheel', got rope")
    fails({ a = go }, "type must be 'revolute', 'distance', 'weld', 'prismatic' or 'wheel', got nil")
    fails({ type = "weld" }, "a must be a GameObject, got nil")
    fails({ type = "weld", a = go, b = 5 }, "b must be a GameObject, got number")
    fails({ type = "weld", a = go, b = go }, "a and b must be two objects")
    fails({ type = "weld", a = bare }, "a (GameObject 'bare') has no body in this world: give it a RigidBody2D or a collider, in this scene")
    fails({ type = "revolute", a = go, anchor = { 0, 0 / 0 } }, "anchor must be a Vec3 or a table of 2 finite numbers, got table")
    fails({ type = "prismatic", a = go }, "a prismatic joint needs an axis")
    fails({ type = "wheel", a = go, axis = { 0, 0 } }, "axis must not be zero")
    fails({ type = "distance", a = go, anchorB = { 0, 5 }, length = -1 }, "length must be a finite number >= 0.0, got -1")
    fails({ type = "wheel", a = go, axis = { 0, 1 }, stiffness = 0 / 0 }, "stiffness must be a finite number >= 0.0, got " .. tostring(0 / 0))
    assert.has_error(function() w:joint("weld") end, "bad argument #1 to 'joint' (table expected, got string)")
    assert.equals(0, w.jointCount)
  end)
end)

describe("3D joints", function()
  it("a hinge swings with the pendulum's period, in its plane, keeping its distance", function()
    local scene, l, r = Scene.new(), 2, 0.1
    local go = bob(scene, 3, l)
    scene.physics:joint { type = "hinge", a = go, anchor = { 0, 5, 0 }, axis = { 0, 0, 1 } }
    go:getComponent(tycho.RigidBody).velocity = { 0, 0, 3 } -- out of the plane: the hinge says no
    local period, far = swing(scene, go, { 0, 5, 0 }, 900)
    assert.near(2 * math.pi * math.sqrt((0.4 * r * r + l * l) / (G * l)), period, 0.01)
    assert.near(l, far, 2e-3)
    assert.near(0, go.position.z, 1e-3)
  end)

  it("a point joint swings with the pendulum's period", function()
    local scene, l, r = Scene.new(), 2, 0.1
    local go = bob(scene, 3, l)
    scene.physics:joint { type = "point", a = go, anchor = { 0, 5, 0 } }
    local period, far = swing(scene, go, { 0, 5, 0 }, 900)
    assert.near(2 * math.pi * math.sqrt((0.4 * r * r + l * l) / (G * l)), period, 0.01)
    assert.near(l, far, 0.02)
  end)

  it("a fixed joint glues; a slider moves only along its axis", function()
    local scene = Scene.new()
    local a = body(scene, "a", { 0, 5, 0 }, 3)
    local b = body(scene, "b", { 0, 5, 1 }, 3)
    scene.physics:joint { type = "fixed", a = a, b = b }
    local s = body(scene, "s", { 10, 5, 0 }, 3)
    scene.physics:joint { type = "slider", a = s, axis = { 0, 0, 1 } }
    s:getComponent(tycho.RigidBody).velocity = { 1, 2, 2 }
    run(scene, 90)
    assert.is_true(a.position.y < 0)
    local d = b.position - a.position
    assert.near(0, d.x, 1e-2)
    assert.near(0, d.y, 1e-2)
    assert.near(1, d.z, 1e-2)
    assert.near(10, s.position.x, 1e-2)
    assert.near(5, s.position.y, 1e-2)
    assert.near(3, s.position.z, 5e-2)
  end)

  it("ends with a destroyed object, and names what it refuses", function()
    local scene = Scene.new()
    local go = bob(scene, 3, 2)
    local j = scene.physics:joint { type = "point", a = go, anchor = { 0, 5, 0 } }
    assert.equals(1, scene.physics.jointCount)
    go:destroy()
    run(scene, 1)
    assert.is_false(j.alive)
    assert.equals(0, scene.physics.jointCount)
    local other = bob(scene, 3, 2)
    assert.has_error(function() scene.physics:joint { type = "revolute", a = other } end,
      "bad argument #1 to 'joint' (type must be 'fixed', 'hinge', 'point' or 'slider', got revolute)")
    assert.has_error(function() scene.physics:joint { type = "hinge", a = other } end,
      "bad argument #1 to 'joint' (a hinge joint needs an axis)")
    assert.has_error(function() scene.physics:joint { type = "point", a = other, anchor = { 0, 1 } } end,
      "bad argument #1 to 'joint' (anchor must be a Vec3 or a table of 3 finite numbers, got table)")
  end)
end)
