-- scripts/tycho/presets/deferred.lua: the deferred preset: Shadow?, Geometry, AO?,
-- DeferredLighting, Sky, PointSpotLight?, ForwardOverlay? (transparent objects, lit
-- forward or forward+), TAA?, DoF?, Bloom?, Tonemap.
--
-- Options beyond the shared ones: ao = "ssao" (or true, or a table of AO options) or
-- false (default false), transparent
-- (default true), pointSpotLights (default true), overlayLighting = "forward"|"forward+".

local common = require("tycho.presets.common")
local features = common.features

---@param opts? tycho.DeferredOptions
---@return tycho.Preset
return function(opts)
  opts = common.check(opts, "deferred")
  local ao = opts.ao
  if ao ~= nil and ao ~= false and ao ~= true and ao ~= "ssao" and type(ao) ~= "table" then
    error(("bad argument #1 to 'deferred' (ao must be \"ssao\", true, a table or false, got %s)"):format(tostring(ao)), 2)
  end
  local lighting = opts.overlayLighting or "forward"
  if lighting ~= "forward" and lighting ~= "forward+" then
    error(("bad argument #1 to 'deferred' (overlayLighting must be \"forward\" or \"forward+\", got %s)")
      :format(tostring(lighting)), 2)
  end
  local list = {}
  common.shadow(list, opts)
  list[#list + 1] = features.Geometry()
  if ao then list[#list + 1] = features.AO(type(ao) == "table" and ao or {}) end
  list[#list + 1] = features.DeferredLighting({ ibl = opts.ibl and true or false, ambient = opts.ambient })
  common.sky(list, opts)
  if opts.pointSpotLights ~= false then list[#list + 1] = features.PointSpotLight() end
  if opts.transparent ~= false then
    local plus = lighting == "forward+"
    if plus then list[#list + 1] = features.ForwardPlus() end
    list[#list + 1] = features.ForwardOverlay({ forwardPlus = plus })
  end
  common.post(list, opts)
  return common.preset("deferred", opts, list)
end
