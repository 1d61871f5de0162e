-- Runs examples/hello headless and checks its scene and render frame; then renders it
-- through SDL's offscreen driver and checks the screenshot.
local testing = require("tycho.testing")
local tycho = require("tycho")
local dir = testing.here() .. "/.."

local function byName(scene, name)
  for _, go in ipairs(scene.roots) do
    if go.name == name then return go end
  end
end

describe("examples/hello", function()
  it("builds a sphere on a plane, a sun and a camera", function()
    local engine = testing.runGame(dir, 3)
    local scene = engine.scene
    local ball, ground, sun = byName(scene, "ball"), byName(scene, "ground"), byName(scene, "sun")
    assert.truthy(ball and ground and sun)
    assert.truthy(ball:getComponent(tycho.MeshRenderer))
    assert.truthy(ground:getComponent(tycho.MeshRenderer))
    assert.truthy(sun:getComponent(tycho.DirectionalLight))
    assert.truthy(scene:findCamera())
    assert.is_true(ball.worldPosition.y > ground.worldPosition.y)
  end)

  it("uses the forward preset with a colour sky and buckets both meshes", function()
    local engine = testing.runGame(dir, 1)
    local names = {}
    for _, f in ipairs(engine:features()) do names[f.name] = true end
    assert.truthy(names.Shadow, "Shadow")
    assert.truthy(names.Sky, "Sky")
    assert.truthy(names.ForwardLit, "ForwardLit")
    assert.truthy(names.Tonemap, "Tonemap")
    -- Counts are of every item in this Lua state, so compare against the same scene with
    -- the ball switched off: exactly one opaque item and one shadow caster fewer.
    local frame = engine:frame()
    local opaque, transparent, shadow = frame.buckets.opaque, frame.buckets.transparent, frame.buckets.shadow
    assert.is_true(opaque >= 2, opaque)
    assert.equals(0, transparent)
    assert.is_true(shadow >= 2, shadow)
    byName(engine.scene, "ball").enabled = false
    frame = engine:frame()
    assert.equals(opaque - 1, frame.buckets.opaque)
    assert.equals(shadow - 1, frame.buckets.shadow)
  end)

  it("renders offscreen to a screenshot of the asked size that is not flat", function()
    local out = os.tmpname() .. ".png"
    local code, log = testing.shell(("SDL_VIDEODRIVER=offscreen %s run %s --frames 3 --screenshot %s --width 200 --height 150")
      :format(testing.quote(tycho.executable), testing.quote(dir), testing.quote(out)))
    assert.equals(0, code, log)
    local img = assert(tycho.image.load(out))
    os.remove(out)
    assert.equals(200, img.width)
    assert.equals(150, img.height)
    assert.equals(200 * 150 * 4, #img.pixels)
    -- Distinct colours over a coarse grid: sky, ground, lit and shadowed sphere.
    local seen, count = {}, 0
    for y = 0, 149, 5 do
      for x = 0, 199, 5 do
        local i = (y * 200 + x) * 4 + 1
        local r, g, b = img.pixels:byte(i, i + 2)
        local k = (r // 16) * 256 + (g // 16) * 16 + (b // 16)
        if not seen[k] then seen[k], count = true, count + 1 end
      end
    end
    assert.is_true(count >= 8, ("only %d distinct colours"):format(count))
    -- The sphere sits in the middle: its centre differs from the top-left sky.
    local function px(x, y)
      local i = (y * 200 + x) * 4 + 1
      return img.pixels:byte(i, i + 2)
    end
    local sr, sg, sb = px(2, 2)
    local cr, cg, cb = px(100, 75)
    assert.is_true(math.abs(sr - cr) + math.abs(sg - cg) + math.abs(sb - cb) > 40)
  end)

  it("switches presets with keys 1, 2 and 3, each adding what its caption says", function()
    local engine = testing.runGame(dir, 1)
    local function names()
      local set = {}
      for _, f in ipairs(engine:features()) do set[f.name] = true end
      return set
    end
    local function lightsOn()
      local on = 0
      for _, go in ipairs(engine.scene.roots) do
        if go:getComponent(tycho.PointLight) and go.enabled then on = on + 1 end
      end
      return on
    end
    local function press(key) -- one frame down, one up, as `tycho run` samples them
      tycho.input.beginFrame()
      tycho.input.inject({ type = "keydown", key = key })
      engine:step(1 / 60)
      tycho.input.beginFrame()
      tycho.input.inject({ type = "keyup", key = key })
      engine:step(1 / 60)
    end
    assert.is_nil(names().ForwardPlus)
    assert.equals(0, lightsOn())
    press("2")
    local set = names()
    assert.truthy(set.ForwardPlus and set.ForwardLit and set.UI, "forward+ with its tile pass and the caption")
    assert.equals(48, lightsOn())
    press("3")
    set = names()
    assert.truthy(set.Geometry and set.DeferredLighting and set.AO and set.Bloom, "deferred with SSAO and bloom")
    assert.is_nil(set.ForwardLit)
    press("1")
    set = names()
    assert.truthy(set.ForwardLit and not set.ForwardPlus and not set.Geometry)
    assert.equals(0, lightsOn())
  end)
end)
