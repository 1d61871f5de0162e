-- examples/crafty/chunks.lua: the world on screen: one GameObject with a MeshRenderer per
-- chunk column within the view distance (the renderer's bucketing culls those outside the
-- frustum), meshed in C by tycho.voxel.mesh nearest first, a few a frame so walking never
-- stalls. An edited chunk is re-meshed into the same Mesh (no new mesh id per edit);
-- columns that fall out of range give their Mesh back to a pool the next ones reuse.
local World = require("world")
local blocks = require("blocks")

local Chunks = {}
Chunks.__index = Chunks

local CX, CZ = World.CX, World.CZ
local floor = math.floor

Chunks.pool = {}

local material
---The shared block material over the atlas (made once per Lua state).
function Chunks.material()
  if not material then
    local tex = tycho.texture.load("content/textures/crafty_atlas.png")
    material = tycho.material({ texture = tex, roughness = 0.9, nearest = true })
  end
  return material
end

---@param scene table
---@param world table
---@param opts? {viewDistance?: integer, perFrame?: integer}
function Chunks.new(scene, world, opts)
  opts = opts or {}
  return setmetatable({
    scene = scene, world = world,
    viewDistance = opts.viewDistance or 6,
    perFrame = opts.perFrame or 4,
    live = {},   -- "cx,cz" -> {object=, renderer=, mesh=, cx=, cz=}
    pool = Chunks.pool, -- meshes to reuse (shared: meshes live as long as the Lua state)
    meshed = 0,  -- chunks meshed so far
    faces = 0,
  }, Chunks)
end

-- Meshes chunk c into its mesh (reusing one from the pool when it has none).
function Chunks:_mesh(c)
  local w = self.world
  local g = w:chunk(c.cx, c.cz)
  local opts = {
    palette = blocks.palette(),
    neighbors = {
      px = w:chunk(c.cx + 1, c.cz), nx = w:chunk(c.cx - 1, c.cz),
      pz = w:chunk(c.cx, c.cz + 1), nz = w:chunk(c.cx, c.cz - 1),
    },
    mesh = c.mesh or table.remove(self.pool),
  }
  local mesh, faces = tycho.voxel.mesh(g, opts)
  c.mesh = mesh
  c.faces = faces
  if not c.object then
    c.object = self.scene:add(tycho.GameObject.new({ name = "chunk " .. c.cx .. "," .. c.cz,
      position = { x = c.cx * CX, y = 0, z = c.cz * CZ } }))
    c.renderer = c.object:addComponent(tycho.MeshRenderer.new(mesh, Chunks.material()))
  else
    c.renderer.mesh = mesh
  end
  self.meshed = self.meshed + 1
end

---Brings the chunks around block position (px, pz) up to date: re-meshes edited ones,
---meshes up to perFrame missing ones nearest first, and drops those out of range.
---Returns how many chunks are still waiting.
function Chunks:update(px, pz, budget)
  budget = budget or self.perFrame
  local pcx, pcz = floor(px / CX), floor(pz / CZ)
  local r = self.viewDistance
  -- Edits first: the player sees them at once.
  for k in pairs(self.world.dirty) do
    local c = self.live[k]
    if c and c.mesh then self:_mesh(c) end
    self.world.dirty[k] = nil
  end
  local want = {}
  for dx = -r, r do
    for dz = -r, r do
      if dx * dx + dz * dz <= r * r then
        local k = World.chunkKey(pcx + dx, pcz + dz)
        if not self.live[k] then want[#want + 1] = { d = dx * dx + dz * dz, cx = pcx + dx, cz = pcz + dz, k = k } end
      end
    end
  end
  table.sort(want, function(a, b) return a.d < b.d end)
  for i = 1, math.min(budget, #want) do
    local w = want[i]
    local c = { cx = w.cx, cz = w.cz }
    self.live[w.k] = c
    self:_mesh(c)
  end
  -- Out of range (with a margin, so walking along a border does not churn): freed.
  local far = (r + 2) * (r + 2)
  for k, c in pairs(self.live) do
    local dx, dz = c.cx - pcx, c.cz - pcz
    if dx * dx + dz * dz > far then
      if c.object then c.object:destroy() end
      if c.mesh then self.pool[#self.pool + 1] = c.mesh end
      self.live[k] = nil
      self.world:unload(c.cx, c.cz)
    end
  end
  return math.max(0, #want - budget)
end

---Meshes everything in range now (tests, benchmarks, the first frame of a world).
function Chunks:buildAll(px, pz)
  while self:update(px, pz, 64) > 0 do end
end

---Chunk objects alive now.
function Chunks:count()
  local n = 0
  for _ in pairs(self.live) do n = n + 1 end
  return n
end

---Removes every chunk object (leaving a world).
function Chunks:clear()
  for k, c in pairs(self.live) do
    if c.object then c.object:destroy() end
    if c.mesh then self.pool[#self.pool + 1] = c.mesh end
    self.live[k] = nil
  end
end

return Chunks
