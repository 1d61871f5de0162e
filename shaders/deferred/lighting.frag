// shaders/deferred/lighting.frag: the sun (with its shadow map when HAS_SHADOW) and the
// ambient term (times SSAO when HAS_AO) from the gbuffer, into hdr, with the forward
// path's BRDF so both paths look alike. Sky pixels (depth 1) are left for the Sky pass.
#include "deferred/gbuffer.glsl"
#include "common/pbr.glsl"
#if HAS_SHADOW
#include "common/shadow.glsl"
#endif
#if HAS_AO
layout(binding = 6) uniform sampler2D g_ao;
#endif

layout(location = 0) out vec4 o_color;

void main() {
  ivec2 px = ivec2(gl_FragCoord.xy);
  float depth = texelFetch(g_depth, px, 0).r;
  if (depth >= 1.0) discard;
  vec4 albedo = texelFetch(g_albedo, px, 0);
  if (albedo.a < 0.5) { // unlit: the colour as given
    o_color = vec4(albedo.rgb, 1.0);
    return;
  }
  vec4 nr = texelFetch(g_normal, px, 0);
  vec2 mat = texelFetch(g_material, px, 0).rg;
  vec3 P = world_position(screen_uv(), depth);
  vec3 N = normalize(mat3(frame.invView) * nr.xyz);
  vec3 V = view_vector(P);
  float roughness = clamp(nr.a, 0.04, 1.0);
  float metallic = mat.r;
  float ao = mat.g;
#if HAS_AO
  ao *= texture(g_ao, screen_uv()).r; // ao may be smaller than the frame: filtered up
#endif
  vec3 color = ty_ambient(N, albedo.rgb, metallic, ao);
  if (frame.sunDirection.w > 0.5) {
    float shadow = 1.0;
#if HAS_SHADOW
    shadow = ty_shadow(P, N);
#endif
    color += ty_brdf(N, V, -normalize(frame.sunDirection.xyz), albedo.rgb, metallic, roughness) * frame.sunColor.rgb *
             shadow;
  }
  o_color = vec4(color, 1.0);
}
