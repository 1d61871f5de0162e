-- server/modules/crafty.lua: a game module tycho ships as an example, not part of the
-- engine: the server half of examples/crafty, written against the public host API alone
-- (host.storage, Room, tycho.terrain) as any game's module would be, and installed with
-- the other bundled modules so `tycho serve` has something to serve out of the box.
--
-- It serves /crafty, the voxel sandbox's multiplayer (protocol
-- version 1, scripts/docs/server.md "The crafty protocol"). A lobby (hello, list_worlds,
-- create_world, join_world, and leave_world back to it), one Room per world loaded lazily
-- from host.storage on its first join (at most 200 players each), validated transforms (one
-- `players` list per world at 15 Hz, fanned out from C), block edits
-- (checked against the world the players see: the seed's terrain from tycho.terrain, the
-- generator the client draws, plus the edit log; applied and broadcast at once), chat and
-- inventories, player names (trimmed, checked). Worlds and per-player records (keyed by
-- playerKey) are saved every 5 s when dirty, when a world's last player leaves, and in
-- onStop, all of a round in one transaction; one save that fails is logged and never stops
-- the others. An edit is committed to
-- the store before it is broadcast. Under `tycho serve --redis` the module is one of a
-- cluster's processes (tycho.server.cluster, scripts/docs/server.md "Past one process"). A save writes the
-- record's fields and the edits since the last one (saveMeta), never the whole log; a room
-- keeps its log packed (16 bytes an edit) and stays loaded ROOM_IDLE s after its last player
-- leaves. World creation is limited per playerKey and per address, and the creator may
-- delete a world. While the store cannot be opened every request that needs it is answered
-- storage_failed and opening is retried. All state lives in the module table M, so a hot
-- reload (scripts/docs/reload.md) keeps rooms, members and the lobby, and runs the new code
-- at once.
local Room = require("tycho.server.room")
local Text = require("tycho.server.text")
local Cluster = require("tycho.server.cluster")

local array = tycho.json.array -- lists go out as JSON arrays even when empty

local PROTOCOL_VERSION = 1
local SAVE_INTERVAL = 5          -- seconds between saves of dirty worlds and players
local TRANSFORM_INTERVAL = 1 / 15 -- `players` fan-out, per world
local MAX_PLAYERS = 200          -- players per world (world_full): bounds one world's flush
local REACH = 8                  -- blocks from the player's last position to an edited block's centre
local MIN_Y, MAX_Y = 0, 255      -- where edits may go (terrain fills 0..tycho.terrain.CY - 1; above is air)
local MAX_XZ = 1 << 24           -- horizontal bound (|x|, |z|)
local MAX_BLOCK_TYPE = 255
local EDIT_RATE, EDIT_BURST = 20, 20 -- block edits per second per player (token bucket)
local CHAT_RATE, CHAT_BURST = 2, 5
local MAX_CHAT = 256
local MAX_NAME = 24              -- bytes of a player name, after trimming
local MAX_WORLD_NAME = 64
local MAX_STACKS, MAX_STACK_COUNT, HOTBAR_SLOTS = 36, 64, 9
local GAME_MODES = { creative = true, survival = true }
local CREATE_RATE, CREATE_BURST = 0.5, 3 -- create_world per second per client (token bucket)
local MAX_WORLDS = 256           -- worlds per server
local MAX_WORLDS_PER_KEY = 8     -- worlds one playerKey may have created (and not deleted)
-- Worlds created from one address (players behind one NAT share it). Behind a proxy every
-- player has the proxy's address: CRAFTY_WORLDS_PER_ADDRESS sets it there (0: no limit).
local MAX_WORLDS_PER_ADDRESS = math.tointeger(tonumber(os.getenv("CRAFTY_WORLDS_PER_ADDRESS") or "")) or 32
local JOIN_RATE, JOIN_BURST = 0.5, 5 -- join_world per second per client (token bucket)
local LIST_RATE, LIST_BURST = 1, 3   -- list_worlds per second per client (token bucket)
local LIST_STALE = 2             -- seconds a world list may lag the worlds' edit counts
local ROOM_IDLE = 60             -- seconds a world stays loaded after its last player left
local STORAGE_RETRY = 5          -- seconds between two tries to open a store that failed
local OWNERS_BLOB = "crafty.owners" -- host.storage blob: JSON {worldId = {key, address, name}}
local MAX_SPEED = 30             -- blocks per second a player may move
local MOVE_SLACK = 4             -- blocks allowed on top of MAX_SPEED * elapsed (jitter, bursts)
local SPAWN_RADIUS = 128         -- the first transform from the world's spawn may settle this far
                                 -- (the client drops its player onto the terrain around it)
local EDIT_CHUNK = 1024          -- edits per welcome/edits message (5 values each: under the 10,000-value decode limit)
local RECORD = "<i4i4i4i4"       -- one edit in a room's log: x, y, z, type (storage's packedEdits)
local RECORD_SIZE = 16
local FEED_INTERVAL = 0.02       -- seconds between two `edits` chunks to one joiner
local COMMIT_INTERVAL = 0.001    -- edits are committed in groups once a host tick (about 10 ms)
local COMMIT_RETRY = 1           -- seconds before a group whose commit failed is tried again
local REPORT_INTERVAL = 1        -- seconds between two reports of the loaded worlds to /_monitor

-- Module state: fields of M, so that a reload's new code reads the same rooms and lobby.
local M = {
  rooms = {},         -- worldId -> room
  clients = {},       -- session id -> client
  lobby = Room.new(), -- clients that said hello and are in no world
  feeding = {},       -- client -> true while it has a feed (the rest of a long edit log to send)
  -- host: set by onStart; storage: the store once opened (see store());
  -- listText: the encoded world_list until something in it changes (see listChanged)
}

local function nowMs()
  return os.time() * 1000
end

local function refuse(client, code, message)
  client.session:send({ t = "error", code = code, message = message })
end

local mathType, HUGE = math.type, math.huge
local type, now = type, tycho.now -- upvalues: read on every message (a reload runs this again)

-- A player's movement state, what every transform and flush reads and writes, is one small
-- list (player.mv, also client.mv while in a world): its array part is a few cache lines in
-- a row, where the player's own fields are spread over a node array of ~16 slots, each read
-- its own cache miss when a thousand players share the cores.
local X <const>, Y <const>, Z <const>, YAW <const>, PITCH <const> = 1, 2, 3, 4, 5
local AT <const> = 6      -- when the last position was accepted (tycho.now)
local SETTLED <const> = 7 -- false while the first move from the spawn may settle (SPAWN_RADIUS)
local QUEUED <const> = 8  -- in room.movers for the next flush
local MOVED <const> = 9   -- moved since its last save (the player is dirty: see playerDirty)
local ID <const> = 10     -- the player's id (its session's)

local function newMoves(id, x, y, z, yaw, pitch, at, settled)
  return { x, y, z, yaw, pitch, at, settled, false, false, id }
end

local function isFiniteNumber(v)
  return mathType(v) ~= nil and v == v and v ~= HUGE and v ~= -HUGE
end

-- An integer, or an integral float (JSON `1.0`), as an integer; nil otherwise.
local function toInteger(v)
  return math.type(v) and math.tointeger(v) or nil
end

-- Only for cells in the world (|x|, |z| < MAX_XZ, MIN_Y <= y <= MAX_Y): keys collide outside.
local function blockKey(x, y, z)
  return ((x + MAX_XZ) * 256 + y) * (1 << 26) + (z + MAX_XZ)
end

-- A token bucket: true when one more event fits in `rate` per second with bursts of `burst`.
local function take(bucket, rate, burst)
  local t = now()
  bucket.tokens = math.min(burst, bucket.tokens + (t - bucket.at) * rate)
  bucket.at = t
  if bucket.tokens < 1 then return false end
  bucket.tokens = bucket.tokens - 1
  return true
end

local function newBucket(burst) return { tokens = burst, at = tycho.now() } end

-- The client's (or player's) bucket `name`, made full on first use: a bucket is full when its
-- owner arrives, so making it late changes nothing, and an idle connection keeps none.
local function bucket(client, name, burst)
  local b = client[name]
  if not b then
    b = newBucket(burst)
    client[name] = b
  end
  return b
end

-- ---- the store ----

-- host.storage, or nil, message while it cannot be opened (damaged, read-only, a folder that
-- refuses access). A failed open is retried at most every STORAGE_RETRY s, and logged when
-- its reason changes (crafty_storage_failed) and when the store opens again.
local function store()
  if M.storage then return M.storage end
  local now = tycho.now()
  if M.storageError and now - (M.storageTriedAt or 0) < STORAGE_RETRY then return nil, M.storageError end
  M.storageTriedAt = now
  local ok, storage = pcall(function() return M.host.storage end)
  if ok and storage then
    if M.storageError then M.host:log("crafty_storage_open: the worlds store opens again") end
    M.storage, M.storageError = storage, nil
    return storage
  end
  local err = tostring(storage)
  if err ~= M.storageError then M.host:log("crafty_storage_failed: " .. err) end
  M.storageError = err
  return nil, err
end

-- The message a client gets while the store cannot be opened (the reason, with its path, is
-- in the log).
local STORAGE_DOWN = "the server cannot open its worlds store; it retries every " .. STORAGE_RETRY .. " s"

-- storage[method](storage, ...) in a transaction of its own, so that its commit is not
-- fsynced on the server's loop (as the tick's saves), then a checkpoint asked of the store's
-- writer thread, which makes it durable off the loop moments later. Returns the method's
-- results, or nil, message when the transaction failed (nothing written).
local function offLoop(storage, method, ...)
  local args, results = table.pack(...), nil
  local ok, err = storage:transaction(function(s) results = table.pack(s[method](s, table.unpack(args, 1, args.n))) end)
  if not ok then return nil, err end
  storage:checkpoint()
  return table.unpack(results, 1, results.n)
end

-- The store's owners map (worldId -> {key, address, name}), read once; nil, message when the
-- store cannot be read.
local function owners(storage)
  if M.owners then return M.owners end
  local ok, bytes, err = pcall(storage.getBlob, storage, OWNERS_BLOB)
  if not ok or (bytes == nil and err) then return nil, tostring(ok and err or bytes) end
  local decoded, map = pcall(tycho.json.decode, bytes or "{}")
  M.owners = decoded and type(map) == "table" and map or {} -- unreadable: nobody owns anything
  return M.owners
end

local function saveOwners(storage)
  local ok, saved, err = pcall(offLoop, storage, "putBlob", OWNERS_BLOB, tycho.json.encode(M.owners))
  if ok and saved then return true end
  return nil, tostring(ok and err or saved)
end

-- ---- worlds and rooms ----

local function worldSummary(world, editCount, online, owner)
  return {
    id = world.id, name = world.name, seed = world.seed, gameMode = world.gameMode,
    createdAt = world.createdAt, lastPlayedAt = world.lastPlayedAt,
    editCount = editCount or 0, online = online or 0, owner = owner,
  }
end

-- Something a world_list shows changed: a world made, deleted, joined or left (the next list
-- is built again), or only an edit count (soft: the list is built again once it is
-- LIST_STALE s old, so that worlds being built in do not make every request build one).
local function listChanged(soft)
  if soft then M.listStale = true else M.listText = nil end
end

-- The world_list message as JSON text, built once per change (a list of 256 worlds is ~70 KB
-- to encode), or nil, message when the store cannot be read. Also sets M.listed (id -> true).
local function worldListText()
  if M.listText and not (M.listStale and tycho.now() - (M.listBuiltAt or 0) >= LIST_STALE) then return M.listText end
  local storage, err = store()
  if not storage then return nil, err end
  local ok, listed, lerr = pcall(storage.list, storage)
  if not (ok and listed) then return nil, tostring(ok and lerr or listed) end
  local map = owners(storage) or {}
  local worlds, ids = array(), {}
  for _, w in ipairs(listed) do
    local room = M.rooms[w.id]
    local owner = map[w.id]
    ids[w.id] = true
    -- A loaded world is newer in memory than on disk.
    worlds[#worlds + 1] = worldSummary(room and room.world or w, room and room.editCount or w.editCount,
      room and room.members.count or (M.cluster and M.cluster:onlineIn(w.id)) or 0,
      type(owner) == "table" and owner.name or nil)
  end
  M.listText, M.listed, M.listCount = tycho.json.encode({ t = "world_list", worlds = worlds }), ids, #listed
  M.listStale, M.listBuiltAt = false, tycho.now()
  return M.listText
end

-- Sends the world list, or storage_failed.
local function sendList(client)
  local text, err = worldListText()
  if not text then
    M.host:log("crafty_list_failed: " .. tostring(err))
    return refuse(client, "storage_failed", STORAGE_DOWN)
  end
  client.session:sendText(text)
end

-- The world list to everyone in the lobby (one encoding for all).
local function broadcastList()
  local text = worldListText()
  if not text then return end
  for _, session in pairs(M.lobby.members) do session:sendText(text) end
end

-- Writes a dirty world: its record's fields and the edits made since the last save
-- (saveMeta: the log is never rewritten). True when written or clean; a failure (returned or
-- raised) is logged. Only once the transaction holding it commits is the room marked saved.
local function writeRoom(storage, room)
  if not room.dirty then return true end
  if M.cluster and not M.cluster:holds(room.world.id) then -- fencing: never write a world run elsewhere
    M.host:log("crafty_save_refused world " .. tostring(room.world.id) .. ": this process no longer holds its lease")
    return false
  end
  local ok, saved, err = pcall(storage.saveMeta, storage, room.world, room.unsaved)
  if not (ok and saved) then
    M.host:log("crafty_save_failed world " .. tostring(room.world.id) .. ": " .. tostring(ok and err or saved))
    return false
  end
  return true
end

-- A player to save: its inventory changed, or it moved, since its last save.
local function playerDirty(p)
  return p.dirty or p.mv[MOVED]
end

local function writePlayer(storage, room, player)
  if not playerDirty(player) then return true end
  local mv = player.mv
  local record = { x = mv[X], y = mv[Y], z = mv[Z], yaw = mv[YAW], pitch = mv[PITCH], inventory = player.inventory }
  local ok, saved, err = pcall(storage.savePlayer, storage, room.world.id, player.key, record)
  if not (ok and saved) then
    M.host:log("crafty_save_failed player " .. tostring(player.key) .. ": " .. tostring(ok and err or saved))
    return false
  end
  return true
end

-- Saves the dirty rooms of the list rooms and the dirty players of the list players ({room,
-- player} pairs) in one transaction of the store (storage:transaction): each write succeeds
-- or fails alone, logged, and all of them reach the file in one commit, without fsync (kept
-- through a kill -9, on disk at the next checkpoint; see storage.md). One commit and one round
-- of sqlite's file locks a tick, instead of one per room and per player. Returns the set of
-- rooms and players saved (committed); the others stay dirty, their edits kept for the next.
local function saveTogether(rooms, players)
  local written = {}
  local storage, serr = store()
  local ok, committed, err = false, nil, serr
  if storage then
    ok, committed, err = pcall(storage.transaction, storage, function()
      for _, room in ipairs(rooms) do written[room] = writeRoom(storage, room) or nil end
      for _, pair in ipairs(players) do written[pair[2]] = writePlayer(storage, pair[1], pair[2]) or nil end
    end)
  end
  if not (ok and committed) then -- nothing of the transaction was saved
    err = tostring(ok and err or committed)
    for _, room in ipairs(rooms) do
      if room.dirty then M.host:log("crafty_save_failed world " .. tostring(room.world.id) .. ": " .. err) end
    end
    for _, pair in ipairs(players) do
      if playerDirty(pair[2]) then M.host:log("crafty_save_failed player " .. tostring(pair[2].key) .. ": " .. err) end
    end
    return {}
  end
  for _, room in ipairs(rooms) do
    if written[room] and room.dirty then
      if #room.unsaved > 0 then room.appended = true end
      room.unsaved = {}
      room.dirty = false
    end
  end
  for _, pair in ipairs(players) do
    if written[pair[2]] then pair[2].dirty, pair[2].mv[MOVED] = false, false end
  end
  return written
end

local NONE = {}

local function saveRoom(room)
  return not room.dirty or saveTogether({ room }, NONE)[room] == true
end

local function inWorld(x, y, z)
  return x > -MAX_XZ and x < MAX_XZ and z > -MAX_XZ and z < MAX_XZ and y >= MIN_Y and y <= MAX_Y
end

-- ---- the packed edit log ----
-- room.log[k] is a string of up to EDIT_CHUNK records (RECORD: x, y, z, type), edits
-- (k - 1) * EDIT_CHUNK + 1 .. k * EDIT_CHUNK, so chunk k is exactly what the k-th welcome or
-- `edits` message carries; room.editCount counts them and room.blocks maps a cell's key to
-- its edit's index. ~16 bytes an edit plus the index, against ~200 for a table per edit.

local function chunkOf(i) return (i - 1) // EDIT_CHUNK + 1, (i - 1) % EDIT_CHUNK * RECORD_SIZE end

-- Edits (a packed string of records, or a list of {x, y, z, type}) into room.log and its index.
local function fillLog(room, edits)
  local log, blocks, n = {}, {}, 0
  if type(edits) == "string" then
    n = #edits // RECORD_SIZE
    for k = 1, (n + EDIT_CHUNK - 1) // EDIT_CHUNK do
      log[k] = edits:sub((k - 1) * EDIT_CHUNK * RECORD_SIZE + 1, k * EDIT_CHUNK * RECORD_SIZE)
    end
    local unpack = string.unpack
    for i = 1, n do
      local x, y, z = unpack("<i4i4i4", edits, (i - 1) * RECORD_SIZE + 1)
      if inWorld(x, y, z) then blocks[blockKey(x, y, z)] = i end
    end
  else
    local parts = {}
    for i, e in ipairs(edits or {}) do
      local k = chunkOf(i)
      parts[k] = parts[k] or {}
      parts[k][#parts[k] + 1] = string.pack(RECORD, e.x, e.y, e.z, e.type)
      if inWorld(e.x, e.y, e.z) then blocks[blockKey(e.x, e.y, e.z)] = i end
      n = i
    end
    for k, p in ipairs(parts) do log[k] = table.concat(p) end
  end
  room.log, room.blocks, room.editCount = log, blocks, n
end

-- Chunk k of the log as a list of {x, y, z, type} (what goes out on the wire).
local function chunkEdits(room, k)
  local c, out = room.log[k] or "", array()
  local unpack = string.unpack
  for off = 1, #c, RECORD_SIZE do
    local x, y, z, t = unpack(RECORD, c, off)
    out[#out + 1] = { x = x, y = y, z = z, type = t }
  end
  return out
end

-- A room for a loaded world: its members and players, the packed edit log indexed by cell,
-- the edits not saved yet, and its terrain (the seed's natural blocks, generated per chunk
-- and cached). world.edits may be packed (storage's packedEdits) or a list; the room's copy
-- of the record keeps no edits. nil, message when the world's seed cannot make terrain (a record imported
-- with a seed no client could use).
local function newRoom(world)
  local ok, terrain = pcall(tycho.terrain.new, world.seed)
  if not ok then return nil, "world " .. tostring(world.id) .. " has an unusable seed: " .. tostring(terrain) end
  local record = {} -- the world without its edits (the log holds them)
  for k, v in pairs(world) do
    if k ~= "edits" then record[k] = v end
  end
  local room = { world = record, terrain = terrain, members = Room.new(), players = {}, keys = {}, unsaved = {},
    dirty = false, idleSince = tycho.now(), movers = { n = 0 }, last = {} }
  -- movers: movement states (player.mv) to flush, movers.n of them (no # on every move: a list
  -- that grows has no border at its size, and # searches for one); last: playerKey -> its player
  fillLog(room, world.edits)
  return room
end
M.newRoom = newRoom

-- nil, code, message when the world cannot be loaded.
local function loadRoom(worldId)
  if M.cluster and not M.cluster:holds(worldId) then
    return nil, "world_moved", "this world runs on another process now; join it again"
  end
  local room = M.rooms[worldId]
  if room then return room end
  local storage, serr = store()
  if not storage then return nil, "storage_failed", STORAGE_DOWN, serr end
  local ok, world, err = pcall(storage.load, storage, worldId, { packedEdits = true })
  if not ok then world, err = nil, world end
  if not world then
    if err then return nil, "storage_failed", "the world could not be read", tostring(err) end
    return nil, "no_such_world", "no world with id " .. Text.clip(worldId, 64)
  end
  room, err = newRoom(world)
  if not room then return nil, "bad_world", err end
  M.rooms[worldId] = room
  M.host:log(("crafty_room_loaded %s: %d edits, module memory %d KiB"):format(worldId, room.editCount,
    collectgarbage("count") // 1))
  return room
end

-- The block at a cell of the world the players see: the latest edit there, else the seed's
-- terrain (the generator the client draws, engine/terrain/). Air outside the world.
local function blockAt(room, x, y, z)
  if not inWorld(x, y, z) then return 0 end -- outside the world (and its keys): air
  local i = room.blocks[blockKey(x, y, z)]
  if i then
    local k, off = chunkOf(i)
    return (string.unpack("<i4", room.log[k], off + 13))
  end
  -- A room made by code before a hot reload has no terrain yet.
  room.terrain = room.terrain or tycho.terrain.new(room.world.seed)
  return room.terrain:block(x, y, z)
end
M.blockAt = blockAt

local function isSolid(room, x, y, z)
  return blockAt(room, x, y, z) ~= 0
end

-- A later edit of a cell replaces the earlier one's type in its place (as storage does).
local function applyEdit(room, x, y, z, type)
  local key = blockKey(x, y, z)
  local record = string.pack(RECORD, x, y, z, type)
  local i = room.blocks[key]
  if i then
    local k, off = chunkOf(i)
    local c = room.log[k]
    room.log[k] = c:sub(1, off) .. record .. c:sub(off + RECORD_SIZE + 1)
  else
    i = room.editCount + 1
    local k = chunkOf(i)
    room.log[k] = (room.log[k] or "") .. record
    room.editCount, room.blocks[key] = i, i
    listChanged(true) -- editCount
  end
  room.unsaved[#room.unsaved + 1] = { x = x, y = y, z = z, type = type }
  room.dirty = true
end

local function playerInfo(p)
  local mv = p.mv
  return { playerId = p.id, name = p.name, x = mv[X], y = mv[Y], z = mv[Z], yaw = mv[YAW], pitch = mv[PITCH] }
end

-- ---- leaving ----

-- Takes the client out of its world first, then saves (which may fail and is only logged).
local function leaveWorld(client)
  local room = client.room
  if not room then return end
  local player = room.players[client.session.id]
  room.members:remove(client.session.id)
  room.players[client.session.id] = nil
  if player and room.keys[player.key] == client.session.id then room.keys[player.key] = nil end
  client.room, client.player, client.mv, client.feed = nil, nil, nil, nil
  if player then player.mv[QUEUED] = false end -- the next flush skips it
  if player then room.members:broadcast({ t = "player_leave", playerId = player.id }) end
  -- The player saved now, and the world with it when it is left empty (cheap: no log
  -- rewrite); it is unloaded by unloadIdle once idle for ROOM_IDLE s, so that players coming
  -- and going do not load the world each time.
  local empty = room.members.count == 0
  if (player and playerDirty(player)) or (empty and room.dirty) then
    saveTogether(empty and { room } or NONE, player and { { room, player } } or NONE)
  end
  if empty then room.idleSince = tycho.now() end
  listChanged() -- online
end

-- ---- handlers ----

local handlers = {}

function handlers.list_worlds(client)
  if not take(bucket(client, "listBucket", LIST_BURST), LIST_RATE, LIST_BURST) then
    return refuse(client, "too_fast", "at most " .. LIST_BURST .. " world lists at once, then one every "
      .. (1 / LIST_RATE) .. " s")
  end
  sendList(client)
end

function handlers.create_world(client, msg)
  local name, seed, mode = msg.name, msg.seed, msg.gameMode or "creative"
  if type(name) ~= "string" or #name < 1 or #name > MAX_WORLD_NAME then
    return refuse(client, "bad_world", "name must be a string of 1.." .. MAX_WORLD_NAME .. " bytes")
  end
  if not ((type(seed) == "string" and #seed <= 64) or isFiniteNumber(seed)) then
    return refuse(client, "bad_world", "seed must be a finite number or a string of at most 64 bytes")
  end
  if type(mode) ~= "string" or not GAME_MODES[mode] then
    return refuse(client, "bad_world", "gameMode must be \"creative\" or \"survival\"")
  end
  if not take(bucket(client, "createBucket", CREATE_BURST), CREATE_RATE, CREATE_BURST) then
    return refuse(client, "too_fast", "at most " .. CREATE_BURST .. " new worlds at once, then one every "
      .. (1 / CREATE_RATE) .. " s")
  end
  local storage = store()
  local map = storage and owners(storage)
  if not (map and worldListText()) then return refuse(client, "storage_failed", STORAGE_DOWN) end
  if M.listCount >= MAX_WORLDS then
    return refuse(client, "too_many_worlds", "this server keeps at most " .. MAX_WORLDS .. " worlds")
  end
  -- Quotas count the worlds still there that this playerKey, or this address, created.
  local byKey, byAddress = 0, 0
  for id, o in pairs(map) do
    if M.listed[id] and type(o) == "table" then
      if o.key == client.key then byKey = byKey + 1 end
      if client.address and o.address == client.address then byAddress = byAddress + 1 end
    end
  end
  if byKey >= MAX_WORLDS_PER_KEY then
    return refuse(client, "quota_exceeded", "one player may keep at most " .. MAX_WORLDS_PER_KEY
      .. " worlds; delete one first")
  end
  if MAX_WORLDS_PER_ADDRESS > 0 and byAddress >= MAX_WORLDS_PER_ADDRESS then
    return refuse(client, "quota_exceeded", "at most " .. MAX_WORLDS_PER_ADDRESS .. " worlds from one address")
  end
  local world = tycho.storage.createSavedWorld(name, seed, mode)
  local ok, saved, err = pcall(offLoop, storage, "save", world)
  if not (ok and saved) then
    M.host:log("crafty_save_failed world " .. world.id .. ": " .. tostring(ok and err or saved))
    return refuse(client, "storage_failed", "the world could not be saved")
  end
  map[world.id] = { key = client.key, address = client.address, name = client.name }
  local owned, oerr = saveOwners(storage)
  if not owned then -- a world nobody owns would escape the quotas: undo it
    map[world.id] = nil
    pcall(offLoop, storage, "delete", world.id)
    M.host:log("crafty_save_failed owners: " .. tostring(oerr))
    return refuse(client, "storage_failed", "the world could not be saved")
  end
  listChanged()
  broadcastList()
  if M.cluster then M.cluster:listChanged() end
end

-- The creator of a world (its playerKey) may delete it while nobody plays in it.
function handlers.delete_world(client, msg)
  if type(msg.worldId) ~= "string" then return refuse(client, "bad_message", "worldId must be a string") end
  local storage = store()
  local map = storage and owners(storage)
  if not (map and worldListText()) then return refuse(client, "storage_failed", STORAGE_DOWN) end
  local id = msg.worldId
  if not M.listed[id] then return refuse(client, "no_such_world", "no world with id " .. id:sub(1, 40)) end
  local owner = map[id]
  if type(owner) ~= "table" or owner.key ~= client.key then
    return refuse(client, "not_owner", "only the player who created a world may delete it")
  end
  local room = M.rooms[id]
  if (room and room.members.count > 0) or (M.cluster and M.cluster:onlineIn(id) > 0) then
    return refuse(client, "world_in_use", "players are in this world; it can be deleted when it is empty")
  end
  local ok, deleted, err = pcall(offLoop, storage, "delete", id)
  if not ok or deleted == nil then
    M.host:log("crafty_delete_failed world " .. id .. ": " .. tostring(ok and err or deleted))
    return refuse(client, "storage_failed", "the world could not be deleted")
  end
  M.rooms[id] = nil -- an idle room goes unsaved: there is nothing left to save it to
  if M.cluster then M.cluster:release(id) end
  map[id] = nil
  local owned, oerr = saveOwners(storage)
  if not owned then M.host:log("crafty_save_failed owners: " .. tostring(oerr)) end -- a stale entry counts nothing
  listChanged()
  broadcastList()
  if M.cluster then M.cluster:listChanged() end
end

-- Joins the world on this process (alone, or the one that holds its lease).
local function joinHere(client, msg)
  local room, code, message, detail = loadRoom(msg.worldId)
  if not room then
    if detail then M.host:log("crafty_load_failed world " .. msg.worldId:sub(1, 40) .. ": " .. detail) end
    return refuse(client, code, message)
  end
  local online = room.keys[client.key]
  if online and room.players[online] then
    return refuse(client, "already_online", "this playerKey is already playing in this world")
  end
  if room.members.count >= MAX_PLAYERS then
    return refuse(client, "world_full", "this world has its " .. MAX_PLAYERS .. " players; try again later")
  end
  local world = room.world
  local storage = store()
  local okp, saved, perr = false, nil, nil
  if storage then okp, saved, perr = pcall(storage.loadPlayer, storage, world.id, client.key) end
  if not okp or (saved == nil and perr) then
    M.host:log("crafty_load_failed player " .. tostring(client.key) .. ": " .. tostring(okp and perr or saved))
    return refuse(client, "storage_failed", STORAGE_DOWN)
  end
  local inv = saved and saved.inventory
  if type(inv) == "table" then
    if type(inv.stacks) == "table" then array(inv.stacks) end
    if type(inv.hotbar) == "table" then array(inv.hotbar) end
  end
  -- Where this playerKey last was in this world: in memory while the room is loaded (newer
  -- than a save that failed or is still queued), else its saved record, else the spawn.
  room.last = room.last or {} -- a room made before a hot reload
  local last, x, y, z, yaw, pitch = room.last[client.key], nil, nil, nil, nil, nil
  if last then
    local mv = last.mv
    x, y, z, yaw, pitch = mv[X], mv[Y], mv[Z], mv[YAW], mv[PITCH]
  else
    local from = saved or world.player
    x, y, z, yaw, pitch = from.x, from.y, from.z, from.yaw, from.pitch
  end
  local spawn = world.player
  local player = {
    id = client.session.id, key = client.key, name = client.name,
    inventory = saved and saved.inventory or nil, dirty = false,
    -- The last accepted position's time, and whether it may still settle (SPAWN_RADIUS): only
    -- from the spawn, so a leave and join again never skips the speed check.
    mv = newMoves(client.session.id, x, y, z, yaw, pitch, now(),
      not (x == spawn.x and y == spawn.y and z == spawn.z)),
  }
  local others = array()
  for _, p in pairs(room.players) do others[#others + 1] = playerInfo(p) end
  table.sort(others, function(a, b) return a.playerId < b.playerId end)
  world.lastPlayedAt = nowMs()
  room.dirty = true
  room.idleSince = nil
  listChanged() -- online, lastPlayedAt
  M.lobby:remove(client.session.id)
  room.players[player.id] = player
  room.keys[player.key] = player.id
  room.last[player.key] = player
  room.members:add(client.session)
  client.room, client.player, client.mv = room, player, player.mv
  local record = {}
  for k, v in pairs(world) do
    if k ~= "screenshot" then record[k] = v end -- PNG bytes are not JSON; clients keep their own
  end
  -- A long edit log goes out in chunks (welcome's world.edits, then `edits` messages with
  -- more = true until the last), paced by feedEdits so that neither the server's send queue
  -- nor the client's largest message is passed. Chunks are read from the live log when sent.
  record.edits = chunkEdits(room, 1)
  local more = room.editCount > EDIT_CHUNK
  if more then
    client.feed = { room = room, chunk = 2 }
    M.feeding[client] = true
  end
  client.session:send({
    t = "welcome", playerId = player.id, world = record, players = others, more = more or nil,
    you = { x = x, y = y, z = z, yaw = yaw, pitch = pitch, inventory = player.inventory },
  })
  room.members:broadcast({ t = "player_join", playerId = player.id, name = player.name, x = x, y = y,
    z = z, yaw = yaw, pitch = pitch }, player.id)
end

function handlers.join_world(client, msg)
  if client.room then return refuse(client, "already_in_world", "leave (reconnect) before joining another world") end
  if type(msg.worldId) ~= "string" then return refuse(client, "bad_message", "worldId must be a string") end
  if not take(bucket(client, "joinBucket", JOIN_BURST), JOIN_RATE, JOIN_BURST) then
    return refuse(client, "too_fast", "at most " .. JOIN_BURST .. " joins at once, then one every "
      .. (1 / JOIN_RATE) .. " s")
  end
  if not M.cluster then return joinHere(client, msg) end
  local edge = client.session.edge -- a stand-in: its own process routed it here
  if edge and M.cluster:holds(msg.worldId) then return joinHere(client, msg) end
  -- A stand-in whose process learnt that this one won the world's lease (its open came over
  -- the relay) before this one heard so from its own claim (another connection) asks Redis
  -- too, which answers in order: "local" then, and world_moved only when another process
  -- holds it; the stand-in stays (joined says so) until the answer.
  if client.routing then return refuse(client, "too_fast", "a join is under way") end
  client.routing = true
  M.cluster:route(msg.worldId, function(where, err)
    client.routing = nil
    if M.clients[client.session.id] ~= client or client.room or client.relay then return end
    if where == "local" then
      joinHere(client, msg)
      if not M.rooms[msg.worldId] then M.cluster:release(msg.worldId) end -- no such world, or unreadable
    elseif edge then
      refuse(client, "world_moved", "this world runs on another process now; join it again")
    elseif not where then
      return refuse(client, "world_unavailable", err)
    else
      M.lobby:remove(client.session.id)
      return M.cluster:attach(client, where, msg) -- its messages go to the world's process from now on
    end
    -- a stand-in's join answered after its open: outside a world, it goes back to its process
    if edge and not client.room then M.cluster:giveBack(client.session) end
  end)
end

-- Back to the lobby from a world: the others see player_leave, the client gets the list.
function handlers.leave_world(client)
  if not client.room then return refuse(client, "not_in_world", "join a world first") end
  leaveWorld(client)
  M.lobby:add(client.session)
  sendList(client)
end

-- The most frequent message of all (M.onMessage takes it straight here): its fields are read
-- once into locals and checked in this order (the first that is not a finite number is the
-- one the error names). mv is the player's movement state (newMoves); the checks are
-- expressions, not calls: v - v is 0 for a finite number, NaN for inf and NaN.
local function move(client, mv, msg)
  local x, y, z, yaw, pitch = msg.x, msg.y, msg.z, msg.yaw, msg.pitch
  local bad = not (type(x) == "number" and x - x == 0) and "x" or not (type(y) == "number" and y - y == 0) and "y"
    or not (type(z) == "number" and z - z == 0) and "z" or not (type(yaw) == "number" and yaw - yaw == 0) and "yaw"
    or not (type(pitch) == "number" and pitch - pitch == 0) and "pitch"
  if bad then return refuse(client, "bad_transform", bad .. " must be a finite number") end
  -- No math.abs: math.abs(math.mininteger) is negative.
  if not (x > -MAX_XZ and x < MAX_XZ and z > -MAX_XZ and z < MAX_XZ and y >= MIN_Y - 64 and y <= MAX_Y + 64) then
    return refuse(client, "out_of_bounds", "position outside the world")
  end
  if not (yaw > -1e6 and yaw < 1e6 and pitch > -1e6 and pitch < 1e6) then
    return refuse(client, "bad_transform", "yaw and pitch must be angles in radians")
  end
  -- Movement is measured from the last accepted position: at most MAX_SPEED blocks a second
  -- plus MOVE_SLACK. A player at the world's spawn (a first visit) may settle within
  -- SPAWN_RADIUS once (the client puts itself on the terrain below or around the spawn).
  local t = now()
  local dx, dy, dz = x - mv[X], y - mv[Y], z - mv[Z]
  local allowed = mv[SETTLED] and (MAX_SPEED * (t - mv[AT]) + MOVE_SLACK) or SPAWN_RADIUS
  if dx * dx + dy * dy + dz * dz > allowed * allowed then
    return refuse(client, "too_fast_move", "moved faster than " .. MAX_SPEED .. " blocks a second")
  end
  mv[X], mv[Y], mv[Z], mv[YAW], mv[PITCH], mv[AT], mv[SETTLED], mv[MOVED] = x, y, z, yaw, pitch, t, true, true
  if not mv[QUEUED] then -- into room.movers for the next flush
    mv[QUEUED] = true
    local room = client.room
    local movers = room.movers
    local n = movers.n + 1
    movers.n, movers[n] = n, mv
    if not room.flusher then
      room.flusher = M.host:every(TRANSFORM_INTERVAL, function() M.flushRoom(room) end)
    end
  end
end

function handlers.transform(client, msg)
  local mv = client.mv
  if not mv then return refuse(client, "not_in_world", "join a world first") end
  return move(client, mv, msg)
end

function handlers.block_edit(client, msg)
  local player, room = client.player, client.room
  if not player then return refuse(client, "not_in_world", "join a world first") end
  local x, y, z = toInteger(msg.x), toInteger(msg.y), toInteger(msg.z)
  local action = msg.action
  if not (x and y and z) then return refuse(client, "bad_edit", "x, y and z must be integers") end
  if action ~= "place" and action ~= "break" then
    return refuse(client, "bad_edit", "action must be \"place\" or \"break\"")
  end
  local blockType = 0
  if action == "place" then
    blockType = toInteger(msg.type)
    if not blockType or blockType < 1 or blockType > MAX_BLOCK_TYPE then
      return refuse(client, "bad_edit", "type must be an integer block type 1.." .. MAX_BLOCK_TYPE)
    end
  end
  if not inWorld(x, y, z) then -- no math.abs: math.abs(math.mininteger) is negative
    return refuse(client, "out_of_bounds", "block outside the world")
  end
  local mv = player.mv
  local dx, dy, dz = x + 0.5 - mv[X], y + 0.5 - mv[Y], z + 0.5 - mv[Z]
  if dx * dx + dy * dy + dz * dz > REACH * REACH then
    return refuse(client, "out_of_reach", "the block is more than " .. REACH .. " blocks away")
  end
  if action == "place" then
    if isSolid(room, x, y, z) then return refuse(client, "occupied", "there is a block there already") end
    if not (isSolid(room, x - 1, y, z) or isSolid(room, x + 1, y, z) or isSolid(room, x, y - 1, z)
          or isSolid(room, x, y + 1, z) or isSolid(room, x, y, z - 1) or isSolid(room, x, y, z + 1)) then
      return refuse(client, "not_adjacent", "a block must be placed against another block")
    end
  elseif not isSolid(room, x, y, z) then
    return refuse(client, "nothing_there", "there is no block there to break")
  end
  if not take(bucket(player, "editBucket", EDIT_BURST), EDIT_RATE, EDIT_BURST) then
    return refuse(client, "rate_limited", "at most " .. EDIT_RATE .. " edits a second")
  end
  applyEdit(room, x, y, z, blockType)
  -- Durable before anyone sees it: broadcast once its group is committed (M.commitEdits).
  local pending = room.pendingEdits
  if not pending then pending = {}; room.pendingEdits = pending end
  pending[#pending + 1] = { t = "block_edit", x = x, y = y, z = z, type = blockType, author = player.id }
  M.committing = M.committing or {}
  M.committing[room] = true
end

function handlers.chat(client, msg)
  local player = client.player
  if not player then return refuse(client, "not_in_world", "join a world first") end
  if type(msg.message) ~= "string" or #msg.message < 1 or #msg.message > MAX_CHAT or not utf8.len(msg.message) then
    return refuse(client, "bad_chat", "message must be a string of 1.." .. MAX_CHAT .. " bytes")
  end
  if not take(bucket(player, "chatBucket", CHAT_BURST), CHAT_RATE, CHAT_BURST) then return refuse(client, "rate_limited", "too many messages") end
  client.room.members:broadcast({ t = "chat", from = player.name, playerId = player.id, message = msg.message })
end

-- Reads {stacks = {{blockType, count}}, hotbar = {types}}: counts are capped, the rest refused.
local function readInventory(msg)
  local stacks, hotbar = msg.stacks, msg.hotbar
  if type(stacks) ~= "table" or type(hotbar) ~= "table" then return nil, "stacks and hotbar must be arrays" end
  if #stacks > MAX_STACKS or #hotbar > HOTBAR_SLOTS then
    return nil, ("at most %d stacks and %d hotbar slots"):format(MAX_STACKS, HOTBAR_SLOTS)
  end
  local out = { stacks = array(), hotbar = array() }
  for i, s in ipairs(stacks) do
    local t, n = type(s) == "table" and toInteger(s.blockType), type(s) == "table" and toInteger(s.count)
    if not (t and n) or t < 1 or t > MAX_BLOCK_TYPE or n < 0 then
      return nil, "stacks[" .. i .. "] must be {blockType = 1.." .. MAX_BLOCK_TYPE .. ", count >= 0}"
    end
    out.stacks[i] = { blockType = t, count = math.min(n, MAX_STACK_COUNT) }
  end
  for i = 1, #hotbar do
    local t = toInteger(hotbar[i])
    if not t or t < 0 or t > MAX_BLOCK_TYPE then return nil, "hotbar[" .. i .. "] must be a block type" end
    out.hotbar[i] = t
  end
  return out
end

function handlers.inventory(client, msg)
  local player = client.player
  if not player then return refuse(client, "not_in_world", "join a world first") end
  if client.room.world.gameMode == "creative" then return end -- creative inventories are unlimited: nothing to keep
  local inv, err = readInventory(msg)
  if not inv then return refuse(client, "bad_inventory", err) end
  player.inventory, player.dirty = inv, true
end

-- A player name as shown to others: trimmed, 1..MAX_NAME bytes of UTF-8, no control
-- characters (C0, DEL, C1). Returns it, or nil.
local function cleanName(name)
  if type(name) ~= "string" then return nil end
  name = name:match("^%s*(.-)%s*$")
  if #name < 1 or #name > MAX_NAME or not utf8.len(name) then return nil end
  if name:find("[%c\127]") or name:find("\194[\128-\159]") then return nil end
  return name
end

local function hello(client, msg)
  if toInteger(msg.version) ~= PROTOCOL_VERSION then
    return refuse(client, "bad_version", "this server speaks crafty protocol version " .. PROTOCOL_VERSION)
  end
  if type(msg.playerKey) ~= "string" or #msg.playerKey < 1 or #msg.playerKey > 128 then
    return refuse(client, "bad_hello", "playerKey must be a string of 1..128 bytes")
  end
  local name = cleanName(msg.name)
  if not name then
    return refuse(client, "bad_hello", "name must be 1.." .. MAX_NAME
      .. " bytes of UTF-8 with no control characters (spaces at either end are trimmed)")
  end
  client.key, client.name = msg.playerKey, name
  M.lobby:add(client.session)
  -- While the store cannot be opened the client stays in the lobby and gets storage_failed;
  -- a list_worlds later tries again.
  sendList(client)
end

function M.onMessage(client, msg)
  -- A player in a world here (client.mv) is never relayed and has said hello: a transform
  -- goes straight to its handler, past the checks below that it passes.
  local mv = client.mv
  if mv and type(msg) == "table" and msg.t == "transform" then return move(client, mv, msg) end
  if client.relay then -- in a world another process runs: it answers, except leave_world
    if type(msg) == "table" and msg.t == "leave_world" then
      M.cluster:detach(client)
      M.lobby:add(client.session)
      return sendList(client)
    end
    return M.cluster:forward(client, msg)
  end
  if type(msg) ~= "table" or type(msg.t) ~= "string" then
    return refuse(client, "bad_message", "a message is a JSON object with a string field t")
  end
  if msg.t == "hello" then
    if client.key then return refuse(client, "bad_state", "hello was already said") end
    return hello(client, msg)
  end
  local handler = handlers[msg.t]
  if not handler then return refuse(client, "unknown_type", "unknown message type " .. Text.clip(msg.t, 40)) end
  if not client.key then return refuse(client, "hello_first", "say hello{playerKey, name, version} first") end
  return handler(client, msg)
end

-- ---- timers ----

-- One `players` message per world and flush with every player that moved since the last:
-- Lua builds one entry per mover and encodes once; Room:broadcast's fan-out to the members
-- is C. The whole message goes to everyone (a mover skips its own entry), so a flush costs
-- Lua instructions in proportion to the movers, not movers x members. Each world has its
-- own timer (made on its first transform), so each flush is a call of its own under the
-- host's instruction fence, bounded by MAX_PLAYERS; it stops once the room is unloaded.
function M.flushRoom(room)
  if M.rooms[room.world.id] ~= room then
    if room.flusher then room.flusher:cancel() end
    room.flusher = nil
    return
  end
  local movers = room.movers
  if movers.n == 0 then return end
  room.movers = { n = 0 }
  local list, n = array(), 0
  for i = 1, movers.n do
    local mv = movers[i]
    if mv[QUEUED] then -- not gone since (leaveWorld unqueues)
      mv[QUEUED] = false
      n = n + 1
      list[n] = { playerId = mv[ID], x = mv[X], y = mv[Y], z = mv[Z], yaw = mv[YAW], pitch = mv[PITCH] }
    end
  end
  if n > 0 then room.members:broadcast({ t = "players", players = list }) end
end

-- Every world's flush at once (the timer of code from before per-world timers calls it).
function M.flushTransforms()
  for _, room in pairs(M.rooms) do M.flushRoom(room) end
end

-- A room whose group is not committed: each editor hears once that its edit waits for the
-- store (sent once it is stored), and the group is tried again COMMIT_RETRY s after the
-- first failure.
local function waitCommit(room, now)
  room.told = room.told or {} -- edits whose editor heard it already
  for _, msg in ipairs(room.pendingEdits) do
    local author = not room.told[msg] and M.clients[msg.author]
    if author then
      refuse(author, "storage_failed", "your edit is kept and goes out once the store takes it")
      room.told[msg] = true
    end
  end
  room.commitRetryAt = room.commitRetryAt and room.commitRetryAt > now and room.commitRetryAt or now + COMMIT_RETRY
  M.committing = M.committing or {}
  M.committing[room] = true
end

-- Group commit: every room's edits since the last tick are committed, all rooms in one
-- transaction, each room's write a savepoint of its own (saveTogether; sqlite WAL, not
-- fsynced: a killed process loses nothing committed), then broadcast, so no
-- client ever sees an edit that a kill -9 could lose. A group whose commit fails waits (and
-- its edits with it) COMMIT_RETRY s for the next try; a room no longer loaded drops its group.
function M.commitEdits()
  local rooms = M.committing
  if not rooms then return end
  M.committing = nil
  local now = tycho.now()
  local ready = {}
  for room in pairs(rooms) do
    if M.rooms[room.world.id] == room and room.pendingEdits then
      if (room.commitRetryAt or 0) <= now then ready[#ready + 1] = room else waitCommit(room, now) end
    end
  end
  if #ready == 0 then return end
  local saved = saveTogether(ready, NONE)
  for _, room in ipairs(ready) do
    if saved[room] or not room.dirty then
      local pending = room.pendingEdits
      room.pendingEdits, room.commitRetryAt, room.told = nil, nil, nil
      for i = 1, #pending do room.members:broadcast(pending[i]) end
    else
      waitCommit(room, now)
    end
  end
end

-- The loaded worlds, for /_monitor (host:monitor).
function M.report()
  local rooms = array()
  for id, room in pairs(M.rooms) do
    rooms[#rooms + 1] = { id = id, name = room.world.name, players = room.members.count, edits = room.editCount }
  end
  table.sort(rooms, function(a, b) return a.id < b.id end)
  M.host:monitor({ rooms = rooms })
end

-- Sends each joiner with a long edit log its next chunk. Only the clients in M.feeding are
-- read: a walk of every client each FEED_INTERVAL would touch each one's table, cold. A client
-- whose feed is gone (done, left, closed) leaves the set.
function M.feedEdits()
  local feeding = M.feeding
  for client in pairs(feeding) do
    local feed = client.feed
    if feed and client.room == feed.room and feed.chunk then
      local more = feed.chunk < #feed.room.log
      client.session:send({ t = "edits", edits = chunkEdits(feed.room, feed.chunk), more = more })
      feed.chunk = feed.chunk + 1
      if not more then client.feed, feeding[client] = nil, nil end
    else
      client.feed, feeding[client] = nil, nil
    end
  end
end

-- Every dirty room and player is saved, in one transaction (saveTogether): one that fails is
-- logged and the rest go on. Then the writer thread is asked for a checkpoint, so that what
-- was committed reaches the disk within about SAVE_INTERVAL s, and the rooms idle for
-- ROOM_IDLE s are unloaded.
function M.saveAll()
  local rooms, players = {}, {}
  for _, room in pairs(M.rooms) do
    if room.dirty then rooms[#rooms + 1] = room end
    for _, p in pairs(room.players) do
      if playerDirty(p) then players[#players + 1] = { room, p } end
    end
  end
  if #rooms > 0 or #players > 0 then
    saveTogether(rooms, players)
    if M.storage then pcall(M.storage.checkpoint, M.storage) end
  end
  M.unloadIdle()
end

-- Unloads the rooms nobody has played in for ROOM_IDLE s once they are saved; a room whose
-- edits were appended since it was loaded has them folded into its packed log first
-- (compact), so that the journal stays short. A room whose save fails stays.
function M.unloadIdle()
  local now = tycho.now()
  for id, room in pairs(M.rooms) do
    if room.members.count == 0 and room.idleSince and now - room.idleSince >= ROOM_IDLE and saveRoom(room) then
      if room.appended then
        local ok, folded, err = pcall(offLoop, M.storage, "compact", id)
        if not ok or folded == nil then M.host:log("crafty_compact_failed world " .. id .. ": " .. tostring(ok and err or folded)) end
      end
      M.rooms[id] = nil
      if M.cluster then M.cluster:release(id) end
    end
  end
end

-- What tycho.server.cluster asks of the module (see tycho.ClusterApp).
local clusterApp = {
  open = function(session, key, name, msg)
    M.onConnect(session)
    local client = M.clients[session.id]
    client.key, client.name = key, name -- the edge checked them at hello
    M.onMessage(client, msg)
  end,
  deliver = function(session, msg)
    local client = M.clients[session.id]
    if client then M.onMessage(client, msg) end
  end,
  closed = function(session)
    local client = M.clients[session.id]
    if client then M.onClose(client) end
  end,
  joined = function(session)
    local client = M.clients[session.id]
    return client ~= nil and (client.room ~= nil or client.routing == true)
  end,
  detached = function(client) M.lobby:add(client.session) end,
  lost = function(worldId)
    local room = M.rooms[worldId]
    if not room then return end
    M.rooms[worldId] = nil
    for _, session in pairs(room.members.members) do
      session:close(4012, "world_moved: another process runs this world now; reconnect and join again")
    end
  end,
  presence = function()
    local worlds = {}
    for id, room in pairs(M.rooms) do
      if room.members.count > 0 then worlds[id] = room.members.count end
    end
    return worlds
  end,
  listChanged = function()
    listChanged()
    broadcastList()
  end,
}

function M.onStart(h)
  M.host = h
  M.cluster = Cluster.new(h, clusterApp) -- nil unless `tycho serve --redis`
  store() -- opened now when it can be; a failure is logged and retried on use
  -- Closures that call through M: after a reload the timers run the new code.
  h:every(SAVE_INTERVAL, function() M.saveAll() end)
  h:every(FEED_INTERVAL, function() M.feedEdits() end)
  M.commitTimer = h:every(COMMIT_INTERVAL, function() M.commitEdits() end)
  M.reportTimer = h:every(REPORT_INTERVAL, function() M.report() end)
end

-- A player made by code before the movement state (player.x, ... player.queued) gets its mv,
-- and its client with it; a room's movers become their states.
local function convertMoves(old, room)
  local function convert(p)
    if p.mv then return end
    p.mv = newMoves(p.id, p.x, p.y, p.z, p.yaw, p.pitch, p.at or tycho.now(), p.settled or false)
    p.mv[MOVED] = p.dirty or false
    p.x, p.y, p.z, p.yaw, p.pitch, p.at, p.settled = nil, nil, nil, nil, nil, nil, nil
  end
  for _, p in pairs(room.players) do convert(p) end
  for _, p in pairs(room.last or {}) do convert(p) end
  local movers = { n = 0 }
  for _, m in ipairs(room.movers or {}) do
    if m.mv then -- a player, not a state
      if m.queued and room.players[m.id] == m then
        m.mv[QUEUED] = true
        movers.n = movers.n + 1
        movers[movers.n] = m.mv
      end
      m.queued = nil
    else
      movers.n = movers.n + 1
      movers[movers.n] = m
    end
  end
  room.movers = movers
  for _, p in pairs(room.players) do p.queued = nil end
  for _, client in pairs(old.clients or {}) do
    if client.room == room and client.player then client.mv = client.player.mv end
  end
end

-- Rooms made by code before the packed log (world.edits a list) are packed in place; code from
-- before the group commit gets its timer; players from before the movement state get theirs.
function M.onReload(old, host)
  if not old.feeding then -- code from before the set: every client with a feed
    old.feeding = {}
    for _, client in pairs(old.clients or {}) do
      if client.feed then old.feeding[client] = true end
    end
  end
  if not old.commitTimer and host then
    old.commitTimer = host:every(COMMIT_INTERVAL, function() old.commitEdits() end)
  end
  if not old.reportTimer and host then
    old.reportTimer = host:every(REPORT_INTERVAL, function() old.report() end)
  end
  for _, room in pairs(old.rooms or {}) do
    if not room.log then
      fillLog(room, room.world.edits)
      room.world.edits, room.unsaved = nil, {}
      room.dirty = true
    end
    convertMoves(old, room)
  end
  old.listText = nil
end

function M.onConnect(session)
  local client = { session = session, address = session.address }
  M.clients[session.id] = client
  return {
    onMessage = function(msg) M.onMessage(client, msg) end,
    onClose = function() M.onClose(client) end,
  }
end

-- Forgets the client before anything that can fail (leaveWorld's saves only log).
function M.onClose(client)
  if client.relay then M.cluster:detach(client) end
  local id = client.session.id
  M.clients[id] = nil
  M.lobby:remove(id)
  leaveWorld(client)
end

function M.onStop()
  M.saveAll()
  if M.cluster then M.cluster:stop() end
end

return M
