// shaders/deferred/point_spot.frag: every point and spot light of the frame over the
// gbuffer, added (blend one, one) onto hdr.
#include "deferred/gbuffer.glsl"
#include "common/pbr.glsl"

layout(location = 0) out vec4 o_color;

void main() {
  ivec2 px = ivec2(gl_FragCoord.xy);
  float depth = texelFetch(g_depth, px, 0).r;
  vec4 albedo = texelFetch(g_albedo, px, 0);
  if (depth >= 1.0 || albedo.a < 0.5) discard;
  vec4 nr = texelFetch(g_normal, px, 0);
  float metallic = texelFetch(g_material, px, 0).r;
  vec3 P = world_position(screen_uv(), depth);
  vec3 N = normalize(mat3(frame.invView) * nr.xyz);
  vec3 V = view_vector(P);
  float roughness = clamp(nr.a, 0.04, 1.0);
  vec3 color = vec3(0.0);
  for (uint i = 0u; i < frame.counts.x; i++) color += ty_point_spot(lights[i], P, N, V, albedo.rgb, metallic, roughness);
  o_color = vec4(color, 0.0);
}
