-- Golden scene: the lit scene through the forward preset (no TAA: no jitter between runs).
local tycho = require("tycho")
local here = debug.getinfo(1, "S").source:sub(2):match("^(.*)/[^/]*$")
dofile(here .. "/../lit.lua")(tycho.presets.forward({ sky = { kind = "color" }, taa = false }))
