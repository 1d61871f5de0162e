/* bindings/lua_json_array.h: when a Lua table is a JSON array, the one rule that both of the
 * encoder's ways (lua_json.c's jansson tree, lua_json_write.c's straight text) and the
 * decoder's arrays keep to. */
#ifndef TY_LUA_JSON_ARRAY_H
#define TY_LUA_JSON_ARRAY_H

#include <stdbool.h>

#include "bindings.h"

/* Pushes the shared marker metatable {__jsontype = "array"} (what tycho.json.array sets,
 * and what decoded arrays get), made on first use in this state. */
void ty_json_push_array_mt(lua_State *L);
/* True when the table at idx carries __jsontype = "array" in its metatable. */
bool ty_json_is_marked_array(lua_State *L, int idx);
/* True when the table at idx (n = its raw length) is written as a JSON array: marked, or
 * holding exactly the keys 1..n, n > 0 (an empty unmarked table is an object). */
bool ty_json_table_is_array(lua_State *L, int idx, lua_Unsigned n);

#endif
