-- tests/bench/reload_bench.lua: hot-reload latency, from a file's write to the first tick
-- running its new code, for a game script (`tycho run --headless`), a shader (`tycho run`
-- offscreen; skipped without GL) and a server module (`tycho serve`): median and p95 over
-- SAVES saves each. The baseline, measured in the same run, is the same game reloading
-- through a 500 ms polling watcher (what lurker does for LÖVE) instead of inotify.
-- Run: build/tycho run tests/bench/reload_bench.lua --headless --frames 0 --no-watch
-- Sizes: TYCHO_BENCH_SAVES saves per row (100), TYCHO_BENCH_BASELINE_SAVES for the polling
-- baseline (40).
-- Target: p95 <= 50 ms.

local tycho = require("tycho")
local SAVES = tonumber(os.getenv("TYCHO_BENCH_SAVES")) or 100
local BASE_SAVES = tonumber(os.getenv("TYCHO_BENCH_BASELINE_SAVES")) or 40
local H = dofile(tycho.home .. "/tests/reload/harness.lua")

-- Every version prints, on its first tick, "v=K t=NOW" (tycho.now is CLOCK_MONOTONIC, one
-- clock for every process on the machine).
local MODULE = [[
local M = {}
local Probe = tycho.component("Probe")
function Probe:update()
  if not Probe.seen%d then Probe.seen%d = true print("v=%d t=" .. string.format("%%.6f", tycho.now())) io.stdout:flush() end
end
return M
]]

local GAME = [[
require("probe")
tycho.engine.scene:add(tycho.GameObject.new("probe")):addComponent(tycho.component("Probe"))
%s
]]

-- The baseline: poll the file every 500 ms, re-run it when its bytes changed.
local POLLER = [[
local path, last, nextPoll = "%s/probe.lua", nil, 0
tycho.engine:beforeFrame(function()
  local now = tycho.now()
  if now < nextPoll then return end
  nextPoll = now + 0.5
  local f = io.open(path) if not f then return end
  local text = f:read("a") f:close()
  if last and text ~= last then local chunk = load(text, "@" .. path) if chunk then pcall(chunk) end end
  last = text
end)
]]

local SERVER = [[
local M = { state = {} }
function M.onStart(host) host:every(0.001, function() M.tick() end) end
function M.tick()
  if not M.state[%d] then M.state[%d] = true io.stderr:write("v=%d t=", string.format("%%.6f", tycho.now()), "\n") io.stderr:flush() end
end
return M
]]

local SHADER = [[
#version 450
uniform sampler2D scene;
layout(location = 0) out vec4 color;
void main() { color = vec4(%f, 0.5, 0.5, 1.0) + 0.0 * texelFetch(scene, ivec2(gl_FragCoord.xy), 0); }
]]

local function stats(samples)
  table.sort(samples)
  local function at(q) return samples[math.max(1, math.ceil(q * #samples))] end
  return at(0.5) * 1000, at(0.95) * 1000
end

-- Saves version k of a file n times; returns the latencies (seconds).
local function measure(p, n, write, pattern)
  local samples = {}
  for k = 1, n do
    local from = #H.output(p)
    local t0 = tycho.now()
    write(k)
    local e = H.waitFor(p, pattern(k), from + 1, 10)
    local out = H.output(p)
    local t = tonumber(out:sub(1, e):match("t=([%d.]+)[^\n]*$"))
    samples[#samples + 1] = t - t0
    H.sleep(0.03 + (k % 7) * 0.003) -- saves land at different points of the frame
  end
  return samples
end

local function game(kind, env, extraMain, ...)
  local dir = H.scratch()
  H.write(dir .. "/probe.lua", MODULE:format(0, 0, 0))
  H.write(dir .. "/main.lua", GAME:format(extraMain and extraMain:format(dir) or ""))
  local p = H.spawn(env, "run", dir, ...)
  H.waitFor(p, "v=0 t=", 1, 10)
  return p, dir
end

local rows = {}
local function row(name, samples)
  local med, p95 = stats(samples)
  rows[#rows + 1] = { name = name, med = med, p95 = p95 }
end

local function scriptWriter(dir) return function(k) H.save(dir .. "/probe.lua", MODULE:format(k, k, k)) end end
local function versionLine(k) return "v=" .. k .. " t=[%d.]+" end

-- Game script, inotify.
do
  local p, dir = game("script", nil, nil, "--headless")
  row("game script (inotify)", measure(p, SAVES, scriptWriter(dir), versionLine))
  H.stop(p)
  H.remove(dir)
end

-- Game script, the 500 ms polling baseline.
do
  local p, dir = game("baseline", nil, POLLER, "--headless", "--no-watch")
  H.sleep(0.6)
  row("game script (500 ms poll, baseline)", measure(p, BASE_SAVES, scriptWriter(dir), versionLine))
  H.stop(p)
  H.remove(dir)
end

-- Shader: the first frame after the reload draws with it; the game prints when the
-- reload count moves.
do
  local dir = H.scratch()
  H.write(dir .. "/fill.frag", SHADER:format(0))
  H.write(dir .. "/main.lua", [[
local engine, reload = tycho.engine, require("tycho.reload")
engine:addFeature({ name = "Fill", addPasses = function(_, frame)
  frame.graph:fullscreen({ name = "Fill", shader = "fill.frag", reads = { scene = frame.hdr }, write = frame.hdr })
end })
local seen = 0
engine:afterFrame(function()
  if reload.count() ~= seen then seen = reload.count() print(("v=%d t=%.6f"):format(seen, tycho.now())) io.stdout:flush() end
  if engine.frameCount == 1 then print("v=0 t=0") io.stdout:flush() end
end)
]])
  local p = H.spawn("SDL_VIDEODRIVER=offscreen", "run", dir, "--width", "64", "--height", "48")
  local ok = pcall(H.waitFor, p, "v=0 t=", 1, 10)
  if ok and not H.output(p):find("running headless", 1, true) then
    row("shader", measure(p, SAVES, function(k) H.save(dir .. "/fill.frag", SHADER:format(k / SAVES)) end, versionLine))
  else
    io.write("shader: skipped (no GL 4.5 context here)\n")
  end
  H.stop(p)
  H.remove(dir)
end

-- Server module.
do
  local dir, data = H.scratch(), H.scratch()
  H.write(dir .. "/probe.lua", SERVER:format(0, 0, 0))
  local port = 20000 + math.floor(tycho.now() * 1000) % 20000
  local p = H.spawn(nil, "serve", "--host", "127.0.0.1", "--port", tostring(port), "--modules", dir, "--data", data)
  H.waitFor(p, "v=0 t=", 1, 10)
  row("server module", measure(p, SAVES, function(k) H.save(dir .. "/probe.lua", SERVER:format(k, k, k)) end, versionLine))
  H.stop(p)
  H.remove(dir)
  H.remove(data)
end

local base = rows[2]
io.write(("hot reload latency, write to first tick on the new code (%d saves; baseline %d)\n"):format(SAVES, BASE_SAVES))
for _, r in ipairs(rows) do
  io.write(("  %-38s median %7.1f ms   p95 %7.1f ms   p95 vs baseline %.3fx%s\n"):format(
    r.name, r.med, r.p95, r.p95 / base.p95, r.p95 <= 50 and "" or (r == base and "" or "   (over 50 ms)")))
end
