-- server/modules/echo.lua: serves /echo. Answers every message with {t = "echo", data = msg}
-- and sends it to everyone else connected as {t = "broadcast", from = id, data = msg}.
local Room = require("tycho.server.room")

local room = Room.new()
local host

return {
  onStart = function(h)
    host = h
    host:log("echo ready")
  end,

  onConnect = function(session)
    room:add(session)
    room:broadcast({ t = "join", id = session.id }, session.id)
    return {
      onMessage = function(msg)
        session:send({ t = "echo", data = msg })
        room:broadcast({ t = "broadcast", from = session.id, data = msg }, session.id)
      end,
      onClose = function()
        room:remove(session.id)
        room:broadcast({ t = "leave", id = session.id })
      end,
    }
  end,

  onStop = function()
    host:log("echo stopping with", room.count, "sessions")
  end,
}
