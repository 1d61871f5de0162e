/* bindings/lua_json_write.h: the encoder's short way (lua_json_write.c), which ty_json_push_encoded
 * tries before building a jansson tree (lua_json.c's long way). */
#ifndef TY_LUA_JSON_WRITE_H
#define TY_LUA_JSON_WRITE_H

#include <stdbool.h>
#include <stddef.h>

#include "bindings.h"

/* Pushes the compact JSON text of the value at idx and returns true when the short way can
 * write it (byte for byte what the long way writes); otherwise pushes nothing and returns
 * false. Raises only for memory. */
bool ty_json_push_short(lua_State *L, int idx);
/* A finite double as jansson writes a real ("%.17g", then ".0" where that wrote neither a
 * point nor an exponent) into out, NUL-terminated, returning its length; 0 where that text
 * would have an exponent (|d| below 1e-4 or from 1e15 up) or d is 0, which it leaves to
 * jansson. */
size_t ty_json_real_short(double d, char out[32]);

#endif
