-- tests/server/spec/crafty_guard_spec.lua: server/modules/crafty.lua against hostile or
-- unusual input (coordinates at the integer limits, world and movement floods, a second
-- session of one playerKey, a 40,000-edit world) and over a hot reload of crafty.lua.
-- Needs node and `npm ci --prefix tests/server`.

local H = dofile(require("tycho.testing").here() .. "/../harness.lua")

local MODULES = H.HERE .. "/../../server/modules"

local function hello(name, key)
  return { send = name, json = { t = "hello", playerKey = key or ("key-" .. name), name = name, version = 1 } }
end
local function send(name, json) return { send = name, json = json } end
local function recv(name, t) return { recv = name, t = t } end

local function errorsOf(events, name)
  local codes = {}
  for _, m in ipairs(H.messages(events, name, "error")) do codes[#codes + 1] = m.code end
  return codes
end

-- A data folder holding one world (with edits) made through the store; returns data, id.
local function seeded(edits, extraWorlds)
  local data = H.tempDir()
  local store = assert(tycho.storage.open(data .. "/worlds.sqlite"))
  local world = tycho.storage.createSavedWorld("Seeded", 5, "creative")
  world.edits = edits or {}
  assert(store:save(world))
  for i = 1, extraWorlds or 0 do assert(store:save(tycho.storage.createSavedWorld("w" .. i, i))) end
  store:close()
  return data, world.id
end

local function joinSteps(name, id, key)
  return { { open = name, path = "/crafty" }, hello(name, key), recv(name, "world_list"),
    send(name, { t = "join_world", worldId = id }), recv(name, "welcome") }
end

local function append(steps, more)
  for _, s in ipairs(more) do steps[#steps + 1] = s end
  return steps
end

describe("crafty guards", function()
  it("refuses coordinates at the integer and float limits; the world still saves and loads", function()
    local data, id = seeded()
    local ground = H.surface(5, 60, 61)
    H.with(MODULES, data, function(s)
      local steps = joinSteps("a", id)
      local bad = { math.mininteger, math.maxinteger, 1e308, -1e308, "1", (1 << 24) }
      for _, v in ipairs(bad) do
        append(steps, { send("a", { t = "transform", x = v, y = 66, z = 0.5, yaw = 0, pitch = 0 }), recv("a", "error") })
        append(steps, { send("a", { t = "block_edit", action = "place", x = v, y = 65, z = 0, type = 1 }), recv("a", "error") })
        append(steps, { send("a", { t = "block_edit", action = "place", x = 0, y = v, z = 0, type = 1 }), recv("a", "error") })
      end
      append(steps, {
        { send = "a", text = '{"t":"transform","x":1e999,"y":66,"z":0.5,"yaw":0,"pitch":0}' }, recv("a", "error"),
        send("a", { t = "transform", x = 60.5, y = ground + 2, z = 60.5, yaw = 0, pitch = 0 }),
        { send = "a", text = '{"t":"block_edit","action":"place","x":60,"y":65,"z":-0.0,"type":1}' }, recv("a"),
        send("a", { t = "block_edit", action = "place", x = 60, y = ground + 1, z = 61, type = 2 }), recv("a", "block_edit"),
      })
      local ev = H.client(s.port, steps)
      local codes = errorsOf(ev, "a")
      assert.is_true(#codes >= #bad * 3, table.concat(codes, ","))
      for _, c in ipairs(codes) do
        assert.truthy(c == "out_of_bounds" or c == "bad_transform" or c == "bad_edit" or c == "bad_json"
          or c == "out_of_reach" or c == "too_fast_move", c)
      end
      H.sleep(0.1)
    end)
    local log = H.with(MODULES, data, function(s)
      local ev = H.client(s.port, joinSteps("b", id))
      local edits = H.messages(ev, "b", "welcome")[1].world.edits
      assert.equals(1, #edits)
      assert.same({ x = 60, y = ground + 1, z = 61, type = 2 }, edits[1])
    end)
    assert.is_nil(log:find("crafty_save_failed", 1, true), log)
    H.removeTree(data)
  end)

  it("limits create_world per client (too_fast) and worlds per server (too_many_worlds)", function()
    local data = H.tempDir()
    H.with(MODULES, data, function(s)
      local steps = { { open = "a", path = "/crafty" }, hello("a"), recv("a", "world_list") }
      for i = 1, 5 do append(steps, { send("a", { t = "create_world", name = "w" .. i, seed = i }), recv("a") }) end
      local ev = H.client(s.port, steps)
      assert.same({ "too_fast", "too_fast" }, errorsOf(ev, "a"))
    end)
    H.removeTree(data)
    local full = seeded(nil, 255) -- 256 worlds
    H.with(MODULES, full, function(s)
      local ev = H.client(s.port, { { open = "a", path = "/crafty" }, hello("a"), recv("a", "world_list"),
        send("a", { t = "create_world", name = "one more", seed = 1 }), recv("a") })
      assert.same({ "too_many_worlds" }, errorsOf(ev, "a"))
    end)
    H.removeTree(full)
  end)

  it("refuses a teleport (too_fast_move), keeps the old position, and measures reach from it", function()
    local data, id = seeded()
    local ground = H.surface(5, 10, 10)
    H.with(MODULES, data, function(s)
      local ev = H.client(s.port, append(joinSteps("a", id), {
        send("a", { t = "transform", x = 10.5, y = ground + 2, z = 10.5, yaw = 0, pitch = 0 }), -- settling near spawn
        send("a", { t = "transform", x = 5000.5, y = ground + 2, z = 10.5, yaw = 0, pitch = 0 }), recv("a", "error"),
        send("a", { t = "block_edit", action = "place", x = 5000, y = ground + 1, z = 10, type = 1 }), recv("a", "error"),
        send("a", { t = "block_edit", action = "place", x = 10, y = ground + 1, z = 10, type = 1 }), recv("a", "block_edit"),
      }))
      assert.same({ "too_fast_move", "out_of_reach" }, errorsOf(ev, "a"))
    end)
    H.removeTree(data)
  end)

  it("treats cells outside 0..255 as air (no key collision at y = -1) and refuses a fast climb", function()
    local data, id = seeded({ { x = 0, y = 1, z = 0, type = 0 } })
    H.with(MODULES, data, function(s)
      local ev = H.client(s.port, append(joinSteps("a", id), {
        send("a", { t = "transform", x = 0.5, y = 3, z = 0.5, yaw = 0, pitch = 0 }),
        -- (0,0,0) is ground; (0,1,0) was broken: y = -1 is not a neighbour, the ground beside is
        send("a", { t = "block_edit", action = "break", x = 0, y = 0, z = 0 }), recv("a"),
        send("a", { t = "block_edit", action = "place", x = 0, y = 0, z = 0, type = 1 }), recv("a"),
        send("a", { t = "transform", x = 3.5, y = 150, z = 0.5, yaw = 0, pitch = 0 }), recv("a", "error"),
      }))
      assert.equals(2, #H.messages(ev, "a", "block_edit"))
    end)
    H.removeTree(data)
    data, id = seeded()
    H.with(MODULES, data, function(s)
      -- At y = 255 with nothing at 254 or around, the cell above (256, off the world) is air.
      local steps = joinSteps("a", id)
      local ev = H.client(s.port, append(steps, {
        send("a", { t = "transform", x = 64.5, y = 200, z = 64.5, yaw = 0, pitch = 0 }),
        send("a", { t = "transform", x = 64.5, y = 252, z = 64.5, yaw = 0, pitch = 0 }), recv("a", "error"),
      }))
      -- 52 blocks in well under 2 s passes MAX_SPEED: refused. Slowly, then:
      assert.same({ "too_fast_move" }, errorsOf(ev, "a"))
    end)
    H.removeTree(data)
  end)

  it("refuses a second session of one playerKey in one world (already_online)", function()
    local data, id = seeded()
    H.with(MODULES, data, function(s)
      local steps = joinSteps("a", id, "same")
      append(steps, { { open = "b", path = "/crafty" }, hello("b", "same"), recv("b", "world_list"),
        send("b", { t = "join_world", worldId = id }), recv("b"),
        { close = "a" }, { sleep = 100 },
        send("b", { t = "join_world", worldId = id }), recv("b", "welcome") })
      local ev = H.client(s.port, steps)
      assert.same({ "already_online" }, errorsOf(ev, "b"))
      assert.equals(1, #H.messages(ev, "b", "welcome"))
    end)
    H.removeTree(data)
  end)

  it("sends a 40,000-edit world in chunks under the default limits", function()
    local edits = {}
    for i = 0, 39999 do edits[#edits + 1] = { x = i % 200, y = 100 + (i // 40000), z = i // 200, type = 1 + i % 5 } end
    local data, id = seeded(edits)
    H.with(MODULES, data, function(s)
      local steps = joinSteps("a", id)
      for _ = 1, 39 do steps[#steps + 1] = recv("a", "edits") end -- 40,000 = 1,024 in welcome + 39 chunks
      local ev = H.client(s.port, steps)
      local welcome = H.messages(ev, "a", "welcome")[1]
      assert.is_true(welcome.more)
      local got = #welcome.world.edits
      local chunks = H.messages(ev, "a", "edits")
      for i, c in ipairs(chunks) do
        got = got + #c.edits
        assert.equals(i < #chunks, c.more)
      end
      assert.equals(40000, got)
      assert.same({ x = 199, y = 100, z = 199, type = 5 }, chunks[#chunks].edits[#chunks[#chunks].edits])
    end)
    H.removeTree(data)
  end)

  it("keeps serving new and existing players over a save of crafty.lua", function()
    local dir = H.tempDir()
    os.execute(("cp %s/*.lua %s"):format(H.shq(MODULES), H.shq(dir)))
    local data, id = seeded()
    local ground = H.surface(5, 60, 61)
    H.with(dir, data, function(s)
      -- a stays connected in the world through the reload and edits after it
      local aSteps = append(joinSteps("a", id), {
        send("a", { t = "transform", x = 60.5, y = ground + 2, z = 60.5, yaw = 0, pitch = 0 }),
        { drain = "a", ms = 1500 },
        send("a", { t = "block_edit", action = "place", x = 60, y = ground + 1, z = 61, type = 3 }), recv("a", "block_edit"),
        { drain = "a", ms = 500 },
      })
      local out = os.tmpname()
      H.run(H.clientCommand(s.port, aSteps) .. " >" .. H.shq(out) .. " 2>&1 &")
      H.sleep(0.5)
      local src = H.readFile(dir .. "/crafty.lua")
      local f = assert(io.open(dir .. "/crafty.lua", "wb"))
      f:write((src:gsub("join a world first", "join a world first (reloaded)")) .. "\n-- saved again\n")
      f:close()
      for _ = 1, 50 do
        if (H.readFile(s.log) or ""):find("reloaded crafty", 1, true) then break end
        H.sleep(0.05)
      end
      local ev = H.client(s.port, append(joinSteps("b", id), {
        send("b", { t = "chat", message = "after" }),
        send("b", { t = "transform", x = 61.5, y = 66, z = 60.5, yaw = 0, pitch = 0 }),
        { drain = "b", ms = 1500 },
      }))
      local nb = { { open = "c", path = "/crafty" }, send("c", { t = "hello", playerKey = "k", name = "c", version = 1 }),
        recv("c"), send("c", { t = "transform", x = 0, y = 0, z = 0, yaw = 0, pitch = 0 }), recv("c") }
      local cev = H.client(s.port, nb)
      H.sleep(1.5)
      local aev = H.parseLines(H.readFile(out) or "")
      os.remove(out)
      assert.equals("join a world first (reloaded)", H.messages(cev, "c", "error")[1].message)
      local welcome = H.messages(ev, "b", "welcome")[1]
      assert.is_not_nil(welcome, "no welcome after the reload")
      assert.equals(1, #welcome.players) -- a is still a member
      assert.equals(1, #H.messages(ev, "b", "block_edit"), tycho.json.encode(aev))
      assert.equals(1, #H.messages(aev, "a", "block_edit"))
      assert.equals(1, #H.messages(aev, "a", "chat"))
      assert.equals(1, #H.messages(aev, "a", "player_join"))
      assert.is_true(#H.messages(aev, "a", "players") >= 1)
    end)
    H.removeTree(dir)
    H.removeTree(data)
  end)
end)
