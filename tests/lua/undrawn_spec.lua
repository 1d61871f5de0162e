-- Work a game asks for that nothing would draw is said once per run, with the fix, never
-- once a frame: UI queued with no UI feature, a MeshRenderer with no material.
local testing = require("tycho.testing")
local dir = testing.here() .. "/undrawn"

local function count(text, pattern)
  local n = 0
  for _ in text:gmatch(pattern) do n = n + 1 end
  return n
end

local function run(file)
  local code, out = testing.exec("run", dir .. "/" .. file, "--headless", "--frames", "12", "--no-watch")
  assert.equals(0, code, out)
  return out
end

describe("undrawn work", function()
  it("says once that tycho.ui calls have no UI feature, naming the first call and the fix", function()
    local out = run("ui_without_feature.lua")
    assert.equals(1, count(out, "nothing draws it"), out)
    assert.truthy(out:find("tycho.ui.text at ", 1, true), out)
    assert.truthy(out:find("ui_without_feature.lua:5", 1, true), out)
    assert.truthy(out:find("engine:addFeature(tycho.ui.feature())", 1, true), out)
  end)

  it("says nothing when the UI feature draws the queue, even text queued after a frame", function()
    local out = run("ui_with_feature.lua")
    assert.equals(0, count(out, "nothing draws it"), out)
  end)

  it("says once that a MeshRenderer has no material, naming its object", function()
    local out = run("mesh_without_material.lua")
    assert.equals(1, count(out, "has no material"), out)
    assert.truthy(out:find("MeshRenderer on 'crate'", 1, true), out)
    assert.truthy(out:find("tycho.material", 1, true), out)
  end)
end)
