// shaders/common/material.glsl: a material's base colour map (fragment stages). A material
// that clamps (params.w: sprites) keeps every sample inside its item's uv rect, half a
// texel in at the mip level read, so neither the texture's opposite edge nor a
// neighbouring atlas cell bleeds into its edges; the level of detail still follows the
// unclamped uv, so a clamped edge is as sharp as the rest.
#include "common/frame.glsl"

vec4 ty_base_texture(sampler2D tex, Material m, vec2 uv, vec4 rect) {
  if (m.params.w < 0.5) return texture(tex, uv);
  vec2 dx = dFdx(uv), dy = dFdy(uv);
  float level = ceil(clamp(textureQueryLod(tex, uv).x, 0.0, float(textureQueryLevels(tex) - 1)));
  vec2 halfTexel = 0.5 * exp2(level) / vec2(textureSize(tex, 0));
  vec2 a = rect.xy, b = rect.xy + rect.zw, mid = (a + b) * 0.5;
  vec2 lo = min(min(a, b) + halfTexel, mid), hi = max(max(a, b) - halfTexel, mid);
  return textureGrad(tex, clamp(uv, lo, hi), dx, dy);
}
