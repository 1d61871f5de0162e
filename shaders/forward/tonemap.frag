// shaders/forward/tonemap.frag: HDR to the display: exposure, optional bloom added, a curve
// (ACES filmic by Narkowicz's fit, Reinhard, or none: a plain clamp), then the sRGB
// transfer curve, rounded to bytes here rather than by the driver.
#include "common/color.glsl"

layout(binding = 1) uniform sampler2D u_hdr;
layout(binding = 2) uniform sampler2D u_bloom;
layout(location = 0) uniform vec4 u_params; // exposure, curve (0 none, 1 ACES, 2 Reinhard), bloom intensity, has bloom

layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 o_color;

vec3 aces(vec3 x) { return clamp((x * (2.51 * x + 0.03)) / (x * (2.43 * x + 0.59) + 0.14), 0.0, 1.0); }

void main() {
  vec3 c = texture(u_hdr, uv).rgb;
  if (u_params.w > 0.5) c += texture(u_bloom, uv).rgb * u_params.z;
  c = max(c * u_params.x, vec3(0.0));
  if (u_params.y > 1.5) c = c / (1.0 + c);
  else if (u_params.y > 0.5) c = aces(c);
  vec3 s = ty_to_srgb(clamp(c, 0.0, 1.0)) * 255.0;
  // Halves round up, so a colour of 0.5 is byte 128. The sixteenth of a byte added covers
  // the RGBA16F scene colour's rounding (at most 0.055 of a byte after the curve), so a
  // sprite colour of k/255 lands on byte k and a half-way one on the byte above.
  o_color = vec4(floor(s + 0.5 + 1.0 / 16.0) / 255.0, 1.0);
}
