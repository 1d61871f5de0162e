-- Golden scene: tycho.SpriteAnimation at given frames. A 32 x 8 sheet of four 8 x 8
-- frames (frame k: a colour, and a white bar k pixels wide on its left) drives three
-- sprites under an orthographic camera: a looping clip 0.25 s in (frame 3), a one-shot
-- clip past its end (held on frame 4), and a clip of frames {4, 1} at double speed 0.15 s
-- in (its frame 2: sheet frame 1). The run's two ticks (2/60 s) cross no frame boundary.
local tycho = require("tycho")
local engine = tycho.engine
local scene = engine.scene

engine:setPreset(tycho.presets.forward({ sky = { kind = "color", color = { 0.1, 0.1, 0.1 } }, taa = false, shadow = false }))

local COLORS = { { 220, 40, 40 }, { 40, 200, 60 }, { 50, 80, 230 }, { 230, 200, 40 } }
local rows = {}
for y = 0, 7 do
  local row = {}
  for frame = 1, 4 do
    for x = 0, 7 do
      local c = COLORS[frame]
      if x < frame then row[#row + 1] = "\255\255\255\255"
      elseif y == 0 or y == 7 then row[#row + 1] = "\0\0\0\255"
      else row[#row + 1] = string.char(c[1], c[2], c[3], 255) end
    end
  end
  rows[#rows + 1] = table.concat(row)
end
local sheet = tycho.spriteSheet(tycho.texture.new(32, 8, table.concat(rows), "sheet"), 8, 8)

local function animated(name, x, clips, clip, t, speed)
  local go = scene:add(tycho.GameObject.new({ name = name, position = { x = x, y = 0, z = 0 }, scale = { x = 1.6, y = 1.6, z = 1 } }))
  local anim = go:addComponent(tycho.SpriteAnimation.new({ sheet = sheet, clips = clips, clip = clip, speed = speed }))
  anim:advance(t)
  return anim
end

animated("loop", -2, { walk = { from = 1, to = 4, fps = 10 } }, "walk", 0.25)
animated("once", 0, { die = { from = 1, to = 4, fps = 10, loop = false } }, "die", 3)
animated("fast", 2, { blink = { frames = { 4, 1 }, fps = 5 } }, "blink", 0.15, 2)

local camera = scene:add(tycho.GameObject.new({ name = "camera", position = { x = 0, y = 0, z = 10 } }))
camera:addComponent(tycho.Camera.orthographic(2, 0.1, 100))
