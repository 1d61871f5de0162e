-- scripts/tycho/component.lua: tycho.component(name), the Lua component classes.
--
-- A class is a plain table that indexes itself, so an instance's method lookup is one
-- metatable hop. Declaring the same name again returns the same table: code that holds
-- the class, and every live instance, sees methods redefined afterwards. That is what
-- hot reload relies on. The engine caches which phase hooks each instance has; the class
-- metatable tells it when a class gains a key, and a re-declaration tells it too.

local tycho = require("tycho")

local classChanged = tycho._classChanged
local classes = {}

local ClassMeta = {
  __newindex = function(class, key, value)
    rawset(class, key, value)
    classChanged()
  end,
  __tostring = function(class)
    return "component class " .. rawget(class, "__name")
  end,
}

---Declares (or re-opens) the component class `name`.
---@param name string
---@return tycho.ComponentClass
local function component(name)
  if type(name) ~= "string" then
    error(("bad argument #1 to 'component' (string expected, got %s)"):format(type(name)), 2)
  end
  local class = classes[name]
  if class then
    classChanged()
    return class
  end
  class = { __name = name }
  class.__index = class
  class.__tostring = function(self)
    local go = rawget(self, "gameObject")
    return go and ("%s on %s"):format(name, tostring(go)) or ("%s (detached)"):format(name)
  end
  ---Creates an instance; calls `instance:init(...)` when the class defines it.
  class.new = function(...)
    local self = setmetatable({ enabled = true }, class)
    local init = class.init
    if init then init(self, ...) end
    return self
  end
  setmetatable(class, ClassMeta)
  classes[name] = class
  return class
end

tycho.component = component
return component
