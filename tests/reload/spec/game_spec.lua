-- tests/reload/spec/game_spec.lua: hot reload in a running `tycho run --headless`. The
-- spec rewrites the fixture game's files on disk while the child process runs and reads
-- what the game prints: new code appears, state survives, mistakes are reported once and
-- survived, and the next good save recovers.
local testing = require("tycho.testing")
local H = dofile(testing.here() .. "/../harness.lua")

local COUNTER = [[
local Counter = tycho.component("Counter")
function Counter:init() self.n = 0 end
function Counter:update() self.n = self.n + 1 end
function Counter:version() return %d end
%s
return Counter
]]

local function counter(version, extra) return COUNTER:format(version, extra or "") end

-- The n= of the last line in out showing version v.
local function lastN(out, pattern)
  local n
  for value in out:gmatch(pattern) do n = tonumber(value) end
  return n
end

describe("tycho run hot reload", function()
  local dir, game
  before_each(function()
    dir = H.scratch("game")
    game = H.spawn(nil, "run", dir, "--headless")
    H.waitFor(game, "main=1 n=%d+ v=1 util=a1")
  end)
  after_each(function()
    local code, out = H.stop(game)
    H.remove(dir)
    assert.equals(0, code, out)
  end)

  it("runs a component's new methods on live instances, fields intact", function()
    local before = lastN(H.output(game), "n=(%d+) v=1")
    local mark = #H.output(game)
    H.save(dir .. "/counter.lua", counter(2))
    local at = H.waitFor(game, "reloaded [^\n]*counter%.lua in [%d.]+ ms", mark)
    H.waitFor(game, "n=%d+ v=2", at)
    local after = lastN(H.output(game), "n=(%d+) v=2")
    assert.truthy(after > before, ("the counter restarted: %d then %d"):format(before, after))
  end)

  it("patches the table other code already holds", function()
    local mark = #H.output(game)
    H.save(dir .. "/util.lua", "local M = {}\nfunction M.greet() return 'b2' end\nreturn M\n")
    H.waitFor(game, "util=b2", mark)
  end)

  it("calls a component instance's onReload, never init", function()
    local mark = #H.output(game)
    H.save(dir .. "/counter.lua", counter(3, "function Counter:onReload() self.migrated = true end"))
    local at = H.waitFor(game, "v=3 util=a1 migrated=true", mark)
    assert.truthy(lastN(H.output(game):sub(at - 60), "n=(%d+) v=3") > 5, "init ran again")
  end)

  it("reports a syntax error once with file:line, keeps the old code, recovers", function()
    local mark = #H.output(game)
    local broken = "local Counter = tycho.component('Counter')\nfunction Counter:version( return 9 end\n"
    H.write(dir .. "/counter.lua", broken)
    local at = H.waitFor(game, "counter%.lua:2: [^\n]*", mark)
    H.sleep(0.1)
    H.save(dir .. "/counter.lua", broken) -- the same mistake saved again: no second report
    H.waitFor(game, "n=%d+ v=1", at + 1)
    H.sleep(0.2)
    local out = H.output(game):sub(mark + 1)
    assert.equals(1, H.count(out, "counter.lua:2:"), out)
    H.save(dir .. "/counter.lua", counter(4))
    H.waitFor(game, "n=%d+ v=4", #H.output(game))
  end)

  it("survives a runtime error in the new code and an onReload that throws", function()
    local mark = #H.output(game)
    H.save(dir .. "/counter.lua", counter(5, "error('boom at load')"))
    local at = H.waitFor(game, "counter%.lua:5: boom at load", mark)
    H.save(dir .. "/counter.lua", counter(6, "function Counter:onReload() error('bad migration') end"))
    at = H.waitFor(game, "counter%.lua:5: bad migration", at)
    -- Both failed: the class still answers version 1 (its methods were rolled back).
    local after = H.waitFor(game, "n=%d+ v=1", at)
    assert.falsy(H.output(game):sub(mark):find("v=[56]"), H.output(game))
    H.save(dir .. "/counter.lua", counter(7))
    H.waitFor(game, "n=%d+ v=7", after)
  end)

  it("keeps the last good code when the file is deleted or empty, and recovers", function()
    local mark = #H.output(game)
    os.remove(dir .. "/counter.lua")
    local at = H.waitFor(game, "counter%.lua failed[^\n]*gone", mark)
    H.waitFor(game, "n=%d+ v=1", at)
    H.save(dir .. "/counter.lua", counter(8))
    H.waitFor(game, "n=%d+ v=8", at)
  end)

  it("coalesces a save every few milliseconds for a second into few reloads", function()
    local mark = #H.output(game)
    for i = 1, 100 do
      H.save(dir .. "/counter.lua", counter(i % 2 == 0 and 10 or 11))
      os.execute("sleep 0.005")
    end
    H.save(dir .. "/counter.lua", counter(12))
    H.waitFor(game, "n=%d+ v=12", mark)
    local reloads = H.count(H.output(game):sub(mark + 1), "reloaded ")
    assert.truthy(reloads >= 1 and reloads < 60, "reloads: " .. reloads)
  end)

  it("re-runs main.lua: hooks and objects replaced, not duplicated; kept state survives", function()
    local before = lastN(H.output(game), "n=(%d+) v=1")
    local source = H.read(dir .. "/main.lua")
    local mark = #H.output(game)
    H.save(dir .. "/main.lua", (source:gsub("main=1", "main=2")))
    local at = H.waitFor(game, "reloaded [^\n]*main%.lua", mark)
    H.waitFor(game, "main=2 n=%d+ v=1[^\n]*objects=2", at)
    H.sleep(0.2)
    local out = H.output(game):sub(at)
    assert.falsy(out:find("main=1", 1, true), out)
    assert.truthy(lastN(out, "n=(%d+) v=1") > before, out)
    -- A broken main.lua keeps the last good one running.
    H.save(dir .. "/main.lua", "engine:afterFrame(nil)\n")
    at = H.waitFor(game, "main%.lua failed[^\n]*main%.lua:1:", at)
    H.waitFor(game, "main=2 n=%d+", at)
  end)
end)

describe("tycho run --no-watch", function()
  it("does not reload", function()
    local dir = H.scratch("game")
    local game = H.spawn(nil, "run", dir, "--headless", "--no-watch")
    H.waitFor(game, "main=1 n=%d+ v=1")
    H.save(dir .. "/counter.lua", counter(2))
    H.sleep(0.3)
    local code, out = H.stop(game)
    H.remove(dir)
    assert.equals(0, code, out)
    assert.falsy(out:find("v=2", 1, true), out)
  end)
end)
