// shaders/ui/ui.frag: texture times colour; text and flat rectangles use the white texture.
layout(location = 0) in vec2 v_uv;
layout(location = 1) in vec4 v_color;
layout(binding = 0) uniform sampler2D u_texture;
layout(location = 0) out vec4 o_color;
void main() { o_color = texture(u_texture, v_uv) * v_color; }
