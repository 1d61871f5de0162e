/* bindings/bindings.h: what the Lua bindings share. Each bindings/lua_*.c opens one
 * engine module into the `tycho` table and exports a ty_check_<type> per type it owns. */
#ifndef TY_BINDINGS_H
#define TY_BINDINGS_H

#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>

#include "common.h"

/* Metatable names (luaL_newmetatable sets __name, so error messages read "Vec3"). */
#define TY_VEC3 "Vec3"
#define TY_QUAT "Quat"
#define TY_MAT4 "Mat4"

/* A Vec3 or Quat either owns its floats (view == TY_VIEW_NONE) or is a live view of a
 * GameObject's transform: reads and writes go through ty_view_resolve, which checks that
 * the object still exists and marks the transform touched on write. */
typedef enum ty_view_kind {
  TY_VIEW_NONE = 0,
  TY_VIEW_POSITION,       /* local position, writable */
  TY_VIEW_ROTATION,       /* local rotation, writable */
  TY_VIEW_SCALE,          /* local scale, writable */
  TY_VIEW_WORLD_POSITION, /* read-only */
  TY_VIEW_WORLD_ROTATION, /* read-only */
  TY_VIEW_WORLD_SCALE,    /* read-only */
} ty_view_kind;

typedef struct ty_vec {
  float v[4];      /* owned components (x y z for Vec3, x y z w for Quat) */
  uint32_t owner;  /* GameObject id when view != TY_VIEW_NONE */
  uint8_t view;    /* ty_view_kind */
} ty_vec;

/* Returns the floats a Vec3/Quat stands for: its own v, or the viewed transform's (world
 * views are brought up to date first). Raises a Lua error when the owner was destroyed,
 * or when write is true on a read-only view. Implemented in lua_scene.c. */
float *ty_view_resolve(lua_State *L, ty_vec *u, bool write);

/* lua_math.c */
ty_vec *ty_check_vec3(lua_State *L, int idx);
ty_vec *ty_check_quat(lua_State *L, int idx);
float *ty_check_mat4(lua_State *L, int idx);          /* 16 floats, column-major */
ty_vec *ty_push_vec3(lua_State *L, float x, float y, float z);
ty_vec *ty_push_quat(lua_State *L, float x, float y, float z, float w);
float *ty_push_mat4(lua_State *L, const float m[16]); /* m may be NULL for identity */
ty_vec *ty_push_view(lua_State *L, uint32_t owner, ty_view_kind view); /* Vec3 or Quat by kind */
/* Reads a Vec3 argument (owned or view) into out[3]. */
void ty_read_vec3(lua_State *L, int idx, float out[3]);
void ty_read_quat(lua_State *L, int idx, float out[4]);

/* Openers: each adds its names to the table on top of the stack. */
void ty_open_math(lua_State *L);
void ty_open_scene(lua_State *L);
void ty_open_time(lua_State *L);
void ty_open_host(lua_State *L);
void ty_open_crdt(lua_State *L); /* lua_crdt.c: tycho.crdt */
void ty_open_input(lua_State *L); /* lua_input.c: tycho.input */
void ty_open_sandbox(lua_State *L); /* lua_sandbox.c: tycho.sandbox */
void ty_open_json(lua_State *L);  /* lua_json.c: tycho.json */
void ty_open_storage(lua_State *L); /* lua_storage.c: tycho.storage */
void ty_open_render(lua_State *L); /* lua_render.c: tycho.mesh, material, texture, _render */
void ty_open_net(lua_State *L);    /* lua_net.c: tycho.net, the WebSocket client */
void ty_open_watch(lua_State *L);  /* lua_watch.c: tycho._watch, the file watcher hot reload polls */
void ty_open_voxel(lua_State *L);  /* lua_voxel.c: tycho.voxel (block grids, meshing), tycho.ui */

#endif
