-- examples/arcade/assets/make_sprites.lua: draws the arcade's pixel-art sprites from the
-- character maps below and writes them as PNG files beside this script.
-- Run: tycho run examples/arcade/assets/make_sprites.lua --headless --frames 0
-- The PNG writer is plain Lua (stored deflate blocks), so the sprites need no tool.

local here = (debug.getinfo(1, "S").source:sub(2):match("^(.*)/[^/]*$")) or "."

local palette = {
  ["."] = { 0, 0, 0, 0 },
  W = { 255, 255, 255, 255 },
  C = { 90, 200, 255, 255 },
  B = { 40, 90, 200, 255 },
  R = { 240, 70, 60, 255 },
  O = { 255, 170, 40, 255 },
  Y = { 255, 240, 120, 255 },
  G = { 110, 230, 90, 255 },
  D = { 40, 120, 40, 255 },
}

local sprites = {
  ship = {
    ".......WW.......",
    ".......WW.......",
    "......CWWC......",
    "......CWWC......",
    ".....CCWWCC.....",
    ".....CCBBCC.....",
    "....CCCBBCCC....",
    "...CCCCBBCCCC...",
    "..CCCCCCCCCCCC..",
    ".CCCCCCCCCCCCCC.",
    "CCCBBCCCCCCBBCCC",
    "CCB..BCCCCB..BCC",
    "CB....BCCB....BC",
    "......OYYO......",
    ".......OO.......",
    "................",
  },
  bullet = {
    "...YY...",
    "..YWWY..",
    "..YWWY..",
    "..YWWY..",
    "..OYYO..",
    "..OYYO..",
    "...OO...",
    "...RR...",
  },
  enemy = {
    "....G......G....",
    ".....G....G.....",
    "....GGGGGGGG....",
    "...GGDGGGGDGG...",
    "..GGGWDGGDWGGG..",
    "..GGGGGGGGGGGG..",
    ".GGGGGGGGGGGGGG.",
    ".G.GGGGGGGGGG.G.",
    ".G.GG......GG.G.",
    ".G.G........G.G.",
    "....GG....GG....",
    "...GG......GG...",
    "................",
    "................",
    "................",
    "................",
  },
}

-- The enemy's two flying frames side by side (tycho.spriteSheet cuts them 16 x 16): the
-- enemy above, then the same with its legs and antennae flapped.
local flap = {
  "...G........G...",
  "....G......G....",
  "....GGGGGGGG....",
  "...GGDGGGGDGG...",
  "..GGGWDGGDWGGG..",
  "..GGGGGGGGGGGG..",
  ".GGGGGGGGGGGGGG.",
  "G..GGGGGGGGGG..G",
  "G..GG......GG..G",
  "...G........G...",
  "...GG......GG...",
  "....GG....GG....",
  "................",
  "................",
  "................",
  "................",
}
sprites.enemy_sheet = {}
for i, row in ipairs(sprites.enemy) do sprites.enemy_sheet[i] = row .. flap[i] end

local function u32(n)
  return string.char((n >> 24) & 255, (n >> 16) & 255, (n >> 8) & 255, n & 255)
end

local crcTable = {}
for i = 0, 255 do
  local c = i
  for _ = 1, 8 do c = (c & 1) ~= 0 and (0xEDB88320 ~ (c >> 1)) or (c >> 1) end
  crcTable[i] = c
end

local function crc32(s)
  local c = 0xFFFFFFFF
  for i = 1, #s do c = crcTable[(c ~ s:byte(i)) & 255] ~ (c >> 8) end
  return c ~ 0xFFFFFFFF
end

local function adler32(s)
  local a, b = 1, 0
  for i = 1, #s do
    a = (a + s:byte(i)) % 65521
    b = (b + a) % 65521
  end
  return (b << 16) | a
end

local function chunk(kind, data)
  return u32(#data) .. kind .. data .. u32(crc32(kind .. data))
end

-- zlib with stored (uncompressed) deflate blocks of at most 65535 bytes.
local function zlibStored(raw)
  local out = { "\x78\x01" }
  local pos = 1
  repeat
    local block = raw:sub(pos, pos + 65534)
    pos = pos + #block
    local final = pos > #raw and 1 or 0
    local n = #block
    out[#out + 1] = string.char(final, n & 255, n >> 8, (~n) & 255, ((~n) >> 8) & 255) .. block
  until pos > #raw
  out[#out + 1] = u32(adler32(raw))
  return table.concat(out)
end

local function png(rows)
  local h, w = #rows, #rows[1]
  local raw = {}
  for y = 1, h do
    local line = { "\0" } -- filter type 0 per row
    for x = 1, w do
      local p = palette[rows[y]:sub(x, x)] or error(("unknown colour '%s'"):format(rows[y]:sub(x, x)))
      line[#line + 1] = string.char(p[1], p[2], p[3], p[4])
    end
    raw[#raw + 1] = table.concat(line)
  end
  return "\x89PNG\r\n\x1a\n"
    .. chunk("IHDR", u32(w) .. u32(h) .. "\8\6\0\0\0")
    .. chunk("IDAT", zlibStored(table.concat(raw)))
    .. chunk("IEND", "")
end

for name, rows in pairs(sprites) do
  local path = here .. "/" .. name .. ".png"
  local f = assert(io.open(path, "wb"))
  f:write(png(rows))
  f:close()
  print("wrote " .. path)
end
