-- tests/bench/dispatch_bench.lua: what one tick costs per Lua component, against a plain
-- Lua loop calling the same method on the same instances in the same process.
-- Run: build/tycho run tests/bench/dispatch_bench.lua --headless --frames 0
-- Targets: <= 100 ns per component, <= 1.5x the plain loop.

local N = tonumber(os.getenv("TYCHO_BENCH_N")) or 10000
local REPS = tonumber(os.getenv("TYCHO_BENCH_REPS")) or 301

-- TYCHO_BENCH_BODY=empty measures a method with no body at all (the worst case for the
-- ratio: nothing but call overhead on both sides).
local empty = os.getenv("TYCHO_BENCH_BODY") == "empty"
local Trivial = tycho.component("BenchTrivial")
if empty then
  function Trivial:update(dt) end
else
  function Trivial:update(dt) self.n = self.n + dt end
end

local scene = tycho.Scene.new()
local instances = {}
for i = 1, N do
  local go = tycho.GameObject.new("o" .. i)
  local c = go:addComponent(Trivial)
  c.n = 0
  instances[i] = c
  scene:add(go)
end

local now = tycho.now
local function median(t)
  table.sort(t)
  return t[(#t + 1) // 2]
end

local function plainLoop(dt)
  for i = 1, #instances do instances[i]:update(dt) end
end

-- Interleave the two so machine noise hits both alike.
local tick, plain = {}, {}
local dt = 1 / 60
for _ = 1, 20 do scene:update(dt); plainLoop(dt) end -- warm-up
for r = 1, REPS do
  local t0 = now()
  scene:update(dt)
  local t1 = now()
  plainLoop(dt)
  local t2 = now()
  tick[r], plain[r] = t1 - t0, t2 - t1
end

local tickNs = median(tick) / N * 1e9
local plainNs = median(plain) / N * 1e9
assert(empty or instances[1].n > 0 and math.abs(instances[1].n - instances[N].n) < 1e-9, "every component ran")
print(("Lua dispatch, %d components with %s update, median of %d ticks"):format(
  N, empty and "an empty" or "a trivial (self.n = self.n + dt)", REPS))
print(("  scene:update      %8.1f ns/component  (%.3f ms/tick)"):format(tickNs, median(tick) * 1e3))
print(("  plain Lua loop    %8.1f ns/component  (%.3f ms)"):format(plainNs, median(plain) * 1e3))
print(("  ratio tick/plain  %8.2fx   targets: <= 1.5x, <= 100 ns/component"):format(tickNs / plainNs))
