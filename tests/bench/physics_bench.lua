-- tests/bench/physics_bench.lua: what physics costs a tick, and how much of it is tycho's.
--
-- 1. For each size N: N dynamic boxes (2D: Box2D, 3D: Bullet) dropped in a loose grid onto
--    a static ground, each with a component that hears onCollisionEnter/Exit: per tick,
--    the whole scene:update while they fall, land, pile and settle (reading back what the
--    game moved, the step, the write-back to the GameObjects, contacts reaching Lua) against
--    the backend's step call alone, timed by itself in the same tick (world.stepTime). The
--    difference is the engine's overhead, given as a share of the step (target: < 25%).
-- 2. 10,000 raycasts a frame into the settled pile, from above, 2D and 3D: one
--    world:raycast call a ray, then all of them in one world:raycastBatch call.
-- 3. The write-back alone: N boxes in free fall (no ground, every body moves every tick),
--    once with every object's position and rotation tables held by Lua (so C writes the
--    tables and reads them back next tick) and once with none (C writes its transforms
--    only). The difference per object is what keeping Lua's tables in step costs.
--
-- The figures are medians of per-tick times; the machine's other load shows in the means.
-- The overhead is given twice: over the 300 ticks' totals (tick - step) / step, and as the
-- median of each tick's own (tick - step) over the median step, which a busy machine
-- (another process taking the core in the middle of a tick) moves much less; and by thirds
-- of the run (falling, landing, piled), which shows why the two part at large sizes.
--
-- Run: build/tycho run tests/bench/physics_bench.lua --headless --frames 0
-- Sizes: TYCHO_BENCH_SIZES box counts (1000,10000), TYCHO_BENCH_REPS ticks per figure (300),
-- TYCHO_BENCH_RAYS rays a frame (10000).

local SIZES = {}
for n in (os.getenv("TYCHO_BENCH_SIZES") or "1000,10000"):gmatch("%d+") do SIZES[#SIZES + 1] = tonumber(n) end
local REPS = tonumber(os.getenv("TYCHO_BENCH_REPS")) or 300
local RAYS = tonumber(os.getenv("TYCHO_BENCH_RAYS")) or 10000
local DT = 1 / 60
local now = tycho.now

local function median(t)
  local c = table.move(t, 1, #t, 1, {})
  table.sort(c)
  return c[(#c + 1) // 2]
end

local function mean(t)
  local sum = 0
  for _, v in ipairs(t) do sum = sum + v end
  return sum / #t
end

-- Counts contacts so that every enter and exit reaches a Lua hook.
local Counter = tycho.component("physics_bench.Counter")
local contacts = 0
function Counter:onCollisionEnter() contacts = contacts + 1 end
function Counter:onCollisionExit() contacts = contacts + 1 end

-- Destroys a bench scene's objects (swept at its next update): 10,000 boxes a figure would
-- use up the entity numbers otherwise.
local function dispose(scene)
  for _, go in ipairs(scene:objects()) do go:destroy() end
  scene:update(DT)
  collectgarbage()
end

local function pile(n, dims, ground, holdTables)
  local cols = math.max(1, math.floor(math.sqrt(n)))
  local scene = tycho.Scene.new()
  local RB = dims == 2 and tycho.RigidBody2D or tycho.RigidBody
  local Box = dims == 2 and tycho.BoxCollider2D or tycho.BoxCollider
  if ground then
    local g = tycho.GameObject.new { name = "ground", position = { 0, -0.5, 0 } }
    g:addComponent(Box, dims == 2 and { size = { x = cols * 2 + 20, y = 1 } }
      or { size = { x = cols * 2 + 20, y = 1, z = cols * 2 + 20 } })
    scene:add(g)
  end
  for i = 0, n - 1 do
    local col, row = i % cols, i // cols
    local x = (col - cols / 2) * 1.5 + (row % 2) * 0.25
    local z = dims == 3 and ((row % 4) - 1.5) * 1.5 or 0
    local go = tycho.GameObject.new { name = "box", position = { x, 1 + row * 1.3, z } }
    go:addComponent(RB)
    go:addComponent(Box)
    if ground then go:addComponent(Counter) end
    if holdTables then
      local _ = go.position, go.rotation
    end
    scene:add(go)
  end
  return scene, cols
end

-- Ticks scene reps times: per-tick whole-update times and the backend's step times.
local function timeTicks(scene, world, reps)
  local ticks, steps = {}, {}
  for i = 1, reps do
    local t0 = now()
    scene:update(DT)
    ticks[i] = now() - t0
    steps[i] = world.stepTime
  end
  return ticks, steps
end

-- RAYS rays straight down from above the pile, spread over its width: ms for all of them.
local function timeRays(world, dims, cols)
  local width = cols * 1.5
  local hits, best = 0, math.huge
  for _ = 1, 5 do
    hits = 0
    local t0 = now()
    for i = 1, RAYS do
      local x = ((i * 0.618034) % 1 - 0.5) * width
      local origin = dims == 2 and { x, 200 } or { x, 200, ((i * 0.414214) % 1 - 0.5) * 6 }
      local dir = dims == 2 and { 0, -1 } or { 0, -1, 0 }
      if world:raycast(origin, dir, 400) then hits = hits + 1 end
    end
    best = math.min(best, now() - t0)
  end
  return best, hits
end

-- The same rays through one world:raycastBatch call a frame, the rays array made once and the
-- results table reused, as a game would keep both: ms for all of them.
local function timeRayBatch(world, dims, cols)
  local width, rays = cols * 1.5, {}
  for i = 1, RAYS do
    local x = ((i * 0.618034) % 1 - 0.5) * width
    if dims == 2 then
      table.move({ x, 200, 0, -1, 400 }, 1, 5, #rays + 1, rays)
    else
      table.move({ x, 200, ((i * 0.414214) % 1 - 0.5) * 6, 0, -1, 0, 400 }, 1, 7, #rays + 1, rays)
    end
  end
  local out, hits, best = {}, 0, math.huge
  for _ = 1, 5 do
    local t0 = now()
    out, hits = world:raycastBatch(rays, out)
    best = math.min(best, now() - t0)
  end
  return best, hits
end

print(("physics_bench: sizes %s, %d ticks per figure, %d rays a frame"):format(table.concat(SIZES, ","), REPS, RAYS))

for _, n in ipairs(SIZES) do
  for _, dims in ipairs({ 3, 2 }) do
    local scene, cols = pile(n, dims, true, true)
    local world = dims == 2 and scene.physics2d or scene.physics
    contacts = 0
    scene:update(DT) -- the bodies are built in the first tick: not timed
    local ticks, steps = timeTicks(scene, world, REPS)
    local mt, ms = median(ticks), median(steps)
    local overhead = (mean(ticks) - mean(steps)) / mean(steps)
    local rest = {}
    for i = 1, #ticks do rest[i] = ticks[i] - steps[i] end
    print(("%dD %6d boxes onto ground  tick %8.3f ms median (%8.3f mean), %s step %8.3f ms median (%8.3f mean), overhead %5.1f%% of the step (%5.1f%% from medians), %d contacts to Lua")
      :format(dims, n, mt * 1e3, mean(ticks) * 1e3, dims == 2 and "Box2D " or "Bullet", ms * 1e3, mean(steps) * 1e3,
        overhead * 100, median(rest) / ms * 100, contacts))
    -- The same by thirds of the run (falling, landing, piled): where the two overhead
    -- figures part, the step's length changes over the run and the per-body work does not.
    local thirds = {}
    for k = 0, 2 do
      local from, to = k * #ticks // 3 + 1, (k + 1) * #ticks // 3
      local tsum, ssum = 0, 0
      for i = from, to do tsum, ssum = tsum + ticks[i], ssum + steps[i] end
      thirds[#thirds + 1] = ("step %.3f ms, overhead %.3f ms = %.1f%%"):format(ssum / (to - from + 1) * 1e3,
        (tsum - ssum) / (to - from + 1) * 1e3, (tsum - ssum) / ssum * 100)
    end
    print(("%dD %6d boxes by thirds        %s"):format(dims, n, table.concat(thirds, " | ")))
    local rt, hits = timeRays(world, dims, cols)
    print(("%dD %6d boxes raycasts      %d rays %8.3f ms a frame (%.2f us/ray, %d hits)")
      :format(dims, n, RAYS, rt * 1e3, rt / RAYS * 1e6, hits))
    local bt, bhits = timeRayBatch(world, dims, cols)
    print(("%dD %6d boxes raycastBatch  %d rays %8.3f ms a frame (%.2f us/ray, %d hits), %.1fx the single calls")
      :format(dims, n, RAYS, bt * 1e3, bt / RAYS * 1e6, bhits, rt / bt))
    dispose(scene)
  end
end

-- Three rounds, alternating, each figure the best round's median: the machine is shared,
-- and the two figures are compared with each other.
local N = SIZES[1]
local results = {}
for _ = 1, 3 do
  for _, hold in ipairs({ true, false }) do
    local s = pile(N, 2, false, hold)
    s:update(DT)
    local m = median((timeTicks(s, s.physics2d, REPS)))
    results[hold] = math.min(results[hold] or math.huge, m)
    dispose(s)
  end
end
print(("2D %6d free fall, tables held  %8.3f ms/tick (%.0f ns/body)"):format(N, results[true] * 1e3, results[true] / N * 1e9))
print(("2D %6d free fall, no tables    %8.3f ms/tick (%.0f ns/body)"):format(N, results[false] * 1e3, results[false] / N * 1e9))
print(("write-back to Lua tables  %8.1f ns/object a tick"):format((results[true] - results[false]) / N * 1e9))
