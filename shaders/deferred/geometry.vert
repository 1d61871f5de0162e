// shaders/deferred/geometry.vert: a bucket list's instances for the gbuffer, the depth
// prepass (DEPTH_ONLY) and the transparent overlay.
#include "common/frame.glsl"
#include "common/instance.glsl"

#ifndef DEPTH_ONLY
out vec3 v_normal; // view space
out vec3 v_world;
out vec2 v_uv;
out vec4 v_tint;
flat out vec4 v_rect; // uv rect, for materials that clamp to it
#endif

void main() {
  mat4 world = ty_instance_world();
  vec4 wp = world * vec4(a_position, 1.0);
  gl_Position = frame.viewProj * wp;
#ifndef DEPTH_ONLY
  v_normal = mat3(frame.view) * ty_instance_normal(world);
  v_world = wp.xyz;
  v_uv = ty_instance_uv();
  v_tint = a_tint;
  v_rect = a_rect;
#endif
}
