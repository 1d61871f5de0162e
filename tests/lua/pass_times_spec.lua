-- tests/lua/pass_times_spec.lua: tycho.stats.timePasses / passTimes (bindings/lua_render.c,
-- engine/render/pass_times.c): headless nothing runs and nothing breaks; through a real
-- window (SDL's offscreen driver, a child `tycho run`) each pass gets its CPU time and,
-- frames later, its GPU time from timer queries.
local testing = require("tycho.testing")
local Engine = require("tycho.engine")

describe("tycho.stats pass times headless", function()
  after_each(function() tycho.stats.timePasses(false) end)

  it("times nothing and raises nothing without GL", function()
    local engine = Engine.new({ headless = true, width = 32, height = 32 })
    engine:setPreset(tycho.presets.forward({}))
    assert.is_false(tycho.stats.timePasses(true))
    assert.is_true(tycho.stats.timePasses(true), "returns what it was")
    for _ = 1, 5 do engine:step(1 / 60) end
    assert.same({}, tycho.stats.passTimes())
  end)
end)

describe("tycho.stats pass times through a window", function()
  local dir
  before_each(function()
    dir = os.tmpname()
    os.remove(dir)
    assert(os.execute("mkdir -p '" .. dir .. "'"))
  end)
  after_each(function() os.execute("rm -rf '" .. dir .. "'") end)

  -- Each frame's passes as "frame N name ms gpuMs" lines (nil where absent); timing goes
  -- off for the last two frames.
  local game = [[
    tycho.engine:setPreset(tycho.presets.forward({ sky = { kind = "color" }, taa = false }))
    tycho.stats.timePasses(true)
    local seen = 0
    tycho.engine:beforeFrame(function()
      seen = seen + 1
      for _, p in ipairs(tycho.stats.passTimes()) do
        print(("frame %d %s %s %s"):format(seen - 1, p.name, tostring(p.ms), tostring(p.gpuMs)))
      end
      if seen == 10 then tycho.stats.timePasses(false) end
      print(("open=%s"):format(tostring(tycho.window.isOpen())))
    end)
  ]]

  it("gives ms at once and gpuMs once a frame's queries are read, nil when off", function()
    local f = assert(io.open(dir .. "/main.lua", "w"))
    f:write(game)
    f:close()
    local cmd = ("SDL_VIDEODRIVER=offscreen %s run %s --frames 12 --width 160 --height 120"):format(
      testing.quote(tycho.executable), testing.quote(dir))
    local code, out = testing.shell(cmd)
    assert.equals(0, code, out)
    if out:find("open=false", 1, true) then return end -- no GL 4.5 here: headless, covered above
    local byFrame = {}
    for n, name, ms, gpu in out:gmatch("frame (%d+) (%S+) (%S+) (%S+)") do
      n = tonumber(n)
      byFrame[n] = byFrame[n] or {}
      table.insert(byFrame[n], { name = name, ms = tonumber(ms), gpu = tonumber(gpu) })
    end
    assert.truthy(byFrame[1] and #byFrame[1] > 0, out)
    for _, p in ipairs(byFrame[1]) do
      assert.truthy(p.ms and p.ms >= 0, out) -- CPU time from the first timed frame
      assert.is_nil(p.gpu, out) -- no earlier frame whose queries could be read
    end
    local gpuSeen = 0
    for n = 2, 9 do
      for _, p in ipairs(byFrame[n] or {}) do
        assert.truthy(p.ms and p.ms >= 0, out)
        if p.gpu then
          assert.truthy(p.gpu >= 0 and p.gpu < 10000, out)
          gpuSeen = gpuSeen + 1
        end
      end
    end
    assert.truthy(gpuSeen >= #byFrame[1], "a frame's GPU times arrive within a few frames\n" .. out)
    -- frame 9 ran before timing went off, frame 10 after: no times, no GPU times
    for _, p in ipairs(byFrame[10] or {}) do
      assert.is_nil(p.ms, out)
      assert.is_nil(p.gpu, out)
    end
    assert.truthy(byFrame[10] and #byFrame[10] > 0, out)
  end)
end)
