// shaders/deferred/ao_blur.frag: a 5x5 blur of the raw occlusion that skips samples
// across depth edges, so the noise goes and object outlines stay. The raw target carries
// each pixel's view-space z beside its occlusion (ssao.frag), so a tap is one fetch.
layout(binding = 9) uniform sampler2D u_raw; // r: occlusion, g: view-space z
layout(location = 0) out float o_ao;

void main() {
  ivec2 px = ivec2(gl_FragCoord.xy);
  ivec2 size = textureSize(u_raw, 0);
  float z0 = texelFetch(u_raw, px, 0).g;
  float sum = 0.0, weight = 0.0;
  for (int y = -2; y <= 2; y++)
    for (int x = -2; x <= 2; x++) {
      vec2 q = texelFetch(u_raw, clamp(px + ivec2(x, y), ivec2(0), size - 1), 0).rg;
      float w = 1.0 / (1.0 + 50.0 * abs(q.g - z0) / max(abs(z0), 1e-3));
      sum += q.r * w;
      weight += w;
    }
  o_ao = sum / max(weight, 1e-4);
}
