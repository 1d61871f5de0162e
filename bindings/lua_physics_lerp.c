/* bindings/lua_physics_lerp.c: bodies drawn between their last two steps. Under a Loop a
 * frame falls between two physics steps: a dynamic body's object is drawn at the pose blended
 * from the step before and the step after, through a render offset on its transform (the
 * transform itself keeps the stepped pose, which the game reads). The tick
 * (lua_physics_tick.c) keeps the two poses; lphys_clear_offset (lua_physics_world.c) takes
 * an offset off. */
#include "lua_physics_world.h"

#include <math.h>
#include <string.h>

/* The column-major matrix of the rigid motion taking pose (cp, cq) to pose (ip, iq):
 * T(ip) R(iq) R(cq)^-1 T(-cp). */
static void pose_delta(const float cp[3], const float cq[4], const float ip[3], const float iq[4], float m[16]) {
  float inv[4] = {-cq[0], -cq[1], -cq[2], cq[3]}, q[4];
  lphys_quat_mul(iq, inv, q);
  float x = q[0], y = q[1], z = q[2], ww = q[3];
  float r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y + z * ww),     2 * (x * z - y * ww),
                2 * (x * y - z * ww),     1 - 2 * (x * x + z * z), 2 * (y * z + x * ww),
                2 * (x * z + y * ww),     2 * (y * z - x * ww),     1 - 2 * (x * x + y * y)};
  for (int c = 0; c < 3; c++) {
    m[4 * c + 0] = r[3 * c + 0], m[4 * c + 1] = r[3 * c + 1], m[4 * c + 2] = r[3 * c + 2], m[4 * c + 3] = 0;
  }
  for (int k = 0; k < 3; k++) m[12 + k] = ip[k] - (r[k] * cp[0] + r[3 + k] * cp[1] + r[6 + k] * cp[2]);
  m[15] = 1;
}

static void interpolate_world(lua_State *L, lworld *w, float alpha) {
  ty_world *W = lphys_world_of(L);
  ty_transforms *T = ty_world_transforms(W);
  for (uint32_t i = 0; i < w->count; i++) {
    body_rec *r = &w->recs[i];
    lphys_clear_offset(L, r);
    if (!r->stepped || !r->interpolate || r->disabled) continue;
    if (!memcmp(r->prev_pos, r->cur_pos, sizeof r->cur_pos) && !memcmp(r->prev_rot, r->cur_rot, sizeof r->cur_rot))
      continue;
    /* A game that moved the object since the step put it where it is meant to be drawn. */
    ty_lua_pull(L, r->go);
    float wp[3];
    ty_transform_world_position(T, r->xf, wp);
    bool moved = false;
    for (int k = 0; k < w->dims; k++)
      moved |= fabsf(wp[k] - r->cur_pos[k]) > 1e-4f * (1 + fabsf(r->cur_pos[k]));
    if (moved) continue;
    float ip[3], iq[4];
    for (int k = 0; k < 3; k++) ip[k] = r->prev_pos[k] + (r->cur_pos[k] - r->prev_pos[k]) * alpha;
    /* nlerp along the shorter arc: one step turns a body little */
    float dot = 0, len = 0;
    for (int k = 0; k < 4; k++) dot += r->prev_rot[k] * r->cur_rot[k];
    float sgn = dot < 0 ? -1.0f : 1.0f;
    for (int k = 0; k < 4; k++) {
      iq[k] = r->prev_rot[k] * sgn * (1 - alpha) + r->cur_rot[k] * alpha;
      len += iq[k] * iq[k];
    }
    len = sqrtf(len);
    if (!(len > 0)) continue;
    for (int k = 0; k < 4; k++) iq[k] /= len;
    float m[16];
    pose_delta(r->cur_pos, r->cur_rot, ip, iq, m);
    ty_transform_set_render_offset(T, r->xf, m);
    r->has_offset = true;
  }
}

void ty_lua_physics_interpolate(lua_State *L, int scene_idx, double alpha) {
  scene_idx = lua_absindex(L, scene_idx);
  if (!(alpha >= 0)) alpha = 0;
  if (alpha > 1) alpha = 1;
  for (int dims = 2; dims <= 3; dims++) {
    lworld *w = lphys_scene_world(L, scene_idx, dims);
    if (w) interpolate_world(L, w, (float)alpha);
  }
}
