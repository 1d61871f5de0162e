-- scripts/tycho/boot.lua: the engine's Lua side, loaded into every state after the C
-- bindings: component classes, prefabs and the scene helpers written in Lua.
require("tycho.errors") -- before any scene raises: the default report of caught errors
require("tycho.component")
require("tycho.prefab")
require("tycho.render")
require("tycho.particles") -- after tycho.render: it adds tycho.features.Particles
require("tycho.animation") -- SpriteAnimation drives tycho.Sprite
require("tycho.tween")
require("tycho.text") -- tycho.Text: after tycho.render, with tycho.font and tycho.draw open
require("tycho.audio")
require("tycho.physics")
