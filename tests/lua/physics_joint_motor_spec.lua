-- tests/lua/physics_joint_motor_spec.lua: joint motors and limits, 2D (revolute, prismatic,
-- wheel) and 3D (hinge, slider): a motor reaches its speed, a limit stops the joint.

local GameObject, Scene = tycho.GameObject, tycho.Scene

local J = dofile(require("tycho.testing").here() .. "/fixtures/joint_bodies.lua")
local DT = J.DT

local run, body = J.run, J.balls(0.25)

local function world(scene, dims)
  return dims == 2 and scene.physics2d or scene.physics
end

-- How fast field k of the joint moves over ticks steps, in its units a second.
local function rate(scene, joint, k, ticks)
  local before = joint[k]
  run(scene, ticks)
  return (joint[k] - before) / (ticks * DT)
end

-- The smallest and largest value of field k of the joint over ticks steps.
local function range(scene, joint, k, ticks)
  local lo, hi = math.huge, -math.huge
  for _ = 1, ticks do
    scene:update(DT)
    lo, hi = math.min(lo, joint[k]), math.max(hi, joint[k])
  end
  return lo, hi
end

describe("joint motors", function()
  for _, case in ipairs {
    { dims = 2, type = "revolute", k = "angle", max = "maxMotorTorque" },
    { dims = 2, type = "wheel", k = "angle", max = "maxMotorTorque", axis = { 0, 1 } },
    { dims = 2, type = "prismatic", k = "translation", max = "maxMotorForce", axis = { 1, 0 } },
    { dims = 3, type = "hinge", k = "angle", max = "maxMotorTorque", axis = { 0, 0, 1 } },
    { dims = 3, type = "slider", k = "translation", max = "maxMotorForce", axis = { 1, 0, 0 } },
  } do
    it(("a %s motor drives the joint at its speed, and follows a new one"):format(case.type), function()
      local scene = Scene.new()
      world(scene, case.dims).gravity = { 0, 0, 0 }
      local go = body(scene, "driven", { 0, 2, 0 }, case.dims)
      local j = world(scene, case.dims):joint { type = case.type, a = go, axis = case.axis, motorSpeed = 1.5, [case.max] = 1000 }
      assert.is_true(j.motor)
      assert.equals(1.5, j.motorSpeed)
      assert.equals(1000, j[case.max])
      run(scene, 10)
      assert.near(1.5, math.abs(rate(scene, j, case.k, 30)), 0.015)
      local sign = rate(scene, j, case.k, 1) > 0 and 1 or -1
      j.motorSpeed = -0.5
      run(scene, 10)
      assert.near(-0.5 * sign, rate(scene, j, case.k, 30), 0.005)
      j.motor = false -- nothing drives it now: it keeps the speed it had
      assert.is_false(j.motor)
      assert.near(-0.5 * sign, rate(scene, j, case.k, 30), 0.005)
    end)

    it(("a weak %s motor does not reach its speed against a load"):format(case.type), function()
      local scene = Scene.new()
      world(scene, case.dims).gravity = { 0, 0, 0 }
      local go = body(scene, "driven", { 0, 2, 0 }, case.dims, { mass = 10 })
      local j = world(scene, case.dims):joint { type = case.type, a = go, axis = case.axis, motorSpeed = 100, [case.max] = 0.001 }
      run(scene, 30)
      assert.is_true(math.abs(rate(scene, j, case.k, 10)) < 1)
    end)
  end
end)

describe("joint motor directions", function()
  it("a positive speed turns a body the same way in both worlds, and raises angle and translation", function()
    local turned = {}
    for _, case in ipairs {
      { dims = 2, type = "revolute", k = "angle", max = "maxMotorTorque" },
      { dims = 3, type = "hinge", k = "angle", max = "maxMotorTorque", axis = { 0, 0, 1 } },
      { dims = 2, type = "prismatic", k = "translation", max = "maxMotorForce", axis = { 1, 0 } },
      { dims = 3, type = "slider", k = "translation", max = "maxMotorForce", axis = { 1, 0, 0 } },
    } do
      local scene = Scene.new()
      world(scene, case.dims).gravity = { 0, 0, 0 }
      local go = body(scene, "driven", { 0, 2, 0 }, case.dims)
      local j = world(scene, case.dims):joint { type = case.type, a = go, axis = case.axis, motorSpeed = 1, [case.max] = 1000 }
      run(scene, 30)
      assert.is_true(j[case.k] > 0.45, case.type .. " " .. j[case.k])
      -- a joined to the world: the world's turn or travel from a's grows, so a goes the other way
      turned[case.type] = case.k == "angle" and go.rotation.z * go.rotation.w or go.position.x
      assert.is_true(turned[case.type] < -0.2, case.type .. " " .. turned[case.type])
    end
  end)
end)

describe("joint limits", function()
  it("a revolute's limits stop a pendulum's swing within its angles", function()
    local scene = Scene.new()
    local bob = body(scene, "bob", { 1, 5, 0 }, 2)
    local j = scene.physics2d:joint { type = "revolute", a = bob, anchor = { 0, 5 }, lower = -0.5, upper = 0.5 }
    assert.is_true(j.limit)
    local lo, hi = range(scene, j, "angle", 120)
    -- a swing hitting the limit at 3 rad/s passes it by at most a step's turn, pushed back at the next
    assert.is_true(lo >= -0.57 and hi <= 0.57, ("angle stayed in [%g, %g]"):format(lo, hi))
    assert.near(0.5, math.abs(j.angle), 0.02) -- it swung to a limit and stays there
    j.limit = false
    lo, hi = range(scene, j, "angle", 60)
    assert.is_true(hi - lo > 0.5 or math.max(-lo, hi) > 0.6, "free again, it swings on")
  end)

  it("a hinge's limits stop a pendulum's swing within its angles", function()
    local scene = Scene.new()
    local bob = body(scene, "bob", { 1, 5, 0 }, 3)
    local j = scene.physics:joint { type = "hinge", a = bob, anchor = { 0, 5, 0 }, axis = { 0, 0, 1 }, lower = -0.5, upper = 0.5 }
    local lo, hi = range(scene, j, "angle", 120)
    assert.is_true(lo >= -0.56 and hi <= 0.56, ("angle stayed in [%g, %g]"):format(lo, hi))
    assert.near(0.5, math.abs(j.angle), 0.03) -- Bullet's limit is soft: it gives a little, then settles
  end)

  for _, case in ipairs {
    { dims = 2, type = "prismatic" },
    { dims = 2, type = "wheel" },
    { dims = 3, type = "slider" },
  } do
    it(("a %s's limits stop a falling body's travel"):format(case.type), function()
      local scene = Scene.new()
      local go = body(scene, "falling", { 0, 5, 0 }, case.dims)
      local axis = case.dims == 2 and { 0, 1 } or { 0, 1, 0 }
      local j = world(scene, case.dims):joint { type = case.type, a = go, axis = axis, lower = -0.25, upper = 1 }
      assert.equals(-0.25, j.lower)
      assert.equals(1, j.upper)
      run(scene, 90)
      -- the translation is the world's along a's axis, so a falling a moves it up
      assert.near(1, j.translation, 0.03)
      assert.near(1, 5 - go.position.y, 0.03)
      j.upper = 2
      j.lower = -2
      run(scene, 90)
      assert.near(2, 5 - go.position.y, 0.05)
    end)
  end

  it("motor and limit values are in game units under unitsPerMeter", function()
    local scene = Scene.new()
    scene.physics2d.unitsPerMeter = 100
    scene.physics2d.gravity = { 0, 0 }
    local go = GameObject.new { name = "cart", position = { 0, 200, 0 } }
    go:addComponent(tycho.RigidBody2D)
    go:addComponent(tycho.BoxCollider2D, { size = { x = 50, y = 50 } })
    scene:add(go)
    local j = scene.physics2d:joint { type = "prismatic", a = go, axis = { 1, 0 }, motorSpeed = 150, maxMotorForce = 1e6,
      lower = -300, upper = 300 }
    assert.equals(150, j.motorSpeed)
    assert.equals(300, j.upper)
    run(scene, 5)
    assert.near(150, math.abs(rate(scene, j, "translation", 30)), 2)
    run(scene, 240)
    assert.near(300, math.abs(go.position.x), 3) -- stopped at the limit
  end)
end)

describe("joint motor and limit errors", function()
  local function scene2()
    local scene = Scene.new()
    return scene, body(scene, "b", { 0, 0, 0 }, 2), body(scene, "c", { 0, 0, 0 }, 3)
  end

  it("refuses options a joint has no use for, and bad numbers", function()
    local scene, b2, b3 = scene2()
    local p2, p3 = scene.physics2d, scene.physics
    local cases = {
      { p2, { type = "weld", a = b2, motorSpeed = 1 }, "a weld joint has no motor (motorSpeed)" },
      { p2, { type = "distance", a = b2, anchor = { 0, 1 }, lower = 0 }, "a distance joint has no limits (lower)" },
      { p2, { type = "revolute", a = b2, maxMotorForce = 1 }, "a revolute joint's motor takes maxMotorTorque, not maxMotorForce" },
      { p2, { type = "prismatic", a = b2, axis = { 1, 0 }, maxMotorTorque = 1 }, "takes maxMotorForce, not maxMotorTorque" },
      { p2, { type = "revolute", a = b2, lower = 1, upper = -1 }, "lower (1.0) must not be above upper (-1.0)" },
      { p2, { type = "revolute", a = b2, motorSpeed = 0 / 0 }, "motorSpeed must be a finite number, got" },
      { p2, { type = "revolute", a = b2, maxMotorTorque = -1 }, "maxMotorTorque must be a finite number >= 0.0, got -1" },
      { p3, { type = "point", a = b3, motor = true }, "a point joint has no motor (motor)" },
      { p3, { type = "fixed", a = b3, upper = 1 }, "a fixed joint has no limits (upper)" },
    }
    for _, c in ipairs(cases) do
      local before = c[1].jointCount
      local ok, err = pcall(c[1].joint, c[1], c[2])
      assert.is_false(ok)
      assert.truthy(err:find(c[3], 1, true), err)
      assert.equals(before, c[1].jointCount) -- nothing made
    end
  end)

  it("refuses a bad field and keeps what the joint had", function()
    local scene, b2 = scene2()
    local j = scene.physics2d:joint { type = "revolute", a = b2, lower = -1, upper = 1, motorSpeed = 2, maxMotorTorque = 5 }
    local cases = {
      { "lower", 2, "lower (2.0) must not be above upper (1.0)" },
      { "motorSpeed", "fast", "Joint.motorSpeed must be a finite number, got string" },
      { "maxMotorTorque", -1, "must be a finite number >= 0, got -1" },
      { "maxMotorForce", 1, "takes maxMotorTorque, not maxMotorForce" },
      { "limit", 1, "boolean expected" },
      { "angle", 1, "Joint.angle cannot be set" },
    }
    for _, c in ipairs(cases) do
      local ok, err = pcall(function() j[c[1]] = c[2] end)
      assert.is_false(ok)
      assert.truthy(err:find(c[3], 1, true), err)
    end
    assert.equals(-1, j.lower)
    assert.equals(1, j.upper)
    assert.equals(2, j.motorSpeed)
    assert.equals(5, j.maxMotorTorque)
    local w = scene.physics2d:joint { type = "weld", a = b2 }
    assert.is_nil(w.motorSpeed)
    assert.is_nil(w.angle)
    local ok, err = pcall(function() w.motorSpeed = 1 end)
    assert.is_false(ok)
    assert.truthy(err:find("a weld joint has no motor (Joint.motorSpeed)", 1, true), err)
  end)

  it("keeps its motor and limits when a body is rebuilt", function()
    local scene = Scene.new()
    scene.physics2d.gravity = { 0, 0 }
    local go = body(scene, "wheel", { 0, 0, 0 }, 2)
    local j = scene.physics2d:joint { type = "revolute", a = go, motorSpeed = 2, maxMotorTorque = 100 }
    run(scene, 5)
    go:addComponent(tycho.BoxCollider2D, { size = { x = 1, y = 1 } }) -- rebuilds the body, then the joint
    run(scene, 10)
    assert.near(2, math.abs(rate(scene, j, "angle", 30)), 0.02)
  end)
end)
