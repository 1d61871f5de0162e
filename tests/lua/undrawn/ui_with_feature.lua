-- The same game with the UI feature: nothing to say.
local tycho = require("tycho")
tycho.engine:setPreset(tycho.presets.forward({}))
tycho.engine:addFeature(tycho.ui.feature())
tycho.engine:afterFrame(function() tycho.ui.text(10, 10, "score 0") end)
tycho.engine:beforeFrame(function() tycho.ui.rect(0, 0, 5, 5) end)
