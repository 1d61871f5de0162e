-- server/modules/crafty.lua: serves /crafty, the voxel sandbox's multiplayer (protocol
-- version 1, scripts/docs/server.md "The crafty protocol"). A lobby (hello, list_worlds,
-- create_world, join_world, and leave_world back to it), one Room per world loaded lazily
-- from host.storage on its first join (at most 200 players each), validated transforms (one
-- `players` list per world at 15 Hz, fanned out from C), block edits
-- (checked against the world the players see: the seed's terrain from tycho.terrain, the
-- generator the client draws, plus the edit log; applied and broadcast at once), chat and
-- inventories, player names (trimmed, checked). Worlds and per-player records (keyed by
-- playerKey) are saved every 5 s when dirty, when a world's last player leaves, and in
-- onStop; one save that fails is logged and never stops the others. All state lives in the
-- module table M, so a hot reload (scripts/docs/reload.md) keeps rooms, members and the
-- lobby, and runs the new code at once.
local Room = require("tycho.server.room")
local Text = require("tycho.server.text")

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
local MAX_SPEED = 30             -- blocks per second a player may move
local MOVE_SLACK = 4             -- blocks allowed on top of MAX_SPEED * elapsed (jitter, bursts)
local SPAWN_RADIUS = 128         -- the first transform from the world's spawn may settle this far
                                 -- (the client drops its player onto the terrain around it)
local EDIT_CHUNK = 1024          -- edits per welcome/edits message (5 values each: under the 10,000-value decode limit)
local FEED_INTERVAL = 0.02       -- seconds between two `edits` chunks to one joiner

-- Module state: fields of M, so that a reload's new code reads the same rooms and lobby.
local M = {
  rooms = {},         -- worldId -> room
  clients = {},       -- session id -> client
  lobby = Room.new(), -- clients that said hello and are in no world
  -- host, storage: set by onStart
}

local function nowMs()
  return os.time() * 1000
end

local function refuse(client, code, message)
  client.session:send({ t = "error", code = code, message = message })
end

local function isFiniteNumber(v)
  return math.type(v) ~= nil and v == v and v ~= math.huge and v ~= -math.huge
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
  local now = tycho.now()
  bucket.tokens = math.min(burst, bucket.tokens + (now - bucket.at) * rate)
  bucket.at = now
  if bucket.tokens < 1 then return false end
  bucket.tokens = bucket.tokens - 1
  return true
end

local function newBucket(burst) return { tokens = burst, at = tycho.now() } end

-- ---- worlds and rooms ----

local function worldSummary(world, online)
  return {
    id = world.id, name = world.name, seed = world.seed, gameMode = world.gameMode,
    createdAt = world.createdAt, lastPlayedAt = world.lastPlayedAt,
    editCount = world.editCount or (world.edits and #world.edits) or 0, online = online or 0,
  }
end

local function worldList()
  local worlds = array()
  local listed = M.storage:list()
  for _, w in ipairs(listed or {}) do
    local room = M.rooms[w.id]
    -- A loaded world is newer in memory than on disk.
    worlds[#worlds + 1] = worldSummary(room and room.world or w, room and room.members.count or 0)
  end
  return { t = "world_list", worlds = worlds }
end

-- Saves a dirty world; a failure (returned or raised) is logged and leaves it dirty.
local function saveRoom(room)
  if not room.dirty then return true end
  local ok, saved, err = pcall(M.storage.save, M.storage, room.world)
  if not (ok and saved) then
    M.host:log("crafty_save_failed world " .. tostring(room.world.id) .. ": " .. tostring(ok and err or saved))
    return false
  end
  room.dirty = false
  return true
end

local function savePlayer(room, player)
  if not player.dirty then return true end
  local record = { x = player.x, y = player.y, z = player.z, yaw = player.yaw, pitch = player.pitch,
    inventory = player.inventory }
  local ok, saved, err = pcall(M.storage.savePlayer, M.storage, room.world.id, player.key, record)
  if not (ok and saved) then
    M.host:log("crafty_save_failed player " .. tostring(player.key) .. ": " .. tostring(ok and err or saved))
    return false
  end
  player.dirty = false
  return true
end

local function inWorld(x, y, z)
  return x > -MAX_XZ and x < MAX_XZ and z > -MAX_XZ and z < MAX_XZ and y >= MIN_Y and y <= MAX_Y
end

-- A room for a loaded world: its members and players, the edit log indexed by cell, and its
-- terrain (the seed's natural blocks, generated per chunk and cached). nil, message when the
-- world's seed cannot make terrain (a record imported with a seed no client could use).
local function newRoom(world)
  local ok, terrain = pcall(tycho.terrain.new, world.seed)
  if not ok then return nil, "world " .. tostring(world.id) .. " has an unusable seed: " .. tostring(terrain) end
  array(world.edits)
  local room = { world = world, terrain = terrain, members = Room.new(), players = {}, keys = {}, blocks = {},
    dirty = false, movers = {}, last = {} } -- movers: players to flush; last: playerKey -> its player
  for i, e in ipairs(world.edits) do
    if inWorld(e.x, e.y, e.z) then room.blocks[blockKey(e.x, e.y, e.z)] = i end
  end
  return room
end
M.newRoom = newRoom

-- nil, code, message when the world cannot be loaded.
local function loadRoom(worldId)
  local room = M.rooms[worldId]
  if room then return room end
  local world, err = M.storage:load(worldId)
  if not world then
    if err then return nil, "storage_failed", tostring(err) end
    return nil, "no_such_world", "no world with id " .. Text.clip(worldId, 64)
  end
  room, err = newRoom(world)
  if not room then return nil, "bad_world", err end
  M.rooms[worldId] = room
  return room
end

-- The block at a cell of the world the players see: the latest edit there, else the seed's
-- terrain (the generator the client draws, engine/terrain/). Air outside the world.
local function blockAt(room, x, y, z)
  if not inWorld(x, y, z) then return 0 end -- outside the world (and its keys): air
  local i = room.blocks[blockKey(x, y, z)]
  if i then return room.world.edits[i].type end
  -- A room made by code before a hot reload has no terrain yet.
  room.terrain = room.terrain or tycho.terrain.new(room.world.seed)
  return room.terrain:block(x, y, z)
end
M.blockAt = blockAt

local function isSolid(room, x, y, z)
  return blockAt(room, x, y, z) ~= 0
end

local function applyEdit(room, x, y, z, type)
  local key = blockKey(x, y, z)
  local edits = room.world.edits
  local i = room.blocks[key]
  if i then
    edits[i].type = type
  else
    edits[#edits + 1] = { x = x, y = y, z = z, type = type }
    room.blocks[key] = #edits
  end
  room.dirty = true
end

local function playerInfo(p)
  return { playerId = p.id, name = p.name, x = p.x, y = p.y, z = p.z, yaw = p.yaw, pitch = p.pitch }
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
  client.room, client.player, client.feed = nil, nil, nil
  if player then
    room.members:broadcast({ t = "player_leave", playerId = player.id })
    savePlayer(room, player)
  end
  if room.members.count == 0 then
    saveRoom(room)
    if not room.dirty then M.rooms[room.world.id] = nil end -- keep it when the save failed
  end
end

-- ---- handlers ----

local handlers = {}

function handlers.list_worlds(client)
  client.session:send(worldList())
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
  if not take(client.createBucket, CREATE_RATE, CREATE_BURST) then
    return refuse(client, "too_fast", "at most " .. CREATE_BURST .. " new worlds at once, then one every "
      .. (1 / CREATE_RATE) .. " s")
  end
  if #(M.storage:list() or {}) >= MAX_WORLDS then
    return refuse(client, "too_many_worlds", "this server keeps at most " .. MAX_WORLDS .. " worlds")
  end
  local world = tycho.storage.createSavedWorld(name, seed, mode)
  local ok, err = M.storage:save(world)
  if not ok then return refuse(client, "storage_failed", tostring(err)) end
  M.lobby:broadcast(worldList())
end

function handlers.join_world(client, msg)
  if client.room then return refuse(client, "already_in_world", "leave (reconnect) before joining another world") end
  if type(msg.worldId) ~= "string" then return refuse(client, "bad_message", "worldId must be a string") end
  local room, code, message = loadRoom(msg.worldId)
  if not room then return refuse(client, code, message) end
  local online = room.keys[client.key]
  if online and room.players[online] then
    return refuse(client, "already_online", "this playerKey is already playing in this world")
  end
  if room.members.count >= MAX_PLAYERS then
    return refuse(client, "world_full", "this world has its " .. MAX_PLAYERS .. " players; try again later")
  end
  local world = room.world
  local saved = M.storage:loadPlayer(world.id, client.key)
  local inv = saved and saved.inventory
  if type(inv) == "table" then
    if type(inv.stacks) == "table" then array(inv.stacks) end
    if type(inv.hotbar) == "table" then array(inv.hotbar) end
  end
  -- Where this playerKey last was in this world: in memory while the room is loaded (newer
  -- than a save that failed or is still queued), else its saved record, else the spawn.
  room.last = room.last or {} -- a room made before a hot reload
  local from = room.last[client.key] or saved or world.player
  local spawn = world.player
  local player = {
    id = client.session.id, key = client.key, name = client.name,
    x = from.x, y = from.y, z = from.z, yaw = from.yaw, pitch = from.pitch,
    inventory = saved and saved.inventory or nil,
    editBucket = newBucket(EDIT_BURST), chatBucket = newBucket(CHAT_BURST), queued = false, dirty = false,
    -- The last accepted position's time, and whether it may still settle (SPAWN_RADIUS): only
    -- from the spawn, so a leave and join again never skips the speed check.
    at = tycho.now(), settled = not (from.x == spawn.x and from.y == spawn.y and from.z == spawn.z),
  }
  local others = array()
  for _, p in pairs(room.players) do others[#others + 1] = playerInfo(p) end
  table.sort(others, function(a, b) return a.playerId < b.playerId end)
  world.lastPlayedAt = nowMs()
  room.dirty = true
  M.lobby:remove(client.session.id)
  room.players[player.id] = player
  room.keys[player.key] = player.id
  room.last[player.key] = player
  room.members:add(client.session)
  client.room, client.player = room, player
  local record = {}
  for k, v in pairs(world) do
    if k ~= "screenshot" then record[k] = v end -- PNG bytes are not JSON; clients keep their own
  end
  -- A long edit log goes out in chunks (welcome's world.edits, then `edits` messages with
  -- more = true until the last), paced by feedEdits so that neither the server's send queue
  -- nor the client's largest message is passed. Chunks are read from the live log when sent.
  local more = #world.edits > EDIT_CHUNK
  if more then
    record.edits = array(table.move(world.edits, 1, EDIT_CHUNK, 1, {}))
    client.feed = { room = room, at = EDIT_CHUNK + 1 }
  end
  client.session:send({
    t = "welcome", playerId = player.id, world = record, players = others, more = more or nil,
    you = { x = player.x, y = player.y, z = player.z, yaw = player.yaw, pitch = player.pitch, inventory = player.inventory },
  })
  room.members:broadcast({ t = "player_join", playerId = player.id, name = player.name, x = player.x, y = player.y,
    z = player.z, yaw = player.yaw, pitch = player.pitch }, player.id)
end

-- Back to the lobby from a world: the others see player_leave, the client gets the list.
function handlers.leave_world(client)
  if not client.room then return refuse(client, "not_in_world", "join a world first") end
  leaveWorld(client)
  M.lobby:add(client.session)
  client.session:send(worldList())
end

local TRANSFORM_FIELDS = { "x", "y", "z", "yaw", "pitch" }

function handlers.transform(client, msg)
  local player = client.player
  if not player then return refuse(client, "not_in_world", "join a world first") end
  for _, k in ipairs(TRANSFORM_FIELDS) do
    if not isFiniteNumber(msg[k]) then return refuse(client, "bad_transform", k .. " must be a finite number") end
  end
  -- No math.abs: math.abs(math.mininteger) is negative.
  if not (msg.x > -MAX_XZ and msg.x < MAX_XZ and msg.z > -MAX_XZ and msg.z < MAX_XZ
        and msg.y >= MIN_Y - 64 and msg.y <= MAX_Y + 64) then
    return refuse(client, "out_of_bounds", "position outside the world")
  end
  if not (msg.yaw > -1e6 and msg.yaw < 1e6 and msg.pitch > -1e6 and msg.pitch < 1e6) then
    return refuse(client, "bad_transform", "yaw and pitch must be angles in radians")
  end
  -- Movement is measured from the last accepted position: at most MAX_SPEED blocks a second
  -- plus MOVE_SLACK. A player at the world's spawn (a first visit) may settle within
  -- SPAWN_RADIUS once (the client puts itself on the terrain below or around the spawn).
  local now = tycho.now()
  local dx, dy, dz = msg.x - player.x, msg.y - player.y, msg.z - player.z
  local allowed = player.settled and (MAX_SPEED * (now - player.at) + MOVE_SLACK) or SPAWN_RADIUS
  if dx * dx + dy * dy + dz * dz > allowed * allowed then
    return refuse(client, "too_fast_move", "moved faster than " .. MAX_SPEED .. " blocks a second")
  end
  player.at, player.settled = now, true
  player.x, player.y, player.z, player.yaw, player.pitch = msg.x, msg.y, msg.z, msg.yaw, msg.pitch
  player.dirty = true
  -- queued: in room.movers for the next flush (a new name: a player from code before a
  -- reload has none, so it is queued on its next move)
  if not player.queued then
    player.queued = true
    local room = client.room
    local movers = room.movers
    if not movers then movers = {}; room.movers = movers end -- a room made before a hot reload
    movers[#movers + 1] = player
    if not room.flusher then
      room.flusher = M.host:every(TRANSFORM_INTERVAL, function() M.flushRoom(room) end)
    end
  end
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
  local dx, dy, dz = x + 0.5 - player.x, y + 0.5 - player.y, z + 0.5 - player.z
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
  if not take(player.editBucket, EDIT_RATE, EDIT_BURST) then
    return refuse(client, "rate_limited", "at most " .. EDIT_RATE .. " edits a second")
  end
  applyEdit(room, x, y, z, blockType)
  room.members:broadcast({ t = "block_edit", x = x, y = y, z = z, type = blockType, author = player.id })
end

function handlers.chat(client, msg)
  local player = client.player
  if not player then return refuse(client, "not_in_world", "join a world first") end
  if type(msg.message) ~= "string" or #msg.message < 1 or #msg.message > MAX_CHAT or not utf8.len(msg.message) then
    return refuse(client, "bad_chat", "message must be a string of 1.." .. MAX_CHAT .. " bytes")
  end
  if not take(player.chatBucket, CHAT_RATE, CHAT_BURST) then return refuse(client, "rate_limited", "too many messages") end
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
  client.session:send(worldList())
end

function M.onMessage(client, msg)
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
  if not movers or #movers == 0 then return end
  room.movers = {}
  local list = array()
  for i = 1, #movers do
    local p = movers[i]
    p.queued = false
    if room.players[p.id] == p then -- not gone since
      list[#list + 1] = { playerId = p.id, x = p.x, y = p.y, z = p.z, yaw = p.yaw, pitch = p.pitch }
    end
  end
  if #list > 0 then room.members:broadcast({ t = "players", players = list }) end
end

-- Every world's flush at once (the timer of code from before per-world timers calls it).
function M.flushTransforms()
  for _, room in pairs(M.rooms) do M.flushRoom(room) end
end

-- Sends each joiner with a long edit log its next chunk.
function M.feedEdits()
  for _, client in pairs(M.clients) do
    local feed = client.feed
    if feed and client.room == feed.room then
      local edits = feed.room.world.edits
      local last = math.min(#edits, feed.at + EDIT_CHUNK - 1)
      local more = last < #edits
      client.session:send({ t = "edits", edits = array(table.move(edits, feed.at, last, 1, {})), more = more })
      feed.at = last + 1
      if not more then client.feed = nil end
    else
      client.feed = nil
    end
  end
end

-- Every room and player is saved on its own: one that fails is logged and the rest go on.
function M.saveAll()
  for _, room in pairs(M.rooms) do
    saveRoom(room)
    for _, p in pairs(room.players) do savePlayer(room, p) end
  end
end

function M.onStart(h)
  M.host = h
  M.storage = h.storage
  -- Closures that call through M: after a reload the timers run the new code.
  h:every(SAVE_INTERVAL, function() M.saveAll() end)
  h:every(FEED_INTERVAL, function() M.feedEdits() end)
end

function M.onConnect(session)
  local client = { session = session, createBucket = newBucket(CREATE_BURST) }
  M.clients[session.id] = client
  return {
    onMessage = function(msg) M.onMessage(client, msg) end,
    onClose = function() M.onClose(client) end,
  }
end

-- Forgets the client before anything that can fail (leaveWorld's saves only log).
function M.onClose(client)
  local id = client.session.id
  M.clients[id] = nil
  M.lobby:remove(id)
  leaveWorld(client)
end

function M.onStop()
  M.saveAll()
end

return M
