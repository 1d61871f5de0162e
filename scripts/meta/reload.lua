---@meta
-- scripts/meta/reload.lua: LuaLS annotations for require("tycho.reload") (scripts/docs/reload.md).

---@class tycho.reload
---@field quiet boolean when true, successful reloads print nothing (failures are always reported)
local reload = {}

---Returns the value kept under `key`, building it with `build()` the first time only:
---what main.lua makes inside survives main.lua's re-runs.
---@param key string
---@param build fun(): any
---@return any
function reload.keep(key, build) end

---How many reloads succeeded so far.
---@return integer
function reload.count() end

---Reloads one changed file now: true, false (failed: reported, the last good version
---keeps running), or nil when nothing running uses the file.
---@param path string
---@param removed? boolean
---@return boolean|nil
function reload.file(path, removed) end

---Reloads every file the watcher reported; the engine calls it at the start of each frame.
---@return integer reloaded
function reload.poll() end

---Runs the game's main file with reloading on and watches `dirs` recursively. When
---main.lua fails it is reported, engine.startError holds the message and the run waits:
---the next save of main.lua runs it. Raises instead when no watcher could be opened.
---@param engine tycho.Engine
---@param main string
---@param dirs string[]
function reload.start(engine, main, dirs) end

---Makes `old` run `new`'s code: new.onReload(old, ...) first (it may migrate state), then
---new's functions patched into old; old functions found in `holders` are swapped too.
---@param old table
---@param new table
---@param holders? table[]
---@param ... any
---@return boolean|nil ok, string|nil message
function reload.patchModule(old, new, holders, ...) end

---@class tycho.Engine
local Engine = {}

---Shows a line of text on screen (with the debug overlay) for `seconds` (default 2).
---@param text string
---@param seconds? number
function Engine:notify(text, seconds) end

return reload
