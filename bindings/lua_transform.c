/* bindings/lua_transform.c: a GameObject's world values: the read-only worldPosition,
 * worldRotation and worldScale views (and the error for a view whose owner is gone),
 * getWorld*, localToWorld, worldToLocal and lookAt, and setting a local value whole. */
#include "lua_scene_private.h"

#include <math.h>

/* ---- transform access ---- */

/* The error for a view or dead local table (at idx) whose owner is gone, naming the owner
 * ls_forget_object remembered. */
int ty_dead_view_error(lua_State *L, int idx) {
  idx = lua_absindex(L, idx);
  lua_rawgeti(L, LUA_REGISTRYINDEX, ty_lctx_get(L)->dead_views);
  lua_pushvalue(L, idx);
  lua_rawget(L, -2);
  const char *desc = lua_tostring(L, -1);
  return luaL_error(L, "%s was destroyed; its transform can no longer be used", desc ? desc : "a GameObject");
}

/* The view is an argument of the running C function, so its userdata is on the stack. */
static int dead_view_error(lua_State *L, const ty_vec *u) {
  for (int i = 1; i <= lua_gettop(L); i++)
    if (lua_touserdata(L, i) == u) return ty_dead_view_error(L, i);
  return luaL_error(L, "GameObject (id %I) was destroyed; its transform can no longer be used", (lua_Integer)u->owner);
}

float *ty_view_resolve(lua_State *L, ty_vec *u, bool write) {
  if (u->view >= TY_VIEW_VELOCITY_2D) return ty_ctx_get(L)->physics->view(L, u, write); /* made by physics alone */
  ty_world *W = world_of(L);
  if (!ty_object_alive(W, u->owner)) dead_view_error(L, u);
  if (write) luaL_error(L, "world position, rotation and scale are read-only: set position, rotation or scale");
  ls_pull_chain(L, u->owner);
  ty_transforms *T = ty_world_transforms(W);
  uint32_t xf = ty_object_transform(W, u->owner);
  switch ((ty_view_kind)u->view) {
    case TY_VIEW_WORLD_POSITION: ty_transform_world_position(T, xf, u->v); break;
    case TY_VIEW_WORLD_ROTATION: ty_transform_world_rotation(T, xf, u->v); break;
    case TY_VIEW_WORLD_SCALE: ty_transform_world_scale(T, xf, u->v); break;
    default: break;
  }
  return u->v;
}

/* Pushes the cached world view of kind for the GameObject at idx, creating it once. */
void ls_push_view(lua_State *L, int idx, ty_id id, ty_view_kind kind) {
  int uv = UV_VIEWS + (int)kind - TY_VIEW_POSITION;
  if (lua_getiuservalue(L, idx, uv) != LUA_TNIL) return;
  lua_pop(L, 1);
  ty_push_view(L, id, kind);
  lua_pushvalue(L, -1);
  lua_setiuservalue(L, idx, uv);
}

/* The transform of id with its world values current: its chain's local tables read back. */
static uint32_t current_transform(lua_State *L, ty_id id) {
  ls_pull_chain(L, id);
  return ty_object_transform(world_of(L), id);
}

static int get_world_into(lua_State *L, ty_view_kind kind) {
  ty_id id = ty_check_gameobject(L, 1);
  ty_transforms *T = ty_world_transforms(world_of(L));
  uint32_t xf = current_transform(L, id);
  float v[4];
  if (kind == TY_VIEW_WORLD_ROTATION) ty_transform_world_rotation(T, xf, v);
  else if (kind == TY_VIEW_WORLD_SCALE) ty_transform_world_scale(T, xf, v);
  else ty_transform_world_position(T, xf, v);
  if (lua_isnoneornil(L, 2)) {
    if (kind == TY_VIEW_WORLD_ROTATION) ty_push_quat(L, v[0], v[1], v[2], v[3]);
    else ty_push_vec3(L, v[0], v[1], v[2]);
    return 1;
  }
  if (kind == TY_VIEW_WORLD_ROTATION) ty_write_quat(L, 2, v);
  else ty_write_vec3(L, 2, v);
  lua_settop(L, 2);
  return 1;
}

static int go_getWorldPosition(lua_State *L) { return get_world_into(L, TY_VIEW_WORLD_POSITION); }
static int go_getWorldRotation(lua_State *L) { return get_world_into(L, TY_VIEW_WORLD_ROTATION); }
static int go_getWorldScale(lua_State *L) { return get_world_into(L, TY_VIEW_WORLD_SCALE); }

static const float *world_matrix(lua_State *L, ty_id id) {
  return ty_transform_world(ty_world_transforms(world_of(L)), current_transform(L, id));
}

const float *ty_lua_world_matrix(lua_State *L, ty_id id) { return world_matrix(L, id); }

static int go_localToWorld(lua_State *L) {
  ty_push_mat4(L, world_matrix(L, ty_check_gameobject(L, 1)));
  return 1;
}

static int go_localToWorldInto(lua_State *L) {
  ty_id id = ty_check_gameobject(L, 1);
  float *m = ty_check_mat4(L, 2);
  memcpy(m, world_matrix(L, id), sizeof(float) * 16);
  lua_settop(L, 2);
  return 1;
}

static int go_worldToLocal(lua_State *L) {
  ty_id id = ty_check_gameobject(L, 1);
  ty_push_mat4(L, ty_transform_world_inverse(ty_world_transforms(world_of(L)), current_transform(L, id)));
  return 1;
}

/* Reads argument idx as a point or direction: a Vec3 of any form, a {x=, y=, z=} or
 * {x, y, z} table, or (when objects is true) a GameObject, which stands for its world
 * position. Anything else raises the standard bad argument error. */
static void check_point(lua_State *L, int idx, bool objects, double out[3]) {
  float f[3];
  if (objects && lua_type(L, idx) == LUA_TUSERDATA && lua_rawlen(L, idx) == sizeof(ty_go) &&
      ((ty_go *)lua_touserdata(L, idx))->magic == TY_GO_MAGIC) {
    ty_id id = ty_check_gameobject(L, idx);
    ty_transform_world_position(ty_world_transforms(world_of(L)), current_transform(L, id), f);
  } else if (ty_is_vec3(L, idx)) {
    ty_read_vec3(L, idx, f);
  } else if (lua_type(L, idx) == LUA_TTABLE) {
    for (int i = 0; i < 3; i++) {
      if (lua_getfield(L, idx, AXES[i]) == LUA_TNIL) {
        lua_pop(L, 1);
        lua_rawgeti(L, idx, i + 1);
      }
      int ok;
      f[i] = (float)lua_tonumberx(L, -1, &ok);
      lua_pop(L, 1);
      if (!ok) luaL_argerror(L, idx, lua_pushfstring(L, "the table needs a number for '%s'", AXES[i]));
    }
  } else {
    luaL_typeerror(L, idx, objects ? "Vec3 or GameObject" : "Vec3");
  }
  for (int i = 0; i < 3; i++) out[i] = f[i];
}

static void cross3(const double a[3], const double b[3], double out[3]) {
  double x = a[1] * b[2] - a[2] * b[1], y = a[2] * b[0] - a[0] * b[2], z = a[0] * b[1] - a[1] * b[0];
  out[0] = x, out[1] = y, out[2] = z;
}

static double norm3(const double v[3]) { return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

/* The linear part of the column-major 4x4 m applied to direction v. */
static void mul_dir(const float *m, double v[3]) {
  double x = v[0], y = v[1], z = v[2];
  for (int r = 0; r < 3; r++) v[r] = m[r] * x + m[4 + r] * y + m[8 + r] * z;
}

/* The unit quaternion (x, y, z, w) of the rotation whose columns are the orthonormal axes
 * x, y, z (Shepperd's method: the largest diagonal term keeps the square root away from 0). */
static void quat_from_axes(const double x[3], const double y[3], const double z[3], float q[4]) {
  double t = x[0] + y[1] + z[2], v[4];
  if (t > 0) {
    double s = 0.5 / sqrt(t + 1.0);
    v[0] = (y[2] - z[1]) * s, v[1] = (z[0] - x[2]) * s, v[2] = (x[1] - y[0]) * s, v[3] = 0.25 / s;
  } else if (x[0] >= y[1] && x[0] >= z[2]) {
    double s = 2.0 * sqrt(1.0 + x[0] - y[1] - z[2]);
    v[0] = 0.25 * s, v[1] = (y[0] + x[1]) / s, v[2] = (z[0] + x[2]) / s, v[3] = (y[2] - z[1]) / s;
  } else if (y[1] >= z[2]) {
    double s = 2.0 * sqrt(1.0 + y[1] - x[0] - z[2]);
    v[0] = (y[0] + x[1]) / s, v[1] = 0.25 * s, v[2] = (z[1] + y[2]) / s, v[3] = (z[0] - x[2]) / s;
  } else {
    double s = 2.0 * sqrt(1.0 + z[2] - x[0] - y[1]);
    v[0] = (z[0] + x[2]) / s, v[1] = (z[1] + y[2]) / s, v[2] = 0.25 * s, v[3] = (x[1] - y[0]) / s;
  }
  double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]);
  for (int i = 0; i < 4; i++) q[i] = (float)(v[i] / n);
}

/* go:lookAt(target [, up]) -> go: turns the object so its forward (-Z, where a Camera
 * looks) points at target (a point, or a GameObject's world position) and its +Y leans
 * towards up (default +Y), both in world space. The local rotation is what changes, worked
 * out in the parent's space so a rotated or scaled parent is accounted for. A target at the
 * object's own position leaves the rotation as it is; an up along the line of sight is
 * replaced by -Z or +Z (the limit of tilting towards it from the default view), then +Y. */
static int go_lookAt(lua_State *L) {
  ty_go *g = ls_go_ud(L, 1);
  ty_id id = ty_check_gameobject(L, 1);
  double target[3], up[3] = {0, 1, 0};
  check_point(L, 2, true, target);
  if (!lua_isnoneornil(L, 3)) check_point(L, 3, false, up);
  ty_world *W = world_of(L);
  ty_transforms *T = ty_world_transforms(W);
  float eye[3];
  ty_transform_world_position(T, current_transform(L, id), eye);
  double f[3] = {target[0] - eye[0], target[1] - eye[1], target[2] - eye[2]};
  ty_id parent = ty_object_parent(W, id);
  if (parent) {
    const float *inv = ty_transform_world_inverse(T, current_transform(L, parent));
    mul_dir(inv, f);
    mul_dir(inv, up);
  }
  double len = norm3(f);
  if (!(len > 1e-9) || !isfinite(len)) {
    lua_settop(L, 1);
    return 1;
  }
  double z[3] = {-f[0] / len, -f[1] / len, -f[2] / len}, x[3], y[3];
  cross3(up, z, x);
  double ulen = norm3(up), xlen = norm3(x);
  if (!(xlen > 1e-6 * ulen) || !isfinite(xlen)) {
    /* up is (nearly) along the line of sight, or zero */
    double along = up[0] * f[0] + up[1] * f[1] + up[2] * f[2];
    double alt[3] = {0, 0, along > 0 ? 1.0 : -1.0};
    cross3(alt, z, x);
    xlen = norm3(x);
    if (!(xlen > 1e-6)) {
      double y_up[3] = {0, 1, 0};
      cross3(y_up, z, x);
      xlen = norm3(x);
    }
  }
  for (int i = 0; i < 3; i++) x[i] /= xlen;
  cross3(z, x, y);
  float q[4];
  quat_from_axes(x, y, z, q);
  ls_set_local(L, g, 1, 1, q);
  lua_settop(L, 1);
  return 1;
}

/* Copies a Vec3/Quat (any form) or {x=,y=,z=[,w=]} table at idx into local kind of the
 * GameObject at go_idx. A wrong value raises a bad argument error for argument arg
 * (GameObject.new's table), or a plain error naming the field when arg is 0 (an
 * assignment); nothing is written then. */
void ls_assign_trs(lua_State *L, int go_idx, int idx, int kind, int arg) {
  const char *field = LOCAL_NAMES[kind];
  const char *type = kind == 1 ? TY_QUAT : TY_VEC3;
  int n = LOCAL_N[kind];
  float v[4];
  const char *bad = NULL;
  if (kind == 1 ? ty_is_quat(L, idx) : ty_is_vec3(L, idx)) {
    if (kind == 1) ty_read_quat(L, idx, v);
    else ty_read_vec3(L, idx, v);
  } else if (lua_istable(L, idx)) {
    /* {x=, y=, z=[, w=]} or {x, y, z[, w]} */
    for (int i = 0; i < n && !bad; i++) {
      if (lua_getfield(L, idx, AXES[i]) == LUA_TNIL) {
        lua_pop(L, 1);
        lua_rawgeti(L, idx, i + 1);
      }
      int ok;
      v[i] = (float)lua_tonumberx(L, -1, &ok);
      lua_pop(L, 1);
      if (!ok) bad = lua_pushfstring(L, "%s table needs a number for '%s'", field, AXES[i]);
    }
  } else {
    bad = lua_pushfstring(L, "%s must be a %s or a table, got %s", field, type, luaL_typename(L, idx));
  }
  if (bad) {
    if (arg) luaL_argerror(L, arg, bad);
    luaL_error(L, "GameObject.%s", bad);
  }
  /* Written only once read: reading a view may bring other transforms up to date. */
  ls_set_local(L, lua_touserdata(L, go_idx), go_idx, kind, v);
}


const luaL_Reg ls_transform_methods[] = {{"getWorldPosition", go_getWorldPosition},
                                         {"getWorldRotation", go_getWorldRotation},
                                         {"getWorldScale", go_getWorldScale},
                                         {"localToWorld", go_localToWorld},
                                         {"localToWorldInto", go_localToWorldInto},
                                         {"worldToLocal", go_worldToLocal},
                                         {"lookAt", go_lookAt},
                                         {NULL, NULL}};

const ty_view_ops ls_view_ops = {ty_view_resolve, ty_dead_view_error};
