-- scripts/tycho/engine.lua: tycho.engine, what `tycho run` hands a game: one scene, its
-- clock, the fixed-step loop that drives it, and the per-frame hooks. The C run loop
-- calls engine:step(rawDt) once per frame; a window and renderer plug into the same
-- object without games changing.

local tycho = require("tycho")

---@class tycho.Engine
---@field scene tycho.Scene
---@field time tycho.Time
---@field loop tycho.Loop
---@field headless boolean
---@field frameCount integer
local Engine = {}
Engine.__index = Engine

local function hookList(self, key, fn, name)
  if type(fn) ~= "function" then
    error(("bad argument #1 to '%s' (function expected, got %s)"):format(name, type(fn)), 3)
  end
  local list = self[key]
  list[#list + 1] = fn
  return fn
end

---Runs fn() at the start of every frame, before the fixed ticks.
---@param fn fun()
function Engine:beforeFrame(fn) return hookList(self, "_beforeFrame", fn, "beforeFrame") end
---Runs fn(alpha) once per frame after the ticks, before components' updateRender.
---@param fn fun(alpha: number)
function Engine:beforeRender(fn) return hookList(self, "_beforeRender", fn, "beforeRender") end
---Runs fn() at the end of every frame.
---@param fn fun()
function Engine:afterFrame(fn) return hookList(self, "_afterFrame", fn, "afterFrame") end

---Asks the run loop to stop after the current frame.
function Engine:quit() self.quitting = true end

local function runAll(list, arg)
  for i = 1, #list do list[i](arg) end
end

---Advances one frame by rawDt seconds: beforeFrame hooks, the loop's fixed ticks, the
---render step (beforeRender hooks and components' updateRender), afterFrame hooks.
---@param rawDt number
---@return integer steps, number alpha
function Engine:step(rawDt)
  runAll(self._beforeFrame)
  local steps, alpha = self.loop:advance(rawDt)
  runAll(self._afterFrame)
  self.frameCount = self.frameCount + 1
  return steps, alpha
end

local M = {}

---Creates the engine object `tycho run` installs as `tycho.engine`.
---@param opts? {headless?: boolean, fixedTimestep?: number, maxSubSteps?: integer}
---@return tycho.Engine
function M.new(opts)
  opts = opts or {}
  local scene = tycho.Scene.new()
  local self = setmetatable({
    scene = scene,
    time = scene.time,
    headless = opts.headless ~= false,
    frameCount = 0,
    quitting = false,
    _beforeFrame = {},
    _beforeRender = {},
    _afterFrame = {},
  }, Engine)
  -- One context table reused every frame: updateRender allocates nothing per frame.
  local ctx = { alpha = 0, engine = self, time = scene.time }
  self.renderContext = ctx
  self.loop = tycho.Loop.new({
    scene = scene,
    fixedTimestep = opts.fixedTimestep or 1 / 60,
    maxSubSteps = opts.maxSubSteps or 8,
    render = function(alpha)
      ctx.alpha = alpha
      runAll(self._beforeRender, alpha)
      scene:updateRender(ctx)
    end,
  })
  return self
end

M.Engine = Engine
return M
