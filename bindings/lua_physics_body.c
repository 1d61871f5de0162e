/* bindings/lua_physics_body.c: what the body calls of tycho._physics (2D) and
 * tycho._physics3d share: the start and end of createBody, the checks that find a body, and
 * the calls that differ between the dimensions only in the engine calls they make (hasBody,
 * destroyBody, get, apply), each with its dimension as an upvalue. */
#include "lua_physics_world.h"

#include <string.h>

lworld *lphys_body_begin(lua_State *L, int dims, lphys_new_body *nb) {
  lworld *w = lphys_check_world(L, 1, dims);
  nb->id = ty_check_gameobject(L, 2);
  luaL_checktype(L, 3, LUA_TTABLE);
  if (dims == 3) luaL_checktype(L, 4, LUA_TTABLE);
  lworld *old = NULL;
  if (lphys_rec_of(L, dims, nb->id, &old)) luaL_error(L, "GameObject already has a %dD body", dims);
  ty_world *W = lphys_world_of(L);
  ty_lua_world_matrix(L, nb->id); /* reads back its chain's tables */
  ty_transforms *T = ty_world_transforms(W);
  nb->xf = ty_object_transform(W, nb->id);
  lua_getfield(L, 3, "type");
  nb->type = lua_isstring(L, -1) ? lphys_check_type(L, 3, lua_tostring(L, -1)) : TY_BODY_DYNAMIC;
  lua_pop(L, 1);
  ty_transform_world_position(T, nb->xf, nb->pos);
  ty_transform_world_rotation(T, nb->xf, nb->rot);
  nb->linear_damping = lphys_opt_number(L, 3, "linearDamping", 0);
  nb->angular_damping = lphys_opt_number(L, 3, "angularDamping", 0);
  nb->gravity_scale = lphys_opt_number(L, 3, "gravityScale", 1);
  lua_getfield(L, 3, "lockRotation");
  nb->lock_rotation = lua_toboolean(L, -1);
  lua_getfield(L, 3, "bullet");
  nb->bullet = lua_toboolean(L, -1);
  lua_pop(L, 2);
  return w;
}

int lphys_body_end(lua_State *L, lworld *w, uint32_t b, const lphys_new_body *nb) {
  lphys_add_rec(L, w, b, nb->type, nb->id, nb->xf);
  lua_getfield(L, 3, "interpolate");
  w->recs[w->count - 1].interpolate = lua_isnil(L, -1) || lua_toboolean(L, -1);
  lua_pop(L, 1);
  lua_pushboolean(L, 1);
  return 1;
}

body_rec *lphys_check_body(lua_State *L, int idx, int dims, lworld **w) {
  ty_id id = ty_check_gameobject(L, idx);
  body_rec *r = lphys_rec_of(L, dims, id, w);
  if (!r) luaL_error(L, "GameObject has no %dD body", dims);
  return r;
}

void lphys_set_interpolate(lua_State *L, body_rec *r, bool on) {
  r->interpolate = on;
  if (!on) lphys_clear_offset(L, r), r->stepped = false;
}

static int upvalue_dims(lua_State *L) { return (int)lua_tointeger(L, lua_upvalueindex(1)); }

/* P.hasBody(go id) -> whether the object has a body of the table's dimension. */
static int p_has_body(lua_State *L) {
  lworld *w = NULL;
  lua_pushboolean(L, lphys_rec_of(L, upvalue_dims(L), (ty_id)luaL_checkinteger(L, 1), &w) != NULL);
  return 1;
}

/* P.destroyBody(go id) -> the velocities the body had (2D: vx, vy, w; 3D: velocity and
 * angularVelocity, Vec3s), or nothing when it had none. */
static int p_destroy_body(lua_State *L) {
  int dims = upvalue_dims(L);
  lphys_commit_views(L);
  ty_id id = (ty_id)luaL_checkinteger(L, 1);
  lworld *w = NULL;
  body_rec *r = lphys_rec_of(L, dims, id, &w);
  if (!r) return 0;
  float v[3], av[3];
  if (dims == 2) {
    ty_body2d_velocity(w->w2, r->body, v);
    av[0] = ty_body2d_angular_velocity(w->w2, r->body);
  } else {
    ty_body3d_velocity(w->w3, r->body, v);
    ty_body3d_angular_velocity(w->w3, r->body, av);
  }
  lphys_remove_rec(L, w, (uint32_t)(r - w->recs));
  if (dims == 3) {
    ty_push_vec3(L, v[0], v[1], v[2]);
    ty_push_vec3(L, av[0], av[1], av[2]);
    return 2;
  }
  lua_pushnumber(L, v[0] * w->upm);
  lua_pushnumber(L, v[1] * w->upm);
  lua_pushnumber(L, av[0]);
  return 3;
}

/* Pushes where r's object is drawn this frame (its world position after any render
 * offset: between the last two steps under a Loop). */
static void push_render_position(lua_State *L, body_rec *r) {
  ty_lua_world_matrix(L, r->go); /* reads back its chain's tables */
  const float *m = ty_transform_render_world(ty_world_transforms(lphys_world_of(L)), r->xf);
  ty_push_vec3(L, m[12], m[13], m[14]);
}

/* P.get(go, key) -> value: velocity (a live Vec3), angularVelocity (a number in 2D, a live
 * Vec3 in 3D), sleeping, mass, renderPosition. */
static int p_get(lua_State *L) {
  int dims = upvalue_dims(L);
  lworld *w = NULL;
  body_rec *r = lphys_check_body(L, 1, dims, &w);
  const char *k = luaL_checkstring(L, 2);
  if (strcmp(k, "velocity") == 0) {
    ty_push_view(L, r->go, dims == 2 ? TY_VIEW_VELOCITY_2D : TY_VIEW_VELOCITY_3D);
  } else if (strcmp(k, "angularVelocity") == 0 && dims == 3) {
    ty_push_view(L, r->go, TY_VIEW_ANGULAR_3D);
  } else if (strcmp(k, "angularVelocity") == 0) {
    lphys_commit_views(L);
    lua_pushnumber(L, ty_body2d_angular_velocity(w->w2, r->body));
  } else if (strcmp(k, "sleeping") == 0) {
    lua_pushboolean(L, !lphys_awake(w, r));
  } else if (strcmp(k, "mass") == 0) {
    lua_pushnumber(L, dims == 2 ? ty_body2d_mass(w->w2, r->body) : ty_body3d_mass(w->w3, r->body));
  } else if (strcmp(k, "renderPosition") == 0) {
    push_render_position(L, r);
  } else {
    return luaL_argerror(L, 2, "unknown body field");
  }
  return 1;
}

/* P.apply(go, "force"|"impulse", v): v in game units (2D: {x, y}, divided by unitsPerMeter). */
static int p_apply(lua_State *L) {
  int dims = upvalue_dims(L);
  lphys_commit_views(L);
  lworld *w = NULL;
  body_rec *r = lphys_check_body(L, 1, dims, &w);
  const char *k = luaL_checkstring(L, 2);
  float v[3];
  lphys_check_vec(L, 3, dims, v);
  bool force = strcmp(k, "force") == 0;
  if (dims == 3 && force) ty_body3d_apply_force(w->w3, r->body, v);
  else if (dims == 3) ty_body3d_apply_impulse(w->w3, r->body, v);
  else if (force) ty_body2d_apply_force(w->w2, r->body, v[0] / w->upm, v[1] / w->upm);
  else ty_body2d_apply_impulse(w->w2, r->body, v[0] / w->upm, v[1] / w->upm);
  return 0;
}

void lphys_open_body_common(lua_State *L, int dims) {
  static const luaL_Reg fns[] = {{"hasBody", p_has_body}, {"destroyBody", p_destroy_body},
                                 {"get", p_get},          {"apply", p_apply},
                                 {NULL, NULL}};
  lua_pushinteger(L, dims);
  luaL_setfuncs(L, fns, 1);
}
