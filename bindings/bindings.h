/* bindings/bindings.h: what the Lua bindings share. Each bindings/lua_*.c opens one
 * engine module into the `tycho` table and exports a ty_check_<type> per type it owns. */
#ifndef TY_BINDINGS_H
#define TY_BINDINGS_H

#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>

#include "common.h"
#include "lua_floor.h" /* Required for: the context, types, ty_pcall, ty_fail */

/* Metatable names (luaL_newmetatable sets __name, so error messages read "Vec3"). */
#define TY_VEC3 "Vec3"
#define TY_QUAT "Quat"
#define TY_MAT4 "Mat4"

/* A userdata Vec3 or Quat either owns its floats (view == TY_VIEW_NONE) or is a live,
 * read-only view of a GameObject's world transform, resolved through ty_view_resolve. A
 * GameObject's local position, rotation and scale are plain Lua tables instead (see
 * lua_math.c); the kinds below name them too, for the scene binding's bookkeeping. */
typedef enum ty_view_kind {
  TY_VIEW_NONE = 0,
  TY_VIEW_POSITION,       /* local position: a table */
  TY_VIEW_ROTATION,       /* local rotation: a table */
  TY_VIEW_SCALE,          /* local scale: a table */
  TY_VIEW_WORLD_POSITION, /* read-only view */
  TY_VIEW_WORLD_ROTATION, /* read-only view */
  TY_VIEW_WORLD_SCALE,    /* read-only view */
  TY_VIEW_VELOCITY_2D,    /* a 2D body's velocity, live and writable (lua_physics_view.c) */
  TY_VIEW_VELOCITY_3D,    /* a 3D body's velocity, live and writable */
  TY_VIEW_ANGULAR_3D,     /* a 3D body's angular velocity, live and writable */
} ty_view_kind;

typedef struct ty_vec {
  float v[4];      /* owned components (x y z for Vec3, x y z w for Quat) */
  uint32_t owner;  /* GameObject id when view != TY_VIEW_NONE */
  uint8_t view;    /* ty_view_kind */
} ty_vec;

/* What a view stands for is known to the binding that owns GameObjects, not to lua_math.c:
 * that binding puts these in the state's context (ty_ctx.views), and math calls them there.
 * resolve returns the floats a view stands for, brought up to date; it raises when the owner
 * was destroyed, or when write is true and the view is read-only. dead raises the
 * destroyed-owner error for the view or dead local table at idx. */
typedef struct ty_view_ops {
  float *(*resolve)(lua_State *L, ty_vec *u, bool write);
  int (*dead)(lua_State *L, int idx);
} ty_view_ops;

/* What the scene binding asks of physics, which it knows nothing of: the physics binding
 * puts these in the state's context (ty_ctx.physics) when it opens, and the scene calls
 * them there (nothing happens, and scene.physics2d is nil, in a state without physics).
 * step: the physics phase, before any physics hook (bodies waiting are built, the scene's
 * worlds take moved transforms, step by dt and write dynamic bodies back). contacts: the
 * postPhysics phase, before any postPhysics hook (the last step's contacts reach both
 * objects' components). forget: at the sweep, object id leaves its world. interpolate:
 * once per rendered frame of a fixed-step Loop, bodies drawn alpha of the way between
 * their last two poses. push_world: pushes the scene's world of dims (2 or 3), made on
 * first use. view: the floats of a body velocity view (TY_VIEW_VELOCITY_2D, ...). */
struct ty_scene;
typedef struct ty_physics_ops {
  void (*step)(lua_State *L, int scene_idx, struct ty_scene *S, double dt);
  void (*contacts)(lua_State *L, int scene_idx, struct ty_scene *S);
  void (*forget)(lua_State *L, uint32_t id);
  void (*interpolate)(lua_State *L, int scene_idx, double alpha);
  void (*push_world)(lua_State *L, int scene_idx, int dims);
  float *(*view)(lua_State *L, ty_vec *u, bool write);
} ty_physics_ops;

/* lua_math.c */
float *ty_check_mat4(lua_State *L, int idx);          /* 16 floats, column-major */
ty_vec *ty_test_vec3(lua_State *L, int idx);          /* a userdata Vec3 (owned or a view), else NULL */
ty_vec *ty_push_vec3(lua_State *L, float x, float y, float z);
ty_vec *ty_push_quat(lua_State *L, float x, float y, float z, float w);
float *ty_push_mat4(lua_State *L, const float m[16]); /* m may be NULL for identity */
ty_vec *ty_push_view(lua_State *L, uint32_t owner, ty_view_kind view); /* a world or body kind */
/* Pushes a new local table {x=, y=, z=[, w=]} (n = 3: Vec3, 4: Quat) holding v. */
void ty_push_local(lua_State *L, const float *v, int n);
/* Pushes a new Vec3 in table form {x=, y=, z=}, with the methods and operators of a local
 * table but owned by no GameObject: its fields keep full double precision, for results
 * that must round-trip exactly (camera:screenToWorld). */
void ty_push_vec3_table(lua_State *L, double x, double y, double z);
/* Empties the local table at idx and gives it the metatable whose every access raises. */
void ty_kill_local(lua_State *L, int idx);
/* Any form of Vec3 (owned, world view, local table; a dead local table too) at idx? */
bool ty_is_vec3(lua_State *L, int idx);
bool ty_is_quat(lua_State *L, int idx);
/* Reads a Vec3/Quat argument of any form; raises a type error for anything else. */
void ty_read_vec3(lua_State *L, int idx, float out[3]);
void ty_read_quat(lua_State *L, int idx, float out[4]);
/* Writes into a Vec3/Quat argument (owned or local table); raises on a world view. */
void ty_write_vec3(lua_State *L, int idx, const float in[3]);
void ty_write_quat(lua_State *L, int idx, const float in[4]);

/* Openers: each adds its names to the table on top of the stack. */
void ty_open_math(lua_State *L);
void ty_open_scene(lua_State *L);
void ty_open_time(lua_State *L);  /* lua_time.c: the Time type (scene.time) */
void ty_open_loop(lua_State *L);  /* lua_loop.c: tycho.Loop */
void ty_open_host(lua_State *L);
void ty_open_crdt(lua_State *L); /* lua_crdt.c: tycho.crdt */
void ty_open_input(lua_State *L); /* lua_input.c: tycho.input */
void ty_open_sandbox(lua_State *L); /* lua_sandbox.c: tycho.sandbox */
void ty_open_json(lua_State *L);  /* lua_json.c: tycho.json */
void ty_open_storage(lua_State *L); /* lua_storage.c: tycho.storage */
void ty_open_render(lua_State *L); /* lua_render*.c: tycho.mesh, material, texture, _render */
void ty_open_net(lua_State *L);    /* lua_net.c: tycho.net, the WebSocket client */
void ty_open_watch(lua_State *L);  /* lua_watch.c: tycho._watch, the file watcher hot reload polls */
void ty_open_voxel(lua_State *L);  /* lua_voxel.c: tycho.voxel (block grids, meshing) */
void ty_open_ui(lua_State *L);     /* lua_ui.c: tycho.ui (the screen-space layer) */
void ty_open_terrain(lua_State *L); /* lua_terrain.c: tycho.terrain (the world from a seed) */
void ty_open_text(lua_State *L);    /* lua_text.c: tycho.font */
void ty_open_draw(lua_State *L);    /* lua_draw.c: tycho.draw (after tycho.font and the renderer) */
void ty_open_audio(lua_State *L);   /* lua_audio.c: tycho.audio, tycho._audio (the components' sources) */

#endif
