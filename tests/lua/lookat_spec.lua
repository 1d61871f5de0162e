-- tests/lua/lookat_spec.lua: go:lookAt(target [, up]) (bindings/lua_transform.c): the object's
-- forward (-Z, the way a Camera looks) points at the target in world space, under rotated
-- and scaled parents, and the degenerate cases leave no NaN behind.

local GameObject, Scene = tycho.GameObject, tycho.Scene
local EPS = 1e-5

local function forwardOf(go) return go.worldRotation:rotate(tycho.vec3(0, 0, -1)) end
local function upOf(go) return go.worldRotation:rotate(tycho.vec3(0, 1, 0)) end
local function rightOf(go) return go.worldRotation:rotate(tycho.vec3(1, 0, 0)) end

local function assertVec(v, x, y, z, what)
  what = what or "vec"
  assert.near(x, v.x, EPS, what .. ".x")
  assert.near(y, v.y, EPS, what .. ".y")
  assert.near(z, v.z, EPS, what .. ".z")
end

local function unit(x, y, z)
  local n = math.sqrt(x * x + y * y + z * z)
  return x / n, y / n, z / n
end

local function assertFinite(q)
  for _, k in ipairs({ "x", "y", "z", "w" }) do
    assert.is_true(q[k] == q[k] and math.abs(q[k]) < math.huge, "rotation." .. k .. " is " .. tostring(q[k]))
  end
end

describe("go:lookAt", function()
  local scene
  before_each(function() scene = Scene.new() end)

  it("turns -Z towards a point and keeps +Y up", function()
    local go = scene:add(GameObject.new({ name = "eye", position = { 1, 2, 3 } }))
    assert.equals(go, go:lookAt(tycho.vec3(4, 2, 7)))
    assertVec(forwardOf(go), 0.6, 0, 0.8, "forward")
    assertVec(upOf(go), 0, 1, 0, "up")
    assertVec(go.worldPosition, 1, 2, 3, "the position does not move")
  end)

  it("accepts a plain table, a local position table and a GameObject as the target", function()
    local go = scene:add(GameObject.new({ name = "eye" }))
    go:lookAt({ 0, 0, 5 })
    assertVec(forwardOf(go), 0, 0, 1, "{x, y, z}")
    go:lookAt({ x = 5, y = 0, z = 0 })
    assertVec(forwardOf(go), 1, 0, 0, "{x=, y=, z=}")
    local target = scene:add(GameObject.new({ name = "target", position = { 0, -3, 0 } }))
    local holder = scene:add(GameObject.new({ name = "holder", position = { 0, 0, -4 } }))
    holder:addChild(target) -- target's world position is now (0, -3, -4)
    go:lookAt(target)
    assertVec(forwardOf(go), 0, -0.6, -0.8, "a GameObject's world position")
    go:lookAt(holder.position)
    assertVec(forwardOf(go), 0, 0, -1, "a local position table")
  end)

  it("writes the local rotation table Lua holds", function()
    local go = scene:add(GameObject.new({ name = "eye" }))
    local r = go.rotation
    go:lookAt(tycho.vec3(1, 0, 0)) -- a quarter turn about Y: -Z goes to +X
    local s = math.sqrt(0.5)
    local sign = r.w < 0 and -1 or 1
    assert.near(0, r.x * sign, EPS)
    assert.near(-s, r.y * sign, EPS)
    assert.near(0, r.z * sign, EPS)
    assert.near(s, r.w * sign, EPS)
  end)

  it("leans +Y towards a given up", function()
    local go = scene:add(GameObject.new({ name = "eye" }))
    go:lookAt(tycho.vec3(0, 0, -10), tycho.vec3(1, 0, 0))
    assertVec(forwardOf(go), 0, 0, -1, "forward")
    assertVec(upOf(go), 1, 0, 0, "up")
    go:lookAt(tycho.vec3(0, 0, -10), { 1, 1, 0 })
    local ux, uy = unit(1, 1, 0)
    assertVec(upOf(go), ux, uy, 0, "up")
  end)

  it("accounts for the parent's world rotation", function()
    local parent = scene:add(GameObject.new({ name = "parent", position = { 0, 0, 5 } }))
    parent.rotation:setAxisAngle(0, 1, 0, math.pi / 2) -- the parent's -Z is world -X
    local child = GameObject.new({ name = "child" })
    parent:addChild(child)
    child:lookAt(tycho.vec3(0, 0, 0))
    assertVec(forwardOf(child), 0, 0, -1, "forward")
    assertVec(upOf(child), 0, 1, 0, "up")
    -- the local rotation undoes the parent's quarter turn
    local r = child.rotation
    local s = math.sqrt(0.5)
    local sign = r.w < 0 and -1 or 1
    assert.near(-s, r.y * sign, EPS)
    assert.near(s, r.w * sign, EPS)
  end)

  it("accounts for the parent's world rotation and non-uniform scale", function()
    local parent = scene:add(GameObject.new({ name = "parent", position = { 2, 0, 0 }, scale = { 1, 3, 0.5 } }))
    parent.rotation:setAxisAngle(0, 1, 0, 0.7)
    local child = GameObject.new({ name = "child", position = { 0, 1, 1 } })
    parent:addChild(child)
    scene:add(child)
    local child2 = GameObject.new({ name = "grandchild" })
    child:addChild(child2)
    child.rotation:setAxisAngle(1, 0, 0, 0.4)
    local target = tycho.vec3(-3, 5, 8)
    for _, go in ipairs({ child, child2 }) do
      go:lookAt(target)
      local p = go.worldPosition
      local tx, ty, tz = unit(target.x - p.x, target.y - p.y, target.z - p.z)
      -- Under a non-uniform parent scale the world matrix shears, so its decomposed
      -- rotation is approximate: what is drawn is the matrix, and it takes -Z at the target.
      local m = go:localToWorld()
      local o, ahead = m:transformPoint(tycho.vec3(0, 0, 0)), m:transformPoint(tycho.vec3(0, 0, -1))
      local dx, dy, dz = unit(ahead.x - o.x, ahead.y - o.y, ahead.z - o.z)
      assert.near(tx, dx, 1e-4, go.name .. " matrix -Z.x")
      assert.near(ty, dy, 1e-4, go.name .. " matrix -Z.y")
      assert.near(tz, dz, 1e-4, go.name .. " matrix -Z.z")
    end
  end)

  it("leaves the rotation alone when the target is at the object's position", function()
    local go = scene:add(GameObject.new({ name = "eye", position = { 1, 1, 1 } }))
    go.rotation:setAxisAngle(0, 0, 1, 0.5)
    local before = { go.rotation.x, go.rotation.y, go.rotation.z, go.rotation.w }
    go:lookAt({ 1, 1, 1 })
    assert.same(before, { go.rotation.x, go.rotation.y, go.rotation.z, go.rotation.w })
    assertFinite(go.rotation)
  end)

  it("looks straight down or up without NaN when up is along the line of sight", function()
    local go = scene:add(GameObject.new({ name = "eye", position = { 0, 10, 0 } }))
    go:lookAt(tycho.vec3(0, 0, 0))
    assertFinite(go.rotation)
    assertVec(forwardOf(go), 0, -1, 0, "down")
    -- the limit of pitching the default view down: the screen's top is -Z, its right +X
    assertVec(upOf(go), 0, 0, -1, "up looking down")
    assertVec(rightOf(go), 1, 0, 0, "right looking down")
    go:lookAt(tycho.vec3(0, 20, 0))
    assertFinite(go.rotation)
    assertVec(forwardOf(go), 0, 1, 0, "up")
    assertVec(upOf(go), 0, 0, 1, "up looking up")
    assertVec(rightOf(go), 1, 0, 0, "right looking up")
    go:lookAt(tycho.vec3(0, 10, -5), tycho.vec3(0, 0, -2)) -- up along -Z, looking along -Z
    assertFinite(go.rotation)
    assertVec(forwardOf(go), 0, 0, -1, "forward")
    assertVec(upOf(go), 0, 1, 0, "falls back to +Y")
    go:lookAt(tycho.vec3(3, 10, 0), tycho.vec3(0, 0, 0)) -- a zero up
    assertFinite(go.rotation)
    assertVec(forwardOf(go), 1, 0, 0, "forward with a zero up")
  end)

  it("raises the standard error for bad arguments", function()
    local go = scene:add(GameObject.new({ name = "eye" }))
    local ok, err = pcall(function() go:lookAt("there") end)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("bad argument #1 to 'lookAt' (Vec3 or GameObject expected, got string)", 1, true), err)
    ok, err = pcall(function() go:lookAt({ 1, 2 }) end)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("bad argument #1 to 'lookAt'", 1, true), err)
    ok, err = pcall(function() go:lookAt({ 1, 2, 3 }, 7) end)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("bad argument #2 to 'lookAt' (Vec3 expected, got number)", 1, true), err)
    ok, err = pcall(function() go:lookAt() end)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("bad argument #1 to 'lookAt'", 1, true), err)
    ok, err = pcall(GameObject.lookAt, 5, { 1, 2, 3 })
    assert.is_false(ok)
  end)
end)
