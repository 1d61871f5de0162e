-- tests/lua/prefab_spec.lua: tycho.prefab and scene:spawn (scripts/tycho/prefab.lua), as
-- ../shared/API.md "Scene graph" states.

local GameObject, Scene = tycho.GameObject, tycho.Scene

local Health = tycho.component("prefab_spec.Health")
function Health:init(hp, max) self.hp, self.max = hp, max end

local log
local Logger = tycho.component("prefab_spec.Logger")
function Logger:init(label) self.label = label end
function Logger:onAttach() log[#log + 1] = self.label .. ":attach:" .. tostring(self.time ~= nil) end
function Logger:update() log[#log + 1] = self.label .. ":update" end

local function names(list)
  local out = {}
  for i, go in ipairs(list) do out[i] = go.name end
  return out
end

local function xyz(v) return { v.x, v.y, v.z } end

describe("prefabs", function()
  local scene
  before_each(function()
    log = {}
    scene = Scene.new()
  end)

  describe("tycho.prefab", function()
    it("returns the definition it registers", function()
      local def = { tags = { "x" } }
      assert(rawequal(tycho.prefab("prefab_spec.returned", def), def), "tycho.prefab returns def")
    end)

    it("checks its arguments", function()
      assert.error_matches(function() tycho.prefab(5, {}) end, "bad argument #1 to 'prefab'", nil, true)
      assert.error_matches(function() tycho.prefab("p", 5) end, "bad argument #2 to 'prefab'", nil, true)
    end)

    it("registering a name again replaces the definition", function()
      tycho.prefab("prefab_spec.replaced", { tags = { "old" } })
      tycho.prefab("prefab_spec.replaced", { tags = { "new" } })
      assert.same({ "new" }, scene:spawn("prefab_spec.replaced").tags)
    end)
  end)

  describe("a table prefab", function()
    it("spawns with tags and components constructed with their arguments", function()
      tycho.prefab("prefab_spec.enemy", {
        tags = { "enemy", "mortal" },
        components = { { Health, 30, 50 }, { Logger, "enemy" } },
      })
      local go = scene:spawn("prefab_spec.enemy")
      assert.equals("prefab_spec.enemy", go.name, "a named prefab names its object")
      assert.same({ "enemy", "mortal" }, go.tags)
      local h = go:getComponent(Health)
      assert.same({ 30, 50 }, { h.hp, h.max })
      assert(rawequal(h.gameObject, go), "component attached to the spawned object")
      assert.same({ "enemy:attach:true" }, log, "components attach after the object joined the scene")
      assert.equals(go, scene:findById(go.id))
      assert.equals(go, scene:findOneByTag("enemy"))
    end)

    it("spawns by value, with its own name or a default", function()
      local go = scene:spawn({ name = "rock", tags = { "solid" } })
      assert.equals("rock", go.name)
      assert.equals(true, go:hasTag("solid"))
      assert.equals("GameObject", scene:spawn({}).name)
    end)

    it("applies position, rotation and scale from the definition", function()
      local q = tycho.quat.axisAngle(0, 0, 1, math.pi / 2)
      local go = scene:spawn({ position = { 1, 2, 3 }, rotation = q, scale = { 2, 2, 2 } })
      assert.same({ 1, 2, 3 }, xyz(go.position))
      assert.near(q.z, go.rotation.z, 1e-6)
      assert.same({ 2, 2, 2 }, xyz(go.scale))
    end)

    it("each spawn is a new object with new components", function()
      tycho.prefab("prefab_spec.twice", { components = { { Health, 1 } } })
      local a, b = scene:spawn("prefab_spec.twice"), scene:spawn("prefab_spec.twice")
      assert(a.id ~= b.id, "two objects")
      assert(a:getComponent(Health) ~= b:getComponent(Health), "two instances")
    end)

    it("builds children, nested, by table, by name and by function", function()
      tycho.prefab("prefab_spec.wheel", { tags = { "wheel" } })
      local car = scene:spawn({
        name = "car",
        children = {
          { name = "cabin", position = { 0, 1, 0 }, components = { { Health, 5 } },
            children = { { name = "driver" } } },
          "prefab_spec.wheel",
          function(go) go.name = "by function"; go:addTag("fn") end,
        },
      }, { 10, 0, 0 })
      assert.same({ "cabin", "prefab_spec.wheel", "by function" }, names(car.children))
      local cabin = car.children[1]
      assert.same({ 0, 1, 0 }, xyz(cabin.position), "the child's position is local")
      assert.same({ 10, 1, 0 }, xyz(cabin.worldPosition))
      assert.equals(5, cabin:getComponent(Health).hp)
      assert.same({ "driver" }, names(cabin.children))
      assert.equals(true, car.children[2]:hasTag("wheel"))
      assert.equals(true, car.children[3]:hasTag("fn"))
      for _, go in ipairs({ cabin, cabin.children[1], car.children[2], car.children[3] }) do
        assert.equals(go, scene:findById(go.id), go.name .. " must be in the scene")
      end
      assert.same({ "car" }, names(scene.roots))
    end)

    it("rejects a malformed component entry clearly", function()
      assert.error_matches(function() scene:spawn({ components = { Health } }) end, "prefab component #1", nil, true)
    end)
  end)

  describe("a function prefab", function()
    it("builds onto a fresh object already in the scene", function()
      local inScene
      tycho.prefab("prefab_spec.fn", function(go)
        inScene = scene:findById(go.id) ~= nil
        go:addTag("built")
        go:addComponent(Health, 7)
      end)
      local go = scene:spawn("prefab_spec.fn")
      assert.equals(true, inScene)
      assert.equals("prefab_spec.fn", go.name)
      assert.equals(true, go:hasTag("built"))
      assert.equals(7, go:getComponent(Health).hp)
    end)

    it("spawns by value", function()
      local go = scene:spawn(function(g) g.name = "anon" end)
      assert.equals("anon", go.name)
      assert.equals(go, scene:findById(go.id))
    end)

    it("receives the extra spawn arguments", function()
      local got
      local go = scene:spawn(function(g, a, b) got = { a, b } end, nil, "x", 2)
      assert.same({ "x", 2 }, got)
      assert.same({ 0, 0, 0 }, xyz(go.position))
    end)
  end)

  describe("spawn", function()
    it("places the object at the given position, Vec3 or table, over the prefab's", function()
      local a = scene:spawn({ position = { 9, 9, 9 } }, tycho.vec3(1, 2, 3))
      assert.same({ 1, 2, 3 }, xyz(a.position))
      local b = scene:spawn(function() end, { x = 4, y = 5, z = 6 })
      assert.same({ 4, 5, 6 }, xyz(b.position))
    end)

    it("reports an unknown prefab name clearly, at the caller", function()
      local line = debug.getinfo(1, "l").currentline + 1
      local ok, err = pcall(function() scene:spawn("prefab_spec.nope") end)
      assert.equals(false, ok)
      assert(err:find("unknown prefab 'prefab_spec.nope'", 1, true), err)
      assert(err:find("prefab_spec.lua:" .. line .. ":", 1, true), "error must point at the spawn call: " .. err)
      assert.same({}, scene.roots, "nothing was added")
    end)

    it("reports an unknown child prefab name clearly", function()
      assert.error_matches(function() scene:spawn({ children = { "prefab_spec.nochild" } }) end,
        "unknown prefab 'prefab_spec.nochild'", nil, true)
    end)

    it("checks its argument", function()
      assert.error_matches(function() scene:spawn(5) end, "bad argument #1 to 'spawn'", nil, true)
      assert.error_matches(function() scene:spawn() end, "bad argument #1 to 'spawn'", nil, true)
    end)

    it("during a tick defers like scene:add", function()
      tycho.prefab("prefab_spec.late", { tags = { "late" }, components = { { Logger, "late" } } })
      local spawned, byTag, byTagPending, byId
      scene:addSystem("input", function()
        if spawned then return end
        spawned = scene:spawn("prefab_spec.late")
        byTag = scene:findOneByTag("late")
        byTagPending = scene:findOneByTag("late", { includePending = true })
        byId = scene:findById(spawned.id)
      end)
      scene:update(0.1)
      assert.is_nil(byTag, "pending: skipped by findOneByTag")
      assert(rawequal(byTagPending, spawned), "includePending finds it")
      assert(rawequal(byId, spawned), "findById finds it at once")
      assert.same({ "late:attach:true" }, log, "attached at once, not ticked")
      scene:update(0.1)
      assert.same({ "late:attach:true", "late:update" }, log)
    end)

    it("children spawned during a tick defer with their parent", function()
      local spawned
      scene:addSystem("input", function()
        if spawned then return end
        spawned = scene:spawn({ name = "p", children = { { name = "c", components = { { Logger, "child" } } } } })
      end)
      scene:update(0.1)
      assert.same({ "child:attach:true" }, log)
      assert.equals(spawned.children[1], scene:findById(spawned.children[1].id))
      scene:update(0.1)
      assert.same({ "child:attach:true", "child:update" }, log)
    end)
  end)
end)
