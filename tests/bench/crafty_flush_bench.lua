-- tests/bench/crafty_flush_bench.lua: Lua instructions one transform flush of crafty.lua costs
-- (what `tycho serve --max-instructions` fences), for N players in one world of which M moved,
-- with crafty.lua in this state (tests/server/crafty_local.lua) and its players cap raised to N.
-- Run: build/tycho run tests/bench/crafty_flush_bench.lua --headless --frames 0
--   TYCHO_CRAFTY=path/to/crafty.lua measures another version (the figures in scripts/docs/server.md
--   compare the one before the `players` message); TYCHO_BENCH_N (default 500).

local C = dofile(require("tycho.testing").here() .. "/../server/crafty_local.lua")

local N = tonumber(os.getenv("TYCHO_BENCH_N")) or 500
local source = os.getenv("TYCHO_CRAFTY")

local function measure(movers)
  local data = os.tmpname()
  os.remove(data)
  os.execute("mkdir -p " .. data)
  local src = io.open(source or C.SOURCE):read("a")
  local capped = src:find("local MAX_PLAYERS = 200", 1, true)
  local c = C.start({ data = data, source = source,
    patch = capped and { { "local MAX_PLAYERS = 200", "local MAX_PLAYERS = " .. N } } or nil })
  local id, spawn = c.world()
  for i = 1, N do
    c.connect(i)
    c.send(i, { t = "join_world", worldId = id })
  end
  for i = 1, movers do
    c.send(i, { t = "transform", x = spawn.x + 0.5, y = spawn.y, z = spawn.z, yaw = 0, pitch = 0 })
  end
  for i = 1, N do c.take(i) end
  local n = C.instructions(function() c.runTimers(1 / 15) end)
  local frames = 0
  for i = 1, N do frames = frames + #c.take(i) end
  c.stop()
  os.execute("rm -rf " .. data)
  return n, frames
end

print(("crafty flush, %d players in one world (%s)"):format(N, source or C.SOURCE))
for _, movers in ipairs({ N, N // 10, 1 }) do
  local n, frames = measure(movers)
  print(("  %4d moved: %9d Lua instructions per flush (%.1f per mover), %6d frames sent"):format(
    movers, n, n / movers, frames))
end
