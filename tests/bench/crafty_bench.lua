-- tests/bench/crafty_bench.lua: examples/crafty's costs, each against a baseline measured
-- in the same run: generation + meshing of one chunk column (face-culled tycho.voxel.mesh
-- against meshing every face of every block), loading a world of 10,000 edits by replay,
-- and saving a world of 100,000 edits.
--   build/tycho run tests/bench/crafty_bench.lua --headless --frames 0
local root = tycho.home
package.path = root .. "/examples/crafty/?.lua;" .. package.path
local World = require("world")
local Save = require("save")
local blocks = require("blocks")

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

local big = worldWith(100000)
local saves = {}
for _ = 1, 5 do saves[#saves + 1] = time(function() assert(store:save(big)) end) end
print(("save of 100,000 edits: median %.1f ms (target <= 50 ms); the whole save runs inside one call on the frame")
  :format(median(saves)))

local w10 = worldWith(10000)
assert(store:save(w10))
local loads, reads = {}, {}
for _ = 1, 5 do
  reads[#reads + 1] = time(function() store:load(w10.id) end)
  loads[#loads + 1] = time(function() Save.load(store, w10.id) end)
end
print(("world load of 10,000 edits (read + replay): median %.1f ms (target <= 100 ms); the read alone %.1f ms")
  :format(median(loads), median(reads)))
store:close()
for _, s in ipairs({ "", "-wal", "-shm" }) do os.remove(path .. s) end
