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

function H.clientCommand(port, steps)
  -- port is a number, or "wss:PORT" for a server started with --tls-cert
  return ("cd %s && node client.js %s %s"):format(H.shq(H.HERE), H.shq(tostring(port)), H.shq(json.encode(steps)))
end

function H.parseLines(out)
  local events = {}
  for line in out:gmatch("[^\n]+") do
    local v = json.decode(line)
    if v == nil then error("client printed something that is not JSON: " .. line, 0) end
    events[#events + 1] = v
  end
  return events
end

---Runs the steps; returns the client's observations (one table per printed line).
function H.client(port, steps)
  local code, out = H.run(H.clientCommand(port, steps))
  if code ~= 0 then error("node client.js failed (exit " .. tostring(code) .. "):\n" .. out, 0) end
  return H.parseLines(out)
end

local function freePort()
  local code, out = H.run("node -e \"const s=require('net').createServer();"
    .. "s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})\"")
  assert(code == 0, out)
  return assert(tonumber(out:match("%d+")))
end

---A fresh empty folder (removed by H.removeTree).
function H.tempDir()
  local base = os.tmpname()
  os.remove(base)
  assert(os.execute("mkdir -p " .. H.shq(base)))
  return base
end

function H.removeTree(path) os.execute("rm -rf " .. H.shq(path)) end

---Starts `tycho serve --modules modules --data data` with extra options.
function H.start(modules, data, ...)
  H.requireClient()
  local base = os.tmpname()
  local server = { port = freePort(), log = base .. ".log", pidFile = base .. ".pid", exitFile = base .. ".exit",
    base = base, data = data, modules = modules }
  local args = { "--host", "127.0.0.1", "--port", tostring(server.port), "--modules", modules, "--data", data, ... }
  for i, a in ipairs(args) do args[i] = H.shq(a) end
  os.execute(("( %s serve %s >%s 2>&1 & echo $! >%s; wait $!; echo $? >%s ) >/dev/null 2>&1 &")
    :format(H.shq(tycho.executable), table.concat(args, " "), H.shq(server.log), H.shq(server.pidFile),
      H.shq(server.exitFile)))
  -- A TLS server is reached as "wss:PORT" (server.target); a plain one by its port.
  server.target = server.port
  for _, a in ipairs({ ... }) do
    if a == "--tls-cert" then server.target = "wss:" .. server.port end
  end
  local ready = H.client(server.target, { { wait = true } })
  if not (ready[1] and ready[1].ready) then
    error("tycho serve did not start:\n" .. (H.readFile(server.log) or ""), 0)
  end
  server.pid = assert(tonumber(H.readFile(server.pidFile)))
  return server
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
