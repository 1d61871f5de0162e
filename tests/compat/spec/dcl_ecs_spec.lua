-- tests/compat/spec/dcl_ecs_spec.lua: tycho.crdt against the real @dcl/ecs (the version
-- pinned in tests/compat/package.json) running under node as tests/compat/peer.js.
-- Bytes go both ways: frames @dcl/ecs engines wrote are applied by tycho, batches tycho
-- wrote are applied by @dcl/ecs, and the states, the conflict decisions (the corrections
-- each side computed) and tycho's own local-write bytes are compared. The render components'
-- values go both ways too (tests/compat/components.js): what an @dcl/ecs scene writes must
-- build the same tycho objects through tycho.sync, and what tycho writes must read back the
-- same through @dcl/ecs's getters.
--
-- Needs node and `npm ci --prefix tests/compat` (.ci/deps does both). Without them every
-- test here fails with a message saying so: this suite never skips.

local crdt = tycho.crdt
local testing = require("tycho.testing")

local COMPAT = testing.here() .. "/.."
local HEALTH = crdt.componentId("tycho::Health")
local TRANSFORM = 1

local shellQuote, run = testing.quote, testing.shell

local checked
local function requirePeer()
  if checked then return end
  local code, out = run("command -v node")
  if code ~= 0 then
    error("compat: `node` is not on PATH. Install nodejs and npm (sh .ci/deps does), then run "
      .. "`npm ci --prefix tests/compat`.\n" .. out, 0)
  end
  local f = io.open(COMPAT .. "/node_modules/@dcl/ecs/package.json")
  if not f then
    error("compat: @dcl/ecs is not installed in tests/compat/node_modules. Run `npm ci --prefix tests/compat` "
      .. "(sh .ci/deps does).", 0)
  end
  local version = f:read("a"):match('"version"%s*:%s*"([^"]+)"')
  f:close()
  if not (version and version:match("^7%.")) then
    error("compat: tests/compat/node_modules has @dcl/ecs " .. tostring(version) .. ", expected 7.x", 0)
  end
  checked = true
end

-- Runs `node SCRIPT ARGS...` in tests/compat; returns its stdout lines.
local function node(script, ...)
  requirePeer()
  local parts = { "cd", shellQuote(COMPAT), "&&", "node", script }
  for i = 1, select("#", ...) do parts[#parts + 1] = shellQuote(select(i, ...)) end
  local code, out = run(table.concat(parts, " "))
  if code ~= 0 then error("compat: node " .. script .. " failed (exit " .. tostring(code) .. "):\n" .. out, 0) end
  local lines = {}
  for line in out:gmatch("[^\n]+") do lines[#lines + 1] = line end
  return lines
end

local function peer(...) return node("peer.js", ...) end

local function unhex(h)
  if h == "-" then return "" end
  return (h:gsub("%x%x", function(b) return string.char(tonumber(b, 16)) end))
end
local function tohex(s)
  if s == "" then return "-" end
  return (s:gsub(".", function(c) return ("%02x"):format(c:byte()) end))
end

-- The same canonical "state COMPONENT ENTITY TIMESTAMP HEX|nil" lines peer.js prints, from
-- tycho's dump-form snapshot.
local function tychoState(state)
  local bytes, pos, lines = state:snapshot({ dump = true }), 1, {}
  while pos <= #bytes do
    local length, kind, entity, component, ts = string.unpack("<I4I4I4I4I4", bytes, pos)
    local data = kind == 1 and tohex(bytes:sub(pos + 24, pos + length - 1)) or "nil"
    lines[#lines + 1] = table.concat({ "state", component, entity, ts, data }, " ")
    pos = pos + length
  end
  table.sort(lines)
  return lines
end

-- Node's state lines, leaving out entities @dcl/ecs reports removed: it keeps their
-- timestamps (and a lower version's data), tycho drops them. `prefix` selects an engine.
local function nodeState(lines, prefix)
  local removed, states = {}, {}
  for _, line in ipairs(lines) do
    local rest = prefix and line:match("^" .. prefix .. " (.*)$") or (not prefix and line)
    if rest then
      local e, s = rest:match("^entity (%d+) (%a+)$")
      if e and s == "removed" then removed[tonumber(e)] = true end
    end
  end
  for _, line in ipairs(lines) do
    local rest = prefix and line:match("^" .. prefix .. " (.*)$") or (not prefix and line)
    if rest and rest:match("^state ") then
      local entity = tonumber(rest:match("^state %d+ (%d+) "))
      if not removed[entity] then states[#states + 1] = rest end
    end
  end
  table.sort(states)
  return states, removed
end

local function health(hp, label, speed) return string.pack("<i4s4f", hp, label, speed) end
local function transform(x, y, z, parent)
  return crdt.transform.encode({ position = { x = x or 0, y = y or 0, z = z or 0 }, parent = parent })
end
local function put(e, c, ts, data) return string.pack("<I4I4I4I4I4s4", 24 + #data, 1, e, c, ts, data) end
local function delComponent(e, c, ts) return string.pack("<I4I4I4I4I4", 20, 2, e, c, ts) end
local function delEntity(e) return string.pack("<I4I4I4", 12, 3, e) end

-- Applies each batch in tycho and in @dcl/ecs; after every batch the states, the removed
-- entities and the corrections must agree. Returns how many corrections were compared.
local function applyBoth(batches)
  local files = {}
  for i, bytes in ipairs(batches) do
    files[i] = os.tmpname()
    local f = assert(io.open(files[i], "wb"))
    f:write(bytes)
    f:close()
  end
  local ok, lines = pcall(peer, "apply", table.unpack(files))
  for _, name in ipairs(files) do os.remove(name) end
  if not ok then error(lines, 0) end

  local state = crdt.new({ quiet = true })
  local i, compared = 0, 0
  local n = 1
  while n <= #lines do
    assert(lines[n]:match("^batch %d+$"), "unexpected peer output: " .. lines[n])
    i = i + 1
    local block = {}
    n = n + 1
    while lines[n] ~= "end" do
      block[#block + 1] = lines[n]
      n = n + 1
    end
    n = n + 1
    local _, corrections = state:apply(batches[i])
    local theirs = unhex(assert(block[1]:match("^corrections (%S+)$")))
    assert.equals(tohex(theirs), tohex(corrections or ""), "corrections after batch " .. i)
    if theirs ~= "" then compared = compared + 1 end
    local expected, removed = nodeState(block)
    assert.same(expected, tychoState(state), "state after batch " .. i)
    for _, line in ipairs(block) do
      local e = line:match("^entity (%d+) ")
      if e then
        e = tonumber(e)
        assert.equals(removed[e] == true, state:isRemoved(e), "removed(" .. e .. ") after batch " .. i)
      end
    end
  end
  assert.equals(#batches, i)
  return compared
end

describe("tycho.crdt against @dcl/ecs", function()
  it("has node and @dcl/ecs 7.x installed", function()
    requirePeer()
  end)

  it("numbers components as @dcl/ecs does", function()
    local names = {
      "core::Transform", "core::MeshRenderer", "core::PointerEventsResult", "example::Health",
      "tycho::Health", "core-schema::Network-Entity", "", "héllo::Wörld 🚀",
      ("n"):rep(127) .. "é", -- the two-byte character straddles the 128-byte buffer's end
      ("long::"):rep(40),
    }
    local lines = peer("ids", table.unpack(names))
    assert.equals(#names, #lines)
    for i, name in ipairs(names) do
      local h, id = lines[i]:match("^id (%S+) (%d+)$")
      assert.equals(tohex(name), h)
      assert.equals(tonumber(id), crdt.componentId(name), name)
    end
  end)

  describe("frames written by two @dcl/ecs engines", function()
    local frames, order, lines = {}, {}, nil
    setup(function()
      lines = peer("script")
      for _, line in ipairs(lines) do
        local name, h = line:match("^frame (%S+) (%S+)$")
        if name then
          frames[name] = unhex(h)
          order[#order + 1] = name
        end
      end
    end)

    it("match tycho's own local writes byte for byte", function()
      local a = crdt.new({ quiet = true })
      local e1, e2 = crdt.entity(512, 0), crdt.entity(513, 0)
      local t1 = crdt.transform.encode({ position = { 1, 2, 3 } })
      local t2 = crdt.transform.encode({ scale = { 2, 2, 2 }, parent = e1 })
      assert.equals(tohex(frames.A1),
        tohex(a:put(e1, TRANSFORM, t1) .. a:put(e2, TRANSFORM, t2) .. a:put(e1, HEALTH, health(10, "a", 1.5))))
      assert.equals(tohex(frames.A2),
        tohex(a:deleteComponent(e2, TRANSFORM) .. a:put(e1, HEALTH, health(30, "longer label", 1.5))))
      a:apply(frames.B1)
      a:apply(frames.B2)
      assert.equals(tohex(frames.A3), tohex(a:deleteEntity(e2)))
      local e3 = crdt.entity(513, 1) -- @dcl/ecs recycles number 513 at version 1
      assert.equals(tohex(frames.A4), tohex(a:put(e1, TRANSFORM, crdt.transform.encode({ position = { 4, 2, 3 } }))
        .. a:put(e3, HEALTH, health(1, "three", -0.5))))
      assert.equals(tohex(frames.A5), tohex(a:put(e1, TRANSFORM, crdt.transform.encode({ position = { 5, 2, 3 } }))))
      local expected = nodeState(lines, "A")
      assert.same(expected, tychoState(a))
    end)

    it("converge in tycho to @dcl/ecs's state in any delivery order", function()
      local expectedA, removedA = nodeState(lines, "A")
      local expectedB = nodeState(lines, "B")
      assert.same(expectedA, expectedB) -- the two engines agree with each other
      local orders = {
        order,
        { "A5", "A4", "A3", "B2", "A2", "B1", "A1" },
        { "B2", "A3", "A1", "A5", "B1", "A4", "A2" },
      }
      for k, names in ipairs(orders) do
        local state = crdt.new({ quiet = true })
        for _, name in ipairs(names) do state:apply(frames[name]) end
        assert.same(expectedA, tychoState(state), "delivery order " .. k)
        for e in pairs(removedA) do assert.equals(true, state:isRemoved(e), "order " .. k .. " entity " .. e) end
        -- All at once, as one batch, too.
        local batch = {}
        for _, name in ipairs(names) do batch[#batch + 1] = frames[name] end
        local once = crdt.new({ quiet = true })
        once:apply(table.concat(batch))
        if k == 1 then assert.same(expectedA, tychoState(once), "one batch") end
      end
    end)
  end)

  describe("batches written by tycho", function()
    it("get the same decisions and state from @dcl/ecs", function()
      local w = crdt.new({ quiet = true })
      local e512, e513, e600v2, e600v1 = 512, 513, crdt.entity(600, 2), crdt.entity(600, 1)
      local batches = {}
      -- 1: fresh puts, a reserved entity, and an unknown version 2 (retires version 1).
      batches[1] = w:put(e512, TRANSFORM, transform(1, 2, 3)) .. w:put(e512, HEALTH, health(10, "a", 1.5))
        .. w:put(e513, TRANSFORM, transform(0, 0, 0, e512)) .. w:put(1, TRANSFORM, transform(8, 0, 8))
        .. w:put(e600v2, TRANSFORM, transform(6))
      -- 2: conflicts at equal timestamps, a stale update, an echo, and a removed version.
      batches[2] = put(e512, TRANSFORM, 1, transform(1, 2, 4))           -- greater bytes: accepted
        .. put(e512, HEALTH, 1, health(10, "", 1.5))                     -- shorter: refused
        .. delComponent(e512, HEALTH, 1)                                 -- delete vs data: refused
        .. put(e513, TRANSFORM, 0, transform(9, 9, 9))                   -- stale: refused
        .. put(1, TRANSFORM, 1, transform(8, 0, 8))                      -- identical: no change
        .. put(e600v1, HEALTH, 5, health(1, "x", 0))                     -- removed version: ignored
        .. put(e512, HEALTH, 2, health(11, "b", 1.5))                    -- newer: accepted
      -- 3: DELETE_ENTITY runs after the batch's puts; a reserved entity's data becomes a
      -- tombstone at timestamp + 1.
      batches[3] = delEntity(e513) .. put(e513, TRANSFORM, 5, transform(5)) .. delEntity(1)
        .. delComponent(e512, TRANSFORM, 9) .. put(e600v2, HEALTH, 1, health(2, "two", 2))
      -- 4: after the deletes.
      batches[4] = put(e513, TRANSFORM, 10, transform(10))                 -- removed: ignored
        .. put(1, TRANSFORM, 1, transform(1))                             -- stale: the tombstone is at 2
        .. put(1, TRANSFORM, 2, transform(1))                             -- equal: beats the tombstone
        .. put(crdt.entity(513, 1), TRANSFORM, 1, transform(7))           -- the next version lives
        .. put(e512, TRANSFORM, 9, transform(0))                          -- equal: beats the delete
        .. delComponent(e600v2, TRANSFORM, 1)                             -- a delete that loses
      assert.equals(2, applyBoth(batches)) -- batches 2 and 4 hold the conflicts
    end)

    for _, seed in ipairs({ 12345, 777, 2024 }) do
      it("agree with @dcl/ecs on a random history (seed " .. seed .. ")", function()
        local rng = seed
        local function rand(n)
          rng = (rng * 1103515245 + 12345) % 2147483648
          return rng % n + 1
        end
        local entities = { 1, 2, 512, 513, crdt.entity(513, 1), crdt.entity(600, 0), crdt.entity(600, 1),
          crdt.entity(600, 3), crdt.entity(65535, 0) }
        local datas = {
          [TRANSFORM] = { transform(0), transform(1), transform(0, 0, 1), transform(0, 0, 0, 512) },
          [HEALTH] = { health(0, "", 0), health(1, "", 0), health(0, "a", 0), health(0, "b", 0), health(-1, "ab", 1) },
        }
        local batches = {}
        for b = 1, 60 do
          local parts = {}
          for _ = 1, rand(8) do
            local e, k = entities[rand(#entities)], rand(20)
            local c = rand(2) == 1 and TRANSFORM or HEALTH
            local ts = rand(4) - 1
            if k <= 13 then
              parts[#parts + 1] = put(e, c, ts, datas[c][rand(#datas[c])])
            elseif k <= 18 then
              parts[#parts + 1] = delComponent(e, c, ts)
            elseif b > 30 then -- deletes late, so the first half builds up state
              parts[#parts + 1] = delEntity(e)
            end
          end
          if rand(5) == 1 and b > 1 then parts[#parts + 1] = batches[rand(b - 1)] end -- redelivery
          batches[b] = table.concat(parts)
        end
        local compared = applyBoth(batches)
        assert(compared >= 10, "expected conflicts in the random history, got " .. compared)
      end)
    end
  end)
end)

-- ---- the render components' values (tycho.sync.components) against @dcl/ecs's ----

local sync = require("tycho.sync")
local C = sync.components
local json = tycho.json
local Engine = require("tycho.engine")

local FIRST = 512 -- components.js puts item i on entity 512 + i - 1, as tycho's cases do
local ID = { transform = C.TRANSFORM, meshRenderer = C.MESH_RENDERER, material = C.MATERIAL, lightSource = C.LIGHT_SOURCE }
local EPS = 1e-6

-- Each case in tycho's terms; entity FIRST + i - 1 holds case i. Every case has a Transform
-- (tycho's flush always writes one), so tycho's bytes can be compared with @dcl/ecs's.
local CASES = {
  { name = "box, opaque PBR",
    transform = { position = { 1, 2, 3 }, rotation = { 0, 0.6, 0, 0.8 }, scale = { 2, 0.5, 1.5 } },
    mesh = "box", material = { baseColor = { 1, 0.25, 0.5, 1 }, metallic = 0.1, roughness = 0.8 } },
  { name = "sphere, blended PBR, parented",
    transform = { position = { 0, 1, 0 }, parent = FIRST },
    mesh = "sphere", material = { baseColor = { 0.2, 0.4, 0.6, 0.5 }, metallic = 0.9, roughness = 0.3, transparent = true } },
  { name = "plane, emissive, two levels down",
    transform = { position = { -1, 0, 0.5 }, parent = FIRST + 1 },
    mesh = "plane", material = { baseColor = { 1, 1, 1, 1 }, metallic = 0, roughness = 0.5, emissive = { 1, 0.5, 0 } } },
  { name = "unlit box", transform = { position = { 0, 0, -4 } },
    mesh = "box", material = { unlit = true, baseColor = { 0.3, 0.6, 0.9, 1 } } },
  { name = "unlit see-through sphere", transform = {},
    mesh = "sphere", material = { unlit = true, baseColor = { 1, 0, 0, 0.25 }, transparent = true } },
  { name = "point light", transform = { position = { 0, 3, 0 } },
    light = { kind = "point", color = { 1, 0.5, 0.25 }, intensity = 8, range = 12, shadow = false, active = true } },
  { name = "spot light", transform = { position = { 2, 3, 0 }, rotation = { -0.6, 0, 0, 0.8 }, parent = FIRST },
    light = { kind = "spot", color = { 0, 0.5, 1 }, intensity = 20, range = 30, innerAngle = 15, outerAngle = 40,
      shadow = true, active = true } },
  { name = "switched-off light", transform = {},
    light = { kind = "point", color = { 1, 1, 1 }, intensity = 1, range = 2, shadow = false, active = false } },
}

local function transformOf(case)
  local t = case.transform
  return { position = t.position or { 0, 0, 0 }, rotation = t.rotation or { 0, 0, 0, 1 },
    scale = t.scale or { 1, 1, 1 }, parent = t.parent or 0 }
end

-- {x, y, z[, w]} from a Vec3, a Quat, a {r=, g=, b=, a=} or an array.
local function parts(v, n)
  local out
  if type(v) == "table" then
    out = { v[1] or v.r or v.x or 0, v[2] or v.g or v.y or 0, v[3] or v.b or v.z or 0, v[4] or v.a or v.w or 0 }
  else
    out = { v.x, v.y, v.z, n == 4 and v.w or 0 }
  end
  out[n + 1] = nil
  return out
end

local function assertNear(expected, actual, what)
  if type(expected) == "number" then
    assert(type(actual) == "number" and math.abs(expected - actual) <= EPS,
      ("%s: expected %s, got %s"):format(what, tostring(expected), tostring(actual)))
    return
  end
  local n = #expected
  local got = parts(actual, n)
  for i = 1, n do assertNear(expected[i], got[i], what .. "[" .. i .. "]") end
end

-- The same values in @dcl/ecs's shapes (PBMeshRenderer, PBMaterial, PBLightSource), as a
-- scene would write them.
local function dclColor(c, n)
  local t = { r = c[1], g = c[2], b = c[3] }
  if n == 4 then t.a = c[4] end
  return t
end

local function dclItem(case)
  local t = transformOf(case)
  local item = { transform = {
    position = { x = t.position[1], y = t.position[2], z = t.position[3] },
    rotation = { x = t.rotation[1], y = t.rotation[2], z = t.rotation[3], w = t.rotation[4] },
    scale = { x = t.scale[1], y = t.scale[2], z = t.scale[3] },
    parent = t.parent,
  } }
  if case.mesh then
    local body = case.mesh == "sphere" and {} or { uvs = json.array({}) }
    item.meshRenderer = { mesh = { ["$case"] = case.mesh, [case.mesh] = body } }
  end
  local m = case.material
  if m and m.unlit then
    item.material = { material = { ["$case"] = "unlit", unlit = { diffuseColor = dclColor(m.baseColor, 4) } } }
  elseif m then
    item.material = { material = { ["$case"] = "pbr", pbr = {
      albedoColor = dclColor(m.baseColor, 4), metallic = m.metallic, roughness = m.roughness,
      transparencyMode = m.transparent and 2 or 0,
      emissiveColor = m.emissive and dclColor(m.emissive, 3), emissiveIntensity = m.emissive and 1 or nil,
    } } }
  end
  local l = case.light
  if l then
    item.lightSource = {
      active = l.active, color = dclColor(l.color, 3), intensity = l.intensity, range = l.range, shadow = l.shadow,
      type = { ["$case"] = l.kind, [l.kind] = l.kind == "spot" and { innerAngle = l.innerAngle, outerAngle = l.outerAngle } or {} },
    }
  end
  return item
end

local function withFile(bytes, fn)
  local name = os.tmpname()
  local f = assert(io.open(name, "wb"))
  f:write(bytes)
  f:close()
  local ok, result = pcall(fn, name)
  os.remove(name)
  if not ok then error(result, 0) end
  return result
end

-- @dcl/ecs writes the items (one engine.update); returns its frame.
local function dclWrite(items)
  local lines = withFile(json.encode(json.array(items)), function(name) return node("components.js", "write", name) end)
  return unhex(assert(lines[1]:match("^frame (%S+)$"), lines[1]))
end

-- @dcl/ecs applies the bytes; returns entity -> what its getters return.
local function dclRead(bytes)
  local lines = withFile(bytes, function(name) return node("components.js", "read", name) end)
  local out = {}
  for _, line in ipairs(lines) do
    local e, text = line:match("^entity (%d+) (.+)$")
    out[tonumber((assert(e, line)))] = assert(json.decode(text))
  end
  return out
end

-- entity -> component id -> data, from PUT_COMPONENTs.
local function puts(bytes)
  local out, pos = {}, 1
  while pos <= #bytes do
    local length, kind, e, c = string.unpack("<I4I4I4I4", bytes, pos)
    if kind == 1 then
      out[e] = out[e] or {}
      out[e][c] = bytes:sub(pos + 24, pos + length - 1)
    end
    pos = pos + length
  end
  return out
end

-- tycho's objects for the cases, tracked and flushed: what tycho sends.
local function tychoWrite(scene, s, cases)
  local objects = {}
  for i, case in ipairs(cases) do
    local t = transformOf(case)
    local go = tycho.GameObject.new(case.name)
    go.position, go.rotation, go.scale = t.position, t.rotation, t.scale
    objects[i] = go
    if case.mesh then
      local mesh = ({ box = tycho.mesh.cube(), sphere = tycho.mesh.sphere(), plane = tycho.mesh.plane() })[case.mesh]
      go:addComponent(tycho.MeshRenderer, mesh, tycho.material(case.material or {}))
    end
    local l = case.light
    if l then
      local light = go:addComponent(l.kind == "spot" and tycho.SpotLight or tycho.PointLight, {
        color = l.color, intensity = l.intensity, range = l.range, innerAngle = l.innerAngle, outerAngle = l.outerAngle,
      })
      light.castShadows = l.shadow
      light.enabled = l.active
    end
  end
  for i, case in ipairs(cases) do
    local parent = transformOf(case).parent
    if parent ~= 0 then objects[i]:setParent(objects[parent - FIRST + 1]) else scene:add(objects[i]) end
    s:track(objects[i], FIRST + i - 1)
  end
  return s:flush(), objects
end

-- The tycho object mirrored for case i holds the case's values.
local function checkTycho(s, e, case)
  local go = assert(s:gameObjectFor(e), case.name .. ": no GameObject")
  local t = transformOf(case)
  assertNear(t.position, go.position, case.name .. " position")
  assertNear(t.rotation, go.rotation, case.name .. " rotation")
  assertNear(t.scale, go.scale, case.name .. " scale")
  assert.equals(t.parent ~= 0 and s:gameObjectFor(t.parent) or nil, go.parent, case.name .. " parent")

  local r = go:getComponent(tycho.MeshRenderer)
  if case.mesh then
    local mesh = ({ box = tycho.mesh.cube(), sphere = tycho.mesh.sphere(), plane = tycho.mesh.plane() })[case.mesh]
    assert.equals(mesh, assert(r, case.name .. ": no MeshRenderer").mesh, case.name .. " mesh")
  else
    assert.is_nil(r, case.name .. ": a MeshRenderer")
  end
  local m = case.material
  if m then
    local got = r.material
    assert.equals(m.unlit == true, got.unlit, case.name .. " unlit")
    assertNear(m.baseColor, got.baseColor, case.name .. " baseColor")
    assert.equals(m.transparent == true, got.transparent, case.name .. " transparent")
    assertNear(m.emissive or { 0, 0, 0 }, got.emissive, case.name .. " emissive")
    if not m.unlit then
      assertNear(m.metallic, got.metallic, case.name .. " metallic")
      assertNear(m.roughness, got.roughness, case.name .. " roughness")
    end
  end

  local point, spot = go:getComponent(tycho.PointLight), go:getComponent(tycho.SpotLight)
  local l = case.light
  if not l then
    assert.is_nil(point or spot, case.name .. ": a light")
    return
  end
  local light, other = point, spot
  if l.kind == "spot" then light, other = spot, point end
  assert(light, case.name .. ": no " .. l.kind .. " light")
  assert.is_nil(other, case.name .. ": a second light")
  assertNear(l.color, light.color, case.name .. " color")
  assertNear(l.intensity, light.intensity, case.name .. " intensity")
  assertNear(l.range, light.range, case.name .. " range")
  assert.equals(l.shadow, light.castShadows, case.name .. " castShadows")
  assert.equals(l.active, light.enabled, case.name .. " enabled")
  if l.kind == "spot" then
    assertNear(l.innerAngle, light.innerAngle, case.name .. " innerAngle")
    assertNear(l.outerAngle, light.outerAngle, case.name .. " outerAngle")
  end
end

-- What @dcl/ecs's getters return for an entity holds the case's values.
local function checkDcl(got, case)
  assert(got, case.name .. ": @dcl/ecs has no such entity")
  local t = transformOf(case)
  local tr = assert(got.transform, case.name .. ": no Transform")
  assertNear(t.position, tr.position, case.name .. " position")
  assertNear(t.rotation, tr.rotation, case.name .. " rotation")
  assertNear(t.scale, tr.scale, case.name .. " scale")
  assert.equals(t.parent, tr.parent, case.name .. " parent")
  if case.mesh then
    assert.equals(case.mesh, got.meshRenderer.mesh["$case"], case.name .. " mesh")
  else
    assert.is_nil(got.meshRenderer, case.name .. ": a MeshRenderer")
  end
  local m = case.material
  if m and m.unlit then
    assert.equals("unlit", got.material.material["$case"], case.name .. " unlit")
    assertNear(m.baseColor, got.material.material.unlit.diffuseColor, case.name .. " diffuseColor")
  elseif m then
    local pbr = got.material.material.pbr
    assert(pbr, case.name .. ": not a PBR material")
    assertNear(m.baseColor, pbr.albedoColor, case.name .. " albedoColor")
    assertNear(m.metallic, pbr.metallic, case.name .. " metallic")
    assertNear(m.roughness, pbr.roughness, case.name .. " roughness")
    assert.equals(m.transparent and 2 or 0, pbr.transparencyMode, case.name .. " transparencyMode")
    -- Decentraland multiplies the colour by emissiveIntensity (default 2)
    local ec, ei = parts(pbr.emissiveColor or {}, 3), pbr.emissiveIntensity or 2
    assertNear(m.emissive or { 0, 0, 0 }, { ec[1] * ei, ec[2] * ei, ec[3] * ei }, case.name .. " emissive")
  else
    assert.is_nil(got.material, case.name .. ": a Material")
  end
  local l = case.light
  if not l then
    assert.is_nil(got.lightSource, case.name .. ": a LightSource")
    return
  end
  local ls = got.lightSource
  assert.equals(l.kind, ls.type["$case"], case.name .. " light type")
  assertNear(l.color, ls.color, case.name .. " color")
  assertNear(l.intensity, ls.intensity, case.name .. " intensity")
  assertNear(l.range, ls.range, case.name .. " range")
  assert.equals(l.shadow, ls.shadow, case.name .. " shadow")
  assert.equals(l.active, ls.active, case.name .. " active")
  if l.kind == "spot" then
    assertNear(l.innerAngle, ls.type.spot.innerAngle, case.name .. " innerAngle")
    assertNear(l.outerAngle, ls.type.spot.outerAngle, case.name .. " outerAngle")
  end
end

local function newSync()
  local engine = Engine.new({ headless = true, width = 64, height = 64 })
  return engine.scene, sync.new(engine.scene, { state = crdt.new({ quiet = true }) })
end

describe("tycho.sync's built-in components against @dcl/ecs", function()
  local items = {}
  for i, case in ipairs(CASES) do items[i] = dclItem(case) end

  it("reads what an @dcl/ecs scene writes into the same tycho objects", function()
    local frame = dclWrite(items)
    local scene, s = newSync()
    local _, corrections = s:apply(frame)
    assert.is_nil(corrections)
    for i, case in ipairs(CASES) do checkTycho(s, FIRST + i - 1, case) end
    assert.equals(5, #scene.roots) -- the cases with parent 0
  end)

  it("writes values @dcl/ecs's getters read back the same", function()
    local scene, s = newSync()
    local bytes = tychoWrite(scene, s, CASES)
    local got = dclRead(bytes)
    for i, case in ipairs(CASES) do checkDcl(got[FIRST + i - 1], case) end
  end)

  it("writes the bytes @dcl/ecs writes for the same values", function()
    local theirs = puts(dclWrite(items))
    local scene, s = newSync()
    local ours = puts((tychoWrite(scene, s, CASES)))
    for i, case in ipairs(CASES) do
      local e = FIRST + i - 1
      for name, id in pairs(ID) do
        assert.equals(tohex(theirs[e] and theirs[e][id] or ""), tohex(ours[e] and ours[e][id] or ""),
          case.name .. " " .. name)
      end
    end
  end)

  it("reads @dcl/ecs's empty and default messages as Decentraland's defaults", function()
    local pointDefaults = tycho.GameObject.new("p"):addComponent(tycho.PointLight, {})
    local spotDefaults = tycho.GameObject.new("s"):addComponent(tycho.SpotLight, {})
    local frame = dclWrite({
      { transform = {}, meshRenderer = {}, material = {} },                 -- 512: no mesh, so no renderer
      { meshRenderer = { mesh = { ["$case"] = "box", box = { uvs = json.array({}) } } }, material = {} },
      { meshRenderer = { mesh = { ["$case"] = "sphere", sphere = {} } }, material = { material = { ["$case"] = "pbr", pbr = {} } } },
      { meshRenderer = { mesh = { ["$case"] = "plane", plane = { uvs = json.array({}) } } },
        material = { material = { ["$case"] = "pbr", pbr = {                -- AUTO; intensity left at 2
          albedoColor = { r = 1, g = 1, b = 1, a = 0.5 }, emissiveColor = { r = 0.5, g = 0.25, b = 0 } } } } },
      { meshRenderer = { mesh = { ["$case"] = "box", box = { uvs = json.array({}) } } },
        material = { material = { ["$case"] = "unlit", unlit = {} } } },
      { lightSource = {} },                                                 -- 517: no type: a point light
      { lightSource = { type = { ["$case"] = "spot", spot = {} } } },
      { lightSource = { type = { ["$case"] = "point", point = {} }, color = { r = 0, g = 0, b = 0 } } },
    })
    local mine = puts(frame)
    assert.equals("", mine[512][C.MESH_RENDERER])
    assert.equals("", mine[512][C.MATERIAL])
    assert.equals("", mine[517][C.LIGHT_SOURCE])
    local _, s = newSync()
    s:apply(frame)
    local go = assert(s:gameObjectFor(512))
    assertNear({ 0, 0, 0 }, go.position, "default position")
    assertNear({ 0, 0, 0, 1 }, go.rotation, "default rotation")
    assertNear({ 1, 1, 1 }, go.scale, "default scale")
    assert.is_nil(go.parent)
    assert.is_nil(go:getComponent(tycho.MeshRenderer), "a MeshRenderer without a mesh draws nothing")

    local white = { baseColor = { 1, 1, 1, 1 }, metallic = 0.5, roughness = 0.5, transparent = false, emissive = { 0, 0, 0 } }
    local expected = {
      [513] = { mesh = tycho.mesh.cube(), material = white },
      [514] = { mesh = tycho.mesh.sphere(), material = white },
      [515] = { mesh = tycho.mesh.plane(), material = { baseColor = { 1, 1, 1, 0.5 }, metallic = 0.5, roughness = 0.5,
        transparent = true, emissive = { 1, 0.5, 0 } } },
      [516] = { mesh = tycho.mesh.cube(), material = { baseColor = { 1, 1, 1, 1 }, transparent = false, unlit = true,
        emissive = { 0, 0, 0 } } },
    }
    for e, want in pairs(expected) do
      local r = assert(s:gameObjectFor(e):getComponent(tycho.MeshRenderer), "entity " .. e)
      assert.equals(want.mesh, r.mesh, "entity " .. e .. " mesh")
      local m, w = r.material, want.material
      assertNear(w.baseColor, m.baseColor, e .. " baseColor")
      assert.equals(w.transparent, m.transparent, e .. " transparent")
      assert.equals(w.unlit == true, m.unlit, e .. " unlit")
      assertNear(w.emissive, m.emissive, e .. " emissive")
      if w.metallic then
        assertNear(w.metallic, m.metallic, e .. " metallic")
        assertNear(w.roughness, m.roughness, e .. " roughness")
      end
    end

    for e, kind in pairs({ [517] = "point", [518] = "spot", [519] = "point" }) do
      local lgo = s:gameObjectFor(e)
      local light = lgo:getComponent(kind == "spot" and tycho.SpotLight or tycho.PointLight)
      assert(light, "entity " .. e .. ": no " .. kind .. " light")
      assert.is_nil(lgo:getComponent(kind == "spot" and tycho.PointLight or tycho.SpotLight))
      local defaults = kind == "spot" and spotDefaults or pointDefaults
      assert.is_true(light.enabled, "entity " .. e .. " active")
      assert.is_false(light.castShadows, "entity " .. e .. " shadow")
      -- an absent colour is white; a present one with no fields is black, as protobuf says
      assertNear(e == 519 and { 0, 0, 0 } or { 1, 1, 1 }, light.color, e .. " color")
      assertNear(defaults.intensity, light.intensity, e .. " intensity (tycho's own default)")
      assertNear(defaults.range, light.range, e .. " range (tycho's own default)")
      if kind == "spot" then
        assertNear(defaults.innerAngle, light.innerAngle, e .. " innerAngle")
        assertNear(defaults.outerAngle, light.outerAngle, e .. " outerAngle")
      end
    end
  end)

  it("writes tycho's defaults so that @dcl/ecs reads them back", function()
    local scene, s = newSync()
    local plain = scene:add(tycho.GameObject.new("plain"))
    local box = scene:add(tycho.GameObject.new("box"))
    local m = tycho.material({})
    box:addComponent(tycho.MeshRenderer, tycho.mesh.cube(), m)
    local lamp = scene:add(tycho.GameObject.new("lamp"))
    local point = lamp:addComponent(tycho.PointLight, {})
    local cone = scene:add(tycho.GameObject.new("cone"))
    local spot = cone:addComponent(tycho.SpotLight, {})
    for i, go in ipairs({ plain, box, lamp, cone }) do s:track(go, FIRST + i - 1) end
    -- and the codecs' empty tables, as another peer might write them
    local raw = crdt.new()
    local bytes = s:flush() .. raw:put(FIRST + 4, C.LIGHT_SOURCE, C.lightSource.encode({}))
      .. raw:put(FIRST + 5, C.MATERIAL, C.material.encode({}))
    local got = dclRead(bytes)

    local t = got[FIRST].transform
    assertNear({ 0, 0, 0 }, t.position, "default position")
    assertNear({ 0, 0, 0, 1 }, t.rotation, "default rotation")
    assertNear({ 1, 1, 1 }, t.scale, "default scale")
    assert.equals(0, t.parent)
    assert.same({ "transform" }, (function() local k = {} for n in pairs(got[FIRST]) do k[#k + 1] = n end return k end)())

    assert.equals("box", got[FIRST + 1].meshRenderer.mesh["$case"])
    local pbr = got[FIRST + 1].material.material.pbr
    assertNear(m.baseColor, pbr.albedoColor, "albedoColor")
    assertNear(m.metallic, pbr.metallic, "metallic")
    assertNear(m.roughness, pbr.roughness, "roughness")
    assert.equals(0, pbr.transparencyMode)
    assert.is_nil(pbr.emissiveColor)

    for _, c in ipairs({ { FIRST + 2, point, "point" }, { FIRST + 3, spot, "spot" } }) do
      local ls = got[c[1]].lightSource
      assert.equals(c[3], ls.type["$case"])
      assertNear(parts(c[2].color, 3), ls.color, c[3] .. " color")
      assertNear(c[2].intensity, ls.intensity, c[3] .. " intensity")
      assertNear(c[2].range, ls.range, c[3] .. " range")
      assert.is_true(ls.active)
      assert.is_false(ls.shadow)
      if c[3] == "spot" then
        assertNear(c[2].innerAngle, ls.type.spot.innerAngle, "innerAngle")
        assertNear(c[2].outerAngle, ls.type.spot.outerAngle, "outerAngle")
      end
    end

    assert.same({ type = { ["$case"] = "point", point = {} } }, got[FIRST + 4].lightSource)
    local empty = got[FIRST + 5].material.material.pbr
    assertNear({ 1, 1, 1, 1 }, empty.albedoColor, "empty albedoColor")
    assertNear(0.5, empty.roughness, "empty roughness")
  end)
end)
