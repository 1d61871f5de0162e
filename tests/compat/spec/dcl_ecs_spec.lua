-- tests/compat/spec/dcl_ecs_spec.lua: tycho.crdt against the real @dcl/ecs (the version
-- pinned in tests/compat/package.json) running under node as tests/compat/peer.js.
-- Bytes go both ways: frames @dcl/ecs engines wrote are applied by tycho, batches tycho
-- wrote are applied by @dcl/ecs, and the states, the conflict decisions (the corrections
-- each side computed) and tycho's own local-write bytes are compared.
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

-- Runs `node peer.js ARGS...` in tests/compat; returns its stdout lines.
local function peer(...)
  requirePeer()
  local parts = { "cd", shellQuote(COMPAT), "&&", "node", "peer.js" }
  for i = 1, select("#", ...) do parts[#parts + 1] = shellQuote(select(i, ...)) end
  local code, out = run(table.concat(parts, " "))
  if code ~= 0 then error("compat: node peer.js failed (exit " .. tostring(code) .. "):\n" .. out, 0) end
  local lines = {}
  for line in out:gmatch("[^\n]+") do lines[#lines + 1] = line end
  return lines
end

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
