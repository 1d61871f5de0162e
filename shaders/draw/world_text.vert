// shaders/draw/world_text.vert: tycho.Text's glyphs in the world (engine/render/draw2d.c):
// positions in world units brought to clip space with the Frame block's camera, so the
// depth test hides what lies behind the scene's surfaces.
#include "common/frame.glsl"

layout(location = 0) in vec3 a_pos;
layout(location = 1) in vec2 a_uv;
layout(location = 2) in vec4 a_color;
layout(location = 0) out vec2 v_uv;
layout(location = 1) out vec4 v_color;
void main() {
  v_uv = a_uv;
  v_color = a_color;
  gl_Position = frame.viewProj * vec4(a_pos, 1.0);
}
