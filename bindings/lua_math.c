/* bindings/lua_math.c: Vec3, Quat and Mat4, the value types the other bindings trade in.
 *
 * A Vec3 or Quat comes in three forms that every function here accepts alike:
 *  - a userdata owning its floats (tycho.vec3(), results of arithmetic);
 *  - a userdata viewing a GameObject's world position, rotation or scale (read-only,
 *    resolved through the context's view_ops on every access, so it is never stale and a
 *    destroyed owner raises instead of reading freed memory);
 *  - a GameObject's local position, rotation or scale: a plain Lua table {x=, y=, z=[, w=]}
 *    with the type's methods and operators, so that a script reading and writing its
 *    fields runs at table speed. The scene binding reads these tables back (compare on
 *    read); when the object is destroyed the table is emptied and takes a metatable whose
 *    every access raises.
 *
 * Every operation copies its inputs into locals before pushing anything: an allocation can
 * run the GC and finalizers, which may move transform storage or reuse the buffer a world
 * view resolved to, so no resolved pointer is kept across a push.
 *
 * cglm's SIMD paths use aligned loads, while Lua only promises LUAI_MAXALIGN for userdata,
 * so the math runs on aligned locals (vec4/versor/mat4) and results are copied back.
 */
#include "bindings.h"

/* Views stand for what the GameObject binding says (ty_view_ops, in the state's context). */
static inline float *view_resolve(lua_State *L, ty_vec *u, bool write) { return ty_ctx_get(L)->views->resolve(L, u, write); }
static inline int dead_view_error(lua_State *L, int idx) { return ty_ctx_get(L)->views->dead(L, idx); }

#include <math.h>
#include <string.h>

#include <cglm/cglm.h>

/* ---- the forms a Vec3/Quat takes ------------------------------------------------------ */

/* Registry keys of the metatables, so a form is told by identity, not by a string lookup. */
static char K_VEC3, K_QUAT, K_LOCAL_VEC3, K_LOCAL_QUAT, K_DEAD;

typedef enum vec_form {
  VEC_NONE,  /* not a Vec3/Quat of the kind asked for */
  VEC_VALUE, /* userdata: owned floats or a world view */
  VEC_LOCAL, /* a GameObject's local position/rotation/scale: a plain table */
  VEC_DEAD,  /* a local table whose GameObject was destroyed */
} vec_form;

static const char *const AXES[4] = {"x", "y", "z", "w"};

/* The form of the value at idx as a Vec3 (n == 3) or a Quat (n == 4). */
static vec_form vec_form_of(lua_State *L, int idx, int n) {
  int t = lua_type(L, idx);
  if ((t != LUA_TUSERDATA && t != LUA_TTABLE) || !lua_getmetatable(L, idx)) return VEC_NONE;
  vec_form form = VEC_NONE;
  if (t == LUA_TUSERDATA) {
    lua_rawgetp(L, LUA_REGISTRYINDEX, n == 3 ? &K_VEC3 : &K_QUAT);
    if (lua_rawequal(L, -1, -2)) form = VEC_VALUE;
  } else {
    lua_rawgetp(L, LUA_REGISTRYINDEX, n == 3 ? &K_LOCAL_VEC3 : &K_LOCAL_QUAT);
    if (lua_rawequal(L, -1, -2)) {
      form = VEC_LOCAL;
    } else {
      lua_pop(L, 1);
      lua_rawgetp(L, LUA_REGISTRYINDEX, &K_DEAD);
      if (lua_rawequal(L, -1, -2)) form = VEC_DEAD;
    }
  }
  lua_pop(L, 2);
  return form;
}

/* Reads n floats of the Vec3/Quat at idx; raises a type error naming tname for anything
 * else, and the destroyed-owner error for a dead local table. */
static void vec_read(lua_State *L, int idx, float *out, int n, const char *tname) {
  idx = lua_absindex(L, idx);
  switch (vec_form_of(L, idx, n)) {
    case VEC_VALUE: {
      ty_vec *u = lua_touserdata(L, idx);
      const float *f = u->view == TY_VIEW_NONE ? u->v : view_resolve(L, u, false);
      for (int i = 0; i < n; i++) out[i] = f[i];
      return;
    }
    case VEC_LOCAL:
      for (int i = 0; i < n; i++) {
        int isnum;
        lua_getfield(L, idx, AXES[i]);
        out[i] = (float)lua_tonumberx(L, -1, &isnum);
        if (!isnum) luaL_error(L, "%s field '%s' must be a number, got %s", tname, AXES[i], luaL_typename(L, -1));
        lua_pop(L, 1);
      }
      return;
    case VEC_DEAD: dead_view_error(L, idx); return;
    case VEC_NONE: luaL_typeerror(L, idx, tname); return;
  }
}

/* Writes n floats into the Vec3/Quat at idx (raises on a world view: they are read-only). */
static void vec_write(lua_State *L, int idx, const float *in, int n, const char *tname) {
  idx = lua_absindex(L, idx);
  switch (vec_form_of(L, idx, n)) {
    case VEC_VALUE: {
      ty_vec *u = lua_touserdata(L, idx);
      float *f = u->view == TY_VIEW_NONE ? u->v : view_resolve(L, u, true);
      for (int i = 0; i < n; i++) f[i] = in[i];
      return;
    }
    case VEC_LOCAL:
      for (int i = 0; i < n; i++) {
        lua_pushnumber(L, in[i]);
        lua_setfield(L, idx, AXES[i]);
      }
      return;
    case VEC_DEAD: dead_view_error(L, idx); return;
    case VEC_NONE: luaL_typeerror(L, idx, tname); return;
  }
}

static ty_vec *push_vec(lua_State *L, const char *tname, ty_view_kind view, uint32_t owner) {
  ty_vec *u = lua_newuserdatauv(L, sizeof *u, 0);
  memset(u, 0, sizeof *u);
  u->owner = owner;
  u->view = (uint8_t)view;
  luaL_setmetatable(L, tname);
  return u;
}

/* Formats n floats as "Name(a, b, ...)" with %.9g, enough digits to round-trip a float. */
static int push_tostring(lua_State *L, const char *tname, const float *f, int n) {
  luaL_Buffer b;
  char num[32];
  luaL_buffinit(L, &b);
  luaL_addstring(&b, tname);
  luaL_addchar(&b, '(');
  for (int i = 0; i < n; i++) {
    snprintf(num, sizeof num, i ? ", %.9g" : "%.9g", (double)f[i]);
    luaL_addstring(&b, num);
  }
  luaL_addchar(&b, ')');
  luaL_pushresult(&b);
  return 1;
}

/* Methods that mutate return self, so calls chain. */
static int return_self(lua_State *L) {
  lua_settop(L, 1);
  return 1;
}

/* ---- public C API --------------------------------------------------------------------- */

float *ty_check_mat4(lua_State *L, int idx) { return ty_check(L, idx, TY_MAT4); }
ty_vec *ty_test_vec3(lua_State *L, int idx) { return ty_test(L, idx, TY_VEC3); }

ty_vec *ty_push_vec3(lua_State *L, float x, float y, float z) {
  ty_vec *u = push_vec(L, TY_VEC3, TY_VIEW_NONE, 0);
  u->v[0] = x;
  u->v[1] = y;
  u->v[2] = z;
  return u;
}

ty_vec *ty_push_quat(lua_State *L, float x, float y, float z, float w) {
  ty_vec *u = push_vec(L, TY_QUAT, TY_VIEW_NONE, 0);
  u->v[0] = x;
  u->v[1] = y;
  u->v[2] = z;
  u->v[3] = w;
  return u;
}

float *ty_push_mat4(lua_State *L, const float m[16]) {
  float *p = lua_newuserdatauv(L, 16 * sizeof(float), 0);
  if (m) {
    memcpy(p, m, 16 * sizeof(float));
  } else {
    memset(p, 0, 16 * sizeof(float));
    p[0] = p[5] = p[10] = p[15] = 1.0f;
  }
  luaL_setmetatable(L, TY_MAT4);
  return p;
}

ty_vec *ty_push_view(lua_State *L, uint32_t owner, ty_view_kind view) {
  TY_ASSERT(view >= TY_VIEW_WORLD_POSITION && view <= TY_VIEW_ANGULAR_3D);
  return push_vec(L, view == TY_VIEW_WORLD_ROTATION ? TY_QUAT : TY_VEC3, view, owner);
}

void ty_push_local(lua_State *L, const float *v, int n) {
  lua_createtable(L, 0, n);
  for (int i = 0; i < n; i++) {
    lua_pushnumber(L, v[i]);
    lua_setfield(L, -2, AXES[i]);
  }
  lua_rawgetp(L, LUA_REGISTRYINDEX, n == 3 ? &K_LOCAL_VEC3 : &K_LOCAL_QUAT);
  lua_setmetatable(L, -2);
}

void ty_push_vec3_table(lua_State *L, double x, double y, double z) {
  lua_createtable(L, 0, 3);
  lua_pushnumber(L, x);
  lua_setfield(L, -2, "x");
  lua_pushnumber(L, y);
  lua_setfield(L, -2, "y");
  lua_pushnumber(L, z);
  lua_setfield(L, -2, "z");
  lua_rawgetp(L, LUA_REGISTRYINDEX, &K_LOCAL_VEC3);
  lua_setmetatable(L, -2);
}

void ty_kill_local(lua_State *L, int idx) {
  idx = lua_absindex(L, idx);
  lua_pushnil(L);
  while (lua_next(L, idx)) { /* clearing existing fields during a traversal is allowed */
    lua_pop(L, 1);
    lua_pushvalue(L, -1);
    lua_pushnil(L);
    lua_rawset(L, idx);
  }
  lua_rawgetp(L, LUA_REGISTRYINDEX, &K_DEAD);
  lua_setmetatable(L, idx);
}

bool ty_is_vec3(lua_State *L, int idx) { return vec_form_of(L, idx, 3) != VEC_NONE; }
bool ty_is_quat(lua_State *L, int idx) { return vec_form_of(L, idx, 4) != VEC_NONE; }

void ty_read_vec3(lua_State *L, int idx, float out[3]) { vec_read(L, idx, out, 3, TY_VEC3); }
void ty_read_quat(lua_State *L, int idx, float out[4]) { vec_read(L, idx, out, 4, TY_QUAT); }
void ty_write_vec3(lua_State *L, int idx, const float in[3]) { vec_write(L, idx, in, 3, TY_VEC3); }
void ty_write_quat(lua_State *L, int idx, const float in[4]) { vec_write(L, idx, in, 4, TY_QUAT); }

/* ---- field access of the userdata forms (shared by Vec3 and Quat) ---------------------- */

/* __index/__newindex closures carry upvalue 1 = the type's metatable and upvalue 2 = its
 * methods table. Comparing metatables by identity is cheaper than luaL_checkudata's
 * registry lookup, and still refuses foreign userdata passed to a stolen metamethod. */
static ty_vec *self_fast(lua_State *L, const char *tname) {
  ty_vec *u = lua_touserdata(L, 1);
  if (u && lua_getmetatable(L, 1)) {
    int same = lua_rawequal(L, -1, lua_upvalueindex(1));
    lua_pop(L, 1);
    if (same) return u;
  }
  return luaL_checkudata(L, 1, tname); /* raises the standard message */
}

/* The floats a userdata Vec3/Quat stands for. Owned values skip the call. */
static inline float *vec_ptr(lua_State *L, ty_vec *u, bool write) {
  return u->view == TY_VIEW_NONE ? u->v : view_resolve(L, u, write);
}

/* Component index of a one-letter key, or -1. Length and first character decide, so the
 * per-frame path never calls strcmp. */
static int field_slot(lua_State *L, int idx, int n) {
  if (lua_type(L, idx) != LUA_TSTRING) return -1;
  size_t len;
  const char *k = lua_tolstring(L, idx, &len);
  if (len != 1) return -1;
  switch (k[0]) {
    case 'x': return 0;
    case 'y': return 1;
    case 'z': return 2;
    case 'w': return n == 4 ? 3 : -1;
    default: return -1;
  }
}

static int vec_index(lua_State *L, int n, const char *tname) {
  ty_vec *u = self_fast(L, tname);
  int slot = field_slot(L, 2, n);
  if (slot >= 0) {
    lua_pushnumber(L, vec_ptr(L, u, false)[slot]);
    return 1;
  }
  lua_pushvalue(L, 2);
  lua_rawget(L, lua_upvalueindex(2));
  return 1;
}

static int vec_newindex(lua_State *L, int n, const char *tname) {
  ty_vec *u = self_fast(L, tname);
  int slot = field_slot(L, 2, n);
  if (slot < 0) return luaL_error(L, "%s has no field '%s'", tname, luaL_tolstring(L, 2, NULL));
  int isnum;
  lua_Number x = lua_tonumberx(L, 3, &isnum);
  if (!isnum)
    return luaL_error(L, "%s field '%s' must be a number, got %s", tname, lua_tostring(L, 2),
                      luaL_typename(L, 3));
  vec_ptr(L, u, true)[slot] = (float)x;
  return 0;
}

static int vec3_index(lua_State *L) { return vec_index(L, 3, TY_VEC3); }
static int vec3_newindex(lua_State *L) { return vec_newindex(L, 3, TY_VEC3); }
static int quat_index(lua_State *L) { return vec_index(L, 4, TY_QUAT); }
static int quat_newindex(lua_State *L) { return vec_newindex(L, 4, TY_QUAT); }

/* set on a local table, the per-frame way to move an object, is Lua: a C call (or a call
 * of type() per component) would cost more than the stores it makes. Missing components
 * are 0 (w: 1). Like a field store, a value that is not a number is refused when the table
 * is read back. */
static const char LOCAL_SET[] =
    "return function(p, x, y, z)\n"
    "  p.x, p.y, p.z = x or 0, y or 0, z or 0\n"
    "  return p\n"
    "end, function(p, x, y, z, w)\n"
    "  p.x, p.y, p.z, p.w = x or 0, y or 0, z or 0, w or 1\n"
    "  return p\n"
    "end\n";

/* A dead local table has no fields left, so every read, write and method lands here. */
static int dead_access(lua_State *L) { return dead_view_error(L, 1); }

/* Component-wise equality; false (not an error) when the other side is another type. */
static int vec_eq(lua_State *L, int n, const char *tname) {
  float fa[4], fb[4];
  bool eq = vec_form_of(L, 1, n) != VEC_NONE && vec_form_of(L, 2, n) != VEC_NONE;
  if (eq) {
    vec_read(L, 1, fa, n, tname);
    vec_read(L, 2, fb, n, tname);
    for (int i = 0; i < n; i++) eq = eq && fa[i] == fb[i];
  }
  lua_pushboolean(L, eq);
  return 1;
}

/* ---- Vec3 ------------------------------------------------------------------------------ */

/* Reads three optional numbers starting at first; missing ones are 0. */
static void opt_xyz(lua_State *L, int first, float out[3]) {
  for (int i = 0; i < 3; i++) out[i] = (float)luaL_optnumber(L, first + i, 0.0);
}

static int vec3_new(lua_State *L) {
  float f[3];
  opt_xyz(L, 1, f);
  ty_push_vec3(L, f[0], f[1], f[2]);
  return 1;
}

static int vec3_set(lua_State *L) {
  float f[3];
  opt_xyz(L, 2, f);
  ty_write_vec3(L, 1, f);
  return return_self(L);
}

static int vec3_copy(lua_State *L) {
  float f[3];
  ty_read_vec3(L, 2, f);
  ty_write_vec3(L, 1, f);
  return return_self(L);
}

static int vec3_clone(lua_State *L) {
  float f[3];
  ty_read_vec3(L, 1, f);
  ty_push_vec3(L, f[0], f[1], f[2]);
  return 1;
}

static int vec3_unpack(lua_State *L) {
  float f[3];
  ty_read_vec3(L, 1, f);
  for (int i = 0; i < 3; i++) lua_pushnumber(L, f[i]);
  return 3;
}

static int vec3_length(lua_State *L) {
  vec3 a;
  ty_read_vec3(L, 1, a);
  lua_pushnumber(L, glm_vec3_norm(a));
  return 1;
}

static int vec3_dot(lua_State *L) {
  vec3 a, b;
  ty_read_vec3(L, 1, a);
  ty_read_vec3(L, 2, b);
  lua_pushnumber(L, glm_vec3_dot(a, b));
  return 1;
}

static int vec3_cross(lua_State *L) {
  vec3 a, b, c;
  ty_read_vec3(L, 1, a);
  ty_read_vec3(L, 2, b);
  glm_vec3_cross(a, b, c);
  ty_push_vec3(L, c[0], c[1], c[2]);
  return 1;
}

/* In place; cglm leaves a zero vector at zero rather than producing NaN. */
static int vec3_normalize(lua_State *L) {
  vec3 a;
  ty_read_vec3(L, 1, a);
  glm_vec3_normalize(a);
  ty_write_vec3(L, 1, a);
  return return_self(L);
}

static int vec3_add(lua_State *L) {
  vec3 a, b;
  ty_read_vec3(L, 1, a);
  ty_read_vec3(L, 2, b);
  ty_push_vec3(L, a[0] + b[0], a[1] + b[1], a[2] + b[2]);
  return 1;
}

static int vec3_sub(lua_State *L) {
  vec3 a, b;
  ty_read_vec3(L, 1, a);
  ty_read_vec3(L, 2, b);
  ty_push_vec3(L, a[0] - b[0], a[1] - b[1], a[2] - b[2]);
  return 1;
}

/* Vec3 * number or number * Vec3: Lua calls this with the operands in source order. */
static int vec3_mul(lua_State *L) {
  int vi = lua_type(L, 1) == LUA_TNUMBER ? 2 : 1;
  vec3 a;
  ty_read_vec3(L, vi, a);
  float s = (float)luaL_checknumber(L, 3 - vi);
  ty_push_vec3(L, a[0] * s, a[1] * s, a[2] * s);
  return 1;
}

static int vec3_unm(lua_State *L) {
  vec3 a;
  ty_read_vec3(L, 1, a);
  ty_push_vec3(L, -a[0], -a[1], -a[2]);
  return 1;
}

static int vec3_eq(lua_State *L) { return vec_eq(L, 3, TY_VEC3); }

static int vec3_tostring(lua_State *L) {
  float f[3];
  ty_read_vec3(L, 1, f);
  return push_tostring(L, TY_VEC3, f, 3);
}

/* ---- Quat ------------------------------------------------------------------------------ */

/* Reads four optional numbers starting at first; missing ones come from the identity. */
static void opt_xyzw(lua_State *L, int first, float out[4]) {
  opt_xyz(L, first, out);
  out[3] = (float)luaL_optnumber(L, first + 3, 1.0);
}

/* Rotation of angle radians about (ax, ay, az) read from first..first+3. The axis is
 * normalized; a zero axis gives the identity instead of a non-unit quaternion. */
static void axis_angle(lua_State *L, int first, versor q) {
  vec3 axis;
  for (int i = 0; i < 3; i++) axis[i] = (float)luaL_checknumber(L, first + i);
  float angle = (float)luaL_checknumber(L, first + 3);
  if (glm_vec3_norm2(axis) == 0.0f)
    glm_quat_identity(q);
  else
    glm_quatv(q, angle, axis);
}

/* tycho.quat(...) goes through the table's __call, which passes the table first. */
static int quat_call(lua_State *L) {
  float f[4];
  opt_xyzw(L, 2, f);
  ty_push_quat(L, f[0], f[1], f[2], f[3]);
  return 1;
}

static int quat_identity(lua_State *L) {
  ty_push_quat(L, 0.0f, 0.0f, 0.0f, 1.0f);
  return 1;
}

static int quat_axis_angle(lua_State *L) {
  versor q;
  axis_angle(L, 1, q);
  ty_push_quat(L, q[0], q[1], q[2], q[3]);
  return 1;
}

static int quat_set(lua_State *L) {
  float f[4];
  opt_xyzw(L, 2, f);
  ty_write_quat(L, 1, f);
  return return_self(L);
}

static int quat_set_axis_angle(lua_State *L) {
  versor q;
  axis_angle(L, 2, q);
  ty_write_quat(L, 1, q);
  return return_self(L);
}

static int quat_copy(lua_State *L) {
  float f[4];
  ty_read_quat(L, 2, f);
  ty_write_quat(L, 1, f);
  return return_self(L);
}

static int quat_clone(lua_State *L) {
  float f[4];
  ty_read_quat(L, 1, f);
  ty_push_quat(L, f[0], f[1], f[2], f[3]);
  return 1;
}

static int quat_unpack(lua_State *L) {
  float f[4];
  ty_read_quat(L, 1, f);
  for (int i = 0; i < 4; i++) lua_pushnumber(L, f[i]);
  return 4;
}

/* In place; cglm turns a zero quaternion into the identity. */
static int quat_normalize(lua_State *L) {
  versor q;
  ty_read_quat(L, 1, q);
  glm_quat_normalize(q);
  ty_write_quat(L, 1, q);
  return return_self(L);
}

/* self * q: q is applied first, then self (cglm's Hamilton product). */
static int quat_mul(lua_State *L) {
  versor a, b, c;
  ty_read_quat(L, 1, a);
  ty_read_quat(L, 2, b);
  glm_quat_mul(a, b, c);
  ty_push_quat(L, c[0], c[1], c[2], c[3]);
  return 1;
}

static int quat_rotate(lua_State *L) {
  versor q;
  vec3 v, r;
  ty_read_quat(L, 1, q);
  ty_read_vec3(L, 2, v);
  glm_quat_rotatev(q, v, r);
  ty_push_vec3(L, r[0], r[1], r[2]);
  return 1;
}

/* q * q composes, q * v rotates: the two readings of `*` a game script expects. */
static int quat_mul_op(lua_State *L) {
  if (ty_is_vec3(L, 2)) return quat_rotate(L);
  return quat_mul(L);
}

static int quat_eq(lua_State *L) { return vec_eq(L, 4, TY_QUAT); }

static int quat_tostring(lua_State *L) {
  float f[4];
  ty_read_quat(L, 1, f);
  return push_tostring(L, TY_QUAT, f, 4);
}

/* ---- Mat4 ------------------------------------------------------------------------------ */

/* Userdata floats may be under-aligned for cglm's SSE loads: go through an aligned local. */
static void mat4_read(lua_State *L, int idx, mat4 m) { memcpy(m, ty_check_mat4(L, idx), sizeof(mat4)); }

static int mat4_new(lua_State *L) {
  ty_push_mat4(L, NULL);
  return 1;
}

/* 1-based column-major index from argument idx; an argument error outside 1..16. */
static int mat4_slot(lua_State *L, int idx) {
  lua_Integer i = luaL_checkinteger(L, idx);
  luaL_argcheck(L, i >= 1 && i <= 16, idx, "index out of range 1..16");
  return (int)i - 1;
}

static int mat4_get(lua_State *L) {
  float *m = ty_check_mat4(L, 1);
  lua_pushnumber(L, m[mat4_slot(L, 2)]);
  return 1;
}

static int mat4_set(lua_State *L) {
  float *m = ty_check_mat4(L, 1);
  int i = mat4_slot(L, 2);
  m[i] = (float)luaL_checknumber(L, 3);
  return return_self(L);
}

static int mat4_transform_point(lua_State *L) {
  mat4 m;
  vec3 v, r;
  mat4_read(L, 1, m);
  ty_read_vec3(L, 2, v);
  glm_mat4_mulv3(m, v, 1.0f, r);
  ty_push_vec3(L, r[0], r[1], r[2]);
  return 1;
}

/* In place. A singular matrix raises: silently filling a transform with inf/NaN would
 * surface frames later, far from the cause. */
static int mat4_invert(lua_State *L) {
  float *p = ty_check_mat4(L, 1);
  mat4 m;
  memcpy(m, p, sizeof m);
  if (glm_mat4_det(m) == 0.0f) return luaL_error(L, "Mat4:invert: matrix is singular");
  glm_mat4_inv(m, m);
  memcpy(p, m, sizeof m);
  return return_self(L);
}

static int mat4_mul(lua_State *L) {
  mat4 a, b, c;
  mat4_read(L, 1, a);
  mat4_read(L, 2, b);
  glm_mat4_mul(a, b, c);
  ty_push_mat4(L, (const float *)c);
  return 1;
}

static int mat4_clone(lua_State *L) {
  mat4 m;
  mat4_read(L, 1, m);
  ty_push_mat4(L, (const float *)m);
  return 1;
}

static int mat4_tostring(lua_State *L) {
  mat4 m;
  mat4_read(L, 1, m);
  return push_tostring(L, TY_MAT4, (const float *)m, 16);
}

/* translate * rotate * scale; rot and scale may be nil (identity, one). */
static int mat4_from_trs(lua_State *L) {
  vec3 pos, scale = {1.0f, 1.0f, 1.0f};
  versor rot = {0.0f, 0.0f, 0.0f, 1.0f};
  mat4 m;
  ty_read_vec3(L, 1, pos);
  if (!lua_isnoneornil(L, 2)) ty_read_quat(L, 2, rot);
  if (!lua_isnoneornil(L, 3)) ty_read_vec3(L, 3, scale);
  glm_quat_mat4(rot, m);
  for (int c = 0; c < 3; c++) glm_vec4_scale(m[c], scale[c], m[c]);
  glm_vec4(pos, 1.0f, m[3]);
  ty_push_mat4(L, (const float *)m);
  return 1;
}

/* ---- registration ---------------------------------------------------------------------- */

static const luaL_Reg vec3_meta[] = {
  {"__add", vec3_add}, {"__sub", vec3_sub}, {"__mul", vec3_mul},
  {"__unm", vec3_unm}, {"__eq", vec3_eq},   {"__tostring", vec3_tostring},
  {NULL, NULL},
};
static const luaL_Reg vec3_methods[] = {
  {"set", vec3_set},       {"copy", vec3_copy},     {"clone", vec3_clone},
  {"unpack", vec3_unpack}, {"length", vec3_length}, {"dot", vec3_dot},
  {"cross", vec3_cross},   {"normalize", vec3_normalize},
  {NULL, NULL},
};

static const luaL_Reg quat_meta[] = {
  {"__mul", quat_mul_op}, {"__eq", quat_eq}, {"__tostring", quat_tostring},
  {NULL, NULL},
};
static const luaL_Reg quat_methods[] = {
  {"set", quat_set},       {"setAxisAngle", quat_set_axis_angle},
  {"copy", quat_copy},     {"clone", quat_clone},
  {"unpack", quat_unpack}, {"normalize", quat_normalize},
  {"mul", quat_mul},       {"rotate", quat_rotate},
  {NULL, NULL},
};
static const luaL_Reg quat_statics[] = {
  {"identity", quat_identity}, {"axisAngle", quat_axis_angle},
  {NULL, NULL},
};

static const luaL_Reg mat4_meta[] = {
  {"__mul", mat4_mul}, {"__tostring", mat4_tostring},
  {NULL, NULL},
};
static const luaL_Reg mat4_methods[] = {
  {"get", mat4_get},     {"set", mat4_set},
  {"transformPoint", mat4_transform_point},
  {"invert", mat4_invert}, {"mul", mat4_mul}, {"clone", mat4_clone},
  {NULL, NULL},
};
static const luaL_Reg mat4_statics[] = {
  {"identity", mat4_new}, {"fromTRS", mat4_from_trs},
  {NULL, NULL},
};

/* Registers a userdata type (ty_type_register; its metatable also under key when given).
 * With index/newindex (Vec3, Quat) they become closures over the metatable and the methods
 * table; otherwise __index is the methods table itself. Leaves the methods table on the
 * stack. */
static void open_type(lua_State *L, const char *tname, void *key, const luaL_Reg *meta,
                      const luaL_Reg *methods, lua_CFunction index, lua_CFunction newindex) {
  ty_type_register(L, tname, meta, methods);
  luaL_getmetatable(L, tname);
  if (key) {
    lua_pushvalue(L, -1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, key);
  }
  lua_getfield(L, -1, "__methods");
  if (index) {
    lua_pushvalue(L, -2);
    lua_pushvalue(L, -2);
    lua_pushcclosure(L, index, 2);
    lua_setfield(L, -3, "__index");
    lua_pushvalue(L, -2);
    lua_pushvalue(L, -2);
    lua_pushcclosure(L, newindex, 2);
    lua_setfield(L, -3, "__newindex");
  }
  lua_remove(L, -2);
}

/* The metatable of a GameObject's local table (a plain table, so field access runs at
 * table speed): the same methods and operators as the userdata form, under the same
 * __name. The methods table is on top of the stack and is popped. */
static void open_local(lua_State *L, const char *tname, void *key, const luaL_Reg *meta) {
  int methods = lua_gettop(L);
  lua_newtable(L);
  int mt = methods + 1;
  luaL_setfuncs(L, meta, 0);
  lua_pushstring(L, tname);
  lua_setfield(L, mt, "__name");
  /* The type's methods, with set replaced by one that needs no form check. */
  lua_newtable(L);
  lua_pushnil(L);
  while (lua_next(L, methods)) {
    lua_pushvalue(L, -2);
    lua_insert(L, -2);
    lua_rawset(L, mt + 1);
  }
  if (luaL_loadbufferx(L, LOCAL_SET, sizeof LOCAL_SET - 1, "=local set", "t") != LUA_OK) lua_error(L);
  lua_call(L, 0, 2);
  lua_remove(L, strcmp(tname, TY_QUAT) == 0 ? -2 : -1);
  lua_setfield(L, mt + 1, "set");
  lua_setfield(L, mt, "__index");
  lua_rawsetp(L, LUA_REGISTRYINDEX, key);
  lua_settop(L, methods - 1);
}

/* The metatable a local table takes when its GameObject is destroyed. */
static void open_dead(lua_State *L) {
  lua_newtable(L);
  lua_pushcfunction(L, dead_access);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, dead_access);
  lua_setfield(L, -2, "__newindex");
  lua_pushliteral(L, "destroyed transform");
  lua_setfield(L, -2, "__name");
  lua_rawsetp(L, LUA_REGISTRYINDEX, &K_DEAD);
}

/* Sets tycho[name] to a table of statics that is also callable through call. */
static void open_callable(lua_State *L, const char *name, const luaL_Reg *statics, lua_CFunction call) {
  lua_newtable(L);
  luaL_setfuncs(L, statics, 0);
  lua_createtable(L, 0, 1);
  lua_pushcfunction(L, call);
  lua_setfield(L, -2, "__call");
  lua_setmetatable(L, -2);
  lua_setfield(L, -2, name);
}

void ty_open_math(lua_State *L) {
  open_type(L, TY_VEC3, &K_VEC3, vec3_meta, vec3_methods, vec3_index, vec3_newindex);
  open_local(L, TY_VEC3, &K_LOCAL_VEC3, vec3_meta);
  open_type(L, TY_QUAT, &K_QUAT, quat_meta, quat_methods, quat_index, quat_newindex);
  open_local(L, TY_QUAT, &K_LOCAL_QUAT, quat_meta);
  open_type(L, TY_MAT4, NULL, mat4_meta, mat4_methods, NULL, NULL);
  lua_pop(L, 1);
  open_dead(L);

  lua_pushcfunction(L, vec3_new);
  lua_setfield(L, -2, "vec3");
  open_callable(L, "quat", quat_statics, quat_call);
  open_callable(L, "mat4", mat4_statics, mat4_new);
}
