-- scripts/tycho/server/room.lua: a set of members (sessions, or anything with `.id` and
-- `:send(msg)`) that a server module broadcasts to. require("tycho.server.room").
-- A broadcast encodes its message once and hands the same text to every session
-- (`session:sendText`); members without sendText get `:send(msg)`.

local fanout = tycho.fanout

---@class tycho.RoomMember
---@field id integer|string
---@field send fun(self: tycho.RoomMember, msg: any): boolean?

---@class tycho.Room
---@field members table<integer|string, tycho.RoomMember> members by id
---@field count integer how many members
local Room = {}
Room.__index = Room

-- Ids in broadcast order; sorted lazily, since members mostly join in id order.
local function byId(a, b)
  if type(a) == type(b) then return a < b end
  return type(a) == "number"
end

---A new, empty room.
---@return tycho.Room
function Room.new()
  return setmetatable({ members = {}, count = 0, order = {}, sorted = true }, Room)
end

---Adds a member (replacing one with the same id). Returns the member.
---@param member tycho.RoomMember
---@return tycho.RoomMember
function Room:add(member)
  assert(type(member) == "table" or type(member) == "userdata", "bad argument #1 to 'add' (member expected)")
  local id = member.id
  assert(id ~= nil, "bad argument #1 to 'add' (member has no id)")
  if self.members[id] == nil then
    self.count = self.count + 1
    local order = self.order
    local last = order[#order]
    order[#order + 1] = id
    if last ~= nil and not byId(last, id) then self.sorted = false end
  end
  self.members[id] = member
  return member
end

---Removes the member with this id; returns it, or nil when there was none.
---@param id integer|string
---@return tycho.RoomMember?
function Room:remove(id)
  local member = self.members[id]
  if member ~= nil then
    self.members[id] = nil
    self.count = self.count - 1
    local order = self.order
    for i = 1, #order do
      if order[i] == id then
        table.remove(order, i)
        break
      end
    end
  end
  return member
end

---Sends msg to every member but the one whose id is exceptId. Returns how many it was sent to.
---A member whose send raises is skipped; the error is re-raised after everyone else got msg.
---The loop over members is C (tycho.fanout): a broadcast costs a module's instruction fence
---the same few instructions for 2 members or 2,000.
---@param msg any
---@param exceptId? integer|string
---@return integer
function Room:broadcast(msg, exceptId)
  -- Members are sent to in id order so that a test sees a stable order.
  local order = self.order
  if not self.sorted then
    table.sort(order, byId)
    self.sorted = true
  end
  local sent, firstError = fanout(order, self.members, msg, exceptId)
  if firstError ~= nil then error(firstError, 0) end
  return sent
end

return Room
