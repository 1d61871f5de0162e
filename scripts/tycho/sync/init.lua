-- scripts/tycho/sync/init.lua: a tycho scene kept in a tycho.crdt State (require("tycho.sync")).
--
-- A Sync binds a Scene to a State. apply(bytes) applies CRDT messages and mirrors every entity
-- (number >= 512) that holds a built-in component (Transform, MeshRenderer or GltfContainer,
-- Material, LightSource, tycho::DirectionalLight, tycho::Camera; ids and bytes in
-- tycho/sync/components.lua) into a GameObject with the matching engine components; a
-- DELETE_ENTITY destroys it. track(go) makes a GameObject of this process a synced entity:
-- flush() reads each tracked object's transform and components and returns the messages for
-- what changed (state:put sends nothing for equal bytes, so an unchanged object costs an
-- encode and a compare). Entities keep their own ids; GameObjects keep the engine's, and the
-- Sync holds the map both ways, as a sandboxed scene's runner does. scripts/docs/sync.md
-- "Scenes over the CRDT" has the rules.
local crdt = tycho.crdt
local C = require("tycho.sync.components")

local M = { components = C }

local RESERVED = 512

local Sync = {}
Sync.__index = Sync
M.Sync = Sync

local function argError(n, fname, msg) error(("bad argument #%d to '%s' (%s)"):format(n, fname, msg), 3) end

local function typeName(v)
  local mt = type(v) == "userdata" and getmetatable(v)
  return (mt and rawget(mt, "__name")) or type(v)
end

---Binds a scene to a CRDT state.
---@param scene tycho.Scene
---@param opts? {state?: tycho.CrdtState, root?: tycho.GameObject, name?: string, first?: integer, last?: integer}
---@return tycho.Sync
function M.new(scene, opts)
  if typeName(scene) ~= "Scene" then argError(1, "new", "Scene expected, got " .. typeName(scene)) end
  if opts ~= nil and type(opts) ~= "table" then argError(2, "new", "table expected, got " .. type(opts)) end
  opts = opts or {}
  local first, last = opts.first or RESERVED, opts.last or 65535
  if math.type(first) ~= "integer" or math.type(last) ~= "integer" or first < RESERVED or last > 65535 or first > last then
    argError(2, "new", "first..last must be entity numbers in 512..65535")
  end
  return setmetatable({
    scene = scene,
    state = opts.state or crdt.new(),
    root = opts.root,
    name = opts.name or "sync",
    _first = first,
    _last = last,
    _next = first,
    _objects = {},      -- entity -> GameObject (mirrored and tracked)
    _entities = {},     -- GameObject id -> entity
    _tracked = {},      -- entity -> GameObject made here (flush writes it)
    _byNumber = {},     -- entity number -> the entity mapped for it
    _wantParent = {},   -- entity -> parent entity not yet resolved
    _meshPaths = {},    -- Mesh id -> path, for meshes sent as GltfContainer
    _materials = {},    -- Material bytes -> tycho Material (shared by equal values)
  }, Sync)
end

-- ---- entity <-> GameObject ----

---@return tycho.GameObject|nil
function Sync:gameObjectFor(entity) return self._objects[entity] end
---@return integer|nil
function Sync:entityFor(go) return self._entities[go.id] end

function Sync:_map(e, go)
  self._objects[e], self._entities[go.id], self._byNumber[e & 0xFFFF] = go, e, e
end

function Sync:_unmap(e)
  local go = self._objects[e]
  if not go then return end
  self._objects[e], self._tracked[e], self._wantParent[e] = nil, nil, nil
  self._entities[go.id] = nil
  if self._byNumber[e & 0xFFFF] == e then self._byNumber[e & 0xFFFF] = nil end
  return go
end

-- A free entity of this Sync's range: a number nothing is stored for, at the lowest version
-- not deleted.
function Sync:_allocate()
  local span = self._last - self._first + 1
  for _ = 1, span do
    local n = self._next
    self._next = n == self._last and self._first or n + 1
    if not self._byNumber[n] then
      local v = 0
      while v < 65535 and self.state:isRemoved(crdt.entity(n, v)) do v = v + 1 end
      local e = crdt.entity(n, v)
      if not self.state:isRemoved(e) and self.state:get(e, C.TRANSFORM) == nil then return e end
    end
  end
  return nil
end

---Makes a GameObject of this process a synced entity; flush() sends its changes from then on.
---@param go tycho.GameObject
---@param entity? integer the entity id (default: a free one in this Sync's range)
---@return integer entity
function Sync:track(go, entity)
  if typeName(go) ~= "GameObject" then argError(1, "track", "GameObject expected, got " .. typeName(go)) end
  local known = self._entities[go.id]
  if known then return known end
  if entity == nil then
    entity = self:_allocate()
    if not entity then error("track: no free entity left in " .. self._first .. ".." .. self._last, 2) end
  else
    if math.type(entity) ~= "integer" or entity < 0 or entity > 0xFFFFFFFF then
      argError(2, "track", "entity id expected")
    end
    if (entity & 0xFFFF) < RESERVED then argError(2, "track", "entity numbers below 512 belong to the engine") end
    if self.state:isRemoved(entity) then argError(2, "track", "entity " .. entity .. " was deleted") end
    if self._objects[entity] then argError(2, "track", "entity " .. entity .. " already has a GameObject") end
  end
  self:_map(entity, go)
  self._tracked[entity] = go
  return entity
end

---Stops sending a tracked object's changes; its entity stays in the state.
---@param go tycho.GameObject
function Sync:untrack(go)
  local e = self._entities[go.id]
  if e then self._tracked[e] = nil end
end

-- ---- applying messages: the mirror ----

---Applies CRDT bytes to the state and the scene.
---@param bytes string
---@return integer applied, string|nil corrections
function Sync:apply(bytes)
  if type(bytes) ~= "string" then argError(1, "apply", "string expected, got " .. type(bytes)) end
  local applied, corrections = self.state:apply(bytes)
  if applied > 0 then
    -- Every entity a message named (DELETE_ENTITY included) is looked at again.
    local touched, pos, n = {}, 1, #bytes
    while n - pos + 1 >= 12 do
      local len, mtype = string.unpack("<I4I4", bytes, pos)
      if len < 8 or pos + len - 1 > n then break end
      if mtype >= 1 and mtype <= 4 and len >= 12 then touched[string.unpack("<I4", bytes, pos + 8)] = true end
      pos = pos + len
    end
    for e in pairs(touched) do self:_mirror(e) end
    self:_resolveParents()
  end
  return applied, corrections
end

local function hasAny(state, e)
  return state:get(e, C.TRANSFORM) or state:get(e, C.MESH_RENDERER) or state:get(e, C.GLTF_CONTAINER)
    or state:get(e, C.LIGHT_SOURCE) or state:get(e, C.DIRECTIONAL_LIGHT) or state:get(e, C.CAMERA)
end

function Sync:_destroy(e)
  local go = self:_unmap(e)
  if not go or go.destroyed then return end
  for _, child in ipairs(go.children) do
    local ce = self._entities[child.id]
    if ce then
      child:setParent(self.root)
      self._wantParent[ce] = e
    end
  end
  go:destroy()
end

local function decoded(codec, bytes)
  if not bytes then return nil end
  return (codec.decode(bytes))
end

-- The one engine component of class `Class` on go, made or removed to match `want`.
local function ensure(go, Class, want, ...)
  local c = go:getComponent(Class)
  if want and not c then return go:addComponent(Class, ...), true end
  if not want and c then go:removeComponent(c) end
  return want and c or nil, false
end

function Sync:_material(bytes)
  if not bytes then return nil end
  local m = self._materials[bytes]
  if not m then
    local t = C.material.decode(bytes)
    if not t then return nil end
    m = tycho.material({
      baseColor = t.baseColor, metallic = t.metallic, roughness = t.roughness,
      transparent = t.transparent, unlit = t.unlit, emissive = t.emissive,
    })
    self._materials[bytes] = m
  end
  return m
end

local function meshFor(self, kind, src)
  if src and src ~= "" then
    local mesh = tycho.mesh.load(src) -- the placeholder cube when it cannot be read
    self._meshPaths[mesh.id] = src
    return mesh
  end
  if kind == "box" or kind == "cylinder" then return tycho.mesh.cube() end -- no cylinder mesh yet
  if kind == "sphere" then return tycho.mesh.sphere() end
  if kind == "plane" then return tycho.mesh.plane() end
  return nil
end

local function setFields(c, t, keys)
  for _, k in ipairs(keys) do
    if t[k] ~= nil then c[k] = t[k] end
  end
end

function Sync:_mirror(e)
  local state, number = self.state, e & 0xFFFF
  if number < RESERVED then return end -- the engine's own entities are not mirrored
  local prev = self._byNumber[number]
  if prev and prev ~= e and state:isRemoved(prev) then self:_destroy(prev) end
  if state:isRemoved(e) or not hasAny(state, e) then return self:_destroy(e) end
  local go = self._objects[e]
  if not go or go.destroyed then
    if go then self:_unmap(e) end
    go = tycho.GameObject.new(string.format("%s#%d.%d", self.name, number, e >> 16))
    if self.root then go:setParent(self.root) else self.scene:add(go) end
    self:_map(e, go)
  end

  local t = decoded(C.transform, (state:get(e, C.TRANSFORM)))
  if t then
    go.position, go.rotation, go.scale = t.position, t.rotation, t.scale
    self._wantParent[e] = t.parent
  else
    go.position, go.rotation, go.scale = { 0, 0, 0 }, tycho.quat.identity(), { 1, 1, 1 }
    self._wantParent[e] = 0
  end

  local gltf = decoded(C.gltfContainer, (state:get(e, C.GLTF_CONTAINER)))
  local mr = decoded(C.meshRenderer, (state:get(e, C.MESH_RENDERER)))
  local mesh = meshFor(self, mr and mr.kind, gltf and gltf.src)
  local material = self:_material((state:get(e, C.MATERIAL)))
  local r, made = ensure(go, tycho.MeshRenderer, mesh ~= nil, mesh, material)
  if r and not made then
    if r.mesh ~= mesh then r.mesh = mesh end
    if r.material ~= material then r.material = material end
  end

  local light = decoded(C.lightSource, (state:get(e, C.LIGHT_SOURCE)))
  local point = ensure(go, tycho.PointLight, light and light.kind == "point")
  local spot = ensure(go, tycho.SpotLight, light and light.kind == "spot")
  local l = point or spot
  if l then
    setFields(l, light, { "color", "intensity", "range", "innerAngle", "outerAngle" })
    l.castShadows = light.shadow
    l.enabled = light.active
  end

  local sun = decoded(C.directionalLight, (state:get(e, C.DIRECTIONAL_LIGHT)))
  local d = ensure(go, tycho.DirectionalLight, sun ~= nil)
  if d then
    setFields(d, sun, { "color", "intensity", "castShadows" })
    d.direction = sun.direction
  end

  local cam = decoded(C.camera, (state:get(e, C.CAMERA)))
  local camera = ensure(go, tycho.Camera, cam ~= nil)
  if camera then setFields(camera, cam, { "orthographic", "fov", "size", "near", "far" }) end
end

function Sync:_resolveParents()
  for e, p in pairs(self._wantParent) do
    local go = self._objects[e]
    if not go or go.destroyed then
      self._wantParent[e] = nil
    else
      local target = self._objects[p]
      local resolved = target ~= nil or p == 0 or (p & 0xFFFF) < RESERVED or self.state:isRemoved(p)
      target = target or self.root
      if go.parent ~= target then
        if not pcall(go.setParent, go, target) then
          go:setParent(self.root) -- a parent cycle: keep the object flat
          resolved = true
        end
      end
      if resolved then self._wantParent[e] = nil end
    end
  end
end

-- ---- local changes: flush ----

local function meshKind(self, mesh)
  if mesh == nil then return nil end
  if mesh == tycho.mesh.cube() then return "box" end
  if mesh == tycho.mesh.sphere() then return "sphere" end
  if mesh == tycho.mesh.plane() then return "plane" end
  return nil, self._meshPaths[mesh.id]
end

---Loads a mesh file that flush() can send (as core::GltfContainer with this path).
---@param path string
---@return tycho.Mesh mesh, boolean|nil ok, string|nil message
function Sync:loadMesh(path)
  if type(path) ~= "string" then argError(1, "loadMesh", "string expected, got " .. type(path)) end
  local mesh, ok, message = tycho.mesh.load(path)
  self._meshPaths[mesh.id] = path
  return mesh, ok, message
end

local function readColor(c)
  if c == nil then return nil end
  if type(c) == "table" then return { c[1] or c.r or c.x, c[2] or c.g or c.y, c[3] or c.b or c.z, c[4] or c.a } end
  return { c.x, c.y, c.z }
end

function Sync:_write(out, e, id, bytes)
  local state = self.state
  local msg
  if bytes then
    msg = state:put(e, id, bytes)
  elseif state:get(e, id) ~= nil then
    msg = state:deleteComponent(e, id)
  end
  if msg and msg ~= "" then out[#out + 1] = msg end
end

function Sync:_flushOne(out, e, go)
  local parent = go.parent and self._entities[go.parent.id] or 0
  self:_write(out, e, C.TRANSFORM, C.transform.encode({
    position = go.position, rotation = go.rotation, scale = go.scale, parent = parent,
  }))

  local r = go:getComponent(tycho.MeshRenderer)
  local kind, path = meshKind(self, r and r.mesh)
  self:_write(out, e, C.MESH_RENDERER, kind and C.meshRenderer.encode({ kind = kind }) or nil)
  self:_write(out, e, C.GLTF_CONTAINER, path and C.gltfContainer.encode({ src = path }) or nil)
  local m = (kind or path) and r.material
  self:_write(out, e, C.MATERIAL, m and C.material.encode({
    baseColor = readColor(m.baseColor), metallic = m.metallic, roughness = m.roughness,
    transparent = m.transparent, unlit = m.unlit, emissive = readColor(m.emissive),
  }) or nil)

  local point, spot = go:getComponent(tycho.PointLight), go:getComponent(tycho.SpotLight)
  local l = point or spot
  self:_write(out, e, C.LIGHT_SOURCE, l and C.lightSource.encode({
    kind = point and "point" or "spot", active = l.enabled ~= false, color = readColor(l.color),
    intensity = l.intensity, range = l.range, shadow = l.castShadows and true or false,
    innerAngle = spot and l.innerAngle or nil, outerAngle = spot and l.outerAngle or nil,
  }) or nil)

  local d = go:getComponent(tycho.DirectionalLight)
  self:_write(out, e, C.DIRECTIONAL_LIGHT, d and C.directionalLight.encode({
    color = readColor(d.color), intensity = d.intensity, direction = d.direction, castShadows = d.castShadows,
  }) or nil)

  local cam = go:getComponent(tycho.Camera)
  self:_write(out, e, C.CAMERA, cam and C.camera.encode({
    orthographic = cam.orthographic, fov = cam.fov, size = cam.size, near = cam.near, far = cam.far,
  }) or nil)
end

---The messages for what changed on tracked objects since the last flush ("" when nothing
---did). A destroyed tracked object becomes a DELETE_ENTITY.
---@return string bytes
function Sync:flush()
  local out = {}
  for e, go in pairs(self._tracked) do
    if go.destroyed then
      self:_unmap(e)
      local msg = self.state:deleteEntity(e)
      if msg and msg ~= "" then out[#out + 1] = msg end
    else
      self:_flushOne(out, e, go)
    end
  end
  return table.concat(out)
end

---Bytes that rebuild this Sync's state (for a newcomer).
---@return string bytes
function Sync:snapshot() return self.state:snapshot() end

---Destroys every mirrored GameObject (tracked ones stay) and forgets the map.
function Sync:close()
  for e, go in pairs(self._objects) do
    if not self._tracked[e] and not go.destroyed then go:destroy() end
  end
  self._objects, self._entities, self._tracked, self._byNumber, self._wantParent = {}, {}, {}, {}, {}
end

return M
