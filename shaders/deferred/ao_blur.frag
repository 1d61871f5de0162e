// shaders/deferred/ao_blur.frag: a 5x5 blur of the raw occlusion that skips samples
// across depth edges, so the noise goes and object outlines stay.
#include "deferred/gbuffer.glsl"

layout(binding = 9) uniform sampler2D u_raw;
uniform vec4 params[4]; // params[0].x: full-size pixels per ao pixel (as ssao.frag)
layout(location = 0) out float o_ao;

void main() {
  int step = int(params[0].x);
  ivec2 px = ivec2(gl_FragCoord.xy);
  ivec2 size = textureSize(u_raw, 0);
  ivec2 full = textureSize(g_depth, 0);
  float d0 = texelFetch(g_depth, px * step, 0).r;
  float z0 = view_position((vec2(px * step) + 0.5) / vec2(full), d0).z;
  float sum = 0.0, weight = 0.0;
  for (int y = -2; y <= 2; y++)
    for (int x = -2; x <= 2; x++) {
      ivec2 q = clamp(px + ivec2(x, y), ivec2(0), size - 1);
      ivec2 fq = min(q * step, full - 1);
      float zq = view_position((vec2(fq) + 0.5) / vec2(full), texelFetch(g_depth, fq, 0).r).z;
      float w = 1.0 / (1.0 + 50.0 * abs(zq - z0) / max(abs(z0), 1e-3));
      sum += texelFetch(u_raw, q, 0).r * w;
      weight += w;
    }
  o_ao = sum / max(weight, 1e-4);
}
