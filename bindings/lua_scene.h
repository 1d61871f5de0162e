/* bindings/lua_scene.h: the scene binding's per-state context, shared with the other
 * bindings that reach GameObjects (math views, the host, later render and sync). */
#ifndef TY_LUA_SCENE_H
#define TY_LUA_SCENE_H

#include "bindings.h"
#include "core/scene.h"
#include "core/time.h"

#define TY_GAMEOBJECT "GameObject"
#define TY_SCENE "Scene"

/* One per Lua state, reached through lua_getextraspace. */
typedef struct ty_lctx {
  ty_world *world;
  int instances;        /* registry ref: ref -> component instance */
  int objects;          /* registry ref: entity number -> GameObject userdata */
  int scenes;           /* registry ref: weak map lightuserdata(ty_scene) -> Scene userdata */
  int dead_views;       /* registry ref: weak map transform view -> name of its destroyed owner */
  lua_State *L;         /* the main thread: the transforms' pull hook reads tables through it */
  int locals;           /* registry ref: array of every live local position/rotation/scale table */
  struct ty_local_ref *local_refs; /* parallel to locals: whose table each is */
  uint32_t local_count, local_cap;
  uint32_t locals_epoch; /* bumped whenever a table joins or leaves locals (slots change) */
  struct ty_go **gos;   /* entity number -> its GameObject userdata (NULL once forgotten) */
  uint32_t gos_cap;
  uint32_t class_epoch; /* bumped whenever a component class is declared again or grows */
  uint32_t hooks_epoch; /* the epoch every component's hook mask was computed at */
  uint64_t errors_caught; /* errors scenes caught in hooks since tycho.stats.reset() */
} ty_lctx;

/* The scene's part of the state's context (NULL once the state is closing). */
static inline ty_lctx *ty_lctx_get(lua_State *L) { return ty_ctx_get(L)->scene; }

typedef struct ty_lscene {
  ty_scene *scene;
  ty_clock clock;
} ty_lscene;

/* lua_transform.c: the floats a world view (or, through lua_physics_view.c, a body velocity view)
 * stands for, brought up to date; raises when the owner was destroyed, or when write is true
 * and the view is read-only. ty_dead_view_error raises the destroyed-owner error for the view
 * or dead local table at idx. lua_math.c reaches both through the context (ty_view_ops). */
float *ty_view_resolve(lua_State *L, ty_vec *u, bool write);
int ty_dead_view_error(lua_State *L, int idx);

/* Checks argument idx is a live GameObject and returns its id (error if destroyed). */
ty_id ty_check_gameobject(lua_State *L, int idx);
/* As ty_check_gameobject, but 0 for none or nil. */
ty_id ty_opt_gameobject(lua_State *L, int idx);
/* As ty_check_gameobject, but 0 when idx is not a GameObject (a destroyed one still raises). */
ty_id ty_test_gameobject(lua_State *L, int idx);
/* Pushes the GameObject userdata for a live id (nil for 0). */
void ty_push_gameobject(lua_State *L, ty_id id);
/* The Scene at idx: check raises a type error, test returns NULL. */
ty_lscene *ty_check_scene(lua_State *L, int idx);
ty_lscene *ty_test_scene(lua_State *L, int idx);
/* The world matrix (column-major 4x4) of a live id, brought up to date first: the local
 * tables of id and its ancestors are read back, as for go:localToWorld(). Valid until the
 * next transform write or sync. */
const float *ty_lua_world_matrix(lua_State *L, ty_id id);

/* Reads back the local tables Lua holds for id and its ancestors (compare on read): what a
 * C reader of its transform (the physics step) must do first. */
void ty_lua_pull(lua_State *L, ty_id id);
/* Writes v into local kind (0 position, 1 rotation, 2 scale) of the live object id: its
 * transform, and its Lua table when Lua holds one, so compare-on-read sees no change. What
 * a C writer (physics write-back) must use instead of ty_transform_write. */
void ty_lua_set_local(lua_State *L, ty_id id, int kind, const float *v);
/* Where id's local table of kind is in the locals list (registry ref ctx->locals), 1-based;
 * 0 when Lua holds none. For a C reader of many objects' tables at once (the physics tick);
 * one that keeps the answer may trust it while ctx->locals_epoch stays the same. */
uint32_t ty_lua_local_slot(lua_State *L, ty_id id, int kind);
/* Calls method(instance, args...) protected on every enabled component of id that has it
 * (none while id or an ancestor is disabled, as for phase hooks), errors reported as the
 * tick reports them. The hook is looked up on the instance, else on its class (its
 * metatable), without calling an __index function (the physics components route their
 * fields through one), and its arguments may cost something to make: push(L, user) pushes
 * them and returns how many, once, before the first call, and not at all when no component
 * has the hook. For the contact hooks: the other object and a contact table are made only
 * for an object that hears the contact, and once for all of its components. */
void ty_lua_call_found(lua_State *L, int scene_idx, ty_id id, const char *method,
                       int (*push)(lua_State *L, void *user), void *user);

/* Runs one tick of the scene at stack index idx with hooks receiving dt (the clock is
 * advanced by the caller). Raises only when scene.onError raises. */
void ty_scene_run_tick(lua_State *L, int idx, double dt);

#endif
