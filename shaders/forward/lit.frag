// shaders/forward/lit.frag: forward PBR shading: the sun with its cascaded shadow,
// point and spot lights (every light, or with FORWARD_PLUS only the tile's from the light
// grid), ambient and emissive. Unlit materials (sprites) are texture * tint.
#include "common/frame.glsl"
#include "common/material.glsl"
#include "common/pbr.glsl"
#include "common/shadow.glsl"

layout(location = 0) uniform uint u_material;
layout(binding = 0) uniform sampler2D u_baseColor;
#ifdef FORWARD_PLUS
layout(binding = 5) uniform usampler2D u_lightGrid;
#endif

layout(location = 0) in vec3 v_world;
layout(location = 1) in vec3 v_normal;
layout(location = 2) in vec2 v_uv;
layout(location = 3) in vec4 v_tint;
layout(location = 4) flat in vec4 v_rect;
layout(location = 0) out vec4 o_color;

void main() {
  Material m = materials[u_material];
  vec4 base = m.baseColor * ty_base_texture(u_baseColor, m, v_uv, v_rect) * v_tint;
  bool transparent = m.params.z > 0.5;
  if (!transparent && base.a < 0.5) discard; // cut-out sprites in the opaque list
  if (m.params.y > 0.5) {
    o_color = base;
    return;
  }
  vec3 N = normalize(v_normal) * (gl_FrontFacing ? 1.0 : -1.0);
  vec3 V = normalize(frame.cameraPosition.xyz - v_world);
  float metallic = clamp(m.emissiveMetallic.w, 0.0, 1.0);
  float roughness = clamp(m.params.x, 0.04, 1.0);
  vec3 albedo = base.rgb;
  vec3 color = m.emissiveMetallic.rgb + ty_ambient(N, albedo, metallic, 1.0);
  if (frame.sunDirection.w > 0.5) {
    vec3 L = -normalize(frame.sunDirection.xyz);
    color += ty_brdf(N, V, L, albedo, metallic, roughness) * frame.sunColor.rgb * ty_shadow(v_world, N);
  }
#ifdef FORWARD_PLUS
  ivec2 tile = ivec2(gl_FragCoord.xy) / 16;
  int row = tile.x * 33;
  uint count = min(texelFetch(u_lightGrid, ivec2(row, tile.y), 0).r, 32u);
  for (uint i = 0u; i < count; i++) {
    uint li = texelFetch(u_lightGrid, ivec2(row + 1 + int(i), tile.y), 0).r;
    color += ty_point_spot(lights[li], v_world, N, V, albedo, metallic, roughness);
  }
#else
  for (uint i = 0u; i < frame.counts.x; i++) color += ty_point_spot(lights[i], v_world, N, V, albedo, metallic, roughness);
#endif
  o_color = vec4(color, base.a);
}
