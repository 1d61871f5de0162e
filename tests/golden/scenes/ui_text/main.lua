-- Scene for draw_spec.lua: tycho.ui text (the TrueType path) over a flat sky.
local tycho = require("tycho")
local engine = tycho.engine

engine:setPreset(tycho.presets.forward({ sky = { kind = "color", color = { 0.1, 0.1, 0.16 } }, taa = false, shadow = false }))
engine:addFeature(tycho.ui.feature())
engine:afterFrame(function() tycho.ui.text(4, 100, "UI yellow", { 1, 1, 0, 1 }, 1.2) end)
