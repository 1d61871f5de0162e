-- scripts/tycho/physics.lua: the 2D physics components (RigidBody2D, BoxCollider2D,
-- CircleCollider2D, PolygonCollider2D) over tycho._physics (bindings/lua_physics.c).
--
-- A body is built from its object's components when the object's scene next reaches its
-- physics phase (or at once when a script asks the body for something): the RigidBody2D
-- (none means static) and every 2D collider on the object. Adding or removing one of
-- them rebuilds the body, keeping its velocity. Fields live in a store beside each
-- instance so reads and writes reach the body.

local tycho = require("tycho")
local P = tycho._physics

local stores = setmetatable({}, { __mode = "k" }) -- instance -> its field store

-- Objects waiting for their body to be (re)built, in the order they asked: building in a
-- fixed order keeps a run deterministic.
local pending, pendingSet = {}, {}

local function typeName(v)
  local mt = type(v) == "userdata" and getmetatable(v)
  return (mt and rawget(mt, "__name")) or type(v)
end

local function argError(n, fname, msg, level)
  error(("bad argument #%d to '%s' (%s)"):format(n, fname, msg), level + 1)
end

-- {x=, y=}, {x, y} or a Vec3 -> x, y; nil for anything else.
local function readVec2(v)
  local t = type(v)
  if t == "table" or (t == "userdata" and typeName(v) == "Vec3") then
    local x, y
    if t == "table" then x, y = v.x or v[1], v.y or v[2] else x, y = v.x, v.y end
    if type(x) == "number" and type(y) == "number" then return x, y end
  end
  return nil
end

local function checkVec2(v, n, fname, level)
  local x, y = readVec2(v)
  if not x then argError(n, fname, "Vec3 or {x=, y=} expected, got " .. typeName(v), level + 1) end
  return x, y
end

local function markPending(go)
  if go and not pendingSet[go] then
    pendingSet[go] = true
    pending[#pending + 1] = go
  end
end

local function sceneOf(go) return go.scene end

-- Builds (or rebuilds, or removes) go's body in scene from its components now.
local function build(scene, go)
  local vx, vy, av = P.destroyBody(go.id)
  local body, colliders = nil, {}
  for _, c in ipairs(go:getComponents()) do
    local s = stores[c]
    if s and s.isBody then
      body = body or c
    elseif s and s.shape then
      colliders[#colliders + 1] = s
    end
  end
  if not body and #colliders == 0 then return end
  local bs = body and stores[body] or { type = "static" }
  P.createBody(scene.physics2d, go, bs)
  for _, cs in ipairs(colliders) do
    local shape = cs.shape
    shape.trigger = cs.trigger
    shape.friction = cs.friction or bs.friction or 0.5
    shape.restitution = cs.restitution or bs.restitution or 0
    if not P.addShape(go, shape) then
      io.stderr:write(("tycho: %s: PolygonCollider2D points make no convex polygon; ignored\n"):format(tostring(go)))
    end
  end
  if bs.type == "dynamic" then P.set(go, "mass", bs.mass) end
  if vx then
    P.set(go, "velocity", { vx, vy })
    P.set(go, "angularVelocity", av)
  elseif bs.velocity then
    P.set(go, "velocity", bs.velocity)
    bs.velocity = nil
  end
  if bs.angularVelocity then
    P.set(go, "angularVelocity", bs.angularVelocity)
    bs.angularVelocity = nil
  end
end

-- Builds every waiting object that is in scene; the others keep waiting (or are dropped
-- once destroyed). The physics phase calls this before each step.
local function flush(scene)
  if #pending == 0 then return end
  local list = pending
  pending = {}
  for _, go in ipairs(list) do
    local ok, s = pcall(sceneOf, go)
    if not ok then
      pendingSet[go] = nil
    elseif s ~= scene then
      pending[#pending + 1] = go
    else
      pendingSet[go] = nil
      build(scene, go)
    end
  end
end
P.setFlush(flush)

-- The GameObject of a body component whose body exists (built now if it was waiting).
local function live(self)
  local go = rawget(self, "gameObject")
  if not go then return nil end
  if pendingSet[go] then
    local s = go.scene
    if s then flush(s) end
  end
  if P.hasBody(go.id) then return go end
  return nil
end

local function changed(self)
  local go = rawget(self, "gameObject")
  if go then markPending(go) end
end

-- A component class whose fields go through get(self, store, key) and set(self, store,
-- key, value); other keys are plain instance fields.
local function nativeClass(name, fields)
  local class = tycho.component(name)
  rawset(class, "__class", class)
  rawset(class, "__index", function(self, key)
    local f = fields[key]
    if f then return f.get(self, stores[self], key) end
    return class[key]
  end)
  rawset(class, "__newindex", function(self, key, value)
    local f = fields[key]
    if f then
      if not f.set then error(("%s.%s is read-only"):format(name, key), 2) end
      f.set(self, stores[self], key, value)
    else
      rawset(self, key, value)
    end
  end)
  rawset(class, "new", function(...)
    local self = setmetatable({}, class)
    stores[self] = {}
    local init = class.init
    if init then init(self, ...) end
    return self
  end)
  class.onAttach = changed
  class.onDetach = changed
  return class
end

local function checkOpts(opts, fname)
  if opts == nil then return {} end
  if type(opts) ~= "table" then argError(1, fname, "table expected, got " .. typeName(opts), 3) end
  return opts
end

local function optNumber(opts, key, def, fname, min)
  local v = opts[key]
  if v == nil then return def end
  if type(v) ~= "number" or v ~= v or (min and v < min) then
    argError(1, fname, ("%s must be a number%s, got %s"):format(key, min and (" >= " .. min) or "",
      type(v) == "number" and tostring(v) or typeName(v)), 4)
  end
  return v
end

local BODY_TYPES = { dynamic = true, static = true, kinematic = true }

-- ---------------------------------------------------------------------------------------
-- RigidBody2D

local function stored(_, s, key) return s[key] end

local function bodyField(key, check)
  return {
    get = stored,
    set = function(self, s, _, value)
      value = check(value, key)
      s[key] = value
      local go = live(self)
      if go then
        if key == "linearDamping" or key == "angularDamping" then
          P.set(go, "damping", s.linearDamping, s.angularDamping)
        elseif key == "friction" or key == "restitution" then
          changed(self) -- shapes take them: rebuild
        else
          P.set(go, key, value)
          if key == "type" then
            if value == "dynamic" then P.set(go, "mass", s.mass) end
          end
        end
      end
    end,
  }
end

local function numberCheck(min)
  return function(v, key)
    if type(v) ~= "number" or v ~= v or (min and v < min) then
      error(("RigidBody2D.%s must be a number%s, got %s"):format(key, min and (" >= " .. min) or "", typeName(v)), 4)
    end
    return v
  end
end

local function massCheck(v, key)
  if type(v) ~= "number" or not (v > 0) then
    error(("RigidBody2D.%s must be a number > 0, got %s"):format(key, tostring(v)), 4)
  end
  return v
end

local function typeCheck(v, key)
  if not BODY_TYPES[v] then
    error(("RigidBody2D.%s must be 'dynamic', 'static' or 'kinematic', got %s"):format(key, tostring(v)), 4)
  end
  return v
end

---@class tycho.RigidBody2D: tycho.Component
local RigidBody2D = nativeClass("RigidBody2D", {
  type = bodyField("type", typeCheck),
  mass = {
    get = function(self, s)
      local go = live(self)
      if go and s.type == "dynamic" then return P.get(go, "mass") end
      return s.mass
    end,
    set = bodyField("mass", massCheck).set,
  },
  friction = bodyField("friction", numberCheck(0)),
  restitution = bodyField("restitution", numberCheck(0)),
  linearDamping = bodyField("linearDamping", numberCheck(0)),
  angularDamping = bodyField("angularDamping", numberCheck(0)),
  gravityScale = bodyField("gravityScale", numberCheck()),
  lockRotation = bodyField("lockRotation", function(v) return v and true or false end),
  velocity = {
    get = function(self, s)
      local go = live(self)
      if go then return P.get(go, "velocity") end
      local v = s.velocity
      return tycho.vec3(v and v[1] or 0, v and v[2] or 0, 0)
    end,
    set = function(self, _, _, v) self:setVelocity(v) end,
  },
  angularVelocity = {
    get = function(self, s)
      local go = live(self)
      if go then return P.get(go, "angularVelocity") end
      return s.angularVelocity or 0
    end,
    set = function(self, s, key, v)
      if type(v) ~= "number" then error(("RigidBody2D.%s must be a number, got %s"):format(key, typeName(v)), 3) end
      local go = live(self)
      if go then P.set(go, "angularVelocity", v) else s.angularVelocity = v end
    end,
  },
  sleeping = {
    get = function(self)
      local go = live(self)
      return go ~= nil and P.get(go, "sleeping")
    end,
  },
})

---@param opts? {type?: "dynamic"|"static"|"kinematic", mass?: number, friction?: number, restitution?: number, linearDamping?: number, angularDamping?: number, gravityScale?: number, lockRotation?: boolean}
function RigidBody2D:init(opts)
  opts = checkOpts(opts, "new")
  local s = stores[self]
  s.isBody = true
  local t = opts.type
  if t == nil then t = "dynamic" end
  if not BODY_TYPES[t] then
    argError(1, "new", "type must be 'dynamic', 'static' or 'kinematic', got " .. tostring(t), 3)
  end
  s.type = t
  s.mass = optNumber(opts, "mass", 1, "new", 0)
  if not (s.mass > 0) then argError(1, "new", "mass must be a number > 0, got 0", 3) end
  s.friction = optNumber(opts, "friction", 0.5, "new", 0)
  s.restitution = optNumber(opts, "restitution", 0, "new", 0)
  s.linearDamping = optNumber(opts, "linearDamping", 0, "new", 0)
  s.angularDamping = optNumber(opts, "angularDamping", 0, "new", 0)
  s.gravityScale = optNumber(opts, "gravityScale", 1, "new")
  s.lockRotation = opts.lockRotation and true or false
end

---Sets the linear velocity (game units per second).
---@param v tycho.Vec3|{x: number, y: number}
function RigidBody2D:setVelocity(v)
  local x, y = checkVec2(v, 1, "setVelocity", 2)
  local go = live(self)
  if go then P.set(go, "velocity", { x, y }) else stores[self].velocity = { x, y } end
end

---Applies a force (mass times game units per second squared) at the centre of mass until the next step.
---@param v tycho.Vec3|{x: number, y: number}
function RigidBody2D:applyForce(v)
  local x, y = checkVec2(v, 1, "applyForce", 2)
  local go = live(self)
  if go then P.apply(go, "force", { x, y }) end
end

---Applies an impulse (mass times game units per second) at the centre of mass: the velocity changes at once.
---@param v tycho.Vec3|{x: number, y: number}
function RigidBody2D:applyImpulse(v)
  local x, y = checkVec2(v, 1, "applyImpulse", 2)
  local go = live(self)
  if go then
    P.apply(go, "impulse", { x, y })
  else
    local s = stores[self]
    local vel = s.velocity or { 0, 0 }
    s.velocity = { vel[1] + x / s.mass, vel[2] + y / s.mass }
  end
end

---Wakes a sleeping body.
function RigidBody2D:wake()
  local go = live(self)
  if go then P.set(go, "awake", true) end
end

tycho.RigidBody2D = RigidBody2D

-- ---------------------------------------------------------------------------------------
-- Colliders

local function colliderFields(name)
  local function override(key)
    return {
      get = stored,
      set = function(self, s, _, v)
        if key == "trigger" then v = v and true or false
        elseif v ~= nil and (type(v) ~= "number" or v < 0) then
          error(("%s.%s must be a number >= 0, got %s"):format(name, key, typeName(v)), 3)
        end
        s[key] = v
        changed(self)
      end,
    }
  end
  return { trigger = override("trigger"), friction = override("friction"), restitution = override("restitution") }
end

local function colliderInit(s, opts, fname)
  s.trigger = opts.trigger and true or false
  s.friction = optNumber(opts, "friction", nil, fname, 0)
  s.restitution = optNumber(opts, "restitution", nil, fname, 0)
end

local function checkCenter(opts, fname)
  if opts.center == nil then return 0, 0 end
  local x, y = readVec2(opts.center)
  if not x then argError(1, fname, "center must be a Vec3 or {x=, y=}, got " .. typeName(opts.center), 4) end
  return x, y
end

---@class tycho.BoxCollider2D: tycho.Component
---@field trigger boolean
---@field friction number?
---@field restitution number?
local BoxCollider2D = nativeClass("BoxCollider2D", colliderFields("BoxCollider2D"))

---@param opts? {size?: {x: number, y: number}, center?: {x: number, y: number}, trigger?: boolean, friction?: number, restitution?: number}
function BoxCollider2D:init(opts)
  opts = checkOpts(opts, "new")
  local s = stores[self]
  local w, h = 1, 1
  if opts.size ~= nil then
    w, h = readVec2(opts.size)
    if not w or not (w > 0) or not (h > 0) then
      argError(1, "new", "size must be a Vec3 or {x=, y=} of numbers > 0, got " .. typeName(opts.size), 3)
    end
  end
  local cx, cy = checkCenter(opts, "new")
  colliderInit(s, opts, "new")
  s.shape = { kind = "box", w = w, h = h, cx = cx, cy = cy }
end
tycho.BoxCollider2D = BoxCollider2D

---@class tycho.CircleCollider2D: tycho.Component
local CircleCollider2D = nativeClass("CircleCollider2D", colliderFields("CircleCollider2D"))

---@param opts? {radius?: number, center?: {x: number, y: number}, trigger?: boolean, friction?: number, restitution?: number}
function CircleCollider2D:init(opts)
  opts = checkOpts(opts, "new")
  local s = stores[self]
  local r = optNumber(opts, "radius", 0.5, "new", 0)
  if not (r > 0) then argError(1, "new", "radius must be a number > 0, got " .. tostring(r), 3) end
  local cx, cy = checkCenter(opts, "new")
  colliderInit(s, opts, "new")
  s.shape = { kind = "circle", radius = r, cx = cx, cy = cy }
end
tycho.CircleCollider2D = CircleCollider2D

---@class tycho.PolygonCollider2D: tycho.Component
local PolygonCollider2D = nativeClass("PolygonCollider2D", colliderFields("PolygonCollider2D"))

---@param opts {points: number[], trigger?: boolean, friction?: number, restitution?: number} points = {x1, y1, x2, y2, ...}: 3 to 8 corners of a convex polygon
function PolygonCollider2D:init(opts)
  opts = checkOpts(opts, "new")
  local pts = opts.points
  if type(pts) ~= "table" then argError(1, "new", "points must be a table {x1, y1, x2, y2, ...}, got " .. typeName(pts), 3) end
  local n = #pts
  if n % 2 ~= 0 or n < 6 or n > 16 then
    argError(1, "new", ("points must hold 3 to 8 x, y pairs, got %d numbers"):format(n), 3)
  end
  local copy = {}
  for i = 1, n do
    if type(pts[i]) ~= "number" then argError(1, "new", ("points[%d] must be a number, got %s"):format(i, typeName(pts[i])), 3) end
    copy[i] = pts[i]
  end
  local s = stores[self]
  colliderInit(s, opts, "new")
  s.shape = { kind = "polygon", points = copy }
end
tycho.PolygonCollider2D = PolygonCollider2D

return {}
