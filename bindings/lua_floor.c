/* bindings/lua_floor.c: the per-state context, type registration, the protected call and
 * the `nil, message` return every binding shares (lua_floor.h). */
#include "lua_floor.h"

#include <stdarg.h>
#include <string.h>

/* ---- the per-state context ---- */

void ty_ctx_open(lua_State *L) {
  ty_ctx *ctx = lua_newuserdatauv(L, sizeof *ctx, 0);
  memset(ctx, 0, sizeof *ctx);
  *(ty_ctx **)lua_getextraspace(L) = ctx;
  luaL_ref(L, LUA_REGISTRYINDEX); /* lives as long as the state; it has no __gc, so every
                                   * part's finalizer still finds it at lua_close */
}

void *ty_ctx_part(lua_State *L, size_t size, lua_CFunction gc) {
  void *p = lua_newuserdatauv(L, size, 0);
  memset(p, 0, size);
  if (gc) {
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, gc);
    lua_setfield(L, -2, "__gc");
    lua_setmetatable(L, -2);
  }
  luaL_ref(L, LUA_REGISTRYINDEX);
  return p;
}

/* ---- userdata types ---- */

void ty_type_register(lua_State *L, const char *name, const luaL_Reg *meta, const luaL_Reg *methods) {
  luaL_newmetatable(L, name);
  if (meta) luaL_setfuncs(L, meta, 0);
  if (methods) {
    lua_newtable(L);
    luaL_setfuncs(L, methods, 0);
    if (lua_getfield(L, -2, "__index") == LUA_TNIL) {
      lua_pushvalue(L, -2);
      lua_setfield(L, -4, "__index");
    }
    lua_pop(L, 1);
    lua_setfield(L, -2, "__methods");
  }
  lua_pop(L, 1);
}

void ty_type_push_methods(lua_State *L, const char *name) {
  luaL_getmetatable(L, name);
  lua_getfield(L, -1, "__methods");
  lua_remove(L, -2);
}

/* ---- protected calls ---- */

bool ty_pcall(lua_State *L, int nargs, int nresults) {
  int base = lua_gettop(L) - nargs;
  lua_pushcfunction(L, ty_msgh);
  lua_insert(L, base);
  int rc = lua_pcall(L, nargs, nresults, base);
  lua_remove(L, base);
  return rc == LUA_OK;
}

/* ---- results ---- */

int ty_fail(lua_State *L, const char *fmt, ...) {
  lua_pushnil(L);
  va_list ap;
  va_start(ap, fmt);
  lua_pushvfstring(L, fmt, ap);
  va_end(ap);
  return 2;
}
