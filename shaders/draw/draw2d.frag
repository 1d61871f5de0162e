// shaders/draw/draw2d.frag: tycho.draw's colour times texture. The draw goes over the
// sRGB-encoded backbuffer, so colours are sRGB as given. Glyph pages and the white texture
// are plain RGBA8 whose colour is white: nothing to convert. An image's sRGB texture is
// decoded to linear when sampled, so the IMAGE variant encodes it back and the image shows
// its file's bytes (as the UI layer does).
#ifdef IMAGE
#include "common/color.glsl"
#endif

layout(location = 0) in vec2 v_uv;
layout(location = 1) in vec4 v_color;
layout(binding = 0) uniform sampler2D u_texture;
layout(location = 0) out vec4 o_color;
void main() {
  vec4 t = texture(u_texture, v_uv);
#ifdef IMAGE
  t.rgb = ty_to_srgb(t.rgb);
#endif
  o_color = t * v_color;
}
