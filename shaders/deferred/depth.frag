// shaders/deferred/depth.frag: the depth prepass writes depth only. The material index
// is read (never true in practice) so location 0 exists for the draw's uniform call.
layout(location = 0) uniform uint u_material;
void main() {
  if (u_material == 0xFFFFFFFFu) discard;
}
