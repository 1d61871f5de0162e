-- Runs examples/physics/joints headless: the wrecking ball swings on its cable and knocks the
-- wall down, the chain holds its links together as it swings, the windmill turns at its
-- motor's speed. Then renders it offscreen, chosen through examples/physics's option.
local testing = require("tycho.testing")
local tycho = require("tycho")
local dir = testing.here() .. "/../joints"

local function distance(a, b)
  return math.sqrt((a.x - b.x) ^ 2 + (a.y - b.y) ^ 2 + (a.z - b.z) ^ 2)
end

local function load()
  local engine = require("tycho.engine").new({ headless = true })
  local previous = rawget(tycho, "engine")
  tycho.engine = engine
  local ok, game = pcall(dofile, dir .. "/main.lua")
  tycho.engine = previous
  assert(ok, game)
  return engine, game
end

describe("examples/physics/joints", function()
  it("swings the wrecking ball on its cable, through the wall", function()
    local engine, game = load()
    local cable = distance(game.ball.position, game.pivot)
    assert.near(6, cable, 1e-3)
    local crossings, last, far, near = 0, game.ball.position.x, 0, math.huge
    for _ = 1, 360 do
      engine:step(1 / 60)
      local p = game.ball.position
      local d = distance(p, game.pivot)
      far, near = math.max(far, d), math.min(near, d)
      if (last < 0) ~= (p.x < 0) then crossings = crossings + 1 end
      last = p.x
    end
    assert.is_true(game.cable.alive)
    assert.is_true(crossings >= 2, ("the ball crossed under its pivot %d times"):format(crossings))
    assert.is_true(far - 6 < 0.05 and 6 - near < 0.05, ("the cable stretched to [%.3f, %.3f]"):format(near, far))
    local moved = 0
    for i, brick in ipairs(game.wall) do
      local row = (i - 1) // 4
      if distance(brick.position, { x = 0.3, y = 0.5 + row, z = -1.5 + (i - 1) % 4 }) > 0.5 then moved = moved + 1 end
    end
    assert.is_true(moved >= 4, ("the ball moved only %d bricks"):format(moved))
  end)

  it("holds the chain's links together as it falls and swings", function()
    local engine, game = load()
    local worst, lowest = 0, math.huge
    for _ = 1, 180 do
      engine:step(1 / 60)
      -- each link's ends, its centre 0.25 either way along its own X axis, meet the next's
      local prevEnd = game.chainPin
      for _, link in ipairs(game.chain) do
        local along = link.rotation:rotate(tycho.vec3(0.25, 0, 0))
        local p = link.position
        local startPoint = { x = p.x - along.x, y = p.y - along.y, z = p.z - along.z }
        worst = math.max(worst, distance(startPoint, prevEnd))
        prevEnd = { x = p.x + along.x, y = p.y + along.y, z = p.z + along.z }
      end
      lowest = math.min(lowest, game.chain[6].position.y)
    end
    -- Bullet's solver (ten passes a step) lets a chain of light links give a little as it whips:
    -- under 2 cm on 50 cm links, where one rigid pendulum holds to a tenth of a millimetre
    assert.is_true(worst < 0.025, ("a joint in the chain opened %.3f"):format(worst))
    assert.is_true(lowest < game.chainPin.y - 2, "the chain did not fall")
  end)

  it("turns the windmill at its motor's speed", function()
    local engine, game = load()
    for _ = 1, 30 do engine:step(1 / 60) end
    local turned, last = 0, game.mill.angle
    for _ = 1, 60 do
      engine:step(1 / 60)
      local a = game.mill.angle
      turned = turned + math.atan(math.sin(a - last), math.cos(a - last)) -- across the wrap at pi
      last = a
    end
    assert.near(math.pi, math.abs(turned), 0.03)
    game.mill.motorSpeed = 0
    for _ = 1, 10 do engine:step(1 / 60) end
    local a0 = game.mill.angle
    for _ = 1, 30 do engine:step(1 / 60) end
    assert.near(a0, game.mill.angle, 0.01) -- the motor holds it still
  end)

  it("renders offscreen through examples/physics's option, a picture of its own", function()
    local function shot(scene)
      local out = os.tmpname() .. ".png"
      local code, log = testing.shell(("SDL_VIDEODRIVER=offscreen TYCHO_PHYSICS_SCENE=%s %s run %s --frames 40 --screenshot %s --width 200 --height 150")
        :format(scene, testing.quote(tycho.executable), testing.quote(testing.here() .. "/.."), testing.quote(out)))
      assert.equals(0, code, log)
      local img = assert(tycho.image.load(out))
      os.remove(out)
      assert.equals(200, img.width)
      return img.pixels
    end
    local joints, tower = shot("joints"), shot("tower")
    -- Pixels that differ clearly from the tower scene's: the option chose another scene.
    local differ, seen, count = 0, {}, 0
    for i = 1, #joints, 4 do
      local r, g, b = joints:byte(i, i + 2)
      local r2, g2, b2 = tower:byte(i, i + 2)
      if math.max(math.abs(r - r2), math.abs(g - g2), math.abs(b - b2)) > 40 then differ = differ + 1 end
      local k = (r // 16) * 256 + (g // 16) * 16 + (b // 16)
      if not seen[k] then seen[k], count = true, count + 1 end
    end
    assert.is_true(differ > 200 * 150 // 50, ("only %d pixels differ from the tower scene"):format(differ))
    assert.is_true(count >= 8, ("only %d distinct colours"):format(count))
  end)
end)
