-- tests/lua/gameobject_spec.lua: a GameObject's transform through the Lua API, transform
-- statistics, destroyed objects and argument errors (bindings/lua_gameobject.c), as
-- ../shared/API.md "Scene graph" and "Errors" state.

local GameObject, Scene = tycho.GameObject, tycho.Scene
local EPS = 1e-5

local function xyz(v) return { v.x, v.y, v.z } end

local function assertVec(v, x, y, z, what)
  what = what or "vec"
  assert.near(x, v.x, EPS, what .. ".x")
  assert.near(y, v.y, EPS, what .. ".y")
  assert.near(z, v.z, EPS, what .. ".z")
end

local function assertQuat(q, want, what)
  what = what or "quat"
  -- q and -q are the same rotation
  local sign = (q.x * want.x + q.y * want.y + q.z * want.z + q.w * want.w) < 0 and -1 or 1
  assert.near(want.x, sign * q.x, EPS, what .. ".x")
  assert.near(want.y, sign * q.y, EPS, what .. ".y")
  assert.near(want.z, sign * q.z, EPS, what .. ".z")
  assert.near(want.w, sign * q.w, EPS, what .. ".w")
end

local function assertIdentity(m, what)
  for i = 1, 16 do
    local want = (i == 1 or i == 6 or i == 11 or i == 16) and 1 or 0
    assert.near(want, m:get(i), 1e-4, (what or "mat4") .. "[" .. i .. "]")
  end
end

local HALF_PI = math.pi / 2

describe("GameObject transforms", function()
  describe("position, rotation, scale", function()
    it("default to the identity", function()
      local go = GameObject.new("a")
      assert.same({ 0, 0, 0 }, xyz(go.position))
      assert.same({ 0, 0, 0, 1 }, { go.rotation.x, go.rotation.y, go.rotation.z, go.rotation.w })
      assert.same({ 1, 1, 1 }, xyz(go.scale))
    end)

    it("are live views: writing a field moves the object", function()
      local go = GameObject.new("a")
      go.position.y = 2
      assert.equals(2, go.position.y)
      assert.equals(2, go.worldPosition.y)
      local p = go.position
      p.x = 5
      assert.equals(5, go.position.x, "a kept view writes the transform too")
      assert.equals(5, go.worldPosition.x)
      go.scale.z = 3
      assert.equals(3, go:getWorldScale().z)
    end)

    it("are one cached value per object", function()
      local go = GameObject.new("a")
      assert(rawequal(go.position, go.position), "position view must be cached")
      assert(rawequal(go.rotation, go.rotation), "rotation view must be cached")
      assert(not rawequal(go.position, GameObject.new("b").position), "views are per object")
    end)

    it("views work with Vec3 methods", function()
      local go = GameObject.new("a")
      go.position:set(3, 4, 0)
      assert.equals(5, go.position:length())
      local c = go.position:clone()
      go.position.x = 0
      assert.equals(3, c.x, "clone is a detached copy")
      go.rotation:setAxisAngle(0, 1, 0, HALF_PI)
      assertVec(go.rotation:rotate(tycho.vec3(1, 0, 0)), 0, 0, -1, "rotated x")
    end)

    it("take a Vec3, a Quat or a table on assignment, copying it", function()
      local go = GameObject.new("a")
      local v = tycho.vec3(1, 2, 3)
      go.position = v
      v.x = 100
      assert.same({ 1, 2, 3 }, xyz(go.position), "assignment copies")
      go.position = { x = 4, y = 5, z = 6 }
      assert.same({ 4, 5, 6 }, xyz(go.position))
      go.position = { 7, 8, 9 }
      assert.same({ 7, 8, 9 }, xyz(go.position))
      go.scale = { 2, 2, 2 }
      assert.same({ 2, 2, 2 }, xyz(go.scale))
      local q = tycho.quat.axisAngle(1, 0, 0, HALF_PI)
      go.rotation = q
      assertQuat(go.rotation, q)
      go.rotation = { x = 0, y = 0, z = 0, w = 1 }
      assertQuat(go.rotation, { x = 0, y = 0, z = 0, w = 1 })
      local other = GameObject.new("b")
      other.position = go.position -- a view of another object
      assert.same({ 7, 8, 9 }, xyz(other.position))
      go.position.x = 0
      assert.equals(7, other.position.x, "assigning a view copies it")
    end)

    it("refuse wrong values on assignment", function()
      local go = GameObject.new("a")
      assert.error_matches(function() go.position = 5 end, "position", nil, true)
      assert.error_matches(function() go.position = { x = 1 } end, "position table needs a number for 'y'", nil, true)
      assert.error_matches(function() go.rotation = tycho.vec3() end, "rotation must be a Quat", nil, true)
      assert.error_matches(function() go.scale = "big" end, "scale", nil, true)
      assert.same({ 0, 0, 0 }, xyz(go.position), "a refused assignment writes nothing")
    end)
  end)

  describe("world values under parents", function()
    local parent, child
    before_each(function()
      parent = GameObject.new {
        name = "parent", position = { 10, 0, 0 }, rotation = tycho.quat.axisAngle(0, 1, 0, HALF_PI),
        scale = { 2, 2, 2 },
      }
      child = GameObject.new { name = "child", position = { 1, 0, 0 }, scale = { 1, 3, 1 } }
      parent:addChild(child)
    end)

    it("compose position, rotation and scale", function()
      -- parent: scale 2, then 90 degrees about +y (x -> -z), then +10 x
      assertVec(child.worldPosition, 10, 0, -2, "worldPosition")
      assertQuat(child.worldRotation, tycho.quat.axisAngle(0, 1, 0, HALF_PI), "worldRotation")
      assertVec(child.worldScale, 2, 6, 2, "worldScale")
      assert.same({ 1, 0, 0 }, xyz(child.position), "local position is untouched")
    end)

    it("compose through several levels", function()
      local grandchild = GameObject.new { name = "g", position = { 0, 0, 1 } }
      child:addChild(grandchild)
      -- in child space (0,0,1); child scale (1,3,1) keeps it; parent: *2 -> (0,0,2), rotate -> (2,0,0)
      assertVec(grandchild.worldPosition, 12, 0, -2, "grandchild")
    end)

    it("follow the parent when it moves", function()
      parent.position.x = 20
      assertVec(child.worldPosition, 20, 0, -2)
      parent.rotation = tycho.quat.identity()
      assertVec(child.worldPosition, 22, 0, 0)
    end)

    it("are read-only", function()
      assert.error_matches(function() child.worldPosition = tycho.vec3() end, "read-only", nil, true)
      assert.error_matches(function() child.worldPosition.x = 1 end, "read-only", nil, true)
      assert.error_matches(function() child.worldRotation.w = 1 end, "read-only", nil, true)
    end)

    it("a kept worldPosition is owned by the transform: it changes as the object moves", function()
      local kept = child.worldPosition
      local copy = kept:clone()
      parent.position.x = 0
      assertVec(kept, 0, 0, -2, "the kept value follows")
      assertVec(copy, 10, 0, -2, "a copy does not")
    end)

    it("getWorldPosition/Rotation/Scale return new values without out", function()
      local a, b = child:getWorldPosition(), child:getWorldPosition()
      assert(not rawequal(a, b), "a new value each call")
      assertVec(a, 10, 0, -2)
      a.x = 99
      assertVec(child.worldPosition, 10, 0, -2, "the returned value is detached")
      assertQuat(child:getWorldRotation(), tycho.quat.axisAngle(0, 1, 0, HALF_PI))
      assertVec(child:getWorldScale(), 2, 6, 2)
    end)

    it("getWorldPosition/Rotation/Scale write into out and return it", function()
      local out = tycho.vec3(7, 7, 7)
      assert(rawequal(child:getWorldPosition(out), out), "returns out")
      assertVec(out, 10, 0, -2)
      local q = tycho.quat.identity()
      assert(rawequal(child:getWorldRotation(q), q), "returns out")
      assertQuat(q, tycho.quat.axisAngle(0, 1, 0, HALF_PI))
      local s = tycho.vec3()
      assert(rawequal(child:getWorldScale(s), s), "returns out")
      assertVec(s, 2, 6, 2)
    end)

    it("getWorldPosition into another object's position view moves that object", function()
      local follower = GameObject.new("follower")
      child:getWorldPosition(follower.position)
      assertVec(follower.position, 10, 0, -2)
      assert.error_matches(function() child:getWorldPosition(follower.worldPosition) end, "read-only", nil, true)
    end)

    it("getWorld* check out's type", function()
      assert.error_matches(function() child:getWorldPosition(tycho.quat.identity()) end,
        "bad argument #1 to 'getWorldPosition' (Vec3 expected", nil, true)
      assert.error_matches(function() child:getWorldRotation(tycho.vec3()) end,
        "bad argument #1 to 'getWorldRotation' (Quat expected", nil, true)
    end)

    it("localToWorld returns a new Mat4 that maps local points to world", function()
      local m = child:localToWorld()
      assert(not rawequal(m, child:localToWorld()), "a new Mat4 each call")
      assertVec(m:transformPoint(tycho.vec3(0, 0, 0)), 10, 0, -2, "origin")
      -- local (1,0,0): child scale 1 -> parent (2,0,0) -> *2 (4,0,0)... in parent space: (1,0,0)+(1,0,0)=(2,0,0)
      assertVec(m:transformPoint(tycho.vec3(1, 0, 0)), 10, 0, -4, "local x")
      assertVec(m:transformPoint(tycho.vec3(0, 1, 0)), 10, 6, -2, "local y (scaled 3 * 2)")
      assert.near(10, m:get(13), EPS, "column-major translation x")
      assert.near(-2, m:get(15), EPS, "column-major translation z")
    end)

    it("localToWorldInto writes into m and returns it", function()
      local m = tycho.mat4()
      assert(rawequal(child:localToWorldInto(m), m), "returns m")
      assert.near(10, m:get(13), EPS)
      assert.near(-2, m:get(15), EPS)
      assert.error_matches(function() child:localToWorldInto(tycho.vec3()) end, "bad argument #1 to 'localToWorldInto'", nil, true)
    end)

    it("worldToLocal is the inverse of localToWorld", function()
      local l2w, w2l = child:localToWorld(), child:worldToLocal()
      assertIdentity(l2w:mul(w2l), "l2w * w2l")
      assertIdentity(w2l:mul(l2w), "w2l * l2w")
      assertVec(w2l:transformPoint(tycho.vec3(10, 0, -2)), 0, 0, 0, "world origin of child back to local")
      parent.position.x = 0
      assertVec(child:worldToLocal():transformPoint(tycho.vec3(0, 0, -2)), 0, 0, 0, "tracks moves")
    end)
  end)

  describe("tycho.stats.transforms", function()
    local function stats() return tycho.stats.transforms() end

    it("counts nothing after a reset", function()
      local go = GameObject.new("a")
      local _ = go.worldPosition.x -- a field read resolves the view
      tycho.stats.reset()
      assert.same({ localRebuilds = 0, worldRebuilds = 0 }, stats())
    end)

    it("reading twice rebuilds once", function()
      local go = GameObject.new("a")
      local _ = go.worldPosition.x -- a field read resolves the view
      tycho.stats.reset()
      go.position.x = 1
      _ = go.worldPosition.x
      _ = go.worldPosition.x
      _ = go:localToWorld()
      assert.same({ localRebuilds = 1, worldRebuilds = 1 }, stats())
    end)

    it("writing the same value rebuilds nothing", function()
      local go = GameObject.new { name = "a", position = { 1, 2, 3 } }
      local _ = go.worldPosition.x -- a field read resolves the view
      tycho.stats.reset()
      go.position.x = 1
      go.position = { 1, 2, 3 }
      _ = go.worldPosition.x
      assert.same({ localRebuilds = 0, worldRebuilds = 0 }, stats())
    end)

    it("moving a parent rebuilds the children's world matrices, not their local ones", function()
      local p, c = GameObject.new("p"), GameObject.new("c")
      p:addChild(c)
      local _ = c.worldPosition.x
      tycho.stats.reset()
      p.position.y = 4
      assertVec(c.worldPosition, 0, 4, 0)
      assert.same({ localRebuilds = 1, worldRebuilds = 2 }, stats())
    end)

    it("a tick with nothing moving rebuilds nothing", function()
      local scene = Scene.new()
      local go = scene:add(GameObject.new("a"))
      local still = scene:add(GameObject.new("still"))
      still.position.x = 2 -- a position table Lua holds, read back at every sync
      scene:update(0.1)
      tycho.syncTransforms() -- builds them, and whatever earlier specs left unbuilt
      tycho.stats.reset()
      scene:update(0.1)
      tycho.syncTransforms()
      local _ = go.worldPosition.x + still.worldPosition.x
      assert.same({ localRebuilds = 0, worldRebuilds = 0 }, stats())
    end)

    it("reading a moved leaf's world position is one world rebuild", function()
      local scene = Scene.new()
      local root = scene:add(GameObject.new("root"))
      local leaf = GameObject.new("leaf")
      root:addChild(leaf)
      scene:update(1 / 60)
      local _ = leaf.worldPosition.x
      tycho.stats.reset()
      leaf.position.x = 3
      local wp = leaf.worldPosition -- reading the field reads the value
      assert.same({ localRebuilds = 1, worldRebuilds = 1 }, stats())
      assert.equals(3, wp.x)
      assert.same({ localRebuilds = 1, worldRebuilds = 1 }, stats(), "reading it again rebuilds nothing")
      tycho.stats.reset()
      leaf.position.x = 4
      scene:update(1 / 60)
      assert.equals(4, leaf:getWorldPosition().x)
      assert.same({ localRebuilds = 1, worldRebuilds = 1 }, stats(), "a tick between changes nothing")
    end)
  end)
end)

describe("destroyed GameObjects", function()
  local scene, go, kept
  before_each(function()
    scene = Scene.new()
    go = scene:add(GameObject.new("ghost"))
    go.hp = 3
    kept = { position = go.position, rotation = go.rotation, worldPosition = go.worldPosition }
    go:destroy()
  end)

  local function assertDead(fn, what)
    local ok, err = pcall(fn)
    assert(not ok, what .. " must raise on a destroyed GameObject")
    assert(type(err) == "string" and err:find("'ghost'", 1, true) and err:find("destroyed", 1, true),
      what .. ": the error must name the object: " .. tostring(err))
  end

  it("still work until the sweep", function()
    assert.equals("ghost", go.name)
    assert.equals(0, go.position.x)
    assert.equals(true, go.destroyed)
    assert.equals(3, go.hp)
  end)

  it("raise on every field after the sweep", function()
    scene:update(0.1)
    assert.equals(true, go.destroyed, "destroyed stays readable")
    for _, field in ipairs({ "name", "id", "enabled", "parent", "children", "tags", "position", "rotation", "scale",
      "worldPosition", "worldRotation", "worldScale", "hp", "anything" }) do
      assertDead(function() return go[field] end, "reading " .. field)
    end
    for field, value in pairs({ name = "x", enabled = false, position = { 1, 2, 3 }, hp = 4, fresh = 1 }) do
      assertDead(function() go[field] = value end, "writing " .. field)
    end
  end)

  it("raise on every method after the sweep", function()
    scene:update(0.1)
    local other = GameObject.new("other")
    local C = tycho.component("gameobject_spec.C")
    local calls = {
      addComponent = { C }, getComponent = { C }, getComponents = {}, removeComponent = { {} },
      addChild = { other }, removeChild = { other }, setParent = { other }, addTag = { "t" }, hasTag = { "t" },
      removeTag = { "t" }, getWorldPosition = {}, getWorldRotation = {}, getWorldScale = {},
      localToWorld = {}, localToWorldInto = { tycho.mat4() }, worldToLocal = {},
    }
    for method, args in pairs(calls) do
      assertDead(function() return go[method](go, table.unpack(args)) end, method)
    end
    assertDead(function() other:addChild(go) end, "other:addChild(dead)")
    assertDead(function() other:setParent(go) end, "other:setParent(dead)")
    assertDead(function() scene:add(go) end, "scene:add(dead)")
    assertDead(function() Scene.new():add(go) end, "another scene's add(dead)")
    go:destroy() -- destroying again stays a no-op
  end)

  it("raise through kept transform views", function()
    scene:update(0.1)
    assertDead(function() return kept.position.x end, "a kept position view")
    assertDead(function() kept.position.x = 1 end, "writing a kept position view")
    assertDead(function() return kept.rotation.w end, "a kept rotation view")
    assertDead(function() return kept.worldPosition.y end, "a kept worldPosition")
    assertDead(function() return kept.position:clone() end, "a method on a kept view")
    assertDead(function() return tycho.vec3(1, 1, 1) + kept.position end, "arithmetic with a kept view")
  end)

  it("keep a readable tostring", function()
    scene:update(0.1)
    assert(tostring(go):find("ghost", 1, true), tostring(go))
  end)

  it("are gone from the scene and their id is never handed out again", function()
    local id = go.destroyed and scene:findById(go.id) and go.id
    assert(id, "findable before the sweep")
    scene:update(0.1)
    assert.is_nil(scene:findById(id))
    local seen = {}
    for i = 1, 2000 do
      local fresh = scene:add(GameObject.new("fresh"))
      assert(fresh.id ~= id, "id " .. id .. " reused after " .. i .. " objects")
      seen[#seen + 1] = fresh
      if i % 100 == 0 then
        for _, f in ipairs(seen) do f:destroy() end
        seen = {}
        scene:update(0)
      end
    end
    assert.is_nil(scene:findById(id))
  end)

  it("a loose (sceneless) destroyed object raises at once", function()
    local loose = GameObject.new("loose")
    local p = loose.position
    loose:destroy()
    local ok, err = pcall(function() return loose.enabled end)
    assert(not ok and err:find("'loose'", 1, true), tostring(err))
    ok, err = pcall(function() return p.x end)
    assert(not ok and err:find("'loose'", 1, true), tostring(err))
  end)
end)

describe("argument errors", function()
  local scene, go
  before_each(function()
    scene = Scene.new()
    go = GameObject.new("a")
  end)

  it("use the standard bad argument form", function()
    assert.error_matches(function() go:addComponent(5) end, "bad argument #1 to 'addComponent' (table expected, got number)", nil, true)
    assert.error_matches(function() scene:add("x") end, "bad argument #1 to 'add' (GameObject expected, got string)", nil, true)
    assert.error_matches(function() scene:remove(5) end, "bad argument #1 to 'remove' (GameObject expected, got number)", nil, true)
    assert.error_matches(function() scene:update("a") end, "bad argument #1 to 'update' (number expected, got string)", nil, true)
    assert.error_matches(function() GameObject.new(true) end, "bad argument #1 to 'new' (string expected, got boolean)", nil, true)
    assert.error_matches(function() go:addTag({}) end, "bad argument #1 to 'addTag' (string expected, got table)", nil, true)
    assert.error_matches(function() scene:findById({}) end, "bad argument #1 to 'findById' (number expected, got table)", nil, true)
    assert.error_matches(function() go.addComponent("x", {}) end, "bad argument #1 to 'addComponent' (GameObject expected", nil, true)
  end)

  it("GameObject.new takes a number as a name, as Lua's string functions do", function()
    assert.equals("5", GameObject.new(5).name)
  end)
end)

describe("require", function()
  it("require('tycho') is the tycho global", function()
    assert(rawequal(require("tycho"), tycho), "require('tycho') must return the global table")
  end)
end)
