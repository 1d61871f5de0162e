-- tests/server/spec/arena_spec.lua: server/modules/arena.lua end to end: 30 Hz snapshots,
-- inputs moving players at a capped speed, and the bounds holding. Needs node and `ws`.

local H = dofile(require("tycho.testing").here() .. "/../harness.lua")

local MODULES = H.HERE .. "/../../server/modules"

local function me(snapshot, id)
  for _, p in ipairs(snapshot.players) do if p.playerId == id then return p end end
end

describe("arena", function()
  it("sends a snapshot about 30 times a second, moves players by input at a capped speed, inside the bounds", function()
    local data = H.tempDir()
    local ok, err = pcall(H.with, MODULES, data, function(s)
      local ev = H.client(s.port, {
        { open = "a", path = "/arena" }, { recv = "a", t = "welcome" },
        { drain = "a", ms = 1000 },
        { send = "a", json = { t = "input", dx = 1, dz = 0 } },
        { drain = "a", ms = 500 },
        { send = "a", json = { t = "input", dx = 0, dz = 50 } }, -- asks for 50x speed: gets SPEED
        { drain = "a", ms = 500 },
        { send = "a", json = { t = "input", dx = "fast", dz = 0 } }, { recv = "a", t = "error" },
        { send = "a", json = { t = "input", dx = -1, dz = -1 } },
        { drain = "a", ms = 4500 },
      })
      local welcome = ev[2].json
      local id = welcome.playerId
      assert.equals(8, welcome.speed)
      assert.equals(16, welcome.bounds)

      local idle = ev[3].msgs
      assert.is_true(#idle >= 24 and #idle <= 36, "snapshots in 1 s: " .. #idle)
      for i, snap in ipairs(idle) do
        assert.equals("snapshot", snap.t)
        if i > 1 then assert.equals(idle[i - 1].tick + 1, snap.tick) end
        assert.same({ playerId = id, x = 0, z = 0 }, me(snap, id))
      end

      local moving = ev[4].msgs
      local last = me(moving[#moving], id)
      assert.is_true(last.x > 2 and last.x <= 8 * 0.6, "x after 0.5 s at speed 8: " .. last.x)
      for i = 2, #moving do
        local step = me(moving[i], id).x - me(moving[i - 1], id).x
        assert.is_true(step >= 0 and step <= 8 / 30 + 1e-9, "one tick moved " .. step)
      end

      local capped = ev[5].msgs
      for i = 2, #capped do
        local dz = me(capped[i], id).z - me(capped[i - 1], id).z
        assert.is_true(dz <= 8 / 30 + 1e-9, "one tick moved " .. dz .. " with input dz = 50")
      end

      assert.equals("bad_input", ev[6].json.code)

      local back = ev[7].msgs
      for _, snap in ipairs(back) do
        local p = me(snap, id)
        assert.is_true(p.x >= -16 and p.z >= -16, "left the arena: " .. p.x .. ", " .. p.z)
      end
      local final = me(back[#back], id)
      assert.same({ -16, -16 }, { final.x, final.z })
    end)
    H.removeTree(data)
    if not ok then error(err, 0) end
  end)
  it("caps inputs at the integer and float limits (2^32 squared wraps to 0) and refuses non-finite ones", function()
    local data = H.tempDir()
    local ok, err = pcall(H.with, MODULES, data, function(s)
      local ev = H.client(s.port, {
        { open = "a", path = "/arena" }, { recv = "a", t = "welcome" },
        { drain = "a", ms = 200 },
        { send = "a", json = { t = "input", dx = 4294967296, dz = 0 } },
        { drain = "a", ms = 300 },
        { send = "a", text = '{"t":"input","dx":0,"dz":-1e300}' },
        { drain = "a", ms = 300 },
        { send = "a", text = '{"t":"input","dx":-9223372036854775808,"dz":9223372036854775807}' },
        { drain = "a", ms = 300 },
        { send = "a", text = '{"t":"input","dx":1e999,"dz":0}' }, { recv = "a", t = "error" },
      })
      local id = ev[2].json.playerId
      -- Every snapshot from before the first input on, tick after tick: no step past 8/30.
      local snaps = {}
      for step = 3, 6 do
        for _, m in ipairs(ev[step].msgs) do
          assert.equals("snapshot", m.t, m.message)
          snaps[#snaps + 1] = m
        end
      end
      assert.is_true(#snaps >= 20, "snapshots: " .. #snaps)
      for i = 2, #snaps do
        assert.equals(snaps[i - 1].tick + 1, snaps[i].tick)
        local a, b = me(snaps[i - 1], id), me(snaps[i], id)
        local moved = math.sqrt((b.x - a.x) ^ 2 + (b.z - a.z) ^ 2)
        assert.is_true(moved <= 8 / 30 + 1e-9, "one tick moved " .. moved .. " at tick " .. snaps[i].tick)
      end
      -- JSON has no inf or NaN: the host refuses 1e999 before arena sees it (arena's own check,
      -- bad_input, is for other values that are not finite numbers)
      assert.equals("bad_json", H.messages(ev, "a", "error")[1].code)
    end)
    H.removeTree(data)
    if not ok then error(err, 0) end
  end)
end)
