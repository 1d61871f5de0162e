-- tests/server/crafty_local.lua: server/modules/crafty.lua run inside the calling Lua state
-- with a stand-in host, for specs and benchmarks that need hundreds of players and exact Lua
-- instruction counts without sockets. Timers are kept and run by hand; a session is a table
-- that keeps every frame it was sent, as JSON text, in its array part. Load with dofile.

local json = tycho.json

local C = {}
C.SOURCE = require("tycho.testing").here() .. "/../../server/modules/crafty.lua"

local function readFile(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("a")
  f:close()
  return s
end

local function newSession(id)
  local s = { id = id }
  function s.send(self, msg) self[#self + 1] = json.encode(msg) end
  s.sendText = table.insert -- keeps the frame without a Lua instruction of its own
  return s
end

---crafty.lua (opts.source, default the repo's) started on a store in opts.data; opts.patch
---{{from, to}, ...}: plain text replaced (exactly once each) in its source first. Returns
---{M = the module, host = the stand-in, ...} with the methods below.
function C.start(opts)
  local src = readFile(opts.source or C.SOURCE)
  for _, p in ipairs(opts.patch or {}) do
    local at = src:find(p[1], 1, true)
    assert(at and not src:find(p[1], at + 1, true), "patch text not found once: " .. p[1])
    src = src:sub(1, at - 1) .. p[2] .. src:sub(at + #p[1])
  end
  local M = assert(load(src, "@" .. (opts.source or C.SOURCE)))()
  local host = { timers = {}, logs = {}, storage = assert(tycho.storage.open(opts.data .. "/worlds.sqlite")) }
  function host.every(_, seconds, fn)
    local t = { seconds = seconds, fn = fn }
    function t.cancel() t.cancelled = true end
    host.timers[#host.timers + 1] = t
    return t
  end
  function host.log(_, ...) host.logs[#host.logs + 1] = table.concat({ ... }, "\t") end
  function host.monitor(_, report) host.report = report end -- /_monitor's section (M.report)
  M.onStart(host)
  local self = { M = M, host = host, sessions = {}, handlers = {} }

  ---A new world in the store; returns its id.
  function self.world(name, seed)
    local w = tycho.storage.createSavedWorld(name or "Crowd", seed or 5, "creative")
    assert(host.storage:save(w))
    return w.id, w.player
  end

  ---Connects session id and says hello as playerKey key (default "key-<id>"); returns the session.
  function self.connect(id, key)
    local s = newSession(id)
    self.sessions[id] = s
    self.handlers[id] = M.onConnect(s)
    self.send(id, { t = "hello", playerKey = key or ("key-" .. id), name = "p" .. id, version = 1 })
    return s
  end

  function self.send(id, msg) self.handlers[id].onMessage(msg) end

  ---The connection of session id is gone.
  function self.close(id) self.handlers[id].onClose() end

  ---The frames session id got since the last call, decoded.
  function self.take(id)
    local s, out = self.sessions[id], {}
    for i = 1, #s do
      out[i] = json.decode(s[i])
      s[i] = nil
    end
    return out
  end

  ---Runs every live timer of this interval once (the transform flush: 1 / 15).
  function self.runTimers(seconds)
    for _, t in ipairs(host.timers) do
      if not t.cancelled and math.abs(t.seconds - seconds) < 1e-9 then t.fn() end
    end
  end

  function self.stop()
    M.onStop()
    host.storage:close()
  end
  return self
end

---Lua instructions fn runs (a count hook on every instruction).
function C.instructions(fn)
  local n = 0
  debug.sethook(function() n = n + 1 end, "", 1)
  fn()
  debug.sethook()
  return n
end

return C
