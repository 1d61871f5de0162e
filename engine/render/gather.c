/* engine/render/gather.c: a frame's view of the scene: the camera (with TAA jitter),
 * the sun and this frame's point and spot lights, and every live item as a bucket item
 * with its world matrix, culled against the camera and the sun's shadow volume. */
#include "render_core.h"

#include <math.h>
#include <string.h>

#include <cglm/cglm.h>

#include "camera.h" /* Required for: ty_camera_planes */

static const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};

static void halton(uint32_t i, uint32_t base, float *out) {
  float f = 1.0f, r = 0.0f;
  while (i > 0) {
    f /= (float)base;
    r += f * (float)(i % base);
    i /= base;
  }
  *out = r;
}

void ty_render_setup_camera(ty_renderer *R, ty_frame *F, const ty_frame_desc *d) {
  ty_transforms *T = ty_world_transforms(R->world);
  const ty_camera_desc *c = &d->camera;
  mat4 view, world, proj;
  if (c->object && ty_object_alive(R->world, c->object)) {
    uint32_t xf = ty_object_transform(R->world, c->object);
    const float *w = ty_transform_world(T, xf), *rw = ty_transform_render_world(T, xf);
    memcpy(world, rw, sizeof world);
    if (rw == w) memcpy(view, ty_transform_world_inverse(T, xf), sizeof view);
    else glm_mat4_inv(world, view); /* a camera on (or under) an interpolated body */
  } else {
    glm_mat4_identity(world);
    glm_mat4_identity(view);
  }
  float aspect = F->height ? (float)F->width / (float)F->height : 1.0f;
  float nearp, farp;
  ty_camera_planes(c, &nearp, &farp); /* camera.c converts screen <-> world with the same */
  if (c->orthographic) {
    float size = c->size > 0 ? c->size : 5.0f;
    glm_ortho(-size * aspect, size * aspect, -size, size, nearp, farp, proj);
  } else {
    float fov = c->fov_deg > 0 ? c->fov_deg : 60.0f;
    glm_perspective(glm_rad(fov), aspect, nearp, farp, proj);
  }
  F->jitter[0] = F->jitter[1] = 0;
  if (d->jitter && F->width && F->height) {
    uint32_t i = (uint32_t)(F->index % 8) + 1;
    halton(i, 2, &F->jitter[0]);
    halton(i, 3, &F->jitter[1]);
    F->jitter[0] -= 0.5f, F->jitter[1] -= 0.5f;
    float jx = 2.0f * F->jitter[0] / (float)F->width, jy = 2.0f * F->jitter[1] / (float)F->height;
    if (c->orthographic) proj[3][0] += jx, proj[3][1] += jy;
    else proj[2][0] -= jx, proj[2][1] -= jy; /* clip w is -z: this shifts NDC by +j */
  }
  mat4 vp, ivp;
  glm_mat4_mul(proj, view, vp);
  glm_mat4_inv(vp, ivp);
  memcpy(F->view, view, sizeof F->view);
  memcpy(F->proj, proj, sizeof F->proj);
  memcpy(F->view_proj, vp, sizeof F->view_proj);
  memcpy(F->inv_view_proj, ivp, sizeof F->inv_view_proj);
  memcpy(F->prev_view_proj, R->has_prev ? R->prev_view_proj : F->view_proj, sizeof F->prev_view_proj);
  memcpy(R->prev_view_proj, vp, sizeof R->prev_view_proj);
  R->has_prev = true;
  F->camera_position[0] = world[3][0], F->camera_position[1] = world[3][1], F->camera_position[2] = world[3][2];
  vec3 fwd = {-world[2][0], -world[2][1], -world[2][2]};
  glm_vec3_normalize(fwd);
  memcpy(F->camera_forward, fwd, sizeof F->camera_forward);

  ty_frame_block *B = &R->block;
  memcpy(B->view, F->view, 64);
  memcpy(B->proj, F->proj, 64);
  memcpy(B->view_proj, F->view_proj, 64);
  memcpy(B->inv_view_proj, F->inv_view_proj, 64);
  memcpy(B->prev_view_proj, F->prev_view_proj, 64);
  mat4 ip;
  glm_mat4_inv(proj, ip);
  memcpy(B->inv_proj, ip, 64);
  memcpy(B->inv_view, world, 64);
  B->camera_position[0] = F->camera_position[0], B->camera_position[1] = F->camera_position[1];
  B->camera_position[2] = F->camera_position[2], B->camera_position[3] = (float)fmod(d->time, 3600.0);
  B->camera_forward[0] = fwd[0], B->camera_forward[1] = fwd[1], B->camera_forward[2] = fwd[2];
  B->camera_forward[3] = d->delta;
  B->viewport[0] = (float)F->width, B->viewport[1] = (float)F->height;
  B->viewport[2] = F->width ? 1.0f / (float)F->width : 0, B->viewport[3] = F->height ? 1.0f / (float)F->height : 0;
  B->jitter[2] = B->jitter[0], B->jitter[3] = B->jitter[1];
  B->jitter[0] = F->jitter[0], B->jitter[1] = F->jitter[1];
  B->clip[0] = nearp, B->clip[1] = farp, B->clip[2] = c->orthographic ? 1.0f : 0.0f;
}

static void light_direction(ty_transforms *T, const ty_light *l, uint32_t xf, float out[3]) {
  if (l->has_direction) {
    memcpy(out, l->direction, sizeof(float) * 3);
  } else {
    const float *w = ty_transform_world(T, xf);
    out[0] = -w[8], out[1] = -w[9], out[2] = -w[10];
  }
  float len = sqrtf(out[0] * out[0] + out[1] * out[1] + out[2] * out[2]);
  if (len > 0) out[0] /= len, out[1] /= len, out[2] /= len;
  else out[0] = 0, out[1] = -1, out[2] = 0;
}

/* A light shines when it is enabled, on a live, active object in the frame's scene. */
static bool light_on(const ty_renderer *R, const ty_light *l, const ty_scene *scene) {
  return l->enabled && ty_object_alive(R->world, l->object) && ty_object_active(R->world, l->object) &&
         (!scene || ty_object_scene(R->world, l->object) == scene);
}

void ty_render_gather_lights(ty_renderer *R, ty_frame *F, const ty_scene *scene) {
  ty_transforms *T = ty_world_transforms(R->world);
  ty_frame_block *B = &R->block;
  F->has_sun = false;
  R->gpu_light_count = 0;
  if (!R->gpu_lights) R->gpu_lights = TY_MALLOC(TY_RENDER_MAX_LIGHTS * sizeof *R->gpu_lights);
  TY_ASSERT(R->gpu_lights);
  const ty_light *sun = NULL;
  uint32_t sun_xf = 0, dropped = 0;
  for (int pass = 0; pass < 2 && !sun; pass++) {
    for (uint32_t i = 0; i < R->light_pool.cap && !sun; i++) {
      const ty_light *l = &R->lights[i];
      if (!R->light_pool.live[i] || l->type != TY_LIGHT_DIRECTIONAL || !light_on(R, l, scene)) continue;
      if (pass == 0 && !l->cast_shadows) continue; /* a casting sun first, then any */
      sun = l;
      sun_xf = ty_object_transform(R->world, l->object);
    }
  }
  for (uint32_t i = 0; i < R->light_pool.cap; i++) {
    const ty_light *l = &R->lights[i];
    if (!R->light_pool.live[i] || l->type == TY_LIGHT_DIRECTIONAL || !light_on(R, l, scene)) continue;
    if (R->gpu_light_count == TY_RENDER_MAX_LIGHTS) {
      dropped++;
      continue;
    }
    uint32_t xf = ty_object_transform(R->world, l->object);
    float pos[3], dir[3];
    ty_transform_world_position(T, xf, pos);
    light_direction(T, l, xf, dir);
    float outer = glm_rad(fmaxf(l->outer_angle, 0.1f) * 0.5f), inner = glm_rad(fmaxf(l->inner_angle, 0.0f) * 0.5f);
    if (inner > outer) inner = outer;
    R->gpu_lights[R->gpu_light_count++] = (ty_gpu_light){
        {pos[0], pos[1], pos[2], l->range > 0 ? l->range : 10.0f},
        {l->color[0] * l->intensity, l->color[1] * l->intensity, l->color[2] * l->intensity,
         l->type == TY_LIGHT_SPOT ? 2.0f : 1.0f},
        {dir[0], dir[1], dir[2], l->type == TY_LIGHT_SPOT ? cosf(outer) : -2.0f},
        {l->type == TY_LIGHT_SPOT ? cosf(inner) : -2.0f, 0, 0, 0}};
  }
  if (dropped && !R->lights_dropped_logged) {
    ty_log("render_too_many_lights", "%u point/spot lights past %d dropped this frame", dropped, TY_RENDER_MAX_LIGHTS);
    R->lights_dropped_logged = true;
  }
  F->light_count = R->gpu_light_count;
  B->counts[0] = R->gpu_light_count;
  memset(B->sun_direction, 0, sizeof B->sun_direction);
  memset(B->sun_color, 0, sizeof B->sun_color);
  if (sun) {
    F->has_sun = true;
    light_direction(T, sun, sun_xf, F->sun_direction);
    memcpy(F->sun_color, sun->color, sizeof F->sun_color);
    F->sun_intensity = sun->intensity;
    memcpy(B->sun_direction, F->sun_direction, 12);
    B->sun_direction[3] = 1.0f;
    for (int k = 0; k < 3; k++) B->sun_color[k] = sun->color[k] * sun->intensity;
  } else {
    memset(F->sun_direction, 0, sizeof F->sun_direction);
    memset(F->sun_color, 0, sizeof F->sun_color);
    F->sun_intensity = 0;
  }
}

/* Every live item becomes a bucket item: enabled ones on active objects with their world
 * matrix, the rest as disabled (so the counts show them). */
void ty_render_gather_items(ty_renderer *R, const ty_scene *scene) {
  ty_world *W = R->world;
  ty_transforms *T = ty_world_transforms(W);
  TY_GROW(R->bitems, R->bitem_cap, R->item_pool.cap ? R->item_pool.cap : 1);
  ty_bucket_item *out = R->bitems;
  uint32_t n = 0;
  const uint32_t mesh_count = R->mesh_count, material_count = R->material_count;
  const ty_material *mats = R->materials;
  const mesh_rec *meshes = R->meshes;
  for (uint32_t s = 0, cap = R->item_pool.cap; s < cap; s++) {
    if (!R->item_pool.live[s]) continue;
    const ty_render_item *it = &R->items[s];
    ty_bucket_item *b = &out[n++];
    uint32_t mesh = it->mesh < mesh_count ? it->mesh : TY_RENDER_MESH_PLACEHOLDER;
    uint32_t mat = it->material < material_count ? it->material : TY_RENDER_MATERIAL_DEFAULT;
    const mesh_rec *mr = &meshes[mesh];
    b->mesh = mesh;
    b->material = mat;
    b->center[0] = mr->center[0], b->center[1] = mr->center[1], b->center[2] = mr->center[2];
    b->radius = mr->radius;
    b->instance_data = it->tint; /* tint then rect: 32 contiguous bytes */
    uint32_t xf = it->enabled ? ty_object_drawable(W, it->object, scene) : TY_TRANSFORM_NONE;
    if (xf == TY_TRANSFORM_NONE) {
      b->world = identity;
      b->flags = 0;
      continue;
    }
    b->world = ty_transform_render_world(T, xf); /* interpolated bodies drawn between steps */
    const ty_material *m = &mats[mat];
    uint32_t flags = TY_BUCKET_ENABLED | TY_BUCKET_STATE(m->unlit ? 1 : 0);
    if (m->transparent) flags |= TY_BUCKET_TRANSPARENT;
    else if (it->cast_shadows) flags |= TY_BUCKET_CASTS_SHADOW;
    b->flags = flags;
  }
  ty_bucket_frame bf = {.items = out, .item_count = n, .meshes = R->bmeshes, .mesh_count = R->mesh_count};
  /* A caster throws a shadow into the cascades its sphere overlaps and into no other: the
   * cascades are fitted as the Shadow feature will fit them, with last frame's settings
   * (the feature runs after bucketing), and outside them all it is culled. */
  const ty_frame *F = &R->frame;
  if (F->has_sun && R->shadow.cascades) {
    float splits[TY_RENDER_MAX_CASCADES];
    ty_render_fit_cascades(F, &R->block, &R->shadow, R->shadow_cull, splits);
    bf.shadow_cascades = (const float(*)[16])R->shadow_cull;
    bf.shadow_cascade_count = R->shadow.cascades;
  }
  memcpy(bf.view_proj, R->frame.view_proj, sizeof bf.view_proj);
  memcpy(bf.camera_position, R->frame.camera_position, sizeof bf.camera_position);
  memcpy(bf.camera_forward, R->frame.camera_forward, sizeof bf.camera_forward);
  ty_bucket_build(R->bucket, &bf);
}

_Static_assert(TY_RENDER_MAX_CASCADES <= TY_BUCKET_MAX_CASCADES, "a shadow list splits into every cascade");

void ty_render_note_shadow(ty_renderer *R, const ty_shadow_settings *s) {
  R->shadow = *s;
  R->shadow_noted = true;
}

bool ty_render_shadow_split(const ty_renderer *R, const float (*vp)[16], uint32_t cascades,
                            ty_bucket_range ranges[]) {
  const ty_bucket_list *l = ty_bucket_get(R->bucket, TY_BUCKET_LIST_SHADOW);
  if (!cascades || l->cascade_count != cascades || memcmp(R->shadow_cull, vp, sizeof(float) * 16 * cascades) != 0)
    return false;
  memcpy(ranges, l->cascades, sizeof *ranges * cascades);
  return true;
}
