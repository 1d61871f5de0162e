-- tests/lua/physics2d_spec.lua: 2D physics (Box2D) as ../shared/API.md "Physics" states:
-- bodies and colliders, scene.physics2d, the tick rule, contacts and determinism.

local GameObject, Scene = tycho.GameObject, tycho.Scene
local RigidBody2D, BoxCollider2D = tycho.RigidBody2D, tycho.BoxCollider2D
local CircleCollider2D, PolygonCollider2D = tycho.CircleCollider2D, tycho.PolygonCollider2D

local DT = 1 / 60

local function run(scene, ticks)
  for _ = 1, ticks do scene:update(DT) end
end

-- A static ground whose top face is at y = 0.
local function ground(scene, opts)
  opts = opts or {}
  local go = GameObject.new { name = "ground", position = { 0, -0.5, 0 } }
  go:addComponent(BoxCollider2D, { size = { x = opts.width or 40, y = 1 }, restitution = opts.restitution })
  scene:add(go)
  return go
end

local function box(scene, name, x, y, bodyOpts, size)
  local go = GameObject.new { name = name, position = { x, y, 0 } }
  local rb = go:addComponent(RigidBody2D, bodyOpts or {})
  go:addComponent(BoxCollider2D, { size = size or { x = 1, y = 1 } })
  scene:add(go)
  return go, rb
end

-- Records every contact hook and postPhysics, in order, into log.
local function recorder(log)
  local Rec = tycho.component("physics2d_spec.Rec")
  function Rec:onCollisionEnter(other, contact)
    log[#log + 1] = { hook = "enter", self = self.gameObject.name, other = other, contact = contact }
  end
  function Rec:onCollisionExit(other)
    log[#log + 1] = { hook = "exit", self = self.gameObject.name, other = other }
  end
  function Rec:onTriggerEnter(other)
    log[#log + 1] = { hook = "triggerEnter", self = self.gameObject.name, other = other }
  end
  function Rec:onTriggerExit(other)
    log[#log + 1] = { hook = "triggerExit", self = self.gameObject.name, other = other }
  end
  function Rec:postPhysics()
    log[#log + 1] = { hook = "postPhysics", self = self.gameObject.name }
  end
  return Rec
end

local function find(log, hook, selfName)
  local out = {}
  for i, e in ipairs(log) do
    if e.hook == hook and (not selfName or e.self == selfName) then out[#out + 1] = e; e.index = i end
  end
  return out
end

describe("2D physics", function()
  it("makes scene.physics2d on first use with the API's defaults", function()
    local scene = Scene.new()
    local w = scene.physics2d
    assert.equals(w, scene.physics2d)
    assert.near(0, w.gravity.x, 0)
    assert.near(-9.81, w.gravity.y, 1e-6)
    assert.equals(1, w.unitsPerMeter)
    w.gravity = { x = 1, y = -2 }
    assert.near(1, w.gravity.x, 1e-6)
    assert.near(-2, w.gravity.y, 1e-6)
  end)

  it("lets a box fall by the integrated distance of constant gravity", function()
    local scene = Scene.new()
    local go, rb = box(scene, "box", 0, 100, {})
    local n = 30
    run(scene, n)
    local t = n * DT
    -- Box2D integrates semi-implicitly (velocity first): after n steps the drop is
    -- g dt^2 n (n + 1) / 2, the analytic g t^2 / 2 plus g dt t / 2.
    local g = 9.81
    local stepped = g * DT * DT * n * (n + 1) / 2
    assert.near(100 - stepped, go.position.y, 1e-4)
    assert.near(100 - g * t * t / 2, go.position.y, g * DT * t / 2 + 1e-4)
    assert.near(-g * t, rb.velocity.y, 1e-4)
    assert.near(0, go.position.x, 0)
  end)

  it("lands a box on static ground, where it rests and sleeps", function()
    local scene = Scene.new()
    ground(scene)
    local go, rb = box(scene, "box", 0, 3, {})
    run(scene, 240)
    assert.near(0.5, go.position.y, 0.02)
    assert.near(0, rb.velocity.y, 1e-3)
    assert.is_true(rb.sleeping)
    -- The write-back went through the object's own tables: the world agrees.
    assert.near(go.position.y, go.worldPosition.y, 1e-6)
    rb:wake()
    assert.is_false(rb.sleeping)
  end)

  it("stacks boxes that stay stacked", function()
    local scene = Scene.new()
    ground(scene)
    local boxes = {}
    for i = 1, 5 do boxes[i] = box(scene, "b" .. i, 0, i - 0.5 + (i - 1) * 0.02, {}) end
    run(scene, 300)
    for i, go in ipairs(boxes) do
      assert.near(0, go.position.x, 0.05)
      -- Each contact keeps Box2D's polygon skin (about a centimetre) between the boxes.
      assert.near(i - 0.5, go.position.y, 0.02 * i)
      if i > 1 then assert.near(1, go.position.y - boxes[i - 1].position.y, 0.03) end
    end
  end)

  it("bounces a ball by its restitution", function()
    local scene = Scene.new()
    ground(scene)
    local go = GameObject.new { name = "ball", position = { 0, 5.5, 0 } }
    local rb = go:addComponent(RigidBody2D, { restitution = 0.8 })
    go:addComponent(CircleCollider2D, { radius = 0.5 })
    scene:add(go)
    local fell, top = false, -math.huge
    for _ = 1, 240 do
      scene:update(DT)
      local vy = rb.velocity.y
      if not fell and vy > 0 then fell = true end
      if fell then top = math.max(top, go.position.y) end
    end
    assert.is_true(fell)
    -- From 5 m above the ground, e = 0.8 rebounds to about e^2 * 5 = 3.2 m.
    assert.near(0.5 + 0.8 * 0.8 * 5, top, 0.35)
  end)

  it("reports collisions to both objects with the other object and the contact", function()
    local scene = Scene.new()
    local log = {}
    local Rec = recorder(log)
    local g = ground(scene)
    g:addComponent(Rec)
    local go = box(scene, "box", 0, 2, {})
    go:addComponent(Rec)
    run(scene, 90)
    local mine, its = find(log, "enter", "box"), find(log, "enter", "ground")
    assert.equals(1, #mine)
    assert.equals(1, #its)
    assert.equals(g, mine[1].other)
    assert.equals(go, its[1].other)
    local c = mine[1].contact
    assert.near(0, c.point.y, 0.05)
    assert.near(0, c.normal.x, 1e-5)
    assert.near(1, c.normal.y, 1e-5) -- from the ground towards the box
    assert.near(-1, its[1].contact.normal.y, 1e-5)
    assert.is_true(c.impulse > 0)
    -- Reported in postPhysics, before the postPhysics hooks of that tick.
    local i = mine[1].index
    assert.equals("postPhysics", log[i + 2].hook)
    -- Lifted off: both hear the exit.
    go.position.y = 5
    run(scene, 2)
    assert.equals(1, #find(log, "exit", "box"))
    assert.equals(1, #find(log, "exit", "ground"))
    assert.equals(g, find(log, "exit", "box")[1].other)
  end)

  it("tells a disabled component of no contact", function()
    local scene = Scene.new()
    local log = {}
    local Rec = recorder(log)
    local g = ground(scene)
    g:addComponent(Rec)
    local go = box(scene, "box", 0, 2, {})
    local rec = go:addComponent(Rec)
    rec.enabled = false
    run(scene, 90)
    assert.near(0.5, go.position.y, 0.02)
    assert.equals(0, #find(log, "enter", "box"))
    assert.equals(1, #find(log, "enter", "ground"))
  end)

  it("tells a hook set on the component itself, and on the class after the contact began", function()
    local scene = Scene.new()
    local heard = {}
    local Own = tycho.component("physics2d_spec.Own")
    function Own:init() self.onCollisionEnter = function(_, other) heard[#heard + 1] = "own " .. other.name end end
    local Late = tycho.component("physics2d_spec.Late")
    ground(scene)
    local a = box(scene, "a", -2, 1, {})
    a:addComponent(Own)
    local b = box(scene, "b", 2, 1, {})
    b:addComponent(Late)
    run(scene, 60)
    assert.same({ "own ground" }, heard)
    function Late:onCollisionExit(other) heard[#heard + 1] = "late " .. other.name end
    b.position.y = 5
    run(scene, 2)
    assert.same({ "own ground", "late ground" }, heard)
  end)

  it("reports a contact hook that raises, and the object's next component still hears the contact", function()
    local scene = Scene.new()
    local errors, heard = {}, {}
    scene.onError = function(message, info) errors[#errors + 1] = info.hook .. ": " .. message end
    local Bad = tycho.component("physics2d_spec.Bad")
    function Bad:onCollisionEnter() error("bad contact") end
    local Good = tycho.component("physics2d_spec.Good")
    function Good:onCollisionEnter(other, contact) heard[#heard + 1] = { other = other, contact = contact } end
    local g = ground(scene)
    local a = box(scene, "a", 0, 1, {})
    a:addComponent(Bad)
    a:addComponent(Good)
    run(scene, 60)
    assert.equals(1, #errors)
    assert.truthy(errors[1]:find("^onCollisionEnter: .*bad contact"), errors[1])
    assert.equals(1, #heard)
    assert.equals(g, heard[1].other)
    assert.near(1, heard[1].contact.normal.y, 1e-4) -- from the ground towards the box
  end)

  it("takes a disabled object's body out of the simulation until it is enabled again", function()
    local scene = Scene.new()
    local log = {}
    local g = ground(scene)
    local go = box(scene, "box", 0, 3, {})
    go:addComponent(recorder(log))
    go.enabled = false
    run(scene, 30)
    assert.near(3, go.position.y, 0) -- held where it was
    go.enabled = true
    run(scene, 120)
    assert.near(0.5, go.position.y, 0.02)
    assert.equals(1, #find(log, "enter", "box"))
    g.enabled = false -- the ground goes: the box falls, and hears the contact end
    run(scene, 30)
    assert.is_true(go.position.y < 0)
    assert.equals(1, #find(log, "exit", "box"))
  end)

  it("reports trigger enter and exit, and a trigger does not block", function()
    local scene = Scene.new()
    local log = {}
    local Rec = recorder(log)
    local zone = GameObject.new { name = "zone", position = { 0, 5, 0 } }
    zone:addComponent(BoxCollider2D, { size = { x = 4, y = 1 }, trigger = true })
    zone:addComponent(Rec)
    scene:add(zone)
    local go = box(scene, "box", 0, 8, {})
    go:addComponent(Rec)
    run(scene, 120)
    assert.is_true(go.position.y < 0) -- fell through
    assert.equals(1, #find(log, "triggerEnter", "zone"))
    assert.equals(1, #find(log, "triggerEnter", "box"))
    assert.equals(1, #find(log, "triggerExit", "zone"))
    assert.equals(1, #find(log, "triggerExit", "box"))
    assert.equals(go, find(log, "triggerEnter", "zone")[1].other)
    assert.equals(zone, find(log, "triggerExit", "box")[1].other)
    assert.equals(0, #find(log, "enter"))
  end)

  it("stops a fast bullet body at a thin dynamic plank it would pass through otherwise", function()
    local function shoot(bullet, late)
      local scene = Scene.new()
      scene.physics2d.gravity = { 0, 0 }
      box(scene, "plank", 5, 0, { mass = 1000 }, { x = 0.05, y = 4 })
      local go = GameObject.new { name = "shot" }
      local rb = go:addComponent(RigidBody2D, { bullet = not late and bullet })
      go:addComponent(CircleCollider2D, { radius = 0.1 })
      scene:add(go)
      rb.velocity = { 300, 0 }
      if late then rb.bullet = bullet end
      assert.equals(bullet, rb.bullet)
      run(scene, 10)
      return go.position.x
    end
    assert.is_true(shoot(false) > 10)
    assert.near(4.875, shoot(true), 0.05)
    assert.near(4.875, shoot(true, true), 0.05) -- set as a field once built
  end)

  it("raycasts to the nearest hit", function()
    local scene = Scene.new()
    scene.physics2d.gravity = { 0, 0 }
    for i, x in ipairs({ 6, 3, 9 }) do
      local go = GameObject.new { name = "wall" .. i, position = { x, 0, 0 } }
      go:addComponent(BoxCollider2D, { size = { x = 1, y = 2 } })
      scene:add(go)
    end
    local zone = GameObject.new { name = "zone", position = { 1, 0, 0 } }
    zone:addComponent(BoxCollider2D, { trigger = true })
    scene:add(zone)
    run(scene, 1)
    local hit = scene.physics2d:raycast({ x = 0, y = 0 }, { x = 1, y = 0 }, 100)
    assert.equals("wall2", hit.object.name)
    assert.near(2.5, hit.point.x, 1e-4)
    assert.near(-1, hit.normal.x, 1e-5)
    assert.near(2.5, hit.distance, 1e-4)
    assert.equals("wall3", scene.physics2d:raycast(tycho.vec3(20, 0, 0), tycho.vec3(-2, 0, 0)).object.name)
    assert.is_nil(scene.physics2d:raycast({ 0, 0 }, { 1, 0 }, 2))
    assert.is_nil(scene.physics2d:raycast({ 0, 0 }, { 0, 1 }, 100))
  end)

  it("raycastBatch agrees ray by ray with raycast, in one reused table", function()
    local scene = Scene.new()
    ground(scene)
    for i = 0, 29 do box(scene, "b" .. i, (i % 6) * 1.3 - 3, 1 + (i // 6) * 1.2, nil, { x = 1, y = 0.6 }) end
    local zone = GameObject.new { name = "zone", position = { 0, 3, 0 } }
    zone:addComponent(CircleCollider2D, { trigger = true, radius = 2 })
    scene:add(zone)
    run(scene, 40)
    local w, rays, n = scene.physics2d, {}, 200
    for i = 1, n do
      local a = i * 2.399963 -- every direction, some from inside the pile
      local dist = i % 17 == 0 and 0 or 1 + (i * 7) % 30
      table.move({ (i * 0.618034 % 1 - 0.5) * 12, (i * 0.414214 % 1) * 9, math.cos(a), math.sin(a), dist }, 1, 5,
        #rays + 1, rays)
    end
    local out, hits = w:raycastBatch(rays)
    local expected = 0
    for i = 1, n do
      local r, o = (i - 1) * 5, (i - 1) * 6
      local hit = w:raycast({ rays[r + 1], rays[r + 2] }, { rays[r + 3], rays[r + 4] }, rays[r + 5])
      if hit then
        expected = expected + 1
        assert.equals(hit.object, out[o + 1])
        assert.equals(hit.point.x, out[o + 2])
        assert.equals(hit.point.y, out[o + 3])
        assert.equals(hit.normal.x, out[o + 4])
        assert.equals(hit.normal.y, out[o + 5])
        assert.equals(hit.distance, out[o + 6])
      else
        assert.equals(false, out[o + 1])
      end
    end
    assert.equals(expected, hits)
    assert.is_true(hits > 50 and hits < n) -- both kinds were tried
    -- the same table again: a ray that misses now says so
    local again, hits2 = w:raycastBatch({ 0, 20, 0, 1, 5, 0, 20, 0, -1, 100 }, out)
    assert.equals(out, again)
    assert.equals(1, hits2)
    assert.equals(false, out[1])
    assert.equals(w:raycast({ 0, 20 }, { 0, -1 }, 100).object, out[7])
    -- a mask, as raycast takes it
    assert.equals(0, select(2, w:raycastBatch({ 0, 20, 0, -1, 100 }, nil, {})))
  end)

  it("raycastBatch names the ray and the number it refuses, and leaves out as it was", function()
    local w = Scene.new().physics2d
    local out = { "kept" }
    local function fails(rays, msg)
      assert.has_error(function() w:raycastBatch(rays, out) end, "bad argument #1 to 'raycastBatch' (" .. msg .. ")")
      assert.same({ "kept" }, out)
    end
    fails({ 0, 0, 1, 0 }, "rays must hold 5 numbers a ray (ox, oy, dx, dy, maxDistance), got 4")
    fails({ 0, 0, 1, 0, 5, 0, 0, 1, 0, -1 }, "rays[10] (ray 2's maxDistance) must be a finite number >= 0, got -1")
    fails({ 0, 0, 1, 0 / 0, 5 }, "rays[4] (ray 1's dy) must be a finite number, got " .. tostring(0 / 0))
    fails({ math.huge, 0, 1, 0, 5 }, "rays[1] (ray 1's ox) must be a finite number, got inf")
    fails({ 0, "up", 1, 0, 5 }, "rays[2] (ray 1's oy) must be a finite number, got string")
    fails({ 0, 0, 0, 0, 5 }, "ray 1's direction must not be zero")
    assert.has_error(function() w:raycastBatch("rays") end, "bad argument #1 to 'raycastBatch' (table expected, got string)")
    assert.has_error(function() w:raycastBatch({}, 5) end, "bad argument #2 to 'raycastBatch' (table expected, got number)")
    assert.has_error(function() w:raycastBatch({}, nil, 33) end,
      "bad argument #3 to 'raycastBatch' (mask must be a layer name or a number 1..32, got 33)")
    local empty, hits = w:raycastBatch({})
    assert.same({}, empty)
    assert.equals(0, hits)
  end)

  it("draws a falling body between its last two steps under a fixed-step Loop", function()
    local scene = Scene.new()
    local go, rb = box(scene, "faller", 0, 10, {})
    local still, rb2 = box(scene, "still", 5, 10, { interpolate = false })
    local steps = {}
    local Track = tycho.component("physics2d_spec.Track")
    function Track:postPhysics() steps[#steps + 1] = self.gameObject.position.y end
    go:addComponent(Track)
    local checked = 0
    local loop = tycho.Loop.new {
      scene = scene,
      fixedTimestep = 1 / 30,
      render = function(alpha)
        assert.equals(still.position.y, rb2.renderPosition.y)
        assert.equals(still.position.x, rb2.renderPosition.x)
        if #steps >= 2 and math.abs(alpha - 0.5) < 1e-6 then
          local before, after = steps[#steps - 1], steps[#steps]
          assert.near((before + after) / 2, rb.renderPosition.y, 1e-4)
          assert.near(0, rb.renderPosition.x, 1e-6)
          assert.equals(after, go.position.y)
          checked = checked + 1
        end
      end,
    }
    for _ = 1, 12 do loop:advance(1 / 60) end
    assert.is_true(checked >= 3)
  end)

  it("collides by layers and masks: everything by default, only what both masks allow", function()
    local scene = Scene.new()
    local log = {}
    local Rec = recorder(log)
    ground(scene)
    -- a ghost on its own layer whose mask leaves out the default layer falls through
    local ghost = GameObject.new { name = "ghost", position = { -3, 2, 0 } }
    ghost:addComponent(RigidBody2D, { layer = "spec2d.ghost", mask = { "spec2d.ghost" } })
    ghost:addComponent(BoxCollider2D)
    ghost:addComponent(Rec)
    scene:add(ghost)
    -- a layer the ground's mask (everything) allows and whose own mask holds layer 1: lands
    local crate = GameObject.new { name = "crate", position = { 3, 2, 0 } }
    crate:addComponent(RigidBody2D)
    crate:addComponent(BoxCollider2D, { layer = 7, mask = { 1, 7 } })
    crate:addComponent(Rec)
    scene:add(crate)
    -- a trigger whose mask leaves the ghost out never hears of it; it hears the crate
    local zone = GameObject.new { name = "zone", position = { 0, 1, 0 } }
    zone:addComponent(BoxCollider2D, { size = { x = 10, y = 1 }, trigger = true, mask = { 7 } })
    zone:addComponent(Rec)
    scene:add(zone)
    run(scene, 120)
    assert.is_true(ghost.position.y < -2)
    assert.near(0.5, crate.position.y, 0.05)
    assert.equals(0, #find(log, "enter", "ghost"))
    assert.equals(1, #find(log, "enter", "crate"))
    local heard = find(log, "triggerEnter", "zone")
    assert.equals(1, #heard)
    assert.equals(crate, heard[1].other)
    assert.equals(tycho.physics.layer("spec2d.ghost"), ghost:getComponent(RigidBody2D).layer)
    assert.same({ 1, 7 }, crate:getComponent(BoxCollider2D).mask)
    assert.equals(1, zone:getComponent(BoxCollider2D).layer) -- the default
    assert.equals(32, #ground(scene):getComponent(BoxCollider2D).mask)
  end)

  it("raycasts only the layers of its mask", function()
    local scene = Scene.new()
    scene.physics2d.gravity = { 0, 0 }
    for i, x in ipairs({ 3, 6 }) do
      local go = GameObject.new { name = "wall" .. i, position = { x, 0, 0 } }
      go:addComponent(BoxCollider2D, { size = { x = 1, y = 2 }, layer = i == 1 and "spec2d.glass" or nil })
      scene:add(go)
    end
    run(scene, 1)
    local w = scene.physics2d
    assert.equals("wall1", w:raycast({ 0, 0 }, { 1, 0 }, 100).object.name)
    assert.equals("wall2", w:raycast({ 0, 0 }, { 1, 0 }, 100, "default").object.name)
    assert.equals("wall2", w:raycast({ 0, 0 }, { 1, 0 }, 100, 1).object.name)
    assert.equals("wall1", w:raycast({ 0, 0 }, { 1, 0 }, 100, { "spec2d.glass", 1 }).object.name)
    assert.is_nil(w:raycast({ 0, 0 }, { 1, 0 }, 100, {}))
    assert.has_error(function() w:raycast({ 0, 0 }, { 1, 0 }, 100, 33) end,
      "bad argument #4 to 'raycast' (mask must be a layer name or a number 1..32, got 33)")
  end)

  it("lets a kinematic body the game moves push a dynamic one", function()
    local scene = Scene.new()
    scene.physics2d.gravity = { 0, 0 }
    local paddle = GameObject.new { name = "paddle", position = { 0, 0, 0 } }
    paddle:addComponent(RigidBody2D, { type = "kinematic" })
    paddle:addComponent(BoxCollider2D, { size = { x = 1, y = 3 } })
    scene:add(paddle)
    local go = box(scene, "box", 2, 0, {})
    run(scene, 1)
    for _ = 1, 90 do
      paddle.position.x = paddle.position.x + 0.05
      scene:update(DT)
    end
    -- The game owns a kinematic body's transform: it is where the game put it.
    assert.near(4.5, paddle.position.x, 1e-4)
    assert.is_true(go.position.x > paddle.position.x + 0.9, "the box is ahead of the paddle")
    assert.is_true(go.position.x > 5.3)
  end)

  it("moves a kinematic body by its velocity, untouched by gravity", function()
    local scene = Scene.new()
    local go = GameObject.new { name = "platform", position = { 0, 5, 0 } }
    local rb = go:addComponent(RigidBody2D, { type = "kinematic" })
    go:addComponent(BoxCollider2D, { size = { x = 3, y = 0.5 } })
    scene:add(go)
    rb:setVelocity({ 2, 0 })
    run(scene, 60)
    assert.near(2, go.position.x, 1e-4)
    assert.near(5, go.position.y, 0)
    assert.near(2, rb.velocity.x, 1e-6)
  end)

  it("places a dynamic body where the game moved it", function()
    local scene = Scene.new()
    ground(scene)
    local go, rb = box(scene, "box", 0, 0.5, {})
    run(scene, 120)
    assert.is_true(rb.sleeping)
    go.position = { x = 3, y = 10, z = 0 }
    run(scene, 1)
    assert.near(3, go.position.x, 1e-4)
    assert.is_true(go.position.y < 10 and go.position.y > 9.9)
    assert.is_false(rb.sleeping)
  end)

  it("follows fields the game writes in tables it took after the bodies were built, as other tables come and go", function()
    local scene = Scene.new()
    local a = box(scene, "a", 0, 50, {})
    local b = box(scene, "b", 4, 50, {})
    local c = box(scene, "c", 8, 50, {})
    run(scene, 1) -- built while Lua holds none of their tables
    local ap = a.position
    local y = ap.y
    ap.x = 20
    run(scene, 1)
    assert.near(20, ap.x, 1e-4)
    assert.is_true(ap.y < y) -- the table follows its body down
    local bp, cr, cp = b.position, c.rotation, c.position -- cp last: it moves when ap leaves
    a:destroy() -- its table leaves the engine's list: the others' places in it change
    run(scene, 1)
    local by, cy = bp.y, cp.y
    bp.x = -7
    local half = math.pi / 4
    cr.z, cr.w = math.sin(half), math.cos(half)
    run(scene, 1)
    assert.near(-7, bp.x, 1e-4)
    assert.is_true(bp.y < by and cp.y < cy)
    assert.near(8, cp.x, 1e-4)
    assert.near(math.sin(half), cr.z, 1e-4)
    assert.near(math.cos(half), cr.w, 1e-4)
  end)

  it("writes every moving body's tables, however many, with parented ones among them", function()
    local scene = Scene.new()
    local holder = GameObject.new { name = "holder", position = { 0, 10, 0 } }
    scene:add(holder)
    local boxes, startY = {}, {}
    for i = 1, 37 do
      local go = box(scene, "box" .. i, i * 3, 50, {})
      if i % 5 == 0 then go:setParent(holder) end -- keeps its local pose: 10 higher
      local _ = go.position, go.rotation
      boxes[i], startY[i] = go, go.worldPosition.y
    end
    run(scene, 3)
    for i, go in ipairs(boxes) do
      local wp = go.worldPosition
      assert.near(i * 3, wp.x, 1e-3, go.name)
      assert.is_true(wp.y < startY[i] - 0.01, go.name) -- it fell, and its table says so
      assert.near(go.parent and wp.y - 10 or wp.y, go.position.y, 1e-4, go.name)
      assert.near(1, go.rotation.w, 1e-4, go.name)
    end
  end)

  it("sets back a field the game made something other than a number, and the body goes on", function()
    local scene = Scene.new()
    local a = box(scene, "a", 0, 50, {})
    local b = box(scene, "b", 4, 50, {})
    run(scene, 2)
    local ap, ar, bp = a.position, a.rotation, b.position
    local ay, by = ap.y, bp.y
    ap.x, ar.w = "left", nil
    bp.x = 6
    run(scene, 1)
    assert.equals(0, ap.x)
    assert.equals("number", type(ar.w))
    assert.near(1, ar.w, 1e-6)
    assert.is_true(ap.y < ay) -- still falling
    assert.near(6, bp.x, 1e-4) -- the other body read as before
    assert.is_true(bp.y < by)
  end)

  it("takes sizes in the object's units scaled by its world scale", function()
    local scene = Scene.new()
    ground(scene)
    local go = GameObject.new { name = "big", position = { 0, 5, 0 }, scale = { 2, 2, 1 } }
    go:addComponent(RigidBody2D)
    go:addComponent(PolygonCollider2D, { points = { -0.5, -0.5, 0.5, -0.5, 0.5, 0.5, -0.5, 0.5 } })
    scene:add(go)
    run(scene, 240)
    assert.near(1, go.position.y, 0.03) -- a 2 x 2 square resting on y = 0
  end)

  it("resizes a body when its object's scale changes", function()
    local scene = Scene.new()
    ground(scene)
    local go = box(scene, "box", 0, 0.5, {})
    run(scene, 60)
    assert.near(0.5, go.position.y, 0.02)
    go.scale = { 3, 3, 1 }
    run(scene, 120)
    assert.near(1.5, go.position.y, 0.03) -- a 3 x 3 box now, pushed out of the ground
  end)

  it("applies forces, impulses and velocities in game units, and honours mass", function()
    local scene = Scene.new()
    scene.physics2d.gravity = { 0, 0 }
    local go, rb = box(scene, "box", 0, 0, { mass = 2 })
    run(scene, 1)
    assert.near(2, rb.mass, 1e-5)
    rb:applyImpulse({ x = 4, y = 0 })
    assert.near(2, rb.velocity.x, 1e-5)
    rb:setVelocity(tycho.vec3(0, 1, 0))
    assert.near(1, rb.velocity.y, 1e-6)
    rb.velocity = { x = 0, y = 0 }
    rb:applyForce({ 2, 0 })
    run(scene, 1)
    assert.near(DT, rb.velocity.x, 1e-6) -- a = F / m = 1
    rb.angularVelocity = 1
    assert.near(1, rb.angularVelocity, 1e-6)
    run(scene, 1)
    assert.near(2 * math.sin(DT / 2), go.rotation.z * 2, 1e-4)
  end)

  it("keeps body.velocity live: it reads the body now, and a field written reaches it", function()
    local scene = Scene.new()
    scene.physics2d.gravity = { 0, -10 }
    local go, rb = box(scene, "box", 0, 0, {})
    run(scene, 1)
    local v = rb.velocity
    assert.near(-10 * DT, v.y, 1e-6)
    run(scene, 1)
    assert.near(-20 * DT, v.y, 1e-6) -- the same Vec3, read again
    v.x = 3
    assert.near(3, rb.velocity.x, 1e-6)
    rb.velocity.y = 0
    scene.physics2d.gravity = { 0, 0 }
    run(scene, 1)
    assert.near(3 * DT, go.position.x, 1e-6)
    assert.near(3, v.x, 1e-6)
    assert.near(0, v.y, 1e-6)
    go:destroy()
    run(scene, 1)
    assert.has_error(function() return v.x end, "this velocity's body is gone (its object was destroyed or lost its body)")
  end)

  it("scales a pixel game by unitsPerMeter as LÖVE's setMeter does", function()
    local scene = Scene.new()
    local w = scene.physics2d
    w.unitsPerMeter = 64
    w.gravity = { 0, -9.81 * 64 }
    local go = box(scene, "box", 0, 1000, {}, { x = 32, y = 32 })
    run(scene, 30)
    assert.near(1000 - 9.81 * 64 * DT * DT * 30 * 31 / 2, go.position.y, 1e-2)
    assert.has_error(function() w.unitsPerMeter = 32 end, "unitsPerMeter must be set before the world has bodies")
  end)

  it("removes a destroyed object's body from its world at the sweep", function()
    local scene = Scene.new()
    local log = {}
    local g = ground(scene)
    local go = box(scene, "box", 0, 0.5, {})
    go:addComponent(recorder(log))
    run(scene, 30)
    assert.equals(2, scene.physics2d.bodyCount)
    g:destroy()
    assert.equals(2, scene.physics2d.bodyCount) -- still there until the sweep
    run(scene, 1)
    assert.equals(1, scene.physics2d.bodyCount)
    run(scene, 30)
    assert.is_true(go.position.y < 0) -- nothing holds it up now
    assert.equals(0, #find(log, "exit")) -- a destroyed object is not reported
    go:destroy()
    run(scene, 1)
    assert.equals(0, scene.physics2d.bodyCount)
  end)

  it("moves a body to the world of the scene its object moves to", function()
    local a, b = Scene.new(), Scene.new()
    local go = box(a, "box", 0, 10, {})
    run(a, 10)
    assert.equals(1, a.physics2d.bodyCount)
    a:remove(go)
    b:add(go)
    run(a, 1)
    assert.equals(0, a.physics2d.bodyCount)
    local y = go.position.y
    run(b, 1)
    assert.equals(1, b.physics2d.bodyCount)
    assert.is_true(go.position.y < y, "it falls in its new scene")
  end)

  it("rebuilds a body when colliders are added or removed", function()
    local scene = Scene.new()
    ground(scene)
    local go = GameObject.new { name = "ball", position = { 0, 3, 0 } }
    go:addComponent(RigidBody2D)
    scene:add(go)
    run(scene, 30) -- no collider yet: it falls, but hits nothing
    local c = go:addComponent(CircleCollider2D, { radius = 0.5 })
    run(scene, 180)
    assert.near(0.5, go.position.y, 0.03)
    go:removeComponent(c)
    run(scene, 30)
    assert.is_true(go.position.y < 0)
  end)

  it("gives the same bits for the same inputs", function()
    local function simulate()
      local scene = Scene.new()
      ground(scene)
      local out = {}
      local gos = {}
      for i = 1, 12 do
        local go = GameObject.new { name = "p" .. i, position = { (i % 4) * 0.7 - 1, 2 + i * 1.1, 0 }, rotation = tycho.quat.axisAngle(0, 0, 1, i * 0.3) }
        go:addComponent(RigidBody2D, { restitution = 0.3 })
        if i % 2 == 0 then go:addComponent(BoxCollider2D) else go:addComponent(CircleCollider2D, { radius = 0.4 }) end
        scene:add(go)
        gos[i] = go
      end
      run(scene, 200)
      for i, go in ipairs(gos) do
        local p, r = go.position, go.rotation
        out[i] = string.pack("<dddd", p.x, p.y, r.z, r.w)
      end
      return table.concat(out)
    end
    local a, b = simulate(), simulate()
    assert.equals(#a, #b)
    assert.is_true(a == b, "two runs of the same scene differ")
  end)

  it("raises the standard error for bad arguments", function()
    assert.has_error(function() RigidBody2D.new { type = "flying" } end,
      "bad argument #1 to 'new' (type must be 'dynamic', 'static' or 'kinematic', got flying)")
    assert.has_error(function() RigidBody2D.new { mass = "heavy" } end,
      "bad argument #1 to 'new' (mass must be a finite number > 0, got string)")
    assert.has_error(function() RigidBody2D.new(5) end, "bad argument #1 to 'new' (table expected, got number)")
    assert.has_error(function() BoxCollider2D.new { size = 3 } end,
      "bad argument #1 to 'new' (size must be a Vec3 or {x=, y=} of numbers > 0, got number)")
    assert.has_error(function() CircleCollider2D.new { radius = -1 } end,
      "bad argument #1 to 'new' (radius must be a finite number > 0, got -1)")
    assert.has_error(function() PolygonCollider2D.new { points = { 0, 0, 1 } } end,
      "bad argument #1 to 'new' (points must hold 3 to 8 x, y pairs, got 3 numbers)")
    local rb = RigidBody2D.new()
    assert.has_error(function() rb:applyForce("up") end, "bad argument #1 to 'applyForce' (Vec3 or {x=, y=} expected, got string)")
    assert.has_error(function() rb:applyImpulse() end, "bad argument #1 to 'applyImpulse' (Vec3 or {x=, y=} expected, got nil)")
    assert.has_error(function() rb:setVelocity(true) end, "bad argument #1 to 'setVelocity' (Vec3 or {x=, y=} expected, got boolean)")
    local w = Scene.new().physics2d
    assert.has_error(function() w:raycast(nil, { 1, 0 }) end)
    assert.has_error(function() w:raycast({ 0, 0 }, { 0, 0 }) end,
      "bad argument #2 to 'raycast' (direction must not be zero)")
    assert.has_error(function() w:raycast({ 0, 0 }, { 1, 0 }, -1) end,
      "bad argument #3 to 'raycast' (maxDistance must be a finite number >= 0)")
    assert.has_error(function() w.gravity = "down" end)
    assert.has_error(function() w.unitsPerMeter = 0 end)
    assert.has_error(function() BoxCollider2D.new { layer = 0 } end,
      "bad argument #1 to 'new' (layer must be a layer name or a number 1..32, got 0)")
    assert.has_error(function() RigidBody2D.new { mask = { true } } end,
      "bad argument #1 to 'new' (mask must be a layer name or a number 1..32, got boolean)")
  end)

  it("names the option for a zero, negative, NaN or infinite size, mass or radius", function()
    local nan, inf = 0 / 0, math.huge
    for _, m in ipairs({ 0, -1, nan, inf }) do
      assert.has_error(function() RigidBody2D.new { mass = m } end,
        ("bad argument #1 to 'new' (mass must be a finite number > 0, got %s)"):format(tostring(m)))
      assert.has_error(function() CircleCollider2D.new { radius = m } end,
        ("bad argument #1 to 'new' (radius must be a finite number > 0, got %s)"):format(tostring(m)))
      assert.has_error(function() BoxCollider2D.new { size = { x = 1, y = m } } end,
        ("bad argument #1 to 'new' (size.y must be a finite number > 0, got %s)"):format(tostring(m)))
    end
    local rb = RigidBody2D.new()
    assert.has_error(function() rb.mass = nan end, "RigidBody2D.mass must be a finite number > 0, got " .. tostring(nan))
    assert.has_error(function() rb.type = "floating" end,
      "RigidBody2D.type must be 'dynamic', 'static' or 'kinematic', got floating")
  end)

  it("refuses a NaN or million-unit position a game writes, and the other bodies go on", function()
    local scene = Scene.new()
    ground(scene)
    local a = box(scene, "a", -3, 2)
    local b = box(scene, "b", 3, 2)
    run(scene, 5)
    local bx, by = b.position.x, b.position.y
    a.position = { 0 / 0, 1, 0 }
    run(scene, 1)
    assert.equals(-3, a.position.x) -- put back where it was
    b.position = { 1e6, 2, 0 }
    run(scene, 120)
    for _, go in ipairs({ a, b }) do
      local p = go.position
      assert.truthy(p.x == p.x and p.y == p.y and math.abs(p.x) < 10 and math.abs(p.y) < 10, tostring(go))
    end
    assert.near(bx, b.position.x, 1e-3)
    assert.near(0.5, a.position.y, 0.05) -- landed on the ground, finitely
    assert.near(0.5, b.position.y, 0.05)
  end)
end)
