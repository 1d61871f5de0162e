-- tests/golden/scenes/lit.lua: the lit scene every preset's golden image draws: a ground
-- plane, a sphere, a cube and a tall box under a shadow-casting sun, one red point light,
-- a fixed camera. Nothing moves, so any frame is the same picture.
local tycho = require("tycho")

---Builds the scene into tycho.engine with the given preset.
---@param preset table a tycho.presets.* result
return function(preset)
  local engine = tycho.engine
  local scene = engine.scene
  engine:setPreset(preset)

  local function add(name, mesh, color, position, scale)
    local go = scene:add(tycho.GameObject.new({ name = name, position = position, scale = scale }))
    go:addComponent(tycho.MeshRenderer.new(mesh, tycho.material({ baseColor = color, roughness = 0.5 })))
    return go
  end
  add("ground", tycho.mesh.plane(), { 0.7, 0.7, 0.7, 1 }, { x = 0, y = 0, z = 0 }, { x = 12, y = 1, z = 12 })
  add("sphere", tycho.mesh.sphere(), { 0.9, 0.25, 0.2, 1 }, { x = -1.2, y = 1, z = 0 })
  add("cube", tycho.mesh.cube(), { 0.2, 0.5, 0.9, 1 }, { x = 1.3, y = 0.5, z = 0.4 })
  add("pillar", tycho.mesh.cube(), { 0.9, 0.8, 0.3, 1 }, { x = 0.2, y = 1.5, z = -2 }, { x = 0.6, y = 3, z = 0.6 })

  local sun = scene:add(tycho.GameObject.new("sun"))
  sun:addComponent(tycho.DirectionalLight.new({ direction = tycho.vec3(-0.5, -1, -0.4), color = { 1, 0.95, 0.9 }, intensity = 3 }))
  local lamp = scene:add(tycho.GameObject.new({ name = "lamp", position = { x = 0.2, y = 0.6, z = 1.5 } }))
  lamp:addComponent(tycho.PointLight.new({ color = { 1, 0.2, 0.1 }, intensity = 8, range = 4 }))

  local camera = scene:add(tycho.GameObject.new({ name = "camera", position = { x = 0, y = 3, z = 7 } }))
  camera.rotation:setAxisAngle(1, 0, 0, -0.38)
  camera:addComponent(tycho.Camera.perspective(55, 0.1, 60))
end
