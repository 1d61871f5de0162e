-- tests/server/spec/net_spec.lua: tycho.net, the game's WebSocket client, against a real
-- `tycho serve` started as a child process (--port 0, the port read back from its log) over
-- tests/server/fixtures, whose netpeer.lua scripts the server side. The spec itself is the
-- client: it connects with tycho.net.connect and pumps tycho.net.update until what it waits
-- for has happened. One test needs a peer that sends text that is not JSON, which no module
-- can do: node's `ws` (npm ci --prefix tests/server) plays it.

local testing = require("tycho.testing")
local net, json = tycho.net, tycho.json

local HERE = testing.here() .. "/.."
local FIXTURES = HERE .. "/fixtures"
local shq, run = testing.quote, testing.shell

local function readFile(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

local function sleep(s) os.execute("sleep " .. s) end

---Services the network until cond() is true; fails after `seconds` (default 5).
local function pump(cond, what, seconds)
  local deadline = tycho.now() + (seconds or 5)
  while not cond() do
    if tycho.now() > deadline then error("timed out waiting for " .. what, 2) end
    net.update(0.01)
  end
end

local H = dofile(HERE .. "/harness.lua")

---Starts `tycho serve --port 0` over the fixtures with its own data folder.
local function startServer() return H.start(FIXTURES, H.tempDir()) end

local function stopServer(s)
  local code, log = H.stop(s)
  H.removeTree(s.data)
  return code, log
end

local server
setup(function() server = startServer() end)
teardown(function()
  if not server then return end
  local code, log = stopServer(server)
  assert.equals(0, code, "tycho serve exit code; log:\n" .. log)
end)

---Connects to /netpeer with handlers that record every callback into `ev`; returns conn, ev.
local function peer(extra, options)
  local ev = { messages = {} }
  local handlers = {
    onOpen = function(c) ev.opened = c end,
    onMessage = function(m) ev.messages[#ev.messages + 1] = m end,
    onClose = function(code, reason) ev.closed = { code = code, reason = reason } end,
    onError = function(message) ev.error = message end,
  }
  for k, v in pairs(extra or {}) do handlers[k] = v end
  local conn = assert(net.connect(server.url, "netpeer", handlers, options))
  return conn, ev
end

describe("tycho.net", function()
  it("round-trips JSON and binary, and queues what is sent before the connection opens", function()
    local conn, ev = peer(nil, { timeout = 0 }) -- returns while still connecting
    assert.equals("connecting", conn.state)
    assert.equals(server.url .. "/netpeer", conn.url)
    assert.equals("netpeer", conn.gameId)
    local msg = { t = "ping", list = { 1, 2.5, "three", { four = true } }, s = "é\n\"", big = 9007199254740991 }
    assert.is_true(conn:send(msg))
    assert.is_true(conn:sendBinary("\0\1\2\255"))
    pump(function() return #ev.messages >= 3 end, "three messages")
    assert.equals(conn, ev.opened)
    assert.equals("open", conn.state)
    assert.equals("hello", ev.messages[1].t)
    assert.same({ t = "echo", data = msg }, ev.messages[2])
    assert.equals("\0\1\2\255", ev.messages[3])
    conn:close()
    pump(function() return ev.closed end, "the close")
    assert.equals(1000, ev.closed.code)
    assert.equals("closed", conn.state)
  end)

  it("holds back everything after welcome until setHandlers, then replays it in order", function()
    local lobby, game = {}, {}
    local conn
    conn = assert(net.connect(server.url, "netpeer", {
      onMessage = function(m)
        lobby[#lobby + 1] = m
        if m.t == "hello" then conn:send({ t = "join", events = 50 }) end
      end,
    }))
    pump(function() return conn.buffered == 50 end, "50 held-back events")
    assert.same({ "hello", "welcome" }, { lobby[1].t, lobby[2].t })
    assert.equals(2, #lobby)
    -- Something newer arrives while the game is still loading: it waits behind the 50.
    conn:send({ t = "after" })
    pump(function() return conn.buffered == 51 end, "the echo to be held back too")
    conn:setHandlers({ onMessage = function(m) game[#game + 1] = m end })
    assert.equals(0, conn.buffered)
    assert.equals(51, #game)
    for i = 1, 50 do assert.same({ t = "event", n = i }, game[i]) end
    assert.same({ t = "echo", data = { t = "after" } }, game[51])
    conn:send({ t = "later" })
    pump(function() return #game == 52 end, "a message after the replay")
    assert.same({ t = "echo", data = { t = "later" } }, game[52])
    assert.equals(2, #lobby)
    conn:close()
    pump(function() return conn.state == "closed" end, "the close")
  end)

  it("does not hold back when the handlers are switched inside onMessage(welcome)", function()
    local game = {}
    local conn
    conn = assert(net.connect(server.url, "netpeer", {
      onMessage = function(m)
        if m.t == "hello" then conn:send({ t = "join", events = 3 }) end
        if m.t == "welcome" then conn:setHandlers({ onMessage = function(e) game[#game + 1] = e.n end }) end
      end,
    }))
    pump(function() return #game == 3 end, "three events")
    assert.same({ 1, 2, 3 }, game)
    assert.equals(0, conn.buffered)
    conn:close()
    pump(function() return conn.state == "closed" end, "the close")
  end)

  it("starts a new hold at each welcome, also one met during a replay; ready() keeps the handlers", function()
    local seen = {}
    local conn
    conn = assert(net.connect(server.url, "netpeer", {
      onMessage = function(m)
        seen[#seen + 1] = m.t .. (m.n or "")
        if m.t == "hello" then conn:send({ t = "join", events = 2, thenWelcome = true }) end
      end,
    }))
    pump(function() return conn.buffered == 4 end, "four held-back messages")
    assert.same({ "hello", "welcome" }, seen)
    conn:ready()
    -- event1, event2, then the second welcome, which holds back event3 again.
    assert.same({ "hello", "welcome", "event1", "event2", "welcome" }, seen)
    assert.equals(1, conn.buffered)
    conn:ready()
    assert.same({ "hello", "welcome", "event1", "event2", "welcome", "event3" }, seen)
    conn:close()
    pump(function() return conn.state == "closed" end, "the close")
  end)

  it("a refused connection is nil, message; a malformed URL too", function()
    -- Port 1 is reserved and refused on loopback.
    local called = false
    local none, message = net.connect("ws://127.0.0.1:1", "netpeer", { onError = function() called = true end })
    assert.is_nil(none)
    assert.truthy(message:find("cannot connect to ws://127.0.0.1:1/netpeer", 1, true), message)
    net.update()
    assert.is_false(called) -- the failure was the return value, not also an event
  end)

  it("with timeout = 0 connects in the background and reports a refusal through onError", function()
    local err
    local conn = assert(net.connect("ws://127.0.0.1:1", "netpeer", { onError = function(m) err = m end },
      { timeout = 0 }))
    pump(function() return err end, "onError")
    assert.truthy(err:find("cannot connect to ws://127.0.0.1:1/netpeer", 1, true), err)
    assert.equals("closed", conn.state)
    assert.same({ nil, "connection is closed" }, { conn:send({ t = "x" }) })

    for _, url in ipairs({ "http://127.0.0.1:8787", "ws://", "ws://:80", "ws://h:0", "ws://h:99999", "ws://h:x",
      "ws://h:80x", "ws://a b", "127.0.0.1:8787", "ws://[::1" }) do
      local c, message = net.connect(url, "netpeer", {})
      assert.is_nil(c, url)
      assert.truthy(message:find("bad URL", 1, true), url .. ": " .. tostring(message))
    end
  end)

  it("raises bad argument errors for wrong arguments", function()
    assert.has_error(function() net.connect() end)
    assert.truthy(select(2, pcall(net.connect, server.url, "bad id", {})):find("bad argument #2", 1, true))
    assert.truthy(select(2, pcall(net.connect, server.url, "x", 5)):find("bad argument #3", 1, true))
    assert.truthy(select(2, pcall(net.connect, server.url, "x", {}, { maxMessage = -1 })):find("bad argument #4", 1, true))
    assert.truthy(select(2, pcall(net.update, -1)):find("bad argument #1", 1, true))
    local conn, ev = peer()
    pump(function() return ev.opened end, "open")
    assert.truthy(select(2, pcall(conn.send, conn, { f = print })):find("bad argument #2", 1, true))
    assert.truthy(select(2, pcall(conn.sendBinary, conn, {})):find("bad argument #2", 1, true))
    assert.truthy(select(2, pcall(conn.close, conn, 1006)):find("bad argument #2", 1, true))
    assert.truthy(select(2, pcall(conn.setHandlers, conn, 1)):find("bad argument #2", 1, true))
    conn:close()
    pump(function() return ev.closed end, "the close")
  end)

  it("gives onClose the server's close code and reason, and 1008 for a path no module serves", function()
    local conn, ev = peer()
    pump(function() return ev.opened end, "open")
    conn:send({ t = "close", code = 4321, reason = "game over" })
    pump(function() return ev.closed end, "the close")
    assert.same({ code = 4321, reason = "game over" }, ev.closed)
    assert.equals("closed", conn.state)
    assert.same({ nil, "connection is closed" }, { conn:send({ t = "x" }) })

    local closed
    assert(net.connect(server.url, "nosuchmodule", { onClose = function(code) closed = code end }))
    pump(function() return closed end, "the 1008 close")
    assert.equals(1008, closed)
  end)

  it("closes with the client's code and reason", function()
    local conn, ev = peer()
    pump(function() return ev.opened end, "open")
    conn:close(4002, "leaving")
    assert.equals("closing", conn.state)
    pump(function() return ev.closed end, "the close")
    assert.same({ code = 4002, reason = "leaving" }, ev.closed)
  end)

  it("drops JSON nested too deep and keeps the connection; closes with 1009 past maxMessage", function()
    local conn, ev = peer()
    pump(function() return ev.opened end, "open")
    conn:send({ t = "deep", depth = 100 })
    conn:send({ t = "still" })
    pump(function() return #ev.messages >= 2 end, "the echo after the deep message")
    assert.equals("hello", ev.messages[1].t)
    assert.same({ t = "echo", data = { t = "still" } }, ev.messages[2])
    assert.equals("open", conn.state)
    conn:close()
    pump(function() return ev.closed end, "the close")

    local cev = { messages = {} }
    local capped = assert(net.connect(server.url, "netpeer", {
      onMessage = function(m) cev.messages[#cev.messages + 1] = m end,
      onClose = function(code, reason) cev.closed = { code = code, reason = reason } end,
    }, { maxMessage = 1024 }))
    pump(function() return #cev.messages == 1 end, "hello")
    capped:send({ t = "big", bytes = 2000 })
    pump(function() return cev.closed end, "the 1009 close")
    assert.same({ code = 1009, reason = "message too big" }, cev.closed)
    assert.equals(1, #cev.messages)
  end)

  it("contains errors raised by handlers and keeps delivering", function()
    local got = {}
    local conn
    conn = assert(net.connect(server.url, "netpeer", {
      onMessage = function(m)
        got[#got + 1] = m.t
        if m.t == "hello" then
          conn:send({ t = "one" })
          conn:send({ t = "two" })
        end
        if m.t == "echo" then
          net.update() -- not allowed inside a handler: raises, and is caught like any error
          error("handler failed on purpose")
        end
      end,
    }))
    pump(function() return #got == 3 end, "both echoes despite the errors")
    assert.same({ "hello", "echo", "echo" }, got)
    conn:close()
    pump(function() return conn.state == "closed" end, "the close")
  end)

  it("refuses sends past maxQueue without queueing them", function()
    local conn = assert(net.connect(server.url, "netpeer", {}, { maxQueue = 100 }))
    assert.is_true(conn:sendBinary(string.rep("a", 60)))
    assert.same({ nil, "send queue full" }, { conn:sendBinary(string.rep("b", 60)) })
    conn:close()
    pump(function() return conn.state == "closed" end, "the close")
  end)

  it("tells a connection dropped by the game that it closed, and frees it", function()
    local closed
    do
      local conn = assert(net.connect(server.url, "netpeer", { onClose = function(code) closed = code end }))
      pump(function() return conn.state == "open" end, "open")
      conn:close(4003)
    end
    collectgarbage()
    collectgarbage()
    pump(function() return closed end, "onClose of an unreferenced connection")
    assert.equals(4003, closed)
  end)

  it("drops text that is not JSON and keeps the connection (node's ws as the peer)", function()
    if run("command -v node") ~= 0 or not readFile(HERE .. "/node_modules/ws/package.json") then
      error("needs node and `npm ci --prefix tests/server` (sh .ci/deps does both)", 0)
    end
    local base = os.tmpname()
    local script = "const {WebSocketServer}=require('ws');"
      .. "const s=new WebSocketServer({host:'127.0.0.1',port:0},()=>console.log(s.address().port));"
      .. "s.on('connection',ws=>{ws.send('{\"t\": nope');ws.send('[1,');"
      .. "ws.send(JSON.stringify({t:'after'}));ws.on('close',()=>process.exit(0))});"
      .. "setTimeout(()=>process.exit(1),10000);"
    os.execute(("cd %s && node -e %s >%s 2>&1 &"):format(shq(HERE), shq(script), shq(base .. ".out")))
    local port
    for _ = 1, 250 do
      port = tonumber((readFile(base .. ".out") or ""):match("^(%d+)"))
      if port then break end
      sleep(0.02)
    end
    os.remove(base .. ".out")
    os.remove(base)
    assert(port, "the node peer did not start")
    local got = {}
    local conn = assert(net.connect("ws://127.0.0.1:" .. port, "", { onMessage = function(m) got[#got + 1] = m end }))
    pump(function() return #got >= 1 end, "the message after the bad ones")
    net.update(0.05)
    assert.same({ { t = "after" } }, got)
    assert.equals("open", conn.state)
    conn:close()
    pump(function() return conn.state == "closed" end, "the close")
  end)
end)
