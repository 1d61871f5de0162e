/* bindings/lua_input.h: where tycho.input keeps its state, for the C run loop. */
#ifndef TY_LUA_INPUT_H
#define TY_LUA_INPUT_H

#include "bindings.h"
#include "platform/input.h"

/* The input snapshot tycho.input reads in this Lua state (one per state, made by
 * ty_open_input and freed with the state). The run loop feeds it with ty_window_poll,
 * attaches it to the window for pointer lock, and calls ty_input_begin_frame at its
 * sample point; NULL when ty_open_input never ran in L. */
ty_input *ty_lua_input(lua_State *L);

#endif
