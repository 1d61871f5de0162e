/* bindings/lua_time.h: Time, the Lua face of a ty_clock (engine/core/time.h), for the
 * bindings that own clocks (a scene's scene.time). */
#ifndef TY_LUA_TIME_H
#define TY_LUA_TIME_H

#include "bindings.h"
#include "core/time.h"

#define TY_TIME "Time"

/* Pushes a Time over clock; the value at owner (which holds the clock) is kept alive by it. */
void ty_push_time(lua_State *L, ty_clock *clock, int owner);
/* The clock of the Time at idx (raises a type error for anything else). */
ty_clock *ty_check_time(lua_State *L, int idx);

#endif
