-- tests/server/spec/server_text_spec.lua: scripts/tycho/server/text.lua (client text quoted
-- back in replies, cut at UTF-8 character boundaries) and crafty's unknown_type refusal, which
-- quotes the type: a cut inside a character used to make the reply fail to encode, so the
-- client got nothing and the log a traceback. Needs node and `ws` for the last case.

local H = dofile(require("tycho.testing").here() .. "/../harness.lua")
local Text = require("tycho.server.text")

local MODULES = H.HERE .. "/../../server/modules"

describe("tycho.server.text", function()
  it("clips at a character boundary at or before maxBytes", function()
    assert.equals("abc", Text.clip("abc", 40))
    assert.equals("ab", Text.clip("abc", 2))
    assert.equals("", Text.clip("abc", 0))
    local s = "a" .. ("é"):rep(30) -- é is 2 bytes: byte 40 is the first half of the 20th
    assert.equals("a" .. ("é"):rep(19), Text.clip(s, 40))
    assert.equals("a" .. ("é"):rep(20), Text.clip(s, 41))
    assert.equals("", Text.clip("€", 2)) -- 3 bytes: nothing whole fits in 2
    assert.equals("x€", Text.clip("x€😀", 6)) -- 😀 is 4 bytes
    assert.equals("x€😀", Text.clip("x€😀", 8))
  end)

  it("stops before bytes that are not UTF-8, so the result always encodes", function()
    assert.equals("ok", Text.clip("ok\255rest", 40))
    assert.equals("", Text.clip("\128\128", 40))
    for _, s in ipairs({ "a\xC3", "\xE2\x82", ("é"):rep(50) .. "\xF0", "\xED\xA0\x80" }) do
      for n = 0, #s + 1 do
        local c = Text.clip(s, n)
        assert.is_true(#c <= n and utf8.len(c) ~= nil and s:sub(1, #c) == c)
        assert.is_string(tycho.json.encode({ message = c }))
      end
    end
  end)

  it("crafty refuses an unknown multibyte type with its first 40 bytes cut at a character", function()
    local data = H.tempDir()
    local t = "a" .. ("é"):rep(30)
    local log = H.with(MODULES, data, function(s)
      local ev = H.client(s.port, {
        { open = "a", path = "/crafty" },
        { send = "a", json = { t = "hello", playerKey = "k", name = "a", version = 1 } }, { recv = "a", t = "world_list" },
        { send = "a", json = { t = t } }, { recv = "a" },
        { send = "a", json = { t = "join_world", worldId = ("ü"):rep(100) } }, { recv = "a" },
      })
      local refused = H.messages(ev, "a", "error")
      assert.same({ t = "error", code = "unknown_type", message = "unknown message type a" .. ("é"):rep(19) }, refused[1])
      assert.equals("no_such_world", refused[2].code)
      assert.equals("no world with id " .. ("ü"):rep(32), refused[2].message) -- 64 bytes of the id
    end)
    H.removeTree(data)
    assert.is_nil(log:find("traceback", 1, true), log)
  end)
end)
