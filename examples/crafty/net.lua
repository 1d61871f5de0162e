-- examples/crafty/net.lua: the multiplayer client over tycho.net and `tycho serve`'s crafty
-- module (protocol version 1): hello -> world_list -> join_world -> welcome. Everything the
-- server sends after welcome is held (tycho.net's bootstrap buffering) until the game has
-- built the world and installs its in-game handlers with start(), which replays it in
-- order. A long edit log comes in chunks (welcome with more = true, then `edits` messages
-- until more = false): onWelcome is called once with the whole log. Remote players are kept as pose samples and drawn interpolated ~100 ms behind.
-- A lost connection calls onLost(message); the local saves are never touched by it.
local Net = {}
Net.__index = Net

Net.PROTOCOL = 1
Net.INTERP_DELAY = 0.1 -- seconds remote players are drawn behind their latest pose
Net.SEND_INTERVAL = 1 / 15

Net.NAME_MAX_BYTES = 24 -- the server's limit on a player name (server/modules/crafty.lua MAX_NAME)

---A player name as the server takes it: trimmed, 1..NAME_MAX_BYTES bytes of UTF-8 with no
---control characters. Returns the trimmed name, or nil and why not.
---@param name any
---@return string|nil name, string|nil message
function Net.cleanName(name)
  if type(name) ~= "string" then return nil, "a name is text" end
  name = name:match("^%s*(.-)%s*$")
  if name == "" then return nil, "a name needs at least one letter" end
  if #name > Net.NAME_MAX_BYTES then return nil, "a name is at most " .. Net.NAME_MAX_BYTES .. " bytes" end
  if not utf8.len(name) then return nil, "a name must be UTF-8" end
  -- C0 controls and DEL, and C1 controls (U+0080..U+009F, encoded C2 80..C2 9F).
  if name:find("[%c\127]") or name:find("\194[\128-\159]") then return nil, "a name has no control characters" end
  return name
end

-- The handlers of the lobby (before welcome, and again after leaveWorld).
function Net:_lobbyHandlers()
  return {
    onMessage = function(msg) self:_lobby(msg) end,
    onClose = function(code, reason) self:_lost(("connection lost (%s): %s"):format(code, reason or "")) end,
    onError = function(message) self:_lost("cannot connect: " .. tostring(message)) end,
  }
end

---Connects to url (e.g. "ws://127.0.0.1:8787") as name. handlers: onWorlds(list),
---onWelcome(msg), onLost(message), onError(code, message). `state` says where it stands:
---"connecting" until the server's first world list, "lobby" (choosing a world), "loading"
---(a welcome's edit log arriving), "playing", "closed".
---options go to tycho.net.connect (`timeout = 0` returns at once: a failure comes as onLost).
function Net.connect(url, name, playerKey, handlers, options)
  local self = setmetatable({ url = url, name = name, key = playerKey, h = handlers, players = {},
    chat = {}, sendAt = 0, state = "connecting", edits = 0 }, Net)
  local lobby = self:_lobbyHandlers()
  lobby.onOpen = function(c) c:send({ t = "hello", playerKey = playerKey, name = name, version = Net.PROTOCOL }) end
  local conn, err = tycho.net.connect(url, "crafty", lobby, options)
  if not conn then return nil, err end
  self.conn = conn
  return self
end

function Net:_lost(message)
  if self.state == "closed" then return end
  self.state = "closed"
  if self.h.onLost then self.h.onLost(message) end
end

function Net:_lobby(msg)
  if type(msg) ~= "table" then return end
  if msg.t == "world_list" then
    self.state = "lobby"
    self.worlds = msg.worlds
    if self.h.onWorlds then self.h.onWorlds(msg.worlds) end
  elseif msg.t == "welcome" then
    self.state = "loading"
    self.playerId = msg.playerId
    for _, p in ipairs(msg.players or {}) do self:_pose(p) end
    if msg.more then
      -- The rest of the edit log follows: collect it, and hold what else arrives meanwhile
      -- for start() (switching handlers inside onMessage(welcome) holds nothing back).
      self.welcome, self.held = msg, {}
      self.conn:setHandlers({
        onMessage = function(m) self:_chunk(m) end,
        onClose = function(code, reason) self:_lost(("connection lost (%s): %s"):format(code, reason or "")) end,
        onError = function(message) self:_lost(tostring(message)) end,
      })
      return
    end
    if self.h.onWelcome then self.h.onWelcome(msg) end
  elseif msg.t == "error" and self.state == "connecting" and msg.code == "storage_failed" then
    -- The server is up but cannot open its worlds store: a lobby with no worlds and the
    -- reason; listWorlds asks again (the server retries the store every few seconds).
    self.state, self.worlds = "lobby", {}
    if self.h.onWorlds then self.h.onWorlds(self.worlds) end
    if self.h.onError then self.h.onError(msg.code, msg.message) end
  elseif msg.t == "error" and self.state == "connecting" then
    -- hello refused (a bad name, another protocol version): this connection is over.
    self:_lost("the server refused: " .. tostring(msg.message))
    self.conn:close(1000, "refused")
  elseif msg.t == "error" then
    if self.h.onError then self.h.onError(msg.code, msg.message) end
  end
end

-- While the edit log is still arriving: appends chunks, holds everything else in order.
function Net:_chunk(msg)
  if type(msg) == "table" and msg.t == "edits" and self.welcome then
    local edits = self.welcome.world.edits
    for _, e in ipairs(msg.edits or {}) do edits[#edits + 1] = e end
    if not msg.more then
      local welcome = self.welcome
      self.welcome = nil
      if self.h.onWelcome then self.h.onWelcome(welcome) end
    end
    return
  end
  self.held[#self.held + 1] = msg
end

function Net:listWorlds() self.conn:send({ t = "list_worlds" }) end
function Net:createWorld(name, seed, gameMode) self.conn:send({ t = "create_world", name = name, seed = seed, gameMode = gameMode }) end
function Net:join(worldId) self.conn:send({ t = "join_world", worldId = worldId }) end
---Deletes a world this playerKey created (nobody may be in it): the server answers with the
---world list, or an error (not_owner, world_in_use) that comes as onError.
function Net:deleteWorld(worldId) self.conn:send({ t = "delete_world", worldId = worldId }) end

---Leaves the world being played for the lobby: the server answers with the world list.
function Net:leaveWorld()
  if self.state == "closed" then return end
  self.conn:send({ t = "leave_world" })
  self.state, self.players, self.playerId, self.game, self.held, self.welcome = "lobby", {}, nil, nil, nil, nil
  self.conn:setHandlers(self:_lobbyHandlers())
end

-- Records a pose sample of a remote player (a new one when first seen).
function Net:_pose(m)
  if m.playerId == self.playerId then return end
  local p = self.players[m.playerId]
  if not p then
    p = { id = m.playerId, name = m.name or ("player " .. tostring(m.playerId)), samples = {} }
    self.players[m.playerId] = p
  elseif type(m.name) == "string" then
    p.name = m.name
  end
  local s = p.samples
  s[#s + 1] = { t = tycho.now(), x = m.x, y = m.y, z = m.z, yaw = m.yaw, pitch = m.pitch }
  while #s > 8 do table.remove(s, 1) end
end

---Installs the in-game handlers (the world is built): replays what arrived since welcome.
---game: {applyEdit(x, y, z, type, author), onChat(from, message), onError(code, message)}
function Net:start(game)
  self.state = "playing"
  local handlers
  handlers = {
    onMessage = function(msg)
      if type(msg) ~= "table" then return end
      local t = msg.t
      if t == "block_edit" then
        self.edits = self.edits + 1
        game.applyEdit(msg.x, msg.y, msg.z, msg.type, msg.author)
      elseif t == "players" then
        -- The server's 15 Hz list of the players that moved (ours too: _pose skips it).
        for _, m in ipairs(msg.players or {}) do self:_pose(m) end
      elseif t == "player_transform" or t == "player_join" then -- player_transform: servers before `players`
        self:_pose(msg)
      elseif t == "player_leave" then
        local p = self.players[msg.playerId]
        self.players[msg.playerId] = nil
        if p and game.onPlayerLeave then game.onPlayerLeave(p) end
      elseif t == "chat" then
        self.chat[#self.chat + 1] = { from = msg.from, message = msg.message }
        if game.onChat then game.onChat(msg.from, msg.message) end
      elseif t == "error" then
        if game.onError then game.onError(msg.code, msg.message) end
      end
    end,
    onClose = function(code, reason) self:_lost(("connection lost (%s): %s"):format(code, reason or "")) end,
    onError = function(message) self:_lost(tostring(message)) end,
  }
  self.game = game
  local held = self.held
  self.held = nil
  for _, msg in ipairs(held or {}) do handlers.onMessage(msg) end
  self.conn:setHandlers(handlers)
end

---Sends the local pose at most 15 times a second.
function Net:sendPose(p)
  local now = tycho.now()
  if now - self.sendAt < Net.SEND_INTERVAL or self.state ~= "playing" then return end
  self.sendAt = now
  self.conn:send({ t = "transform", x = p.x, y = p.y, z = p.z, yaw = p.yaw, pitch = p.pitch })
end

function Net:sendEdit(action, x, y, z, blockType)
  self.conn:send({ t = "block_edit", action = action, x = x, y = y, z = z, type = blockType })
end

function Net:say(message) self.conn:send({ t = "chat", message = message }) end

function Net:sendInventory(inv) self.conn:send({ t = "inventory", stacks = inv.stacks, hotbar = inv.hotbar }) end

---Where remote player p is drawn at time now: between the two samples around now - delay.
function Net.interpolate(p, now)
  local s = p.samples
  if #s == 0 then return nil end
  local t = now - Net.INTERP_DELAY
  if t <= s[1].t then return s[1].x, s[1].y, s[1].z, s[1].yaw end
  for i = 2, #s do
    local a, b = s[i - 1], s[i]
    if t <= b.t then
      local f = (b.t > a.t) and (t - a.t) / (b.t - a.t) or 1
      local dyaw = (b.yaw - a.yaw + math.pi) % (2 * math.pi) - math.pi
      return a.x + (b.x - a.x) * f, a.y + (b.y - a.y) * f, a.z + (b.z - a.z) * f, a.yaw + dyaw * f
    end
  end
  local l = s[#s]
  return l.x, l.y, l.z, l.yaw
end

function Net:close()
  self.state = "closed"
  if self.conn then self.conn:close(1000, "bye") end
end

return Net
