-- scripts/tycho/sandbox.lua: the engine side of a sandboxed scene (tycho.sandbox.load).
--
-- A SceneRunner owns a SandboxVM (bindings/lua_sandbox.c: the scene's own lua_State with
-- memory and instruction caps) and an engine-side tycho.crdt State for that scene. What the
-- scene sends through EngineApi.crdtSendToRenderer is validated message by message, applied
-- to the State, and mirrored into GameObjects of opts.scene: every scene entity with a
-- core::Transform (component 1) gets one, parented under the scene's root object. What the
-- engine writes through the runner (runner:put, ...) goes back to the scene in the reply
-- to its next crdtSendToRenderer. The State is capped (maxEntries, maxStateBytes) and so is
-- the number of messages one scene call may send (maxMessagesPerCall), so that a hostile
-- scene cannot make the host's memory or time grow past what its own caps allow.
-- scripts/docs/sync.md "Sandboxed scenes" has the rules.
local crdt = tycho.crdt

local M = {}

local TRANSFORM = 1
local RESERVED = 512
M.REASONS = {
  "reserved_entity", "initial_sync", "deleted_entity", "malformed", "stale", "state_limit", "message_limit",
}

-- Defaults for the load options that cap what the host keeps and does for one scene.
M.DEFAULT_MAX_ENTRIES = 50000           -- stored (entity, component) pairs, tombstones included
M.DEFAULT_MAX_STATE_BYTES = 16 << 20    -- live component data
M.DEFAULT_MAX_MESSAGES_PER_CALL = 10000 -- across all crdtSendToRenderer calls of one scene call

local Runner = {}
M.Runner = Runner

Runner.__index = function(self, key)
  if key == "stats" then
    local s = rawget(self, "_stats")
    for k, v in pairs(self._vm:stats()) do s[k] = v end
    local cs = self.state:stats()
    s.applied = cs.accepted
    s.stateEntries = self.state:count()
    s.stateBytes = self.state:bytes()
    return s
  elseif key == "stopped" then
    return self._vm:stopped()
  end
  return Runner[key]
end

local function sourceOf(pathOrSource, name)
  if type(pathOrSource) ~= "string" then
    error("bad argument #1 to 'load' (a path or Lua source expected, got " .. type(pathOrSource) .. ")", 3)
  end
  if not pathOrSource:find("\n", 1, true) and pathOrSource:match("%.lua$") then
    local f, err = io.open(pathOrSource, "rb")
    if not f then return nil, nil, err end
    local src = f:read("a")
    f:close()
    return src, "@" .. pathOrSource, name or pathOrSource:match("([^/]+)%.lua$")
  end
  return pathOrSource, "=" .. (name or "scene"), name or "scene"
end

-- A cap option: a non-negative integer up to max (0: no cap), default when absent.
local function capOption(opts, key, default, max)
  local v = opts[key]
  if v == nil then return default end
  if math.type(v) ~= "integer" or v < 0 or v > max then
    error(string.format("bad argument #2 to 'load' ('%s' must be an integer in 0..%d, got %s)", key, max,
      tostring(v)), 3)
  end
  return v
end

---Loads a scene script into a new sandbox and runs its main chunk.
---@return table|nil runner, string|nil err
function M.load(pathOrSource, opts)
  opts = opts or {}
  if type(opts) ~= "table" then error("bad argument #2 to 'load' (table expected)", 2) end
  local maxEntries = capOption(opts, "maxEntries", M.DEFAULT_MAX_ENTRIES, 0xFFFFFFFF)
  local maxStateBytes = capOption(opts, "maxStateBytes", M.DEFAULT_MAX_STATE_BYTES, math.maxinteger)
  local maxMessages = capOption(opts, "maxMessagesPerCall", M.DEFAULT_MAX_MESSAGES_PER_CALL, math.maxinteger)
  local src, chunk, name = sourceOf(pathOrSource, opts.name)
  if not src then return nil, name end
  local rejected = {}
  for _, r in ipairs(M.REASONS) do rejected[r] = 0 end
  local self = setmetatable({
    name = name,
    scene = opts.scene,
    state = crdt.new({ quiet = true, maxEntries = maxEntries, maxBytes = maxStateBytes }),
    quiet = opts.quiet,
    syncing = true, -- the initial synchronization phase: only the runtime writes
    started = false,
    _outbox = {},
    _objects = {},     -- scene entity id -> GameObject
    _entities = {},    -- GameObject id -> scene entity id
    _byNumber = {},    -- entity number -> the entity id mapped for it
    _wantParent = {},  -- scene entity id -> parent entity id not yet resolved
    _stats = { rejected = rejected, errors = 0, messagesIn = 0, messagesOut = 0 },
    _maxMessages = maxMessages,
    _callMessages = 0, -- messages the current scene call has sent
    _log = opts.log,
  }, Runner)
  if opts.scene then
    self.root = opts.root or opts.scene:add(tycho.GameObject.new(name))
    self._ownRoot = opts.root == nil
  end
  self._vm = tycho.sandbox.vm({
    name = name,
    instructionLimit = opts.instructionLimit,
    timeLimit = opts.timeLimit,
    memoryLimit = opts.memoryLimit,
    quiet = opts.quiet,
    callbacks = {
      send = function(bytes) return self:_receive(bytes) end,
      getState = function()
        -- The runtime hands the scene its first state: the initial sync is over.
        self.syncing = false
        self._outbox = {}
        return self.state:count() > 0, self.state:snapshot()
      end,
      log = function(line)
        if self._log then self._log(line)
        elseif not self.quiet then io.stderr:write("[", self.name, "] ", line, "\n") end
      end,
    },
  })
  self._callMessages = 0
  local ok, err = self._vm:load(src, chunk)
  if not ok then
    self._stats.errors = self._stats.errors + 1
    self:close()
    return nil, err
  end
  return self
end

-- ---- running ----

local function finish(self, ok, err)
  if not ok then
    self._stats.errors = self._stats.errors + 1
    self.lastError = err
    return false, err
  end
  return true
end

---Calls the scene's onStart(); the initial sync ends when it returns.
function Runner:start()
  if self.started then return false, "scene '" .. self.name .. "' already started" end
  self.started = true
  self._callMessages = 0
  local ok, err = self._vm:call("onStart")
  self.syncing = false
  return finish(self, ok, err)
end

---Calls the scene's onUpdate(dt) (starting it first when needed).
function Runner:update(dt)
  if not self.started then
    local ok, err = self:start()
    if not ok then return false, err end
  end
  self._callMessages = 0
  local ok, err = self._vm:call("onUpdate", dt or 0)
  return finish(self, ok, err)
end

function Runner:close()
  if self._closed then return end
  self._closed = true
  self._vm:close()
  for e in pairs(self._objects) do
    local go = self._objects[e]
    if not go.destroyed then go:destroy() end
  end
  self._objects, self._entities, self._byNumber, self._wantParent = {}, {}, {}, {}
  if self._ownRoot and self.root and not self.root.destroyed then self.root:destroy() end
end

function Runner:gameObjectFor(entity) return self._objects[entity] end
function Runner:entityFor(go) return self._entities[go.id] end

-- ---- what the scene sends ----

function Runner:_reject(reason, entity, mtype)
  local r = self._stats.rejected
  r[reason] = (r[reason] or 0) + 1
  self.lastRejection = { reason = reason, entity = entity, type = mtype }
  self._rejectedNow = (self._rejectedNow or 0) + 1
  self._rejectedWhy = self._rejectedWhy or reason
end

-- Counts n refusals for one reason at once (for what the runner does not look into).
function Runner:_rejectMany(reason, n)
  if n <= 0 then return end
  local r = self._stats.rejected
  r[reason] = (r[reason] or 0) + n
  self.lastRejection = { reason = reason }
  self._rejectedNow = (self._rejectedNow or 0) + n
  self._rejectedWhy = self._rejectedWhy or reason
end

-- The messages of bytes from pos on, past the scene call's message cap: counted by their
-- framing alone (one unpack each), never copied, parsed or applied.
function Runner:_dropRest(bytes, pos, n)
  local dropped, unpack = 0, string.unpack
  while pos <= n do
    if n - pos + 1 < 8 then self:_reject("malformed") break end
    local len = unpack("<I4", bytes, pos)
    if len < 8 or pos + len - 1 > n then self:_reject("malformed") break end
    dropped = dropped + 1
    pos = pos + len
  end
  self._stats.messagesIn = self._stats.messagesIn + dropped
  self:_rejectMany("message_limit", dropped)
end

function Runner:_receive(bytes)
  local accepted, touched = {}, {}
  local pos, n = 1, #bytes
  local cap, sent = self._maxMessages, self._callMessages
  self._rejectedNow, self._rejectedWhy = 0, nil
  while pos <= n do
    if n - pos + 1 < 8 then self:_reject("malformed") break end
    local len, mtype = string.unpack("<I4I4", bytes, pos)
    if len < 8 or pos + len - 1 > n then self:_reject("malformed") break end
    if cap > 0 and sent >= cap then
      self:_dropRest(bytes, pos, n)
      break
    end
    sent = sent + 1
    local msg = bytes:sub(pos, pos + len - 1)
    pos = pos + len
    self._stats.messagesIn = self._stats.messagesIn + 1
    local entity = (mtype >= 1 and mtype <= 7 and len >= 12) and string.unpack("<I4", msg, 9) or nil
    if self.syncing then
      self:_reject("initial_sync", entity, mtype)
    elseif entity and (entity & 0xFFFF) < RESERVED then
      self:_reject("reserved_entity", entity, mtype)
    elseif entity and mtype ~= 3 and self.state:isRemoved(entity) then
      self:_reject("deleted_entity", entity, mtype)
    else
      accepted[#accepted + 1] = msg
      if entity then touched[#touched + 1] = entity end
    end
  end
  self._callMessages = sent
  if #accepted > 0 then
    local before = self.state:stats()
    local _, corrections = self.state:apply(table.concat(accepted))
    local after = self.state:stats()
    local r = self._stats.rejected
    r.malformed = r.malformed + (after.malformed - before.malformed)
    r.stale = r.stale + (after.stale - before.stale)
    r.deleted_entity = r.deleted_entity + (after.removedEntity - before.removedEntity)
    -- The State's caps (maxEntries, maxStateBytes, and its default maxComponents) refused these.
    self:_rejectMany("state_limit",
      (after.stateLimit - before.stateLimit) + (after.componentLimit - before.componentLimit))
    if corrections then self._outbox[#self._outbox + 1] = corrections end
    for i = 1, #touched do self:_sync(touched[i]) end
    self:_resolveParents()
  end
  if self._rejectedNow > 0 and not self.quiet then
    io.stderr:write(string.format("tycho: sandbox '%s': rejected %d message(s) (first: %s)\n", self.name,
      self._rejectedNow, self._rejectedWhy))
  end
  local out = self._outbox
  self._outbox = {}
  self._stats.messagesOut = self._stats.messagesOut + #out
  return out
end

-- ---- the GameObject mirror ----

function Runner:_destroy(e)
  local go = self._objects[e]
  if not go then return end
  -- Children mapped to other entities stay: back under the root until their parent returns.
  if not go.destroyed then
    for _, child in ipairs(go.children) do
      local ce = self._entities[child.id]
      if ce then
        child:setParent(self.root)
        self._wantParent[ce] = e
      end
    end
    go:destroy()
  end
  self._objects[e] = nil
  self._entities[go.id] = nil
  self._wantParent[e] = nil
  if self._byNumber[e & 0xFFFF] == e then self._byNumber[e & 0xFFFF] = nil end
end

function Runner:_sync(e)
  if not self.root then return end
  local number = e & 0xFFFF
  if number < RESERVED then return end -- the engine's own entities are not mirrored
  local prev = self._byNumber[number]
  if prev and prev ~= e and self.state:isRemoved(prev) then self:_destroy(prev) end
  if self.state:isRemoved(e) then return self:_destroy(e) end
  local data = self.state:get(e, TRANSFORM)
  local t = data and crdt.transform.decode(data)
  if not t then return self:_destroy(e) end
  local go = self._objects[e]
  if not go then
    go = tycho.GameObject.new(string.format("%s#%d.%d", self.name, number, e >> 16))
    go:setParent(self.root)
    self._objects[e], self._entities[go.id], self._byNumber[number] = go, e, e
  end
  go.position = t.position
  go.rotation = t.rotation
  go.scale = t.scale
  self._wantParent[e] = t.parent
end

function Runner:_resolveParents()
  for e, p in pairs(self._wantParent) do
    local go = self._objects[e]
    if not go then
      self._wantParent[e] = nil
    else
      local target = self._objects[p]
      local resolved = target ~= nil or p == 0 or (p & 0xFFFF) < RESERVED or self.state:isRemoved(p)
      target = target or self.root
      if go.parent ~= target and not pcall(go.setParent, go, target) then
        go:setParent(self.root) -- a parent cycle: the scene's graph is invalid, keep it flat
        resolved = true
      end
      if resolved then self._wantParent[e] = nil end
    end
  end
end

-- ---- what the engine writes (sent to the scene with its next crdtSendToRenderer reply) ----

local function engineWrite(self, entity, msg, err)
  if not msg then return nil, err end
  if msg ~= "" then self._outbox[#self._outbox + 1] = msg end
  self:_sync(entity)
  self:_resolveParents()
  return msg
end

function Runner:put(entity, componentId, data)
  return engineWrite(self, entity, self.state:put(entity, componentId, data))
end
function Runner:deleteComponent(entity, componentId)
  return engineWrite(self, entity, self.state:deleteComponent(entity, componentId))
end
function Runner:deleteEntity(entity)
  return engineWrite(self, entity, self.state:deleteEntity(entity))
end

return M
