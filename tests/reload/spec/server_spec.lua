-- tests/reload/spec/server_spec.lua: hot reload in a running `tycho serve` with a real
-- client (node's `ws` through tests/server/client.js) connected across the rewrites: the
-- member stays connected, its next messages run the new code, the state (hits, the timer)
-- carries on, the timer is not duplicated, and a failing reload keeps the old code.
local testing = require("tycho.testing")
local H = dofile(testing.here() .. "/../harness.lua")
local SH = dofile(testing.here() .. "/../../server/harness.lua")

local V2 = [[
local M = { state = { hits = 0, ticks = 0, newTicks = 0 } }
function M.onStart(host) M.timer = host:every(0.02, function() M.tick() end) end
function M.tick() M.state.newTicks = M.state.newTicks + 1 end
function M.handle(session, msg)
  M.state.hits = M.state.hits + 1
  session:send({ t = "reply", v = %d, hits = M.state.hits, ticks = M.state.ticks, newTicks = M.state.newTicks })
end
function M.onConnect(session) return { onMessage = function(msg) M.handle(session, msg) end } end
function M.onReload(old) M.state = old.state; M.timer = old.timer %s end
return M
]]

describe("tycho serve hot reload", function()
  it("keeps members connected while new messages and timers run the new code", function()
    SH.requireClient()
    local dir = H.scratch("server")
    local data = H.scratch()
    local server = SH.start(dir, data)
    local file = dir .. "/counter.lua"
    -- One connection across every rewrite: the client sleeps while the spec saves.
    local steps = {
      { open = "a", path = "/counter" },
      { send = "a", json = { t = "hit" } }, { recv = "a" },
      { sleep = 700 },                                          -- v2 saved
      { send = "a", json = { t = "hit" } }, { recv = "a" },
      { sleep = 500 },
      { send = "a", json = { t = "hit" } }, { recv = "a" },
      { sleep = 700 },                                          -- a syntax error saved
      { send = "a", json = { t = "hit" } }, { recv = "a" },
      { sleep = 700 },                                          -- onReload throws
      { send = "a", json = { t = "hit" } }, { recv = "a" },
      { sleep = 700 },                                          -- v3 saved
      { send = "a", json = { t = "hit" } }, { recv = "a" },
      { close = "a" },
    }
    local outFile = os.tmpname()
    os.execute(("(%s >%s 2>&1) &"):format(SH.clientCommand(server.port, steps), H.shq(outFile)))
    H.sleep(0.35)
    H.save(file, V2:format(2, ""))
    H.sleep(1.2)
    H.save(file, "local M = {\n  broken =\n")
    H.sleep(0.7)
    H.save(file, V2:format(9, "error('migration failed')"))
    H.sleep(0.7)
    H.save(file, V2:format(3, ""))
    local events
    for _ = 1, 100 do
      local out = H.read(outFile) or ""
      if select(2, out:gsub("\n", "")) >= 7 then
        events = SH.parseLines(out)
        break
      end
      H.sleep(0.1)
    end
    os.remove(outFile)
    local code, log = SH.stop(server)
    H.remove(dir)
    H.remove(data)
    assert.truthy(events, "the client never finished; server log:\n" .. log)
    local replies = SH.messages(events, "a", "reply")
    assert.equals(6, #replies, log)
    local v = {}
    for i, r in ipairs(replies) do
      v[i] = r.v
      assert.equals(i, r.hits, "state was lost at reply " .. i .. "\n" .. log) -- hits keep counting
    end
    assert.same({ 1, 2, 2, 2, 2, 3 }, v, log)
    -- After the reload the timer runs the new tick (newTicks grows, ticks froze) and runs
    -- once per period: 500 ms at 20 ms is at most ~25 ticks, a duplicate would double it.
    assert.equals(replies[2].ticks, replies[3].ticks, log)
    local grown = replies[3].newTicks - replies[2].newTicks
    assert.truthy(grown > 5 and grown <= 30, "newTicks grew by " .. grown .. "\n" .. log)
    assert.truthy(log:find("reloaded counter in", 1, true), log)
    assert.truthy(log:find("counter.lua:3:", 1, true), log)
    assert.truthy(log:find("migration failed", 1, true), log)
    assert.equals(0, code, log)
  end)
end)
