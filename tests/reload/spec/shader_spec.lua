-- tests/reload/spec/shader_spec.lua: a shader rewritten under a running `tycho run`
-- rendering through SDL's offscreen driver: the next screenshots show the new colour; a
-- broken shader is reported with file:line and the last good program keeps drawing.
local testing = require("tycho.testing")
local tycho = require("tycho")
local H = dofile(testing.here() .. "/../harness.lua")

local SHADER = [[
#version 450
uniform sampler2D scene;
layout(location = 0) out vec4 color;
void main() {
  color = vec4(%s, 1.0) + 0.0 * texelFetch(scene, ivec2(gl_FragCoord.xy), 0);
}
]]

-- A pixel near the top-left corner of the first screenshot announced after byte `from` with
-- `reloads` (a reload's notice shows the debug overlay, on its dark panel, bottom right).
local function shotAfter(game, from, reloads)
  local at = H.waitFor(game, "shot [^\n]+ reloads=" .. reloads .. "\n", from)
  local out = H.output(game)
  local path
  for p, n, e in out:gmatch("shot (%S+) reloads=(%d+)\n()") do
    if e > from and tonumber(n) == reloads then
      path = p
      break
    end
  end
  H.sleep(0.05)
  local img = assert(tycho.image.load(path))
  local i = (8 * img.width + 8) * 4 + 1
  return { r = img.pixels:byte(i), g = img.pixels:byte(i + 1), b = img.pixels:byte(i + 2) }, at
end

describe("shader hot reload", function()
  it("recompiles a changed shader, keeps the last good one on a GLSL error", function()
    local dir = H.scratch("shader")
    local game = H.spawn("SDL_VIDEODRIVER=offscreen TYCHO_SHOT_DIR=" .. H.shq(dir), "run", dir, "--width", "320", "--height", "240")
    local ok, err = pcall(function()
      local px, at = shotAfter(game, 1, 0)
      assert.truthy(px.r > 60 and px.g < 30 and px.b < 30, ("expected red, got %d %d %d"):format(px.r, px.g, px.b))
      H.save(dir .. "/fill.frag", SHADER:format("0.0, 1.0, 0.0"))
      at = H.waitFor(game, "reloaded [^\n]*fill%.frag in [%d.]+ ms", at)
      px, at = shotAfter(game, at, 1)
      assert.truthy(px.g > 60 and px.r < 30 and px.b < 30, ("expected green, got %d %d %d"):format(px.r, px.g, px.b))
      H.save(dir .. "/fill.frag", SHADER:format("0.0, 0.0, 1.0") .. "this is not glsl\n")
      at = H.waitFor(game, "fill%.frag did not compile:%s+[^\n]*fill%.frag:7:", at)
      px = shotAfter(game, at, 1)
      assert.truthy(px.g > 60 and px.r < 30 and px.b < 30, ("the last good shader should still draw green, got %d %d %d"):format(px.r, px.g, px.b))
      H.save(dir .. "/fill.frag", SHADER:format("0.0, 0.0, 1.0"))
      px = shotAfter(game, at, 2)
      assert.truthy(px.b > 60 and px.r < 30 and px.g < 30, ("expected blue, got %d %d %d"):format(px.r, px.g, px.b))
    end)
    local code, out = H.stop(game)
    H.remove(dir)
    if not ok then error(tostring(err) .. "\n--- game output ---\n" .. out:gsub("shot [^\n]*\n", ""), 0) end
    assert.equals(0, code, out)
    assert.equals(1, H.count(out, "did not compile"), out) -- the broken save is reported once
  end)
end)
