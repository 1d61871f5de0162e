-- scripts/tycho/physics.lua: the physics components over bindings/lua_physics.c: 2D
-- (RigidBody2D, BoxCollider2D, CircleCollider2D, PolygonCollider2D; tycho._physics, Box2D)
-- and 3D (RigidBody, BoxCollider, SphereCollider, CapsuleCollider, MeshCollider;
-- tycho._physics3d, Bullet).
--
-- A body is built from its object's components when the object's scene next reaches its
-- physics phase (or at once when a script asks the body for something): the rigid body
-- (none means static) and every collider of the same dimension on the object. Adding or
-- removing one of them rebuilds the body, keeping its velocity. Fields live in a store
-- beside each instance so reads and writes reach the body.

local tycho = require("tycho")
local P = tycho._physics
local P3 = tycho._physics3d

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
  if not (math.abs(x) < math.huge and math.abs(y) < math.huge) then
    argError(n, fname, "the Vec3 must be finite", level + 1)
  end
  return x, y
end

-- ---------------------------------------------------------------------------------------
-- Collision layers: numbers 1..32 (bit n-1 of a mask); names get numbers on first use.

local ALL = 0xFFFFFFFF
local layers = { default = 1 } -- name -> number (a game may set its own before use)

local function layerNumber(v, n, fname, what, level)
  if math.type(v) == "integer" then
    if v >= 1 and v <= 32 then return v end
  elseif type(v) == "number" and v == math.floor(v) and v >= 1 and v <= 32 then
    return math.tointeger(v)
  elseif type(v) == "string" then
    local k = layers[v]
    if k then return k end
    local held = {}
    for _, num in pairs(layers) do held[num] = true end
    for num = 1, 32 do
      if not held[num] then
        layers[v] = num
        return num
      end
    end
    argError(n, fname, ("%s '%s': all 32 layers have names"):format(what, v), level + 1)
  end
  argError(n, fname, ("%s must be a layer name or a number 1..32, got %s"):format(what,
    type(v) == "number" and tostring(v) or typeName(v)), level + 1)
end

-- A mask: nil (every layer), a layer name or number, or a list of them -> bits, list.
local function maskOf(v, n, fname, what, level)
  if v == nil then return ALL, nil end
  local list = type(v) == "table" and v or { v }
  local bits, out = 0, {}
  for i, l in ipairs(list) do
    local num = layerNumber(l, n, fname, what, level + 1)
    bits = bits | (1 << (num - 1))
    out[i] = num
  end
  return bits, out
end

local function maskBits(v, n, fname) return (maskOf(v, n, fname, "mask", 2)) end

local function markPending(go)
  if go and not pendingSet[go] then
    pendingSet[go] = true
    pending[#pending + 1] = go
    if #pending == 1 then P.setWaiting(true) end -- the physics phase calls flush again
  end
end

local function sceneOf(go) return go.scene end

local function build2d(scene, go, body, colliders)
  local vx, vy, av = P.destroyBody(go.id)
  if not body and #colliders == 0 then return end
  local bs = body and stores[body] or { type = "static" }
  P.createBody(scene.physics2d, go, bs)
  for _, cs in ipairs(colliders) do
    local shape = cs.shape
    shape.trigger = cs.trigger
    shape.layerBits = 1 << ((cs.layer or bs.layer or 1) - 1)
    shape.maskBits = cs.maskBits or bs.maskBits or ALL
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

local function build3d(scene, go, body, colliders)
  local v, av = P3.destroyBody(go.id)
  if not body and #colliders == 0 then return end
  local bs = body and stores[body] or { type = "static" }
  local shapes = {}
  for i, cs in ipairs(colliders) do
    local shape = cs.shape
    shape.trigger = cs.trigger
    shapes[i] = shape
  end
  -- Bullet takes friction and restitution per body: the first collider's override wins.
  -- So it does layers: the first collider that names one, else the body's.
  local layer, bits = bs.layer, bs.maskBits
  for i = #colliders, 1, -1 do
    layer = colliders[i].layer or layer
    bits = colliders[i].maskBits or bits
  end
  local opts = setmetatable({
    friction = colliders[1] and colliders[1].friction or bs.friction,
    restitution = colliders[1] and colliders[1].restitution or bs.restitution,
    layerBits = 1 << ((layer or 1) - 1),
    maskBits = bits or ALL,
  }, { __index = bs })
  if not P3.createBody(scene.physics, go, opts, shapes) then
    io.stderr:write(("tycho: %s: a MeshCollider needs a static body and to be its only collider; no body made\n")
      :format(tostring(go)))
    return
  end
  v = v or bs.velocity
  av = av or bs.angularVelocity
  bs.velocity, bs.angularVelocity = nil, nil
  if bs.type == "dynamic" then
    if v then P3.set(go, "velocity", v) end
    if av then P3.set(go, "angularVelocity", av) end
  end
end

-- Builds (or rebuilds, or removes) go's bodies in scene from its components now.
local function build(scene, go)
  local body, colliders, body3, colliders3 = nil, {}, nil, {}
  for _, c in ipairs(go:getComponents()) do
    local s = stores[c]
    if s and s.isBody then
      if s.dims == 3 then body3 = body3 or c else body = body or c end
    elseif s and s.shape then
      if s.dims == 3 then colliders3[#colliders3 + 1] = s else colliders[#colliders + 1] = s end
    end
  end
  build2d(scene, go, body, colliders)
  build3d(scene, go, body3, colliders3)
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
  P.setWaiting(#pending > 0)
end
P.setFlush(flush, markPending, maskBits)

-- The GameObject of a body component whose body exists (built now if it was waiting).
local function live(self)
  local go = rawget(self, "gameObject")
  if not go then return nil end
  if pendingSet[go] then
    local s = go.scene
    if s then flush(s) end
  end
  local Pd = stores[self].dims == 3 and P3 or P
  if Pd.hasBody(go.id) then return go end
  return nil
end

local function changed(self)
  local go = rawget(self, "gameObject")
  if go then markPending(go) end
end

-- A component class whose fields go through get(self, store, key) and set(self, store,
-- key, value); other keys are plain instance fields.
local function nativeClass(name, fields, dims)
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
    -- enabled is a plain field, as on any component: the host reads it for every hook
    -- and contact, and without it each read would go through __index.
    local self = setmetatable({ enabled = true }, class)
    stores[self] = { dims = dims }
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

-- A size, mass or radius: a finite number > 0 (zero, negative, NaN and infinity name the option).
local function optPositive(opts, key, def, fname)
  local v = opts[key]
  if v == nil then return def end
  if type(v) ~= "number" or not (v > 0) or v == math.huge then
    argError(1, fname, ("%s must be a finite number > 0, got %s"):format(key,
      type(v) == "number" and tostring(v) or typeName(v)), 4)
  end
  return v
end

-- Checks each axis of a size read from opts.size; the error names the axis.
local function checkSize(opts, fname, ...)
  local axes = { "x", "y", "z" }
  for i = 1, select("#", ...) do
    local v = select(i, ...)
    if not (v > 0) or v == math.huge then
      argError(1, fname, ("size.%s must be a finite number > 0, got %s"):format(axes[i], tostring(v)), 4)
    end
  end
end

local BODY_TYPES = { dynamic = true, static = true, kinematic = true }

-- The layer and mask fields (of bodies and colliders): a change rebuilds the body.
local function layerFields(name, fields)
  fields.layer = {
    get = function(_, s) return s.layer or 1 end,
    set = function(self, s, _, v)
      s.layer = layerNumber(v, 1, name .. ".layer", "layer", 3)
      changed(self)
    end,
  }
  fields.mask = {
    get = function(_, s)
      if not s.mask then
        local all = {}
        for i = 1, 32 do all[i] = i end
        return all
      end
      return table.move(s.mask, 1, #s.mask, 1, {})
    end,
    set = function(self, s, _, v)
      s.maskBits, s.mask = maskOf(v, 1, name .. ".mask", "mask", 3)
      if v == nil then s.maskBits = nil end
      changed(self)
    end,
  }
  return fields
end

local function layerInit(s, opts, fname, level)
  if opts.layer ~= nil then s.layer = layerNumber(opts.layer, 1, fname, "layer", level + 1) end
  if opts.mask ~= nil then s.maskBits, s.mask = maskOf(opts.mask, 1, fname, "mask", level + 1) end
end

-- ---------------------------------------------------------------------------------------
-- RigidBody2D

local function stored(_, s, key) return s[key] end

-- Where a body's object is drawn this frame: between its last two steps while a Loop
-- interpolates it, else its world position (nil when the component is on no object).
local function renderPosition(self, Pd)
  local go = live(self)
  if go then return Pd.get(go, "renderPosition") end
  go = rawget(self, "gameObject")
  return go and go.worldPosition
end

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
  if type(v) ~= "number" or not (v > 0) or v == math.huge then
    error(("RigidBody2D.%s must be a finite number > 0, got %s"):format(key, tostring(v)), 4)
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
local RigidBody2D = nativeClass("RigidBody2D", layerFields("RigidBody2D", {
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
  bullet = bodyField("bullet", function(v) return v and true or false end),
  interpolate = bodyField("interpolate", function(v) return v and true or false end),
  renderPosition = { get = function(self) return renderPosition(self, P) end },
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
}))

---@param opts? {type?: "dynamic"|"static"|"kinematic", mass?: number, friction?: number, restitution?: number, linearDamping?: number, angularDamping?: number, gravityScale?: number, lockRotation?: boolean, bullet?: boolean, interpolate?: boolean, layer?: string|integer, mask?: string|integer|(string|integer)[]}
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
  s.mass = optPositive(opts, "mass", 1, "new")
  s.friction = optNumber(opts, "friction", 0.5, "new", 0)
  s.restitution = optNumber(opts, "restitution", 0, "new", 0)
  s.linearDamping = optNumber(opts, "linearDamping", 0, "new", 0)
  s.angularDamping = optNumber(opts, "angularDamping", 0, "new", 0)
  s.gravityScale = optNumber(opts, "gravityScale", 1, "new")
  s.lockRotation = opts.lockRotation and true or false
  s.bullet = opts.bullet and true or false
  if opts.interpolate == nil then s.interpolate = true else s.interpolate = opts.interpolate and true or false end
  layerInit(s, opts, "new", 3)
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
  return layerFields(name,
    { trigger = override("trigger"), friction = override("friction"), restitution = override("restitution") })
end

local function colliderInit(s, opts, fname)
  layerInit(s, opts, fname, 4)
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
    if not w then
      argError(1, "new", "size must be a Vec3 or {x=, y=} of numbers > 0, got " .. typeName(opts.size), 3)
    end
    checkSize(opts, "new", w, h)
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
  local r = optPositive(opts, "radius", 0.5, "new")
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

-- ---------------------------------------------------------------------------------------
-- 3D: RigidBody and its colliders (Bullet)

-- {x=, y=, z=}, {x, y, z} or a Vec3 -> x, y, z; nil for anything else.
local function readVec3(v)
  local t = type(v)
  if t == "table" or (t == "userdata" and typeName(v) == "Vec3") then
    local x, y, z
    if t == "table" then x, y, z = v.x or v[1], v.y or v[2], v.z or v[3] else x, y, z = v.x, v.y, v.z end
    if type(x) == "number" and type(y) == "number" and type(z) == "number" then return x, y, z end
  end
  return nil
end

local function checkVec3(v, n, fname, level)
  local x, y, z = readVec3(v)
  if not x then argError(n, fname, "Vec3 expected, got " .. typeName(v), level + 1) end
  if not (math.abs(x) < math.huge and math.abs(y) < math.huge and math.abs(z) < math.huge) then
    argError(n, fname, "the Vec3 must be finite", level + 1)
  end
  return tycho.vec3(x, y, z)
end

-- A field of a 3D body: Bullet makes a body whole, so a change rebuilds it.
local function rebuildField(check)
  return {
    get = stored,
    set = function(self, s, key, value)
      s[key] = check(value, key)
      changed(self)
    end,
  }
end

local function check3(fn) -- RigidBody2D's checks, naming RigidBody
  return function(v, key)
    local ok, err = pcall(fn, v, key)
    if not ok then error((tostring(err):gsub("^.-RigidBody2D", "RigidBody")), 4) end
    return err
  end
end

---@class tycho.RigidBody: tycho.Component
---@field type "dynamic"|"static"|"kinematic"
---@field mass number
---@field friction number
---@field restitution number
---@field linearDamping number
---@field angularDamping number
---@field gravityScale number
---@field lockRotation boolean
---@field bullet boolean continuous collision (a rebuild when changed)
---@field velocity tycho.Vec3 game units per second (a copy: assign it, or call setVelocity)
---@field angularVelocity tycho.Vec3 radians per second about each axis
---@field sleeping boolean
local RigidBody = nativeClass("RigidBody", layerFields("RigidBody", {
  type = rebuildField(check3(typeCheck)),
  mass = {
    get = function(self, s)
      local go = live(self)
      if go and s.type == "dynamic" then return P3.get(go, "mass") end
      return s.mass
    end,
    set = rebuildField(check3(massCheck)).set,
  },
  friction = rebuildField(check3(numberCheck(0))),
  restitution = rebuildField(check3(numberCheck(0))),
  linearDamping = rebuildField(check3(numberCheck(0))),
  angularDamping = rebuildField(check3(numberCheck(0))),
  gravityScale = rebuildField(check3(numberCheck())),
  lockRotation = rebuildField(function(v) return v and true or false end),
  bullet = rebuildField(function(v) return v and true or false end),
  interpolate = {
    get = stored,
    set = function(self, s, _, v)
      s.interpolate = v and true or false
      local go = live(self)
      if go then P3.set(go, "interpolate", s.interpolate) end
    end,
  },
  renderPosition = { get = function(self) return renderPosition(self, P3) end },
  velocity = {
    get = function(self, s)
      local go = live(self)
      if go then return P3.get(go, "velocity") end
      return s.velocity and s.velocity:clone() or tycho.vec3(0, 0, 0)
    end,
    set = function(self, _, _, v) self:setVelocity(v) end,
  },
  angularVelocity = {
    get = function(self, s)
      local go = live(self)
      if go then return P3.get(go, "angularVelocity") end
      return s.angularVelocity and s.angularVelocity:clone() or tycho.vec3(0, 0, 0)
    end,
    set = function(self, s, _, v)
      v = checkVec3(v, 1, "angularVelocity", 2)
      local go = live(self)
      if go then P3.set(go, "angularVelocity", v) else s.angularVelocity = v end
    end,
  },
  sleeping = {
    get = function(self)
      local go = live(self)
      return go ~= nil and P3.get(go, "sleeping")
    end,
  },
}), 3)

---@param opts? {type?: "dynamic"|"static"|"kinematic", mass?: number, friction?: number, restitution?: number, linearDamping?: number, angularDamping?: number, gravityScale?: number, lockRotation?: boolean, bullet?: boolean, interpolate?: boolean, layer?: string|integer, mask?: string|integer|(string|integer)[]}
function RigidBody:init(opts)
  RigidBody2D.init(self, opts)
end

---Sets the linear velocity (units per second).
---@param v tycho.Vec3|{x: number, y: number, z: number}
function RigidBody:setVelocity(v)
  v = checkVec3(v, 1, "setVelocity", 2)
  local go = live(self)
  if go then P3.set(go, "velocity", v) else stores[self].velocity = v end
end

---Applies a force at the centre of mass until the next step.
---@param v tycho.Vec3|{x: number, y: number, z: number}
function RigidBody:applyForce(v)
  v = checkVec3(v, 1, "applyForce", 2)
  local go = live(self)
  if go then P3.apply(go, "force", v) end
end

---Applies an impulse at the centre of mass: the velocity changes at once.
---@param v tycho.Vec3|{x: number, y: number, z: number}
function RigidBody:applyImpulse(v)
  v = checkVec3(v, 1, "applyImpulse", 2)
  local go = live(self)
  if go then
    P3.apply(go, "impulse", v)
  else
    local s = stores[self]
    local vel = s.velocity or tycho.vec3(0, 0, 0)
    s.velocity = vel + v * (1 / s.mass)
  end
end

---Wakes a sleeping body.
function RigidBody:wake()
  local go = live(self)
  if go then P3.set(go, "awake", true) end
end

tycho.RigidBody = RigidBody

local function center3(opts, fname)
  if opts.center == nil then return { x = 0, y = 0, z = 0 } end
  local x, y, z = readVec3(opts.center)
  if not x then argError(1, fname, "center must be a Vec3 or {x=, y=, z=}, got " .. typeName(opts.center), 4) end
  return { x = x, y = y, z = z }
end

---@class tycho.BoxCollider: tycho.Component
---@field trigger boolean
local BoxCollider = nativeClass("BoxCollider", colliderFields("BoxCollider"), 3)

---@param opts? {size?: {x: number, y: number, z: number}, center?: {x: number, y: number, z: number}, trigger?: boolean, friction?: number, restitution?: number} size: full extents
function BoxCollider:init(opts)
  opts = checkOpts(opts, "new")
  local x, y, z = 1, 1, 1
  if opts.size ~= nil then
    x, y, z = readVec3(opts.size)
    if not x then
      argError(1, "new", "size must be a Vec3 or {x=, y=, z=} of numbers > 0, got " .. typeName(opts.size), 3)
    end
    checkSize(opts, "new", x, y, z)
  end
  local s = stores[self]
  local c = center3(opts, "new")
  colliderInit(s, opts, "new")
  s.shape = { kind = "box", size = { x = x, y = y, z = z }, center = c }
end
tycho.BoxCollider = BoxCollider

---@class tycho.SphereCollider: tycho.Component
---@field trigger boolean
local SphereCollider = nativeClass("SphereCollider", colliderFields("SphereCollider"), 3)

---@param opts? {radius?: number, center?: {x: number, y: number, z: number}, trigger?: boolean, friction?: number, restitution?: number}
function SphereCollider:init(opts)
  opts = checkOpts(opts, "new")
  local r = optPositive(opts, "radius", 0.5, "new")
  local s = stores[self]
  local c = center3(opts, "new")
  colliderInit(s, opts, "new")
  s.shape = { kind = "sphere", radius = r, center = c }
end
tycho.SphereCollider = SphereCollider

---@class tycho.CapsuleCollider: tycho.Component
---@field trigger boolean
local CapsuleCollider = nativeClass("CapsuleCollider", colliderFields("CapsuleCollider"), 3)

---@param opts? {radius?: number, height?: number, center?: {x: number, y: number, z: number}, trigger?: boolean, friction?: number, restitution?: number} along Y; height counts the caps
function CapsuleCollider:init(opts)
  opts = checkOpts(opts, "new")
  local r = optPositive(opts, "radius", 0.5, "new")
  local h = optPositive(opts, "height", 2, "new")
  if h < 2 * r then argError(1, "new", ("height must be at least twice the radius (%g), got %g"):format(2 * r, h), 3) end
  local s = stores[self]
  local c = center3(opts, "new")
  colliderInit(s, opts, "new")
  s.shape = { kind = "capsule", radius = r, height = h, center = c }
end
tycho.CapsuleCollider = CapsuleCollider

---@class tycho.MeshCollider: tycho.Component
---@field trigger boolean
local MeshCollider = nativeClass("MeshCollider", colliderFields("MeshCollider"), 3)

---A triangle mesh for static bodies (ground, level geometry): a render Mesh (its triangles
---as they are now, read from the renderer's CPU copy) or the triangles themselves.
---@param opts {mesh: tycho.Mesh|{vertices: number[], indices: integer[]}, trigger?: boolean, friction?: number, restitution?: number} vertices = {x1, y1, z1, ...}; indices count from 1, three per triangle
function MeshCollider:init(opts)
  opts = checkOpts(opts, "new")
  local m = opts.mesh
  if typeName(m) == "Mesh" then m = m:triangles() end
  if type(m) ~= "table" or type(m.vertices) ~= "table" or type(m.indices) ~= "table" then
    argError(1, "new", "mesh must be a Mesh or a table {vertices = {x1, y1, z1, ...}, indices = {i1, i2, i3, ...}}, got "
      .. typeName(m), 3)
  end
  local nv, ni = #m.vertices, #m.indices
  if nv < 9 or nv % 3 ~= 0 then argError(1, "new", ("mesh.vertices must hold x, y, z triples, got %d numbers"):format(nv), 3) end
  if ni < 3 or ni % 3 ~= 0 then argError(1, "new", ("mesh.indices must hold three per triangle, got %d"):format(ni), 3) end
  local verts, idx = {}, {}
  for i = 1, nv do
    local v = m.vertices[i]
    if type(v) ~= "number" then argError(1, "new", ("mesh.vertices[%d] must be a number, got %s"):format(i, typeName(v)), 3) end
    verts[i] = v
  end
  for i = 1, ni do
    local v = m.indices[i]
    if math.type(v) ~= "integer" or v < 1 or v > nv // 3 then
      argError(1, "new", ("mesh.indices[%d] must be a vertex number 1..%d, got %s"):format(i, nv // 3, tostring(v)), 3)
    end
    idx[i] = v
  end
  local s = stores[self]
  colliderInit(s, opts, "new")
  s.shape = { kind = "mesh", vertices = verts, indices = idx }
end
tycho.MeshCollider = MeshCollider

---Collision layers: `tycho.physics.layers` maps names to numbers 1..32 (`default` is 1;
---a name not in it gets the lowest free number on first use, or a game sets its own);
---`tycho.physics.layer(v)` gives the number of a name or number.
tycho.physics = {
  layers = layers,
  ---@param v string|integer
  ---@return integer
  layer = function(v) return layerNumber(v, 1, "layer", "layer", 2) end,
}

return tycho.physics
