-- tests/bench/text_love/main.lua: LÖVE 11.4 doing what tests/bench/text_bench.lua does:
-- N love.graphics.print calls of the same 20-character strings a frame, in the same font
-- file at 12 px (the path comes in TYCHO_BENCH_FONT), the calls and the whole frame
-- (clear, calls, present) timed, medians over TYCHO_BENCH_FRAMES frames after two warm-up ones.
local N = tonumber(os.getenv("TYCHO_BENCH_N")) or 10000
local FRAMES = tonumber(os.getenv("TYCHO_BENCH_FRAMES")) or 60

local function median(t)
  table.sort(t)
  return t[math.floor((#t + 1) / 2)] or 0
end

function love.run()
  local f = assert(io.open(assert(os.getenv("TYCHO_BENCH_FONT")), "rb"))
  local data = love.filesystem.newFileData(f:read("*a"), "DejaVuSans.ttf")
  f:close()
  love.graphics.setFont(love.graphics.newFont(data, 12))
  local strings = {}
  for i = 1, N do strings[i] = ("score %05d: lvl %03d"):format(i, i % 1000) end
  local now = love.timer.getTime
  local calls, frames = {}, {}
  return function()
    love.event.pump()
    for name in love.event.poll() do
      if name == "quit" then return 0 end
    end
    local t0 = now()
    love.graphics.origin()
    love.graphics.clear(0, 0, 0, 1)
    local c0 = now()
    for i = 1, N do
      love.graphics.print(strings[i], (i % 40) * 20, math.floor(i / 40) % 60 * 10)
    end
    calls[#calls + 1] = (now() - c0) * 1000
    love.graphics.present()
    frames[#frames + 1] = (now() - t0) * 1000
    if #frames == FRAMES + 2 then
      table.remove(calls, 1); table.remove(calls, 1); table.remove(frames, 1); table.remove(frames, 1)
      print(("love text_bench: %d print calls of 20 characters: calls %.2f ms, frame %.2f ms (median of %d frames)")
        :format(N, median(calls), median(frames), #frames))
      return 0
    end
  end
end
