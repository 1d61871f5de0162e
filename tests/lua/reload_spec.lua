-- tests/lua/reload_spec.lua: scripts/tycho/reload.lua in-process: patching held tables,
-- reload.keep, and 1,000 reload cycles of a module that registers a hook, a system and an
-- object, which must leave the Lua heap and RSS flat and nothing registered twice.
-- (End to end through real processes: tests/reload/spec.)
local reload = require("tycho.reload")

local function write(path, text)
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
end

local function rssKb()
  local f = io.open("/proc/self/statm")
  if not f then return nil end
  local _, resident = f:read("n", "n")
  f:close()
  return resident * 4
end

describe("reload.patchModule", function()
  it("patches new functions into the held table and keeps its state", function()
    local old = { count = 5, nested = { f = function() return 1 end } }
    function old.f() return "old" end
    function old.gone() end
    local held = old.f
    local new = { count = 0, added = 1, nested = { f = function() return 2 end } }
    function new.f() return "new" end
    local holder = { onMessage = held }
    assert.is_true(reload.patchModule(old, new, { holder }))
    assert.equals("new", old.f())
    assert.equals(5, old.count)      -- state kept (no onReload)
    assert.equals(1, old.added)      -- new fields arrive
    assert.equals(2, old.nested.f()) -- nested tables of functions too
    assert.is_nil(old.gone)
    assert.equals(new.f, holder.onMessage) -- a held old function is swapped
    assert.equals(5, new.count)      -- the new code's own table sees the same state
    new.count = 6
    assert.equals(6, old.count)      -- and writes to it
  end)

  it("lets onReload migrate, and keeps the old table untouched when it throws", function()
    local old = { count = 5, f = function() return "old" end }
    local ok, err = reload.patchModule(old, { f = function() return "new" end,
      onReload = function() error("nope") end })
    assert.is_nil(ok)
    assert.truthy(err:find("nope", 1, true))
    assert.equals("old", old.f())
    assert.is_true(reload.patchModule(old, { count = 0, onReload = function(o) o.seen = true end }))
    assert.equals(0, old.count) -- with onReload, the new values win
    assert.is_true(old.seen)
  end)

  it("checks its arguments", function()
    assert.has_error(function() reload.patchModule(1, {}) end)
    assert.has_error(function() reload.keep(1, function() end) end)
  end)
end)

describe("reload.keep", function()
  it("builds once", function()
    local n = 0
    local a = reload.keep("reload_spec.keep", function() n = n + 1 return {} end)
    local b = reload.keep("reload_spec.keep", function() n = n + 1 return {} end)
    assert.equals(a, b)
    assert.equals(1, n)
  end)
end)

describe("1,000 reloads of a module", function()
  it("leave the Lua heap and RSS flat and register nothing twice", function()
    local dir = os.tmpname()
    os.remove(dir)
    assert(os.execute("mkdir -p '" .. dir .. "'"))
    local engine = require("tycho.engine").new({ headless = true })
    local previous, previousPath = rawget(tycho, "engine"), package.path
    tycho.engine = engine
    package.path = dir .. "/?.lua;" .. package.path
    local source = [[
      local M = { calls = 0, blob = string.rep("x", 4096) .. "%d" }
      local Leaky = tycho.component("ReloadSpecLeaky")
      function Leaky:update() self.v = %d end
      tycho.engine:beforeFrame(function() M.calls = M.calls + 1 end)
      tycho.engine.scene:addSystem("gameLogic", function() end)
      tycho.engine.scene:add(tycho.GameObject.new("made by the module"))
      function M.version() return %d end
      return M
    ]]
    write(dir .. "/reloadspecmod.lua", source:format(0, 0, 0))
    write(dir .. "/main.lua", "reloadspecmod = nil; local m = require('reloadspecmod')\n")
    local ok, err = pcall(reload.start, engine, dir .. "/main.lua", {})
    reload.quiet = true
    engine._reload = nil -- this spec drives reload.file itself
    local function cycles(from, to)
      for i = from, to do
        write(dir .. "/reloadspecmod.lua", source:format(i, i, i))
        assert(reload.file(dir .. "/reloadspecmod.lua"), "reload " .. i .. " failed")
        engine:step(1 / 60)
      end
    end
    local results = {}
    ok, err = pcall(function()
      cycles(1, 100) -- warm: tables and pools reach their working size
      collectgarbage("collect")
      collectgarbage("collect")
      results.heap0, results.rss0 = collectgarbage("count"), rssKb()
      cycles(101, 1100)
      collectgarbage("collect")
      collectgarbage("collect")
      results.heap1, results.rss1 = collectgarbage("count"), rssKb()
    end)
    local mod = package.loaded.reloadspecmod
    local hooks, objects = #engine._beforeFrame, #engine.scene:objects()
    tycho.engine, package.path = previous, previousPath
    reload.quiet = false
    package.loaded.reloadspecmod = nil
    io.write(("  1,000 reloads: Lua heap %.0f -> %.0f KiB, RSS %s -> %s KiB\n"):format(
      results.heap0 or 0, results.heap1 or 0, tostring(results.rss0), tostring(results.rss1)))
    os.execute("rm -rf '" .. dir .. "'")
    assert(ok, err)
    assert.equals(1100, mod.version())
    assert.equals(1, hooks)
    assert.equals(1, objects)
    local calls = mod.calls
    assert.truthy(calls > 0)
    local heapGrowth = (results.heap1 - results.heap0) / results.heap0
    assert.truthy(heapGrowth < 0.01, ("Lua heap grew %.2f%% (%.0f -> %.0f KiB)"):format(
      heapGrowth * 100, results.heap0, results.heap1))
    if results.rss0 and not tycho.sanitized then -- ASan's quarantine keeps freed memory
      local rssGrowth = (results.rss1 - results.rss0) / results.rss0
      assert.truthy(rssGrowth < 0.01, ("RSS grew %.2f%% (%d -> %d KiB)"):format(rssGrowth * 100, results.rss0, results.rss1))
    end
  end)
end)
