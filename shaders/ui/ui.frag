// shaders/ui/ui.frag: texture times colour; text and flat rectangles use the white texture.
// The UI draws over the sRGB-encoded backbuffer, so its colours are sRGB as given; textures
// are decoded to linear by their sRGB format when sampled and encoded back here, so an
// image shows its file's bytes.
#include "common/color.glsl"

layout(location = 0) in vec2 v_uv;
layout(location = 1) in vec4 v_color;
layout(binding = 0) uniform sampler2D u_texture;
layout(location = 0) out vec4 o_color;
void main() {
  vec4 t = texture(u_texture, v_uv);
  o_color = vec4(ty_to_srgb(t.rgb), t.a) * v_color;
}
