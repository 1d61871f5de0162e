-- tests/reload/harness.lua: what the hot-reload specs share: a scratch copy of a fixture,
-- a `tycho run` or `tycho serve` child process whose output lands in a log file, waiting
-- for a line in that log, and saving files the way editors do. Load with dofile.

local testing = require("tycho.testing")
local tycho = require("tycho")

local H = {}
H.HERE = testing.here()
H.shq = testing.quote

function H.sleep(s) os.execute("sleep " .. s) end

function H.read(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

---Writes path in place (truncate, write, close): what most scripts and some editors do.
function H.write(path, text)
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
end

---Saves the way vim and VS Code do: a temp file beside it, renamed over the target.
function H.save(path, text)
  local tmp = path .. ".tmp"
  H.write(tmp, text)
  assert(os.rename(tmp, path))
end

---A fresh folder holding a copy of tests/reload/fixtures/NAME (nil: empty).
function H.scratch(name)
  local dir = os.tmpname()
  os.remove(dir)
  assert(os.execute("mkdir -p " .. H.shq(dir)))
  if name then assert(os.execute(("cp -R %s/. %s"):format(H.shq(H.HERE .. "/fixtures/" .. name), H.shq(dir)))) end
  return dir
end

function H.remove(path) os.execute("rm -rf " .. H.shq(path)) end

---Starts `tycho ARGS...` in the background (env: a prefix like "SDL_VIDEODRIVER=offscreen").
---Returns a process handle: .log (combined stdout and stderr), .pid.
function H.spawn(env, ...)
  local base = os.tmpname()
  local p = { log = base .. ".log", pidFile = base .. ".pid", exitFile = base .. ".exit", base = base }
  local args = {}
  for i = 1, select("#", ...) do args[#args + 1] = H.shq(select(i, ...)) end
  os.execute(("( %s %s %s >%s 2>&1 & echo $! >%s; wait $!; echo $? >%s ) >/dev/null 2>&1 &"):format(
    env or "", H.shq(tycho.executable), table.concat(args, " "), H.shq(p.log), H.shq(p.pidFile), H.shq(p.exitFile)))
  for _ = 1, 100 do
    p.pid = tonumber(H.read(p.pidFile) or "")
    if p.pid then break end
    H.sleep(0.01)
  end
  assert(p.pid, "the child process did not start")
  return p
end

function H.output(p) return H.read(p.log) or "" end

---Waits until the log matches pattern at or after byte `from` (default 1); returns the
---match's end position, or raises with the log after `timeout` seconds (default 5).
function H.waitFor(p, pattern, from, timeout)
  local deadline = tycho.now() + (timeout or 5)
  repeat
    local out = H.output(p)
    local _, e = out:find(pattern, from or 1)
    if e then return e end
    if H.read(p.exitFile) then break end
    H.sleep(0.02)
  until tycho.now() > deadline
  error(("timed out waiting for %q; output:\n%s"):format(pattern, H.output(p)), 2)
end

---Stops the process (SIGTERM) and returns its exit code and output.
function H.stop(p)
  os.execute("kill -TERM " .. p.pid .. " 2>/dev/null")
  local code
  for _ = 1, 250 do
    code = tonumber(H.read(p.exitFile) or "")
    if code then break end
    H.sleep(0.02)
  end
  local out = H.output(p)
  for _, suffix in ipairs({ "", ".log", ".pid", ".exit" }) do os.remove(p.base .. suffix) end
  return code, out
end

---Counts the plain-text occurrences of needle in text.
function H.count(text, needle)
  local n, i = 0, 1
  while true do
    local s, e = text:find(needle, i, true)
    if not s then return n end
    n, i = n + 1, e + 1
  end
end

return H
