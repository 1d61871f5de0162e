-- tests/lua/animation_spec.lua: sprite sheets and tycho.SpriteAnimation: which frame shows
-- after t seconds (looping and not), that it reaches the Sprite, events once per frame
-- entered however long the step, scaled time, and bad input.
local tycho = require("tycho")

-- A 64 x 32 sheet: two rows of four 16 x 16 frames.
local function sheetTexture()
  return tycho.texture.new(64, 32, string.rep("\255\255\255\255", 64 * 32), "sheet")
end

local function rectOf(r) return { r[1] or r.x, r[2] or r.y, r[3] or r.w, r[4] or r.h } end

describe("tycho.spriteSheet", function()
  it("cuts frames left to right, then top to bottom", function()
    local sheet = tycho.spriteSheet(sheetTexture(), 16, 16)
    assert.equals(8, #sheet.frames)
    assert.same({ 0, 0, 16, 16 }, sheet:frame(1))
    assert.same({ 48, 0, 16, 16 }, sheet:frame(4))
    assert.same({ 0, 16, 16, 16 }, sheet:frame(5))
    assert.same({ 48, 16, 16, 16 }, sheet:frame(8))
  end)

  it("honours margin, spacing and count", function()
    local sheet = tycho.spriteSheet(sheetTexture(), 14, 14, { margin = 1, spacing = 2, count = 5 })
    assert.equals(5, #sheet.frames)
    assert.same({ 1, 1, 14, 14 }, sheet:frame(1))
    assert.same({ 17, 1, 14, 14 }, sheet:frame(2))
    assert.same({ 1, 17, 14, 14 }, sheet:frame(5))
  end)

  it("rejects bad arguments naming them", function()
    assert.has_error(function() tycho.spriteSheet("x", 16, 16) end, "bad argument #1 to 'spriteSheet' (Texture expected, got string)")
    assert.has_error(function() tycho.spriteSheet(sheetTexture(), 0, 16) end)
    assert.has_error(function() tycho.spriteSheet(sheetTexture(), 100, 16) end)
    local ok, err = pcall(tycho.spriteSheet, sheetTexture(), 16, 16, { count = 9 })
    assert.is_false(ok)
    assert.truthy(err:find("count 9 is more than the 8 frames", 1, true))
    assert.has_error(function() tycho.spriteSheet(sheetTexture(), 16, 16):frame(9) end)
  end)
end)

describe("tycho.SpriteAnimation", function()
  local scene, go, sheet
  before_each(function()
    scene = tycho.Scene.new()
    go = scene:add(tycho.GameObject.new("hero"))
    sheet = tycho.spriteSheet(sheetTexture(), 16, 16)
  end)

  local function animate(clips, extra)
    local opts = { sheet = sheet, clips = clips }
    for k, v in pairs(extra or {}) do opts[k] = v end
    return go:addComponent(tycho.SpriteAnimation.new(opts))
  end

  it("shows floor(t * fps) wrapped when looping, held on the last frame when not", function()
    local anim = animate({ walk = { frames = { 5, 6, 7 }, fps = 8 }, die = { from = 1, to = 4, fps = 5, loop = false } })
    for _, t in ipairs({ 0, 0.1, 0.125, 0.3, 0.374, 0.375, 1.0, 7.33 }) do
      local expect = math.floor(t * 8 + 1e-9) % 3 + 1
      assert.equals(expect, (anim:frameAt("walk", t)), "walk at " .. t)
    end
    for _, t in ipairs({ 0, 0.19, 0.2, 0.61, 0.79 }) do
      local f, over = anim:frameAt("die", t)
      assert.equals(math.floor(t * 5 + 1e-9) + 1, f, "die at " .. t)
      assert.is_false(over)
    end
    local f, over = anim:frameAt("die", 0.8)
    assert.equals(4, f)
    assert.is_true(over)
    assert.equals(4, (anim:frameAt("die", 100)))
  end)

  it("drives the Sprite's rect with the scene's ticks", function()
    local anim = animate({ walk = { frames = { 5, 6, 7, 8 }, fps = 10 } }, { clip = "walk" })
    local sprite = go:getComponent(tycho.Sprite)
    assert.truthy(sprite, "a Sprite is added when the object has none")
    assert.equals(sheet.texture, sprite.texture)
    assert.same({ 0, 16, 16, 16 }, rectOf(sprite.rect))
    for tick = 1, 50 do
      scene:update(1 / 60)
      local expect = math.floor(tick / 6 + 1e-9) % 4 + 1
      assert.equals(expect, anim.frame, "tick " .. tick)
      assert.same(sheet:frame(4 + expect), rectOf(sprite.rect), "tick " .. tick)
    end
  end)

  it("uses the object's own Sprite when it has one", function()
    local mine = go:addComponent(tycho.Sprite.new({ color = { 1, 0, 0, 1 } }))
    animate({ idle = { frames = { 3 } } }, { clip = "idle" })
    assert.equals(1, #go:getComponents(tycho.Sprite))
    assert.same({ 32, 0, 16, 16 }, rectOf(mine.rect))
    assert.equals(sheet.texture, mine.texture)
  end)

  it("stops a one-shot clip on its last frame and says so once", function()
    local finished = {}
    local anim = animate({ die = { from = 1, to = 3, fps = 10, loop = false } },
      { clip = "die", onFinish = function(_, clip) finished[#finished + 1] = clip end })
    for _ = 1, 60 do scene:update(1 / 60) end
    assert.equals(3, anim.frame)
    assert.is_true(anim.finished)
    assert.is_false(anim.playing)
    assert.same({ "die" }, finished)
  end)

  it("fires an event once each time its frame is entered, however long the step", function()
    local seen = {}
    local anim = animate({ run = { frames = { 1, 2, 3, 4 }, fps = 10, events = { [1] = "start", [3] = "step" } } },
      { clip = "run", onEvent = function(_, name, frame) seen[#seen + 1] = name .. "@" .. frame end })
    anim:advance(0.05) -- enters frame 1 (playback starts on it), crosses nothing
    assert.same({ "start@1" }, seen)
    anim:advance(0.2)  -- t = 0.25: entered frames 2 and 3
    assert.same({ "start@1", "step@3" }, seen)
    seen = {}
    anim:advance(1.0)  -- t = 1.25: ten frames entered: 4 1 2 3 4 1 2 3 4 1
    assert.same({ "start@1", "step@3", "start@1", "step@3", "start@1" }, seen)
    seen = {}
    for _ = 1, 40 do anim:advance(0.01) end -- t = 1.65: frames 2 3 4 1 entered
    assert.same({ "step@3", "start@1" }, seen)
  end)

  it("fires a one-shot clip's events no further than its last frame", function()
    local seen = 0
    animate({ once = { frames = { 1, 2 }, fps = 10, loop = false, events = { [2] = "hit" } } },
      { clip = "once", onEvent = function() seen = seen + 1 end }):advance(5)
    assert.equals(1, seen)
  end)

  it("holds its frame while the scene's time scale is 0", function()
    local anim = animate({ walk = { frames = { 1, 2, 3, 4 }, fps = 10 } }, { clip = "walk" })
    for _ = 1, 7 do scene:update(1 / 60) end
    assert.equals(2, anim.frame)
    scene.time.scale = 0
    for _ = 1, 30 do scene:update(1 / 60) end
    assert.equals(2, anim.frame)
    scene.time.scale = 1
    for _ = 1, 6 do scene:update(1 / 60) end
    assert.equals(3, anim.frame)
  end)

  it("switches clips with play, and keeps a playing clip unless asked to restart", function()
    local anim = animate({ a = { frames = { 1, 2 }, fps = 10 }, b = { frames = { 7, 8 }, fps = 10 } }, { clip = "a" })
    anim:advance(0.15)
    assert.equals(2, anim.frame)
    anim:play("a")
    assert.equals(2, anim.frame)
    anim:play("a", { restart = true })
    assert.equals(1, anim.frame)
    anim:play("b")
    assert.same({ 32, 16, 16, 16 }, rectOf(go:getComponent(tycho.Sprite).rect))
    anim:pause()
    anim:advance(1)
    assert.equals(1, anim.frame)
  end)

  it("names the clips when asked for one it does not have", function()
    local anim = animate({ walk = { frames = { 1 } }, jump = { frames = { 2 } } })
    local ok, err = pcall(anim.play, anim, "fly")
    assert.is_false(ok)
    assert.truthy(err:find("no clip 'fly' (the clips are jump, walk)", 1, true), err)
  end)

  it("rejects bad clips naming the clip and the field", function()
    local function err(clips)
      local ok, e = pcall(tycho.SpriteAnimation.new, { sheet = sheet, clips = clips })
      assert.is_false(ok)
      return e
    end
    assert.truthy(err({ walk = { frames = { 1, 9 } } }):find("clip 'walk': frame 9 is not in the sheet (1..8)", 1, true))
    assert.truthy(err({ walk = { fps = 0 } }):find("clip 'walk': fps must be a number > 0", 1, true))
    assert.truthy(err({ walk = { fps = 0 / 0 } }):find("fps must be a number > 0", 1, true))
    assert.truthy(err({ walk = { loop = "yes" } }):find("loop must be a boolean", 1, true))
    assert.truthy(err({ walk = { speed = 2 } }):find("unknown field 'speed'", 1, true))
    assert.truthy(err({ walk = { frames = { 1 }, events = { [2] = "x" } } }):find("2 is not a frame of the clip", 1, true))
    assert.has_error(function() tycho.SpriteAnimation.new({ clips = { a = {} } }) end)
  end)
end)
