-- tests/lua/crdt_spec.lua: tycho.crdt (bindings/lua_crdt.c over engine/sync/crdt.c), as
-- ../shared/API.md "State sync" lists it, with wire bytes checked against the @dcl/ecs layout
-- (../shared/notes/dcl-crdt-wire.md) written here by hand with string.pack.

local crdt = tycho.crdt

local function put(entity, component, ts, data)
  return string.pack("<I4I4I4I4I4s4", 24 + #data, 1, entity, component, ts, data)
end
local function delComponent(entity, component, ts)
  return string.pack("<I4I4I4I4I4", 20, 2, entity, component, ts)
end
local function delEntity(entity) return string.pack("<I4I4I4", 12, 3, entity) end

local function quiet() return crdt.new({ quiet = true }) end

describe("tycho.crdt ids", function()
  it("packs number and version as @dcl/ecs does", function()
    assert.equals(66050, crdt.entity(514, 1))
    assert.equals(4294941760, crdt.entity(40000, 65535))
    assert.equals(512, crdt.entity(512))
    assert.equals(40000, crdt.entityNumber(4294941760))
    assert.equals(65535, crdt.entityVersion(4294941760))
    assert.equals(0, crdt.entityVersion(511))
  end)

  it("computes component numbers from names", function()
    assert.equals(1, crdt.componentId("core::Transform"))
    assert.equals(1018, crdt.componentId("core::MeshRenderer"))
    assert.equals(2280581199, crdt.componentId("example::Health"))
    assert.equals(crdt.componentId(("x"):rep(128) .. "a"), crdt.componentId(("x"):rep(128) .. "b"))
  end)

  it("raises on bad arguments", function()
    assert.error_matches(function() crdt.entity(65536, 0) end, "bad argument #1 to 'entity'", nil, true)
    assert.error_matches(function() crdt.entity(1, -1) end, "bad argument #2 to 'entity'", nil, true)
    assert.error_matches(function() crdt.entity("a") end, "bad argument #1 to 'entity'", nil, true)
    assert.error_matches(function() crdt.entityNumber(-1) end, "bad argument #1 to 'entityNumber'", nil, true)
    assert.error_matches(function() crdt.entityVersion(2 ^ 32) end, "bad argument #1 to 'entityVersion'", nil, true)
    assert.error_matches(function() crdt.componentId({}) end, "bad argument #1 to 'componentId'", nil, true)
    assert.error_matches(function() crdt.new(5) end, "bad argument #1 to 'new'", nil, true)
    assert.error_matches(function() crdt.new({ maxMessageSize = 4 }) end, "bad argument #1 to 'new'", nil, true)
  end)
end)

describe("tycho.crdt.transform", function()
  it("encodes 44 little-endian bytes with defaults", function()
    local bytes = crdt.transform.encode({})
    assert.equals(44, #bytes)
    assert.equals(string.pack("<ffffffffffI4", 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 0), bytes)
    assert.equals(bytes, crdt.transform.encode())
  end)

  it("takes tables, arrays and Vec3/Quat values", function()
    local bytes = crdt.transform.encode({
      position = { x = 1.5, y = -2, z = 0.25 },
      rotation = { 0, 0.5, 0, 0.75 },
      scale = tycho.vec3(2, 3, 4),
      parent = 66050,
    })
    assert.equals(string.pack("<ffffffffffI4", 1.5, -2, 0.25, 0, 0.5, 0, 0.75, 2, 3, 4, 66050), bytes)
    assert.same({
      position = { x = 1.5, y = -2, z = 0.25 },
      rotation = { x = 0, y = 0.5, z = 0, w = 0.75 },
      scale = { x = 2, y = 3, z = 4 },
      parent = 66050,
    }, crdt.transform.decode(bytes))
    local q = tycho.quat(0, 0, 0, 1)
    assert.equals(crdt.transform.encode({}), crdt.transform.encode({ rotation = q, position = tycho.vec3(0, 0, 0) }))
  end)

  it("decodes only 44 bytes and raises on bad fields", function()
    local t, err = crdt.transform.decode("short")
    assert.equals(nil, t)
    assert.equals("Transform data must be 44 bytes, got 5", err)
    assert.error_matches(function() crdt.transform.decode(nil) end, "bad argument #1 to 'decode'", nil, true)
    assert.error_matches(function() crdt.transform.encode({ position = { x = "a", y = 0, z = 0 } }) end,
      "'position.x' must be a number", nil, true)
    assert.error_matches(function() crdt.transform.encode({ rotation = 3 }) end, "bad argument #1 to 'encode'", nil, true)
    assert.error_matches(function() crdt.transform.encode({ parent = -1 }) end, "'parent' must be an entity id", nil, true)
  end)
end)

describe("CrdtState", function()
  local state
  before_each(function() state = quiet() end)

  it("writes local puts with the stored timestamp + 1", function()
    local e = crdt.entity(512, 0)
    assert.equals(put(e, 1, 1, "abc"), state:put(e, 1, "abc"))
    assert.equals(put(e, 1, 2, "abd"), state:put(e, 1, "abd"))
    assert.equals("", state:put(e, 1, "abd")) -- same bytes: nothing to send
    local data, ts = state:get(e, 1)
    assert.equals("abd", data)
    assert.equals(2, ts)
    assert.equals(nil, state:get(e, 2))
    assert.equals(delComponent(e, 1, 3), state:deleteComponent(e, 1))
    assert.equals("", state:deleteComponent(e, 1))
    local none, tombstone = state:get(e, 1)
    assert.equals(nil, none)
    assert.equals(3, tombstone)
  end)

  it("applies a batch and counts what changed", function()
    local n, corrections = state:apply(put(600, 1, 5, "a") .. put(601, 1, 1, "b") .. delComponent(602, 7, 2))
    assert.equals(3, n)
    assert.equals(nil, corrections)
    assert.equals("a", (state:get(600, 1)))
    assert.equals(3, state:count())
    -- The next local write follows the received clock.
    assert.equals(put(600, 1, 6, "c"), state:put(600, 1, "c"))
  end)

  it("answers stale messages with corrections", function()
    state:apply(put(600, 1, 5, "mine"))
    local n, corrections = state:apply(put(600, 1, 4, "older but longer") .. delComponent(600, 1, 5))
    assert.equals(0, n)
    assert.equals(put(600, 1, 5, "mine") .. put(600, 1, 5, "mine"), corrections)
    assert.equals(2, state:stats().stale)
  end)

  it("breaks equal timestamps by data: null < bytes, longer wins, then bytes", function()
    state:apply(delComponent(600, 1, 3))
    assert.equals(1, (state:apply(put(600, 1, 3, ""))))
    assert.equals(1, (state:apply(put(600, 1, 3, "zz"))))
    assert.equals(1, (state:apply(put(600, 1, 3, "aaa"))))
    assert.equals(0, (state:apply(put(600, 1, 3, "zz"))))
    assert.equals(1, (state:apply(put(600, 1, 3, "\x80aa"))))
    assert.equals(0, (state:apply(put(600, 1, 3, "\x7fzz"))))
    local n, corrections = state:apply(put(600, 1, 3, "\x80aa"))
    assert.equals(0, n)
    assert.equals(nil, corrections) -- identical: no change, nothing to correct
    assert.equals("\x80aa", (state:get(600, 1)))
  end)

  it("deletes entities after the rest of the batch and ignores them afterwards", function()
    local e = crdt.entity(700, 1)
    assert.equals(2, (state:apply(delEntity(e) .. put(e, 1, 1, "x"))))
    assert.equals(nil, state:get(e, 1))
    assert.equals(true, state:isRemoved(e))
    assert.equals(true, state:isRemoved(crdt.entity(700, 0)))
    assert.equals(false, state:isRemoved(crdt.entity(700, 2)))
    assert.equals(0, (state:apply(put(e, 1, 9, "late"))))
    assert.equals(1, state:stats().removedEntity)
    local bytes, err = state:put(e, 1, "local")
    assert.equals(nil, bytes)
    assert.equals("entity 66236 (number 700, version 1) is deleted", err)
  end)

  it("sends DELETE_COMPONENTs then DELETE_ENTITY for a local delete", function()
    local e = crdt.entity(800, 0)
    state:put(e, 2048, "b")
    state:put(e, 1, "a")
    assert.equals(delComponent(e, 1, 2) .. delComponent(e, 2048, 2) .. delEntity(e), state:deleteEntity(e))
    assert.equals(true, state:isRemoved(e))
    assert.equals(0, state:count())
    assert.equals("", state:deleteEntity(5)) -- the renderer's avatar range is left alone
  end)

  it("keeps reserved entities writable after DELETE_ENTITY", function()
    state:apply(put(1, 1, 4, "player"))
    state:apply(delEntity(1))
    assert.equals(false, state:isRemoved(1))
    local data, ts = state:get(1, 1) -- a tombstone one tick later, as @dcl/ecs has it
    assert.same({ nil, 5 }, { data, ts })
    assert.equals(0, (state:apply(put(1, 1, 4, "stale"))))
    assert.equals(1, (state:apply(put(1, 1, 5, "again"))))
  end)

  it("refuses malformed messages by reason and leaves the state alone", function()
    state:apply(put(600, 1, 1, "keep"))
    local before = state:snapshot()
    local bad = {
      truncated = "\1\2\3",
      short_length = string.pack("<I4I4", 4, 1),
      past_end = string.pack("<I4I4I4", 40, 2, 600),
      too_large = string.pack("<I4I4", 0x7FFFFFFF, 1),
      bad_size = string.pack("<I4I4I4I4I4I4", 24, 2, 600, 1, 9, 0),
      data_length = string.pack("<I4I4I4I4I4I4c3", 27, 1, 600, 1, 9, 2, "abc"),
    }
    for reason, bytes in pairs(bad) do
      assert.equals(0, (state:apply(bytes)), reason)
      assert.equals(before, state:snapshot(), reason)
    end
    local stats = state:stats()
    assert.same({ truncated = 1, short_length = 1, past_end = 1, too_large = 1, bad_size = 1, data_length = 1 },
      stats.rejected)
    assert.equals(6, stats.malformed)
    assert.equals("keep", (state:get(600, 1)))
  end)

  it("caps message size as configured", function()
    local small = crdt.new({ quiet = true, maxMessageSize = 30 })
    assert.equals(2, (small:apply(put(600, 1, 1, "tiny") .. put(601, 1, 1, "far too long") .. put(602, 1, 1, "ok"))))
    assert.equals(1, small:stats().rejected.too_large)
  end)

  it("keeps at most maxComponents component ids", function()
    local small = crdt.new({ quiet = true, maxComponents = 1 })
    assert.equals(1, (small:apply(put(600, 5, 1, "a") .. put(600, 6, 1, "b"))))
    assert.equals(1, small:stats().componentLimit)
    local bytes, err = small:put(600, 7, "c")
    assert.equals(nil, bytes)
    assert.equals("the state holds as many component ids as maxComponents allows", err)
    assert.error_matches(function() crdt.new({ maxComponents = 0 }) end, "'maxComponents' must be an integer", nil, true)
  end)

  it("skips unknown and network messages by their length", function()
    local bytes = string.pack("<I4I4c4", 12, 99, "junk")
      .. string.pack("<I4I4I4I4", 16, 7, 600, 3)
      .. put(601, 1, 1, "x")
    assert.equals(1, (state:apply(bytes)))
    local stats = state:stats()
    assert.equals(1, stats.unknownType)
    assert.equals(1, stats.networkIgnored)
    assert.equals(3, stats.messages)
  end)

  it("snapshots into bytes that rebuild the state", function()
    state:apply(put(600, 2048, 3, "b") .. put(513, 2048, 1, "a") .. delComponent(512, 1, 4) .. put(1, 1, 2, "root"))
    state:apply(put(700, 1, 1, "gone") .. delEntity(700))
    local snap = state:snapshot()
    assert.equals(put(1, 1, 2, "root") .. delComponent(512, 1, 4) .. put(513, 2048, 1, "a")
      .. put(600, 2048, 3, "b") .. delEntity(700), snap)
    assert.equals(snap:sub(1, #snap - 12), state:snapshot({ dump = true }))
    local copy = quiet()
    copy:apply(snap)
    assert.equals(snap, copy:snapshot())
    assert.equals(true, copy:isRemoved(700))
  end)

  it("raises on bad arguments", function()
    assert.error_matches(function() state:put("e", 1, "x") end, "bad argument #1 to 'put'", nil, true)
    assert.error_matches(function() state:put(-1, 1, "x") end, "bad argument #1 to 'put' (entity must be an integer", nil, true)
    assert.error_matches(function() state:put(1, 2 ^ 32, "x") end, "bad argument #2 to 'put' (componentId must be", nil, true)
    assert.error_matches(function() state:put(1, 1, {}) end, "bad argument #3 to 'put'", nil, true)
    assert.error_matches(function() state:put(1, 1.5, "x") end, "bad argument #2 to 'put'", nil, true)
    assert.error_matches(function() state:apply() end, "bad argument #1 to 'apply'", nil, true)
    assert.error_matches(function() state:get(1) end, "bad argument #2 to 'get'", nil, true)
    assert.error_matches(function() state:deleteComponent(nil, 1) end, "bad argument #1 to 'deleteComponent'", nil, true)
    assert.error_matches(function() state:deleteEntity("x") end, "bad argument #1 to 'deleteEntity'", nil, true)
    assert.error_matches(function() state:snapshot(1) end, "bad argument #1 to 'snapshot'", nil, true)
    assert.error_matches(function() state.put({}, 1, 1, "x") end, "CrdtState expected", nil, true)
  end)

  it("converges when two states exchange writes in any order", function()
    local a, b = quiet(), quiet()
    local fromA = a:put(600, 1, "from a") .. a:put(601, 1, "a")
    local fromB = b:put(600, 1, "from b!") .. b:put(601, 1, "b") .. b:deleteEntity(602)
    a:apply(fromB)
    b:apply(fromA)
    assert.equals(a:snapshot(), b:snapshot())
    assert.equals("from b!", (a:get(600, 1))) -- equal timestamps: longer wins
    assert.equals("b", (a:get(601, 1)))       -- then the greater byte
  end)

  it("has a readable name", function()
    state:put(600, 1, "x")
    assert.equals("CrdtState (1 entries)", tostring(state))
  end)
end)

describe("CrdtState caps (maxEntries, maxBytes)", function()
  local function capped(entries, bytes) return crdt.new({ quiet = true, maxEntries = entries, maxBytes = bytes }) end
  local FULL = "the state holds as many entries/bytes as maxEntries/maxBytes allows"

  it("is unlimited by default and counts live bytes", function()
    local s = quiet()
    for i = 0, 99 do s:put(600 + i, 1, ("x"):rep(1000)) end
    assert.equals(100, s:count())
    assert.equals(100000, s:bytes())
    assert.equals(0, s:stats().stateLimit)
  end)

  it("refuses a new entry past maxEntries, received or local, and counts it", function()
    local s = capped(2)
    assert.equals(2, (s:apply(put(600, 1, 1, "a") .. put(601, 1, 1, "b") .. put(602, 1, 1, "c"))))
    assert.equals(nil, s:get(602, 1))
    assert.equals(1, s:stats().stateLimit)
    local bytes, err = s:put(603, 1, "d")
    assert.equals(nil, bytes)
    assert.equals(FULL, err)
    assert.equals(2, s:count())
    -- existing entries still take writes of any size
    assert.equals(put(600, 1, 2, ("long"):rep(100)), s:put(600, 1, ("long"):rep(100)))
    assert.equals(1, (s:apply(put(601, 1, 5, "bb"))))
  end)

  it("counts tombstones as entries, and deleteEntity frees them", function()
    local s = capped(2)
    assert.equals(2, (s:apply(delComponent(600, 1, 1) .. delComponent(601, 1, 1) .. delComponent(602, 1, 1))))
    assert.equals(1, s:stats().stateLimit)
    assert.equals(0, s:bytes())
    assert.equals(nil, (s:put(602, 1, "x")))
    assert.truthy(s:deleteEntity(600))
    assert.equals(1, s:count())
    assert.truthy(s:put(602, 1, "x"))
    assert.equals(1, (s:apply(delEntity(601))))
    assert.equals(1, s:count())
    assert.equals(1, s:bytes())
  end)

  it("refuses growth past maxBytes but always allows shrinking or same-size updates", function()
    local s = capped(nil, 10)
    assert.equals(1, (s:apply(put(600, 1, 1, "0123456789"))))
    assert.equals(10, s:bytes())
    assert.equals(0, (s:apply(put(601, 1, 1, "x"))))       -- a new entry with bytes: over
    assert.equals(0, (s:apply(put(600, 1, 2, "0123456789a")))) -- growing: over
    assert.equals(2, s:stats().stateLimit)
    assert.equals(1, (s:apply(put(600, 1, 3, "abcdefghij")))) -- same size
    assert.equals(1, (s:apply(put(600, 1, 4, "abc"))))        -- smaller
    assert.equals(3, s:bytes())
    assert.equals(1, (s:apply(delComponent(601, 1, 1))))     -- a tombstone holds no bytes
    assert.equals(put(601, 1, 2, "1234567"), s:put(601, 1, "1234567"))
    local bytes, err = s:put(601, 1, "12345678")
    assert.equals(nil, bytes)
    assert.equals(FULL, err)
    assert.equals("", s:put(601, 1, "1234567")) -- unchanged is not refused
    assert.equals(10, s:bytes())
    assert.truthy(s:deleteComponent(600, 1))
    assert.equals(7, s:bytes())
  end)

  it("still corrects a stale message that would not fit", function()
    local s = capped(1, 4)
    s:apply(put(600, 1, 5, "mine"))
    local n, corrections = s:apply(put(600, 1, 4, "older but longer"))
    assert.equals(0, n)
    assert.equals(put(600, 1, 5, "mine"), corrections)
    assert.equals(1, s:stats().stale)
    assert.equals(0, s:stats().stateLimit)
  end)

  it("keeps bytes() and count() exact against a reference over random writes", function()
    local s = capped(300, 12000)
    local ref, removed = {}, {} -- ref[entity][component] = data length, or false for a tombstone
    local seed, refusedLocal, refusedReceived, refusedBytes = 12345, 0, 0, 0
    local function rnd(n)
      seed = (seed * 1103515245 + 12345) % 2147483648
      return (seed >> 16) % n
    end
    local function totals()
      local count, bytes = 0, 0
      for _, comps in pairs(ref) do
        for _, len in pairs(comps) do
          count = count + 1
          bytes = bytes + (len or 0)
        end
      end
      return count, bytes
    end
    for step = 1, 5000 do
      local e, c, op = 600 + rnd(200), 1 + rnd(4), rnd(20)
      if not removed[e] then
        local comps = ref[e] or {}
        if op < 12 then
          local data = ("%d"):format(step):rep(rnd(4) == 0 and rnd(100) or rnd(5))
          local count, bytes = totals()
          local was = comps[c]
          local grows = #data > (was or 0)
          local expectFull = (was == nil and count >= 300) or (grows and bytes - (was or 0) + #data > 12000)
          local out, err = s:put(e, c, data)
          if expectFull then
            refusedLocal = refusedLocal + 1
            if was ~= nil then refusedBytes = refusedBytes + 1 end
            assert.equals(nil, out)
            assert.equals(FULL, err)
          else
            assert.truthy(out, err)
            comps[c] = #data
            ref[e] = comps
          end
        elseif op < 18 then
          s:deleteComponent(e, c)
          if comps[c] then comps[c] = false end
        elseif op == 18 and rnd(8) == 0 then
          s:deleteEntity(e)
          ref[e], removed[e] = nil, true
        elseif op == 19 then
          -- a received write at a later timestamp than any local one
          local data = ("r"):rep(rnd(60))
          local count, bytes = totals()
          local was = comps[c]
          local full = (was == nil and count >= 300) or (#data > (was or 0) and bytes - (was or 0) + #data > 12000)
          local n = s:apply(put(e, c, 100000 + step, data))
          assert.equals(full and 0 or 1, n)
          if full then refusedReceived = refusedReceived + 1 end
          if not full then
            comps[c] = #data
            ref[e] = comps
          end
        end
      end
      if step % 50 == 0 then
        local count, bytes = totals()
        assert.equals(count, s:count())
        assert.equals(bytes, s:bytes())
        assert.is_true(s:count() <= 300 and s:bytes() <= 12000)
      end
    end
    assert.equals(refusedReceived, s:stats().stateLimit)
    assert.truthy(refusedBytes > 0)
    assert.truthy(refusedLocal > 0)
  end)

  it("checks its options", function()
    assert.error_matches(function() crdt.new({ maxEntries = -1 }) end,
      "bad argument #1 to 'new' ('maxEntries' must be an integer in 0..4294967295)", nil, true)
    assert.error_matches(function() crdt.new({ maxEntries = 2 ^ 32 }) end, "'maxEntries' must be an integer", nil, true)
    assert.error_matches(function() crdt.new({ maxBytes = 1.5 }) end, "'maxBytes' must be an integer in 0..", nil, true)
    assert.error_matches(function() crdt.new({ maxBytes = "lots" }) end, "bad argument #1 to 'new'", nil, true)
    assert.equals(0, crdt.new({ maxEntries = 0, maxBytes = 0 }):bytes())
  end)
end)
