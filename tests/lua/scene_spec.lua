-- tests/lua/scene_spec.lua: tycho.Scene and tycho.GameObject membership, lookup and hierarchy
-- (bindings/lua_scene.c over engine/core/scene.c), as ../shared/API.md "Scene graph" states.

local GameObject, Scene = tycho.GameObject, tycho.Scene

local function ids(list)
  local out = {}
  for i, go in ipairs(list) do out[i] = go.id end
  return out
end

local function names(list)
  local out = {}
  for i, go in ipairs(list) do out[i] = go.name end
  return out
end

-- Runs fn once, in the gameLogic phase of the next tick of scene (one throwaway component).
local Once = tycho.component("scene_spec.Once")
function Once:init(fn) self.fn = fn end
function Once:update()
  if self.fn then
    local fn = self.fn
    self.fn = nil
    fn()
  end
end
local function duringTick(scene, fn)
  local host = scene:add(GameObject.new("tick host"))
  host:addComponent(Once, fn)
  scene:update(1 / 60)
  host:destroy()
  scene:update(1 / 60)
end

-- This test binary, for running a script in a child process (stderr checks).
local function tychoExe()
  local p = io.popen("readlink /proc/$PPID/exe")
  local exe = p:read("l")
  p:close()
  return exe
end

describe("tycho.Scene", function()
  local scene
  before_each(function() scene = Scene.new() end)

  describe("add and remove", function()
    it("add returns the object and makes it findable", function()
      local go = GameObject.new("a")
      assert(rawequal(scene:add(go), go), "scene:add must return its argument")
      assert.equals(go, scene:findById(go.id))
      assert.same({ go.id }, ids(scene.roots))
    end)

    it("adding twice to the same scene is harmless", function()
      local go = scene:add(GameObject.new("a"))
      scene:add(go)
      assert.equals(1, #scene.roots)
    end)

    it("refuses an object that is in another scene", function()
      local other = Scene.new()
      local go = other:add(GameObject.new("a"))
      assert.error_matches(function() scene:add(go) end, "another scene", nil, true)
      assert.equals(go, other:findById(go.id))
      assert.is_nil(scene:findById(go.id))
    end)

    it("remove takes the object out; it stays alive and can join another scene", function()
      local go = scene:add(GameObject.new("a"))
      scene:remove(go)
      assert.is_nil(scene:findById(go.id))
      assert.same({}, scene.roots)
      assert.equals("a", go.name, "a removed object is not destroyed")
      local other = Scene.new()
      other:add(go)
      assert.equals(go, other:findById(go.id))
    end)

    it("remove takes the children along", function()
      local parent = GameObject.new("p")
      local child = GameObject.new("c")
      parent:addChild(child)
      scene:add(parent)
      scene:remove(parent)
      assert.is_nil(scene:findById(child.id))
    end)

    it("a removed object's components lose the scene clock; a joined one's get it", function()
      local C = tycho.component("scene_spec.Clocked")
      local go = GameObject.new("a")
      local c = go:addComponent(C)
      assert.is_nil(c.time, "no scene, no clock")
      scene:add(go)
      assert(rawequal(c.time, scene.time), "component.time must be its scene's clock")
      scene:remove(go)
      assert.is_nil(c.time)
    end)

    it("removing during a tick takes effect at the sweep and stops the object's hooks", function()
      local seen = {}
      local C = tycho.component("scene_spec.RemoveLog")
      function C:animation() seen[#seen + 1] = self.gameObject.name end
      local a = scene:add(GameObject.new("a"))
      local b = scene:add(GameObject.new("b"))
      a:addComponent(C)
      b:addComponent(C)
      scene:addSystem("gameLogic", function()
        if scene.time.frameCount == 1 then scene:remove(a) end
      end)
      scene:update(0.1)
      assert.same({ "b" }, seen, "an object removed this tick gets no later hooks")
      assert.is_nil(scene:findById(a.id), "gone after the sweep")
      scene:update(0.1)
      assert.same({ "b", "b" }, seen)
    end)

    it("removing and adding back during a tick keeps the object in the scene", function()
      local p = scene:add(GameObject.new("p"))
      local c = GameObject.new("c")
      p:addChild(c)
      duringTick(scene, function()
        scene:remove(p)
        scene:add(p)
      end)
      assert.equals(p, scene:findById(p.id))
      assert.equals(c, scene:findById(c.id), "its child too")
    end)

    it("an object added and removed during the same tick never joins", function()
      local late
      duringTick(scene, function()
        late = scene:add(GameObject.new("late"))
        scene:remove(late)
      end)
      assert.is_nil(scene:findById(late.id))
      assert.equals("late", late.name, "removed, not destroyed")
      Scene.new():add(late)
    end)
  end)

  describe("roots", function()
    it("lists parentless objects in join order", function()
      local a = scene:add(GameObject.new("a"))
      local b = GameObject.new("b")
      local c = scene:add(GameObject.new("c"))
      a:addChild(b)
      assert.same({ a.id, c.id }, ids(scene.roots))
    end)

    it("is a copy: changing it leaves the scene alone, and each read is a new table", function()
      local a = scene:add(GameObject.new("a"))
      local roots = scene.roots
      roots[1] = nil
      roots[2] = "junk"
      assert.same({ a.id }, ids(scene.roots))
      assert(not rawequal(scene.roots, scene.roots), "roots must be a fresh array each read")
    end)
  end)

  describe("findById", function()
    it("returns the same userdata for the same object", function()
      local go = scene:add(GameObject.new("a"))
      assert(rawequal(scene:findById(go.id), go), "findById must return the one GameObject value")
    end)

    it("sees objects added during a tick at once", function()
      local found
      local added
      duringTick(scene, function()
        added = scene:add(GameObject.new("late"))
        found = scene:findById(added.id)
      end)
      assert(found ~= nil and rawequal(found, added), "a pending object must be found by id")
    end)

    it("is nil for objects of other scenes, for loose objects and for unknown ids", function()
      local other = Scene.new()
      local there = other:add(GameObject.new("there"))
      local loose = GameObject.new("loose")
      assert.is_nil(scene:findById(there.id))
      assert.is_nil(scene:findById(loose.id))
      assert.is_nil(scene:findById(1))
      assert.is_nil(scene:findById(0))
      assert.is_nil(scene:findById(-5))
      assert.is_nil(scene:findById(2 ^ 40))
    end)

    it("is nil for a destroyed object's id, and stays nil as new objects are made", function()
      local go = scene:add(GameObject.new("doomed"))
      local id = go.id
      go:destroy()
      assert.equals(go, scene:findById(id), "still there until the sweep")
      scene:update(0)
      assert.is_nil(scene:findById(id))
      for i = 1, 300 do
        local fresh = scene:add(GameObject.new("fresh" .. i))
        assert(fresh.id ~= id, "a stale id was handed out again")
      end
      assert.is_nil(scene:findById(id))
    end)

    it("rejects a non-integer id with a bad argument error", function()
      assert.error_matches(function() scene:findById("x") end, "bad argument #1 to 'findById'", nil, true)
    end)
  end)

  describe("findByTag and findOneByTag", function()
    it("find live objects in join order", function()
      local a = scene:add(GameObject.new { name = "a", tags = { "enemy" } })
      scene:add(GameObject.new { name = "b", tags = { "friend" } })
      local c = scene:add(GameObject.new("c"))
      c:addTag("enemy")
      assert.same({ "a", "c" }, names(scene:findByTag("enemy")))
      assert.equals(a, scene:findOneByTag("enemy"))
      assert.same({}, scene:findByTag("nobody"))
      assert.is_nil(scene:findOneByTag("nobody"))
    end)

    it("include children and follow removeTag", function()
      local parent = scene:add(GameObject.new("p"))
      local child = GameObject.new { name = "c", tags = { "t" } }
      parent:addChild(child)
      assert.same({ "c" }, names(scene:findByTag("t")))
      child:removeTag("t")
      assert.same({}, scene:findByTag("t"))
    end)

    it("skip pending objects unless includePending", function()
      local live = scene:add(GameObject.new { name = "live", tags = { "t" } })
      local all, one, allPending, onePending
      duringTick(scene, function()
        local late = scene:add(GameObject.new { name = "late", tags = { "t", "lateOnly" } })
        all = names(scene:findByTag("t"))
        allPending = names(scene:findByTag("t", { includePending = true }))
        one = scene:findOneByTag("lateOnly")
        onePending = scene:findOneByTag("lateOnly", { includePending = true })
        assert(rawequal(onePending, late), "includePending must find the pending object")
      end)
      assert.same({ "live" }, all)
      assert.same({ "live", "late" }, allPending)
      assert.is_nil(one)
      assert.equals("late", onePending.name)
      assert.equals(live, scene:findOneByTag("t"))
      assert.same({ "live", "late" }, names(scene:findByTag("t")), "after the flush it is live")
    end)

    it("skip objects destroyed this tick", function()
      local a = scene:add(GameObject.new { name = "a", tags = { "t" } })
      local b = scene:add(GameObject.new { name = "b", tags = { "t" } })
      a:destroy()
      assert.same({ "b" }, names(scene:findByTag("t")))
      assert.equals(b, scene:findOneByTag("t"))
    end)

    it("check their arguments", function()
      assert.error_matches(function() scene:findByTag() end, "bad argument #1 to 'findByTag'", nil, true)
      assert.error_matches(function() scene:findOneByTag({}) end, "bad argument #1 to 'findOneByTag'", nil, true)
    end)
  end)

  describe("onError", function()
    it("is nil until set, and can be set back to nil", function()
      assert.is_nil(scene.onError)
      local fn = function() end
      scene.onError = fn
      assert(rawequal(scene.onError, fn), "onError must read back what was set")
      scene.onError = nil
      assert.is_nil(scene.onError)
      assert.error_matches(function() scene.onError = 5 end, "function expected", nil, true)
    end)

    it("by default an error is written to stderr with a traceback and the program goes on", function()
      local base = os.tmpname()
      local path = base .. ".lua"
      local f = assert(io.open(path, "w"))
      f:write([[
local C = tycho.component("Boom")
function C:update() error("kaboom in update") end
local scene = tycho.Scene.new()
scene:add(tycho.GameObject.new("bomb")):addComponent(C)
scene:update(0.1)
scene:update(0.1)
io.stdout:write("still running at frame ", scene.time.frameCount, "\n")
]])
      f:close()
      local p = io.popen(tychoExe() .. " run " .. path .. " --headless --frames 0 2>&1")
      local out = p:read("a")
      p:close()
      os.remove(path)
      os.remove(base)
      local _, count = out:gsub("kaboom in update", "")
      assert.equals(2, count, "one report per failing call:\n" .. out)
      assert(out:find(":2: kaboom in update", 1, true), "message with file:line expected:\n" .. out)
      assert(out:find("stack traceback", 1, true), "traceback expected:\n" .. out)
      assert(out:find("bomb", 1, true), "the object's name expected:\n" .. out)
      assert(out:find("still running at frame 2", 1, true), "the script must go on:\n" .. out)
    end)

    it("a custom onError receives every error instead", function()
      local got = {}
      scene.onError = function(message, info) got[#got + 1] = { message = message, info = info } end
      local C = tycho.component("scene_spec.Throws")
      function C:update() error("custom boom") end
      local go = scene:add(GameObject.new("thrower"))
      local c = go:addComponent(C)
      scene:update(0.1)
      assert.equals(1, #got)
      assert(got[1].message:find("scene_spec.lua:%d+: custom boom"), got[1].message)
      assert.equals("update", got[1].info.hook)
      assert(rawequal(got[1].info.object, go), "info.object must be the GameObject")
      assert(rawequal(got[1].info.component, c), "info.component must be the instance")
    end)
  end)

  describe("findCamera", function()
    -- Runs fn with tycho.Camera set to camera (nil: no Camera class), restoring it after.
    local function withCamera(camera, fn)
      local saved = rawget(tycho, "Camera")
      tycho.Camera = camera
      local ok, err = pcall(fn)
      tycho.Camera = saved
      assert(ok, err)
    end

    it("is nil when no Camera class exists", function()
      withCamera(nil, function()
        scene:add(GameObject.new("a")):addComponent(tycho.component("scene_spec.NotACamera"))
        assert.is_nil(scene:findCamera())
      end)
    end)

    it("returns the first Camera component in join order once a Camera class exists", function()
      local Camera = tycho.component("scene_spec.Camera")
      withCamera(Camera, function()
        assert.is_nil(scene:findCamera(), "no camera yet")
        scene:add(GameObject.new("none"))
        local first = scene:add(GameObject.new("first")):addComponent(Camera)
        scene:add(GameObject.new("second")):addComponent(Camera)
        assert(rawequal(scene:findCamera(), first), "expected the first camera in join order")
      end)
    end)
  end)

  it("reports a bad self as a bad argument", function()
    assert.error_matches(function() Scene.add({}, GameObject.new("x")) end, "bad argument #1 to 'add' (Scene expected", nil, true)
  end)
end)

describe("tycho.GameObject", function()
  local scene
  before_each(function() scene = Scene.new() end)

  describe("new", function()
    it("takes a name", function()
      local go = GameObject.new("hero")
      assert.equals("hero", go.name)
      assert.equals(true, go.enabled)
      assert.is_nil(go.parent)
      assert.same({}, go.children)
      assert.same({}, go.tags)
    end)

    it("takes no name", function()
      assert.equals("GameObject", GameObject.new().name)
    end)

    it("takes a table with name, tags, position, rotation, scale", function()
      local q = tycho.quat.axisAngle(0, 1, 0, math.pi / 2)
      local go = GameObject.new {
        name = "full", tags = { "a", "b" }, position = { x = 1, y = 2, z = 3 }, rotation = q,
        scale = tycho.vec3(2, 3, 4),
      }
      assert.equals("full", go.name)
      assert.same({ "a", "b" }, go.tags)
      assert(go:hasTag("a") and go:hasTag("b"), "tags from new must be present")
      assert.same({ 1, 2, 3 }, { go.position.x, go.position.y, go.position.z })
      assert.near(q.y, go.rotation.y, 1e-6)
      assert.near(q.w, go.rotation.w, 1e-6)
      assert.same({ 2, 3, 4 }, { go.scale.x, go.scale.y, go.scale.z })
    end)

    it("defaults the table form's name", function()
      assert.equals("GameObject", GameObject.new({}).name)
    end)

    it("rejects wrong argument types", function()
      assert.error_matches(function() GameObject.new(true) end, "bad argument #1 to 'new'", nil, true)
      assert.error_matches(function() GameObject.new { name = {} } end, "bad argument #1 to 'new'", nil, true)
      assert.error_matches(function() GameObject.new { tags = { {} } } end, "bad argument #1 to 'new' (tags must be strings)", nil, true)
      assert.error_matches(function() GameObject.new { position = "up" } end,
        "bad argument #1 to 'new' (position must be a Vec3 or a table, got string)", nil, true)
      assert.error_matches(function() GameObject.new { rotation = { 1, 2 } } end,
        "bad argument #1 to 'new' (rotation table needs a number for 'z')", nil, true)
    end)
  end)

  describe("id", function()
    it("is an integer of at least 512, distinct per object", function()
      local a, b = GameObject.new("a"), GameObject.new("b")
      assert.equals("integer", math.type(a.id))
      assert(a.id >= 512, "ids below 512 are reserved, got " .. a.id)
      assert(b.id >= 512 and a.id ~= b.id, "ids must differ")
    end)

    it("stays the same through joins, re-parenting and removal, and cannot be set", function()
      local go = GameObject.new("a")
      local id = go.id
      scene:add(go)
      local p = scene:add(GameObject.new("p"))
      go:setParent(p)
      go:setParent(nil)
      scene:remove(go)
      assert.equals(id, go.id)
      assert.error_matches(function() go.id = 5 end, "read-only", nil, true)
      assert.equals(id, go.id)
    end)
  end)

  describe("fields", function()
    it("name can be changed; only to a string", function()
      local go = GameObject.new("a")
      go.name = "b"
      assert.equals("b", go.name)
      assert.equals("GameObject 'b' (id " .. go.id .. ")", tostring(go))
      assert.error_matches(function() go.name = {} end, "string expected", nil, true)
    end)

    it("enabled toggles", function()
      local go = GameObject.new("a")
      go.enabled = false
      assert.equals(false, go.enabled)
      go.enabled = true
      assert.equals(true, go.enabled)
    end)

    it("stores other fields for the game", function()
      local go = GameObject.new("a")
      assert.is_nil(go.health)
      go.health = 10
      assert.equals(10, go.health)
      assert.is_nil(GameObject.new("b").health, "fields are per object")
    end)

    it("children is an array copy in insertion order", function()
      local p = GameObject.new("p")
      local a, b = GameObject.new("a"), GameObject.new("b")
      p:addChild(a)
      p:addChild(b)
      local kids = p.children
      assert.same({ "a", "b" }, names(kids))
      kids[1] = nil
      assert.same({ "a", "b" }, names(p.children), "changing the copy must not change the object")
      assert(not rawequal(p.children, p.children), "a fresh array each read")
      assert.error_matches(function() p.children = {} end, "read-only", nil, true)
    end)

    it("tags: add, has, remove; duplicates are held once", function()
      local go = GameObject.new("a")
      assert.equals(false, go:hasTag("x"))
      go:addTag("x")
      go:addTag("x")
      go:addTag("y")
      assert.equals(true, go:hasTag("x"))
      assert.same({ "x", "y" }, go.tags)
      go:removeTag("x")
      go:removeTag("never")
      assert.equals(false, go:hasTag("x"))
      assert.same({ "y" }, go.tags)
      local tags = go.tags
      tags[1] = "z"
      assert.same({ "y" }, go.tags, "tags is a copy")
      assert.error_matches(function() go:addTag() end, "bad argument #1 to 'addTag'", nil, true)
    end)
  end)

  describe("hierarchy", function()
    it("addChild returns the child and links both ways", function()
      local p, c = GameObject.new("p"), GameObject.new("c")
      assert(rawequal(p:addChild(c), c), "addChild returns the child")
      assert(rawequal(c.parent, p), "child.parent must be the parent")
      assert.same({ c.id }, ids(p.children))
    end)

    it("removeChild detaches only its own child", function()
      local p, q, c = GameObject.new("p"), GameObject.new("q"), GameObject.new("c")
      p:addChild(c)
      q:removeChild(c)
      assert(rawequal(c.parent, p), "removeChild of someone else's child must change nothing")
      p:removeChild(c)
      assert.is_nil(c.parent)
      assert.same({}, p.children)
    end)

    it("setParent and the parent field move a child; nil detaches", function()
      local p, q, c = GameObject.new("p"), GameObject.new("q"), GameObject.new("c")
      c:setParent(p)
      assert.equals(p, c.parent)
      c.parent = q
      assert.equals(q, c.parent)
      assert.same({}, p.children)
      assert.same({ c.id }, ids(q.children))
      c:setParent(nil)
      assert.is_nil(c.parent)
      c.parent = p
      c.parent = nil
      assert.is_nil(c.parent)
    end)

    it("the child keeps its local TRS and moves with its new parent", function()
      local p = GameObject.new { name = "p", position = { 10, 0, 0 } }
      local q = GameObject.new { name = "q", position = { 0, 0, 100 }, scale = { 2, 2, 2 } }
      local c = GameObject.new { name = "c", position = { 1, 2, 3 } }
      c:setParent(p)
      assert.same({ 1, 2, 3 }, { c.position.x, c.position.y, c.position.z })
      assert.same({ 11, 2, 3 }, { c.worldPosition.x, c.worldPosition.y, c.worldPosition.z })
      p.position.x = 20
      assert.equals(21, c.worldPosition.x, "the child follows its parent")
      q:addChild(c)
      assert.same({ 1, 2, 3 }, { c.position.x, c.position.y, c.position.z })
      assert.same({ 2, 4, 106 }, { c.worldPosition.x, c.worldPosition.y, c.worldPosition.z })
      c:setParent(nil)
      assert.same({ 1, 2, 3 }, { c.worldPosition.x, c.worldPosition.y, c.worldPosition.z })
    end)

    it("refuses cycles with an error and changes nothing", function()
      local a, b, c = GameObject.new("a"), GameObject.new("b"), GameObject.new("c")
      a:addChild(b)
      b:addChild(c)
      assert.error_matches(function() c:addChild(a) end, "own ancestor", nil, true)
      assert.error_matches(function() a:setParent(c) end, "own ancestor", nil, true)
      assert.error_matches(function() a:setParent(a) end, "own ancestor", nil, true)
      assert.error_matches(function() a.parent = b end, "own ancestor", nil, true)
      assert.is_nil(a.parent)
      assert.equals(b, c.parent)
      assert.equals(a, b.parent)
    end)

    it("children follow the parent into the scene", function()
      local p, c, g = GameObject.new("p"), GameObject.new("c"), GameObject.new("g")
      p:addChild(c)
      c:addChild(g)
      scene:add(p)
      assert.equals(c, scene:findById(c.id))
      assert.equals(g, scene:findById(g.id))
      assert.same({ p.id }, ids(scene.roots))
    end)

    it("a child added to an object in a scene joins that scene; detached it stays as a root", function()
      local p = scene:add(GameObject.new("p"))
      local c = GameObject.new("c")
      p:addChild(c)
      assert.equals(c, scene:findById(c.id))
      p:removeChild(c)
      assert.equals(c, scene:findById(c.id))
      assert.same({ p.id, c.id }, ids(scene.roots))
    end)

    it("re-parenting under an object of another scene moves the subtree there", function()
      local other = Scene.new()
      local p = other:add(GameObject.new("p"))
      local c = scene:add(GameObject.new("c"))
      local g = GameObject.new("g")
      c:addChild(g)
      c:setParent(p)
      assert.is_nil(scene:findById(c.id))
      assert.is_nil(scene:findById(g.id))
      assert.equals(c, other:findById(c.id))
      assert.equals(g, other:findById(g.id))
    end)

    it("during a tick, an object removed and put back under a staying parent stays", function()
      local p = scene:add(GameObject.new("p"))
      local c = scene:add(GameObject.new("c"))
      duringTick(scene, function()
        scene:remove(c)
        c:setParent(p)
      end)
      assert.equals(c, scene:findById(c.id))
      assert.equals(p, c.parent)
    end)

    it("during a tick, a child put under a parent removed this tick leaves with it", function()
      local p = scene:add(GameObject.new("p"))
      local c = scene:add(GameObject.new("c"))
      duringTick(scene, function()
        scene:remove(p)
        c:setParent(p)
      end)
      assert.is_nil(scene:findById(p.id))
      assert.is_nil(scene:findById(c.id), "the child follows its parent out")
      assert.equals(p, c.parent)
    end)

    it("during a tick, a child re-added while its parent is removed becomes a root of the scene", function()
      local p = scene:add(GameObject.new("p"))
      local c = GameObject.new("c")
      p:addChild(c)
      duringTick(scene, function()
        scene:remove(p)
        scene:add(c)
      end)
      assert.is_nil(scene:findById(p.id))
      assert.equals(c, scene:findById(c.id))
      assert.is_nil(c.parent)
      assert.same({}, p.children)
    end)

    it("a subtree still leaving a ticking scene cannot join another one until the sweep", function()
      local other = Scene.new()
      local loose = GameObject.new("loose")
      local c = scene:add(GameObject.new("c"))
      local err
      duringTick(scene, function()
        c:setParent(loose) -- c leaves the scene at the sweep
        local ok, e = pcall(function() other:add(loose) end)
        err = not ok and e
      end)
      assert(err and err:find("bad argument #1 to 'add'", 1, true) and err:find("still leaving", 1, true),
        "expected a refusal, got " .. tostring(err))
      assert.is_nil(scene:findById(c.id))
      assert.equals(loose, c.parent)
      other:add(loose) -- after the sweep it may
      assert.equals(c, other:findById(c.id))
    end)

    it("scene:add of a child detaches it from a parent in no scene", function()
      local p, c = GameObject.new("p"), GameObject.new("c")
      p:addChild(c)
      scene:add(c)
      assert.is_nil(c.parent)
      assert.same({}, p.children)
      assert.equals(c, scene:findById(c.id))
    end)

    it("check their arguments", function()
      local go = GameObject.new("a")
      assert.error_matches(function() go:addChild({}) end, "bad argument #1 to 'addChild' (GameObject expected", nil, true)
      assert.error_matches(function() go:setParent(5) end, "bad argument #1 to 'setParent' (GameObject expected", nil, true)
      assert.error_matches(function() go:removeChild() end, "bad argument #1 to 'removeChild'", nil, true)
    end)
  end)
end)

describe("a component's clock", function()
  local Probe = tycho.component("ClockProbe")

  it("is the scene's clock while its object is in the scene, and goes with removeComponent", function()
    local scene = tycho.Scene.new()
    local go = scene:add(tycho.GameObject.new("timed"))
    local probe = go:addComponent(Probe)
    assert.equals(scene.time, probe.time)
    go:removeComponent(probe)
    assert.is_nil(probe.time)
    assert.is_nil(probe.gameObject)
  end)

  it("is taken away when the object leaves the scene during a tick, at the sweep", function()
    local scene = tycho.Scene.new()
    local go = scene:add(tycho.GameObject.new("leaver"))
    local probe = go:addComponent(Probe)
    local seenDuringTick
    scene:addSystem("gameLogic", function()
      if go.scene == scene then
        scene:remove(go)
        seenDuringTick = probe.time
      end
    end)
    scene:update(1 / 60)
    assert.equals(scene.time, seenDuringTick) -- removal is deferred to the sweep
    assert.is_nil(go.scene)
    assert.is_nil(probe.time)
  end)
end)
