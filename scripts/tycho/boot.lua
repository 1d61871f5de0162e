-- scripts/tycho/boot.lua: the engine's Lua side, loaded into every state after the C
-- bindings: component classes, prefabs and the scene helpers written in Lua.
require("tycho.component")
require("tycho.prefab")
require("tycho.render")
