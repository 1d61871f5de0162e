// shaders/forward/overlay.frag: the overlay's colour, times a glyph's coverage (the atlas
// alpha) where the quad is a glyph; the panel and bars (u < 0) are flat.
layout(location = 0) in vec2 v_uv;
layout(location = 1) in vec4 v_color;
layout(binding = 0) uniform sampler2D u_atlas;
layout(location = 0) out vec4 o_color;
void main() {
  float a = v_uv.x < 0.0 ? 1.0 : texture(u_atlas, v_uv).a;
  o_color = vec4(v_color.rgb, v_color.a * a);
}
