-- Golden scene: the lit scene through the forwardPlus preset (tiled light culling).
local tycho = require("tycho")
local here = debug.getinfo(1, "S").source:sub(2):match("^(.*)/[^/]*$")
dofile(here .. "/../lit.lua")(tycho.presets.forwardPlus({ sky = { kind = "color" }, taa = false }))
