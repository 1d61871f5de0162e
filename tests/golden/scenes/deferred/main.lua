-- Golden scene: the lit scene through the deferred preset with SSAO.
local tycho = require("tycho")
local here = debug.getinfo(1, "S").source:sub(2):match("^(.*)/[^/]*$")
dofile(here .. "/../lit.lua")(tycho.presets.deferred({ sky = { kind = "color" }, ao = "ssao", taa = false }))
