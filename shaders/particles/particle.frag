// shaders/particles/particle.frag: texture times the particle's colour, into the linear
// scene colour. ADDITIVE (blend one, one) adds colour weighted by alpha; otherwise alpha
// blending does the weighting.
layout(location = 0) in vec2 v_uv;
layout(location = 1) in vec4 v_color;
layout(binding = 0) uniform sampler2D u_texture;
layout(location = 0) out vec4 o_color;

void main() {
  vec4 c = texture(u_texture, v_uv) * v_color;
#ifdef ADDITIVE
  o_color = vec4(c.rgb * c.a, 0.0);
#else
  o_color = c;
#endif
}
