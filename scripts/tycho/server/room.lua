-- scripts/tycho/server/room.lua: a set of members (sessions, or anything with `.id` and
-- `:send(msg)`) that a server module broadcasts to. require("tycho.server.room").

---@class tycho.RoomMember
---@field id integer|string
---@field send fun(self: tycho.RoomMember, msg: any): boolean?

---@class tycho.Room
---@field members table<integer|string, tycho.RoomMember> members by id
---@field count integer how many members
local Room = {}
Room.__index = Room

---A new, empty room.
---@return tycho.Room
function Room.new()
  return setmetatable({ members = {}, count = 0 }, Room)
end

---Adds a member (replacing one with the same id). Returns the member.
---@param member tycho.RoomMember
---@return tycho.RoomMember
function Room:add(member)
  assert(type(member) == "table" or type(member) == "userdata", "bad argument #1 to 'add' (member expected)")
  local id = member.id
  assert(id ~= nil, "bad argument #1 to 'add' (member has no id)")
  if self.members[id] == nil then self.count = self.count + 1 end
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
  end
  return member
end

---Sends msg to every member but the one whose id is exceptId. Returns how many it was sent to.
---A member whose send raises is skipped; the error is re-raised after everyone else got msg.
---@param msg any
---@param exceptId? integer|string
---@return integer
function Room:broadcast(msg, exceptId)
  -- Members are sent to in id order so that a test sees a stable order.
  local ids = {}
  for id in pairs(self.members) do
    if id ~= exceptId then ids[#ids + 1] = id end
  end
  table.sort(ids, function(a, b)
    if type(a) == type(b) then return a < b end
    return type(a) == "number"
  end)
  local sent, firstError = 0, nil
  for _, id in ipairs(ids) do
    local ok, err = pcall(self.members[id].send, self.members[id], msg)
    if ok then sent = sent + 1 elseif not firstError then firstError = err end
  end
  if firstError then error(firstError, 0) end
  return sent
end

return Room
