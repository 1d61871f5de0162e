-- examples/crafty/ui.lua: what crafty draws with tycho.ui and tycho.draw over the frame: the HUD
-- (crosshair, hotbar with counts, chat, a status line, other players' name tags) and the
-- start screen (saved worlds or a server's, with thumbnails, most recently played first,
-- the keys that create, continue, delete or go multiplayer, the name field of a world being
-- made or of the player, a removal to confirm). Layout only: main.lua owns the state it
-- shows.
local blocks = require("blocks")

local UI = {}

local WHITE, SHADOW = { 1, 1, 1, 1 }, { 0, 0, 0, 0.6 }

-- Text is the engine's TrueType font through tycho.draw (over the tycho.ui panels); `scale`
-- keeps the sizes of the bitmap font it replaced: 8 pixels of em per unit.
local fonts = {}
local function fontFor(scale)
  local size = math.floor(8 * scale + 0.5)
  local f = fonts[size]
  if not f then
    f = tycho.font.default(size)
    fonts[size] = f
  end
  return f
end

local function measure(s, scale)
  local f = fontFor(scale)
  local _, breaks = s:gsub("\n", "")
  return f:getWidth(s), (breaks + 1) * f:getHeight()
end
UI.measure = measure

local function text(x, y, s, color, scale)
  local f = fontFor(scale)
  tycho.draw.text(s, x + scale, y + scale, { font = f, color = SHADOW })
  tycho.draw.text(s, x, y, { font = f, color = color or WHITE })
  return f:getWidth(s)
end
UI.text = text

-- The atlas tile of a block's side as image-space uv.
local function tileUv(t)
  local b = blocks.byId[t]
  if not b then return nil end
  local tile = b.tiles[2]
  local c, r = tile % blocks.ATLAS_COLUMNS, tile // blocks.ATLAS_COLUMNS
  return { c / blocks.ATLAS_COLUMNS, r / blocks.ATLAS_ROWS, (c + 1) / blocks.ATLAS_COLUMNS, (r + 1) / blocks.ATLAS_ROWS }
end

local HOTBAR_SLOT = 44

UI.NAME_TAG_RANGE = 48 -- blocks: players further away have no name tag

---"1 edit", "2 edits": n and the word, plural unless n is 1 (`plural` when not word .. "s").
---@param n integer
---@param word string
---@param plural? string
---@return string
function UI.count(n, word, plural)
  return ("%d %s"):format(n, n == 1 and word or (plural or word .. "s"))
end

---Where the world point (x, y, z) falls on a w x h screen seen from the eye (ex, ey, ez)
---turned by yaw and pitch (crafty's camera: yaw about +Y, then pitch about +X, looking down
----Z) with a vertical field of view of fovDeg: sx, sy in pixels from the top-left, and the
---distance along the view; nil when it is behind the eye.
---@return number|nil sx, number|nil sy, number|nil depth
function UI.project(ex, ey, ez, yaw, pitch, fovDeg, w, h, x, y, z)
  local cy, sy, cp, sp = math.cos(yaw), math.sin(yaw), math.cos(pitch), math.sin(pitch)
  local fx, fy, fz = -sy * cp, sp, -cy * cp -- forward (Player:look)
  local rx, rz = cy, -sy                     -- right (level)
  local ux, uy, uz = sy * sp, cp, cy * sp    -- up = right x forward
  local dx, dy, dz = x - ex, y - ey, z - ez
  local depth = dx * fx + dy * fy + dz * fz
  if depth <= 0.05 then return nil end
  local f = (h / 2) / math.tan(math.rad(fovDeg) / 2)
  local px, py = (dx * rx + dz * rz) / depth, (dx * ux + dy * uy + dz * uz) / depth
  return w / 2 + px * f, h / 2 - py * f, depth
end

---Where the chat field sits on a w x h screen: x, y, width, height (main.lua places the
---IME's candidates beside it).
---@param w number
---@param h number
---@return number, number, number, number
function UI.chatField(w, h) return 8, h - HOTBAR_SLOT - 38, w * 0.5, 22 end

---Where a new world's name field sits on the start screen: x, y, width, height.
---@param w number
---@return number, number, number, number
function UI.nameField(w, _) return 36, 176, w - 72, 32 end

---The in-game HUD.
---@param s {width: integer, height: integer, inventory: table, atlas: table, chat: string[], status?: string, typing?: string, mode: string}
function UI.hud(s)
  local w, h = s.width, s.height
  local cx, cy = w / 2, h / 2
  tycho.ui.rect(cx - 10, cy - 1, 20, 2, { 1, 1, 1, 0.85 })
  tycho.ui.rect(cx - 1, cy - 10, 2, 20, { 1, 1, 1, 0.85 })
  local inv = s.inventory
  local slot, pad = HOTBAR_SLOT, 4
  local total = 9 * slot + 8 * pad
  local x0, y0 = (w - total) / 2, h - slot - 12
  tycho.ui.rect(x0 - 6, y0 - 6, total + 12, slot + 12, { 0, 0, 0, 0.45 })
  for i = 1, 9 do
    local x = x0 + (i - 1) * (slot + pad)
    local t = inv.hotbar[i]
    if i == inv.selected then tycho.ui.rect(x - 3, y0 - 3, slot + 6, slot + 6, { 1, 1, 1, 0.9 }) end
    tycho.ui.rect(x, y0, slot, slot, { 0.15, 0.15, 0.15, 0.9 })
    local uv = tileUv(t)
    if uv then
      local n = inv:count(t)
      local alpha = n > 0 and 1 or 0.3
      tycho.ui.rect(x + 6, y0 + 6, slot - 12, slot - 12, { 1, 1, 1, alpha }, s.atlas, uv)
      if n ~= math.huge then text(x + slot - 4 - measure(tostring(n), 1.4), y0 + slot - 15, tostring(n), WHITE, 1.4) end
    end
    text(x + 3, y0 + 2, tostring(i), { 1, 1, 1, 0.6 }, 1)
  end
  local name = blocks.byId[inv:current()] and blocks.byId[inv:current()].name or ""
  text((w - measure(name, 2)) / 2, y0 - 30, name, WHITE, 2)
  text(10, 10, s.mode .. (s.status and ("  " .. s.status) or ""), WHITE, 1.6)
  local y = h - slot - 60
  for i = #s.chat, math.max(1, #s.chat - 5), -1 do
    text(10, y, s.chat[i], WHITE, 1.6)
    y = y - 20
  end
  for _, tag in ipairs(s.tags or {}) do
    local scale = tag.distance < 16 and 1.6 or 1.2
    local tw, th = measure(tag.name, scale)
    tycho.ui.rect(tag.x - tw / 2 - 4, tag.y - 2, tw + 8, th + 4, { 0, 0, 0, 0.45 })
    text(tag.x - tw / 2, tag.y, tag.name, WHITE, scale)
  end
  if s.typing then
    local fx, fy, fw, fh = UI.chatField(w, h)
    tycho.ui.rect(fx, fy, fw, fh, { 0, 0, 0, 0.6 })
    text(fx + 4, fy + 4, "> " .. s.typing .. "_", WHITE, 1.6)
  end
end

-- The start screen's keys: the local saves, or a server's worlds.
local LOCAL_KEYS = "N new creative world   S new survival world   Enter play   Delete remove   P your name   M multiplayer   Esc quit"
local SERVER_KEYS = "N new creative world   S new survival world   Enter join   Delete remove yours   R refresh   M or Esc back to your worlds"

---What the start screen says where its list is empty (server: the list of a server, nil
---for the local saves; connecting: its list has not arrived yet).
---@param server? string
---@param connecting? boolean
---@return string
function UI.emptyList(server, connecting)
  if connecting then return "Waiting for the server's worlds ..." end
  if server then return "No worlds on this server yet: press N or S to make one." end
  return "No saved worlds yet: press N (creative) or S (survival) to make one."
end

---One world's line under its name: mode, seed, edits, players online, last played.
---@param wd table a world list entry (SavedWorld without edits, or a server's summary)
---@return string
function UI.worldLine(wd)
  local parts = { wd.gameMode or "?", "seed " .. tostring(wd.seed), UI.count(wd.editCount or 0, "edit") }
  if (wd.online or 0) > 0 then parts[#parts + 1] = UI.count(wd.online, "player") .. " online" end
  if wd.lastPlayedAt then parts[#parts + 1] = os.date("%Y-%m-%d %H:%M", wd.lastPlayedAt // 1000) end
  return table.concat(parts, "   ")
end

-- A text field with a caret; `placeholder` (dim) shows while it is empty.
local function field(fx, fy, fw, fh, value, placeholder)
  tycho.ui.rect(fx, fy, fw, fh, { 0.2, 0.2, 0.25, 0.9 })
  if value == "" then
    if placeholder then text(fx + 8, fy + 8, placeholder, { 1, 1, 1, 0.4 }, 2) end
    text(fx + 8, fy + 8, "_", WHITE, 2)
  else
    text(fx + 8, fy + 8, value .. "_", WHITE, 2)
  end
end

---The start screen.
---@param s {width: integer, height: integer, worlds: table[], selected: integer, thumbs: table, naming?: {gameMode: string, name: string, default: string}, namingPlayer?: {name: string}, confirmDelete?: {name: string}, playerName?: string, message?: string, server?: string, connecting?: boolean}
function UI.menu(s)
  local w, h = s.width, s.height
  tycho.ui.rect(0, 0, w, h, { 0.08, 0.1, 0.14, 0.85 })
  text(40, 30, "crafty", { 0.6, 0.9, 0.5, 1 }, 5)
  if s.playerName then text(w - 40 - measure("you: " .. s.playerName, 1.6), 44, "you: " .. s.playerName, WHITE, 1.6) end
  text(40, 90, s.server and SERVER_KEYS or LOCAL_KEYS, WHITE, 1.5)
  if s.message then text(40, 115, s.message, { 1, 0.6, 0.4, 1 }, 1.5) end
  if s.namingPlayer then
    text(40, 150, "Your name in multiplayer   (Enter keep   Esc back)", WHITE, 1.8)
    local fx, fy, fw, fh = UI.nameField(w, h)
    field(fx, fy, fw, fh, s.namingPlayer.name, "player")
    return
  end
  if s.confirmDelete then
    text(40, 150, "Remove \"" .. s.confirmDelete.name .. "\" for good?", { 1, 0.75, 0.5, 1 }, 2)
    text(40, 180, "Delete or Y removes it; any other key keeps it.", WHITE, 1.8)
    return
  end
  if s.naming then
    local n = s.naming
    text(40, 150, "Name the new " .. n.gameMode .. " world   (Enter create   Esc back)", WHITE, 1.8)
    local fx, fy, fw, fh = UI.nameField(w, h)
    field(fx, fy, fw, fh, n.name, n.default) -- an empty name becomes the default shown
    if s.server then text(40, h - 40, s.server, { 0.8, 0.85, 0.9, 1 }, 1.4) end
    return
  end
  local y = 150
  if #s.worlds == 0 then text(40, y, UI.emptyList(s.server, s.connecting), WHITE, 2) end
  for i, wd in ipairs(s.worlds) do
    if y > h - 80 then break end
    local sel = i == s.selected
    tycho.ui.rect(36, y - 4, w - 72, 80, sel and { 0.3, 0.45, 0.7, 0.8 } or { 0.2, 0.2, 0.25, 0.6 })
    local thumb = s.thumbs[wd.id]
    if thumb then tycho.ui.rect(44, y, 128, 72, WHITE, thumb)
    else tycho.ui.rect(44, y, 128, 72, { 0.3, 0.5, 0.3, 1 }) end
    text(190, y + 6, wd.name, WHITE, 2.2)
    text(190, y + 36, UI.worldLine(wd), { 0.8, 0.85, 0.9, 1 }, 1.4)
    y = y + 88
  end
  if s.server then text(40, h - 40, s.server, { 0.8, 0.85, 0.9, 1 }, 1.4) end
end

return UI
