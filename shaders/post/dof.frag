// shaders/post/dof.frag: depth of field. The circle of confusion grows with the view
// distance from the focus plane (params[0].x) over params[0].y, up to params[0].z px; a
// golden-angle disc gathers around each pixel, each sample counted only as far as its
// own circle reaches, so sharp content does not smear into the blur around it.
#include "common/frame.glsl"

layout(binding = 1) uniform sampler2D u_color;
layout(binding = 8) uniform sampler2D u_depth;
uniform vec4 params[4];
layout(location = 0) out vec4 o_color;

float view_distance(vec2 uv) {
  float d = texture(u_depth, uv).r;
  vec4 p = frame.invProj * vec4(uv * 2.0 - 1.0, d * 2.0 - 1.0, 1.0);
  return -p.z / p.w;
}

float coc(vec2 uv) { return clamp(abs(view_distance(uv) - params[0].x) / max(params[0].y, 1e-4), 0.0, 1.0) * params[0].z; }

void main() {
  vec2 size = vec2(textureSize(u_color, 0));
  vec2 uv = gl_FragCoord.xy / size;
  float c0 = coc(uv);
  vec3 sum = texture(u_color, uv).rgb;
  float weight = 1.0;
  const int taps = 32;
  for (int i = 1; i < taps; i++) {
    float r = sqrt(float(i) / float(taps)) * c0;
    float a = float(i) * 2.39996323;
    vec2 suv = uv + vec2(cos(a), sin(a)) * r / size;
    float w = clamp(coc(suv) - r + 1.0, 0.0, 1.0) * step(1.0, c0);
    sum += texture(u_color, suv).rgb * w;
    weight += w;
  }
  o_color = vec4(sum / weight, 1.0);
}
