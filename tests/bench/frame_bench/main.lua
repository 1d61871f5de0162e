-- tests/bench/frame_bench/main.lua: the game frame_bench.sh runs: loads BENCH_GAME (a
-- main.lua, or "many" for 10k objects), switches to BENCH_PRESET when given, and prints the
-- median and 90th percentile of the frame-to-frame wall time (poll, ticks, render, swap)
-- over the frames after a warm-up.
local tycho = require("tycho")
local engine = tycho.engine
local here = debug.getinfo(1, "S").source:sub(2):match("^(.*)/[^/]*$")

local game = os.getenv("BENCH_GAME") or "many"
local preset = os.getenv("BENCH_PRESET")
local frames = tonumber(os.getenv("BENCH_FRAMES") or "60")
local WARMUP = 5

if game == "many" then
  dofile(here .. "/many.lua")
else
  dofile(game)
end
if preset and preset ~= "" then
  local opts = { sky = { kind = "color" }, taa = false }
  if preset == "deferred" then opts.ao = "ssao" end
  engine:setPreset(tycho.presets[preset](opts))
end

local times, last, seen = {}, nil, 0
engine:beforeFrame(function()
  local now = tycho.now()
  seen = seen + 1
  if last and seen > WARMUP then times[#times + 1] = (now - last) * 1e3 end
  last = now
  if seen == frames then
    table.sort(times)
    local median = times[(#times + 1) // 2]
    local p90 = times[math.max(1, math.floor(#times * 0.9))]
    print(("frame_bench: %d frames median %.3f ms p90 %.3f ms"):format(#times, median, p90))
  end
end)
