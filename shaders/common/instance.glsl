// shaders/common/instance.glsl: the vertex and per-instance attributes of the scene's
// draws (vertex stages only): 0 position, 1 normal, 2 uv; 3..6 the world matrix columns,
// 7 tint, 8 uv rect (divisor 1).
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in vec2 a_uv;
layout(location = 3) in vec4 a_world0;
layout(location = 4) in vec4 a_world1;
layout(location = 5) in vec4 a_world2;
layout(location = 6) in vec4 a_world3;
layout(location = 7) in vec4 a_tint;
layout(location = 8) in vec4 a_rect;

mat4 ty_instance_world() { return mat4(a_world0, a_world1, a_world2, a_world3); }
vec2 ty_instance_uv() { return a_rect.xy + a_uv * a_rect.zw; }
// Normals through the inverse transpose, so non-uniform scale keeps them perpendicular.
vec3 ty_instance_normal(mat4 world) { return normalize(transpose(inverse(mat3(world))) * a_normal); }
