---@meta
-- scripts/meta/errors.lua: LuaLS annotations for tycho.errors (require("tycho.errors")), the
-- report of errors the engine caught that no scene.onError took (reference.md, Errors).

---The newest caught error, as the screen shows it.
---@class tycho.CaughtError
---The whole message: its first line, then the traceback from the user's file:line.
---@field message string
---The message's first line.
---@field first string
---The user's file:line the traceback starts at (nil when no user code was on the stack).
---@field where string|nil
---Where it happened: "error in update of GameObject 'name'", "error in gameLogic", ...
---@field header string
---How many times in a row it was reported.
---@field count integer
---tycho.now() of its first and of its latest report.
---@field at number
---@field last number

---Each distinct error (first line plus the user's file:line) is logged once in full; its
---repeats become one "(repeated N times in the last 1.0 s)" line a second and one when the
---run ends; a new or changed error is logged at once. Every error still counts.
---@class tycho.errors
---Seconds between two repeat lines of one error; an error unseen this long has stopped and is logged in full when it comes back (default 1).
---@field interval number
---Distinct errors logged in full per interval; more are counted on one line (default 20).
---@field maxReports integer
---Seconds the latest error stays on screen at least; it stays while it repeats (default 5).
---@field linger number
---Where log lines go (each ends with a newline); default: stderr.
---@field output fun(text: string)
local errors = {}

---Reports one caught error (what scenes without onError call): `info` is the scene's
---`{hook=, object=, component=}` or `{what = "header"}`.
---@param message any
---@param info? tycho.ErrorInfo|{what: string}
function errors.report(message, info) end

---Writes each owed repeat line whose interval is up (all of them with `force`); the engine
---calls it every frame and at quit.
---@param force? boolean
function errors.flush(force) end

---How many errors were reported here, repeats included.
---@return integer
function errors.count() end

---The newest error while it is current, else nil.
---@return tycho.CaughtError|nil
function errors.latest() end

---Forgets the newest error (clears the screen); a successful hot reload calls it.
function errors.clear() end

---Caught-error report and on-screen error (scripts/tycho/errors.lua).
tycho.errors = errors

---Counts of errors scenes caught.
---@class tycho.ErrorStats
---Errors raised in hooks and systems and caught by a scene since tycho.stats.reset(), whoever reported them.
---@field caught integer

---Errors caught in hooks since the last tycho.stats.reset() (the log shows repeats only as counts).
---@return tycho.ErrorStats
function tycho.stats.errors() end

---debug.traceback(message, level) less the engine's frames (C functions and scripts/)
---above the user's first frame and below the last: its first line is the user's file:line.
---@param message? string
---@param level? integer
---@return string
function tycho._traceback(message, level) end

---Makes debug.traceback a function with Lua's own text, frame for frame and name for name,
---that searches package.loaded once per call instead of once per frame (`tycho test` runs
---with it: busted takes a traceback per test). Returns Lua's own debug.traceback.
---@return fun(thread?: thread|string, message?: string, level?: integer): string original
function tycho._useFastTraceback() end

---@class tycho.Engine
---Why main.lua failed before it ever ran, while hot reload waits for a fixed save (nil once it ran). A run that ends with it set exits 1.
---@field startError string|nil

return errors
