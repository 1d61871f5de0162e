---@meta tycho.voxel
-- scripts/meta/voxel.lua: LuaLS annotations for tycho.voxel and tycho.ui
-- (bindings/lua_voxel.c over engine/render/voxel.h, bindings/lua_ui.c over
-- engine/render/ui.h). Never loaded at run time; scripts/docs/reference.md lists them under Rendering.

---A block grid: one byte a cell, 0 is air.
---@class tycho.VoxelGrid
---@field sx integer
---@field sy integer
---@field sz integer
local VoxelGrid = {}

---@param x integer
---@param y integer
---@param z integer
---@return integer type 0 outside the grid
function VoxelGrid:get(x, y, z) end

---@param x integer
---@param y integer
---@param z integer
---@param type integer 0..255
---@return boolean inside
function VoxelGrid:set(x, y, z, type) end

---Fills the box between two corners (both included), clipped to the grid.
---@param x0 integer
---@param y0 integer
---@param z0 integer
---@param x1 integer
---@param y1 integer
---@param z1 integer
---@param type integer
function VoxelGrid:fill(x0, y0, z0, x1, y1, z1, type) end

---The highest y holding a block in column (x, z), or -1.
---@param x integer
---@param z integer
---@return integer
function VoxelGrid:top(x, z) end

---@param type integer
---@return integer cells of that type
function VoxelGrid:count(type) end

---@return string cells one byte each, x fastest, then z, then y
function VoxelGrid:bytes() end

---@param cells string as bytes() returns
function VoxelGrid:setBytes(cells) end

---@class tycho.VoxelPalette

---@class tycho.voxel
tycho.voxel = {}

---@param sx integer 1..1024
---@param sy integer 1..1024
---@param sz integer 1..1024
---@return tycho.VoxelGrid
function tycho.voxel.grid(sx, sy, sz) end

---@param opts {columns?: integer, rows?: integer, tiles?: table<integer, integer|integer[]>, seeThrough?: table<integer, boolean>}
---@return tycho.VoxelPalette
function tycho.voxel.palette(opts) end

---Meshes the faces of grid that border air; rewrites opts.mesh in place when given.
---@param grid tycho.VoxelGrid
---@param opts? {palette?: tycho.VoxelPalette, neighbors?: {px?: tycho.VoxelGrid, nx?: tycho.VoxelGrid, py?: tycho.VoxelGrid, ny?: tycho.VoxelGrid, pz?: tycho.VoxelGrid, nz?: tycho.VoxelGrid}, mesh?: tycho.Mesh, allFaces?: boolean}
---@return tycho.Mesh mesh
---@return integer faces
function tycho.voxel.mesh(grid, opts) end

---Seeded 2D gradient noise, about -1..1: tycho.terrain.noise under its first name.
---@param x number
---@param y number
---@param seed? integer
---@return number
function tycho.voxel.noise(x, y, seed) end

---@class tycho.ui
tycho.ui = {}

---Queues a rectangle (pixels from the top-left) for this frame's UI pass.
---@param x number
---@param y number
---@param w number
---@param h number
---@param color? number[] rgba 0..1, sRGB: written as given (0.5 is byte 128)
---@param texture? tycho.Texture drawn showing its own bytes
---@param uv? number[] {u0, v0, u1, v1} from the image's top-left
function tycho.ui.rect(x, y, w, h, color, texture, uv) end

---Queues text in the shipped TrueType face (10 pixels to the em times scale); returns its width in pixels.
---@param x number
---@param y number
---@param text string
---@param color? number[] rgba 0..1, sRGB
---@param scale? number
---@return number width
function tycho.ui.text(x, y, text, color, scale) end

---@param text string
---@param scale? number
---@return number width, number height
function tycho.ui.measure(text, scale) end

---@return integer vertices queued for this frame
---@return string|nil firstCall the call that started the queue ("tycho.ui.text at main.lua:12")
function tycho.ui.queued() end

---Drops this frame's queue undrawn. The engine does this (and says so once a run) when a
---frame's queue has no UI feature to draw it.
function tycho.ui.clear() end

---The feature that draws the queue: add it after Tonemap.
---@return tycho.Feature
function tycho.ui.feature() end
