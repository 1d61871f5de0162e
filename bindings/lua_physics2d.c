/* bindings/lua_physics2d.c: tycho._physics's own calls, for the 2D components of
 * scripts/tycho/physics.lua (RigidBody2D and its colliders): a Box2D body at its object's
 * world pose, its shapes and the fields set on it. Lengths and speeds are
 * game units here, meters times the world's unitsPerMeter in Box2D. destroyBody, get,
 * apply and hasBody are lua_physics_body.c's. */
#include "lua_physics_world.h"

#include <math.h>
#include <string.h>

/* P.createBody(world, go, opts) -> true: a body at go's world pose. opts (checked by the
 * component) hold type, linearDamping, angularDamping, gravityScale, lockRotation, bullet,
 * interpolate. */
static int p_create_body(lua_State *L) {
  lphys_new_body nb;
  lworld *w = lphys_body_begin(L, 2, &nb);
  ty_body2d_desc d = {0};
  d.type = nb.type;
  d.x = nb.pos[0] / w->upm, d.y = nb.pos[1] / w->upm, d.angle = lphys_quat_angle_z(nb.rot);
  d.linear_damping = nb.linear_damping;
  d.angular_damping = nb.angular_damping;
  d.gravity_scale = nb.gravity_scale;
  d.no_gravity = d.gravity_scale == 0;
  d.fixed_rotation = nb.lock_rotation;
  d.bullet = nb.bullet;
  d.user = nb.id;
  ty_body2d b = ty_body2d_create(w->w2, &d);
  if (!b) luaL_error(L, "too many 2D bodies");
  return lphys_body_end(L, w, b, &nb);
}

/* P.addShape(go, opts): opts = {kind=, size=, center=, radius=, points=, trigger=,
 * friction=, restitution=}, sizes in the object's units (scaled here by its world scale). */
static int p_add_shape(lua_State *L) {
  lworld *w = NULL;
  body_rec *r = lphys_check_body(L, 1, 2, &w);
  luaL_checktype(L, 2, LUA_TTABLE);
  float s[3];
  ty_transform_world_scale(ty_world_transforms(lphys_world_of(L)), r->xf, s);
  float sx = fabsf(s[0]) / w->upm, sy = fabsf(s[1]) / w->upm;
  ty_shape2d_desc d = {0};
  lua_getfield(L, 2, "kind");
  const char *kind = luaL_checkstring(L, -1);
  lua_pop(L, 1);
  d.cx = lphys_opt_number(L, 2, "cx", 0) * sx;
  d.cy = lphys_opt_number(L, 2, "cy", 0) * sy;
  if (strcmp(kind, "box") == 0) {
    d.kind = TY_SHAPE2D_BOX;
    d.hx = lphys_opt_number(L, 2, "w", 1) * 0.5f * sx;
    d.hy = lphys_opt_number(L, 2, "h", 1) * 0.5f * sy;
  } else if (strcmp(kind, "circle") == 0) {
    d.kind = TY_SHAPE2D_CIRCLE;
    d.radius = lphys_opt_number(L, 2, "radius", 0.5f) * (sx > sy ? sx : sy);
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
  d.friction = lphys_opt_number(L, 2, "friction", 0.5f);
  d.restitution = lphys_opt_number(L, 2, "restitution", 0);
  lua_getfield(L, 2, "trigger");
  d.trigger = lua_toboolean(L, -1);
  lua_pop(L, 1);
  d.layer = (uint32_t)lphys_opt_bits(L, 2, "layerBits");
  d.mask = (uint32_t)lphys_opt_bits(L, 2, "maskBits");
  lua_pushboolean(L, ty_shape2d_create(w->w2, r->body, &d) != 0);
  return 1;
}

/* P.set(go, key, value): velocity ({x,y}), angularVelocity, mass, damping (l, a),
 * gravityScale, lockRotation, bullet, type, awake, interpolate */
static int p_set(lua_State *L) {
  lphys_commit_views(L);
  lworld *w = NULL;
  body_rec *r = lphys_check_body(L, 1, 2, &w);
  const char *k = luaL_checkstring(L, 2);
  if (strcmp(k, "velocity") == 0) {
    float v[2];
    lphys_check_vec(L, 3, 2, v);
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
    r->type = lphys_check_type(L, 3, luaL_checkstring(L, 3));
    ty_body2d_set_type(w->w2, r->body, r->type);
  } else if (strcmp(k, "awake") == 0) {
    ty_body2d_set_awake(w->w2, r->body, lua_toboolean(L, 3));
  } else if (strcmp(k, "interpolate") == 0) {
    lphys_set_interpolate(L, r, lua_toboolean(L, 3));
  } else {
    return luaL_argerror(L, 2, "unknown body field");
  }
  return 0;
}

void lphys_open_body2d(lua_State *L) {
  static const luaL_Reg fns[] = {
      {"createBody", p_create_body}, {"addShape", p_add_shape}, {"set", p_set}, {NULL, NULL}};
  luaL_newlib(L, fns);
}
