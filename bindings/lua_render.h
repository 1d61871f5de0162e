/* bindings/lua_render.h: the render binding's face to the run loop (engine/main.c).
 *
 * Every Lua state gets a renderer with no device when the host opens the binding, so
 * scenes, meshes, materials and frames work headless. `tycho run` with a window gives it
 * the window: a GL device is made on the window's context and attached, and
 * engine:screenshot reads that window's back buffer. */
#ifndef TY_LUA_RENDER_H
#define TY_LUA_RENDER_H

#include <stdbool.h>

#include "bindings.h"
#include "platform/platform.h" /* Required for: ty_window */
#include "render/renderer.h"   /* Required for: ty_renderer */

#include "lua_render_assets.h" /* Mesh, Texture, Material: ty_check_mesh and the rest */

/* The state's renderer (made by the host; never NULL after ty_open_render). */
ty_renderer *ty_lua_renderer(lua_State *L);

/* Makes a GL device on w's current context and attaches it; false (the renderer stays
 * headless, a gl_unavailable line logged) when that fails. w must outlive the state or
 * be detached first with ty_lua_render_set_window(L, NULL). */
bool ty_lua_render_set_window(lua_State *L, ty_window *w);
ty_window *ty_lua_render_window(lua_State *L);

#endif
