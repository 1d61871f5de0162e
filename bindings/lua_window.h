/* bindings/lua_window.h: tycho.window, the Lua face of engine/platform's window (title,
 * size, fullscreen), and the size frames and cameras use when there is no window. */
#ifndef TY_LUA_WINDOW_H
#define TY_LUA_WINDOW_H

#include "bindings.h"
#include "platform/platform.h" /* Required for: ty_window */

/* Adds tycho.window to the table on top of the stack. Open after ty_open_render: the
 * window is the one the run loop gives the renderer (ty_lua_render_set_window). */
void ty_open_window(lua_State *L);

/* The window `tycho run` opened (NULL headless). The renderer sets it when the run loop gives
 * it one (ty_lua_render_set_window), so this binding needs no renderer. */
ty_window *ty_lua_window(lua_State *L);
void ty_lua_window_set(lua_State *L, ty_window *w);

/* The size frames render at by default: the window's drawable in pixels, or without a
 * window the headless size (1280 x 720 unless set). */
void ty_lua_window_frame_size(lua_State *L, int *width, int *height);
/* Sets the headless size (`tycho run --headless --width W --height H`); both > 0. */
void ty_lua_window_set_headless_size(lua_State *L, int width, int height);

#endif
