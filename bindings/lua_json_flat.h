/* bindings/lua_json_flat.h: a flat JSON object read straight into a Lua table (the common
 * client frame), for ty_json_push_decoded to try before jansson. */
#ifndef TY_LUA_JSON_FLAT_H
#define TY_LUA_JSON_FLAT_H

#include <stdbool.h>
#include <stddef.h>

#include "bindings.h"

/* Pushes s[0..len) as a table and returns true when it is a flat object of at most 16
 * fields of strings (printable ASCII, no escapes), numbers, booleans and null, within the
 * decoder's caps (max_depth at least 1, at most max_items values);
 * otherwise pushes nothing and returns false (the full decoder reads it, or says what is
 * wrong with it). The table is the one the full decoder would give. */
bool ty_json_push_flat(lua_State *L, const char *s, size_t len, int max_depth, long max_items);

#endif
