-- scripts/tycho/sync/components.lua: the byte layouts of the engine's built-in components
-- as CRDT component values (tycho.sync.components).
--
-- Where Decentraland has the component, tycho uses its id and its bytes, so a tycho peer and
-- an @dcl/ecs scene read each other's values: core::Transform (1, 44 bytes, tycho.crdt.transform),
-- core::MeshRenderer (1018), core::Material (1017), core::LightSource (1079) and
-- core::GltfContainer (1041) are protobuf messages, written here field by field in the order
-- and with the omissions protobufjs uses, so equal values are equal bytes (the CRDT breaks
-- ties by bytes). A directional light and a camera have no Decentraland component a scene can
-- write; they take the ids @dcl/ecs gives the names "tycho::DirectionalLight" and
-- "tycho::Camera" (crc32 + 2048, never a core id) and a compact little-endian layout.
-- scripts/docs/sync.md "Built-in components" has the tables.
local crdt = tycho.crdt

local M = {}

M.TRANSFORM = 1
M.MATERIAL = 1017
M.MESH_RENDERER = 1018
M.GLTF_CONTAINER = 1041
M.LIGHT_SOURCE = 1079
M.DIRECTIONAL_LIGHT = crdt.componentId("tycho::DirectionalLight")
M.CAMERA = crdt.componentId("tycho::Camera")

-- ---- protobuf, the little of it these messages use ----

local function varint(v)
  local out = {}
  repeat
    local b = v & 0x7F
    v = v >> 7
    out[#out + 1] = string.char(v ~= 0 and (b | 0x80) or b)
  until v == 0
  return table.concat(out)
end

local function tag(field, wire) return varint((field << 3) | wire) end
local function pbFloat(field, v) return tag(field, 5) .. string.pack("<f", v) end
local function pbBool(field, v) return tag(field, 0) .. (v and "\1" or "\0") end
local function pbInt(field, v) return tag(field, 0) .. varint(v & 0xFFFFFFFFFFFFFFFF) end
local function pbBytes(field, s) return tag(field, 2) .. varint(#s) .. s end

-- Reads a message into field -> value (the last one wins, as protobuf says): varints as
-- integers, fixed32 as floats, length-delimited as strings. nil, message on bad bytes.
local function pbRead(s)
  local fields, pos, n = {}, 1, #s
  local function readVarint()
    local v, shift = 0, 0
    while true do
      if pos > n or shift > 63 then return nil end
      local b = s:byte(pos)
      pos = pos + 1
      v = v | ((b & 0x7F) << shift)
      if b < 0x80 then return v end
      shift = shift + 7
    end
  end
  while pos <= n do
    local t = readVarint()
    if not t then return nil, "truncated protobuf" end
    local field, wire = t >> 3, t & 7
    if wire == 0 then
      local v = readVarint()
      if not v then return nil, "truncated protobuf" end
      fields[field] = v
    elseif wire == 5 then
      if pos + 3 > n then return nil, "truncated protobuf" end
      fields[field] = string.unpack("<f", s, pos)
      pos = pos + 4
    elseif wire == 1 then
      if pos + 7 > n then return nil, "truncated protobuf" end
      pos = pos + 8
    elseif wire == 2 then
      local len = readVarint()
      if not len or len > n - pos + 1 then return nil, "truncated protobuf" end
      fields[field] = s:sub(pos, pos + len - 1)
      pos = pos + len
    else
      return nil, "unsupported protobuf wire type " .. wire
    end
  end
  return fields
end

-- Colors: {r, g, b[, a]}, {r=, g=, b=, a=} or a Vec3. protobufjs leaves out zero fields.
local function colorParts(c, default)
  if c == nil then return table.unpack(default) end
  if type(c) == "table" then
    return c[1] or c.r or c.x or 0, c[2] or c.g or c.y or 0, c[3] or c.b or c.z or 0, c[4] or c.a or 1
  end
  return c.x, c.y, c.z, 1 -- a Vec3
end

local function encodeColor(r, g, b, a)
  local out = {}
  for i, v in ipairs({ r, g, b, a }) do
    if v ~= 0 then out[#out + 1] = pbFloat(i, v) end
  end
  return table.concat(out)
end

local function decodeColor(bytes, default, n)
  if not bytes then return default end
  local f = pbRead(bytes)
  if not f then return default end
  local c = { f[1] or 0, f[2] or 0, f[3] or 0 }
  if n == 4 then c[4] = f[4] or 0 end
  return c
end

local function argError(fname, msg) error(("bad argument #1 to '%s' (%s)"):format(fname, msg), 3) end
local function checkTable(t, fname)
  if type(t) ~= "table" then argError(fname, "table expected, got " .. type(t)) end
end
local function checkBytes(s, fname)
  if type(s) ~= "string" then argError(fname, "string expected, got " .. type(s)) end
end

-- ---- core::MeshRenderer (1018): oneof mesh { box = 1; sphere = 2; cylinder = 3; plane = 4 } ----
-- Box and plane hold `repeated float uvs = 1`, which protobufjs writes packed even when empty,
-- so their message is never empty: box {} is 0a 02 0a 00.

local MESH_FIELDS = { box = 1, sphere = 2, cylinder = 3, plane = 4 }
local MESH_KINDS = { "box", "sphere", "cylinder", "plane" }
local MESH_BODIES = { box = pbBytes(1, ""), sphere = "", cylinder = "", plane = pbBytes(1, "") }

M.meshRenderer = {}

---@param t {kind: "box"|"sphere"|"cylinder"|"plane"}
---@return string bytes
function M.meshRenderer.encode(t)
  checkTable(t, "encode")
  local field = MESH_FIELDS[t.kind]
  if not field then argError("encode", "kind must be box, sphere, cylinder or plane") end
  return pbBytes(field, MESH_BODIES[t.kind])
end

---@param bytes string
---@return {kind: string}|nil value, string|nil message
function M.meshRenderer.decode(bytes)
  checkBytes(bytes, "decode")
  local f, err = pbRead(bytes)
  if not f then return nil, err end
  for i = 4, 1, -1 do
    if f[i] then return { kind = MESH_KINDS[i] } end
  end
  return { kind = "none" } -- a MeshRenderer with no mesh draws nothing
end

-- ---- core::GltfContainer (1041): src = 1 ----

M.gltfContainer = {}

---@param t {src: string}
---@return string bytes
function M.gltfContainer.encode(t)
  checkTable(t, "encode")
  if type(t.src) ~= "string" then argError("encode", "src must be a string") end
  return t.src == "" and "" or pbBytes(1, t.src)
end

---@param bytes string
---@return {src: string}|nil value, string|nil message
function M.gltfContainer.decode(bytes)
  checkBytes(bytes, "decode")
  local f, err = pbRead(bytes)
  if not f then return nil, err end
  return { src = type(f[1]) == "string" and f[1] or "" }
end

-- ---- core::Material (1017): oneof material { unlit = 1; pbr = 2 } ----
-- Pbr: albedoColor 7 (Color4), emissiveColor 8 (Color3), transparencyMode 10, metallic 11,
-- roughness 12, emissiveIntensity 15 (Decentraland's default is 2, so an emissive colour is
-- written with an intensity of 1 and one read without it is doubled). Unlit: diffuseColor 4
-- (Color4).

local OPAQUE, ALPHA_BLEND, AUTO = 0, 2, 4
local DEFAULT_EMISSIVE_INTENSITY = 2

M.material = {}

---@param t {baseColor?: number[], metallic?: number, roughness?: number, transparent?: boolean, unlit?: boolean, emissive?: number[]}
---@return string bytes
function M.material.encode(t)
  checkTable(t, "encode")
  local r, g, b, a = colorParts(t.baseColor, { 1, 1, 1, 1 })
  if t.unlit then
    return pbBytes(1, pbBytes(4, encodeColor(r, g, b, a)))
  end
  local parts = { pbBytes(7, encodeColor(r, g, b, a)) }
  if t.emissive then
    local er, eg, eb = colorParts(t.emissive, { 0, 0, 0 })
    if er ~= 0 or eg ~= 0 or eb ~= 0 then parts[#parts + 1] = pbBytes(8, encodeColor(er, eg, eb, 0)) end
  end
  local emissive = #parts > 1
  parts[#parts + 1] = pbInt(10, t.transparent and ALPHA_BLEND or OPAQUE)
  parts[#parts + 1] = pbFloat(11, t.metallic or 0)
  parts[#parts + 1] = pbFloat(12, t.roughness or 0.5)
  if emissive then parts[#parts + 1] = pbFloat(15, 1) end
  return pbBytes(2, table.concat(parts))
end

---@param bytes string
---@return table|nil value {baseColor, metallic, roughness, transparent, unlit, emissive}, string|nil message
function M.material.decode(bytes)
  checkBytes(bytes, "decode")
  local f, err = pbRead(bytes)
  if not f then return nil, err end
  if type(f[1]) == "string" then
    local u = pbRead(f[1])
    if not u then return nil, "bad unlit material" end
    local c = decodeColor(u[4], { 1, 1, 1, 1 }, 4)
    return { unlit = true, baseColor = c, transparent = c[4] < 1, metallic = 0, roughness = 1, emissive = { 0, 0, 0 } }
  end
  local p = type(f[2]) == "string" and pbRead(f[2]) or {}
  if not p then return nil, "bad pbr material" end
  local c = decodeColor(p[7], { 1, 1, 1, 1 }, 4)
  local mode = p[10] or AUTO
  local e = decodeColor(p[8], { 0, 0, 0 }, 3)
  local ei = p[15] or DEFAULT_EMISSIVE_INTENSITY
  return {
    unlit = false,
    baseColor = c,
    -- AUTO: blended when the colour is not opaque (the textures tycho does not read aside).
    transparent = mode == 2 or mode == 3 or (mode == AUTO and c[4] < 1),
    metallic = p[11] or 0.5,
    roughness = p[12] or 0.5,
    emissive = { e[1] * ei, e[2] * ei, e[3] * ei },
  }
end

-- ---- core::LightSource (1079): active 1, color 2 (Color3), intensity 3, range 4, shadow 5,
-- oneof type { point = 7; spot = 8 {innerAngle 9, outerAngle 10} } ----

M.lightSource = {}

---@param t {kind?: "point"|"spot", color?: number[], intensity?: number, range?: number, shadow?: boolean, active?: boolean, innerAngle?: number, outerAngle?: number}
---@return string bytes
function M.lightSource.encode(t)
  checkTable(t, "encode")
  local kind = t.kind or "point"
  if kind ~= "point" and kind ~= "spot" then argError("encode", "kind must be point or spot") end
  local parts = {}
  if t.active ~= nil then parts[#parts + 1] = pbBool(1, t.active) end
  if t.color ~= nil then
    local r, g, b = colorParts(t.color, { 1, 1, 1 })
    parts[#parts + 1] = pbBytes(2, encodeColor(r, g, b, 0))
  end
  if t.intensity ~= nil then parts[#parts + 1] = pbFloat(3, t.intensity) end
  if t.range ~= nil then parts[#parts + 1] = pbFloat(4, t.range) end
  if t.shadow ~= nil then parts[#parts + 1] = pbBool(5, t.shadow) end
  if kind == "point" then
    parts[#parts + 1] = pbBytes(7, "")
  else
    local spot = {}
    if t.innerAngle ~= nil then spot[#spot + 1] = pbFloat(9, t.innerAngle) end
    if t.outerAngle ~= nil then spot[#spot + 1] = pbFloat(10, t.outerAngle) end
    parts[#parts + 1] = pbBytes(8, table.concat(spot))
  end
  return table.concat(parts)
end

---@param bytes string
---@return table|nil value, string|nil message
function M.lightSource.decode(bytes)
  checkBytes(bytes, "decode")
  local f, err = pbRead(bytes)
  if not f then return nil, err end
  local t = {
    kind = type(f[8]) == "string" and "spot" or "point",
    active = f[1] == nil or f[1] ~= 0,
    color = decodeColor(f[2], { 1, 1, 1 }, 3),
    intensity = f[3],
    range = f[4],
    shadow = f[5] ~= nil and f[5] ~= 0,
  }
  if t.kind == "spot" then
    local s = pbRead(f[8]) or {}
    t.innerAngle, t.outerAngle = s[9], s[10]
  end
  return t
end

-- ---- tycho::DirectionalLight: color rgb f32, intensity f32, direction xyz f32 (0,0,0: the
-- object's -Z), castShadows u8: 29 bytes ----

local DIR_FORMAT = "<fffffffB"

M.directionalLight = {}

---@param t {color?: number[], intensity?: number, direction?: tycho.Vec3Like, castShadows?: boolean}
---@return string bytes
function M.directionalLight.encode(t)
  checkTable(t, "encode")
  local r, g, b = colorParts(t.color, { 1, 1, 1 })
  local dx, dy, dz = 0, 0, 0
  local d = t.direction
  if d ~= nil then dx, dy, dz = d.x or d[1], d.y or d[2], d.z or d[3] end
  return string.pack(DIR_FORMAT, r, g, b, t.intensity or 3, dx, dy, dz, t.castShadows == false and 0 or 1)
end

---@param bytes string
---@return table|nil value, string|nil message
function M.directionalLight.decode(bytes)
  checkBytes(bytes, "decode")
  if #bytes ~= 29 then return nil, "a tycho::DirectionalLight is 29 bytes, got " .. #bytes end
  local r, g, b, i, dx, dy, dz, flags = string.unpack(DIR_FORMAT, bytes)
  local dir = (dx ~= 0 or dy ~= 0 or dz ~= 0) and { dx, dy, dz } or nil
  return { color = { r, g, b }, intensity = i, direction = dir, castShadows = flags & 1 == 1 }
end

-- ---- tycho::Camera: orthographic u8, fov f32 (degrees), size f32, near f32, far f32: 17 bytes ----

local CAM_FORMAT = "<Bffff"

M.camera = {}

---@param t {orthographic?: boolean, fov?: number, size?: number, near?: number, far?: number}
---@return string bytes
function M.camera.encode(t)
  checkTable(t, "encode")
  local ortho = t.orthographic and true or false
  return string.pack(CAM_FORMAT, ortho and 1 or 0, t.fov or 60, t.size or 5,
    t.near or (ortho and -100 or 0.1), t.far or (ortho and 100 or 1000))
end

---@param bytes string
---@return table|nil value, string|nil message
function M.camera.decode(bytes)
  checkBytes(bytes, "decode")
  if #bytes ~= 17 then return nil, "a tycho::Camera is 17 bytes, got " .. #bytes end
  local o, fov, size, near, far = string.unpack(CAM_FORMAT, bytes)
  return { orthographic = o & 1 == 1, fov = fov, size = size, near = near, far = far }
end

M.transform = crdt.transform

return M
