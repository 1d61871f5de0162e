-- tests/lua/local_transform_spec.lua: go.position, go.rotation and go.scale as plain Lua
-- tables (bindings/lua_gameobject.c, bindings/lua_math.c): every access path a script uses, what
-- C reads back from them (compare on read) and what C writes into them, and what happens
-- once their object is gone.

local GameObject, Scene = tycho.GameObject, tycho.Scene
local EPS = 1e-5

local function stats() return tycho.stats.transforms() end

describe("local transform tables", function()
  it("are plain tables with the Vec3 and Quat names, made once per object", function()
    local go = GameObject.new("a")
    assert.equals("table", type(go.position))
    assert.equals("table", type(go.rotation))
    assert(rawequal(go.position, go.position) and rawequal(go.scale, go.scale))
    assert.equals(0, rawget(go.position, "x"), "fields are raw: no metamethod on the hot path")
    assert.equals(1, rawget(go.rotation, "w"))
    assert.equals("Vec3(0, 0, 0)", tostring(go.position))
    assert.equals("Quat(0, 0, 0, 1)", tostring(go.rotation))
    assert.equals("Vec3(1, 1, 1)", tostring(go.scale))
  end)

  it("start from the values the object already has", function()
    local go = GameObject.new { name = "a", position = { 1, 2, 3 }, scale = { 4, 5, 6 } }
    assert.same({ 1, 2, 3 }, { go.position.x, go.position.y, go.position.z })
    assert.same({ 4, 5, 6 }, { go.scale.x, go.scale.y, go.scale.z })
  end)

  it("written field by field move the object in world reads, under parents too", function()
    local parent, child = GameObject.new("p"), GameObject.new("c")
    parent:addChild(child)
    child.position.z = 1
    parent.position.x = 10
    parent.scale.y = 2
    child.position.y = 1
    assert.near(10, child.worldPosition.x, EPS)
    assert.near(2, child.worldPosition.y, EPS)
    assert.near(1, child.worldPosition.z, EPS)
    parent.rotation:setAxisAngle(0, 1, 0, math.pi / 2)
    local w = child:getWorldPosition()
    assert.near(11, w.x, EPS)
    assert.near(0, w.z, EPS)
    local m = child:localToWorld()
    assert.near(11, m:get(13), EPS)
  end)

  it("are read back once: an unchanged table costs no rebuild, a changed one exactly one", function()
    local go = GameObject.new("a")
    go.position.x = 1
    local _ = go.worldPosition.x
    tycho.stats.reset()
    for _ = 1, 10 do _ = go.worldPosition.x end
    assert.same({ localRebuilds = 0, worldRebuilds = 0 }, stats())
    go.position.x = 1 -- the same value
    _ = go.worldPosition.x
    assert.same({ localRebuilds = 0, worldRebuilds = 0 }, stats())
    go.position.x = 2
    _ = go.worldPosition.x
    _ = go.worldPosition.y
    assert.same({ localRebuilds = 1, worldRebuilds = 1 }, stats())
  end)

  it("are read back by the sync a frame runs", function()
    local go = GameObject.new("a")
    local p = go.position
    tycho.syncTransforms()
    tycho.stats.reset()
    p.x = 5
    tycho.syncTransforms()
    assert.same({ localRebuilds = 1, worldRebuilds = 1 }, stats())
    assert.near(5, go:localToWorld():get(13), EPS)
  end)

  it("see what C writes: assignment, getWorldPosition into them", function()
    local go, other = GameObject.new("a"), GameObject.new("b")
    local p = go.position
    go.position = { 4, 5, 6 }
    assert.same({ 4, 5, 6 }, { p.x, p.y, p.z }, "a kept table sees the assignment")
    go.rotation = tycho.quat.axisAngle(1, 0, 0, math.pi)
    assert.near(1, math.abs(go.rotation.x), EPS)
    other.position.x = 9
    other:getWorldPosition(go.position)
    assert.same({ 9, 0, 0 }, { p.x, p.y, p.z })
    assert.near(9, go.worldPosition.x, EPS)
    other.position = go.position -- copies: the tables stay separate
    p.x = 1
    assert.equals(9, other.position.x)
  end)

  it("see what a CRDT stream writes", function()
    local crdt, sync = tycho.crdt, require("tycho.sync")
    local C = sync.components
    local s = sync.new(Scene.new())
    local peer, e = crdt.new(), crdt.entity(900, 0)
    s:apply(peer:put(e, C.TRANSFORM, crdt.transform.encode({ position = { 1, 2, 3 } })))
    local p = s:gameObjectFor(e).position
    s:apply(peer:put(e, C.TRANSFORM, crdt.transform.encode({ position = { 7, 8, 9 } })))
    assert.same({ 7, 8, 9 }, { p.x, p.y, p.z })
  end)

  it("are read back by a rendered frame", function()
    local engine = require("tycho.engine").new({ headless = true, width = 32, height = 32 })
    local go = engine.scene:add(GameObject.new("drawn"))
    go:addComponent(tycho.MeshRenderer.new(tycho.mesh.cube()))
    engine:frame()
    tycho.stats.reset()
    go.position.y = 3
    engine:frame()
    assert.same({ localRebuilds = 1, worldRebuilds = 1 }, stats())
    tycho.stats.reset()
    engine:frame()
    assert.same({ localRebuilds = 0, worldRebuilds = 0 }, stats(), "a frame with nothing moved rebuilds nothing")
  end)

  it("have the Vec3 methods and operators", function()
    local go = GameObject.new("a")
    local p = go.position
    assert(rawequal(p, p:set(3, 4, 0)), "set returns self")
    assert.equals(5, p:length())
    assert.equals(3, p:dot(tycho.vec3(1, 0, 0)))
    local c = p:clone()
    assert.equals("userdata", type(c), "clone is a detached Vec3 value")
    p:normalize()
    assert.near(0.6, p.x, EPS)
    p:copy(tycho.vec3(1, 2, 3))
    assert.same({ 1, 2, 3 }, { p:unpack() })
    local sum = p + tycho.vec3(1, 1, 1)
    assert.same({ 2, 3, 4 }, { sum.x, sum.y, sum.z })
    local diff = tycho.vec3(1, 1, 1) - p
    assert.same({ 0, -1, -2 }, { diff.x, diff.y, diff.z })
    assert.same({ 2, 4, 6 }, { (p * 2):unpack() })
    assert.same({ 2, 4, 6 }, { (2 * p):unpack() })
    assert.same({ -1, -2, -3 }, { (-p):unpack() })
    assert.same({ 0, 0, 0 }, { p:cross(p):unpack() })
    assert(p == GameObject.new { position = { 1, 2, 3 } }.position, "== compares two tables by value")
    assert(p:clone() == tycho.vec3(1, 2, 3))
  end)

  it("rotation has the Quat methods and rotates vectors", function()
    local go = GameObject.new("a")
    local q = go.rotation
    q:setAxisAngle(0, 1, 0, math.pi / 2)
    local v = q:rotate(tycho.vec3(1, 0, 0))
    assert.near(-1, v.z, EPS)
    local v2 = q * tycho.vec3(1, 0, 0)
    assert.near(-1, v2.z, EPS)
    local q2 = q * q
    assert.near(-1, (q2 * tycho.vec3(1, 0, 0)).x, EPS)
    q:set(0, 0, 0, 2):normalize()
    assert.same({ 0, 0, 0, 1 }, { q:unpack() })
    local ref = tycho.quat.axisAngle(0, 0, 1, 1)
    q:copy(ref)
    assert(q:clone() == ref)
  end)

  it("pass as Vec3 and Quat arguments anywhere", function()
    local go = GameObject.new { name = "a", position = { 1, 2, 3 } }
    local m = tycho.mat4.fromTRS(go.position, go.rotation, go.scale)
    assert.near(3, m:get(15), EPS)
    local r = tycho.quat.identity():rotate(go.position)
    assert.same({ 1, 2, 3 }, { r:unpack() })
    assert.near(3, m:transformPoint(tycho.vec3()).z, EPS)
  end)

  it("refuse a field that is not a number: the value in force is kept and restored", function()
    local go = GameObject.new { name = "bad", position = { 1, 2, 3 } }
    go.position.x = "left"
    assert.near(1, go.worldPosition.x, EPS, "the world read keeps the last good value")
    assert.equals(1, go.position.x, "the field is set back")
    go.position.y = nil
    tycho.syncTransforms()
    assert.equals(2, go.position.y)
    go.position.z = {}
    assert.error_matches(function() return go.position + tycho.vec3() end, "Vec3 field 'z' must be a number, got table", nil, true)
  end)

  it("keep world views read-only", function()
    local go = GameObject.new("a")
    assert.error_matches(function() go.worldPosition.x = 1 end, "world position, rotation and scale are read-only", nil, true)
    assert.error_matches(function() go.worldPosition = tycho.vec3() end, "read-only", nil, true)
    assert.error_matches(function() go:getWorldPosition(go.worldPosition) end, "read-only", nil, true)
  end)

  it("die with their object: emptied, and every access raises naming it", function()
    local scene = Scene.new()
    local go = scene:add(GameObject.new("ghost"))
    local p, q, s = go.position, go.rotation, go.scale
    p.x = 3
    go:destroy()
    assert.equals(3, p.x, "usable until the sweep")
    scene:update(0.1)
    assert.is_nil(next(p), "the table is emptied")
    for what, fn in pairs {
      read = function() return p.x end,
      write = function() p.x = 1 end,
      method = function() return p:length() end,
      quat = function() return q.w end,
      scale = function() return s.z end,
      arithmetic = function() return tycho.vec3() + p end,
      argument = function() return tycho.vec3():dot(p) end,
      assign = function() GameObject.new("b").position = p end,
    } do
      local ok, err = pcall(fn)
      assert(not ok, what .. " must raise")
      assert(tostring(err):find("'ghost'", 1, true) and tostring(err):find("destroyed", 1, true), what .. ": " .. tostring(err))
    end
  end)

  it("of destroyed objects are no longer read back, and others still are", function()
    local scene = Scene.new()
    local objects = {}
    for i = 1, 50 do
      objects[i] = scene:add(GameObject.new("o" .. i))
      objects[i].position.x = i
      local _ = objects[i].rotation.w
    end
    for i = 1, 50, 2 do objects[i]:destroy() end
    scene:update(0.1)
    for i = 2, 50, 2 do objects[i].position.y = i end
    tycho.syncTransforms()
    for i = 2, 50, 2 do
      local m = objects[i]:localToWorld()
      assert.near(i, m:get(13), EPS)
      assert.near(i, m:get(14), EPS)
    end
  end)

  it("of a removed scene's objects die with it", function()
    local scene = Scene.new()
    local p = scene:add(GameObject.new("gone")).position
    scene = nil
    collectgarbage()
    collectgarbage()
    local ok, err = pcall(function() return p.x end)
    assert(not ok and tostring(err):find("'gone'", 1, true), tostring(err))
  end)
end)
