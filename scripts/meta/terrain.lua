---@meta tycho.terrain
-- scripts/meta/terrain.lua: LuaLS annotations for tycho.terrain (bindings/lua_terrain.c over
-- engine/terrain/terrain.h): the block world generated from a seed, which crafty's client
-- draws and its server checks edits against. Never loaded at run time;
-- scripts/docs/reference.md lists it under "Voxels and the UI layer", scripts/docs/crafty.md
-- shows it in the game.

---A seed as a SavedWorld keeps it: an integer (its low 32 bits are used), a finite float or a
---string (both hashed as their text, FNV-1a, as `tostring` writes it).
---@alias tycho.TerrainSeed integer|number|string

---The terrain of one seed. `seed` is its 32-bit form (read-only).
---@class tycho.Terrain
---@field seed integer 0..2^32-1
local Terrain = {}

---The y of column (x, z)'s top block before trees (a chunk clamps it to CY - 8).
---Raises when |x| or |z| >= tycho.terrain.MAX_XZ.
---@param x integer
---@param z integer
---@return integer
function Terrain:height(x, z) end

---A new CX x CY x CZ grid holding chunk (cx, cz): cells cx * CX .. cx * CX + CX - 1 along x,
---and so along z; stone, dirt under grass, sand on the shore, snow on the heights, trees.
---Raises for a chunk outside the world (cx, cz outside -1048576..1048575).
---@param cx integer
---@param cz integer
---@return tycho.VoxelGrid
function Terrain:chunk(cx, cz) end

---The natural block at (x, y, z) (0 is air; air for y outside 0..CY - 1), what `chunk` puts
---there. Answered from a cache of the last chunks asked about (made on the first call, about
---512 KiB), so many questions about one neighbourhood generate each chunk once.
---Raises when |x| or |z| >= tycho.terrain.MAX_XZ, or a coordinate is not an integer.
---@param x integer
---@param y integer
---@param z integer
---@return integer type
function Terrain:block(x, y, z) end

---@class tycho.terrain
---@field CX integer 16: a chunk's cells along x
---@field CY integer 128: the world's height
---@field CZ integer 16: a chunk's cells along z
---@field SEA integer 40: shore level
---@field MAX_XZ integer 2^24: cells exist for |x|, |z| below it
tycho.terrain = {}

---A seed as the 32 bits the generator uses (World.seedNumber in crafty). Raises for a seed
---that is not an integer, a finite number or a string.
---@param seed tycho.TerrainSeed
---@return integer
function tycho.terrain.seed(seed) end

---The terrain of seed. Raises for a seed that is not an integer, a finite number or a string.
---@param seed tycho.TerrainSeed
---@return tycho.Terrain
function tycho.terrain.new(seed) end

---Seeded 2D gradient noise, about -1..1, 0 at integer points (the generator's octaves).
---@param x number
---@param y number
---@param seed? integer used as 32 bits; default 0
---@return number
function tycho.terrain.noise(x, y, seed) end
