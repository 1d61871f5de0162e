/* bindings/lua_json_array.c: the array mark and the rule it serves. A table whose keys are
 * exactly 1..n (n > 0) is an array; a table whose metatable has __jsontype = "array" is an
 * array even when empty, so lists round-trip; any other table is an object. Both ways of
 * the encoder ask here, so they cannot disagree on a table's shape. */
#include "lua_json_array.h"

#include <string.h>

#define ARRAY_MT "tycho.json.array"

void ty_json_push_array_mt(lua_State *L) {
  if (luaL_newmetatable(L, ARRAY_MT)) {
    lua_pushliteral(L, "array");
    lua_setfield(L, -2, "__jsontype");
  }
}

bool ty_json_is_marked_array(lua_State *L, int idx) {
  if (!lua_getmetatable(L, idx)) return false;
  lua_pushliteral(L, "__jsontype");
  lua_rawget(L, -2);
  const char *k = lua_tostring(L, -1);
  bool yes = k && strcmp(k, "array") == 0;
  lua_pop(L, 2);
  return yes;
}

bool ty_json_table_is_array(lua_State *L, int idx, lua_Unsigned n) {
  /* A marked list is written as t[1..#t] whatever else it holds: the mark is the contract. */
  if (ty_json_is_marked_array(L, idx)) return true;
  if (n == 0) return false;
  lua_Unsigned count = 0;
  bool array = true;
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    count++;
    if (array && !(lua_isinteger(L, -2) && lua_tointeger(L, -2) >= 1 && (lua_Unsigned)lua_tointeger(L, -2) <= n))
      array = false;
    lua_pop(L, 1);
  }
  return array && count == n;
}
