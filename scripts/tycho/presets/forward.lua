-- scripts/tycho/presets/forward.lua: the forward preset: Shadow?, Sky, ForwardLit, TAA?,
-- DoF?, Bloom?, Tonemap.

local common = require("tycho.presets.common")
local features = common.features

---@param opts? tycho.PresetOptions
---@return tycho.Preset
return function(opts)
  opts = common.check(opts, "forward")
  local list = {}
  common.shadow(list, opts)
  common.sky(list, opts)
  list[#list + 1] = features.ForwardLit({ ibl = opts.ibl and true or false, ambient = opts.ambient })
  common.post(list, opts)
  return common.preset("forward", opts, list)
end
