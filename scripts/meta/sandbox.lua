---@meta tycho.sandbox
-- scripts/meta/sandbox.lua: LuaLS annotations for tycho.sandbox (bindings/lua_sandbox.c and
-- scripts/tycho/sandbox.lua): untrusted scene scripts in their own Lua state, fed by
-- @dcl/ecs CRDT bytes. Never loaded at run time; scripts/docs/sync.md "Sandboxed scenes"
-- describes the rules with an example.

---@class tycho.sandbox.LoadOptions
---@field scene? tycho.Scene where the scene's GameObjects go (none are made without it)
---@field root? tycho.GameObject parent of the scene's objects (default: a new one named after the scene, added to `scene`)
---@field name? string log prefix and chunk name (default: the file's base name, or "scene")
---@field instructionLimit? integer instructions per call (main chunk, onStart, onUpdate); default 10000000, 0: none
---@field memoryLimit? integer bytes for the whole scene state (at least 65536); default 64 MiB, 0: none
---@field timeLimit? number seconds per call, a backstop for work no count sees; default 100 ns per instruction of the budget (at least 0.25), 0: none
---@field maxEntries? integer (entity, component) pairs the runner's State stores, tombstones included; default 50000, 0: none
---@field maxStateBytes? integer bytes of live component data in the runner's State; default 16 MiB, 0: none
---@field maxMessagesPerCall? integer messages one scene call (main chunk, onStart, onUpdate) may send across its crdtSendToRenderer calls; default 10000, 0: none
---@field log? fun(line: string) receives the scene's print lines (default: stderr)
---@field quiet? boolean no log lines from the runner (errors, rejections)

---@alias tycho.sandbox.Reason "reserved_entity"|"initial_sync"|"deleted_entity"|"malformed"|"stale"|"state_limit"|"message_limit"

---@class tycho.sandbox.Stats
---@field instructions integer the last call's instructions, in steps of 1000
---@field totalInstructions integer
---@field instructionLimit integer
---@field timeLimit number seconds per call (0: none)
---@field memory integer bytes the scene state holds now
---@field peakMemory integer
---@field memoryLimit integer
---@field refusedAllocations integer allocations the memory cap refused
---@field calls integer
---@field errors integer errors returned by calls (limit hits included)
---@field messagesIn integer messages the scene sent (those dropped past maxMessagesPerCall included)
---@field messagesOut integer message buffers sent back to the scene
---@field applied integer messages that changed the engine-side state
---@field stateEntries integer pairs the engine-side state holds (`state:count()`)
---@field stateBytes integer live data bytes it holds (`state:bytes()`)
---@field rejected table<tycho.sandbox.Reason, integer>
---@field stopped? string why the scene was stopped

---@class tycho.sandbox.Rejection
---@field reason tycho.sandbox.Reason
---@field entity? tycho.crdt.Entity
---@field type? integer the message type

---A sandboxed scene and its engine-side state.
---@class tycho.sandbox.SceneRunner
---@field name string
---@field scene? tycho.Scene
---@field root? tycho.GameObject the parent of the scene's GameObjects
---@field state tycho.crdt.State the engine's view of this scene
---@field syncing boolean true during the initial synchronization (scene writes are rejected)
---@field started boolean
---@field stats tycho.sandbox.Stats read live
---@field stopped? string "instruction limit exceeded" or "memory limit exceeded" once stopped
---@field lastError? string
---@field lastRejection? tycho.sandbox.Rejection
local SceneRunner = {}

---Calls the scene's `onStart()`; the initial synchronization ends when it returns.
---@return boolean ok
---@return string? err the scene's error with file:line
function SceneRunner:start() end

---Calls the scene's `onUpdate(dt)`, starting the scene first when needed.
---@param dt number seconds
---@return boolean ok
---@return string? err
function SceneRunner:update(dt) end

---The GameObject mirroring a scene entity (one with a Transform), or nil.
---@param entity tycho.crdt.Entity
---@return tycho.GameObject?
function SceneRunner:gameObjectFor(entity) end

---The scene entity a GameObject mirrors, or nil.
---@param go tycho.GameObject
---@return tycho.crdt.Entity?
function SceneRunner:entityFor(go) end

---The engine (renderer) writes a component; the scene gets the message in its next
---crdtSendToRenderer reply.
---@param entity tycho.crdt.Entity
---@param componentId integer
---@param data string
---@return string|nil bytes, string? err
function SceneRunner:put(entity, componentId, data) end

---@param entity tycho.crdt.Entity
---@param componentId integer
---@return string|nil bytes, string? err
function SceneRunner:deleteComponent(entity, componentId) end

---@param entity tycho.crdt.Entity
---@return string|nil bytes, string? err
function SceneRunner:deleteEntity(entity) end

---Closes the scene state and destroys its GameObjects (and the root the runner made).
function SceneRunner:close() end

tycho.sandbox = {}

---Loads a scene script (a path ending in .lua, or source text) into a new sandboxed state
---and runs its main chunk.
---@param pathOrSource string
---@param opts? tycho.sandbox.LoadOptions
---@return tycho.sandbox.SceneRunner|nil runner
---@return string? err
function tycho.sandbox.load(pathOrSource, opts) end

---The low-level sandboxed state under a SceneRunner.
---@class tycho.sandbox.VM
local VM = {}
---Compiles text and runs it under the caps.
---@return boolean ok, string? err
function VM:load(source, chunkname) end
---Calls a global function of the scene with copies of nil/boolean/number/string arguments.
---@return boolean ok, boolean|string calledOrErr
function VM:call(name, ...) end
---@return tycho.sandbox.Stats
function VM:stats() end
---@return string? reason
function VM:stopped() end
function VM:close() end

---@param opts {name?: string, instructionLimit?: integer, memoryLimit?: integer, timeLimit?: number, quiet?: boolean, callbacks?: {send?: fun(bytes: string): string[]|string|nil, getState?: fun(): boolean, string, log?: fun(line: string)}}
---@return tycho.sandbox.VM
function tycho.sandbox.vm(opts) end

---`require("tycho.sandbox")` (scripts/tycho/sandbox.lua): the Lua side of tycho.sandbox.load.
---@class tycho.sandboxModule
---The rejection reasons, in this order: "reserved_entity", "initial_sync", "deleted_entity",
---"malformed", "stale", "state_limit", "message_limit" (the keys of `stats.rejected`).
---@field REASONS tycho.sandbox.Reason[]
---@field DEFAULT_MAX_ENTRIES integer 50000
---@field DEFAULT_MAX_STATE_BYTES integer 16 MiB
---@field DEFAULT_MAX_MESSAGES_PER_CALL integer 10000
---The SceneRunner method table: functions added to it become methods of every runner.
---@field Runner tycho.sandbox.SceneRunner
local SandboxModule = {}

---Same as tycho.sandbox.load.
---@param pathOrSource string
---@param opts? tycho.sandbox.LoadOptions
---@return tycho.sandbox.SceneRunner|nil runner
---@return string? err
function SandboxModule.load(pathOrSource, opts) end
