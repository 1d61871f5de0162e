-- examples/crafty/blocks.lua: the block types: ids (what the world, saves and the crafty
-- protocol carry), names, which tile of content/textures/crafty_atlas.png each face shows,
-- and the base colours tools/atlas.lua paints the atlas from.
local M = {}

M.AIR = 0
M.GRASS, M.DIRT, M.STONE, M.SAND, M.LOG, M.LEAVES, M.PLANKS, M.COBBLE, M.GLASS, M.SNOW, M.BRICK =
  1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11

-- The atlas: a 4 x 4 grid of 16-pixel tiles.
M.ATLAS_COLUMNS, M.ATLAS_ROWS, M.TILE = 4, 4, 16

---@type {id: integer, name: string, tiles: integer[], color: number[], seeThrough?: boolean}[]
M.list = {
  { id = M.GRASS, name = "grass", tiles = { 0, 1, 2 }, color = { 0.36, 0.62, 0.25 } },
  { id = M.DIRT, name = "dirt", tiles = { 2, 2, 2 }, color = { 0.47, 0.33, 0.21 } },
  { id = M.STONE, name = "stone", tiles = { 3, 3, 3 }, color = { 0.50, 0.50, 0.52 } },
  { id = M.SAND, name = "sand", tiles = { 4, 4, 4 }, color = { 0.86, 0.80, 0.56 } },
  { id = M.LOG, name = "log", tiles = { 6, 5, 6 }, color = { 0.42, 0.30, 0.18 } },
  { id = M.LEAVES, name = "leaves", tiles = { 7, 7, 7 }, color = { 0.22, 0.48, 0.18 } },
  { id = M.PLANKS, name = "planks", tiles = { 8, 8, 8 }, color = { 0.72, 0.56, 0.34 } },
  { id = M.COBBLE, name = "cobblestone", tiles = { 9, 9, 9 }, color = { 0.42, 0.42, 0.44 } },
  { id = M.GLASS, name = "glass", tiles = { 10, 10, 10 }, color = { 0.80, 0.90, 0.95 }, seeThrough = true },
  { id = M.SNOW, name = "snow", tiles = { 11, 12, 2 }, color = { 0.95, 0.96, 0.98 } },
  { id = M.BRICK, name = "brick", tiles = { 13, 13, 13 }, color = { 0.62, 0.27, 0.22 } },
}

M.byId = {}
for _, b in ipairs(M.list) do M.byId[b.id] = b end

---The default hotbar: nine placeable types.
M.HOTBAR = { M.GRASS, M.DIRT, M.STONE, M.PLANKS, M.LOG, M.COBBLE, M.GLASS, M.SAND, M.BRICK }

---Whether id names a block that can be placed.
---@param id any
---@return boolean
function M.isBlock(id)
  return math.type(id) == "integer" and M.byId[id] ~= nil
end

local palette
---The tycho.voxel palette for these blocks (made once).
function M.palette()
  if not palette then
    local tiles, see = {}, {}
    for _, b in ipairs(M.list) do
      tiles[b.id] = b.tiles
      see[b.id] = b.seeThrough or nil
    end
    palette = tycho.voxel.palette({ columns = M.ATLAS_COLUMNS, rows = M.ATLAS_ROWS, tiles = tiles, seeThrough = see })
  end
  return palette
end

return M
