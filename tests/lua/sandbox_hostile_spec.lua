-- tests/lua/sandbox_hostile_spec.lua: hostile scenes never hold the host past their budget.
-- Each case runs a scene whose onUpdate tries to keep the host busy (a message handler that
-- loops, a C loop sized by a metamethod, data-sized library calls in a loop, EngineApi
-- floods, memory churn, coroutines) and checks that the call comes back with the scene
-- stopped, within a small multiple of what a plain `while true do end` under the same
-- budget takes. Before the charges these calls took minutes to hours.

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
    for _, expr in ipairs(calls) do
      local stock = table.pack(load("return " .. expr)())
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
