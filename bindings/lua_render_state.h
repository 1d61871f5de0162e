/* bindings/lua_render_state.h: what the render binding's files share, private to
 * bindings/lua_render*.c: the renderer's part of the state's context, the graph's handle
 * types and the option readers (lua_render_state.c). They stand in floors, each calling only
 * down: lua_render_state.c at the bottom calls no other render file; lua_render_assets.c
 * (the assets: Mesh, Texture, Material) and lua_render_graph.c (the render graph a
 * feature's addPasses sees: RenderGraph, RenderResource, Frame, Lua passes) stand on it;
 * lua_render.c, the engine's face (tycho._render: items, lights, frames, features, cameras,
 * stats) and the opener, on top. */
#ifndef TY_LUA_RENDER_STATE_H
#define TY_LUA_RENDER_STATE_H

#include "bindings.h"
#include "render/renderer.h" /* Required for: ty_renderer, ty_gl_device, ty_frame */

#define TY_FRAME "Frame"
#define TY_GRAPH "RenderGraph"
#define TY_RESOURCE "RenderResource"

/* A pass whose execute is a Lua function: lives until the next frame begins. */
typedef struct lua_pass {
  lua_State *L;
  int fn_ref;    /* the execute function */
  int owner_ref; /* the feature that declared it, LUA_NOREF when none */
  char name[64];
} lua_pass;

/* The render binding's part of the state's context. */
typedef struct lrender {
  ty_renderer *R;
  ty_gl_device *dev;
  ty_frame *F;          /* the frame begun last (NULL before the first) */
  bool in_frame;        /* between beginFrame and endFrame */
  bool executing;       /* inside endFrame: Lua passes are running */
  uint64_t serial;      /* frames begun: stamps graph and resource handles */
  lua_pass **passes;    /* this frame's Lua passes (pointers: rg keeps them as user data) */
  uint32_t pass_count, pass_cap;
  int frame_ref;        /* the Frame userdata, one per state, reused */
  int owner_ref;        /* the feature whose addPasses runs now, LUA_NOREF outside */
  int failures_ref;     /* this frame's Lua pass failures: {{pass=, message=, owner=}} */
} lrender;

static inline lrender *lr_get(lua_State *L) {
  lrender *lr = ty_ctx_get(L)->render;
  TY_ASSERT(lr && "the render binding was not opened");
  return lr;
}

/* ---- lua_render_state.c: reading option tables ---- */

/* A number field of the table at idx, def when absent; an error naming what when not a number. */
float lr_opt_number(lua_State *L, int idx, const char *key, float def, const char *what);
bool lr_opt_bool(lua_State *L, int idx, const char *key, bool def);
/* Reads a colour at idx: {r, g, b[, a]}, {r=, g=, b=[, a=]} or a Vec3; n is 3 or 4 (alpha
 * defaults to 1). False when the value is none of these. */
bool lr_read_color(lua_State *L, int idx, float *out, int n);
/* A colour field of the table at idx into out (left alone when absent); whether it was
 * given, since every value (black included) is a colour. */
bool lr_opt_color(lua_State *L, int idx, const char *key, float *out, int n, const char *what);
/* Resolves a relative asset path: as given when that exists, else under each folder of
 * package.path (the game's first), else under the engine's home. Unchanged when nothing
 * matches, so the loader's message names what the game wrote. */
void lr_resolve_path(lua_State *L, const char *path, char *out, size_t size);

/* ---- lua_render_assets.c ---- */

/* Registers Mesh, Texture and Material; sets tycho.mesh, tycho.texture, tycho.material. */
void lr_open_assets(lua_State *L, int tycho);

/* ---- lua_render_graph.c ---- */

/* Registers RenderGraph, RenderResource and Frame, and makes the state's one Frame. */
void lr_open_graph(lua_State *L, lrender *lr);
/* Frees the Lua passes of the last frame. */
void lr_release_passes(lua_State *L, lrender *lr);
/* Pushes the state's one Frame, its `graph` field a fresh RenderGraph for the frame just
 * begun (the fields features stashed stay). */
void lr_push_frame(lua_State *L, lrender *lr);

#endif
