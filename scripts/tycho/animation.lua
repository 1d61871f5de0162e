-- scripts/tycho/animation.lua: sprite sheets and tycho.SpriteAnimation, the component that
-- plays named clips of a sheet's frames on its object's tycho.Sprite.
--
-- A sheet is a texture cut into equal frames, numbered from 1 left to right, then top to
-- bottom. A clip lists frames (by number) and plays them at its fps, once or looping. The
-- component advances in the animation phase by the scene's delta (scaled time: a paused
-- scene holds its frame) and writes the Sprite's rect only when the frame changes. The
-- frame shown after t seconds of a clip is floor(t * fps) (wrapped when looping, held on
-- the last frame when not), so it depends on the time played, not on how it was sliced
-- into ticks; an event fires each time playback enters its frame, as many times as a long
-- step crosses it.

local tycho = require("tycho")

local check = require("tycho.check")
local typeName = check.typeName
local argError = check.argError

local function positiveNumber(v)
  return type(v) == "number" and v == v and v > 0 and v < math.huge
end

-- ---------------------------------------------------------------------------------------
-- Sprite sheets

---@class tycho.SpriteSheet
---@field texture tycho.Texture
---@field frameWidth integer pixels
---@field frameHeight integer pixels
---@field frames number[][] each frame's rect {x, y, w, h} in pixels, numbered from 1
local SpriteSheet = { __name = "SpriteSheet" }
SpriteSheet.__index = SpriteSheet

---A texture cut into frames of frameWidth x frameHeight pixels, numbered from 1 left to
---right, then top to bottom. opts: `margin` (pixels around the grid, 0), `spacing` (pixels
---between frames, 0), `count` (frames to keep, all that fit), `nearest` (pixel-art filtering
---for the Sprite a SpriteAnimation adds, true).
---@param texture tycho.Texture
---@param frameWidth integer
---@param frameHeight integer
---@param opts? {margin?: integer, spacing?: integer, count?: integer, nearest?: boolean}
---@return tycho.SpriteSheet
function tycho.spriteSheet(texture, frameWidth, frameHeight, opts)
  if typeName(texture) ~= "Texture" then argError(1, "spriteSheet", "Texture expected, got " .. typeName(texture), 2) end
  if not positiveNumber(frameWidth) then argError(2, "spriteSheet", "frame width must be a number > 0", 2) end
  if not positiveNumber(frameHeight) then argError(3, "spriteSheet", "frame height must be a number > 0", 2) end
  if opts ~= nil and type(opts) ~= "table" then argError(4, "spriteSheet", "table expected, got " .. typeName(opts), 2) end
  opts = opts or {}
  for _, k in ipairs({ "margin", "spacing", "count" }) do
    local v = opts[k]
    if v ~= nil and (math.type(v) ~= "integer" or v < 0) then
      argError(4, "spriteSheet", ("%s must be an integer >= 0, got %s"):format(k, tostring(v)), 2)
    end
  end
  local margin, spacing = opts.margin or 0, opts.spacing or 0
  local frames = {}
  local y = margin
  while y + frameHeight <= texture.height - margin do
    local x = margin
    while x + frameWidth <= texture.width - margin do
      frames[#frames + 1] = { x, y, frameWidth, frameHeight }
      x = x + frameWidth + spacing
    end
    y = y + frameHeight + spacing
  end
  if opts.count then
    if opts.count > #frames then
      argError(4, "spriteSheet", ("count %d is more than the %d frames that fit"):format(opts.count, #frames), 2)
    end
    for i = #frames, opts.count + 1, -1 do frames[i] = nil end
  end
  if #frames == 0 then argError(2, "spriteSheet", "no frame of that size fits the texture", 2) end
  return setmetatable({
    texture = texture,
    frameWidth = frameWidth,
    frameHeight = frameHeight,
    frames = frames,
    nearest = opts.nearest ~= false,
  }, SpriteSheet)
end

---Frame i's rect {x, y, w, h} in pixels.
---@param i integer
---@return number[]
function SpriteSheet:frame(i)
  local r = self.frames[i]
  if not r then error(("frame %s is not in the sheet (1..%d)"):format(tostring(i), #self.frames), 2) end
  return r
end

-- ---------------------------------------------------------------------------------------
-- Clips

local CLIP_KEYS = { frames = true, from = true, to = true, fps = true, loop = true, events = true }

-- A checked copy of clip definition def: {frames = {...}, fps =, loop =, events = {[i] = name}}.
local function readClip(name, def, sheet)
  local function bad(msg) argError(1, "new", ("clip '%s': %s"):format(name, msg), 5) end
  if type(def) ~= "table" then bad("a table expected, got " .. typeName(def)) end
  for k in pairs(def) do
    if not CLIP_KEYS[k] then bad(("unknown field '%s' (the fields are frames, from, to, fps, loop, events)"):format(tostring(k))) end
  end
  local frames = {}
  if def.frames ~= nil then
    if type(def.frames) ~= "table" or #def.frames == 0 then bad("frames must be a list of frame numbers") end
    for i, f in ipairs(def.frames) do frames[i] = f end
  else
    local from, to = def.from or 1, def.to or #sheet.frames
    if math.type(from) ~= "integer" or math.type(to) ~= "integer" then bad("from and to must be integers") end
    local step = from <= to and 1 or -1
    for f = from, to, step do frames[#frames + 1] = f end
  end
  for _, f in ipairs(frames) do
    if math.type(f) ~= "integer" or not sheet.frames[f] then
      bad(("frame %s is not in the sheet (1..%d)"):format(tostring(f), #sheet.frames))
    end
  end
  local fps = def.fps or 10
  if not positiveNumber(fps) then bad("fps must be a number > 0, got " .. tostring(fps)) end
  local loop = def.loop
  if loop == nil then loop = true end
  if type(loop) ~= "boolean" then bad("loop must be a boolean") end
  local events = {}
  if def.events ~= nil then
    if type(def.events) ~= "table" then bad("events must be a table {[frame] = name}") end
    for k, v in pairs(def.events) do
      if math.type(k) ~= "integer" or k < 1 or k > #frames then
        bad(("events: %s is not a frame of the clip (1..%d)"):format(tostring(k), #frames))
      end
      events[k] = v
    end
  end
  return { name = name, frames = frames, fps = fps, loop = loop, events = events, hasEvents = next(events) ~= nil }
end

-- The clip frame (1-based) shown after t seconds, and whether a one-shot clip is over.
local function frameAt(clip, t)
  local step = math.floor(t * clip.fps + 1e-9)
  local n = #clip.frames
  if clip.loop then return step % n + 1, false end
  if step >= n then return n, true end
  return step + 1, false
end

-- ---------------------------------------------------------------------------------------
-- SpriteAnimation

---@class tycho.SpriteAnimation: tycho.Component
---@field sheet tycho.SpriteSheet
---@field clip string|nil the clip playing (or last played)
---@field frame integer the clip's frame shown, from 1
---@field clipTime number seconds into the clip
---@field speed number time multiplier (1)
---@field playing boolean
---@field finished boolean a one-shot clip reached its end
---@field onEvent fun(self: tycho.SpriteAnimation, event: any, frame: integer)|nil
---@field onFinish fun(self: tycho.SpriteAnimation, clip: string)|nil
local SpriteAnimation = tycho.component("SpriteAnimation")

---@param opts {sheet: tycho.SpriteSheet, clips: table<string, {frames?: integer[], from?: integer, to?: integer, fps?: number, loop?: boolean, events?: table<integer, any>}>, clip?: string, speed?: number, onEvent?: function, onFinish?: function}
function SpriteAnimation:init(opts)
  if type(opts) ~= "table" then argError(1, "new", "table expected, got " .. typeName(opts), 3) end
  local sheet = opts.sheet
  if getmetatable(sheet) ~= SpriteSheet then argError(1, "new", "sheet must be a tycho.spriteSheet, got " .. typeName(sheet), 3) end
  if type(opts.clips) ~= "table" or next(opts.clips) == nil then
    argError(1, "new", "clips must be a table {name = {frames = ..., fps = ...}}", 3)
  end
  local clips = {}
  for name, def in pairs(opts.clips) do
    if type(name) ~= "string" then argError(1, "new", "clip names must be strings", 3) end
    clips[name] = readClip(name, def, sheet)
  end
  self.sheet = sheet
  self._clips = clips
  self.speed = opts.speed or 1
  if type(self.speed) ~= "number" or self.speed ~= self.speed or self.speed < 0 then
    argError(1, "new", "speed must be a number >= 0", 3)
  end
  self.onEvent = opts.onEvent
  self.onFinish = opts.onFinish
  self.frame = 1
  self.clipTime = 0
  self.playing = false
  self.finished = false
  if opts.clip ~= nil then self:play(opts.clip) end
end

local function clipNames(self)
  local names = {}
  for name in pairs(self._clips) do names[#names + 1] = name end
  table.sort(names)
  return table.concat(names, ", ")
end

-- Shows the current frame on the Sprite.
local function show(self)
  local sprite, clip = self._sprite, self._clip
  if sprite and clip then sprite.rect = self.sheet.frames[clip.frames[self.frame]] end
end

---Plays clip `name` from its start (a clip already playing goes on unless `restart`).
---@param name string
---@param opts? {restart?: boolean}
function SpriteAnimation:play(name, opts)
  local clip = self._clips[name]
  if not clip then
    error(("SpriteAnimation:play: no clip '%s' (the clips are %s)"):format(tostring(name), clipNames(self)), 2)
  end
  if name == self.clip and self.playing and not (opts and opts.restart) then return end
  self.clip = name
  self._clip = clip
  self.clipTime = 0
  self.frame = 1
  self.playing = true
  self.finished = false
  self._entered = false -- the first frame's event fires on the next advance
  show(self)
end

---Stops on the current frame (play starts over).
function SpriteAnimation:stop() self.playing = false end
---Holds the current frame; resume goes on from it.
function SpriteAnimation:pause() self.playing = false end
function SpriteAnimation:resume()
  if self.clip and not self.finished then self.playing = true end
end

---The clip frame (from 1) clip `name` shows after t seconds, and whether a one-shot clip
---is over by then.
---@param name string
---@param t number
---@return integer, boolean
function SpriteAnimation:frameAt(name, t)
  local clip = self._clips[name]
  if not clip then error(("SpriteAnimation:frameAt: no clip '%s' (the clips are %s)"):format(tostring(name), clipNames(self)), 2) end
  return frameAt(clip, t)
end

local function fire(self, clip, frame)
  local event = clip.events[frame]
  if event ~= nil and self.onEvent then self:onEvent(event, frame) end
end

---Advances the clip by dt seconds (times speed): the animation phase calls it with the
---scene's delta.
---@param dt number
function SpriteAnimation:advance(dt)
  if not self.playing then return end
  local clip = self._clip
  if not self._entered then
    self._entered = true
    fire(self, clip, 1)
    if not self.playing or self._clip ~= clip then return end -- the event changed clip
  end
  local t0 = self.clipTime
  local t1 = t0 + dt * self.speed
  self.clipTime = t1
  if clip.hasEvents then
    -- Every frame entered between t0 and t1, in order.
    local n = #clip.frames
    local s0, s1 = math.floor(t0 * clip.fps + 1e-9), math.floor(t1 * clip.fps + 1e-9)
    if not clip.loop then s1 = math.min(s1, n - 1) end
    for s = s0 + 1, s1 do
      fire(self, clip, s % n + 1)
      if not self.playing or self._clip ~= clip or self.clipTime ~= t1 then return end
    end
  end
  -- frameAt, inline: this runs for every animated object every tick.
  local n, frame, over = #clip.frames, math.floor(t1 * clip.fps + 1e-9), false
  if clip.loop then frame = frame % n + 1
  elseif frame >= n then frame, over = n, true
  else frame = frame + 1 end
  if frame ~= self.frame then
    self.frame = frame
    show(self)
  end
  if over then
    self.playing = false
    self.finished = true
    if self.onFinish then self:onFinish(clip.name) end
  end
end

function SpriteAnimation:animation(dt) self:advance(dt) end

function SpriteAnimation:onAttach()
  local go = self.gameObject
  local sprite = go:getComponent(tycho.Sprite)
  if not sprite then
    sprite = go:addComponent(tycho.Sprite.new({ texture = self.sheet.texture, nearest = self.sheet.nearest }))
  elseif sprite.texture ~= self.sheet.texture then
    sprite.texture = self.sheet.texture
  end
  self._sprite = sprite
  if self.clip then show(self) else sprite.rect = self.sheet.frames[1] end
end

function SpriteAnimation:onDetach() self._sprite = nil end

tycho.SpriteAnimation = SpriteAnimation
return SpriteAnimation
