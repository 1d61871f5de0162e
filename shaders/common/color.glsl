// shaders/common/color.glsl: the sRGB transfer curve, the one place linear colour becomes
// display colour (Tonemap's output, tycho.ui's textures), and back.
vec3 ty_to_srgb(vec3 c) {
  return mix(c * 12.92, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, step(vec3(0.0031308), c));
}

// The inverse: a display (sRGB) colour back to linear (world text's colour into HDR).
vec3 ty_to_linear(vec3 c) {
  return mix(c / 12.92, pow((c + 0.055) / 1.055, vec3(2.4)), step(vec3(0.04045), c));
}
