// shaders/post/taa.frag: temporal anti-aliasing. Reprojects each pixel into last frame
// through its depth, clamps the history sample to the current 3x3 neighbourhood (no
// ghosting when content moves), and blends. Writes the new hdr (0) and the next history
// (1). params[0].x: history weight (0 when there is no valid history); `reproject`:
// last frame's view-projection.
#include "common/frame.glsl"

layout(binding = 1) uniform sampler2D u_current;
layout(binding = 3) uniform sampler2D u_history;
layout(binding = 8) uniform sampler2D u_depth;

uniform vec4 params[4];
uniform mat4 reproject;

layout(location = 0) out vec4 o_color;
layout(location = 1) out vec4 o_history;

void main() {
  ivec2 px = ivec2(gl_FragCoord.xy);
  ivec2 size = textureSize(u_current, 0);
  vec2 uv = gl_FragCoord.xy / vec2(size);
  vec3 cur = texelFetch(u_current, px, 0).rgb;
  vec3 lo = cur, hi = cur;
  for (int y = -1; y <= 1; y++)
    for (int x = -1; x <= 1; x++) {
      vec3 s = texelFetch(u_current, clamp(px + ivec2(x, y), ivec2(0), size - 1), 0).rgb;
      lo = min(lo, s);
      hi = max(hi, s);
    }
  float depth = texelFetch(u_depth, px, 0).r;
  vec4 world = frame.invViewProj * vec4(uv * 2.0 - 1.0, depth * 2.0 - 1.0, 1.0);
  vec4 prev = reproject * vec4(world.xyz / world.w, 1.0);
  vec2 prev_uv = prev.xy / prev.w * 0.5 + 0.5;
  float w = params[0].x;
  if (any(lessThan(prev_uv, vec2(0.0))) || any(greaterThan(prev_uv, vec2(1.0))) || prev.w <= 0.0) w = 0.0;
  vec3 hist = clamp(texture(u_history, prev_uv).rgb, lo, hi);
  vec3 result = mix(cur, hist, w);
  if (any(isnan(result)) || any(isinf(result))) result = cur;
  o_color = vec4(result, 1.0);
  o_history = vec4(result, 1.0);
}
