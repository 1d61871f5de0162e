---@meta
-- scripts/meta/sync.lua: LuaLS annotations for require("tycho.sync") (scripts/tycho/sync/).
-- scripts/docs/sync.md "Scenes over the CRDT" describes it.

---A tycho Scene kept in a tycho.crdt State.
---@class tycho.Sync
---@field scene tycho.Scene
---@field state tycho.crdt.State
---@field root tycho.GameObject|nil mirrored objects go under it (the scene's roots when nil)
local Sync = {}

---Applies CRDT bytes to the state and mirrors the entities they touch into GameObjects.
---@param bytes string
---@return integer applied
---@return string|nil corrections for stale messages, to send back
function Sync:apply(bytes) end

---Makes a GameObject a synced entity; flush() sends its changes.
---@param go tycho.GameObject
---@param entity? integer default: a free entity of the Sync's first..last range
---@return integer entity
function Sync:track(go, entity) end

---Stops sending a tracked object's changes.
---@param go tycho.GameObject
function Sync:untrack(go) end

---Messages for what changed on tracked objects ("" when nothing did).
---@return string bytes
function Sync:flush() end

---@param entity integer
---@return tycho.GameObject|nil
function Sync:gameObjectFor(entity) end

---@param go tycho.GameObject
---@return integer|nil entity
function Sync:entityFor(go) end

---Loads a mesh file that flush() can send as core::GltfContainer.
---@param path string
---@return tycho.Mesh mesh
---@return boolean|nil ok
---@return string|nil message
function Sync:loadMesh(path) end

---@return string bytes that rebuild the state
function Sync:snapshot() end

---Destroys the mirrored GameObjects and forgets the map.
function Sync:close() end

---A component codec: encode(table) -> bytes; decode(bytes) -> table, or nil, message.
---@class tycho.SyncCodec
---@field encode fun(value: table): string
---@field decode fun(bytes: string): table|nil, string|nil

---@class tycho.SyncComponents
---@field TRANSFORM integer 1 (core::Transform)
---@field MATERIAL integer 1017 (core::Material, protobuf)
---@field MESH_RENDERER integer 1018 (core::MeshRenderer, protobuf)
---@field GLTF_CONTAINER integer 1041 (core::GltfContainer, protobuf)
---@field LIGHT_SOURCE integer 1079 (core::LightSource, protobuf)
---@field DIRECTIONAL_LIGHT integer componentId("tycho::DirectionalLight"), 29 bytes
---@field CAMERA integer componentId("tycho::Camera"), 17 bytes
---@field transform tycho.SyncCodec
---@field meshRenderer tycho.SyncCodec
---@field gltfContainer tycho.SyncCodec
---@field material tycho.SyncCodec
---@field lightSource tycho.SyncCodec
---@field directionalLight tycho.SyncCodec
---@field camera tycho.SyncCodec

---@class tycho.syncModule
---@field components tycho.SyncComponents
---The Sync method table: functions added to it become methods of every Sync.
---@field Sync tycho.Sync
local M = {}

---Binds a scene to a CRDT state.
---@param scene tycho.Scene
---@param opts? {state?: tycho.crdt.State, root?: tycho.GameObject, name?: string, first?: integer, last?: integer}
---@return tycho.Sync
function M.new(scene, opts) end

return M
