/* bindings/lua_physics_world.c: what every file of the physics binding stands on: the
 * worlds (scene.physics2d and scene.physics, World2D over a ty_phys2d, World3D over a
 * ty_phys3d) and each world's records of its bodies, the map from an object to its body's
 * record, the arguments both dimensions read alike, and physics.lua's waiting list. It calls
 * no other lua_physics*.c file; they call it (lua_physics_world.h says which holds what).
 *
 * Each body belongs to one GameObject. The world keeps a record per body: its handle, the
 * object, and the local position and rotation last seen or written, which the tick
 * (lua_physics_tick.c) compares with the object's to see what the game moved. Game units are
 * meters times unitsPerMeter. */
#include "lua_physics_world.h"

#include <math.h>
#include <string.h>

const char *const lphys_world_types[2] = {"World2D", "World3D"};

/* Per state and dimension: entity number -> the world and record index (1-based) of its
 * body (of[0] 2D, of[1] 3D). */
typedef struct pmap {
  struct {
    lworld *world;
    uint32_t rec;
  } *of;
  uint32_t cap;
} pmap;
typedef struct pctx {
  pmap maps[2];
  bool waiting; /* physics.lua's list of objects whose bodies wait to be built is not empty */
} pctx;

static const char flush_key = 0;
static const char mark_key = 0; /* registry: physics.lua's markPending(go) */
static const char mask_key = 0; /* registry: physics.lua's maskBits(value, argn, fname) */

static inline pctx *pctx_get(lua_State *L) { return ty_ctx_get(L)->phys; }

ty_world *lphys_world_of(lua_State *L) { return ty_lctx_get(L)->world; }

static void map_set(lua_State *L, ty_id id, lworld *w, uint32_t rec) {
  pmap *p = &pctx_get(L)->maps[w->dims - 2];
  uint32_t n = TY_ID_NUMBER(id);
  if (n >= p->cap) {
    uint32_t cap = p->cap ? p->cap : 1024;
    while (cap <= n) cap *= 2;
    void *of = TY_REALLOC(p->of, cap * sizeof *p->of);
    if (!of) luaL_error(L, "out of memory");
    p->of = of;
    memset(p->of + p->cap, 0, (cap - p->cap) * sizeof *p->of);
    p->cap = cap;
  }
  p->of[n].world = w;
  p->of[n].rec = rec;
}

/* Clears id's entry without growing the map (also safe while the state closes). */
static void map_clear(lua_State *L, int dims, ty_id id) {
  pctx *c = pctx_get(L);
  pmap *p = c ? &c->maps[dims - 2] : NULL;
  if (p && TY_ID_NUMBER(id) < p->cap) p->of[TY_ID_NUMBER(id)].world = NULL;
}

body_rec *lphys_rec_of(lua_State *L, int dims, ty_id id, lworld **wout) {
  pctx *c = pctx_get(L);
  pmap *p = c ? &c->maps[dims - 2] : NULL;
  uint32_t n = TY_ID_NUMBER(id);
  if (!p || n >= p->cap || !p->of[n].world) return NULL;
  lworld *w = p->of[n].world;
  body_rec *r = &w->recs[p->of[n].rec - 1];
  if (r->go != id) return NULL;
  *wout = w;
  return r;
}

static void destroy_body(lworld *w, uint32_t b) {
  if (w->dims == 2) ty_body2d_destroy(w->w2, b);
  else ty_body3d_destroy(w->w3, b);
}

void lphys_clear_offset(lua_State *L, body_rec *r) {
  if (!r->has_offset) return;
  r->has_offset = false;
  ty_world *W = lphys_world_of(L);
  if (ty_object_alive(W, r->go)) ty_transform_set_render_offset(ty_world_transforms(W), r->xf, NULL);
}

void lphys_joints_break(lworld *w, ty_id go) {
  for (uint32_t k = 0; k < w->joint_count; k++)
    if (!w->joints[k].dead && (w->joints[k].a == go || w->joints[k].b == go)) w->joints[k].handle = 0;
}

void lphys_remove_rec(lua_State *L, lworld *w, uint32_t i) {
  body_rec *r = &w->recs[i];
  lphys_clear_offset(L, r);
  lphys_joints_break(w, r->go); /* the backend ends them with the body */
  destroy_body(w, r->body);
  map_clear(L, w->dims, r->go);
  if (i != w->count - 1) {
    w->recs[i] = w->recs[w->count - 1];
    map_set(L, w->recs[i].go, w, i + 1);
  }
  w->count--;
}

void lphys_add_rec(lua_State *L, lworld *w, uint32_t b, ty_body_type type, ty_id id, uint32_t xf) {
  if (w->count == w->cap) {
    uint32_t cap = w->cap ? w->cap * 2 : 64;
    body_rec *recs = TY_REALLOC(w->recs, cap * sizeof *recs);
    if (!recs) {
      destroy_body(w, b);
      luaL_error(L, "out of memory");
    }
    w->recs = recs, w->cap = cap;
  }
  body_rec *r = &w->recs[w->count++];
  memset(r, 0, sizeof *r);
  r->body = b, r->go = id, r->xf = xf, r->type = type;
  r->interpolate = true;
  const ty_trs *l = ty_transform_local(ty_world_transforms(lphys_world_of(L)), xf);
  memcpy(r->pos, l->pos, sizeof r->pos);
  memcpy(r->rot, l->rot, sizeof r->rot);
  memcpy(r->scale, l->scale, sizeof r->scale);
  r->slots_epoch = ty_lctx_get(L)->locals_epoch - 1; /* not read yet */
  map_set(L, id, w, w->count);
}

void lphys_body_pose(lworld *w, body_rec *r, float pos[3], float rot[4]) {
  if (w->dims == 2) {
    float x, y, a;
    ty_body2d_transform(w->w2, r->body, &x, &y, &a);
    pos[0] = x * w->upm, pos[1] = y * w->upm, pos[2] = 0;
    rot[0] = 0, rot[1] = 0, rot[2] = sinf(a * 0.5f), rot[3] = cosf(a * 0.5f);
  } else {
    ty_body3d_transform(w->w3, r->body, pos, rot);
  }
}

/* ---- conversions ---- */

float lphys_quat_angle_z(const float q[4]) { return 2.0f * atan2f(q[2], q[3]); }

void lphys_quat_mul(const float a[4], const float b[4], float out[4]) {
  float x = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
  float y = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
  float z = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
  float ww = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
  out[0] = x, out[1] = y, out[2] = z, out[3] = ww;
}

/* ---- arguments ---- */

void lphys_check_vec(lua_State *L, int idx, int dims, float *out) {
  if (ty_is_vec3(L, idx)) {
    float v[3];
    ty_read_vec3(L, idx, v);
    for (int i = 0; i < dims; i++)
      if (!isfinite(v[i])) luaL_argerror(L, idx, "the Vec3 must be finite");
    memcpy(out, v, sizeof(float) * (size_t)dims);
    return;
  }
  if (lua_type(L, idx) != LUA_TTABLE)
    luaL_typeerror(L, idx, dims == 2 ? "Vec3 or {x=, y=} table" : "Vec3 or {x=, y=, z=} table");
  int bad = lphys_table_vec(L, idx, dims, out);
  if (bad >= 0) luaL_argerror(L, idx, lua_pushfstring(L, "the table needs a finite number for '%c'", "xyz"[bad]));
}

int lphys_table_vec(lua_State *L, int idx, int dims, float *out) {
  static const char *const axes[3] = {"x", "y", "z"};
  for (int i = 0; i < dims; i++) {
    if (lua_getfield(L, idx, axes[i]) == LUA_TNIL) {
      lua_pop(L, 1);
      lua_rawgeti(L, idx, i + 1);
    }
    int ok;
    out[i] = (float)lua_tonumberx(L, -1, &ok);
    lua_pop(L, 1);
    if (!ok || !isfinite(out[i])) return i;
  }
  return -1;
}

/* A layer name or number, or a list of them, goes through physics.lua's maskBits (which
 * names the layers). */
uint32_t lphys_check_mask(lua_State *L, int idx, const char *fname) {
  if (lua_isnoneornil(L, idx)) return ~0u;
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &mask_key) != LUA_TFUNCTION) luaL_error(L, "physics layers are not loaded");
  lua_pushvalue(L, idx);
  lua_pushinteger(L, idx - 1); /* as the user counts: the world is the self argument */
  lua_pushstring(L, fname);
  lua_call(L, 3, 1);
  uint32_t bits = (uint32_t)lua_tointeger(L, -1);
  lua_pop(L, 1);
  return bits;
}

ty_body_type lphys_check_type(lua_State *L, int idx, const char *name) {
  if (strcmp(name, "dynamic") == 0) return TY_BODY_DYNAMIC;
  if (strcmp(name, "static") == 0) return TY_BODY_STATIC;
  if (strcmp(name, "kinematic") == 0) return TY_BODY_KINEMATIC;
  luaL_argerror(L, idx, lua_pushfstring(L, "type must be 'dynamic', 'static' or 'kinematic', got '%s'", name));
  return TY_BODY_STATIC;
}

float lphys_opt_number(lua_State *L, int t, const char *k, float def) {
  lua_getfield(L, t, k);
  float v = lua_isnumber(L, -1) ? (float)lua_tonumber(L, -1) : def;
  lua_pop(L, 1);
  return v;
}

lua_Integer lphys_opt_bits(lua_State *L, int t, const char *k) {
  lua_getfield(L, t, k);
  lua_Integer v = lua_tointeger(L, -1);
  lua_pop(L, 1);
  return v;
}

/* ---- the worlds ---- */

lworld *lphys_check_world(lua_State *L, int idx, int dims) {
  lworld *w = luaL_checkudata(L, idx, lphys_world_types[dims - 2]);
  if (!w->w2 && !w->w3) luaL_error(L, "this physics world's scene is gone");
  return w;
}

int lphys_world_gc(lua_State *L) {
  lworld *w = lua_touserdata(L, 1);
  for (uint32_t i = 0; i < w->count; i++) map_clear(L, w->dims, w->recs[i].go);
  TY_FREE(w->recs);
  w->recs = NULL;
  w->count = w->cap = 0;
  TY_FREE(w->joints);
  w->joints = NULL;
  w->joint_count = w->joint_cap = 0;
  ty_phys2d_destroy(w->w2);
  ty_phys3d_destroy(w->w3);
  w->w2 = NULL;
  w->w3 = NULL;
  return 0;
}

void ty_lua_physics_push_world(lua_State *L, int scene_idx, int dims) {
  const char *key = dims == 2 ? "physics2d" : "physics";
  scene_idx = lua_absindex(L, scene_idx);
  lua_getiuservalue(L, scene_idx, 1);
  if (lua_getfield(L, -1, key) != LUA_TNIL) {
    lua_remove(L, -2);
    return;
  }
  lua_pop(L, 1);
  lworld *w = lua_newuserdatauv(L, sizeof *w, 0);
  memset(w, 0, sizeof *w);
  w->dims = dims;
  w->upm = 1;
  if (dims == 2) w->w2 = ty_phys2d_create(0, -9.81f);
  else w->w3 = ty_phys3d_create((const float[3]){0, -9.81f, 0});
  if (!w->w2 && !w->w3) luaL_error(L, "out of memory");
  luaL_setmetatable(L, lphys_world_types[dims - 2]);
  lua_pushvalue(L, -1);
  lua_setfield(L, -3, key);
  lua_remove(L, -2);
}

lworld *lphys_scene_world(lua_State *L, int scene_idx, int dims) {
  lua_getiuservalue(L, scene_idx, 1);
  lworld *w = lua_getfield(L, -1, dims == 2 ? "physics2d" : "physics") == LUA_TUSERDATA ? lua_touserdata(L, -1) : NULL;
  lua_pop(L, 2);
  return w && (w->w2 || w->w3) ? w : NULL;
}

/* ---- physics.lua's waiting list ---- */

void lphys_set_lua_calls(lua_State *L) {
  luaL_checktype(L, 1, LUA_TFUNCTION);
  luaL_checktype(L, 2, LUA_TFUNCTION);
  luaL_checktype(L, 3, LUA_TFUNCTION);
  lua_settop(L, 3);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &mask_key);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &mark_key);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &flush_key);
}

void lphys_set_waiting(lua_State *L, bool waiting) { pctx_get(L)->waiting = waiting; }

void lphys_build_waiting(lua_State *L, int idx) {
  if (!pctx_get(L)->waiting) return;
  idx = lua_absindex(L, idx);
  lua_rawgetp(L, LUA_REGISTRYINDEX, &flush_key);
  lua_getfield(L, idx, "scene");
  if (lua_isfunction(L, -2) && !lua_isnil(L, -1)) lua_call(L, 1, 0);
  else lua_pop(L, 2);
}

/* physics.lua keeps the list and says when it holds any, so a tick with none calls no Lua. */
void lphys_flush(lua_State *L, int scene_idx) {
  if (!pctx_get(L)->waiting) {
    /* nothing waits */
  } else if (lua_rawgetp(L, LUA_REGISTRYINDEX, &flush_key) == LUA_TFUNCTION) {
    lua_pushvalue(L, scene_idx);
    if (!ty_pcall(L, 1, 0)) {
      fprintf(stderr, "tycho: building physics bodies: %s\n", lua_tostring(L, -1));
      lua_pop(L, 1);
    }
  } else {
    lua_pop(L, 1);
  }
}

void lphys_mark_pending(lua_State *L, ty_id go) {
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &mark_key) != LUA_TFUNCTION) {
    lua_pop(L, 1);
    return;
  }
  ty_push_gameobject(L, go);
  if (!ty_pcall(L, 1, 0)) lua_pop(L, 1);
}

/* ---- opening ---- */

static int pctx_gc(lua_State *L) {
  pctx *p = lua_touserdata(L, 1);
  for (int i = 0; i < 2; i++) {
    TY_FREE(p->maps[i].of);
    p->maps[i].of = NULL;
    p->maps[i].cap = 0;
  }
  return 0;
}

void lphys_open_records(lua_State *L) { ty_ctx_get(L)->phys = ty_ctx_part(L, sizeof(pctx), pctx_gc); }
