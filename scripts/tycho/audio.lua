-- scripts/tycho/audio.lua: the AudioSource and AudioListener components, and the frame's
-- audio pass (the engine's step calls M.frame).
--
-- An AudioSource owns one C source (tycho._audio.source) from construction: its options
-- live in a store beside the instance, so every write goes through the class's __newindex
-- and reaches the mixer at once. Attached, the source follows its GameObject's world
-- position, placed by C once per frame (and by tycho.audio.render); destroyed, its object
-- takes the source's voice with it.

local tycho = require("tycho")
local A = tycho._audio
local audio = tycho.audio

local check = require("tycho.check")
local typeName = check.typeName
local argError = check.argError

-- Option checks: each returns the value to keep, or nil and what is wrong with it.
local function number(lo, open)
  return function(v, key)
    if type(v) ~= "number" then return nil, ("%s must be a number, got %s"):format(key, typeName(v)) end
    if v ~= v or v == math.huge or (open and v <= lo) or (not open and v < lo) then
      return nil, ("%s must be %s %s, got %s"):format(key, open and ">" or ">=", lo, v)
    end
    return v
  end
end

local function boolean(v, key)
  if type(v) ~= "boolean" then return nil, ("%s must be a boolean, got %s"):format(key, typeName(v)) end
  return v
end

local function clipCheck(v, key)
  if typeName(v) ~= "AudioClip" then return nil, ("%s must be an AudioClip, got %s"):format(key, typeName(v)) end
  return v
end

local OPTIONS = {
  clip = { check = clipCheck },
  volume = { check = number(0, false), default = 1 },
  pitch = { check = number(0, true), default = 1 },
  loop = { check = boolean, default = false },
  spatial = { check = boolean, default = true },
  minDistance = { check = number(0, true), default = 1 },
  maxDistance = { check = number(0, true), default = 100 },
  rolloff = { check = number(0, false), default = 1 },
  playOnAttach = { check = boolean, default = false },
}

local function push(s)
  s.handle:setParams(s)
end

-- ---------------------------------------------------------------------------------------
-- AudioSource

---@class tycho.AudioSource: tycho.Component
---@field clip tycho.AudioClip|nil
---@field volume number gain, 1 = as recorded
---@field pitch number playback speed, 1 = as recorded
---@field loop boolean
---@field spatial boolean sounds from its GameObject's world position (a mono clip is panned and attenuated)
---@field minDistance number full volume inside it
---@field maxDistance number attenuation stops there
---@field rolloff number how fast it fades past minDistance (inverse distance, clamped)
---@field playOnAttach boolean plays when attached to a GameObject
---@field isPlaying boolean read-only: playing (paused and stopped sources are not)
---@field isPaused boolean read-only
---@field time number read-only: seconds into the clip
local AudioSource = tycho.component("AudioSource")
rawset(AudioSource, "__class", AudioSource) -- tells addComponent this is a class despite __index
-- instance -> its option store; kept on the class, which outlives a reload of this file.
local stores = rawget(AudioSource, "_stores") or setmetatable({}, { __mode = "k" })
rawset(AudioSource, "_stores", stores)

rawset(AudioSource, "__index", function(self, key)
  local s = stores[self]
  if OPTIONS[key] then return s and s[key] end
  if key == "isPlaying" then return s ~= nil and s.handle:playing() end
  if key == "isPaused" then return s ~= nil and s.handle:paused() end
  if key == "time" then return s and s.handle:time() or 0 end
  if key == "sceneTime" then return s and s.sceneTime end
  return AudioSource[key]
end)

rawset(AudioSource, "__newindex", function(self, key, value)
  local s = stores[self]
  local opt = OPTIONS[key]
  if opt and s then
    if value == nil then value = opt.default end
    if value ~= nil then
      local ok, why = opt.check(value, key)
      if ok == nil then error("AudioSource." .. why, 2) end
    end
    if key == "maxDistance" and value < s.minDistance or key == "minDistance" and value > s.maxDistance then
      error("AudioSource.maxDistance must be >= minDistance", 2)
    end
    s[key] = value
    if key == "clip" then s.handle:setClip(value) elseif key ~= "playOnAttach" then push(s) end
  elseif key == "time" and s and (value == nil or typeName(value) == "Time") then
    -- The scene clock the component host hands every instance; `time` here is the clip's.
    s.sceneTime = value
  elseif key == "isPlaying" or key == "isPaused" or key == "time" then
    error(("AudioSource.%s is read-only"):format(key), 2)
  else
    rawset(self, key, value)
  end
end)

rawset(AudioSource, "new", function(opts)
  if opts ~= nil and type(opts) ~= "table" then argError(1, "new", "table expected, got " .. typeName(opts), 2) end
  opts = opts or {}
  local s = {}
  for key, opt in pairs(OPTIONS) do
    local v = opts[key]
    if v == nil and key == "playOnAttach" then v = opts.playOnStart end -- Unity's habit of a name
    if v == nil then v = opt.default end
    if v ~= nil then
      local ok, why = opt.check(v, key)
      if ok == nil then argError(1, "new", why, 2) end
      s[key] = v
    end
  end
  if s.maxDistance < s.minDistance then argError(1, "new", "maxDistance must be >= minDistance", 2) end
  s.handle = A.source(s)
  if s.clip then s.handle:setClip(s.clip) end
  local self = setmetatable({ enabled = true }, AudioSource)
  stores[self] = s
  return self
end)

---Plays the clip from the start (again, when it is playing).
function AudioSource:play() stores[self].handle:play() end
---Stops it: silent from the next sample on, time back to 0.
function AudioSource:stop() stores[self].handle:stop() end
---Holds it where it is; resume() goes on from there.
function AudioSource:pause() stores[self].handle:pause() end
function AudioSource:resume() stores[self].handle:resume() end

function AudioSource:onAttach()
  local s = stores[self]
  s.handle:attach(self.gameObject)
  if s.playOnAttach then s.handle:play() end
end

function AudioSource:onDetach() stores[self].handle:attach(nil) end
-- The object is going: its voice goes back to the pool now, not at the next frame.
function AudioSource:onDestroy() stores[self].handle:stop() end

tycho.AudioSource = AudioSource

-- ---------------------------------------------------------------------------------------
-- AudioListener

---@class tycho.AudioListener: tycho.Component
local AudioListener = tycho.component("AudioListener")
local listeners = rawget(AudioListener, "_attached") or {} -- in attach order; the last enabled wins
rawset(AudioListener, "_attached", listeners)

local function forget(self)
  for i = #listeners, 1, -1 do
    if listeners[i] == self then table.remove(listeners, i) end
  end
end

function AudioListener:onAttach()
  forget(self)
  listeners[#listeners + 1] = self
end
AudioListener.onDetach = forget
AudioListener.onDestroy = forget

tycho.AudioListener = AudioListener

-- The scene of the engine that last ran a frame: render listens as that frame did.
local frameScene = setmetatable({}, { __mode = "v" })

-- The object whose ears are in use: the last enabled listener attached to an enabled
-- object, else (in a running game) the camera's object, else none (the origin).
local function currentListener(scene)
  for i = #listeners, 1, -1 do
    local l = listeners[i]
    local go = rawget(l, "gameObject")
    if go and l.enabled ~= false and go.enabled ~= false then return go end
  end
  if scene then
    local cam = scene:findCamera()
    if cam then return cam.gameObject end
  end
  return nil
end

---Mixes exactly `seconds` of sound (headless: `tycho run --headless` and `tycho test`)
---after placing every spatial source and the listener from their objects' world
---transforms. Returns the samples, interleaved stereo 32-bit floats, little-endian
---(`string.unpack("<f", pcm, i)`), and the sample rate; nil and a message with a window
---(the device plays then).
---@param seconds number
---@return string|nil pcm, integer|string sampleRate
function audio.render(seconds)
  A.setListener(currentListener(frameScene.scene))
  local pcm, rate = A.render(seconds)
  return pcm, rate
end

local M = {}

---The frame's audio pass: the listener chosen (a running game falls back to its camera),
---sources placed with velocities over dt. Nothing happens until something opened audio.
---@param dt number
---@param scene? tycho.Scene
function M.frame(dt, scene)
  frameScene.scene = scene
  if not A.opened() then return end
  A.setListener(currentListener(scene))
  A.update(dt)
end

M.AudioSource = AudioSource
M.AudioListener = AudioListener
return M
