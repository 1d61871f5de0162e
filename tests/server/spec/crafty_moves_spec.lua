-- tests/server/spec/crafty_moves_spec.lua: crafty's movement check across visits. The first
-- transform may settle up to 128 blocks from the world's spawn (the client drops its player onto
-- the terrain there), but only from the spawn: a player who comes back (leave_world and join
-- again, or a new connection) starts where it was and moves at 30 blocks a second plus 4 from
-- there, so leave/join loops no longer teleport. Runs crafty.lua in this state
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

describe("crafty movement across visits", function()
  it("lets only a first visit settle away from the spawn; a rejoin moves at walking speed", function()
    local data = H.tempDir()
    local ok, err = pcall(function()
      local c = C.start({ data = data })
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
      c.stop()
    end)
    H.removeTree(data)
    if not ok then error(err, 0) end
  end)
end)
