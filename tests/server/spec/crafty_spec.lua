-- tests/server/spec/crafty_spec.lua: server/modules/crafty.lua end to end: `tycho serve` over
-- server/modules with its own --data folder, driven by node's `ws` (tests/server/client.js).
-- Needs node and `npm ci --prefix tests/server`.

local H = dofile(require("tycho.testing").here() .. "/../harness.lua")

local MODULES = H.HERE .. "/../../server/modules"

local function hello(name, key, version)
  return { send = name, json = { t = "hello", playerKey = key or ("key-" .. name), name = name, version = version or 1 } }
end

local function send(name, json) return { send = name, json = json } end
local function recv(name, t) return { recv = name, t = t } end

-- A fresh data folder per test, removed afterwards.
local function withCrafty(fn)
  local data = H.tempDir()
  local ok, err = pcall(fn, data)
  H.removeTree(data)
  if not ok then error(err, 0) end
end

local function errorsOf(events, name)
  local codes = {}
  for _, m in ipairs(H.messages(events, name, "error")) do codes[#codes + 1] = m.code end
  return codes
end

-- Opens the store the server wrote (after it stopped) and returns the world with this id.
local function storedWorld(data, id)
  local store = assert(tycho.storage.open(data .. "/worlds.sqlite"))
  local world = store:load(id)
  store:close()
  return world
end

describe("crafty", function()
  it("runs the lobby: hello -> world_list, create_world pushes world_list to the lobby, join_world -> welcome", function()
    withCrafty(function(data)
      H.with(MODULES, data, function(s)
        local ev = H.client(s.port, {
          { open = "a", path = "/crafty" }, { open = "b", path = "/crafty" },
          hello("a"), recv("a"), hello("b"), recv("b"),
          send("a", { t = "create_world", name = "Meadow", seed = 1234, gameMode = "survival" }),
          recv("a", "world_list"), recv("b", "world_list"),
          send("b", { t = "list_worlds" }), recv("b"),
        })
        local lists = H.messages(ev, "a", "world_list")
        assert.equals(2, #lists)
        assert.equals(0, #lists[1].worlds)
        -- Lists are JSON arrays even when empty: the client printed `[]`, not `{}`.
        assert.is_true(tycho.json.isArray(lists[1].worlds))
        assert.equals(1, #lists[2].worlds)
        local w = lists[2].worlds[1]
        assert.equals("Meadow", w.name)
        assert.equals(1234, w.seed)
        assert.equals("survival", w.gameMode)
        assert.is_string(w.id)
        local bLists = H.messages(ev, "b", "world_list")
        assert.equals(3, #bLists) -- its hello, the push after a's create_world, its list_worlds
        assert.equals(w.id, bLists[2].worlds[1].id)
        assert.equals(w.id, bLists[3].worlds[1].id)

        ev = H.client(s.port, {
          { open = "c", path = "/crafty" }, hello("c"), recv("c"),
          send("c", { t = "join_world", worldId = w.id }), recv("c"),
        })
        local welcome = ev[3].json
        assert.equals("welcome", welcome.t)
        assert.is_true(math.type(welcome.playerId) == "integer")
        assert.equals(w.id, welcome.world.id)
        assert.equals("Meadow", welcome.world.name)
        assert.equals(0, #welcome.world.edits)
        assert.equals(0, #welcome.players)
        assert.is_true(tycho.json.isArray(welcome.world.edits), "an empty world's edits must be []")
        assert.is_true(tycho.json.isArray(welcome.players), "no other players must be []")
        assert.is_false(tycho.json.isArray(welcome.you))
        assert.same({ x = 64, y = 80, z = 64, yaw = 0, pitch = 0 }, welcome.you)
      end)
    end)
  end)

  it("lets two players see each other's joins, edits, transforms (one `players` list at 15 Hz) and leaves", function()
    withCrafty(function(data)
      H.with(MODULES, data, function(s)
        local ev = H.client(s.port, {
          { open = "a", path = "/crafty" }, hello("a"), recv("a"),
          send("a", { t = "create_world", name = "Shared", seed = "abc" }), recv("a", "world_list"),
        })
        local id = H.messages(ev, "a", "world_list")[2].worlds[1].id
        local ground = H.surface("abc", 10, 11) -- a places on the ground at (10, 11)
        local steps = {
          { open = "a", path = "/crafty" }, { open = "b", path = "/crafty" },
          hello("a"), recv("a"), hello("b"), recv("b"),
          send("a", { t = "join_world", worldId = id }), recv("a", "welcome"),
          send("b", { t = "join_world", worldId = id }), recv("b", "welcome"),
          recv("a", "player_join"),
          send("a", { t = "transform", x = 10.5, y = ground + 2, z = 10.5, yaw = 0, pitch = 0 }),
          send("a", { t = "block_edit", action = "place", x = 10, y = ground + 1, z = 11, type = 3 }),
          recv("a", "block_edit"), recv("b", "block_edit"),
          send("b", { t = "chat", message = "hi a" }), recv("a", "chat"),
          { drain = "b", ms = 200 },
        }
        for i = 1, 60 do
          -- 0.25 blocks every >= 10 ms: under the 30 blocks/s the server allows
          steps[#steps + 1] = send("a", { t = "transform", x = 10 + i * 0.25, y = ground + 6, z = 10.5, yaw = 0.5, pitch = -0.25 })
          steps[#steps + 1] = { sleep = 10 }
        end
        steps[#steps + 1] = { drain = "b", ms = 300 }
        steps[#steps + 1] = { close = "b" }
        steps[#steps + 1] = recv("a", "player_leave")
        ev = H.client(s.port, steps)

        local aWelcome = H.messages(ev, "a", "welcome")[1]
        local bWelcome = H.messages(ev, "b", "welcome")[1]
        local aId, bId = aWelcome.playerId, bWelcome.playerId
        assert.equals(1, #bWelcome.players)
        assert.equals(aId, bWelcome.players[1].playerId)
        assert.equals("a", bWelcome.players[1].name)
        local join = H.messages(ev, "a", "player_join")[1]
        assert.equals(bId, join.playerId)
        assert.equals("b", join.name)

        local edit = { t = "block_edit", x = 10, y = ground + 1, z = 11, type = 3, author = aId }
        assert.same(edit, H.messages(ev, "a", "block_edit")[1])
        assert.same(edit, H.messages(ev, "b", "block_edit")[1])
        assert.same({ t = "chat", from = "b", playerId = bId, message = "hi a" }, H.messages(ev, "a", "chat")[1])

        -- 60 transforms over ~0.7 s reach b as ~10 coalesced `players` lists, the last one last.
        local moves = {}
        for _, m in ipairs(H.messages(ev, "b", "players")) do
          assert.equals(1, #m.players) -- only a moved
          local p = m.players[1]
          assert.equals(aId, p.playerId)
          if p.y == ground + 6 then moves[#moves + 1] = p end
        end
        assert.is_true(#moves >= 4 and #moves <= 20, "got " .. #moves .. " players messages")
        assert.same({ playerId = aId, x = 25, y = ground + 6, z = 10.5, yaw = 0.5, pitch = -0.25 }, moves[#moves])
        for i = 2, #moves do assert.is_true(moves[i].x > moves[i - 1].x, "transforms out of order") end
        -- the list goes to every member, a too: it only ever holds a itself (b never moved)
        for _, m in ipairs(H.messages(ev, "a", "players")) do
          for _, p in ipairs(m.players) do assert.equals(aId, p.playerId) end
        end
        assert.same({ t = "player_leave", playerId = bId }, H.messages(ev, "a", "player_leave")[1])
      end)
    end)
  end)

  it("checks edits against the seed's terrain: natural blocks break, natural ground takes blocks, both players see it", function()
    -- The server generates the terrain its clients draw (tycho.terrain, from the world's seed):
    -- a grass block above y = 64 can be broken, untouched ground below 64 can be built on, a
    -- natural block is occupied and the air above the ground has nothing to break.
    local seed = "abc"
    local high, low -- near the spawn (64, 80, 64): ground above 64, and grass or sand below 60
    for x = 40, 88 do
      for z = 40, 88 do
        local y = H.surface(seed, x, z)
        local natural = H.block(seed, x, y, z)
        if not high and y >= 66 and natural == 1 then high = { x = x, y = y, z = z } end
        if not low and y <= 60 and (natural == 1 or natural == 4) then low = { x = x, y = y, z = z } end
      end
    end
    assert(high and low, "seed abc has no high and low ground near the spawn")
    withCrafty(function(data)
      H.with(MODULES, data, function(s)
        local ev = H.client(s.port, {
          { open = "a", path = "/crafty" }, hello("a"), recv("a"),
          send("a", { t = "create_world", name = "Hills", seed = seed }), recv("a", "world_list"),
        })
        local id = H.messages(ev, "a", "world_list")[2].worlds[1].id
        ev = H.client(s.port, {
          { open = "a", path = "/crafty" }, { open = "b", path = "/crafty" },
          hello("a"), recv("a"), hello("b"), recv("b"),
          send("a", { t = "join_world", worldId = id }), recv("a", "welcome"),
          send("b", { t = "join_world", worldId = id }), recv("b", "welcome"),
          -- each stands on the ground it works on
          send("a", { t = "transform", x = high.x + 0.5, y = high.y + 1, z = high.z + 0.5, yaw = 0, pitch = 0 }),
          send("b", { t = "transform", x = low.x + 0.5, y = low.y + 2, z = low.z + 0.5, yaw = 0, pitch = 0 }),
          send("a", { t = "block_edit", action = "break", x = high.x, y = high.y, z = high.z }),
          recv("a", "block_edit"), recv("b", "block_edit"),
          send("b", { t = "block_edit", action = "place", x = low.x, y = low.y + 1, z = low.z, type = 7 }),
          recv("a", "block_edit"), recv("b", "block_edit"),
          send("b", { t = "block_edit", action = "place", x = low.x, y = low.y, z = low.z, type = 7 }), recv("b", "error"),
          send("b", { t = "block_edit", action = "break", x = low.x, y = low.y + 2, z = low.z }), recv("b", "error"),
          -- the hole a dug has natural ground under it: a block goes back in
          send("a", { t = "block_edit", action = "place", x = high.x, y = high.y, z = high.z, type = 3 }),
          recv("a", "block_edit"), recv("b", "block_edit"),
        })
        local aId = H.messages(ev, "a", "welcome")[1].playerId
        local bId = H.messages(ev, "b", "welcome")[1].playerId
        local want = {
          { t = "block_edit", x = high.x, y = high.y, z = high.z, type = 0, author = aId },
          { t = "block_edit", x = low.x, y = low.y + 1, z = low.z, type = 7, author = bId },
          { t = "block_edit", x = high.x, y = high.y, z = high.z, type = 3, author = aId },
        }
        assert.same(want, H.messages(ev, "a", "block_edit"))
        assert.same(want, H.messages(ev, "b", "block_edit"))
        assert.same({ "occupied", "nothing_there" }, errorsOf(ev, "b"))
        assert.same({}, errorsOf(ev, "a"))

        -- A third player joins the world both of them see: the seed plus these two edits.
        ev = H.client(s.port, {
          { open = "c", path = "/crafty" }, hello("c"), recv("c"),
          send("c", { t = "join_world", worldId = id }), recv("c", "welcome"),
        })
        assert.same({ { x = high.x, y = high.y, z = high.z, type = 3 }, { x = low.x, y = low.y + 1, z = low.z, type = 7 } },
          H.messages(ev, "c", "welcome")[1].world.edits)
      end)
    end)
  end)

  it("answers every bad input with the right error and leaves the world unchanged", function()
    withCrafty(function(data)
      local id
      H.with(MODULES, data, function(s)
        local ev = H.client(s.port, {
          { open = "a", path = "/crafty" },
          send("a", { t = "list_worlds" }), recv("a"),                           -- before hello
          send("a", { t = "hello", playerKey = "k", name = "a", version = 2 }), recv("a"), -- wrong version
          send("a", { t = "hello", playerKey = "k", name = 5, version = 1 }), recv("a"),   -- wrong type
          { send = "a", text = "{nope" }, recv("a"),                             -- bad JSON: stays connected
          send("a", { t = "no_such_type" }), recv("a"),                          -- unknown t
          send("a", { "not", "an", "object" }), recv("a"),
          hello("a"), recv("a", "world_list"),
          send("a", { t = "create_world", name = 5, seed = 1 }), recv("a"),
          send("a", { t = "create_world", name = string.rep("n", 65), seed = 1 }), recv("a"),
          send("a", { t = "create_world", name = "ok", seed = { 1 } }), recv("a"),
          send("a", { t = "create_world", name = "ok", seed = 1, gameMode = "god" }), recv("a"),
          send("a", { t = "join_world", worldId = "missing" }), recv("a"),
          send("a", { t = "transform", x = 1, y = 2, z = 3, yaw = 0, pitch = 0 }), recv("a"), -- not in a world
          send("a", { t = "create_world", name = "Target", seed = 7 }), recv("a", "world_list"),
        })
        assert.same({ "hello_first", "bad_version", "bad_hello", "bad_json", "unknown_type", "bad_message",
          "bad_world", "bad_world", "bad_world", "bad_world", "no_such_world", "not_in_world" }, errorsOf(ev, "a"))
        for _, e in ipairs(H.messages(ev, "a", "error")) do assert.is_string(e.message) end
        local lists = H.messages(ev, "a", "world_list")
        id = lists[#lists].worlds[1].id
        assert.equals(1, #lists[#lists].worlds)

        -- Seed 7's ground at the origin, and a cell two above the highest ground around it: air
        -- with air on every side.
        local ground = H.surface(7, 0, 0)
        local floating = math.max(ground, H.surface(7, 1, 0), H.surface(7, -1, 0), H.surface(7, 0, 1),
          H.surface(7, 0, -1)) + 2
        local steps = {
          { open = "a", path = "/crafty" }, hello("a"), recv("a"),
          send("a", { t = "join_world", worldId = id }), recv("a", "welcome"),
          send("a", { t = "transform", x = 0.5, y = ground + 2, z = 0.5, yaw = 0, pitch = 0 }),
          send("a", { t = "transform", x = "far", y = ground + 2, z = 0.5, yaw = 0, pitch = 0 }), recv("a"),
          send("a", { t = "block_edit", action = "place", x = 1.5, y = ground + 1, z = 0, type = 1 }), recv("a"),
          send("a", { t = "block_edit", action = "place", x = 0, y = ground + 1, z = 0, type = "stone" }), recv("a"),
          send("a", { t = "block_edit", action = "melt", x = 0, y = ground + 1, z = 0 }), recv("a"),
          send("a", { t = "block_edit", action = "place", x = 0, y = 300, z = 0, type = 1 }), recv("a"),
          send("a", { t = "block_edit", action = "place", x = 20, y = ground + 1, z = 0, type = 1 }), recv("a"),
          send("a", { t = "block_edit", action = "place", x = 0, y = floating, z = 0, type = 1 }), recv("a"),
          send("a", { t = "block_edit", action = "place", x = 0, y = ground, z = 0, type = 1 }), recv("a"),
          send("a", { t = "block_edit", action = "break", x = 0, y = ground + 1, z = 0 }), recv("a"),
          send("a", { t = "chat", message = string.rep("x", 257) }), recv("a"),
          send("a", { t = "chat", message = 5 }), recv("a"),
        }
        -- 30 valid edits at once, each on the ground of its column: the first 20 pass, then the
        -- bucket is empty.
        for i = 0, 29 do
          local x, z = (i % 6) - 3, (i // 6) - 2
          steps[#steps + 1] = send("a", { t = "block_edit", action = "place", x = x, y = H.surface(7, x, z) + 1,
            z = z, type = 2 })
        end
        steps[#steps + 1] = { drain = "a", ms = 400 }
        steps[#steps + 1] = { send = "a", textBytes = 65 * 1024 } -- over the frame limit
        steps[#steps + 1] = { closed = "a" }
        ev = H.client(s.port, steps)
        assert.same({ "bad_transform", "bad_edit", "bad_edit", "bad_edit", "out_of_bounds", "out_of_reach",
          "not_adjacent", "occupied", "nothing_there", "bad_chat", "bad_chat" }, { table.unpack(errorsOf(ev, "a"), 1, 11) })
        local accepted = H.messages(ev, "a", "block_edit")
        assert.equals(20, #accepted)
        local limited = 0
        for _, code in ipairs(errorsOf(ev, "a")) do if code == "rate_limited" then limited = limited + 1 end end
        assert.equals(10, limited)
        assert.equals(1009, ev[#ev].code)

        -- A new player sees exactly the 20 accepted edits.
        ev = H.client(s.port, {
          { open = "c", path = "/crafty" }, hello("c"), recv("c"),
          send("c", { t = "join_world", worldId = id }), recv("c", "welcome"),
        })
        local world = H.messages(ev, "c", "welcome")[1].world
        assert.equals(20, #world.edits)
        for _, e in ipairs(world.edits) do
          assert.equals(H.surface(7, e.x, e.z) + 1, e.y)
          assert.equals(2, e.type)
        end
      end)
      local stored = storedWorld(data, id)
      assert.equals(20, #stored.edits)
    end)
  end)

  it("trims player names and refuses empty, long and control-character ones", function()
    withCrafty(function(data)
      H.with(MODULES, data, function(s)
        local function named(who, name) return send(who, { t = "hello", playerKey = "key-" .. who, name = name, version = 1 }) end
        local bad = { "", "   ", string.rep("n", 25), "a\nb", "tab\there", "del\127", "c1\194\133x" }
        local steps = { { open = "a", path = "/crafty" } }
        for _, name in ipairs(bad) do
          steps[#steps + 1] = named("a", name)
          steps[#steps + 1] = recv("a")
        end
        -- 24 bytes (12 two-byte letters) is the most; the spaces around a name go.
        steps[#steps + 1] = named("a", "  " .. string.rep("\195\177", 12) .. " ")
        steps[#steps + 1] = recv("a", "world_list")
        steps[#steps + 1] = send("a", { t = "create_world", name = "Names", seed = 3 })
        steps[#steps + 1] = recv("a", "world_list")
        local ev = H.client(s.port, steps)
        local codes = errorsOf(ev, "a")
        assert.equals(#bad, #codes)
        for _, c in ipairs(codes) do assert.equals("bad_hello", c) end
        assert.truthy(H.messages(ev, "a", "error")[1].message:find("1..24 bytes", 1, true))
        local id = H.messages(ev, "a", "world_list")[2].worlds[1].id

        ev = H.client(s.port, {
          { open = "a", path = "/crafty" }, { open = "b", path = "/crafty" },
          named("a", "  Ada Lovelace  "), recv("a"), hello("b"), recv("b"),
          send("b", { t = "join_world", worldId = id }), recv("b", "welcome"),
          send("a", { t = "join_world", worldId = id }), recv("a", "welcome"), recv("b", "player_join"),
        })
        assert.equals("Ada Lovelace", H.messages(ev, "b", "player_join")[1].name)
      end)
    end)
  end)

  it("leaves a world for the lobby with leave_world: the others see player_leave, the list comes back", function()
    withCrafty(function(data)
      H.with(MODULES, data, function(s)
        local ev = H.client(s.port, {
          { open = "a", path = "/crafty" }, hello("a"), recv("a"),
          send("a", { t = "create_world", name = "Door", seed = 5 }), recv("a", "world_list"),
        })
        local id = H.messages(ev, "a", "world_list")[2].worlds[1].id
        ev = H.client(s.port, {
          { open = "a", path = "/crafty" }, { open = "b", path = "/crafty" },
          hello("a"), recv("a"), hello("b"), recv("b"),
          send("a", { t = "leave_world" }), recv("a"), -- in no world yet
          send("a", { t = "join_world", worldId = id }), recv("a", "welcome"),
          send("b", { t = "join_world", worldId = id }), recv("b", "welcome"), recv("a", "player_join"),
          send("b", { t = "leave_world" }), recv("b", "world_list"), recv("a", "player_leave"),
          -- b is in the lobby again: it sees new worlds, and may join again (its key is free)
          send("a", { t = "chat", message = "still here" }), recv("a", "chat"),
          send("b", { t = "create_world", name = "Second", seed = 6 }), recv("b", "world_list"),
          send("b", { t = "join_world", worldId = id }), recv("b", "welcome"),
        })
        assert.same({ "not_in_world" }, errorsOf(ev, "a"))
        assert.same({}, errorsOf(ev, "b"))
        local bLists = H.messages(ev, "b", "world_list")
        assert.equals(3, #bLists)
        assert.equals(1, bLists[2].worlds[1].online, "a is still in the world b left")
        assert.equals(2, #bLists[3].worlds)
        assert.equals(0, #H.messages(ev, "b", "chat"), "b no longer hears the world")
        assert.equals(2, #H.messages(ev, "b", "welcome"))
      end)
    end)
  end)

  it("keeps the world and each player's position and inventory over a graceful restart", function()
    withCrafty(function(data)
      local id
      local ground = H.surface(99, 3, -3)
      H.with(MODULES, data, function(s)
        local ev = H.client(s.port, {
          { open = "a", path = "/crafty" }, hello("a", "steady-key"), recv("a"),
          send("a", { t = "create_world", name = "Keep", seed = 99, gameMode = "survival" }), recv("a", "world_list"),
        })
        id = H.messages(ev, "a", "world_list")[2].worlds[1].id
        -- b stays connected so that the SIGTERM, not a last leave, is what saves.
        H.run(H.clientCommand(s.port, {
          { open = "b", path = "/crafty" }, hello("b"), recv("b"), send("b", { t = "join_world", worldId = id }),
          recv("b", "welcome"), { sleep = 4000 },
        }) .. " >/dev/null 2>&1 &")
        ev = H.client(s.port, {
          { open = "a", path = "/crafty" }, hello("a", "steady-key"), recv("a"),
          send("a", { t = "join_world", worldId = id }), recv("a", "welcome"),
          send("a", { t = "transform", x = 3.25, y = ground + 2, z = -2.5, yaw = 1.5, pitch = -0.2 }),
          send("a", { t = "block_edit", action = "place", x = 3, y = ground + 1, z = -3, type = 5 }), recv("a", "block_edit"),
          send("a", { t = "inventory", stacks = { { blockType = 5, count = 99 }, { blockType = 2, count = 3 } },
            hotbar = { 5, 2, 0, 0, 0, 0, 0, 0, 0 } }),
          { sleep = 100 },
        })
        assert.equals(1, #H.messages(ev, "a", "block_edit"))
      end)
      H.with(MODULES, data, function(s)
        local ev = H.client(s.port, {
          { open = "a", path = "/crafty" }, hello("a", "steady-key"), recv("a"),
          send("a", { t = "join_world", worldId = id }), recv("a", "welcome"),
        })
        local welcome = H.messages(ev, "a", "welcome")[1]
        assert.same({ { x = 3, y = ground + 1, z = -3, type = 5 } }, welcome.world.edits)
        local you = welcome.you
        assert.same({ 3.25, ground + 2, -2.5, 1.5, -0.2 }, { you.x, you.y, you.z, you.yaw, you.pitch })
        assert.same({ stacks = { { blockType = 5, count = 64 }, { blockType = 2, count = 3 } },
          hotbar = { 5, 2, 0, 0, 0, 0, 0, 0, 0 } }, you.inventory) -- 99 capped to a stack of 64
      end)
    end)
  end)

  it("opens the world intact after kill -9 in the middle of saving", function()
    withCrafty(function(data)
      local server = H.start(MODULES, data)
      local ok, err = pcall(function()
        local ev = H.client(server.port, {
          { open = "a", path = "/crafty" }, hello("a"), recv("a"),
          send("a", { t = "create_world", name = "Crash", seed = 1 }), recv("a", "world_list"),
        })
        local id = H.messages(ev, "a", "world_list")[2].worlds[1].id
        -- Session 1: 10 edits, then leave: the last leave saves them.
        local steps = { { open = "a", path = "/crafty" }, hello("a"), recv("a"),
          send("a", { t = "join_world", worldId = id }), recv("a", "welcome"),
          send("a", { t = "transform", x = 0.5, y = H.surface(1, 0, 0) + 2, z = 0.5, yaw = 0, pitch = 0 }) }
        for i = 0, 9 do
          steps[#steps + 1] = send("a", { t = "block_edit", action = "place", x = i - 5, y = H.surface(1, i - 5, 0) + 1,
            z = 0, type = 1 })
          steps[#steps + 1] = recv("a", "block_edit")
        end
        H.client(server.port, steps)
        -- Session 2: edits keep coming (and saving: each leave of a player saves) when the kill lands.
        local churn = { { open = "b", path = "/crafty" }, hello("b"), recv("b") }
        local ground = H.surface(1, 0, 3)
        for round = 1, 40 do
          churn[#churn + 1] = send("b", { t = "join_world", worldId = id })
          churn[#churn + 1] = recv("b", "welcome")
          churn[#churn + 1] = send("b", { t = "transform", x = 0.5, y = ground + 2, z = 3.5, yaw = 0, pitch = 0 })
          churn[#churn + 1] = send("b", { t = "block_edit", action = round % 2 == 1 and "place" or "break",
            x = 0, y = ground + 1, z = 3, type = 4 })
          churn[#churn + 1] = { close = "b" }
          churn[#churn + 1] = { sleep = 20 }
          churn[#churn + 1] = { open = "b", path = "/crafty" }
          churn[#churn + 1] = hello("b")
          churn[#churn + 1] = recv("b")
        end
        H.run(H.clientCommand(server.port, churn) .. " >/dev/null 2>&1 &")
        H.sleep(0.6)
        return id
      end)
      local code = H.stop(server, "KILL")
      assert.is_true(ok, tostring(err))
      local id = err
      assert.equals(137, code)
      local store, msg = tycho.storage.open(data .. "/worlds.sqlite")
      assert.is_not_nil(store, msg)
      local world = store:load(id)
      store:close()
      assert.equals("Crash", world.name)
      local row = 0
      for _, e in ipairs(world.edits) do if e.z == 0 then row = row + 1 end end
      assert.equals(10, row)
      H.with(MODULES, data, function(s)
        local ev = H.client(s.port, {
          { open = "a", path = "/crafty" }, hello("a"), recv("a"),
          send("a", { t = "join_world", worldId = id }), recv("a", "welcome"),
        })
        assert.is_true(#H.messages(ev, "a", "welcome")[1].world.edits >= 10)
      end)
    end)
  end)

  it("drops a client that stops answering pings within 2 x --ping (not sooner); its onClose runs", function()
    withCrafty(function(data)
      H.with(MODULES, data, function(s)
        local ev = H.client(s.port, {
          { open = "a", path = "/crafty" }, hello("a"), recv("a"),
          send("a", { t = "create_world", name = "Clock", seed = 1 }), recv("a", "world_list"),
        })
        local id = H.messages(ev, "a", "world_list")[2].worlds[1].id
        -- --ping 1: a silent client is pinged after 1 s and hung up on after 2 s. b stops reading
        -- (its pongs stop); a looks for b's player_leave, which crafty's onClose sends, during the
        -- first second (too early) and then up to 5 s later. a answers its pings and outlives b.
        local t0 = tycho.now()
        ev = H.client(s.port, {
          { open = "a", path = "/crafty" }, { open = "b", path = "/crafty" },
          hello("a"), recv("a"), hello("b"), recv("b"),
          send("a", { t = "join_world", worldId = id }), recv("a", "welcome"),
          send("b", { t = "join_world", worldId = id }), recv("b", "welcome"), recv("a", "player_join"),
          { pause = "b" },
          { drain = "a", ms = 1000 },
          recv("a", "player_leave"),
          { sleep = 2500 },
          send("a", { t = "chat", message = "still here" }), recv("a", "chat"),
          { resume = "b" }, { closed = "b" },
        })
        local elapsed = tycho.now() - t0 - 2.5
        local early = H.find(ev, function(e) return e.drained == "a" end)
        for _, m in ipairs(early.msgs) do assert.is_true(m.t ~= "player_leave", "dropped before the deadline") end
        assert.is_not_nil(H.messages(ev, "a", "player_leave")[1], "the silent client was never dropped")
        assert.is_true(elapsed < 4.5, ("dropped only after %.1f s"):format(elapsed))
        assert.equals("still here", H.messages(ev, "a", "chat")[1].message)
        assert.is_not_nil(H.find(ev, function(e) return e.closed == "b" end), "b was never closed")
      end, "--ping", "1")
    end)
  end)
end)
