-- examples/hello: a lit, shadowed sphere on a plane, in about twenty lines; keys 1, 2 and 3
-- switch between the three presets, each showing what it adds (the caption says what).
local tycho = require("tycho")
local engine = tycho.engine
local scene = engine.scene

engine:setPreset(tycho.presets.forward({ sky = { kind = "color" } }))

local ground = scene:add(tycho.GameObject.new({ name = "ground", scale = { x = 20, y = 1, z = 20 } }))
ground:addComponent(tycho.MeshRenderer.new(tycho.mesh.plane(), tycho.material({ baseColor = { 0.6, 0.6, 0.6, 1 } })))

local ball = scene:add(tycho.GameObject.new({ name = "ball", position = { x = 0, y = 0.5, z = 0 } }))
ball:addComponent(tycho.MeshRenderer.new(tycho.mesh.sphere(), tycho.material({ baseColor = { 0.9, 0.3, 0.2, 1 }, roughness = 0.4 })))

local sun = scene:add(tycho.GameObject.new("sun"))
sun:addComponent(tycho.DirectionalLight.new({ direction = tycho.vec3(-0.4, -1, -0.3), intensity = 3 }))

local camera = scene:add(tycho.GameObject.new({ name = "camera", position = { x = 0, y = 2.5, z = 6 } }))
camera.rotation:setAxisAngle(1, 0, 0, -0.32) -- looks at the ball
camera:addComponent(tycho.Camera.perspective(60, 0.1, 100))

-- ---- beyond the twenty lines: the presets side by side ------------------------------
-- forward+ bins point and spot lights per screen tile, so a ring of many small lights costs
-- little; deferred shades every light once per pixel from its G-buffer and can add ambient
-- occlusion (the contact shadow under the ball) and bloom.
local PRESETS = {
  { "1 forward: sun, shadow, sky", function() return tycho.presets.forward({ sky = { kind = "color" } }) end },
  { "2 forward+: + 48 point lights, culled per tile", function() return tycho.presets.forwardPlus({ sky = { kind = "color" } }) end },
  { "3 deferred: + 48 point lights, SSAO, bloom", function()
    return tycho.presets.deferred({ sky = { kind = "color" }, ao = "ssao", bloom = true })
  end },
}
local lights = {}
for i = 1, 48 do
  local a = i / 48 * 2 * math.pi
  local light = scene:add(tycho.GameObject.new({ name = "light" .. i, position = { x = math.cos(a) * 3, y = 0.3, z = math.sin(a) * 3 } }))
  local hue = i / 48
  light:addComponent(tycho.PointLight.new({ color = { 0.5 + 0.5 * math.cos(6.28 * hue), 0.5 + 0.5 * math.cos(6.28 * (hue - 1 / 3)),
    0.5 + 0.5 * math.cos(6.28 * (hue - 2 / 3)) }, intensity = 6, range = 1.2 }))
  light.enabled = false
  lights[i] = light
end
local ui = tycho.ui.feature()
local current = 1
local function choose(i)
  current = i
  engine:setPreset(PRESETS[i][2]())
  engine:addFeature(ui)
  for _, light in ipairs(lights) do light.enabled = i > 1 end
end
choose(tonumber(os.getenv("TYCHO_HELLO_PRESET")) or 1)

engine:beforeFrame(function()
  for i = 1, #PRESETS do
    if tycho.input.wasPressed(tostring(i)) and i ~= current then choose(i) end
  end
  tycho.ui.text(10, 10, PRESETS[current][1], { 0.1, 0.1, 0.1, 1 })
end)
