-- tests/lua/tween_spec.lua: tycho.tween: values at t against the easing formulas, end
-- values and completion callbacks, cancel, delay, scaled time, a destroyed object, bad input.
local tycho = require("tycho")

local function near(a, b, eps) return math.abs(a - b) <= (eps or 1e-9) end

-- The curves written out as the references give them, independently of tween.lua.
local FORMULAS = {
  linear = function(t) return t end,
  quadIn = function(t) return t * t end,
  quadOut = function(t) return 1 - (1 - t) * (1 - t) end,
  quadInOut = function(t) return t < 0.5 and 2 * t * t or 1 - (-2 * t + 2) ^ 2 / 2 end,
  cubicIn = function(t) return t ^ 3 end,
  cubicOut = function(t) return 1 - (1 - t) ^ 3 end,
  cubicInOut = function(t) return t < 0.5 and 4 * t ^ 3 or 1 - (-2 * t + 2) ^ 3 / 2 end,
  quartOut = function(t) return 1 - (1 - t) ^ 4 end,
  quintIn = function(t) return t ^ 5 end,
  sineIn = function(t) return 1 - math.cos(t * math.pi / 2) end,
  sineOut = function(t) return math.sin(t * math.pi / 2) end,
  sineInOut = function(t) return -(math.cos(math.pi * t) - 1) / 2 end,
  expoOut = function(t) return t == 1 and 1 or 1 - 2 ^ (-10 * t) end,
  circIn = function(t) return 1 - math.sqrt(1 - t * t) end,
  backIn = function(t) return 2.70158 * t ^ 3 - 1.70158 * t * t end,
  backOut = function(t) return 1 + 2.70158 * (t - 1) ^ 3 + 1.70158 * (t - 1) ^ 2 end,
  elasticOut = function(t)
    if t == 0 or t == 1 then return t end
    return 2 ^ (-10 * t) * math.sin((t * 10 - 0.75) * (2 * math.pi / 3)) + 1
  end,
  bounceOut = function(t)
    local n, d = 7.5625, 2.75
    if t < 1 / d then return n * t * t
    elseif t < 2 / d then t = t - 1.5 / d return n * t * t + 0.75
    elseif t < 2.5 / d then t = t - 2.25 / d return n * t * t + 0.9375
    else t = t - 2.625 / d return n * t * t + 0.984375 end
  end,
}

describe("tycho.tween", function()
  local scene
  before_each(function() scene = tycho.Scene.new() end)

  it("follows each easing's formula at every tick", function()
    for name, f in pairs(FORMULAS) do
      local s = tycho.Scene.new()
      local target = { v = 10 }
      tycho.tween(target, 1, { v = 30 }, name, { scene = s })
      for tick = 1, 59 do
        s:update(1 / 60)
        local expect = 10 + 20 * f(tick / 60)
        assert.is_true(near(target.v, expect, 1e-6), ("%s at %d/60: %.9f, formula %.9f"):format(name, tick, target.v, expect))
      end
      s:update(1 / 60)
      assert.equals(30, target.v, name .. " ends exactly on its value")
    end
  end)

  it("is 0 at the start and 1 at the end for every named easing", function()
    for name, f in pairs(tycho.easing) do
      assert.is_true(near(f(0), 0, 1e-9), name)
      assert.is_true(near(f(1), 1, 1e-9), name)
    end
  end)

  it("moves a GameObject's position and several fields at once", function()
    local go = scene:add(tycho.GameObject.new("box"))
    tycho.tween(go.position, 0.5, { x = 4, y = -2 }, "linear", { scene = scene })
    for _ = 1, 15 do scene:update(1 / 60) end
    assert.is_true(near(go.position.x, 2, 1e-5))
    assert.is_true(near(go.position.y, -1, 1e-5))
    for _ = 1, 15 do scene:update(1 / 60) end
    assert.equals(4, go.position.x)
    assert.equals(-2, go.position.y)
  end)

  it("runs on the GameObject's scene when tweening the object itself", function()
    local go = scene:add(tycho.GameObject.new("box"))
    go.speed = 0
    tycho.tween(go, 0.1, { speed = 5 })
    for _ = 1, 6 do scene:update(1 / 60) end
    assert.equals(5, go.speed)
  end)

  it("calls its completion callbacks once, after the end values are written", function()
    local target, calls = { v = 0 }, {}
    local tw
    tw = tycho.tween(target, 0.1, { v = 1 }, "quadIn", {
      scene = scene,
      onComplete = function(t) calls[#calls + 1] = "opt:" .. target.v; assert.equals(tw, t) end,
    })
    tw:onComplete(function() calls[#calls + 1] = "chained" end)
    for _ = 1, 30 do scene:update(1 / 60) end
    assert.same({ "opt:1", "chained" }, calls)
    assert.is_true(tw.done)
    assert.is_false(tw.cancelled)
  end)

  it("stops where it is on cancel, without its callbacks", function()
    local target, completed = { v = 0 }, false
    local tw = tycho.tween(target, 1, { v = 60 }, "linear", { scene = scene, onComplete = function() completed = true end })
    for _ = 1, 20 do scene:update(1 / 60) end
    tw:cancel()
    local at = target.v
    assert.is_true(near(at, 20, 1e-6))
    for _ = 1, 60 do scene:update(1 / 60) end
    assert.equals(at, target.v)
    assert.is_false(completed)
    assert.is_true(tw.cancelled)
  end)

  it("waits out its delay, then starts from the value it finds", function()
    local target = { v = 0 }
    tycho.tween(target, 0.5, { v = 10 }, "linear", { scene = scene, delay = 0.25 })
    for _ = 1, 15 do scene:update(1 / 60) end
    assert.equals(0, target.v)
    target.v = 5 -- changed during the delay: the tween starts from here
    for _ = 1, 15 do scene:update(1 / 60) end
    assert.is_true(near(target.v, 5 + 5 * 0.5, 1e-6), tostring(target.v))
  end)

  it("pauses with the scene's time scale and slows with it", function()
    local target = { v = 0 }
    tycho.tween(target, 1, { v = 1 }, "linear", { scene = scene })
    scene.time.scale = 0
    for _ = 1, 30 do scene:update(1 / 60) end
    assert.equals(0, target.v)
    scene.time.scale = 0.5
    for _ = 1, 30 do scene:update(1 / 60) end
    assert.is_true(near(target.v, 0.25, 1e-6))
  end)

  it("stops quietly when its object is destroyed", function()
    local errors = {}
    scene.onError = function(message) errors[#errors + 1] = message end
    local go = scene:add(tycho.GameObject.new("doomed"))
    local mover = scene:add(tycho.GameObject.new("other"))
    go.glow = 0
    local onObject = tycho.tween(go, 1, { glow = 1 })
    local completed = false
    local onPosition = tycho.tween(go.position, 1, { x = 5 }, "linear", { scene = scene, onComplete = function() completed = true end })
    local other = tycho.tween(mover.position, 0.5, { x = 1 }, "linear", { scene = scene })
    scene:update(1 / 60)
    go:destroy()
    for _ = 1, 60 do scene:update(1 / 60) end
    assert.same({}, errors)
    assert.is_false(completed)
    assert.is_true(onPosition.done)
    assert.is_true(other.done)
    assert.equals(1, mover.position.x)
    assert.is_true(onObject.done)
    assert.is_false(onObject.cancelled)
  end)

  it("reports a tween's own error through scene.onError, once, and runs the others", function()
    local errors = {}
    scene.onError = function(message) errors[#errors + 1] = message end
    local refusing = setmetatable({}, {
      __index = function() return 0 end,
      __newindex = function() error("refusing target", 0) end,
    })
    local before, after = { v = 0 }, { v = 0 }
    tycho.tween(before, 0.5, { v = 1 }, "linear", { scene = scene })
    local bad = tycho.tween(refusing, 0.5, { v = 1 }, "linear", { scene = scene })
    tycho.tween(after, 0.5, { v = 1 }, "linear", { scene = scene })
    for _ = 1, 30 do scene:update(1 / 60) end
    assert.equals(1, #errors)
    assert.truthy(errors[1]:find("refusing target", 1, true), errors[1])
    assert.is_true(bad.done)
    assert.equals(1, before.v)
    assert.equals(1, after.v)
  end)

  it("rejects bad arguments, naming the easings when one is unknown", function()
    local t = { v = 0, name = "x" }
    local ok, err = pcall(tycho.tween, t, 1, { v = 1 }, "wobbly", { scene = scene })
    assert.is_false(ok)
    assert.truthy(err:find("unknown easing 'wobbly' (the easings are backIn,", 1, true), err)
    assert.truthy(err:find("quadOut", 1, true))
    assert.has_error(function() tycho.tween(t, -1, { v = 1 }, nil, { scene = scene }) end,
      "bad argument #2 to 'tween' (seconds must be a number >= 0, got -1)")
    assert.has_error(function() tycho.tween(t, 0 / 0, { v = 1 }, nil, { scene = scene }) end)
    assert.has_error(function() tycho.tween(t, 1, { v = "far" }, nil, { scene = scene }) end)
    assert.has_error(function() tycho.tween(t, 1, { name = 1 }, nil, { scene = scene }) end,
      "bad argument #3 to 'tween' (the target's 'name' is not a number (it is string))")
    assert.has_error(function() tycho.tween(42, 1, { v = 1 }) end)
    assert.has_error(function() tycho.tween(t, 1, { v = 1 }, nil, { scene = scene, delay = -1 }) end)
  end)
end)
