/* bindings/lua_floor.h: tycho's lauxlib, the few recipes every binding is built on.
 *
 * - One per-state context (ty_ctx): each binding's own state hangs off it, so a binding
 *   reaches its part in one load instead of a registry lookup.
 * - One way to register a userdata type (ty_type_register), and a check/test/opt trio per
 *   type, exported by the file that owns the type.
 * - One protected call (ty_pcall) with one error handler (ty_msgh): the message and a
 *   traceback that starts at the user's line.
 * - One `nil, message` return for expected failures (ty_fail). */
#ifndef TY_LUA_FLOOR_H
#define TY_LUA_FLOOR_H

#include <lua.h>
#include <lauxlib.h>

#include "common.h"

/* ---- the per-state context ---- */

/* One per Lua state the host makes, reached through lua_getextraspace (so every coroutine
 * of the state finds it too). Each field belongs to the binding named beside it, which
 * fills it when it opens and clears it when its part is finalized. */
typedef struct ty_ctx {
  struct ty_lctx *scene;      /* lua_scene.c: the world, objects, scenes */
  struct lrender *render;     /* lua_render.c: the renderer and the frame being built */
  struct lwindow *window;     /* lua_window.c: the headless window size */
  struct ty_input *input;     /* lua_input.c: the input snapshot */
  struct audio_box *audio;    /* lua_audio.c: the mixer, opened on first use */
  const struct ty_view_ops *views; /* lua_transform.c: what lua_math.c's views stand for */
  const struct ty_physics_ops *physics; /* lua_physics.c: what the scene tick asks of physics */
  struct pctx *phys;          /* lua_physics_world.c: body maps */
  struct ty_fence *fence;     /* lua_fence.c: the budget of a fenced state (a server module, a
                               * sandboxed scene); NULL in the engine's own state */
} ty_ctx;

/* Makes L's context (zeroed; freed with the state). Call once, before any opener. */
void ty_ctx_open(lua_State *L);

static inline ty_ctx *ty_ctx_get(lua_State *L) { return *(ty_ctx **)lua_getextraspace(L); }

/* A binding's part of the context: a zeroed block of size bytes that lives as long as the
 * state, with gc (may be NULL) called on it, as its only argument, when the state closes. */
void *ty_ctx_part(lua_State *L, size_t size, lua_CFunction gc);

/* ---- userdata types ---- */

/* Registers the userdata type name: its metatable (luaL_newmetatable, so __name = name)
 * with the metamethods of meta, and, when methods is not NULL, a table of methods under
 * __methods; when meta has no __index, __index is that table. An __index of meta that
 * serves methods finds them under __methods. meta may be NULL. Leaves the stack as it was. */
void ty_type_register(lua_State *L, const char *name, const luaL_Reg *meta, const luaL_Reg *methods);

/* Pushes the methods table of the registered type name (nil if it has none). */
void ty_type_push_methods(lua_State *L, const char *name);

/* The trio, for a userdata of type name at idx: check raises the standard type error,
 * test returns NULL, opt returns NULL for none or nil and raises for anything else. */
static inline void *ty_check(lua_State *L, int idx, const char *name) { return luaL_checkudata(L, idx, name); }
static inline void *ty_test(lua_State *L, int idx, const char *name) { return luaL_testudata(L, idx, name); }
static inline void *ty_opt(lua_State *L, int idx, const char *name) {
  return lua_isnoneornil(L, idx) ? NULL : luaL_checkudata(L, idx, name);
}

/* ---- protected calls ---- */

/* The one message handler: the error message (for a non-string error, its __tostring, or
 * "(error object is a <type> value)") and a traceback of the user's frames
 * (ty_host_traceback). Lives in lua_host.c beside the traceback it writes. */
int ty_msgh(lua_State *L);

/* Calls the function below nargs arguments under ty_msgh. On an error, false with the
 * message and its traceback on top of the stack (the caller pops it). */
bool ty_pcall(lua_State *L, int nargs, int nresults);

/* ---- results ---- */

/* Returns nil and a message (lua_pushfstring's format) from a Lua function: the answer
 * to an expected failure, as luaL_fileresult gives. Use as `return ty_fail(L, ...)`. */
int ty_fail(lua_State *L, const char *fmt, ...);

#endif
