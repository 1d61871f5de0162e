-- tests/lua/math_spec.lua: tycho.vec3, tycho.quat and tycho.mat4 (bindings/lua_math.c).
-- Uses only plain assert and error, so it runs under any describe/it runner.

local EPS = 1e-5

local function near(a, b, eps)
  return math.abs(a - b) <= (eps or EPS)
end

local function assert_near(a, b, what)
  assert(near(a, b), (what or "value") .. ": expected " .. tostring(b) .. ", got " .. tostring(a))
end

local function assert_vec(v, x, y, z, what)
  what = what or "vec3"
  assert_near(v.x, x, what .. ".x")
  assert_near(v.y, y, what .. ".y")
  assert_near(v.z, z, what .. ".z")
end

local function assert_quat(q, x, y, z, w, what)
  what = what or "quat"
  assert_near(q.x, x, what .. ".x")
  assert_near(q.y, y, what .. ".y")
  assert_near(q.z, z, what .. ".z")
  assert_near(q.w, w, what .. ".w")
end

-- Runs f, which must fail; returns the message so callers can check its form.
local function assert_error(f, ...)
  local ok, err = pcall(f, ...)
  assert(not ok, "expected an error")
  return tostring(err)
end

local function assert_find(s, pattern)
  assert(string.find(s, pattern, 1, true), "expected '" .. pattern .. "' in: " .. s)
end

local function assert_identity(m, what)
  for i = 1, 16 do
    local want = (i == 1 or i == 6 or i == 11 or i == 16) and 1 or 0
    assert_near(m:get(i), want, (what or "mat4") .. "[" .. i .. "]")
  end
end

describe("tycho.vec3", function()
  it("constructs with defaults of 0", function()
    assert_vec(tycho.vec3(), 0, 0, 0)
    assert_vec(tycho.vec3(1), 1, 0, 0)
    assert_vec(tycho.vec3(1, 2, 3), 1, 2, 3)
  end)

  it("reads and writes fields", function()
    local v = tycho.vec3(1, 2, 3)
    v.x, v.y, v.z = 4, 5.5, -6
    assert(v.x == 4 and v.y == 5.5 and v.z == -6, "fields did not take the writes")
    assert(v.w == nil, "Vec3 has no w")
    assert(v.nothing == nil, "unknown read gives nil")
  end)

  it("rejects unknown field writes and non-number values", function()
    local v = tycho.vec3()
    assert_find(assert_error(function() v.foo = 1 end), "Vec3 has no field 'foo'")
    assert_find(assert_error(function() v.w = 1 end), "Vec3 has no field 'w'")
    assert_find(assert_error(function() v.x = {} end), "must be a number")
  end)

  it("set, copy and clone", function()
    local v = tycho.vec3()
    assert(v:set(1, 2, 3) == v, "set returns self")
    assert_vec(v, 1, 2, 3)
    local w = tycho.vec3():copy(v)
    assert_vec(w, 1, 2, 3)
    local c = v:clone()
    assert(c ~= nil and rawequal(c, v) == false, "clone is a new value")
    c.x = 9
    assert(v.x == 1, "clone does not alias")
    local a, b, z = v:unpack()
    assert(a == 1 and b == 2 and z == 3, "unpack")
  end)

  it("arithmetic operators return new values", function()
    local a, b = tycho.vec3(1, 2, 3), tycho.vec3(4, 5, 6)
    assert_vec(a + b, 5, 7, 9, "a + b")
    assert_vec(b - a, 3, 3, 3, "b - a")
    assert_vec(a * 2, 2, 4, 6, "a * 2")
    assert_vec(2 * a, 2, 4, 6, "2 * a")
    assert_vec(-a, -1, -2, -3, "-a")
    assert_vec(a, 1, 2, 3, "a unchanged")
  end)

  it("compares component-wise", function()
    assert(tycho.vec3(1, 2, 3) == tycho.vec3(1, 2, 3), "equal")
    assert(tycho.vec3(1, 2, 3) ~= tycho.vec3(1, 2, 4), "not equal")
    assert(tycho.vec3(0, 0, 0) ~= tycho.quat(0, 0, 0, 0), "different types are unequal")
  end)

  it("length, dot, cross, normalize", function()
    assert_near(tycho.vec3(3, 4, 0):length(), 5)
    assert_near(tycho.vec3(1, 2, 3):dot(tycho.vec3(4, 5, 6)), 32)
    assert_vec(tycho.vec3(1, 0, 0):cross(tycho.vec3(0, 1, 0)), 0, 0, 1, "x cross y")
    local v = tycho.vec3(0, 3, 4)
    assert(v:normalize() == v, "normalize returns self")
    assert_vec(v, 0, 0.6, 0.8, "normalized")
    assert_vec(tycho.vec3():normalize(), 0, 0, 0, "zero stays zero")
  end)

  it("tostring", function()
    assert(tostring(tycho.vec3(1, 2, 3)) == "Vec3(1, 2, 3)", tostring(tycho.vec3(1, 2, 3)))
    assert(tostring(tycho.vec3(0.5, -1, 0)) == "Vec3(0.5, -1, 0)")
  end)

  it("raises the standard bad-argument message for wrong types", function()
    local v = tycho.vec3()
    local err = assert_error(function() return v:dot(5) end)
    assert_find(err, "bad argument #1 to")
    assert_find(err, "Vec3 expected, got number")
    err = assert_error(function() return v:cross(tycho.quat()) end)
    assert_find(err, "Vec3 expected, got Quat")
    assert_find(assert_error(function() return v + 1 end), "Vec3 expected")
    assert_find(assert_error(function() return v * v end), "number expected")
  end)
end)

describe("tycho.quat", function()
  it("constructs with identity defaults", function()
    assert_quat(tycho.quat(), 0, 0, 0, 1)
    assert_quat(tycho.quat(1, 2, 3, 4), 1, 2, 3, 4)
    assert_quat(tycho.quat.identity(), 0, 0, 0, 1)
  end)

  it("reads and writes fields", function()
    local q = tycho.quat()
    q.x, q.y, q.z, q.w = 1, 2, 3, 4
    local x, y, z, w = q:unpack()
    assert(x == 1 and y == 2 and z == 3 and w == 4, "unpack after field writes")
    assert_find(assert_error(function() q.v = 1 end), "Quat has no field 'v'")
  end)

  it("axisAngle rotates (1,0,0) by 90 degrees about z to (0,1,0)", function()
    local q = tycho.quat.axisAngle(0, 0, 1, math.pi / 2)
    assert_vec(q:rotate(tycho.vec3(1, 0, 0)), 0, 1, 0, "rotated")
    assert_vec(q * tycho.vec3(1, 0, 0), 0, 1, 0, "q * v")
    -- the axis is normalized
    local q2 = tycho.quat.axisAngle(0, 0, 5, math.pi / 2)
    assert_quat(q2, 0, 0, math.sqrt(0.5), math.sqrt(0.5), "normalized axis")
  end)

  it("setAxisAngle, set, copy, clone, normalize", function()
    local q = tycho.quat()
    assert(q:setAxisAngle(1, 0, 0, math.pi) == q, "setAxisAngle returns self")
    assert_quat(q, 1, 0, 0, 0, "180 about x")
    assert(q:set(0, 0, 0, 2) == q, "set returns self")
    assert(q:normalize() == q, "normalize returns self")
    assert_quat(q, 0, 0, 0, 1, "normalized")
    local c = tycho.quat(1, 2, 3, 4):clone()
    assert(c == tycho.quat(1, 2, 3, 4), "clone equal")
    assert(tycho.quat():copy(c) == c, "copy")
    assert(tycho.quat(1, 2, 3, 4) ~= tycho.quat(1, 2, 3, 5), "not equal")
  end)

  it("mul applies the argument first, then self", function()
    local rz = tycho.quat.axisAngle(0, 0, 1, math.pi / 2) -- x -> y
    local rx = tycho.quat.axisAngle(1, 0, 0, math.pi / 2) -- y -> z
    -- rx:mul(rz): rz first (x -> y), then rx (y -> z)
    assert_vec(rx:mul(rz):rotate(tycho.vec3(1, 0, 0)), 0, 0, 1, "rx * rz")
    -- rz:mul(rx): rx first (x stays x), then rz (x -> y)
    assert_vec(rz:mul(rx):rotate(tycho.vec3(1, 0, 0)), 0, 1, 0, "rz * rx")
    assert(rx * rz == rx:mul(rz), "__mul matches mul")
  end)

  it("tostring and bad arguments", function()
    assert(tostring(tycho.quat()) == "Quat(0, 0, 0, 1)", tostring(tycho.quat()))
    local err = assert_error(function() return tycho.quat():rotate(tycho.quat()) end)
    assert_find(err, "bad argument #1 to")
    assert_find(err, "Vec3 expected, got Quat")
    assert_find(assert_error(function() return tycho.quat():mul(1) end), "Quat expected, got number")
  end)
end)

describe("tycho.mat4", function()
  it("starts as the identity", function()
    assert_identity(tycho.mat4())
    assert_identity(tycho.mat4.identity())
  end)

  it("get and set are column-major and bounds-checked", function()
    local m = tycho.mat4()
    assert(m:set(13, 5) == m, "set returns self")
    assert(m:get(13) == 5, "translation x lives at 13")
    local err = assert_error(function() return m:get(0) end)
    assert_find(err, "bad argument #1 to 'get'")
    assert_find(assert_error(function() return m:get(17) end), "out of range")
    assert_find(assert_error(function() return m:set(17, 1) end), "out of range")
  end)

  it("transformPoint applies translation (w = 1)", function()
    local m = tycho.mat4():set(13, 1):set(14, 2):set(15, 3)
    assert_vec(m:transformPoint(tycho.vec3(1, 1, 1)), 2, 3, 4)
  end)

  it("fromTRS composes translate * rotate * scale", function()
    local m = tycho.mat4.fromTRS(tycho.vec3(10, 0, 0), tycho.quat.axisAngle(0, 0, 1, math.pi / 2),
      tycho.vec3(2, 2, 2))
    assert_vec(m:transformPoint(tycho.vec3(1, 0, 0)), 10, 2, 0)
    assert_vec(tycho.mat4.fromTRS(tycho.vec3(1, 2, 3)):transformPoint(tycho.vec3()), 1, 2, 3)
  end)

  it("mul is self * m", function()
    local t = tycho.mat4.fromTRS(tycho.vec3(5, 0, 0))
    local s = tycho.mat4.fromTRS(tycho.vec3(), nil, tycho.vec3(2, 2, 2))
    -- t * s scales first, then translates
    assert_vec(t:mul(s):transformPoint(tycho.vec3(1, 0, 0)), 7, 0, 0, "t * s")
    assert_vec(s:mul(t):transformPoint(tycho.vec3(1, 0, 0)), 12, 0, 0, "s * t")
    assert_vec((t * s):transformPoint(tycho.vec3(1, 0, 0)), 7, 0, 0, "__mul")
  end)

  it("invert times the original is the identity", function()
    local m = tycho.mat4.fromTRS(tycho.vec3(1, -2, 3), tycho.quat.axisAngle(1, 1, 0, 0.7),
      tycho.vec3(2, 3, 0.5))
    m:set(4, 0.25) -- a non-affine entry: the inverse must be the general one
    local inv = m:clone()
    assert(inv:invert() == inv, "invert returns self")
    assert_identity(inv:mul(m), "inv * m")
    assert_identity(m:mul(inv), "m * inv")
    local zero = tycho.mat4():set(1, 0)
    assert_find(assert_error(function() return zero:invert() end), "singular")
  end)

  it("clone does not alias, tostring, bad arguments", function()
    local m = tycho.mat4()
    local c = m:clone():set(1, 7)
    assert(m:get(1) == 1 and c:get(1) == 7, "clone does not alias")
    assert(tostring(m) == "Mat4(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1)", tostring(m))
    local err = assert_error(function() return m:transformPoint(m) end)
    assert_find(err, "bad argument #1 to")
    assert_find(err, "Vec3 expected, got Mat4")
    assert_find(assert_error(function() return tycho.mat4.fromTRS(5) end), "Vec3 expected, got number")
  end)
end)
