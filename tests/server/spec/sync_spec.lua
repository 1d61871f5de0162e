-- tests/server/spec/sync_spec.lua: server/modules/sync.lua, the shared CRDT rooms, against a
-- real `tycho serve --port 0` over server/modules with its own data folder. The spec's
-- clients are tycho.net connections, each with its own tycho.crdt State: they converge
-- through the server, a late joiner gets the room's snapshot (a room of several MiB in paced
-- frames of whole messages), a restart and an empty room keep the state (sqlite), malformed
-- frames are refused whole with a counted reason, and a room's caps and a client's write rate
-- refuse what passes them (state_full, rate_limited) without touching other rooms.

local testing = require("tycho.testing")
local net, crdt = tycho.net, tycho.crdt

local HERE = testing.here() .. "/.."
local MODULES = HERE .. "/../../server/modules"
local shq = testing.quote
local TRANSFORM = 1
local BLOCK_SIZE = 256 -- entity numbers the server gives each client of a room

local function pump(cond, what, seconds)
  local deadline = tycho.now() + (seconds or 5)
  while not cond() do
    if tycho.now() > deadline then error("timed out waiting for " .. what, 2) end
    net.update(0.01)
  end
end

local H = dofile(HERE .. "/harness.lua")

local function startServer(data) return H.start(MODULES, data) end
local stopServer = H.stop


-- A client of room `room`: applies every binary frame to its own State, sends corrections back.
local function join(server, room, opts)
  local c = { state = crdt.new({ quiet = true }), frames = 0, json = {} }
  c.conn = assert(net.connect(server.url, "sync/" .. room, {
    onMessage = function(m)
      if type(m) == "string" then
        c.frames = c.frames + 1
        local _, corrections = c.state:apply(m)
        if corrections then c.conn:sendBinary(corrections) end
      else
        c.json[#c.json + 1] = m
        if m.t == "joined" then c.joined = m end
        if m.t == "synced" then c.synced = m end
      end
    end,
    onClose = function(code, reason) c.closed, c.closeReason = code, reason end,
    onError = function(msg) c.failed = msg end,
  }))
  pump(function() return c.joined or c.closed or c.failed end, "joined")
  assert(c.joined, "no joined message: " .. tostring(c.failed or c.closed))
  if not opts or not opts.early then
    -- `synced` follows the snapshot's last frame (at once for a small room)
    pump(function() return c.synced or c.closed or c.failed end, "synced")
  end
  return c
end

-- Sends a frame, waiting while the connection's own send queue is full.
local function sendPaced(c, bytes)
  for _ = 1, 1000 do
    local ok, err = c.conn:sendBinary(bytes)
    if ok then
      net.update(0.001)
      return
    end
    assert(err == "send queue full", err)
    net.update(0.01)
  end
  error("the send queue never drained")
end

local function lastJson(c, t)
  for i = #c.json, 1, -1 do
    if c.json[i].t == t then return c.json[i] end
  end
end

local function stats(c)
  local n = #c.json
  c.conn:send({ t = "stats" })
  pump(function() return #c.json > n and lastJson(c, "stats") end, "stats")
  return table.remove(c.json)
end

local function put(c, e, x)
  c.conn:sendBinary(c.state:put(e, TRANSFORM, crdt.transform.encode({ position = { x, 0, 0 } })))
end

local function positionX(state, e)
  local data = state:get(e, TRANSFORM)
  return data and crdt.transform.decode(data).position.x
end

describe("server/modules/sync.lua", function()
  local data, server
  before_each(function()
    data = os.tmpname()
    os.remove(data)
    server = startServer(data)
  end)
  after_each(function()
    if server then
      local code, log = stopServer(server)
      server = nil
      assert.equals(0, code, log)
    end
    os.execute("rm -rf " .. shq(data))
  end)

  it("gives each client its own entity block, relays writes and converges two clients", function()
    local a, b = join(server, "r1"), join(server, "r1")
    assert.equals("r1", a.joined.room)
    assert.equals(512, a.joined.first)
    assert.equals(768, b.joined.first)
    local ea, eb = crdt.entity(a.joined.first), crdt.entity(b.joined.first)
    put(a, ea, 1)
    put(b, eb, 2)
    pump(function() return positionX(a.state, eb) == 2 and positionX(b.state, ea) == 1 end, "relay")
    -- Both write one entity concurrently, at the same timestamp: the server keeps one and the
    -- loser is corrected, so both end with the same value.
    local shared = crdt.entity(900)
    put(a, shared, 10)
    put(b, shared, 20)
    pump(function()
      return positionX(a.state, shared) ~= nil and positionX(a.state, shared) == positionX(b.state, shared)
    end, "convergence")
    for i = 1, 20 do
      put(a, ea, 100 + i)
      put(b, eb, 200 + i)
    end
    pump(function() return a.state:snapshot() == b.state:snapshot() and positionX(a.state, eb) == 220 end,
      "identical snapshots")
    -- a late joiner gets the whole state in one frame
    local c = join(server, "r1")
    pump(function() return c.frames > 0 end, "snapshot")
    assert.equals(a.state:snapshot(), c.state:snapshot())
    assert.equals(1024, c.joined.first)
    -- another room sees none of it
    local other = join(server, "r2")
    net.update(0.1)
    assert.equals(0, other.frames)
    for _, x in ipairs({ a, b, c, other }) do x.conn:close() end
    pump(function() return a.closed and b.closed and c.closed and other.closed end, "closes")
  end)

  it("keeps a room's state over an empty period and a restart", function()
    local a = join(server, "keep")
    local e = crdt.entity(a.joined.first)
    put(a, e, 7)
    a.conn:sendBinary(a.state:put(crdt.entity(600), 2048, "hello"))
    a.conn:sendBinary(a.state:deleteEntity(crdt.entity(601)))
    local expected = a.state:snapshot()
    local b = join(server, "keep")
    pump(function() return b.state:snapshot() == expected end, "the state")
    a.conn:close()
    b.conn:close()
    pump(function() return a.closed and b.closed end, "closes")
    -- empty: the room was saved and let go; a newcomer loads it back
    local c = join(server, "keep")
    pump(function() return c.frames > 0 end, "snapshot after an empty period")
    assert.equals(expected, c.state:snapshot())
    c.conn:close()
    pump(function() return c.closed end, "close")
    local code, log = stopServer(server)
    assert.equals(0, code, log)
    server = startServer(data)
    local d = join(server, "keep")
    pump(function() return d.frames > 0 end, "snapshot after a restart")
    assert.equals(expected, d.state:snapshot())
    assert.is_true(d.state:isRemoved(crdt.entity(601)))
    d.conn:close()
    pump(function() return d.closed end, "close")
  end)

  it("saves on stop while clients are still connected", function()
    local a = join(server, "live")
    put(a, crdt.entity(a.joined.first), 3)
    local expected = a.state:snapshot()
    stats(a) -- the put has been handled once the answer to a later frame is back
    local code, log = stopServer(server)
    assert.equals(0, code, log)
    pump(function() return a.closed end, "close on stop")
    server = startServer(data)
    local b = join(server, "live")
    pump(function() return b.frames > 0 end, "snapshot")
    assert.equals(expected, b.state:snapshot())
    b.conn:close()
    pump(function() return b.closed end, "close")
  end)

  it("refuses malformed frames whole, counts and logs them, and keeps the state", function()
    local a = join(server, "bad")
    put(a, crdt.entity(a.joined.first), 5)
    local good = a.state:snapshot()
    local valid = crdt.new():put(crdt.entity(700), TRANSFORM, crdt.transform.encode({}))
    local cases = {
      { "\1\2\3", "malformed" },                                       -- truncated header
      { string.pack("<I4I4", 100, 1) .. "abcd", "malformed" },          -- length past the frame
      { string.pack("<I4I4", 4, 1), "malformed" },                      -- length below the header
      { valid .. string.pack("<I4I4I4I4", 16, 2, 700, 1), "malformed" }, -- a DELETE_COMPONENT of 16 bytes
      { crdt.new():put(crdt.entity(1), TRANSFORM, crdt.transform.encode({})), "reserved_entity" },
      { valid .. crdt.new():put(crdt.entity(5), TRANSFORM, crdt.transform.encode({})), "reserved_entity" },
    }
    for _, case in ipairs(cases) do
      local n = #a.json
      a.conn:sendBinary(case[1])
      pump(function() return #a.json > n end, "the refusal")
      local err = a.json[#a.json]
      assert.equals("error", err.t)
      assert.equals(case[2], err.code)
    end
    a.conn:send({ t = "hello" })
    pump(function() return lastJson(a, "error") and lastJson(a, "error").code == "not_binary" end, "not_binary")
    local s = stats(a)
    assert.equals(4, s.rejected.malformed)
    assert.equals(2, s.rejected.reserved_entity)
    assert.equals(1, s.rejected.not_binary)
    local late = join(server, "bad")
    pump(function() return late.frames > 0 end, "snapshot")
    assert.equals(good, late.state:snapshot(), "no part of a refused frame was applied")
    a.conn:close()
    late.conn:close()
    pump(function() return a.closed and late.closed end, "closes")
    local code, log = stopServer(server)
    server = nil
    assert.equals(0, code)
    assert.matches("sync_rejected malformed", log)
    assert.matches("sync_rejected reserved_entity", log)
  end)

  it("sends a room of several MiB to a joiner in frames of whole messages, also after a restart", function()
    -- Three clients write 1 MiB each (256 entities of 4,000 bytes, 13 messages a frame, under
    -- the host's 64 KiB frame limit): 3 MiB, three times the host's 1 MiB send queue.
    local writers = { join(server, "big"), join(server, "big"), join(server, "big") }
    local perFrame = 13
    for _, w in ipairs(writers) do
      local batch = {}
      for k = 0, BLOCK_SIZE - 1 do
        local e = crdt.entity(w.joined.first + k)
        batch[#batch + 1] = w.state:put(e, 2048, string.pack("<I4", e) .. string.rep("x", 3996))
        if #batch == perFrame or k == BLOCK_SIZE - 1 then
          sendPaced(w, table.concat(batch))
          batch = {}
        end
      end
    end
    local total = 3 * BLOCK_SIZE
    pump(function()
      for _, w in ipairs(writers) do
        if w.state:count() ~= total then return false end
      end
      return true
    end, "the writers to converge", 20)
    local expected = writers[1].state:snapshot()
    assert.is_true(#expected > 3 * 1000 * 1000)
    assert.equals(total, stats(writers[1]).entities)

    local function joinBig(count, c)
      c = c or join(server, "big", { early = true })
      pump(function() return c.synced or c.closed or c.failed end, "the whole snapshot", 20)
      assert.is_nil(c.closed, "the joiner was dropped: " .. tostring(c.closed) .. " " .. tostring(c.closeReason))
      assert.is_nil(c.failed)
      assert.equals(count, c.state:count())
      assert.equals(expected, c.state:snapshot())
      -- every frame was a batch of whole messages no larger than 64 KiB (the state applied
      -- each with nothing malformed)
      assert.equals(0, c.state:stats().malformed)
      assert.is_true(c.synced.frames >= 3 * 1000 * 1000 // 65536, "frames: " .. c.synced.frames)
      assert.equals(#expected, c.synced.bytes)
      return c
    end
    local fresh = joinBig(total)
    -- still served: a write after the snapshot reaches it
    put(writers[1], crdt.entity(writers[1].joined.first), 42)
    pump(function() return positionX(fresh.state, crdt.entity(writers[1].joined.first)) == 42 end, "a relay")
    expected = writers[1].state:snapshot()
    for _, c in ipairs({ fresh, table.unpack(writers) }) do c.conn:close() end
    pump(function()
      for _, c in ipairs({ fresh, table.unpack(writers) }) do if not c.closed then return false end end
      return true
    end, "closes")

    local code, log = stopServer(server)
    assert.equals(0, code, log)
    server = startServer(data)
    -- three joiners at once, each fed its own snapshot
    local joiners = {}
    for i = 1, 3 do joiners[i] = join(server, "big", { early = true }) end
    for _, c in ipairs(joiners) do joinBig(total + 1, c) end
    for _, c in ipairs(joiners) do c.conn:close() end
    pump(function() return joiners[1].closed and joiners[2].closed and joiners[3].closed end, "closes")
  end)

  it("closes a connection to a bad room name", function()
    local c = { }
    c.conn = assert(net.connect(server.url, "sync/" .. string.rep("x", 65), {
      onClose = function(code) c.closed = code end,
      onError = function(msg) c.failed = msg end,
    }))
    pump(function() return c.closed or c.failed end, "the close")
    assert.equals(4000, c.closed)
  end)
end)

describe("server/modules/sync.lua hot reload", function()
  it("keeps rooms, members and state over a save of sync.lua; new and old clients keep working", function()
    local dir, data = H.tempDir(), H.tempDir()
    os.execute(("cp %s/*.lua %s"):format(shq(MODULES), shq(dir)))
    local server = H.start(dir, data)
    local ok, err = pcall(function()
      local a = join(server, "live")
      local ea = crdt.entity(a.joined.first)
      put(a, ea, 1)
      pump(function() return stats(a).entities == 1 end, "the first write")
      local f = assert(io.open(dir .. "/sync.lua", "ab"))
      f:write("\n-- saved again\n")
      f:close()
      pump(function() return (H.readFile(server.log) or ""):find("reloaded sync", 1, true) end, "the reload")
      -- A new client joins the same room: it gets the next block and the snapshot.
      local b = join(server, "live")
      assert.equals(768, b.joined.first)
      pump(function() return positionX(b.state, ea) == 1 end, "the snapshot after the reload")
      -- Writes still flow both ways, through the old session and the new one.
      local eb = crdt.entity(b.joined.first)
      put(b, eb, 2)
      put(a, ea, 3)
      pump(function() return positionX(a.state, eb) == 2 and positionX(b.state, ea) == 3 end, "relay after reload")
      local st = stats(b)
      assert.equals(2, st.members)
      assert.is_true(st.relayed >= 3)
      a.conn:close()
      b.conn:close()
      pump(function() return a.closed and b.closed end, "closes")
    end)
    local code, log = H.stop(server)
    H.removeTree(dir)
    H.removeTree(data)
    assert.is_true(ok, tostring(err) .. "\n" .. log)
    assert.equals(0, code, log)
    assert.is_nil(log:find("1011", 1, true), log)
  end)
end)

describe("server/modules/sync.lua limits", function()
  local data, server
  local function startLimited(env, ...)
    server = H.startWith({ modules = MODULES, data = data, env = env, args = { ... } })
    return server
  end
  before_each(function() data = H.tempDir() end)
  after_each(function()
    if server then
      local code, log = stopServer(server)
      server = nil
      assert.equals(0, code, log)
    end
    H.removeTree(data)
  end)

  local function errors(c, code)
    local out = {}
    for _, m in ipairs(c.json) do
      if m.t == "error" and m.code == code then out[#out + 1] = m end
    end
    return out
  end

  local function closeAll(list)
    for _, c in ipairs(list) do c.conn:close() end
    pump(function()
      for _, c in ipairs(list) do if not c.closed then return false end end
      return true
    end, "closes")
  end

  it("refuses writes past a room's byte cap with state_full; other rooms, saves and restarts are unharmed", function()
    -- A room capped at 1 MiB in a module held to 6 MiB of memory: without the cap, 10 MiB of
    -- writes make a snapshot the save cannot build inside the fence, and the whole module
    -- (every room) stops.
    local env = { TYCHO_SYNC_MAX_BYTES = tostring(1 << 20), TYCHO_SYNC_BYTES_PER_SECOND = tostring(64 << 20) }
    startLimited(env, "--max-memory", "6M")
    local a = join(server, "full")
    local watcher = join(server, "full")
    local calm, calm2 = join(server, "calm"), join(server, "calm")
    local batch = {}
    for k = 0, 10 * (1 << 20) // 4024 do
      local e = crdt.entity(a.joined.first + k % BLOCK_SIZE)
      batch[#batch + 1] = a.state:put(e, 2048 + k // BLOCK_SIZE, string.rep("y", 4000))
      if #batch == 13 then -- 13 messages a frame, under the host's 64 KiB frame limit
        sendPaced(a, table.concat(batch))
        batch = {}
      end
    end
    if #batch > 0 then sendPaced(a, table.concat(batch)) end
    local s
    pump(function()
      s = stats(a)
      return #errors(a, "state_full") > 0 and s.room.stateLimit > 0 and a.state:bytes() > 9 * (1 << 20)
        and s.relayed > 0 and not a.closed
    end, "state_full refusals", 30)
    assert.is_true(s.bytes <= 1 << 20, "room bytes " .. s.bytes)
    assert.equals(1 << 20, s.limits.maxBytes)
    assert.is_true(s.room.rejected.state_full >= 1)
    assert.equals(#errors(a, "state_full"), s.room.rejected.state_full)
    local refused = 0
    for _, err in ipairs(errors(a, "state_full")) do refused = refused + err.refused end
    assert.equals(s.room.stateLimit, refused)
    assert.matches("room full is full", errors(a, "state_full")[1].message)
    -- the watcher got what the room took, not what it refused
    pump(function() return watcher.state:count() == s.entities end, "the watcher to hold the room's state")
    assert.is_true(watcher.state:bytes() <= 1 << 20)
    -- the other room is untouched
    local ec = crdt.entity(calm.joined.first)
    put(calm, ec, 5)
    pump(function() return positionX(calm2.state, ec) == 5 end, "a relay in another room")
    assert.is_nil(next(errors(calm, "state_full")))
    -- a joiner gets what the room holds
    local late = join(server, "full")
    assert.equals(watcher.state:snapshot(), late.state:snapshot())
    local expected = late.state:snapshot()
    H.sleep(2.5) -- a periodic save ran
    for _, c in ipairs({ a, watcher, calm, calm2, late }) do assert.is_nil(c.closed) end
    closeAll({ a, watcher, calm, calm2, late })
    local code, log = stopServer(server)
    server = nil
    assert.equals(0, code, log)
    assert.is_nil(log:find("server_module_stopped", 1, true), log)
    assert.matches("sync_rejected state_full", log)

    startLimited(env, "--max-memory", "6M")
    local again = join(server, "full")
    assert.equals(expected, again.state:snapshot())
    local ca = join(server, "calm")
    assert.equals(5, positionX(ca.state, ec))
    closeAll({ again, ca })
  end)

  it("refuses frames past a client's write rate with rate_limited, whole", function()
    startLimited({ TYCHO_SYNC_MESSAGES_PER_SECOND = "20" })
    local a, other = join(server, "busy"), join(server, "busy")
    local sent = 200
    for k = 0, sent - 1 do put(a, crdt.entity(a.joined.first + k), k) end
    local s
    pump(function()
      s = stats(a)
      return #errors(a, "rate_limited") + s.entities == sent
    end, "every frame answered")
    local limited = #errors(a, "rate_limited")
    assert.is_true(limited >= 50, "refused " .. limited)
    assert.equals(limited, s.room.rejected.rate_limited)
    assert.matches("at most 20 messages", errors(a, "rate_limited")[1].message)
    pump(function() return other.state:count() == s.entities end, "the relays of the frames taken")
    -- the bucket fills again
    H.sleep(1)
    local e = crdt.entity(a.joined.first + 250)
    put(a, e, 1)
    pump(function() return positionX(other.state, e) == 1 end, "a write after a pause")
    assert.is_nil(a.closed)
    closeAll({ a, other })
  end)
end)
