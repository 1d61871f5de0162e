-- scripts/tycho/engine.lua: tycho.engine, what `tycho run` hands a game: one scene, its
-- clock, the fixed-step loop that drives it, the per-frame hooks, and the renderer's
-- feature list. The C run loop calls engine:step(rawDt) once per frame.
--
-- A frame renders when there is a window, or when the game chose a preset or added a
-- feature: headless games that never mention rendering pay nothing for it, while
-- headless specs still see buckets and the pass list (the graph is built, never run).

local tycho = require("tycho")
local render = require("tycho.render") -- the components, tycho.features, tycho.presets
local errors = require("tycho.errors")
local audio = require("tycho.audio") -- the frame's audio pass (AudioSource, AudioListener)
local R = tycho._render

---@class tycho.Engine
---@field scene tycho.Scene
---@field time tycho.Time
---@field loop tycho.Loop
---@field headless boolean
---@field frameCount integer
---@field frameTime number wall seconds of the last frame
---@field debugOverlay boolean the on-screen overlay (F3 toggles it)
---@field debugOverlayCorner? "bottom-right"|"bottom-left"|"top-right"|"top-left" where it sits (bottom-right)
---@field preset tycho.Preset|nil
---@field width integer|nil headless frame size (the window's size otherwise)
---@field height integer|nil
---@field onFeatureError fun(message: string, feature: tycho.Feature)|nil replaces the stderr report
---@field startError string|nil why main.lua failed before it ever ran (hot reload waits for a fixed save; the run then exits 1)
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
---Runs fn() once when the run loop ends (engine:quit(), --frames reached, the window
---closed, SIGINT or SIGTERM), before the game's Lua state closes: the place to save.
---@param fn fun()
function Engine:onQuit(fn) return hookList(self, "_onQuit", fn, "onQuit") end

---Shows a line of text on screen (with the debug overlay) for `seconds` (default 2):
---hot reload says what reloaded, or why it failed.
---@param text string
---@param seconds? number
function Engine:notify(text, seconds)
  if type(text) ~= "string" then
    error(("bad argument #1 to 'notify' (string expected, got %s)"):format(type(text)), 2)
  end
  self._notice = text
  self._noticeUntil = tycho.now() + (seconds or 2)
end

---Asks the run loop to stop after the current frame.
function Engine:quit() self.quitting = true end

local function runAll(list, arg)
  for i = 1, #list do list[i](arg) end
end

-- Called by the C run loop once it stops: every onQuit hook, once, in the order added. A
-- hook's error is reported and the others still run (each may be saving something).
-- Returns false when one failed.
function Engine:_shutdown()
  if self._shutDown then return true end
  self._shutDown = true
  local ok = not self.startError -- main.lua never ran: the run failed
  for _, fn in ipairs(self._onQuit) do
    local done, err = xpcall(fn, tycho._traceback)
    if not done then
      ok = false
      io.stderr:write("tycho: onQuit hook failed: ", tostring(err), "\n")
    end
  end
  errors.flush(true) -- the repeats of an error still going on are owed to the log
  return ok
end

-- ---------------------------------------------------------------------------------------
-- Features

-- Reports a feature's error once and disables it; the game goes on.
function Engine:_featureFailed(f, where, message)
  f.enabled = false
  f.error = message
  local text = ("feature '%s' failed in %s and was disabled: %s"):format(tostring(f.name), where, tostring(message))
  local handler = self.onFeatureError
  if handler then
    handler(text, f)
  else
    io.stderr:write("tycho: ", text, "\n")
  end
end

local function traceback(message) return tycho._traceback(tostring(message), 2) end

-- Calls f[method](f, arg) with errors contained; false when it failed.
local function call(self, f, method, arg)
  local fn = f[method]
  if fn == nil then return true end
  local ok, err = xpcall(fn, traceback, f, arg)
  if not ok then self:_featureFailed(f, method, err) end
  return ok
end

local function checkFeature(f, fname)
  if type(f) ~= "table" then
    error(("bad argument #1 to '%s' (feature table expected, got %s)"):format(fname, type(f)), 3)
  end
  if type(f.name) ~= "string" then error(("bad argument #1 to '%s' (a feature needs a name)"):format(fname), 3) end
end

local function indexOf(list, f)
  for i = 1, #list do
    if list[i] == f then return i end
  end
  return nil
end

-- Where `{before = f_or_name}` or `{after = f_or_name}` puts a feature (the end if absent).
local function insertAt(list, where)
  if where == nil then return #list + 1 end
  local anchor, after = where.before, false
  if anchor == nil then anchor, after = where.after, true end
  for i = 1, #list do
    local f = list[i]
    if f == anchor or f.name == anchor then return after and i + 1 or i end
  end
  error(("addFeature: no feature %s in the list"):format(tostring(type(anchor) == "table" and anchor.name or anchor)), 3)
end

---Adds a feature (built-in or a table of the same shape) to the frame; calls
---f:setup(engine) once. `where` = {before = feature_or_name} or {after = ...} places it.
---@param f tycho.Feature
---@param where? {before?: tycho.Feature|string, after?: tycho.Feature|string}
---@return tycho.Feature
function Engine:addFeature(f, where)
  checkFeature(f, "addFeature")
  if where ~= nil and type(where) ~= "table" then
    error(("bad argument #2 to 'addFeature' (table expected, got %s)"):format(type(where)), 2)
  end
  local list = self._features
  if indexOf(list, f) then return f end
  table.insert(list, insertAt(list, where), f)
  if f.enabled == nil then f.enabled = true end
  if not self._setupDone[f] then
    self._setupDone[f] = true
    call(self, f, "setup", self)
  end
  return f
end

---Removes a feature and calls its destroy(). Returns whether it was in the list.
---@param f tycho.Feature
---@return boolean
function Engine:removeFeature(f)
  checkFeature(f, "removeFeature")
  local i = indexOf(self._features, f)
  if not i then return false end
  table.remove(self._features, i)
  self._setupDone[f] = nil
  call(self, f, "destroy")
  return true
end

---The features in frame order (a copy).
---@return tycho.Feature[]
function Engine:features() return table.move(self._features, 1, #self._features, 1, {}) end

---Replaces every feature with the preset's: removes the current ones, then p:apply(engine).
---@param p tycho.Preset
---@return tycho.Preset
function Engine:setPreset(p)
  if type(p) ~= "table" or type(p.apply) ~= "function" then
    error(("bad argument #1 to 'setPreset' (preset expected, got %s)"):format(type(p)), 2)
  end
  for i = #self._features, 1, -1 do self:removeFeature(self._features[i]) end
  self.preset = p
  p:apply(self)
  return p
end

-- ---------------------------------------------------------------------------------------
-- Frames

local function runStage(self, list, method, frame)
  for i = 1, #list do
    local f = list[i]
    if f.enabled ~= false and f[method] then
      if f.builtin then
        call(self, f, method, frame)
      else
        -- Passes a Lua feature declares are its own: a failing execute disables it.
        R.setOwner(f)
        call(self, f, method, frame)
        R.setOwner(nil)
      end
    end
  end
end

---Renders one frame now: the first Camera (a default one at the origin when there is
---none), every enabled feature's earlyUpdate, update, then addPasses in order, the debug
---overlay last when on; then the graph compiles and, with a window, executes. Returns
---the frame (its buckets and graph stay readable until the next frame).
---@return tycho.Frame
function Engine:frame()
  if not self.preset and #self._features == 0 and R.hasWindow() then
    self:setPreset(tycho.presets.forward({}))
  end
  local camera = self.scene:findCamera()
  local desc = self._frameDesc
  desc.camera = camera and camera.gameObject or nil
  desc.orthographic = camera and camera.orthographic or false
  desc.fov = camera and camera.fov or 60
  desc.size = camera and camera.size or 5
  desc.near = camera and camera.near or 0.1
  desc.far = camera and camera.far or 1000
  desc.time = self.time.elapsed
  desc.delta = self.time.unscaledDelta
  desc.width, desc.height = self.width, self.height
  desc.scene = self.scene
  local frame = R.beginFrame(desc)
  frame.camera = camera
  frame.engine = self
  frame.scene = self.scene

  local list = self._features
  runStage(self, list, "earlyUpdate", frame)
  runStage(self, list, "update", frame)
  runStage(self, list, "addPasses", frame)
  local drawn, drawErr = pcall(tycho.draw._addPasses) -- tycho.draw's queue, over the features' output
  if not drawn then self:_warnOnce("draw", drawErr) end
  local err = self._startErrorView or errors.latest()
  if err and R.hasWindow() then self:_drawError(err, frame) end
  -- A fresh notice (a reload, a reload's error) shows the overlay with it for a while.
  local notice = self._notice
  if notice and tycho.now() > self._noticeUntil then
    notice, self._notice = nil, nil
  end
  local showOverlay = self.debugOverlay or notice ~= nil
  R.setOverlay(showOverlay and true or false)
  if showOverlay then
    local overlay = self._overlay
    if not overlay then
      overlay = tycho.features.DebugOverlay()
      self._overlay = overlay
    end
    local corner = self.debugOverlayCorner
    if overlay._notice ~= notice or overlay._corner ~= corner then
      overlay._notice, overlay._corner = notice, corner
      overlay:configure({ text = notice, corner = corner })
    end
    if overlay.enabled ~= false then call(self, overlay, "addPasses", frame) end
  end

  self:_checkUndrawnUI()
  local ok, err, failures = R.endFrame()
  self.lastRenderError = not ok and err or nil
  for _, failure in ipairs(failures) do
    if failure.owner and failure.owner.enabled ~= false then
      self:_featureFailed(failure.owner, "pass '" .. failure.pass .. "'", failure.message)
    end
  end
  self._renderedThisStep = true
  local shots = self._pendingShots
  for i = 1, #shots do
    R.screenshot(shots[i]) -- a failure is logged as screenshot_failed
    shots[i] = nil
  end
  return frame
end

-- The latest error, in a box at the bottom of the screen while it lasts (errors.lua).
local ERROR_BOX, ERROR_TEXT, ERROR_COUNT = { 0.3, 0, 0, 0.85 }, { 1, 0.9, 0.9, 1 }, { 1, 0.7, 0.7, 1 }

-- Cuts text into lines of at most `width` characters.
local function wrap(text, width)
  local lines = {}
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do
    repeat
      lines[#lines + 1] = line:sub(1, width)
      line = line:sub(width + 1)
    until line == ""
  end
  return table.concat(lines, "\n")
end

-- The first `most` lines of text, the last of them "..." when some were left out: the box
-- covers at most half the screen, so the game stays visible behind a long message.
local function keepLines(text, most)
  local lines = {}
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do lines[#lines + 1] = line end
  if #lines <= most then return text end
  local kept = table.move(lines, 1, most - 1, 1, {})
  kept[most] = "..."
  return table.concat(kept, "\n")
end

function Engine:_drawError(e, frame)
  local ui = tycho.ui
  local scale = frame.height >= 1000 and 2 or 1.5
  local text = e.header .. ":\n" .. e.first
  if e.where and not e.first:find(e.where, 1, true) then text = text .. "\nat " .. e.where end
  text = wrap(text, math.max(20, (frame.width - 32) // math.floor(6 * scale)))
  text = keepLines(text, math.max(2, (frame.height // 2) // select(2, ui.measure("Ag", scale))))
  local w, h = ui.measure(text, scale)
  local count = e.count > 1 and ("%d times"):format(e.count) or nil
  local ch = count and select(2, ui.measure(count, scale)) or 0
  local x, y = 12, frame.height - h - ch - 18
  ui.rect(x - 6, y - 6, w + 12, h + ch + 12, ERROR_BOX)
  ui.text(x, y, text, ERROR_TEXT, scale)
  if count then ui.text(x, y + h, count, ERROR_COUNT, scale) end
  local layer = self._errorLayer
  if not layer then
    layer = ui.feature()
    layer.name = "ErrorOverlay"
    self._errorLayer = layer
  end
  call(self, layer, "addPasses", frame)
end

---Writes the window's back buffer as a PNG once this frame has rendered (at once when it
---already has). Returns true, or nil and a message ("no window" when headless).
---@param path string
---@return boolean|nil ok, string|nil message
function Engine:screenshot(path)
  if type(path) ~= "string" then
    error(("bad argument #1 to 'screenshot' (string expected, got %s)"):format(type(path)), 2)
  end
  if not R.hasWindow() then return nil, "no window" end
  if self._renderedThisStep then return R.screenshot(path) end
  local shots = self._pendingShots
  shots[#shots + 1] = path
  return true
end

-- Says once per run when each cause of silently undrawn work is found, never per frame.
function Engine:_warnOnce(cause, text)
  local warned = self._warned
  if warned[cause] then return end
  warned[cause] = true
  io.stderr:write("tycho: ", text, "\n")
end

-- The UI queue is emptied by the UI feature's pass; anything still queued once the frame's
-- passes are declared (or on a frame that does not render) has nothing to draw it. It is
-- dropped, so it cannot pile up, and the game is told once how to fix it.
function Engine:_checkUndrawnUI()
  local ui = tycho.ui
  if not ui then return end
  local n, firstCall = ui.queued()
  if n == 0 then return end
  ui.clear()
  self:_warnOnce("ui", ("%s: nothing draws it (no UI feature in this frame) — add one with "
    .. "engine:addFeature(tycho.ui.feature()) after engine:setPreset"):format(firstCall or "tycho.ui"))
end

-- Whether this frame renders at all (see the file's header).
function Engine:_renders()
  return R.hasWindow() or self.preset ~= nil or #self._features > 0
end

---Advances one frame by rawDt seconds: beforeFrame hooks, the loop's fixed ticks, the
---render step (beforeRender hooks, components' updateRender, engine:frame()), afterFrame
---hooks.
---@param rawDt number
---@return integer steps, number alpha
function Engine:step(rawDt)
  self._renderedThisStep = false
  self.frameTime = rawDt
  R.noteFrameTime(rawDt)
  local input = tycho.input
  if input and input.wasPressed("f3") then self.debugOverlay = not self.debugOverlay end
  tycho.net.update() -- network events reach handlers at the frame's start
  local reload = self._reload -- hot reload (scripts/tycho/reload.lua): changed files first
  if reload then reload() end
  runAll(self._beforeFrame)
  local steps, alpha = self.loop:advance(rawDt)
  audio.frame(rawDt, self.scene) -- sources and listener placed where this frame left them
  runAll(self._afterFrame)
  errors.flush() -- errors that repeated this past second: one line each
  self.frameCount = self.frameCount + 1
  return steps, alpha
end

local M = {}

---Creates the engine object `tycho run` installs as `tycho.engine`.
---@param opts? {headless?: boolean, fixedTimestep?: number, maxSubSteps?: integer, width?: integer, height?: integer}
---@return tycho.Engine
function M.new(opts)
  opts = opts or {}
  local scene = tycho.Scene.new()
  local self = setmetatable({
    scene = scene,
    time = scene.time,
    headless = opts.headless ~= false,
    frameCount = 0,
    frameTime = 0,
    quitting = false,
    debugOverlay = false,
    width = opts.width,
    height = opts.height,
    _beforeFrame = {},
    _beforeRender = {},
    _afterFrame = {},
    _onQuit = {},
    _features = {},
    _setupDone = setmetatable({}, { __mode = "k" }),
    _pendingShots = {},
    _frameDesc = {},
    _renderedThisStep = false,
    _warned = {},
  }, Engine)
  render.sceneEngines[scene] = self -- its cameras measure the screen against this engine
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
      if self:_renders() then self:frame() else self:_checkUndrawnUI() end
    end,
  })
  return self
end

M.Engine = Engine
M.render = render
return M
