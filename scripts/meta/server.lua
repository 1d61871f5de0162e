---@meta tycho.server
-- scripts/meta/server.lua: LuaLS annotations for what `tycho serve` gives a server module
-- (server/host_lua.c), tycho.json (bindings/lua_json.c) and require("tycho.server.room")
-- (scripts/tycho/server/room.lua). Never loaded at run time; scripts/docs/server.md
-- describes the host with examples.

---One WebSocket connection. Any other field a module sets on it is kept for its life.
---@class tycho.Session
---@field id integer unique in this process, never reused
---@field open boolean false once the connection is gone
---@field address string? the peer's IP address ("127.0.0.1", "::1"; a proxy's when behind one); nil once closed
---@field path string the request path, e.g. "/sync/room-1" (a module may serve rooms by path)
local Session = {}

---Queues `value` as one JSON text frame. Raises for what JSON cannot hold (functions,
---userdata, cycles, NaN, non-UTF-8 strings). Returns false when the connection is closing or
---gone, or when this frame pushed the queue past `--max-queue` (the client is then dropped
---with close code 1008).
---@param value any
---@return boolean queued
function Session:send(value) end

---Queues `text` as one text frame as it is: JSON the module encoded itself (Room:broadcast
---encodes a message once and sends the text to every member this way). Same return as `send`.
---@param text string
---@return boolean queued
function Session:sendText(text) end

---Queues `bytes` as one binary frame. Same return as `send`.
---@param bytes string
---@return boolean queued
function Session:sendBinary(bytes) end

---Closes the connection once what is queued has been written.
---@param code? integer 1000 (default) or 3000..4999
---@param reason? string at most 123 bytes are sent
function Session:close(code, reason) end

---@class tycho.Timer
local Timer = {}
---Stops the timer; it does not fire again.
function Timer:cancel() end

---What a module's onStart gets: one per module.
---@class tycho.Host
---@field name string the module's name (its file name without .lua)
---@field storage tycho.WorldStorage this module's handle on `--data`/worlds.sqlite, opened on first read (raises when the store cannot be opened)
---@field cluster tycho.ClusterLink? the Redis link of `tycho serve --redis URL`; nil when the host runs alone
local Host = {}

---What a module shows on `/_monitor` (its section of this process's record, `modules.NAME`):
---any table JSON can hold, e.g. `{rooms = {{id=, name=, players=, edits=}}}` (the page lists
---`rooms`). nil drops it.
---@param report table?
function Host:monitor(report) end

---This process's monitor record as JSON text: `{node, clients, inPerSec, outPerSec, tickMs,
---rates, modules}` (`tickMs`: `{mean, longest}` host tick milliseconds per second, the last 60).
---tycho.server.cluster writes it into Redis for the other processes' pages.
---@return string
function Host:monitorRecord() end

---Under `--redis`: every process's record (JSON texts) as read from Redis, for `/_monitor/api`.
---@param records string[]
function Host:monitorCluster(records) end

---`host.cluster`: a pipe to the Redis of `tycho serve --redis URL --node NAME` (hiredis on the
---host's loop; both connections come back by themselves after Redis fails). What keys and
---messages mean is the module's: tycho.server.cluster builds leases, presence and the relay on it.
---@class tycho.ClusterLink
---@field node string the `--node` name (default `node-PORT`)
---@field instance string this process's start (a restart under one node name is another instance)
---@field connected boolean whether the command connection is up now
---@field link string? `HOST:PORT` of this process's direct-link listener (nil under `--relay redis`)
---@field linkToken string? the token a peer's HELLO must carry to open a link to this process
local ClusterLink = {}

---Sends one command (`{"SET", key, value, "PX", 3000}`: strings or numbers). `fn(reply, err)`
---gets the reply once: strings, integers, nil, arrays as sequences (a nil inside one as
---false), or nil and the error (an error reply, or the connection lost before the answer).
---Returns false, and `fn` is never called, while Redis is unreachable.
---@param args (string|number)[]
---@param fn? fun(reply: any, err: string?)
---@return boolean
function ClusterLink:command(args, fn) end

---`fn(payload, peer)` for every message published on `channel`, from now on and after
---reconnects, and for every frame a peer sends on a direct link to this channel: `peer` is
---that process's id (nil for a message through Redis).
---@param channel string
---@param fn fun(payload: string, peer: string?)
function ClusterLink:subscribe(channel, fn) end

---Opens a direct link to process `peer` (`"<node>/<instance>"`) at `address` (its record's
---`link`) with its `token`, unless one is up or being made, or a dial to it failed in the last
---5 s. A link is up once the peer has checked the token; nothing without `host.cluster.link`.
---@param peer string
---@param address string
---@param token string
function ClusterLink:linkDial(peer, address, token) end

---Whether this process's link to `peer` is up.
---@param peer string
---@return boolean
function ClusterLink:linkUp(peer) end

---Queues `payload` to `peer` on its link, for its handler of `channel` (as if published
---there); frames to one peer arrive in order. False when no link to it is up, or it fell
---64 MiB behind (it is dropped, and `onLinkDown` follows).
---@param peer string
---@param channel string 1..255 bytes
---@param payload string
---@return boolean
function ClusterLink:linkSend(peer, channel, payload) end

---`fn(peer)` when this process's link to `peer` went down: what was queued on it is lost.
---@param fn fun(peer: string)
function ClusterLink:onLinkDown(fn) end

---`fn()` after every (re)connect of the command connection: what this process keeps in Redis
---may be gone (Redis restarted), so it registers again there.
---@param fn fun()
function ClusterLink:onConnect(fn) end

---Calls `fn()` every `seconds` (at least 0.001; the host checks timers every 10 ms) until the
---timer is cancelled or the module is stopped.
---@param seconds number
---@param fn fun()
---@return tycho.Timer
function Host:every(seconds, fn) end

---Writes one line, the arguments through tostring joined by tabs, to the host's stderr,
---tagged with the module's name.
---@param ... any
function Host:log(...) end

---What onConnect may return; both fields optional.
---@class tycho.SessionHandler
---@field onMessage? fun(msg: any) a text frame decoded from JSON (any JSON value), or a binary frame as a string
---@field onClose? fun() the connection is gone (also at shutdown)

---What a file in the modules folder returns.
---@class tycho.ServerModule
---@field onStart? fun(host: tycho.Host) once, after every module is loaded and the port is open
---@field onConnect? fun(session: tycho.Session): tycho.SessionHandler? a client connected to /NAME
---@field onStop? fun() on SIGINT/SIGTERM, before the clients are closed with 1001
---@field onReload? fun(old: tycho.ServerModule, host: tycho.Host) hot reload: the module's file changed and ran again; called on the new table with the table other code holds (`old`), whose fields it may migrate, before the new functions are patched into `old` (unless `--no-watch`)

---A member of a Room: a session, or any table or userdata with an `id` and a `send` method.
---@class tycho.RoomMember
---@field id integer|string
---@field send fun(self: tycho.RoomMember, msg: any): boolean?
---@field sendText? fun(self: tycho.RoomMember, text: string): boolean? used by broadcast when present (sessions have it)

---`require("tycho.server.room")`: a set of members a module broadcasts to.
---@class tycho.Room
---@field members table<integer|string, tycho.RoomMember> the members by id (read it; change it through add and remove)
---@field count integer how many members
local Room = {}

---A new, empty room.
---@return tycho.Room
function Room.new() end

---Adds a member, replacing one with the same id. Raises when `member` is not a table or
---userdata, or has no `id`.
---@param member tycho.RoomMember
---@return tycho.RoomMember member
function Room:add(member) end

---Removes the member with this id.
---@param id integer|string
---@return tycho.RoomMember? member the member removed, or nil when there was none
function Room:remove(id) end

---Sends `msg` to every member but the one whose id is `exceptId`, in id order. The message
---is encoded to JSON once and handed to every member that has `sendText`; others get
---`:send(msg)`. A member whose send raises is skipped and the first such error is raised
---again once everyone else got `msg`.
---@param msg any
---@param exceptId? integer|string
---@return integer sent how many members it was sent to
function Room:broadcast(msg, exceptId) end

---What Room:broadcast is built on: sends `msg` to `members[id]` for each id of the array `ids`
---but `exceptId`, in that order, from a C loop (no Lua instructions per member, so a module's
---instruction fence sees none). A member with `sendText` gets `msg`'s JSON, encoded once (an
---unencodable `msg` raises before any of them got it); one without gets `:send(msg)`. Each send
---is protected: one that raises is skipped, and the first error is returned.
---@param ids (integer|string)[]
---@param members table<integer|string, tycho.RoomMember>
---@param msg any
---@param exceptId? integer|string
---@return integer sent how many members it was sent to
---@return any firstError the first error a send raised, or nil
function tycho.fanout(ids, members, msg, exceptId) end

---@class tycho.json
---@field null lightuserdata JSON null: what decode gives for null, and encodes as null
tycho.json = {}

---Compact JSON text. A table whose keys are exactly 1..n (n > 0) is an array, and so is a
---table marked by `tycho.json.array` (written as t[1..#t], `[]` when empty); any other is an
---object (number keys become strings; the unmarked empty table is `{}`). Integral floats are written as
---integers. Raises for functions, userdata, cycles, NaN/inf and strings that are not UTF-8.
---@param value any
---@return string
function tycho.json.encode(value) end

---Parses any JSON value. Integers become Lua integers, null becomes `tycho.json.null`, and
---every array comes back marked as by `tycho.json.array`, so encoding it again gives `[]` for `[]`.
---Returns `nil, message, code` on failure, code one of `"bad_json"`, `"too_deep"`
---(nesting past maxDepth, default 64), `"too_large"` (more than maxItems values, default 10000).
---@param text string
---@param opts? {maxDepth?: integer, maxItems?: integer}
---@return any value
---@return string? message
---@return "bad_json"|"too_deep"|"too_large"|nil code
function tycho.json.decode(text, opts) end

---Marks `t` (a new table when nil) to be encoded as a JSON array even while empty, and returns
---it. The mark is a metatable (`__jsontype = "array"`), so it stays as `t` fills. A table that
---already has another metatable is refused: put `__jsontype = "array"` in that metatable.
---@generic T: table
---@param t? T
---@return T
function tycho.json.array(t) end

---True when `value` is a table marked as a JSON array (by `tycho.json.array`, by decode, or by
---`__jsontype = "array"` in its metatable).
---@param value any
---@return boolean
function tycho.json.isArray(value) end
