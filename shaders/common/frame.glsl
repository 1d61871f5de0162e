// shaders/common/frame.glsl: the Frame block (uniform binding 0), the materials (storage
// binding 1) and lights (storage binding 2) every pass shares. Mirrors ty_frame_block,
// ty_gpu_material and ty_gpu_light in engine/render/render_internal.h.
layout(std140, binding = 0) uniform Frame {
  mat4 view, proj, viewProj, invViewProj, prevViewProj, invProj, invView;
  mat4 shadowViewProj[4];
  vec4 cascadeSplits;  // view depth where each cascade ends
  vec4 cameraPosition; // w: time in seconds (wrapped every hour)
  vec4 cameraForward;  // w: delta
  vec4 sunDirection;   // the way sunlight travels; w: 1 with a sun
  vec4 sunColor;       // colour * intensity; w: 1 when the shadow map is valid
  vec4 ambient;        // rgb; w: 1 for hemispherical sky ambient
  vec4 skyColor;       // rgb horizon colour; w: sky intensity
  vec4 viewport;       // width, height, 1/width, 1/height
  vec4 jitter;         // this frame's jitter in pixels (xy), last frame's (zw)
  uvec4 counts;        // lights, cascades, light grid tiles x, tiles y
  vec4 shadowParams;   // bias, map size, cascade count, shadow distance
  vec4 clip;           // near, far, orthographic
} frame;

struct Material {
  vec4 baseColor;
  vec4 emissiveMetallic; // rgb emissive, w metallic
  vec4 params;           // x roughness, y unlit, z transparent, w clamp to the uv rect
};
layout(std430, binding = 1) readonly buffer Materials { Material materials[]; };

struct Light {
  vec4 positionRange; // world position, range
  vec4 colorType;     // colour * intensity, type (1 point, 2 spot)
  vec4 directionCos;  // the way the light travels, cos(outer half angle)
  vec4 params;        // x cos(inner half angle)
};
layout(std430, binding = 2) readonly buffer Lights { Light lights[]; };

// View-space depth (distance along the camera's forward axis) of a world position.
float ty_view_depth(vec3 world) { return dot(world - frame.cameraPosition.xyz, frame.cameraForward.xyz); }
