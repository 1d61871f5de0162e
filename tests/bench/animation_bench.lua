-- tests/bench/animation_bench.lua: what SpriteAnimation and tycho.tween cost a tick, which
-- decides whether they stay in Lua.
--
-- 1. N objects, each with a Sprite and a SpriteAnimation looping four frames at 12 fps (a
--    new frame every five ticks or so, so a fifth of them write their Sprite's rect each
--    tick), against the same N objects with a bare component whose animation hook only adds
--    dt to a field: the phase dispatch every Lua component pays. The difference is the
--    animation's own cost per object.
-- 2. N tweens moving N positions (quadInOut), against a plain Lua loop that writes the
--    same positions from the same formula.
-- Medians of per-tick times over REPS ticks of scene:update(1/60).
--
-- Run: build/tycho run tests/bench/animation_bench.lua --headless --frames 0 --no-watch
-- Sizes: TYCHO_BENCH_N objects (5000), TYCHO_BENCH_REPS ticks (120).
-- Target: a few µs at most an animated object and a tween, so a frame's 16 ms holds
-- thousands of each; past that, the per-object work would move to C.

local N = tonumber(os.getenv("TYCHO_BENCH_N")) or 5000
local REPS = tonumber(os.getenv("TYCHO_BENCH_REPS")) or 120
local DT = 1 / 60
local now = tycho.now

local function median(t)
  table.sort(t)
  return t[(#t + 1) // 2]
end

local function perTick(scene, before)
  local times = {}
  for i = 1, REPS do
    if before then before(i) end
    local t0 = now()
    scene:update(DT)
    times[i] = now() - t0
  end
  return median(times)
end

local Bare = tycho.component("animation_bench.Bare")
function Bare:animation(dt) self.t = (self.t or 0) + dt end

local sheet = tycho.spriteSheet(tycho.texture.new(64, 16, string.rep("\255\255\255\255", 64 * 16), "bench"), 16, 16)

local function sprites(animated)
  local scene = tycho.Scene.new()
  for i = 1, N do
    local go = scene:add(tycho.GameObject.new("s" .. i))
    go:addComponent(tycho.Sprite.new({ texture = sheet.texture }))
    if animated then
      local anim = go:addComponent(tycho.SpriteAnimation.new({ sheet = sheet, clips = { walk = { fps = 12 } }, clip = "walk" }))
      anim:advance((i % 5) / 60) -- staggered, so frame changes spread over the ticks
    else
      go:addComponent(Bare)
    end
  end
  return scene
end

local base = perTick(sprites(false))
local anim = perTick(sprites(true))
print(("animation_bench: %d objects, %d ticks"):format(N, REPS))
print(("SpriteAnimation %.3f ms/tick (%.0f ns/object), bare animation hook %.3f ms/tick, ratio %.2fx"):format(
  anim * 1e3, anim * 1e9 / N, base * 1e3, anim / base))

-- Tweens against the same writes from a plain loop.
local scene = tycho.Scene.new()
local objects = {}
for i = 1, N do objects[i] = scene:add(tycho.GameObject.new("t" .. i)) end
local ease = tycho.easing.quadInOut
local plain = {}
for i = 1, REPS do
  local t0 = now()
  local k = ease((i % 60) / 60)
  for j = 1, N do
    local p = objects[j].position
    p.x = 0 + (10 - 0) * k
  end
  plain[i] = now() - t0
end
local plainTick = median(plain)
local tweenTick = perTick(scene, function(i)
  if i % 60 == 1 then
    for j = 1, N do tycho.tween(objects[j].position, 1, { x = 10 }, "quadInOut", { scene = scene }) end
  end
end)
print(("tween %.3f ms/tick (%.0f ns/tween), plain loop %.3f ms/tick, ratio %.2fx"):format(
  tweenTick * 1e3, tweenTick * 1e9 / N, plainTick * 1e3, tweenTick / plainTick))
