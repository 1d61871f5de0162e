-- scripts/tycho/render.lua: the built-in render components (Camera, MeshRenderer,
-- DirectionalLight, PointLight, SpotLight, Sprite), and the loading of tycho.features and
-- tycho.presets.
--
-- MeshRenderer, the lights and Sprite each own a C slot (an item or a light) on their
-- GameObject while attached: onAttach makes it, onDetach and onDestroy free it. Their
-- fields (mesh, material, enabled, ...) live in a store beside the instance rather than in
-- it, so every write goes through the class's __newindex and reaches the slot at once;
-- nothing is copied per frame. The scene's phase dispatcher reads `enabled` raw, but
-- these classes have no phase hooks, so it never looks.

local tycho = require("tycho")
local R = tycho._render

local stores = setmetatable({}, { __mode = "k" }) -- instance -> its field store

local function typeName(v)
  local mt = type(v) == "userdata" and getmetatable(v)
  return (mt and rawget(mt, "__name")) or type(v)
end

local function isType(v, name) return typeName(v) == name end

local function argError(n, fname, msg, level)
  error(("bad argument #%d to '%s' (%s)"):format(n, fname, msg), level + 1)
end

-- Reads {x, y, z}, {x=, y=, z=} or a Vec3 into three numbers; nil for anything else.
local function readVec3(v)
  if type(v) == "table" then
    local x, y, z = v[1] or v.x, v[2] or v.y, v[3] or v.z
    if type(x) == "number" and type(y) == "number" and type(z) == "number" then return x, y, z end
    return nil
  end
  if isType(v, "Vec3") then return v.x, v.y, v.z end
  return nil
end

-- A component class whose `fields` (name -> setter(self, store, value)) live in the store.
local function nativeClass(name, fields)
  local class = tycho.component(name)
  rawset(class, "__class", class) -- tells addComponent this is a class despite __index
  rawset(class, "__index", function(self, key)
    if fields[key] then
      local s = stores[self]
      if s then return s[key] end
    end
    return class[key]
  end)
  rawset(class, "__newindex", function(self, key, value)
    local set = fields[key]
    if set then set(self, stores[self], value) else rawset(self, key, value) end
  end)
  rawset(class, "new", function(...)
    local self = setmetatable({}, class)
    stores[self] = { enabled = true }
    local init = class.init
    if init then init(self, ...) end
    return self
  end)
  return class
end

-- ---------------------------------------------------------------------------------------
-- Camera

---@class tycho.Camera: tycho.Component
---@field orthographic boolean
---@field fov number vertical field of view in degrees (perspective)
---@field size number half the view's height in world units (orthographic)
---@field near number
---@field far number
local Camera = tycho.component("Camera")

---@param opts? {orthographic?: boolean, fov?: number, size?: number, near?: number, far?: number}
function Camera:init(opts)
  if opts ~= nil and type(opts) ~= "table" then argError(1, "new", "table expected, got " .. type(opts), 3) end
  opts = opts or {}
  self.orthographic = opts.orthographic and true or false
  self.fov = opts.fov or 60
  self.size = opts.size or 5
  self.near = opts.near or (self.orthographic and -100 or 0.1)
  self.far = opts.far or (self.orthographic and 100 or 1000)
end

local function checkNumber(v, n, fname, def)
  if v == nil then return def end
  if type(v) ~= "number" then argError(n, fname, "number expected, got " .. type(v), 3) end
  return v
end

---A perspective camera.
---@param fovDeg? number vertical field of view in degrees (60)
---@param near? number (0.1)
---@param far? number (1000)
---@return tycho.Camera
function Camera.perspective(fovDeg, near, far)
  return Camera.new({
    fov = checkNumber(fovDeg, 1, "perspective", 60),
    near = checkNumber(near, 2, "perspective", 0.1),
    far = checkNumber(far, 3, "perspective", 1000),
  })
end

---An orthographic camera showing `size` world units above and below its centre.
---@param size? number (5)
---@param near? number (-100)
---@param far? number (100)
---@return tycho.Camera
function Camera.orthographic(size, near, far)
  return Camera.new({
    orthographic = true,
    size = checkNumber(size, 1, "orthographic", 5),
    near = checkNumber(near, 2, "orthographic", -100),
    far = checkNumber(far, 3, "orthographic", 100),
  })
end

-- Attached cameras, so scene:findCamera need not scan every object each frame.
local liveCameras = setmetatable({}, { __mode = "k" })
Camera._live = liveCameras
function Camera:onAttach() liveCameras[self] = true end
function Camera:onDetach() liveCameras[self] = nil end
function Camera:onDestroy() liveCameras[self] = nil end

-- ---- screen <-> world -------------------------------------------------------------------
-- Screen coordinates are the mouse's: x right, y down from the window's top-left corner,
-- over the screen getViewportSize gives. Depth is world units from the camera along its
-- forward (-Z) axis, as Unity's Camera.WorldToScreenPoint has it. The math is C
-- (engine/render/camera.c), in doubles, with the projection the renderer draws with.

-- The engine that owns each scene (engine.lua fills it): a camera in an engine's scene
-- measures against that engine's frame size. Kept on the class, which outlives a reload
-- of this file, so engines made before the reload are still found.
local sceneEngines = rawget(Camera, "_sceneEngines") or setmetatable({}, { __mode = "k" })
rawset(Camera, "_sceneEngines", sceneEngines)

local function attachedObject(self, fname)
  local go = self.gameObject
  if not go then error(("%s: the camera is not attached to a GameObject"):format(fname), 3) end
  return go
end

local function checkCoordinate(v, n, fname)
  if type(v) ~= "number" then argError(n, fname, "number expected, got " .. (v == nil and "no value" or type(v)), 3) end
  return v
end

---The screen this camera converts against, in screen units: its engine's `width` and
---`height` when that engine was made with them, else tycho.window.getSize() (the window,
---or headless the headless size).
---@return integer width, integer height
function Camera:getViewportSize()
  local go = self.gameObject
  local scene = go and go.scene
  local engine = scene and sceneEngines[scene]
  local ew, eh = engine and engine.width, engine and engine.height
  if ew and eh then return ew, eh end
  local w, h = tycho.window.getSize()
  return ew or w, eh or h
end

local scratch = tycho.vec3(0, 0, 0)

---Where a world point shows on screen: x, y in screen units from the top-left corner (as
---the mouse reports them) and the depth, in world units along the camera's forward axis
---(negative behind the camera, where x and y mean nothing).
---@param p tycho.Vec3|number[]|{x: number, y: number, z: number}|tycho.GameObject|number a point, an object (its world position), or x with y and z after it
---@param y? number
---@param z? number
---@return number x, number y, number depth
function Camera:worldToScreen(p, y, z)
  local px, py, pz
  if type(p) == "number" then
    px, py, pz = p, checkCoordinate(y, 2, "worldToScreen"), checkCoordinate(z, 3, "worldToScreen")
  elseif isType(p, "GameObject") then
    p:getWorldPosition(scratch)
    px, py, pz = scratch.x, scratch.y, scratch.z
  else
    px, py, pz = readVec3(p)
    if not px then argError(1, "worldToScreen", "Vec3 expected, got " .. (p == nil and "no value" or typeName(p)), 2) end
  end
  local go = attachedObject(self, "worldToScreen")
  local w, h = self:getViewportSize()
  return R.cameraToScreen(go, self.orthographic, self.fov, self.size, self.near, self.far, w, h, px, py, pz)
end

---The world point at screen position (x, y) and `depth` world units in front of the camera
---along its forward axis (default: the near plane). worldToScreen gives the same x, y,
---depth back.
---@param x number screen units from the left
---@param y number screen units from the top
---@param depth? number
---@return tycho.Vec3
function Camera:screenToWorld(x, y, depth)
  checkCoordinate(x, 1, "screenToWorld")
  checkCoordinate(y, 2, "screenToWorld")
  if depth ~= nil then checkCoordinate(depth, 3, "screenToWorld") end
  local go = attachedObject(self, "screenToWorld")
  local w, h = self:getViewportSize()
  return R.cameraToWorld(go, self.orthographic, self.fov, self.size, self.near, self.far, w, h, x, y, depth)
end

---The ray from the camera through screen position (x, y), for picking: its origin on the
---near plane and its unit direction (the camera's forward when orthographic). Hand it to
---a raycast, or walk it: every origin + direction * t shows at (x, y).
---@param x number screen units from the left
---@param y number screen units from the top
---@return tycho.Vec3 origin, tycho.Vec3 direction
function Camera:screenPointToRay(x, y)
  checkCoordinate(x, 1, "screenPointToRay")
  checkCoordinate(y, 2, "screenPointToRay")
  local go = attachedObject(self, "screenPointToRay")
  local w, h = self:getViewportSize()
  return R.cameraRay(go, self.orthographic, self.fov, self.size, self.near, self.far, w, h, x, y)
end

tycho.Camera = Camera

-- ---------------------------------------------------------------------------------------
-- MeshRenderer and Sprite: draw items

local function itemField(key, check)
  return function(self, s, value)
    value = check(value, key)
    s[key] = value
    if s.slot then R.itemSet(s.slot, key, value) end
  end
end

local function checkMesh(v, key)
  if v ~= nil and not isType(v, "Mesh") then
    error(("MeshRenderer.%s must be a Mesh, got %s"):format(key, typeName(v)), 3)
  end
  return v
end

local function checkMaterial(v, key)
  if v ~= nil and not isType(v, "Material") then
    error(("MeshRenderer.%s must be a Material, got %s"):format(key, typeName(v)), 3)
  end
  return v
end

local function toBool(v) return v and true or false end

local function freeItem(self)
  local s = stores[self]
  if s and s.slot then
    R.itemDestroy(s.slot)
    s.slot = nil
  end
end

---@class tycho.MeshRenderer: tycho.Component
---@field mesh tycho.Mesh
---@field material tycho.Material
---@field castShadows boolean
---@field enabled boolean
local MeshRenderer = nativeClass("MeshRenderer", {
  mesh = itemField("mesh", checkMesh),
  material = itemField("material", checkMaterial),
  castShadows = itemField("castShadows", toBool),
  enabled = itemField("enabled", toBool),
})

---@param mesh tycho.Mesh
---@param material? tycho.Material the default material (white, roughness 0.5) when nil
function MeshRenderer:init(mesh, material)
  if not isType(mesh, "Mesh") then argError(1, "new", "Mesh expected, got " .. typeName(mesh), 3) end
  if material ~= nil and not isType(material, "Material") then
    argError(2, "new", "Material expected, got " .. typeName(material), 3)
  end
  local s = stores[self]
  s.mesh, s.material, s.castShadows = mesh, material, true
end

-- A renderer attached with no material draws with the default one; that is said once per
-- run (naming the first object), as a forgotten material is a common first-scene mistake.
local warnedNoMaterial = false

function MeshRenderer:onAttach()
  local s = stores[self]
  if s.material == nil and not warnedNoMaterial then
    warnedNoMaterial = true
    io.stderr:write(("tycho: MeshRenderer on '%s' has no material: it draws with the default one (white, "
      .. "roughness 0.5) — pass tycho.material{baseColor = {r, g, b, 1}} as MeshRenderer.new's second "
      .. "argument, or set renderer.material\n"):format(tostring(self.gameObject.name)))
  end
  if s.slot then R.itemDestroy(s.slot) end
  local slot = R.itemCreate(self.gameObject)
  s.slot = slot
  R.itemSet(slot, "mesh", s.mesh)
  R.itemSet(slot, "material", s.material)
  R.itemSet(slot, "castShadows", s.castShadows)
  R.itemSet(slot, "enabled", s.enabled)
end
MeshRenderer.onDetach = freeItem
MeshRenderer.onDestroy = freeItem

tycho.MeshRenderer = MeshRenderer

-- Sprites share one quad and one unlit transparent material per texture, filter and wrap.
-- Sprites clamp by default: a repeating texture bleeds its opposite edge (and an atlas its
-- neighbouring cells) into a filtered sprite's border.
local spriteMaterials = {}
local function spriteMaterial(texture, nearest, wrap)
  local key = (texture and texture.id or -1) * 4 + (nearest and 1 or 0) + (wrap == "repeat" and 2 or 0)
  local m = spriteMaterials[key]
  if not m then
    m = tycho.material({ texture = texture, transparent = true, unlit = true, nearest = nearest, wrap = wrap })
    spriteMaterials[key] = m
  end
  return m
end

-- Sprite colours are sRGB, as LÖVE's and image editors' are; the scene colour they are
-- drawn into is linear, so the tint is decoded here, once, when it is set (alpha is linear).
local function srgbToLinear(c)
  if c <= 0.04045 then return c / 12.92 end
  return ((c + 0.055) / 1.055) ^ 2.4
end

local function linearToSrgb(c)
  if c <= 0.0031308 then return c * 12.92 end
  return 1.055 * c ^ (1 / 2.4) - 0.055
end

-- tycho.color: the sRGB transfer curve for games, as LÖVE's love.math.gammaToLinear.
local function convert(fname, f)
  return function(r, g, b, a)
    if type(r) == "table" then
      local cr, cg, cb, ca = R.readColor(r, 4)
      if not cr then argError(1, fname, "colour {r, g, b[, a]} expected", 2) end
      return { f(cr), f(cg), f(cb), ca }
    end
    for i, v in ipairs({ r, g, b }) do
      if type(v) ~= "number" then argError(i, fname, "number expected, got " .. type(v), 2) end
    end
    return f(r), f(g), f(b), a
  end
end

---@class tycho.ColorModule
tycho.color = {
  ---An sRGB colour (as sprites, tycho.ui and image editors give them) in linear terms (as
  ---materials, lights and the sky take them): a table gives a new table {r, g, b, a}, three
  ---or four numbers give numbers. Alpha is unchanged.
  toLinear = convert("toLinear", srgbToLinear),
  ---The other way: a linear colour in sRGB terms.
  toSrgb = convert("toSrgb", linearToSrgb),
}

-- The uv rect alone: what an animation changes every few ticks (tycho.SpriteAnimation).
local function pushRect(s)
  local rect = s.rect
  local tw, th = 1, 1
  if s.texture then tw, th = s.texture.width, s.texture.height end
  if rect and tw > 0 and th > 0 then
    local x, y, w, h = rect[1] or rect.x, rect[2] or rect.y, rect[3] or rect.w, rect[4] or rect.h
    -- rect is in pixels from the image's top-left; uv (0, 0) is the image's bottom-left.
    R.itemSet(s.slot, "rect", x / tw, 1 - (y + h) / th, w / tw, h / th)
  else
    R.itemSet(s.slot, "rect", 0, 0, 1, 1)
  end
end

local function pushSprite(s)
  if not s.slot then return end
  local r, g, b, a = R.readColor(s.color or { 1, 1, 1, 1 }, 4)
  R.itemSet(s.slot, "tint", srgbToLinear(r), srgbToLinear(g), srgbToLinear(b), a)
  pushRect(s)
  R.itemSet(s.slot, "material", spriteMaterial(s.texture, s.nearest, s.wrap))
  R.itemSet(s.slot, "enabled", s.enabled)
end

local function spriteField(key, check)
  return function(_, s, value)
    s[key] = check(value)
    pushSprite(s)
  end
end

local function checkTexture(v)
  if v ~= nil and not isType(v, "Texture") then error("Sprite.texture must be a Texture, got " .. typeName(v), 3) end
  return v
end

local RECT_KEYS = { "x", "y", "w", "h" } -- one table, not one a check: animations set rects often
local function checkRect(v)
  if v ~= nil then
    local ok = type(v) == "table"
    if ok then
      for i = 1, 4 do
        if type(v[i] or v[RECT_KEYS[i]]) ~= "number" then ok = false end
      end
    end
    if not ok then error("Sprite.rect must be {x, y, w, h} in pixels", 3) end
  end
  return v
end

local function checkWrap(v)
  if v == nil then return "clamp" end
  if v ~= "clamp" and v ~= "repeat" then error(("Sprite.wrap must be \"clamp\" or \"repeat\", got %s"):format(tostring(v)), 3) end
  return v
end

local function checkColor(v)
  if v ~= nil and not R.readColor(v, 4) then error("Sprite.color must be a colour {r, g, b[, a]}", 3) end
  return v
end

---@class tycho.Sprite: tycho.Component
---@field texture tycho.Texture|nil
---@field rect number[]|nil {x, y, w, h} in pixels of the texture; nil: all of it
---@field color number[]|nil tint {r, g, b[, a]}, sRGB as LÖVE's: {0.5, 0.5, 0.5} shows as 128
---@field nearest boolean nearest-neighbour filtering (pixel art)
---@field wrap "clamp"|"repeat" past the texture's (or rect's) edge: clamp (default) or tile
---@field enabled boolean
local Sprite = nativeClass("Sprite", {
  texture = spriteField("texture", checkTexture),
  rect = function(_, s, value)
    s.rect = checkRect(value)
    if s.slot then pushRect(s) end
  end,
  color = spriteField("color", checkColor),
  nearest = spriteField("nearest", toBool),
  wrap = spriteField("wrap", checkWrap),
  enabled = spriteField("enabled", toBool),
})

---@param opts? {texture?: tycho.Texture, rect?: number[], color?: number[], nearest?: boolean, wrap?: "clamp"|"repeat"}
function Sprite:init(opts)
  if opts ~= nil and type(opts) ~= "table" then argError(1, "new", "table expected, got " .. type(opts), 3) end
  opts = opts or {}
  local s = stores[self]
  s.texture = checkTexture(opts.texture)
  s.rect = checkRect(opts.rect)
  s.color = checkColor(opts.color)
  s.nearest = toBool(opts.nearest)
  s.wrap = checkWrap(opts.wrap)
end

function Sprite:onAttach()
  local s = stores[self]
  if s.slot then R.itemDestroy(s.slot) end
  s.slot = R.itemCreate(self.gameObject)
  R.itemSet(s.slot, "mesh", tycho.mesh.quad())
  R.itemSet(s.slot, "castShadows", false)
  pushSprite(s)
end
Sprite.onDetach = freeItem
Sprite.onDestroy = freeItem

tycho.Sprite = Sprite

-- ---------------------------------------------------------------------------------------
-- Lights

local function lightField(key, push)
  return function(_, s, value)
    value = push(s, key, value)
    s[key] = value
  end
end

local function pushColor(s, key, v)
  local r, g, b = R.readColor(v, 3)
  if not r then error(("light %s must be a colour {r, g, b} or a Vec3"):format(key), 4) end
  if s.slot then R.lightSet(s.slot, key, r, g, b) end
  return v
end

local function pushNumber(s, key, v)
  if type(v) ~= "number" then error(("light %s must be a number, got %s"):format(key, type(v)), 4) end
  if s.slot then R.lightSet(s.slot, key, v) end
  return v
end

local function pushBool(s, key, v)
  v = v and true or false
  if s.slot then R.lightSet(s.slot, key, v) end
  return v
end

local function pushDirection(s, key, v)
  if v == nil then
    if s.slot then R.lightSet(s.slot, key, nil) end
    return nil
  end
  local x, y, z = readVec3(v)
  if not x then error("light direction must be a Vec3 or {x, y, z}", 4) end
  if s.slot then R.lightSet(s.slot, key, x, y, z) end
  return v
end

local LIGHT_FIELDS = {
  color = pushColor,
  intensity = pushNumber,
  range = pushNumber,
  innerAngle = pushNumber,
  outerAngle = pushNumber,
  direction = pushDirection,
  castShadows = pushBool,
  enabled = pushBool,
}

local function lightClass(name, kind, defaults)
  local fields = {}
  for key, push in pairs(LIGHT_FIELDS) do fields[key] = lightField(key, push) end
  local class = nativeClass(name, fields)
  class.init = function(self, opts)
    if opts ~= nil and type(opts) ~= "table" then argError(1, "new", "table expected, got " .. type(opts), 3) end
    opts = opts or {}
    local s = stores[self]
    for key, push in pairs(LIGHT_FIELDS) do
      local v = opts[key]
      if v == nil then v = defaults[key] end
      if v ~= nil or key == "direction" then s[key] = push(s, key, v) end
    end
    s.enabled = true
  end
  class.onAttach = function(self)
    local s = stores[self]
    if s.slot then R.lightDestroy(s.slot) end
    s.slot = R.lightCreate(self.gameObject, kind)
    for key, push in pairs(LIGHT_FIELDS) do
      if s[key] ~= nil or key == "direction" then push(s, key, s[key]) end
    end
  end
  local function free(self)
    local s = stores[self]
    if s and s.slot then
      R.lightDestroy(s.slot)
      s.slot = nil
    end
  end
  class.onDetach = free
  class.onDestroy = free
  return class
end

---@class tycho.DirectionalLight: tycho.Component
---@field direction tycho.Vec3Like|nil the way the light travels, world space; nil: the object's -Z
---@field color number[]
---@field intensity number
---@field castShadows boolean
---@field enabled boolean
tycho.DirectionalLight = lightClass("DirectionalLight", "directional", {
  color = { 1, 1, 1 },
  intensity = 3,
  castShadows = true,
})

---@class tycho.PointLight: tycho.Component
---@field color number[]
---@field intensity number
---@field range number where the light reaches zero
---@field enabled boolean
tycho.PointLight = lightClass("PointLight", "point", {
  color = { 1, 1, 1 },
  intensity = 5,
  range = 10,
  castShadows = false,
})

---@class tycho.SpotLight: tycho.Component
---@field color number[]
---@field intensity number
---@field range number
---@field innerAngle number full cone, degrees
---@field outerAngle number full cone, degrees
---@field direction tycho.Vec3Like|nil world space; nil: the object's -Z
---@field enabled boolean
tycho.SpotLight = lightClass("SpotLight", "spot", {
  color = { 1, 1, 1 },
  intensity = 5,
  range = 10,
  innerAngle = 30,
  outerAngle = 45,
  castShadows = false,
})

tycho.features = require("tycho.render.features")
tycho.presets = require("tycho.presets")

return {
  sceneEngines = sceneEngines,
  Camera = Camera,
  MeshRenderer = MeshRenderer,
  Sprite = Sprite,
  DirectionalLight = tycho.DirectionalLight,
  PointLight = tycho.PointLight,
  SpotLight = tycho.SpotLight,
}
