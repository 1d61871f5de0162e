-- scripts/tycho/presets/init.lua: tycho.presets, the render presets. Each is a function
-- of options returning a preset {name=, options=, features=, apply=fn(self, engine)}
-- that engine:setPreset applies; the features are the same tables tycho.features makes.

local tycho = require("tycho")

local presets = {
  forward = require("tycho.presets.forward"),
  forwardPlus = require("tycho.presets.forwardPlus"),
  deferred = require("tycho.presets.deferred"),
}

tycho.presets = presets
return presets
