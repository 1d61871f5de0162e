/* bindings/lua_physics.c: the Lua face of engine/physics: scene.physics2d and
 * scene.physics (World2D over a ty_phys2d, World3D over a ty_phys3d), the body calls behind
 * the component classes of scripts/tycho/physics.lua (tycho._physics for 2D,
 * tycho._physics3d for 3D), and the tick's physics work. Raycasts are in
 * lua_physics_ray.c, joints in lua_physics_joint.c (lua_physics_world.h is what they share).
 *
 * Each body belongs to one GameObject. The world keeps a record per body: its handle,
 * the object, and the local position and rotation last seen or written. At the physics
 * phase each body's object has its local tables read back (compare on read, as
 * ty_lua_pull does); a record whose local values differ from the last ones was moved by the
 * game: a kinematic body is driven there through the step (so it pushes what it meets), any
 * other body is placed there. After the step, dynamic bodies that moved are written back
 * into their transforms and tables, so that the next read-back sees no change. Game units
 * are meters times unitsPerMeter. */
#include "lua_physics.h"
#include "lua_physics_world.h"

#include <math.h>
#include <string.h>

#define TY_WORLD2D "World2D"
#define TY_WORLD3D "World3D"

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
static const char pending_views_key = 0; /* registry: velocity views written since the last commit */
static const char mask_key = 0; /* registry: physics.lua's maskBits(value, argn, fname) */

static void commit_views(lua_State *L);

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

/* The record of id's body, or NULL (with *wout set to its world when found). */
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

/* Destroys record i's body and takes it off the list (the last record moves into it). */
static void clear_offset(lua_State *L, body_rec *r) {
  if (!r->has_offset) return;
  r->has_offset = false;
  ty_world *W = lphys_world_of(L);
  if (ty_object_alive(W, r->go)) ty_transform_set_render_offset(ty_world_transforms(W), r->xf, NULL);
}

static void remove_rec(lua_State *L, lworld *w, uint32_t i) {
  body_rec *r = &w->recs[i];
  clear_offset(L, r);
  lphys_joints_break(w, r->go); /* the backend ends them with the body */
  if (w->dims == 2) ty_body2d_destroy(w->w2, r->body);
  else ty_body3d_destroy(w->w3, r->body);
  map_clear(L, w->dims, r->go);
  if (i != w->count - 1) {
    w->recs[i] = w->recs[w->count - 1];
    map_set(L, w->recs[i].go, w, i + 1);
  }
  w->count--;
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

/* The world pose (game units, radians about Z) of transform xf, brought up to date. */
static void world_pose(ty_transforms *T, uint32_t xf, float *x, float *y, float *angle) {
  float p[3], q[4];
  ty_transform_world_position(T, xf, p);
  ty_transform_world_rotation(T, xf, q);
  *x = p[0], *y = p[1], *angle = lphys_quat_angle_z(q);
}

/* Reads argument idx as a 2D vector: a Vec3 (z ignored), {x=, y=} or {x, y}. */
void lphys_check_vec2(lua_State *L, int idx, float out[2]) {
  if (ty_is_vec3(L, idx)) {
    float v[3];
    ty_read_vec3(L, idx, v);
    if (!isfinite(v[0]) || !isfinite(v[1])) luaL_argerror(L, idx, "the Vec3 must be finite");
    out[0] = v[0], out[1] = v[1];
    return;
  }
  if (lua_type(L, idx) != LUA_TTABLE) luaL_typeerror(L, idx, "Vec3 or {x=, y=} table");
  static const char *const axes[2] = {"x", "y"};
  for (int i = 0; i < 2; i++) {
    if (lua_getfield(L, idx, axes[i]) == LUA_TNIL) {
      lua_pop(L, 1);
      lua_rawgeti(L, idx, i + 1);
    }
    int ok;
    out[i] = (float)lua_tonumberx(L, -1, &ok);
    lua_pop(L, 1);
    if (!ok || !isfinite(out[i]))
      luaL_argerror(L, idx, lua_pushfstring(L, "the table needs a finite number for '%s'", axes[i]));
  }
}

/* Reads argument idx as a 3D vector: a Vec3, {x=, y=, z=} or {x, y, z}. */
void lphys_check_vec3(lua_State *L, int idx, float out[3]) {
  if (ty_is_vec3(L, idx)) {
    ty_read_vec3(L, idx, out);
    if (!isfinite(out[0]) || !isfinite(out[1]) || !isfinite(out[2])) luaL_argerror(L, idx, "the Vec3 must be finite");
    return;
  }
  if (lua_type(L, idx) != LUA_TTABLE) luaL_typeerror(L, idx, "Vec3 or {x=, y=, z=} table");
  static const char *const axes[3] = {"x", "y", "z"};
  for (int i = 0; i < 3; i++) {
    if (lua_getfield(L, idx, axes[i]) == LUA_TNIL) {
      lua_pop(L, 1);
      lua_rawgeti(L, idx, i + 1);
    }
    int ok;
    out[i] = (float)lua_tonumberx(L, -1, &ok);
    lua_pop(L, 1);
    if (!ok || !isfinite(out[i]))
      luaL_argerror(L, idx, lua_pushfstring(L, "the table needs a finite number for '%s'", axes[i]));
  }
}

/* ---- the World2D userdata ---- */

static lworld *check_world2d(lua_State *L, int idx) {
  lworld *w = luaL_checkudata(L, idx, TY_WORLD2D);
  if (!w->w2) luaL_error(L, "this physics world's scene is gone");
  return w;
}

static lworld *check_world3d(lua_State *L, int idx) {
  lworld *w = luaL_checkudata(L, idx, TY_WORLD3D);
  if (!w->w3) luaL_error(L, "this physics world's scene is gone");
  return w;
}

static int world2d_raycast(lua_State *L) { return lphys_raycast2d(L, check_world2d(L, 1)); }
static int world3d_raycast(lua_State *L) { return lphys_raycast3d(L, check_world3d(L, 1)); }
static int world2d_raycast_batch(lua_State *L) { return lphys_raycast_batch(L, check_world2d(L, 1)); }
static int world3d_raycast_batch(lua_State *L) { return lphys_raycast_batch(L, check_world3d(L, 1)); }
static int world2d_joint(lua_State *L) { return lphys_joint_new(L, check_world2d(L, 1)); }
static int world3d_joint(lua_State *L) { return lphys_joint_new(L, check_world3d(L, 1)); }

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

/* Argument idx of raycast as layer bits: nil is every layer; a layer name or number, or a
 * list of them, goes through physics.lua's maskBits (which names the layers). */
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

static int world2d_index(lua_State *L) {
  lworld *w = check_world2d(L, 1);
  const char *k = luaL_checkstring(L, 2);
  if (strcmp(k, "gravity") == 0) {
    float g[2];
    ty_phys2d_gravity(w->w2, g);
    ty_push_vec3(L, g[0] * w->upm, g[1] * w->upm, 0);
  } else if (strcmp(k, "unitsPerMeter") == 0) {
    lua_pushnumber(L, w->upm);
  } else if (strcmp(k, "bodyCount") == 0) {
    lua_pushinteger(L, w->count);
  } else if (strcmp(k, "stepTime") == 0) {
    lua_pushnumber(L, w->step_s);
  } else if (strcmp(k, "raycast") == 0) {
    lua_pushcfunction(L, world2d_raycast);
  } else if (strcmp(k, "raycastBatch") == 0) {
    lua_pushcfunction(L, world2d_raycast_batch);
  } else if (strcmp(k, "joint") == 0) {
    lua_pushcfunction(L, world2d_joint);
  } else if (strcmp(k, "jointCount") == 0) {
    lua_pushinteger(L, lphys_joint_count(w));
  } else {
    lua_pushnil(L);
  }
  return 1;
}

static int world2d_newindex(lua_State *L) {
  lworld *w = check_world2d(L, 1);
  const char *k = luaL_checkstring(L, 2);
  if (strcmp(k, "gravity") == 0) {
    float g[2];
    lphys_check_vec2(L, 3, g);
    ty_phys2d_set_gravity(w->w2, g[0] / w->upm, g[1] / w->upm);
  } else if (strcmp(k, "unitsPerMeter") == 0) {
    lua_Number u = luaL_checknumber(L, 3);
    if (!(u > 0) || !isfinite(u)) luaL_argerror(L, 3, "unitsPerMeter must be a finite number > 0");
    if (w->count) luaL_error(L, "unitsPerMeter must be set before the world has bodies");
    float g[2];
    ty_phys2d_gravity(w->w2, g);
    g[0] *= w->upm, g[1] *= w->upm;
    w->upm = (float)u;
    ty_phys2d_set_gravity(w->w2, g[0] / w->upm, g[1] / w->upm);
  } else {
    luaL_error(L, "World2D.%s cannot be set", k);
  }
  return 0;
}

static int world2d_tostring(lua_State *L) {
  lworld *w = luaL_checkudata(L, 1, TY_WORLD2D);
  lua_pushfstring(L, "World2D (%d bodies)", (int)w->count);
  return 1;
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
  if (dims == 2) {
    w->w2 = ty_phys2d_create(0, -9.81f);
    if (!w->w2) luaL_error(L, "out of memory");
    luaL_setmetatable(L, TY_WORLD2D);
  } else {
    w->w3 = ty_phys3d_create((const float[3]){0, -9.81f, 0});
    if (!w->w3) luaL_error(L, "out of memory");
    luaL_setmetatable(L, TY_WORLD3D);
  }
  lua_pushvalue(L, -1);
  lua_setfield(L, -3, key);
  lua_remove(L, -2);
}

/* The scene's world of dims if it has one (nothing pushed, NULL, when not). */
static lworld *scene_world(lua_State *L, int scene_idx, int dims) {
  lua_getiuservalue(L, scene_idx, 1);
  lworld *w = lua_getfield(L, -1, dims == 2 ? "physics2d" : "physics") == LUA_TUSERDATA ? lua_touserdata(L, -1) : NULL;
  lua_pop(L, 2);
  return w && (w->w2 || w->w3) ? w : NULL;
}

/* ---- bodies and shapes: tycho._physics, for scripts/tycho/physics.lua ---- */

static ty_body_type check_type(lua_State *L, int idx, const char *name) {
  if (strcmp(name, "dynamic") == 0) return TY_BODY_DYNAMIC;
  if (strcmp(name, "static") == 0) return TY_BODY_STATIC;
  if (strcmp(name, "kinematic") == 0) return TY_BODY_KINEMATIC;
  luaL_argerror(L, idx, lua_pushfstring(L, "type must be 'dynamic', 'static' or 'kinematic', got '%s'", name));
  return TY_BODY_STATIC;
}

static float opt_field(lua_State *L, int t, const char *k, float def) {
  lua_getfield(L, t, k);
  float v = lua_isnumber(L, -1) ? (float)lua_tonumber(L, -1) : def;
  lua_pop(L, 1);
  return v;
}

/* Integer field k of the table at t (layer bits), 0 when absent. */
static lua_Integer opt_bits(lua_State *L, int t, const char *k) {
  lua_getfield(L, t, k);
  lua_Integer v = lua_tointeger(L, -1);
  lua_pop(L, 1);
  return v;
}

/* Records body b of object id (transform xf), its locals as they are now. */
static void add_rec(lua_State *L, lworld *w, uint32_t b, ty_body_type type, ty_id id, uint32_t xf) {
  if (w->count == w->cap) {
    uint32_t cap = w->cap ? w->cap * 2 : 64;
    body_rec *recs = TY_REALLOC(w->recs, cap * sizeof *recs);
    if (!recs) {
      if (w->dims == 2) ty_body2d_destroy(w->w2, b);
      else ty_body3d_destroy(w->w3, b);
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

/* P.createBody(world, go, opts) -> true: a body at go's world pose. opts (checked by the
 * component) hold type, linearDamping, angularDamping, gravityScale, lockRotation. */
static int p_create_body(lua_State *L) {
  lworld *w = check_world2d(L, 1);
  ty_id id = ty_check_gameobject(L, 2);
  luaL_checktype(L, 3, LUA_TTABLE);
  lworld *old = NULL;
  if (lphys_rec_of(L, 2, id, &old)) luaL_error(L, "GameObject already has a 2D body");
  ty_world *W = lphys_world_of(L);
  ty_lua_world_matrix(L, id); /* reads back its chain's tables */
  ty_transforms *T = ty_world_transforms(W);
  uint32_t xf = ty_object_transform(W, id);
  ty_body2d_desc d = {0};
  lua_getfield(L, 3, "type");
  d.type = lua_isstring(L, -1) ? check_type(L, 3, lua_tostring(L, -1)) : TY_BODY_DYNAMIC;
  lua_pop(L, 1);
  float x, y, a;
  world_pose(T, xf, &x, &y, &a);
  d.x = x / w->upm, d.y = y / w->upm, d.angle = a;
  d.linear_damping = opt_field(L, 3, "linearDamping", 0);
  d.angular_damping = opt_field(L, 3, "angularDamping", 0);
  d.gravity_scale = opt_field(L, 3, "gravityScale", 1);
  d.no_gravity = d.gravity_scale == 0;
  lua_getfield(L, 3, "lockRotation");
  d.fixed_rotation = lua_toboolean(L, -1);
  lua_getfield(L, 3, "bullet");
  d.bullet = lua_toboolean(L, -1);
  lua_pop(L, 2);
  d.user = id;
  ty_body2d b = ty_body2d_create(w->w2, &d);
  if (!b) luaL_error(L, "too many 2D bodies");
  add_rec(L, w, b, d.type, id, xf);
  lua_getfield(L, 3, "interpolate");
  w->recs[w->count - 1].interpolate = lua_isnil(L, -1) || lua_toboolean(L, -1);
  lua_pop(L, 1);
  lua_pushboolean(L, 1);
  return 1;
}

/* The body record of the GameObject at idx; raises when it has none. */
static body_rec *check_body(lua_State *L, int idx, lworld **w) {
  ty_id id = ty_check_gameobject(L, idx);
  body_rec *r = lphys_rec_of(L, 2, id, w);
  if (!r) luaL_error(L, "GameObject has no 2D body");
  return r;
}

/* P.addShape(go, opts): opts = {kind=, size=, center=, radius=, points=, trigger=,
 * friction=, restitution=}, sizes in the object's units (scaled here by its world scale). */
static int p_add_shape(lua_State *L) {
  lworld *w = NULL;
  body_rec *r = check_body(L, 1, &w);
  luaL_checktype(L, 2, LUA_TTABLE);
  float s[3];
  ty_transform_world_scale(ty_world_transforms(lphys_world_of(L)), r->xf, s);
  float sx = fabsf(s[0]) / w->upm, sy = fabsf(s[1]) / w->upm;
  ty_shape2d_desc d = {0};
  lua_getfield(L, 2, "kind");
  const char *kind = luaL_checkstring(L, -1);
  lua_pop(L, 1);
  d.cx = opt_field(L, 2, "cx", 0) * sx;
  d.cy = opt_field(L, 2, "cy", 0) * sy;
  if (strcmp(kind, "box") == 0) {
    d.kind = TY_SHAPE2D_BOX;
    d.hx = opt_field(L, 2, "w", 1) * 0.5f * sx;
    d.hy = opt_field(L, 2, "h", 1) * 0.5f * sy;
  } else if (strcmp(kind, "circle") == 0) {
    d.kind = TY_SHAPE2D_CIRCLE;
    d.radius = opt_field(L, 2, "radius", 0.5f) * (sx > sy ? sx : sy);
  } else {
    d.kind = TY_SHAPE2D_POLYGON;
    lua_getfield(L, 2, "points");
    int n = (int)lua_rawlen(L, -1);
    d.point_count = n / 2;
    for (int i = 0; i < n && i < 2 * TY_SHAPE2D_MAX_POINTS; i++) {
      lua_rawgeti(L, -1, i + 1);
      d.points[i] = (float)lua_tonumber(L, -1) * (i % 2 ? sy : sx);
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
  d.density = 1;
  d.friction = opt_field(L, 2, "friction", 0.5f);
  d.restitution = opt_field(L, 2, "restitution", 0);
  lua_getfield(L, 2, "trigger");
  d.trigger = lua_toboolean(L, -1);
  lua_pop(L, 1);
  d.layer = (uint32_t)opt_bits(L, 2, "layerBits");
  d.mask = (uint32_t)opt_bits(L, 2, "maskBits");
  lua_pushboolean(L, ty_shape2d_create(w->w2, r->body, &d) != 0);
  return 1;
}

/* P.destroyBody(go) -> vx, vy, w (the velocities it had), or nothing when it had none. */
static int p_destroy_body(lua_State *L) {
  commit_views(L);
  ty_id id = (ty_id)luaL_checkinteger(L, 1);
  lworld *w = NULL;
  body_rec *r = lphys_rec_of(L, 2, id, &w);
  if (!r) return 0;
  float v[2];
  ty_body2d_velocity(w->w2, r->body, v);
  float av = ty_body2d_angular_velocity(w->w2, r->body);
  remove_rec(L, w, (uint32_t)(r - w->recs));
  lua_pushnumber(L, v[0] * w->upm);
  lua_pushnumber(L, v[1] * w->upm);
  lua_pushnumber(L, av);
  return 3;
}

static int p_has_body(lua_State *L) {
  lworld *w = NULL;
  int dims = (int)lua_tointeger(L, lua_upvalueindex(1));
  lua_pushboolean(L, lphys_rec_of(L, dims, (ty_id)luaL_checkinteger(L, 1), &w) != NULL);
  return 1;
}

/* Pushes where r's object is drawn this frame (its world position after any render
 * offset: between the last two steps under a Loop). */
static void push_render_position(lua_State *L, body_rec *r) {
  ty_lua_world_matrix(L, r->go); /* reads back its chain's tables */
  const float *m = ty_transform_render_world(ty_world_transforms(lphys_world_of(L)), r->xf);
  ty_push_vec3(L, m[12], m[13], m[14]);
}

/* P.get(go, key) -> value: velocity (Vec3), angularVelocity, sleeping, mass, type */
static int p_get(lua_State *L) {
  lworld *w = NULL;
  body_rec *r = check_body(L, 1, &w);
  const char *k = luaL_checkstring(L, 2);
  if (strcmp(k, "velocity") == 0) {
    ty_push_view(L, r->go, TY_VIEW_VELOCITY_2D);
  } else if (strcmp(k, "angularVelocity") == 0) {
    commit_views(L);
    lua_pushnumber(L, ty_body2d_angular_velocity(w->w2, r->body));
  } else if (strcmp(k, "sleeping") == 0) {
    lua_pushboolean(L, !ty_body2d_awake(w->w2, r->body));
  } else if (strcmp(k, "mass") == 0) {
    lua_pushnumber(L, ty_body2d_mass(w->w2, r->body));
  } else if (strcmp(k, "renderPosition") == 0) {
    push_render_position(L, r);
  } else {
    return luaL_argerror(L, 2, "unknown body field");
  }
  return 1;
}

/* P.set(go, key, value): velocity ({x,y}), angularVelocity, mass, damping (l, a),
 * gravityScale, lockRotation, type */
static int p_set(lua_State *L) {
  commit_views(L);
  lworld *w = NULL;
  body_rec *r = check_body(L, 1, &w);
  const char *k = luaL_checkstring(L, 2);
  if (strcmp(k, "velocity") == 0) {
    float v[2];
    lphys_check_vec2(L, 3, v);
    ty_body2d_set_velocity(w->w2, r->body, v[0] / w->upm, v[1] / w->upm);
  } else if (strcmp(k, "angularVelocity") == 0) {
    ty_body2d_set_angular_velocity(w->w2, r->body, (float)luaL_checknumber(L, 3));
  } else if (strcmp(k, "mass") == 0) {
    ty_body2d_set_mass(w->w2, r->body, (float)luaL_checknumber(L, 3));
  } else if (strcmp(k, "damping") == 0) {
    ty_body2d_set_damping(w->w2, r->body, (float)luaL_checknumber(L, 3), (float)luaL_checknumber(L, 4));
  } else if (strcmp(k, "gravityScale") == 0) {
    ty_body2d_set_gravity_scale(w->w2, r->body, (float)luaL_checknumber(L, 3));
  } else if (strcmp(k, "lockRotation") == 0) {
    ty_body2d_set_fixed_rotation(w->w2, r->body, lua_toboolean(L, 3));
  } else if (strcmp(k, "bullet") == 0) {
    ty_body2d_set_bullet(w->w2, r->body, lua_toboolean(L, 3));
  } else if (strcmp(k, "type") == 0) {
    r->type = check_type(L, 3, luaL_checkstring(L, 3));
    ty_body2d_set_type(w->w2, r->body, r->type);
  } else if (strcmp(k, "awake") == 0) {
    ty_body2d_set_awake(w->w2, r->body, lua_toboolean(L, 3));
  } else if (strcmp(k, "interpolate") == 0) {
    r->interpolate = lua_toboolean(L, 3);
    if (!r->interpolate) clear_offset(L, r), r->stepped = false;
  } else {
    return luaL_argerror(L, 2, "unknown body field");
  }
  return 0;
}

/* P.apply(go, "force"|"impulse", v) */
static int p_apply(lua_State *L) {
  commit_views(L);
  lworld *w = NULL;
  body_rec *r = check_body(L, 1, &w);
  const char *k = luaL_checkstring(L, 2);
  float v[2];
  lphys_check_vec2(L, 3, v);
  if (strcmp(k, "force") == 0) ty_body2d_apply_force(w->w2, r->body, v[0] / w->upm, v[1] / w->upm);
  else ty_body2d_apply_impulse(w->w2, r->body, v[0] / w->upm, v[1] / w->upm);
  return 0;
}

/* P.setFlush(flush, mark, maskBits): flush(scene) builds the bodies waiting in that scene,
 * mark(go) puts an object back on the waiting list, maskBits(v, argn, fname) reads a
 * raycast's mask (physics.lua). */
static int p_set_flush(lua_State *L) {
  commit_views(L);
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

/* ---- 3D: World3D and tycho._physics3d ---- */

static int world3d_index(lua_State *L) {
  lworld *w = check_world3d(L, 1);
  const char *k = luaL_checkstring(L, 2);
  if (strcmp(k, "gravity") == 0) {
    float g[3];
    ty_phys3d_gravity(w->w3, g);
    ty_push_vec3(L, g[0], g[1], g[2]);
  } else if (strcmp(k, "bodyCount") == 0) {
    lua_pushinteger(L, w->count);
  } else if (strcmp(k, "stepTime") == 0) {
    lua_pushnumber(L, w->step_s);
  } else if (strcmp(k, "raycast") == 0) {
    lua_pushcfunction(L, world3d_raycast);
  } else if (strcmp(k, "raycastBatch") == 0) {
    lua_pushcfunction(L, world3d_raycast_batch);
  } else if (strcmp(k, "joint") == 0) {
    lua_pushcfunction(L, world3d_joint);
  } else if (strcmp(k, "jointCount") == 0) {
    lua_pushinteger(L, lphys_joint_count(w));
  } else {
    lua_pushnil(L);
  }
  return 1;
}

static int world3d_newindex(lua_State *L) {
  lworld *w = check_world3d(L, 1);
  const char *k = luaL_checkstring(L, 2);
  if (strcmp(k, "gravity") != 0) return luaL_error(L, "World3D.%s cannot be set", k);
  float g[3];
  lphys_check_vec3(L, 3, g);
  ty_phys3d_set_gravity(w->w3, g);
  return 0;
}

static int world3d_tostring(lua_State *L) {
  lworld *w = luaL_checkudata(L, 1, TY_WORLD3D);
  lua_pushfstring(L, "World3D (%d bodies)", (int)w->count);
  return 1;
}

static body_rec *check_body3(lua_State *L, int idx, lworld **w) {
  ty_id id = ty_check_gameobject(L, idx);
  body_rec *r = lphys_rec_of(L, 3, id, w);
  if (!r) luaL_error(L, "GameObject has no 3D body");
  return r;
}

/* Reads number field k of the table at t into out[n] (a {x=, y=, z=} table). */
static void vec_field(lua_State *L, int t, const char *k, float *out, int n) {
  static const char *const axes[3] = {"x", "y", "z"};
  if (lua_getfield(L, t, k) == LUA_TTABLE)
    for (int i = 0; i < n; i++) out[i] = opt_field(L, lua_gettop(L), axes[i], out[i]);
  lua_pop(L, 1);
}

/* P3.createBody(world, go, opts, shapes) -> true or false (a shape refused): opts as the
 * RigidBody's, shapes = {{kind=, size=, center=, radius=, height=, vertices=, indices=}, ...}
 * in the object's units (scaled here by its world scale). A trigger shape makes the whole
 * body a trigger. */
static int p3_create_body(lua_State *L) {
  lworld *w = check_world3d(L, 1);
  ty_id id = ty_check_gameobject(L, 2);
  luaL_checktype(L, 3, LUA_TTABLE);
  luaL_checktype(L, 4, LUA_TTABLE);
  lworld *old = NULL;
  if (lphys_rec_of(L, 3, id, &old)) luaL_error(L, "GameObject already has a 3D body");
  ty_world *W = lphys_world_of(L);
  ty_lua_world_matrix(L, id);
  ty_transforms *T = ty_world_transforms(W);
  uint32_t xf = ty_object_transform(W, id);
  ty_body3d_desc d = {0};
  lua_getfield(L, 3, "type");
  d.type = lua_isstring(L, -1) ? check_type(L, 3, lua_tostring(L, -1)) : TY_BODY_DYNAMIC;
  lua_pop(L, 1);
  ty_transform_world_position(T, xf, d.position);
  ty_transform_world_rotation(T, xf, d.rotation);
  d.mass = opt_field(L, 3, "mass", 1);
  d.friction = opt_field(L, 3, "friction", 0.5f);
  d.restitution = opt_field(L, 3, "restitution", 0);
  d.linear_damping = opt_field(L, 3, "linearDamping", 0);
  d.angular_damping = opt_field(L, 3, "angularDamping", 0);
  d.gravity_scale = opt_field(L, 3, "gravityScale", 1);
  lua_getfield(L, 3, "lockRotation");
  d.lock_rotation = lua_toboolean(L, -1);
  lua_getfield(L, 3, "bullet");
  d.ccd = lua_toboolean(L, -1);
  lua_pop(L, 2);
  d.layer = (uint32_t)opt_bits(L, 3, "layerBits");
  d.mask = (uint32_t)opt_bits(L, 3, "maskBits");
  d.user = id;
  float sc[3];
  ty_transform_world_scale(T, xf, sc);
  for (int i = 0; i < 3; i++) sc[i] = fabsf(sc[i]);
  float smax = fmaxf(sc[0], fmaxf(sc[1], sc[2])), sxz = fmaxf(sc[0], sc[2]);
  uint32_t n = (uint32_t)lua_rawlen(L, 4);
  if (n > 64) luaL_argerror(L, 4, "at most 64 colliders on one body");
  ty_shape3d_desc shapes[64];
  float *verts = NULL;
  uint32_t *idx = NULL;
  for (uint32_t i = 0; i < n; i++) {
    lua_rawgeti(L, 4, (lua_Integer)i + 1);
    int t = lua_gettop(L);
    ty_shape3d_desc *sd = &shapes[i];
    memset(sd, 0, sizeof *sd);
    lua_getfield(L, t, "kind");
    const char *kind = luaL_checkstring(L, -1);
    lua_pop(L, 1);
    vec_field(L, t, "center", sd->center, 3);
    for (int k = 0; k < 3; k++) sd->center[k] *= sc[k];
    if (lua_getfield(L, t, "trigger"), lua_toboolean(L, -1)) d.trigger = true;
    lua_pop(L, 1);
    if (strcmp(kind, "box") == 0) {
      sd->kind = TY_SHAPE3D_BOX;
      float size[3] = {1, 1, 1};
      vec_field(L, t, "size", size, 3);
      for (int k = 0; k < 3; k++) sd->half[k] = size[k] * 0.5f * sc[k];
    } else if (strcmp(kind, "sphere") == 0) {
      sd->kind = TY_SHAPE3D_SPHERE;
      sd->radius = opt_field(L, t, "radius", 0.5f) * smax;
    } else if (strcmp(kind, "capsule") == 0) {
      sd->kind = TY_SHAPE3D_CAPSULE;
      sd->radius = opt_field(L, t, "radius", 0.5f) * sxz;
      sd->height = opt_field(L, t, "height", 2) * sc[1];
    } else {
      sd->kind = TY_SHAPE3D_MESH;
      if (verts) luaL_error(L, "one MeshCollider per object");
      lua_getfield(L, t, "vertices");
      lua_getfield(L, t, "indices");
      uint32_t nv = (uint32_t)lua_rawlen(L, -2) / 3, ni = (uint32_t)lua_rawlen(L, -1);
      verts = TY_MALLOC((nv ? nv : 1) * 3 * sizeof *verts);
      idx = TY_MALLOC((ni ? ni : 1) * sizeof *idx);
      TY_ASSERT(verts && idx);
      for (uint32_t k = 0; k < 3 * nv; k++) {
        lua_rawgeti(L, -2, (lua_Integer)k + 1);
        verts[k] = (float)lua_tonumber(L, -1) * sc[k % 3];
        lua_pop(L, 1);
      }
      for (uint32_t k = 0; k < ni; k++) {
        lua_rawgeti(L, -1, (lua_Integer)k + 1);
        idx[k] = (uint32_t)(lua_tointeger(L, -1) - 1); /* Lua's indices count from 1 */
        lua_pop(L, 1);
      }
      lua_pop(L, 2);
      sd->vertices = verts, sd->vertex_count = nv, sd->indices = idx, sd->index_count = ni;
    }
    lua_settop(L, t - 1);
  }
  ty_body3d b = ty_body3d_create(w->w3, &d, shapes, n);
  TY_FREE(verts);
  TY_FREE(idx);
  if (!b) {
    lua_pushboolean(L, 0);
    return 1;
  }
  add_rec(L, w, b, d.type, id, xf);
  lua_getfield(L, 3, "interpolate");
  w->recs[w->count - 1].interpolate = lua_isnil(L, -1) || lua_toboolean(L, -1);
  lua_pop(L, 1);
  lua_pushboolean(L, 1);
  return 1;
}

/* P3.destroyBody(go id) -> velocity, angularVelocity (Vec3s), or nothing. */
static int p3_destroy_body(lua_State *L) {
  commit_views(L);
  ty_id id = (ty_id)luaL_checkinteger(L, 1);
  lworld *w = NULL;
  body_rec *r = lphys_rec_of(L, 3, id, &w);
  if (!r) return 0;
  float v[3], av[3];
  ty_body3d_velocity(w->w3, r->body, v);
  ty_body3d_angular_velocity(w->w3, r->body, av);
  remove_rec(L, w, (uint32_t)(r - w->recs));
  ty_push_vec3(L, v[0], v[1], v[2]);
  ty_push_vec3(L, av[0], av[1], av[2]);
  return 2;
}

static int p3_get(lua_State *L) {
  lworld *w = NULL;
  body_rec *r = check_body3(L, 1, &w);
  const char *k = luaL_checkstring(L, 2);
  if (strcmp(k, "velocity") == 0) {
    ty_push_view(L, r->go, TY_VIEW_VELOCITY_3D);
  } else if (strcmp(k, "angularVelocity") == 0) {
    ty_push_view(L, r->go, TY_VIEW_ANGULAR_3D);
  } else if (strcmp(k, "sleeping") == 0) {
    lua_pushboolean(L, !ty_body3d_awake(w->w3, r->body));
  } else if (strcmp(k, "mass") == 0) {
    lua_pushnumber(L, ty_body3d_mass(w->w3, r->body));
  } else if (strcmp(k, "renderPosition") == 0) {
    push_render_position(L, r);
  } else {
    return luaL_argerror(L, 2, "unknown body field");
  }
  return 1;
}

static int p3_set(lua_State *L) {
  commit_views(L);
  lworld *w = NULL;
  body_rec *r = check_body3(L, 1, &w);
  const char *k = luaL_checkstring(L, 2);
  if (strcmp(k, "awake") == 0) {
    ty_body3d_wake(w->w3, r->body);
    return 0;
  }
  if (strcmp(k, "interpolate") == 0) {
    r->interpolate = lua_toboolean(L, 3);
    if (!r->interpolate) clear_offset(L, r), r->stepped = false;
    return 0;
  }
  float v[3];
  lphys_check_vec3(L, 3, v);
  if (strcmp(k, "velocity") == 0) ty_body3d_set_velocity(w->w3, r->body, v);
  else if (strcmp(k, "angularVelocity") == 0) ty_body3d_set_angular_velocity(w->w3, r->body, v);
  else return luaL_argerror(L, 2, "unknown body field");
  return 0;
}

static int p3_apply(lua_State *L) {
  commit_views(L);
  lworld *w = NULL;
  body_rec *r = check_body3(L, 1, &w);
  const char *k = luaL_checkstring(L, 2);
  float v[3];
  lphys_check_vec3(L, 3, v);
  if (strcmp(k, "force") == 0) ty_body3d_apply_force(w->w3, r->body, v);
  else ty_body3d_apply_impulse(w->w3, r->body, v);
  return 0;
}

/* ---- live velocity views ---- */

static body_rec *view_body(lua_State *L, const ty_vec *u, lworld **w) {
  return lphys_rec_of(L, u->view == TY_VIEW_VELOCITY_2D ? 2 : 3, u->owner, w);
}

/* What was written into the velocity views since the last commit reaches their bodies. */
static void commit_views(lua_State *L) {
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &pending_views_key) != LUA_TTABLE) {
    lua_pop(L, 1);
    return;
  }
  int t = lua_gettop(L);
  lua_Integer n = (lua_Integer)lua_rawlen(L, t);
  for (lua_Integer i = 1; i <= n; i++) {
    lua_rawgeti(L, t, i);
    ty_vec *u = lua_touserdata(L, -1);
    lua_pop(L, 1);
    lua_pushnil(L);
    lua_rawseti(L, t, i);
    lworld *w = NULL;
    body_rec *r = u ? view_body(L, u, &w) : NULL;
    if (!r) continue; /* the body went away meanwhile: nothing to write to */
    if (u->view == TY_VIEW_VELOCITY_2D) {
      ty_body2d_set_velocity(w->w2, r->body, u->v[0] / w->upm, u->v[1] / w->upm);
      ty_body2d_set_awake(w->w2, r->body, true);
    } else if (u->view == TY_VIEW_VELOCITY_3D) {
      ty_body3d_set_velocity(w->w3, r->body, u->v);
    } else {
      ty_body3d_set_angular_velocity(w->w3, r->body, u->v);
    }
  }
  lua_pop(L, 1);
}

float *ty_lua_physics_view(lua_State *L, ty_vec *u, bool write) {
  commit_views(L);
  lworld *w = NULL;
  body_rec *r = view_body(L, u, &w);
  if (!r) luaL_error(L, "this velocity's body is gone (its object was destroyed or lost its body)");
  if (u->view == TY_VIEW_VELOCITY_2D) {
    float v[2];
    ty_body2d_velocity(w->w2, r->body, v);
    u->v[0] = v[0] * w->upm, u->v[1] = v[1] * w->upm, u->v[2] = 0;
  } else if (u->view == TY_VIEW_VELOCITY_3D) {
    ty_body3d_velocity(w->w3, r->body, u->v);
  } else {
    ty_body3d_angular_velocity(w->w3, r->body, u->v);
  }
  if (write) {
    /* The view is an argument of the running C function: find it to keep it till commit. */
    for (int i = 1; i <= lua_gettop(L); i++) {
      if (lua_touserdata(L, i) != u) continue;
      if (lua_rawgetp(L, LUA_REGISTRYINDEX, &pending_views_key) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_rawsetp(L, LUA_REGISTRYINDEX, &pending_views_key);
      }
      lua_pushvalue(L, i);
      lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
      lua_pop(L, 1);
      break;
    }
  }
  return u->v;
}

/* ---- the tick ---- */

static void drive_kinematic(lworld *w, body_rec *r, float tx, float ty_, float ta, float dt, float saved[3]) {
  float x, y, a, v[2];
  ty_body2d_transform(w->w2, r->body, &x, &y, &a);
  ty_body2d_velocity(w->w2, r->body, v);
  saved[0] = v[0], saved[1] = v[1], saved[2] = ty_body2d_angular_velocity(w->w2, r->body);
  float da = remainderf(ta - a, 2.0f * (float)M_PI);
  ty_body2d_set_velocity(w->w2, r->body, (tx - x) / dt, (ty_ - y) / dt);
  ty_body2d_set_angular_velocity(w->w2, r->body, da / dt);
}

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

/* Puts object go back on physics.lua's waiting list, to be built (again) by a flush. */
static void mark_pending(lua_State *L, ty_id go) {
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &mark_key) != LUA_TFUNCTION) {
    lua_pop(L, 1);
    return;
  }
  ty_push_gameobject(L, go);
  if (!ty_pcall(L, 1, 0)) lua_pop(L, 1);
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
    remove_rec(L, w, i);
    if (ty_object_alive(W, go)) mark_pending(L, go);
  }
  tables t;
  tables_open(L, &t);
  for (uint32_t i = 0; i < w->count; i++) {
    body_rec *r = &w->recs[i];
    pull_body(L, &t, r, w->dims);
    const float *scale = ty_transform_local(T, r->xf)->scale;
    if (memcmp(scale, r->scale, sizeof r->scale)) {
      memcpy(r->scale, scale, sizeof r->scale);
      mark_pending(L, r->go);
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

/* ---- interpolation ---- */

/* r's body pose as a 3D world pose in game units (a 2D body at z 0, turned about Z). */
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

static bool is_awake(lworld *w, body_rec *r) {
  return w->dims == 2 ? ty_body2d_awake(w->w2, r->body) : ty_body3d_awake(w->w3, r->body);
}

/* Before a step: offsets of the last frame go (the step moves the bodies), and each dynamic
 * body's pose is kept as the one to blend from (in prev, and in cur until the step moves
 * it). */
static void before_step(lua_State *L, lworld *w) {
  for (uint32_t i = 0; i < w->count; i++) {
    body_rec *r = &w->recs[i];
    clear_offset(L, r);
    r->was_awake = !r->disabled && is_awake(w, r);
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
    if (r->was_awake || is_awake(w, r)) lphys_body_pose(w, r, r->cur_pos, r->cur_rot);
    r->stepped = true;
  }
}

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
    clear_offset(L, r);
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
    lworld *w = scene_world(L, scene_idx, dims);
    if (w) interpolate_world(L, w, (float)alpha);
  }
}

static void step2d(lua_State *L, lworld *w, float dt) {
  ty_world *W = lphys_world_of(L);
  ty_transforms *T = ty_world_transforms(W);
  /* Kinematic bodies the game moved are driven there; saved[] holds their own velocity. */
  uint8_t *driven = NULL;
  float(*saved)[3] = NULL, (*target)[3] = NULL;
  if (w->count) {
    driven = TY_MALLOC(w->count);
    saved = TY_MALLOC(w->count * sizeof *saved);
    target = TY_MALLOC(w->count * sizeof *target);
    TY_ASSERT(driven && saved && target);
    memset(driven, 0, w->count);
  }
  for (uint32_t i = 0; i < w->count; i++) {
    body_rec *r = &w->recs[i];
    float old_pos[3], old_rot[4];
    if (!moved_by_game(T, r, old_pos, old_rot)) continue;
    float x, y, a;
    world_pose(T, r->xf, &x, &y, &a);
    x /= w->upm, y /= w->upm;
    float m[3] = {x, y, 0};
    if (!pose_ok(m, 2, &a, 1)) {
      float wp[3] = {x * w->upm, y * w->upm, r->pos[2]};
      refuse_pose(L, r, wp, !isfinite(a), old_pos, old_rot);
      continue;
    }
    if (r->type == TY_BODY_KINEMATIC) {
      drive_kinematic(w, r, x, y, a, dt, saved[i]);
      driven[i] = 1;
      target[i][0] = x, target[i][1] = y, target[i][2] = a;
    } else {
      ty_body2d_set_transform(w->w2, r->body, x, y, a);
      ty_body2d_set_awake(w->w2, r->body, true);
      r->placed = true;
    }
  }
  before_step(L, w);
  double t0 = ty_now();
  ty_phys2d_step(w->w2, dt);
  w->step_s = ty_now() - t0;
  after_step(w);
  tables t;
  tables_open(L, &t);
  for (uint32_t i = 0; i < w->count; i++) {
    body_rec *r = &w->recs[i];
    if (driven[i]) {
      ty_body2d_set_transform(w->w2, r->body, target[i][0], target[i][1], target[i][2]);
      ty_body2d_set_velocity(w->w2, r->body, saved[i][0], saved[i][1]);
      ty_body2d_set_angular_velocity(w->w2, r->body, saved[i][2]);
      continue;
    }
    /* A body that fell asleep in this step moved in it too. */
    if (r->disabled || r->type == TY_BODY_STATIC || (!r->was_awake && !ty_body2d_awake(w->w2, r->body)))
      continue;
    float pos[3], rot[4];
    if (r->stepped) { /* after_step has the pose already */
      memcpy(pos, r->cur_pos, sizeof pos);
      memcpy(rot, r->cur_rot, sizeof rot);
    } else {
      float x, y, a;
      ty_body2d_transform(w->w2, r->body, &x, &y, &a);
      pos[0] = x * w->upm, pos[1] = y * w->upm;
      rot[0] = 0, rot[1] = 0, rot[2] = sinf(a * 0.5f), rot[3] = cosf(a * 0.5f);
    }
    pos[2] = r->pos[2];
    ty_id parent = ty_object_parent(W, r->go);
    if (parent) {
      float wp[3];
      ty_transform_world_position(T, r->xf, wp);
      pos[2] = wp[2];
    }
    write_back(L, &t, r, parent, pos, rot);
  }
  tables_close(L, &t);
  TY_FREE(driven);
  TY_FREE(saved);
  TY_FREE(target);
}

static void step3d(lua_State *L, lworld *w, float dt) {
  ty_world *W = lphys_world_of(L);
  ty_transforms *T = ty_world_transforms(W);
  for (uint32_t i = 0; i < w->count; i++) {
    body_rec *r = &w->recs[i];
    float old_pos[3], old_rot[4];
    if (!moved_by_game(T, r, old_pos, old_rot)) continue;
    float p[3], q[4];
    ty_transform_world_position(T, r->xf, p);
    ty_transform_world_rotation(T, r->xf, q);
    if (!pose_ok(p, 3, q, 4)) {
      refuse_pose(L, r, p, !pose_ok(p, 0, q, 4), old_pos, old_rot);
      continue;
    }
    ty_body3d_set_transform(w->w3, r->body, p, q); /* a kinematic body moves there in the step */
    r->placed = true;
  }
  before_step(L, w);
  double t0 = ty_now();
  ty_phys3d_step(w->w3, dt);
  w->step_s = ty_now() - t0;
  after_step(w);
  tables t;
  tables_open(L, &t);
  for (uint32_t i = 0; i < w->count; i++) {
    body_rec *r = &w->recs[i];
    if (r->disabled || r->type != TY_BODY_DYNAMIC ||
        (!r->was_awake && !ty_body3d_awake(w->w3, r->body)))
      continue;
    float p[3], q[4];
    if (r->stepped) { /* after_step has the pose already */
      memcpy(p, r->cur_pos, sizeof p);
      memcpy(q, r->cur_rot, sizeof q);
    } else {
      ty_body3d_transform(w->w3, r->body, p, q);
    }
    write_back(L, &t, r, ty_object_parent(W, r->go), p, q);
  }
  tables_close(L, &t);
}

void ty_lua_physics_step(lua_State *L, int scene_idx, ty_scene *S, double dt) {
  commit_views(L);
  for (int dims = 2; dims <= 3; dims++) {
    lworld *w = scene_world(L, scene_idx, dims);
    if (w) check_records(L, w, S);
  }
  /* Bodies waiting for a world are built next (physics.lua keeps the list and says when it
   * holds any, so a tick with none calls no Lua). */
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
  lworld *w2 = scene_world(L, scene_idx, 2), *w3 = scene_world(L, scene_idx, 3);
  if ((!w2 && !w3) || !(dt > 0)) return;
  if (w2) {
    sync_enabled(L, w2);
    lphys_sync_joints(L, w2);
    step2d(L, w2, (float)dt);
  }
  if (w3) {
    sync_enabled(L, w3);
    lphys_sync_joints(L, w3);
    step3d(L, w3, (float)dt);
  }
}

static const char *const CONTACT_HOOKS[2][2] = {{"onCollisionEnter", "onCollisionExit"},
                                                {"onTriggerEnter", "onTriggerExit"}};

/* One contact event of either dimension, as reported. */
typedef struct contact_ev {
  ty_contact_kind kind;
  bool trigger;
  uint64_t user_a, user_b;
  float point[3], normal[3], impulse;
} contact_ev;

/* What a contact hook is called with, made only when a component has the hook. */
typedef struct contact_args {
  const contact_ev *c;
  ty_id other;
  float upm, sign; /* sign: -1 seen from a (the normal points from other towards self) */
} contact_args;

/* Pushes other and, for a collision begin, the contact table. */
static int push_contact_args(lua_State *L, void *user) {
  const contact_args *a = user;
  const contact_ev *c = a->c;
  ty_push_gameobject(L, a->other);
  if (c->trigger || c->kind != TY_CONTACT_BEGIN) return 1;
  lua_createtable(L, 0, 3);
  ty_push_vec3(L, c->point[0] * a->upm, c->point[1] * a->upm, c->point[2] * a->upm);
  lua_setfield(L, -2, "point");
  ty_push_vec3(L, c->normal[0] * a->sign, c->normal[1] * a->sign, c->normal[2] * a->sign);
  lua_setfield(L, -2, "normal");
  lua_pushnumber(L, (double)c->impulse * a->upm);
  lua_setfield(L, -2, "impulse");
  return 2;
}

/* Calls the hook on self's components with other (and for a collision begin, the contact
 * seen from self: normal pointing from other towards self). A hook is found on the instance
 * or its class without calling an __index function (the physics components route their
 * fields through one): a contact no component hears builds no contact table. */
static void report_contact(lua_State *L, int scene_idx, float upm, const contact_ev *c, bool as_a) {
  ty_id self = (ty_id)(as_a ? c->user_a : c->user_b), other = (ty_id)(as_a ? c->user_b : c->user_a);
  contact_args a = {c, other, upm, as_a ? -1.0f : 1.0f};
  const char *hook = CONTACT_HOOKS[c->trigger][c->kind == TY_CONTACT_END];
  ty_lua_call_found(L, scene_idx, self, hook, push_contact_args, &a);
}

/* Takes a world's contacts (copied and cleared: hooks may end bodies, whose contacts then
 * queue for the next tick). */
static contact_ev *take_contacts(lworld *w, uint32_t *n) {
  *n = 0;
  if (w->dims == 2) {
    const ty_contact2d *list = ty_phys2d_contacts(w->w2, n);
    if (!*n) return NULL;
    contact_ev *cs = TY_MALLOC(*n * sizeof *cs);
    TY_ASSERT(cs);
    for (uint32_t i = 0; i < *n; i++) {
      const ty_contact2d *c = &list[i];
      cs[i] = (contact_ev){c->kind, c->trigger, c->user_a, c->user_b, {c->point[0], c->point[1], 0},
                           {c->normal[0], c->normal[1], 0}, c->impulse};
    }
    ty_phys2d_clear_contacts(w->w2);
    return cs;
  }
  const ty_contact3d *list = ty_phys3d_contacts(w->w3, n);
  if (!*n) return NULL;
  contact_ev *cs = TY_MALLOC(*n * sizeof *cs);
  TY_ASSERT(cs);
  for (uint32_t i = 0; i < *n; i++) {
    const ty_contact3d *c = &list[i];
    cs[i] = (contact_ev){c->kind, c->trigger, c->user_a, c->user_b, {c->point[0], c->point[1], c->point[2]},
                         {c->normal[0], c->normal[1], c->normal[2]}, c->impulse};
  }
  ty_phys3d_clear_contacts(w->w3);
  return cs;
}

void ty_lua_physics_contacts(lua_State *L, int scene_idx, ty_scene *S) {
  (void)S;
  ty_world *W = lphys_world_of(L);
  luaL_checkstack(L, 8, "reporting contacts");
  for (int dims = 3; dims >= 2; dims--) {
    lworld *w = scene_world(L, scene_idx, dims);
    if (!w) continue;
    float upm = w->upm;
    uint32_t n;
    contact_ev *cs = take_contacts(w, &n);
    for (uint32_t i = 0; i < n; i++) {
      ty_id a = (ty_id)cs[i].user_a, b = (ty_id)cs[i].user_b;
      /* An object destroyed since (or swept with its body) is told nothing, nor told of. */
      if (!ty_object_alive(W, a) || !ty_object_alive(W, b) || ty_object_destroyed(W, a) || ty_object_destroyed(W, b))
        continue;
      report_contact(L, scene_idx, upm, &cs[i], true);
      if (ty_object_alive(W, b) && !ty_object_destroyed(W, b)) report_contact(L, scene_idx, upm, &cs[i], false);
    }
    TY_FREE(cs);
  }
}

void ty_lua_physics_forget(lua_State *L, ty_id id) {
  for (int dims = 2; dims <= 3; dims++) {
    lworld *w = NULL;
    body_rec *r = lphys_rec_of(L, dims, id, &w);
    if (!r) continue;
    remove_rec(L, w, (uint32_t)(r - w->recs));
    lphys_joints_end(w, id);
  }
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

  static const luaL_Reg world2_meta[] = {{"__index", world2d_index},
                                         {"__newindex", world2d_newindex},
                                         {"__gc", world_gc},
                                         {"__tostring", world2d_tostring},
                                         {NULL, NULL}};
  ty_type_register(L, TY_WORLD2D, world2_meta, NULL);
  static const luaL_Reg world3_meta[] = {{"__index", world3d_index},
                                         {"__newindex", world3d_newindex},
                                         {"__gc", world_gc},
                                         {"__tostring", world3d_tostring},
                                         {NULL, NULL}};
  ty_type_register(L, TY_WORLD3D, world3_meta, NULL);
  lphys_open_joints(L);

  static const luaL_Reg fns[] = {{"createBody", p_create_body}, {"addShape", p_add_shape},
                                 {"destroyBody", p_destroy_body}, {"get", p_get},
                                 {"set", p_set},                 {"apply", p_apply},
                                 {"setFlush", p_set_flush},      {"setWaiting", p_set_waiting},
                                 {NULL, NULL}};
  luaL_newlib(L, fns);
  lua_pushinteger(L, 2);
  lua_pushcclosure(L, p_has_body, 1);
  lua_setfield(L, -2, "hasBody");
  lua_setfield(L, tycho, "_physics");
  static const luaL_Reg fns3[] = {{"createBody", p3_create_body}, {"destroyBody", p3_destroy_body},
                                  {"get", p3_get},                 {"set", p3_set},
                                  {"apply", p3_apply},             {NULL, NULL}};
  luaL_newlib(L, fns3);
  lua_pushinteger(L, 3);
  lua_pushcclosure(L, p_has_body, 1);
  lua_setfield(L, -2, "hasBody");
  lua_setfield(L, tycho, "_physics3d");
}
