-- crafty's sounds, heard through tycho.audio.render: the wind while a world is open,
-- footsteps while walking on the ground, a sound from where a block breaks or is placed.
local testing = require("tycho.testing")
local tycho = require("tycho")
local dir = testing.here() .. "/.."
local input = tycho.input

local function tmp()
  local p = os.tmpname()
  os.remove(p)
  return p .. ".sqlite"
end

local function startGame(env, frames)
  local getenv = os.getenv
  os.getenv = function(k) return env[k] or getenv(k) end -- luacheck: ignore
  local ok, engine = pcall(testing.runGame, dir, frames)
  os.getenv = getenv -- luacheck: ignore
  assert(ok, engine)
  return engine
end

local function loudness(pcm)
  local sum, n = 0, #pcm // 4
  for i = 0, n - 1 do
    local v = string.unpack("<f", pcm, i * 4 + 1)
    sum = sum + v * v
  end
  return math.sqrt(sum / math.max(1, n))
end

describe("crafty sounds", function()
  before_each(function() input.reset() end)
  after_each(function() input.reset() end)

  it("blows a quiet wind in a world, steps while walking, sounds where blocks change", function()
    local path = tmp()
    local engine = startGame({ CRAFTY_SAVES = path, CRAFTY_AUTOSTART = "4711", CRAFTY_VIEW = "2" }, 5)
    local game = engine.crafty
    assert(game.state == "playing")
    local sounds = game.sounds
    assert(sounds.wind.isPlaying, "the wind plays in a world")
    local wind = loudness((tycho.audio.render(0.5)))
    assert(wind > 1e-4 and wind < 0.1, ("the wind is there and quiet: %g"):format(wind))

    -- Land first (a fresh world drops the player from above the terrain), then walk
    -- forward on the ground for a second: about 4 blocks at walking speed.
    for _ = 1, 600 do
      if game.player.onGround then break end
      input.beginFrame()
      engine:step(1 / 60)
    end
    assert(game.player.onGround)
    local landed = sounds.steps
    input.inject({ type = "keydown", key = "w" })
    for _ = 1, 60 do
      input.beginFrame()
      engine:step(1 / 60)
    end
    input.inject({ type = "keyup", key = "w" })
    assert(sounds.steps >= landed + 2, "footsteps while walking")

    -- Look straight down and break the block underfoot, then place one back.
    local p = game.player
    p.pitch = -math.pi / 2 + 0.01
    local before = tycho.audio.stats().playing
    assert(game.breakOrPlace("break"))
    assert(tycho.audio.stats().playing == before + 1, "a break sound")
    local loud = loudness((tycho.audio.render(0.1)))
    assert(loud > wind, ("the break is louder than the wind: %g vs %g"):format(loud, wind))

    game.leave()
    assert(not sounds.wind.isPlaying, "no wind in the menus")
    tycho.audio.render(0.3)
    for _, s in ipairs({ "", "-wal", "-shm" }) do os.remove(path .. s) end
  end)
end)
