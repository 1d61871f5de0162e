-- tests/bench/edit_commit_bench.lua: what committing crafty's edits before they are broadcast
-- costs (scripts/docs/server.md "Durability"): storage:saveMeta of one edit per commit (the
-- baseline: a commit per edit) against the group commit crafty does once a host tick, at
-- group sizes a busy world reaches, on a file in a temporary folder (sqlite WAL, not fsynced).
-- Then a tick of a server with many worlds and players: each world's group and each player's
-- record committed on its own (the baseline) against all of them in one storage:transaction,
-- each a savepoint, as crafty does.
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

-- A tick's saves across WORLDS worlds (one edit each) and PLAYERS players, N // WORLDS ticks:
-- microseconds of wall and CPU time per save.
local WORLDS, PLAYERS = 10, 20
local worlds = {}
for w = 1, WORLDS do
  worlds[w] = tycho.storage.createSavedWorld("tick " .. w, w)
  assert(store:save(worlds[w]))
end
local function tick(s, t)
  for w = 1, WORLDS do assert(s:saveMeta(worlds[w], { { x = t, y = 50, z = w, type = 2 } })) end
  for p = 1, PLAYERS do
    assert(s:savePlayer(worlds[p % WORLDS + 1].id, "p" .. p, { x = t, y = 60, z = p, yaw = 0, pitch = 0 }))
  end
end
local function measureTicks(together)
  local ticks = math.max(1, N // WORLDS)
  local wall, cpu = tycho.now(), os.clock()
  for t = 1, ticks do
    if together then assert(store:transaction(function(s) tick(s, t) end)) else tick(store, t) end
  end
  local n = ticks * (WORLDS + PLAYERS)
  return (tycho.now() - wall) / n * 1e6, (os.clock() - cpu) / n * 1e6
end
print(("a tick's saves: %d worlds (one edit each) and %d players"):format(WORLDS, PLAYERS))
local aloneWall, aloneCpu = measureTicks(false)
print(("commit per save (baseline)   %8.1f us wall %8.1f us CPU a save"):format(aloneWall, aloneCpu))
local tickWall, tickCpu = measureTicks(true)
print(("one transaction a tick       %8.1f us wall %8.1f us CPU a save   ratio %.1fx"):format(tickWall, tickCpu,
  aloneWall / tickWall))
store:close()
os.execute("rm -rf " .. dir)
