-- tests/bench/bunnymark.lua: the hot path a game walks every tick, written the natural way.
--
-- A Bunny component reads self.gameObject.position, adds its velocity (pixels per tick),
-- bounces at the edges and writes the position back; N objects, scene:update(1/60). The
-- baseline runs the very same update function over plain Lua tables ({gameObject =
-- {position = {x=, y=, z=}}}) in a plain loop, interleaved tick for tick in the same
-- process. A rendered frame also reads every position table back once (the transforms'
-- sync): that is timed on its own, beside the tick. Then one figure per access path, each
-- beside the same access on a plain table.
--
-- Run: build/tycho run tests/bench/bunnymark.lua --headless --frames 0
-- Sizes: TYCHO_BENCH_N objects (10000), TYCHO_BENCH_REPS ticks (301).
-- Targets: tick <= 1.5x the plain loop (never worse than 2.0x), <= 120 ns per object,
-- no allocation per access in steady state.

local N = tonumber(os.getenv("TYCHO_BENCH_N")) or 10000
local REPS = tonumber(os.getenv("TYCHO_BENCH_REPS")) or 301
local W, H = 800, 600
local now = tycho.now

local function median(t)
  table.sort(t)
  return t[(#t + 1) // 2]
end

-- The one update both sides run.
local function update(self)
  local p = self.gameObject.position
  local x, y = p.x + self.vx, p.y + self.vy
  if x < 0 or x > W then self.vx = -self.vx end
  if y < 0 or y > H then self.vy = -self.vy end
  p.x, p.y = x, y
end

local Bunny = tycho.component("BenchBunny")
function Bunny:init(vx, vy) self.vx, self.vy = vx, vy end
Bunny.update = update

local PlainBunny = { update = update }
PlainBunny.__index = PlainBunny

local rng = 12345
local function random() -- the same sequence for both sides, independent of math.random
  rng = (rng * 1103515245 + 12345) % 2147483648
  return rng / 2147483648
end

-- Each side is made in one loop of its own, so neither gets its tables interleaved with
-- the other's in memory.
local starts = {}
for i = 1, N do starts[i] = { random() * W, random() * H, (random() - 0.5) * 10, (random() - 0.5) * 10 } end
local scene = tycho.Scene.new()
local objects, plain = {}, {}
for i = 1, N do
  local x, y, vx, vy = table.unpack(starts[i])
  local go = tycho.GameObject.new{ name = "bunny", position = { x = x, y = y, z = 0 } }
  go:addComponent(Bunny, vx, vy)
  local _ = go.position -- made here, as a game's first frame would
  scene:add(go)
  objects[i] = go
end
for i = 1, N do
  local x, y, vx, vy = table.unpack(starts[i])
  plain[i] = setmetatable({ gameObject = { position = { x = x, y = y, z = 0 } }, vx = vx, vy = vy }, PlainBunny)
end
starts = nil

local function plainLoop(dt)
  for i = 1, #plain do plain[i]:update(dt) end
end

local dt = 1 / 60
local sync = tycho.syncTransforms
for _ = 1, 20 do scene:update(dt); sync(); plainLoop(dt) end -- warm-up: tables exist now
local tick, readback, base = {}, {}, {}
for r = 1, REPS do tick[r], readback[r], base[r] = 0, 0, 0 end -- sized before counting
collectgarbage("collect")
collectgarbage("stop") -- so that the heap's growth is what the ticks allocated
local kb0, kbHalf = collectgarbage("count"), nil
for r = 1, REPS do
  local t0 = now()
  scene:update(dt)
  local t1 = now()
  sync()
  local t2 = now()
  plainLoop(dt)
  local t3 = now()
  tick[r], readback[r], base[r] = t1 - t0, t2 - t1, t3 - t2
  if r == REPS // 2 then kbHalf = collectgarbage("count") end
end
local kbEnd = collectgarbage("count")
local steadyBytes = (kbEnd - (kbHalf or kb0)) * 1024
collectgarbage("restart")

-- Both sides moved every bunny the same way.
for i = 1, N, math.max(1, N // 97) do
  local a, b = objects[i].position, plain[i].gameObject.position
  assert(math.abs(a.x - b.x) < 1e-2 and math.abs(a.y - b.y) < 1e-2,
    ("bunny %d: engine (%g, %g) vs plain (%g, %g)"):format(i, a.x, a.y, b.x, b.y))
end

local tickNs, baseNs = median(tick) / N * 1e9, median(base) / N * 1e9
local syncNs = median(readback) / N * 1e9
print(("bunnymark: %d objects, median of %d ticks"):format(N, REPS))
print(("  scene:update        %7.1f ns/object  (%.3f ms/tick)"):format(tickNs, median(tick) * 1e3))
print(("  plain Lua loop      %7.1f ns/object  (%.3f ms)"):format(baseNs, median(base) * 1e3))
print(("  ratio               %7.2fx   targets: <= 1.5x (never over 2.0x), <= 120 ns/object"):format(tickNs / baseNs))
print(("  frame sync          %7.1f ns/object  (%.3f ms: position tables read back, matrices rebuilt)"):format(
  syncNs, median(readback) * 1e3))
print(("  tick + sync ratio   %7.2fx   (one tick per rendered frame)"):format((tickNs + syncNs) / baseNs))
print(("  Lua heap growth     %7.0f bytes over the last %d ticks and syncs (%.0f over all %d), collector stopped"):format(
  steadyBytes, REPS - REPS // 2, (kbEnd - kb0) * 1024, REPS))

-- Micro figures: one access path per row, the same access on a plain table beside it.
local M = math.max(1000, N * 10)
local go = objects[1]
local plainGo = plain[1].gameObject
local comp = go:getComponent(Bunny)
local plainComp = plain[1]
-- The median ns per access of 9 runs, and the bytes the last run allocated.
local function time(fn, arg)
  local best, bytes = {}, 0
  for r = 1, 9 do
    collectgarbage("collect")
    collectgarbage("stop")
    local kb, t0 = collectgarbage("count"), now()
    fn(arg, M)
    best[r] = (now() - t0) / M * 1e9
    bytes = (collectgarbage("count") - kb) * 1024
    collectgarbage("restart")
  end
  return median(best), bytes
end

local rows = {
  { "go.position", function(o, m) local v; for _ = 1, m do v = o.position end; return v end },
  { "p.x read", function(o, m) local p, s = o.position, 0; for _ = 1, m do s = s + p.x end; return s end },
  { "p.x = v", function(o, m) local p = o.position; for i = 1, m do p.x = i end end },
  { "go.position:set", function(o, m) for i = 1, m do o.position:set(i, 2, 3) end end, true },
  { "go.worldPosition.x", function(o, m) local s = 0; for _ = 1, m do s = s + o.worldPosition.x end; return s end },
  { "go:getWorldPosition(v)", function(o, m)
    local v, s = tycho.vec3(), 0
    for _ = 1, m do s = s + o:getWorldPosition(v).x end
    return s
  end },
  { "go.name", function(o, m) local v; for _ = 1, m do v = o.name end; return v end },
}
print(("access paths, ns per access (median of 9 runs of %d), plain table beside; bytes allocated by a run:"):format(M))
for _, row in ipairs(rows) do
  local name, fn, needsSet = row[1], row[2], row[3]
  local plainTarget = plainGo
  if needsSet then
    plainTarget = { position = setmetatable({ x = 0, y = 0, z = 0 }, {
      __index = { set = function(p, x, y, z) p.x, p.y, p.z = x, y, z; return p end } }) }
  elseif name == "go.worldPosition.x" then
    plainTarget = { worldPosition = { x = 1 } }
  elseif name == "go:getWorldPosition(v)" then
    plainTarget = { wp = { x = 1, y = 2, z = 3 },
      getWorldPosition = function(self, out) out.x, out.y, out.z = self.wp.x, self.wp.y, self.wp.z; return out end }
  elseif name == "go.name" then
    plainTarget = { name = "bunny" }
  end
  local a, bytes = time(fn, go)
  local b = time(fn, plainTarget)
  print(("  %-24s %7.1f ns   plain %5.1f ns   %5.1fx   %3.0f B"):format(name, a, b, a / b, bytes))
end
local compA, compBytes = time(function(c, m) local v; for _ = 1, m do v = c.gameObject end; return v end, comp)
local compB = time(function(c, m) local v; for _ = 1, m do v = c.gameObject end; return v end, plainComp)
print(("  %-24s %7.1f ns   plain %5.1f ns   %5.1fx   %3.0f B"):format("self.gameObject", compA, compB, compA / compB, compBytes))
local getA, getBytes = time(function(o, m) local v; for _ = 1, m do v = o:getComponent(Bunny) end; return v end, go)
local plainGet = { comps = { comp }, getComponent = function(self, C)
  for _, c in ipairs(self.comps) do if getmetatable(c) == C then return c end end
end }
local getB = time(function(o, m) local v; for _ = 1, m do v = o:getComponent(Bunny) end; return v end, plainGet)
print(("  %-24s %7.1f ns   plain %5.1f ns   %5.1fx   %3.0f B"):format("go:getComponent(C)", getA, getB, getA / getB, getBytes))
