// shaders/post/bloom_down.frag: one step down the bloom chain: a 13-tap filter of the
// level above (Jimenez 2014, less flicker than a box). With PREFILTER (the first step,
// from hdr) a soft threshold keeps only what is brighter than params[0].z (knee w).
// params[0].xy: the source's texel size.
layout(binding = 1) uniform sampler2D u_src;
uniform vec4 params[4];
layout(location = 0) out vec4 o_color;

vec3 tap(vec2 uv) { return texture(u_src, uv).rgb; }

void main() {
  vec2 t = params[0].xy;
  vec2 uv = gl_FragCoord.xy * 2.0 * t; // this target is half the source's size
  vec3 a = tap(uv + t * vec2(-2, -2)), b = tap(uv + t * vec2(0, -2)), c = tap(uv + t * vec2(2, -2));
  vec3 d = tap(uv + t * vec2(-1, -1)), e = tap(uv + t * vec2(1, -1));
  vec3 f = tap(uv + t * vec2(-2, 0)), g = tap(uv), h = tap(uv + t * vec2(2, 0));
  vec3 i = tap(uv + t * vec2(-1, 1)), j = tap(uv + t * vec2(1, 1));
  vec3 k = tap(uv + t * vec2(-2, 2)), l = tap(uv + t * vec2(0, 2)), m = tap(uv + t * vec2(2, 2));
  vec3 color = (d + e + i + j) * 0.125 + (a + c + k + m) * 0.03125 + (b + f + h + l) * 0.0625 + g * 0.125;
#ifdef PREFILTER
  color = min(color, vec3(1e4)); // one stray inf or huge value must not flood the chain
  float bright = max(color.r, max(color.g, color.b));
  float knee = max(params[0].w, 1e-4);
  float soft = clamp(bright - params[0].z + knee, 0.0, 2.0 * knee);
  soft = soft * soft / (4.0 * knee);
  color *= max(soft, bright - params[0].z) / max(bright, 1e-4);
#endif
  o_color = vec4(max(color, vec3(0.0)), 1.0);
}
