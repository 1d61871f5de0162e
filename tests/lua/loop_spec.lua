-- tests/lua/loop_spec.lua: tycho.Loop, the fixed-step driver (bindings/lua_loop.c over
-- engine/core/time.c), as ../shared/API.md "Fixed-step loop" states.
-- Timesteps are binary fractions so the accumulator arithmetic is exact.

local Scene, Loop = tycho.Scene, tycho.Loop

-- A scene with one component recording the dt and clock of each tick.
local Ticker = tycho.component("loop_spec.Ticker")
function Ticker:update(dt)
  local t = self.time
  self.ticks[#self.ticks + 1] = { dt = dt, delta = t.delta, elapsed = t.elapsed, frame = t.frameCount }
end

local function setup(opts)
  local scene = Scene.new()
  local ticker = scene:add(tycho.GameObject.new("ticker")):addComponent(Ticker)
  ticker.ticks = {}
  local renders = {}
  opts = opts or {}
  opts.scene = scene
  if opts.render == nil then opts.render = function(alpha) renders[#renders + 1] = alpha end end
  return Loop.new(opts), scene, ticker.ticks, renders
end

describe("tycho.Loop", function()
  describe("new", function()
    it("defaults to 1/60 and 8 sub-steps, not paused", function()
      local loop = Loop.new { scene = Scene.new() }
      assert.equals(1 / 60, loop.fixedTimestep)
      assert.equals(8, loop.maxSubSteps)
      assert.equals(false, loop.paused)
    end)

    it("takes its options", function()
      local scene = Scene.new()
      local loop = Loop.new { scene = scene, fixedTimestep = 0.25, maxSubSteps = 3 }
      assert.equals(0.25, loop.fixedTimestep)
      assert.equals(3, loop.maxSubSteps)
      assert(rawequal(loop.scene, scene), "loop.scene")
    end)

    it("runs without a render function", function()
      local loop = Loop.new { scene = Scene.new(), fixedTimestep = 0.25 }
      local steps, alpha = loop:advance(0.5)
      assert.same({ 2, 0 }, { steps, alpha })
    end)

    it("checks its options", function()
      assert.error_matches(function() Loop.new() end, "bad argument #1 to 'new'", nil, true)
      assert.error_matches(function() Loop.new {} end, "bad argument #1 to 'new'", nil, true)
      assert.error_matches(function() Loop.new { scene = 5 } end, "bad argument #1 to 'new'", nil, true)
      assert.error_matches(function() Loop.new { scene = Scene.new(), fixedTimestep = 0 } end, "fixedTimestep", nil, true)
      assert.error_matches(function() Loop.new { scene = Scene.new(), fixedTimestep = "x" } end, "fixedTimestep", nil, true)
      assert.error_matches(function() Loop.new { scene = Scene.new(), maxSubSteps = 0 } end, "maxSubSteps", nil, true)
      assert.error_matches(function() Loop.new { scene = Scene.new(), render = 5 } end, "render", nil, true)
    end)
  end)

  describe("advance", function()
    it("runs floor(accumulated / fixedTimestep) ticks and keeps the remainder", function()
      local loop, _, ticks, renders = setup { fixedTimestep = 0.25 }
      local steps, alpha = loop:advance(0.625)
      assert.same({ 2, 0.5 }, { steps, alpha })
      assert.equals(2, #ticks)
      steps, alpha = loop:advance(0.125)
      assert.same({ 1, 0 }, { steps, alpha }, "0.125 + 0.125 left over make one tick")
      steps, alpha = loop:advance(0.0625)
      assert.same({ 0, 0.25 }, { steps, alpha })
      assert.equals(3, #ticks)
      assert.same({ 0.5, 0, 0.25 }, renders)
    end)

    it("runs a tick when the accumulator reaches fixedTimestep exactly", function()
      local loop = setup { fixedTimestep = 0.25 }
      assert.same({ 1, 0 }, { loop:advance(0.25) })
    end)

    it("gives each tick delta == fixedTimestep, whatever rawDt is", function()
      local loop, _, ticks = setup { fixedTimestep = 0.25 }
      loop:advance(0.75)
      assert.equals(3, #ticks)
      for i, t in ipairs(ticks) do
        assert.equals(0.25, t.dt, "hook dt of tick " .. i)
        assert.equals(0.25, t.delta, "time.delta of tick " .. i)
        assert.equals(0.25 * i, t.elapsed, "elapsed grows per tick")
        assert.equals(i, t.frame, "frameCount grows per tick")
      end
    end)

    it("clamps rawDt to fixedTimestep * maxSubSteps before adding it", function()
      local loop, _, ticks = setup { fixedTimestep = 0.25, maxSubSteps = 4 }
      local steps, alpha = loop:advance(10)
      assert.same({ 4, 0 }, { steps, alpha }, "10 s clamps to 1 s: four ticks, nothing left over")
      steps, alpha = loop:advance(0.125)
      assert.same({ 0, 0.5 }, { steps, alpha }, "no backlog from the clamped time")
      assert.equals(4, #ticks)
    end)

    it("runs at most maxSubSteps ticks; the rest stays in the accumulator", function()
      local loop, scene = setup { fixedTimestep = 0.25, maxSubSteps = 2 }
      scene.time.scale = 2 -- 0.5 s clamps to 0.5 and scales to 1 s: four ticks' worth
      local steps, alpha = loop:advance(0.5)
      assert.equals(2, steps)
      assert.equals(2, alpha, "two ticks' worth wait: alpha = 0.5 / 0.25")
      scene.time.scale = 0
      steps, alpha = loop:advance(0.5)
      assert.same({ 2, 0 }, { steps, alpha }, "the backlog drains on the next advance")
    end)

    it("keeps alpha in [0, 1) under a steady rate", function()
      local loop = setup { fixedTimestep = 1 / 60, maxSubSteps = 8 }
      for i = 1, 200 do
        local _, alpha = loop:advance(i % 3 == 0 and 1 / 30 or 1 / 144)
        assert(alpha >= 0 and alpha < 1, "alpha out of [0, 1): " .. alpha)
      end
    end)

    it("scales the accumulator by time.scale", function()
      local loop, scene, ticks = setup { fixedTimestep = 0.25 }
      scene.time.scale = 0.5
      assert.same({ 1, 0 }, { loop:advance(0.5) })
      assert.same({ 0, 0.5 }, { loop:advance(0.25) })
      scene.time.scale = 0
      assert.same({ 0, 0.5 }, { loop:advance(1) }, "scale 0 adds nothing")
      assert.equals(1, #ticks)
      assert.equals(0.25, ticks[1].dt, "the tick still has delta == fixedTimestep")
    end)

    it("advances the unscaled clock once per advance, by the raw (unclamped) dt", function()
      local loop, scene = setup { fixedTimestep = 0.25, maxSubSteps = 2 }
      local time = scene.time
      loop:advance(0.125)
      assert.same({ 0.125, 0.125, 0, 0 }, { time.unscaledDelta, time.unscaledElapsed, time.elapsed, time.frameCount })
      loop:advance(2)
      assert.equals(2, time.unscaledDelta)
      assert.equals(2.125, time.unscaledElapsed)
      assert.equals(0.5, time.elapsed, "two ticks of 0.25")
      assert.equals(2, time.frameCount)
      assert.equals(0.25, time.delta)
    end)

    it("calls render(alpha) exactly once per advance, after the ticks", function()
      local order = {}
      local scene = Scene.new()
      scene:addSystem("gameLogic", function() order[#order + 1] = "tick" end)
      local loop = Loop.new {
        scene = scene, fixedTimestep = 0.25, render = function(alpha) order[#order + 1] = "render " .. alpha end,
      }
      loop:advance(0.5)
      loop:advance(0)
      loop:advance(0.375)
      assert.same({ "tick", "tick", "render 0.0", "render 0.0", "tick", "render 0.5" }, order)
    end)

    it("checks its argument", function()
      local loop = setup()
      assert.error_matches(function() loop:advance("x") end, "bad argument #1 to 'advance'", nil, true)
      assert.error_matches(function() loop:advance(-1) end, "bad argument #1 to 'advance'", nil, true)
    end)

    it("cannot run from inside its scene's tick", function()
      local loop, scene = setup { fixedTimestep = 0.25 }
      local errors = {}
      scene.onError = function(message) errors[#errors + 1] = message end
      scene:addSystem("input", function() loop:advance(0.25) end)
      loop:advance(0.25)
      assert.equals(1, #errors)
      assert(errors[1]:find("inside its scene's tick", 1, true), errors[1])
    end)
  end)

  describe("pause, resume, step", function()
    it("pause stops ticks but render still runs; resume continues", function()
      local loop, _, ticks, renders = setup { fixedTimestep = 0.25 }
      loop:pause()
      assert.equals(true, loop.paused)
      local steps = loop:advance(1)
      assert.equals(0, steps)
      assert.equals(0, #ticks)
      assert.equals(1, #renders)
      loop:resume()
      assert.equals(false, loop.paused)
      assert.same({ 2, 0 }, { loop:advance(0.5) }, "time spent paused is not caught up")
      assert.equals(2, #ticks)
    end)

    it("while paused the unscaled clock still counts frames' raw time", function()
      local loop, scene = setup { fixedTimestep = 0.25 }
      loop:pause()
      loop:advance(0.5)
      assert.equals(0.5, scene.time.unscaledElapsed)
      assert.equals(0, scene.time.elapsed)
      assert.equals(0, scene.time.frameCount)
    end)

    it("step runs exactly one tick, also while paused, and does not render", function()
      local loop, scene, ticks, renders = setup { fixedTimestep = 0.25 }
      loop:step()
      assert.equals(1, #ticks)
      loop:pause()
      loop:step()
      loop:step()
      assert.equals(3, #ticks)
      assert.equals(0.25, ticks[3].dt)
      assert.equals(0.75, scene.time.elapsed)
      assert.equals(3, scene.time.frameCount)
      assert.equals(0, #renders)
      assert.equals(true, loop.paused, "step does not resume")
    end)

    it("step leaves the accumulator alone", function()
      local loop = setup { fixedTimestep = 0.25 }
      loop:advance(0.125)
      loop:step()
      assert.same({ 1, 0 }, { loop:advance(0.125) })
    end)
  end)

  it("drives destroy and spawn deferral like scene:update", function()
    local loop, scene = setup { fixedTimestep = 0.25 }
    local go = scene:add(tycho.GameObject.new("victim"))
    local id = go.id
    go:destroy()
    loop:advance(0.25)
    assert.is_nil(scene:findById(id))
  end)
end)
