-- tests/lua/camera_spec.lua: Camera:worldToScreen, :screenToWorld, :screenPointToRay and
-- :getViewportSize (scripts/tycho/render.lua over engine/render/camera.c): screen
-- coordinates from the top-left in screen units, depth in world units along the view,
-- perspective and orthographic, under the camera's current world transform.
local Engine = require("tycho.engine")
local GameObject = tycho.GameObject

local W, H = 800, 600

local function newCamera(component, opts)
  local engine = Engine.new({ headless = true, width = W, height = H })
  local go = engine.scene:add(GameObject.new(opts or { name = "camera" }))
  return go:addComponent(component), go, engine
end

local function errorOf(fn)
  local ok, err = pcall(fn)
  assert.is_false(ok, "expected an error")
  return tostring(err)
end

local function assertNear3(ax, ay, az, bx, by, bz, eps, what)
  assert.near(ax, bx, eps, what .. " x")
  assert.near(ay, by, eps, what .. " y")
  assert.near(az, bz, eps, what .. " z")
end

local function unit(x, y, z)
  local n = math.sqrt(x * x + y * y + z * z)
  return x / n, y / n, z / n
end

local SCREEN_POINTS = { { 0, 0 }, { W, H }, { W / 2, H / 2 }, { 123.5, 456.25 }, { 799, 1 }, { -50, 700 } }

describe("Camera screen <-> world", function()
  describe("perspective", function()
    local cam, go
    before_each(function()
      cam, go = newCamera(tycho.Camera.perspective(60, 0.1, 500), { name = "camera", position = { 3, 5, 12 } })
      go:lookAt(tycho.vec3(-2, 0, -7))
    end)

    it("measures against its engine's frame size", function()
      assert.same({ W, H }, { cam:getViewportSize() })
    end)

    it("round-trips screen -> world -> screen within 1e-4", function()
      for _, s in ipairs(SCREEN_POINTS) do
        for _, depth in ipairs({ 0.1, 0.5, 3, 40, 499 }) do
          local p = cam:screenToWorld(s[1], s[2], depth)
          local x, y, d = cam:worldToScreen(p)
          local what = ("(%g, %g) at %g"):format(s[1], s[2], depth)
          assert.near(s[1], x, 1e-4, what .. " x")
          assert.near(s[2], y, 1e-4, what .. " y")
          assert.near(depth, d, 1e-4, what .. " depth")
        end
      end
    end)

    it("round-trips world -> screen -> world", function()
      for _, p in ipairs({ { 0, 0, 0 }, { -2, 0, -7 }, { 10, -3, 2 }, { 3, 5, 11 } }) do
        local x, y, d = cam:worldToScreen(tycho.vec3(p[1], p[2], p[3]))
        local q = cam:screenToWorld(x, y, d)
        assertNear3(p[1], p[2], p[3], q.x, q.y, q.z, 1e-4, "world")
      end
    end)

    it("maps the centre of the screen onto the camera's forward ray", function()
      local f = go.worldRotation:rotate(tycho.vec3(0, 0, -1))
      local pos = go.worldPosition
      for _, depth in ipairs({ 1, 10, 100 }) do
        local p = cam:screenToWorld(W / 2, H / 2, depth)
        assertNear3(pos.x + f.x * depth, pos.y + f.y * depth, pos.z + f.z * depth, p.x, p.y, p.z, 1e-4, "centre")
      end
      -- the target lookAt aimed at is at the centre, at its distance
      local x, y, d = cam:worldToScreen({ -2, 0, -7 })
      assert.near(W / 2, x, 1e-3)
      assert.near(H / 2, y, 1e-3)
      assert.near(math.sqrt(25 + 25 + 361), d, 1e-3)
      local origin, dir = cam:screenPointToRay(W / 2, H / 2)
      assertNear3(f.x, f.y, f.z, dir.x, dir.y, dir.z, 1e-5, "forward ray direction")
      assertNear3(pos.x + f.x * 0.1, pos.y + f.y * 0.1, pos.z + f.z * 0.1, origin.x, origin.y, origin.z, 1e-5,
        "the ray starts on the near plane")
    end)

    it("puts +Y up and +X right, the top-left corner at 0, 0", function()
      local plain = newCamera(tycho.Camera.perspective(90, 0.1, 100))
      -- at depth 1 a 90 degree fov spans y in -1..1 and x in -4/3..4/3
      local x, y, d = plain:worldToScreen(tycho.vec3(-4 / 3, 1, -1))
      assertNear3(0, 0, 1, x, y, d, 1e-4, "top-left")
      x, y = plain:worldToScreen(4 / 3, -1, -1)
      assert.near(W, x, 1e-4)
      assert.near(H, y, 1e-4)
      local _, _, behind = plain:worldToScreen(0, 0, 5)
      assert.near(-5, behind, 1e-6, "behind the camera the depth is negative")
    end)

    it("rays pass through the points that show at their pixel", function()
      for _, s in ipairs(SCREEN_POINTS) do
        local origin, dir = cam:screenPointToRay(s[1], s[2])
        assert.near(1, dir:length(), 1e-6, "unit direction")
        for _, t in ipairs({ 0, 1, 25 }) do
          local p = { origin.x + dir.x * t, origin.y + dir.y * t, origin.z + dir.z * t }
          local x, y = cam:worldToScreen(p)
          assert.near(s[1], x, 1e-4, "ray x")
          assert.near(s[2], y, 1e-4, "ray y")
        end
        local _, _, d = cam:worldToScreen(origin)
        assert.near(0.1, d, 1e-6, "origin on the near plane")
      end
    end)

    it("follows the camera's current transform, its parent's too", function()
      local parent = cam.gameObject.scene:add(GameObject.new({ name = "rig", position = { 0, 0, 0 } }))
      local child = GameObject.new({ name = "cam2" })
      parent:addChild(child)
      local c2 = child:addComponent(tycho.Camera.perspective(60))
      local x, y = c2:worldToScreen(0, 0, -10)
      assert.near(W / 2, x, 1e-4)
      assert.near(H / 2, y, 1e-4)
      parent.position.x = 5 -- the camera moves right: the point moves left on screen
      x, y = c2:worldToScreen(0, 0, -10)
      assert.is_true(x < W / 2 - 1, "moved: " .. x)
      assert.near(H / 2, y, 1e-4)
    end)
  end)

  describe("orthographic", function()
    local cam, go
    before_each(function()
      cam, go = newCamera(tycho.Camera.orthographic(5, -100, 100), { name = "camera", position = { 10, 20, 30 } })
    end)

    it("maps pixels linearly onto world units", function()
      -- size 5: 600 pixels are 10 units tall, so 60 pixels a unit both ways
      local x, y, d = cam:worldToScreen(10, 20, 25)
      assertNear3(W / 2, H / 2, 5, x, y, d, 1e-6, "centre")
      x, y = cam:worldToScreen(11, 20, 0)
      assert.near(W / 2 + 60, x, 1e-6)
      x, y = cam:worldToScreen(10, 22.5, -40)
      assert.near(W / 2, x, 1e-6)
      assert.near(H / 2 - 150, y, 1e-6)
      x, y = cam:worldToScreen(10 - 5 * W / H, 25, 30)
      assert.near(0, x, 1e-6)
      assert.near(0, y, 1e-6)
      local p = cam:screenToWorld(W / 2 + 30, H / 2 + 30, 7)
      assertNear3(10.5, 19.5, 23, p.x, p.y, p.z, 1e-9, "a pixel offset")
    end)

    it("round-trips and casts parallel rays along its forward", function()
      go:lookAt(tycho.vec3(0, 0, 0))
      local f = go.worldRotation:rotate(tycho.vec3(0, 0, -1))
      for _, s in ipairs(SCREEN_POINTS) do
        for _, depth in ipairs({ -50, 0, 12.5, 99 }) do
          local x, y, d = cam:worldToScreen(cam:screenToWorld(s[1], s[2], depth))
          assertNear3(s[1], s[2], depth, x, y, d, 1e-4, "round trip")
        end
        local origin, dir = cam:screenPointToRay(s[1], s[2])
        assertNear3(f.x, f.y, f.z, dir.x, dir.y, dir.z, 1e-5, "direction")
        local x, y, d = cam:worldToScreen(origin)
        assertNear3(s[1], s[2], -100, x, y, d, 1e-4, "origin on the near plane")
      end
      local x, y = cam:worldToScreen(0, 0, 0)
      assert.near(W / 2, x, 1e-4)
      assert.near(H / 2, y, 1e-4)
    end)
  end)

  describe("viewport", function()
    it("without an engine size, measures against tycho.window.getSize()", function()
      local scene = tycho.Scene.new()
      local cam = scene:add(GameObject.new("camera")):addComponent(tycho.Camera.orthographic(5))
      local w, h = tycho.window.getSize()
      assert.same({ w, h }, { cam:getViewportSize() })
      local x, y = cam:worldToScreen(0, 0, 0)
      assert.near(w / 2, x, 1e-6)
      assert.near(h / 2, y, 1e-6)
      local engine = Engine.new({ headless = true })
      local cam2 = engine.scene:add(GameObject.new("camera")):addComponent(tycho.Camera.perspective())
      assert.same({ w, h }, { cam2:getViewportSize() })
    end)

    it("screenToWorld's depth defaults to the near plane, where rays start", function()
      local cam = newCamera(tycho.Camera.perspective(60, 0.5, 100))
      local p = cam:screenToWorld(100, 200)
      local origin = cam:screenPointToRay(100, 200)
      assertNear3(origin.x, origin.y, origin.z, p.x, p.y, p.z, 1e-12, "near")
      local _, _, d = cam:worldToScreen(p)
      assert.near(0.5, d, 1e-9)
    end)

    it("returns Vec3 values that work as positions", function()
      local cam = newCamera(tycho.Camera.perspective(60))
      local p = cam:screenToWorld(W / 2, H / 2, 4)
      assert.equals("Vec3", getmetatable(p).__name)
      local target = GameObject.new("target")
      target.position = p
      assert.near(-4, target.position.z, 1e-6)
      assert.near(4, p:length(), 1e-6)
      local x, y = cam:worldToScreen(target)
      assert.near(W / 2, x, 1e-4)
      assert.near(H / 2, y, 1e-4)
      local sx, sy = unit(1, 1, 1)
      assert.is_number(sx + sy)
    end)
  end)

  describe("bad input", function()
    it("raises the standard error naming the argument", function()
      local cam = newCamera(tycho.Camera.perspective(60))
      assert.truthy(errorOf(function() cam:worldToScreen("here") end)
        :find("bad argument #1 to 'worldToScreen' (Vec3 expected, got string)", 1, true))
      assert.truthy(errorOf(function() cam:worldToScreen() end)
        :find("bad argument #1 to 'worldToScreen' (Vec3 expected, got no value)", 1, true))
      assert.truthy(errorOf(function() cam:worldToScreen(1, 2) end)
        :find("bad argument #3 to 'worldToScreen' (number expected, got no value)", 1, true))
      assert.truthy(errorOf(function() cam:screenToWorld("1", 2, 3) end)
        :find("bad argument #1 to 'screenToWorld' (number expected, got string)", 1, true))
      assert.truthy(errorOf(function() cam:screenToWorld(1, 2, {}) end)
        :find("bad argument #3 to 'screenToWorld' (number expected, got table)", 1, true))
      assert.truthy(errorOf(function() cam:screenPointToRay(1) end)
        :find("bad argument #2 to 'screenPointToRay' (number expected, got no value)", 1, true))
    end)

    it("says so when the camera is on no GameObject", function()
      local cam = tycho.Camera.perspective(60)
      assert.truthy(errorOf(function() cam:worldToScreen(0, 0, 0) end)
        :find("worldToScreen: the camera is not attached to a GameObject", 1, true))
      assert.truthy(errorOf(function() cam:screenPointToRay(0, 0) end)
        :find("not attached", 1, true))
    end)

    it("refuses a camera scaled to nothing instead of returning NaN", function()
      local cam, go = newCamera(tycho.Camera.perspective(60))
      go.scale = { 0, 0, 0 }
      assert.truthy(errorOf(function() cam:worldToScreen(0, 0, -1) end):find("cannot be inverted", 1, true))
    end)
  end)
end)
