-- tests/server/spec/crafty_crowd_spec.lua: crafty.lua with a crowd in one world. The transform
-- flush is one `players` list per world, built in Lua per mover and fanned out from C, so 500
-- movers stay far inside `--max-instructions 1000000` (the per-mover broadcasts before cost
-- 4.7 M instructions a flush and stopped the module for every world); a world takes at most
-- 200 players (world_full). In-process cases run crafty.lua in this state
-- (tests/server/crafty_local.lua); the last one drives `tycho serve`. Needs node and `ws`.

local H = dofile(require("tycho.testing").here() .. "/../harness.lua")
local C = dofile(H.HERE .. "/crafty_local.lua")

local CAP_500 = { { "local MAX_PLAYERS = 200", "local MAX_PLAYERS = 500" } }

local function withData(fn)
  local data = H.tempDir()
  local ok, err = pcall(fn, data)
  H.removeTree(data)
  if not ok then error(err, 0) end
end

-- n players joined to one new world; the first `movers` of them moved once. Their frames so far
-- are dropped.
local function crowd(data, n, movers, patch)
  local c = C.start({ data = data, patch = patch })
  local id, spawn = c.world()
  for i = 1, n do
    c.connect(i)
    c.send(i, { t = "join_world", worldId = id })
  end
  for i = 1, movers do
    c.send(i, { t = "transform", x = spawn.x + 0.5, y = spawn.y, z = spawn.z - i / 1000, yaw = 0, pitch = 0 })
  end
  for i = 1, n do c.take(i) end
  return c, id
end

describe("crafty crowds", function()
  it("flushes 500 movers as one `players` list per member, in Lua work per mover", function()
    withData(function(data)
      local c = crowd(data, 500, 500, CAP_500)
      local all = C.instructions(function() c.runTimers(1 / 15) end)
      for i = 1, 500 do
        local frames = c.take(i)
        assert.equals(1, #frames)
        assert.equals("players", frames[1].t)
        assert.equals(500, #frames[1].players)
      end
      local p = c.take(1) -- nothing moved since: nothing sent
      c.runTimers(1 / 15)
      assert.same({}, c.take(1), p)
      c.stop()
      -- 4,761,062 before (one broadcast per mover, a Lua loop per member); ~11,600 now.
      assert.is_true(all < 40000, "one flush of 500 movers ran " .. all .. " Lua instructions")

      local d2 = H.tempDir()
      local c2 = crowd(d2, 500, 50, CAP_500)
      local some = C.instructions(function() c2.runTimers(1 / 15) end)
      assert.equals(50, #c2.take(500)[1].players)
      c2.stop()
      H.removeTree(d2)
      assert.is_true(some * 5 < all, ("50 movers cost %d, 500 cost %d: not per mover"):format(some, all))
    end)
  end)

  it("takes 200 players in a world and refuses the next with world_full until one leaves", function()
    withData(function(data)
      local c, id = crowd(data, 200, 0)
      c.connect(201)
      c.send(201, { t = "join_world", worldId = id })
      local refused = c.take(201)
      assert.equals("error", refused[#refused].t)
      assert.equals("world_full", refused[#refused].code)
      assert.truthy(refused[#refused].message:find("200", 1, true))
      c.send(1, { t = "leave_world" })
      c.send(201, { t = "join_world", worldId = id })
      local joined = c.take(201)
      assert.equals("welcome", joined[#joined].t)
      assert.equals(199, #joined[#joined].players)
      c.stop()
    end)
  end)

  it("keeps serving 500 movers at 20 Hz in one world under --max-instructions 1000000", function()
    -- crafty.lua with its cap at 600 and a `_crowd{worldId, n}` message that joins n stand-in
    -- sessions (counting their frames in Lua) that then move at 20 Hz through the real handler.
    local fixture = [[
local f = assert(io.open(tycho.home .. "/server/modules/crafty.lua", "rb"))
local src = f:read("a")
f:close()
local M = assert(load((src:gsub("local MAX_PLAYERS = 200", "local MAX_PLAYERS = 600")), "@crafty.lua"))()
local onMessage, crowd, step = M.onMessage, {}, 0
function M.onMessage(client, msg)
  if type(msg) ~= "table" or msg.t ~= "_crowd" then return onMessage(client, msg) end
  for i = #crowd + 1, #crowd + msg.n do
    local s = { id = 1000000 + i, frames = 0 }
    function s:send(m)
      self.frames = self.frames + 1
      if type(m) == "table" and m.t == "welcome" then self.you = m.you end -- where it moves from
    end
    s.sendText = s.send
    M.onConnect(s)
    local c = M.clients[s.id]
    onMessage(c, { t = "hello", playerKey = "crowd-" .. i, name = "c" .. i, version = 1 })
    onMessage(c, { t = "join_world", worldId = msg.worldId })
    crowd[i] = c
  end
  if #crowd == msg.n then
    M.host:every(0.05, function()
      step = step + 1
      for _, c in ipairs(crowd) do
        local p = c.session.you
        onMessage(c, { t = "transform", x = p.x + (step % 2 == 0 and 0.5 or -0.5), y = p.y, z = p.z, yaw = 0, pitch = 0 })
      end
    end)
  end
  client.session:send({ t = "crowd", n = #crowd })
end
return M
]]
    local dir, data = H.tempDir(), H.tempDir()
    local f = assert(io.open(dir .. "/crafty.lua", "wb"))
    f:write(fixture)
    f:close()
    local store = assert(tycho.storage.open(data .. "/worlds.sqlite"))
    local world = tycho.storage.createSavedWorld("Crowd", 5, "creative")
    assert(store:save(world))
    store:close()
    local ok, err = pcall(function()
      local log = H.with(dir, data, function(s)
        local steps = { { open = "a", path = "/crafty" },
          { send = "a", json = { t = "hello", playerKey = "key-a", name = "a", version = 1 } }, { recv = "a", t = "world_list" },
          { send = "a", json = { t = "join_world", worldId = world.id } }, { recv = "a", t = "welcome" } }
        for _ = 1, 50 do -- 10 joins a call: a join lists everyone already there
          steps[#steps + 1] = { send = "a", json = { t = "_crowd", worldId = world.id, n = 10 } }
          steps[#steps + 1] = { recv = "a", t = "crowd" }
        end
        steps[#steps + 1] = { sleep = 1500 } -- ~22 flushes queue up; the next 20 are read (one
        for _ = 1, 20 do                          -- drain of them all passes the decoder's 10,000 values)
          steps[#steps + 1] = { recv = "a", t = "players" }
        end
        steps[#steps + 1] = { send = "a", json = { t = "chat", message = "still here" } }
        steps[#steps + 1] = { recv = "a", t = "chat" }
        local ev = H.client(s.port, steps)
        assert.is_nil(H.find(ev, function(e) return e.closed or e.timeout or (e.recv and e.closed) end))
        local full = 0
        for _, m in ipairs(H.messages(ev, "a", "players")) do
          if #m.players == 500 then full = full + 1 end
        end
        assert.is_true(full >= 10, "flushes with all 500 movers of the 20 read: " .. full)
        assert.equals("still here", H.messages(ev, "a", "chat")[1].message)
      end, "--max-instructions", "1000000")
      assert.is_nil(log:find("server_module_stopped", 1, true), log)
    end)
    H.removeTree(dir)
    H.removeTree(data)
    if not ok then error(err, 0) end
  end)
end)
