/* bindings/lua_physics_joint.c: joints. world:joint{type=, a=, b=, anchor=, anchorB=, axis=,
 * length=, stiffness=, damping=, collideConnected=} -> Joint: Box2D joints in a World2D,
 * Bullet constraints in a World3D. The anchors and axis are world values (game units) read
 * against the bodies' poses now, and kept in each body's frame: the joint is made again at
 * the next tick when one of its bodies is rebuilt, and ends for good when one of its objects
 * is destroyed (it leaves the world with the body at the sweep). */
#include "lua_physics_world.h"

#include <math.h>
#include <string.h>

#define TY_JOINT "Joint"

static const char *const JOINT_TYPES[2][6] = {{"revolute", "distance", "weld", "prismatic", "wheel", NULL},
                                              {"fixed", "hinge", "point", "slider", NULL}};

typedef struct ljoint {
  lworld *w; /* kept alive by the userdata's user value */
  uint32_t index, serial;
} ljoint;

static uint32_t joint_serial;

/* The joint record of the Joint at idx, or NULL once it ended. */
static joint_rec *joint_get(lua_State *L, int idx) {
  ljoint *j = luaL_checkudata(L, idx, TY_JOINT);
  if (!j->w || (!j->w->w2 && !j->w->w3) || j->index >= j->w->joint_count) return NULL;
  joint_rec *jr = &j->w->joints[j->index];
  return jr->serial == j->serial && !jr->dead ? jr : NULL;
}

static void joint_end(lworld *w, joint_rec *jr) {
  if (jr->handle) {
    if (w->dims == 2) ty_joint2d_destroy(w->w2, jr->handle);
    else ty_joint3d_destroy(w->w3, jr->handle);
  }
  jr->handle = 0;
  jr->dead = true;
}

/* Makes jr's backend joint when both its bodies exist (their handles filled in now). */
static void joint_make(lua_State *L, lworld *w, joint_rec *jr) {
  lworld *wa = NULL, *wb = NULL;
  body_rec *ra = lphys_rec_of(L, w->dims, jr->a, &wa), *rb = jr->b ? lphys_rec_of(L, w->dims, jr->b, &wb) : NULL;
  if (!ra || wa != w || (jr->b && (!rb || wb != w))) return;
  if (w->dims == 2) {
    jr->desc.d2.a = ra->body, jr->desc.d2.b = rb ? rb->body : 0;
    jr->handle = ty_joint2d_create(w->w2, &jr->desc.d2);
  } else {
    jr->desc.d3.a = ra->body, jr->desc.d3.b = rb ? rb->body : 0;
    jr->handle = ty_joint3d_create(w->w3, &jr->desc.d3);
  }
}

void lphys_sync_joints(lua_State *L, lworld *w) {
  ty_world *W = lphys_world_of(L);
  for (uint32_t k = 0; k < w->joint_count; k++) {
    joint_rec *jr = &w->joints[k];
    if (jr->dead) continue;
    if (!ty_object_alive(W, jr->a) || ty_object_destroyed(W, jr->a) ||
        (jr->b && (!ty_object_alive(W, jr->b) || ty_object_destroyed(W, jr->b)))) {
      joint_end(w, jr);
    } else if (!jr->handle) {
      joint_make(L, w, jr);
    }
  }
}

/* Reads option k of the table at t as a finite number (def when absent), at least min. */
static float joint_number(lua_State *L, int t, const char *k, float def, float min) {
  int type = lua_getfield(L, t, k);
  lua_Number v = type == LUA_TNIL ? def : lua_tonumber(L, -1);
  if ((type != LUA_TNIL && type != LUA_TNUMBER) || !isfinite(v) || v < min) {
    const char *got = type == LUA_TNUMBER ? luaL_tolstring(L, -1, NULL) : luaL_typename(L, -1);
    if (isinf(min)) luaL_argerror(L, 2, lua_pushfstring(L, "%s must be a finite number, got %s", k, got));
    luaL_argerror(L, 2, lua_pushfstring(L, "%s must be a finite number >= %f, got %s", k, (lua_Number)min, got));
  }
  lua_pop(L, 1);
  return (float)v;
}

/* Reads option k as a world point or direction (2 or 3 numbers); false when absent. */
static bool joint_vec(lua_State *L, int t, const char *k, int dims, float out[3]) {
  if (lua_getfield(L, t, k) == LUA_TNIL) {
    lua_pop(L, 1);
    return false;
  }
  int v = lua_gettop(L);
  bool ok = ty_is_vec3(L, v) || lua_type(L, v) == LUA_TTABLE;
  out[2] = 0;
  if (ok && ty_is_vec3(L, v)) {
    ty_read_vec3(L, v, out);
    for (int i = 0; ok && i < dims; i++) ok = isfinite(out[i]);
  } else if (ok) {
    ok = lphys_table_vec(L, v, dims, out) < 0;
  }
  if (!ok)
    luaL_argerror(L, 2, lua_pushfstring(L, "%s must be a Vec3 or a table of %d finite numbers, got %s", k, dims,
                                        luaL_typename(L, v)));
  lua_pop(L, 1);
  return true;
}

/* The object of option k (nil allowed when optional), its body built now if it waits. */
static ty_id joint_object(lua_State *L, lworld *w, int t, const char *k, bool optional) {
  int type = lua_getfield(L, t, k);
  if (type == LUA_TNIL && optional) {
    lua_pop(L, 1);
    return 0;
  }
  ty_id id = ty_test_gameobject(L, -1);
  if (!id) luaL_argerror(L, 2, lua_pushfstring(L, "%s must be a GameObject, got %s", k, luaL_typename(L, -1)));
  lworld *bw = NULL;
  if (!lphys_rec_of(L, w->dims, id, &bw)) lphys_build_waiting(L, lua_gettop(L));
  if (!lphys_rec_of(L, w->dims, id, &bw) || bw != w) {
    lua_getfield(L, -1, "name");
    luaL_argerror(L, 2, lua_pushfstring(L, "%s (GameObject '%s') has no body in this world: give it a %s or a collider, in this scene",
                                        k, lua_tostring(L, -1), w->dims == 2 ? "RigidBody2D" : "RigidBody"));
  }
  lua_pop(L, 1);
  return id;
}

/* v rotated by the unit quaternion q. */
static void quat_rotate(const float q[4], const float v[3], float out[3]) {
  float p[4] = {v[0], v[1], v[2], 0}, c[4] = {-q[0], -q[1], -q[2], q[3]}, t[4], r[4];
  lphys_quat_mul(q, p, t);
  lphys_quat_mul(t, c, r);
  out[0] = r[0], out[1] = r[1], out[2] = r[2];
}

/* The frame (p, q) given in the world, seen from the body pose (bp, bq). */
static void to_body_frame(const float bp[3], const float bq[4], const float p[3], const float q[4], float lp[3],
                          float lq[4]) {
  float c[4] = {-bq[0], -bq[1], -bq[2], bq[3]}, d[3] = {p[0] - bp[0], p[1] - bp[1], p[2] - bp[2]};
  quat_rotate(c, d, lp);
  lphys_quat_mul(c, q, lq);
}

/* What a joint's motor and limits measure: 'a' an angle (turning), 'l' a length (sliding),
 * 0 none (the joint has neither). A wheel's motor turns it and its limits bound its travel. */
static char joint_motor_kind(int dims, int kind) {
  if (dims == 2) return kind == TY_JOINT2D_REVOLUTE || kind == TY_JOINT2D_WHEEL ? 'a' : kind == TY_JOINT2D_PRISMATIC ? 'l' : 0;
  return kind == TY_JOINT3D_HINGE ? 'a' : kind == TY_JOINT3D_SLIDER ? 'l' : 0;
}

static char joint_limit_kind(int dims, int kind) {
  return dims == 2 && kind == TY_JOINT2D_WHEEL ? 'l' : joint_motor_kind(dims, kind);
}

/* The joint's drive (motor and limits), the same struct in both worlds. */
static ty_joint2d_drive *joint_drive(joint_rec *jr, int dims) {
  _Static_assert(sizeof(ty_joint2d_drive) == sizeof(ty_joint3d_drive), "one drive layout");
  return dims == 2 ? &jr->desc.d2.drive : (ty_joint2d_drive *)&jr->desc.d3.drive;
}

/* Game units to the engine's for a length (2D: divided by unitsPerMeter), and a motor's
 * speed and most force or torque (a torque is a force times a length). */
static float joint_scale(const lworld *w, char what) {
  float u = w->dims == 2 ? w->upm : 1;
  return what == 'l' ? u : what == 't' ? u * u : 1;
}

/* Reads the motor and limit options into d (engine units); raises on one this joint lacks. */
static void joint_drive_options(lua_State *L, lworld *w, int kind, const char *type, ty_joint2d_drive *d) {
  static const char *const names[] = {"motor", "motorSpeed", "maxMotorTorque", "maxMotorForce", "limit", "lower", "upper"};
  char motor = joint_motor_kind(w->dims, kind), limit = joint_limit_kind(w->dims, kind);
  const char *force = motor == 'a' ? "maxMotorForce" : "maxMotorTorque"; /* the one it does not take */
  for (int i = 0; i < 7; i++) {
    bool has = lua_getfield(L, 2, names[i]) != LUA_TNIL;
    lua_pop(L, 1);
    if (has && ((i < 4 && !motor) || (i >= 4 && !limit)))
      luaL_argerror(L, 2, lua_pushfstring(L, "a %s joint has no %s (%s)", type, i < 4 ? "motor" : "limits", names[i]));
    if (has && strcmp(names[i], force) == 0)
      luaL_argerror(L, 2, lua_pushfstring(L, "a %s joint's motor takes %s, not %s", type,
                                          motor == 'a' ? "maxMotorTorque" : "maxMotorForce", force));
  }
  memset(d, 0, sizeof *d);
  if (!motor) return;
  const char *max = motor == 'a' ? "maxMotorTorque" : "maxMotorForce";
  d->speed = joint_number(L, 2, "motorSpeed", 0, -HUGE_VALF) / joint_scale(w, motor == 'a' ? 0 : 'l');
  d->max_force = joint_number(L, 2, max, 0, 0) / joint_scale(w, motor == 'a' ? 't' : 'l');
  lua_getfield(L, 2, "motor");
  lua_getfield(L, 2, "motorSpeed");
  lua_getfield(L, 2, max);
  d->motor = lua_isnil(L, -3) ? !lua_isnil(L, -2) || !lua_isnil(L, -1) : lua_toboolean(L, -3);
  lua_pop(L, 3);
  float lower = joint_number(L, 2, "lower", 0, -HUGE_VALF), upper = joint_number(L, 2, "upper", 0, -HUGE_VALF);
  if (lower > upper)
    luaL_argerror(L, 2, lua_pushfstring(L, "lower (%f) must not be above upper (%f)", (lua_Number)lower, (lua_Number)upper));
  d->lower = lower / joint_scale(w, limit), d->upper = upper / joint_scale(w, limit);
  lua_getfield(L, 2, "limit");
  lua_getfield(L, 2, "lower");
  lua_getfield(L, 2, "upper");
  d->limit = lua_isnil(L, -3) ? !lua_isnil(L, -2) || !lua_isnil(L, -1) : lua_toboolean(L, -3);
  lua_pop(L, 3);
}

int lphys_joint_new(lua_State *L, lworld *w) {
  luaL_checktype(L, 2, LUA_TTABLE);
  int dims = w->dims;
  lua_getfield(L, 2, "type");
  const char *type = lua_tostring(L, -1);
  int kind = -1;
  for (int i = 0; type && JOINT_TYPES[dims - 2][i]; i++)
    if (strcmp(type, JOINT_TYPES[dims - 2][i]) == 0) kind = i;
  if (kind < 0)
    luaL_argerror(L, 2, lua_pushfstring(L, dims == 2 ? "type must be 'revolute', 'distance', 'weld', 'prismatic' or 'wheel', got %s"
                                                     : "type must be 'fixed', 'hinge', 'point' or 'slider', got %s",
                                        type ? type : luaL_typename(L, -1)));
  lua_pop(L, 1);
  ty_id a = joint_object(L, w, 2, "a", false), b = joint_object(L, w, 2, "b", true);
  if (a == b) luaL_argerror(L, 2, "a and b must be two objects");
  lworld *tmp = NULL;
  body_rec *ra = lphys_rec_of(L, dims, a, &tmp), *rb = b ? lphys_rec_of(L, dims, b, &tmp) : NULL;
  /* The bodies' poses now (game units; 2D at z 0 about Z). */
  float pa[3], qa[4], pb[3] = {0, 0, 0}, qb[4] = {0, 0, 0, 1};
  lphys_body_pose(w, ra, pa, qa);
  if (rb) lphys_body_pose(w, rb, pb, qb);
  float anchor[3] = {pa[0], pa[1], pa[2]}, anchor_b[3], axis[3] = {0, 0, 0};
  joint_vec(L, 2, "anchor", dims, anchor);
  if (!joint_vec(L, 2, "anchorB", dims, anchor_b)) memcpy(anchor_b, rb ? pb : anchor, sizeof anchor_b);
  bool needs_axis = dims == 2 ? kind == TY_JOINT2D_PRISMATIC || kind == TY_JOINT2D_WHEEL
                              : kind == TY_JOINT3D_HINGE || kind == TY_JOINT3D_SLIDER;
  if (needs_axis) {
    if (!joint_vec(L, 2, "axis", dims, axis))
      luaL_argerror(L, 2, lua_pushfstring(L, "a %s joint needs an axis", type));
    float len = sqrtf(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
    if (!(len > 0)) luaL_argerror(L, 2, "axis must not be zero");
    for (int i = 0; i < 3; i++) axis[i] /= len;
  }
  float dx = anchor_b[0] - anchor[0], dy = anchor_b[1] - anchor[1], dz = anchor_b[2] - anchor[2];
  float length = joint_number(L, 2, "length", sqrtf(dx * dx + dy * dy + dz * dz), 0);
  float stiffness = joint_number(L, 2, "stiffness", 0, 0), damping = joint_number(L, 2, "damping", 0, 0);
  lua_getfield(L, 2, "collideConnected");
  bool collide = lua_toboolean(L, -1);
  lua_pop(L, 1);
  ty_joint2d_drive drive;
  joint_drive_options(L, w, kind, type, &drive);

  uint32_t slot = 0; /* a slot an ended joint left, else a new one */
  while (slot < w->joint_count && !w->joints[slot].dead) slot++;
  if (slot == w->joint_count && w->joint_count == w->joint_cap) {
    uint32_t cap = w->joint_cap ? w->joint_cap * 2 : 16;
    joint_rec *js = TY_REALLOC(w->joints, cap * sizeof *js);
    if (!js) return luaL_error(L, "out of memory");
    w->joints = js, w->joint_cap = cap;
  }
  joint_rec jr;
  memset(&jr, 0, sizeof jr);
  jr.a = a, jr.b = b, jr.serial = ++joint_serial;
  if (dims == 2) {
    ty_joint2d_desc *d = &jr.desc.d2;
    float u = w->upm, ca = cosf(lphys_quat_angle_z(qa)), sa = sinf(lphys_quat_angle_z(qa));
    float angle_b = rb ? lphys_quat_angle_z(qb) : 0, cb = cosf(angle_b), sb = sinf(angle_b);
    d->kind = (ty_joint2d_kind)kind;
    /* into a's frame: its rotation undone; b's likewise (the world's is the identity) */
    float ax = anchor[0] - pa[0], ay = anchor[1] - pa[1];
    d->anchor_a[0] = (ca * ax + sa * ay) / u, d->anchor_a[1] = (-sa * ax + ca * ay) / u;
    float bx = (kind == TY_JOINT2D_DISTANCE ? anchor_b[0] : anchor[0]) - pb[0];
    float by = (kind == TY_JOINT2D_DISTANCE ? anchor_b[1] : anchor[1]) - pb[1];
    d->anchor_b[0] = (cb * bx + sb * by) / u, d->anchor_b[1] = (-sb * bx + cb * by) / u;
    d->axis[0] = ca * axis[0] + sa * axis[1], d->axis[1] = -sa * axis[0] + ca * axis[1];
    d->reference_angle = angle_b - lphys_quat_angle_z(qa);
    d->length = length / u;
    d->stiffness = stiffness, d->damping = damping;
    d->collide_connected = collide;
    d->drive = drive;
  } else {
    ty_joint3d_desc *d = &jr.desc.d3;
    d->kind = (ty_joint3d_kind)kind;
    /* the joint's frame in the world: at the anchor, its X axis along axis */
    float q[4] = {0, 0, 0, 1};
    if (needs_axis) {
      float cx = 0, cy = -axis[2], cz = axis[1], dot = axis[0]; /* X cross axis, X dot axis */
      if (dot < -0.9999f) q[0] = 0, q[1] = 0, q[2] = 1, q[3] = 0; /* half a turn about Z */
      else {
        q[0] = cx, q[1] = cy, q[2] = cz, q[3] = 1 + dot;
        float n = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        for (int i = 0; i < 4; i++) q[i] /= n;
      }
    }
    to_body_frame(pa, qa, anchor, q, d->pos_a, d->rot_a);
    to_body_frame(pb, qb, anchor, q, d->pos_b, d->rot_b);
    d->collide_connected = collide;
    memcpy(&d->drive, &drive, sizeof drive);
  }
  if (slot == w->joint_count) w->joint_count++;
  w->joints[slot] = jr;
  joint_rec *rec = &w->joints[slot];
  joint_make(L, w, rec);
  if (!rec->handle) {
    rec->dead = true;
    return luaL_error(L, "too many joints");
  }
  ljoint *j = lua_newuserdatauv(L, sizeof *j, 1);
  j->w = w, j->index = slot, j->serial = rec->serial;
  lua_pushvalue(L, 1);
  lua_setiuservalue(L, -2, 1);
  luaL_setmetatable(L, TY_JOINT);
  return 1;
}


uint32_t lphys_joint_count(const lworld *w) {
  uint32_t n = 0;
  for (uint32_t k = 0; k < w->joint_count; k++) n += !w->joints[k].dead;
  return n;
}

/* joint:destroy(): the joint leaves the world now (a second call does nothing). */
static int joint_destroy(lua_State *L) {
  joint_rec *jr = joint_get(L, 1);
  if (jr) joint_end(((ljoint *)lua_touserdata(L, 1))->w, jr);
  return 0;
}

static int joint_drive_index(lua_State *L, lworld *w, joint_rec *jr, const char *k);

/* The joint's kind (a ty_joint2d_kind or ty_joint3d_kind), and its name. */
static int joint_kind(const lworld *w, const joint_rec *jr) {
  return w->dims == 2 ? (int)jr->desc.d2.kind : (int)jr->desc.d3.kind;
}

static const char *joint_type_name(const lworld *w, const joint_rec *jr) {
  return JOINT_TYPES[w->dims - 2][joint_kind(w, jr)];
}

static int joint_index(lua_State *L) {
  ljoint *j = luaL_checkudata(L, 1, TY_JOINT);
  joint_rec *jr = joint_get(L, 1);
  const char *k = luaL_checkstring(L, 2);
  if (strcmp(k, "destroy") == 0) {
    lua_pushcfunction(L, joint_destroy);
  } else if (strcmp(k, "alive") == 0) {
    lua_pushboolean(L, jr != NULL);
  } else if (!jr) {
    return luaL_error(L, "this joint was destroyed (by joint:destroy() or with one of its objects)");
  } else if (strcmp(k, "type") == 0) {
    lua_pushstring(L, joint_type_name(j->w, jr));
  } else if (strcmp(k, "a") == 0) {
    ty_push_gameobject(L, jr->a);
  } else if (strcmp(k, "b") == 0) {
    ty_push_gameobject(L, jr->b);
  } else {
    return joint_drive_index(L, j->w, jr, k);
  }
  return 1;
}

/* joint.angle (revolute, wheel, hinge), .translation (prismatic, wheel, slider), .motor, .motorSpeed, .maxMotorTorque/.maxMotorForce, .limit,
 * .lower, .upper: nil where the joint has no such thing. */
static int joint_drive_index(lua_State *L, lworld *w, joint_rec *jr, const char *k) {
  char motor = joint_motor_kind(w->dims, joint_kind(w, jr)), limit = joint_limit_kind(w->dims, joint_kind(w, jr));
  const ty_joint2d_drive *d = joint_drive(jr, w->dims);
  bool angle = strcmp(k, "angle") == 0, translation = strcmp(k, "translation") == 0;
  if ((angle && motor == 'a') || (translation && (motor == 'l' || limit == 'l'))) {
    float p = !jr->handle ? 0
              : w->dims == 3 ? ty_joint3d_position(w->w3, jr->handle)
              : angle ? ty_joint2d_angle(w->w2, jr->handle)
                      : ty_joint2d_translation(w->w2, jr->handle);
    lua_pushnumber(L, (double)p * joint_scale(w, angle ? 0 : 'l'));
  } else if (motor && strcmp(k, "motor") == 0) {
    lua_pushboolean(L, d->motor);
  } else if (motor && strcmp(k, "motorSpeed") == 0) {
    lua_pushnumber(L, (double)d->speed * joint_scale(w, motor == 'a' ? 0 : 'l'));
  } else if (motor && strcmp(k, motor == 'a' ? "maxMotorTorque" : "maxMotorForce") == 0) {
    lua_pushnumber(L, (double)d->max_force * joint_scale(w, motor == 'a' ? 't' : 'l'));
  } else if (limit && strcmp(k, "limit") == 0) {
    lua_pushboolean(L, d->limit);
  } else if (limit && (strcmp(k, "lower") == 0 || strcmp(k, "upper") == 0)) {
    lua_pushnumber(L, (double)(k[0] == 'l' ? d->lower : d->upper) * joint_scale(w, limit));
  } else {
    lua_pushnil(L);
  }
  return 1;
}

/* joint.motor = bool, .motorSpeed, .maxMotorTorque/.maxMotorForce, .limit = bool, .lower,
 * .upper: the joint changes now (and keeps the change when it is made again). */
static int joint_newindex(lua_State *L) {
  ljoint *j = luaL_checkudata(L, 1, TY_JOINT);
  joint_rec *jr = joint_get(L, 1);
  const char *k = luaL_checkstring(L, 2);
  if (!jr) return luaL_error(L, "this joint was destroyed (by joint:destroy() or with one of its objects)");
  lworld *w = j->w;
  char motor = joint_motor_kind(w->dims, joint_kind(w, jr)), limit = joint_limit_kind(w->dims, joint_kind(w, jr));
  ty_joint2d_drive *d = joint_drive(jr, w->dims), nd = *d;
  bool is_motor = strcmp(k, "motor") == 0 || strcmp(k, "motorSpeed") == 0 || strcmp(k, "maxMotorTorque") == 0 ||
                  strcmp(k, "maxMotorForce") == 0;
  bool is_limit = strcmp(k, "limit") == 0 || strcmp(k, "lower") == 0 || strcmp(k, "upper") == 0;
  if ((is_motor && !motor) || (is_limit && !limit))
    return luaL_error(L, "a %s joint has no %s (Joint.%s)", joint_type_name(w, jr), is_motor ? "motor" : "limits", k);
  if (!is_motor && !is_limit) return luaL_error(L, "Joint.%s cannot be set", k);
  if (strcmp(k, "motor") == 0 || strcmp(k, "limit") == 0) {
    luaL_checktype(L, 3, LUA_TBOOLEAN);
    *(k[0] == 'm' ? &nd.motor : &nd.limit) = lua_toboolean(L, 3);
  } else {
    int isnum;
    lua_Number v = lua_tonumberx(L, 3, &isnum);
    bool max = strncmp(k, "maxMotor", 8) == 0;
    if (max && strcmp(k, motor == 'a' ? "maxMotorTorque" : "maxMotorForce") != 0)
      return luaL_error(L, "a %s joint's motor takes %s, not %s", joint_type_name(w, jr),
                        motor == 'a' ? "maxMotorTorque" : "maxMotorForce", k);
    if (!isnum || !isfinite(v) || (max && v < 0))
      return luaL_error(L, "Joint.%s must be a finite number%s, got %s", k, max ? " >= 0" : "",
                        isnum ? lua_tostring(L, 3) : luaL_typename(L, 3));
    if (strcmp(k, "motorSpeed") == 0) nd.speed = (float)v / joint_scale(w, motor == 'a' ? 0 : 'l');
    else if (max) nd.max_force = (float)v / joint_scale(w, motor == 'a' ? 't' : 'l');
    else *(k[0] == 'l' ? &nd.lower : &nd.upper) = (float)v / joint_scale(w, limit);
    if (nd.lower > nd.upper)
      return luaL_error(L, "Joint.%s: lower (%f) must not be above upper (%f)", k, (lua_Number)nd.lower * joint_scale(w, limit),
                        (lua_Number)nd.upper * joint_scale(w, limit));
  }
  *d = nd;
  if (jr->handle && w->dims == 2) ty_joint2d_set_drive(w->w2, jr->handle, d);
  else if (jr->handle) ty_joint3d_set_drive(w->w3, jr->handle, (const ty_joint3d_drive *)d);
  return 0;
}

static int joint_tostring(lua_State *L) {
  ljoint *j = luaL_checkudata(L, 1, TY_JOINT);
  joint_rec *jr = joint_get(L, 1);
  if (!jr) lua_pushliteral(L, "Joint (destroyed)");
  else lua_pushfstring(L, "Joint (%s)", joint_type_name(j->w, jr));
  return 1;
}

void lphys_joints_end(lworld *w, ty_id go) {
  for (uint32_t k = 0; k < w->joint_count; k++)
    if (!w->joints[k].dead && (w->joints[k].a == go || w->joints[k].b == go)) joint_end(w, &w->joints[k]);
}

void lphys_open_joints(lua_State *L) {
  static const luaL_Reg meta[] = {
      {"__index", joint_index}, {"__newindex", joint_newindex}, {"__tostring", joint_tostring}, {NULL, NULL}};
  ty_type_register(L, TY_JOINT, meta, NULL);
}
