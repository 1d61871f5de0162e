-- scripts/tycho/server/cluster.lua: several `tycho serve --redis URL` processes acting as one
-- server, over host.cluster (server/cluster.c, a pipe to Redis). require("tycho.server.cluster").
--
-- What Redis holds, per module (PREFIX = "tycho:<module>:"):
--   lease:<worldId>  the process that runs the world: "<node>/<instance>", set with a TTL
--                    (LEASE_MS) by an atomic claim, renewed by a compare-and-set script, so a
--                    dead process's worlds free themselves and a stale owner renews nothing;
--   node:<id>        each process's record (clients, rooms, players per world, figures for the
--                    monitor), with the same TTL: a peer whose record expired is dead;
--   nodes            the set of process ids (a dead one is dropped by the first reader);
--   epoch            made by the first process to find Redis empty: a process that sees it
--                    change (Redis restarted and lost its keys) claims no new world for GRACE s,
--                    so that the owners of running worlds re-register theirs first.
-- Channels: to:<id>, one per process (the relay), and all (the world list changed).
--
-- The relay's messages go over a direct link between the two processes (server/peer_link.c)
-- when one is up, and through Redis pub/sub otherwise (or always, with `--relay redis`). A
-- process's record carries its link's address and token; each process dials every peer it
-- reads. The way is chosen once per relayed client and direction (when the edge opens it, and
-- when the owner's stand-in is made, by the way its open came), so that one client's messages
-- never overtake each other on two ways; a link that goes down sends its clients' next
-- messages through Redis.
--
-- The relay: a client stays connected to the process it reached (its edge); when it joins a
-- world that runs elsewhere, the edge sends its messages to the owner (`open`, `msg`,
-- `leave`), where the module serves it through a stand-in session whose sends come back
-- (`send`, `kick`, `detach`). A message is "OP SID FROM\nBODY", SID the edge's session id.

local json = tycho.json

local LEASE_MS = 3000     -- lease and node record lifetime
local RENEW_EVERY = 0.75  -- seconds between two renewals of the leases, and node records
local ROUTE_RETRY = 0.25  -- seconds between two tries to claim a world held by a dead process
local ROUTE_GIVE_UP = 10  -- seconds after which a join is refused world_unavailable
local REMOTE_BASE = 1 << 40 -- ids of stand-in sessions: apart from the host's own
-- Seconds no new world is claimed after Redis is found empty: every owner reconnects within
-- server/redis.c's longest backoff (0.5 s) and claims its worlds again well inside it.
local GRACE = 2

local CLAIM = [[
local v = redis.call('GET', KEYS[1])
if not v then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return ARGV[1] end
if v == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return v]]
local RENEW = [[
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0]]
local RELEASE = [[
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0]]
local NODES = [[
local out = {}
for _, id in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local v = redis.call('GET', ARGV[1] .. id)
  if v then out[#out + 1] = v else redis.call('SREM', KEYS[1], id) end
end
return out]]

---@class tycho.ClusterApp
---@field open fun(session: table, key: string, name: string, msg: table) serve a stand-in session: its hello was said at the edge, msg is its join_world
---@field deliver fun(session: table, msg: table) a message from a relayed client
---@field closed fun(session: table) a relayed client is gone
---@field joined fun(session: table): boolean whether the stand-in is in a world now, or its join is under way (else the edge takes it back; the module calls giveBack when a join under way ends outside a world)
---@field detached fun(client: table) the owner gave a relayed client back (its join was refused)
---@field lost fun(worldId: string) another process owns this world now: stop running it
---@field presence fun(): table<string, integer> players per world run here
---@field listChanged fun() the world list may differ (a world made or deleted elsewhere, counts)

---@class tycho.Cluster
---@field id string this process: "<node>/<instance>"
---@field node string the --node name
---@field nodes table<string, table> live processes' records by id, as last read
local Cluster = {}
Cluster.__index = Cluster

---Joins the cluster of host.cluster (nil when the host runs alone).
---@param host table the module's host
---@param app tycho.ClusterApp
---@return tycho.Cluster?
function Cluster.new(host, app)
  local redis = host.cluster
  if not redis then return nil end
  local self = setmetatable({
    host = host, redis = redis, app = app, node = redis.node, id = redis.node .. "/" .. redis.instance,
    prefix = "tycho:" .. host.name .. ":", leases = {}, nodes = {}, online = {},
    relayed = {}, remotes = {}, nextRemote = REMOTE_BASE, graceUntil = 0, sentLink = 0, sentRedis = 0,
  }, Cluster)
  redis:subscribe(self.prefix .. "to:" .. self.id, function(payload, peer) self:receive(payload, peer) end)
  redis:onLinkDown(function(peer) self:linkDown(peer) end)
  redis:subscribe(self.prefix .. "all", function(payload)
    if payload ~= self.id then app.listChanged() end
  end)
  redis:onConnect(function() self:connected() end)
  host:every(RENEW_EVERY, function() self:beat() end)
  if redis.connected then self:connected() end
  return self
end

local function key(self, kind, id) return self.prefix .. kind .. ":" .. id end

-- ---- leases ----

-- Redis is (again) reachable: note whether it lost its keys, re-claim every world run here
-- (one another process took meanwhile is lost), and register this process.
---@private
function Cluster:connected()
  -- Peers re-register within a beat of Redis coming back: none is judged dead before then.
  self.judgeAfter = tycho.now() + LEASE_MS / 1000
  local epochKey = self.prefix .. "epoch"
  local mine = self.id .. "@" .. tycho.now()
  self.redis:command({ "SET", epochKey, mine, "NX", "GET" }, function(old, err)
    if err then -- Redis before 7 has no SET ... NX GET: set and read apart
      return self.redis:command({ "SETNX", epochKey, mine }, function(made)
        self.redis:command({ "GET", epochKey }, function(v) self:epochSeen(v, made == 1) end)
      end)
    end
    self:epochSeen(old or mine, old == nil)
  end)
  for worldId, lease in pairs(self.leases) do
    lease.checking = true
    self:claimLease(worldId, function(owner)
      lease.checking = false
      if owner and owner ~= self.id then self:loseLease(worldId, owner) end
    end)
  end
  self:beat()
end

---@private
-- epoch: Redis's epoch now; made: this process made it (Redis was empty).
function Cluster:epochSeen(epoch, made)
  if made or (self.epoch and epoch ~= self.epoch) then
    self.graceUntil = tycho.now() + GRACE
    self.host:log("cluster_grace: redis holds no leases (new or restarted): no new world is claimed for "
      .. GRACE .. " s, while running ones are claimed again")
  end
  if epoch then self.epoch = epoch end
end

-- EVALs CLAIM: fn(owner) with the lease's holder now (this process when it got it), or fn(nil, err).
---@private
function Cluster:claimLease(worldId, fn)
  local sent = self.redis:command({ "EVAL", CLAIM, 1, key(self, "lease", worldId), self.id, LEASE_MS },
    function(owner, err)
      if owner == self.id then
        local lease = self.leases[worldId] or {}
        lease.validUntil = tycho.now() + (LEASE_MS - 500) / 1000
        self.leases[worldId] = lease
      end
      fn(owner, err)
    end)
  if not sent then fn(nil, "redis is unreachable") end
end

---@private
function Cluster:loseLease(worldId, owner)
  if not self.leases[worldId] then return end
  self.leases[worldId] = nil
  self.host:log("cluster_lease_lost " .. worldId .. ": " .. tostring(owner) .. " holds it now; the world stops here")
  self.app.lost(worldId)
end

---Whether this process holds the world's lease, checked before every load and save: a lease
---another process took, or one not renewed in its time while Redis answers, is not held. While
---Redis is unreachable nobody can claim it, and the world keeps running.
---@param worldId string
---@return boolean
function Cluster:holds(worldId)
  local lease = self.leases[worldId]
  if not lease then return false end
  return lease.checking or not self.redis.connected or tycho.now() < lease.validUntil
end

---Lets a world go (it was unloaded): deleted only while this process holds it.
---@param worldId string
function Cluster:release(worldId)
  if not self.leases[worldId] then return end
  self.leases[worldId] = nil
  self.redis:command({ "EVAL", RELEASE, 1, key(self, "lease", worldId), self.id })
end

---Where a world is to run: fn("local") when this process holds (or just got) its lease,
---fn(ownerId) when a live process holds it, fn(nil, reason) when none could be had in
---ROUTE_GIVE_UP s. A lease held by a dead process is waited out (it expires in LEASE_MS).
---@param worldId string
---@param fn fun(where: string?, err: string?)
function Cluster:route(worldId, fn)
  if self:holds(worldId) then return fn("local") end
  local started = tycho.now()
  local function try()
    if tycho.now() < self.graceUntil then return self:later(try, started, fn) end
    self:claimLease(worldId, function(owner, err)
      if owner == self.id then return fn("local") end
      if owner and self.nodes[owner] then return fn(owner) end
      if err then self.host:log("cluster_claim_failed " .. worldId .. ": " .. tostring(err)) end
      self:later(try, started, fn)
    end)
  end
  try()
end

---@private
function Cluster:later(try, started, fn)
  if tycho.now() - started >= ROUTE_GIVE_UP then return fn(nil, "no process could run this world; try again") end
  local timer
  timer = self.host:every(ROUTE_RETRY, function()
    timer:cancel()
    try()
  end)
end

-- ---- presence and the node record ----

-- Renews the leases, writes this process's record, reads everyone's.
---@private
function Cluster:beat()
  if not self.redis.connected then return end
  for worldId, lease in pairs(self.leases) do
    if not lease.checking then
      self.redis:command({ "EVAL", RENEW, 1, key(self, "lease", worldId), self.id, LEASE_MS }, function(ok)
        if ok == 1 then
          lease.validUntil = tycho.now() + (LEASE_MS - 500) / 1000
        elseif ok == 0 and self.leases[worldId] == lease then
          -- Gone or someone else's: claim it back when it is free, else stop.
          self:claimLease(worldId, function(owner)
            if owner and owner ~= self.id then self:loseLease(worldId, owner) end
          end)
        end
      end)
    end
  end
  local worlds = self.app.presence()
  -- This process's monitor figures (clients, rates, tick times, module reports), and ours.
  local ok, record = pcall(json.decode, self.host:monitorRecord())
  if not ok or type(record) ~= "table" then record = {} end
  record.id, record.node, record.worlds, record.relayed, record.remotes, record.at =
    self.id, self.node, worlds, 0, 0, os.time()
  for _ in pairs(self.relayed) do record.relayed = record.relayed + 1 end
  for _ in pairs(self.remotes) do record.remotes = record.remotes + 1 end
  record.link, record.linkToken = self.redis.link, self.redis.linkToken
  record.sentLink, record.sentRedis, record.linksUp = self.sentLink, self.sentRedis, 0
  for id in pairs(self.nodes) do
    if id ~= self.id and self.redis:linkUp(id) then record.linksUp = record.linksUp + 1 end
  end
  self.redis:command({ "SET", key(self, "node", self.id), json.encode(record), "PX", LEASE_MS })
  self.redis:command({ "SADD", self.prefix .. "nodes", self.id })
  self.redis:command({ "EVAL", NODES, 1, self.prefix .. "nodes", self.prefix .. "node:" }, function(list)
    if type(list) == "table" then self:nodesRead(list) end
  end)
end

---@private
function Cluster:nodesRead(list)
  self.host:monitorCluster(list)
  local nodes, online = {}, {}
  for _, text in ipairs(list) do
    local ok, r = pcall(json.decode, text)
    if ok and type(r) == "table" and type(r.id) == "string" then
      nodes[r.id] = r
      if type(r.worlds) == "table" then
        for worldId, n in pairs(r.worlds) do
          if math.type(n) == "integer" then online[worldId] = (online[worldId] or 0) + n end
        end
      end
    end
  end
  nodes[self.id] = nodes[self.id] or { id = self.id, node = self.node } -- never dead to itself
  self.nodes = nodes
  for id, r in pairs(nodes) do
    if id ~= self.id and type(r.link) == "string" and type(r.linkToken) == "string" then
      self.redis:linkDial(id, r.link, r.linkToken)
    end
  end
  local changed = false
  for k, v in pairs(online) do changed = changed or self.online[k] ~= v end
  for k in pairs(self.online) do changed = changed or online[k] == nil end
  self.online = online
  if changed then self.app.listChanged() end
  -- Relayed clients whose owner died are closed with 4012 (reconnect, join again): their
  -- world runs again on the next join. Stand-ins whose edge died leave their world.
  if tycho.now() < (self.judgeAfter or 0) then return end
  for sid, client in pairs(self.relayed) do
    if not nodes[client.relay.owner] then
      self.relayed[sid] = nil
      client.relay = nil
      client.session:close(4012, "world_moved: the process running this world stopped; reconnect and join again")
    end
  end
  for id, session in pairs(self.remotes) do
    if not nodes[session.edge] then self:dropRemote(id) end
  end
end

---Players in a world across the cluster, as the processes last reported them.
---@param worldId string
---@return integer
function Cluster:onlineIn(worldId)
  return self.online[worldId] or 0
end

---Tells every process that the world list changed (a world made or deleted).
function Cluster:listChanged()
  self.redis:command({ "PUBLISH", self.prefix .. "all", self.id })
end

-- ---- the relay ----

-- Sends one relay message to process `to`: over the link when `direct` and it is up, else
-- through Redis. Returns whether it went over the link (false: the caller's client goes
-- through Redis from now on).
local function publish(self, to, op, sid, body, direct)
  local channel, payload = self.prefix .. "to:" .. to, op .. " " .. sid .. " " .. self.id .. "\n" .. body
  if direct and self.redis:linkSend(to, channel, payload) then
    self.sentLink = self.sentLink + 1
    return true
  end
  self.sentRedis = self.sentRedis + 1
  self.redis:command({ "PUBLISH", channel, payload })
  return false
end

---Edge side: from now on the client's messages go to owner, starting with its join_world.
---@param client table the module's client ({session, key, name, address})
---@param owner string
---@param msg table its join_world
function Cluster:attach(client, owner, msg)
  client.relay = { owner = owner, direct = self.redis:linkUp(owner) }
  self.relayed[client.session.id] = client
  client.relay.direct = publish(self, owner, "open", client.session.id, json.encode({
    key = client.key, name = client.name, address = client.address, msg = msg }), client.relay.direct)
end

---Edge side: one message of a relayed client to its world's process.
---@param client table
---@param msg table
function Cluster:forward(client, msg)
  local relay = client.relay
  relay.direct = publish(self, relay.owner, "msg", client.session.id, json.encode(msg), relay.direct)
end

---Edge side: the relayed client left its world (or closed): the owner lets it go.
---@param client table
function Cluster:detach(client)
  if not client.relay then return end
  publish(self, client.relay.owner, "leave", client.session.id, "", client.relay.direct)
  self.relayed[client.session.id] = nil
  client.relay = nil
end

-- A stand-in for a client connected to another process: what the module sends it goes back
-- to that process, which writes it to the client.
local Remote = {}
Remote.__index = Remote
function Remote:sendText(text)
  if self.closed then return false end
  self.direct = publish(self.cluster, self.edge, "send", self.sid, text, self.direct)
  return true
end
function Remote:send(msg)
  return self:sendText(json.encode(msg))
end
function Remote:sendBinary() return false end -- the crafty protocol is text
function Remote:close(code, reason)
  if self.closed then return end
  publish(self.cluster, self.edge, "kick", self.sid, json.encode({ code = code or 1000, reason = reason or "" }),
    self.direct)
  self.cluster:dropRemote(self.id)
end

---Owner side: a stand-in whose join did not end in a world (refused, or answered later than
---its open) goes back to its edge, which takes the client back to its lobby.
---@param session table the stand-in
function Cluster:giveBack(session)
  if session.closed then return end
  publish(self, session.edge, "detach", session.sid, "", session.direct)
  self:dropRemote(session.id)
end

---@private
function Cluster:dropRemote(id)
  local session = self.remotes[id]
  if not session then return end
  self.remotes[id], self.remotes[session.edge .. " " .. session.sid] = nil, nil
  session.closed = true
  self.app.closed(session)
end

-- One relay message, "OP SID FROM\nBODY"; peer: the process whose link it came over (nil:
-- through Redis).
---@private
function Cluster:receive(payload, peer)
  local op, sid, from, body = payload:match("^(%a+) (%d+) (%S+)\n(.*)$")
  sid = math.tointeger(tonumber(sid))
  if not op or not sid or (peer and peer ~= from) then
    return self.host:log("cluster_bad_message: " .. payload:sub(1, 60))
  end
  if op == "send" or op == "detach" or op == "kick" then return self:toEdge(op, sid, from, body) end
  local session = self.remotes[from .. " " .. sid]
  if op == "open" then
    local ok, info = pcall(json.decode, body)
    if not ok or type(info) ~= "table" or type(info.msg) ~= "table" or type(info.key) ~= "string"
        or type(info.name) ~= "string" then
      return self.host:log("cluster_bad_message: " .. payload:sub(1, 60))
    end
    if session then self:dropRemote(session.id) end
    self.nextRemote = self.nextRemote + 1
    session = setmetatable({ id = self.nextRemote, cluster = self, edge = from, sid = sid,
      address = info.address, direct = peer ~= nil and self.redis:linkUp(from) }, Remote)
    self.remotes[session.id], self.remotes[from .. " " .. sid] = session, session
    self.app.open(session, info.key, info.name, info.msg)
    if not self.app.joined(session) then self:giveBack(session) end
  elseif session and op == "msg" then
    local ok, msg = pcall(json.decode, body)
    if ok then self.app.deliver(session, msg) end
  elseif session and op == "leave" then
    self:dropRemote(session.id)
  end
end

-- The last link to peer went down: the relayed clients and stand-ins that used it go through
-- Redis from now on (what was queued on it is lost, as on a process that died).
---@private
function Cluster:linkDown(peer)
  self.host:log("cluster_link_down " .. peer .. ": its relayed clients go through redis")
  for _, client in pairs(self.relayed) do
    if client.relay.owner == peer then client.relay.direct = false end
  end
  for id, session in pairs(self.remotes) do
    if type(id) == "number" and session.edge == peer then session.direct = false end
  end
end

-- The owner's answer to a relayed client of this process.
---@private
function Cluster:toEdge(op, sid, from, body)
  local client = self.relayed[sid]
  if not client or client.relay.owner ~= from then return end
  if op == "send" then
    client.session:sendText(body)
  elseif op == "detach" then
    self.relayed[sid], client.relay = nil, nil
    self.app.detached(client)
  else
    self.relayed[sid], client.relay = nil, nil
    local ok, c = pcall(json.decode, body)
    c = ok and type(c) == "table" and c or {}
    client.session:close(math.tointeger(c.code) or 1000, type(c.reason) == "string" and c.reason or "")
  end
end

---Stops serving as a cluster member (the host shuts down): relayed clients and stand-ins are
---let go, and the leases released, so that the next join runs the worlds elsewhere at once.
function Cluster:stop()
  for _, client in pairs(self.relayed) do self:detach(client) end
  for id, session in pairs(self.remotes) do
    if type(id) == "number" then
      publish(self, session.edge, "kick", session.sid,
        json.encode({ code = 4012, reason = "world_moved: its process stopped; reconnect and join again" }), session.direct)
      session.closed = true
    end
  end
  for worldId in pairs(self.leases) do self:release(worldId) end
  self.redis:command({ "DEL", key(self, "node", self.id) })
  self.redis:command({ "SREM", self.prefix .. "nodes", self.id })
end

return Cluster
