-- tests/bench/particles_love/main.lua: LÖVE 11's love.graphics ParticleSystem doing what
-- particles_bench.lua has tycho do: N live particles (rate N / 2 per second, lifetime 2 s,
-- random directions, speed 50..100, gravity, four colours and two sizes over life), warmed
-- up to the steady state, then timed for FRAMES frames of 1/60 s: ps:update(dt) (the
-- simulation) and love.graphics.draw(ps) (LÖVE writes each particle's four vertices on the
-- CPU there, then submits the draw). The system is drawn far outside the window, so the
-- software rasterizer the benchmark machines have (llvmpipe) clips every square instead
-- of filling pixels: the draw figure is the CPU's vertex work and the submission. Prints
-- "love N particles: update X ms/frame, draw Y ms/frame" (medians). Arguments: N FRAMES.
local N, FRAMES = 100000, 120

-- An error would otherwise open LÖVE's error screen and wait there for ever.
function love.errorhandler(msg)
  io.stderr:write("particles_love: ", tostring(msg), "\n", debug.traceback(), "\n")
  os.exit(1)
end

local function median(t)
  table.sort(t)
  return t[math.floor((#t + 1) / 2)]
end

-- LÖVE runs LuaJIT (Lua 5.1): no integer division operator here.
function love.load(args)
  N = tonumber(args[1]) or N
  FRAMES = tonumber(args[2]) or FRAMES
  local data = love.image.newImageData(8, 8)
  data:mapPixel(function() return 1, 1, 1, 1 end)
  local ps = love.graphics.newParticleSystem(love.graphics.newImage(data), N)
  ps:setEmissionRate(N / 2)
  ps:setParticleLifetime(2)
  ps:setSpeed(50, 100)
  ps:setSpread(2 * math.pi)
  ps:setLinearAcceleration(0, 100)
  ps:setColors(1, 1, 0.2, 1, 1, 0.5, 0.1, 1, 1, 0.1, 0.1, 0.7, 0.3, 0.3, 0.3, 0)
  ps:setSizes(1, 0.5)
  local dt = 1 / 60
  for _ = 1, 150 do ps:update(dt) end
  local now = love.timer.getTime
  local updates, draws = {}, {}
  for i = 1, FRAMES do
    local t0 = now()
    ps:update(dt)
    local t1 = now()
    love.graphics.clear()
    love.graphics.draw(ps, -1e6, -1e6)
    local t2 = now()
    love.graphics.present()
    updates[i], draws[i] = (t1 - t0) * 1000, (t2 - t1) * 1000
  end
  io.write(("love %d particles: update %.3f ms/frame, draw %.3f ms/frame, live %d\n"):format(
    N, median(updates), median(draws), ps:getCount()))
  io.flush()
  love.event.quit()
end
