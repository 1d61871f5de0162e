-- A small FIFO queue: the library under test in tests/busted/features.
local Queue = {}
Queue.__index = Queue

---@return table
function Queue.new() return setmetatable({ first = 1, last = 0, items = {} }, Queue) end

---@param v any
function Queue:push(v)
  if v == nil then error("cannot push nil", 2) end
  self.last = self.last + 1
  self.items[self.last] = v
  if self.onPush then self.onPush(v) end
end

---@return any
function Queue:pop()
  if self.first > self.last then error({ code = "empty" }) end
  local v = self.items[self.first]
  self.items[self.first] = nil
  self.first = self.first + 1
  return v
end

---@return integer
function Queue:size() return self.last - self.first + 1 end

return Queue
