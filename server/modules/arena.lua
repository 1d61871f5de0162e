-- server/modules/arena.lua: serves /arena, an authoritative simulation: one room ticked at
-- 30 Hz. Clients send what they want (input{dx, dz}, a direction); the server moves every
-- player at a capped speed inside the arena's bounds and sends everyone a full snapshot
-- {t = "snapshot", tick, players = {{playerId, x, z}, ...}} each tick. No lobby, nothing saved.
-- Inputs must be finite numbers; each axis is clamped to [-1, 1], then the vector cut to length 1.
local Room = require("tycho.server.room")

local TICK = 1 / 30
local SPEED = 8   -- units per second at full input
local HALF = 16   -- the arena is [-HALF, HALF] on x and z

local room = Room.new()
local players = {} -- session id -> {playerId, x, z, dx, dz}
local tick = 0

local function finite(v)
  return math.type(v) ~= nil and v == v and v ~= math.huge and v ~= -math.huge
end

local function clamp(v) return math.max(-HALF, math.min(HALF, v)) end

local function step()
  tick = tick + 1
  if room.count == 0 then return end
  local list = tycho.json.array()
  for _, p in pairs(players) do
    p.x = clamp(p.x + p.dx * SPEED * TICK)
    p.z = clamp(p.z + p.dz * SPEED * TICK)
    list[#list + 1] = { playerId = p.playerId, x = p.x, z = p.z }
  end
  table.sort(list, function(a, b) return a.playerId < b.playerId end)
  room:broadcast({ t = "snapshot", tick = tick, players = list })
end

return {
  onStart = function(host)
    host:every(TICK, step)
  end,

  onConnect = function(session)
    local p = { playerId = session.id, x = 0, z = 0, dx = 0, dz = 0 }
    players[session.id] = p
    room:add(session)
    session:send({ t = "welcome", playerId = p.playerId, tickRate = 1 / TICK, speed = SPEED, bounds = HALF })
    return {
      onMessage = function(msg)
        if type(msg) ~= "table" or msg.t ~= "input" then
          return session:send({ t = "error", code = "unknown_type", message = "this path only takes input{dx, dz}" })
        end
        local dx, dz = msg.dx, msg.dz
        if not (finite(dx) and finite(dz)) then
          return session:send({ t = "error", code = "bad_input", message = "dx and dz must be finite numbers" })
        end
        -- A direction longer than 1 is cut to 1: nobody runs faster than SPEED. Each axis is
        -- clamped to [-1, 1] as a float first: an integer dx = 2^32 squares to 2^64, which
        -- wraps to 0, and a huge float squares to inf (either passed the cut whole).
        dx, dz = math.max(-1.0, math.min(1.0, dx + 0.0)), math.max(-1.0, math.min(1.0, dz + 0.0))
        local len = math.sqrt(dx * dx + dz * dz)
        if len > 1 then dx, dz = dx / len, dz / len end
        p.dx, p.dz = dx, dz
      end,
      onClose = function()
        players[session.id] = nil
        room:remove(session.id)
      end,
    }
  end,
}
