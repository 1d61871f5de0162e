-- examples/orbit: a sun, planets on orbits, and comets spawned from a prefab that burn
-- out. Headless it prints a line per simulated second; with a renderer it draws.
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

tycho.prefab("comet", { tags = { "comet" }, components = { { Comet, 1.5 } } })

local sun = scene:add(tycho.GameObject.new({ name = "sun", tags = { "star" } }))
for i = 1, 3 do
  local planet = tycho.GameObject.new({ name = "planet" .. i, tags = { "planet" } })
  planet:addComponent(Orbit, i * 4, 1 / i)
  sun:addChild(planet)
  local moon = tycho.GameObject.new("moon" .. i)
  moon:addComponent(Orbit, 1, 3)
  planet:addChild(moon)
end

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
