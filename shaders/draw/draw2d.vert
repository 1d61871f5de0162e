// shaders/draw/draw2d.vert: tycho.draw's quads (engine/render/draw2d.c): positions in
// pixels from the top-left, brought to clip space with the Frame block's viewport.
#include "common/frame.glsl"

layout(location = 0) in vec2 a_pos;
layout(location = 1) in vec2 a_uv;
layout(location = 2) in vec4 a_color;
layout(location = 0) out vec2 v_uv;
layout(location = 1) out vec4 v_color;
void main() {
  v_uv = a_uv;
  v_color = a_color;
  vec2 ndc = a_pos * frame.viewport.zw * 2.0 - 1.0;
  gl_Position = vec4(ndc.x, -ndc.y, 0.0, 1.0);
}
