-- scripts/tycho/check.lua: the argument checks the engine's Lua modules share (internal:
-- require("tycho.check")); their errors read as Lua's own ("bad argument #1 to 'new' (...)").
local check = {}

---What a value is, for an error message: the `__name` of its metatable (a userdata type
---such as `Vec3`, or a class table that names itself), else its Lua type.
---@param v any
---@return string
function check.typeName(v)
  local mt = (type(v) == "userdata" or type(v) == "table") and getmetatable(v)
  return (mt and rawget(mt, "__name")) or type(v)
end

---Raises "bad argument #n to 'fname' (msg)" at `level` above the caller of argError.
---@param n integer
---@param fname string
---@param msg string
---@param level integer
function check.argError(n, fname, msg, level)
  error(("bad argument #%d to '%s' (%s)"):format(n, fname, msg), level + 1)
end

return check
