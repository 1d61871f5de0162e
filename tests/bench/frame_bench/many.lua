-- tests/bench/frame_bench/many.lua: 10 000 objects (cubes and spheres on a 100 x 100 grid)
-- on a ground plane, a sun, eight point lights, a camera over the field; a tenth of the
-- objects bob each tick. BENCH_OBJECTS sets the count (the grid's first rows, 100 wide).
local tycho = require("tycho")
local engine = tycho.engine
local scene = engine.scene

engine:setPreset(tycho.presets.forward({ sky = { kind = "color" }, taa = false }))

local meshes = { tycho.mesh.cube(), tycho.mesh.sphere() }
local materials = {}
for i = 1, 8 do
  materials[i] = tycho.material({ baseColor = { (i % 2) * 0.7 + 0.2, ((i // 2) % 2) * 0.7 + 0.2, ((i // 4) % 2) * 0.7 + 0.2, 1 } })
end

local Bob = tycho.component("FrameBenchBob")
function Bob:init(phase) self.phase = phase end
function Bob:update()
  self.gameObject.position.y = 0.5 + 0.3 * math.sin(self.time.elapsed * 2 + self.phase)
end

local ground = scene:add(tycho.GameObject.new({ name = "ground", scale = { x = 120, y = 1, z = 120 } }))
ground:addComponent(tycho.MeshRenderer.new(tycho.mesh.plane(), tycho.material({ baseColor = { 0.5, 0.5, 0.5, 1 } })))
local objects = tonumber(os.getenv("BENCH_OBJECTS") or "") or 10000
local n = 0
for x = 1, 100 do
  for z = 1, 100 do
    n = n + 1
    if n > objects then break end
    local go = scene:add(tycho.GameObject.new({ position = { x = (x - 50.5) * 1.1, y = 0.5, z = (z - 50.5) * 1.1 }, scale = { x = 0.6, y = 0.6, z = 0.6 } }))
    go:addComponent(tycho.MeshRenderer.new(meshes[n % 2 + 1], materials[n % 8 + 1]))
    if n % 10 == 0 then go:addComponent(Bob, n * 0.1) end
  end
end

local sun = scene:add(tycho.GameObject.new("sun"))
sun:addComponent(tycho.DirectionalLight.new({ direction = tycho.vec3(-0.4, -1, -0.3), intensity = 3 }))
for i = 1, 8 do
  local a = i / 8 * 2 * math.pi
  local lamp = scene:add(tycho.GameObject.new({ position = { x = math.cos(a) * 20, y = 2, z = math.sin(a) * 20 } }))
  lamp:addComponent(tycho.PointLight.new({ color = { 1, 0.6, 0.3 }, intensity = 10, range = 12 }))
end

local camera = scene:add(tycho.GameObject.new({ name = "camera", position = { x = 0, y = 30, z = 60 } }))
camera.rotation:setAxisAngle(1, 0, 0, -0.5)
camera:addComponent(tycho.Camera.perspective(60, 0.5, 300))
