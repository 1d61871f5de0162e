-- tests/bench/crafty_bench.lua: examples/crafty's costs, each against a baseline measured
-- in the same run: generation + meshing of one chunk column (face-culled tycho.voxel.mesh
-- against meshing every face of every block), loading a world of 10,000 edits by replay,
-- saving a world of 100,000 edits, and the frame an autosave blocks (queued for the store's
-- writer thread, against the same incremental save written on the frame, and the whole-world
-- save both replaced: median, p99 and max over 200 autosaves each).
--   build/tycho run tests/bench/crafty_bench.lua --headless --frames 0 --no-watch
-- Sizes: TYCHO_BENCH_N edits in the big world (100000; the loaded world has a tenth of them),
-- TYCHO_BENCH_REPS autosaves of each kind (200).
local root = tycho.home
package.path = root .. "/examples/crafty/?.lua;" .. package.path
local World = require("world")
local Save = require("save")
local blocks = require("blocks")

local BIG = tonumber(os.getenv("TYCHO_BENCH_N")) or 100000
local RUNS = tonumber(os.getenv("TYCHO_BENCH_REPS")) or 200
local SMALL = BIG // 10
local function count(n) return (tostring(n):reverse():gsub("(%d%d%d)", "%1,"):reverse():gsub("^,", "")) end

local function median(t)
  table.sort(t)
  return t[(#t + 1) // 2]
end

local function time(fn)
  local t0 = tycho.now()
  fn()
  return (tycho.now() - t0) * 1000
end

-- Generation + meshing per column, 16 x 16 x 128, neighbours generated first (not timed).
local palette = blocks.palette()
local gen, culled, naive, faces, allFaces = {}, {}, {}, 0, 0
local mesh
for i = 1, 40 do
  local w = World.new(1000 + i)
  local n = { w:chunk(1, 0), w:chunk(-1, 0), w:chunk(0, 1), w:chunk(0, -1) }
  local g
  gen[#gen + 1] = time(function() g = w:generate(0, 0) end)
  local opts = { palette = palette, neighbors = { px = n[1], nx = n[2], pz = n[3], nz = n[4] }, mesh = mesh }
  culled[#culled + 1] = time(function() mesh, faces = tycho.voxel.mesh(g, opts) end)
  opts.allFaces, opts.mesh = true, mesh
  naive[#naive + 1] = time(function() mesh, allFaces = tycho.voxel.mesh(g, opts) end)
end
local mg, mc, mn = median(gen), median(culled), median(naive)
print(("column 16x16x128: generate %.2f ms, mesh %.2f ms (%d faces); all-faces baseline mesh %.2f ms (%d faces): %.1fx faster, %.0fx fewer faces")
  :format(mg, mc, faces, mn, allFaces, mn / mc, allFaces / faces))
print(("generation + meshing per column: %.2f ms (baseline %.2f ms, ratio %.2f)"):format(mg + mc, mg + mn, (mg + mn) / (mg + mc)))

-- Saves: a store in a temporary file.
local path = os.tmpname() .. ".sqlite"
local store = assert(Save.open(path))
local function worldWith(n)
  local rec = tycho.storage.createSavedWorld("bench " .. n, 7)
  local edits = {}
  for i = 1, n do
    edits[i] = { x = (i % 200) - 100, y = 40 + (i // 40000), z = (i // 200) % 200 - 100, type = 1 + i % 10 }
  end
  rec.edits = edits
  return rec
end

local big = worldWith(BIG)
local saves = {}
for _ = 1, 5 do saves[#saves + 1] = time(function() assert(store:save(big)) end) end
local fullSave = median(saves)
print(("full save of %s edits (storage:save, Lua table to disk): median %.1f ms (target <= 50 ms)"):format(count(BIG), fullSave))

local w10 = worldWith(SMALL)
assert(store:save(w10))
local loads, reads = {}, {}
for _ = 1, 5 do
  reads[#reads + 1] = time(function() store:load(w10.id) end)
  loads[#loads + 1] = time(function() Save.load(store, w10.id) end)
end
print(("world load of %s edits (read + replay): median %.1f ms (target <= 100 ms); the read alone %.1f ms")
  :format(count(SMALL), median(loads), median(reads)))

-- The autosave as a frame sees it: a game on a world of 100,000 edits with a 160 x 90
-- thumbnail, N new edits since the last save, then one autosave flush (Save.record +
-- storage:saveMeta with those edits). Baseline, in the same run: the whole-world autosave
-- this replaced (Save.record + storage:save of every edit).
local thumb = {}
for i = 1, 24000 do thumb[i] = string.char((i * 7919) % 251) end
local game = { record = tycho.storage.createSavedWorld("autosave bench", 7), world = World.new(7),
  inventory = require("inventory").new("survival"), player = { x = 1, y = 80, z = 1, yaw = 0, pitch = 0 },
  sunAngle = 1, screenshot = table.concat(thumb) }
for _, e in ipairs(big.edits) do game.world:set(e.x, e.y, e.z, e.type) end
assert(store:save(Save.record(game))) -- as a world loaded from a full save starts
game.world:markSaved()
local auto = Save.autosave(store, game)
local syncAuto = Save.autosave(store, game, { async = false })
local nextX = 0
local function editSome(n)
  for _ = 1, n do
    nextX = nextX + 1
    game.world:set(1000 + nextX % 500, 100 + nextX // 500 % 20, 7, 1 + nextX % 10)
  end
end
local function pct(t, p)
  table.sort(t)
  return t[math.max(1, math.ceil(#t * p))]
end
-- Queued (the writer thread commits) against written on the frame, alternately in one loop
-- so both see the same disk. Between two autosaves the queue is waited for, untimed, and a
-- frame's worth of work runs (a game autosaves every 5 s): the timed part is what the frame
-- is blocked for.
local incremental = {}
for _, n in ipairs({ 100, 1000 }) do
  local t, off = { sync = {}, async = {} }, {}
  for i = 1, 2 * RUNS do
    local a = i % 2 == 0 and auto or syncAuto
    editSome(n)
    a.note()
    local kind = a == auto and "async" or "sync"
    t[kind][#t[kind] + 1] = time(function() assert(a.flush()) end)
    local waited = time(function() assert(store:flush()) end)
    if a == auto then off[#off + 1] = waited end
    local frameEnd = tycho.now() + 0.016 -- a frame of game work before the next autosave
    while tycho.now() < frameEnd do end
  end
  incremental[n] = t
  for _, kind in ipairs({ "sync", "async" }) do
    local x = t[kind]
    print(("autosave %-5s with %d new edits on a %s-edit world, frame blocked over %d autosaves: "
      .. "median %.3f ms, p99 %.3f ms, max %.3f ms (target max <= 2 ms)")
      :format(kind, n, count(BIG), #x, median(x), pct(x, 0.99), pct(x, 1)))
  end
  print(("  the queued commit, off the frame (writer thread, fsynced): median %.2f ms, max %.2f ms")
    :format(median(off), pct(off, 1)))
end
local whole = {}
for _ = 1, 5 do whole[#whole + 1] = time(function() assert(store:save(Save.record(game))) end) end
local baseline = median(whole)
for _, n in ipairs({ 100, 1000 }) do
  local m = median(incremental[n].async)
  print(("autosave (queued) with %d new edits: median %.2f ms; whole-world baseline %.1f ms: %.0fx less")
    :format(n, m, baseline, baseline / m))
end
local folds = {}
for _ = 1, 3 do
  editSome(1000)
  auto.note()
  assert(auto.flush())
  folds[#folds + 1] = time(function() assert(store:compact(game.record.id)) end)
end
print(("compact on quit (fold the appended edits into the packed log, %d edits): median %.1f ms")
  :format(#game.world.edits, median(folds)))
store:close()
for _, s in ipairs({ "", "-wal", "-shm" }) do os.remove(path .. s) end
