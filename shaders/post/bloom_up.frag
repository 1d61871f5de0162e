// shaders/post/bloom_up.frag: one step up the bloom chain: a 3x3 tent filter of the
// smaller level (u_src, texel size params[0].xy) added to this level's own downsample
// (u_level).
layout(binding = 1) uniform sampler2D u_src;
layout(binding = 2) uniform sampler2D u_level;
uniform vec4 params[4];
layout(location = 0) out vec4 o_color;

void main() {
  vec2 uv = gl_FragCoord.xy / vec2(textureSize(u_level, 0));
  vec2 t = params[0].xy;
  vec3 s = texture(u_src, uv + t * vec2(-1, -1)).rgb + texture(u_src, uv + t * vec2(1, -1)).rgb +
           texture(u_src, uv + t * vec2(-1, 1)).rgb + texture(u_src, uv + t * vec2(1, 1)).rgb;
  s += 2.0 * (texture(u_src, uv + t * vec2(0, -1)).rgb + texture(u_src, uv + t * vec2(-1, 0)).rgb +
              texture(u_src, uv + t * vec2(1, 0)).rgb + texture(u_src, uv + t * vec2(0, 1)).rgb);
  s += 4.0 * texture(u_src, uv).rgb;
  o_color = vec4(s / 16.0 * params[0].z + texelFetch(u_level, ivec2(gl_FragCoord.xy), 0).rgb, 1.0);
}
