-- examples/arcade's sounds, heard through tycho.audio.render: a shot each time the ship
-- fires, a hit each time a bullet takes an enemy.
local testing = require("tycho.testing")
local tycho = require("tycho")
local dir = testing.here() .. "/.."

local function loudness(pcm)
  local sum, n = 0, #pcm // 4
  for i = 0, n - 1 do
    local v = string.unpack("<f", pcm, i * 4 + 1)
    sum = sum + v * v
  end
  return math.sqrt(sum / math.max(1, n))
end

describe("examples/arcade sounds", function()
  before_each(function() tycho.input.reset() end)
  after_each(function() tycho.input.reset() end)

  it("is silent until the ship fires, then plays a shot per bullet and a hit per kill", function()
    local engine = testing.runGame(dir, 1)
    tycho.audio.render(0.5) -- whatever an earlier game left playing
    assert(loudness((tycho.audio.render(0.1))) < 1e-6, "nothing fired: silence")
    local game = engine.scene:findOneByTag("game"):getComponent(tycho.component("ArcadeGame"))
    local playing = tycho.audio.stats().playing
    tycho.input.inject({ type = "keydown", key = "space" })
    engine:step(1 / 60)
    assert(game.shots == 1 and tycho.audio.stats().playing == playing + 1, "one shot, one sound")
    assert(loudness((tycho.audio.render(0.1))) > 0.01, "the shot is heard")
    -- Keep firing until something is hit; each kill plays the hit sound on top.
    local kills = game.kills
    for _ = 1, 600 do
      engine:step(1 / 60)
      tycho.audio.render(1 / 60)
      if game.kills > kills then break end
    end
    tycho.input.inject({ type = "keyup", key = "space" })
    assert(game.kills > kills, "a bullet hit an enemy")
    assert(loudness((tycho.audio.render(0.1))) > 0.01, "the hit is heard")
  end)
end)
