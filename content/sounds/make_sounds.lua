-- content/sounds/make_sounds.lua: synthesises the examples' sound effects and writes them
-- as 16-bit mono WAV files: arcade's shot and hit (examples/arcade/assets/) and crafty's
-- footstep, block break, block place and wind ambience (content/sounds/). Deterministic
-- (seeded noise): run it again after changing a recipe and commit the files.
--   build/tycho run content/sounds/make_sounds.lua --headless --frames 0 --no-watch
local here = (debug.getinfo(1, "S").source:sub(2):match("^(.*)/[^/]*$")) or "."
local root = here:gsub("/?content/sounds$", "")
if root == "" then root = "." end

local RATE = 22050

local seed = 1
local function noise()
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed / 1073741824 - 1
end

-- samples: an array of floats in -1..1; written as 16-bit PCM, mono, at rate.
local function writeWav(path, samples, rate)
  local parts = {}
  for i = 1, #samples do
    local v = math.max(-1, math.min(1, samples[i]))
    parts[i] = string.pack("<i2", math.floor(v * 32767 + 0.5))
  end
  local data = table.concat(parts)
  local f = assert(io.open(path, "wb"))
  f:write("RIFF", string.pack("<I4", 36 + #data), "WAVE", "fmt ",
    string.pack("<I4I2I2I4I4I2I2", 16, 1, 1, rate, rate * 2, 2, 16),
    "data", string.pack("<I4", #data), data)
  f:close()
  print(("%s: %.2f s, %d bytes"):format(path, #samples / rate, 44 + #data))
end

-- seconds of fn(t, i) -> sample.
local function synth(seconds, fn, rate)
  rate = rate or RATE
  local out = {}
  for i = 1, math.floor(seconds * rate) do out[i] = fn((i - 1) / rate, i) end
  return out
end

local function env(t, attack, decay) -- a quick rise, then an exponential fall
  if t < attack then return t / attack end
  return math.exp(-(t - attack) / decay)
end

-- One-pole low-pass over a sample array (k: 0..1, smaller is darker).
local function lowpass(s, k)
  local y = 0
  for i = 1, #s do
    y = y + k * (s[i] - y)
    s[i] = y
  end
  return s
end

-- arcade: a falling square-ish zap for each shot, a noisy burst for each hit.
local phase = 0
local shot = synth(0.12, function(t)
  local f = 1400 - 9000 * t
  phase = phase + f / RATE
  local sq = (phase % 1) < 0.5 and 1 or -1
  return 0.35 * sq * env(t, 0.004, 0.04)
end)
local hit = lowpass(synth(0.3, function(t)
  return 0.9 * noise() * env(t, 0.002, 0.07) + 0.4 * math.sin(2 * math.pi * (180 - 300 * t) * t) * env(t, 0.002, 0.1)
end), 0.35)

-- crafty: a soft thud underfoot, a crunch when a block breaks, a knock when one is placed.
local step = lowpass(synth(0.09, function(t) return 0.8 * noise() * env(t, 0.003, 0.02) end), 0.12)
local crunch = lowpass(synth(0.22, function(t)
  local grain = (math.floor(t * 90) % 2 == 0) and 1 or 0.4
  return 0.9 * noise() * grain * env(t, 0.002, 0.06)
end), 0.3)
local knock = synth(0.12, function(t)
  return 0.7 * (math.sin(2 * math.pi * 220 * t) + 0.5 * math.sin(2 * math.pi * 440 * t)) * env(t, 0.001, 0.025)
    + 0.2 * noise() * env(t, 0.001, 0.006)
end)

-- Wind: low-passed noise swelling slowly; the last second is cross-faded into the first
-- so the loop has no seam. Dark and slow, so half the rate does; quiet, as the game plays
-- it at a low volume on top.
local WIND_RATE, WIND_SECONDS, FADE = 11025, 3, 1
local wind = lowpass(synth(WIND_SECONDS + FADE, function(t)
  return noise() * (0.6 + 0.4 * math.sin(2 * math.pi * t / WIND_SECONDS))
end, WIND_RATE), 0.04)
for i = 1, #wind do wind[i] = wind[i] * 3 end
local n, f = math.floor(WIND_SECONDS * WIND_RATE), math.floor(FADE * WIND_RATE)
for i = 1, f do
  local a = (i - 1) / f
  wind[i] = wind[i] * a + wind[n + i] * (1 - a)
end
for i = #wind, n + 1, -1 do wind[i] = nil end

writeWav(root .. "/examples/arcade/assets/shot.wav", shot, RATE)
writeWav(root .. "/examples/arcade/assets/hit.wav", hit, RATE)
writeWav(root .. "/content/sounds/crafty_step.wav", step, RATE)
writeWav(root .. "/content/sounds/crafty_break.wav", crunch, RATE)
writeWav(root .. "/content/sounds/crafty_place.wav", knock, RATE)
writeWav(root .. "/content/sounds/crafty_wind.wav", wind, WIND_RATE)
