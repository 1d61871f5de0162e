-- tests/reload/spec/errors_spec.lua: a game whose main.lua is broken from the start, under
-- a running `tycho run`: it waits for a fixed save instead of exiting, then runs it; and
-- with a window (SDL's offscreen driver) the error is on screen until it is fixed.
local testing = require("tycho.testing")
local tycho = require("tycho")
local H = dofile(testing.here() .. "/../harness.lua")

local BROKEN = "local speed = nil\nlocal x = speed * 2\n"

local FIXED = [[
local engine = tycho.engine
engine:afterFrame(function()
  if engine.frameCount %% 5 == 0 then
    print("running frame=" .. engine.frameCount)
    io.stdout:flush()
  end
  if engine.frameCount == 10 and %q ~= "" then
    engine:screenshot(%q)
    print("shot")
    io.stdout:flush()
  end
end)
]]

local function fixed(shot) return FIXED:format(shot or "", shot or "") end

-- Whether the error box's corner (bottom left) is drawn in the image at path.
local function boxAt(path)
  local img = assert(tycho.image.load(path))
  local i = ((img.height - 14) * img.width + 8) * 4 + 1
  local r, g = img.pixels:byte(i), img.pixels:byte(i + 1)
  return r > g + 40, ("pixel %d %d"):format(r, g)
end

describe("tycho run with a main.lua broken from the start", function()
  local dir
  before_each(function() dir = H.scratch() end)
  after_each(function() H.remove(dir) end)

  it("waits for a fixed save, then runs it", function()
    H.write(dir .. "/main.lua", BROKEN)
    local game = H.spawn(nil, "run", dir, "--headless")
    local ok, err = pcall(function()
      local at = H.waitFor(game, "main%.lua:2: attempt to perform arithmetic on a nil value[^\n]*\nstack traceback:\n\t[^\n]*main%.lua:2: in main chunk")
      at = H.waitFor(game, "waiting for [^\n]*main%.lua to be saved", at)
      H.sleep(0.2)
      assert.is_nil(H.read(game.exitFile), "it exited: " .. H.output(game))
      -- Another broken save: reported, still waiting.
      H.save(dir .. "/main.lua", "error('still broken')\n")
      at = H.waitFor(game, "still fails[^\n]*main%.lua:1: still broken", at)
      H.save(dir .. "/main.lua", fixed())
      at = H.waitFor(game, "main%.lua ran: the game starts", at)
      H.waitFor(game, "running frame=%d+", at)
    end)
    local code, out = H.stop(game)
    if not ok then error(tostring(err) .. "\n--- game output ---\n" .. out, 0) end
    assert.equals(0, code, out)
    assert.equals(1, H.count(out, "attempt to perform arithmetic"), out)
  end)

  it("exits 1 when the run ends before main.lua was ever fixed", function()
    H.write(dir .. "/main.lua", BROKEN)
    local code, out = testing.exec("run", dir, "--headless", "--frames", "5")
    assert.equals(1, code, out)
    assert.truthy(out:find("waiting for", 1, true), out)
  end)

  it("shows the error on screen while it waits, and not once the fix runs", function()
    H.write(dir .. "/main.lua", BROKEN)
    local broken, fixedShot = dir .. "/broken.png", dir .. "/fixed.png"
    local code, out = testing.exec("run", dir, "--width", "320", "--height", "180", "--frames", "3",
      "--screenshot", broken)
    if out:find("no window or GL 4.5 context here", 1, true) then return pending("no GL 4.5 here") end
    assert.equals(1, code, out)
    local shown, why = boxAt(broken)
    assert.truthy(shown, "no error box: " .. why)
    local game = H.spawn("SDL_VIDEODRIVER=offscreen", "run", dir, "--width", "320", "--height", "180")
    local ok, err = pcall(function()
      local at = H.waitFor(game, "waiting for")
      H.save(dir .. "/main.lua", fixed(fixedShot))
      H.waitFor(game, "shot", at)
      H.sleep(0.1)
      local gone, why2 = boxAt(fixedShot)
      assert.falsy(gone, "the error box stayed: " .. why2)
    end)
    code, out = H.stop(game)
    if not ok then error(tostring(err) .. "\n--- game output ---\n" .. out, 0) end
    assert.equals(0, code, out)
  end)
end)

describe("tycho run with a window and a component that keeps failing", function()
  it("shows the latest error at the bottom of the screen", function()
    local dir = H.scratch()
    H.write(dir .. "/main.lua", [[
      local Bad = tycho.component("Bad")
      function Bad:update() error("shown on screen") end
      tycho.engine.scene:add(tycho.GameObject.new("bad")):addComponent(Bad)
    ]])
    local shot = dir .. "/shot.png"
    local code, out = testing.shell(("SDL_VIDEODRIVER=offscreen %s run %s --width 320 --height 180 --frames 3 --no-watch --screenshot %s")
      :format(H.shq(tycho.executable), H.shq(dir), H.shq(shot)))
    if out:find("no window or GL 4.5 context here", 1, true) then
      H.remove(dir)
      return pending("no GL 4.5 here")
    end
    assert.equals(0, code, out)
    local shown, why = boxAt(shot)
    H.remove(dir)
    assert.truthy(shown, "no error box: " .. why)
  end)
end)
