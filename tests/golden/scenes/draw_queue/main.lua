-- Scene for tests/golden/draw_spec.lua: tycho.draw's queue with a window: runs of one
-- texture batch, the queue empties once a frame drew it, and calls made between frames
-- wait for the next one. Prints what it saw; the spec reads the log.
local tycho = require("tycho")
local engine = tycho.engine

engine:setPreset(tycho.presets.forward({ sky = { kind = "color", color = { 0, 0, 0 } }, taa = false, shadow = false }))
local draw = tycho.draw
local frame = 0

engine:beforeRender(function()
  frame = frame + 1
  for i = 1, 100 do draw.text("label " .. i, 2, i) end          -- one atlas page: one draw
  for i = 1, 100 do draw.rect("fill", i, 60, 1, 10, { 1, 0, 0 }) end -- white texture: one more
  draw.text("last", 2, 100)                                        -- back to the atlas: one more
  local quads, draws = draw.queued()
  print(("frame %d queued: %d quads, %d draws"):format(frame, quads, draws))
end)

engine:afterFrame(function()
  local quads = draw.queued()
  print(("frame %d after: %d quads, draw calls %d"):format(frame, quads, tycho.stats.render().drawCalls))
end)
