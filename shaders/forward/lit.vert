// shaders/forward/lit.vert: the scene's draws in world space for ForwardLit.
#include "common/frame.glsl"
#include "common/instance.glsl"

layout(location = 0) out vec3 v_world;
layout(location = 1) out vec3 v_normal;
layout(location = 2) out vec2 v_uv;
layout(location = 3) out vec4 v_tint;
layout(location = 4) flat out vec4 v_rect; // uv rect, for materials that clamp to it

void main() {
  mat4 world = ty_instance_world();
  vec4 wp = world * vec4(a_position, 1.0);
  v_world = wp.xyz;
  v_normal = ty_instance_normal(world);
  v_uv = ty_instance_uv();
  v_tint = a_tint;
  v_rect = a_rect;
  gl_Position = frame.viewProj * wp;
}
