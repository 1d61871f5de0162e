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

/* The state's renderer (made by the host; never NULL after ty_open_render). */
ty_renderer *ty_lua_renderer(lua_State *L);

/* Makes a GL device on w's current context and attaches it; false (the renderer stays
 * headless, a gl_unavailable line logged) when that fails. w must outlive the state or
 * be detached first with ty_lua_render_set_window(L, NULL). */
bool ty_lua_render_set_window(lua_State *L, ty_window *w);
ty_window *ty_lua_render_window(lua_State *L);

/* The assets' types (lua_render_assets.c): each userdata holds an id into the renderer's
 * tables. check raises a type error, test returns NULL (else the id's address), opt returns
 * def for none or nil; push makes a new userdata for an id. */
#define TY_MESH "Mesh"
#define TY_TEXTURE "Texture"
#define TY_MATERIAL "Material"
uint32_t ty_check_mesh(lua_State *L, int idx);
uint32_t *ty_test_mesh(lua_State *L, int idx);
uint32_t ty_opt_mesh(lua_State *L, int idx, uint32_t def);
void ty_push_mesh(lua_State *L, uint32_t id);
uint32_t ty_check_texture(lua_State *L, int idx);
uint32_t *ty_test_texture(lua_State *L, int idx);
uint32_t ty_opt_texture(lua_State *L, int idx, uint32_t def);
void ty_push_texture(lua_State *L, uint32_t id);
uint32_t ty_check_material(lua_State *L, int idx);
uint32_t *ty_test_material(lua_State *L, int idx);
uint32_t ty_opt_material(lua_State *L, int idx, uint32_t def);
void ty_push_material(lua_State *L, uint32_t id);

#endif
