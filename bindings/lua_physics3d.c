/* bindings/lua_physics3d.c: tycho._physics3d's own calls, for the 3D components of
 * scripts/tycho/physics.lua (RigidBody and its colliders): a Bullet body made at once with all
 * its object's colliders, at the object's world pose, and the fields set on it.
 * destroyBody, get, apply and hasBody are lua_physics_body.c's. */
#include "lua_physics_world.h"

#include <math.h>
#include <string.h>

/* Reads number field k of the table at t into out[n] (a {x=, y=, z=} table). */
static void vec_field(lua_State *L, int t, const char *k, float *out, int n) {
  static const char *const axes[3] = {"x", "y", "z"};
  if (lua_getfield(L, t, k) == LUA_TTABLE)
    for (int i = 0; i < n; i++) out[i] = lphys_opt_number(L, lua_gettop(L), axes[i], out[i]);
  lua_pop(L, 1);
}

/* P3.createBody(world, go, opts, shapes) -> true or false (a shape refused): opts as the
 * RigidBody's, shapes = {{kind=, size=, center=, radius=, height=, vertices=, indices=}, ...}
 * in the object's units (scaled here by its world scale). A trigger shape makes the whole
 * body a trigger. */
static int p3_create_body(lua_State *L) {
  lphys_new_body nb;
  lworld *w = lphys_body_begin(L, 3, &nb);
  ty_body3d_desc d = {0};
  d.type = nb.type;
  memcpy(d.position, nb.pos, sizeof d.position);
  memcpy(d.rotation, nb.rot, sizeof d.rotation);
  d.mass = lphys_opt_number(L, 3, "mass", 1);
  d.friction = lphys_opt_number(L, 3, "friction", 0.5f);
  d.restitution = lphys_opt_number(L, 3, "restitution", 0);
  d.linear_damping = nb.linear_damping;
  d.angular_damping = nb.angular_damping;
  d.gravity_scale = nb.gravity_scale;
  d.lock_rotation = nb.lock_rotation;
  d.ccd = nb.bullet;
  d.layer = (uint32_t)lphys_opt_bits(L, 3, "layerBits");
  d.mask = (uint32_t)lphys_opt_bits(L, 3, "maskBits");
  d.user = nb.id;
  float sc[3];
  ty_transform_world_scale(ty_world_transforms(lphys_world_of(L)), nb.xf, sc);
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
      sd->radius = lphys_opt_number(L, t, "radius", 0.5f) * smax;
    } else if (strcmp(kind, "capsule") == 0) {
      sd->kind = TY_SHAPE3D_CAPSULE;
      sd->radius = lphys_opt_number(L, t, "radius", 0.5f) * sxz;
      sd->height = lphys_opt_number(L, t, "height", 2) * sc[1];
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
  return lphys_body_end(L, w, b, &nb);
}

/* P3.set(go, key, value): velocity, angularVelocity (Vec3s), awake, interpolate */
static int p3_set(lua_State *L) {
  lphys_commit_views(L);
  lworld *w = NULL;
  body_rec *r = lphys_check_body(L, 1, 3, &w);
  const char *k = luaL_checkstring(L, 2);
  if (strcmp(k, "awake") == 0) {
    ty_body3d_wake(w->w3, r->body);
    return 0;
  }
  if (strcmp(k, "interpolate") == 0) {
    lphys_set_interpolate(L, r, lua_toboolean(L, 3));
    return 0;
  }
  float v[3];
  lphys_check_vec(L, 3, 3, v);
  if (strcmp(k, "velocity") == 0) ty_body3d_set_velocity(w->w3, r->body, v);
  else if (strcmp(k, "angularVelocity") == 0) ty_body3d_set_angular_velocity(w->w3, r->body, v);
  else return luaL_argerror(L, 2, "unknown body field");
  return 0;
}

void lphys_open_body3d(lua_State *L) {
  static const luaL_Reg fns[] = {
      {"createBody", p3_create_body}, {"set", p3_set}, {NULL, NULL}};
  luaL_newlib(L, fns);
}
