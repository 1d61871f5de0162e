// shaders/common/shadow.glsl: the sun's cascaded shadow map (texture unit 4, a depth
// array with compare) and its 3x3 PCF lookup.
#include "common/frame.glsl"

layout(binding = 4) uniform sampler2DArrayShadow u_shadowMap;

// 1 lit, 0 in shadow. N offsets the lookup along the normal against acne.
float ty_shadow(vec3 world, vec3 N) {
  if (frame.sunColor.w < 0.5) return 1.0;
  int cascades = int(frame.shadowParams.z);
  float depth = ty_view_depth(world);
  int c = -1;
  for (int i = 0; i < cascades; i++) {
    if (depth <= frame.cascadeSplits[i]) { c = i; break; }
  }
  if (c < 0) return 1.0;
  float texel = 1.0 / frame.shadowParams.y;
  mat4 m = frame.shadowViewProj[c];
  float extent = 2.0 / max(length(vec3(m[0][0], m[1][0], m[2][0])), 1e-6); // the cascade's width in world units
  vec3 p = world + N * (extent * texel * 1.5);
  vec4 s = frame.shadowViewProj[c] * vec4(p, 1.0);
  vec3 q = s.xyz / s.w * 0.5 + 0.5;
  if (any(lessThan(q.xy, vec2(0.0))) || any(greaterThan(q.xy, vec2(1.0))) || q.z > 1.0) return 1.0;
  float ref = q.z - frame.shadowParams.x;
  float sum = 0.0;
  for (int y = -1; y <= 1; y++)
    for (int x = -1; x <= 1; x++) sum += texture(u_shadowMap, vec4(q.xy + vec2(x, y) * texel, float(c), ref));
  return sum / 9.0;
}
