-- examples/crafty/save.lua: local worlds in tycho.storage: the SavedWorld record of a game
-- (world edits, player pose, sun, mode, inventory, thumbnail), the world list for the start
-- screen, loading by replay (regenerate from the seed, then apply the edit log), and the
-- debounced autosave (at most every 5 s while something changed, and on quit), and the
-- game's settings (the player's name).
--
-- Autosaves are incremental: storage:saveMeta writes every field but the edit log and
-- appends only the edits made since the last save, so a frame that saves pays for what
-- changed and not for the whole log (~45 ms for 100,000). They are queued ({async = true}):
-- the store's writer thread commits them, so the frame pays for reading the record and the
-- new edits only, never for the disk. On quit, storage:flush waits for them and
-- storage:compact folds the appended edits into the packed log.
local World = require("world")

local Save = {}

Save.AUTOSAVE_SECONDS = 5

---The store the game uses: CRAFTY_SAVES, else tycho's default (~/.local/share/tycho).
---@return table|nil store, string|nil message
function Save.open(path)
  path = path or os.getenv("CRAFTY_SAVES")
  return tycho.storage.open(path)
end

---The worlds to list, most recently played first. A store that cannot be opened gives an
---empty list and its message (the file is left as it is).
function Save.list(store)
  if not store then return {} end
  local ok, worlds = pcall(store.list, store)
  if not ok then return {}, tostring(worlds) end
  return worlds or {}
end

-- The game's own settings (the player's name and key) live beside the worlds, as one
-- named blob of JSON.
local SETTINGS_KEY = "crafty.settings"

---The settings saved by saveSettings, or an empty table (none yet, no store, or unreadable).
---@return table
function Save.loadSettings(store)
  if not store then return {} end
  local ok, bytes = pcall(store.getBlob, store, SETTINGS_KEY)
  if not ok or type(bytes) ~= "string" then return {} end
  local decoded, settings = pcall(tycho.json.decode, bytes)
  return decoded and type(settings) == "table" and settings or {}
end

---Writes the settings (a table of strings); true, or nil and a message.
---@param settings table
---@return boolean|nil ok, string|nil message
function Save.saveSettings(store, settings)
  if not store then return nil, "saves unavailable" end
  local ok, done, err = pcall(store.putBlob, store, SETTINGS_KEY, tycho.json.encode(settings))
  if not ok then return nil, tostring(done) end
  return done, err
end

---The SavedWorld record of a running game.
---@param game {record: table, world: table, player: table, inventory: table, sunAngle: number, moonPhase?: number, screenshot?: string}
function Save.record(game)
  local r = game.record
  local p = game.player
  r.edits = game.world.edits
  r.player = { x = p.x, y = p.y, z = p.z, yaw = p.yaw, pitch = p.pitch }
  r.sunAngle = game.sunAngle
  r.moonPhase = game.moonPhase
  r.inventory = game.inventory:toSaved()
  r.screenshot = game.screenshot or r.screenshot
  r.lastPlayedAt = os.time() * 1000
  return r
end

---Loads world id: the record, and a World regenerated from its seed with the edit log
---replayed (entries outside the world are skipped with a log line).
---@return table|nil record, table|string world_or_message
function Save.load(store, id, log)
  local ok, record, err = pcall(store.load, store, id)
  if not ok then return nil, tostring(record) end
  if not record then return nil, err or ("no world with id " .. tostring(id)) end
  local world = World.new(record.seed)
  if log then world.log = log end
  world:applyEdits(record.edits or {})
  world.dirty = {}
  world:markSaved() -- the replayed edits are the saved ones
  return record, world
end

---Autosave: call note() when something changed and tick(now) every frame; it saves at
---most every AUTOSAVE_SECONDS while there are changes. flush() saves now if anything changed:
---the record's fields and the world's edits since the last save (world.unsaved), in one
---transaction, queued for the store's writer thread (opts.async = false: written on this
---frame). A queued save that failed is seen by tick() (storage:lastError): the next save is
---then a whole one (storage:save of every edit), so no edit is lost; edits refused at once
---stay unsaved and go with the next try. settle() saves and waits for the queue; finish()
---settles, then folds the appended edits into the packed log (the end of a session).
---@param opts? {async?: boolean}
function Save.autosave(store, game, opts)
  local self = { store = store, game = game, pending = false, last = tycho.now(), saves = 0, error = nil,
    appended = false, whole = false, async = not (opts and opts.async == false) }
  local queued = { async = self.async }
  function self.note() self.pending = true end
  -- A queued save failed: say so once, and make the next save a whole one.
  local function checkQueued()
    if not self.store or not self.async or not self.store:lastError() then return end
    local _, err = self.store:flush() -- clears it
    self.error = err
    print("crafty: saving failed: " .. tostring(err))
    self.whole, self.pending = true, true
  end
  function self.flush()
    if not self.pending or not self.store then return true end
    local world = self.game.world
    local ok, err
    local whole = self.whole
    if whole then
      ok, err = self.store:save(Save.record(self.game)) -- every edit, on this frame: only after a failure
      if ok then self.whole, self.appended = false, false end
    else
      ok, err = self.store:saveMeta(Save.record(self.game), world.unsaved, queued)
    end
    self.last = tycho.now()
    if not ok then
      self.error = err
      print("crafty: saving failed: " .. tostring(err))
      return false
    end
    if #world.unsaved > 0 and not whole then self.appended = true end
    world:markSaved()
    self.pending = false
    self.saves = self.saves + 1
    return true
  end
  -- Saves now and waits until it is written; a queued save that failed is redone whole.
  function self.settle()
    local ok = self.flush()
    if ok and self.store and self.async then
      local written, err = self.store:flush()
      if not written then
        self.error = err
        print("crafty: saving failed: " .. tostring(err))
        self.whole, self.pending = true, true
        ok = self.flush()
      end
    end
    return ok
  end
  function self.finish()
    self.note() -- lastPlayedAt moves
    local ok = self.settle()
    if ok and self.appended and self.store then
      local folded, err = self.store:compact(self.game.record.id)
      if folded == nil then print("crafty: compacting the save failed: " .. tostring(err)) end
      self.appended = false
    end
    return ok
  end
  function self.tick(now)
    checkQueued()
    if self.pending and (now or tycho.now()) - self.last >= Save.AUTOSAVE_SECONDS then return self.flush() end
    return true
  end
  return self
end

return Save
