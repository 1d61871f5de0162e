/* bindings/lua_physics.c: the Lua face of engine/physics, its top: the World2D and World3D
 * types (scene.physics2d and scene.physics, their fields and methods), the scene's hooks
 * (ty_ctx.physics), and the opener of tycho._physics (2D) and tycho._physics3d, the body
 * calls behind the component classes of scripts/tycho/physics.lua. It wires the parts below
 * it; lua_physics_world.h says which file holds each, over lua_physics_world.c, the worlds
 * and their records that every part stands on. Game units are meters times unitsPerMeter. */
#include "lua_physics.h"
#include "lua_physics_world.h"

#include <math.h>
#include <string.h>

/* ty_ctx.physics's forget: a destroyed object's bodies go, and its joints end for good. */
void ty_lua_physics_forget(lua_State *L, ty_id id) {
  for (int dims = 2; dims <= 3; dims++) {
    lworld *w = NULL;
    body_rec *r = lphys_rec_of(L, dims, id, &w);
    if (!r) continue;
    lphys_remove_rec(L, w, (uint32_t)(r - w->recs));
    lphys_joints_end(w, id);
  }
}

/* ---- the World2D and World3D types ---- */

/* The worlds' methods, one per dimension so that each checks its own type. */
static int world2d_raycast(lua_State *L) { return lphys_raycast(L, lphys_check_world(L, 1, 2)); }
static int world3d_raycast(lua_State *L) { return lphys_raycast(L, lphys_check_world(L, 1, 3)); }
static int world2d_raycast_batch(lua_State *L) { return lphys_raycast_batch(L, lphys_check_world(L, 1, 2)); }
static int world3d_raycast_batch(lua_State *L) { return lphys_raycast_batch(L, lphys_check_world(L, 1, 3)); }
static int world2d_joint(lua_State *L) { return lphys_joint_new(L, lphys_check_world(L, 1, 2)); }
static int world3d_joint(lua_State *L) { return lphys_joint_new(L, lphys_check_world(L, 1, 3)); }

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
    luaL_error(L, "%s.%s cannot be set", lphys_world_types[dims - 2], k);
  }
  return 0;
}

static int world_tostring(lua_State *L, int dims) {
  lworld *w = luaL_checkudata(L, 1, lphys_world_types[dims - 2]);
  lua_pushfstring(L, "%s (%d bodies)", lphys_world_types[dims - 2], (int)w->count);
  return 1;
}

static int world2d_index(lua_State *L) { return world_index(L, 2); }
static int world3d_index(lua_State *L) { return world_index(L, 3); }
static int world2d_newindex(lua_State *L) { return world_newindex(L, 2); }
static int world3d_newindex(lua_State *L) { return world_newindex(L, 3); }
static int world2d_tostring(lua_State *L) { return world_tostring(L, 2); }
static int world3d_tostring(lua_State *L) { return world_tostring(L, 3); }

/* ---- physics.lua's waiting list ---- */

/* P.setFlush(flush, mark, maskBits): flush(scene) builds the bodies waiting in that scene,
 * mark(go) puts an object back on the waiting list, maskBits(v, argn, fname) reads a
 * raycast's mask (physics.lua). */
static int p_set_flush(lua_State *L) {
  lphys_commit_views(L);
  lphys_set_lua_calls(L);
  return 0;
}

/* P.setWaiting(bool): whether physics.lua's waiting list holds any object. */
static int p_set_waiting(lua_State *L) {
  lphys_set_waiting(L, lua_toboolean(L, 1));
  return 0;
}

/* ---- opening ---- */

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
  lphys_open_records(L);
  ty_ctx_get(L)->physics = &scene_hooks;

  static const luaL_Reg world_meta[2][5] = {
      {{"__index", world2d_index}, {"__newindex", world2d_newindex}, {"__gc", lphys_world_gc},
       {"__tostring", world2d_tostring}, {NULL, NULL}},
      {{"__index", world3d_index}, {"__newindex", world3d_newindex}, {"__gc", lphys_world_gc},
       {"__tostring", world3d_tostring}, {NULL, NULL}}};
  for (int i = 0; i < 2; i++) ty_type_register(L, lphys_world_types[i], world_meta[i], NULL);
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
