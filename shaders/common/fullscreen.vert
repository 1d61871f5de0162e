// shaders/common/fullscreen.vert: one triangle that covers the screen, made from
// gl_VertexID (drawn with the empty vertex array). uv runs 0..1 over the screen.
// FAR_PLANE puts it at depth 1, so a depth test of LEQUAL draws only where nothing did.
layout(location = 0) out vec2 uv;
void main() {
  vec2 p = vec2((gl_VertexID << 1) & 2, gl_VertexID & 2);
  uv = p;
#ifdef FAR_PLANE
  gl_Position = vec4(p * 2.0 - 1.0, 1.0, 1.0);
#else
  gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
#endif
}
