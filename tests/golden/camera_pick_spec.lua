-- tests/golden/camera_pick_spec.lua: camera:worldToScreen names the pixel the renderer
-- really draws a point at. A small white unlit cube is rendered through `tycho run
-- --screenshot` by a turned perspective and orthographic camera; the centre of its pixels
-- must be where worldToScreen put the cube's centre. Needs a GL 4.5 context, as the golden
-- images do (ctest runs this folder with SDL_VIDEODRIVER=offscreen).
local testing = require("tycho.testing")
local tycho = require("tycho")

local WIDTH, HEIGHT = 320, 200

local GAME = [[
local engine = tycho.engine
local scene = engine.scene
local cam = scene:add(tycho.GameObject.new({ name = "camera", position = { 3, 4, 9 } }))
local camera = cam:addComponent(%s)
cam:lookAt(tycho.vec3(0, 0, 0))
local box = scene:add(tycho.GameObject.new({ name = "box", position = { %g, %g, %g }, scale = { 0.15, 0.15, 0.15 } }))
box:addComponent(tycho.MeshRenderer, tycho.mesh.cube(), tycho.material({ baseColor = { 1, 1, 1 }, unlit = true }))
engine:setPreset(tycho.presets.forward({ sky = { kind = "color", color = { 0, 0, 0 } }, shadow = false }))
local x, y = camera:worldToScreen(box)
print(("predicted=%%.4f,%%.4f"):format(x, y))
]]

local function render(cameraExpr, pos)
  local dir = os.tmpname()
  os.remove(dir)
  assert(os.execute("mkdir -p " .. testing.quote(dir)))
  local f = assert(io.open(dir .. "/main.lua", "w"))
  f:write(GAME:format(cameraExpr, pos[1], pos[2], pos[3]))
  f:close()
  local shot = dir .. "/shot.png"
  local cmd = ("%s run %s --frames 2 --no-watch --screenshot %s --width %d --height %d"):format(
    testing.quote(tycho.executable), testing.quote(dir), testing.quote(shot), WIDTH, HEIGHT)
  local code, log = testing.shell(cmd)
  local img, err = tycho.image.load(shot)
  os.execute("rm -rf " .. testing.quote(dir))
  assert(code == 0, ("rendering failed (exit %s):\n%s"):format(tostring(code), log))
  assert(img, err)
  local px, py = log:match("predicted=([%-%d.]+),([%-%d.]+)")
  assert(px, log)
  return img, tonumber(px), tonumber(py)
end

-- The centre of the cube's pixels: the brightest ones, grey-white against the sky.
local function centroid(img)
  local best = 0
  for i = 1, #img.pixels, 4 do
    local r, g, b = img.pixels:byte(i, i + 2)
    local v = math.min(r, g, b)
    if v > best then best = v end
  end
  local sx, sy, n = 0, 0, 0
  for y = 0, img.height - 1 do
    for x = 0, img.width - 1 do
      local i = (y * img.width + x) * 4 + 1
      local r, g, b = img.pixels:byte(i, i + 2)
      if math.min(r, g, b) >= best - 4 then sx, sy, n = sx + x + 0.5, sy + y + 0.5, n + 1 end
    end
  end
  return sx / n, sy / n, n
end

describe("camera:worldToScreen against the rendered image", function()
  for _, case in ipairs({
    { "perspective", "tycho.Camera.perspective(50, 0.1, 100)", { 1.5, 0.5, -1 } },
    { "orthographic", "tycho.Camera.orthographic(3)", { -1.7, 1.2, 0.4 } },
  }) do
    it(case[1] .. ": the cube is drawn where worldToScreen says", function()
      local img, px, py = render(case[2], case[3])
      assert.equals(WIDTH, img.width)
      local cx, cy, n = centroid(img)
      assert.is_true(n >= 4 and n < 400, "the cube covers " .. n .. " pixels")
      assert.near(px, cx, 0.75, "x")
      assert.near(py, cy, 0.75, "y")
    end)
  end
end)
