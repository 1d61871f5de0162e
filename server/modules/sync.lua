-- server/modules/sync.lua: shared CRDT rooms (ws://host/sync/ROOM, binary frames of @dcl/ecs
-- CRDT messages).
--
-- Each room keeps a tycho.crdt State, capped in entries and bytes (LIMITS), so that a full
-- room refuses more writes but never grows the module past its memory fence nor touches the
-- other rooms. A binary frame from a client is checked whole (it must frame as messages the
-- State reads without a malformed one, name no engine entity below 512, and fit the client's
-- write rate), applied, answered with corrections when it held stale writes, and relayed to
-- the room's other clients when it changed the state; a refused frame changes nothing and is
-- counted (per room too) and logged by reason. Near the room's caps a frame is applied message
-- by message: what fits is applied and relayed, the rest is refused as `state_full`. A joiner
-- gets `joined` (JSON: its session id, the room and an entity number block of its own for new
-- entities), then the room's snapshot in binary frames of whole messages, at most CHUNK bytes
-- each and one per FEED_INTERVAL (the host drops a client whose send queue passes
-- --max-queue, so a large snapshot cannot go as one frame), then `synced`.
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
local BURST_SECONDS = 2      -- a client's write rate allows bursts of this many seconds' worth
local LOG_EVERY = 10         -- seconds between two log lines for one session's refusals of one reason

-- TYCHO_SYNC_NAME in the environment, a whole number >= 0, else default.
local function setting(name, default)
  local v = math.tointeger(tonumber(os.getenv("TYCHO_SYNC_" .. name) or ""))
  return v and v >= 0 and v or default
end

-- What one room may hold and one client may write (0: no cap). A room's snapshot is at most
-- maxBytes + 24 * maxEntries + 12 bytes per deleted entity number, and a save or a joiner's
-- feed holds one in the module's memory: keep these well under --max-memory (64 MiB).
local LIMITS = {
  maxEntries = setting("MAX_ENTRIES", 100000),              -- (entity, component) pairs, tombstones included
  maxBytes = setting("MAX_BYTES", 16 << 20),                -- bytes of live component data
  messagesPerSecond = setting("MESSAGES_PER_SECOND", 5000), -- CRDT messages one client writes
  bytesPerSecond = setting("BYTES_PER_SECOND", 1 << 20),    -- frame bytes one client writes
}

local M = {
  rooms = {}, -- name -> room
  rejected = { not_binary = 0, malformed = 0, reserved_entity = 0, bad_room = 0, rate_limited = 0, state_full = 0 },
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
  local state = crdt.new({ quiet = true, maxEntries = LIMITS.maxEntries, maxBytes = LIMITS.maxBytes })
  local saved, err = M.host.storage:getBlob(blobKey(name))
  if saved then
    state:apply(saved)
    -- Saved under larger caps (or none): what no longer fits is left out, and said so.
    local over = state:stats().stateLimit
    if over > 0 then
      M.host:log(("sync_load_capped: room %s, %d messages past the caps left out"):format(name, over))
    end
    if #saved >= BIG then
      saved = nil
      collectgarbage()
    end
  elseif err then
    M.host:log("sync_load_failed", name, err)
  end
  room = { name = name, state = state, members = {}, count = 0, dirty = false, blocks = {}, rejected = {} }
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

-- Counts the refusal (in the module and the room), logs it (one line per session and reason
-- every LOG_EVERY seconds: a flood of refusals is counted, not written out), and answers
-- error{code = reason, message = detail} plus extra's fields.
local function reject(session, room, reason, detail, extra)
  M.rejected[reason] = (M.rejected[reason] or 0) + 1
  if room then
    room.rejected = room.rejected or {}
    room.rejected[reason] = (room.rejected[reason] or 0) + 1
  end
  local logged = session.logged or {}
  session.logged = logged
  local now = tycho.now()
  if not logged[reason] or now - logged[reason] >= LOG_EVERY then
    logged[reason] = now
    M.host:log(("sync_rejected %s: room %s, session %d: %s"):format(reason, room and room.name or "-", session.id,
      detail or reason))
  end
  local answer = { t = "error", code = reason, message = detail or reason }
  for k, v in pairs(extra or {}) do answer[k] = v end
  session:send(answer)
end

-- How the frame falls into messages: nil and the count of messages, or why it cannot be
-- applied (it does not frame exactly, or it names an engine entity).
local function frame(bytes)
  local pos, n, count = 1, #bytes, 0
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
    count = count + 1
  end
  return nil, count
end

-- Why the frame cannot be applied as a whole, or nil. A scratch State reads it first, so a
-- refused frame leaves the room's state exactly as it was.
local function probe(bytes)
  local scratch = crdt.new({ quiet = true })
  scratch:apply(bytes)
  local s = scratch:stats()
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

-- Sends the feed's next frame (taking its snapshot first, when the budget allows and no
-- earlier feed is waiting: `wait`); true when the feed is finished, false and whether it is
-- waiting otherwise.
local function feedStep(feed, wait)
  local session, room = feed.session, feed.room
  if feed.done or not session.open or room.members[session.id] ~= session then
    releaseFeed(feed)
    return true
  end
  if not feed.bytes then
    local estimate = room.state:bytes() + 24 * room.state:count()
    feed.waiting = wait or (M.feedBytes > 0 and M.feedBytes + estimate > FEED_BUDGET)
    if feed.waiting then return false, true end
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

-- One frame to every joiner whose feed is running; those waiting for the budget start in
-- join order, so a large snapshot is never passed over for ever by smaller ones.
function M.feedAll()
  local keep, wait = {}, false
  for _, feed in ipairs(M.feeds) do
    local done, waiting = feedStep(feed, wait)
    if not done then keep[#keep + 1] = feed end
    wait = wait or waiting
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
  local last = M.feeds[#M.feeds]
  if not feedStep(feed, last and last.waiting) then M.feeds[#M.feeds + 1] = feed end
  return {
    onMessage = function(msg) M.onMessage(session, room, msg) end,
    onClose = function() M.onClose(session, room) end,
  }
end

-- Whether `count` messages of `bytes` bytes fit the session's write rate now (token buckets
-- of LIMITS.messagesPerSecond and .bytesPerSecond, BURST_SECONDS deep); takes them when they do.
local function withinRate(session, count, bytes)
  local mps, bps = LIMITS.messagesPerSecond, LIMITS.bytesPerSecond
  local now = tycho.now()
  local b = session.bucket
  if not b then
    b = { messages = mps * BURST_SECONDS, bytes = bps * BURST_SECONDS, at = now }
    session.bucket = b
  end
  local dt = now - b.at
  b.at = now
  b.messages = math.min(mps * BURST_SECONDS, b.messages + dt * mps)
  b.bytes = math.min(bps * BURST_SECONDS, b.bytes + dt * bps)
  if (mps > 0 and b.messages < count) or (bps > 0 and b.bytes < bytes) then return false end
  b.messages, b.bytes = b.messages - count, b.bytes - bytes
  return true
end

local function relay(session, room, bytes)
  room.dirty = true
  for id, other in pairs(room.members) do
    if id ~= session.id then other:sendBinary(bytes) end
  end
  M.relayed = M.relayed + 1
end

-- Whether the frame could take the room past a cap: its length bounds the data it adds, its
-- message count the pairs.
local function nearCaps(state, bytes, count)
  return (LIMITS.maxBytes > 0 and state:bytes() + #bytes > LIMITS.maxBytes)
    or (LIMITS.maxEntries > 0 and state:count() + count > LIMITS.maxEntries)
end

-- Near the caps: one message at a time, so that only what the State took is relayed. Messages
-- past a cap are refused (the State counts them as stateLimit) and the sender is told how many.
local function applyNearCaps(session, room, bytes, count)
  local state = room.state
  local refusedBefore = state:stats().stateLimit
  local taken, fixes, pos = {}, {}, 1
  while pos <= #bytes do
    local len = string.unpack("<I4", bytes, pos)
    local one = bytes:sub(pos, pos + len - 1)
    local applied, corrections = state:apply(one)
    if applied > 0 then taken[#taken + 1] = one end
    if corrections then fixes[#fixes + 1] = corrections end
    pos = pos + len
  end
  if #fixes > 0 then session:sendBinary(table.concat(fixes)) end
  if #taken > 0 then relay(session, room, table.concat(taken)) end
  local refused = state:stats().stateLimit - refusedBefore
  if refused > 0 then
    reject(session, room, "state_full",
      ("room %s is full (%d entries, %d bytes of data; at most %d and %d): %d of %d messages refused")
        :format(room.name, state:count(), state:bytes(), LIMITS.maxEntries, LIMITS.maxBytes, refused, count),
      { refused = refused })
  end
end

function M.onMessage(session, room, msg)
  if type(msg) ~= "string" then
    if type(msg) == "table" and msg.t == "stats" then
      session:send({ t = "stats", rejected = M.rejected, relayed = M.relayed, entities = room.state:count(),
        members = room.count, bytes = room.state:bytes(), limits = LIMITS,
        room = { name = room.name, rejected = room.rejected or {}, stateLimit = room.state:stats().stateLimit } })
    else
      reject(session, room, "not_binary", "send CRDT messages as binary frames")
    end
    return
  end
  local reason, detail = frame(msg)
  if reason then return reject(session, room, reason, detail) end
  local count = detail
  if not withinRate(session, count, #msg) then
    return reject(session, room, "rate_limited",
      ("at most %d messages and %d bytes a second (bursts of %d s): a frame of %d messages, %d bytes refused")
        :format(LIMITS.messagesPerSecond, LIMITS.bytesPerSecond, BURST_SECONDS, count, #msg))
  end
  reason, detail = probe(msg)
  if reason then return reject(session, room, reason, detail) end
  if nearCaps(room.state, msg, count) then return applyNearCaps(session, room, msg, count) end
  local applied, corrections = room.state:apply(msg)
  if corrections then session:sendBinary(corrections) end
  if applied > 0 then relay(session, room, msg) end
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
