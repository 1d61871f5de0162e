/* engine/app/test_cmd.c: `tycho test`, which hands its arguments to the test runner in
 * scripts/tycho/test.lua (busted 2 under tycho). */
#include "app.h"
#include "lua_host.h" /* Required for: ty_host_create, ty_host_call */

int cmd_test(int argc, char **argv) {
  lua_State *L = ty_host_create(NULL);
  if (!L) return 1;
  lua_getglobal(L, "require");
  lua_pushliteral(L, "tycho.test");
  if (!ty_host_call(L, 1, 1, "loading the test runner")) {
    lua_close(L);
    return 1;
  }
  lua_getfield(L, -1, "main");
  lua_createtable(L, argc, 0);
  for (int i = 0; i < argc; i++) {
    lua_pushstring(L, argv[i]);
    lua_rawseti(L, -2, i + 1);
  }
  int code = 1;
  if (ty_host_call(L, 1, 1, "test runner")) code = (int)lua_tointeger(L, -1);
  lua_close(L);
  return code;
}
