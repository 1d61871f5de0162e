-- scripts/tycho/testing.lua: helpers for specs that drive whole games headless, the
-- way `tycho run --headless` does, but in-process so a spec can inspect the scene.

local tycho = require("tycho")

local M = {}

---Loads the game in `dir` (its main.lua, with `dir` on package.path) into a fresh
---`tycho.engine`, then advances `frames` frames of `dt` seconds (default 1/60).
---Returns the engine; `tycho.engine` is restored to what it was.
---@param dir string
---@param frames? integer
---@param dt? number
---@return tycho.Engine
function M.runGame(dir, frames, dt)
  local engine = require("tycho.engine").new({ headless = true })
  local previous, previousPath = rawget(tycho, "engine"), package.path
  tycho.engine = engine
  package.path = ("%s/?.lua;%s/?/init.lua;%s"):format(dir, dir, package.path)
  local ok, err = pcall(function()
    local chunk = assert(loadfile(dir .. "/main.lua"))
    chunk()
    for _ = 1, frames or 0 do engine:step(dt or 1 / 60) end
  end)
  tycho.engine, package.path = previous, previousPath
  if not ok then error(err, 0) end
  return engine
end

---The folder of the calling file (for specs that sit beside what they test).
---@param level? integer
---@return string
function M.here(level)
  local source = debug.getinfo((level or 1) + 1, "S").source
  return (source:sub(2):match("^(.*)/[^/]*$")) or "."
end

---Quotes a value for a POSIX shell command line.
---@param value any
---@return string
function M.quote(value)
  return "'" .. tostring(value):gsub("'", "'\\''") .. "'"
end

---Runs a shell command; returns its exit code and its combined stdout and stderr.
---@param command string
---@return integer code, string output
function M.shell(command)
  local pipe = assert(io.popen(command .. " 2>&1; echo \"exit:$?\""))
  local output = pipe:read("a")
  pipe:close()
  local code = tonumber(output:match("exit:(%d+)%s*$"))
  return code, (output:gsub("exit:%d+%s*$", ""))
end

---Runs `tycho ARGS...` as a child process; returns its exit code and its combined output.
---@param ... string
---@return integer code, string output
function M.exec(...)
  local parts = { M.quote(tycho.executable) }
  for i = 1, select("#", ...) do parts[#parts + 1] = M.quote(select(i, ...)) end
  return M.shell(table.concat(parts, " "))
end

return M
