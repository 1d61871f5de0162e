-- The command line: `tycho run` and `tycho test` as a user starts them, in child processes.
local testing = require("tycho.testing")

local function tempdir()
  local dir = os.tmpname()
  os.remove(dir)
  assert(os.execute("mkdir -p '" .. dir .. "'"))
  return dir
end

local function write(path, text)
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
end

describe("tycho run", function()
  local dir
  before_each(function() dir = tempdir() end)
  after_each(function() os.execute("rm -rf '" .. dir .. "'") end)

  it("closes input edges every frame when headless, so an injected press lasts one frame", function()
    write(dir .. "/main.lua", [[
      local n = 0
      tycho.engine:beforeFrame(function()
        n = n + 1
        if n == 2 then tycho.input.inject({ type = "keydown", key = "space" }) end
        if tycho.input.wasPressed("space") then print("pressed at " .. n) end
        if tycho.input.isDown("space") then print("down at " .. n) end
      end)
    ]])
    local code, out = testing.exec("run", dir, "--headless", "--frames", "4")
    assert.equals(0, code, out)
    assert.truthy(out:find("pressed at 2", 1, true), out)
    assert.falsy(out:find("pressed at 3", 1, true), out)
    assert.truthy(out:find("down at 4", 1, true), out)
  end)

  it("runs a folder's main.lua for exactly --frames frames", function()
    write(dir .. "/main.lua", [[
      local engine = tycho.engine
      local n = 0
      engine:afterFrame(function()
        n = n + 1
        print("frames=" .. n .. " ticks=" .. engine.time.frameCount)
      end)
    ]])
    local code, out = testing.exec("run", dir, "--headless", "--frames", "5")
    assert.equals(0, code, out)
    assert.truthy(out:find("frames=5 ticks=5", 1, true), out)
    assert.falsy(out:find("frames=6", 1, true), out)
  end)

  it("finds modules beside main.lua", function()
    write(dir .. "/util.lua", "return { answer = 42 }")
    write(dir .. "/game.lua", "print('answer=' .. require('util').answer)")
    local code, out = testing.exec("run", dir .. "/game.lua", "--headless", "--frames", "0")
    assert.equals(0, code, out)
    assert.truthy(out:find("answer=42", 1, true), out)
  end)

  it("reports a syntax error in main.lua with file:line and exits 1", function()
    write(dir .. "/main.lua", "local x = \nlocal = 3\n")
    local code, out = testing.exec("run", dir, "--headless", "--frames", "1")
    assert.equals(1, code, out)
    assert.truthy(out:find("main.lua:2:", 1, true), out)
  end)

  it("reports a runtime error in main.lua with a traceback and exits 1", function()
    write(dir .. "/main.lua", "local function boom() error('kaput') end\nboom()\n")
    local code, out = testing.exec("run", dir, "--headless", "--frames", "1")
    assert.equals(1, code, out)
    assert.truthy(out:find("main.lua:1: kaput", 1, true), out)
    assert.truthy(out:find("stack traceback", 1, true), out)
  end)

  it("keeps running when a component raises every tick", function()
    write(dir .. "/main.lua", [[
      local Bad = tycho.component("Bad")
      function Bad:update() error("bad update") end
      local go = tycho.engine.scene:add(tycho.GameObject.new("bad"))
      go:addComponent(Bad)
      tycho.engine:afterFrame(function()
        if tycho.engine.time.frameCount == 3 then print("still ticking") end
      end)
    ]])
    local code, out = testing.exec("run", dir, "--headless", "--frames", "3")
    assert.equals(0, code, out)
    assert.truthy(out:find("still ticking", 1, true), out)
    assert.truthy(out:find("main.lua:2: bad update", 1, true), out)
  end)

  it("logs 100 objects failing for 60 frames as one report and a repeat count", function()
    write(dir .. "/main.lua", [[
      local Bad = tycho.component("Bad")
      function Bad:update() error("bad update") end
      for i = 1, 100 do tycho.engine.scene:add(tycho.GameObject.new("bad" .. i)):addComponent(Bad) end
      tycho.engine:onQuit(function() print("caught=" .. tycho.stats.errors().caught) end)
    ]])
    local code, out = testing.exec("run", dir, "--headless", "--frames", "60", "--no-watch")
    assert.equals(0, code, out)
    assert.truthy(out:find("caught=6000", 1, true), out)
    local _, reports = out:gsub("stack traceback", "")
    assert.equals(1, reports, out)
    assert.truthy(out:find("error in update of GameObject 'bad1': [^\n]*main%.lua:2: bad update\nstack traceback:\n\t[^\n]*main%.lua:2: in "), out)
    local repeats = 0
    for n in out:gmatch("main%.lua:2: bad update %(repeated (%d+) times in the last [%d.]+ s, on 100 GameObjects%)") do
      repeats = repeats + tonumber(n)
    end
    assert.equals(5999, repeats, out)
    assert.truthy(#out < 2000, out)
  end)

  it("with --no-watch, exits 1 at once when main.lua fails", function()
    write(dir .. "/main.lua", "local t = nil\nprint(t.x)\n")
    local code, out = testing.shell(("timeout 20 %s run %s --headless --no-watch")
      :format(testing.quote(tycho.executable), testing.quote(dir)))
    assert.equals(1, code, out)
    assert.truthy(out:find("main.lua:2: attempt to index a nil value", 1, true), out)
    assert.falsy(out:find("waiting", 1, true), out)
  end)

  it("stops cleanly on SIGINT when no --frames is given", function()
    write(dir .. "/main.lua", [[
      tycho.engine:afterFrame(function()
        if tycho.engine.time.frameCount == 10 then print("running") io.stdout:flush() end
      end)
    ]])
    local code, out = testing.shell(("%s run %s --headless & p=$!; sleep 0.6; kill -INT $p; wait $p")
      :format(testing.quote(tycho.executable), testing.quote(dir)))
    assert.equals(0, code, out)
    assert.truthy(out:find("running", 1, true), out)
  end)

  it("refuses a missing game, a folder without main.lua and bad options", function()
    local code, out = testing.exec("run", dir .. "/nope", "--headless")
    assert.equals(1, code, out)
    assert.truthy(out:find("No such file", 1, true), out)
    code, out = testing.exec("run", dir, "--headless")
    assert.equals(1, code, out)
    assert.truthy(out:find("has no main.lua", 1, true), out)
    code, out = testing.exec("run", dir, "--frames", "many")
    assert.equals(2, code, out)
    assert.truthy(out:find("--frames needs a non-negative integer", 1, true), out)
    code, out = testing.exec("launch")
    assert.equals(2, code, out)
    assert.truthy(out:find("unknown command 'launch'", 1, true), out)
  end)
end)

describe("tycho test", function()
  local dir
  before_each(function() dir = tempdir() end)
  after_each(function() os.execute("rm -rf '" .. dir .. "'") end)

  it("exits 0 and prints the closing line when every spec passes", function()
    write(dir .. "/a_spec.lua", "describe('a', function() it('works', function() assert(true) end) end)")
    local code, out = testing.exec("test", dir)
    assert.equals(0, code, out)
    assert.truthy(out:find("\n?1 passed, 0 failed\n"), out)
  end)

  it("exits non-zero on a failure and counts a syntax error as a failure", function()
    write(dir .. "/a_spec.lua", "it('fails', function() assert.equals(1, 2) end)")
    write(dir .. "/b_test.lua", "it('x', function(\n")
    local code, out = testing.exec("test", dir)
    assert.equals(1, code, out)
    assert.truthy(out:find("0 passed, 2 failed", 1, true), out)
    assert.truthy(out:find("b_test.lua", 1, true), out)
  end)
end)
