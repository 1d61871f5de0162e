-- tests/bench/edit_commit_bench.lua: what committing crafty's edits before they are broadcast
-- costs (scripts/docs/server.md "Durability"): storage:saveMeta of one edit per commit (the
-- baseline: a commit per edit) against the group commit crafty does once a host tick, at
-- group sizes a busy world reaches, on a file in a temporary folder (sqlite WAL, not fsynced).
-- Run: build/tycho run tests/bench/edit_commit_bench.lua --headless --frames 0
--   TYCHO_BENCH_N: edits per measurement (default 4000).

local N = tonumber(os.getenv("TYCHO_BENCH_N")) or 4000

local dir = os.tmpname()
os.remove(dir)
os.execute("mkdir -p " .. dir)
local store = assert(tycho.storage.open(dir .. "/worlds.sqlite"))
local world = tycho.storage.createSavedWorld("bench", "abc")
assert(store:save(world))

-- Microseconds of wall and CPU time per edit, committing N edits in groups of `group`.
local function measure(group, y)
  local wall, cpu = tycho.now(), os.clock()
  for i = 0, N // group - 1 do
    local edits = {}
    for k = 1, group do edits[k] = { x = i * group + k, y = y, z = 1, type = 3 } end
    assert(store:saveMeta(world, edits))
  end
  local n = (N // group) * group
  return (tycho.now() - wall) / n * 1e6, (os.clock() - cpu) / n * 1e6
end

print(("edit_commit_bench: %d edits a measurement, one world"):format(N))
local baseWall, baseCpu = measure(1, 40)
print(("commit per edit (baseline)   %8.1f us wall %8.1f us CPU an edit"):format(baseWall, baseCpu))
for i, group in ipairs({ 5, 20, 100 }) do
  local wall, cpu = measure(group, 40 + i)
  print(("group of %-3d edits           %8.1f us wall %8.1f us CPU an edit   ratio %.1fx"):format(group, wall, cpu,
    baseWall / wall))
end
store:close()
os.execute("rm -rf " .. dir)
