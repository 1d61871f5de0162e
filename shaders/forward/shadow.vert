// shaders/forward/shadow.vert: depth only, into one cascade of the sun's shadow map.
#include "common/frame.glsl"
#include "common/instance.glsl"

layout(location = 1) uniform int u_cascade;

void main() { gl_Position = frame.shadowViewProj[u_cascade] * (ty_instance_world() * vec4(a_position, 1.0)); }
