-- Scene for draw_spec.lua: the debug overlay (TrueType text) in the top-left corner over
-- a flat sky. Its pixels vary with frame times, so it is checked by regions, not compared
-- whole.
local tycho = require("tycho")
local engine = tycho.engine
local scene = engine.scene

engine:setPreset(tycho.presets.forward({ sky = { kind = "color", color = { 0.1, 0.1, 0.16 } }, taa = false, shadow = false }))
engine.debugOverlay = true
engine.debugOverlayCorner = "top-left"
