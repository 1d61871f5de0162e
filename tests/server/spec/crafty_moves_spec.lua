-- tests/server/spec/crafty_moves_spec.lua: crafty's movement check across visits. The first
-- transform may settle up to 128 blocks from the world's spawn (the client drops its player onto
-- the terrain there), but only from the spawn: a player who comes back (leave_world and join
-- again, or a new connection) starts where it was and moves at 30 blocks a second plus 4 from
-- there, so leave/join loops no longer teleport. A hot reload over code that kept positions in
-- the player's own fields (player.x, ...) carries the players on. Runs crafty.lua in this state
-- (tests/server/crafty_local.lua).

local H = dofile(require("tycho.testing").here() .. "/../harness.lua")
local C = dofile(H.HERE .. "/crafty_local.lua")

-- The codes of the error frames session id got since the last take.
local function errors(c, id)
  local codes = {}
  for _, m in ipairs(c.take(id)) do if m.t == "error" then codes[#codes + 1] = m.code end end
  return codes
end

local function welcome(c, id)
  for _, m in ipairs(c.take(id)) do if m.t == "welcome" then return m end end
end

-- Runs fn(c) against crafty over a fresh data folder, which is removed whatever fn does.
local function withCrafty(fn)
  local data = H.tempDir()
  local ok, err = pcall(function()
    local c = C.start({ data = data })
    fn(c)
    c.stop()
  end)
  H.removeTree(data)
  if not ok then error(err, 0) end
end

describe("crafty movement across visits", function()
  it("lets only a first visit settle away from the spawn; a rejoin moves at walking speed", function()
    withCrafty(function(c)
      local id, spawn = c.world()
      local function move(sid, dx)
        c.send(sid, { t = "transform", x = spawn.x + dx, y = spawn.y, z = spawn.z, yaw = 0, pitch = 0 })
      end
      c.connect(1, "walker")
      c.send(1, { t = "join_world", worldId = id })
      c.take(1)
      move(1, 60) -- a first visit: settles
      assert.same({}, errors(c, 1))
      for round = 1, 3 do -- each rejoin used to allow another 128 blocks
        c.send(1, { t = "leave_world" })
        c.send(1, { t = "join_world", worldId = id })
        assert.equals(spawn.x + 60, welcome(c, 1).you.x)
        move(1, 60 + 100 * round)
        assert.same({ "too_fast_move" }, errors(c, 1), "rejoin " .. round)
      end
      move(1, 62) -- walking from where it was is fine
      assert.same({}, errors(c, 1))

      -- A new connection with the same key, after the world was unloaded (its last player left):
      -- the saved position, and no settling either.
      c.close(1)
      c.connect(2, "walker")
      c.send(2, { t = "join_world", worldId = id })
      assert.equals(spawn.x + 62, welcome(c, 2).you.x)
      move(2, 162)
      assert.same({ "too_fast_move" }, errors(c, 2))

      -- A player that never moved comes back at the spawn: it may still settle once.
      c.connect(3, "sitter")
      c.send(3, { t = "join_world", worldId = id })
      c.send(3, { t = "leave_world" })
      c.send(3, { t = "join_world", worldId = id })
      c.take(3)
      move(3, -100)
      assert.same({}, errors(c, 3))
      c.send(3, { t = "leave_world" })
      c.send(3, { t = "join_world", worldId = id })
      move(3, 20)
      assert.same({ "too_fast_move" }, errors(c, 3))
    end)
  end)

  it("carries players made by code before the movement state over a reload", function()
    withCrafty(function(c)
      local id, spawn = c.world()
      local function move(sid, dx)
        c.send(sid, { t = "transform", x = spawn.x + dx, y = spawn.y, z = spawn.z, yaw = 0.5, pitch = -0.25 })
      end
      for sid = 1, 2 do
        c.connect(sid)
        c.send(sid, { t = "join_world", worldId = id })
      end
      move(1, 40)
      c.runTimers(1 / 15)
      move(1, 41) -- queued when the old code's state is made
      c.take(1)
      c.take(2)
      -- The state as the older code kept it: fields of the player, its room's movers the players.
      local M = c.M
      local room = M.rooms[id]
      for _, p in pairs(room.players) do
        local mv = p.mv
        p.x, p.y, p.z, p.yaw, p.pitch, p.at, p.settled = mv[1], mv[2], mv[3], mv[4], mv[5], mv[6], mv[7]
        p.queued, p.dirty, p.mv = mv[8], mv[9], nil
      end
      room.movers = { room.players[1] }
      for _, client in pairs(M.clients) do client.mv = nil end
      M.onReload(M, c.host)

      c.runTimers(1 / 15) -- the move queued before the reload goes out
      local seen = c.take(2)
      assert.equals("players", seen[#seen].t)
      assert.same({ { playerId = 1, x = spawn.x + 41, y = spawn.y, z = spawn.z, yaw = 0.5, pitch = -0.25 } },
        seen[#seen].players)
      move(1, 200) -- settled before the reload: still measured from where it was
      assert.same({ "too_fast_move" }, errors(c, 1))
      move(1, 42)
      assert.same({}, errors(c, 1))
      -- Edits are in reach of the position the reload kept (placing in the air fails later, on
      -- not_adjacent), not of the spawn.
      local function edit(dx)
        c.send(1, { t = "block_edit", x = math.floor(spawn.x + dx), y = math.floor(spawn.y) + 3,
          z = math.floor(spawn.z), action = "place", type = 1 })
        return errors(c, 1)
      end
      assert.same({ "not_adjacent" }, edit(42))
      assert.same({ "out_of_reach" }, edit(0))
      c.connect(3)
      c.send(3, { t = "join_world", worldId = id })
      local others = welcome(c, 3).players
      assert.equals(spawn.x + 42, others[1].x)
      assert.equals(0.5, others[1].yaw)
      c.send(1, { t = "leave_world" }) -- saved where it is
      c.send(1, { t = "join_world", worldId = id })
      assert.equals(spawn.x + 42, welcome(c, 1).you.x)
    end)
  end)
end)
