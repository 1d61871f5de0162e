-- examples/orbit: a sun, planets on orbits with moons on theirs (children move with their
-- parents), and comets spawned from a prefab that burn out. Headless it prints a line per
-- simulated second; with a window it draws them, lit by the sun.
local tycho = require("tycho")
local engine = tycho.engine
local scene = engine.scene

local Orbit = tycho.component("Orbit")
function Orbit:init(radius, speed) self.radius, self.speed, self.angle = radius, speed, 0 end
function Orbit:update(dt)
  self.angle = self.angle + self.speed * dt
  local p = self.gameObject.position
  p.x, p.z = math.cos(self.angle) * self.radius, math.sin(self.angle) * self.radius
end

local Comet = tycho.component("Comet")
function Comet:init(life) self.life = life end
function Comet:update(dt)
  self.gameObject.position.y = self.gameObject.position.y - 4 * dt
  self.life = self.life - dt
  if self.life <= 0 then self.gameObject:destroy() end
end

engine:setPreset(tycho.presets.forward({ sky = { kind = "color", color = { 0.01, 0.01, 0.03 } } }))

local sphere = tycho.mesh.sphere()
local function material(color, glow)
  return tycho.material({ baseColor = color, emissive = glow, roughness = 0.8 })
end
local COMET, MOON = material({ 0.8, 0.9, 1, 1 }, { 0.5, 0.7, 1, 1 }), material({ 0.7, 0.7, 0.7, 1 })
local PLANETS = { material({ 0.3, 0.5, 1, 1 }), material({ 0.9, 0.4, 0.2, 1 }), material({ 0.4, 0.8, 0.4, 1 }) }

tycho.prefab("comet", { tags = { "comet" }, scale = { x = 0.3, y = 0.3, z = 0.3 },
  components = { { Comet, 1.5 }, { tycho.MeshRenderer, sphere, COMET } } })

-- Scale passes down to children, so the sun's and the moons' sizes sit on leaves: the sun's
-- glowing body is a child of its own, and the planets keep unit scale for their moons.
local sun = scene:add(tycho.GameObject.new({ name = "sun", tags = { "star" } }))
sun:addComponent(tycho.PointLight.new({ color = { 1, 0.9, 0.7 }, intensity = 80, range = 40 }))
for i = 1, 3 do
  local planet = tycho.GameObject.new({ name = "planet" .. i, tags = { "planet" } })
  planet:addComponent(Orbit, i * 4, 1 / i)
  planet:addComponent(tycho.MeshRenderer.new(sphere, PLANETS[i]))
  sun:addChild(planet)
  local moon = tycho.GameObject.new({ name = "moon" .. i, scale = { x = 0.4, y = 0.4, z = 0.4 } })
  moon:addComponent(Orbit, 1, 3)
  moon:addComponent(tycho.MeshRenderer.new(sphere, MOON))
  planet:addChild(moon)
end
local body = tycho.GameObject.new({ name = "sun body", scale = { x = 2.5, y = 2.5, z = 2.5 } })
body:addComponent(tycho.MeshRenderer.new(sphere, material({ 1, 0.8, 0.3, 1 }, { 1, 0.7, 0.2, 1 })))
sun:addChild(body)

local camera = scene:add(tycho.GameObject.new({ name = "camera", position = { x = 0, y = 14, z = 18 } }))
camera.rotation:setAxisAngle(1, 0, 0, -0.66) -- looks down at the sun
camera:addComponent(tycho.Camera.perspective(60, 0.1, 200))

scene:addSystem("gameLogic", function()
  if scene.time.frameCount % 30 == 0 then scene:spawn("comet", { x = 0, y = 10, z = 0 }) end
end)

engine:afterFrame(function()
  local t = scene.time
  if t.frameCount % 60 == 0 then
    local moon = scene:findOneByTag("planet").children[1]
    local p = moon.worldPosition
    print(("t=%.1fs planets=%d comets=%d moon1 at (%.2f, %.2f, %.2f)"):format(
      t.elapsed, #scene:findByTag("planet"), #scene:findByTag("comet"), p.x, p.y, p.z))
  end
end)
