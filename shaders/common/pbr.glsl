// shaders/common/pbr.glsl: metallic-roughness Cook-Torrance (GGX distribution, Smith
// height-correlated visibility, Schlick Fresnel), light falloff and the ambient term.
#include "common/frame.glsl"

const float TY_PI = 3.14159265359;

float ty_d_ggx(float NoH, float a) {
  float a2 = a * a;
  float d = NoH * NoH * (a2 - 1.0) + 1.0;
  return a2 / (TY_PI * d * d);
}

float ty_v_smith(float NoV, float NoL, float a) {
  float a2 = a * a;
  float gv = NoL * sqrt(NoV * NoV * (1.0 - a2) + a2);
  float gl = NoV * sqrt(NoL * NoL * (1.0 - a2) + a2);
  return 0.5 / max(gv + gl, 1e-5);
}

vec3 ty_f_schlick(vec3 f0, float VoH) { return f0 + (1.0 - f0) * pow(1.0 - VoH, 5.0); }

// Outgoing radiance towards V for unit light radiance from L (NoL included).
vec3 ty_brdf(vec3 N, vec3 V, vec3 L, vec3 albedo, float metallic, float roughness) {
  vec3 H = normalize(V + L);
  float NoL = clamp(dot(N, L), 0.0, 1.0);
  if (NoL <= 0.0) return vec3(0.0);
  float NoV = clamp(abs(dot(N, V)), 1e-4, 1.0);
  float NoH = clamp(dot(N, H), 0.0, 1.0), VoH = clamp(dot(V, H), 0.0, 1.0);
  float a = max(roughness * roughness, 0.002);
  vec3 f0 = mix(vec3(0.04), albedo, metallic);
  vec3 F = ty_f_schlick(f0, VoH);
  vec3 spec = ty_d_ggx(NoH, a) * ty_v_smith(NoV, NoL, a) * F;
  vec3 diff = (1.0 - F) * (1.0 - metallic) * albedo / TY_PI;
  return (diff + spec) * NoL;
}

// Smooth windowed inverse-square falloff that reaches 0 at range.
float ty_attenuation(float dist, float range) {
  float r = dist / max(range, 1e-4);
  float w = clamp(1.0 - r * r * r * r, 0.0, 1.0);
  return w * w / (dist * dist + 1.0);
}

// A point or spot light's contribution at P.
vec3 ty_point_spot(Light l, vec3 P, vec3 N, vec3 V, vec3 albedo, float metallic, float roughness) {
  vec3 toL = l.positionRange.xyz - P;
  float dist = length(toL);
  if (dist >= l.positionRange.w) return vec3(0.0);
  vec3 L = toL / max(dist, 1e-4);
  float att = ty_attenuation(dist, l.positionRange.w);
  if (l.colorType.w > 1.5) {
    float cd = dot(-L, normalize(l.directionCos.xyz));
    att *= smoothstep(l.directionCos.w, max(l.params.x, l.directionCos.w + 1e-3), cd);
  }
  return ty_brdf(N, V, L, albedo, metallic, roughness) * l.colorType.rgb * att;
}

// Ambient: flat, or (frame.ambient.w) a hemisphere from the sky colour down to a darker ground.
vec3 ty_ambient(vec3 N, vec3 albedo, float metallic, float occlusion) {
  vec3 amb = frame.ambient.rgb;
  if (frame.ambient.w > 0.5) {
    vec3 sky = frame.skyColor.rgb * max(frame.skyColor.w, 0.0);
    vec3 ground = sky * 0.3;
    amb += mix(ground, sky, N.y * 0.5 + 0.5) * 0.3;
  }
  vec3 diffuse = albedo * (1.0 - metallic);
  vec3 spec = mix(vec3(0.04), albedo, metallic) * 0.5;
  return amb * (diffuse + spec) * occlusion;
}
