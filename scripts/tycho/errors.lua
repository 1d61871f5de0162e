-- scripts/tycho/errors.lua: what becomes of an error the engine caught and nobody else
-- handles (a component hook or a system of a scene without onError, main.lua failing at
-- start under hot reload). One broken `update` on a thousand objects raises sixty
-- thousand times a second: the log gets each distinct error once, in full, then one line a
-- second saying how often it repeated; the latest error is kept for the screen. Every error
-- still counts (tycho.stats.errors(), errors.count()); only the log is deduplicated.

local tycho = require("tycho")

local M = {}

---Seconds between two "repeated N times" lines of one error; an error not seen for this
---long has stopped, and is reported in full again when it comes back.
---@type number
M.interval = 1.0

---Distinct errors reported in full per interval; more are only counted, on one line.
---@type integer
M.maxReports = 20

---Seconds the latest error stays on screen at least (it stays while it repeats).
---@type number
M.linger = 5

---Where report lines go (each ends with a newline): stderr by default.
---@type fun(text: string)
M.output = function(text)
  io.stderr:write(text)
  io.stderr:flush()
end

local total = 0       -- every error reported here
local entries = {}    -- key -> entry (see M.report)
local live = {}       -- the entries in the order first seen, to flush in order
local shown, shownSince, suppressed, suppressedKinds = 0, nil, 0, {}
local latest = nil    -- the newest error, for the screen

-- The first line of the traceback, when it names a file: the user's file:line.
local function userLocation(message)
  return message:match("\nstack traceback:\n\t([^\n]-:%d+): ")
end

local function describe(info)
  if type(info) ~= "table" then return tostring(info or "error") end
  if info.what then return info.what end
  local object = info.object
  local name = "?"
  if object ~= nil then
    local ok, n = pcall(function() return object.name end)
    if ok and n ~= nil then name = tostring(n) end
  end
  if object == nil and info.component == nil then return "error in " .. tostring(info.hook) end
  return ("error in %s of GameObject '%s'"):format(tostring(info.hook), name)
end

local function plural(n) return n == 1 and "once" or n .. " times" end

local WEAK = { __mode = "k" }

-- The repeats since e's last line; on several objects the line names none of them.
local function summarize(e, now)
  local header, on = e.header, ""
  if e.objectCount > 1 then
    header = e.hookHeader
    on = (", on %d GameObjects"):format(e.objectCount)
  end
  M.output(("tycho: %s: %s (repeated %s in the last %.1f s%s)\n"):format(
    header, e.first, plural(e.count), now - e.since, on))
  e.count, e.since, e.objects, e.objectCount = 0, now, setmetatable({}, WEAK), 0
end

---Writes what is owed: for each error that repeated since its last line, "(repeated N
---times in the last T s)" once its interval is up (every one with `force`); errors not
---seen for an interval are forgotten (reported in full when they come back). The engine
---calls this every frame and when it quits.
---@param force? boolean write every pending count now
function M.flush(force)
  if #live == 0 and not shownSince and not latest then return end
  local now = tycho.now()
  local keep = 0
  for i = 1, #live do
    local e = live[i]
    if e.count > 0 and (force or now - e.since >= M.interval) then summarize(e, now) end
    if force or now - e.last >= M.interval then
      entries[e.key] = nil
      if e.count > 0 then summarize(e, now) end
    else
      keep = keep + 1
      live[keep] = e
    end
  end
  for i = #live, keep + 1, -1 do live[i] = nil end
  if shownSince and (force or now - shownSince >= M.interval) then
    if suppressed > 0 then
      local kinds = 0
      for _ in pairs(suppressedKinds) do kinds = kinds + 1 end
      M.output(("tycho: %d more errors (%d distinct) not shown in the last %.1f s\n"):format(
        suppressed, kinds, now - shownSince))
    end
    shown, shownSince, suppressed, suppressedKinds = 0, nil, 0, {}
  end
  if latest and now - latest.last >= M.interval and now - latest.at >= M.linger then latest = nil end
end

---Reports one caught error: `message` (its traceback below the first line), `info` the
---scene's `{hook=, object=, component=}` or `{what = "text"}`. The first time an error
---(the same first line at the same user file:line) is seen, it is written in full; its
---repeats only count, and are written as one line a second.
---@param message any
---@param info? tycho.ErrorInfo|{what: string}
function M.report(message, info)
  total = total + 1
  local now = tycho.now()
  message = tostring(message)
  local first = message:match("^[^\n]*")
  local where = userLocation(message)
  local key = first .. "\0" .. (where or "")
  local e = entries[key]
  if e and now - e.last >= M.interval then -- it had stopped: it comes back in full
    M.flush()
    e = entries[key]
  end
  if latest and latest.key == key then
    latest.last, latest.count = now, latest.count + 1
  else
    latest = { key = key, message = message, first = first, where = where, header = describe(info), at = now,
      last = now, count = 1 }
  end
  if e then
    e.count, e.last, e.total = e.count + 1, now, e.total + 1
    local object = type(info) == "table" and info.object
    if object and not e.objects[object] then
      e.objects[object] = true
      e.objectCount = e.objectCount + 1
    end
    if now - e.since >= M.interval then M.flush() end
    return
  end
  if shownSince and now - shownSince >= M.interval then M.flush() end
  if shown >= M.maxReports then
    suppressed = suppressed + 1
    suppressedKinds[key] = true
    return
  end
  shown = shown + 1
  shownSince = shownSince or now
  e = { key = key, first = first, header = describe(info), count = 0, total = 1, since = now, last = now,
    objects = setmetatable({}, WEAK), objectCount = 0,
    hookHeader = type(info) == "table" and info.hook and "error in " .. tostring(info.hook) or describe(info) }
  entries[key] = e
  live[#live + 1] = e
  local text = message
  if where and not first:find(where, 1, true) then
    -- The message names no place, or the engine's: say where in the user's code it happened.
    text = ("%s (at %s)%s"):format(first, where, message:sub(#first + 1))
  end
  M.output(("tycho: %s: %s\n"):format(e.header, text))
end

---How many errors were reported here (repeats included) since the state started.
---@return integer
function M.count() return total end

---The newest error, while it is current (it repeats, or it is younger than
---`errors.linger` seconds): `{message=, first=, where=, header=, count=, at=, last=}`
---(`first`: the message's first line; `where`: the user's file:line; `count`: how many
---times in a row). nil when there is none.
---@return table|nil
function M.latest() return latest end

---Forgets the newest error (the screen clears): hot reload calls it when a file reloads.
function M.clear() latest = nil end

-- States with scenes report their caught errors here (a server module's state has none).
if tycho._setErrorReporter then tycho._setErrorReporter(M.report) end
tycho.errors = M
return M
