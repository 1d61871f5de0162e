/* bindings/lua_scene_private.h: what the scene binding's files share. lua_scene.c holds
 * the Scene type, tycho.stats and the opening; lua_gameobject.c the GameObject userdata and
 * its local position, rotation and scale tables; lua_transform.c world values, views and
 * lookAt; lua_component.c the component host (add, get, remove, destroy, hooks and their
 * errors); lua_tick.c a tick's phases. Only these five include it. */
#ifndef TY_LUA_SCENE_PRIVATE_H
#define TY_LUA_SCENE_PRIVATE_H

#include "lua_scene.h"

#include <string.h>

/* GameObject user values. */
enum { UV_NAME = 1, UV_VIEWS = 2, UV_FIELDS = UV_VIEWS + 6, UV_COUNT = UV_FIELDS };
/* Scene user value 1: a table {time=, systems=, onError=}. */

static const char *const PHASE_NAMES[TY_PHASE_COUNT] = {
    "input", "prePhysics", "physics", "postPhysics", "gameLogic", "animation", "preRender", "render"};
static const char *const HOOK_NAMES[TY_PHASE_COUNT] = {
    "input", "prePhysics", "physics", "postPhysics", "update", "animation", "preRender", "updateRender"};

typedef struct ty_go {
  uint32_t magic; /* TY_GO_MAGIC: ls_go_ud's check that a userdata is a GameObject */
  ty_id id;
  uint32_t local[3]; /* 1-based slot of its position/rotation/scale table in the locals list; 0: none */
} ty_go;
#define TY_GO_MAGIC 0x6F47u

static const int LOCAL_N[3] = {3, 4, 3}; /* floats in a position, rotation, scale */
static const char *const LOCAL_NAMES[3] = {"position", "rotation", "scale"};
static const char *const AXES[4] = {"x", "y", "z", "w"};

static inline ty_world *world_of(lua_State *L) { return ty_lctx_get(L)->world; }
static inline void push_instances(lua_State *L) { lua_rawgeti(L, LUA_REGISTRYINDEX, ty_lctx_get(L)->instances); }
static inline void push_objects(lua_State *L) { lua_rawgeti(L, LUA_REGISTRYINDEX, ty_lctx_get(L)->objects); }

/* The GameObject at idx: a size and a magic number tell, without the registry lookup of
 * luaL_checkudata (a Lua script cannot make a userdata of its own). */
static inline ty_go *ls_go_ud(lua_State *L, int idx) {
  ty_go *g = lua_touserdata(L, idx);
  if (g && lua_rawlen(L, idx) == sizeof *g && g->magic == TY_GO_MAGIC) return g; /* light userdata: length 0 */
  luaL_typeerror(L, idx, TY_GAMEOBJECT);
  return NULL;
}

/* ---- lua_gameobject.c ---- */

/* The transforms' pull hook: every live local table read back before a sync (user: the ty_lctx). */
void ls_pull_all(void *user);
/* Reads back the local tables of id and its ancestors: what its world values depend on. */
void ls_pull_chain(lua_State *L, ty_id id);
/* Writes v into g's local kind (0 position, 1 rotation, 2 scale): the transform and its table. */
void ls_set_local(lua_State *L, ty_go *g, int go_idx, int kind, const float *v);
/* At an object's end: drops its Lua side, remembering its views to name it in later errors. */
void ls_forget_object(lua_State *L, ty_id id);
/* Registers the GameObject type; sets tycho.GameObject. */
void ls_open_gameobject(lua_State *L, int tycho);

/* ---- lua_transform.c ---- */

/* Pushes the cached world view of kind for the GameObject at idx, creating it once. */
void ls_push_view(lua_State *L, int idx, ty_id id, ty_view_kind kind);
/* Sets local kind of the GameObject at go_idx from the value at idx whole (go.position = v);
 * a wrong value raises a bad argument error for arg, or a plain error when arg is 0. */
void ls_assign_trs(lua_State *L, int go_idx, int idx, int kind, int arg);
extern const luaL_Reg ls_transform_methods[]; /* GameObject's world-value methods and lookAt */
extern const ty_view_ops ls_view_ops;          /* ty_view_resolve and ty_dead_view_error */

/* ---- lua_component.c ---- */

/* tycho._setErrorReporter(fn|nil) */
int ls_set_error_reporter(lua_State *L);
/* Reports the error on top of the stack (scene.onError, else the reporter, else stderr); pops it. */
void ls_report_error(lua_State *L, int scene_idx, const char *hook, ty_id object, int inst_idx);
/* Calls the function below nargs arguments under ty_pcall, reporting an error as above. */
void ls_call_hook(lua_State *L, int nargs, int scene_idx, const char *hook, ty_id object, int inst_idx);
/* The phase hooks the component instance at inst_idx has, as a mask of ty_phase bits. */
uint32_t ls_compute_hooks(lua_State *L, int inst_idx);
/* Gives every component in root's subtree its scene's clock as `time`. */
void ls_bind_time_subtree(lua_State *L, ty_id root);
/* Runs onDestroy on every component of id, then forgets its Lua side (the sweep's end of an object). */
void ls_finish_object(lua_State *L, ty_id id, int scene_idx);
extern const luaL_Reg ls_component_methods[]; /* GameObject's component methods and destroy */

/* ---- lua_tick.c ---- */

/* Ends a walking section of the scene: the sweep (onDestroy, forgetting) and the flush. */
void ls_end_section(lua_State *L, int scene_idx, ty_lscene *ls);
extern const luaL_Reg ls_tick_methods[]; /* Scene's update and updateRender */

/* ---- lua_scene.c ---- */

/* Pushes the Scene userdata of S (nil for NULL). */
void ls_push_scene_of(lua_State *L, ty_scene *S);
/* Pushes field key of the data table of the Scene at idx; returns its type. */
int ls_scene_data(lua_State *L, int idx, const char *key);

#endif
