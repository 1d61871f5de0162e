/* bindings/lua_physics_tick.c: the physics phase of a scene's tick, both worlds alike.
 *
 * Each body's object has its local tables read back (compare on read, as ty_lua_pull does);
 * a record whose local values differ from the last ones was moved by the game: a kinematic
 * body is driven there through the step (so it pushes what it meets: Box2D by a velocity this
 * file gives it for the step, Bullet by itself), any other body is placed there. After the
 * step, the bodies that moved are written back into their transforms and tables, so that the
 * next read-back sees no change. */
#include "lua_physics_world.h"

#include <math.h>
#include <string.h>

/* Past this many meters from the origin a pose the game wrote is refused: float solvers
 * lose whole centimetres out there, and one NaN or infinity handed to the solver spreads to
 * every body its body touches. */
#define PHYS_MAX_COORD 1e5f

static bool pose_ok(const float *p, int np, const float *q, int nq) {
  for (int k = 0; k < np; k++)
    if (!isfinite(p[k]) || fabsf(p[k]) > PHYS_MAX_COORD) return false;
  for (int k = 0; k < nq; k++)
    if (!isfinite(q[k])) return false;
  return true;
}

/* Did the game write r's local position or rotation since it was last seen? Takes the
 * new values as seen when it did; the ones before go to old_pos/old_rot. */
static bool moved_by_game(ty_transforms *T, body_rec *r, float old_pos[3], float old_rot[4]) {
  const ty_trs *l = ty_transform_local(T, r->xf);
  if (!memcmp(l->pos, r->pos, sizeof r->pos) && !memcmp(l->rot, r->rot, sizeof r->rot)) return false;
  memcpy(old_pos, r->pos, sizeof r->pos);
  memcpy(old_rot, r->rot, sizeof r->rot);
  memcpy(r->pos, l->pos, sizeof r->pos);
  memcpy(r->rot, l->rot, sizeof r->rot);
  return true;
}

/* The game put r's object where the world cannot follow (a NaN, an infinity, or beyond
 * PHYS_MAX_COORD meters): the body stays, the object goes back to its last local pose, and
 * one line per body says so (PHYSICS_POSE_REFUSED). */
static void refuse_pose(lua_State *L, body_rec *r, const float *wp, bool bad_rot, const float old_pos[3],
                        const float old_rot[4]) {
  if (!r->warned) {
    r->warned = true;
    ty_push_gameobject(L, r->go);
    const char *name = luaL_tolstring(L, -1, NULL);
    fprintf(stderr,
            "tycho: PHYSICS_POSE_REFUSED: %s was put at (%g, %g, %g)%s: not finite or beyond %g m; "
            "its body stays and the object goes back (said once per body)\n",
            name, (double)wp[0], (double)wp[1], (double)wp[2], bad_rot ? " with a rotation that is not finite" : "",
            (double)PHYS_MAX_COORD);
    lua_pop(L, 2);
  }
  ty_lua_set_local(L, r->go, 0, old_pos);
  ty_lua_set_local(L, r->go, 1, old_rot);
  memcpy(r->pos, old_pos, sizeof r->pos);
  memcpy(r->rot, old_rot, sizeof r->rot);
}

/* ---- the bodies' local tables, many at a time ----
 *
 * Every tick reads back the position, rotation and scale tables Lua holds for each body's
 * object and writes the moved ones after the step. ty_lua_pull and ty_lua_set_local do one
 * object each, naming each field through lua_getfield/lua_setfield, which intern their C
 * string at every call. A tick instead opens the locals list once, with the axis names
 * pushed beside it, and reaches each table by its slot and each field raw. An object with a
 * parent (its pose depends on its ancestors' tables) and a field that is not a number (to be
 * refused, with its message) go through ty_lua_pull as before. */

/* Up to this many tables are written together, field by field across them, after a step:
 * the step leaves them out of cache, and a write to one does not wait on the write to the
 * one before, so several of their cache misses are in flight at once. */
#define WRITE_BATCH 16

/* A table write waiting in the batch: the table's stack slot, its values and which of them
 * changed. */
typedef struct table_write {
  int tab;
  uint8_t changed;
  float v[4];
} table_write;

typedef struct tables {
  int list; /* stack index of the locals list; the names x, y, z, w follow it */
  ty_world *W;
  ty_transforms *T;
  const ty_lctx *ctx;
  table_write batch[WRITE_BATCH];
  int queued;
} tables;

static const int TABLE_N[3] = {3, 4, 3}; /* floats in a position, rotation, scale */

static void tables_open(lua_State *L, tables *t) {
  luaL_checkstack(L, WRITE_BATCH + 16, "reading the bodies' tables");
  lua_rawgeti(L, LUA_REGISTRYINDEX, ty_lctx_get(L)->locals);
  t->list = lua_gettop(L);
  lua_pushliteral(L, "x");
  lua_pushliteral(L, "y");
  lua_pushliteral(L, "z");
  lua_pushliteral(L, "w");
  t->ctx = ty_lctx_get(L);
  t->queued = 0;
  t->W = t->ctx->world;
  t->T = ty_world_transforms(t->W);
}

/* r's object's slots in the locals list, asked of its GameObject only when a table joined
 * or left the list since they were last asked: the GameObject is one more cache miss a body
 * a tick, the list rarely changes. */
static const uint32_t *body_slots(lua_State *L, const tables *t, body_rec *r) {
  if (r->slots_epoch != t->ctx->locals_epoch) {
    for (int kind = 0; kind < 3; kind++) r->slot[kind] = ty_lua_local_slot(L, r->go, kind);
    r->slots_epoch = t->ctx->locals_epoch;
  }
  return r->slot;
}

/* Writes the queued fields, one field of every queued table at a time, and pops them. */
static void tables_flush(lua_State *L, tables *t) {
  if (!t->queued) return;
  for (int i = 0; i < 4; i++)
    for (int k = 0; k < t->queued; k++) {
      if (!(t->batch[k].changed & (1u << i))) continue;
      lua_pushvalue(L, t->list + 1 + i);
      lua_pushnumber(L, t->batch[k].v[i]);
      lua_rawset(L, t->batch[k].tab);
    }
  lua_settop(L, t->batch[0].tab - 1);
  t->queued = 0;
}

static void tables_close(lua_State *L, tables *t) {
  tables_flush(L, t);
  lua_settop(L, t->list - 1);
}

static float *trs_part(ty_trs *l, int kind) { return kind == 0 ? l->pos : kind == 1 ? l->rot : l->scale; }

/* Reads back r's object's local tables into its transform, writing it only when a field
 * changed (bitwise, as ty_lua_pull does). A 2D body's step needs x and y of the position and
 * the rotation's z and w (its turn about Z): only those are read here; the others reach the
 * transform at the next full read-back (a rendered frame, a world read), which is all they
 * ever did to a 2D body. The read is Lua API calls and little else (the tables are mostly
 * in cache): its values stay on the stack until the body's last, compared in place. */
static void pull_body(lua_State *L, const tables *t, body_rec *r, int dims) {
  if (ty_object_parent(t->W, r->go)) {
    ty_lua_pull(L, r->go);
    return;
  }
  static const int FIRST[2][3] = {{0, 2, 0}, {0, 0, 0}}, COUNT[2][3] = {{2, 2, 3}, {3, 4, 3}};
  const uint32_t *slots = body_slots(L, t, r);
  const ty_trs *l = ty_transform_local(t->T, r->xf);
  float v[3][4];
  bool moved = false;
  int top = lua_gettop(L), at = top;
  for (int kind = 0; kind < 3; kind++) {
    if (!slots[kind]) continue;
    int first = FIRST[dims - 2][kind], n = COUNT[dims - 2][kind];
    lua_rawgeti(L, t->list, slots[kind]);
    int tab = ++at;
    const float *have = trs_part((ty_trs *)l, kind) + first;
    for (int i = 0; i < n; i++) {
      lua_pushvalue(L, t->list + 1 + first + i);
      lua_rawget(L, tab);
      int isnum;
      v[kind][i] = (float)lua_tonumberx(L, ++at, &isnum);
      if (!isnum) { /* refused, said and set back there */
        lua_settop(L, top);
        ty_lua_pull(L, r->go);
        return;
      }
      moved |= memcmp(&v[kind][i], &have[i], sizeof v[kind][i]) != 0;
    }
  }
  lua_settop(L, top);
  if (!moved) return;
  ty_trs *w = ty_transform_write(t->T, r->xf);
  for (int kind = 0; kind < 3; kind++)
    if (slots[kind])
      memcpy(trs_part(w, kind) + FIRST[dims - 2][kind], v[kind], sizeof(float) * (size_t)COUNT[dims - 2][kind]);
}

/* Writes v as r's object's local kind (0 position, 1 rotation): its transform and, when Lua
 * holds one, its table (only the fields that changed; queued in the batch, written by
 * tables_flush). parent: the object's. */
static void set_body_local(lua_State *L, tables *t, body_rec *r, ty_id parent, int kind, const float *v) {
  if (parent) {
    ty_lua_set_local(L, r->go, kind, v);
    return;
  }
  int n = TABLE_N[kind];
  float *have = trs_part(ty_transform_write(t->T, r->xf), kind);
  uint32_t slot = body_slots(L, t, r)[kind];
  if (slot) {
    table_write *q = &t->batch[t->queued];
    q->changed = 0;
    for (int i = 0; i < n; i++)
      if (memcmp(&v[i], &have[i], sizeof v[i])) q->changed |= (uint8_t)(1u << i);
    if (q->changed) {
      lua_rawgeti(L, t->list, slot);
      q->tab = lua_gettop(L);
      memcpy(q->v, v, sizeof(float) * (size_t)n);
      if (++t->queued == WRITE_BATCH) tables_flush(L, t);
    }
  }
  memcpy(have, v, sizeof(float) * (size_t)n);
}

/* Writes the world pose pos/rot of r's object back as its local position and rotation
 * (through its parent, when it has one: parent is the object's), only what changed. */
static void write_back(lua_State *L, tables *t, body_rec *r, ty_id parent, float pos[3], float rot[4]) {
  ty_world *W = t->W;
  ty_transforms *T = t->T;
  if (parent) {
    /* Into the parent's space: its inverse world on the position, its rotation undone. */
    uint32_t pxf = ty_object_transform(W, parent);
    const float *inv = ty_transform_world_inverse(T, pxf);
    float wp[3] = {pos[0], pos[1], pos[2]};
    for (int k = 0; k < 3; k++) pos[k] = inv[k] * wp[0] + inv[4 + k] * wp[1] + inv[8 + k] * wp[2] + inv[12 + k];
    float pq[4];
    ty_transform_world_rotation(T, pxf, pq);
    float conj[4] = {-pq[0], -pq[1], -pq[2], pq[3]}, lq[4];
    lphys_quat_mul(conj, rot, lq);
    memcpy(rot, lq, sizeof lq);
  }
  if (memcmp(pos, r->pos, sizeof r->pos)) {
    set_body_local(L, t, r, parent, 0, pos);
    memcpy(r->pos, pos, sizeof r->pos);
  }
  if (memcmp(rot, r->rot, sizeof r->rot)) {
    set_body_local(L, t, r, parent, 1, rot);
    memcpy(r->rot, rot, sizeof r->rot);
  }
}

/* Before the flush: bodies whose object is gone or left scene S leave the world (one still
 * alive waits to be built where it went); the bodies' own tables (and their ancestors')
 * are read back, so objects without a body cost the step nothing; a body whose object's
 * local scale changed waits to be built again at its new size (velocity kept). */
static void check_records(lua_State *L, lworld *w, ty_scene *S) {
  ty_world *W = lphys_world_of(L);
  ty_transforms *T = ty_world_transforms(W);
  for (uint32_t i = w->count; i-- > 0;) {
    ty_id go = w->recs[i].go;
    if (ty_object_alive(W, go) && ty_object_scene(W, go) == S) continue;
    lphys_remove_rec(L, w, i);
    if (ty_object_alive(W, go)) lphys_mark_pending(L, go);
  }
  tables t;
  tables_open(L, &t);
  for (uint32_t i = 0; i < w->count; i++) {
    body_rec *r = &w->recs[i];
    pull_body(L, &t, r, w->dims);
    const float *scale = ty_transform_local(T, r->xf)->scale;
    if (memcmp(scale, r->scale, sizeof r->scale)) {
      memcpy(r->scale, scale, sizeof r->scale);
      lphys_mark_pending(L, r->go);
    }
  }
  tables_close(L, &t);
}

/* After the flush: a disabled object's body is disabled with it. */
static void sync_enabled(lua_State *L, lworld *w) {
  ty_world *W = lphys_world_of(L);
  for (uint32_t i = 0; i < w->count; i++) {
    body_rec *r = &w->recs[i];
    bool off = !ty_object_active(W, r->go);
    if (off == r->disabled) continue;
    r->disabled = off;
    if (w->dims == 2) ty_body2d_set_enabled(w->w2, r->body, !off);
    else ty_body3d_set_enabled(w->w3, r->body, !off);
  }
}

/* ---- the step ---- */

/* Before a step: offsets of the last frame go (the step moves the bodies), and each dynamic
 * body's pose is kept as the one to blend from (in prev, and in cur until the step moves
 * it). */
static void before_step(lua_State *L, lworld *w) {
  for (uint32_t i = 0; i < w->count; i++) {
    body_rec *r = &w->recs[i];
    lphys_clear_offset(L, r);
    r->was_awake = !r->disabled && lphys_awake(w, r);
    if (r->interpolate && !r->disabled && r->type == TY_BODY_DYNAMIC) {
      /* Unmoved since the last step, the body is where that step left it: no need to ask. */
      if (!r->stepped || r->placed) lphys_body_pose(w, r, r->cur_pos, r->cur_rot);
      memcpy(r->prev_pos, r->cur_pos, sizeof r->prev_pos);
      memcpy(r->prev_rot, r->cur_rot, sizeof r->prev_rot);
    }
    r->stepped = false;
    r->placed = false;
  }
}

/* After a step: the dynamic bodies' new poses (one asleep before and after it stayed put). */
static void after_step(lworld *w) {
  for (uint32_t i = 0; i < w->count; i++) {
    body_rec *r = &w->recs[i];
    if (!r->interpolate || r->disabled || r->type != TY_BODY_DYNAMIC) continue;
    if (r->was_awake || lphys_awake(w, r)) lphys_body_pose(w, r, r->cur_pos, r->cur_rot);
    r->stepped = true;
  }
}

/* A kinematic 2D body the game moved, driven there through the step: where it goes, and
 * the velocities of its own it gets back after. */
typedef struct drive2d {
  bool on;
  float target[3]; /* x, y (meters), angle */
  float saved[3];  /* vx, vy, angular velocity */
} drive2d;

/* Gives r's body the velocities that take it to (m, ta) in dt, its own kept in k. */
static void drive_kinematic(lworld *w, body_rec *r, const float m[2], float ta, float dt, drive2d *k) {
  float x, y, a, v[2];
  ty_body2d_transform(w->w2, r->body, &x, &y, &a);
  ty_body2d_velocity(w->w2, r->body, v);
  k->on = true;
  k->saved[0] = v[0], k->saved[1] = v[1], k->saved[2] = ty_body2d_angular_velocity(w->w2, r->body);
  k->target[0] = m[0], k->target[1] = m[1], k->target[2] = ta;
  float da = remainderf(ta - a, 2.0f * (float)M_PI);
  ty_body2d_set_velocity(w->w2, r->body, (m[0] - x) / dt, (m[1] - y) / dt);
  ty_body2d_set_angular_velocity(w->w2, r->body, da / dt);
}

/* After the step: the driven body is where it was driven to, with its own velocities. */
static void end_drive(lworld *w, body_rec *r, const drive2d *k) {
  ty_body2d_set_transform(w->w2, r->body, k->target[0], k->target[1], k->target[2]);
  ty_body2d_set_velocity(w->w2, r->body, k->saved[0], k->saved[1]);
  ty_body2d_set_angular_velocity(w->w2, r->body, k->saved[2]);
}

/* Bodies whose objects the game moved since the last step go where they were put (a pose
 * the world cannot take is refused); a 2D kinematic one is driven there (drives[i]). */
static void place_moved(lua_State *L, lworld *w, float dt, drive2d *drives) {
  ty_transforms *T = ty_world_transforms(lphys_world_of(L));
  for (uint32_t i = 0; i < w->count; i++) {
    body_rec *r = &w->recs[i];
    float old_pos[3], old_rot[4];
    if (!moved_by_game(T, r, old_pos, old_rot)) continue;
    float p[3], q[4];
    ty_transform_world_position(T, r->xf, p);
    ty_transform_world_rotation(T, r->xf, q);
    if (w->dims == 3) {
      if (!pose_ok(p, 3, q, 4)) {
        refuse_pose(L, r, p, !pose_ok(p, 0, q, 4), old_pos, old_rot);
        continue;
      }
      ty_body3d_set_transform(w->w3, r->body, p, q); /* a kinematic body moves there in the step */
      r->placed = true;
      continue;
    }
    float m[3] = {p[0] / w->upm, p[1] / w->upm, 0}, a = lphys_quat_angle_z(q);
    if (!pose_ok(m, 2, &a, 1)) {
      float wp[3] = {m[0] * w->upm, m[1] * w->upm, r->pos[2]};
      refuse_pose(L, r, wp, !isfinite(a), old_pos, old_rot);
    } else if (r->type == TY_BODY_KINEMATIC) {
      drive_kinematic(w, r, m, a, dt, &drives[i]);
    } else {
      ty_body2d_set_transform(w->w2, r->body, m[0], m[1], a);
      ty_body2d_set_awake(w->w2, r->body, true);
      r->placed = true;
    }
  }
}

static void step_world(lua_State *L, lworld *w, float dt) {
  ty_world *W = lphys_world_of(L);
  ty_transforms *T = ty_world_transforms(W);
  drive2d *drives = NULL;
  if (w->dims == 2 && w->count) {
    drives = TY_MALLOC(w->count * sizeof *drives);
    TY_ASSERT(drives);
    memset(drives, 0, w->count * sizeof *drives);
  }
  place_moved(L, w, dt, drives);
  before_step(L, w);
  double t0 = ty_now();
  if (w->dims == 2) ty_phys2d_step(w->w2, dt);
  else ty_phys3d_step(w->w3, dt);
  w->step_s = ty_now() - t0;
  after_step(w);
  tables t;
  tables_open(L, &t);
  for (uint32_t i = 0; i < w->count; i++) {
    body_rec *r = &w->recs[i];
    if (drives && drives[i].on) {
      end_drive(w, r, &drives[i]);
      continue;
    }
    /* What the step moved: dynamic bodies, and in Box2D kinematic ones by their own velocity;
     * a body that fell asleep in this step moved in it too. */
    bool moves = w->dims == 2 ? r->type != TY_BODY_STATIC : r->type == TY_BODY_DYNAMIC;
    if (r->disabled || !moves || (!r->was_awake && !lphys_awake(w, r))) continue;
    float pos[3], rot[4];
    if (r->stepped) { /* after_step has the pose already */
      memcpy(pos, r->cur_pos, sizeof pos);
      memcpy(rot, r->cur_rot, sizeof rot);
    } else {
      lphys_body_pose(w, r, pos, rot);
    }
    ty_id parent = ty_object_parent(W, r->go);
    if (w->dims == 2) { /* a 2D body leaves its object's z as it is */
      pos[2] = r->pos[2];
      if (parent) {
        float wp[3];
        ty_transform_world_position(T, r->xf, wp);
        pos[2] = wp[2];
      }
    }
    write_back(L, &t, r, parent, pos, rot);
  }
  tables_close(L, &t);
  TY_FREE(drives);
}

void ty_lua_physics_step(lua_State *L, int scene_idx, ty_scene *S, double dt) {
  lphys_commit_views(L);
  for (int dims = 2; dims <= 3; dims++) {
    lworld *w = lphys_scene_world(L, scene_idx, dims);
    if (w) check_records(L, w, S);
  }
  /* Bodies waiting for a world are built next. */
  lphys_flush(L, scene_idx);
  lworld *worlds[2] = {lphys_scene_world(L, scene_idx, 2), lphys_scene_world(L, scene_idx, 3)};
  if (!(dt > 0)) return;
  for (int i = 0; i < 2; i++) {
    lworld *w = worlds[i];
    if (!w) continue;
    sync_enabled(L, w);
    lphys_sync_joints(L, w);
    step_world(L, w, (float)dt);
  }
}
