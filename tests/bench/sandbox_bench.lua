-- tests/bench/sandbox_bench.lua: how long a hostile sandboxed scene holds the host, against
-- what its instruction budget takes in plain Lua (a `while true do end` under the same cap),
-- and what the sandbox costs honest code (the same work in the host's own Lua state).
-- Run: build/tycho run tests/bench/sandbox_bench.lua --headless --frames 0 --no-watch
-- Sizes: TYCHO_BENCH_LIMIT instructions per call (10,000,000, the default cap),
-- TYCHO_BENCH_REPS runs per row (5; the median is printed).
-- Target: every hostile call returns within about its budget's time (ratio ~1-3x).

local LIMIT = tonumber(os.getenv("TYCHO_BENCH_LIMIT")) or 10000000
local REPS = tonumber(os.getenv("TYCHO_BENCH_REPS")) or 5
local now = tycho.now

local function median(t)
  table.sort(t)
  return t[(#t + 1) // 2]
end

-- Seconds one onUpdate of `src` takes (median of REPS), and its error.
local function time(src, opts)
  local runs, err = {}, nil
  for i = 1, REPS do
    local o = { quiet = true, log = function() end, instructionLimit = LIMIT }
    for k, v in pairs(opts or {}) do o[k] = v end
    local r = assert(tycho.sandbox.load(src, o))
    assert(r:start())
    local t0 = now()
    local ok, e = r:update(0)
    runs[i] = now() - t0
    err = not ok and e or nil
    r:close()
  end
  return median(runs), err
end

local base = time("function onUpdate() local i = 0 while true do i = i + 1 end end")
print(("sandbox_bench: %d instructions per call, median of %d runs"):format(LIMIT, REPS))
print(("  %-44s %9.2f ms   (the budget's time)"):format("while true do i = i + 1 end", base * 1e3))

local scale = math.max(1, 10000000 // LIMIT) -- smaller budgets, smaller data
local hostile = {
  { "xpcall with a looping handler", "", "xpcall(function() while true do end end, function() while true do end end)" },
  { "table.insert(t, 1, 0), __len = maxint - 1",
    "local t = setmetatable({}, { __len = function() return math.maxinteger - 1 end })", "table.insert(t, 1, 0)" },
  { "table.concat('', '', 1, maxint) via string mt",
    "local mt = getmetatable('') mt.__index = string.sub mt.__len = string.len", "table.concat('', '', 1, math.maxinteger)" },
  { "string.byte(s, 1, -1) of 900 KB, looped", "local s = ('x'):rep(900000 // scale)", "while true do string.byte(s, 1, -1) end" },
  { "table.concat of 200k strings, looped", "local t = {} for i = 1, 200000 // scale do t[i] = 'ab' end",
    "while true do table.concat(t) end" },
  { "table.unpack of 500k values, looped", "local t = {} for i = 1, 500000 // scale do t[i] = i end",
    "while true do table.unpack(t) end" },
  { "utf8.char(table.unpack(t)) of 100k, looped", "local t = {} for i = 1, 100000 // scale do t[i] = 65 end",
    "while true do utf8.char(table.unpack(t)) end" },
  { "s .. s of 4 MB, looped", "local s = ('x'):rep(4000000 // scale)", "while true do local _ = s .. s end" },
  { "crdtSendToRenderer, 100k tiny messages, looped",
    "local api = require('~system/EngineApi') local b = string.pack('<I4I4', 8, 99):rep(100000 // scale)",
    "while true do api.crdtSendToRenderer({ data = b }) end" },
  { "crdtSendToRenderer, 1,000 Transform PUTs, looped", [[
    local api = require('~system/EngineApi')
    local tf = string.pack('<ffffffffffI4', 1, 2, 3, 0, 0, 0, 1, 1, 1, 1, 0)
    local function batch(ts)
      local out = {}
      for i = 1, 1000 // scale do out[i] = string.pack('<I4I4I4I4I4s4', 24 + #tf, 1, 512 + i, 1, ts, tf) end
      return table.concat(out)
    end
    local batches = { batch(1), batch(2), batch(3), batch(4) }]],
    "local ts = 0 while true do ts = ts + 1 api.crdtSendToRenderer({ data = batches[(ts - 1) % 4 + 1] }) end" },
  { "crdtSendToRenderer of nothing, looped", "local api = require('~system/EngineApi')",
    "while true do api.crdtSendToRenderer({ data = '' }) end" },
}
print("hostile scenes, ms until the call is stopped, and / the budget's time:")
for _, case in ipairs(hostile) do
  local src = ("local scale = %d\n%s\nfunction onUpdate()\n%s\nend"):format(scale, case[2], case[3])
  local dt, err = time(src)
  assert(err and err:find("limit exceeded"), case[1] .. ": not stopped: " .. tostring(err))
  print(("  %-44s %9.2f ms %6.2fx"):format(case[1], dt * 1e3, dt / base))
end

-- Honest work: the same function in the host's Lua state and in a sandbox.
local HONEST = [[
  local n = ...
  local t, s = {}, 0
  for i = 1, n do
    t[#t + 1] = ("%d"):format(i)
    s = s + #t[#t] + select("#", i, i)
    if #t > 64 then table.remove(t, 1) end
  end
  return s
]]
local n = math.max(1000, LIMIT // 100)
local hostRuns, boxRuns = {}, {}
for i = 1, REPS do
  local f = assert(load(HONEST))
  local t0 = now()
  f(n)
  hostRuns[i] = now() - t0
  local r = assert(tycho.sandbox.load(("local f = load(%q)\nfunction onUpdate(n) f(n) end"):format(HONEST),
    { quiet = true, instructionLimit = 0 }))
  assert(r:start())
  t0 = now()
  assert(r._vm:call("onUpdate", n))
  boxRuns[i] = now() - t0
  r:close()
end
local h, b = median(hostRuns), median(boxRuns)
print(("honest work (%d iterations of format, insert, remove, select):"):format(n))
print(("  host Lua %9.2f ms   sandbox %9.2f ms   sandbox / host %5.2fx"):format(h * 1e3, b * 1e3, b / h))
