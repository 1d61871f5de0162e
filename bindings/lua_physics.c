/* bindings/lua_physics.c: the Lua face of engine/physics: scene.physics2d (a World2D
 * userdata over a ty_phys2d), the body and shape calls behind the component classes of
 * scripts/tycho/physics.lua (tycho._physics), and the tick's physics work.
 *
 * Each 2D body belongs to one GameObject. The world keeps a record per body: its handle,
 * the object, and the local position and rotation last seen or written. At the physics
 * phase every local table is read back once (ty_transforms_sync); a record whose local
 * values differ from the last ones was moved by the game: a kinematic body is driven
 * there through the step (so it pushes what it meets), any other body is placed there.
 * After the step, dynamic bodies that moved are written back through ty_lua_set_local,
 * which keeps the Lua tables in step. Game units are meters times unitsPerMeter. */
#include "lua_physics.h"
#include "lua_scene.h"
#include "physics/physics2d.h"

#include <math.h>
#include <string.h>

#define TY_WORLD2D "World2D"

typedef struct body_rec {
  ty_body2d body;
  ty_id go;
  uint32_t xf;
  float pos[3], rot[4]; /* the local values last seen or written */
} body_rec;

typedef struct lworld2d {
  ty_phys2d *w;
  float upm; /* game units per meter */
  body_rec *recs;
  uint32_t count, cap;
  ty_scene *scene;
} lworld2d;

/* Per state: entity number -> the world and record index (1-based) of its body. */
typedef struct pctx {
  struct {
    lworld2d *world;
    uint32_t rec;
  } *of;
  uint32_t cap;
} pctx;

static const char pctx_key = 0;
static const char flush_key = 0;

static pctx *pctx_get(lua_State *L) {
  lua_rawgetp(L, LUA_REGISTRYINDEX, &pctx_key);
  pctx *p = lua_touserdata(L, -1);
  lua_pop(L, 1);
  return p;
}

static ty_world *world_of(lua_State *L) { return ty_lctx_get(L)->world; }

static void map_set(lua_State *L, ty_id id, lworld2d *w, uint32_t rec) {
  pctx *p = pctx_get(L);
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
static void map_clear(lua_State *L, ty_id id) {
  pctx *p = pctx_get(L);
  if (p && TY_ID_NUMBER(id) < p->cap) p->of[TY_ID_NUMBER(id)].world = NULL;
}

/* The record of id's body, or NULL (with *wout set to its world when found). */
static body_rec *rec_of(lua_State *L, ty_id id, lworld2d **wout) {
  pctx *p = pctx_get(L);
  uint32_t n = TY_ID_NUMBER(id);
  if (!p || n >= p->cap || !p->of[n].world) return NULL;
  lworld2d *w = p->of[n].world;
  body_rec *r = &w->recs[p->of[n].rec - 1];
  if (r->go != id) return NULL;
  *wout = w;
  return r;
}

/* Destroys record i's body and takes it off the list (the last record moves into it). */
static void remove_rec(lua_State *L, lworld2d *w, uint32_t i) {
  body_rec *r = &w->recs[i];
  ty_body2d_destroy(w->w, r->body);
  map_clear(L, r->go);
  if (i != w->count - 1) {
    w->recs[i] = w->recs[w->count - 1];
    map_set(L, w->recs[i].go, w, i + 1);
  }
  w->count--;
}

/* ---- conversions ---- */

static float quat_angle_z(const float q[4]) { return 2.0f * atan2f(q[2], q[3]); }

static void quat_mul(const float a[4], const float b[4], float out[4]) {
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
  *x = p[0], *y = p[1], *angle = quat_angle_z(q);
}

/* Reads argument idx as a 2D vector: a Vec3 (z ignored), {x=, y=} or {x, y}. */
static void check_vec2(lua_State *L, int idx, float out[2]) {
  if (ty_is_vec3(L, idx)) {
    float v[3];
    ty_read_vec3(L, idx, v);
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

/* ---- the World2D userdata ---- */

static lworld2d *check_world2d(lua_State *L, int idx) {
  lworld2d *w = luaL_checkudata(L, idx, TY_WORLD2D);
  if (!w->w) luaL_error(L, "this physics world's scene is gone");
  return w;
}

static int world2d_gc(lua_State *L) {
  lworld2d *w = luaL_checkudata(L, 1, TY_WORLD2D);
  for (uint32_t i = 0; i < w->count; i++) map_clear(L, w->recs[i].go);
  TY_FREE(w->recs);
  w->recs = NULL;
  w->count = w->cap = 0;
  ty_phys2d_destroy(w->w);
  w->w = NULL;
  return 0;
}

/* world:raycast(origin, direction [, maxDistance]) -> {object=, point=, normal=, distance=} or nil */
static int world2d_raycast(lua_State *L) {
  lworld2d *w = check_world2d(L, 1);
  float o[2], d[2];
  check_vec2(L, 2, o);
  check_vec2(L, 3, d);
  float max = (float)luaL_optnumber(L, 4, 1e6);
  if (!(max >= 0) || !isfinite(max)) luaL_argerror(L, 4, "maxDistance must be a finite number >= 0");
  float len = sqrtf(d[0] * d[0] + d[1] * d[1]);
  if (!(len > 0)) luaL_argerror(L, 3, "direction must not be zero");
  float p1[2] = {o[0] / w->upm, o[1] / w->upm};
  float p2[2] = {(o[0] + d[0] / len * max) / w->upm, (o[1] + d[1] / len * max) / w->upm};
  ty_ray2d_hit hit;
  if (max == 0 || !ty_phys2d_raycast(w->w, p1, p2, &hit) || !ty_object_alive(world_of(L), (ty_id)hit.user)) {
    lua_pushnil(L);
    return 1;
  }
  lua_createtable(L, 0, 4);
  ty_push_gameobject(L, (ty_id)hit.user);
  lua_setfield(L, -2, "object");
  ty_push_vec3(L, hit.point[0] * w->upm, hit.point[1] * w->upm, 0);
  lua_setfield(L, -2, "point");
  ty_push_vec3(L, hit.normal[0], hit.normal[1], 0);
  lua_setfield(L, -2, "normal");
  lua_pushnumber(L, (double)hit.fraction * max);
  lua_setfield(L, -2, "distance");
  return 1;
}

static int world2d_index(lua_State *L) {
  lworld2d *w = check_world2d(L, 1);
  const char *k = luaL_checkstring(L, 2);
  if (strcmp(k, "gravity") == 0) {
    float g[2];
    ty_phys2d_gravity(w->w, g);
    ty_push_vec3(L, g[0] * w->upm, g[1] * w->upm, 0);
  } else if (strcmp(k, "unitsPerMeter") == 0) {
    lua_pushnumber(L, w->upm);
  } else if (strcmp(k, "bodyCount") == 0) {
    lua_pushinteger(L, w->count);
  } else if (strcmp(k, "raycast") == 0) {
    lua_pushcfunction(L, world2d_raycast);
  } else {
    lua_pushnil(L);
  }
  return 1;
}

static int world2d_newindex(lua_State *L) {
  lworld2d *w = check_world2d(L, 1);
  const char *k = luaL_checkstring(L, 2);
  if (strcmp(k, "gravity") == 0) {
    float g[2];
    check_vec2(L, 3, g);
    ty_phys2d_set_gravity(w->w, g[0] / w->upm, g[1] / w->upm);
  } else if (strcmp(k, "unitsPerMeter") == 0) {
    lua_Number u = luaL_checknumber(L, 3);
    if (!(u > 0) || !isfinite(u)) luaL_argerror(L, 3, "unitsPerMeter must be a finite number > 0");
    if (w->count) luaL_error(L, "unitsPerMeter must be set before the world has bodies");
    float g[2];
    ty_phys2d_gravity(w->w, g);
    g[0] *= w->upm, g[1] *= w->upm;
    w->upm = (float)u;
    ty_phys2d_set_gravity(w->w, g[0] / w->upm, g[1] / w->upm);
  } else {
    luaL_error(L, "World2D.%s cannot be set", k);
  }
  return 0;
}

static int world2d_tostring(lua_State *L) {
  lworld2d *w = luaL_checkudata(L, 1, TY_WORLD2D);
  lua_pushfstring(L, "World2D (%d bodies)", (int)w->count);
  return 1;
}

void ty_lua_physics_push_world(lua_State *L, int scene_idx, int dims) {
  (void)dims;
  scene_idx = lua_absindex(L, scene_idx);
  lua_getiuservalue(L, scene_idx, 1);
  if (lua_getfield(L, -1, "physics2d") != LUA_TNIL) {
    lua_remove(L, -2);
    return;
  }
  lua_pop(L, 1);
  lworld2d *w = lua_newuserdatauv(L, sizeof *w, 0);
  memset(w, 0, sizeof *w);
  w->upm = 1;
  w->scene = ty_check_scene(L, scene_idx)->scene;
  w->w = ty_phys2d_create(0, -9.81f);
  if (!w->w) luaL_error(L, "out of memory");
  luaL_setmetatable(L, TY_WORLD2D);
  lua_pushvalue(L, -1);
  lua_setfield(L, -3, "physics2d");
  lua_remove(L, -2);
}

/* The scene's 2D world if it has one (nothing pushed, NULL, when not). */
static lworld2d *scene_world2d(lua_State *L, int scene_idx) {
  lua_getiuservalue(L, scene_idx, 1);
  lworld2d *w = lua_getfield(L, -1, "physics2d") == LUA_TUSERDATA ? lua_touserdata(L, -1) : NULL;
  lua_pop(L, 2);
  return w && w->w ? w : NULL;
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

/* P.createBody(world, go, opts) -> true: a body at go's world pose. opts (checked by the
 * component) hold type, linearDamping, angularDamping, gravityScale, lockRotation. */
static int p_create_body(lua_State *L) {
  lworld2d *w = check_world2d(L, 1);
  ty_id id = ty_check_gameobject(L, 2);
  luaL_checktype(L, 3, LUA_TTABLE);
  lworld2d *old = NULL;
  if (rec_of(L, id, &old)) luaL_error(L, "GameObject already has a 2D body");
  ty_world *W = world_of(L);
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
  lua_pop(L, 1);
  d.user = id;
  ty_body2d b = ty_body2d_create(w->w, &d);
  if (!b) luaL_error(L, "too many 2D bodies");
  if (w->count == w->cap) {
    uint32_t cap = w->cap ? w->cap * 2 : 64;
    body_rec *recs = TY_REALLOC(w->recs, cap * sizeof *recs);
    if (!recs) luaL_error(L, "out of memory");
    w->recs = recs, w->cap = cap;
  }
  body_rec *r = &w->recs[w->count++];
  memset(r, 0, sizeof *r);
  r->body = b, r->go = id, r->xf = xf;
  const ty_trs *l = ty_transform_local(T, xf);
  memcpy(r->pos, l->pos, sizeof r->pos);
  memcpy(r->rot, l->rot, sizeof r->rot);
  map_set(L, id, w, w->count);
  lua_pushboolean(L, 1);
  return 1;
}

/* The body record of the GameObject at idx; raises when it has none. */
static body_rec *check_body(lua_State *L, int idx, lworld2d **w) {
  ty_id id = ty_check_gameobject(L, idx);
  body_rec *r = rec_of(L, id, w);
  if (!r) luaL_error(L, "GameObject has no 2D body");
  return r;
}

/* P.addShape(go, opts): opts = {kind=, size=, center=, radius=, points=, trigger=,
 * friction=, restitution=}, sizes in the object's units (scaled here by its world scale). */
static int p_add_shape(lua_State *L) {
  lworld2d *w = NULL;
  body_rec *r = check_body(L, 1, &w);
  luaL_checktype(L, 2, LUA_TTABLE);
  float s[3];
  ty_transform_world_scale(ty_world_transforms(world_of(L)), r->xf, s);
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
  lua_pushboolean(L, ty_shape2d_create(w->w, r->body, &d) != 0);
  return 1;
}

/* P.destroyBody(go) -> vx, vy, w (the velocities it had), or nothing when it had none. */
static int p_destroy_body(lua_State *L) {
  ty_id id = (ty_id)luaL_checkinteger(L, 1);
  lworld2d *w = NULL;
  body_rec *r = rec_of(L, id, &w);
  if (!r) return 0;
  float v[2];
  ty_body2d_velocity(w->w, r->body, v);
  float av = ty_body2d_angular_velocity(w->w, r->body);
  remove_rec(L, w, (uint32_t)(r - w->recs));
  lua_pushnumber(L, v[0] * w->upm);
  lua_pushnumber(L, v[1] * w->upm);
  lua_pushnumber(L, av);
  return 3;
}

static int p_has_body(lua_State *L) {
  lworld2d *w = NULL;
  lua_pushboolean(L, rec_of(L, (ty_id)luaL_checkinteger(L, 1), &w) != NULL);
  return 1;
}

/* P.get(go, key) -> value: velocity (Vec3), angularVelocity, sleeping, mass, type */
static int p_get(lua_State *L) {
  lworld2d *w = NULL;
  body_rec *r = check_body(L, 1, &w);
  const char *k = luaL_checkstring(L, 2);
  if (strcmp(k, "velocity") == 0) {
    float v[2];
    ty_body2d_velocity(w->w, r->body, v);
    ty_push_vec3(L, v[0] * w->upm, v[1] * w->upm, 0);
  } else if (strcmp(k, "angularVelocity") == 0) {
    lua_pushnumber(L, ty_body2d_angular_velocity(w->w, r->body));
  } else if (strcmp(k, "sleeping") == 0) {
    lua_pushboolean(L, !ty_body2d_awake(w->w, r->body));
  } else if (strcmp(k, "mass") == 0) {
    lua_pushnumber(L, ty_body2d_mass(w->w, r->body));
  } else {
    return luaL_argerror(L, 2, "unknown body field");
  }
  return 1;
}

/* P.set(go, key, value): velocity ({x,y}), angularVelocity, mass, damping (l, a),
 * gravityScale, lockRotation, type */
static int p_set(lua_State *L) {
  lworld2d *w = NULL;
  body_rec *r = check_body(L, 1, &w);
  const char *k = luaL_checkstring(L, 2);
  if (strcmp(k, "velocity") == 0) {
    float v[2];
    check_vec2(L, 3, v);
    ty_body2d_set_velocity(w->w, r->body, v[0] / w->upm, v[1] / w->upm);
  } else if (strcmp(k, "angularVelocity") == 0) {
    ty_body2d_set_angular_velocity(w->w, r->body, (float)luaL_checknumber(L, 3));
  } else if (strcmp(k, "mass") == 0) {
    ty_body2d_set_mass(w->w, r->body, (float)luaL_checknumber(L, 3));
  } else if (strcmp(k, "damping") == 0) {
    ty_body2d_set_damping(w->w, r->body, (float)luaL_checknumber(L, 3), (float)luaL_checknumber(L, 4));
  } else if (strcmp(k, "gravityScale") == 0) {
    ty_body2d_set_gravity_scale(w->w, r->body, (float)luaL_checknumber(L, 3));
  } else if (strcmp(k, "lockRotation") == 0) {
    ty_body2d_set_fixed_rotation(w->w, r->body, lua_toboolean(L, 3));
  } else if (strcmp(k, "type") == 0) {
    ty_body2d_set_type(w->w, r->body, check_type(L, 3, luaL_checkstring(L, 3)));
  } else if (strcmp(k, "awake") == 0) {
    ty_body2d_set_awake(w->w, r->body, lua_toboolean(L, 3));
  } else {
    return luaL_argerror(L, 2, "unknown body field");
  }
  return 0;
}

/* P.apply(go, "force"|"impulse", v) */
static int p_apply(lua_State *L) {
  lworld2d *w = NULL;
  body_rec *r = check_body(L, 1, &w);
  const char *k = luaL_checkstring(L, 2);
  float v[2];
  check_vec2(L, 3, v);
  if (strcmp(k, "force") == 0) ty_body2d_apply_force(w->w, r->body, v[0] / w->upm, v[1] / w->upm);
  else ty_body2d_apply_impulse(w->w, r->body, v[0] / w->upm, v[1] / w->upm);
  return 0;
}

/* P.setFlush(fn): fn(scene) builds the bodies waiting in that scene (physics.lua). */
static int p_set_flush(lua_State *L) {
  luaL_checktype(L, 1, LUA_TFUNCTION);
  lua_settop(L, 1);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &flush_key);
  return 0;
}

/* ---- the tick ---- */

static void drive_kinematic(lworld2d *w, body_rec *r, float tx, float ty_, float ta, float dt, float saved[3]) {
  float x, y, a, v[2];
  ty_body2d_transform(w->w, r->body, &x, &y, &a);
  ty_body2d_velocity(w->w, r->body, v);
  saved[0] = v[0], saved[1] = v[1], saved[2] = ty_body2d_angular_velocity(w->w, r->body);
  float da = remainderf(ta - a, 2.0f * (float)M_PI);
  ty_body2d_set_velocity(w->w, r->body, (tx - x) / dt, (ty_ - y) / dt);
  ty_body2d_set_angular_velocity(w->w, r->body, da / dt);
}

void ty_lua_physics_step(lua_State *L, int scene_idx, ty_scene *S, double dt) {
  /* Bodies waiting for a world are built first (physics.lua keeps the list). */
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &flush_key) == LUA_TFUNCTION) {
    lua_pushvalue(L, scene_idx);
    if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
      fprintf(stderr, "tycho: building physics bodies: %s\n", lua_tostring(L, -1));
      lua_pop(L, 1);
    }
  } else {
    lua_pop(L, 1);
  }
  lworld2d *w = scene_world2d(L, scene_idx);
  if (!w || !(dt > 0)) return;
  ty_world *W = world_of(L);
  ty_transforms *T = ty_world_transforms(W);
  ty_transforms_sync(T); /* every local table read back once */
  float fdt = (float)dt;
  /* Bodies whose object left the scene leave the world; physics.lua rebuilds them where
   * they went. */
  for (uint32_t i = w->count; i-- > 0;)
    if (!ty_object_alive(W, w->recs[i].go) || ty_object_scene(W, w->recs[i].go) != S) remove_rec(L, w, i);
  /* Kinematic bodies the game moved are driven there; saved[] holds their own velocity. */
  float(*saved)[3] = NULL;
  uint8_t *driven = NULL;
  if (w->count) {
    driven = TY_MALLOC(w->count);
    saved = TY_MALLOC(w->count * sizeof *saved);
    TY_ASSERT(driven && saved);
    memset(driven, 0, w->count);
  }
  float (*target)[3] = w->count ? TY_MALLOC(w->count * sizeof *target) : NULL;
  for (uint32_t i = 0; i < w->count; i++) {
    body_rec *r = &w->recs[i];
    const ty_trs *l = ty_transform_local(T, r->xf);
    if (!memcmp(l->pos, r->pos, sizeof r->pos) && !memcmp(l->rot, r->rot, sizeof r->rot)) continue;
    memcpy(r->pos, l->pos, sizeof r->pos);
    memcpy(r->rot, l->rot, sizeof r->rot);
    float x, y, a;
    world_pose(T, r->xf, &x, &y, &a);
    x /= w->upm, y /= w->upm;
    if (ty_body2d_type(w->w, r->body) == TY_BODY_KINEMATIC) {
      drive_kinematic(w, r, x, y, a, fdt, saved[i]);
      driven[i] = 1;
      target[i][0] = x, target[i][1] = y, target[i][2] = a;
    } else {
      ty_body2d_set_transform(w->w, r->body, x, y, a);
      ty_body2d_set_awake(w->w, r->body, true);
    }
  }
  ty_phys2d_step(w->w, fdt);
  for (uint32_t i = 0; i < w->count; i++) {
    body_rec *r = &w->recs[i];
    if (driven[i]) {
      ty_body2d_set_transform(w->w, r->body, target[i][0], target[i][1], target[i][2]);
      ty_body2d_set_velocity(w->w, r->body, saved[i][0], saved[i][1]);
      ty_body2d_set_angular_velocity(w->w, r->body, saved[i][2]);
      continue;
    }
    ty_body_type type = ty_body2d_type(w->w, r->body);
    if (type == TY_BODY_STATIC || !ty_body2d_awake(w->w, r->body)) continue;
    float x, y, a;
    ty_body2d_transform(w->w, r->body, &x, &y, &a);
    float pos[3] = {x * w->upm, y * w->upm, r->pos[2]};
    float rot[4] = {0, 0, sinf(a * 0.5f), cosf(a * 0.5f)};
    ty_id parent = ty_object_parent(W, r->go);
    if (parent) {
      /* Into the parent's space: its inverse world on the position, its rotation undone. */
      uint32_t pxf = ty_object_transform(W, parent);
      const float *inv = ty_transform_world_inverse(T, pxf);
      float wp[3] = {pos[0], pos[1], 0};
      float pw[3];
      ty_transform_world_position(T, r->xf, pw);
      wp[2] = pw[2];
      for (int k = 0; k < 3; k++) pos[k] = inv[k] * wp[0] + inv[4 + k] * wp[1] + inv[8 + k] * wp[2] + inv[12 + k];
      float pq[4];
      ty_transform_world_rotation(T, pxf, pq);
      float conj[4] = {-pq[0], -pq[1], -pq[2], pq[3]}, lq[4];
      quat_mul(conj, rot, lq);
      memcpy(rot, lq, sizeof rot);
    }
    if (memcmp(pos, r->pos, sizeof pos)) {
      ty_lua_set_local(L, r->go, 0, pos);
      memcpy(r->pos, pos, sizeof pos);
    }
    if (memcmp(rot, r->rot, sizeof rot)) {
      ty_lua_set_local(L, r->go, 1, rot);
      memcpy(r->rot, rot, sizeof rot);
    }
  }
  TY_FREE(driven);
  TY_FREE(saved);
  TY_FREE(target);
}

static const char *const CONTACT_HOOKS[2][2] = {{"onCollisionEnter", "onCollisionExit"},
                                                {"onTriggerEnter", "onTriggerExit"}};

/* Calls the hook on self's components with other (and for a collision begin, the contact
 * seen from self: normal pointing from other towards self). */
static void report_contact(lua_State *L, int scene_idx, lworld2d *w, const ty_contact2d *c, bool as_a) {
  ty_id self = (ty_id)(as_a ? c->user_a : c->user_b), other = (ty_id)(as_a ? c->user_b : c->user_a);
  const char *hook = CONTACT_HOOKS[c->trigger][c->kind == TY_CONTACT_END];
  ty_push_gameobject(L, other);
  int nargs = 1;
  if (!c->trigger && c->kind == TY_CONTACT_BEGIN) {
    float s = as_a ? -1.0f : 1.0f;
    lua_createtable(L, 0, 3);
    ty_push_vec3(L, c->point[0] * w->upm, c->point[1] * w->upm, 0);
    lua_setfield(L, -2, "point");
    ty_push_vec3(L, c->normal[0] * s, c->normal[1] * s, 0);
    lua_setfield(L, -2, "normal");
    lua_pushnumber(L, (double)c->impulse * w->upm);
    lua_setfield(L, -2, "impulse");
    nargs = 2;
  }
  ty_lua_call_components(L, scene_idx, self, hook, nargs);
}

void ty_lua_physics_contacts(lua_State *L, int scene_idx, ty_scene *S) {
  (void)S;
  lworld2d *w = scene_world2d(L, scene_idx);
  if (!w) return;
  uint32_t n;
  const ty_contact2d *list = ty_phys2d_contacts(w->w, &n);
  if (!n) return;
  /* A copy: hooks may end bodies, whose contacts then queue for the next tick. */
  ty_contact2d *cs = TY_MALLOC(n * sizeof *cs);
  TY_ASSERT(cs);
  memcpy(cs, list, n * sizeof *cs);
  ty_phys2d_clear_contacts(w->w);
  ty_world *W = world_of(L);
  luaL_checkstack(L, 8, "reporting contacts");
  for (uint32_t i = 0; i < n; i++) {
    ty_id a = (ty_id)cs[i].user_a, b = (ty_id)cs[i].user_b;
    /* An object destroyed since (or swept with its body) is told nothing, nor told of. */
    if (!ty_object_alive(W, a) || !ty_object_alive(W, b) || ty_object_destroyed(W, a) || ty_object_destroyed(W, b))
      continue;
    report_contact(L, scene_idx, w, &cs[i], true);
    if (ty_object_alive(W, b) && !ty_object_destroyed(W, b)) report_contact(L, scene_idx, w, &cs[i], false);
  }
  TY_FREE(cs);
}

void ty_lua_physics_forget(lua_State *L, ty_id id) {
  lworld2d *w = NULL;
  body_rec *r = rec_of(L, id, &w);
  if (r) remove_rec(L, w, (uint32_t)(r - w->recs));
}

/* ---- opening ---- */

static int pctx_gc(lua_State *L) {
  pctx *p = lua_touserdata(L, 1);
  TY_FREE(p->of);
  p->of = NULL;
  p->cap = 0;
  return 0;
}

void ty_open_physics(lua_State *L) {
  int tycho = lua_gettop(L);
  pctx *p = lua_newuserdatauv(L, sizeof *p, 0);
  memset(p, 0, sizeof *p);
  lua_newtable(L);
  lua_pushcfunction(L, pctx_gc);
  lua_setfield(L, -2, "__gc");
  lua_setmetatable(L, -2);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &pctx_key);

  static const luaL_Reg world_meta[] = {{"__index", world2d_index},
                                        {"__newindex", world2d_newindex},
                                        {"__gc", world2d_gc},
                                        {"__tostring", world2d_tostring},
                                        {NULL, NULL}};
  luaL_newmetatable(L, TY_WORLD2D);
  luaL_setfuncs(L, world_meta, 0);
  lua_pop(L, 1);

  static const luaL_Reg fns[] = {{"createBody", p_create_body}, {"addShape", p_add_shape},
                                 {"destroyBody", p_destroy_body}, {"hasBody", p_has_body},
                                 {"get", p_get},                 {"set", p_set},
                                 {"apply", p_apply},             {"setFlush", p_set_flush},
                                 {NULL, NULL}};
  luaL_newlib(L, fns);
  lua_setfield(L, tycho, "_physics");
}
