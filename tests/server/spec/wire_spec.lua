-- tests/server/spec/wire_spec.lua: `tycho serve` on the wire, against RFC 6455 and server.md,
-- driven by a client written on bare TCP (tests/server/raw.js) where `ws` will not misbehave
-- on request: a client that talks but never answers a ping stays (server.md: a client is
-- dropped when it "has sent nothing and answered no ping"); close reasons are valid UTF-8 of
-- at most 123 bytes whatever path they quote; an unmasked client frame is closed with 1002
-- (5.1). Needs node and `npm ci --prefix tests/server`.

local H = dofile(require("tycho.testing").here() .. "/../harness.lua")

local ECHO = 'return dofile(tycho.home .. "/server/modules/echo.lua")\n'

local function withEcho(fn, ...)
  local dir, data = H.tempDir(), H.tempDir()
  local f = assert(io.open(dir .. "/echo.lua", "wb"))
  f:write(ECHO)
  f:close()
  local ok, err = pcall(H.with, dir, data, fn, ...)
  H.removeTree(dir)
  H.removeTree(data)
  if not ok then error(err, 0) end
  return err
end

---True when s is valid UTF-8.
local function isUtf8(s) return utf8.len(s) ~= nil end

describe("tycho serve on the wire", function()
  it("keeps a client that sends messages but never answers a ping, and drops a silent one", function()
    withEcho(function(s)
      local steps = { { open = "talker", path = "/echo" }, { open = "silent", path = "/echo" } }
      for i = 1, 12 do -- 3.6 s of a message every 300 ms, with --ping 1 (dropped after 2 s of silence)
        steps[#steps + 1] = { send = "talker", text = '{"i":' .. i .. "}" }
        steps[#steps + 1] = { sleep = 300 }
      end
      steps[#steps + 1] = { state = "talker" }
      steps[#steps + 1] = { closed = "silent" }
      local ev = H.raw(s.port, steps)
      local talker = H.find(ev, function(e) return e.state == "talker" end)
      assert.is_false(talker.closed, H.readFile(s.log))
      assert.is_true(talker.received >= 12) -- its echoes (and the silent one's join and leave)
      local silent = H.find(ev, function(e) return e.closed == "silent" end)
      assert.is_not_nil(silent.code, "the silent client was not dropped")
      assert.is_true(silent.pings >= 1) -- pinged first, and it never answered
    end, "--ping", "1")
  end)

  it("closes with a reason of valid UTF-8 within 123 bytes, whatever the path it quotes", function()
    withEcho(function(s)
      local long = "/" .. ("é"):rep(80) -- percent-encoded by ws, decoded by the server
      local ev = H.client(s.port, {
        { open = "long", path = long }, { closed = "long" },
        { open = "bad", path = "/%FF%FEx%01" }, { closed = "bad" },
      })
      local closed = H.find(ev, function(e) return e.closed == "long" end)
      assert.is_nil(closed.error, closed.error) -- ws fails a close whose reason is not UTF-8
      assert.equals(1008, closed.code)
      assert.is_true(isUtf8(closed.reason))
      assert.is_true(#closed.reason <= 123 and #closed.reason >= 121, #closed.reason)
      assert.equals("no module serves /" .. ("é"):rep(52), closed.reason)
      closed = H.find(ev, function(e) return e.closed == "bad" end)
      assert.is_nil(closed.error, closed.error)
      assert.equals("no module serves /\\xFF\\xFEx\\x01", closed.reason)
    end)
  end)

  it("closes a client that sends an unmasked frame with 1002 (RFC 6455 5.1)", function()
    withEcho(function(s)
      local ev = H.raw(s.port, {
        { open = "a", path = "/echo" }, { send = "a", text = '{"ok":1}' }, { recv = "a" },
        { send = "a", text = '{"bad":1}', masked = false }, { closed = "a" },
        { open = "b", path = "/echo" }, { send = "b", text = '{"after":1}' }, { recv = "b" },
      })
      assert.same({ t = "echo", data = { ok = 1 } }, tycho.json.decode(H.find(ev, function(e) return e.recv == "a" end).text))
      local closed = H.find(ev, function(e) return e.closed == "a" end)
      assert.equals(1002, closed.code, H.readFile(s.log))
      -- nothing of the unmasked frame reached the module, and the host serves on
      assert.same({ t = "echo", data = { after = 1 } }, tycho.json.decode(H.find(ev, function(e) return e.recv == "b" end).text))
    end)
  end)
end)
