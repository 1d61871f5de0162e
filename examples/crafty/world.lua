-- examples/crafty/world.lua: the voxel world: terrain per chunk column from the seed
-- (tycho.terrain, engine/terrain/: deterministic, the same blocks on every machine and on the
-- crafty server, which checks edits against them), block reads and writes across chunks, the
-- edit log (what a save stores and a load replays on top of the regenerated terrain), and the
-- DDA ray cast that picks the block under the crosshair. No rendering here: chunks.lua meshes
-- what this holds.
local World = {}
World.__index = World

World.CX, World.CY, World.CZ = tycho.terrain.CX, tycho.terrain.CY, tycho.terrain.CZ -- a chunk column: 16 x 128 x 16
World.SEA = tycho.terrain.SEA

local CX, CY, CZ = World.CX, World.CY, World.CZ
local floor = math.floor

---A seed (number or string, as SavedWorld keeps it) as a 32-bit integer (FNV-1a of its text).
---@param seed number|string
---@return integer
function World.seedNumber(seed)
  return tycho.terrain.seed(seed)
end

---Creates a world for seed; nothing is generated until a chunk is asked for.
---@param seed number|string
---@return table
function World.new(seed)
  local terrain = tycho.terrain.new(seed)
  return setmetatable({
    seed = seed,
    seedInt = terrain.seed,
    terrain = terrain,
    chunks = {},     -- "cx,cz" -> grid
    edits = {},      -- the log, in order: {x, y, z, type}; a later edit of a block replaces the earlier
    editIndex = {},  -- block key -> index in edits
    unsaved = {},    -- entries of edits made or changed since the last save, each once, in order
    unsavedSet = {}, -- entry -> true for those in unsaved
    dirty = {},      -- "cx,cz" -> true: chunks whose mesh is out of date
    log = print,
  }, World)
end

local function ckey(cx, cz) return cx .. "," .. cz end
World.chunkKey = ckey

---The terrain height (the y of the top block) at column (x, z).
function World:height(x, z)
  return self.terrain:height(x, z)
end

-- A fresh grid with the terrain of column (cx, cz), edits not applied.
function World:generate(cx, cz)
  return self.terrain:chunk(cx, cz)
end

---The grid of column (cx, cz), generated with its edits applied on first use.
function World:chunk(cx, cz)
  local k = ckey(cx, cz)
  local g = self.chunks[k]
  if not g then
    g = self:generate(cx, cz)
    self.chunks[k] = g
    local list = self.byChunk and self.byChunk[k]
    if list then
      for _, e in ipairs(list) do g:set(e.x - cx * CX, e.y, e.z - cz * CZ, e.type) end
    end
  end
  return g
end

---Whether chunk (cx, cz) has been generated.
function World:hasChunk(cx, cz) return self.chunks[ckey(cx, cz)] ~= nil end

---Forgets a generated chunk (it is made again, edits included, when next asked for).
function World:unload(cx, cz) self.chunks[ckey(cx, cz)] = nil end

---The block type at (x, y, z); air above and below the world.
function World:get(x, y, z)
  if y < 0 or y >= CY then return 0 end
  local cx, cz = floor(x / CX), floor(z / CZ)
  return self:chunk(cx, cz):get(x - cx * CX, y, z - cz * CZ)
end

local function validEdit(x, y, z, t)
  return math.type(x) == "integer" and math.type(y) == "integer" and math.type(z) == "integer"
    and math.type(t) == "integer" and y >= 0 and y < CY and t >= 0 and t <= 255
    and x > -(1 << 24) and x < (1 << 24) and z > -(1 << 24) and z < (1 << 24)
end
World.validEdit = validEdit

-- Notes a log entry as changed since the last save: an incremental save writes these only.
-- The entry itself is kept (not a copy), so a save sends its latest type.
local function noteUnsaved(self, e)
  if self.unsavedSet[e] then return end
  self.unsavedSet[e] = true
  self.unsaved[#self.unsaved + 1] = e
end

-- Records an edit in the log and the per-chunk index the generator replays.
function World:_record(x, y, z, t)
  local k = x .. "," .. y .. "," .. z
  local i = self.editIndex[k]
  if i then
    self.edits[i].type = t
    noteUnsaved(self, self.edits[i])
  else
    local e = { x = x, y = y, z = z, type = t }
    noteUnsaved(self, e)
    self.edits[#self.edits + 1] = e
    self.editIndex[k] = #self.edits
    local cx, cz = floor(x / CX), floor(z / CZ)
    self.byChunk = self.byChunk or {}
    local list = self.byChunk[ckey(cx, cz)]
    if not list then
      list = {}
      self.byChunk[ckey(cx, cz)] = list
    end
    list[#list + 1] = e
  end
end

---Sets the block at (x, y, z) to type t and logs the edit. Returns false (and changes
---nothing) outside the world. Marks its chunk, and a neighbour it borders, for re-meshing.
function World:set(x, y, z, t)
  if not validEdit(x, y, z, t) then return false end
  self:_record(x, y, z, t)
  local cx, cz = floor(x / CX), floor(z / CZ)
  local g = self.chunks[ckey(cx, cz)]
  if g then g:set(x - cx * CX, y, z - cz * CZ, t) end
  local lx, lz = x - cx * CX, z - cz * CZ
  self.dirty[ckey(cx, cz)] = true
  if lx == 0 then self.dirty[ckey(cx - 1, cz)] = true end
  if lx == CX - 1 then self.dirty[ckey(cx + 1, cz)] = true end
  if lz == 0 then self.dirty[ckey(cx, cz - 1)] = true end
  if lz == CZ - 1 then self.dirty[ckey(cx, cz + 1)] = true end
  if self.onEdit then self.onEdit(x, y, z, t) end
  return true
end

---Replays an edit log (a save's, or a server's welcome) onto this world. An entry out of
---the world or malformed is skipped with a log line. Returns how many were applied.
---@param edits {x: integer, y: integer, z: integer, type: integer}[]
---@return integer applied
function World:applyEdits(edits)
  local applied = 0
  for i, e in ipairs(edits) do
    if type(e) == "table" and validEdit(e.x, e.y, e.z, e.type) then
      self:set(e.x, e.y, e.z, e.type)
      applied = applied + 1
    else
      self.log(("crafty: edit %d skipped: (%s, %s, %s) type %s is outside the world"):format(i,
        tostring(type(e) == "table" and e.x), tostring(type(e) == "table" and e.y),
        tostring(type(e) == "table" and e.z), tostring(type(e) == "table" and e.type)))
    end
  end
  return applied
end

---Forgets the edits made since the last save (they are saved now, or came from the save).
function World:markSaved()
  self.unsaved, self.unsavedSet = {}, {}
end

---Whether the block at (x, y, z) is solid (stops the player).
function World:solid(x, y, z) return self:get(x, y, z) ~= 0 end

---Casts a ray from (ox, oy, oz) along the unit vector (dx, dy, dz) through the block grid
---(Amanatides and Woo's DDA) up to maxDistance. Returns the first solid block's
---x, y, z and the face normal it was entered through (nx, ny, nz), or nil.
function World:raycast(ox, oy, oz, dx, dy, dz, maxDistance)
  local x, y, z = floor(ox), floor(oy), floor(oz)
  local sx, sy, sz = dx > 0 and 1 or -1, dy > 0 and 1 or -1, dz > 0 and 1 or -1
  local huge = math.huge
  local tdx = dx ~= 0 and math.abs(1 / dx) or huge
  local tdy = dy ~= 0 and math.abs(1 / dy) or huge
  local tdz = dz ~= 0 and math.abs(1 / dz) or huge
  local tmx = dx ~= 0 and ((dx > 0 and (x + 1 - ox) or (ox - x)) * tdx) or huge
  local tmy = dy ~= 0 and ((dy > 0 and (y + 1 - oy) or (oy - y)) * tdy) or huge
  local tmz = dz ~= 0 and ((dz > 0 and (z + 1 - oz) or (oz - z)) * tdz) or huge
  local nx, ny, nz = 0, 0, 0
  local t = 0
  while t <= maxDistance do
    if self:get(x, y, z) ~= 0 then return x, y, z, nx, ny, nz end
    if tmx < tmy and tmx < tmz then
      x, t, tmx = x + sx, tmx, tmx + tdx
      nx, ny, nz = -sx, 0, 0
    elseif tmy < tmz then
      y, t, tmy = y + sy, tmy, tmy + tdy
      nx, ny, nz = 0, -sy, 0
    else
      z, t, tmz = z + sz, tmz, tmz + tdz
      nx, ny, nz = 0, 0, -sz
    end
  end
  return nil
end

return World
