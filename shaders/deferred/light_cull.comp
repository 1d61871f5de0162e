// shaders/deferred/light_cull.comp: Forward+ tiled light culling. One 16x16 workgroup per
// screen tile finds the tile's depth range, builds its view-space bounding box, and lists
// the point and spot lights whose spheres touch it into the light grid: texel
// (tile.x * 33, tile.y) the count, the next 32 texels the light indices.
#include "common/frame.glsl"

layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 1) uniform sampler2D u_depth;
layout(r32ui, binding = 0) uniform writeonly uimage2D u_grid;

shared uint s_max_depth;
shared uint s_count;
shared uint s_list[32];

vec3 unproject(vec2 ndc, float depth) {
  vec4 p = frame.invProj * vec4(ndc, depth * 2.0 - 1.0, 1.0);
  return p.xyz / p.w;
}

void main() {
  ivec2 size = textureSize(u_depth, 0);
  ivec2 px = ivec2(gl_GlobalInvocationID.xy);
  if (gl_LocalInvocationIndex == 0u) {
    s_max_depth = 0u;
    s_count = 0u;
  }
  barrier();
  if (all(lessThan(px, size))) {
    float d = texelFetch(u_depth, px, 0).r;
    // Depths in 0..1 are positive floats, so their bits order as the values do.
    atomicMax(s_max_depth, floatBitsToUint(clamp(d, 0.0, 1.0)));
  }
  barrier();

  // The tile reaches from the near plane (transparent surfaces in front of the opaque
  // ones still need their lights) to the farthest opaque depth in it.
  float dmax = uintBitsToFloat(s_max_depth);
  vec2 lo = vec2(gl_WorkGroupID.xy * 16u) / vec2(size) * 2.0 - 1.0;
  vec2 hi = vec2(min((gl_WorkGroupID.xy + 1u) * 16u, uvec2(size))) / vec2(size) * 2.0 - 1.0;
  vec3 bmin = vec3(1e30), bmax = vec3(-1e30);
  for (int i = 0; i < 8; i++) {
    vec2 ndc = vec2((i & 1) != 0 ? hi.x : lo.x, (i & 2) != 0 ? hi.y : lo.y);
    vec3 c = unproject(ndc, (i & 4) != 0 ? dmax : 0.0);
    bmin = min(bmin, c);
    bmax = max(bmax, c);
  }

  uint count = frame.counts.x;
  for (uint i = gl_LocalInvocationIndex; i < count; i += 256u) {
    Light L = lights[i];
    vec3 c = (frame.view * vec4(L.positionRange.xyz, 1.0)).xyz;
    vec3 q = clamp(c, bmin, bmax);
    float r = L.positionRange.w;
    if (dot(q - c, q - c) <= r * r) {
      uint slot = atomicAdd(s_count, 1u);
      if (slot < 32u) s_list[slot] = i;
    }
  }
  barrier();

  uint n = min(s_count, 32u);
  ivec2 base = ivec2(gl_WorkGroupID.x * 33u, gl_WorkGroupID.y);
  if (gl_LocalInvocationIndex == 0u) imageStore(u_grid, base, uvec4(n));
  if (gl_LocalInvocationIndex < 32u)
    imageStore(u_grid, base + ivec2(1 + int(gl_LocalInvocationIndex), 0),
               uvec4(gl_LocalInvocationIndex < n ? s_list[gl_LocalInvocationIndex] : 0u));
}
