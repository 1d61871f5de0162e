-- A game that queues UI every frame but never adds the UI feature: the engine must say so
-- once, naming the first call, not once a frame.
local tycho = require("tycho")
tycho.engine:beforeFrame(function()
  tycho.ui.text(10, 10, "score 0")
  tycho.ui.rect(0, 0, 5, 5)
end)
