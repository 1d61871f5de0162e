-- Pixel scene: a body drawn between its last two physics steps. A white sprite 1 unit wide
-- on a 2D body moving right at 60 units a second with no gravity; the loop steps 1/60 s and
-- the frame is 0.025 s long (`--dt 0.025 --frames 1`), so the first frame runs one step
-- (x from 0 to 1) and draws with alpha 0.5: at x = 0.5, columns 80..99 under an
-- orthographic camera of size 3 at 160 x 120 (20 pixels a unit). TYCHO_SPEC_INTERPOLATE=0
-- turns interpolation off: drawn at the stepped x = 1, columns 90..109.
local tycho = require("tycho")
local engine = tycho.engine
local scene = engine.scene

engine:setPreset(tycho.presets.forward({ sky = { kind = "color", color = { 0, 0, 0 } }, taa = false, shadow = false }))

local go = scene:add(tycho.GameObject.new({ name = "mover", position = { x = 0, y = 0, z = 0 } }))
go:addComponent(tycho.Sprite.new({}))
local body = go:addComponent(tycho.RigidBody2D.new({
  gravityScale = 0,
  interpolate = os.getenv("TYCHO_SPEC_INTERPOLATE") ~= "0",
}))
go:addComponent(tycho.BoxCollider2D.new({ size = { x = 1, y = 1 } }))
body:setVelocity({ 60, 0 })

local camera = scene:add(tycho.GameObject.new({ name = "camera", position = { x = 0, y = 0, z = 10 } }))
camera:addComponent(tycho.Camera.orthographic(3, 0.1, 100))
