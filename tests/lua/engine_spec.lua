-- tests/lua/engine_spec.lua: tycho.engine's render side (scripts/tycho/engine.lua):
-- features and their stages, contained feature errors, Lua passes on the frame's graph,
-- when a frame renders at all, the overlay toggle and screenshots, headless.

local Engine = require("tycho.engine")
local R = tycho._render

local function newEngine()
  local engine = Engine.new({ headless = true, width = 32, height = 32 })
  engine.reports = {}
  engine.onFeatureError = function(message, feature) engine.reports[#engine.reports + 1] = { message, feature } end
  return engine
end

-- A Lua feature that records every call into log as "name.stage".
local function recorder(name, log)
  local f = { name = name }
  for _, stage in ipairs({ "setup", "earlyUpdate", "update", "addPasses", "destroy" }) do
    f[stage] = function(self, arg)
      log[#log + 1] = name .. "." .. stage
      if stage == "setup" then self.engine = arg end
    end
  end
  return f
end

local function passNames(frame)
  local out = {}
  for line in frame.graph:dump():gmatch("[^\n]+") do
    local pos, name = line:match("^%s+([%d%-]+)%s+(%S+)%s+%a+")
    if pos and (pos == "--" or tonumber(pos)) then out[#out + 1] = name .. (pos == "--" and " (culled)" or "") end
  end
  return out
end

describe("tycho.engine features", function()
  it("runs setup once, then each stage over every feature in order, destroy on removal", function()
    local engine, log = newEngine(), {}
    local a, b = recorder("A", log), recorder("B", log)
    assert.equals(a, engine:addFeature(a))
    engine:addFeature(b)
    engine:addFeature(a) -- already there: no second setup
    assert.equals(engine, a.engine)
    assert.is_true(a.enabled, "enabled defaults to true")
    engine:frame()
    assert.same({ "A.setup", "B.setup", "A.earlyUpdate", "B.earlyUpdate", "A.update", "B.update", "A.addPasses",
      "B.addPasses" }, log)
    assert.is_true(engine:removeFeature(a))
    assert.is_false(engine:removeFeature(a))
    assert.equals("A.destroy", log[#log])
    assert.same({ b }, engine:features())
  end)

  it("skips disabled features and places features before or after others", function()
    local engine, log = newEngine(), {}
    local a, b, c = recorder("A", log), recorder("B", log), recorder("C", log)
    engine:addFeature(a)
    engine:addFeature(c)
    engine:addFeature(b, { before = "C" })
    local d = engine:addFeature(recorder("D", log), { after = a })
    assert.same({ a, d, b, c }, engine:features())
    b.enabled = false
    for i = #log, 1, -1 do log[i] = nil end
    engine:frame()
    for _, entry in ipairs(log) do assert.is_nil(entry:match("^B%."), entry) end
    assert.error_matches(function() engine:addFeature(recorder("E", log), { before = "Nope" }) end, "no feature Nope", nil, true)
    assert.error_matches(function() engine:addFeature("Sky") end, "bad argument #1 to 'addFeature'", nil, true)
  end)

  it("a failing feature is reported once with a traceback and disabled; the game goes on", function()
    local engine, log = newEngine(), {}
    local bad = { name = "Bad", update = function() error("exploded") end }
    engine:addFeature(bad)
    engine:addFeature(recorder("Good", log))
    local ticks = 0
    engine.scene:addSystem("gameLogic", function() ticks = ticks + 1 end)
    for _ = 1, 3 do engine:step(1 / 60) end
    engine:frame()
    assert.equals(1, #engine.reports, "reported once")
    local message, feature = engine.reports[1][1], engine.reports[1][2]
    assert.equals(bad, feature)
    assert.matches("feature 'Bad' failed in update", message)
    assert.matches("exploded", message)
    assert.matches("stack traceback", message)
    assert.is_false(bad.enabled)
    assert.matches("exploded", bad.error)
    assert.equals(3, ticks, "the game kept ticking")
    local updates = 0
    for _, entry in ipairs(log) do
      if entry == "Good.update" then updates = updates + 1 end
    end
    assert.is_true(updates >= 1, "the other feature kept running")
  end)

  it("errors in setup and addPasses are contained the same way", function()
    local engine = newEngine()
    local f = engine:addFeature({ name = "BadSetup", setup = function() error("no setup") end })
    assert.is_false(f.enabled)
    local g = engine:addFeature({ name = "BadPasses", addPasses = function(_, frame) frame.graph:fullscreen({}) end })
    engine:frame()
    assert.is_false(g.enabled)
    assert.equals(2, #engine.reports)
  end)
end)

describe("frame.graph from Lua", function()
  it("a Lua feature adds a fullscreen pass reading frame.hdr and a pass of its own", function()
    local engine = newEngine()
    local seen = {}
    engine:addFeature({
      name = "Clear",
      addPasses = function(_, frame)
        frame.graph:addPass({ name = "ClearHdr", writes = { frame.hdr } })
      end,
    })
    engine:addFeature({
      name = "Invert",
      addPasses = function(_, frame)
        local out = frame.graph:transient("inverted", { format = "rgba16f", scale = 0.5 })
        seen.size = { out.width, out.height }
        seen.format = out.format
        local written = frame.graph:fullscreen({
          name = "Invert",
          shader = "#version 450\nuniform sampler2D src;\nlayout(location = 0) out vec4 color;\n"
            .. "void main() { color = vec4(1.0) - texelFetch(src, ivec2(gl_FragCoord.xy), 0); }\n",
          reads = { src = frame.hdr },
          write = out,
          params = { 1, 0, 0, 1 },
        })
        assert(written ~= nil, "fullscreen returns what it wrote")
        frame.graph:addPass({ name = "Show", reads = { "inverted" }, sideEffect = true, execute = function() end })
        frame.graph:addPass({ name = "Nobody", reads = { frame.hdr }, writes = { frame.graph:transient("junk") } })
        seen.found = frame.graph:find("inverted") ~= nil
        seen.missing = frame.graph:find("nothing")
      end,
    })
    local frame = engine:frame()
    assert.same({}, engine.reports)
    assert.is_nil(engine.lastRenderError)
    assert.same({ "ClearHdr", "Invert", "Show", "Nobody (culled)" }, passNames(frame))
    assert.same({ 16, 16 }, seen.size)
    assert.equals("RGBA16F", seen.format)
    assert.is_true(seen.found)
    assert.is_nil(seen.missing)
  end)

  it("a pass reading what nobody wrote fails the graph with a message naming both", function()
    local engine = newEngine()
    engine:addFeature({
      name = "Reader",
      addPasses = function(_, frame)
        local t = frame.graph:transient("never")
        frame.graph:addPass({ name = "Reads", reads = { t }, sideEffect = true })
      end,
    })
    engine:frame()
    assert.is_string(engine.lastRenderError)
    assert.matches("Reads", engine.lastRenderError)
    assert.matches("never", engine.lastRenderError)
  end)

  it("graph and resource handles kept past their frame raise instead of misleading", function()
    local engine = newEngine()
    local kept = {}
    engine:addFeature({
      name = "Keeper",
      addPasses = function(_, frame)
        if not kept.graph then kept.graph, kept.hdr = frame.graph, frame.hdr end
      end,
    })
    engine:frame()
    assert.error_matches(function() kept.graph:transient("late") end, "while the frame is being built", nil, true)
    engine:frame()
    assert.error_matches(function() kept.graph:dump() end, "earlier frame", nil, true)
    local frame = engine:frame()
    assert.has_error(function() frame.graph:fullscreen({ shader = "x.glsl", write = kept.hdr }) end)
  end)
end)

describe("tycho.engine frames", function()
  it("headless with no preset and no feature renders nothing", function()
    local engine = newEngine()
    local begun = 0
    local begin = R.beginFrame
    R.beginFrame = function(...)
      begun = begun + 1
      return begin(...)
    end
    local ok, err = pcall(function()
      engine:step(1 / 60)
      engine:setPreset(tycho.presets.forward())
      engine:step(1 / 60)
    end)
    R.beginFrame = begin
    assert(ok, err)
    assert.equals(1, begun, "only the frame after setPreset rendered")
  end)

  it("no camera: a default one, no crash; frame fields are there", function()
    local engine = newEngine()
    engine:addFeature({ name = "Nop" })
    local frame = engine:frame()
    assert.is_nil(frame.camera)
    assert.equals(32, frame.width)
    assert.equals(32, frame.height)
    assert.is_truthy(frame.hdr)
    assert.is_truthy(frame.depth)
    assert.is_table(frame.gbuffer)
    assert.is_number(frame.buckets.opaque)
    assert.equals(engine.scene.time.elapsed, frame.time)
  end)

  it("puts the debug overlay in the corner the game names, and refuses an unknown one", function()
    local engine = newEngine()
    engine:setPreset(tycho.presets.forward({}))
    engine.debugOverlay = true
    engine.debugOverlayCorner = "top-left"
    local frame = engine:frame()
    assert.truthy(frame.graph:dump():find("Overlay", 1, true))
    assert.equals("top-left", engine._overlay._corner)
    assert.has_error(function() tycho.features.DebugOverlay({ corner = "middle" }) end)
    for _, corner in ipairs({ "bottom-right", "bottom-left", "top-right", "top-left" }) do
      assert.truthy(tycho.features.DebugOverlay({ corner = corner }))
    end
    assert.same({}, tycho.stats.passTimes()) -- headless: no pass runs
  end)

  it("F3 toggles the debug overlay", function()
    local engine = newEngine()
    assert.is_false(engine.debugOverlay)
    tycho.input.inject({ type = "keydown", key = "F3" })
    engine:step(1 / 60)
    assert.is_true(engine.debugOverlay)
    tycho.input.beginFrame()
    engine:step(1 / 60)
    assert.is_true(engine.debugOverlay, "held, not pressed again")
    tycho.input.inject({ type = "keyup", key = "F3" })
    tycho.input.beginFrame()
    tycho.input.inject({ type = "keydown", key = "F3" })
    engine:step(1 / 60)
    assert.is_false(engine.debugOverlay)
    tycho.input.inject({ type = "keyup", key = "F3" })
    tycho.input.beginFrame()
  end)

  it("screenshot headless returns nil and a message", function()
    local engine = newEngine()
    local ok, message = engine:screenshot("/tmp/never.png")
    assert.is_nil(ok)
    assert.equals("no window", message)
    assert.error_matches(function() engine:screenshot(42) end, "bad argument #1 to 'screenshot'", nil, true)
  end)

  it("step keeps the frame time for the overlay", function()
    local engine = newEngine()
    engine:step(0.02)
    assert.equals(0.02, engine.frameTime)
    assert.equals(1, engine.frameCount)
  end)
end)
