/* bindings/lua_physics.c: the Lua face of engine/physics, its core: scene.physics2d and
 * scene.physics (World2D over a ty_phys2d, World3D over a ty_phys3d), each world's records of
 * its bodies, the arguments both dimensions read alike, and the opener of tycho._physics
 * (2D) and tycho._physics3d, the body calls behind the component classes of
 * scripts/tycho/physics.lua. lua_physics_world.h says which file holds the rest.
 *
 * Each body belongs to one GameObject. The world keeps a record per body: its handle, the
 * object, and the local position and rotation last seen or written, which the tick
 * (lua_physics_tick.c) compares with the object's to see what the game moved. Game units are
 * meters times unitsPerMeter. */
#include "lua_physics.h"
#include "lua_physics_world.h"

#include <math.h>
#include <string.h>

static const char *const WORLD_TYPES[2] = {"World2D", "World3D"};

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

void ty_lua_physics_forget(lua_State *L, ty_id id) {
  for (int dims = 2; dims <= 3; dims++) {
    lworld *w = NULL;
    body_rec *r = lphys_rec_of(L, dims, id, &w);
    if (!r) continue;
    lphys_remove_rec(L, w, (uint32_t)(r - w->recs));
    lphys_joints_end(w, id);
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

/* ---- the World2D and World3D userdata ---- */

lworld *lphys_check_world(lua_State *L, int idx, int dims) {
  lworld *w = luaL_checkudata(L, idx, WORLD_TYPES[dims - 2]);
  if (!w->w2 && !w->w3) luaL_error(L, "this physics world's scene is gone");
  return w;
}

/* The worlds' methods, one per dimension so that each checks its own type. */
static int world2d_raycast(lua_State *L) { return lphys_raycast(L, lphys_check_world(L, 1, 2)); }
static int world3d_raycast(lua_State *L) { return lphys_raycast(L, lphys_check_world(L, 1, 3)); }
static int world2d_raycast_batch(lua_State *L) { return lphys_raycast_batch(L, lphys_check_world(L, 1, 2)); }
static int world3d_raycast_batch(lua_State *L) { return lphys_raycast_batch(L, lphys_check_world(L, 1, 3)); }
static int world2d_joint(lua_State *L) { return lphys_joint_new(L, lphys_check_world(L, 1, 2)); }
static int world3d_joint(lua_State *L) { return lphys_joint_new(L, lphys_check_world(L, 1, 3)); }

static int world_gc(lua_State *L) {
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

/* world.gravity, .unitsPerMeter (2D), .bodyCount, .stepTime, .jointCount and the methods. */
static int world_index(lua_State *L, int dims) {
  lworld *w = lphys_check_world(L, 1, dims);
  const char *k = luaL_checkstring(L, 2);
  if (strcmp(k, "gravity") == 0) {
    float g[3] = {0, 0, 0};
    if (dims == 2) {
      ty_phys2d_gravity(w->w2, g);
      g[0] *= w->upm, g[1] *= w->upm;
    } else {
      ty_phys3d_gravity(w->w3, g);
    }
    ty_push_vec3(L, g[0], g[1], g[2]);
  } else if (dims == 2 && strcmp(k, "unitsPerMeter") == 0) {
    lua_pushnumber(L, w->upm);
  } else if (strcmp(k, "bodyCount") == 0) {
    lua_pushinteger(L, w->count);
  } else if (strcmp(k, "stepTime") == 0) {
    lua_pushnumber(L, w->step_s);
  } else if (strcmp(k, "raycast") == 0) {
    lua_pushcfunction(L, dims == 2 ? world2d_raycast : world3d_raycast);
  } else if (strcmp(k, "raycastBatch") == 0) {
    lua_pushcfunction(L, dims == 2 ? world2d_raycast_batch : world3d_raycast_batch);
  } else if (strcmp(k, "joint") == 0) {
    lua_pushcfunction(L, dims == 2 ? world2d_joint : world3d_joint);
  } else if (strcmp(k, "jointCount") == 0) {
    lua_pushinteger(L, lphys_joint_count(w));
  } else {
    lua_pushnil(L);
  }
  return 1;
}

/* A 2D world's unitsPerMeter, set before it has bodies: its gravity keeps its game units. */
static void set_units_per_meter(lua_State *L, lworld *w) {
  lua_Number u = luaL_checknumber(L, 3);
  if (!(u > 0) || !isfinite(u)) luaL_argerror(L, 3, "unitsPerMeter must be a finite number > 0");
  if (w->count) luaL_error(L, "unitsPerMeter must be set before the world has bodies");
  float g[2];
  ty_phys2d_gravity(w->w2, g);
  g[0] *= w->upm, g[1] *= w->upm;
  w->upm = (float)u;
  ty_phys2d_set_gravity(w->w2, g[0] / w->upm, g[1] / w->upm);
}

/* world.gravity = v, world.unitsPerMeter = u (2D). */
static int world_newindex(lua_State *L, int dims) {
  lworld *w = lphys_check_world(L, 1, dims);
  const char *k = luaL_checkstring(L, 2);
  if (strcmp(k, "gravity") == 0) {
    float g[3];
    lphys_check_vec(L, 3, dims, g);
    if (dims == 2) ty_phys2d_set_gravity(w->w2, g[0] / w->upm, g[1] / w->upm);
    else ty_phys3d_set_gravity(w->w3, g);
  } else if (dims == 2 && strcmp(k, "unitsPerMeter") == 0) {
    set_units_per_meter(L, w);
  } else {
    luaL_error(L, "%s.%s cannot be set", WORLD_TYPES[dims - 2], k);
  }
  return 0;
}

static int world_tostring(lua_State *L, int dims) {
  lworld *w = luaL_checkudata(L, 1, WORLD_TYPES[dims - 2]);
  lua_pushfstring(L, "%s (%d bodies)", WORLD_TYPES[dims - 2], (int)w->count);
  return 1;
}

static int world2d_index(lua_State *L) { return world_index(L, 2); }
static int world3d_index(lua_State *L) { return world_index(L, 3); }
static int world2d_newindex(lua_State *L) { return world_newindex(L, 2); }
static int world3d_newindex(lua_State *L) { return world_newindex(L, 3); }
static int world2d_tostring(lua_State *L) { return world_tostring(L, 2); }
static int world3d_tostring(lua_State *L) { return world_tostring(L, 3); }

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
  luaL_setmetatable(L, WORLD_TYPES[dims - 2]);
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

/* P.setFlush(flush, mark, maskBits): flush(scene) builds the bodies waiting in that scene,
 * mark(go) puts an object back on the waiting list, maskBits(v, argn, fname) reads a
 * raycast's mask (physics.lua). */
static int p_set_flush(lua_State *L) {
  lphys_commit_views(L);
  luaL_checktype(L, 1, LUA_TFUNCTION);
  luaL_checktype(L, 2, LUA_TFUNCTION);
  luaL_checktype(L, 3, LUA_TFUNCTION);
  lua_settop(L, 3);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &mask_key);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &mark_key);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &flush_key);
  return 0;
}

/* P.setWaiting(bool): whether physics.lua's waiting list holds any object. */
static int p_set_waiting(lua_State *L) {
  pctx_get(L)->waiting = lua_toboolean(L, 1);
  return 0;
}

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

static const ty_physics_ops scene_hooks = {
    .step = ty_lua_physics_step,
    .contacts = ty_lua_physics_contacts,
    .forget = ty_lua_physics_forget,
    .interpolate = ty_lua_physics_interpolate,
    .push_world = ty_lua_physics_push_world,
    .view = ty_lua_physics_view,
};

void ty_open_physics(lua_State *L) {
  int tycho = lua_gettop(L);
  ty_ctx_get(L)->phys = ty_ctx_part(L, sizeof(pctx), pctx_gc);
  ty_ctx_get(L)->physics = &scene_hooks;

  static const luaL_Reg world_meta[2][5] = {
      {{"__index", world2d_index}, {"__newindex", world2d_newindex}, {"__gc", world_gc},
       {"__tostring", world2d_tostring}, {NULL, NULL}},
      {{"__index", world3d_index}, {"__newindex", world3d_newindex}, {"__gc", world_gc},
       {"__tostring", world3d_tostring}, {NULL, NULL}}};
  for (int i = 0; i < 2; i++) ty_type_register(L, WORLD_TYPES[i], world_meta[i], NULL);
  lphys_open_joints(L);

  static const luaL_Reg waiting[] = {{"setFlush", p_set_flush}, {"setWaiting", p_set_waiting}, {NULL, NULL}};
  lphys_open_body2d(L);
  lphys_open_body_common(L, 2);
  luaL_setfuncs(L, waiting, 0);
  lua_setfield(L, tycho, "_physics");
  lphys_open_body3d(L);
  lphys_open_body_common(L, 3);
  lua_setfield(L, tycho, "_physics3d");
}
