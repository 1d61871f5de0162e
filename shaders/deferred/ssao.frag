// shaders/deferred/ssao.frag: screen-space ambient occlusion (hemisphere samples around
// the view-space normal, each compared with the depth buffer where it projects), 1 open,
// 0 occluded, and beside it the pixel's view-space z for the blur. params[0]: radius (world units), intensity, sample count, frame seed;
// params[1].x: full-size pixels per ao pixel (2 at half resolution: each ao pixel reads the
// gbuffer at the first of its 2x2 block).
#include "deferred/gbuffer.glsl"

uniform vec4 params[4];
layout(location = 0) out vec2 o_ao; // occlusion, view-space z

float hash(vec2 p) { return fract(sin(dot(p, vec2(12.9898, 78.233))) * 43758.5453); }

void main() {
  ivec2 px = min(ivec2(gl_FragCoord.xy) * int(params[1].x), textureSize(g_depth, 0) - 1);
  float depth = texelFetch(g_depth, px, 0).r;
  if (depth >= 1.0) { o_ao = vec2(1.0, -65000.0); return; } // the sky: open, far away
  vec2 uv = (vec2(px) + 0.5) / vec2(textureSize(g_depth, 0));
  vec3 p = view_position(uv, depth);
  vec3 n = normalize(texelFetch(g_normal, px, 0).xyz);
  float radius = params[0].x;
  int samples = int(params[0].z);
  // A per-pixel rotation turns banding into noise the blur removes.
  float angle = hash(gl_FragCoord.xy) * 6.2831853;
  vec3 rnd = vec3(cos(angle), sin(angle), 0.0);
  vec3 t = normalize(rnd - n * dot(rnd, n));
  if (any(isnan(t))) t = normalize(cross(n, vec3(0.0, 1.0, 0.0)) + 1e-3);
  mat3 tbn = mat3(t, cross(n, t), n);
  float occlusion = 0.0;
  for (int i = 0; i < samples; i++) {
    float fi = float(i) + 0.5;
    // A cosine-ish spread over the hemisphere, denser near the centre.
    float z = sqrt(1.0 - fi / float(samples));
    float r = sqrt(max(1.0 - z * z, 0.0));
    float phi = fi * 2.39996323;
    float scale = mix(0.1, 1.0, (fi / float(samples)) * (fi / float(samples)));
    vec3 s = p + tbn * (vec3(r * cos(phi), r * sin(phi), z) * radius * scale);
    vec4 c = frame.proj * vec4(s, 1.0);
    vec2 suv = c.xy / c.w * 0.5 + 0.5;
    if (any(lessThan(suv, vec2(0.0))) || any(greaterThan(suv, vec2(1.0)))) continue;
    float sd = texture(g_depth, suv).r;
    float scene_z = view_position(suv, sd).z;
    float range = smoothstep(0.0, 1.0, radius / max(abs(p.z - scene_z), 1e-4));
    occlusion += (scene_z >= s.z + 0.02 * radius ? 1.0 : 0.0) * range;
  }
  o_ao = vec2(clamp(1.0 - occlusion / float(max(samples, 1)) * params[0].y, 0.0, 1.0), p.z);
}
