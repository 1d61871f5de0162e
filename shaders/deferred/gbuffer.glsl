// shaders/deferred/gbuffer.glsl: reading the gbuffer and rebuilding positions from depth,
// shared by the deferred lighting and SSAO passes. Texture units as bound by
// engine/render/features_deferred.c.
#include "common/frame.glsl"

layout(binding = 1) uniform sampler2D g_albedo;   // rgb base colour, a: 1 lit, 0 unlit
layout(binding = 2) uniform sampler2D g_normal;   // view-space normal, a: roughness
layout(binding = 3) uniform sampler2D g_material; // r metallic, g ao
layout(binding = 8) uniform sampler2D g_depth;

// GL's default clip volume: depth 0..1 maps to NDC z -1..1.
vec3 view_position(vec2 uv, float depth) {
  vec4 p = frame.invProj * vec4(uv * 2.0 - 1.0, depth * 2.0 - 1.0, 1.0);
  return p.xyz / p.w;
}

vec3 world_position(vec2 uv, float depth) {
  vec4 p = frame.invViewProj * vec4(uv * 2.0 - 1.0, depth * 2.0 - 1.0, 1.0);
  return p.xyz / p.w;
}

// Towards the eye from world position P: parallel rays for an orthographic camera.
vec3 view_vector(vec3 P) {
  return frame.clip.z > 0.5 ? -frame.cameraForward.xyz : normalize(frame.cameraPosition.xyz - P);
}

// Pixel centre in 0..1 of the target being drawn.
vec2 screen_uv() { return gl_FragCoord.xy / vec2(textureSize(g_depth, 0)); }
