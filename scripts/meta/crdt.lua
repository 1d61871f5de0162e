---@meta tycho.crdt
-- scripts/meta/crdt.lua: LuaLS annotations for tycho.crdt (bindings/lua_crdt.c), the state
-- sync that is byte-compatible with Decentraland's @dcl/ecs 7.x. Never loaded at run time;
-- scripts/docs/sync.md describes the module with examples.

---An entity id as @dcl/ecs writes it: number in the low 16 bits, version in the high 16.
---@alias tycho.crdt.Entity integer

---Wire bytes: one or more @dcl/ecs CRDT messages (u32 length, u32 type, body; little-endian).
---@alias tycho.crdt.Bytes string

---A position or scale for transform.encode: `{x=, y=, z=}`, `{x, y, z}` or a Vec3.
---@alias tycho.crdt.Vec3Like tycho.Vec3|{x: number, y: number, z: number}|number[]

---A rotation for transform.encode: `{x=, y=, z=, w=}`, `{x, y, z, w}` or a Quat.
---@alias tycho.crdt.QuatLike tycho.Quat|{x: number, y: number, z: number, w: number}|number[]

---@class tycho.crdt.Transform
---@field position {x: number, y: number, z: number}
---@field rotation {x: number, y: number, z: number, w: number}
---@field scale {x: number, y: number, z: number}
---@field parent tycho.crdt.Entity

---@class tycho.crdt.TransformInput
---@field position? tycho.crdt.Vec3Like default 0, 0, 0
---@field rotation? tycho.crdt.QuatLike default 0, 0, 0, 1
---@field scale? tycho.crdt.Vec3Like default 1, 1, 1
---@field parent? tycho.crdt.Entity default 0

---What `state:apply` has seen since the state was made.
---@class tycho.crdt.Stats
---@field messages integer well-formed messages read
---@field accepted integer messages that changed the state
---@field unchanged integer same timestamp and data, or a delete of nothing
---@field stale integer messages that lost the conflict rule (each got a correction)
---@field removedEntity integer messages for an entity already deleted
---@field appendIgnored integer APPEND_VALUE messages (this state keeps last-write-wins components only)
---@field networkIgnored integer PUT/DELETE_COMPONENT_NETWORK and DELETE_ENTITY_NETWORK messages
---@field unknownType integer messages of unknown type, skipped by their length
---@field componentLimit integer messages for a new component id past `maxComponents`, ignored
---@field stateLimit integer winning messages that would pass `maxEntries` or `maxBytes`, ignored
---@field malformed integer messages refused as malformed (the sum of `rejected`)
---@field rejected {truncated: integer, short_length: integer, past_end: integer, too_large: integer, bad_size: integer, data_length: integer}

---@class tycho.crdt.Options
---@field maxMessageSize? integer largest declared message length accepted (default 1048576)
---@field maxComponents? integer distinct component ids kept (default 4096); messages for more are ignored
---@field maxEntries? integer stored (entity, component) pairs, tombstones included (default 0: no cap); a new pair past it is refused
---@field maxBytes? integer total bytes of live component data (default 0: no cap); a write that would grow past it is refused
---@field quiet? boolean no `crdt_malformed` line on stderr when bad bytes arrive

---Component values per (entity, component id) with Lamport timestamps, and deleted entities.
---@class tycho.crdt.State
local State = {}

---Applies a buffer of wire messages as one batch (DELETE_ENTITY messages last). Returns how
---many changed the state, and the corrections for the stale ones (a PUT or DELETE_COMPONENT
---with the local state, to send back to the peer) or nil when there are none.
---@param bytes tycho.crdt.Bytes
---@return integer applied
---@return tycho.crdt.Bytes|nil corrections
function State:apply(bytes) end

---Stores data as the component's value with the stored timestamp + 1 and returns the
---PUT_COMPONENT message to send; "" when data equals the stored value (nothing to send);
---nil and a message when the entity is deleted, `maxComponents` is reached, or the write
---would add a pair past `maxEntries` or grow the data past `maxBytes`.
---@param entity tycho.crdt.Entity
---@param componentId integer
---@param data string
---@return tycho.crdt.Bytes|nil bytes
---@return string? message
function State:put(entity, componentId, data) end

---Deletes the component (timestamp + 1) and returns the DELETE_COMPONENT message; "" when
---there is no value to delete; nil and a message when the entity is deleted.
---@param entity tycho.crdt.Entity
---@param componentId integer
---@return tycho.crdt.Bytes|nil bytes
---@return string? message
function State:deleteComponent(entity, componentId) end

---Deletes the entity: a DELETE_COMPONENT per live component, then DELETE_ENTITY. Numbers
---0-2 get the DELETE_COMPONENTs only and 3-511 nothing, as in @dcl/ecs.
---@param entity tycho.crdt.Entity
---@return tycho.crdt.Bytes|nil bytes
---@return string? message
function State:deleteEntity(entity) end

---The stored value and its timestamp; nil and the timestamp for a deleted component; nil
---when nothing is stored.
---@param entity tycho.crdt.Entity
---@param componentId integer
---@return string|nil data
---@return integer? timestamp
function State:get(entity, componentId) end

---Whether the entity was deleted (by DELETE_ENTITY, or by a message for a later version).
---@param entity tycho.crdt.Entity
---@return boolean
function State:isRemoved(entity) end

---How many (entity, component) pairs are stored, deleted components included.
---@return integer
function State:count() end

---The total length of the live component data stored (tombstones hold none): what
---`maxBytes` caps.
---@return integer
function State:bytes() end

---Messages that rebuild the state on a fresh one: a PUT per value, a DELETE_COMPONENT per
---deleted component, sorted, then a DELETE_ENTITY per deleted entity. Equal states give
---equal bytes. `{dump = true}` leaves out the DELETE_ENTITYs, as @dcl/ecs's dump does.
---@param options? {dump?: boolean}
---@return tycho.crdt.Bytes
function State:snapshot(options) end

---Counts of what apply has seen, and of malformed messages by reason.
---@return tycho.crdt.Stats
function State:stats() end

---Encodes and decodes core::Transform's 44 bytes.
---@class tycho.crdt.TransformCodec
local TransformCodec = {}

---The 44 bytes of a Transform; missing fields take the defaults.
---@param t? tycho.crdt.TransformInput
---@return string bytes
function TransformCodec.encode(t) end

---The Transform in 44 bytes, or nil and a message for any other length.
---@param bytes string
---@return tycho.crdt.Transform|nil
---@return string? message
function TransformCodec.decode(bytes) end

---State sync with Decentraland's @dcl/ecs wire format.
---@class tycho.crdt
tycho.crdt = {}

---A new, empty state.
---@param options? tycho.crdt.Options
---@return tycho.crdt.State
function tycho.crdt.new(options) end

---The entity id for a number (0..65535) and version (0..65535, default 0).
---@param number integer
---@param version? integer
---@return tycho.crdt.Entity
function tycho.crdt.entity(number, version) end

---@param id tycho.crdt.Entity
---@return integer number
function tycho.crdt.entityNumber(id) end

---@param id tycho.crdt.Entity
---@return integer version
function tycho.crdt.entityVersion(id) end

---@dcl/ecs's component id for a name: "core::Transform" is 1 and the other core names come
---from its table; any other name is crc32 of the name in a zeroed 128-byte buffer + 2048.
---@param name string
---@return integer
function tycho.crdt.componentId(name) end

tycho.crdt.transform = TransformCodec
