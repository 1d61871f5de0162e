// shaders/draw/draw2d.frag: tycho.draw's colour times texture. The draw goes over the
// sRGB-encoded backbuffer, so colours are sRGB as given. Glyph pages and the white texture
// are plain RGBA8 whose colour is white: nothing to convert. An image's sRGB texture is
// decoded to linear when sampled, so the IMAGE variant encodes it back and the image shows
// its file's bytes (as the UI layer does). The SDF variant draws world text: glyph pages
// of distance fields (0.5 on the outline, more inside) turned into coverage over about a
// screen pixel, however far the text is scaled. WORLD: world text drawn into the scene's
// linear HDR target (draw/world_text.vert), its colour decoded from sRGB there.
#if defined(IMAGE) || defined(WORLD)
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
#ifdef SDF
  float w = max(fwidth(t.a), 1e-4) * 0.7;
  t.a = smoothstep(0.5 - w, 0.5 + w, t.a);
#endif
#ifdef WORLD
  // Into the linear HDR target: the sRGB colour decoded, so Tonemap encodes it back.
  o_color = vec4(ty_to_linear(v_color.rgb), v_color.a * t.a);
#else
  o_color = t * v_color;
#endif
}
