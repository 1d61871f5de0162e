// shaders/deferred/overlay.frag: a transparent surface forward-lit over the deferred
// image (blended by the pass): the sun with its shadow (HAS_SHADOW), ambient, and the
// point and spot lights, from the tile's list in the light grid when FORWARD_PLUS,
// else all of them.
#include "common/frame.glsl"
#include "common/material.glsl"
#include "common/pbr.glsl"
#if HAS_SHADOW
#include "common/shadow.glsl"
#endif
#if FORWARD_PLUS
layout(binding = 5) uniform usampler2D u_lightGrid;
#endif

layout(location = 0) uniform uint u_material;
layout(binding = 0) uniform sampler2D u_baseColor;

in vec3 v_normal; // view space
in vec3 v_world;
in vec2 v_uv;
in vec4 v_tint;
flat in vec4 v_rect;

layout(location = 0) out vec4 o_color;

void main() {
  Material m = materials[u_material];
  vec4 c = m.baseColor * ty_base_texture(u_baseColor, m, v_uv, v_rect) * v_tint;
  if (m.params.y > 0.5) { // unlit
    o_color = c;
    return;
  }
  vec3 N = normalize(mat3(frame.invView) * v_normal);
  if (!gl_FrontFacing) N = -N;
  vec3 P = v_world;
  vec3 V = frame.clip.z > 0.5 ? -frame.cameraForward.xyz : normalize(frame.cameraPosition.xyz - P);
  float metallic = clamp(m.emissiveMetallic.w, 0.0, 1.0);
  float roughness = clamp(m.params.x, 0.04, 1.0);
  vec3 color = m.emissiveMetallic.rgb + ty_ambient(N, c.rgb, metallic, 1.0);
  if (frame.sunDirection.w > 0.5) {
    float shadow = 1.0;
#if HAS_SHADOW
    shadow = ty_shadow(P, N);
#endif
    color += ty_brdf(N, V, -normalize(frame.sunDirection.xyz), c.rgb, metallic, roughness) * frame.sunColor.rgb * shadow;
  }
#if FORWARD_PLUS
  ivec2 tile = ivec2(gl_FragCoord.xy) / 16;
  int base = tile.x * 33;
  uint count = min(texelFetch(u_lightGrid, ivec2(base, tile.y), 0).r, 32u);
  for (uint k = 0u; k < count; k++) {
    uint i = texelFetch(u_lightGrid, ivec2(base + 1 + int(k), tile.y), 0).r;
    color += ty_point_spot(lights[i], P, N, V, c.rgb, metallic, roughness);
  }
#else
  for (uint i = 0u; i < frame.counts.x; i++) color += ty_point_spot(lights[i], P, N, V, c.rgb, metallic, roughness);
#endif
  o_color = vec4(color, c.a);
}
