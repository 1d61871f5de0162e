-- tests/lua/storage_spec.lua: tycho.storage from Lua: createSavedWorld's defaults, save/load
-- round trips, list order, delete, per-player records, export/import, refusals (`nil,
-- message`, file untouched), bad arguments, a store killed (-9) in the middle of saves, and
-- incremental saves (saveMeta, appendEdits, compact), also killed between appends, and the
-- same saves queued for the writer thread ({async = true}, flush, lastError, close), and
-- transactions (several saves, one commit; whole after a kill -9).

local testing = require("tycho.testing")
local storage = tycho.storage

local function tempDir()
  local base = os.tmpname()
  os.remove(base)
  assert(os.execute("mkdir -p " .. testing.quote(base)))
  return base
end

local function readFile(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

-- Writes source as dir/NAME.lua, runs it as a headless tycho child, waits until it writes
-- dir/started, lets it work `seconds` more and kill -9s it: a crash in the middle of its
-- saves. never: the failure message when it never got as far as dir/started.
local function runThenKill(dir, name, source, seconds, never)
  local script = dir .. "/" .. name .. ".lua"
  local f = assert(io.open(script, "w"))
  f:write(source)
  f:close()
  os.execute(("%s run %s --headless --no-watch >/dev/null 2>&1 & echo $! > %s"):format(
    testing.quote(tycho.executable), testing.quote(script), testing.quote(dir .. "/pid")))
  local pid = tonumber(readFile(dir .. "/pid"))
  for _ = 1, 200 do
    if readFile(dir .. "/started") then break end
    os.execute("sleep 0.02")
  end
  os.execute("sleep " .. seconds)
  os.execute("kill -9 " .. pid)
  os.execute("sleep 0.1")
  assert.is_not_nil(readFile(dir .. "/started"), never)
end

local dir
before_each(function() dir = tempDir() end)
after_each(function() os.execute("rm -rf " .. testing.quote(dir)) end)

describe("tycho.storage", function()
  it("creates worlds with the seed's defaults", function()
    local w = storage.createSavedWorld("Meadow", 42)
    assert.is_string(w.id)
    assert.is_true(#w.id >= 16)
    assert.are_not.equal(w.id, storage.createSavedWorld("Meadow", 42).id)
    assert.equals("Meadow", w.name)
    assert.equals(42, w.seed)
    assert.equals("creative", w.gameMode)
    assert.equals(w.createdAt, w.lastPlayedAt)
    assert.is_true(math.abs(w.createdAt - os.time() * 1000) < 5000)
    assert.same({}, w.edits)
    assert.same({ x = 64, y = 80, z = 64, yaw = 0, pitch = 0 }, w.player)
    assert.equals(math.pi * 0.3, w.sunAngle)
    assert.equals(storage.CURRENT_FORMAT_VERSION, w.version)
    assert.equals("survival", storage.createSavedWorld("S", "seed text", "survival").gameMode)
  end)

  it("saves and loads every field; list is most recently played first; delete removes", function()
    local store = assert(storage.open(dir .. "/w.sqlite"))
    local w = storage.createSavedWorld("Full", "glacier", "survival")
    w.edits = { { x = 1, y = 65, z = 2, type = 3 }, { x = -4, y = 0, z = 9, type = 0 } }
    w.player = { x = 1.5, y = 70, z = -2.25, yaw = 3.5, pitch = -0.5 }
    w.moonPhase = 5
    w.sunAngle = 1.25
    w.inventory = { stacks = { { blockType = 3, count = 10 } }, hotbar = { 3, 0, 0, 0, 0, 0, 0, 0, 1 } }
    w.screenshot = "\137PNG\r\n\26\n\0\255"
    w.lastPlayedAt = 2000
    assert.is_true(store:save(w))
    assert.same(w, store:load(w.id))
    assert.is_nil(store:load("missing"))

    local older = storage.createSavedWorld("Older", 1)
    older.lastPlayedAt = 1000
    local newest = storage.createSavedWorld("Newest", 2)
    newest.lastPlayedAt = 3000
    assert.is_true(store:save(older))
    assert.is_true(store:save(newest))
    local list = store:list()
    assert.same({ "Newest", "Full", "Older" }, { list[1].name, list[2].name, list[3].name })
    assert.equals(2, list[2].editCount)
    assert.is_nil(list[2].edits)
    assert.equals(w.screenshot, list[2].screenshot)

    assert.is_true(store:delete(older.id))
    assert.is_false(store:delete(older.id))
    assert.equals(2, #store:list())
    store:close()
    assert.has_error(function() store:list() end)
  end)

  it("keeps later edits of a block over earlier ones", function()
    local store = assert(storage.open(dir .. "/w.sqlite"))
    local w = storage.createSavedWorld("E", 1)
    w.edits = { { x = 1, y = 2, z = 3, type = 5 }, { x = 9, y = 9, z = 9, type = 1 }, { x = 1, y = 2, z = 3, type = 0 } }
    store:save(w)
    assert.same({ { x = 1, y = 2, z = 3, type = 0 }, { x = 9, y = 9, z = 9, type = 1 } }, store:load(w.id).edits)
    store:close()
  end)

  it("stores per-player records for a world", function()
    local store = assert(storage.open(dir .. "/w.sqlite"))
    local w = storage.createSavedWorld("P", 1)
    store:save(w)
    local rec = { x = 1, y = 2, z = 3, yaw = 0.5, pitch = 0.25, inventory = { stacks = {}, hotbar = { 1, 2 } } }
    assert.is_true(store:savePlayer(w.id, "player-key", rec))
    assert.same(rec, store:loadPlayer(w.id, "player-key"))
    assert.is_nil(store:loadPlayer(w.id, "someone-else"))
    local ok, msg = store:savePlayer("no-world", "k", rec)
    assert.is_nil(ok)
    assert.is_string(msg)
    store:close()
  end)

  it("exports a world as JSON and imports it back", function()
    local store = assert(storage.open(dir .. "/w.sqlite"))
    local w = storage.createSavedWorld("Trip", 7)
    w.edits = { { x = 1, y = 2, z = 3, type = 4 } }
    w.screenshot = "\137PNG\0\1\2"
    store:save(w)
    assert.is_true(store:exportWorld(w.id, dir .. "/trip.json"))
    local text = readFile(dir .. "/trip.json")
    local doc = tycho.json.decode(text)
    assert.equals("Trip", doc.name)
    assert.same({ { x = 1, y = 2, z = 3, type = 4 } }, doc.edits)
    local other = assert(storage.open(dir .. "/other.sqlite"))
    assert.equals(w.id, other:importWorld(dir .. "/trip.json"))
    assert.same(w, other:load(w.id))
    local copy = store:importWorld(dir .. "/trip.json") -- the id is taken here: a fresh one
    assert.are_not.equal(w.id, copy)
    assert.equals("Trip", store:load(copy).name)
    local nothing, msg = store:exportWorld("missing", dir .. "/x.json")
    assert.is_nil(nothing)
    assert.is_string(msg)
    assert.is_nil(readFile(dir .. "/x.json"))
    store:close()
    other:close()
  end)

  it("refuses a file that is not a store, or is damaged, with nil, message and leaves it as it was", function()
    local path = dir .. "/notes.sqlite"
    local f = assert(io.open(path, "wb"))
    f:write(("not a database "):rep(100))
    f:close()
    local store, msg = storage.open(path)
    assert.is_nil(store)
    assert.truthy(msg:find("not a tycho store", 1, true))
    assert.equals(("not a database "):rep(100), readFile(path))

    local good = dir .. "/good.sqlite"
    local s = assert(storage.open(good))
    for i = 1, 10 do
      local w = storage.createSavedWorld("W" .. i, i)
      for j = 1, 2000 do w.edits[j] = { x = j, y = i, z = 0, type = 1 } end
      s:save(w)
    end
    s:close()
    local whole = readFile(good)
    f = assert(io.open(good, "wb"))
    f:write(whole:sub(1, #whole // 2))
    f:close()
    store, msg = storage.open(good)
    assert.is_nil(store)
    assert.truthy(msg:find("damaged", 1, true))
    assert.equals(whole:sub(1, #whole // 2), readFile(good))
  end)

  it("raises bad argument errors for wrong arguments", function()
    local store = assert(storage.open(dir .. "/w.sqlite"))
    assert.has_error(function() storage.createSavedWorld(nil, 1) end)
    assert.has_error(function() storage.createSavedWorld("x", {}) end)
    local w = storage.createSavedWorld("x", 1)
    w.edits = { { x = 1.5, y = 0, z = 0, type = 1 } }
    local ok, err = pcall(store.save, store, w)
    assert.is_false(ok)
    assert.truthy(err:find("bad argument", 1, true))
    assert.truthy(err:find("edits[1].x", 1, true))
    w.edits, w.player = {}, { x = 0 }
    assert.has_error(function() store:save(w) end)
    w.player, w.version = { x = 0, y = 0, z = 0, yaw = 0, pitch = 0 }, storage.CURRENT_FORMAT_VERSION + 1
    local saved, msg = store:save(w)
    assert.is_nil(saved)
    assert.truthy(msg:find("newer", 1, true))
    store:close()
  end)

  it("opens intact after the process is killed (-9) in the middle of saves", function()
    local path = dir .. "/crash.sqlite"
    -- Saves one world over and over, its name and edit count telling which save it is.
    runThenKill(dir, "saver", ([[
      local store = assert(tycho.storage.open(%q))
      local w = tycho.storage.createSavedWorld("save 0", 1)
      w.id = "crash"
      for i = 1, 20000 do w.edits[i] = { x = i, y = 1, z = 1, type = 1 } end
      local n = 0
      while true do
        n = n + 1
        w.name = "save " .. n
        w.edits[20000 + n] = { x = -n, y = 2, z = 2, type = 2 }
        assert(store:save(w))
        if n == 1 then io.open(%q, "w"):close() end
      end
    ]]):format(path, dir .. "/started"), 0.4, "the saver never saved")
    local store, msg = storage.open(path)
    assert.is_not_nil(store, msg)
    local w = store:load("crash")
    store:close()
    local n = tonumber(w.name:match("^save (%d+)$"))
    assert.is_true(n >= 1, w.name)
    assert.equals(20000 + n, #w.edits) -- the name and the edit log come from the same save
  end)
end)

describe("WorldStorage incremental saves", function()
  -- The same edits a game makes between saves: new blocks, and blocks changed again.
  local function batch(from, to)
    local t = {}
    for i = from, to do t[#t + 1] = { x = i % 17, y = 60 + i % 3, z = i % 7, type = i % 256 } end
    return t
  end

  it("loads appended edits as a full save of the same log would, before and after compact", function()
    local store = assert(storage.open(dir .. "/w.sqlite"))
    local w = storage.createSavedWorld("Inc", 5)
    w.edits = batch(1, 300)
    assert.is_true(store:save(w))
    assert.is_true(store:appendEdits(w.id, batch(301, 700)))
    w.sunAngle, w.lastPlayedAt, w.moonPhase = 2.25, 4000, 6
    w.edits = { { x = 999, y = 1, z = 1, type = 1 } } -- saveMeta never reads the log
    assert.is_true(store:saveMeta(w, batch(701, 1000)))
    assert.is_true(store:saveMeta(w))             -- no new edits: the fields only

    local full = storage.createSavedWorld("Full", 5)
    full.edits = batch(1, 1000)
    assert.is_true(store:save(full))
    local want = store:load(full.id).edits
    assert.is_true(#want < 1000) -- blocks were edited again: later edits won
    local got = store:load(w.id)
    assert.same(want, got.edits)
    assert.equals(2.25, got.sunAngle)
    assert.equals(4000, got.lastPlayedAt)
    assert.equals(6, got.moonPhase)
    for _, l in ipairs(store:list()) do assert.equals(#want, l.editCount) end

    assert.is_true(store:compact(w.id))
    assert.same(want, store:load(w.id).edits)
    assert.is_false(store:compact("missing"))
    store:close()
  end)

  it("loads the log packed with {packedEdits = true}: 16-byte records, appended edits merged", function()
    local store = assert(storage.open(dir .. "/p.sqlite"))
    local w = storage.createSavedWorld("Packed", 5)
    w.edits = batch(1, 300)
    assert.is_true(store:save(w))
    assert.is_true(store:appendEdits(w.id, { { x = -(1 << 24) + 1, y = 255, z = 1 << 23, type = 7 } }))
    local want = store:load(w.id).edits
    local got = store:load(w.id, { packedEdits = true })
    assert.equals("string", type(got.edits))
    assert.equals(#want * 16, #got.edits)
    for i, e in ipairs(want) do
      local x, y, z, t = string.unpack("<i4i4i4i4", got.edits, (i - 1) * 16 + 1)
      assert.same(e, { x = x, y = y, z = z, type = t })
    end
    assert.equals("Packed", got.name)
    local empty = storage.createSavedWorld("Empty", 1)
    assert.is_true(store:save(empty))
    assert.equals("", store:load(empty.id, { packedEdits = true }).edits)
    store:close()
  end)

  it("refuses appends to a world it does not have, and wrong arguments", function()
    local store = assert(storage.open(dir .. "/w.sqlite"))
    local ok, msg = store:appendEdits("missing", { { x = 1, y = 2, z = 3, type = 4 } })
    assert.is_nil(ok)
    assert.truthy(msg:find("no world", 1, true), msg)
    local w = storage.createSavedWorld("A", 1)
    assert.is_true(store:saveMeta(w))
    local err
    ok, err = pcall(store.appendEdits, store, w.id, { { x = 1, y = 2, z = "3", type = 4 } })
    assert.is_false(ok)
    assert.truthy(err:find("bad argument", 1, true) and err:find("edits[1].z", 1, true), err)
    assert.has_error(function() store:appendEdits(w.id) end)
    assert.has_error(function() store:saveMeta(w, "edits") end)
    assert.same({}, store:load(w.id).edits)
    store:close()
  end)

  it("queues saves with {async = true}: load sees them in order, flush reports a failure once", function()
    local path = dir .. "/w.sqlite"
    local store = assert(storage.open(path))
    local w = storage.createSavedWorld("Async", 5)
    w.edits = batch(1, 300)
    assert.is_true(store:save(w))
    local ASYNC = { async = true }
    assert.is_true(store:appendEdits(w.id, batch(301, 700), ASYNC))
    w.sunAngle, w.lastPlayedAt = 2.5, 5000
    assert.is_true(store:saveMeta(w, batch(701, 1000), ASYNC))
    assert.is_true(store:saveMeta(w, nil, ASYNC))
    -- load waits for the queued saves: the same log as a full save of every edit.
    local full = storage.createSavedWorld("Full", 5)
    full.edits = batch(1, 1000)
    assert.is_true(store:save(full))
    local got = store:load(w.id)
    assert.same(store:load(full.id).edits, got.edits)
    assert.equals(2.5, got.sunAngle)
    assert.equals(0, store:pending())
    assert.is_true(store:flush())
    assert.is_nil(store:lastError())

    -- A failure is not the call's: the call queued it. flush returns it, then it is cleared.
    assert.is_true(store:appendEdits("missing", batch(1, 2), ASYNC))
    assert.is_true(store:appendEdits(w.id, { { x = 50, y = 50, z = 50, type = 9 } }, ASYNC))
    while store:pending() > 0 do os.execute("sleep 0.01") end
    assert.truthy((store:lastError() or ""):find("no world with id missing", 1, true))
    local ok, msg = store:flush()
    assert.is_nil(ok)
    assert.truthy(msg:find("no world with id missing", 1, true), msg)
    assert.is_true(store:flush())
    local after = store:load(w.id).edits -- the failure did not stop the jobs behind it
    assert.same({ x = 50, y = 50, z = 50, type = 9 }, after[#after])

    -- Bad arguments still raise on the caller's frame; a newer record is refused at once.
    assert.has_error(function() store:saveMeta(w, batch(1, 2), "async") end)
    assert.has_error(function() store:appendEdits(w.id, { { x = "1" } }, ASYNC) end)
    local newer = storage.createSavedWorld("Newer", 1)
    newer.version = storage.CURRENT_FORMAT_VERSION + 1
    ok, msg = store:saveMeta(newer, nil, ASYNC)
    assert.is_nil(ok)
    assert.truthy(msg:find("newer", 1, true), msg)

    -- close flushes: another handle sees everything queued just before it.
    for i = 1, 200 do assert.is_true(store:appendEdits(w.id, { { x = 1000 + i, y = 1, z = 1, type = 1 } }, ASYNC)) end
    assert.is_true(store:pending() <= 64)
    assert.is_true(store:close())
    local again = assert(storage.open(path))
    local edits = again:load(w.id).edits
    assert.same({ x = 1200, y = 1, z = 1, type = 1 }, edits[#edits])
    again:close()
  end)

  it("leaves a loadable world when the process is killed (-9) between appends", function()
    local path = dir .. "/crash.sqlite"
    -- One full save, then appends forever: append n puts block (n, 3, 3) and rewrites
    -- (0, 1, 1) to type n % 200, and the record's name says how many have committed.
    runThenKill(dir, "appender", ([[
      local store = assert(tycho.storage.open(%q))
      local w = tycho.storage.createSavedWorld("append 0", 1)
      w.id = "crash"
      for i = 1, 20000 do w.edits[i] = { x = i - 1, y = 1, z = 1, type = 1 } end
      assert(store:save(w))
      w.edits = nil
      local n = 0
      while true do
        n = n + 1
        w.name = "append " .. n
        assert(store:saveMeta(w, { { x = n, y = 3, z = 3, type = 2 }, { x = 0, y = 1, z = 1, type = n %% 200 } }))
        if n == 50 then io.open(%q, "w"):close() end
      end
    ]]):format(path, dir .. "/started"), 0.3, "the appender never got going")
    local store, msg = storage.open(path)
    assert.is_not_nil(store, msg)
    local w = assert(store:load("crash"))
    local n = tonumber(w.name:match("^append (%d+)$"))
    assert.is_true(n >= 50, w.name)
    -- The name and the log come from the same commit: n appends, each whole.
    assert.equals(20000 + n, #w.edits)
    assert.same({ x = 0, y = 1, z = 1, type = n % 200 }, w.edits[1])
    assert.same({ x = n, y = 3, z = 3, type = 2 }, w.edits[#w.edits])
    assert.is_true(store:compact("crash"))
    assert.equals(20000 + n, #store:load("crash").edits)
    store:close()
  end)
end)

describe("WorldStorage transactions", function()
  local pose = { x = 1, y = 2, z = 3, yaw = 0, pitch = 0 }

  it("commits a tick's saves at once, each save failing alone", function()
    local path = dir .. "/t.sqlite"
    local store = assert(storage.open(path))
    local a, b = storage.createSavedWorld("A", 1), storage.createSavedWorld("B", 2)
    assert(store:save(a))
    assert(store:save(b))
    local other = assert(storage.open(path)) -- another connection, as another process
    local inside = {}
    local ok, msg = store:transaction(function(s)
      assert.equals(store, s)
      a.name = "A2"
      inside.meta = s:saveMeta(a, { { x = 1, y = 2, z = 3, type = 4 } })
      inside.missing = { s:savePlayer("no-world", "k", pose) }
      inside.player = s:savePlayer(b.id, "k", pose)
      inside.seen = other:load(a.id).name -- not committed yet
      inside.own = s:load(a.id).name      -- the transaction reads its own writes
      inside.nested = { s:transaction(function() end) }
    end)
    assert.is_true(ok, msg)
    assert.is_true(inside.meta)
    assert.is_nil(inside.missing[1])
    assert.matches("no world", inside.missing[2])
    assert.is_true(inside.player)
    assert.equals("A", inside.seen)
    assert.equals("A2", inside.own)
    assert.is_nil(inside.nested[1])
    assert.matches("already open", inside.nested[2])
    local loaded = other:load(a.id)
    assert.equals("A2", loaded.name)
    assert.same({ { x = 1, y = 2, z = 3, type = 4 } }, loaded.edits)
    assert.same(pose, other:loadPlayer(b.id, "k"))
    other:close()
    store:close()
  end)

  it("saves nothing of a transaction whose function raises, and refuses a close inside it", function()
    local store = assert(storage.open(dir .. "/t.sqlite"))
    local w = storage.createSavedWorld("Kept", 1)
    assert(store:save(w))
    local ok, msg = store:transaction(function(s)
      w.name = "Lost"
      assert(s:saveMeta(w))
      error("boom")
    end)
    assert.is_nil(ok)
    assert.matches("boom", msg)
    assert.equals("Kept", store:load(w.id).name)
    ok, msg = store:transaction(function(s) s:close() end)
    assert.is_nil(ok)
    assert.matches("cannot be closed inside its transaction", msg)
    assert.equals("Kept", store:load(w.id).name) -- still open and usable
    assert.has_error(function() store:transaction("not a function") end)
    store:close()
    assert.has_error(function() store:transaction(function() end) end)
  end)

  it("keeps a transaction whole when the process is killed (-9) between them", function()
    local path = dir .. "/crash.sqlite"
    -- Transaction n renames the world "tx n", appends block (n, 3, 3) and moves the player to
    -- x = n: after a crash all three say the same n.
    runThenKill(dir, "batcher", ([[
      local store = assert(tycho.storage.open(%q))
      local w = tycho.storage.createSavedWorld("tx 0", 1)
      w.id = "crash"
      assert(store:save(w))
      w.edits = nil
      local n = 0
      while true do
        n = n + 1
        assert(store:transaction(function(s)
          w.name = "tx " .. n
          assert(s:saveMeta(w, { { x = n, y = 3, z = 3, type = 2 } }))
          assert(s:savePlayer("crash", "p", { x = n, y = 0, z = 0, yaw = 0, pitch = 0 }))
        end))
        if n == 50 then io.open(%q, "w"):close() end
        if n %% 100 == 0 then store:checkpoint() end
      end
    ]]):format(path, dir .. "/started"), 0.3, "the batcher never got going")
    local store, msg = storage.open(path)
    assert.is_not_nil(store, msg)
    local w = assert(store:load("crash"))
    local n = tonumber(w.name:match("^tx (%d+)$"))
    assert.is_true(n >= 50, w.name)
    assert.equals(n, #w.edits)
    assert.same({ x = n, y = 3, z = 3, type = 2 }, w.edits[n])
    assert.equals(n, store:loadPlayer("crash", "p").x)
    store:close()
  end)
end)

describe("WorldStorage blobs", function()
  it("stores bytes under a key, replaces them, reads them from another handle, deletes them", function()
    local path = dir .. "/blobs.sqlite"
    local a = assert(storage.open(path))
    local bytes = "\0\1\2\255" .. string.rep("x", 100000)
    assert.is_true(a:putBlob("sync/room-1", bytes))
    assert.is_true(a:putBlob("empty", ""))
    assert.is_nil(a:getBlob("nothing"))
    local b = assert(storage.open(path))
    assert.equals(bytes, b:getBlob("sync/room-1"))
    assert.equals("", b:getBlob("empty"))
    assert.is_true(b:putBlob("sync/room-1", "new"))
    assert.equals("new", a:getBlob("sync/room-1"))
    assert.is_true(a:deleteBlob("sync/room-1"))
    assert.is_false(a:deleteBlob("sync/room-1"))
    assert.is_nil(b:getBlob("sync/room-1"))
    assert.has_error(function() a:putBlob("k", {}) end)
    assert.has_error(function() a:getBlob() end)
    a:close()
    b:close()
    -- still there when the store is opened again
    local c = assert(storage.open(path))
    assert.equals("", c:getBlob("empty"))
    c:close()
  end)
end)
