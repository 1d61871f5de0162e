-- tests/lua/presets_spec.lua: tycho.presets (scripts/tycho/presets/): each preset's
-- ordered feature list per option, and the pass list a headless frame builds from it
-- (graph:dump), as ../shared/API.md "Engine and rendering" states.

local Engine = require("tycho.engine")
local presets = tycho.presets

local function names(list)
  local out = {}
  for i, f in ipairs(list) do out[i] = f.name end
  return out
end

local function featureNames(preset) return names(preset.features) end

-- The passes of a dump in declaration order: {name=, culled=}.
local function passes(dump)
  local out = {}
  for line in dump:gmatch("[^\n]+") do
    local pos, name = line:match("^%s+(%-%-)%s+(%S+)")
    if not pos then pos, name = line:match("^%s+(%d+)%s+(%S+)") end
    if pos then out[#out + 1] = { name = name, culled = pos == "--" } end
  end
  return out
end

-- Names of the passes that survived culling, in declaration order.
local function livePasses(frame)
  local out = {}
  for _, p in ipairs(passes(frame.graph:dump())) do
    if not p.culled then out[#out + 1] = p.name end
  end
  return out
end

local function indexOf(list, name)
  for i, v in ipairs(list) do
    if v == name then return i end
  end
  return nil
end

-- Renders one headless frame of a small scene with the preset.
local function frameWith(preset)
  local engine = Engine.new({ headless = true, width = 64, height = 64 })
  local errors = {}
  engine.onFeatureError = function(message) errors[#errors + 1] = message end
  local scene = engine.scene
  local box = scene:add(tycho.GameObject.new("box"))
  box.position = { 0, 0, -5 }
  local mr = box:addComponent(tycho.MeshRenderer, tycho.mesh.cube())
  local glass = scene:add(tycho.GameObject.new("glass"))
  glass.position = { 1, 0, -6 }
  local gr = glass:addComponent(tycho.MeshRenderer, tycho.mesh.sphere(), tycho.material({ transparent = true }))
  local sun = scene:add(tycho.GameObject.new("sun"))
  local light = sun:addComponent(tycho.DirectionalLight, { direction = { -1, -1, -1 } })
  engine:setPreset(preset)
  local frame = engine:frame()
  local live = livePasses(frame)
  -- Leave the world empty for the next frame built in this state.
  for _, c in ipairs({ mr, gr, light }) do c.gameObject:removeComponent(c) end
  return engine, frame, live, errors
end

describe("tycho.presets feature lists", function()
  it("forward: Shadow, Sky, ForwardLit, Particles, Tonemap by default", function()
    assert.same({ "Shadow", "Sky", "ForwardLit", "Particles", "Tonemap" }, featureNames(presets.forward()))
  end)

  it("forward: options add and remove features in their places", function()
    assert.same({ "Sky", "ForwardLit", "Particles", "TAA", "DoF", "Bloom", "Tonemap" },
      featureNames(presets.forward({ shadow = false, taa = true, dof = {}, bloom = { threshold = 2 } })))
    assert.same({ "Shadow", "ForwardLit", "Particles", "Tonemap" }, featureNames(presets.forward({ sky = { kind = "none" } })))
    local p = presets.forward({ exposure = 2, aces = false, shadow = { cascades = 2, size = 1024 } })
    local tonemap = p.features[#p.features]
    assert.equals(2, tonemap.options.exposure)
    assert.is_false(tonemap.options.aces)
    assert.equals(2, p.features[1].options.cascades)
  end)

  it("tonemap: \"auto\" unless asked (none under an orthographic camera), passed to Tonemap", function()
    local function mode(p) return p.features[#p.features].options.mode end
    assert.is_nil(mode(presets.forward()), "auto")
    assert.equals("none", mode(presets.forward({ tonemap = "none" })))
    assert.equals("aces", mode(presets.deferred({ tonemap = "aces" })))
    assert.equals("reinhard", mode(presets.forwardPlus({ tonemap = "reinhard" })))
    assert.error_matches(function() presets.forward({ tonemap = "filmic" }) end, "tonemap must be", nil, true)
    assert.truthy(tycho.features.Tonemap({ mode = "auto" }))
    assert.has_error(function() tycho.features.Tonemap({ mode = "agx" }) end)
  end)

  it("forwardPlus: ForwardPlus before ForwardLit{forwardPlus}", function()
    local p = presets.forwardPlus({ bloom = true })
    assert.same({ "Shadow", "Sky", "ForwardPlus", "ForwardLit", "Particles", "Bloom", "Tonemap" }, featureNames(p))
    assert.is_true(p.features[4].options.forwardPlus)
  end)

  it("deferred: ao = true means SSAO, as taa/dof/bloom = true mean their defaults", function()
    assert.same({ "Geometry", "AO", "DeferredLighting", "Sky", "PointSpotLight", "ForwardOverlay", "Particles", "Tonemap" },
      featureNames(presets.deferred({ shadow = false, ao = true })))
    assert.has_error(function() presets.deferred({ ao = "hbao" }) end)
  end)

  it("deferred: Geometry, AO?, DeferredLighting, Sky, PointSpotLight?, ForwardOverlay?, Particles, post, Tonemap", function()
    assert.same({ "Shadow", "Geometry", "DeferredLighting", "Sky", "PointSpotLight", "ForwardOverlay", "Particles", "Tonemap" },
      featureNames(presets.deferred()))
    assert.same({ "Geometry", "AO", "DeferredLighting", "Sky", "Particles", "TAA", "Tonemap" },
      featureNames(presets.deferred({ shadow = false, ao = "ssao", transparent = false, pointSpotLights = false,
        taa = true })))
    local plus = presets.deferred({ overlayLighting = "forward+" })
    assert.same({ "Shadow", "Geometry", "DeferredLighting", "Sky", "PointSpotLight", "ForwardPlus", "ForwardOverlay",
      "Particles", "Tonemap" }, featureNames(plus))
    assert.is_true(plus.features[7].options.forwardPlus)
  end)

  it("rejects bad options at the preset's call", function()
    assert.error_matches(function() presets.forward(3) end, "bad argument #1 to 'forward' (table expected, got number)", nil, true)
    assert.error_matches(function() presets.forward({ sky = { kind = "plasma" } }) end, "sky.kind must be", nil, true)
    assert.error_matches(function() presets.forwardPlus({ shadow = "soft" }) end, "shadow must be false or a table", nil, true)
    assert.error_matches(function() presets.deferred({ ao = "hbao" }) end, "ao must be", nil, true)
    assert.error_matches(function() presets.deferred({ overlayLighting = "clustered" }) end, "overlayLighting must be", nil, true)
    assert.error_matches(function() presets.forward({ exposure = "bright" }) end, "'exposure' must be a number", nil, true)
  end)

  it("setPreset installs the preset's features in order and replaces the previous ones", function()
    local engine = Engine.new({ headless = true })
    local a = engine:setPreset(presets.forward())
    assert.same(featureNames(a), names(engine:features()))
    engine:setPreset(presets.deferred())
    assert.same(featureNames(presets.deferred()), names(engine:features()))
    assert.equals("deferred", engine.preset.name)
  end)
end)

describe("tycho.presets pass lists", function()
  it("forward: passes in feature order, ending in Tonemap, none disabled", function()
    local engine, frame, live, errors = frameWith(presets.forward({ sky = { kind = "color" } }))
    assert.same({}, errors)
    assert.is_nil(engine.lastRenderError)
    assert.equals("Tonemap", live[#live])
    assert.is_truthy(frame.shadowMap, "Shadow made the shadow map")
    assert.equals(1, frame.buckets.opaque)
    assert.equals(1, frame.buckets.transparent)
  end)

  it("forwardPlus: light culling runs before the lit pass", function()
    local engine, _, live, errors = frameWith(presets.forwardPlus())
    assert.same({}, errors)
    assert.is_nil(engine.lastRenderError)
    assert.is_truthy(indexOf(live, "LightCulling"), "the compute pass survives")
    assert.equals("Tonemap", live[#live])
  end)

  it("deferred: Geometry, then lighting, the overlay, Tonemap last", function()
    local engine, frame, live, errors = frameWith(presets.deferred({ ao = "ssao" }))
    assert.same({}, errors)
    assert.is_nil(engine.lastRenderError)
    local g, ao, dl, ov = indexOf(live, "Geometry"), indexOf(live, "AO"), indexOf(live, "DeferredLighting"),
      indexOf(live, "ForwardOverlay")
    assert.is_truthy(g and ao and dl and ov, table.concat(live, ", "))
    assert.is_true(g < ao and ao < dl and dl < ov, table.concat(live, ", "))
    assert.equals("Tonemap", live[#live])
    assert.is_truthy(frame.gbuffer.albedo and frame.gbuffer.normal and frame.gbuffer.material)
  end)

  it("deferred without transparency or lights drops those passes", function()
    local _, _, live = frameWith(presets.deferred({ transparent = false, pointSpotLights = false }))
    assert.is_nil(indexOf(live, "ForwardOverlay"))
    assert.is_nil(indexOf(live, "PointSpotLight"))
    assert.is_truthy(indexOf(live, "DeferredLighting"))
  end)
end)
