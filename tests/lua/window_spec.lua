-- tests/lua/window_spec.lua: tycho.window (bindings/lua_window.c): title, size and
-- fullscreen, harmless headless, and through a real window when SDL's offscreen driver
-- gives one (a child `tycho run`).
local testing = require("tycho.testing")
local Engine = require("tycho.engine").Engine

local function errorOf(fn)
  local ok, err = pcall(fn)
  assert.is_false(ok, "expected an error")
  return tostring(err)
end

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

describe("tycho.window headless", function()
  local w0, h0, title0
  before_each(function()
    w0, h0 = tycho.window.getSize()
    title0 = tycho.window.getTitle()
  end)
  after_each(function()
    tycho.window.setSize(w0, h0)
    tycho.window.setTitle(title0)
  end)

  it("has no window and reports the headless size, 1280 x 720 by default", function()
    assert.is_false(tycho.window.isOpen())
    assert.same({ 1280, 720 }, { tycho.window.getSize() })
    assert.same({ 1280, 720 }, { tycho.window.getPixelSize() })
  end)

  it("remembers the title", function()
    assert.equals("tycho", tycho.window.getTitle())
    tycho.window.setTitle("Space Game")
    assert.equals("Space Game", tycho.window.getTitle())
  end)

  it("setSize sets the size frames render at", function()
    tycho.window.setSize(320, 200)
    assert.same({ 320, 200 }, { tycho.window.getSize() })
    assert.same({ 320, 200 }, { tycho.window.getPixelSize() })
    local engine = require("tycho.engine").new({ headless = true })
    engine:setPreset(tycho.presets.forward({}))
    local frame = engine:frame()
    assert.equals(320, frame.width)
    assert.equals(200, frame.height)
  end)

  it("refuses fullscreen without a window", function()
    assert.is_false(tycho.window.setFullscreen(true))
    assert.is_false(tycho.window.getFullscreen())
    assert.is_false(tycho.window.setFullscreen(false))
  end)

  it("raises the standard error for bad arguments", function()
    assert.truthy(errorOf(function() tycho.window.setTitle() end)
      :find("bad argument #1 to 'setTitle' (string expected, got no value)", 1, true))
    assert.truthy(errorOf(function() tycho.window.setTitle({}) end)
      :find("bad argument #1 to 'setTitle' (string expected, got table)", 1, true))
    assert.truthy(errorOf(function() tycho.window.setSize("wide", 100) end)
      :find("bad argument #1 to 'setSize' (number expected, got string)", 1, true))
    assert.truthy(errorOf(function() tycho.window.setSize(100) end)
      :find("bad argument #2 to 'setSize' (number expected, got no value)", 1, true))
    assert.truthy(errorOf(function() tycho.window.setSize(0, 100) end)
      :find("bad argument #1 to 'setSize' (size must be in 1..16384)", 1, true))
    assert.truthy(errorOf(function() tycho.window.setSize(100, 1.5) end)
      :find("bad argument #2 to 'setSize' (number has no integer representation)", 1, true))
    assert.truthy(errorOf(function() tycho.window.setFullscreen("yes") end)
      :find("bad argument #1 to 'setFullscreen' (boolean expected, got string)", 1, true))
    assert.same({ w0, h0 }, { tycho.window.getSize() }, "a refused size changes nothing")
  end)
end)

describe("tycho.window in tycho run", function()
  local dir
  before_each(function() dir = tempdir() end)
  after_each(function() os.execute("rm -rf '" .. dir .. "'") end)

  it("--headless --width --height set the headless size", function()
    write(dir .. "/main.lua", [[
      local w, h = tycho.window.getSize()
      print(("size=%dx%d open=%s"):format(w, h, tostring(tycho.window.isOpen())))
      tycho.engine:setPreset(tycho.presets.forward({}))
      tycho.engine:afterFrame(function()
        local f = tycho.engine:frame()
        print(("frame=%dx%d"):format(f.width, f.height))
      end)
    ]])
    local code, out = testing.exec("run", dir, "--headless", "--width", "320", "--height", "200", "--frames", "1")
    assert.equals(0, code, out)
    assert.truthy(out:find("size=320x200 open=false", 1, true), out)
    assert.truthy(out:find("frame=320x200", 1, true), out)
  end)

  it("sets the title and size of a real window (SDL's offscreen driver)", function()
    write(dir .. "/main.lua", [[
      tycho.window.setTitle("My Game")
      tycho.window.setSize(400, 300)
      local w, h = tycho.window.getSize()
      local pw, ph = tycho.window.getPixelSize()
      print(("open=%s title=%s size=%dx%d pixels=%dx%d"):format(tostring(tycho.window.isOpen()),
        tycho.window.getTitle(), w, h, pw, ph))
    ]])
    local cmd = ("SDL_VIDEODRIVER=offscreen %s run %s --frames 1 --width 160 --height 120"):format(
      testing.quote(tycho.executable), testing.quote(dir))
    local code, out = testing.shell(cmd)
    assert.equals(0, code, out)
    if out:find("open=false", 1, true) then
      -- no GL 4.5 here: the run fell back to headless, where the same calls still work
      assert.truthy(out:find("title=My Game size=400x300", 1, true), out)
      return
    end
    assert.truthy(out:find("open=true title=My Game size=400x300 pixels=400x300", 1, true), out)
  end)
end)
