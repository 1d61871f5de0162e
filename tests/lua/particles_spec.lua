-- tests/lua/particles_spec.lua: tycho.ParticleSystem's simulation (engine/particles)
-- headless: counts against rate * t, bursts, lifetimes, the cap, determinism under a seed,
-- motion under gravity, scaled time, and every kind of bad option.
local tycho = require("tycho")
local testing = require("tycho.testing")

local function system(opts, position)
  local scene = tycho.Scene.new()
  local go = scene:add(tycho.GameObject.new({ name = "emitter", position = position }))
  return go:addComponent(tycho.ParticleSystem.new(opts)), scene, go
end

local function positions(ps)
  local out = {}
  for i = 1, ps:getCount() do
    local x, y, z = ps.native:position(i)
    out[#out + 1] = ("%.6f %.6f %.6f"):format(x, y, z)
  end
  return out
end

describe("tycho.ParticleSystem", function()
  it("emits rate * t particles over t seconds of ticks", function()
    for _, rate in ipairs({ 7, 60, 250, 1000 }) do
      local ps, scene = system({ rate = rate, lifetime = 100, speed = 1, maxParticles = 5000, seed = 1 })
      for tick = 1, 90 do
        scene:update(1 / 60)
        local expect = math.floor(rate * tick / 60 + 1e-6)
        assert.is_true(math.abs(ps:getCount() - expect) <= 1, ("rate %d, tick %d: %d live, expected %d"):format(
          rate, tick, ps:getCount(), expect))
      end
      assert.equals(ps:getCount(), ps:getEmitted())
    end
  end)

  it("keeps rate * lifetime alive once particles start dying", function()
    local ps, scene = system({ rate = 200, lifetime = 0.5, seed = 2 })
    for _ = 1, 120 do scene:update(1 / 60) end
    assert.is_true(math.abs(ps:getCount() - 100) <= 4, tostring(ps:getCount()))
    assert.is_true(ps:getEmitted() >= 399)
  end)

  it("gives each particle a lifetime within its range", function()
    local ps, scene = system({ lifetime = { 0.5, 1 }, seed = 3 })
    ps:emit(1000)
    local alive = {}
    for tick = 1, 70 do
      scene:update(1 / 60)
      alive[tick] = ps:getCount()
    end
    assert.equals(1000, alive[29]) -- nothing dies before 0.5 s
    assert.is_true(alive[45] < 1000 and alive[45] > 0)
    assert.equals(0, alive[61]) -- everything is gone after 1 s
  end)

  it("bursts with emit(n), up to maxParticles", function()
    local ps = system({ maxParticles = 120, seed = 4 })
    assert.equals(50, ps:emit(50))
    assert.equals(50, ps:getCount())
    assert.equals(70, ps:emit(100))
    assert.equals(120, ps:getCount())
    assert.equals(0, ps:emit(1))
    ps:reset()
    assert.equals(0, ps:getCount())
  end)

  it("caps a system asked for 10 million particles, with a log line", function()
    local ps = system({ maxParticles = 10000000 })
    assert.equals(1000000, ps.native:maxParticles())
    local path = os.tmpname() .. ".lua"
    local f = assert(io.open(path, "w"))
    f:write('tycho.ParticleSystem.new({ maxParticles = 10000000 })\n')
    f:close()
    local code, log = testing.shell(("%s run %s --headless --frames 1"):format(testing.quote(tycho.executable), testing.quote(path)))
    os.remove(path)
    assert.equals(0, code, log)
    assert.truthy(log:find("particles_capped: a particle system asked for 10000000 particles: capped at 1000000", 1, true), log)
  end)

  it("repeats itself exactly under the same seed, and not under another", function()
    local opts = { rate = 300, lifetime = { 0.2, 2 }, speed = { 1, 4 }, spread = math.pi, gravity = { 0, -3, 0 }, radius = 0.5 }
    local function run(seed)
      local o = { seed = seed }
      for k, v in pairs(opts) do o[k] = v end
      local ps, scene, go = system(o)
      for tick = 1, 60 do
        go.position.x = tick * 0.05
        scene:update(1 / 60)
        if tick == 30 then ps:emit(40) end
      end
      return positions(ps)
    end
    local a, b, c = run(42), run(42), run(43)
    assert.is_true(#a > 100)
    assert.same(a, b)
    assert.are_not.same(a, c)
  end)

  it("moves particles under gravity from the emitter's world position", function()
    local ps, scene = system({ speed = 2, direction = { 1, 0, 0 }, gravity = { 0, -10, 0 }, lifetime = 5, seed = 5 },
      { x = 3, y = 1, z = -2 })
    ps:emit(1)
    local dt, n = 1 / 60, 60
    for _ = 1, n do scene:update(dt) end
    local x, y, z = ps.native:position(1)
    -- Semi-implicit Euler: velocity first, then position: y = -g dt^2 n(n+1)/2.
    assert.is_true(math.abs(x - (3 + 2 * dt * n)) < 1e-4, tostring(x))
    assert.is_true(math.abs(y - (1 - 10 * dt * dt * n * (n + 1) / 2)) < 1e-3, tostring(y))
    assert.is_true(math.abs(z + 2) < 1e-6, tostring(z))
  end)

  it("takes direction and gravity as {x, y, z}, {x=, y=, z=} or a Vec3", function()
    for _, v in ipairs({ { 1, 0, 0 }, { x = 1, y = 0, z = 0 }, tycho.vec3(1, 0, 0) }) do
      local ps = system({ direction = v, gravity = v, speed = 1, lifetime = 10, seed = 1 })
      ps:emit(1)
      ps:simulate(1)
      local x, y, z = ps.native:position(1)
      assert.is_true(math.abs(x - 2) < 1e-5 and y == 0 and z == 0, ("%g %g %g"):format(x, y, z))
    end
  end)

  it("keeps 2D directions in the XY plane within the spread", function()
    local ps = system({ dimensions = 2, speed = 1, spread = math.pi / 2, direction = { 0, 1, 0 }, lifetime = 10, seed = 6 })
    ps:emit(500)
    ps:simulate(1)
    assert.equals(500, ps:getCount())
    for i = 1, ps:getCount() do
      local x, y, z = ps.native:position(i)
      assert.equals(0, z)
      local angle = math.atan(x, y) -- from +Y
      assert.is_true(math.abs(angle) <= math.pi / 4 + 1e-5, tostring(angle))
    end
  end)

  it("keeps 3D directions within the cone", function()
    local ps = system({ speed = 1, spread = math.rad(60), direction = { 0, 0, -1 }, lifetime = 10, seed = 7 })
    ps:emit(500)
    ps:simulate(1)
    assert.equals(500, ps:getCount())
    local zs = 0
    for i = 1, ps:getCount() do
      local x, y, z = ps.native:position(i)
      local cos = -z / math.sqrt(x * x + y * y + z * z)
      assert.is_true(cos >= math.cos(math.rad(30)) - 1e-5, tostring(cos))
      zs = zs + math.abs(x) + math.abs(y)
    end
    assert.is_true(zs > 0, "the cone has width")
  end)

  it("freezes while the scene's time scale is 0", function()
    local ps, scene = system({ rate = 100, lifetime = 0.2, speed = 1, seed = 8 })
    for _ = 1, 30 do scene:update(1 / 60) end
    local before = positions(ps)
    scene.time.scale = 0
    for _ = 1, 30 do scene:update(1 / 60) end
    assert.same(before, positions(ps))
  end)

  it("stops the rate with emitting = false, and configure keeps the rest", function()
    local ps, scene = system({ rate = 120, lifetime = 10, seed = 9 })
    for _ = 1, 30 do scene:update(1 / 60) end
    ps:configure({ emitting = false })
    local n = ps:getCount()
    for _ = 1, 30 do scene:update(1 / 60) end
    assert.equals(n, ps:getCount())
    ps:configure({ emitting = true })
    for _ = 1, 30 do scene:update(1 / 60) end
    assert.is_true(math.abs(ps:getCount() - (n + 60)) <= 1)
  end)

  it("frees its particles when its object is destroyed", function()
    local ps, scene, go = system({ seed = 10 })
    ps:emit(10)
    go:destroy()
    scene:update(1 / 60)
    assert.has_error(function() ps:getCount() end, "this particle system was destroyed")
  end)

  it("raises on bad options, naming the option and what it accepts", function()
    local function err(opts)
      local ok, e = pcall(tycho.ParticleSystem.new, opts)
      assert.is_false(ok, "accepted a bad option")
      return e
    end
    local cases = {
      { { lifetime = -1 }, "option 'lifetime' must be a number > 0" },
      { { lifetime = 0 / 0 }, "option 'lifetime' must be a number > 0" },
      { { lifetime = { 2, 1 } }, "option 'lifetime' must be {min, max} with min <= max" },
      { { rate = -5 }, "option 'rate' must be a number >= 0" },
      { { rate = 0 / 0 }, "option 'rate' must be a number >= 0" },
      { { rate = "fast" }, "option 'rate' must be a number >= 0 (particles per second), got string" },
      { { blend = "multiply" }, "option 'blend' must be \"alpha\" or \"additive\", got multiply" },
      { { maxParticles = 1.5 }, "option 'maxParticles' must be a positive integer" },
      { { maxParticles = 0 }, "option 'maxParticles' must be a positive integer" },
      { { spread = -1 }, "option 'spread' must be a number >= 0" },
      { { dimensions = 4 }, "option 'dimensions' must be 2 or 3" },
      { { gravity = 9 }, "option 'gravity' must be {x, y, z}" },
      { { direction = { 1, "up", 0 } }, "option 'direction' must be {x, y, z} of finite numbers" },
      { { colors = {} }, "option 'colors' must list 1 to 8 values" },
      { { colors = { { 1, 1, 1 }, "red" } }, "option 'colors' must hold colours {r, g, b[, a]}" },
      { { sizes = { 1, 2, 3, 4, 5, 6, 7, 8, 9 } }, "option 'sizes' must list 1 to 8 values, got 9" },
      { { sizes = { 1, -2 } }, "option 'sizes' must be a list of numbers >= 0" },
      { { texture = "dot.png" }, "option 'texture' must be a Texture, got string" },
      { { seed = 1.5 }, "option 'seed' must be an integer" },
      { { emitting = 1 }, "option 'emitting' must be a boolean" },
      { { colour = { 1, 1, 1 } }, "unknown option 'colour' (the options are maxParticles, rate, lifetime" },
    }
    for _, case in ipairs(cases) do
      local e = err(case[1])
      assert.truthy(e:find("bad argument #1 to 'new' (ParticleSystem ", 1, true), e)
      assert.truthy(e:find(case[2], 1, true), ("%q does not say %q"):format(e, case[2]))
    end
    assert.has_error(function() tycho.ParticleSystem.new("fire") end, "bad argument #1 to 'new' (table expected, got string)")
    local ps = system({})
    local ok, e = pcall(ps.configure, ps, { rate = -1 })
    assert.is_false(ok)
    assert.truthy(e:find("bad argument #1 to 'configure' (ParticleSystem option 'rate'", 1, true), e)
    assert.has_error(function() ps:simulate("1") end, "bad argument #1 to 'simulate' (number expected, got string)")
    assert.has_error(function() ps:emit(-1) end)
    assert.has_error(function() ps:emit(1.5) end)
  end)

  it("is drawn by the Particles pass after the lit passes while enabled, and not otherwise", function()
    local Engine = require("tycho.engine")
    local engine = Engine.new({ headless = true, width = 64, height = 64 })
    engine:setPreset(tycho.presets.forward({ shadow = false }))
    local scene = engine.scene
    local go = scene:add(tycho.GameObject.new("emitter"))
    local ps = go:addComponent(tycho.ParticleSystem.new({ seed = 12 }))
    local other = scene:add(tycho.GameObject.new("other")):addComponent(tycho.ParticleSystem.new({ seed = 13 }))
    local function passNames()
      local dump = engine:frame().graph:dump()
      local names = {}
      for name in dump:gmatch("\n%s+%S+%s+(%S+)") do names[#names + 1] = name end
      return table.concat(names, " ")
    end
    assert.is_nil(passNames():find("Particles", 1, true), "no particle alive: no pass")
    ps:emit(30)
    other:emit(5)
    local names = passNames()
    assert.truthy(names:find("ForwardLit Particles Tonemap", 1, true), names)
    assert.equals(35, tycho._particles.drawn())
    other.enabled = false
    passNames()
    assert.equals(30, tycho._particles.drawn())
    go.enabled = false
    assert.is_nil(passNames():find("Particles", 1, true))
    go.enabled = true
    go:destroy()
    scene:update(1 / 60)
    assert.is_nil(passNames():find("Particles", 1, true))
  end)

  it("is in every preset, before post-processing", function()
    for _, name in ipairs({ "forward", "forwardPlus", "deferred" }) do
      local names = {}
      for _, f in ipairs(tycho.presets[name]({ taa = true }).features) do names[#names + 1] = f.name end
      local list = table.concat(names, " ")
      assert.truthy(list:find("Particles TAA", 1, true), name .. ": " .. list)
    end
  end)
end)
