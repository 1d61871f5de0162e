-- tests/lua/errors_spec.lua: what becomes of an error a scene caught (scripts/tycho/errors.lua,
-- bindings/lua_component.c): one report per distinct error and a count of its repeats, a new
-- report when the error changes, every error still counted, and tracebacks that start at
-- the user's line.

local errors = require("tycho.errors")
local GameObject, Scene = tycho.GameObject, tycho.Scene

local THIS = debug.getinfo(1, "S").short_src

-- Captures what errors.lua writes while fn runs; the interval is long enough that only the
-- closing flush writes repeat counts. Returns the lines written.
local function capture(fn, interval)
  errors.flush(true)
  local lines, output, saved = {}, errors.output, errors.interval
  errors.output = function(text) lines[#lines + 1] = text end
  errors.interval = interval or 3600
  local ok, err = pcall(fn)
  errors.flush(true)
  errors.output, errors.interval = output, saved
  errors.clear()
  if not ok then error(err, 0) end
  return lines
end

local function count(lines, needle)
  local n = 0
  for _, line in ipairs(lines) do
    if line:find(needle, 1, true) then n = n + 1 end
  end
  return n
end

local BAD_LINE = debug.getinfo(1, "l").currentline + 2
local Bad = tycho.component("errors_spec.Bad")
function Bad:update() error(self.message or "broken update") end

local function badScene(n)
  local scene = Scene.new()
  for i = 1, n do scene:add(GameObject.new("bad" .. i)):addComponent(Bad) end
  return scene
end

describe("errors from a scene with no onError", function()
  it("100 objects failing for 60 ticks give one report and one repeat count", function()
    local caughtBefore, countBefore = tycho.stats.errors().caught, errors.count()
    local lines = capture(function()
      local scene = badScene(100)
      for _ = 1, 60 do scene:update(1 / 60) end
    end)
    assert.equals(2, #lines, table.concat(lines))
    assert.truthy(lines[1]:find("error in update of GameObject 'bad1': " .. THIS .. ":" .. BAD_LINE
      .. ": broken update\nstack traceback:\n", 1, true), lines[1])
    assert.equals(1, count(lines, "stack traceback"))
    assert.truthy(lines[2]:find("broken update (repeated 5999 times in the last", 1, true), lines[2])
    assert.truthy(lines[2]:find("on 100 GameObjects)", 1, true), lines[2])
    -- Only the log is deduplicated: every error counts.
    assert.equals(6000, tycho.stats.errors().caught - caughtBefore)
    assert.equals(6000, errors.count() - countBefore)
  end)

  it("reports a changed error again, and the old one's repeats", function()
    local lines = capture(function()
      local scene = badScene(3)
      for tick = 1, 20 do
        if tick == 11 then
          for _, go in ipairs(scene:objects()) do go:getComponent(Bad).message = "broken differently" end
        end
        scene:update(1 / 60)
      end
    end)
    assert.equals(2, count(lines, "stack traceback"), table.concat(lines))
    assert.equals(1, count(lines, ": broken update\nstack traceback"), table.concat(lines))
    assert.equals(1, count(lines, ": broken differently\nstack traceback"), table.concat(lines))
    assert.equals(1, count(lines, "broken update (repeated 29 times"), table.concat(lines))
    assert.equals(1, count(lines, "broken differently (repeated 29 times"), table.concat(lines))
  end)

  it("writes the repeats once an interval has passed, and an error that stopped in full again", function()
    local lines = capture(function()
      local scene = badScene(1)
      scene:update(1 / 60)
      scene:update(1 / 60)
      os.execute("sleep 0.06")
      errors.flush() -- what the engine does every frame
      assert.equals(1, count(errors.latest() and { errors.latest().first } or {}, "broken update"))
      os.execute("sleep 0.06")
      scene:update(1 / 60) -- came back after a pause: a full report again
    end, 0.05)
    assert.equals(2, count(lines, "stack traceback"), table.concat(lines))
    assert.equals(1, count(lines, "(repeated once in the last"), table.concat(lines))
  end)

  it("names the user's file:line first in the traceback, not error() or the scene's walk", function()
    local lines = capture(function() badScene(1):update(1 / 60) end)
    local trace = lines[1]:match("stack traceback:\n(.*)$")
    assert.truthy(trace, lines[1])
    assert.equals(("\t%s:%d: in "):format(THIS, BAD_LINE), trace:sub(1, #THIS + #tostring(BAD_LINE) + 7), trace)
    -- Below the spec's own frames (it called scene:update) the test runner's are cut too.
    assert.falsy(trace:find("in function 'error'", 1, true), trace)
    assert.falsy(trace:find("scripts/tycho/", 1, true), trace)
  end)

  it("says where in the user's code an error with no position came from", function()
    local Raw = tycho.component("errors_spec.Raw")
    local line = debug.getinfo(1, "l").currentline + 1
    function Raw:update() error("no position", 0) end
    local lines = capture(function()
      local scene = Scene.new()
      scene:add(GameObject.new("raw")):addComponent(Raw)
      scene:update(1 / 60)
    end)
    assert.truthy(lines[1]:find(("no position (at %s:%d)"):format(THIS, line), 1, true), lines[1])
  end)

  it("writes at most maxReports distinct errors in full per interval, counting the rest", function()
    local Varied = tycho.component("errors_spec.Varied")
    function Varied:update() error("object " .. self.gameObject.name) end
    local saved = errors.maxReports
    errors.maxReports = 5
    local lines = capture(function()
      local scene = Scene.new()
      for i = 1, 50 do scene:add(GameObject.new("v" .. i)):addComponent(Varied) end
      scene:update(1 / 60)
    end)
    errors.maxReports = saved
    assert.equals(5, count(lines, "stack traceback"), table.concat(lines))
    assert.equals(1, count(lines, "45 more errors (45 distinct) not shown"), table.concat(lines))
  end)

  it("keeps the latest error for the screen until it stops, and clear() forgets it", function()
    capture(function()
      badScene(1):update(1 / 60)
      local e = errors.latest()
      assert.truthy(e)
      assert.equals(("%s:%d"):format(THIS, BAD_LINE), e.where)
      assert.equals("error in update of GameObject 'bad1'", e.header)
      errors.clear()
      assert.is_nil(errors.latest())
    end)
  end)
end)

describe("scene.onError", function()
  it("still gets every error, and the log gets none", function()
    local calls = 0
    local lines = capture(function()
      local scene = badScene(10)
      scene.onError = function(message, info)
        calls = calls + 1
        assert.equals("update", info.hook)
        assert.truthy(message:find("\nstack traceback:\n\t" .. THIS .. ":" .. BAD_LINE .. ":", 1, true), message)
      end
      for _ = 1, 6 do scene:update(1 / 60) end
    end)
    assert.equals(60, calls)
    assert.equals(0, #lines, table.concat(lines))
  end)
end)

describe("an error that is not a string", function()
  -- Each hook error's message, through onError.
  local function messages(value)
    local scene = Scene.new()
    local go = scene:add(GameObject.new("thrower"))
    local Thrower = tycho.component("errors_spec.Thrower")
    function Thrower:update() error(value) end
    go:addComponent(Thrower)
    local got = {}
    scene.onError = function(message) got[#got + 1] = message end
    scene:update(1 / 60)
    return got
  end

  it("is named by its __tostring, with the traceback a string gets", function()
    local value = setmetatable({}, { __tostring = function() return "custom failure" end })
    local got = messages(value)
    assert.equals(1, #got)
    assert.equals(1, (got[1]:find("custom failure\nstack traceback:\n\t" .. THIS .. ":", 1, true)), got[1])
  end)

  it("is named by its type when it has no __tostring", function()
    local got = messages({ code = 7 })
    assert.equals(1, #got)
    assert.equals(1, (got[1]:find("(error object is a table value)\nstack traceback:\n\t" .. THIS .. ":", 1, true)),
      got[1])
    got = messages(nil)
    assert.equals(1, (got[1]:find("(error object is a nil value)\nstack traceback:", 1, true)), got[1])
  end)
end)

describe("tycho._traceback", function()
  it("is debug.traceback less the engine's frames around the user's", function()
    local line = debug.getinfo(1, "l").currentline + 1
    local ok, trace = xpcall(function() error("here") end, tycho._traceback)
    assert.is_false(ok)
    local first = trace:match("stack traceback:\n\t([^\n]*)")
    assert.truthy(first:find(("^%s:%d: in "):format(THIS:gsub("%p", "%%%0"), line)), trace)
  end)
end)
