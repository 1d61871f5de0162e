// shaders/forward/tonemap.frag: HDR to the display: exposure, optional bloom added,
// ACES filmic (Narkowicz's fit) or Reinhard, then the sRGB transfer curve.
layout(binding = 1) uniform sampler2D u_hdr;
layout(binding = 2) uniform sampler2D u_bloom;
layout(location = 0) uniform vec4 u_params; // exposure, aces, bloom intensity, has bloom

layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 o_color;

vec3 aces(vec3 x) { return clamp((x * (2.51 * x + 0.03)) / (x * (2.43 * x + 0.59) + 0.14), 0.0, 1.0); }
vec3 to_srgb(vec3 c) {
  return mix(c * 12.92, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, step(vec3(0.0031308), c));
}

void main() {
  vec3 c = texture(u_hdr, uv).rgb;
  if (u_params.w > 0.5) c += texture(u_bloom, uv).rgb * u_params.z;
  c = max(c * u_params.x, vec3(0.0));
  c = u_params.y > 0.5 ? aces(c) : c / (1.0 + c);
  o_color = vec4(to_srgb(clamp(c, 0.0, 1.0)), 1.0);
}
