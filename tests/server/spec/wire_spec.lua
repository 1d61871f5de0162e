-- tests/server/spec/wire_spec.lua: `tycho serve` on the wire, against RFC 6455 and server.md,
-- driven by a client written on bare TCP (tests/server/raw.js) where `ws` will not misbehave
-- on request: a client that talks but never answers a ping stays (server.md: a client is
-- dropped when it "has sent nothing and answered no ping"); close reasons are valid UTF-8 of
-- at most 123 bytes whatever path they quote; an unmasked client frame is closed with 1002
-- (5.1); and the frame rules the host's own reader (server/ws_frames.c) keeps: pings, pongs,
-- fragments, closes, broken frames, clients gone mid-frame, a flood read a piece at a time.
-- Needs node and `npm ci --prefix tests/server`.

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
        { send = "a", text = '{"bad":1}', masked = false }, { closed = "a" }, { sleep = 200 }, -- a's leave goes before b joins
        { open = "b", path = "/echo" }, { send = "b", text = '{"after":1}' }, { recv = "b" },
      })
      assert.same({ t = "echo", data = { ok = 1 } }, tycho.json.decode(H.find(ev, function(e) return e.recv == "a" end).text))
      local closed = H.find(ev, function(e) return e.closed == "a" end)
      assert.equals(1002, closed.code, H.readFile(s.log))
      -- nothing of the unmasked frame reached the module, and the host serves on
      assert.same({ t = "echo", data = { after = 1 } }, tycho.json.decode(H.find(ev, function(e) return e.recv == "b" end).text))
    end)
  end)

  -- The host reads a plain connection's frames itself (server/ws_frames.c): every rule below
  -- held on lws's path before, and each is driven here on bare TCP.

  it("answers a ping with its payload, takes pongs, and joins fragments around control frames", function()
    withEcho(function(s)
      local ev = H.raw(s.port, {
        { open = "a", path = "/echo" },
        { frames = "a", list = {
          { text = '{"fr', fin = false }, { op = 9, hex = "0102ff" }, { op = 0, text = 'ag":', fin = false },
          { op = 10, hex = "" }, { op = 0, text = "", fin = false }, { op = 0, text = "1}" },
        } },
        { recv = "a" }, { recv = "a" },
      })
      local pong = H.find(ev, function(e) return e.recv == "a" and e.pong end)
      local echo = H.find(ev, function(e) return e.recv == "a" and e.text end)
      assert.equals("0102ff", pong and pong.pong, H.readFile(s.log))
      assert.same({ t = "echo", data = { frag = 1 } }, tycho.json.decode(echo.text))
    end)
  end)

  it("reads many frames in one segment, and one frame that comes a byte at a time", function()
    withEcho(function(s)
      local list, steps = {}, { { open = "a", path = "/echo" } }
      for i = 1, 40 do list[i] = { text = '{"i":' .. i .. "}" } end
      steps[#steps + 1] = { frames = "a", list = list }
      for _ = 1, 40 do steps[#steps + 1] = { recv = "a" } end
      steps[#steps + 1] = { frames = "a", split = 1, list = {
        { text = '{"slow":', fin = false }, { op = 9, hex = "aa" }, { op = 0, text = '"' .. ("x"):rep(300) .. '"}' },
      } }
      steps[#steps + 1] = { recv = "a" }
      steps[#steps + 1] = { recv = "a" }
      local ev = H.raw(s.port, steps)
      local got = {}
      for _, e in ipairs(ev) do if e.recv == "a" then got[#got + 1] = e end end
      for i = 1, 40 do assert.same({ t = "echo", data = { i = i } }, tycho.json.decode(got[i].text)) end
      local pong = got[41].pong and got[41] or got[42]
      local echo = got[41].pong and got[42] or got[41]
      assert.equals("aa", pong.pong, H.readFile(s.log))
      assert.same({ t = "echo", data = { slow = ("x"):rep(300) } }, tycho.json.decode(echo.text))
    end)
  end)

  it("echoes a close's code and reason, answers a code RFC 6455 does not allow with 1002, and says onClose once", function()
    withEcho(function(s)
      local closes = {
        { name = "reason", hex = "0bb8" .. ("bye"):gsub(".", function(c) return ("%02x"):format(c:byte()) end), code = 3000, reason = "bye" },
        { name = "normal", hex = "03e8", code = 1000, reason = "" },
        { name = "none", hex = "", code = 1005, reason = "" },
        { name = "reserved", hex = "03ed", code = 1002 },
        { name = "low", hex = "0001", code = 1002 },
        { name = "short", hex = "03", code = 1002 }, -- (lws 4.1 echoed the byte back)
        { name = "notutf8", hex = "03e8ff", code = 1007 },
      }
      local steps = { { open = "w", path = "/echo" } }
      for _, c in ipairs(closes) do
        steps[#steps + 1] = { open = c.name, path = "/echo" }
        steps[#steps + 1] = { frames = c.name, list = { { op = 8, hex = c.hex } } }
        steps[#steps + 1] = { closed = c.name }
      end
      for _ = 1, 2 * #closes do steps[#steps + 1] = { recv = "w" } end -- a join and a leave each
      steps[#steps + 1] = { sleep = 300 }
      steps[#steps + 1] = { state = "w" }
      local ev = H.raw(s.port, steps)
      for _, c in ipairs(closes) do
        local closed = H.find(ev, function(e) return e.closed == c.name end)
        assert.equals(c.code, closed.code, c.name .. "\n" .. H.readFile(s.log))
        if c.reason then assert.equals(c.reason, closed.reason) end
      end
      local leaves = {}
      for _, e in ipairs(ev) do
        local m = e.recv == "w" and e.text and tycho.json.decode(e.text)
        if m and m.t == "leave" then leaves[m.id] = (leaves[m.id] or 0) + 1 end
      end
      local n = 0
      for _, count in pairs(leaves) do
        assert.equals(1, count)
        n = n + 1
      end
      assert.equals(#closes, n)
      assert.equals(0, H.find(ev, function(e) return e.state == "w" end).received) -- no second onClose
    end)
  end)

  it("closes with 1002 on reserved bits and opcodes, stray continuations, broken control frames; 1009 on a too long header", function()
    withEcho(function(s)
      local cases = {
        rsv = { { text = "{}", rsv = 4 } },
        opcode = { { op = 3, text = "{}" } },
        ctlopcode = { { op = 11, text = "" } },
        continuation = { { op = 0, text = "{}" } },
        interrupted = { { text = "{", fin = false }, { text = "{}" } },
        fragping = { { op = 9, hex = "01", fin = false } },
        longping = { { op = 9, hex = ("00"):rep(126) } }, -- (lws 4.1 dropped the connection without a close)
        big = { { text = "{}", len = 70000 } }, -- past the default --max-frame (64 KiB): only its header is sent
      }
      local steps = {}
      for name, list in pairs(cases) do
        steps[#steps + 1] = { open = name, path = "/echo" }
        steps[#steps + 1] = { frames = name, list = list, bytes = name == "big" and 16 or nil }
        steps[#steps + 1] = { closed = name }
      end
      steps[#steps + 1] = { sleep = 300 } -- the last one's leave goes before "after" joins
      steps[#steps + 1] = { open = "after", path = "/echo" }
      steps[#steps + 1] = { send = "after", text = '{"ok":1}' }
      steps[#steps + 1] = { recv = "after" }
      local ev = H.raw(s.port, steps)
      for name in pairs(cases) do
        local closed = H.find(ev, function(e) return e.closed == name end)
        assert.equals(name == "big" and 1009 or 1002, closed.code, name .. "\n" .. H.readFile(s.log))
      end
      local after = H.find(ev, function(e) return e.recv == "after" end)
      assert.same({ t = "echo", data = { ok = 1 } }, tycho.json.decode(after.text))
    end)
  end)

  it("serves a client whose first frame came with its handshake (lws reads that one on)", function()
    withEcho(function(s)
      local ev = H.raw(s.port, {
        { open = "a", path = "/echo", early = '{"early":1}' }, { recv = "a" },
        { frames = "a", list = { { text = '{"la', fin = false }, { op = 9, hex = "07" }, { op = 0, text = 'ter":2}' } } },
        { recv = "a" }, { recv = "a" },
      })
      local texts = {}
      for _, e in ipairs(ev) do if e.recv == "a" and e.text then texts[#texts + 1] = tycho.json.decode(e.text) end end
      assert.same({ t = "echo", data = { early = 1 } }, texts[1], H.readFile(s.log))
      assert.same({ t = "echo", data = { later = 2 } }, texts[2])
      assert.is_not_nil(H.find(ev, function(e) return e.pong == "07" end))
    end)
  end)

  it("hands text that is not UTF-8 to the module's decoder as it is, and keeps the connection", function()
    withEcho(function(s)
      local ev = H.raw(s.port, {
        { open = "a", path = "/echo" },
        { frames = "a", list = { { hex = "7b2278223a22ff227d" } } }, -- {"x":"\xFF"}
        { recv = "a" },
        { send = "a", text = '{"ok":1}' }, { recv = "a" },
      })
      local got = {}
      for _, e in ipairs(ev) do if e.recv == "a" then got[#got + 1] = tycho.json.decode(e.text) end end
      assert.equals("error", got[1].t, H.readFile(s.log))
      assert.same({ t = "echo", data = { ok = 1 } }, got[2])
    end)
  end)

  it("closes once a client that ends or resets its connection mid-frame, and frees its connection", function()
    withEcho(function(s)
      local steps = { { open = "w", path = "/echo" } }
      local gone = {
        ended = { bytes = 5, how = "end" },
        reset = { bytes = 5, how = "reset" },
        midpayload = { bytes = 40, how = "reset", len = 1000 },
        header = { bytes = 1, how = "end" },
      }
      for name, g in pairs(gone) do
        steps[#steps + 1] = { open = name, path = "/echo" }
        steps[#steps + 1] = { frames = name, list = { { text = ('{"pad":"%s"}'):format(("x"):rep(60)), len = g.len } }, bytes = g.bytes }
        steps[#steps + 1] = { sleep = 50 }
        steps[#steps + 1] = { [g.how] = name }
      end
      for _ = 1, 8 do steps[#steps + 1] = { recv = "w" } end
      -- --max-clients 5: w and four more fit only if every closed connection was counted out
      for i = 1, 4 do steps[#steps + 1] = { open = "n" .. i, path = "/echo" } end
      local ev = H.raw(s.port, steps)
      local leaves = 0
      for _, e in ipairs(ev) do
        local m = e.recv == "w" and e.text and tycho.json.decode(e.text)
        if m and m.t == "leave" then leaves = leaves + 1 end
      end
      assert.equals(4, leaves, H.readFile(s.log))
      for i = 1, 4 do assert.is_not_nil(H.find(ev, function(e) return e.open == "n" .. i end), H.readFile(s.log)) end
    end, "--max-clients", "5")
  end)

  it("reads a flooding client a bounded piece a turn, so a slow module still serves the others", function()
    local dir, data = H.tempDir(), H.tempDir()
    local f = assert(io.open(dir .. "/slow.lua", "wb"))
    f:write([[
local handled = 0
return {
  onConnect = function(session)
    return {
      onMessage = function(msg)
        if msg.flood then
          handled = handled + 1
          local x = 0
          for i = 1, 20000 do x = x + i % 7 end -- a slow handler
          return x
        end
        session:send({ t = "seen", handled = handled })
      end,
    }
  end,
}
]])
    f:close()
    local ok, err = pcall(H.with, dir, data, function(s)
      local ev = H.raw(s.port, {
        { open = "flood", path = "/slow" }, { open = "other", path = "/slow" },
        { frames = "flood", list = { { text = ('{"flood":1,"pad":"%s"}'):format(("x"):rep(1000)) } }, times = 400 },
        { sleep = 20 },
        { send = "other", text = "{}" }, { recv = "other" },
        { send = "flood", text = "{}" }, { recv = "flood" },
      })
      local seen = tycho.json.decode(H.find(ev, function(e) return e.recv == "other" end).text)
      assert.is_true(seen.handled < 400, "the other client waited for the whole flood")
      local last = tycho.json.decode(H.find(ev, function(e) return e.recv == "flood" end).text)
      assert.equals(400, last.handled) -- and nothing of the flood was lost
    end)
    H.removeTree(dir)
    H.removeTree(data)
    if not ok then error(err, 0) end
  end)
end)
