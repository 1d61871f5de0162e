-- scripts/tycho/render/features.lua: tycho.features, the built-in render features.
--
-- Each constructor returns a feature table of the same shape a game writes by hand:
-- {name=, enabled=true, setup=, earlyUpdate=, update=, addPasses=, destroy=}. The C side
-- declares the passes; the options table is parsed into C once, here, so a frame costs
-- one call per feature. feature:configure(opts) parses new options.

local tycho = require("tycho")
local R = tycho._render

local features = {}

local function addPasses(self, _frame)
  local ok, err = R.addFeature(self._native)
  if not ok then
    err = err or "could not add its passes"
    -- The renderer's messages usually name the feature already.
    if not err:find(self.name, 1, true) then err = self.name .. ": " .. err end
    error(err, 0)
  end
end

---Replaces the feature's options (parsed once, used from the next frame).
---@param self tycho.Feature
---@param opts? table
local function configure(self, opts)
  if opts ~= nil and type(opts) ~= "table" then
    error(("bad argument #1 to 'configure' (table expected, got %s)"):format(type(opts)), 2)
  end
  self._native = R.featureOptions(self.name, opts)
  self.options = opts or {}
  return self
end

local function builtin(name)
  return function(opts)
    if opts ~= nil and type(opts) ~= "table" then
      error(("bad argument #1 to '%s' (table expected, got %s)"):format(name, type(opts)), 2)
    end
    local ok, native = pcall(R.featureOptions, name, opts)
    if not ok then error(("bad argument #1 to '%s' (%s)"):format(name, native), 2) end
    return {
      name = name,
      enabled = true,
      builtin = true,
      options = opts or {},
      _native = native,
      addPasses = addPasses,
      configure = configure,
    }
  end
end

---Cascaded shadow map for the sun (the first enabled directional light that casts).
---opts: `cascades` (4), `size` (2048), `distance` (50), `bias` (0.002).
features.Shadow = builtin("Shadow")
---The background: opts `kind` = "none"|"color"|"texture"|"atmosphere", `color`, `texture`, `intensity`.
features.Sky = builtin("Sky")
---PBR metallic-roughness lighting of the opaque and transparent lists: `ibl`, `ambient`, `forwardPlus`.
features.ForwardLit = builtin("ForwardLit")
---The gbuffer pass (deferred).
features.Geometry = builtin("Geometry")
---Screen-space ambient occlusion: `radius` (0.5), `intensity` (1), `samples` (16).
features.AO = builtin("AO")
---Lights the gbuffer with the sun and ambient (deferred).
features.DeferredLighting = builtin("DeferredLighting")
---Adds point and spot lights over the lit gbuffer (deferred).
features.PointSpotLight = builtin("PointSpotLight")
---Forward-lit transparent objects over a deferred frame: `forwardPlus`.
features.ForwardOverlay = builtin("ForwardOverlay")
---Tiled light culling (a compute pass) for ForwardLit{forwardPlus = true}.
features.ForwardPlus = builtin("ForwardPlus")
---Temporal anti-aliasing: `blend` (0.9).
features.TAA = builtin("TAA")
---`threshold` (1), `intensity` (0.05).
features.Bloom = builtin("Bloom")
---Depth of field: `focus` (10), `range` (5), `maxRadius` (8 px).
features.DoF = builtin("DoF")
---HDR to the window: `exposure` (1), `aces` (true; false: Reinhard), `mode` = "auto" (none under
---an orthographic camera, else the `aces` choice) | "aces" | "reinhard" | "none".
features.Tonemap = builtin("Tonemap")
---FPS, frame-time graph, draw and triangle counts and the graph's passes; `text` adds lines.
features.DebugOverlay = builtin("DebugOverlay")

return features
