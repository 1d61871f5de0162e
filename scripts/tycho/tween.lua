-- scripts/tycho/tween.lua: tycho.tween(target, seconds, {field = to, ...}, easing), numbers
-- on any table or userdata (a GameObject's position, a component's field, a colour table)
-- moved from their values now to the given ones.
--
-- Tweens run on a scene's clock: each scene with tweens gets one system in the animation
-- phase (so tweens run before the components' animation hooks) that advances them all by
-- the scene's delta, which is scaled time: a time scale of 0 pauses them. A tween whose
-- object is destroyed stops without a word, as the object's other hooks do.

local tycho = require("tycho")

local check = require("tycho.check")
local typeName = check.typeName

local function argError(n, msg, level)
  error(("bad argument #%d to 'tween' (%s)"):format(n, msg), level + 1)
end

-- ---------------------------------------------------------------------------------------
-- Easing: each maps t in [0, 1] to progress, 0 at 0 and 1 at 1 (Robert Penner's curves).

local pi, sin, cos, sqrt = math.pi, math.sin, math.cos, math.sqrt

local function outOf(f) return function(t) return 1 - f(1 - t) end end
local function inOutOf(f)
  return function(t)
    if t < 0.5 then return f(2 * t) / 2 end
    return 1 - f(2 - 2 * t) / 2
  end
end

local BACK = 1.70158
local ins = {
  quad = function(t) return t * t end,
  cubic = function(t) return t * t * t end,
  quart = function(t) return t * t * t * t end,
  quint = function(t) return t * t * t * t * t end,
  sine = function(t) return 1 - cos(t * pi / 2) end,
  expo = function(t) return t == 0 and 0 or 2 ^ (10 * t - 10) end,
  circ = function(t) return 1 - sqrt(1 - t * t) end,
  back = function(t) return t * t * ((BACK + 1) * t - BACK) end,
  elastic = function(t)
    if t == 0 or t == 1 then return t end
    return -(2 ^ (10 * t - 10)) * sin((t * 10 - 10.75) * (2 * pi / 3))
  end,
  bounce = function(t)
    -- The "in" bounce is the "out" one mirrored; the out curve is the classic four arcs.
    local u = 1 - t
    local n, d = 7.5625, 2.75
    local v
    if u < 1 / d then v = n * u * u
    elseif u < 2 / d then u = u - 1.5 / d; v = n * u * u + 0.75
    elseif u < 2.5 / d then u = u - 2.25 / d; v = n * u * u + 0.9375
    else u = u - 2.625 / d; v = n * u * u + 0.984375 end
    return 1 - v
  end,
}

---@alias tycho.Easing "linear"|"quadIn"|"quadOut"|"quadInOut"|"cubicIn"|"cubicOut"|"cubicInOut"|"quartIn"|"quartOut"|"quartInOut"|"quintIn"|"quintOut"|"quintInOut"|"sineIn"|"sineOut"|"sineInOut"|"expoIn"|"expoOut"|"expoInOut"|"circIn"|"circOut"|"circInOut"|"backIn"|"backOut"|"backInOut"|"elasticIn"|"elasticOut"|"elasticInOut"|"bounceIn"|"bounceOut"|"bounceInOut"

local easings = { linear = function(t) return t end }
for name, f in pairs(ins) do
  easings[name .. "In"] = f
  easings[name .. "Out"] = outOf(f)
  easings[name .. "InOut"] = inOutOf(f)
end

local easingNames = {}
for name in pairs(easings) do easingNames[#easingNames + 1] = name end
table.sort(easingNames)
easingNames = table.concat(easingNames, ", ")

-- ---------------------------------------------------------------------------------------
-- Tweens

---@class tycho.Tween
---@field target any
---@field duration number seconds
---@field elapsed number seconds played (after the delay)
---@field done boolean finished, cancelled or stopped with its object
---@field cancelled boolean
local Tween = { __name = "Tween" }
Tween.__index = Tween

-- scene -> {tweens = {...}, system = system}
local runners = setmetatable({}, { __mode = "k" })

-- The GameObject whose death ends a tween on target, if one is known.
local function ownerOf(target, opts)
  if opts.owner ~= nil then return opts.owner end
  local tn = typeName(target)
  if tn == "GameObject" then return target end
  if type(target) == "table" then
    local go = rawget(target, "gameObject")
    if typeName(go) == "GameObject" then return go end
  end
  return nil
end

local function alive(go) return go == nil or not go.destroyed end

local function step(tween, dt)
  if not alive(tween._owner) then
    tween.done = true
    return
  end
  if tween._delay > 0 then
    tween._delay = tween._delay - dt
    if tween._delay > 0 then return end
    dt = -tween._delay
    tween._delay = 0
  end
  if not tween._from then
    -- Start values are read when the tween starts (after its delay).
    local from = {}
    for k in pairs(tween._to) do from[k] = tween.target[k] end
    tween._from = from
  end
  tween.elapsed = tween.elapsed + dt
  -- A run of ticks sums to a hair under the duration (60 x 1/60 < 1): within a nanosecond is the end.
  local t = tween.elapsed >= tween.duration - 1e-9 and 1 or tween.elapsed / tween.duration
  local target, from, to = tween.target, tween._from, tween._to
  if t >= 1 then
    for k, v in pairs(to) do target[k] = v end
    tween.done = true
    local fns = tween._onComplete
    for i = 1, #fns do fns[i](tween) end
    return
  end
  local e = tween._ease(t)
  for k, v in pairs(to) do
    local a = from[k]
    target[k] = a + (v - a) * e
  end
end

-- Steps list[from..n]; r.at says which tween runs, so a caller that catches an error
-- knows whose it was and goes on after it (one pcall a tick, not one a tween).
local function stepFrom(r, list, from, n, dt)
  for i = from, n do
    r.at = i
    local tw = list[i]
    if not tw.done then step(tw, dt) end
  end
end

local function runnerFor(scene)
  local r = runners[scene]
  if r then return r end
  r = { tweens = {}, at = 0 }
  r.system = scene:addSystem("animation", function(dt)
    local list = r.tweens
    -- Tweens started by a completion callback join the list and start next tick.
    local n, from, failure = #list, 1, nil
    while from <= n do
      local ok, err = pcall(stepFrom, r, list, from, n, dt)
      if ok then break end
      local tw = list[r.at]
      tw.done = true
      -- A destroyed object's position (or rotation, scale) is emptied and refuses every
      -- access: its tween stops quietly. Any other error is the game's, reported after the
      -- other tweens have run.
      local target = tw.target
      local dead = type(target) == "table" and next(target) == nil and tostring(err):find("was destroyed", 1, true)
      if not dead then failure = failure or err end
      from = r.at + 1
    end
    local j = 0
    for i = 1, #list do
      local tw = list[i]
      if not tw.done then
        j = j + 1
        list[j] = tw
      end
    end
    for i = #list, j + 1, -1 do list[i] = nil end
    if failure then error(failure, 0) end
  end)
  runners[scene] = r
  return r
end

local function sceneFor(owner, opts)
  if opts.scene ~= nil then return opts.scene end
  if owner ~= nil and not owner.destroyed then
    local s = owner.scene
    if s then return s end
  end
  local engine = rawget(tycho, "engine")
  return engine and engine.scene or nil
end

---Moves target's numeric fields from their values when the tween starts to those in
---`to` over `seconds`, following `easing` (a name or a function of t in 0..1; "linear").
---opts: `delay` (seconds), `onComplete` (fn(tween)), `scene` (whose clock runs it: by
---default the target's object's scene, else tycho.engine's), `owner` (a GameObject whose
---destruction stops the tween; by default the target when it is a GameObject or a
---component's object).
---@param target table|userdata
---@param seconds number
---@param to table<string, number>
---@param easing? tycho.Easing|fun(t: number): number
---@param opts? {delay?: number, onComplete?: fun(tween: tycho.Tween), scene?: tycho.Scene, owner?: tycho.GameObject}
---@return tycho.Tween
function tycho.tween(target, seconds, to, easing, opts)
  local tt = type(target)
  if tt ~= "table" and tt ~= "userdata" then argError(1, "table or userdata expected, got " .. typeName(target), 2) end
  if type(seconds) ~= "number" or seconds ~= seconds or seconds < 0 or seconds == math.huge then
    argError(2, "seconds must be a number >= 0, got " .. tostring(seconds), 2)
  end
  if type(to) ~= "table" or next(to) == nil then argError(3, "a table {field = number, ...} expected", 2) end
  for k, v in pairs(to) do
    if type(v) ~= "number" or v ~= v then argError(3, ("'%s' must go to a number, got %s"):format(tostring(k), tostring(v)), 2) end
  end
  local ease
  if easing == nil then ease = easings.linear
  elseif type(easing) == "function" then ease = easing
  else
    ease = easings[easing]
    if not ease then
      argError(4, ("unknown easing '%s' (the easings are %s)"):format(tostring(easing), easingNames), 2)
    end
  end
  if opts ~= nil and type(opts) ~= "table" then argError(5, "table expected, got " .. typeName(opts), 2) end
  opts = opts or {}
  local delay = opts.delay or 0
  if type(delay) ~= "number" or delay ~= delay or delay < 0 then argError(5, "delay must be a number >= 0", 2) end
  if opts.onComplete ~= nil and type(opts.onComplete) ~= "function" then argError(5, "onComplete must be a function", 2) end
  local owner = ownerOf(target, opts)
  if owner ~= nil and typeName(owner) ~= "GameObject" then argError(5, "owner must be a GameObject", 2) end
  for k in pairs(to) do
    if type(target[k]) ~= "number" then
      argError(3, ("the target's '%s' is not a number (it is %s)"):format(tostring(k), typeName(target[k])), 2)
    end
  end
  local scene = sceneFor(owner, opts)
  if scene == nil then argError(5, "no scene to run on: pass {scene = scene}", 2) end
  local tween = setmetatable({
    target = target,
    duration = seconds,
    elapsed = 0,
    done = false,
    cancelled = false,
    _to = to,
    _ease = ease,
    _delay = delay,
    _owner = owner,
    _onComplete = { opts.onComplete },
  }, Tween)
  local list = runnerFor(scene).tweens
  list[#list + 1] = tween
  return tween
end

---Stops the tween where it is; its completion callbacks do not run.
function Tween:cancel()
  if self.done then return end
  self.done = true
  self.cancelled = true
end

---Adds a completion callback fn(tween); returns the tween.
---@param fn fun(tween: tycho.Tween)
---@return tycho.Tween
function Tween:onComplete(fn)
  if type(fn) ~= "function" then error(("bad argument #1 to 'onComplete' (function expected, got %s)"):format(typeName(fn)), 2) end
  local fns = self._onComplete
  fns[#fns + 1] = fn
  return self
end

---The easing functions by name, each f(t) for t in 0..1.
---@type table<string, fun(t: number): number>
tycho.easing = easings

return Tween
