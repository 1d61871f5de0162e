-- tests/bench/particles_bench.lua: CPU milliseconds a frame for N live particles (100,000
-- by default), against LÖVE 11's love.graphics ParticleSystem doing the same in the same
-- run (tests/bench/particles_love) where `love` is installed.
--
-- Both systems: rate N / 2 per second, lifetime 2 s (so N live at the steady state),
-- directions all round in the plane, speed 50..100, gravity, four colours and two sizes
-- over life. Warmed up 150 frames, then timed FRAMES frames of 1/60 s, medians:
--   update  the simulation: tycho's C step (ParticleSystem:simulate, as the animation phase
--           runs it) against LÖVE's ps:update(dt);
--   draw    the CPU's share of drawing: tycho writing the instance data the Particles pass
--           uploads (one 32-byte instance a particle) against LÖVE's love.graphics.draw(ps)
--           (four vertices a particle, written on the CPU, and the draw's submission; see
--           particles_love/main.lua for why that system is drawn outside the window).
-- Target: tycho at least as fast on each line.
--
-- Run: build/tycho run tests/bench/particles_bench.lua --headless --frames 0 --no-watch
-- Sizes: TYCHO_BENCH_N particles (100000), TYCHO_BENCH_FRAMES timed frames (120);
-- TYCHO_BENCH_LOVE=0 skips the LÖVE peer.

local N = tonumber(os.getenv("TYCHO_BENCH_N")) or 100000
local FRAMES = tonumber(os.getenv("TYCHO_BENCH_FRAMES")) or 120
local DT = 1 / 60
local now = tycho.now

local function median(t)
  local c = table.move(t, 1, #t, 1, {})
  table.sort(c)
  return c[(#c + 1) // 2]
end

local scene = tycho.Scene.new()
local go = scene:add(tycho.GameObject.new("emitter"))
local ps = go:addComponent(tycho.ParticleSystem.new({
  maxParticles = N,
  rate = N / 2,
  lifetime = 2,
  speed = { 50, 100 },
  dimensions = 2,
  spread = 2 * math.pi,
  gravity = { 0, -100, 0 },
  colors = { { 1, 1, 0.2, 1 }, { 1, 0.5, 0.1, 1 }, { 1, 0.1, 0.1, 0.7 }, { 0.3, 0.3, 0.3, 0 } },
  sizes = { 1, 0.5 },
  seed = 1,
}))
for _ = 1, 150 do ps:simulate(DT) end

local updates, draws = {}, {}
for i = 1, FRAMES do
  local t0 = now()
  ps:simulate(DT)
  local t1 = now()
  ps.native:writeInstances()
  local t2 = now()
  updates[i], draws[i] = (t1 - t0) * 1000, (t2 - t1) * 1000
end
local tu, td = median(updates), median(draws)
print(("tycho %d particles: update %.3f ms/frame, draw %.3f ms/frame, live %d"):format(N, tu, td, ps:getCount()))

local function hasLove()
  if os.getenv("TYCHO_BENCH_LOVE") == "0" then return false end
  local ok = os.execute("command -v love >/dev/null 2>&1")
  return ok == true or ok == 0
end

if not hasLove() then
  print("love: not installed (apt-get install love), no baseline this run")
  return
end
local here = debug.getinfo(1, "S").source:sub(2):match("^(.*)/[^/]*$") or "."
-- LÖVE needs a display: SDL's offscreen driver gives it one with none attached.
local cmd = ("SDL_VIDEODRIVER=${SDL_VIDEODRIVER:-offscreen} timeout 120 love '%s/particles_love' %d %d 2>&1"):format(here, N, FRAMES)
local pipe = assert(io.popen(cmd))
local out = pipe:read("a")
pipe:close()
local lu, ld = out:match("update ([%d.]+) ms/frame, draw ([%d.]+) ms/frame")
if not lu then
  print("love: no figures (it printed: " .. out:gsub("%s+$", "") .. ")")
  return
end
print((out:match("(love %d+ particles:[^\n]*)")))
lu, ld = tonumber(lu), tonumber(ld)
print(("ratio update love/tycho %.2fx (above 1: tycho is faster)"):format(lu / math.max(tu, 1e-6)))
-- LÖVE's draw figure also holds the GL driver's work on its vertices (llvmpipe does it on
-- the CPU at submission); tycho's holds only the instance writes its pass does.
print(("ratio update+draw love/tycho %.2fx (LÖVE's draw includes the driver's vertex work)"):format(
  (lu + ld) / math.max(tu + td, 1e-6)))
