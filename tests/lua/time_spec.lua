-- tests/lua/time_spec.lua: scene.time under scene:update(dt) (engine/core/time.c through
-- bindings/lua_time.c), as ../shared/API.md "Time" and step 1 of "The tick" state.
-- Times are binary fractions so that sums are exact.

local Scene = tycho.Scene

describe("scene.time", function()
  local scene, time
  before_each(function()
    scene = Scene.new()
    time = scene.time
  end)

  it("starts at zero with scale 1", function()
    assert.same({ 1, 0, 0, 0, 0, 0, 0 }, { time.scale, time.delta, time.unscaledDelta, time.elapsed,
      time.unscaledElapsed, time.frameCount, time.fps })
    assert.equals("integer", math.type(time.frameCount))
  end)

  it("is one object per scene", function()
    assert(rawequal(scene.time, time), "scene.time must be the same value each read")
    assert(not rawequal(Scene.new().time, time), "each scene has its own clock")
  end)

  it("advances every field by dt on each update", function()
    scene:update(0.25)
    assert.same({ 0.25, 0.25, 0.25, 0.25, 1 },
      { time.delta, time.unscaledDelta, time.elapsed, time.unscaledElapsed, time.frameCount })
    scene:update(0.5)
    assert.same({ 0.5, 0.5, 0.75, 0.75, 2 },
      { time.delta, time.unscaledDelta, time.elapsed, time.unscaledElapsed, time.frameCount })
  end)

  it("scale 0 pauses delta and elapsed, not the unscaled clock nor frameCount", function()
    scene:update(0.25)
    time.scale = 0
    scene:update(0.5)
    assert.equals(0, time.delta)
    assert.equals(0.5, time.unscaledDelta)
    assert.equals(0.25, time.elapsed)
    assert.equals(0.75, time.unscaledElapsed)
    assert.equals(2, time.frameCount)
  end)

  it("scale 0.5 is slow motion", function()
    time.scale = 0.5
    scene:update(0.5)
    scene:update(0.25)
    assert.equals(0.125, time.delta)
    assert.equals(0.25, time.unscaledDelta)
    assert.equals(0.375, time.elapsed)
    assert.equals(0.75, time.unscaledElapsed)
  end)

  it("scale above 1 speeds up", function()
    time.scale = 2
    scene:update(0.25)
    assert.equals(0.5, time.delta)
    assert.equals(0.5, time.elapsed)
    assert.equals(0.25, time.unscaledElapsed)
  end)

  it("hooks see the clock of the tick they run in", function()
    local C = tycho.component("time_spec.Reader")
    local seen = {}
    function C:update(dt)
      seen[#seen + 1] = { dt, self.time.delta, self.time.elapsed, self.time.frameCount }
    end
    scene:add(tycho.GameObject.new("a")):addComponent(C)
    time.scale = 0.5
    scene:update(0.5)
    scene:update(0.5)
    assert.same({ { 0.25, 0.25, 0.25, 1 }, { 0.25, 0.25, 0.5, 2 } }, seen)
  end)

  it("fps becomes positive and tracks the update rate", function()
    scene:update(1 / 64)
    assert(time.fps > 0, "fps must be positive after the first frame, got " .. time.fps)
    for _ = 1, 64 do scene:update(1 / 64) end
    assert.near(64, time.fps, 0.5)
  end)

  it("fps counts unscaled time", function()
    time.scale = 0
    for _ = 1, 40 do scene:update(1 / 32) end
    assert.near(32, time.fps, 0.5)
  end)

  it("only scale can be set, and only to a number >= 0", function()
    time.scale = 0.75
    assert.equals(0.75, time.scale)
    assert.error_matches(function() time.scale = -1 end, ">= 0", nil, true)
    assert.error_matches(function() time.scale = 0 / 0 end, ">= 0", nil, true)
    assert.error_matches(function() time.scale = "fast" end, "number expected", nil, true)
    assert.error_matches(function() time.delta = 1 end, "read-only", nil, true)
    assert.error_matches(function() time.frameCount = 1 end, "read-only", nil, true)
    assert.equals(0.75, time.scale)
  end)

  it("scene:update checks its argument", function()
    assert.error_matches(function() scene:update("a") end, "bad argument #1 to 'update' (number expected, got string)", nil, true)
    assert.error_matches(function() scene:update() end, "bad argument #1 to 'update'", nil, true)
    assert.equals(0, time.frameCount, "a refused update does not tick")
  end)
end)
