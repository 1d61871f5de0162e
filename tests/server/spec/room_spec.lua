-- tests/server/spec/room_spec.lua: scripts/tycho/server/room.lua's broadcast over tycho.fanout
-- (bindings/lua_host.c), with stand-in members: id order, exceptId, one encode, members without
-- sendText, a send that raises, and no Lua instructions per member.

local Room = require("tycho.server.room")

local function member(id, log)
  return { id = id, sendText = function(self, text) log[#log + 1] = { self.id, text } end }
end

describe("Room:broadcast", function()
  it("sends one encoded text to every member but exceptId, in id order", function()
    local log, room = {}, Room.new()
    for _, id in ipairs({ 3, 1, 2 }) do room:add(member(id, log)) end
    assert.equals(2, room:broadcast({ t = "x", n = 1 }, 2))
    assert.same({ 1, 3 }, { log[1][1], log[2][1] })
    assert.same({ t = "x", n = 1 }, tycho.json.decode(log[1][2]))
    assert.equals(log[1][2], log[2][2])
  end)

  it("hands members without sendText the value itself", function()
    local got, room = {}, Room.new()
    room:add({ id = 1, send = function(_, msg) got[#got + 1] = msg end })
    local msg = { t = "y" }
    assert.equals(1, room:broadcast(msg))
    assert.equals(msg, got[1])
  end)

  it("skips a member whose send raises and raises its error after the others got msg", function()
    local log, room = {}, Room.new()
    room:add(member(1, log))
    room:add({ id = 2, sendText = function() error("boom", 0) end })
    room:add(member(3, log))
    local ok, err = pcall(room.broadcast, room, { t = "z" })
    assert.is_false(ok)
    assert.equals("boom", err)
    assert.equals(2, #log)
  end)

  it("raises before anyone got a message JSON cannot hold", function()
    local log, room = {}, Room.new()
    room:add(member(1, log))
    assert.has_error(function() room:broadcast({ f = print }) end)
    assert.equals(0, #log)
  end)

  it("costs the same Lua instructions for 2 members as for 2,000", function()
    local function cost(n)
      local room = Room.new()
      for i = 1, n do room:add({ id = i, sendText = rawlen }) end -- a C send: no instructions of its own
      room:broadcast({ t = "warm" })
      local count = 0
      debug.sethook(function() count = count + 1 end, "", 1)
      room:broadcast({ t = "tick" })
      debug.sethook()
      return count
    end
    assert.equals(cost(2), cost(2000))
  end)
end)
