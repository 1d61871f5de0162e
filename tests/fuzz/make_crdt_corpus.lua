-- tests/fuzz/make_crdt_corpus.lua: writes the seed corpus for tests/fuzz/crdt_fuzz.c into
-- tests/fuzz/corpus/crdt/: one small batch of @dcl/ecs wire messages per file, covering each
-- message type, the conflict cases, entity versions and each kind of malformed input.
-- Run from the repository root: tycho run tests/fuzz/make_crdt_corpus.lua --headless --frames 0

local crdt = tycho.crdt
local dir = "tests/fuzz/corpus/crdt/"

local function put(e, c, ts, data) return string.pack("<I4I4I4I4I4s4", 24 + #data, 1, e, c, ts, data) end
local function append(e, c, ts, data) return string.pack("<I4I4I4I4I4s4", 24 + #data, 4, e, c, ts, data) end
local function del(e, c, ts) return string.pack("<I4I4I4I4I4", 20, 2, e, c, ts) end
local function delEntity(e) return string.pack("<I4I4I4", 12, 3, e) end
local function putNet(e, c, ts, net, data)
  return string.pack("<I4I4I4I4I4I4s4", 28 + #data, 5, e, c, ts, net, data)
end
local function delNet(e, c, ts, net) return string.pack("<I4I4I4I4I4I4", 24, 6, e, c, ts, net) end
local function delEntityNet(e, net) return string.pack("<I4I4I4I4", 16, 7, e, net) end

local T = crdt.transform.encode({ position = { 1, 2, 3 }, parent = 512 })
local H = crdt.componentId("tycho::Health")
local big = ("B"):rep(100)

local seeds = {
  puts = put(512, 1, 1, T) .. put(513, H, 1, "hp") .. put(1, 1, 3, T),
  conflicts = put(512, 1, 2, "aa") .. put(512, 1, 2, "b") .. put(512, 1, 2, "\x80a") .. put(512, 1, 1, "old")
    .. del(512, 1, 2) .. put(512, 1, 2, "") .. del(514, 1, 5) .. put(514, 1, 5, "x"),
  deletes = put(600, 1, 1, "x") .. delEntity(600) .. put(600, 1, 2, "late") .. del(600, 1, 3)
    .. delEntity(crdt.entity(601, 3)) .. put(crdt.entity(601, 4), 1, 1, "next"),
  versions = put(crdt.entity(700, 0), 1, 1, "v0") .. put(crdt.entity(700, 2), 1, 1, "v2")
    .. put(crdt.entity(700, 1), 1, 9, "v1") .. put(crdt.entity(65535, 65535), 7, 1, "max"),
  reserved = put(1, 1, 4, "player") .. put(2, 9, 1, "cam") .. delEntity(1) .. put(1, 1, 5, "again")
    .. put(crdt.entity(511, 9), 1, 1, "avatar") .. delEntity(crdt.entity(511, 9)),
  big = put(512, 1, 1, big) .. put(512, 1, 2, big:sub(1, 50)) .. put(512, 1, 3, big .. big),
  timestamps = put(512, 1, 0xFFFFFFFF, "top") .. put(512, 1, 0, "low") .. del(513, 1, 0x80000000),
  network = putNet(600, 1, 5, 7, "n") .. delNet(600, 1, 6, 7) .. delEntityNet(600, 7) .. append(600, 1063, 0, "a"),
  unknown = string.pack("<I4I4c4", 12, 0, "zero") .. string.pack("<I4I4", 8, 8) .. string.pack("<I4I4c2", 10, 99, "??")
    .. put(512, 1, 1, "after"),
  truncated = put(512, 1, 1, "ok") .. string.pack("<I4I4", 20, 2):sub(1, 5),
  short_length = put(512, 1, 1, "ok") .. string.pack("<I4I4I4", 4, 1, 0),
  past_end = put(512, 1, 1, "ok") .. string.pack("<I4I4I4I4", 200, 1, 512, 1),
  too_large = string.pack("<I4I4", 0x00200000, 1) .. put(512, 1, 1, "ok"),
  bad_size = string.pack("<I4I4I4I4I4I4", 24, 2, 512, 1, 1, 0) .. string.pack("<I4I4", 8, 3)
    .. string.pack("<I4I4I4", 12, 7, 600) .. put(512, 1, 1, "ok"),
  -- past crdt_fuzz's capped state (4 entries, 24 bytes): refused, then room made by a
  -- shrink, a delete and a removed entity
  limits = put(600, 1, 1, "0123456789") .. del(601, 1, 1) .. put(602, 1, 1, "abcdefghij")
    .. put(603, 1, 1, "xyz") .. put(604, 1, 1, "new") .. put(600, 1, 2, big) .. put(600, 1, 3, "short")
    .. del(602, 1, 2) .. put(605, 2, 1, "fits?") .. delEntity(603) .. put(606, 1, 1, "0123456789"),
  data_length = string.pack("<I4I4I4I4I4I4c3", 27, 1, 512, 1, 1, 9, "abc")
    .. string.pack("<I4I4I4I4I4I4c3", 27, 4, 512, 1, 1, 0xFFFFFFFF, "abc") .. put(512, 1, 1, "ok"),
}

local names = {}
for name in pairs(seeds) do names[#names + 1] = name end
table.sort(names)
for _, name in ipairs(names) do
  local f = assert(io.open(dir .. name, "wb"))
  f:write(seeds[name])
  f:close()
end
print(("wrote %d seeds to %s"):format(#names, dir))
