// shaders/particles/particle.vert: one particle (engine/render/particles_pass.c) as a
// square facing the camera: the four corners come from gl_VertexID (indices 0..3), the
// centre, side and colour from the per-instance attributes.
#include "common/frame.glsl"

layout(location = 0) in vec4 a_position_size; // world centre, side in world units
layout(location = 1) in vec4 a_color;         // linear rgba
layout(location = 0) out vec2 v_uv;
layout(location = 1) out vec4 v_color;

void main() {
  const vec2 corners[4] = vec2[4](vec2(-0.5, -0.5), vec2(0.5, -0.5), vec2(0.5, 0.5), vec2(-0.5, 0.5));
  vec2 c = corners[gl_VertexID];
  // The camera's right and up axes in world space: the view matrix's first two rows.
  vec3 right = vec3(frame.view[0][0], frame.view[1][0], frame.view[2][0]);
  vec3 up = vec3(frame.view[0][1], frame.view[1][1], frame.view[2][1]);
  vec3 world = a_position_size.xyz + (c.x * right + c.y * up) * a_position_size.w;
  v_uv = c + 0.5;
  v_color = a_color;
  gl_Position = frame.viewProj * vec4(world, 1.0);
}
