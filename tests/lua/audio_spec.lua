-- tests/lua/audio_spec.lua: sound measured through tycho.audio.render (the loopback mixer
-- tycho test runs): panning, turning, distance, one-shots, loops, master volume, stop,
-- streams, reload, destroyed objects, the voice cap and bad input.

local audio = tycho.audio

-- A mono or stereo 16-bit WAV of `seconds` at `rate`, sample(t, channel) in -1..1.
local function writeWav(path, seconds, rate, channels, sample)
  local frames = math.floor(seconds * rate + 0.5)
  local parts = {}
  for i = 0, frames - 1 do
    local t = i / rate
    for c = 1, channels do
      local v = math.max(-1, math.min(1, sample(t, c)))
      parts[#parts + 1] = string.pack("<i2", math.floor(v * 32767 + 0.5))
    end
  end
  local data = table.concat(parts)
  local f = assert(io.open(path, "wb"))
  f:write("RIFF", string.pack("<I4", 36 + #data), "WAVE", "fmt ",
    string.pack("<I4I2I2I4I4I2I2", 16, 1, channels, rate, rate * channels * 2, channels * 2, 16),
    "data", string.pack("<I4", #data), data)
  f:close()
end

local function sine(freq, amp)
  return function(t) return amp * math.sin(2 * math.pi * freq * t) end
end

-- RMS of each channel over frames [from, to) of an interleaved stereo float32 render.
local function rms(pcm, from, to)
  local frames = #pcm // 8
  from, to = from or 0, to or frames
  local l, r = 0, 0
  for i = from, to - 1 do
    local a, b = string.unpack("<ff", pcm, i * 8 + 1)
    l, r = l + a * a, r + b * b
  end
  local n = math.max(1, to - from)
  return math.sqrt(l / n), math.sqrt(r / n)
end

local function silent(pcm)
  local l, r = rms(pcm)
  return l < 1e-6 and r < 1e-6
end

local dir = os.tmpname()
os.remove(dir)
os.execute("mkdir -p " .. dir)
local TONE = dir .. "/tone.wav"     -- 1 s, mono, 440 Hz
local SHORT = dir .. "/short.wav"   -- 0.1 s, mono
local LONG = dir .. "/long.wav"     -- 2 s, mono (streamed)
writeWav(TONE, 1, 48000, 1, sine(440, 0.5))
writeWav(SHORT, 0.1, 48000, 1, sine(440, 0.5))
writeWav(LONG, 2, 22050, 1, sine(330, 0.5))

local tone = assert(audio.load(TONE))
local short = assert(audio.load(SHORT))

-- Every test starts from a quiet mixer: what it left playing is destroyed afterwards.
local objects = {}
local function object(x, y, z)
  local go = tycho.GameObject.new({ name = "audio-test", position = { x = x or 0, y = y or 0, z = z or 0 } })
  objects[#objects + 1] = go
  return go
end

local function listenerAt(x, y, z)
  local go = object(x, y, z)
  go:addComponent(tycho.AudioListener.new())
  return go
end

local function emitter(x, y, z, opts)
  local go = object(x, y, z)
  opts = opts or {}
  if opts.clip == nil then opts.clip = tone end
  if opts.loop == nil then opts.loop = true end
  if opts.playOnAttach == nil then opts.playOnAttach = true end
  local src = go:addComponent(tycho.AudioSource.new(opts))
  return go, src
end

after_each(function()
  for _, go in ipairs(objects) do go:destroy() end
  objects = {}
  audio.volume(1)
  audio.render(0.05) -- the destroyed sources' tails
end)

describe("tycho.audio.load", function()
  it("reads a clip's duration, channels and rate", function()
    assert(math.abs(tone.duration - 1) < 1e-6)
    assert(tone.channels == 1 and tone.sampleRate == 48000)
    local st = dir .. "/stereo.wav"
    writeWav(st, 0.5, 44100, 2, sine(220, 0.3))
    local c = assert(audio.load(st))
    assert(c.channels == 2 and c.sampleRate == 44100 and math.abs(c.duration - 0.5) < 1e-4)
  end)

  it("decodes OGG Vorbis, FLAC, MP3 and AIFF as well as WAV, whole or streamed", function()
    local corpus = require("tycho.testing").here() .. "/../fuzz/corpus/audio/"
    for _, name in ipairs({ "tone.ogg", "tone.flac", "tone.mp3", "tone.aiff", "stereo8.wav" }) do
      local c = assert(audio.load(corpus .. name))
      assert(c.sampleRate == 8000 and c.duration > 0.01 and c.duration < 0.2, name)
    end
    local ogg = assert(audio.load(corpus .. "tone.ogg", { stream = true }))
    assert(ogg.stream and ogg.channels == 1)
    local go = object(0, 0, 0)
    local src = go:addComponent(tycho.AudioSource.new({ clip = ogg, spatial = false }))
    src:play()
    assert(rms((audio.render(0.05))) > 0.05, "a streamed OGG sounds")
    src:stop()
  end)

  it("answers nil and a message for missing, truncated, wrong and hostile files", function()
    local c, err = audio.load(dir .. "/missing.wav")
    assert(c == nil and err:find("missing.wav", 1, true))
    local whole = assert(io.open(TONE, "rb")):read("a")
    local cut = dir .. "/cut.wav"
    assert(io.open(cut, "wb")):write(whole:sub(1, 30)):close()
    c, err = audio.load(cut)
    assert(c == nil and type(err) == "string", "a truncated header is refused")
    local text = dir .. "/text.ogg"
    assert(io.open(text, "wb")):write(("not a sound file\n"):rep(100)):close()
    c, err = audio.load(text)
    assert(c == nil and err:find("text.ogg", 1, true))
    -- A RIFF header that promises 8 channels and 4 GiB of data.
    local hostile = dir .. "/hostile.wav"
    assert(io.open(hostile, "wb")):write("RIFF", string.pack("<I4", 0xFFFFFFF0), "WAVE", "fmt ",
      string.pack("<I4I2I2I4I4I2I2", 16, 1, 8, 48000, 48000 * 16, 16, 16), "data",
      string.pack("<I4", 0xFFFFFFF0), ("\1\2"):rep(64)):close()
    c, err = audio.load(hostile)
    assert(c == nil and err:find("channels"), tostring(err))
    c, err = audio.load(text, { stream = true })
    assert(c == nil and type(err) == "string")
  end)

  it("raises the standard error for wrong arguments", function()
    local ok, err = pcall(function() return audio.load({}) end)
    assert(not ok and err:find("bad argument #1 to 'load'", 1, true), err)
    ok, err = pcall(function() return audio.load(TONE, "stream") end)
    assert(not ok and err:find("bad argument #2 to 'load'", 1, true), err)
    ok, err = pcall(function() return audio.play("tone.wav") end)
    assert(not ok and err:find("bad argument #1 to 'play'", 1, true), err)
    ok, err = pcall(function() return audio.play(tone, { volume = "loud" }) end)
    assert(not ok and err:find("bad argument #2 to 'play'", 1, true) and err:find("volume"), err)
    ok, err = pcall(function() return tycho.AudioSource.new({ clip = "tone.wav" }) end)
    assert(not ok and err:find("bad argument #1 to 'new'", 1, true) and err:find("clip"), err)
    ok, err = pcall(function() return tycho.AudioSource.new({ pitch = 0 }) end)
    assert(not ok and err:find("bad argument #1 to 'new'", 1, true) and err:find("pitch"), err)
    ok, err = pcall(function() return audio.render(-1) end)
    assert(not ok and err:find("bad argument #1 to 'render'", 1, true), err)
    ok, err = pcall(function() return audio.render() end)
    assert(not ok and err:find("bad argument #1 to 'render'", 1, true), err)
    ok, err = pcall(function() return audio.volume(2) end)
    assert(not ok and err:find("bad argument #1 to 'volume'", 1, true), err)
    local src = tycho.AudioSource.new()
    ok, err = pcall(function() src.volume = "x" end)
    assert(not ok and err:find("volume must be a number"), err)
  end)
end)

describe("tycho.audio.render", function()
  it("returns exactly that long of interleaved stereo float32 and the rate", function()
    local pcm, rate = audio.render(0.25)
    assert(math.type(rate) == "integer" and rate > 0)
    assert(#pcm == math.floor(0.25 * rate + 0.5) * 8)
    assert(silent(pcm), "nothing plays: silence")
  end)

  it("puts a mono clip on the listener's left in the left channel, and right when moved", function()
    listenerAt(0, 0, 0)
    local go = emitter(-5, 0, 0)
    local l, r = rms((audio.render(0.2)))
    assert(l > 0.01 and l > 2 * r, ("left %g right %g"):format(l, r))
    go.position.x = 5
    l, r = rms((audio.render(0.2)))
    assert(r > 0.01 and r > 2 * l, ("left %g right %g"):format(l, r))
  end)

  it("swaps the channels when the listener turns round", function()
    local ears = listenerAt(0, 0, 0)
    emitter(-5, 0, 0)
    local l, r = rms((audio.render(0.2)))
    assert(l > 2 * r)
    local q = tycho.quat.axisAngle(0, 1, 0, math.pi)
    ears.rotation.x, ears.rotation.y, ears.rotation.z, ears.rotation.w = q.x, q.y, q.z, q.w
    l, r = rms((audio.render(0.2)))
    assert(r > 2 * l, ("turned: left %g right %g"):format(l, r))
  end)

  it("follows the listener's parent: the world transform counts", function()
    local rig = object(10, 0, 0)
    local ears = object(0, 0, 0)
    ears:addComponent(tycho.AudioListener.new())
    ears:setParent(rig)
    emitter(5, 0, 0) -- world: left of the ears at x = 10
    local l, r = rms((audio.render(0.2)))
    assert(l > 2 * r, ("left %g right %g"):format(l, r))
  end)

  it("attenuates with distance", function()
    listenerAt(0, 0, 0)
    local go = emitter(0, 0, -2, { minDistance = 1, maxDistance = 1000 })
    local near = rms((audio.render(0.2)))
    go.position.z = -20
    local far = rms((audio.render(0.2)))
    assert(far < near / 4, ("near %g far %g"):format(near, far))
    go.position.z = -0.5 -- inside minDistance: full volume
    local inside = rms((audio.render(0.2)))
    assert(inside > near * 1.5, ("inside %g near %g"):format(inside, near))
  end)

  it("shifts the pitch of a source moving towards the listener (doppler, from frame moves)", function()
    listenerAt(0, 0, 0)
    local go = emitter(0, 0, -40, { minDistance = 100, maxDistance = 1000 })
    local function crossings(pcm)
      local n, last = 0, 0
      for i = 1, #pcm, 8 do
        local v = string.unpack("<f", pcm, i)
        if (v >= 0) ~= (last >= 0) then n = n + 1 end
        last = v
      end
      return n
    end
    tycho._audio.update(1 / 60) -- a frame: still, velocity 0
    local still = crossings((audio.render(0.2)))
    go.position.z = -39 -- one unit in one 60 Hz frame: 60 m/s closer
    tycho._audio.update(1 / 60)
    local closing = crossings((audio.render(0.2)))
    -- 440 Hz heard at 440 * 343.3 / (343.3 - 60) = 533 Hz: 21% more zero crossings.
    assert(closing > still * 1.15 and closing < still * 1.3, ("still %d closing %d"):format(still, closing))
  end)

  it("plays a non-spatial one-shot centred, and it ends by itself", function()
    listenerAt(3, 0, 0)
    local voice = audio.play(short)
    assert(voice.isPlaying)
    local pcm = audio.render(0.3)
    local l, r = rms(pcm, 0, 4000)
    assert(l > 0.05 and math.abs(l - r) < 1e-3 * l, ("left %g right %g"):format(l, r))
    local rate = select(2, audio.render(0))
    local tl, tr = rms(pcm, math.floor(0.15 * rate), math.floor(0.3 * rate))
    assert(tl < 1e-6 and tr < 1e-6, "silent after its 0.1 s")
    assert(not voice.isPlaying)
    voice:stop() -- a finished voice stops quietly
  end)

  it("places a one-shot with a position", function()
    listenerAt(0, 0, 0)
    local voice = audio.play(tone, { position = tycho.vec3(8, 0, 0), volume = 0.8 })
    local l, r = rms((audio.render(0.1)))
    assert(r > 2 * l, ("left %g right %g"):format(l, r))
    voice:stop()
    assert(not voice.isPlaying)
    assert(silent((audio.render(0.05))))
  end)

  it("loops a looping source, and a plain one ends", function()
    listenerAt(0, 0, 0)
    local _, looping = emitter(0, 0, -1, { clip = short, loop = true })
    local pcm, rate = audio.render(0.55)
    local tail = rms(pcm, math.floor(0.45 * rate), math.floor(0.55 * rate))
    assert(tail > 0.05, "still sounding after five lengths of its clip")
    assert(looping.isPlaying)
    looping:stop()
    local _, once = emitter(0, 0, -1, { clip = short, loop = false })
    once:play()
    pcm = audio.render(0.3)
    assert(rms(pcm, 0, math.floor(0.05 * rate)) > 0.05)
    assert(rms(pcm, math.floor(0.15 * rate), math.floor(0.3 * rate)) < 1e-6)
    assert(not once.isPlaying)
  end)

  it("scales everything by the master volume", function()
    listenerAt(0, 0, 0)
    emitter(0, 0, 0, { spatial = false })
    audio.render(0.05)
    local full = rms((audio.render(0.2)))
    assert(audio.volume(0.5) == 0.5)
    audio.render(0.05) -- the mixer ramps a gain change over its first few milliseconds
    local half = rms((audio.render(0.2)))
    assert(math.abs(half / full - 0.5) < 0.02, ("full %g half %g"):format(full, half))
    audio.volume = 0 -- the field form sets it too
    assert(audio.volume() == 0)
    audio.render(0.05)
    assert(silent((audio.render(0.1))))
  end)

  it("is silent once stopped, and pause holds the place", function()
    listenerAt(0, 0, 0)
    local _, src = emitter(0, 0, -1, { loop = false })
    src:play()
    audio.render(0.2)
    src:pause()
    assert(not src.isPlaying and src.isPaused)
    local at = src.time
    assert(at > 0.15 and at < 0.25, tostring(at))
    assert(silent((audio.render(0.1))))
    assert(math.abs(src.time - at) < 1e-3)
    src:resume()
    assert(src.isPlaying)
    assert(rms((audio.render(0.1))) > 0.05)
    src:stop()
    assert(not src.isPlaying and src.time == 0)
    assert(silent((audio.render(0.1))))
  end)

  it("stops a source whose object is destroyed and frees its voice", function()
    listenerAt(0, 0, 0)
    local scene = tycho.Scene.new()
    local go = tycho.GameObject.new("doomed")
    scene:add(go)
    local src = go:addComponent(tycho.AudioSource.new({ clip = tone, loop = true, playOnAttach = true }))
    scene:update(1 / 60)
    assert(src.isPlaying)
    local before = audio.stats().voices
    assert(before >= 1)
    go:destroy()
    scene:update(1 / 60)
    assert(not src.isPlaying)
    assert(audio.stats().voices == before - 1)
    assert(silent((audio.render(0.1))))
  end)

  it("keeps hundreds of sources within the voice cap, the loudest heard", function()
    listenerAt(0, 0, 0)
    local cap = audio.stats().maxVoices
    assert(cap > 0)
    for i = 1, 300 do
      local _, src = emitter(0, 0, -(i * 3), { minDistance = 1, maxDistance = 2000 })
      src:play()
    end
    local s = audio.stats()
    assert(s.voices <= cap and s.playing >= 300, ("voices %d cap %d playing %d"):format(s.voices, cap, s.playing))
    local pcm = audio.render(0.2)
    assert(rms(pcm) > 0.01)
    -- The nearest comes last: it takes the quietest one's voice.
    local _, loud = emitter(0, 0, -0.5)
    loud:play()
    s = audio.stats()
    assert(s.voices <= cap and s.steals >= 1)
    assert(loud.isPlaying)
    for _ = 1, 5 do audio.render(0.05) end
    assert(audio.stats().voices <= cap)
  end)

  it("streams a clip while it plays", function()
    listenerAt(0, 0, 0)
    local music = assert(audio.load(LONG, { stream = true }))
    assert(music.stream and math.abs(music.duration - 2) < 1e-3 and music.sampleRate == 22050)
    local go = object(0, 0, 0)
    local src = go:addComponent(tycho.AudioSource.new({ clip = music, spatial = false }))
    src:play()
    local pcm, rate = audio.render(1.5)
    assert(rms(pcm, math.floor(1.3 * rate), math.floor(1.5 * rate)) > 0.05, "still playing after 1.3 s")
    assert(src.isPlaying and math.abs(src.time - 1.5) < 0.1, tostring(src.time))
    pcm = audio.render(1.0)
    assert(rms(pcm, math.floor(0.6 * rate), math.floor(1.0 * rate)) < 1e-6, "ended at 2 s")
    assert(not src.isPlaying)
    src.loop = true
    src:play()
    pcm = audio.render(2.5)
    assert(rms(pcm, math.floor(2.2 * rate), math.floor(2.5 * rate)) > 0.05, "a looping stream goes round")
    src:stop()
  end)

  it("shares one clip between sources", function()
    listenerAt(0, 0, 0)
    local _, a = emitter(-5, 0, 0)
    local _, b = emitter(5, 0, 0)
    a:play()
    b:play()
    local l, r = rms((audio.render(0.2)))
    assert(l > 0.01 and r > 0.01 and math.abs(l - r) < 0.1 * l, ("left %g right %g"):format(l, r))
  end)

  it("reloads a clip in place when its file changes", function()
    local path = dir .. "/reload.wav"
    writeWav(path, 0.5, 48000, 1, sine(440, 0.5))
    local clip = assert(audio.load(path))
    assert(math.abs(clip.duration - 0.5) < 1e-6)
    writeWav(path, 0.25, 48000, 1, sine(880, 0.5))
    assert(tycho._audio.reloadFile(path) == 1)
    assert(math.abs(clip.duration - 0.25) < 1e-6)
    assert(io.open(path, "wb")):write("garbage"):close()
    local ok, err = tycho._audio.reloadFile(path)
    assert(ok == nil and type(err) == "string")
    assert(math.abs(clip.duration - 0.25) < 1e-6, "the old sound stays")
    assert(tycho._audio.reloadFile(dir .. "/unrelated.wav") == false)
  end)
end)

describe("hot reload of sound files", function()
  it("goes through tycho.reload.file like textures do", function()
    local reload = require("tycho.reload")
    local path = dir .. "/hot.wav"
    writeWav(path, 0.2, 48000, 1, sine(440, 0.5))
    local clip = assert(audio.load(path))
    writeWav(path, 0.4, 48000, 1, sine(440, 0.5))
    assert(reload.file(path) == true)
    assert(math.abs(clip.duration - 0.4) < 1e-6)
    assert(reload.file(dir .. "/never-loaded.wav") == nil)
  end)
end)

describe("one-shots nobody renders", function()
  it("stay bounded: past the limit the quietest waiting one goes", function()
    local clip = assert(audio.load(TONE))
    local first = audio.play(clip, { volume = 0.01 })
    for _ = 1, 1100 do audio.play(clip, { volume = 0.5 }) end
    local s = audio.stats()
    assert(s.sources <= 1024 + 8, tostring(s.sources))
    assert(not first.isPlaying, "the quietest went first")
    for _ = 1, 12 do audio.render(0.1) end -- 1.2 s: every one of them has ended
    local left = audio.stats()
    assert(left.playing == 0, ("playing %d sources %d voices %d"):format(left.playing, left.sources, left.voices))
  end)
end)

describe("AudioSource options", function()
  it("reads every option back as a field, and playOnStart as playOnAttach", function()
    local src = tycho.AudioSource.new({ clip = tone, volume = 0.3, pitch = 1.5, loop = true, spatial = false,
      minDistance = 2, maxDistance = 20, rolloff = 0.5, playOnStart = true })
    assert(src.clip == tone and src.volume == 0.3 and src.pitch == 1.5 and src.loop == true)
    assert(src.spatial == false and src.minDistance == 2 and src.maxDistance == 20 and src.rolloff == 0.5)
    assert(src.playOnAttach == true and src.isPlaying == false and src.time == 0)
    local go = tycho.GameObject.new("opts")
    go:addComponent(src)
    assert(src.isPlaying, "played on attach")
    src.volume = 0.6
    assert(src.volume == 0.6)
    local ok, err = pcall(function() src.maxDistance = 1 end)
    assert(not ok and err:find("maxDistance"), err)
    ok, err = pcall(function() src.isPlaying = true end)
    assert(not ok and err:find("read%-only"), err)
    go:removeComponent(src)
    assert(not src.isPlaying, "detached: stopped")
    go:destroy()
  end)
end)
