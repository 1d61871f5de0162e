-- tests/server/spec/crafty_limits_spec.lua: what one crafty server keeps within bounds
-- (server/modules/crafty.lua): memory for big worlds, writes for join/leave cycling, world
-- creation per player and address (with delete_world), list_worlds, and a store that cannot
-- be opened. Needs node and `npm ci --prefix tests/server`.

local H = dofile(require("tycho.testing").here() .. "/../harness.lua")

local MODULES = H.HERE .. "/../../server/modules"

local function hello(name, key)
  return { send = name, json = { t = "hello", playerKey = key or ("key-" .. name), name = name, version = 1 } }
end
local function send(name, json) return { send = name, json = json } end
local function recv(name, t) return { recv = name, t = t } end

local function append(steps, more)
  for _, s in ipairs(more) do steps[#steps + 1] = s end
  return steps
end

local function errorsOf(events, name)
  local codes = {}
  for _, m in ipairs(H.messages(events, name, "error")) do codes[#codes + 1] = m.code end
  return codes
end

local function count(list, value)
  local n = 0
  for _, v in ipairs(list) do if v == value then n = n + 1 end end
  return n
end

-- n edits on distinct cells (in the world, above the terrain), the i-th a function of i.
local function bigEdits(n, shift)
  local edits = {}
  for i = 0, n - 1 do
    edits[i + 1] = { x = i % 400 + (shift or 0), y = 130 + i // 160000, z = (i // 400) % 400, type = 1 + i % 7 }
  end
  return edits
end

-- The client's checksum (client.js "collect") of a list of edits.
local function checksum(edits)
  local sum = 0
  for _, e in ipairs(edits) do sum = (sum + e.x * 3 + e.y * 5 + e.z * 7 + e.type) % 1000000007 end
  return sum
end

-- A data folder with one world per list of edits; returns data, {ids}.
local function seeded(...)
  local data = H.tempDir()
  local store = assert(tycho.storage.open(data .. "/worlds.sqlite"))
  local ids = {}
  for i, edits in ipairs({ ... }) do
    local world = tycho.storage.createSavedWorld("Big " .. i, 5, "creative")
    world.edits = edits
    assert(store:save(world))
    ids[i] = world.id
  end
  store:close()
  return data, ids
end

-- Bytes the process has handed to write()/pwrite() (its store and its log; socket sends go
-- through send() and are not counted), or nil where /proc does not say.
local function written(pid)
  local io_ = H.readFile("/proc/" .. pid .. "/io")
  return io_ and tonumber(io_:match("wchar:%s*(%d+)"))
end

local function fileSize(path)
  local f = io.open(path, "rb")
  if not f then return 0 end
  local n = f:seek("end")
  f:close()
  return n
end

describe("crafty limits", function()
  it("keeps four 100,000-edit worlds loaded at once under the memory fence, each joiner getting the whole log", function()
    local logs = {}
    for w = 1, 4 do logs[w] = bigEdits(100000, w * 1000) end
    local data, ids = seeded(logs[1], logs[2], logs[3], logs[4])
    local names = { "a", "b", "c", "d" }
    local log = H.with(MODULES, data, function(s)
      local steps = {}
      for w, name in ipairs(names) do
        append(steps, { { open = name, path = "/crafty" }, hello(name), recv(name, "world_list"),
          send(name, { t = "join_world", worldId = ids[w] }) })
      end
      for _, name in ipairs(names) do steps[#steps + 1] = { collect = name } end
      -- Everyone is still connected (a fence would have closed them with 1011).
      for _, name in ipairs(names) do append(steps, { send(name, { t = "chat", message = "still here" }), recv(name, "chat") }) end
      local ev = H.client(s.port, steps)
      for w, name in ipairs(names) do
        local got = H.find(ev, function(e) return e.collected == name end)
        assert.equals(100000, got.n, tycho.json.encode(got))
        assert.equals(checksum(logs[w]), got.sum)
        assert.same(logs[w][100000], got.last)
        assert.equals(1, #H.messages(ev, name, "chat"))
      end
    end)
    -- The module's own figure after each load (collectgarbage("count")): four logs in well
    -- under the default 64 MiB fence (a table per edit took ~20 MiB a world).
    local loaded = {}
    for kib in log:gmatch("crafty_room_loaded %x+: 100000 edits, module memory (%d+) KiB") do loaded[#loaded + 1] = tonumber(kib) end
    assert.equals(4, #loaded, log)
    for _, kib in ipairs(loaded) do assert.is_true(kib < 40 * 1024, log) end
    assert.is_nil(log:find("memory cap", 1, true), log)
    H.removeTree(data)
  end)

  it("writes little for join/leave cycles on a 100,000-edit world, and refuses joins past the rate", function()
    local data, ids = seeded(bigEdits(100000))
    local id = ids[1]
    H.with(MODULES, data, function(s)
      -- 20 cycles over 4 connections (5 each, the burst); then one connection past the rate.
      local steps = {}
      for _, name in ipairs({ "a", "b", "c", "d" }) do
        append(steps, { { open = name, path = "/crafty" }, hello(name), recv(name, "world_list") })
      end
      local before, sizeBefore = written(s.pid), fileSize(data .. "/worlds.sqlite") + fileSize(data .. "/worlds.sqlite-wal")
      for _, name in ipairs({ "a", "b", "c", "d" }) do
        for _ = 1, 5 do
          append(steps, { send(name, { t = "join_world", worldId = id }), recv(name, "welcome"),
            send(name, { t = "leave_world" }), recv(name, "world_list") })
        end
      end
      local ev = H.client(s.port, steps)
      H.sleep(0.2)
      local after, sizeAfter = written(s.pid), fileSize(data .. "/worlds.sqlite") + fileSize(data .. "/worlds.sqlite-wal")
      for _, name in ipairs({ "a", "b", "c", "d" }) do
        assert.equals(5, #H.messages(ev, name, "welcome"))
        assert.same({}, errorsOf(ev, name))
      end
      -- A full rewrite of the log is 1.6 MB a save; 20 of them were 32 MB.
      if before and after then assert.is_true(after - before < 1000000, ("%d bytes written"):format(after - before)) end
      assert.is_true(sizeAfter - sizeBefore < 1000000, ("the store grew by %d bytes"):format(sizeAfter - sizeBefore))
      -- Eight joins at once (of a world that is not there, so that none succeeds): the bucket
      -- holds five.
      local fast = { { open = "e", path = "/crafty" }, hello("e"), recv("e", "world_list") }
      for _ = 1, 8 do fast[#fast + 1] = send("e", { t = "join_world", worldId = "nope" }) end
      fast[#fast + 1] = { drain = "e", ms = 300 }
      local codes = errorsOf(H.client(s.port, fast), "e")
      assert.same({ "no_such_world", "no_such_world", "no_such_world", "no_such_world", "no_such_world",
        "too_fast", "too_fast", "too_fast" }, codes)
    end)
    -- The log is whole after all that (lastPlayedAt was saved without it).
    local store = assert(tycho.storage.open(data .. "/worlds.sqlite"))
    local world = assert(store:load(id))
    assert.equals(100000, #world.edits)
    store:close()
    H.removeTree(data)
  end)

  it("unloads a world idle for ROOM_IDLE s (saved first) and loads it again on the next join", function()
    -- A copy of the modules with ROOM_IDLE at 1 s (the save timer, every 5 s, unloads).
    local dir = H.tempDir()
    os.execute(("cp %s/*.lua %s"):format(H.shq(MODULES), H.shq(dir)))
    local src = assert(H.readFile(dir .. "/crafty.lua"))
    local patched, n = src:gsub("\nlocal ROOM_IDLE = 60 ", "\nlocal ROOM_IDLE = 1 ")
    assert.equals(1, n)
    local f = assert(io.open(dir .. "/crafty.lua", "wb"))
    f:write(patched)
    f:close()
    local data, ids = seeded({ { x = 1, y = 100, z = 1, type = 3 } })
    local ground = H.surface(5, 10, 10)
    local log = H.with(dir, data, function(s)
      local ev = H.client(s.port, { { open = "a", path = "/crafty" }, hello("a"), recv("a", "world_list"),
        send("a", { t = "join_world", worldId = ids[1] }), recv("a", "welcome"),
        send("a", { t = "transform", x = 10.5, y = ground + 2, z = 10.5, yaw = 0, pitch = 0 }),
        send("a", { t = "block_edit", action = "place", x = 10, y = ground + 1, z = 10, type = 4 }), recv("a", "block_edit"),
        send("a", { t = "leave_world" }), recv("a", "world_list"),
        { sleep = 6500 },
        send("a", { t = "join_world", worldId = ids[1] }), recv("a", "welcome") })
      local welcomes = H.messages(ev, "a", "welcome")
      assert.equals(2, #welcomes)
      assert.same({ { x = 1, y = 100, z = 1, type = 3 }, { x = 10, y = ground + 1, z = 10, type = 4 } }, welcomes[2].world.edits)
    end)
    local _, loads = log:gsub("crafty_room_loaded", "")
    assert.equals(2, loads, log)
    assert.is_nil(log:find("_failed", 1, true), log)
    H.removeTree(dir)
    H.removeTree(data)
  end)

  it("limits world creation per playerKey and per address, records the creator, and lets only them delete a world", function()
    local data = H.tempDir()
    local created = {}
    H.with(MODULES, data, function(s)
      -- One key, three connections (3 creates each at once): 8 worlds, then quota_exceeded.
      local steps = {}
      for i = 1, 3 do append(steps, { { open = "k" .. i, path = "/crafty" }, hello("k" .. i, "same"), recv("k" .. i, "world_list") }) end
      -- (every create pushes the list to the whole lobby: the answers are drained at the end)
      for n = 1, 9 do
        local name = "k" .. ((n - 1) // 3 + 1)
        append(steps, { send(name, { t = "create_world", name = "mine " .. n, seed = n }), { sleep = 30 } })
      end
      append(steps, { { drain = "k1", ms = 300 }, { drain = "k2", ms = 0 }, { drain = "k3", ms = 0 } })
      local ev = H.client(s.port, steps)
      assert.same({}, errorsOf(ev, "k1"))
      assert.same({}, errorsOf(ev, "k2"))
      assert.same({ "quota_exceeded" }, errorsOf(ev, "k3"))
      local lists = H.messages(ev, "k3", "world_list")
      local worlds = lists[#lists].worlds
      assert.equals(8, #worlds)
      for _, w in ipairs(worlds) do
        assert.truthy(w.owner:match("^k[123]$"), w.owner) -- the creator's name (never the playerKey)
        created[#created + 1] = w.id
      end
      -- Other keys from the same address: 32 worlds in all, then quota_exceeded.
      -- (one connection at a time, each closed after its creates: the lobby's lists stay few)
      steps = {}
      for n = 1, 25 do
        local i = (n - 1) // 3 + 1
        local name = "o" .. i
        if n % 3 == 1 then append(steps, { { open = name, path = "/crafty" }, hello(name), recv(name, "world_list") }) end
        append(steps, { send(name, { t = "create_world", name = "other " .. n, seed = n }), { sleep = 30 } })
        if n % 3 == 0 or n == 25 then append(steps, { { drain = name, ms = 200 }, { close = name } }) end
      end
      ev = H.client(s.port, steps)
      local codes = {}
      for i = 1, 9 do for _, c in ipairs(errorsOf(ev, "o" .. i)) do codes[#codes + 1] = c end end
      assert.same({ "quota_exceeded" }, codes)
      -- Deleting: not another key's world; not while someone is in it; then it is gone.
      local victim = created[1]
      ev = H.client(s.port, {
        { open = "x", path = "/crafty" }, hello("x"), recv("x", "world_list"),
        send("x", { t = "delete_world", worldId = victim }), recv("x"),
        send("x", { t = "delete_world", worldId = "nope" }), recv("x"),
        send("x", { t = "join_world", worldId = victim }), recv("x", "welcome"),
        { open = "k", path = "/crafty" }, hello("k", "same"), recv("k", "world_list"),
        send("k", { t = "delete_world", worldId = victim }), recv("k"),
        send("x", { t = "leave_world" }), recv("x", "world_list"),
        send("k", { t = "delete_world", worldId = victim }), recv("k", "world_list"),
        send("k", { t = "create_world", name = "again", seed = 1 }), recv("k", "world_list"),
        send("k", { t = "create_world", name = "too many", seed = 2 }), recv("k"),
      })
      assert.same({ "not_owner", "no_such_world" }, errorsOf(ev, "x"))
      assert.same({ "world_in_use", "quota_exceeded" }, errorsOf(ev, "k"))
      local list = H.messages(ev, "k", "world_list")
      for _, w in ipairs(list[#list].worlds) do assert.are_not.equal(victim, w.id) end
      assert.equals(32, #list[#list].worlds)
    end)
    -- Ownership is kept across a restart.
    H.with(MODULES, data, function(s)
      local ev = H.client(s.port, { { open = "k", path = "/crafty" }, hello("k", "same"), recv("k", "world_list"),
        send("k", { t = "create_world", name = "after restart", seed = 3 }), recv("k"),
        send("k", { t = "delete_world", worldId = created[2] }), recv("k", "world_list") })
      assert.same({ "quota_exceeded" }, errorsOf(ev, "k"))
      local list = H.messages(ev, "k", "world_list")
      assert.equals(31, #list[#list].worlds)
    end)
    H.removeTree(data)
  end)

  it("takes the per-address quota from CRAFTY_WORLDS_PER_ADDRESS (a server behind a proxy)", function()
    local data = H.tempDir()
    local server = H.startWith({ modules = MODULES, data = data, env = { CRAFTY_WORLDS_PER_ADDRESS = "2" } })
    local ok, err = pcall(function()
      local ev = H.client(server.port, {
        { open = "a", path = "/crafty" }, hello("a"), recv("a", "world_list"),
        send("a", { t = "create_world", name = "one", seed = 1 }), recv("a", "world_list"),
        send("a", { t = "create_world", name = "two", seed = 2 }), recv("a", "world_list"), { close = "a" },
        { open = "b", path = "/crafty" }, hello("b"), recv("b", "world_list"),
        send("b", { t = "create_world", name = "three", seed = 3 }), recv("b") })
      assert.same({ "quota_exceeded" }, errorsOf(ev, "b"))
    end)
    local code, log = H.stop(server)
    H.removeTree(data)
    if not ok then error(tostring(err) .. "\n--- server log ---\n" .. log, 0) end
    assert.equals(0, code, log)
  end)

  it("rate-limits list_worlds and answers from one encoding until the list changes", function()
    local data = H.tempDir()
    H.with(MODULES, data, function(s)
      local steps = { { open = "a", path = "/crafty" }, hello("a"), recv("a", "world_list") }
      for _ = 1, 10 do steps[#steps + 1] = send("a", { t = "list_worlds" }) end
      steps[#steps + 1] = { drain = "a", ms = 300 }
      append(steps, { { sleep = 1100 }, send("a", { t = "create_world", name = "new", seed = 1 }), recv("a", "world_list"),
        send("a", { t = "list_worlds" }), recv("a") })
      local ev = H.client(s.port, steps)
      local drained = H.find(ev, function(e) return e.drained == "a" end).msgs
      local lists, fast = 0, 0
      for _, m in ipairs(drained) do
        if m.t == "world_list" then lists = lists + 1 end
        if m.t == "error" and m.code == "too_fast" then fast = fast + 1 end
      end
      -- The hello's list took none of the 3 in the bucket; 10 at once: 3 answered, 7 refused.
      assert.equals(3, lists)
      assert.equals(7, fast)
      local all = H.messages(ev, "a", "world_list")
      assert.equals(1, #all[#all].worlds) -- the list after a change shows it
      assert.equals("new", all[#all].worlds[1].name)
    end)
    H.removeTree(data)
  end)

  describe("with a store it cannot open", function()
    -- Permissions mean nothing to root: there, the server runs as nobody.
    local asRoot = H.run("test \"$(id -u)\" = 0") == 0
    local asNobody = asRoot and "setpriv --reuid=65534 --regid=65534 --clear-groups" or nil
    if asRoot and H.run("command -v setpriv") ~= 0 then
      pending("needs setpriv to run the server as an unprivileged user")
      return
    end

    local function give(dir)
      if asRoot then os.execute("chown -R 65534:65534 " .. H.shq(dir)) end
    end

    local function lobbySteps()
      return { { open = "a", path = "/crafty" }, hello("a"), recv("a"),
        send("a", { t = "join_world", worldId = "x" }), recv("a"),
        send("a", { t = "create_world", name = "n", seed = 1 }), recv("a") }
    end

    it("answers storage_failed for a folder it may not enter, reports it as such, and retries", function()
      local data = H.tempDir()
      give(data)
      os.execute("chmod 000 " .. H.shq(data))
      local log
      local server = H.startWith({ modules = MODULES, data = data, prefix = asNobody })
      local ok, err = pcall(function()
        local ev = H.client(server.port, lobbySteps())
        assert.same({ "storage_failed", "storage_failed", "storage_failed" }, errorsOf(ev, "a"))
        -- The folder is fixed: within the retry interval the store opens and the lobby works.
        os.execute("chmod 755 " .. H.shq(data))
        H.sleep(5.2)
        ev = H.client(server.port, { { open = "b", path = "/crafty" }, hello("b"), recv("b"),
          send("b", { t = "create_world", name = "n", seed = 1 }), recv("b") })
        local lists = H.messages(ev, "b", "world_list")
        assert.equals(2, #lists, tycho.json.encode(ev))
        assert.equals(1, #lists[2].worlds)
      end)
      local code
      code, log = H.stop(server)
      os.execute("chmod 755 " .. H.shq(data))
      H.removeTree(data)
      if not ok then error(tostring(err) .. "\n--- server log ---\n" .. log, 0) end
      assert.equals(0, code, log)
      assert.truthy(log:find("crafty_storage_failed", 1, true), log)
      assert.truthy(log:find("Permission denied", 1, true), log)
      assert.is_nil(log:find("damaged", 1, true), log)
      assert.truthy(log:find("crafty_storage_open", 1, true), log)
    end)

    it("answers storage_failed for a read-only store and leaves the file as it was", function()
      local data = seeded({ { x = 1, y = 100, z = 1, type = 2 } })
      local path = data .. "/worlds.sqlite"
      local bytes = H.readFile(path)
      give(data)
      os.execute("chmod 444 " .. H.shq(path))
      local log
      local server = H.startWith({ modules = MODULES, data = data, prefix = asNobody })
      local ok, err = pcall(function()
        local ev = H.client(server.port, lobbySteps())
        assert.same({ "storage_failed", "storage_failed", "storage_failed" }, errorsOf(ev, "a"))
      end)
      local code
      code, log = H.stop(server)
      os.execute("chmod 644 " .. H.shq(path))
      if not ok then error(tostring(err) .. "\n--- server log ---\n" .. log, 0) end
      assert.equals(0, code, log)
      assert.truthy(log:find("cannot be written", 1, true), log)
      assert.is_nil(log:find("damaged", 1, true), log)
      assert.equals(bytes, H.readFile(path))
      H.removeTree(data)
    end)
  end)
end)
