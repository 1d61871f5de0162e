-- server/modules/sync.lua: shared CRDT rooms (ws://host/sync/ROOM, binary frames of @dcl/ecs
-- CRDT messages).
--
-- Each room keeps a tycho.crdt State. A binary frame from a client is checked whole (it must
-- frame as messages the State reads without a malformed one, and name no engine entity below
-- 512), applied, answered with corrections when it held stale writes, and relayed to the
-- room's other clients when it changed the state; a refused frame changes nothing and is
-- counted and logged by reason. A joiner gets `joined` (JSON: its session id, the room and an
-- entity number block of its own for new entities), then the room's snapshot in binary frames of whole
-- messages, at most CHUNK bytes each and one per FEED_INTERVAL (the host drops a client whose
-- send queue passes --max-queue, so a large snapshot cannot go as one frame), then `synced`.
-- A room's state lives in M.host.storage as the blob "sync/ROOM": loaded when the room opens,
-- saved every few seconds while it changed, when its last client leaves and on stop, so it
-- survives restarts and empty periods. scripts/docs/sync.md "The sync server module".
-- All state lives in the module table M, so a hot reload keeps rooms and their members and
-- runs the new code for every session (scripts/docs/reload.md).
local crdt = tycho.crdt

local SAVE_SECONDS = 2
local RESERVED = 512
local BLOCK = 256 -- entity numbers handed to each client of a room for its new entities
local BLOCKS = (65536 - RESERVED) // BLOCK
local CHUNK = 64 << 10       -- bytes of one snapshot frame at most (a message longer than that goes alone)
local FEED_INTERVAL = 0.025  -- seconds between two snapshot frames to one joiner (2.5 MiB/s)
local FEED_BUDGET = 24 << 20 -- bytes of snapshots held for joiners at once; later joiners wait their turn
local BIG = 1 << 20          -- a snapshot this large is collected as soon as it is let go

local M = {
  rooms = {}, -- name -> room
  rejected = { not_binary = 0, malformed = 0, reserved_entity = 0, bad_room = 0 },
  relayed = 0,
  feeds = {},   -- joiners whose snapshot is being sent, in join order
  feedBytes = 0, -- bytes of the snapshots they hold
  -- host, feedTimer: set by onStart
}

local function blobKey(name) return "sync/" .. name end

-- "/sync/room-1" -> "room-1"; "/sync" -> "default"; nil for a name that is not 1..64 of [%w._-].
local function roomName(path)
  local rest = (path or ""):match("^/*[^/?#]+/*([^?#]*)") or ""
  rest = rest:gsub("/+$", "")
  if rest == "" then return "default" end
  if #rest > 64 or rest:find("[^%w%._%-]") then return nil end
  return rest
end

local function openRoom(name)
  local room = M.rooms[name]
  if room then return room end
  local state = crdt.new({ quiet = true })
  local saved, err = M.host.storage:getBlob(blobKey(name))
  if saved then
    state:apply(saved)
    if #saved >= BIG then
      saved = nil
      collectgarbage()
    end
  elseif err then
    M.host:log("sync_load_failed", name, err)
  end
  room = { name = name, state = state, members = {}, count = 0, dirty = false, blocks = {} }
  M.rooms[name] = room
  return room
end

local function saveRoom(room)
  if not room.dirty then return true end
  local snapshot = room.state:snapshot()
  local ok, err = M.host.storage:putBlob(blobKey(room.name), snapshot)
  -- A large snapshot is garbage now; collected at once, so that a few of them never pile up
  -- in the module's state past --max-memory before the collector comes round.
  if #snapshot >= BIG then
    snapshot = nil
    collectgarbage()
  end
  if not ok then
    M.host:log("sync_save_failed", room.name, err)
    return false
  end
  room.dirty = false
  return true
end

local function reject(session, room, reason, detail)
  M.rejected[reason] = (M.rejected[reason] or 0) + 1
  M.host:log(("sync_rejected %s: room %s, session %d: %s"):format(reason, room and room.name or "-", session.id,
    detail or reason))
  session:send({ t = "error", code = reason, message = detail or reason })
end

-- Why the frame cannot be applied as a whole, or nil. A scratch State reads it first, so a
-- refused frame leaves the room's state exactly as it was.
local function check(bytes)
  local pos, n = 1, #bytes
  if n == 0 then return "malformed", "empty frame" end
  while pos <= n do
    if n - pos + 1 < 8 then return "malformed", "truncated header" end
    local len, mtype = string.unpack("<I4I4", bytes, pos)
    if len < 8 then return "malformed", "declared length " .. len .. " below the 8-byte header" end
    if len > n - pos + 1 then return "malformed", "declared length " .. len .. " past the frame" end
    if mtype >= 1 and mtype <= 7 and len >= 12 then
      local e = string.unpack("<I4", bytes, pos + 8)
      if (e & 0xFFFF) < RESERVED then return "reserved_entity", "entity " .. e .. " belongs to the engine" end
    end
    pos = pos + len
  end
  local probe = crdt.new({ quiet = true })
  probe:apply(bytes)
  local s = probe:stats()
  if s.malformed > 0 then
    for reason, count in pairs(s.rejected) do
      if count > 0 then return "malformed", reason end
    end
    return "malformed", "malformed message"
  end
  return nil
end

local function freeBlock(room)
  for k = 0, BLOCKS - 1 do
    if not room.blocks[k] then return k end
  end
  return nil
end

-- ---- snapshots for joiners ----
-- A joiner's snapshot is taken when its feed starts and sent in frames of whole messages (each
-- a batch a client applies on its own), one per FEED_INTERVAL, so that it never passes the
-- host's send queue at once. What changes in the room meanwhile reaches the joiner as relays
-- (it is a member from the start), so snapshot and relays together give the whole state in
-- any order. Feeds start in join order while the snapshots they hold stay under FEED_BUDGET.

-- The frame of bytes that starts at pos: whole messages, at most CHUNK bytes unless the first
-- message alone is longer. Returns it and where the next one starts.
local function nextChunk(bytes, pos)
  local n, stop = #bytes, pos
  while stop <= n do
    local len = string.unpack("<I4", bytes, stop)
    if stop > pos and stop - pos + len > CHUNK then break end
    stop = stop + len
  end
  return bytes:sub(pos, stop - 1), stop
end

local function releaseFeed(feed)
  if feed.bytes then
    M.feedBytes = M.feedBytes - #feed.bytes
    local big = #feed.bytes >= BIG
    feed.bytes = nil
    if big then collectgarbage() end
  end
  feed.done = true
end

-- Sends the feed's next frame (taking its snapshot first, when the budget allows); true when
-- the feed is finished.
local function feedStep(feed)
  local session, room = feed.session, feed.room
  if feed.done or not session.open or room.members[session.id] ~= session then
    releaseFeed(feed)
    return true
  end
  if not feed.bytes then
    local estimate = room.state:bytes() + 24 * room.state:count()
    if M.feedBytes > 0 and M.feedBytes + estimate > FEED_BUDGET then return false end
    feed.bytes = room.state:count() > 0 and room.state:snapshot() or ""
    feed.pos, feed.frames = 1, 0
    M.feedBytes = M.feedBytes + #feed.bytes
  end
  if feed.pos <= #feed.bytes then
    local chunk
    chunk, feed.pos = nextChunk(feed.bytes, feed.pos)
    session:sendBinary(chunk)
    feed.frames = feed.frames + 1
  end
  if feed.pos > #feed.bytes then
    session:send({ t = "synced", bytes = #feed.bytes, frames = feed.frames })
    releaseFeed(feed)
    return true
  end
  return false
end

-- One frame to every joiner whose feed is running; those waiting for the budget start in turn.
function M.feedAll()
  local feeds, keep = M.feeds, {}
  for _, feed in ipairs(feeds) do
    if not feedStep(feed) then keep[#keep + 1] = feed end
  end
  M.feeds = keep
end

function M.onStart(h)
  M.host = h
  -- Closures that call through M: a reload's new code runs.
  h:every(SAVE_SECONDS, function() M.saveAll() end)
  M.feedTimer = h:every(FEED_INTERVAL, function() M.feedAll() end)
end

-- A reload keeps every room, member, feed and count; a module started by a version without
-- snapshot feeds gets their timer here (onStart does not run again).
function M.onReload(old, h)
  for k, v in pairs(old) do
    if type(v) ~= "function" then M[k] = v end
  end
  M.feeds, M.feedBytes = old.feeds or {}, old.feedBytes or 0
  if not old.feedTimer then M.feedTimer = h:every(FEED_INTERVAL, function() M.feedAll() end) end
end

function M.saveAll()
  for _, room in pairs(M.rooms) do saveRoom(room) end
end

function M.onConnect(session)
  local name = roomName(session.path)
  if not name then
    M.rejected.bad_room = M.rejected.bad_room + 1
    M.host:log(("sync_rejected bad_room: session %d, path %s"):format(session.id, tostring(session.path)))
    session:close(4000, "bad room name")
    return {}
  end
  local room = openRoom(name)
  room.members[session.id] = session
  room.count = room.count + 1
  local block = freeBlock(room)
  if block then room.blocks[block] = session.id end
  session.block = block
  session:send({
    t = "joined", session = session.id, room = name,
    first = block and RESERVED + block * BLOCK or tycho.json.null,
    last = block and RESERVED + block * BLOCK + BLOCK - 1 or tycho.json.null,
  })
  -- The snapshot follows in frames (feedStep); a small one goes at once, within this call.
  local feed = { session = session, room = room }
  session.feed = feed
  if not feedStep(feed) then M.feeds[#M.feeds + 1] = feed end
  return {
    onMessage = function(msg) M.onMessage(session, room, msg) end,
    onClose = function() M.onClose(session, room) end,
  }
end

function M.onMessage(session, room, msg)
  if type(msg) ~= "string" then
    if type(msg) == "table" and msg.t == "stats" then
      session:send({ t = "stats", rejected = M.rejected, relayed = M.relayed, entities = room.state:count(),
        members = room.count })
    else
      reject(session, room, "not_binary", "send CRDT messages as binary frames")
    end
    return
  end
  local reason, detail = check(msg)
  if reason then return reject(session, room, reason, detail) end
  local applied, corrections = room.state:apply(msg)
  if corrections then session:sendBinary(corrections) end
  if applied > 0 then
    room.dirty = true
    for id, other in pairs(room.members) do
      if id ~= session.id then other:sendBinary(msg) end
    end
    M.relayed = M.relayed + 1
  end
end

function M.onClose(session, room)
  room.members[session.id] = nil
  room.count = room.count - 1
  if session.feed then releaseFeed(session.feed) end
  if session.block then room.blocks[session.block] = nil end
  if room.count == 0 then
    -- Saved and let go: the next joiner loads it from storage.
    if saveRoom(room) and M.rooms[room.name] == room then M.rooms[room.name] = nil end
  end
end

function M.onStop()
  M.saveAll()
end

return M
