-- examples/crafty/inventory.lua: the hotbar (nine block types, one selected) and, in
-- survival, how many of each type the player holds: breaking a block adds one, placing
-- takes one and is refused at zero. Creative never runs out. Saves as SavedWorld's
-- inventory {stacks = {{blockType, count}}, hotbar = {9 types}}.
local blocks = require("blocks")

local Inventory = {}
Inventory.__index = Inventory

Inventory.SLOTS = 9
Inventory.MAX_COUNT = 64 * 36 -- what the server keeps: 36 stacks of 64

---@param gameMode "creative"|"survival"
---@param saved? {stacks: {blockType: integer, count: integer}[], hotbar: integer[]}
function Inventory.new(gameMode, saved)
  local self = setmetatable({ gameMode = gameMode or "creative", counts = {}, hotbar = {}, selected = 1 }, Inventory)
  for i = 1, Inventory.SLOTS do self.hotbar[i] = blocks.HOTBAR[i] end
  if type(saved) == "table" then
    for i, t in ipairs(saved.hotbar or {}) do
      if i <= Inventory.SLOTS and (t == 0 or blocks.isBlock(t)) then self.hotbar[i] = t end
    end
    for _, s in ipairs(saved.stacks or {}) do
      if type(s) == "table" and blocks.isBlock(s.blockType) and math.type(s.count) == "integer" and s.count > 0 then
        self.counts[s.blockType] = math.min((self.counts[s.blockType] or 0) + s.count, Inventory.MAX_COUNT)
      end
    end
  end
  return self
end

function Inventory:creative() return self.gameMode == "creative" end

---How many of type t the player holds (math.huge in creative).
function Inventory:count(t)
  if self:creative() then return math.huge end
  return self.counts[t] or 0
end

---The selected hotbar type.
function Inventory:current() return self.hotbar[self.selected] end

---Selects slot i (1..9), or moves by a wheel step (+1/-1) with wrap-around.
function Inventory:select(i) self.selected = ((i - 1) % Inventory.SLOTS) + 1 end
function Inventory:scroll(d) self:select(self.selected + d) end

---A block of type t was broken: survival gains one.
function Inventory:gather(t)
  if self:creative() or not blocks.isBlock(t) then return end
  -- Grass breaks into dirt, as players expect.
  if t == blocks.GRASS then t = blocks.DIRT end
  self.counts[t] = math.min((self.counts[t] or 0) + 1, Inventory.MAX_COUNT)
  self.changed = true
end

---Takes one of type t to place it: true, or false when survival has none.
function Inventory:take(t)
  if not blocks.isBlock(t) then return false end
  if self:creative() then return true end
  local n = self.counts[t] or 0
  if n <= 0 then return false end
  self.counts[t] = n - 1
  self.changed = true
  return true
end

---Gives back one of type t (a placement the server refused).
function Inventory:refund(t)
  if self:creative() or not blocks.isBlock(t) then return end
  self.counts[t] = (self.counts[t] or 0) + 1
end

---The SavedWorld shape: stacks of at most 64, in block id order.
function Inventory:toSaved()
  local stacks, ids = {}, {}
  for t in pairs(self.counts) do ids[#ids + 1] = t end
  table.sort(ids)
  for _, t in ipairs(ids) do
    local n = self.counts[t]
    while n > 0 and #stacks < 36 do
      local c = math.min(n, 64)
      stacks[#stacks + 1] = { blockType = t, count = c }
      n = n - c
    end
  end
  local hotbar = {}
  for i = 1, Inventory.SLOTS do hotbar[i] = self.hotbar[i] end
  return { stacks = stacks, hotbar = hotbar }
end

return Inventory
