-- tests/lua/sync_spec.lua: tycho.sync (scripts/tycho/sync/): the built-in components' CRDT
-- layouts, a CRDT stream building a scene that a headless frame buckets, and local changes
-- going back out as messages that rebuild the same state elsewhere.

local crdt = tycho.crdt
local sync = require("tycho.sync")
local C = sync.components
local Engine = require("tycho.engine")

local function newEngine() return Engine.new({ headless = true, width = 64, height = 64 }) end

local function buckets(engine)
  local f = engine:frame()
  local b = f.buckets
  -- lights: point and spot lights; sun: whether a directional light is on
  return { opaque = b.opaque, transparent = b.transparent, shadow = b.shadow, lights = f.lightCount, sun = f.hasSun }
end

local function near(a, b) return math.abs(a - b) < 1e-5 end

describe("tycho.sync.components", function()
  it("uses Decentraland's ids for its core components and @dcl/ecs's rule for tycho's own", function()
    assert.equals(1, C.TRANSFORM)
    assert.equals(1017, C.MATERIAL)
    assert.equals(1018, C.MESH_RENDERER)
    assert.equals(1041, C.GLTF_CONTAINER)
    assert.equals(1079, C.LIGHT_SOURCE)
    assert.equals(crdt.componentId("tycho::DirectionalLight"), C.DIRECTIONAL_LIGHT)
    assert.equals(crdt.componentId("tycho::Camera"), C.CAMERA)
    assert.is_true(C.DIRECTIONAL_LIGHT >= 2048 and C.CAMERA >= 2048)
  end)

  it("writes MeshRenderer and GltfContainer as protobuf", function()
    -- box and plane carry their (empty) uvs list, byte for byte as @dcl/ecs writes them
    assert.equals("\10\2\10\0", C.meshRenderer.encode({ kind = "box" }))
    assert.equals("\18\0", C.meshRenderer.encode({ kind = "sphere" }))
    assert.equals("\34\2\10\0", C.meshRenderer.encode({ kind = "plane" }))
    assert.equals("sphere", C.meshRenderer.decode("\18\0").kind)
    -- a box with uvs (packed floats) still reads as a box
    assert.equals("box", C.meshRenderer.decode("\10\6\10\4" .. string.pack("<f", 1)).kind)
    assert.equals("\10\7a/b.glb", C.gltfContainer.encode({ src = "a/b.glb" }))
    assert.equals("a/b.glb", C.gltfContainer.decode("\10\7a/b.glb").src)
    local v, err = C.meshRenderer.decode("\10\9")
    assert.is_nil(v)
    assert.matches("truncated", err)
    assert.has_error(function() C.meshRenderer.encode({ kind = "torus" }) end)
  end)

  it("writes a PBR material as protobufjs does and reads it back", function()
    local bytes = C.material.encode({ baseColor = { 1, 0, 0.5, 1 }, metallic = 0, roughness = 0.25, transparent = true })
    local albedo = "\13" .. string.pack("<f", 1) .. "\29" .. string.pack("<f", 0.5) .. "\37" .. string.pack("<f", 1)
    local pbr = "\58" .. string.char(#albedo) .. albedo .. "\80\2" .. "\93" .. string.pack("<f", 0)
      .. "\101" .. string.pack("<f", 0.25)
    assert.equals("\18" .. string.char(#pbr) .. pbr, bytes)
    local m = C.material.decode(bytes)
    assert.same({ 1, 0, 0.5, 1 }, m.baseColor)
    assert.is_true(m.transparent)
    assert.equals(0.25, m.roughness)
    assert.is_false(m.unlit)
    -- Decentraland's defaults for what is left out: white, metallic and roughness 0.5, auto
    -- transparency from the colour's alpha
    local d = C.material.decode("\18\0")
    assert.same({ 1, 1, 1, 1 }, d.baseColor)
    assert.equals(0.5, d.metallic)
    assert.is_false(d.transparent)
    local unlit = C.material.decode(C.material.encode({ unlit = true, baseColor = { 0, 1, 0, 0.5 } }))
    assert.is_true(unlit.unlit)
    assert.is_true(unlit.transparent)
  end)

  it("writes lights and the camera", function()
    local spot = C.lightSource.decode(C.lightSource.encode({
      kind = "spot", color = { 1, 0.5, 0 }, intensity = 8, range = 12, innerAngle = 20, outerAngle = 40,
    }))
    assert.equals("spot", spot.kind)
    assert.same({ 1, 0.5, 0 }, spot.color)
    assert.equals(8, spot.intensity)
    assert.equals(40, spot.outerAngle)
    assert.is_true(spot.active)
    assert.equals("point", C.lightSource.decode(C.lightSource.encode({})).kind)
    local sun = C.directionalLight.encode({ color = { 1, 1, 0.5 }, intensity = 2, direction = { 0, -1, 0 } })
    assert.equals(29, #sun)
    local s = C.directionalLight.decode(sun)
    assert.same({ 0, -1, 0 }, s.direction)
    assert.is_true(s.castShadows)
    assert.is_nil(C.directionalLight.decode(C.directionalLight.encode({})).direction)
    local cam = C.camera.decode(C.camera.encode({ orthographic = true, size = 8 }))
    assert.is_true(cam.orthographic)
    assert.equals(8, cam.size)
    assert.equals(-100, cam.near)
    assert.is_nil(C.camera.decode("short"))
  end)
end)

describe("tycho.sync", function()
  local engine, scene, s
  before_each(function()
    engine = newEngine()
    scene = engine.scene
    s = sync.new(scene)
  end)

  -- What a peer would send for one entity.
  local function entityMessages(peer, e, opts)
    local out = { peer:put(e, C.TRANSFORM, crdt.transform.encode({ position = opts.position or { 0, 0, -5 } })) }
    if opts.mesh then out[#out + 1] = peer:put(e, C.MESH_RENDERER, C.meshRenderer.encode({ kind = opts.mesh })) end
    if opts.material then out[#out + 1] = peer:put(e, C.MATERIAL, C.material.encode(opts.material)) end
    if opts.light then out[#out + 1] = peer:put(e, C.LIGHT_SOURCE, C.lightSource.encode(opts.light)) end
    return table.concat(out)
  end

  it("builds a scene from a CRDT stream that a frame buckets", function()
    local peer = crdt.new()
    local stream = entityMessages(peer, crdt.entity(600, 0), { mesh = "box" })
      .. entityMessages(peer, crdt.entity(601, 0), { mesh = "sphere", material = { transparent = true } })
      .. entityMessages(peer, crdt.entity(602, 0), { mesh = "plane", material = { baseColor = { 1, 0, 0, 1 } } })
      .. entityMessages(peer, crdt.entity(603, 0), { light = { kind = "point", intensity = 4, range = 6 } })
      .. peer:put(crdt.entity(604, 0), C.DIRECTIONAL_LIGHT, C.directionalLight.encode({ direction = { 0, -1, 0 } }))
    local applied = s:apply(stream)
    assert.equals(11, applied)
    assert.same({ opaque = 2, transparent = 1, shadow = 2, lights = 1, sun = true }, buckets(engine))
    local box = s:gameObjectFor(crdt.entity(600, 0))
    assert.equals(-5, box.position.z)
    assert.equals("sync#600.0", box.name)
    assert.equals(crdt.entity(600, 0), s:entityFor(box))
    assert.equals(tycho.mesh.cube(), box:getComponent(tycho.MeshRenderer).mesh)
    local light = s:gameObjectFor(crdt.entity(603, 0)):getComponent(tycho.PointLight)
    assert.equals(4, light.intensity)
    assert.equals(6, light.range)
  end)

  it("updates, removes components and destroys entities as messages say", function()
    local peer = crdt.new()
    local e = crdt.entity(700, 0)
    s:apply(entityMessages(peer, e, { mesh = "box", position = { 1, 2, -5 } }))
    local go = s:gameObjectFor(e)
    s:apply(peer:put(e, C.TRANSFORM, crdt.transform.encode({ position = { 3, 2, -5 } })))
    assert.equals(go, s:gameObjectFor(e), "an update keeps the GameObject")
    assert.equals(3, go.position.x)
    s:apply(peer:put(e, C.MATERIAL, C.material.encode({ transparent = true })))
    assert.same({ opaque = 0, transparent = 1, shadow = 0, lights = 0, sun = false }, buckets(engine))
    s:apply(peer:deleteComponent(e, C.MESH_RENDERER))
    assert.is_nil(go:getComponent(tycho.MeshRenderer))
    assert.equals(0, buckets(engine).transparent)
    s:apply(peer:deleteEntity(e))
    assert.is_nil(s:gameObjectFor(e))
    assert.is_true(go.destroyed)
    scene:update(0)
    assert.equals(0, #scene.roots)
  end)

  it("parents objects by the Transform's parent entity, whatever the order", function()
    local peer = crdt.new()
    local parent, child = crdt.entity(800, 0), crdt.entity(801, 0)
    s:apply(peer:put(child, C.TRANSFORM, crdt.transform.encode({ position = { 1, 0, 0 }, parent = parent })))
    assert.is_nil(s:gameObjectFor(child).parent, "waits at the root for its parent")
    s:apply(peer:put(parent, C.TRANSFORM, crdt.transform.encode({ position = { 0, 0, -5 } })))
    assert.equals(s:gameObjectFor(parent), s:gameObjectFor(child).parent)
    s:apply(peer:deleteEntity(parent))
    assert.is_nil(s:gameObjectFor(child).parent, "back at the root when the parent goes")
  end)

  it("does not mirror the engine's reserved entities", function()
    local peer = crdt.new()
    assert.equals(1, s:apply(entityMessages(peer, crdt.entity(2, 0), {})))
    assert.equals(0, #scene.roots)
  end)

  it("sends local changes of tracked objects and nothing when nothing changed", function()
    local go = scene:add(tycho.GameObject.new({ name = "mine", position = { x = 1, y = 0, z = -5 } }))
    go:addComponent(tycho.MeshRenderer, tycho.mesh.sphere(), tycho.material({ baseColor = { 0, 0, 1, 1 } }))
    local e = s:track(go)
    assert.equals(crdt.entity(512, 0), e)
    local first = s:flush()
    assert.is_true(#first > 0)
    assert.equals("", s:flush(), "unchanged: no bytes")
    go.position.x = 2
    local moved = s:flush()
    local peer = crdt.new()
    peer:apply(first)
    peer:apply(moved)
    assert.equals(2, crdt.transform.decode((peer:get(e, C.TRANSFORM))).position.x)
    assert.equals("sphere", C.meshRenderer.decode((peer:get(e, C.MESH_RENDERER))).kind)
    assert.same({ 0, 0, 1, 1 }, C.material.decode((peer:get(e, C.MATERIAL))).baseColor)
    go:removeComponent(go:getComponent(tycho.MeshRenderer))
    peer:apply(s:flush())
    assert.is_nil(peer:get(e, C.MESH_RENDERER))
    go:destroy()
    peer:apply(s:flush())
    assert.is_true(peer:isRemoved(e))
    assert.error_matches(function() s:track(go, crdt.entity(5, 0)) end, "bad argument #2 to 'track' (entity numbers below 512 belong to the engine)", nil, true)
  end)

  it("round-trips a scene between two states: same snapshot, same frame", function()
    local a = s
    local red = tycho.material({ baseColor = { 1, 0, 0, 1 }, roughness = 0.3 })
    local objects = {}
    for i = 1, 5 do
      local go = scene:add(tycho.GameObject.new({ name = "box" .. i, position = { x = i, y = 0, z = -6 } }))
      go:addComponent(tycho.MeshRenderer, i % 2 == 0 and tycho.mesh.cube() or tycho.mesh.plane(), red)
      objects[i] = go
      a:track(go)
    end
    local lamp = scene:add(tycho.GameObject.new("lamp"))
    lamp:addComponent(tycho.SpotLight, { intensity = 7, range = 9, innerAngle = 15, outerAngle = 30 })
    a:track(lamp)
    objects[3]:setParent(objects[1])
    local cam = scene:add(tycho.GameObject.new("cam"))
    cam:addComponent(tycho.Camera.perspective(70))
    a:track(cam)

    local otherEngine = newEngine()
    local b = sync.new(otherEngine.scene)
    b:apply(a:flush())
    assert.equals(a.state:snapshot(), b.state:snapshot())
    local child = b:gameObjectFor(a:entityFor(objects[3]))
    assert.equals(b:gameObjectFor(a:entityFor(objects[1])), child.parent)
    assert.equals(70, otherEngine.scene:findCamera().fov)
    assert.same(buckets(engine), buckets(otherEngine))

    -- and back: b moves a's object; a's tracked object follows, a sends nothing new
    local e = a:entityFor(objects[2])
    local corrections = select(2, a:apply(b.state:put(e, C.TRANSFORM, crdt.transform.encode({ position = { 9, 9, 9 } }))))
    assert.is_nil(corrections)
    assert.equals(9, objects[2].position.x)
    assert.equals("", a:flush())
    assert.equals(a.state:snapshot(), b.state:snapshot())
  end)

  it("refuses bad arguments", function()
    assert.error_matches(function() sync.new({}) end, "bad argument #1 to 'new' (Scene expected, got table)", nil, true)
    assert.has_error(function() sync.new(scene, { first = 10 }) end)
    assert.error_matches(function() s:apply(3) end, "bad argument #1 to 'apply' (string expected, got number)", nil, true)
    assert.error_matches(function() s:track("x") end, "bad argument #1 to 'track' (GameObject expected, got string)", nil, true)
  end)

  it("leaves the scene alone for malformed bytes", function()
    s = sync.new(scene, { state = crdt.new({ quiet = true }) })
    local applied = s:apply("\100\0\0\0\1\0\0\0")
    assert.equals(0, applied)
    assert.equals(1, s.state:stats().rejected.past_end)
    assert.equals(0, #scene.roots)
  end)
end)
