---@meta tycho.audio
-- scripts/meta/audio.lua: LuaLS annotations for tycho.audio, tycho.AudioSource and
-- tycho.AudioListener (bindings/lua_audio.c and scripts/tycho/audio.lua over
-- engine/audio/). Never loaded at run time; scripts/docs/audio.md describes the module.

---Decoded sound: shared by every source that plays it.
---@class tycho.AudioClip
---@field duration number seconds
---@field channels integer 1 or 2
---@field sampleRate integer
---@field stream boolean decoded while it plays
---@field path string the file it was loaded from

---A fire-and-forget sound from tycho.audio.play.
---@class tycho.Voice
---@field isPlaying boolean
local Voice = {}
---Silences it now.
function Voice:stop() end

---@class tycho.audio.PlayOptions
---@field volume? number gain (1)
---@field pitch? number playback speed (1)
---@field position? tycho.Vec3|number[]|{x: number, y: number, z: number} world position: the sound is spatial only when given
---@field minDistance? number (1)
---@field maxDistance? number (100)
---@field rolloff? number (1)

---@class tycho.audio.Stats
---@field sources integer sources alive (one-shots included)
---@field playing integer playing, with a voice or on the clock
---@field voices integer voices busy
---@field maxVoices integer the voice pool
---@field clips integer clips loaded
---@field steals integer voices taken from a quieter source
---@field waits integer plays that found no voice they could take
---@field output "loopback"|"device"|"none"

---@class tycho.audio
tycho.audio = {}

---Loads a sound file (WAV, OGG Vorbis, FLAC, MP3). nil and a message when it is missing,
---unreadable or does not decode.
---@param path string
---@param opts? {stream?: boolean} stream: decode while playing (music) instead of now
---@return tycho.AudioClip|nil clip
---@return string? message
function tycho.audio.load(path, opts) end

---Plays clip once; the voice is freed when it ends. Centred unless `position` is given.
---@param clip tycho.AudioClip
---@param opts? tycho.audio.PlayOptions
---@return tycho.Voice
function tycho.audio.play(clip, opts) end

---The master gain, 0..1; sets it first when v is given. `tycho.audio.volume = v` sets it too.
---@param v? number
---@return number
function tycho.audio.volume(v) end

---Headless only: places every spatial source and the listener from their objects' world
---transforms, mixes exactly `seconds` and returns the samples, interleaved stereo 32-bit
---floats, little-endian (`string.unpack("<ff", pcm, i)`), and the sample rate. With a
---window: nil and a message.
---@param seconds number 0..3600
---@return string|nil pcm
---@return integer|string sampleRate or the message
function tycho.audio.render(seconds) end

---Counts of sources, voices and clips.
---@return tycho.audio.Stats
function tycho.audio.stats() end

---@class tycho.AudioSource.Options
---@field clip? tycho.AudioClip
---@field volume? number (1)
---@field pitch? number (1)
---@field loop? boolean (false)
---@field spatial? boolean (true)
---@field minDistance? number (1)
---@field maxDistance? number (100)
---@field rolloff? number (1)
---@field playOnAttach? boolean (false)
---@field playOnStart? boolean the same as playOnAttach

---Sound from a GameObject: spatial sources sound from its world position.
---@class tycho.AudioSource: tycho.Component
---@field clip tycho.AudioClip|nil
---@field volume number
---@field pitch number
---@field loop boolean
---@field spatial boolean
---@field minDistance number full volume inside it
---@field maxDistance number attenuation stops there
---@field rolloff number
---@field playOnAttach boolean
---@field isPlaying boolean read-only
---@field isPaused boolean read-only
---@field time number read-only: seconds into the clip
tycho.AudioSource = {}

---@param opts? tycho.AudioSource.Options
---@return tycho.AudioSource
function tycho.AudioSource.new(opts) end
---Plays from the start (again, when playing).
function tycho.AudioSource:play() end
---Silent from now; time back to 0.
function tycho.AudioSource:stop() end
---Holds the place; resume() goes on from it.
function tycho.AudioSource:pause() end
function tycho.AudioSource:resume() end

---The ears: at its GameObject's world position and rotation (-Z ahead, +Y up, -X left).
---The last enabled one attached wins; with none, a running game listens from its camera.
---@class tycho.AudioListener: tycho.Component
tycho.AudioListener = {}
---@return tycho.AudioListener
function tycho.AudioListener.new() end
