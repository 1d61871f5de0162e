-- tests/server/harness.lua: what the tests/server specs share: start `tycho serve` as a child
-- process on a free loopback port with its own data folder, drive it with node's `ws`
-- (tests/server/client.js), stop it with SIGTERM or SIGKILL. Load with dofile.

local testing = require("tycho.testing")
local json = tycho.json

local H = {}
H.HERE = testing.here() -- tests/server
H.shq, H.run = testing.quote, testing.shell

function H.readFile(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

function H.sleep(s) os.execute("sleep " .. s) end

local checked
function H.requireClient()
  if checked then return end
  if H.run("command -v node") ~= 0 then
    error("server: `node` is not on PATH. Install nodejs and npm (sh .ci/deps does), then run "
      .. "`npm ci --prefix tests/server`.", 0)
  end
  if not H.readFile(H.HERE .. "/node_modules/ws/package.json") then
    error("server: ws is not installed in tests/server/node_modules. Run `npm ci --prefix tests/server`.", 0)
  end
  checked = true
end

---Runs tests/server/raw.js (a bare-TCP WebSocket client) with steps; its observations.
function H.raw(port, steps)
  H.requireClient()
  local code, out = H.run(("cd %s && node raw.js %s %s"):format(H.shq(H.HERE), H.shq(tostring(port)),
    H.shq(json.encode(steps))))
  if code ~= 0 then error("node raw.js failed (exit " .. tostring(code) .. "):\n" .. out, 0) end
  return H.parseLines(out)
end

function H.clientCommand(port, steps)
  -- port is a number, or "wss:PORT" for a server started with --tls-cert
  return ("cd %s && node client.js %s %s"):format(H.shq(H.HERE), H.shq(tostring(port)), H.shq(json.encode(steps)))
end

function H.parseLines(out)
  local events = {}
  for line in out:gmatch("[^\n]+") do
    local v, why = json.decode(line, { maxItems = 1000000 })
    if v == nil then
      error(("client printed something that is not JSON (%s; %d bytes): %s"):format(tostring(why), #line,
        line:sub(1, 300)), 0)
    end
    events[#events + 1] = v
  end
  return events
end

---Runs the steps; returns the client's observations (one table per printed line).
function H.client(port, steps)
  H.requireClient()
  local code, out = H.run(H.clientCommand(port, steps))
  if code ~= 0 then error("node client.js failed (exit " .. tostring(code) .. "):\n" .. out, 0) end
  return H.parseLines(out)
end

---A fresh empty folder (removed by H.removeTree).
function H.tempDir()
  local base = os.tmpname()
  os.remove(base)
  assert(os.execute("mkdir -p " .. H.shq(base)))
  return base
end

function H.removeTree(path) os.execute("rm -rf " .. H.shq(path)) end

---Starts `tycho serve --port 0` with opts = {modules=, data=, args={...}, env={NAME=value},
---prefix=COMMAND} (prefix: a command that execs tycho, so the pid stays its: "prlimit
-----nofile=128 --", or setpriv to run it as another user) and reads the port it picked from
---its log: {port=, url=, target=, pid=, log=, ...}.
function H.startWith(opts)
  local modules, data = opts.modules, opts.data
  local base = os.tmpname()
  local server = { log = base .. ".log", pidFile = base .. ".pid", exitFile = base .. ".exit",
    base = base, data = data, modules = modules }
  local args = { "--host", "127.0.0.1", "--port", "0", "--modules", modules, "--data", data,
    table.unpack(opts.args or {}) }
  local tls = false
  for i, a in ipairs(args) do
    if a == "--tls-cert" then tls = true end
    args[i] = H.shq(a)
  end
  local env = {}
  for name, value in pairs(opts.env or {}) do env[#env + 1] = name .. "=" .. H.shq(value) .. " " end
  os.execute(("( %s%s%s serve %s >%s 2>&1 & echo $! >%s; wait $!; echo $? >%s ) >/dev/null 2>&1 &")
    :format(table.concat(env), opts.prefix and (opts.prefix .. " ") or "", H.shq(tycho.executable),
      table.concat(args, " "), H.shq(server.log), H.shq(server.pidFile), H.shq(server.exitFile)))
  for _ = 1, 250 do
    local port = (H.readFile(server.log) or ""):match("listening on 127%.0%.0%.1:(%d+)")
    if port then
      server.port = tonumber(port)
      break
    end
    if H.readFile(server.exitFile) then break end
    H.sleep(0.02)
  end
  if not server.port then error("tycho serve did not start:\n" .. (H.readFile(server.log) or ""), 0) end
  server.url = (tls and "wss://" or "ws://") .. "127.0.0.1:" .. server.port
  -- The node client reaches a TLS server as "wss:PORT" (server.target), a plain one by its port.
  server.target = tls and ("wss:" .. server.port) or server.port
  server.pid = assert(tonumber(H.readFile(server.pidFile)))
  return server
end

---Starts `tycho serve --port 0 --modules modules --data data` with extra options.
function H.start(modules, data, ...)
  return H.startWith({ modules = modules, data = data, args = { ... } })
end

---Sends signal (default TERM), waits for the exit; returns the exit code and the log.
function H.stop(server, signal)
  os.execute("kill -" .. (signal or "TERM") .. " " .. server.pid)
  local code
  for _ = 1, 200 do
    code = tonumber(H.readFile(server.exitFile) or "")
    if code then break end
    H.sleep(0.05)
  end
  local log = H.readFile(server.log) or ""
  for _, suffix in ipairs({ "", ".log", ".pid", ".exit" }) do os.remove(server.base .. suffix) end
  return code, log
end

---Runs fn(server) against a fresh server; stops it and checks a clean exit. Returns the log.
function H.with(modules, data, fn, ...)
  local server = H.start(modules, data, ...)
  local ok, err = pcall(fn, server)
  local code, log = H.stop(server)
  if not ok then error(tostring(err) .. "\n--- server log ---\n" .. log, 0) end
  if code ~= 0 then error("tycho serve exited with " .. tostring(code) .. "; log:\n" .. log, 0) end
  return log
end

-- ---- crafty's terrain, as its server and its client generate it (tycho.terrain) ----

local terrains, columns = {}, {} -- seed -> Terrain; seed .. "/" .. cx .. "," .. cz -> VoxelGrid

---The natural block at (x, y, z) of a world of seed (0: air).
function H.block(seed, x, y, z)
  terrains[seed] = terrains[seed] or tycho.terrain.new(seed)
  return terrains[seed]:block(x, y, z)
end

---The y of the highest natural block of column (x, z) (a tree's leaves included) in a world
---of seed: a block placed at y + 1 sits on the ground.
function H.surface(seed, x, z)
  terrains[seed] = terrains[seed] or tycho.terrain.new(seed)
  local cx, cz = x // tycho.terrain.CX, z // tycho.terrain.CZ
  local k = type(seed) .. ":" .. tostring(seed) .. "/" .. cx .. "," .. cz
  columns[k] = columns[k] or terrains[seed]:chunk(cx, cz)
  return columns[k]:top(x - cx * tycho.terrain.CX, z - cz * tycho.terrain.CZ)
end

function H.find(events, pred)
  for _, e in ipairs(events) do if pred(e) then return e end end
end

---Every event that is a message of type t on connection name.
function H.messages(events, name, t)
  local out = {}
  for _, e in ipairs(events) do
    if e.recv == name and e.json and (t == nil or e.json.t == t) then out[#out + 1] = e.json end
    if e.drained == name then
      for _, m in ipairs(e.msgs) do if t == nil or m.t == t then out[#out + 1] = m end end
    end
  end
  return out
end

return H
