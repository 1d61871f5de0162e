---@meta tycho.net
-- scripts/meta/net.lua: LuaLS annotations for tycho.net, the game's WebSocket client
-- (bindings/lua_net.c over engine/net/client.c). Never loaded at run time;
-- scripts/docs/net.md describes it with examples.

---@class tycho.net
tycho.net = {}

---What a connection calls; every field optional. Errors raised by a handler are caught and
---logged (`net_handler_error`, with a traceback); the connection keeps going.
---@class tycho.NetHandlers
---@field onOpen? fun(conn: tycho.Connection) the handshake finished
---@field onMessage? fun(msg: any) a text frame decoded from JSON (any JSON value; null is `tycho.json.null`), or a binary frame as a string
---@field onClose? fun(code: integer, reason: string) an opened connection ended: the server's close code, the game's own after `conn:close`, 1009 past `maxMessage`, 1006 when the link was lost with no close frame
---@field onError? fun(message: string) the connection never opened (refused, unknown host, handshake refused); onClose does not follow

---@class tycho.NetOptions
---@field maxMessage? integer largest message accepted from the server, in bytes (default 1 MiB); a bigger one closes the connection with 1009
---@field maxQueue? integer bytes waiting to be written (default 1 MiB); a send past it returns `nil, "send queue full"`
---@field timeout? number seconds connect waits for the handshake (default 5); 0 returns at once and a failure reaches `onError`

---One WebSocket connection to a `tycho serve` module.
---@class tycho.Connection
---@field state "connecting"|"open"|"closing"|"closed"
---@field url string the full URL, `baseUrl .. "/" .. gameId`
---@field gameId string the module path it was opened with
---@field buffered integer messages held back since a `welcome`, waiting for `setHandlers` or `ready`
local Connection = {}

---Connects to the module `gameId` (`"crafty"` is `ws://host:port/crafty`), waiting for
---the handshake at most `options.timeout` seconds (default 5). Returns `nil, message` for a
---refused connection, an unknown host, a failed handshake or a URL that is not `ws://` or
---`wss://`; `onOpen` and later events reach `handlers` from `tycho.net.update`. With
---`timeout = 0` it returns at once and a failure reaches `onError`.
---@param baseUrl string e.g. `"ws://127.0.0.1:8787"`
---@param gameId? string the module path; nil or `""` is the server's default module
---@param handlers? tycho.NetHandlers
---@param options? tycho.NetOptions
---@return tycho.Connection|nil conn
---@return string? message
function tycho.net.connect(baseUrl, gameId, handlers, options) end

---Services every connection (reads, writes, handshakes, pings) and then calls the handlers
---for what happened, in arrival order. Never blocks unless given a timeout: then it waits
---at most that long for something to happen. `tycho run` calls it once per frame; a test
---or a tool calls it in its own loop. Raises when called from inside a handler.
---@param timeoutSeconds? number default 0
---@return integer events how many events were handled
function tycho.net.update(timeoutSeconds) end

---Queues `value` as one JSON text frame; frames go out in order once the connection is open
---and the socket can take them. Raises `bad argument` for what JSON cannot hold.
---@param value any
---@return true|nil ok
---@return string? message `"connection is closed"` (closing or closed) or `"send queue full"`
function Connection:send(value) end

---Queues `bytes` as one binary frame. Same returns as `send`.
---@param bytes string
---@return true|nil ok
---@return string? message
function Connection:sendBinary(bytes) end

---Closes once what is queued has been written; `onClose(code, reason)` follows. Before the
---connection opened, nothing queued is sent. A no-op once closing.
---@param code? integer 1000 (default) or 3000..4999
---@param reason? string at most 123 bytes are sent
function Connection:close(code, reason) end

---Installs new handlers (the game's, after the lobby's). When messages are held back since
---a `welcome`, they are handed to `handlers.onMessage` now, in order, before any newer one.
---@param handlers tycho.NetHandlers
function Connection:setHandlers(handlers) end

---Ends the hold that a `welcome` started without changing handlers, replaying what was held.
function Connection:ready() end
