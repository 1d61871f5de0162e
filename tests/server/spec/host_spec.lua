-- tests/server/spec/host_spec.lua: `tycho serve` end to end. Each test starts the host as a
-- child process on a free loopback port over tests/server/fixtures, drives it with node's
-- `ws` client (tests/server/client.js, the version pinned in tests/server/package.json),
-- stops it with SIGTERM and checks that it exited 0.
--
-- Needs node and `npm ci --prefix tests/server` (.ci/deps does both); without them every
-- test here fails with a message saying so.

local testing = require("tycho.testing")
local json = tycho.json

local HERE = testing.here() .. "/.."
local FIXTURES = HERE .. "/fixtures"

local shq, run = testing.quote, testing.shell
local H = dofile(HERE .. "/harness.lua")
local readFile, sleep, client = H.readFile, H.sleep, H.client
local clientCommand, parseLines = H.clientCommand, H.parseLines

---Starts `tycho serve` over the fixtures with extra options; the fixtures write what they
---saw to $TYCHO_TEST_MARKER (server.marker).
local function startServer(...)
  local base = os.tmpname()
  local server = H.startWith({ modules = FIXTURES, data = base .. ".data", args = { ... },
    env = { TYCHO_TEST_MARKER = base .. ".marker" } })
  server.marker, server.markerBase = base .. ".marker", base
  return server
end

---SIGTERM, then waits for the exit; returns the exit code, the log and what the fixtures
---wrote to $TYCHO_TEST_MARKER.
local function stopServer(server)
  local code, log = H.stop(server)
  local marker = readFile(server.marker) or ""
  os.remove(server.marker)
  os.remove(server.markerBase)
  H.removeTree(server.data)
  return code, log, marker
end

-- Starts a server, runs fn(server), stops it and checks the exit was clean; returns the log.
local function withServer(opts, fn)
  local server = startServer(table.unpack(opts))
  local ok, err = pcall(fn, server)
  local code, log = stopServer(server)
  if not ok then error(tostring(err) .. "\n--- server log ---\n" .. log, 0) end
  assert.equals(0, code, "exit code; log:\n" .. log)
  return log
end

local function find(events, pred)
  for _, e in ipairs(events) do if pred(e) then return e end end
end

describe("tycho serve", function()
  it("routes /NAME to NAME.lua and / to default.lua, and closes unknown paths with 1008", function()
    withServer({}, function(s)
      local ev = client(s.port, {
        { open = "root", path = "/" }, { recv = "root" },
        { open = "e", path = "/echo/room-1" }, { send = "e", json = { hi = 1 } }, { recv = "e" },
        { open = "x", path = "/nosuchmodule" }, { closed = "x" },
      })
      assert.same({ open = "root" }, ev[1])
      assert.equals("hello", ev[2].json.t)
      assert.is_true(math.type(ev[2].json.id) == "integer")
      assert.same({ t = "echo", data = { hi = 1 } }, ev[4].json)
      assert.equals(1008, ev[6].code)
      assert.truthy(ev[6].reason:find("nosuchmodule", 1, true))
    end)
  end)

  it("keeps a session's path, and fields a module stores on it, readable before and after the first store", function()
    withServer({}, function(s)
      local ev = client(s.port, {
        { open = "a", path = "/?x=1" }, { recv = "a" }, { send = "a", json = { t = "fields", note = "kept" } }, { recv = "a" },
      })
      local id = ev[2].json.id
      assert.same({ t = "fields", before = { path = "/", note = "none" }, after = { path = "/", note = "kept", id = id },
        path = "/moved" }, ev[3].json)
    end)
  end)

  it("round-trips JSON: objects, arrays, integers, floats, strings, booleans", function()
    withServer({}, function(s)
      local msg = { a = { 1, 2, { b = "x" } }, n = 1.5, big = 9007199254740991, s = "é\n\"", t = true, f = false,
        neg = -3, nested = { { {} } } }
      local ev = client(s.port, { { open = "e", path = "/echo" }, { send = "e", json = msg }, { recv = "e" } })
      assert.same({ t = "echo", data = msg }, ev[2].json)
    end)
  end)

  it("answers malformed, too deep and too large JSON with an error and keeps the connection", function()
    withServer({}, function(s)
      local deep = string.rep("[", 200) .. string.rep("]", 200)
      local huge = "[" .. string.rep("0,", 19999) .. "0]"
      local ev = client(s.port, {
        { open = "e", path = "/echo" },
        { send = "e", text = "{\"t\": nope" }, { recv = "e" },
        { send = "e", text = deep }, { recv = "e" },
        { send = "e", text = huge }, { recv = "e" },
        { send = "e", json = { still = "here" } }, { recv = "e" },
      })
      assert.equals("error", ev[2].json.t)
      assert.equals("bad_json", ev[2].json.code)
      assert.is_string(ev[2].json.message)
      assert.equals("too_deep", ev[3].json.code)
      assert.equals("too_large", ev[4].json.code)
      assert.same({ t = "echo", data = { still = "here" } }, ev[5].json)
    end)
  end)

  it("closes a message over the frame limit with 1009 (default 64 KiB, and --max-frame)", function()
    withServer({}, function(s)
      local ev = client(s.port, {
        { open = "a", path = "/echo" }, { send = "a", textBytes = 65 * 1024 }, { closed = "a" },
        { open = "b", path = "/echo" }, { send = "b", bytes = 60 * 1024 }, { recv = "b" },
      })
      assert.equals(1009, ev[2].code)
      -- 60 KiB of binary is under the limit: passed to onMessage as a string, which echo
      -- answers as JSON (a string of "a"s).
      assert.equals(60 * 1024, #ev[4].json.data)
    end)
    withServer({ "--max-frame", "1024" }, function(s)
      local ev = client(s.port, { { open = "a", path = "/echo" }, { send = "a", bytes = 2000 }, { closed = "a" } })
      assert.equals(1009, ev[2].code)
    end)
  end)

  it("lets two clients see each other's broadcasts (Room)", function()
    withServer({}, function(s)
      local ev = client(s.port, {
        { open = "a", path = "/echo" }, { open = "b", path = "/echo" },
        { recv = "a" }, -- b joined
        { send = "a", json = { from = "a" } }, { recv = "a" }, { recv = "b" },
        { send = "b", json = { from = "b" } }, { recv = "b" }, { recv = "a" },
      })
      assert.equals("join", ev[3].json.t)
      local aId, bId = ev[3].json.id - 1, ev[3].json.id
      assert.same({ t = "echo", data = { from = "a" } }, ev[4].json)
      assert.same({ t = "broadcast", from = aId, data = { from = "a" } }, ev[5].json)
      assert.same({ t = "echo", data = { from = "b" } }, ev[6].json)
      assert.same({ t = "broadcast", from = bId, data = { from = "b" } }, ev[7].json)
    end)
  end)

  it("keeps serving a module that raises in onMessage, and logs the traceback", function()
    local log = withServer({}, function(s)
      local ev = client(s.port, {
        { open = "f", path = "/faulty" },
        { send = "f", json = { t = "boom" } }, { send = "f", json = { t = "again" } }, { recv = "f" },
        { send = "f", json = { t = "badsend" } }, { recv = "f" },
        { send = "f", json = { t = "binary" } }, { recv = "f" },
        { send = "f", json = { t = "close" } }, { closed = "f" },
      })
      assert.same({ t = "ok", got = { t = "again" } }, ev[2].json)
      local errs = ev[3].json
      assert.equals("sendErrors", errs.t)
      assert.is_false(errs.ok)
      assert.truthy(errs.fn:find("function", 1, true))
      assert.truthy(errs.cycle:find("cycle", 1, true))
      assert.equals("000102", ev[4].binary)
      assert.equals(4000, ev[5].code)
      assert.equals("asked to", ev[5].reason)
    end)
    assert.truthy(log:find("boom on purpose", 1, true))
    assert.truthy(log:find("stack traceback", 1, true))
  end)

  it("stops a module that loops forever or allocates without end (1011); the others keep serving", function()
    local log = withServer({ "--max-instructions", "5000000", "--max-memory", "16M" }, function(s)
      local ev = client(s.port, {
        { open = "s", path = "/spin" }, { open = "h", path = "/hog" }, { open = "e", path = "/echo" },
        { send = "s", json = { t = "spin" } }, { closed = "s" },
        { send = "h", json = { t = "hog" } }, { closed = "h" },
        { send = "e", json = { alive = true } }, { recv = "e" },
        { open = "s2", path = "/spin" }, { closed = "s2" },
      })
      assert.equals(1011, ev[4].code)
      assert.equals(1011, ev[5].code)
      assert.same({ t = "echo", data = { alive = true } }, ev[6].json)
      assert.equals(1011, ev[8].code)
    end)
    assert.truthy(log:find("module spin passed its instruction budget", 1, true))
    assert.truthy(log:find("module hog passed its memory cap", 1, true))
  end)

  it("drops a client whose send queue passes --max-queue with 1008", function()
    withServer({ "--max-queue", "64K" }, function(s)
      local ev = client(s.port, {
        { open = "f", path = "/flood" }, { pause = "f" }, { send = "f", json = { t = "flood" } },
        { sleep = 200 }, { resume = "f" }, { closed = "f" },
      })
      local closed = find(ev, function(e) return e.closed end)
      assert.equals(1008, closed.code)
      assert.equals("send queue full", closed.reason)
    end)
  end)

  it("never interleaves the 1008 close with a frame cut at the batch limit; others keep serving", function()
    local log = withServer({ "--max-queue", "256K" }, function(s)
      -- 20000-byte messages are cut across the 32 KiB sends, so the queue fills with a
      -- frame half written; the client reads again once it was dropped.
      local ev = client(s.port, {
        { open = "d", path = "/stream" }, { open = "e", path = "/echo" }, { pause = "d" },
        { send = "d", json = { t = "stream", size = 20000, per = 8 } },
        { sleep = 2000 }, { resume = "d" }, { closed = "d" }, { count = "d" },
        { send = "e", json = { alive = true } }, { recv = "e" },
        { open = "f", path = "/echo" }, { send = "f", json = { after = true } }, { recv = "f" },
      })
      local closed = find(ev, function(e) return e.closed == "d" end)
      assert.is_nil(closed.error, "a malformed frame reached the client: " .. tostring(closed.error))
      assert.equals(1008, closed.code)
      assert.equals("send queue full", closed.reason)
      local counted = find(ev, function(e) return e.counted end)
      assert.is_true(counted.n > 0)
      assert.is_true(counted.inOrder, "messages were lost or garbled before the close")
      assert.same({ t = "echo", data = { alive = true } }, find(ev, function(e) return e.recv == "e" end).json)
      assert.same({ t = "echo", data = { after = true } }, find(ev, function(e) return e.recv == "f" end).json)
    end)
    assert.truthy(log:find("net_queue_full", 1, true))
  end)

  it("keeps every frame whole and in order for a client that stops reading and starts again", function()
    withServer({ "--max-queue", "64M" }, function(s)
      -- 20000-byte messages at about 16 MB/s: the socket fills while the client does not read,
      -- sends are cut inside frames, and the rest waits; once it reads again all of it arrives.
      local ev = client(s.port, {
        { open = "d", path = "/stream" }, { pause = "d" },
        { send = "d", json = { t = "stream", size = 20000, per = 8 } },
        { sleep = 600 }, { resume = "d" }, { sleep = 600 }, { pause = "d" }, { sleep = 300 }, { resume = "d" },
        { sleep = 600 }, { count = "d" },
      })
      assert.is_nil(find(ev, function(e) return e.closed end), "the client was closed")
      local counted = find(ev, function(e) return e.counted end)
      assert.is_true(counted.n > 200, "messages read: " .. counted.n)
      assert.is_true(counted.inOrder, "messages were lost or garbled")
    end)
  end)

  it("gives a usable host.storage again after a module closed it", function()
    withServer({}, function(s)
      local ev = client(s.port, { { open = "c", path = "/storeclose" }, { send = "c", json = {} }, { recv = "c" },
        { send = "c", json = {} }, { recv = "c" } })
      for _, i in ipairs({ 2, 3 }) do
        local m = ev[i].json
        assert.is_not_nil(m, "no answer: " .. json.encode(ev[i]))
        assert.is_true(m.closedOk)
        assert.equals("WorldStorage (closed)", m.before) -- the handle it closed stays closed
        assert.equals("WorldStorage", m.after)
        assert.is_true(m.put)
        assert.equals("v2", m.got)
        assert.is_true(m.same) -- one handle until the next close
      end
    end)
  end)

  it("runs host:every timers until they are cancelled; host.storage is the store in --data", function()
    withServer({}, function(s)
      local ev = client(s.port, {
        { open = "t", path = "/ticker" }, { recv = "t" }, { recv = "t" }, { recv = "t" },
        { sleep = 300 }, { send = "t", json = {} },
      })
      assert.same({ t = "tick", n = 1, storage = "WorldStorage" }, ev[2].json)
      assert.same({ t = "tick", n = 3, storage = "WorldStorage" }, ev[4].json)
      assert.is_not_nil(readFile(s.data .. "/worlds.sqlite"), "host.storage made no " .. s.data .. "/worlds.sqlite")
      assert.equals(4, #ev) -- nothing after the cancel
    end)
  end)

  it("shuts down on SIGTERM: onStop runs, clients are closed with 1001, exit 0", function()
    local server = startServer()
    local out = server.base .. ".client"
    os.execute(clientCommand(server.port, {
      { open = "a", path = "/stopper" }, { recv = "a" }, { open = "b", path = "/echo" }, { closed = "a" }, { closed = "b" },
    }) .. " >" .. shq(out) .. " 2>&1 &")
    for _ = 1, 100 do
      if (readFile(out) or ""):find("hello", 1, true) and (readFile(out) or ""):find('"open":"b"', 1, true) then break end
      sleep(0.05)
    end
    local code, log, markerText = stopServer(server)
    for _ = 1, 100 do
      if select(2, (readFile(out) or ""):gsub("\"closed\"", "")) >= 2 then break end
      sleep(0.05)
    end
    local ev = parseLines(readFile(out) or "")
    os.remove(out)
    assert.equals(0, code, log)
    assert.equals(1001, ev[4].code, log)
    assert.equals(1001, ev[5].code)
    assert.truthy(markerText:find("stopped", 1, true), "onStop wrote no marker")
    assert.truthy(markerText:find("closed", 1, true), "onClose did not run")
    assert.truthy(log:find("shutting down", 1, true))
  end)

  it("at shutdown runs every onClose after onStop, and sends to closing sessions are no-ops", function()
    local server = startServer("--max-queue", "64M")
    local out = server.base .. ".client"
    os.execute(clientCommand(server.port, {
      { open = "a", path = "/leaver" }, { recv = "a" }, { open = "b", path = "/leaver" }, { recv = "b" },
      { open = "c", path = "/leaver" }, { recv = "c" }, { open = "p", path = "/leaver" }, { recv = "p" },
      { pause = "p" }, { send = "p", json = { t = "fill", n = 800 } }, { sleep = 300 }, { open = "e", path = "/echo" },
      { closed = "a" }, { closed = "b" }, { closed = "c" }, { closed = "e" }, { sleep = 300 }, { resume = "p" },
      { closed = "p" },
    }) .. " >" .. shq(out) .. " 2>&1 &")
    for _ = 1, 100 do
      if (readFile(out) or ""):find('"open":"e"', 1, true) then break end
      sleep(0.05)
    end
    local data = server.data
    server.data = server.base .. ".keep" -- stopServer removes server.data; the store is read below
    os.execute("kill -TERM " .. server.pid)
    local function closes() return select(2, (readFile(out) or ""):gsub("\"closed\"", "")) end
    for _ = 1, 100 do
      if closes() >= 4 then break end
      sleep(0.05)
    end
    -- p does not read, so its 16 MB and its close wait on the socket; its onClose ran already
    local early = select(2, (readFile(server.marker) or ""):gsub("closed %d+", ""))
    local code, log, markerText = stopServer(server)
    for _ = 1, 100 do
      if closes() >= 5 then break end
      sleep(0.05)
    end
    assert.equals(4, early, "onClose waited for the connections to go: " .. markerText)
    local ev = parseLines(readFile(out) or "")
    os.remove(out)
    assert.equals(0, code, log)
    for _, name in ipairs({ "a", "b", "c", "e", "p" }) do
      local closed = find(ev, function(e) return e.closed == name end)
      assert.is_not_nil(closed, name .. " saw no close; client: " .. json.encode(ev))
      assert.equals(1001, closed.code, name)
    end
    local lines = {}
    for line in markerText:gmatch("[^\n]+") do
      if line ~= "stopped" then lines[#lines + 1] = line end -- stopper.lua's
    end
    assert.equals("leaver stopped", lines[1], markerText)
    assert.equals(5, #lines, markerText)
    for i = 2, 5 do
      assert.truthy(lines[i]:match("^closed %d+ sent=0 saved=true$"), markerText)
    end
    for line in log:gmatch("[^\n]+") do
      local ok = line:find("^tycho serve: ") or line:find("^tycho serve %[")
      assert.truthy(ok, "unexpected line in the log: " .. line .. "\n" .. log)
    end
    -- what onClose saved reached the store before it was closed
    local _, count = run("sqlite3 " .. shq(data .. "/worlds.sqlite") .. " 'select count(*) from blobs' 2>/dev/null")
    os.execute("rm -rf " .. shq(data))
    if run("command -v sqlite3") == 0 then assert.equals("4", count:match("%d+"), count) end
  end)
end)

