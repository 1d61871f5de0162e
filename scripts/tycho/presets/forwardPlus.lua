-- scripts/tycho/presets/forwardPlus.lua: forward lighting with tiled light culling:
-- Shadow?, Sky, ForwardPlus (the compute pass that bins point and spot lights per tile),
-- ForwardLit{forwardPlus}, TAA?, DoF?, Bloom?, Tonemap.

local common = require("tycho.presets.common")
local features = common.features

---@param opts? tycho.PresetOptions
---@return tycho.Preset
return function(opts)
  opts = common.check(opts, "forwardPlus")
  local list = {}
  common.shadow(list, opts)
  common.sky(list, opts)
  list[#list + 1] = features.ForwardPlus()
  list[#list + 1] = features.ForwardLit({ ibl = opts.ibl and true or false, ambient = opts.ambient, forwardPlus = true })
  common.post(list, opts)
  return common.preset("forwardPlus", opts, list)
end
