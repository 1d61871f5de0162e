-- tests/bench/frame_bench/main.lua: the game frame_bench.sh runs: loads BENCH_GAME (a
-- main.lua, or "many" for 10k objects), switches to BENCH_PRESET when given, and prints the
-- median and 90th percentile of the frame-to-frame wall time (poll, ticks, render, swap)
-- over the frames after a warm-up. BENCH_PASSES=1 also times each pass and prints its
-- median cpu ms (recording and submitting it) and gpu ms (the GPU's time for it, from timer
-- queries read frames later; "-" until one is read or without timer queries). Nothing waits
-- for the GPU, so the frame time stays comparable.
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
  engine:addFeature(tycho.ui.feature()) -- the game's own text, as it draws it
end

local passes = os.getenv("BENCH_PASSES") == "1"
if passes then tycho.stats.timePasses(true) end
local perPass, perPassGpu, order = {}, {}, {} -- name -> ms of each frame; names in first-seen order

local function median(list)
  table.sort(list)
  return list[(#list + 1) // 2]
end

local times, last, seen = {}, nil, 0
engine:beforeFrame(function()
  local now = tycho.now()
  seen = seen + 1
  if last and seen > WARMUP then times[#times + 1] = (now - last) * 1e3 end
  last = now
  if passes and seen > WARMUP then
    for _, p in ipairs(tycho.stats.passTimes()) do
      local list, gpu = perPass[p.name], perPassGpu[p.name]
      if not list then
        list, gpu = {}, {}
        perPass[p.name], perPassGpu[p.name], order[#order + 1] = list, gpu, p.name
      end
      -- a pass declared twice (Bloom.down) adds up within the frame
      if list.frame == seen then list[#list] = list[#list] + (p.ms or 0)
      else list[#list + 1], list.frame = p.ms or 0, seen end
      if p.gpuMs then
        if gpu.frame == seen then gpu[#gpu] = gpu[#gpu] + p.gpuMs
        else gpu[#gpu + 1], gpu.frame = p.gpuMs, seen end
      end
    end
  end
  if seen == frames then
    local p90 = (function() table.sort(times) return times[math.max(1, math.floor(#times * 0.9))] end)()
    print(("frame_bench: %d frames median %.3f ms p90 %.3f ms"):format(#times, median(times), p90))
    local total, gpuTotal = 0, nil
    if #order > 0 then
      print(("frame_bench: pass %-20s %8s %8s   (cpu: recording+submission; gpu: timer queries)"):format(
        "", "cpu ms", "gpu ms"))
    end
    local function gpuText(ms) return ms and ("%8.2f"):format(ms) or ("%8s"):format("-") end
    for _, name in ipairs(order) do
      local ms = median(perPass[name])
      local gpu = #perPassGpu[name] > 0 and median(perPassGpu[name]) or nil
      total = total + ms
      if gpu then gpuTotal = (gpuTotal or 0) + gpu end
      print(("frame_bench: pass %-20s %8.2f %s"):format(name, ms, gpuText(gpu)))
    end
    if #order > 0 then print(("frame_bench: pass %-20s %8.2f %s"):format("(sum)", total, gpuText(gpuTotal))) end
    local st = tycho.stats.render()
    print(("frame_bench: instances drawn %d (all passes)"):format(st.instances))
    if st.shadowCasters and st.shadowCasters > 0 then
      print(("frame_bench: shadow casters %d, per cascade %s"):format(st.shadowCasters,
        #st.shadowCascades > 0 and table.concat(st.shadowCascades, "/") or "(not split)"))
    end
  end
end)
