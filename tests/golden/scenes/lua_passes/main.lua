-- Two Lua fullscreen passes with no names: red, then "+ green" over it. Each must run its
-- own shader (yellow comes out); passes that shared one program would give green.
local tycho = require("tycho")
local engine = tycho.engine

local RED = [[
layout(location = 0) out vec4 color;
void main() { color = vec4(1.0, 0.0, 0.0, 1.0); }
]]
local ADD_GREEN = [[
uniform sampler2D src;
layout(location = 0) out vec4 color;
void main() { color = texelFetch(src, ivec2(gl_FragCoord.xy), 0) + vec4(0.0, 1.0, 0.0, 0.0); }
]]

engine:addFeature({
  name = "RedThenGreen",
  addPasses = function(_, frame)
    frame.graph:fullscreen({ shader = RED, write = frame.hdr })
    frame.graph:fullscreen({ shader = ADD_GREEN, reads = { src = frame.hdr }, write = frame.hdr })
  end,
})
engine:addFeature(tycho.features.Tonemap({ exposure = 1, aces = false }))
