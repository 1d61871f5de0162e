-- tests/lua/tick_spec.lua: scene:update(dt), the phase walk and its deferral rules, systems,
-- hook errors and class reloading, as ../shared/API.md "The tick" states.

local GameObject, Scene = tycho.GameObject, tycho.Scene

local HOOKS = { "input", "prePhysics", "physics", "postPhysics", "update", "animation", "preRender" }
local PHASE_OF_HOOK = {
  input = "input", prePhysics = "prePhysics", physics = "physics", postPhysics = "postPhysics",
  update = "gameLogic", animation = "animation", preRender = "preRender",
}

local log
-- Records "label:hook" for every phase hook; label defaults to the object's name.
local Rec = tycho.component("tick_spec.Rec")
function Rec:init(label) self.label = label end
for _, hook in ipairs(HOOKS) do
  Rec[hook] = function(self, dt)
    log[#log + 1] = (self.label or self.gameObject.name) .. ":" .. hook
    self.lastDt = dt
  end
end
function Rec:onAttach() log[#log + 1] = (self.label or self.gameObject.name) .. ":onAttach" end
function Rec:onDestroy() log[#log + 1] = (self.label or self.gameObject.name) .. ":onDestroy" end
function Rec:onDetach() log[#log + 1] = (self.label or self.gameObject.name) .. ":onDetach" end

-- Only the gameLogic hook: keeps logs short.
local Upd = tycho.component("tick_spec.Upd")
function Upd:init(label, fn) self.label, self.fn = label, fn end
function Upd:update(dt)
  log[#log + 1] = (self.label or self.gameObject.name) .. ":update"
  if self.fn then self.fn(self, dt) end
end
function Upd:onDestroy() log[#log + 1] = (self.label or self.gameObject.name) .. ":onDestroy" end

local function count(list, item)
  local n = 0
  for _, v in ipairs(list) do if v == item then n = n + 1 end end
  return n
end

local function indexOf(list, item)
  for i, v in ipairs(list) do if v == item then return i end end
  return nil
end

local function spawnWith(scene, name, Class, ...)
  local go = scene:add(GameObject.new(name))
  go:addComponent(Class, ...)
  return go
end

describe("tycho.PHASES", function()
  it("lists the eight phases in order", function()
    assert.same({ "input", "prePhysics", "physics", "postPhysics", "gameLogic", "animation", "preRender",
      "render" }, tycho.PHASES)
  end)
end)

describe("the tick", function()
  local scene
  before_each(function()
    log = {}
    scene = Scene.new()
  end)

  describe("order", function()
    it("runs systems in registration order, then objects in join order, components in add order", function()
      local a = scene:add(GameObject.new("a"))
      local b = scene:add(GameObject.new("b"))
      a:addComponent(Rec, "a1")
      b:addComponent(Rec, "b1")
      a:addComponent(Rec, "a2")
      for _, phase in ipairs(tycho.PHASES) do
        if phase ~= "render" then
          scene:addSystem(phase, function() log[#log + 1] = "s1:" .. phase end)
          scene:addSystem(phase, function() log[#log + 1] = "s2:" .. phase end)
        end
      end
      log = {}
      scene:update(0.25)
      local want = {}
      for _, hook in ipairs(HOOKS) do
        local phase = PHASE_OF_HOOK[hook]
        for _, who in ipairs({ "s1:" .. phase, "s2:" .. phase, "a1:" .. hook, "a2:" .. hook, "b1:" .. hook }) do
          want[#want + 1] = who
        end
      end
      assert.same(want, log)
    end)

    it("walks objects in join order, not creation order, children included", function()
      local first = GameObject.new("made first")
      local second = scene:add(GameObject.new("joined first"))
      local child = GameObject.new("child")
      second:addChild(child)
      scene:add(first)
      for _, go in ipairs({ first, second, child }) do go:addComponent(Upd) end
      scene:update(0.1)
      assert.same({ "joined first:update", "child:update", "made first:update" }, log)
    end)

    it("finishes each phase everywhere before the next begins", function()
      local a = spawnWith(scene, "a", Rec)
      spawnWith(scene, "b", Rec)
      a:addComponent(Rec, "a2")
      log = {}
      scene:update(0.1)
      local lastOfPhase = 0
      for i, hook in ipairs(HOOKS) do
        local firstOfThis = math.huge
        for k, entry in ipairs(log) do
          if entry:match(":(.*)$") == hook then
            firstOfThis = math.min(firstOfThis, k)
            assert(k > lastOfPhase, hook .. " ran before the previous phase finished")
          end
        end
        for k, entry in ipairs(log) do
          if entry:match(":(.*)$") == hook then lastOfPhase = math.max(lastOfPhase, k) end
        end
        assert(firstOfThis < math.huge, hook .. " never ran")
        if i > 1 then assert.equals(3 * (i - 1) + 1, firstOfThis) end
      end
      assert.equals(3 * #HOOKS, #log)
    end)

    it("passes time.delta to every hook and system", function()
      local got = {}
      scene:addSystem("physics", function(dt) got.system = dt end)
      local go = spawnWith(scene, "a", Rec)
      scene.time.scale = 0.5
      scene:update(0.25)
      assert.equals(0.125, got.system)
      assert.equals(0.125, go:getComponent(Rec).lastDt)
    end)

    it("gives each component the scene clock as self.time", function()
      local go = spawnWith(scene, "a", Rec)
      assert(rawequal(go:getComponent(Rec).time, scene.time), "component.time must be scene.time")
    end)
  end)

  describe("objects joining during a tick", function()
    it("are not ticked that tick, and are the next", function()
      local spawned
      spawnWith(scene, "spawner", Upd, nil, function()
        if not spawned then
          spawned = scene:add(GameObject.new("late"))
          spawned:addComponent(Rec)
        end
      end)
      scene:update(0.1)
      assert.same({ "spawner:update", "late:onAttach" }, log, "onAttach at once, no phase hooks")
      log = {}
      scene:update(0.1)
      assert.same({ "late:input", "late:prePhysics", "late:physics", "late:postPhysics", "spawner:update",
        "late:update", "late:animation", "late:preRender" }, log)
    end)

    it("includes an object spawned through scene:spawn", function()
      local spawned
      scene:addSystem("input", function()
        if not spawned then spawned = scene:spawn({ components = { { Rec, "sp" } } }) end
      end)
      scene:update(0.1)
      assert.same({ "sp:onAttach" }, log)
      log = {}
      scene:update(0.1)
      assert.equals(1, count(log, "sp:input"))
      assert.equals(1, count(log, "sp:preRender"))
    end)

    it("join the live set in the order they were added", function()
      scene:addSystem("gameLogic", function()
        if scene.time.frameCount == 1 then
          spawnWith(scene, "x", Upd)
          spawnWith(scene, "y", Upd)
        end
      end)
      spawnWith(scene, "w", Upd)
      scene:update(0.1)
      log = {}
      scene:update(0.1)
      assert.same({ "w:update", "x:update", "y:update" }, log)
    end)
  end)

  describe("destroy", function()
    it("during a tick: no further hooks that tick, onDestroy at the sweep, then gone", function()
      local victim = spawnWith(scene, "victim", Rec)
      local id = victim.id
      local seenAtSweep
      spawnWith(scene, "killer", Upd, nil, function(self)
        self.fn = nil
        victim:destroy()
        assert.equals(victim, scene:findById(id), "still findable until the sweep")
        seenAtSweep = #log
      end)
      log = {}
      scene:update(0.1)
      assert.is_nil(indexOf(log, "victim:animation"), "no hooks after destroy")
      assert.is_nil(indexOf(log, "victim:preRender"))
      assert.equals(1, count(log, "victim:update"), "its update ran before the killer's")
      assert.equals("victim:onDestroy", log[#log], "onDestroy runs at the sweep, after every phase")
      assert(#log > seenAtSweep, "onDestroy must not run inside destroy()")
      assert.is_nil(scene:findById(id))
      log = {}
      scene:update(0.1)
      assert.same({ "killer:update" }, log, "the victim is gone for good")
    end)

    it("of an object later in the walk stops its current phase too", function()
      local later
      spawnWith(scene, "killer", Upd, nil, function() later:destroy() end)
      later = spawnWith(scene, "later", Upd)
      scene:update(0.1)
      assert.same({ "killer:update", "later:onDestroy" }, log)
    end)

    it("stops the remaining components of the object that destroys itself", function()
      local go = scene:add(GameObject.new("self"))
      go:addComponent(Upd, "first", function(c) c.gameObject:destroy() end)
      go:addComponent(Upd, "second")
      scene:update(0.1)
      assert.same({ "first:update", "first:onDestroy", "second:onDestroy" }, log)
    end)

    it("twice is a no-op: onDestroy runs once", function()
      local go = spawnWith(scene, "a", Rec)
      go:destroy()
      go:destroy()
      scene:update(0.1)
      assert.equals(1, count(log, "a:onDestroy"))
      go:destroy() -- after the sweep too
      scene:update(0.1)
      assert.equals(1, count(log, "a:onDestroy"))
    end)

    it("outside a tick waits for the next sweep", function()
      local go = spawnWith(scene, "a", Upd)
      go:destroy()
      assert.same({}, log)
      assert.equals(true, go.destroyed)
      scene:update(0.1)
      assert.same({ "a:onDestroy" }, log, "marked objects are not ticked")
    end)

    it("an object added and destroyed in the same tick gets onDestroy and is never ticked", function()
      local late, lateId
      spawnWith(scene, "spawner", Upd, nil, function()
        if late then return end
        late = scene:add(GameObject.new("late"))
        late:addComponent(Rec)
        lateId = late.id
        late:destroy()
      end)
      scene:update(0.1)
      scene:update(0.1)
      assert.same({ "spawner:update", "late:onAttach", "late:onDestroy", "spawner:update" }, log)
      assert.is_nil(scene:findById(lateId))
    end)

    it("of a parent destroys its children, parent first", function()
      local p = spawnWith(scene, "p", Upd)
      local c = GameObject.new("c")
      local g = GameObject.new("g")
      p:addChild(c)
      c:addChild(g)
      c:addComponent(Upd)
      g:addComponent(Upd)
      local ids = { p.id, c.id, g.id }
      p:destroy()
      assert.equals(true, g.destroyed)
      scene:update(0.1)
      assert.same({ "p:onDestroy", "c:onDestroy", "g:onDestroy" }, log)
      for _, id in ipairs(ids) do assert.is_nil(scene:findById(id)) end
    end)

    it("of an object in no scene finishes it at once", function()
      local go = GameObject.new("loose")
      go:addComponent(Upd)
      local child = GameObject.new("child")
      go:addChild(child)
      child:addComponent(Upd)
      go:destroy()
      assert.same({ "loose:onDestroy", "child:onDestroy" }, log)
      assert.error_matches(function() return go.enabled end, "destroyed", nil, true)
      assert.error_matches(function() return child.enabled end, "destroyed", nil, true)
    end)

    it("an object destroyed but not yet swept stays where its sweep will find it", function()
      local other = Scene.new()
      local anchor = other:add(GameObject.new("anchor"))
      local function doomedElsewhere()
        local home = Scene.new()
        local go = home:add(GameObject.new("zombie")) -- no components: they would keep home alive
        go:destroy()
        go:setParent(anchor) -- re-parented into another scene after destroy()
        scene:remove(go) -- not its scene: nothing
        return go, go.id
      end
      local go, id = doomedElsewhere()
      assert.is_nil(other:findById(id), "a destroyed object does not join another scene")
      other:update(0.1)
      assert.equals(go, anchor.children[1], "the transform link itself is made")
      collectgarbage()
      collectgarbage() -- its own scene goes away unswept: the object goes with it
      assert.error_matches(function() return go.name end, "'zombie' (id " .. id .. ") was destroyed", nil, true)
      assert.same({}, anchor.children)
    end)

    it("runs onDestroy on every component, disabled ones included", function()
      local go = scene:add(GameObject.new("a"))
      go:addComponent(Upd, "one")
      go:addComponent(Upd, "two").enabled = false
      go.enabled = false
      go:destroy()
      scene:update(0.1)
      assert.same({ "one:onDestroy", "two:onDestroy" }, log)
    end)

    it("lets onDestroy spawn objects, which join the scene", function()
      local D = tycho.component("tick_spec.SpawnsOnDestroy")
      local heir
      function D:onDestroy() heir = scene:add(GameObject.new("heir")) end
      local go = scene:add(GameObject.new("a"))
      go:addComponent(D)
      go:destroy()
      scene:update(0.1)
      assert(heir ~= nil, "onDestroy did not run")
      assert.equals(heir, scene:findById(heir.id))
      heir:addComponent(Upd)
      scene:update(0.1)
      assert.same({ "heir:update" }, log)
    end)
  end)

  describe("enabled", function()
    it("a disabled object gets no phase hooks, but onAttach and onDestroy", function()
      local go = scene:add(GameObject.new("off"))
      go.enabled = false
      go:addComponent(Rec)
      scene:update(0.1)
      assert.same({ "off:onAttach" }, log)
      go.enabled = true
      scene:update(0.1)
      assert.equals(1, count(log, "off:update"))
      go.enabled = false
      go:destroy()
      scene:update(0.1)
      assert.equals("off:onDestroy", log[#log])
      assert.equals(1, count(log, "off:update"))
    end)

    it("a disabled component gets no phase hooks; its siblings do", function()
      local go = scene:add(GameObject.new("a"))
      local off = go:addComponent(Rec, "off")
      off.enabled = false
      go:addComponent(Upd, "on")
      assert.equals("off:onAttach", log[1], "onAttach runs for a disabled component")
      log = {}
      scene:update(0.1)
      assert.same({ "on:update" }, log)
      off.enabled = true
      log = {}
      scene:update(0.1)
      assert.equals(1, count(log, "off:update"))
      assert.equals(1, count(log, "on:update"))
    end)

    it("Class.new sets enabled = true", function()
      assert.equals(true, Rec.new("x").enabled)
    end)

    it("disabling a parent stops its children's hooks", function()
      local p = spawnWith(scene, "p", Upd)
      local c = GameObject.new("c")
      p:addChild(c)
      c:addComponent(Upd)
      p.enabled = false
      scene:update(0.1)
      assert.same({}, log)
      assert.equals(true, c.enabled, "the child's own flag is untouched")
      p.enabled = true
      scene:update(0.1)
      assert.same({ "p:update", "c:update" }, log)
    end)

    it("disabling an object mid-phase stops its remaining components that tick", function()
      local go = scene:add(GameObject.new("a"))
      go:addComponent(Upd, "first", function(c) c.gameObject.enabled = false end)
      go:addComponent(Upd, "second")
      scene:update(0.1)
      assert.same({ "first:update" }, log)
    end)
  end)

  describe("errors in hooks", function()
    local errors
    before_each(function()
      errors = {}
      scene.onError = function(message, info) errors[#errors + 1] = { message = message, info = info } end
    end)

    it("are caught; the rest of the tick runs; onError gets message and info", function()
      local Bad = tycho.component("tick_spec.Bad")
      function Bad:update() error("bad update") end -- @bad
      local bad = scene:add(GameObject.new("bad"))
      bad:addComponent(Rec, "before")
      local inst = bad:addComponent(Bad)
      bad:addComponent(Rec, "after")
      spawnWith(scene, "next", Rec)
      log = {}
      scene:update(0.1)
      assert.equals(1, #errors)
      local e = errors[1]
      assert(e.message:find("tick_spec.lua:%d+: bad update"), "message needs file:line, got " .. e.message)
      assert.equals("update", e.info.hook)
      assert(rawequal(e.info.object, bad), "info.object")
      assert(rawequal(e.info.component, inst), "info.component")
      assert.equals(1, count(log, "after:update"), "the same object's next component still runs")
      assert.equals(1, count(log, "next:update"), "the next object still runs")
      assert.equals(1, count(log, "before:animation"), "later phases still run")
      assert.equals(1, count(log, "next:preRender"))
      scene:update(0.1)
      assert.equals(2, #errors, "and again next tick")
    end)

    it("carry a file:line of the raising code", function()
      local Bad = tycho.component("tick_spec.BadLine")
      local line = debug.getinfo(1, "l").currentline + 1
      function Bad:physics() error("on this line") end
      spawnWith(scene, "x", Bad)
      scene:update(0.1)
      assert(errors[1].message:find("tick_spec.lua:" .. line .. ": on this line", 1, true), errors[1].message)
      assert.equals("physics", errors[1].info.hook)
    end)

    it("in several hooks of one phase are each reported, in walk order", function()
      local Bad = tycho.component("tick_spec.BadNamed")
      function Bad:update() error("from " .. self.gameObject.name) end
      spawnWith(scene, "one", Bad)
      spawnWith(scene, "two", Bad)
      spawnWith(scene, "three", Upd)
      scene:update(0.1)
      assert.equals(2, #errors)
      assert(errors[1].message:find("from one", 1, true), errors[1].message)
      assert(errors[2].message:find("from two", 1, true), errors[2].message)
      assert.same({ "three:update" }, log)
    end)

    it("in a system is reported with the phase name and no object", function()
      scene:addSystem("postPhysics", function() error("system broke") end)
      spawnWith(scene, "a", Upd)
      scene:update(0.1)
      assert.equals(1, #errors)
      assert(errors[1].message:find("system broke", 1, true))
      assert.equals("postPhysics", errors[1].info.hook)
      assert.is_nil(errors[1].info.object)
      assert.same({ "a:update" }, log)
    end)

    it("in onAttach, onDestroy and updateRender are reported too", function()
      local Bad = tycho.component("tick_spec.BadLifecycle")
      function Bad:onAttach() error("attach broke") end
      function Bad:onDestroy() error("destroy broke") end
      function Bad:updateRender() error("render broke") end
      local go = scene:add(GameObject.new("a"))
      local inst = go:addComponent(Bad)
      assert.equals(inst, go:getComponent(Bad), "a failing onAttach still attaches")
      scene:updateRender({})
      local id = go.id
      go:destroy()
      scene:update(0.1)
      assert.equals(3, #errors)
      assert.equals("onAttach", errors[1].info.hook)
      assert.equals("updateRender", errors[2].info.hook)
      assert.equals("onDestroy", errors[3].info.hook)
      assert(errors[3].message:find("destroy broke", 1, true))
      assert.is_nil(scene:findById(id), "the sweep finished despite the error")
    end)

    it("raised inside onError propagates out of scene:update; the scene stays usable", function()
      local Bad = tycho.component("tick_spec.BadForRethrow")
      function Bad:update() error("inner") end
      scene.onError = function(message) error("rethrown: " .. message, 0) end
      local bad = spawnWith(scene, "bad", Bad)
      local doomed = spawnWith(scene, "doomed", Upd)
      local doomedId = doomed.id
      doomed:destroy()
      local ok, err = pcall(scene.update, scene, 0.1)
      assert.equals(false, ok)
      assert(tostring(err):find("rethrown: ", 1, true) and tostring(err):find("inner", 1, true), tostring(err))
      bad:removeComponent(bad:getComponent(Bad))
      bad:addComponent(Upd)
      scene.onError = nil
      log = {}
      scene:update(0.1) -- must not say "inside the same scene's tick"
      assert.same({ "bad:update" }, log)
      assert.is_nil(scene:findById(doomedId), "the interrupted tick's destroys are swept")
    end)

    it("raised by onError during the sweep propagates too; the sweep still completes", function()
      local Bad = tycho.component("tick_spec.BadOnDestroy")
      function Bad:onDestroy() error("destroy failed") end
      scene.onError = function(message) error("again: " .. message, 0) end
      local a = spawnWith(scene, "a", Bad)
      local b = spawnWith(scene, "b", Upd)
      local ids = { a.id, b.id }
      a:destroy()
      b:destroy()
      local ok, err = pcall(scene.update, scene, 0.1)
      assert.equals(false, ok)
      assert(tostring(err):find("again: ", 1, true) and tostring(err):find("destroy failed", 1, true), tostring(err))
      assert.same({ "b:onDestroy" }, log, "the rest of the sweep ran")
      assert.is_nil(scene:findById(ids[1]))
      assert.is_nil(scene:findById(ids[2]))
      scene.onError = nil
      spawnWith(scene, "c", Upd)
      scene:update(0.1)
      assert.same({ "b:onDestroy", "c:update" }, log)
    end)

    it("raised inside onError during updateRender propagates; the scene stays usable", function()
      local Bad = tycho.component("tick_spec.BadRender")
      function Bad:updateRender() error("render failed") end
      scene.onError = function(message) error(message, 0) end
      local go = spawnWith(scene, "a", Bad)
      assert.error_matches(function() scene:updateRender({}) end, "render failed", nil, true)
      go:removeComponent(go:getComponent(Bad))
      go:addComponent(Upd)
      scene:updateRender({})
      scene:update(0.1)
      assert.same({ "a:update" }, log)
    end)

    it("a non-string error value is reported, not lost", function()
      local Bad = tycho.component("tick_spec.BadTable")
      function Bad:update() error({ code = 7 }) end
      spawnWith(scene, "a", Bad)
      scene:update(0.1)
      assert.equals(1, #errors)
      assert.equals("string", type(errors[1].message))
      assert(errors[1].message:find("table", 1, true), errors[1].message)
    end)

    it("scene:update inside the same scene's tick is an error, reported", function()
      scene:addSystem("input", function() scene:update(0.1) end)
      scene:update(0.1)
      assert.equals(1, #errors)
      assert(errors[1].message:find("inside the same scene's tick", 1, true), errors[1].message)
    end)

    it("another scene may be updated from a hook", function()
      local inner = Scene.new()
      spawnWith(inner, "inner", Upd)
      scene:addSystem("gameLogic", function() inner:update(0.1) end)
      scene:update(0.1)
      assert.same({}, errors)
      assert.same({ "inner:update" }, log)
    end)
  end)

  describe("systems", function()
    it("the function form gets dt and runs in its phase", function()
      local seen = {}
      local sys = scene:addSystem("animation", function(dt) seen[#seen + 1] = dt end)
      assert.equals("table", type(sys))
      scene:update(0.5)
      scene:update(0.25)
      assert.same({ 0.5, 0.25 }, seen)
      assert.equals(true, scene:removeSystem(sys))
      scene:update(0.1)
      assert.same({ 0.5, 0.25 }, seen)
      assert.equals(false, scene:removeSystem(sys), "removing twice does nothing")
    end)

    it("the table form calls init at once, update per tick and dispose on removal", function()
      local calls = {}
      local def = {
        phase = "physics",
        init = function() calls[#calls + 1] = "init" end,
        update = function(dt) calls[#calls + 1] = "update " .. dt end,
        dispose = function() calls[#calls + 1] = "dispose" end,
      }
      local sys = scene:addSystem(def)
      assert(rawequal(sys, def), "the table form returns the table")
      assert.same({ "init" }, calls)
      scene:update(0.5)
      scene:removeSystem(sys)
      scene:update(0.5)
      assert.same({ "init", "update 0.5", "dispose" }, calls)
    end)

    it("a table system without update is allowed", function()
      local n = 0
      local sys = scene:addSystem { phase = "input", init = function() n = n + 1 end }
      scene:update(0.1)
      scene:removeSystem(sys)
      assert.equals(1, n)
    end)

    it("removing a system during a tick keeps the others running", function()
      local order = {}
      local victim
      scene:addSystem("input", function()
        order[#order + 1] = "a"
        if victim then scene:removeSystem(victim) victim = nil end
      end)
      victim = scene:addSystem("input", function() order[#order + 1] = "b" end)
      scene:addSystem("input", function() order[#order + 1] = "c" end)
      scene:update(0.1)
      scene:update(0.1)
      assert.same({ "a", "c", "a", "c" }, order)
    end)

    it("a system added during a tick runs in the phases whose systems have not run yet", function()
      local order = {}
      spawnWith(scene, "a", Upd, nil, function()
        if scene.time.frameCount ~= 1 then return end
        scene:addSystem("gameLogic", function() order[#order + 1] = "late gameLogic" end)
        scene:addSystem("animation", function() order[#order + 1] = "animation" end)
      end)
      scene:update(0.1)
      assert.same({ "animation" }, order, "gameLogic's systems had already run")
      scene:update(0.1)
      assert.same({ "animation", "late gameLogic", "animation" }, order)
    end)

    it("check their arguments", function()
      assert.error_matches(function() scene:addSystem("nope", function() end) end, "unknown phase 'nope'", nil, true)
      assert.error_matches(function() scene:addSystem("input") end, "bad argument #2 to 'addSystem'", nil, true)
      assert.error_matches(function() scene:addSystem { phase = "input", update = 5 } end, "bad argument #1 to 'addSystem'", nil, true)
      assert.error_matches(function() scene:addSystem(5) end, "bad argument #1 to 'addSystem'", nil, true)
    end)
  end)

  describe("updateRender", function()
    it("calls updateRender(ctx) once on every enabled component and render systems", function()
      local R = tycho.component("tick_spec.Render")
      function R:updateRender(ctx) log[#log + 1] = self.gameObject.name .. ":" .. tostring(ctx.tag) end
      local ctx = { tag = "ctx1" }
      scene:addSystem("render", function(c) log[#log + 1] = "sys:" .. tostring(c.tag) end)
      spawnWith(scene, "a", R)
      spawnWith(scene, "b", R).enabled = false
      local c = spawnWith(scene, "c", R)
      scene:updateRender(ctx)
      assert.same({ "sys:ctx1", "a:ctx1", "c:ctx1" }, log)
      c:getComponent(R).enabled = false
      log = {}
      scene:updateRender({ tag = "ctx2" })
      assert.same({ "sys:ctx2", "a:ctx2" }, log)
    end)

    it("is not part of scene:update", function()
      local R = tycho.component("tick_spec.RenderOnly")
      function R:updateRender() log[#log + 1] = "render" end
      spawnWith(scene, "a", R)
      scene:update(0.1)
      assert.same({}, log)
      assert.equals(1, scene.time.frameCount)
    end)
  end)

  describe("components changing during a tick", function()
    it("a component added mid-tick attaches at once and runs next tick", function()
      local go = scene:add(GameObject.new("host"))
      local added
      go:addComponent(Upd, "adder", function()
        if not added then added = scene:add(GameObject.new("other")):addComponent(Rec, "new") end
      end)
      spawnWith(scene, "existing", Upd)
      scene:update(0.1)
      assert.equals(1, count(log, "new:onAttach"))
      assert.equals(0, count(log, "new:update"), "its object joined this tick: not ticked yet")
      log = {}
      scene:update(0.1)
      assert.same({ "new:input", "new:prePhysics", "new:physics", "new:postPhysics", "adder:update",
        "existing:update", "new:update", "new:animation", "new:preRender" }, log)
    end)

    it("a component added mid-tick to a live object runs its later phases this tick", function()
      local target = scene:add(GameObject.new("target"))
      scene:addSystem("gameLogic", function()
        if scene.time.frameCount == 1 then target:addComponent(Rec, "new") end
      end)
      scene:update(0.1)
      assert.same({ "new:onAttach", "new:update", "new:animation", "new:preRender" }, log)
    end)

    it("removeComponent mid-tick: the removed one gets no more hooks, the others still run", function()
      local go = scene:add(GameObject.new("a"))
      local victim
      go:addComponent(Upd, "remover", function(self)
        if victim then
          assert.equals(true, self.gameObject:removeComponent(victim))
          victim = nil
        end
      end)
      victim = go:addComponent(Rec, "victim")
      go:addComponent(Rec, "survivor")
      log = {}
      scene:update(0.1)
      assert.is_nil(indexOf(log, "victim:update"), "removed before its turn")
      assert.equals(1, count(log, "victim:onDetach"))
      assert.is_nil(indexOf(log, "victim:animation"))
      assert.equals(1, count(log, "survivor:update"))
      assert.equals(1, count(log, "survivor:animation"))
      log = {}
      scene:update(0.1)
      assert.equals(0, count(log, "victim:update"))
      assert.equals(1, count(log, "survivor:update"))
      assert.equals(2, #go:getComponents())
    end)

    it("a component removing itself mid-walk lets its siblings run", function()
      local go = scene:add(GameObject.new("a"))
      go:addComponent(Upd, "quitter", function(self) self.gameObject:removeComponent(self) end)
      go:addComponent(Upd, "stayer")
      scene:update(0.1)
      scene:update(0.1)
      assert.same({ "quitter:update", "stayer:update", "stayer:update" }, log)
    end)

    it("removeComponent clears gameObject, returns false for a stranger", function()
      local go = scene:add(GameObject.new("a"))
      local c = go:addComponent(Rec)
      assert.equals(true, go:removeComponent(c))
      assert.is_nil(c.gameObject)
      assert.equals(false, go:removeComponent(c))
      assert.equals(false, go:removeComponent({}))
      go:addComponent(c) -- a detached instance may be attached again
      assert.equals(go, c.gameObject)
    end)
  end)

  describe("class re-declaration", function()
    it("returns the same table; live instances run the new method next tick", function()
      local A = tycho.component("tick_spec.Reloaded")
      function A:update() log[#log + 1] = "v1" end
      spawnWith(scene, "a", A)
      scene:update(0.1)
      local again = tycho.component("tick_spec.Reloaded")
      assert(rawequal(again, A), "same name must give the same class table")
      function again:update() log[#log + 1] = "v2" end
      scene:update(0.1)
      assert.same({ "v1", "v2" }, log)
    end)

    it("a class gaining a hook method after instances exist starts receiving it", function()
      local G = tycho.component("tick_spec.Grows")
      local go = spawnWith(scene, "a", G)
      scene:update(0.1)
      function G:animation() log[#log + 1] = "animation" end
      scene:update(0.1)
      assert.same({ "animation" }, log)
    end)

    it("an instance outside any scene picks up a new hook when it joins later", function()
      local G = tycho.component("tick_spec.GrowsOutside")
      local go = GameObject.new("loose")
      go:addComponent(G)
      function G:update() log[#log + 1] = "late hook" end
      scene:update(0.1) -- the scene catches up with the class change before go joins
      scene:add(go)
      scene:update(0.1)
      assert.same({ "late hook" }, log)
    end)

    it("a class losing a hook method stops calling it", function()
      local L = tycho.component("tick_spec.Shrinks")
      function L:update() log[#log + 1] = "x" end
      spawnWith(scene, "a", L)
      scene:update(0.1)
      L.update = nil
      scene:update(0.1)
      assert.same({ "x" }, log)
    end)

    it("tycho.component checks its argument", function()
      assert.error_matches(function() tycho.component(5) end, "bad argument #1 to 'component'", nil, true)
    end)
  end)

  describe("addComponent", function()
    it("constructs with the arguments, or takes an instance", function()
      local C = tycho.component("tick_spec.Args")
      function C:init(a, b) self.a, self.b = a, b end
      local go = scene:add(GameObject.new("a"))
      local c = go:addComponent(C, 1, "two")
      assert.same({ 1, "two" }, { c.a, c.b })
      assert(rawequal(c.gameObject, go), "gameObject")
      local inst = C.new(3)
      assert(rawequal(go:addComponent(inst), inst), "addComponent(instance) returns it")
      assert.equals(3, inst.a)
      assert.same({ c, inst }, go:getComponents(C))
      assert(rawequal(go:getComponent(C), c), "first of its class")
      assert.is_nil(go:getComponent(Rec))
      assert.same({}, go:getComponents(Rec))
    end)

    it("refuses an instance attached elsewhere, and wrong types", function()
      local a, b = GameObject.new("a"), GameObject.new("b")
      local c = a:addComponent(Rec)
      assert.error_matches(function() b:addComponent(c) end, "already attached", nil, true)
      assert.error_matches(function() a:addComponent(5) end, "bad argument #1 to 'addComponent'", nil, true)
      assert.error_matches(function() a:getComponent(5) end, "bad argument #1 to 'getComponent'", nil, true)
      assert.error_matches(function() a:removeComponent("x") end, "bad argument #1 to 'removeComponent'", nil, true)
    end)
  end)
end)
