---@meta tycho.storage
-- scripts/meta/storage.lua: LuaLS annotations for tycho.storage (bindings/lua_storage.c over
-- engine/storage). Never loaded at run time; scripts/docs/storage.md describes it.

---@class tycho.Edit
---@field x integer
---@field y integer
---@field z integer
---@field type integer block type; 0 is air (a broken block)

---@class tycho.Inventory
---@field stacks {blockType: integer, count: integer}[]
---@field hotbar integer[] 9 block types (0 for an empty slot)

---@class tycho.PlayerPose
---@field x number
---@field y number
---@field z number
---@field yaw number
---@field pitch number

---@class tycho.SavedWorld
---@field id string unique
---@field name string
---@field seed number|string kept as given
---@field gameMode string "creative" or "survival"
---@field createdAt number milliseconds since 1970
---@field lastPlayedAt number milliseconds since 1970
---@field edits tycho.Edit[] the edit log (absent in list(): see editCount)
---@field editCount? integer only in list()
---@field player tycho.PlayerPose
---@field sunAngle number
---@field moonPhase? number
---@field inventory? tycho.Inventory
---@field screenshot? string PNG bytes
---@field version integer record format version

---A server's record of one player in one world.
---@class tycho.PlayerRecord: tycho.PlayerPose
---@field inventory? tycho.Inventory

---@class tycho.WorldStorage
local WorldStorage = {}

---Stores every field as given (lastPlayedAt included), replacing the world with the same id,
---in one transaction. Later edits of the same block replace earlier ones.
---@param world tycho.SavedWorld
---@return true|nil ok
---@return string? message a record newer than CURRENT_FORMAT_VERSION, or a write failure
function WorldStorage:save(world) end

---Stores every field but the edit log (world.edits is not read), creating the world when
---absent, and appends newEdits (the edits made since the last save) to its log, in one
---transaction: an incremental save, whose cost follows what changed. The commit is atomic and
---survives a crash of the process; it reaches the disk at the next save, compact or checkpoint.
---With `{async = true}` it is queued instead: the store's writer thread commits it (fsynced),
---the call pays only for reading the record and newEdits, and a failure of the write comes
---back from `flush` (and `lastError`), logged as storage_queued_save_failed.
---@param world tycho.SavedWorld
---@param newEdits? tycho.Edit[]
---@param opts? {async?: boolean}
---@return true|nil ok
---@return string? message a record newer than CURRENT_FORMAT_VERSION, or a write failure
function WorldStorage:saveMeta(world, newEdits, opts) end

---Appends edits to the world's log in one transaction. A load returns them after the logged
---ones, a later edit of a block replacing the earlier one's type in its place, as a full save
---of the whole log would.
---With `{async = true}`: queued as saveMeta's, a missing world reported by `flush`.
---@param worldId string
---@param edits tycho.Edit[]
---@param opts? {async?: boolean}
---@return true|nil ok
---@return string? message no such world, or a write failure
function WorldStorage:appendEdits(worldId, edits, opts) end

---Waits until every queued save is written. Every other call (load, list, save...) waits
---for them too, so it sees them.
---@return true|nil ok
---@return string? message the first queued save that failed since the last flush (then cleared)
function WorldStorage:flush() end

---Without waiting: the message of a queued save that failed since the last flush, or nil.
---@return string|nil
function WorldStorage:lastError() end

---@return integer queued saves not yet written (at most 64 wait; one more waits for room)
function WorldStorage:pending() end

---Folds the appended edits into the world's packed log (what a full save leaves), in one
---fsynced transaction; nothing to do when none were appended.
---@param worldId string
---@return boolean|nil folded false when there is no such world
---@return string? message
function WorldStorage:compact(worldId) end

---@param id string
---@param options? {packedEdits: boolean?} packedEdits: `edits` is one string of 16-byte records, string.pack("<i4i4i4i4", x, y, z, type) each
---@return tycho.SavedWorld|nil world nil when there is no such world; appended edits merged in
---@return string? message when it could not be read
function WorldStorage:load(id, options) end

---Every world without its edit log (editCount instead), most recently played first.
---@return tycho.SavedWorld[]|nil
---@return string? message
function WorldStorage:list() end

---Removes the world with its edit log and player records.
---@param id string
---@return boolean|nil deleted false when there was no such world
---@return string? message
function WorldStorage:delete(id) end

---Flushes the queued saves, then closes the store; any further call raises.
---@return true|nil ok
---@return string? message as flush
function WorldStorage:close() end

---Writes the world as JSON (the SavedWorld shape; the screenshot as a data: URL) atomically:
---a temporary file, fsync, rename over path, fsync of the folder.
---@param id string
---@param path string
---@return true|nil ok
---@return string? message
function WorldStorage:exportWorld(id, path) end

---Reads such a JSON file and saves the world; a world whose id is already stored gets a
---fresh id, so an import never overwrites one.
---@param path string
---@return string|nil id the id it was stored under
---@return string? message
function WorldStorage:importWorld(path) end

---In one transaction that commits without fsync, as saveMeta's: it survives a crash of the
---process and reaches the disk at the next checkpoint or fsynced commit.
---@param worldId string an existing world
---@param playerKey string
---@param record tycho.PlayerRecord
---@return true|nil ok
---@return string? message
function WorldStorage:savePlayer(worldId, playerKey, record) end

---Runs fn(storage) inside one transaction: every save it makes (saveMeta, savePlayer,
---appendEdits, save, putBlob...) succeeds or fails alone (a savepoint: `nil, message` as
---always, the others kept), and all of them reach the file in one commit, without fsync (as
---saveMeta's), when fn returns: one commit and one round of file locks instead of one each.
---A queued save ({async = true}) made inside it is written at once, in it. Not nested, and
---the store cannot be closed inside it.
---@param fn fun(storage: tycho.WorldStorage)
---@return true|nil ok
---@return string? message fn raised (nothing of it saved), or the commit failed (nothing saved)
function WorldStorage:transaction(fn) end

---Asks the store's writer thread to checkpoint (copy the WAL into the database file, both
---fsynced), so that every commit so far is on disk; returns at once. The store asks for one
---itself once the WAL holds 1,000 pages; a server calls it every few seconds to bound what a
---power loss could take from commits made without fsync.
function WorldStorage:checkpoint() end

---@param worldId string
---@param playerKey string
---@return tycho.PlayerRecord|nil record nil when none was saved
---@return string? message
function WorldStorage:loadPlayer(worldId, playerKey) end

---Stores bytes under a key, replacing what was there (one statement).
---@param key string
---@param bytes string
---@return true|nil ok
---@return string? message
function WorldStorage:putBlob(key, bytes) end

---@param key string
---@return string|nil bytes nil when nothing is stored under key
---@return string? message
function WorldStorage:getBlob(key) end

---@param key string
---@return boolean|nil deleted false when nothing was stored
---@return string? message
function WorldStorage:deleteBlob(key) end

---@class tycho.storage
---@field CURRENT_FORMAT_VERSION integer
tycho.storage = {}

---Opens (creating when absent) a world store; the default path is
---$XDG_DATA_HOME/tycho/worlds.sqlite (~/.local/share/tycho/worlds.sqlite). ":memory:" is a
---private one. Several handles may open one file.
---@param path? string
---@return tycho.WorldStorage|nil storage
---@return string? message the file is not a tycho store, is damaged or is newer; it is left untouched
function tycho.storage.open(path) end

---A world with the seed's defaults: a unique id, gameMode "creative", createdAt = lastPlayedAt
---= now, no edits, player at (64, 80, 64), sunAngle = math.pi * 0.3, the current version.
---@param name string
---@param seed number|string
---@param gameMode? string
---@return tycho.SavedWorld
function tycho.storage.createSavedWorld(name, seed, gameMode) end
