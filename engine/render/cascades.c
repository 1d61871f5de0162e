/* engine/render/cascades.c: fitting the sun's shadow cascades to the camera: where each
 * cascade's slice of the view ends, and an orthographic sun view-projection around each
 * slice. The Shadow feature (features_forward.c) fits them for its map, and bucketing
 * (gather.c) fits the same ones to sort casters into cascades; both ask here, so the two
 * cannot drift apart. */
#include <math.h>
#include <string.h>

#include <cglm/cglm.h>

#include "render_internal.h"

/* Fits one cascade (ty_render_fit_sun): a sphere around the camera frustum slice [d0, d1] (stable under
 * rotation), seen orthographically along the sun, snapped to whole texels (stable under
 * translation). */
void ty_render_fit_sun(const ty_frame *F, const ty_frame_block *B, float d0, float d1, const float sun[3],
                       uint32_t size, float out[16]) {
  const float *iv = B->inv_view; /* columns: right, up, back, position */
  vec3 right = {iv[0], iv[1], iv[2]}, up = {iv[4], iv[5], iv[6]};
  vec3 fwd = {F->camera_forward[0], F->camera_forward[1], F->camera_forward[2]};
  vec3 cam = {F->camera_position[0], F->camera_position[1], F->camera_position[2]};
  bool ortho = B->clip[2] > 0.5f;
  vec3 corners[8];
  int n = 0;
  for (int k = 0; k < 2; k++) {
    float d = k ? d1 : d0;
    float hw = ortho ? 1.0f / F->proj[0] : d / F->proj[0];
    float hh = ortho ? 1.0f / F->proj[5] : d / F->proj[5];
    for (int sy = -1; sy <= 1; sy += 2)
      for (int sx = -1; sx <= 1; sx += 2, n++)
        for (int a = 0; a < 3; a++) corners[n][a] = cam[a] + fwd[a] * d + right[a] * hw * (float)sx + up[a] * hh * (float)sy;
  }
  vec3 center = {0, 0, 0};
  for (int i = 0; i < 8; i++) glm_vec3_add(center, corners[i], center);
  glm_vec3_scale(center, 1.0f / 8.0f, center);
  float radius = 0;
  for (int i = 0; i < 8; i++) radius = fmaxf(radius, glm_vec3_distance(center, corners[i]));
  radius = ceilf(radius * 16.0f) / 16.0f;
  if (radius <= 0) radius = 1.0f;
  vec3 L = {sun[0], sun[1], sun[2]};
  vec3 lup = {0, 1, 0};
  if (fabsf(L[1]) > 0.99f) glm_vec3_copy((vec3){0, 0, 1}, lup);
  float back = radius + 100.0f; /* casters behind the slice still throw shadows into it */
  vec3 eye;
  glm_vec3_scale(L, -back, eye);
  glm_vec3_add(eye, center, eye);
  mat4 view, proj, vp;
  glm_lookat(eye, center, lup, view);
  glm_ortho(-radius, radius, -radius, radius, 0.0f, back + radius, proj);
  glm_mat4_mul(proj, view, vp);
  vec4 origin = {0, 0, 0, 1}, o;
  glm_mat4_mulv(vp, origin, o);
  float half = (float)size * 0.5f;
  float ox = o[0] * half, oy = o[1] * half;
  proj[3][0] += (roundf(ox) - ox) / half;
  proj[3][1] += (roundf(oy) - oy) / half;
  glm_mat4_mul(proj, view, vp);
  memcpy(out, vp, sizeof(float) * 16);
}

/* The cascades' splits (the practical scheme: a blend of logarithmic and uniform) over
 * [near, min(far, distance)] and a sun fit around each slice. */
void ty_render_fit_cascades(const ty_frame *F, const ty_frame_block *B, const ty_shadow_settings *s,
                            float vp[][16], float splits[]) {
  float nearp = B->clip[0] > 0 ? B->clip[0] : 0.1f;
  float farp = fminf(B->clip[1] > nearp ? B->clip[1] : 1000.0f, s->distance);
  if (B->clip[2] > 0.5f) nearp = fmaxf(B->clip[0], 0.0f); /* orthographic: linear splits from the near plane */
  float prev = nearp;
  for (uint32_t c = 0; c < s->cascades; c++) {
    float p = (float)(c + 1) / (float)s->cascades;
    float uni = nearp + (farp - nearp) * p;
    float lg = nearp > 0 ? nearp * powf(farp / nearp, p) : uni;
    float split = 0.75f * lg + 0.25f * uni;
    ty_render_fit_sun(F, B, prev, split, F->sun_direction, s->size, vp[c]);
    splits[c] = split;
    prev = split;
  }
}
