-- tests/lua/render_spec.lua: meshes, materials, textures and the built-in render
-- components (bindings/lua_render*.c, scripts/tycho/render.lua), headless: what a frame
-- buckets, as ../shared/API.md "Engine and rendering" states.

local GameObject = tycho.GameObject
local Engine = require("tycho.engine")

-- A fresh engine and a frame's bucket counts: the default camera sits at the origin
-- looking down -Z, so objects at z = -5 are in view.
local function newEngine() return Engine.new({ headless = true, width = 64, height = 64 }) end

local function counts(engine)
  local b = engine:frame().buckets
  return { opaque = b.opaque, transparent = b.transparent, shadow = b.shadow }
end

local function spawnAt(scene, name, z)
  local go = scene:add(GameObject.new(name))
  go.position = { 0, 0, z or -5 }
  return go
end

local function tmpFile(contents, ext)
  local path = os.tmpname() .. ext
  local f = assert(io.open(path, "wb"))
  f:write(contents)
  f:close()
  return path
end

describe("tycho.mesh", function()
  it("builds the built-in shapes with their vertex and index counts", function()
    local cube = tycho.mesh.cube()
    assert.equals(24, cube.vertexCount)
    assert.equals(36, cube.indexCount)
    local quad = tycho.mesh.quad()
    assert.equals(4, quad.vertexCount)
    assert.equals(6, quad.indexCount)
    local sphere = tycho.mesh.sphere(8, 4)
    assert.is_true(sphere.vertexCount >= 8 * 3)
    assert.equals(0, sphere.indexCount % 3)
    assert.is_true(tycho.mesh.plane(4).indexCount > tycho.mesh.plane().indexCount)
  end)

  it("shares one mesh per shape and parameters", function()
    assert.equals(tycho.mesh.cube(), tycho.mesh.cube())
    assert.equals(tycho.mesh.sphere(8, 4), tycho.mesh.sphere(8, 4))
    assert.are_not.equal(tycho.mesh.sphere(8, 4), tycho.mesh.sphere(9, 4))
  end)

  it("rejects bad shape arguments", function()
    assert.error_matches(function() tycho.mesh.sphere(2) end, "bad argument #1 to 'sphere' (segments must be in 3..1024)", nil, true)
    assert.error_matches(function() tycho.mesh.plane("x") end, "bad argument #1 to 'plane'", nil, true)
  end)

  it("loads an OBJ file", function()
    local path = tmpFile("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", ".obj")
    local mesh, ok = tycho.mesh.load(path)
    os.remove(path)
    assert.is_nil(ok)
    assert.equals(3, mesh.indexCount)
  end)

  it("resolves a relative path against the game folder (package.path)", function()
    local path = tmpFile("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1 2 3\nf 2 4 3\n", ".obj")
    local dir, name = path:match("^(.*)/([^/]*)$")
    local saved = package.path
    package.path = dir .. "/?.lua;" .. saved
    local mesh, ok = tycho.mesh.load(name)
    package.path = saved
    os.remove(path)
    assert.is_nil(ok)
    assert.equals(6, mesh.indexCount)
  end)

  it("gives the placeholder, false and a message for a missing or bad file", function()
    local mesh, ok, message = tycho.mesh.load("no/such/mesh.obj")
    assert.equals(0, mesh.id, "the placeholder mesh")
    assert.equals(24, mesh.vertexCount, "the placeholder is a cube")
    assert.is_false(ok)
    assert.matches("mesh.obj", message, 1, true)
    local bad = tmpFile("f 1 2 9\n", ".obj")
    local m2, ok2, message2 = tycho.mesh.load(bad)
    os.remove(bad)
    assert.equals(0, m2.id)
    assert.is_false(ok2)
    assert.is_string(message2)
  end)
end)

describe("tycho.texture", function()
  it("gives the placeholder, false and a message for a missing file", function()
    local tex, ok, message = tycho.texture.load("no/such/texture.png")
    assert.is_false(ok)
    assert.matches("texture.png", message, 1, true)
    assert.is_true(tex.width > 0 and tex.height > 0, "the placeholder is a real texture")
  end)

  it("makes a texture from pixels", function()
    local tex = tycho.texture.new(2, 3, string.rep("\255\0\0\255", 6))
    assert.equals(2, tex.width)
    assert.equals(3, tex.height)
    assert.has_error(function() tycho.texture.new(2, 2, "short") end)
  end)
end)

describe("tycho.color", function()
  it("converts sRGB to linear and back, tables and numbers, alpha unchanged", function()
    local c = tycho.color.toLinear({ 0.5, 1, 0, 0.25 })
    assert.near(0.214041, c[1], 1e-6)
    assert.equals(1, c[2])
    assert.equals(0, c[3])
    assert.equals(0.25, c[4])
    local r, g, b, a = tycho.color.toLinear(0.02, 0.04045, 0.5)
    assert.near(0.02 / 12.92, r, 1e-9)
    assert.near(0.04045 / 12.92, g, 1e-9)
    assert.near(0.214041, b, 1e-6)
    assert.is_nil(a)
    local back = tycho.color.toSrgb(tycho.color.toLinear({ 0.1, 0.27, 0.9 }))
    assert.near(0.1, back[1], 1e-6)
    assert.near(0.27, back[2], 1e-6)
    assert.near(0.9, back[3], 1e-6)
    assert.equals(1, back[4], "alpha defaults to 1")
    assert.has_error(function() tycho.color.toLinear("red") end)
    assert.has_error(function() tycho.color.toSrgb(1, nil, 0) end)
  end)
end)

describe("tycho.material", function()
  it("starts from the defaults", function()
    local m = tycho.material()
    local c = m.baseColor
    assert.same({ 1, 1, 1, 1 }, { c[1], c[2], c[3], c[4] })
    assert.equals(0, m.metallic)
    assert.equals(0.5, m.roughness)
    assert.is_false(m.transparent)
    assert.is_nil(m.texture)
    assert.equals("repeat", m.wrap, "a mesh's texture tiles")
  end)

  it("wraps by repeating or clamping, and refuses anything else", function()
    local m = tycho.material({ wrap = "clamp" })
    assert.equals("clamp", m.wrap)
    m.wrap = "repeat"
    assert.equals("repeat", m.wrap)
    assert.error_matches(function() m.wrap = "mirror" end, 'Material.wrap must be "repeat" or "clamp", got mirror', nil, true)
    assert.has_error(function() tycho.material({ wrap = true }) end)
  end)

  it("reads back what it was made with and what is written", function()
    local tex = tycho.texture.new(1, 1)
    local m = tycho.material({ baseColor = { 1, 0, 0 }, metallic = 1, roughness = 0.25, texture = tex, unlit = true })
    assert.equals(1, m.baseColor.r)
    assert.equals(0, m.baseColor.g)
    assert.equals(1, m.baseColor.a, "alpha defaults to 1")
    assert.equals(1, m.metallic)
    assert.equals(0.25, m.roughness)
    assert.equals(tex, m.texture)
    assert.is_true(m.unlit)
    m.baseColor = tycho.vec3(0, 0.5, 1)
    assert.equals(0.5, m.baseColor.g)
    m.baseColor = { r = 0.25, g = 0.5, b = 0.75, a = 0.5 }
    assert.equals(0.5, m.baseColor[4])
    m.transparent = true
    assert.is_true(m.transparent)
    m.texture = nil
    assert.is_nil(m.texture)
    m.emissive = { 2, 0, 0 }
    assert.equals(2, m.emissive.r)
  end)

  it("raises on unknown fields and bad values", function()
    assert.error_matches(function() tycho.material({ colour = { 1, 0, 0 } }) end,
      "bad argument #1 to '[%w.]*material' %(unknown material field 'colour'%)")
    assert.error_matches(function() tycho.material(5) end, "bad argument #1 to '[%w.]*material' %(table expected")
    local m = tycho.material()
    assert.error_matches(function() m.shininess = 3 end, "Material has no field 'shininess'", nil, true)
    assert.has_error(function() m.metallic = "very" end)
    assert.has_error(function() m.baseColor = "red" end)
  end)
end)

describe("render components", function()
  local engine, scene
  before_each(function()
    engine = newEngine()
    scene = engine.scene
  end)
  after_each(function()
    -- Objects outlive a dropped scene; destroy them so the next test's frame is empty.
    for _, go in ipairs(scene.roots) do go:destroy() end
    scene:update(0)
  end)

  it("MeshRenderer is a component everywhere: addComponent, getComponent, fields", function()
    local go = spawnAt(scene, "box")
    local mesh, material = tycho.mesh.cube(), tycho.material()
    local mr = go:addComponent(tycho.MeshRenderer, mesh, material)
    assert.equals(mr, go:getComponent(tycho.MeshRenderer))
    assert.equals(go, mr.gameObject)
    assert.equals(mesh, mr.mesh)
    assert.equals(material, mr.material)
    assert.is_true(mr.enabled)
    assert.is_true(mr.castShadows)
    local inst = tycho.MeshRenderer.new(mesh)
    assert.equals(inst, go:addComponent(inst))
    assert.equals(2, #go:getComponents(tycho.MeshRenderer))
  end)

  it("MeshRenderer.new checks its arguments", function()
    assert.error_matches(function() tycho.MeshRenderer.new("cube") end, "bad argument #1 to 'new' (Mesh expected, got string)", nil, true)
    assert.error_matches(function() tycho.MeshRenderer.new(tycho.mesh.cube(), {}) end,
      "bad argument #2 to 'new' (Material expected, got table)", nil, true)
    local mr = tycho.MeshRenderer.new(tycho.mesh.cube())
    assert.has_error(function() mr.mesh = 3 end)
  end)

  it("buckets opaque, transparent and shadow casters", function()
    local opaque, glass = tycho.material(), tycho.material({ transparent = true })
    spawnAt(scene, "a"):addComponent(tycho.MeshRenderer, tycho.mesh.cube(), opaque)
    spawnAt(scene, "b"):addComponent(tycho.MeshRenderer, tycho.mesh.cube(), opaque)
    spawnAt(scene, "c"):addComponent(tycho.MeshRenderer, tycho.mesh.sphere(), glass)
    local noShadow = spawnAt(scene, "d"):addComponent(tycho.MeshRenderer, tycho.mesh.cube(), opaque)
    noShadow.castShadows = false
    assert.same({ opaque = 3, transparent = 1, shadow = 2 }, counts(engine))
  end)

  it("writes reach the draw item: material, enabled", function()
    local mr = spawnAt(scene, "a"):addComponent(tycho.MeshRenderer, tycho.mesh.cube(), tycho.material())
    assert.equals(1, counts(engine).opaque)
    mr.material = tycho.material({ transparent = true })
    assert.same({ opaque = 0, transparent = 1, shadow = 0 }, counts(engine))
    mr.enabled = false
    assert.same({ opaque = 0, transparent = 0, shadow = 0 }, counts(engine))
    mr.enabled = true
    assert.equals(1, counts(engine).transparent)
  end)

  it("skips objects under a disabled parent and drops destroyed ones", function()
    local parent = spawnAt(scene, "parent")
    local child = GameObject.new("child")
    parent:addChild(child)
    child:addComponent(tycho.MeshRenderer, tycho.mesh.cube())
    local other = spawnAt(scene, "other")
    other:addComponent(tycho.MeshRenderer, tycho.mesh.cube())
    scene:update(1 / 60)
    assert.equals(2, counts(engine).opaque)
    parent.enabled = false
    assert.equals(1, counts(engine).opaque)
    parent.enabled = true
    local before = tycho._render.itemCount()
    other:destroy()
    scene:update(1 / 60)
    assert.equals(1, counts(engine).opaque)
    assert.equals(before - 1, tycho._render.itemCount(), "onDestroy frees the item")
  end)

  it("refuses a destroyed item's or light's handle, even once its slot is reused", function()
    local R = tycho._render
    local go = spawnAt(scene, "stale")
    local old = R.itemCreate(go)
    R.itemDestroy(old)
    local new = R.itemCreate(go)
    assert.are_not.equal(old, new)
    assert.has_error(function() R.itemSet(old, "enabled", false) end, ("render item %d is not live"):format(old))
    assert.has_error(function() R.itemDestroy(old) end)
    R.itemSet(new, "enabled", false) -- the live one still answers
    R.itemDestroy(new)
    local light = R.lightCreate(go, "point")
    R.lightDestroy(light)
    local light2 = R.lightCreate(go, "point")
    assert.are_not.equal(light, light2)
    assert.has_error(function() R.lightSet(light, "intensity", 2) end, ("light %d is not live"):format(light))
    R.lightSet(light2, "intensity", 2)
    R.lightDestroy(light2)
  end)

  it("removeComponent frees the item; adding again makes a new one", function()
    local go = spawnAt(scene, "a")
    local mr = go:addComponent(tycho.MeshRenderer, tycho.mesh.cube())
    local n = tycho._render.itemCount()
    go:removeComponent(mr)
    assert.equals(n - 1, tycho._render.itemCount())
    assert.equals(0, counts(engine).opaque)
    go:addComponent(mr)
    assert.equals(1, counts(engine).opaque)
  end)

  it("Sprite draws a transparent quad and follows its fields", function()
    local tex = tycho.texture.new(16, 16)
    local go = spawnAt(scene, "ship")
    local sprite = go:addComponent(tycho.Sprite, { texture = tex, rect = { 0, 0, 8, 8 }, color = { 1, 0, 0 } })
    assert.equals(tex, sprite.texture)
    assert.same({ 0, 0, 8, 8 }, sprite.rect)
    assert.same({ opaque = 0, transparent = 1, shadow = 0 }, counts(engine))
    sprite.enabled = false
    assert.equals(0, counts(engine).transparent)
    assert.has_error(function() sprite.rect = { 1, 2 } end)
    assert.has_error(function() tycho.Sprite.new({ texture = "ship.png" }) end)
  end)

  it("Sprite clamps its texture unless asked to repeat", function()
    local tex = tycho.texture.new(4, 4)
    local sprite = spawnAt(scene, "tile"):addComponent(tycho.Sprite, { texture = tex })
    assert.equals("clamp", sprite.wrap)
    local tiled = spawnAt(scene, "tiled"):addComponent(tycho.Sprite, { texture = tex, wrap = "repeat" })
    assert.equals("repeat", tiled.wrap)
    sprite.wrap = "repeat"
    assert.equals("repeat", sprite.wrap)
    sprite.wrap = nil
    assert.equals("clamp", sprite.wrap, "nil goes back to the default")
    assert.error_matches(function() sprite.wrap = "mirror" end, 'Sprite.wrap must be "clamp" or "repeat", got mirror', nil, true)
    assert.equals(2, counts(engine).transparent)
  end)

  it("lights register with the frame: the sun and point and spot lights", function()
    local sun = scene:add(GameObject.new("sun"))
    local light = sun:addComponent(tycho.DirectionalLight, { direction = { -1, -1, -1 }, intensity = 2 })
    assert.equals(2, light.intensity)
    assert.is_true(light.castShadows)
    spawnAt(scene, "lamp"):addComponent(tycho.PointLight, { color = { 1, 0.5, 0 }, range = 4 })
    spawnAt(scene, "spot"):addComponent(tycho.SpotLight, { innerAngle = 20, outerAngle = 30 })
    local frame = engine:frame()
    assert.is_true(frame.hasSun)
    assert.equals(2, frame.lightCount)
    light.enabled = false
    assert.is_false(engine:frame().hasSun)
    assert.has_error(function() light.intensity = "bright" end)
    assert.has_error(function() tycho.PointLight.new({ color = "red" }) end)
  end)

  it("Camera: perspective and orthographic, found by scene:findCamera", function()
    assert.is_nil(scene:findCamera())
    local cam = scene:add(GameObject.new("cam"))
    local c = cam:addComponent(tycho.Camera.perspective(70, 0.5, 200))
    assert.equals(c, scene:findCamera())
    assert.equals(70, c.fov)
    assert.equals(0.5, c.near)
    assert.is_false(c.orthographic)
    local o = tycho.Camera.orthographic(10)
    assert.is_true(o.orthographic)
    assert.equals(10, o.size)
    assert.has_error(function() tycho.Camera.perspective("wide") end)
  end)

  it("the frame uses the first Camera and culls what it cannot see", function()
    local cam = scene:add(GameObject.new("cam"))
    local camera = cam:addComponent(tycho.Camera.perspective(60, 0.1, 100))
    spawnAt(scene, "ahead", -5):addComponent(tycho.MeshRenderer, tycho.mesh.cube())
    spawnAt(scene, "behind", 5):addComponent(tycho.MeshRenderer, tycho.mesh.cube())
    local frame = engine:frame()
    assert.equals(camera, frame.camera)
    assert.equals(1, frame.buckets.opaque)
    assert.equals(1, frame.buckets.culled)
    cam.rotation = tycho.quat.axisAngle(0, 1, 0, math.pi)
    assert.equals(1, engine:frame().buckets.opaque)
    assert.equals(64, frame.width)
  end)
end)

describe("tycho.stats.render", function()
  it("reports the last frame's counters", function()
    local s = tycho.stats.render()
    for _, k in ipairs({ "drawCalls", "draws", "instances", "triangles", "passes", "culledPasses", "cpuMs", "bucketMs" }) do
      assert.is_number(s[k], k)
    end
  end)

  it("counts shadow casters in each cascade once a frame with shadows has fitted them", function()
    local engine = newEngine()
    engine:setPreset(tycho.presets.forward({})) -- its Shadow feature: four cascades over 50 units
    local sun = engine.scene:add(GameObject.new("sun"))
    sun:addComponent(tycho.DirectionalLight, { direction = { 0, -1, 0 } })
    local mesh, material = tycho.mesh.cube(), tycho.material({})
    spawnAt(engine.scene, "near", -2):addComponent(tycho.MeshRenderer, mesh, material)
    spawnAt(engine.scene, "far", -40):addComponent(tycho.MeshRenderer, mesh, material)
    local aside = spawnAt(engine.scene, "aside", -5)
    aside.position = { 500, 0, -5 }
    aside:addComponent(tycho.MeshRenderer, mesh, material)
    engine:frame()
    local first = tycho.stats.render()
    assert.equals(3, first.shadowCasters, "no cascades known yet: every caster")
    assert.equals(0, #first.shadowCascades)
    engine:frame()
    local s = tycho.stats.render()
    assert.equals(4, #s.shadowCascades)
    assert.equals(2, s.shadowCasters, "the one far to the side is in no cascade")
    assert.equals(1, s.shadowCascades[1], "the near one is in the first cascade, the far one not")
    assert.equals(2, s.shadowCascades[4], "the last, widest cascade reaches both")
  end)
end)

describe("guards on shared and outside data", function()
  it("refuses to rewrite a mesh tycho.voxel.mesh did not make", function()
    local grid = tycho.voxel.grid(2, 2, 2)
    grid:set(0, 0, 0, 1)
    local palette = tycho.voxel.palette({ tiles = { [1] = 0 } })
    local cube = tycho.mesh.cube()
    local ok, err = pcall(tycho.voxel.mesh, grid, { palette = palette, mesh = cube })
    assert.is_false(ok)
    assert.matches("tycho.voxel.mesh made", err)
    assert.equals(24, tycho.mesh.cube().vertexCount)
    local chunk = tycho.voxel.mesh(grid, { palette = palette })
    assert.is_true(pcall(tycho.voxel.mesh, grid, { palette = palette, mesh = chunk }))
  end)

  it("names the argument when a UI colour is not numbers", function()
    local ok, err = pcall(function() tycho.ui.rect(0, 0, 10, 10, { "red" }) end)
    assert.is_false(ok)
    assert.matches("bad argument #5 to 'rect'", err)
  end)

  it("UI text reads UTF-8 a character at a time, in the TrueType face at 10 pixels to the em", function()
    -- DejaVu Sans gives an accented letter its base letter's advance: é is one glyph, not two bytes.
    assert.equals(tycho.ui.measure("aeb", 2), tycho.ui.measure("aéb", 2))
    local w1, h1 = tycho.ui.measure("Score 120", 1)
    local w2, h2 = tycho.ui.measure("Score 120", 2)
    assert.is_true(w1 > 20 and w1 < 80, "width " .. w1)
    assert.near(2 * w1, w2, 2)
    assert.near(2 * h1, h2, 2)
    local _, two = tycho.ui.measure("a\nb", 1)
    assert.equals(2 * h1, two)
    -- A character the face lacks (CJK) draws as a box: it still takes room.
    assert.is_true(tycho.ui.measure("日本", 1) > 0)
  end)

  it("a Lua feature declaring without bound fails its frame, not the process", function()
    local engine = newEngine()
    local flood = {
      name = "flood",
      addPasses = function(_, frame)
        for i = 1, 70000 do frame.graph:transient("t" .. (i % 8)) end
      end,
    }
    engine:addFeature(flood)
    engine:frame()
    assert.is_false(flood.enabled)
    engine:removeFeature(flood)
    assert.is_number(engine:frame().buckets.opaque)
  end)
end)

describe("scene:findCamera", function()
  it("finds this scene's camera, the first joined of several, and forgets removed ones", function()
    local a, b = tycho.Scene.new(), tycho.Scene.new()
    assert.is_nil(a:findCamera())
    local ga = a:add(tycho.GameObject.new("a-cam"))
    local ca = ga:addComponent(tycho.Camera.perspective(60))
    local gb = b:add(tycho.GameObject.new("b-cam"))
    local cb = gb:addComponent(tycho.Camera.orthographic(4))
    assert.equals(ca, a:findCamera())
    assert.equals(cb, b:findCamera())
    local second = a:add(tycho.GameObject.new("a-second"))
    second:addComponent(tycho.Camera.perspective(30))
    assert.equals(ca, a:findCamera()) -- the first in join order
    ga:removeComponent(ca)
    assert.equals(second:getComponent(tycho.Camera), a:findCamera())
    second:destroy()
    a:update(0)
    assert.is_nil(a:findCamera())
    gb:destroy()
    b:update(0)
    assert.is_nil(b:findCamera())
    ga:destroy()
    a:update(0)
  end)
end)

describe("tycho.features", function()
  it("has a constructor for each built-in feature, named as the renderer names it", function()
    local inTable = 0 -- the renderer's C feature table; the rest (Particles) add their own passes
    for key, ctor in pairs(tycho.features) do
      local feature = ctor()
      assert.equals(key, feature.name)
      assert.is_true(feature.builtin)
      if pcall(tycho._render.featureOptions, key) then inTable = inTable + 1 end
    end
    assert.equals(14, inTable)
    assert.is_function(tycho.features.Particles)
  end)

  it("refuses a feature name the renderer does not know", function()
    assert.has_error(function() tycho._render.featureOptions("NoSuchFeature") end,
      "bad argument #1 to 'featureOptions' (invalid option 'NoSuchFeature')")
  end)
end)
