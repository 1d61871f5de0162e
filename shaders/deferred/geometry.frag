// shaders/deferred/geometry.frag: one surface into the gbuffer: base colour (a: 1 lit,
// 0 unlit), view-space normal with roughness, metallic and ao.
#include "common/frame.glsl"
#include "common/material.glsl"

layout(location = 0) uniform uint u_material;
layout(binding = 0) uniform sampler2D u_base_color;

in vec3 v_normal;
in vec3 v_world;
in vec2 v_uv;
in vec4 v_tint;
flat in vec4 v_rect;

layout(location = 0) out vec4 o_albedo;
layout(location = 1) out vec4 o_normal;
layout(location = 2) out vec4 o_material;

void main() {
  Material m = materials[u_material];
  vec4 c = m.baseColor * ty_base_texture(u_base_color, m, v_uv, v_rect) * v_tint;
  vec3 n = normalize(v_normal);
  if (!gl_FrontFacing) n = -n;
  o_albedo = vec4(c.rgb, m.params.y > 0.5 ? 0.0 : 1.0);
  o_normal = vec4(n, clamp(m.params.x, 0.0, 1.0));
  o_material = vec4(clamp(m.emissiveMetallic.w, 0.0, 1.0), 1.0, 0.0, 0.0);
}
