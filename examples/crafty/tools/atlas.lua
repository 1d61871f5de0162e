-- examples/crafty/tools/atlas.lua: paints the block atlas content/textures/crafty_atlas.png
-- (4 x 4 tiles of 16 x 16 pixels) from blocks.lua's colours with seeded per-pixel noise and
-- a few patterns (grass edge, log rings, planks, bricks, glass frame). Deterministic: run it
-- again after changing a colour and commit the PNG.
--   build/tycho run examples/crafty/tools/atlas.lua --headless --frames 0
local here = debug.getinfo(1, "S").source:sub(2):match("^(.*)/[^/]*$") or "."
package.path = here .. "/../?.lua;" .. package.path
local blocks = require("blocks")

local T, C, R = blocks.TILE, blocks.ATLAS_COLUMNS, blocks.ATLAS_ROWS
local W, H = T * C, T * R
local px = {}
for i = 1, W * H * 4 do px[i] = 0 end

local function rnd(x, y, salt)
  local h = (x * 374761393 + y * 668265263 + salt * 2147483647) & 0xffffffff
  h = ((h ~ (h >> 13)) * 1274126177) & 0xffffffff
  return ((h ~ (h >> 16)) & 0xffff) / 65535
end

local function put(tile, x, y, c, a)
  local tx, ty = tile % C, tile // C
  local i = ((ty * T + y) * W + tx * T + x) * 4
  for k = 1, 3 do px[i + k] = math.floor(math.max(0, math.min(1, c[k])) * 255 + 0.5) end
  px[i + 4] = math.floor((a or 1) * 255 + 0.5)
end

local function shade(c, f) return { c[1] * f, c[2] * f, c[3] * f } end

local painters = {}
local function speckled(color, amount)
  return function(tile, x, y) put(tile, x, y, shade(color, 1 - amount + 2 * amount * rnd(x, y, tile))) end
end

local byId = blocks.byId
painters[0] = speckled(byId[blocks.GRASS].color, 0.12)
painters[1] = function(tile, x, y) -- grass side: dirt with a ragged green top
  local edge = 3 + math.floor(rnd(x, 0, 77) * 2.5)
  local c = y < edge and byId[blocks.GRASS].color or byId[blocks.DIRT].color
  put(tile, x, y, shade(c, 0.88 + 0.24 * rnd(x, y, tile)))
end
painters[2] = speckled(byId[blocks.DIRT].color, 0.14)
painters[3] = speckled(byId[blocks.STONE].color, 0.10)
painters[4] = speckled(byId[blocks.SAND].color, 0.06)
painters[5] = function(tile, x, y) -- bark: vertical streaks
  put(tile, x, y, shade(byId[blocks.LOG].color, 0.8 + 0.3 * rnd(x, 0, 5) + 0.1 * rnd(x, y, 6)))
end
painters[6] = function(tile, x, y) -- log top: rings
  local d = math.sqrt((x - 7.5) ^ 2 + (y - 7.5) ^ 2)
  local c = d > 6.5 and byId[blocks.LOG].color or byId[blocks.PLANKS].color
  put(tile, x, y, shade(c, (math.floor(d) % 2 == 0) and 0.9 or 1.05))
end
painters[7] = function(tile, x, y) put(tile, x, y, shade(byId[blocks.LEAVES].color, rnd(x, y, 7) < 0.2 and 0.6 or 1.0 + 0.2 * rnd(x, y, 8))) end
painters[8] = function(tile, x, y) -- planks: four boards
  local seam = y % 4 == 3 or (x == (y // 4 * 5) % 16)
  put(tile, x, y, shade(byId[blocks.PLANKS].color, seam and 0.7 or 0.95 + 0.1 * rnd(x, y // 4, 9)))
end
painters[9] = function(tile, x, y) -- cobblestone: cells
  local cx, cy = (x + (y // 5) * 3) // 5, y // 5
  local seam = (x + (y // 5) * 3) % 5 == 0 or y % 5 == 0
  put(tile, x, y, shade(byId[blocks.COBBLE].color, seam and 0.65 or 0.8 + 0.4 * rnd(cx, cy, 10)))
end
painters[10] = function(tile, x, y) -- glass: a frame and a glint
  local frame = x == 0 or y == 0 or x == 15 or y == 15
  local glint = (x - y == 3) or (x - y == 5)
  put(tile, x, y, (frame or glint) and { 0.85, 0.92, 0.95 } or byId[blocks.GLASS].color)
end
painters[11] = speckled(byId[blocks.SNOW].color, 0.03)
painters[12] = function(tile, x, y)
  local edge = 4 + math.floor(rnd(x, 0, 12) * 2.5)
  put(tile, x, y, shade(y < edge and byId[blocks.SNOW].color or byId[blocks.DIRT].color, 0.92 + 0.1 * rnd(x, y, 13)))
end
painters[13] = function(tile, x, y) -- bricks with mortar
  local row = y // 4
  local mortar = y % 4 == 3 or (x + (row % 2) * 4) % 8 == 7
  put(tile, x, y, mortar and { 0.78, 0.76, 0.72 } or shade(byId[blocks.BRICK].color, 0.9 + 0.2 * rnd(x // 8, row, 14)))
end

for tile = 0, C * R - 1 do
  local paint = painters[tile] or function(t, x, y) put(t, x, y, { 1, 0, 1 }) end
  for y = 0, T - 1 do
    for x = 0, T - 1 do paint(tile, x, y) end
  end
end

local bytes = {}
for i = 1, #px do bytes[i] = string.char(px[i]) end
local out = here .. "/../../../content/textures/crafty_atlas.png"
assert(tycho.image.save(out, W, H, table.concat(bytes)))
print("wrote " .. out)
