-- Two MeshRenderers with no material, a third with one: one line, naming the first.
local tycho = require("tycho")
local scene = tycho.engine.scene
tycho.engine:setPreset(tycho.presets.forward({}))
for i, name in ipairs({ "crate", "barrel" }) do
  local go = scene:add(tycho.GameObject.new({ name = name, position = { x = i, y = 0, z = 0 } }))
  go:addComponent(tycho.MeshRenderer.new(tycho.mesh.cube()))
end
local lit = scene:add(tycho.GameObject.new("lit"))
lit:addComponent(tycho.MeshRenderer.new(tycho.mesh.cube(), tycho.material({ baseColor = { 1, 0, 0, 1 } })))
