-- scripts/tycho/prefab.lua: tycho.prefab and scene:spawn, plus scene helpers written in Lua.
--
-- A prefab is a table {name=, tags=, position=, rotation=, scale=, components={{Class, args...}},
-- children={prefab...}} or a function(go, ...) that builds onto a fresh GameObject. Spawning
-- adds the object to the scene first, so components attach with their scene clock and
-- follow the scene's deferral rules (spawned during a tick, it joins at the tick's end).

local tycho = require("tycho")

local registry = {}

---Registers a prefab under `name`; returns `def`.
---@param name string
---@param def tycho.PrefabDef|fun(go: tycho.GameObject, ...)
---@return tycho.PrefabDef|fun(go: tycho.GameObject, ...)
function tycho.prefab(name, def)
  if type(name) ~= "string" then
    error(("bad argument #1 to 'prefab' (string expected, got %s)"):format(type(name)), 2)
  end
  local kind = type(def)
  if kind ~= "table" and kind ~= "function" then
    error(("bad argument #2 to 'prefab' (table or function expected, got %s)"):format(kind), 2)
  end
  registry[name] = def
  return def
end

local function resolve(prefab, level)
  if type(prefab) == "string" then
    local def = registry[prefab]
    if not def then error(("unknown prefab '%s'"):format(prefab), level + 1) end
    return def, prefab
  end
  local kind = type(prefab)
  if kind ~= "table" and kind ~= "function" then
    error(("bad argument #1 to 'spawn' (prefab name, table or function expected, got %s)"):format(kind), level + 1)
  end
  return prefab, nil
end

local build

local function buildTable(def, go)
  for _, tag in ipairs(def.tags or {}) do go:addTag(tag) end
  if def.rotation then go.rotation = def.rotation end
  if def.scale then go.scale = def.scale end
  for i, entry in ipairs(def.components or {}) do
    if type(entry) ~= "table" or type(entry[1]) ~= "table" then
      error(("prefab component #%d must be {Class, args...}"):format(i), 0)
    end
    go:addComponent(entry[1], table.unpack(entry, 2))
  end
  for _, child in ipairs(def.children or {}) do
    local childDef, childName = resolve(child, 1)
    local isTable = type(childDef) == "table" -- a function child has no name or position
    local c = tycho.GameObject.new((isTable and childDef.name) or childName or "GameObject")
    if isTable and childDef.position then c.position = childDef.position end
    go:addChild(c)
    build(childDef, c)
  end
end

build = function(def, go, ...)
  if type(def) == "function" then
    def(go, ...)
  else
    buildTable(def, go)
  end
end

---Builds a prefab (registered name, table or function) into this scene.
---@param prefab string|tycho.PrefabDef|fun(go: tycho.GameObject, ...)
---@param position? tycho.Vec3|{x:number,y:number,z:number}
---@return tycho.GameObject
function tycho.Scene:spawn(prefab, position, ...)
  local def, name = resolve(prefab, 2)
  local go = tycho.GameObject.new((type(def) == "table" and def.name) or name or "GameObject")
  local at = position or (type(def) == "table" and def.position)
  if at then go.position = at end
  self:add(go)
  build(def, go, ...)
  return go
end

---The first Camera component in join order, or nil.
---@return table|nil
function tycho.Scene:findCamera()
  local Camera = rawget(tycho, "Camera")
  if not Camera then return nil end
  -- The usual case, one camera in this scene, without scanning every object.
  local live = rawget(Camera, "_live")
  if live then
    local found, count = nil, 0
    for camera in pairs(live) do
      local go = rawget(camera, "gameObject")
      if go and self:findById(go.id) == go then
        found, count = camera, count + 1
        if count > 1 then break end
      end
    end
    if count <= 1 then return found end
  end
  for _, go in ipairs(self:objects()) do
    local camera = go:getComponent(Camera)
    if camera then return camera end
  end
  return nil
end
