// shaders/deferred/point_spot.frag: the point and spot lights of one screen tile (u_lights,
// indices into the lights buffer, as the pass binned them) over the gbuffer, added (blend
// one, one) onto hdr; the pass draws once per tile, scissored to it.
#include "deferred/gbuffer.glsl"
#include "common/pbr.glsl"

uniform int u_count;
uniform int u_lights[32];
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
  for (int i = 0; i < u_count; i++) color += ty_point_spot(lights[u_lights[i]], P, N, V, albedo.rgb, metallic, roughness);
  o_color = vec4(color, 0.0);
}
