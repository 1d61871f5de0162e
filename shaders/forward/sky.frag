// shaders/forward/sky.frag: the sky behind everything. SKY_KIND 1: a flat colour;
// 2: an equirectangular texture (unit 7); 3: an analytic atmosphere (a Rayleigh-like
// gradient from horizon to zenith, darker ground, a sun disc and halo from the sun).
#include "common/frame.glsl"

layout(binding = 7) uniform sampler2D u_sky;
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 o_color;

vec3 view_dir() {
  vec4 p = frame.invViewProj * vec4(uv * 2.0 - 1.0, 1.0, 1.0);
  if (frame.clip.z > 0.5) return normalize(frame.cameraForward.xyz); // orthographic: one direction
  return normalize(p.xyz / p.w - frame.cameraPosition.xyz);
}

void main() {
  float intensity = frame.skyColor.w;
  vec3 color = frame.skyColor.rgb;
#if SKY_KIND == 2
  vec3 d = view_dir();
  vec2 st = vec2(atan(d.z, d.x) / (2.0 * 3.14159265) + 0.5, asin(clamp(d.y, -1.0, 1.0)) / 3.14159265 + 0.5);
  color = texture(u_sky, st).rgb;
#elif SKY_KIND == 3
  vec3 d = view_dir();
  vec3 sun = frame.sunDirection.w > 0.5 ? -normalize(frame.sunDirection.xyz) : vec3(0.0, 1.0, 0.0);
  float h = d.y;
  float sunHeight = clamp(sun.y, -0.2, 1.0);
  vec3 zenith = vec3(0.10, 0.25, 0.65) * (0.3 + 0.7 * smoothstep(-0.2, 0.4, sunHeight));
  vec3 horizon = mix(vec3(0.9, 0.55, 0.35), vec3(0.7, 0.8, 0.95), smoothstep(0.0, 0.4, sunHeight));
  float t = pow(clamp(h, 0.0, 1.0), 0.5);
  color = mix(horizon, zenith, t);
  if (h < 0.0) color = mix(horizon, vec3(0.25, 0.22, 0.2) * (0.3 + 0.7 * max(sunHeight, 0.0)), clamp(-h * 4.0, 0.0, 1.0));
  float mu = max(dot(d, sun), 0.0);
  vec3 sunColor = frame.sunDirection.w > 0.5 ? frame.sunColor.rgb : vec3(1.0);
  color += sunColor * (0.25 * pow(mu, 8.0) + 0.6 * pow(mu, 64.0)) * 0.3; // Mie-ish halo
  if (h > -0.01) color += sunColor * smoothstep(0.9995, 0.9998, mu) * 8.0; // the disc
#endif
  o_color = vec4(color * intensity, 1.0);
}
