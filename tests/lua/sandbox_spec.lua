-- tests/lua/sandbox_spec.lua: sandboxed scenes (bindings/lua_sandbox.c, scripts/tycho/sandbox.lua):
-- the CRDT bridge into GameObjects, the escape routes, the caps, and the rejection rules.
-- Fixture scenes are in tests/lua/fixtures/sandbox/; they write @dcl/ecs wire bytes by hand.

local crdt = tycho.crdt
local FIX = require("tycho.testing").here() .. "/fixtures/sandbox/"
local TRANSFORM = 1

local function near(a, b) return math.abs(a - b) < 1e-5 end

-- A scene from source, its print lines collected in runner.lines.
local function scene(src, opts)
  opts = opts or {}
  local lines = {}
  opts.log = function(line) lines[#lines + 1] = line end
  if opts.quiet == nil then opts.quiet = true end
  local r, err = tycho.sandbox.load(src, opts)
  assert.truthy(r, err)
  r.lines = lines
  return r
end

-- Runs `body` as the scene's onStart and returns start()'s results.
local function attempt(body)
  local r = scene("function onStart()\n" .. body .. "\nend")
  local ok, err = r:start()
  r:close()
  return ok, err
end

-- Scene-side helpers, prepended to inline scenes.
local PRELUDE = [[
local api = require("~system/EngineApi")
local function put(e, c, ts, data) return string.pack("<I4I4I4I4I4s4", 24 + #data, 1, e, c, ts, data) end
local function tf(x, parent) return string.pack("<ffffffffffI4", x, 0, 0, 0, 0, 0, 1, 1, 1, 1, parent or 0) end
local function send(b) return api.crdtSendToRenderer({ data = { b } }) end
]]

describe("tycho.sandbox: the CRDT bridge", function()
  it("mirrors a CRDT-fed scene into GameObjects: positions, parents, moves and deletes", function()
    local s = tycho.Scene.new()
    local r = scene(FIX .. "cubes.lua", { scene = s })
    assert.equals("cubes", r.name)
    assert.truthy(r.root)
    assert.equals(s, r.root.scene)
    assert.is_true(r:start())
    assert.same({ "state false 1" }, r.lines)

    local a, b = r:gameObjectFor(512), r:gameObjectFor(513)
    assert.truthy(a)
    assert.truthy(b)
    assert.equals(r.root, a.parent)
    assert.equals(a, b.parent)
    assert.equals(512, r:entityFor(a))
    assert.equals(513, r:entityFor(b))
    assert.is_true(near(a.position.x, 1) and near(a.position.y, 2) and near(a.position.z, 3))
    assert.is_true(near(b.position.y, 1) and near(b.scale.x, 2))
    assert.is_true(near(b.worldPosition.y, 3))
    assert.equals(s, b.scene)

    assert.is_true(r:update(1 / 60)) -- frame 1: 512 moves to x = 5
    assert.is_true(near(a.position.x, 5))
    assert.is_true(near(b.worldPosition.x, 5))

    assert.is_true(r:update(1 / 60)) -- frame 2: 513 is deleted
    assert.is_nil(r:gameObjectFor(513))
    assert.is_true(b.destroyed)
    assert.is_false(a.destroyed)
    assert.is_true(r.state:isRemoved(513))
    s:update(0)
    r:close()
    assert.is_true(a.destroyed)
  end)

  it("sends engine-side writes back in the next crdtSendToRenderer reply", function()
    local r = scene(FIX .. "cubes.lua", { scene = tycho.Scene.new() })
    assert.is_true(r:start())
    local player = crdt.entity(1, 0)
    assert.truthy(r:put(player, TRANSFORM, crdt.transform.encode({ position = { 4, 0, 0 } })))
    assert.truthy(r:put(512, 2000, "hi"))
    assert.is_true(r:update(0.1))
    assert.same({ "state false 1", "got 1 1 1", "got 1 512 2000" }, r.lines)
    assert.is_nil(r:gameObjectFor(player)) -- the engine's basic entities are not mirrored
    -- the engine deletes a scene entity: its GameObject goes, the scene hears of it
    local b = r:gameObjectFor(513)
    assert.truthy(r:deleteEntity(513))
    assert.is_true(b.destroyed)
    assert.is_true(r:update(0.1))
    assert.equals("got 3 513 0", r.lines[#r.lines])
    r:close()
  end)

  it("hands the scene the engine's state through crdtGetState", function()
    local r = scene(PRELUDE .. [[
      function onStart()
        local st = api.crdtGetState()
        print(tostring(st.hasEntities) .. " " .. #st.data[1])
      end]], { scene = tycho.Scene.new() })
    r:put(crdt.entity(2, 0), TRANSFORM, crdt.transform.encode({}))
    assert.is_true(r:start())
    assert.same({ "true 68" }, r.lines)
    r:close()
  end)

  it("serves EngineApi from coroutines and refuses re-entry from the engine", function()
    local r
    r = scene(PRELUDE .. [[
      function onStart()
        coroutine.wrap(function() api.crdtGetState(); send(put(512, 1, 1, tf(2))) end)()
      end]], { scene = tycho.Scene.new() })
    assert.is_true(r:start())
    assert.truthy(r:gameObjectFor(512))
    r:close()
    local lines, vm = {}, nil
    vm = tycho.sandbox.vm({ quiet = true, callbacks = {
      getState = function() local ok, err = vm:call("onStart") return false, tostring(ok) .. " " .. err end,
      log = function(l) lines[#lines + 1] = l end } })
    assert.is_true(vm:load([[function onStart() print(require("~system/EngineApi").crdtGetState().data[1]) end]]))
    assert.is_true(vm:call("onStart"))
    assert.same({ "false the scene is already running (EngineApi callbacks cannot re-enter it)" }, lines)
    vm:close()
  end)

  it("parents a child that arrives before its parent once the parent exists", function()
    local r = scene(PRELUDE .. [[
      function onStart()
        api.crdtGetState()
        send(put(600, 1, 1, tf(1, 601)))
      end
      function onUpdate() send(put(601, 1, 1, tf(10, 0))) end]], { scene = tycho.Scene.new() })
    assert.is_true(r:start())
    assert.equals(r.root, r:gameObjectFor(600).parent)
    assert.is_true(r:update(0))
    assert.equals(r:gameObjectFor(601), r:gameObjectFor(600).parent)
    assert.is_true(near(r:gameObjectFor(600).worldPosition.x, 11))
    r:close()
  end)
end)

describe("tycho.sandbox: rejected input", function()
  it("rejects entity numbers below 512 from a scene, counted, state unchanged", function()
    local r = scene(PRELUDE .. [[
      function onStart() api.crdtGetState() end
      function onUpdate()
        send(put(0, 1, 5, tf(1)))       -- root
        send(put(2, 1, 5, tf(1)))       -- camera
        send(put(511 | (3 << 16), 1, 5, tf(1)))
        send(string.pack("<I4I4I4", 12, 3, 1)) -- delete the player
      end]], { scene = tycho.Scene.new() })
    assert.is_true(r:start())
    local before = r.state:snapshot()
    assert.is_true(r:update(0))
    assert.equals(4, r.stats.rejected.reserved_entity)
    assert.equals("reserved_entity", r.lastRejection.reason)
    assert.equals(before, r.state:snapshot())
    assert.equals(0, r.state:count())
    r:close()
  end)

  it("rejects scene writes during the initial synchronization", function()
    local r = scene(PRELUDE .. [[
      send(put(512, 1, 1, tf(1)))             -- the main chunk: still syncing
      function onStart()
        send(put(513, 1, 1, tf(1)))           -- before the scene has the state
        api.crdtGetState()
        send(put(514, 1, 1, tf(1)))           -- after: accepted
      end]], { scene = tycho.Scene.new() })
    assert.equals(1, r.stats.rejected.initial_sync)
    assert.equals(0, r.state:count())
    -- the runtime may write meanwhile
    assert.truthy(r:put(crdt.entity(1, 0), TRANSFORM, crdt.transform.encode({})))
    assert.is_true(r:start())
    assert.equals(2, r.stats.rejected.initial_sync)
    assert.is_nil(r.state:get(512, TRANSFORM))
    assert.is_nil(r.state:get(513, TRANSFORM))
    assert.truthy(r.state:get(514, TRANSFORM))
    assert.truthy(r:gameObjectFor(514))
    r:close()
  end)

  it("ends the initial synchronization when onStart returns", function()
    local r = scene(PRELUDE .. [[
      function onUpdate() send(put(512, 1, 1, tf(1))) end]])
    assert.is_true(r:start())
    assert.is_true(r:update(0))
    assert.equals(0, r.stats.rejected.initial_sync)
    assert.truthy(r.state:get(512, TRANSFORM))
    r:close()
  end)

  it("rejects puts to deleted entities, counted, state unchanged", function()
    local r = scene(PRELUDE .. [[
      function onStart()
        api.crdtGetState()
        send(put(700, 1, 1, tf(1)))
        send(string.pack("<I4I4I4", 12, 3, 700))
      end
      function onUpdate()
        send(put(700, 1, 9, tf(2)))
        send(put(700, 5000, 1, "x"))
        -- same batch: deleted first, then written
        send(string.pack("<I4I4I4", 12, 3, 701) .. put(701, 1, 1, tf(3)))
      end]], { scene = tycho.Scene.new() })
    assert.is_true(r:start())
    assert.is_true(r.state:isRemoved(700))
    assert.is_nil(r:gameObjectFor(700))
    local before = r.state:snapshot()
    assert.is_true(r:update(0))
    assert.equals(2, r.stats.rejected.deleted_entity)
    assert.is_nil(r.state:get(700, TRANSFORM))
    assert.is_nil(r.state:get(700, 5000))
    assert.is_nil(r:gameObjectFor(701)) -- DELETE_ENTITY applies last in a batch
    assert.is_true(r.state:isRemoved(701))
    assert.equals(before .. string.pack("<I4I4I4", 12, 3, 701), r.state:snapshot())
    r:close()
  end)

  it("counts malformed bytes and accepts byte arrays", function()
    local r = scene(PRELUDE .. [[
      function onStart()
        api.crdtGetState()
        api.crdtSendToRenderer({ data = { "\1\2\3" } })
        local bytes = {}
        for c in put(512, 2000, 1, "ok"):gmatch(".") do bytes[#bytes + 1] = c:byte() end
        api.crdtSendToRenderer({ data = { bytes } })
      end]])
    assert.is_true(r:start())
    assert.equals(1, r.stats.rejected.malformed)
    assert.equals("ok", (r.state:get(512, 2000)))
    r:close()
  end)
end)

describe("tycho.sandbox: escape routes", function()
  it("has no io, os.execute, debug or package", function()
    local ok, err = attempt("io.open('/etc/passwd')")
    assert.is_false(ok)
    assert.matches("attempt to index a nil value %(global 'io'%)", err)
    ok, err = attempt("os.execute('true')")
    assert.is_false(ok)
    assert.matches("field 'execute'", err)
    ok, err = attempt("os.getenv('HOME')")
    assert.matches("field 'getenv'", err)
    ok, err = attempt("debug.getregistry()")
    assert.matches("global 'debug'", err)
    ok, err = attempt("package.loadlib('libc.so.6', 'system')")
    assert.matches("global 'package'", err)
    assert.is_true(attempt("assert(type(os.time()) == 'number' and type(os.clock()) == 'number')"))
  end)

  it("loads no binary chunk and no file", function()
    local ok, err = attempt("assert(load('\\27Lua' .. ('\\0'):rep(40)))")
    assert.is_false(ok)
    assert.matches("attempt to load a binary chunk %(mode is 't'%)", err)
    ok, err = attempt("assert(load('\\27Lua' .. ('\\0'):rep(40), 'x', 'b'))")
    assert.matches("binary chunk", err)
    ok, err = attempt("string.dump(function() end)")
    assert.matches("string.dump is not available in a sandboxed scene", err)
    ok, err = attempt("require('tycho.boot')")
    assert.matches("module 'tycho.boot' is not available in a sandboxed scene", err)
    ok, err = attempt("require('io')")
    assert.matches("module 'io' is not available", err)
    ok, err = attempt("dofile('tests/lua/fixtures/sandbox/cubes.lua')")
    assert.matches("dofile is not available in a sandboxed scene", err)
    ok, err = attempt("loadfile('tests/lua/fixtures/sandbox/cubes.lua')")
    assert.matches("loadfile is not available", err)
    -- text chunks still load, with their environment argument honoured
    assert.is_true(attempt("assert(load('return 1 + 1')() == 2); assert(load('return x', 't', 't', {x = 3})() == 3)"))
  end)

  it("cannot reach the host's globals or string metatable", function()
    local r = scene([[
      getmetatable("").__index = { upper = function() return "pwned" end }
      tycho = "pwned"
      hostFlag = true
      _G.print = nil
      function onStart() assert(("a"):upper() == "pwned") end]])
    assert.is_true(r:start())
    assert.equals("A", ("a"):upper())
    assert.equals("table", type(tycho))
    assert.is_nil(rawget(_G, "hostFlag"))
    assert.equals("function", type(print))
    r:close()
  end)

  it("rejects arguments that would share host objects", function()
    local r = scene("function onUpdate() end")
    assert.error_matches(function() r._vm:call("onUpdate", {}) end, "only nil, booleans, numbers and strings", nil, true)
    r:close()
  end)

  it("reports a scene's errors with file:line and keeps running", function()
    local r = scene(FIX .. "cubes.lua")
    assert.is_true(r:start())
    local r2 = scene("function onUpdate() error('boom') end", { name = "bad" })
    local ok, err = r2:update(0)
    assert.is_false(ok)
    assert.matches("^bad:1: boom", err)
    assert.equals(1, r2.stats.errors)
    assert.is_nil(r2.stopped) -- an ordinary error does not stop the scene
    assert.is_false((r2:update(0)))
    assert.equals(2, r2.stats.errors)
    local nr, lerr = tycho.sandbox.load("function (")
    assert.is_nil(nr)
    assert.matches("scene:1:", lerr)
    r:close()
    r2:close()
  end)
end)

describe("tycho.sandbox: caps", function()
  it("stops a runaway scene at the instruction cap; the host and other scenes go on", function()
    local other = scene(FIX .. "cubes.lua", { scene = tycho.Scene.new() })
    assert.is_true(other:start())
    local r = scene(FIX .. "runaway.lua", { instructionLimit = 200000 })
    assert.is_true(r:update(0))
    local ok, err = r:update(0)
    assert.is_false(ok)
    assert.matches("runaway.lua:%d+: instruction limit exceeded", err)
    assert.equals("instruction limit exceeded", r.stopped)
    assert.truthy(r.stats.instructions > 200000)
    ok, err = r:update(0)
    assert.is_false(ok)
    assert.matches("was stopped: instruction limit exceeded", err)
    assert.is_true(other:update(0))
    assert.is_true(near(other:gameObjectFor(512).position.x, 5))
    r:close()
    other:close()
  end)

  it("stops a runaway main chunk and a runaway finalizer-free coroutine", function()
    local r, err = tycho.sandbox.load("while true do end", { instructionLimit = 10000, quiet = true })
    assert.is_nil(r)
    assert.matches("instruction limit exceeded", err)
    local ok, e2 = attempt([[
      local co = coroutine.wrap(function() while true do end end)
      co()]])
    assert.is_false(ok)
    assert.matches("instruction limit exceeded", e2)
  end)

  it("charges pattern matching, string.rep and table.move to the cap: a runaway pattern is stopped", function()
    local cases = {
      'string.find(string.rep("a", 30000), ".-.-.-.-b")',
      'local s = string.rep("a", 20000) pcall(s.gsub, s, "(a*)*b", "x") return s:gsub("(a*)*b", "x")',
      'for _ in string.gmatch(string.rep("ab", 20000), "a.-.-.-c") do end',
      'string.match(string.rep("(", 50000), "%b()")',
      'string.rep("", 1e15)',
      'table.move({}, 1, 1e15, 2)',
    }
    for _, code in ipairs(cases) do
      local t0 = os.clock()
      local r = scene("function onUpdate() " .. code .. " end", { instructionLimit = 2000000 })
      local ok, err = r:update(0)
      assert.is_false(ok, code)
      assert.matches("instruction limit exceeded", err, 1, true)
      assert.equals("instruction limit exceeded", r.stopped, code)
      assert.is_true(os.clock() - t0 < 2, code .. " took " .. (os.clock() - t0) .. " s")
      r:close()
    end
    -- the engine and an ordinary scene keep going; ordinary patterns still work
    local fine = scene([[
      function onUpdate()
        local k, v = ("key = value"):match("(%w+)%s*=%s*(%w+)")
        local s = ("hello world"):gsub("o", "0")
        print(k, v, s, select(2, ("aXbXc"):gsub("X", "")), ("abc"):find("b", 1, true))
      end]], { instructionLimit = 2000000 })
    assert.is_true(fine:update(0))
    assert.equals("key\tvalue\thell0 w0rld\t2\t2\t2", fine.lines[1])
    fine:close()
  end)

  it("refuses __gc metamethods, which Lua runs with hooks off", function()
    local ok, err = attempt("setmetatable({}, { __gc = function() while true do end end })")
    assert.is_false(ok)
    assert.matches("__gc metamethods are not available in a sandboxed scene", err)
    -- adding __gc afterwards does not mark the table for finalization
    local r = scene([[
      local mt = {}
      local t = setmetatable({}, mt)
      mt.__gc = function() while true do end end
      t = nil
      function onUpdate() for _ = 1, 20000 do local _ = {} end end]], { instructionLimit = 1000000 })
    assert.is_true(r:update(0))
    r:close()
    assert.is_true(attempt("assert(getmetatable(setmetatable({}, { __index = {} })))"))
  end)

  it("stops a memory bomb at the memory cap", function()
    for _, mode in ipairs({ "string", "table" }) do
      local r = scene(FIX .. "membomb.lua", { memoryLimit = 4 << 20, instructionLimit = 100000000 })
      assert.is_true(r._vm:load("mode = '" .. mode .. "'", "=set"))
      local ok, err = r:update(0)
      assert.is_false(ok)
      assert.matches("not enough memory", err)
      assert.equals("memory limit exceeded", r.stopped)
      local st = r.stats
      assert.truthy(st.refusedAllocations >= 1)
      assert.truthy(st.peakMemory <= 4 << 20)
      assert.truthy(st.memory < 4 << 20)
      assert.is_false((r:update(0)))
      r:close()
    end
    assert.equals(4, #string.rep("x", 4)) -- the host allocates as before
  end)
end)

describe("tycho.sandbox: the host's share of a scene is capped", function()
  -- A hostile scene: 2,000 new 2 KB components every update.
  local FLOOD = PRELUDE .. [[
    local payload = string.rep("p", 2048)
    local frame = 0
    function onStart() api.crdtGetState() end
    function onUpdate()
      frame = frame + 1
      local out = {}
      for i = 1, 2000 do out[i] = put(512 + i, 3000 + frame, 1, payload) end
      api.crdtSendToRenderer({ data = out })
    end]]

  it("keeps the runner's state within maxStateBytes under a flood of new components", function()
    collectgarbage("collect")
    local before = collectgarbage("count") * 1024
    local cap = 4 << 20
    local r = scene(FLOOD, { maxStateBytes = cap })
    assert.is_true(r:start())
    for _ = 1, 20 do
      assert.is_true(r:update(0))
      assert.is_true(r.state:bytes() <= cap)
    end
    local stored = cap // 2048
    assert.equals(stored * 2048, r.state:bytes())
    assert.equals(stored, r.state:count())
    assert.equals(stored, r.stats.stateEntries)
    assert.equals(r.state:bytes(), r.stats.stateBytes)
    assert.equals(40000 - stored, r.stats.rejected.state_limit)
    assert.equals("state_limit", r.lastRejection.reason)
    assert.equals(40000 - stored, r.state:stats().stateLimit)
    assert.equals(40000, r.stats.messagesIn)
    -- the engine's own writes meet the same cap
    local bytes, err = r:put(512, 9999, "x")
    assert.is_nil(bytes)
    assert.equals("the state holds as many entries/bytes as maxEntries/maxBytes allows", err)
    collectgarbage("collect")
    assert.is_true(collectgarbage("count") * 1024 - before < 2 * cap)
    r:close()
  end)

  it("caps the runner's state by default (16 MiB, 50,000 entries)", function()
    local r = scene(FLOOD)
    for _ = 1, 20 do assert.is_true(r:update(0)) end
    assert.equals(16 << 20, r.state:bytes())
    assert.equals(40000 - (16 << 20) // 2048, r.stats.rejected.state_limit)
    r:close()
    local many = scene(PRELUDE .. [[
      function onStart() api.crdtGetState() end
      function onUpdate(dt)
        local out = {}
        for i = 1, 9000 do out[i] = put(512 + i, 3000 + math.floor(dt), 1, "") end
        send(table.concat(out))
      end]])
    for k = 1, 6 do assert.is_true(many:update(k)) end
    assert.equals(50000, many.state:count())
    assert.equals(54000 - 50000, many.stats.rejected.state_limit)
    many:close()
  end)

  it("counts refusals by maxEntries and mirrors only what the state kept", function()
    local r = scene(PRELUDE .. [[
      function onStart()
        api.crdtGetState()
        for i = 0, 19 do send(put(600 + i, 1, 1, tf(i))) end
      end]], { scene = tycho.Scene.new(), maxEntries = 10 })
    assert.is_true(r:start())
    assert.equals(10, r.state:count())
    assert.equals(10, r.stats.rejected.state_limit)
    assert.truthy(r:gameObjectFor(609))
    assert.is_nil(r:gameObjectFor(610))
    r:close()
  end)

  it("drops the messages of one scene call past maxMessagesPerCall, counted, and applies the rest", function()
    local r = scene(PRELUDE .. [[
      function onStart() api.crdtGetState() end
      function onUpdate(dt)
        local n = math.floor(dt)
        local out = {}
        for i = 1, n do out[i] = put(512 + i, 2000, 1, "v") end
        -- across several crdtSendToRenderer calls of the same onUpdate
        send(table.concat(out, "", 1, n // 2))
        send(table.concat(out, "", n // 2 + 1, n))
        if n > 100 then send(put(2000, 2000, 1, "late") .. "\1\2\3") end
      end]], { maxMessagesPerCall = 100 })
    assert.is_true(r:start())
    assert.is_true(r:update(150))
    assert.equals(100, r.state:count())
    assert.equals("v", (r.state:get(512 + 100, 2000)))
    assert.is_nil(r.state:get(512 + 101, 2000))
    assert.equals(51, r.stats.rejected.message_limit)
    assert.equals(1, r.stats.rejected.malformed) -- the framing of dropped bytes is still checked
    assert.equals("message_limit", r.lastRejection.reason)
    assert.equals(151, r.stats.messagesIn)
    -- each scene call has its own budget
    assert.is_true(r:update(100))
    assert.equals(51, r.stats.rejected.message_limit)
    r:close()
  end)

  it("does O(1) work per message past the cap", function()
    local r = scene(PRELUDE .. [[
      local header = string.pack("<I4I4", 8, 0)
      function onStart() api.crdtGetState() end
      function onUpdate() send(string.rep(header, 200000)) end]], { maxMessagesPerCall = 10, instructionLimit = 100000000 })
    -- (Under the default budget the send is refused by its charge before the host sees it.)
    assert.is_true(r:start())
    local t0 = os.clock()
    assert.is_true(r:update(0))
    assert.equals(200000 - 10, r.stats.rejected.message_limit)
    assert.is_true(os.clock() - t0 < 1, "took " .. (os.clock() - t0) .. " s")
    r:close()
  end)

  it("checks the cap options", function()
    assert.error_matches(function() tycho.sandbox.load("x = 1", { maxEntries = -1 }) end,
      "bad argument #2 to 'load' ('maxEntries' must be an integer in 0..4294967295, got -1)", nil, true)
    assert.error_matches(function() tycho.sandbox.load("x = 1", { maxStateBytes = 1.5 }) end, "'maxStateBytes' must be", nil, true)
    assert.error_matches(function() tycho.sandbox.load("x = 1", { maxMessagesPerCall = "many" }) end,
      "'maxMessagesPerCall' must be", nil, true)
    local r = scene("function onUpdate() end", { maxEntries = 0, maxStateBytes = 0, maxMessagesPerCall = 0 })
    assert.is_true(r:update(0))
    r:close()
    local reasons = require("tycho.sandbox").REASONS
    assert.equals("state_limit", reasons[6])
    assert.equals("message_limit", reasons[7])
  end)
end)

-- Hostile scenes never hold the host past their budget.
-- Each case runs a scene whose onUpdate tries to keep the host busy (a message handler that
-- loops, a C loop sized by a metamethod, data-sized library calls in a loop, EngineApi
-- floods, memory churn, coroutines) and checks that the call comes back with the scene
-- stopped, within a small multiple of what a plain `while true do end` under the same
-- budget takes. Before the charges these calls took minutes to hours.
do
  local LIMIT = 2000000 -- instructions per call

  local function scene(src, opts)
    opts = opts or {}
    opts.quiet = true
    opts.log = function() end
    opts.instructionLimit = opts.instructionLimit or LIMIT
    local r, err = tycho.sandbox.load(src, opts)
    assert.truthy(r, err)
    return r
  end

  -- Runs onUpdate once: ok, err, the CPU seconds it took.
  local function run(src, opts)
    local r = scene(src, opts)
    assert.is_true(r:start())
    local t0 = os.clock()
    local ok, err = r:update(0)
    local dt = os.clock() - t0
    local stopped = r.stopped
    r:close()
    return ok, err, dt, stopped
  end

  -- What the budget takes in plain Lua, the best of three.
  local baseline
  local function base()
    if not baseline then
      baseline = math.huge
      for _ = 1, 3 do
        local ok, _, dt = run("function onUpdate() local i = 0 while true do i = i + 1 end end")
        assert.is_false(ok)
        baseline = math.min(baseline, dt)
      end
    end
    return baseline
  end

  -- The scene must be stopped by a limit, within `factor` times the baseline (plus 50 ms for
  -- a loaded machine).
  local function assertStopped(src, factor, opts)
    local ok, err, dt, stopped = run(src, opts)
    assert.is_false(ok, "the call should have been stopped")
    assert.matches("limit exceeded", err)
    assert.truthy(stopped)
    local bound = (factor or 5) * base() + 0.05
    assert.is_true(dt <= bound, ("took %.3f s, more than %.3f s (baseline %.4f s): %s"):format(dt, bound, base(), err))
    return err
  end

  describe("tycho.sandbox: hostile scenes stop within their budget", function()
    it("xpcall: a message handler that loops is never run once the call is over budget", function()
      assertStopped([[function onUpdate()
        xpcall(function() while true do end end, function() while true do end end)
      end]])
      -- The same from inside a coroutine, and with pcall around it all.
      assertStopped([[function onUpdate()
        local co = coroutine.wrap(function()
          pcall(xpcall, function() while true do end end, function() while true do end end)
        end)
        while true do pcall(co) end
      end]])
    end)

    it("pcall, coroutine.resume and coroutine.wrap cannot swallow the stop", function()
      local err = assertStopped([[function onUpdate()
        while true do pcall(function() while true do end end) end
      end]])
      assert.matches("instruction limit exceeded", err)
      assertStopped([[function onUpdate()
        while true do coroutine.resume(coroutine.create(function() while true do end end)) end
      end]])
      assertStopped([[function onUpdate()
        while true do pcall(coroutine.wrap(function() while true do end end)) end
      end]])
    end)

    it("a message handler still runs for ordinary errors", function()
      local r = scene([[function onUpdate()
        local ok, msg = xpcall(error, function(m) return "handled: " .. m end, "boom", 0)
        assert(not ok and msg == "handled: boom", msg)
        assert(select("#", pcall(error)) == 2)
        local co = coroutine.wrap(function(a) local b = coroutine.yield(a + 1) return b * 2 end)
        assert(co(1) == 2 and co(5) == 10)
        local ok2, e2 = coroutine.resume(coroutine.create(function() error("inner", 0) end))
        assert(not ok2 and e2 == "inner")
        local ok3, e3 = pcall(coroutine.wrap(function() error("wrapped") end))
        assert(not ok3 and e3:find("wrapped"), e3)
      end]])
      assert.is_true(r:update(0))
      r:close()
    end)

    it("table.insert and table.remove under a huge __len are charged before they loop", function()
      for _, call in ipairs({ "table.insert(t, 1, 0)", "table.remove(t, 1)" }) do
        assertStopped(([[function onUpdate()
          local t = setmetatable({}, { __len = function() return math.maxinteger - 1 end })
          %s
        end]]):format(call), 2)
      end
    end)

    it("table.concat over a string with string.sub as __index is charged before it loops", function()
      assertStopped([[function onUpdate()
        local mt = getmetatable("")
        mt.__index = string.sub
        mt.__len = string.len
        table.concat("", "", 1, math.maxinteger)
      end]], 2)
    end)

    it("data-sized library calls in a loop stop within the budget", function()
      local cases = {
        { "local s = ('x'):rep(900000)", "string.byte(s, 1, -1)" },
        { "local t = {} for i = 1, 200000 do t[i] = 'ab' end", "table.concat(t)" },
        { "local t = {} for i = 1, 200000 do t[i] = i end", "table.unpack(t)" },
        { "local t = {} for i = 1, 100000 do t[i] = 65 end", "utf8.char(table.unpack(t))" },
        { "local t = {} for i = 1, 100000 do t[i] = 65 end", "string.char(table.unpack(t))" },
        { "local s = ('x'):rep(1000000)", "s:upper()" },
        { "local s = ('x'):rep(1000000)", "utf8.len(s)" },
        { "local s = ('x'):rep(1000000)", "string.format('%s', s)" },
        { "local s = ('x'):rep(1000000)", "s:rep(8)" },
        { "local t = {} for i = 1, 100000 do t[i] = 100000 - i end", "table.sort(t)" },
        { "local t = {} for i = 1, 100000 do t[i] = i end", "table.move(t, 1, #t, 2)" },
        { "local s = ('x = 1 '):rep(100000)", "load(s)" },
        { "local s = ('x'):rep(4000000)", "local _ = s .. s" },
        { "local t = {} for i = 1, 100000 do t[i] = i end", "select(2, table.unpack(t))" },
      }
      for _, case in ipairs(cases) do
        assertStopped(("function onUpdate()\n%s\nwhile true do %s end\nend"):format(case[1], case[2]), 5)
      end
    end)

    it("collectgarbage is refused but for \"count\"", function()
      local ok, err = run([[function onUpdate() collectgarbage("collect") end]])
      assert.is_false(ok)
      assert.matches('collectgarbage%("collect"%) is not available in a sandboxed scene', err)
      ok, err = run([[function onUpdate() assert(collectgarbage("count") > 0) end]])
      assert.is_true(ok, err)
    end)

    it("EngineApi: the host's work for each message is charged to the scene", function()
      -- 100,000 tiny messages per call (unknown types, framed and skipped by the host).
      assertStopped([[
        local api = require("~system/EngineApi")
        local msg = string.pack("<I4I4", 8, 99)
        local batch = msg:rep(100000)
        function onUpdate() while true do api.crdtSendToRenderer({ data = batch }) end end]], 5)
      assertStopped([[
        local api = require("~system/EngineApi")
        function onUpdate() while true do api.crdtSendToRenderer({ data = "" }) end end]], 5)
    end)

    it("a `next` over a table emptied of its keys is stopped by the time limit at the latest", function()
      local ok, err = run([[
        local t = {}
        for i = 1, 100000 do t["k" .. i] = true end
        for i = 1, 100000 do t["k" .. i] = nil end
        function onUpdate() while true do next(t) end end]], { instructionLimit = 100000000, timeLimit = 1 })
      assert.is_false(ok)
      assert.matches("limit exceeded", err)
    end)

    it("runs Lua 5.4.4's own pattern-matching tests (testes/pm.lua) to their final OK", function()
    local lines = {}
    local r, err = tycho.sandbox.load(FIX .. "pm.lua", { quiet = true, instructionLimit = 0,
      log = function(line) lines[#lines + 1] = line end })
    assert.truthy(r, err)
    r:close()
    assert.equals("testing pattern matching", lines[1])
    assert.equals("OK", lines[#lines])
  end)

  it("gsub that substitutes nothing returns the subject itself, as stock Lua does", function()
    local r = scene([[function onUpdate()
      local s = ("long enough not to be interned "):rep(3)
      local same = function(t) return string.format("%p", t) == string.format("%p", s) end
      assert(same((s:gsub("x", {}))), "a table giving nothing")
      assert(same((s:gsub(".", function() end))), "a function giving nothing")
      assert(same((s:gsub("zzz", "y"))), "no match")
      assert(not same((s:gsub("l", "l"))), "a string replacement counts as a change")
    end]])
    local ok, err = r:update(0)
    assert.is_true(ok, err)
    r:close()
  end)

  it("honest library calls give what stock Lua gives", function()
      local calls = {
        "string.byte('hello', 2, 4)", "string.byte('hello', -2)", "string.char(104, 105)",
        "table.concat({1, 2, 3}, ',')", "table.concat({1, 2, 3}, ',', 2, 3)", "table.unpack({1, 2, 3}, 2)",
        "select(2, 'a', 'b', 'c')", "select(-1, 'a', 'b')", "select('#', 1, nil, 3)",
        "utf8.char(72, 228, 8364)", "utf8.codepoint('häh', 1, -1)", "utf8.len('häh')", "utf8.offset('häh', 3)",
        "('abc'):upper()", "('ABC'):lower()", "('abc'):reverse()", "('ab'):rep(3, '-')",
        "string.format('%5.2f|%q', 3.14159, 'a\\n')", "string.pack('<i4', 7):byte(1, -1)",
        "string.packsize('i4i8')", "string.unpack('<i4', string.pack('<i4', 9))", "tonumber('0x10')",
        "tonumber('z', 36)", "(function() local t = {5, 1, 4} table.sort(t) return table.concat(t) end)()",
        "(function() local t = {1, 2, 3} table.insert(t, 2, 9) return table.concat(t) end)()",
        "(function() local t = {1, 2, 3} return table.remove(t, 1), table.concat(t) end)()",
        "(function() local t = table.move({1, 2, 3}, 1, 3, 2) return table.concat(t) end)()",
        "table.pack(1, 2).n", "load('return 1 + 1')()", "pcall(string.rep)", "pcall(table.insert, {}, 5, 1)",
        "pcall(string.byte)", "pcall(table.concat, {{}})", "pcall(utf8.char, -1)", "pcall(select, 0)",
      }
      -- Stock Lua names a library function in an error by its place in package.loaded; the
      -- runner's own modules (penlight's pl.List.push is table.insert) are set aside meanwhile.
      local stockLoaded = { _G = true, package = true, coroutine = true, table = true, io = true,
        os = true, string = true, math = true, utf8 = true, debug = true }
      local function stockCall(expr)
        local aside = {}
        for name, mod in pairs(package.loaded) do
          if not stockLoaded[name] then aside[name], package.loaded[name] = mod, nil end
        end
        local result = table.pack(load("return " .. expr)())
        for name, mod in pairs(aside) do package.loaded[name] = mod end
        return result
      end
      for _, expr in ipairs(calls) do
        local stock = stockCall(expr)
        local seen
        local r = tycho.sandbox.load(([[function onUpdate()
          local r = table.pack(%s)
          local out = {}
          for i = 1, r.n do out[i] = type(r[i]) .. ":" .. tostring(r[i]) end
          print(table.concat(out, "|"))
        end]]):format(expr), { quiet = true, log = function(line) seen = line end })
        assert.is_true(r:update(0))
        r:close()
        local out = {}
        for i = 1, stock.n do out[i] = type(stock[i]) .. ":" .. tostring(stock[i]) end
        assert.equals(table.concat(out, "|"), seen, expr)
      end
    end)
  end)
end
