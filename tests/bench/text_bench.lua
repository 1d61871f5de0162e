-- tests/bench/text_bench.lua: tycho.draw.text at HUD scale: N calls of 20 characters every
-- frame (default font, 12 px), drawn by the engine's one pass. Two figures per frame, medians
-- over the run: the calls themselves (shaping, layout, queueing: what the game's Lua pays)
-- and the whole frame (the calls, the engine's frame with its upload and draws, the swap).
-- With llvmpipe the GPU's work is CPU work too and lands in the frame figure.
-- tests/bench/text_love/main.lua does the same in LÖVE 11.4 (love.graphics.print);
-- tests/bench/text_bench.sh runs both in one go and prints the ratio.
--
-- Run: SDL_VIDEODRIVER=offscreen build/tycho run tests/bench/text_bench.lua --frames 62 --no-watch
-- Sizes: TYCHO_BENCH_N calls per frame (10000); the frames are --frames, the first two
-- (atlas fill, buffer growth) not counted. Target: no slower than LÖVE.
local tycho = require("tycho")
local engine = tycho.engine
local N = tonumber(os.getenv("TYCHO_BENCH_N")) or 10000
local now, draw = tycho.now, tycho.draw

engine:setPreset(tycho.presets.forward({ sky = { kind = "color", color = { 0, 0, 0 } }, taa = false, shadow = false }))

local strings = {}
for i = 1, N do strings[i] = ("score %05d: lvl %03d"):format(i, i % 1000) end -- 20 characters
assert(#strings[1] == 20)

local calls, frames = {}, {}
local frameStart

local function median(t)
  local s = table.move(t, 1, #t, 1, {})
  table.sort(s)
  return s[(#s + 1) // 2] or 0
end

engine:beforeFrame(function()
  local t = now()
  if frameStart then frames[#frames + 1] = (t - frameStart) * 1000 end
  frameStart = t
end)

engine:beforeRender(function()
  local t0 = now()
  for i = 1, N do
    draw.text(strings[i], (i % 40) * 20, (i // 40) % 60 * 10)
  end
  calls[#calls + 1] = (now() - t0) * 1000
end)

engine:afterFrame(function()
  -- Printed every frame past the warm-up, so whatever --frames ends the run, the last line holds.
  if #frames >= 1 then
    local c = table.move(calls, 3, #calls, 1, {})
    local f = table.move(frames, 2, #frames, 1, {})
    if #c > 0 and #f > 0 then
      print(("tycho text_bench: %d draw.text calls of 20 characters: calls %.2f ms, frame %.2f ms (median of %d frames)")
        :format(N, median(c), median(f), #f))
    end
  end
end)
