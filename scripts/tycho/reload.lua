-- scripts/tycho/reload.lua: the hot-reload policy, what happens in the running Lua state
-- when a file changes (scripts/docs/reload.md is the user's side of it).
--
-- A changed module re-runs in place. Component classes are shared by name, so instances
-- see the new methods at once; a module's returned table is patched so code that already
-- holds it calls the new functions; what a file's top level registered (engine hooks,
-- systems, features, scene objects) is tracked per file and replaced when the file runs
-- again, never duplicated. Any failure (syntax, an error while the file runs, a throwing
-- onReload) rolls the file's changes back, is reported once, and the last good version
-- keeps running. Shaders, textures and meshes go to the renderer.

local tycho = require("tycho")
local errors = require("tycho.errors")

local M = {}

---When true, successful reloads print nothing (failures are always reported).
---@type boolean
M.quiet = false

local records = {}   -- normalized file -> {regs = last good run's registrations}
local nameOf = {}    -- normalized file -> module name, as require loaded it
local stack = {}     -- the records whose top level is running now (require nests)
local keeping = 0    -- > 0 inside reload.keep's builder: nothing is tracked
local reported = {}  -- normalized file -> the last failure printed (report once)
local kept = {}      -- reload.keep's values by key
local installed = false
local state = { engine = nil, main = nil, watch = nil, count = 0 }

local SHADER_EXT = { vert = true, frag = true, comp = true, glsl = true, geom = true }
local ASSET_EXT = { png = true, jpg = true, jpeg = true, tga = true, bmp = true, hdr = true,
  obj = true, gltf = true, glb = true }
local AUDIO_EXT = { wav = true, ogg = true, oga = true, flac = true, mp3 = true }

-- One spelling per file: the watcher, package.searchpath and loadfile may differ by "./"
-- or doubled slashes.
local function normalize(path)
  path = path:gsub("/+", "/"):gsub("/%./", "/"):gsub("^%./", "")
  return path
end

local function extension(path) return (path:match("%.([%w]+)$") or ""):lower() end

local lastTrace
local function onError(e)
  lastTrace = tycho._traceback(tostring(e), 2)
  return e
end

-- ---------------------------------------------------------------------------------------
-- Tracking what a file's top level registers

local function record(reg)
  local top = stack[#stack]
  if top and keeping == 0 then top.pending[#top.pending + 1] = reg end
end

local function undo(regs)
  for i = #regs, 1, -1 do
    local ok, err = pcall(regs[i].undo)
    if not ok then io.stderr:write("tycho: reload: undoing a registration failed: ", tostring(err), "\n") end
    regs[i] = nil
  end
end

local function removeFrom(list, fn)
  for i = #list, 1, -1 do
    if list[i] == fn then
      table.remove(list, i)
      return
    end
  end
end

-- Wraps the registering functions once; untracked calls (a component adding a system
-- at frame 200) cost one table lookup more.
local function install()
  if installed then return end
  installed = true
  local Engine = require("tycho.engine").Engine
  for method, key in pairs({ beforeFrame = "_beforeFrame", beforeRender = "_beforeRender", afterFrame = "_afterFrame",
    onQuit = "_onQuit" }) do
    local original = Engine[method]
    Engine[method] = function(self, fn)
      local r = original(self, fn)
      record({ undo = function() removeFrom(self[key], fn) end })
      return r
    end
  end
  local addFeature = Engine.addFeature
  Engine.addFeature = function(self, f, where)
    local r = addFeature(self, f, where)
    record({ undo = function() self:removeFeature(f) end })
    return r
  end
  -- Objects and systems are reported by the scene binding itself: wrapping its C
  -- functions would change their error messages and cost every call.
  tycho._setTracker(function(kind, value, scene)
    if kind == "object" then
      record({ undo = function() pcall(value.destroy, value) end })
    else
      record({ undo = function() scene:removeSystem(value) end })
    end
  end)
  -- A class declared while a file runs is snapshotted first, so a failed run restores it.
  local component = tycho.component
  local function declare(name)
    local class = component(name)
    local top = stack[#stack]
    if top and not top.classes[class] then
      local copy = {}
      for k, v in next, class do copy[k] = v end
      top.classes[class] = copy
      top.classOrder[#top.classOrder + 1] = class
    end
    return class
  end
  tycho.component = declare
  package.loaded["tycho.component"] = declare
  -- Modules loaded from files are tracked from their first run on.
  local searcher = package.searchers[2]
  package.searchers[2] = function(name)
    local loader, file = searcher(name)
    if type(loader) ~= "function" then return loader, file end
    return function(...)
      local key = normalize(file)
      nameOf[key] = name
      local rec = records[key] or {}
      records[key] = rec
      local ok, result, regs = M._execute(rec, loader, ...)
      if not ok then
        undo(regs)
        error(result, 0)
      end
      rec.regs = regs
      return result
    end, file
  end
end

local function restoreClasses(snapshots, order)
  for _, class in ipairs(order) do
    local copy = snapshots[class]
    for k in next, class do if copy[k] == nil then rawset(class, k, nil) end end
    for k, v in next, copy do rawset(class, k, v) end
  end
  if #order > 0 then tycho._classChanged() end
end

-- Runs chunk(...) as file rec's top level; returns ok, result, its registrations.
function M._execute(rec, chunk, ...)
  rec.pending, rec.classes, rec.classOrder = {}, {}, {}
  stack[#stack + 1] = rec
  local ok, result = xpcall(chunk, onError, ...)
  table.remove(stack)
  local regs = rec.pending
  rec.pending = nil
  if not ok then restoreClasses(rec.classes, rec.classOrder) end
  return ok, result, regs
end

---Returns the value kept under `key`, building it with `build()` the first time only:
---what main.lua makes inside survives main.lua's re-runs (objects made inside are not
---replaced on reload).
---@param key string
---@param build fun(): any
---@return any
function M.keep(key, build)
  if type(key) ~= "string" then
    error(("bad argument #1 to 'keep' (string expected, got %s)"):format(type(key)), 2)
  end
  if type(build) ~= "function" then
    error(("bad argument #2 to 'keep' (function expected, got %s)"):format(type(build)), 2)
  end
  local v = kept[key]
  if v == nil then
    keeping = keeping + 1
    local ok, result = pcall(build)
    keeping = keeping - 1
    if not ok then error(result, 0) end
    v = result
    kept[key] = v
  end
  return v
end

-- ---------------------------------------------------------------------------------------
-- Patching tables other code holds

local function plain(t) return type(t) == "table" and getmetatable(t) == nil end

-- Copies new's functions into old (and, when takeData, its other values too), recursing
-- into plain tables both have; old's functions that new dropped are dropped. map gets
-- oldFunction -> newFunction for callers that hold functions themselves.
local function patch(old, new, takeData, map, seen)
  if seen[old] then return end
  seen[old] = true
  for k, v in next, new do
    local ov = rawget(old, k)
    if type(v) == "function" then
      if type(ov) == "function" and ov ~= v then map[ov] = v end
      rawset(old, k, v)
    elseif v == new then
      -- M.__index = M: old keeps pointing at itself
    elseif plain(v) and plain(ov) and ov ~= v then
      patch(ov, v, takeData, map, seen)
    elseif ov == nil or takeData then
      rawset(old, k, v)
    end
  end
  for k, ov in next, old do
    if type(ov) == "function" and rawget(new, k) == nil then rawset(old, k, nil) end
  end
end

---Makes `old` (the table other code holds) run `new`'s code: calls new.onReload(old,
---...) when defined (it may migrate state: its values then win), patches new's
---functions into old, then makes new a window on old so the new functions' upvalue reads
---and writes the same fields. Functions found in `holders` (tables of functions, e.g. session handlers)
---that were old's are swapped for the new ones. Returns true, or nil and the error.
---@param old table
---@param new table
---@param holders? table[]
---@param ... any passed to onReload after old
---@return boolean|nil ok, string|nil message
function M.patchModule(old, new, holders, ...)
  if type(old) ~= "table" or type(new) ~= "table" then
    error("bad argument to 'patchModule' (two tables expected)", 2)
  end
  if old == new then return true end
  local hook = rawget(new, "onReload")
  if type(hook) == "function" then
    local ok, err = xpcall(hook, onError, old, ...)
    if not ok then return nil, "onReload: " .. tostring(err) end
  end
  local map = {}
  patch(old, new, type(hook) == "function", map, {})
  if rawget(new, "__index") == nil and getmetatable(new) == nil then
    -- The new functions' upvalue becomes a window on old: `M.count = M.count + 1` in
    -- new code updates what everyone else reads.
    for k in next, new do rawset(new, k, nil) end
    setmetatable(new, {
      __index = old, __newindex = old, __len = function() return #old end,
      __pairs = function() return next, old, nil end,
    })
  else
    -- A class-like module (used as a metatable, where only raw fields count): a copy.
    for k, v in next, old do
      if v ~= old then rawset(new, k, v) end
    end
  end
  for _, holder in ipairs(holders or {}) do
    if type(holder) == "table" then
      for k, v in next, holder do
        if map[v] then rawset(holder, k, map[v]) end
      end
    end
  end
  return true
end

-- ---------------------------------------------------------------------------------------
-- Reporting

-- logged: the renderer already printed it (a GLSL error): only the screen needs it.
local function report(key, message, logged)
  if reported[key] == message then return end
  reported[key] = message
  local engine = state.engine
  if key == state.main and engine and engine.startError then
    -- main.lua has never run: there is no good version, the game waits for the next save.
    engine.startError = message
    engine._startErrorView = M._errorView(message)
    io.stderr:write("tycho: ", key, " still fails, waiting for the next save: ", message, "\n")
    io.stderr:flush()
    return
  end
  if not logged then
    io.stderr:write("tycho: reload of ", key, " failed, keeping the last good version: ", message, "\n")
    io.stderr:flush()
  end
  if engine and engine.notify then engine:notify("reload failed: " .. message, 5) end
end

-- What the engine shows on screen for main.lua failing before it ever ran.
function M._errorView(message)
  local first = message:match("^[^\n]*")
  return { header = ("%s failed; waiting for a fixed save"):format(state.main:match("[^/]*$")), first = first,
    where = message:match("\nstack traceback:\n\t([^\n]-:%d+): "), count = 1 }
end

local function succeeded(key, started)
  reported[key] = nil
  errors.clear() -- the error on screen belonged to the old code
  local engine = state.engine
  if key == state.main and engine and engine.startError then
    engine.startError, engine._startErrorView = nil, nil
    io.stderr:write("tycho: ", key, " ran: the game starts\n")
  end
  state.count = state.count + 1
  local ms = (tycho.now() - started) * 1000
  local text = ("reloaded %s in %.1f ms"):format(key, ms)
  if M.quiet then return end
  io.stderr:write("tycho: ", text, "\n")
  io.stderr:flush()
  local engine = state.engine
  if engine and engine.notify then engine:notify(text, 2) end
end

-- Whether the file is missing or empty: mid-save (truncated, not yet written) or gone.
local function unreadable(path)
  local f = io.open(path, "rb")
  if not f then return "the file is gone (deleted or renamed)" end
  local size = f:seek("end")
  f:close()
  if size == 0 then return "the file is empty (a save in progress?)" end
  return nil
end

-- The module name a file was loaded under, or nil when nothing loaded it.
local function moduleFor(key)
  local name = nameOf[key]
  if name and package.loaded[name] ~= nil then return name end
  for loaded in pairs(package.loaded) do
    if type(loaded) == "string" then
      local file = package.searchpath(loaded, package.path)
      if file and normalize(file) == key then
        nameOf[key] = loaded
        return loaded
      end
    end
  end
  return nil
end

local function callInstanceHooks(classes)
  local engine = state.engine or rawget(tycho, "engine")
  if not engine or #classes == 0 then return true end
  for _, go in ipairs(engine.scene:objects()) do
    for _, class in ipairs(classes) do
      if rawget(class, "onReload") then
        for _, c in ipairs(go:getComponents(class)) do
          local ok, err = xpcall(c.onReload, onError, c)
          if not ok then return nil, "onReload of " .. tostring(c) .. ": " .. tostring(err) end
        end
      end
    end
  end
  return true
end

-- Re-runs a file's chunk as its top level; on success commits (the previous run's
-- registrations undone), on failure rolls back. Returns the result or nil, message.
local function rerun(key, chunk, ...)
  local rec = records[key] or { regs = {} }
  records[key] = rec
  local ok, result, regs = M._execute(rec, chunk, ...)
  if not ok then
    undo(regs)
    return nil, tostring(result), nil
  end
  return true, result, regs, rec
end

local function reloadModule(key, path, name, started)
  local chunk, err = loadfile(path)
  if not chunk then return report(key, err) end
  local old = package.loaded[name]
  local preset = state.engine and state.engine.preset
  local ok, result, regs, rec = rerun(key, chunk, name, path)
  if not ok then return report(key, result) end
  local function rollback(message)
    undo(regs)
    restoreClasses(rec.classes, rec.classOrder)
    if state.engine and state.engine.preset ~= preset and preset then state.engine:setPreset(preset) end
    report(key, message)
  end
  if result == nil and type(old) == "table" then
    return rollback(("%s returned nothing (its last version returned a table)"):format(path))
  end
  local hooked, herr = callInstanceHooks(rec.classOrder)
  if not hooked then return rollback(herr) end
  if type(old) == "table" and type(result) == "table" and old ~= result then
    local patched, perr = M.patchModule(old, result)
    if not patched then return rollback(perr) end
    result = old
  end
  package.loaded[name] = result == nil and true or result
  undo(rec.regs or {})
  rec.regs = regs
  succeeded(key, started)
  return true
end

-- main.lua re-runs whole; what its last run made is replaced once the new run succeeded.
local function reloadMain(key, path, started)
  local chunk, err = loadfile(path)
  if not chunk then return report(key, err) end
  local engine = state.engine
  local preset = engine and engine.preset
  local ok, result, regs, rec = rerun(key, chunk)
  if not ok then
    if engine and preset and engine.preset ~= preset then engine:setPreset(preset) end
    return report(key, result)
  end
  local hooked, herr = callInstanceHooks(rec.classOrder)
  if not hooked then
    undo(regs)
    restoreClasses(rec.classes, rec.classOrder)
    if engine and preset and engine.preset ~= preset then engine:setPreset(preset) end
    return report(key, herr)
  end
  undo(rec.regs or {})
  rec.regs = regs
  succeeded(key, started)
  return true
end

---Handles one changed file: reloads it when it is a loaded Lua module, the game's main
---file, a shader, an asset the renderer uses or a sound a clip was loaded from. Returns
---true when it reloaded, false when the reload failed (reported once; the last good version keeps running), nil when the
---file is nothing the running game uses.
---@param path string
---@param removed? boolean the file is gone
---@return boolean|nil
function M.file(path, removed)
  local started = tycho.now()
  local key = normalize(path)
  local ext = extension(key)
  if ext == "lua" then
    local isMain = key == state.main
    local name = not isMain and moduleFor(key) or nil
    if not isMain and not name then return nil end
    local why = removed and "the file is gone (deleted or renamed)" or unreadable(path)
    if why then
      report(key, why)
      return false
    end
    if isMain then return reloadMain(key, path, started) or false end
    return reloadModule(key, path, name, started) or false
  end
  if removed then return nil end
  local R = tycho._render
  if SHADER_EXT[ext] and R and R.reloadShader then
    local ok, err = R.reloadShader(path)
    if not ok then
      report(key, err, true)
      return false
    end
    succeeded(key, started)
    return true
  end
  local audio = tycho._audio
  if AUDIO_EXT[ext] and audio then
    local used, err = audio.reloadFile(path)
    if used == nil and err then
      report(key, err)
      return false
    end
    if used then
      succeeded(key, started)
      return true
    end
    return nil
  end
  if ASSET_EXT[ext] and R and R.reloadFile then
    local used, err = R.reloadFile(path)
    if used == nil and err then
      report(key, err)
      return false
    end
    if used then
      succeeded(key, started)
      return true
    end
  end
  return nil
end

---Reloads every file the watcher reported since the last call. The engine calls this at
---the start of each frame; returns how many files reloaded.
---@return integer
function M.poll()
  local watch = state.watch
  if not watch then return 0 end
  local changes = watch:poll()
  if not changes then return 0 end
  local n = 0
  for _, change in ipairs(changes) do
    if M.file(change.path, change.removed) then n = n + 1 end
  end
  return n
end

---Runs the game's main file with reloading on: registrations are tracked from the first
---line, and the engine polls the watcher over `dirs` at the start of every frame. When
---main.lua fails (a syntax error, an error while it runs) it is reported, the engine's
---`startError` holds the message and the run goes on with nothing in it, waiting: the next
---save of main.lua runs it. Without a watcher (inotify unavailable) it raises what
---main.lua raises instead (the run stops, as without reloading).
---@param engine tycho.Engine
---@param main string the main file
---@param dirs string[] folders to watch recursively (missing ones are skipped)
function M.start(engine, main, dirs)
  if type(main) ~= "string" then
    error(("bad argument #2 to 'start' (string expected, got %s)"):format(type(main)), 2)
  end
  install()
  state.engine, state.main = engine, normalize(main)
  local watch, err = tycho._watch.open(0.01)
  if watch then
    for _, dir in ipairs(dirs or {}) do
      if tycho.fs.exists(dir) then watch:add(dir) end
    end
    state.watch = watch
    engine._reload = M.poll
  else
    io.stderr:write("tycho: hot reload is off: ", tostring(err), "\n")
  end
  local rec = { regs = {} }
  records[state.main] = rec
  local chunk, message = loadfile(main)
  local raw = message
  if chunk then
    lastTrace = nil
    local ok, result, regs = M._execute(rec, chunk)
    if ok then
      rec.regs = regs
      return
    end
    undo(regs)
    raw = tostring(result)
    message = lastTrace or raw
  end
  if not state.watch then error(message, 0) end
  reported[state.main] = raw -- the same mistake saved again says nothing more
  engine.startError = message
  engine._startErrorView = M._errorView(message)
  io.stderr:write("tycho: ", main, ": ", message, "\n",
    "tycho: waiting for ", main, " to be saved without errors (hot reload is on; --no-watch exits instead)\n")
  io.stderr:flush()
end

---How many reloads succeeded so far.
---@return integer
function M.count() return state.count end

tycho.reload = M
return M
