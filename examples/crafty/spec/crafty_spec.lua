-- examples/crafty/spec/crafty_spec.lua: the game's logic headless: terrain per seed, edit
-- replay, saves (every field, an old record, a damaged one, a newer one, the incremental
-- autosave), survival counts, collision, the ray cast, whole runs of the game (headless and
-- offscreen, saving through engine:onQuit), typing in the chat and a new world's name
-- through injected text, the multiplayer flow against a real `tycho serve`, the start
-- screen (counts in words, empty lists, removal asked first, the player's name), the lobby
-- (what it says while connecting and after, name tags, Esc one screen back) and the
-- thumbnail taken at the last view.
local testing = require("tycho.testing")
local dir = testing.here() .. "/.."
package.path = dir .. "/?.lua;" .. package.path

local World = require("world")
local Player = require("player")
local Inventory = require("inventory")
local Save = require("save")
local blocks = require("blocks")

local function tmp()
  local p = os.tmpname()
  os.remove(p)
  return p .. ".sqlite"
end

local function removeStore(p)
  for _, s in ipairs({ "", "-wal", "-shm" }) do os.remove(p .. s) end
end

-- A stand-in world for the physics tests: solid below y = 10 and in the listed cells.
local function flatWorld(extra)
  return { solid = function(_, x, y, z) return y < 10 or (extra and extra[x .. "," .. y .. "," .. z]) or false end }
end

describe("crafty world", function()
  it("generates the same terrain for the same seed, and different terrain for another", function()
    local a, b, c = World.new(1234), World.new(1234), World.new(99)
    for _, cc in ipairs({ { 0, 0 }, { -3, 2 }, { 5, -7 } }) do
      assert.equals(a:chunk(cc[1], cc[2]):bytes(), b:chunk(cc[1], cc[2]):bytes())
    end
    assert.are_not.equal(a:chunk(0, 0):bytes(), c:chunk(0, 0):bytes())
    -- A string seed is a seed too, and stable.
    assert.equals(World.new("meadow"):chunk(1, 1):bytes(), World.new("meadow"):chunk(1, 1):bytes())
    -- Terrain has ground and sky: stone at the bottom, air at the top.
    assert.equals(blocks.STONE, a:get(3, 1, 3))
    assert.equals(0, a:get(3, World.CY - 1, 3))
  end)

  it("generates with tycho.terrain exactly the blocks the Lua generator it replaced made", function()
    -- world.lua generated terrain in Lua before engine/terrain/ did it in C for both the client
    -- and the crafty server. Saves hold only edits, replayed onto regenerated terrain: the
    -- terrain must not have moved. This is that Lua generator, kept as the reference.
    local function seedNumber(seed)
      if math.type(seed) == "integer" then return seed & 0xffffffff end
      local h = 2166136261
      for i = 1, #tostring(seed) do h = ((h ~ tostring(seed):byte(i)) * 16777619) & 0xffffffff end
      return h
    end
    local function hash(seed, x, z)
      local h = (seed ~ (x * 374761393) ~ (z * 668265263)) & 0xffffffff
      h = ((h ~ (h >> 13)) * 1274126177) & 0xffffffff
      return (h ~ (h >> 16)) & 0xffffffff
    end
    local function height(s, x, z)
      local noise = tycho.voxel.noise
      local h = 44 + 14 * noise(x / 96, z / 96, s) + 6 * noise(x / 32, z / 32, s + 1) + 2 * noise(x / 11, z / 11, s + 2)
      local mountains = noise(x / 160, z / 160, s + 3)
      if mountains > 0.2 then h = h + (mountains - 0.2) * 60 end
      return math.floor(h)
    end
    local function generate(s, cx, cz)
      local g = tycho.voxel.grid(16, 128, 16)
      local x0, z0 = cx * 16, cz * 16
      for lx = 0, 15 do
        for lz = 0, 15 do
          local h = height(s, x0 + lx, z0 + lz)
          if h > 120 then h = 120 end
          g:fill(lx, 0, lz, lx, h - 4, lz, blocks.STONE)
          if h <= 41 then
            g:fill(lx, h - 3, lz, lx, h, lz, blocks.SAND)
          elseif h > 68 then
            g:fill(lx, h - 3, lz, lx, h - 1, lz, blocks.STONE)
            g:set(lx, h, lz, blocks.SNOW)
          else
            g:fill(lx, h - 3, lz, lx, h - 1, lz, blocks.DIRT)
            g:set(lx, h, lz, blocks.GRASS)
          end
        end
      end
      for lx = 2, 13 do
        for lz = 2, 13 do
          local x, z = x0 + lx, z0 + lz
          if hash(s, x, z) % 97 == 0 then
            local h = g:top(lx, lz)
            if g:get(lx, h, lz) == blocks.GRASS then
              local trunk = 4 + hash(s + 7, x, z) % 2
              g:fill(lx - 2, h + trunk - 1, lz - 2, lx + 2, h + trunk, lz + 2, blocks.LEAVES)
              g:fill(lx - 1, h + trunk + 1, lz - 1, lx + 1, h + trunk + 1, lz + 1, blocks.LEAVES)
              g:fill(lx, h + 1, lz, lx, h + trunk, lz, blocks.LOG)
            end
          end
        end
      end
      return g
    end
    local logs, snow = 0, 0
    for _, seed in ipairs({ 1234, "meadow", 2.5, 3.0, -7, 0x1ffffffff, 2024 }) do
      local s = seedNumber(seed)
      local w = World.new(seed)
      assert.equals(s, w.seedInt)
      for cx = -3, 3 do
        for cz = -3, 3 do
          local want, got = generate(s, cx, cz), w:generate(cx, cz)
          assert.is_true(want:bytes() == got:bytes(), ("seed %s, chunk %d,%d"):format(tostring(seed), cx, cz))
          logs, snow = logs + got:count(blocks.LOG), snow + got:count(blocks.SNOW)
        end
      end
      for i = 1, 50 do
        local x, z = i * 7919 - 200000, 150000 - i * 104729
        assert.equals(height(s, x, z), w:height(x, z))
      end
    end
    assert.is_true(logs > 0 and snow > 0, "trees and snowy heights were compared")
  end)

  it("refuses seeds and coordinates terrain cannot use, with a message that says why", function()
    for _, bad in ipairs({ {}, true, 0 / 0, math.huge }) do
      local ok, err = pcall(World.new, bad)
      assert.is_false(ok)
      assert.truthy(tostring(err):find("seed", 1, true), tostring(err))
    end
    local t = tycho.terrain.new(1)
    local ok, err = pcall(t.block, t, 1 << 24, 10, 0)
    assert.is_false(ok)
    assert.truthy(err:find("x must be in -16777215..16777215", 1, true), err)
    ok, err = pcall(t.height, t, 0, -(1 << 24))
    assert.truthy(err:find("z must be in", 1, true), err)
    ok, err = pcall(t.chunk, t, 1 << 20, 0)
    assert.truthy(err:find("cx must be in -1048576..1048575", 1, true), err)
    ok, err = pcall(t.block, t, 0.5, 10, 0)
    assert.truthy(err:find("integer", 1, true), err)
    assert.equals(0, t:block(0, -1, 0))       -- below and above the world: air
    assert.equals(0, t:block(0, World.CY, 0))
    assert.equals(blocks.STONE, t:block(0, 0, 0))
  end)

  it("replays an edit log onto a regenerated world to the same blocks", function()
    local a = World.new(7)
    a:chunk(0, 0)
    a:set(1, 50, 1, blocks.BRICK)
    a:set(20, 60, -5, blocks.GLASS) -- in chunk (1, -1), not generated yet
    a:set(1, 50, 1, 0)             -- a later edit of the same block replaces the first
    a:set(15, 45, 15, 0)
    assert.equals(3, #a.edits)
    local b = World.new(7)
    assert.equals(3, b:applyEdits(a.edits))
    for _, cc in ipairs({ { 0, 0 }, { 1, -1 } }) do
      assert.equals(a:chunk(cc[1], cc[2]):bytes(), b:chunk(cc[1], cc[2]):bytes())
    end
    assert.equals(blocks.GLASS, b:get(20, 60, -5))
    assert.equals(0, b:get(1, 50, 1))
  end)

  it("skips edits outside the world with a log line", function()
    local w = World.new(1)
    local lines = {}
    w.log = function(line) lines[#lines + 1] = line end
    local n = w:applyEdits({ { x = 0, y = -1, z = 0, type = 1 }, { x = 0, y = World.CY, z = 0, type = 1 },
      { x = 0, y = 5, z = 0, type = 300 }, { x = 0.5, y = 5, z = 0, type = 1 }, { x = 2, y = 70, z = 2, type = 3 } })
    assert.equals(1, n)
    assert.equals(4, #lines)
    assert.truthy(lines[1]:find("skipped", 1, true))
    assert.equals(3, w:get(2, 70, 2))
  end)

  it("casts rays to the first solid block and the face it entered", function()
    local w = World.new(5)
    for x = -2, 2 do for z = -2, 2 do for y = 90, 100 do w:set(x, y, z, 0) end end end
    w:set(0, 95, -3, blocks.STONE)
    local x, y, z, nx, ny, nz = w:raycast(0.5, 95.5, 0.5, 0, 0, -1, 8)
    assert.same({ 0, 95, -3, 0, 0, 1 }, { x, y, z, nx, ny, nz })
    -- Diagonal, down onto a block placed below.
    w:set(2, 91, 2, blocks.BRICK)
    local d = 1 / math.sqrt(3)
    x, y, z, nx, ny, nz = w:raycast(0.5, 93.5, 0.5, d, -d, d, 8)
    assert.same({ 2, 91, 2 }, { x, y, z })
    assert.equals(1, math.abs(nx) + math.abs(ny) + math.abs(nz))
    -- Nothing within reach.
    assert.is_nil(w:raycast(0.5, 95.5, 0.5, 0, 0, -1, 2))
  end)
end)

describe("crafty player", function()
  it("falls onto the ground and stands on it", function()
    local p = Player.new(flatWorld(), { x = 0.5, y = 20, z = 0.5 })
    for _ = 1, 120 do p:step(1 / 60, {}) end
    assert.near(10, p.y, 1e-3)
    assert.is_true(p.onGround)
    assert.is_false(p:collides(p.x, p.y, p.z))
  end)

  it("is stopped by a wall and never enters a block", function()
    local wall = {}
    for y = 10, 12 do for z = -3, 3 do wall["3," .. y .. "," .. z] = true end end
    local p = Player.new(flatWorld(wall), { x = 0.5, y = 10, z = 0.5, yaw = -math.pi / 2 }) -- facing +X
    for _ = 1, 120 do
      p:step(1 / 60, { forward = 1 })
      assert.is_false(p:collides(p.x, p.y, p.z))
    end
    assert.near(3 - Player.HALF_WIDTH, p.x, 1e-2)
  end)

  it("jumps one block high, not two", function()
    local p = Player.new(flatWorld(), { x = 0.5, y = 10, z = 0.5 })
    p:step(1 / 60, {})
    local top = p.y
    p:step(1 / 60, { jump = true })
    for _ = 1, 60 do
      p:step(1 / 60, {})
      top = math.max(top, p.y)
    end
    assert.is_true(top > 11 and top < 12, top)
  end)
end)

describe("crafty inventory", function()
  it("counts in survival: breaking gathers, placing takes, none left refuses", function()
    local inv = Inventory.new("survival")
    assert.equals(0, inv:count(blocks.STONE))
    assert.is_false(inv:take(blocks.STONE))
    inv:gather(blocks.STONE)
    inv:gather(blocks.STONE)
    inv:gather(blocks.GRASS) -- grass drops dirt
    assert.equals(2, inv:count(blocks.STONE))
    assert.equals(1, inv:count(blocks.DIRT))
    assert.is_true(inv:take(blocks.STONE))
    assert.equals(1, inv:count(blocks.STONE))
    local saved = inv:toSaved()
    local again = Inventory.new("survival", saved)
    assert.equals(1, again:count(blocks.STONE))
    assert.equals(1, again:count(blocks.DIRT))
    assert.same(inv.hotbar, again.hotbar)
  end)

  it("never runs out in creative, and selects hotbar slots with wrap-around", function()
    local inv = Inventory.new("creative")
    for _ = 1, 100 do assert.is_true(inv:take(blocks.BRICK)) end
    inv:select(9)
    inv:scroll(1)
    assert.equals(1, inv.selected)
    inv:scroll(-1)
    assert.equals(9, inv.selected)
  end)
end)

describe("crafty saves", function()
  it("round-trips every field of a game through save and load", function()
    local path = tmp()
    local store = assert(Save.open(path))
    local record = tycho.storage.createSavedWorld("Meadow", 4321, "survival")
    local world = World.new(4321)
    world:set(3, 70, 4, blocks.BRICK)
    world:set(-20, 65, 9, blocks.GLASS)
    local inv = Inventory.new("survival")
    inv:gather(blocks.STONE)
    inv:select(4)
    local game = { record = record, world = world, inventory = inv,
      player = { x = 10.5, y = 71, z = -3.25, yaw = 1.25, pitch = -0.5 }, sunAngle = 2.5, moonPhase = 3,
      screenshot = "\137PNG fake bytes" }
    assert.is_true(store:save(Save.record(game)))
    local back, w2 = Save.load(store, record.id)
    assert.truthy(back, w2)
    assert.equals("Meadow", back.name)
    assert.equals(4321, back.seed)
    assert.equals("survival", back.gameMode)
    assert.equals(record.createdAt, back.createdAt)
    assert.equals(record.lastPlayedAt, back.lastPlayedAt)
    assert.same({ x = 10.5, y = 71, z = -3.25, yaw = 1.25, pitch = -0.5 }, back.player)
    assert.equals(2.5, back.sunAngle)
    assert.equals(3, back.moonPhase)
    assert.equals("\137PNG fake bytes", back.screenshot)
    assert.equals(tycho.storage.CURRENT_FORMAT_VERSION, back.version)
    assert.same(inv:toSaved(), back.inventory)
    assert.equals(2, #back.edits)
    assert.equals(blocks.BRICK, w2:get(3, 70, 4))
    assert.equals(blocks.GLASS, w2:get(-20, 65, 9))
    assert.equals(world:chunk(0, 0):bytes(), w2:chunk(0, 0):bytes())
    store:close()
    removeStore(path)
  end)

  it("upgrades an old-format record (no gameMode, no sunAngle) and refuses a newer one", function()
    local path, json = tmp(), os.tmpname()
    local store = assert(Save.open(path))
    local f = assert(io.open(json, "wb"))
    f:write('{"id":"old","name":"Old","seed":42,"createdAt":5,"lastPlayedAt":6,'
      .. '"edits":[{"x":1,"y":70,"z":3,"type":4}],"player":{"x":1,"y":80,"z":3,"yaw":0,"pitch":0},"version":1}')
    f:close()
    local id = assert(store:importWorld(json))
    local record, world = Save.load(store, id)
    assert.truthy(record, world)
    assert.equals("creative", record.gameMode)
    assert.near(math.pi * 0.3, record.sunAngle, 1e-9)
    assert.equals(tycho.storage.CURRENT_FORMAT_VERSION, record.version)
    assert.equals(4, world:get(1, 70, 3))
    f = assert(io.open(json, "wb"))
    f:write('{"id":"new","name":"New","seed":1,"createdAt":5,"lastPlayedAt":6,"edits":[],'
      .. '"player":{"x":1,"y":80,"z":3,"yaw":0,"pitch":0},"version":99}')
    f:close()
    local none, msg = store:importWorld(json)
    assert.is_nil(none)
    assert.truthy(tostring(msg):find("newer", 1, true), msg)
    store:close()
    os.remove(json)
    removeStore(path)
  end)

  it("reports a damaged world, leaves it as it is on disk, and still lists and loads the others", function()
    if testing.shell("command -v sqlite3") ~= 0 then
      error("this test damages a record with the sqlite3 command-line shell: install sqlite3", 0)
    end
    local path = tmp()
    local store = assert(Save.open(path))
    local good = tycho.storage.createSavedWorld("Good", 1)
    good.edits = { { x = 1, y = 70, z = 1, type = 3 } }
    local bad = tycho.storage.createSavedWorld("Bad", 2)
    bad.edits = { { x = 2, y = 70, z = 2, type = 3 } }
    assert(store:save(good))
    assert(store:save(bad))
    store:close()
    -- Truncate the bad world's packed edit log: its count no longer matches its bytes.
    local code, out = testing.shell(("sqlite3 %s %s"):format(testing.quote(path),
      testing.quote("UPDATE world_edits SET data = substr(data, 1, 5) WHERE world_id = '" .. bad.id .. "'")))
    if code ~= 0 then
      code, out = testing.shell(("sqlite3 %s .schema"):format(testing.quote(path)))
      error("could not damage the record:\n" .. out, 0)
    end
    local function damagedLength()
      local _, o = testing.shell(("sqlite3 %s %s"):format(testing.quote(path),
        testing.quote("SELECT length(data) FROM world_edits WHERE world_id = '" .. bad.id .. "'")))
      return o:match("%d+")
    end
    assert.equals("5", damagedLength())
    store = assert(Save.open(path))
    local list = Save.list(store)
    local names = {}
    for _, w in ipairs(list) do names[w.name] = true end
    assert.is_true(names.Good)
    local record, msg = Save.load(store, bad.id)
    assert.is_nil(record)
    assert.truthy(tostring(msg):find("damaged", 1, true), msg)
    local ok, world = Save.load(store, good.id)
    assert.truthy(ok, world)
    assert.equals(3, world:get(1, 70, 1))
    store:close()
    assert.equals("5", damagedLength()) -- the damaged record was left as it was
    removeStore(path)
  end)

  it("autosaves at most every 5 seconds while something changed, and flushes on demand", function()
    local path = tmp()
    local store = assert(Save.open(path))
    local record = tycho.storage.createSavedWorld("Auto", 3)
    local game = { record = record, world = World.new(3), inventory = Inventory.new("creative"),
      player = { x = 1, y = 80, z = 1, yaw = 0, pitch = 0 }, sunAngle = 1 }
    local auto = Save.autosave(store, game)
    local t0 = auto.last
    auto.tick(t0 + 10)
    assert.equals(0, auto.saves) -- nothing changed
    auto.note()
    auto.tick(t0 + 1)
    assert.equals(0, auto.saves) -- too soon
    auto.tick(t0 + 6)
    assert.equals(1, auto.saves)
    game.world:set(0, 100, 0, blocks.BRICK)
    auto.note()
    assert.is_true(auto.flush())
    assert.equals(1, #store:load(record.id).edits)
    store:close()
    removeStore(path)
  end)

  it("autosaves only the edits since the last save, and a load sees the whole log", function()
    local path = tmp()
    local store = assert(Save.open(path))
    local record = tycho.storage.createSavedWorld("Inc", 11)
    local game = { record = record, world = World.new(11), inventory = Inventory.new("creative"),
      player = { x = 1, y = 80, z = 1, yaw = 0, pitch = 0 }, sunAngle = 1 }
    local auto = Save.autosave(store, game)
    local w = game.world
    for i = 1, 200 do w:set(i, 90, 0, blocks.BRICK) end
    assert.equals(200, #w.unsaved)
    auto.note()
    assert.is_true(auto.flush())
    assert.equals(0, #w.unsaved) -- saved: nothing is sent twice
    -- Between saves: new blocks, and saved blocks changed (each sent once, its last type).
    w:set(1, 90, 0, 0)
    w:set(1, 90, 0, blocks.GLASS)
    w:set(500, 90, 0, blocks.STONE)
    assert.equals(2, #w.unsaved)
    game.player.x, game.sunAngle = 7.5, 2
    auto.note()
    assert.is_true(auto.flush())
    local back = store:load(record.id)
    assert.same(w.edits, back.edits) -- same blocks, types and order as the game's log
    assert.equals(7.5, back.player.x)
    assert.equals(2, back.sunAngle)
    -- A save that fails keeps its edits for the next one.
    w:set(600, 90, 0, blocks.SAND)
    auto.store = { saveMeta = function() return nil, "disk full" end }
    auto.note()
    assert.is_false(auto.flush())
    assert.equals(1, #w.unsaved)
    auto.store = store
    -- finish() saves and folds the appended edits into the packed log.
    assert.is_true(auto.finish())
    assert.same(w.edits, store:load(record.id).edits)
    local code, out = testing.shell(("sqlite3 %s %s"):format(testing.quote(path),
      testing.quote("SELECT count(*) FROM world_journal")))
    if code == 0 then assert.equals("0", out:match("%d+")) end
    store:close()
    removeStore(path)
  end)
end)

describe("crafty runs", function()
  it("runs headless with a world auto-started, and saves it on quit", function()
    local path = tmp()
    local code, out = testing.shell(("CRAFTY_SAVES=%s CRAFTY_AUTOSTART=777 %s run %s --headless --frames 40")
      :format(testing.quote(path), testing.quote(tycho.executable), testing.quote(dir)))
    assert.equals(0, code, out)
    assert.is_nil(out:find("rror"), out)
    local store = assert(tycho.storage.open(path))
    local list = store:list()
    assert.equals(1, #list)
    assert.equals(777, list[1].seed)
    store:close()
    removeStore(path)
  end)

  -- A game file that runs crafty, then edits blocks at frame 5 and ends as `how` says:
  -- "frames" (--frames runs out), "quit" (engine:quit()) or "term" (SIGTERM from outside).
  local function editingRun(path, how)
    local script = tmp() .. ".lua"
    local f = assert(io.open(script, "w"))
    f:write(([[
      package.path = %q .. "/?.lua;" .. package.path
      dofile(%q .. "/main.lua")
      local engine = tycho.engine
      local n = 0
      engine:afterFrame(function()
        n = n + 1
        if n == 5 then
          for i = 1, 40 do engine.crafty.world:set(i, 110, 3, 9) end
          if %q == "term" then io.open(%q, "w"):close() end
        end
        if n == 8 and %q == "quit" then engine:quit() end
      end)
    ]]):format(dir, dir, how, script .. ".ready", how))
    f:close()
    local frames = how == "frames" and " --frames 12" or ""
    local env = ("CRAFTY_SAVES=%s CRAFTY_AUTOSTART=4242 CRAFTY_VIEW=2 "):format(testing.quote(path))
    local cmd = env .. testing.quote(tycho.executable) .. " run " .. testing.quote(script) .. " --headless --no-watch"
      .. frames
    local code, out
    if how == "term" then
      code, out = testing.shell(cmd .. " & pid=$!; for i in $(seq 200); do [ -e " .. testing.quote(script .. ".ready")
        .. " ] && break; sleep 0.05; done; kill -TERM $pid; wait $pid")
    else
      code, out = testing.shell(cmd)
    end
    os.remove(script)
    os.remove(script .. ".ready")
    return code, out
  end

  for _, how in ipairs({ "frames", "quit", "term" }) do
    it("saves through engine:onQuit when the run ends by " .. how .. ", the edits load back", function()
      local path = tmp()
      local code, out = editingRun(path, how)
      assert.equals(0, code, out)
      assert.is_nil(out:find("rror"), out)
      local store = assert(tycho.storage.open(path))
      local list = store:list()
      assert.equals(1, #list, out)
      assert.equals(40, list[1].editCount) -- saved on quit: the 5 s autosave never came
      local record, world = Save.load(store, list[1].id)
      assert.truthy(record, world)
      for i = 1, 40 do assert.equals(9, world:get(i, 110, 3)) end
      store:close()
      removeStore(path)
    end)
  end

  it("runs engine:onQuit hooks once, in order, each even when one before it fails", function()
    local engine = require("tycho.engine").new({ headless = true })
    local calls = {}
    engine:onQuit(function() calls[#calls + 1] = "a" end)
    engine:onQuit(function() error("boom") end)
    engine:onQuit(function() calls[#calls + 1] = "c" end)
    assert.has_error(function() engine:onQuit("not a function") end)
    local stderr = io.stderr
    io.stderr = { write = function() end } -- luacheck: ignore
    local ok = engine:_shutdown()
    io.stderr = stderr -- luacheck: ignore
    assert.is_false(ok)
    assert.same({ "a", "c" }, calls)
    assert.is_true(engine:_shutdown()) -- once only
    assert.same({ "a", "c" }, calls)
  end)

  it("plays in-process: walks, breaks and places blocks, the chunks mesh", function()
    local path = tmp()
    local env = { CRAFTY_SAVES = path, CRAFTY_AUTOSTART = "31337", CRAFTY_VIEW = "3" }
    local getenv = os.getenv
    os.getenv = function(k) return env[k] or getenv(k) end -- luacheck: ignore
    local ok, engine = pcall(testing.runGame, dir, 30)
    os.getenv = getenv -- luacheck: ignore
    assert.truthy(ok, engine)
    local game = engine.crafty
    assert.equals("playing", game.state)
    assert.is_true(game.chunks:count() >= 9)
    assert.is_true(game.player.onGround)
    -- Look straight down and break the block underfoot, then place one back.
    local p = game.player
    p.x, p.z = math.floor(p.x) + 0.5, math.floor(p.z) + 0.5
    while p:collides(p.x, p.y, p.z) do p.y = math.floor(p.y) + 1 end
    while not p:collides(p.x, p.y - 0.01, p.z) do p.y = p.y - 1 end
    p.y = math.floor(p.y)
    p.pitch = -1.55
    local below = game.world:get(math.floor(p.x), math.floor(p.y) - 1, math.floor(p.z))
    assert.are_not.equal(0, below)
    assert.is_true(game.breakOrPlace("break"))
    assert.equals(0, game.world:get(math.floor(p.x), math.floor(p.y) - 1, math.floor(p.z)))
    assert.equals(1, #game.world.edits)
    for _ = 1, 30 do engine:step(1 / 60) end -- falls into the hole
    assert.is_true(game.player.onGround)
    local frame = engine:frame()
    assert.is_true(frame.buckets.opaque >= 1)
    game.leave()
    assert.equals("menu", game.state)
    local store = assert(tycho.storage.open(path))
    assert.equals(1, #store:load(store:list()[1].id).edits)
    store:close()
    removeStore(path)
  end)

  it("renders a frame that is not flat under the offscreen driver", function()
    local path, shot = tmp(), os.tmpname() .. ".png"
    local code, out = testing.shell(("SDL_VIDEODRIVER=offscreen CRAFTY_SAVES=%s CRAFTY_AUTOSTART=42 %s run %s --frames 20 "
      .. "--screenshot %s --width 320 --height 180"):format(testing.quote(path), testing.quote(tycho.executable),
      testing.quote(dir), testing.quote(shot)))
    if out:find("running headless", 1, true) then
      removeStore(path)
      return pending("no GL 4.5 here: " .. out)
    end
    assert.equals(0, code, out)
    local img = assert(tycho.image.load(shot))
    local seen, distinct = {}, 0
    for i = 1, #img.pixels, 4 * 37 do
      local k = img.pixels:sub(i, i + 2)
      if not seen[k] then seen[k], distinct = true, distinct + 1 end
    end
    assert.is_true(distinct > 20, "only " .. distinct .. " colours")
    os.remove(shot)
    removeStore(path)
  end)
end)

local input = tycho.input

-- Runs crafty in-process (headless) with env over the environment.
local function startGame(env, frames)
  local getenv = os.getenv
  os.getenv = function(k) return env[k] or getenv(k) end -- luacheck: ignore
  local ok, engine = pcall(testing.runGame, dir, frames)
  os.getenv = getenv -- luacheck: ignore
  assert.truthy(ok, engine)
  return engine
end

-- One frame as `tycho run` makes it: the sample point, this frame's events, the step.
local function frame(engine, events)
  input.beginFrame()
  if events then events() end
  engine:step(1 / 60)
end

-- What a keyboard delivers for typed text: a key-down per character (Shift held for
-- capitals and "!"), and the text only while text input is on.
local keyOf = { [" "] = "space", ["!"] = "1", [","] = "," }
local function typeKeys(str)
  for _, code in utf8.codes(str) do
    local c = utf8.char(code)
    local key = keyOf[c] or (#c == 1 and c:lower()) or "e"
    local shift = c ~= c:lower() or c == "!"
    if shift then input.inject({ type = "keydown", key = "left shift" }) end
    input.inject({ type = "keydown", key = key })
    input.injectText(c)
    input.inject({ type = "keyup", key = key })
    if shift then input.inject({ type = "keyup", key = "left shift" }) end
  end
end
local function press(key)
  input.inject({ type = "keydown", key = key })
  input.inject({ type = "keyup", key = key })
end

describe("crafty typing", function()
  before_each(function() input.reset() end)
  after_each(function() input.reset() end)

  it("sends a chat line exactly as typed: Shift, punctuation, order, backspace on an accent", function()
    local path = tmp()
    local engine = startGame({ CRAFTY_SAVES = path, CRAFTY_AUTOSTART = "4711", CRAFTY_VIEW = "2" }, 5)
    local game = engine.crafty
    assert.equals("playing", game.state)
    assert.is_false(input.isTextInputActive(), "no text input while walking")
    local sent = {}
    game.net = { players = {}, say = function(_, message) sent[#sent + 1] = message end, sendPose = function() end,
      sendInventory = function() end, close = function() end }

    frame(engine, function() typeKeys("t") end)
    assert.equals("", game.typing, "T opens the chat; its own 't' is not typed")
    assert.is_true(input.isTextInputActive())
    local p = game.player
    local x, z = p.x, p.z
    -- The whole line in one frame (the old key reading gave "ehlloow dlr"), then an
    -- accent and a backspace that must take both of its bytes, then the rest.
    frame(engine, function() typeKeys("Hello, Wé") end)
    assert.equals("Hello, Wé", game.typing)
    frame(engine, function() press("backspace") end)
    assert.equals("Hello, W", game.typing)
    frame(engine, function() typeKeys("orld!") end)
    assert.equals("Hello, World!", game.typing)
    assert.same({ x, z }, { p.x, p.z }, "typing w, a, s, d does not walk")
    frame(engine, function() press("return") end)
    assert.same({ "Hello, World!" }, sent)
    assert.is_nil(game.typing)
    assert.is_false(input.isTextInputActive())

    -- Esc drops a line; single-player chat shows what was typed.
    game.net = nil
    frame(engine, function() typeKeys("t") end)
    frame(engine, function() typeKeys("never sent") end)
    frame(engine, function() press("escape") end)
    assert.equals("playing", game.state, "Esc closed the chat, not the world")
    frame(engine, function() typeKeys("t") end)
    frame(engine, function()
      typeKeys("Ünïcode, ok?")
      press("return") -- in the same frame as the text: the text still counts
    end)
    assert.equals("you: Ünïcode, ok?", game.chat[#game.chat])
    assert.same({ "Hello, World!" }, sent)
    game.leave()
    removeStore(path)
  end)

  it("names a new world as typed on the start screen", function()
    local path = tmp()
    local engine = startGame({ CRAFTY_SAVES = path, CRAFTY_VIEW = "2" }, 2)
    local game = engine.crafty
    assert.equals("menu", game.state)
    frame(engine, function() typeKeys("n") end)
    assert.is_table(game.naming)
    assert.equals("", game.naming.name, "the N that opened the field is not in the name")
    assert.is_true(input.isTextInputActive())
    frame(engine, function() typeKeys("Mañana Hillsñ") end)
    frame(engine, function()
      press("backspace")
      typeKeys("!")
    end)
    assert.equals("Mañana Hills!", game.naming.name)
    frame(engine, function() press("return") end)
    assert.equals("playing", game.state)
    assert.equals("Mañana Hills!", game.record.name)
    assert.equals("creative", game.record.gameMode)
    assert.is_false(input.isTextInputActive())
    game.leave()
    local store = assert(tycho.storage.open(path))
    assert.equals("Mañana Hills!", store:list()[1].name)
    store:close()

    -- Esc backs out without a world; an empty name takes the default shown.
    frame(engine, function() typeKeys("s") end)
    frame(engine, function() press("escape") end)
    assert.is_nil(game.naming)
    assert.equals("menu", game.state)
    assert.is_falsy(engine.quitting, "Esc closed the field, not the game")
    frame(engine, function() typeKeys("s") end)
    local default = game.naming.default
    frame(engine, function() press("return") end)
    assert.equals("playing", game.state)
    assert.equals(default, game.record.name)
    assert.equals("survival", game.record.gameMode)
    game.leave()
    removeStore(path)
  end)
end)

describe("crafty multiplayer", function()
  it("the server's world is the client's: server/modules/crafty.lua sees World's blocks for a seed", function()
    -- The module in this Lua state (never started: no host, no storage), asked cell by cell.
    local Server = dofile(tycho.home .. "/server/modules/crafty.lua")
    for _, seed in ipairs({ 1234, "meadow", 2.5 }) do
      local record = tycho.storage.createSavedWorld("Same", seed)
      record.edits = { { x = 3, y = 50, z = 3, type = 0 }, { x = -7, y = 60, z = 12, type = blocks.BRICK },
        { x = 20, y = 44, z = -1, type = blocks.GLASS } }
      local room = assert(Server.newRoom(record))
      local client = World.new(seed)
      client:applyEdits(record.edits)
      local logs, differ = 0, 0
      for x = -16, 31 do
        for z = -16, 15 do
          for y = -1, World.CY + 1 do
            local b = client:get(x, y, z)
            if b ~= Server.blockAt(room, x, y, z) then differ = differ + 1 end
            if b == blocks.LOG then logs = logs + 1 end
          end
        end
      end
      assert.equals(0, differ, "seed " .. tostring(seed))
      assert.is_true(logs > 0, "no tree in the compared area of seed " .. tostring(seed))
      assert.equals(blocks.BRICK, Server.blockAt(room, -7, 60, 12))
    end
    -- A seed no client can use is refused with a message, not a broken room.
    local room, err = Server.newRoom({ id = "w", seed = 0 / 0, edits = {} })
    assert.is_nil(room)
    assert.truthy(err:find("seed", 1, true), err)
  end)

  it("joins a world on a real `tycho serve` and sees another client's edit at once", function()
    local H = dofile(tycho.home .. "/tests/server/harness.lua")
    local Net = require("net")
    local data = H.tempDir()
    H.with(tycho.home .. "/server/modules", data, function(s)
      local url = "ws://127.0.0.1:" .. s.port
      local function pump(cond)
        for _ = 1, 500 do
          if cond() then return true end
          tycho.net.update(0.01)
        end
        error("timed out", 2)
      end
      local seen = {}
      local a = assert(Net.connect(url, "ada", "key-a", { onWorlds = function(w) seen.aWorlds = w end,
        onWelcome = function(msg) seen.aWelcome = msg end, onLost = function(m) seen.aLost = m end }))
      pump(function() return seen.aWorlds end)
      a:createWorld("Shared", 2024, "creative")
      pump(function() return seen.aWorlds and #seen.aWorlds == 1 end)
      local worldId = seen.aWorlds[1].id
      a:join(worldId)
      pump(function() return seen.aWelcome end)
      -- A builds its world from the welcome (seed + edit log) and goes live.
      local worldA = World.new(seen.aWelcome.world.seed)
      worldA:applyEdits(seen.aWelcome.world.edits)
      a:start({ applyEdit = function(x, y, z, t) worldA:set(x, y, z, t) end })

      local b = assert(Net.connect(url, "bob", "key-b", { onWorlds = function(w) seen.bWorlds = w end,
        onWelcome = function(msg) seen.bWelcome = msg end }))
      pump(function() return seen.bWorlds end)
      b:join(worldId)
      pump(function() return seen.bWelcome end)
      local errors = {}
      b:start({ applyEdit = function() end, onError = function(code) errors[#errors + 1] = code end })
      assert.equals(1, #seen.bWelcome.players) -- ada is there
      -- Bob stands on the ground and breaks the natural block under his feet: the server
      -- generates the same terrain, so it knows the block is there.
      local ground = worldA:chunk(0, 0):top(10, 10)
      assert.are_not.equal(0, worldA:get(10, ground, 10))
      b.sendAt = -1
      b:sendPose({ x = 10.5, y = ground + 1, z = 10.5, yaw = 0, pitch = 0 })
      pump(function()
        local p = next(a.players) and a.players[next(a.players)]
        return p and p.samples[#p.samples].x == 10.5
      end)
      b:sendEdit("break", 10, ground, 10, 0)
      pump(function() return a.edits >= 1 or #errors > 0 end)
      assert.same({}, errors)
      assert.equals(0, worldA:get(10, ground, 10))
      assert.equals(1, #worldA.edits)
      -- Ada sees Bob as a player she can draw, interpolated from his poses.
      local x = Net.interpolate(a.players[next(a.players)], tycho.now() + 1)
      assert.near(10.5, x, 1e-6)
      a:close()
      b:close()
      pump(function() return a.state == "closed" and b.state == "closed" end)
    end)
    H.removeTree(data)
  end)
end)

-- The strings crafty's UI queued during one frame (tycho.draw.text, shadows counted once).
local function drawnTexts(engine, events)
  local texts, seen = {}, {}
  local real = tycho.draw.text
  tycho.draw.text = function(s, ...) -- luacheck: ignore
    if not seen[s] then seen[s], texts[#texts + 1] = true, s end
    return real(s, ...)
  end
  local ok, err = pcall(frame, engine, events)
  tycho.draw.text = real -- luacheck: ignore
  assert(ok, err)
  return table.concat(texts, "\n")
end

describe("crafty start screen", function()
  local UI = require("ui")
  before_each(function() input.reset() end)
  after_each(function() input.reset() end)

  it("counts in words: 1 edit, 2 edits, 1 player online, nothing online when none", function()
    assert.equals("1 edit", UI.count(1, "edit"))
    assert.equals("0 edits", UI.count(0, "edit"))
    assert.equals("2 edits", UI.count(2, "edit"))
    local line = UI.worldLine({ gameMode = "creative", seed = 7, editCount = 1, online = 1 })
    assert.truthy(line:find("1 edit", 1, true) and not line:find("1 edits", 1, true), line)
    assert.truthy(line:find("1 player online", 1, true), line)
    line = UI.worldLine({ gameMode = "survival", seed = 7, editCount = 3, online = 0 })
    assert.truthy(line:find("3 edits", 1, true), line)
    assert.is_nil(line:find("online", 1, true), "0 players is not online: " .. line)
    assert.truthy(UI.worldLine({ seed = 1, online = 2 }):find("2 players online", 1, true))
  end)

  it("says what to do where a list is empty", function()
    assert.truthy(UI.emptyList(nil):find("press N", 1, true))
    assert.truthy(UI.emptyList("on ws://x"):find("No worlds on this server yet", 1, true))
    assert.truthy(UI.emptyList("on ws://x"):find("press N", 1, true))
    assert.is_nil(UI.emptyList("on ws://x", true):find("No worlds", 1, true), "not while the list is on its way")
  end)

  it("projects a point in the world to the screen as the camera sees it", function()
    -- Looking down -Z from the origin: straight ahead is the centre; right is +X, up is +Y.
    local x, y, d = UI.project(0, 0, 0, 0, 0, 70, 800, 600, 0, 0, -10)
    assert.near(400, x, 1e-6)
    assert.near(300, y, 1e-6)
    assert.near(10, d, 1e-6)
    x, y = UI.project(0, 0, 0, 0, 0, 70, 800, 600, 1, 1, -10)
    assert.is_true(x > 400 and y < 300)
    -- At the edge of the vertical field of view: the top of the screen.
    _, y = UI.project(0, 0, 0, 0, 0, 90, 800, 600, 0, 10, -10)
    assert.near(0, y, 1e-6)
    assert.is_nil(UI.project(0, 0, 0, 0, 0, 70, 800, 600, 0, 0, 10), "behind the eye")
    -- Turned a quarter left (yaw pi/2 looks down -X): a point at -X is straight ahead.
    x, y = UI.project(5, 5, 5, math.pi / 2, 0, 70, 800, 600, -5, 5, 5)
    assert.near(400, x, 1e-6)
    assert.near(300, y, 1e-6)
    -- Pitched up: a point above is ahead.
    x, y = UI.project(0, 0, 0, 0, math.pi / 2, 70, 800, 600, 0, 10, 0)
    assert.near(400, x, 1e-6)
    assert.near(300, y, 1e-6)
  end)

  it("asks before removing a world: Delete or Y removes it, any other key keeps it", function()
    local path = tmp()
    local engine = startGame({ CRAFTY_SAVES = path, CRAFTY_VIEW = "2" }, 2)
    local game = engine.crafty
    for i = 1, 2 do
      game.newWorld("creative", 100 + i, "Doomed " .. i)
      game.leave()
    end
    assert.equals(2, #game.worlds)
    frame(engine, function() press("delete") end)
    assert.is_table(game.confirmDelete, "Delete asks first")
    assert.equals(2, #game.worlds, "nothing removed yet")
    local shown = drawnTexts(engine)
    assert.truthy(shown:find("Delete or Y removes it", 1, true), shown)
    frame(engine, function() press("x") end)
    assert.is_nil(game.confirmDelete)
    assert.equals(2, #game.worlds, "another key keeps it")
    frame(engine, function() press("delete") end)
    frame(engine, function() press("escape") end)
    assert.equals(2, #game.worlds, "Esc cancels")
    assert.is_falsy(engine.quitting, "the Esc that cancelled does not quit")
    local first = game.worlds[1].id
    frame(engine, function() press("delete") end)
    frame(engine, function() press("delete") end)
    assert.equals(1, #game.worlds, "Delete twice removes it")
    assert.are_not.equal(first, game.worlds[1].id)
    frame(engine, function() press("delete") end)
    frame(engine, function() press("y") end)
    assert.equals(0, #game.worlds, "Delete then Y removes it")
    shown = drawnTexts(engine)
    assert.truthy(shown:find("No saved worlds yet", 1, true), shown)
    game.store:close()
    removeStore(path)
  end)

  it("keeps the player's name, typed on the start screen, across runs", function()
    local path = tmp()
    local engine = startGame({ CRAFTY_SAVES = path, CRAFTY_VIEW = "2", USER = "login" }, 2)
    local game = engine.crafty
    assert.equals("login", game.playerName, "the login name until one is chosen")
    frame(engine, function() typeKeys("p") end)
    assert.is_table(game.namingPlayer)
    assert.is_true(input.isTextInputActive())
    for _ = 1, 5 do frame(engine, function() press("backspace") end) end
    frame(engine, function() typeKeys("  Ada Ñ  ") end)
    frame(engine, function() press("return") end)
    assert.is_nil(game.namingPlayer)
    assert.equals("Ada Ñ", game.playerName, "trimmed")
    assert.truthy(drawnTexts(engine):find("you: Ada Ñ", 1, true))
    -- A blank name is refused with a reason, and the old one stays.
    frame(engine, function() typeKeys("p") end)
    for _ = 1, 10 do frame(engine, function() press("backspace") end) end
    frame(engine, function() typeKeys("   ") end)
    frame(engine, function() press("return") end)
    assert.equals("Ada Ñ", game.playerName)
    assert.truthy(game.message and game.message:find("not changed", 1, true), game.message)
    -- At most 24 bytes go in.
    frame(engine, function() typeKeys("p") end)
    frame(engine, function() typeKeys(string.rep("x", 40)) end)
    assert.equals(24, #game.namingPlayer.name)
    frame(engine, function() press("escape") end)
    assert.equals("Ada Ñ", game.playerName, "Esc keeps the old name")
    assert.is_falsy(engine.quitting)
    game.store:close()

    local again = startGame({ CRAFTY_SAVES = path, CRAFTY_VIEW = "2", USER = "login" }, 1)
    assert.equals("Ada Ñ", again.crafty.playerName, "saved with the settings")
    again.crafty.store:close()
    removeStore(path)
  end)
end)

describe("crafty lobby", function()
  local Net = require("net")
  local H = dofile(tycho.home .. "/tests/server/harness.lua")
  before_each(function() input.reset() end)
  after_each(function() input.reset() end)

  -- Frames until cond() holds, letting the network answer between them.
  local function frames(engine, cond, what)
    for _ = 1, 600 do
      if cond() then return end
      frame(engine)
      tycho.net.update(0.005)
    end
    error("timed out waiting for " .. what, 2)
  end

  it("says when a server cannot be reached, and never leaves 'connecting' up", function()
    -- Port 9 (discard): nothing listens there on a test machine.
    local path = tmp()
    local engine = startGame({ CRAFTY_SAVES = path, CRAFTY_VIEW = "2", CRAFTY_SERVER = "ws://127.0.0.1:9" }, 1)
    local game = engine.crafty
    frame(engine, function() press("m") end)
    frames(engine, function() return game.net == nil end, "the failure")
    assert.truthy(game.message and game.message:find("cannot connect", 1, true), tostring(game.message))
    local shown = drawnTexts(engine)
    assert.is_nil(shown:lower():find("connecting to", 1, true), shown)
    assert.truthy(shown:find("No saved worlds yet", 1, true), "back on the local list: " .. shown)
    game.store:close()
    removeStore(path)
  end)

  it("lists a server's worlds, names the player, tags others, and Esc steps back one screen at a time", function()
    local path, data = tmp(), H.tempDir()
    H.with(tycho.home .. "/server/modules", data, function(s)
      local url = "ws://127.0.0.1:" .. s.port
      local engine = startGame({ CRAFTY_SAVES = path, CRAFTY_VIEW = "2", CRAFTY_SERVER = url, USER = "ada" }, 1)
      local game = engine.crafty
      frame(engine, function() press("m") end)
      assert.is_table(game.net)
      local shown = drawnTexts(engine)
      assert.truthy(shown:find("connecting to " .. url, 1, true), shown)
      assert.is_nil(shown:find("No worlds", 1, true), "no 'empty' while the list is on its way: " .. shown)
      frames(engine, function() return game.net.state == "lobby" end, "the world list")
      shown = drawnTexts(engine)
      assert.is_nil(shown:find("connecting", 1, true), "the list is here: " .. shown)
      assert.truthy(shown:find("on " .. url .. " as ada", 1, true), shown)
      assert.truthy(shown:find("No worlds on this server yet", 1, true), shown)
      assert.truthy(shown:find("Esc back", 1, true), shown)

      -- A world made on the server, joined with Enter.
      frame(engine, function() typeKeys("n") end)
      frame(engine, function() typeKeys("Town") end)
      frame(engine, function() press("return") end)
      frames(engine, function() return #game.worlds == 1 end, "the new world in the list")
      shown = drawnTexts(engine)
      assert.truthy(shown:find("0 edits", 1, true), shown)
      frame(engine, function() press("return") end)
      frames(engine, function() return game.state == "playing" end, "the welcome")
      local worldId = game.record.id

      -- Bob joins and stands in front of Ada: both see the other's name.
      local seen = {}
      local bob = assert(Net.connect(url, " bob ", "key-bob", { onWorlds = function(w) seen.worlds = w end,
        onWelcome = function(msg) seen.welcome = msg end }))
      frames(engine, function() return seen.worlds end, "bob's list")
      bob:join(worldId)
      frames(engine, function() return seen.welcome end, "bob's welcome")
      bob:start({ applyEdit = function() end })
      assert.equals("ada", seen.welcome.players[1].name)
      local p = game.player
      p.pitch = 0
      local dx, _, dz = p:look()
      bob.sendAt = -1
      local bx, bz = p.x + dx * 6, p.z + dz * 6
      bob:sendPose({ x = bx, y = p.y, z = bz, yaw = 0, pitch = 0 })
      frames(engine, function()
        local other = next(game.net.players) and game.net.players[next(game.net.players)]
        local last = other and other.samples[#other.samples]
        return last and last.x == bx and last.z == bz and (game.avatars or {})[other.id]
      end, "bob's avatar")
      H.sleep(2 * Net.INTERP_DELAY) -- remote players are drawn that far behind
      frame(engine)
      shown = drawnTexts(engine)
      assert.truthy(shown:find("\nbob\n", 1, true) or shown:find("^bob\n") or shown:find("\nbob$"),
        "bob's name tag (trimmed by the server): " .. shown)
      -- Turned away, no tag.
      p.yaw = p.yaw + math.pi
      shown = drawnTexts(engine)
      assert.is_nil(shown:find("\nbob\n", 1, true), shown)

      -- Esc: back to the server's list, still connected; bob sees Ada leave.
      frame(engine, function() press("escape") end)
      frames(engine, function() return game.state == "menu" end, "the menu")
      assert.is_table(game.net, "still on the server")
      frames(engine, function() return #game.worlds == 1 and game.worlds[1].online == 1 end, "the fresh list")
      shown = drawnTexts(engine)
      assert.truthy(shown:find("Town", 1, true), shown)
      assert.truthy(shown:find("1 player online", 1, true), shown)
      frames(engine, function() return next(bob.players) == nil end, "bob seeing ada leave")
      -- Joining again works (the server let go of this player's key).
      frame(engine, function() press("return") end)
      frames(engine, function() return game.state == "playing" end, "the second welcome")
      frame(engine, function() press("escape") end)
      frames(engine, function() return game.state == "menu" and game.net and game.net.state == "lobby" end, "the list again")
      -- Esc from the list: the local saves, disconnected; the remote world is not among them.
      frame(engine, function() press("escape") end)
      assert.is_nil(game.net)
      assert.is_falsy(engine.quitting)
      assert.equals(0, #game.worlds)
      shown = drawnTexts(engine)
      assert.truthy(shown:find("No saved worlds yet", 1, true), shown)
      frame(engine, function() press("escape") end)
      assert.is_true(engine.quitting, "Esc on the local list quits")
      bob:close()
      game.store:close()
    end)
    H.removeTree(data)
    removeStore(path)
  end)
end)

describe("crafty thumbnails", function()
  it("takes a world's thumbnail from its last view, when Esc leaves it", function()
    -- Under the offscreen driver: look at the ground, then straight up at the plain sky
    -- and press Esc well before any timer could have taken a picture; the saved thumbnail
    -- is that sky (few colours), not the ground of the first frames.
    local path, script = tmp(), tmp() .. ".lua"
    local f = assert(io.open(script, "w"))
    f:write(([[
      package.path = %q .. "/?.lua;" .. package.path
      local engine = tycho.engine
      local n = 0
      -- Registered before crafty's hooks: the key lands in the frame crafty reads it.
      engine:beforeFrame(function()
        n = n + 1
        local game = engine.crafty
        if n == 4 then game.player.pitch = -1.5 end
        if n == 12 then game.player.pitch = 1.55 end
        if n == 16 then tycho.input.inject({ type = "keydown", key = "escape" }) end
        if n == 17 then tycho.input.inject({ type = "keyup", key = "escape" }) end
        if n == 20 then engine:quit() end
      end)
      dofile(%q .. "/main.lua")
    ]]):format(dir, dir))
    f:close()
    local code, out = testing.shell(("SDL_VIDEODRIVER=offscreen CRAFTY_SAVES=%s CRAFTY_AUTOSTART=42 CRAFTY_VIEW=2 %s run %s "
      .. "--no-watch --width 320 --height 180"):format(testing.quote(path), testing.quote(tycho.executable),
      testing.quote(script)))
    os.remove(script)
    if out:find("running headless", 1, true) then
      removeStore(path)
      return pending("no GL 4.5 here: " .. out)
    end
    assert.equals(0, code, out)
    local store = assert(tycho.storage.open(path))
    local list = store:list()
    assert.equals(1, #list, out)
    local png = store:load(list[1].id).screenshot
    store:close()
    assert.is_string(png, "a thumbnail was taken on leaving")
    local file = os.tmpname() .. ".png"
    local out2 = assert(io.open(file, "wb"))
    out2:write(png)
    out2:close()
    local img = assert(tycho.image.load(file))
    os.remove(file)
    assert.equals(160, img.width)
    local seen, distinct = {}, 0
    for i = 1, #img.pixels, 4 do
      local k = img.pixels:sub(i, i + 2)
      if not seen[k] then seen[k], distinct = true, distinct + 1 end
    end
    assert.is_true(distinct <= 8, distinct .. " colours: not the plain sky of the last view (HUD hidden)")
    removeStore(path)
  end)
end)
