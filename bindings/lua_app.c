/* bindings/lua_app.c: the entry's C calls into the engine's Lua side (see lua_app.h). The
 * engine and its step method sit in the registry under this file's keys, so a frame is two
 * registry reads and one protected call. ty_app_create_engine comes first, then
 * ty_app_start_game, then the frames. */
#include "lua_app.h"
#include "lua_host.h" /* Required for: ty_host_call, ty_host_root */

static const char engine_key = 'e'; /* the engine table */
static const char step_key = 's';   /* engine.step, looked up once main.lua has run */

static void push_engine(lua_State *L) {
  lua_rawgetp(L, LUA_REGISTRYINDEX, &engine_key);
  TY_ASSERT(lua_istable(L, -1)); /* ty_app_create_engine first */
}

/* engine:method(...) with the nargs arguments on top of the stack. */
static bool call_method(lua_State *L, const char *method, int nargs, int nresults) {
  push_engine(L);
  lua_getfield(L, -1, method);
  if (!lua_isfunction(L, -1)) {
    lua_pop(L, 2 + nargs);
    fprintf(stderr, "tycho run: the engine has no %s method\n", method);
    return false;
  }
  lua_insert(L, -2 - nargs); /* the method, then the engine, below the arguments */
  lua_insert(L, -1 - nargs);
  return ty_host_call(L, nargs + 1, nresults, method);
}

static bool require(lua_State *L, const char *module, const char *what) {
  lua_getglobal(L, "require");
  lua_pushstring(L, module);
  return ty_host_call(L, 1, 1, what);
}

bool ty_app_create_engine(lua_State *L, bool headless) {
  if (!require(L, "tycho.engine", "loading tycho.engine")) return false;
  lua_getfield(L, -1, "new");
  lua_remove(L, -2);
  lua_createtable(L, 0, 1);
  lua_pushboolean(L, headless);
  lua_setfield(L, -2, "headless");
  if (!ty_host_call(L, 1, 1, "creating the engine")) return false;
  lua_getglobal(L, "tycho");
  lua_pushvalue(L, -2);
  lua_setfield(L, -2, "engine");
  lua_pop(L, 1);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &engine_key);
  return true;
}

/* The loop calls the step main.lua leaves (a game may wrap it), looked up once. */
static void keep_step(lua_State *L) {
  push_engine(L);
  lua_getfield(L, -1, "step");
  lua_rawsetp(L, LUA_REGISTRYINDEX, &step_key);
  lua_pop(L, 1);
}

bool ty_app_start_game(lua_State *L, const char *main_lua, const char *game_dir, bool watch) {
  if (!watch) {
    if (luaL_loadfile(L, main_lua) != LUA_OK) {
      fprintf(stderr, "tycho run: %s\n", lua_tostring(L, -1));
      lua_pop(L, 1);
      return false;
    }
    if (!ty_host_call(L, 0, 0, main_lua)) return false;
    keep_step(L);
    return true;
  }
  /* scripts/tycho/reload.lua runs main.lua, tracking what it registers; the engine polls
   * the watcher over these folders at the start of each frame. */
  if (!require(L, "tycho.reload", "loading tycho.reload")) return false;
  lua_getfield(L, -1, "start");
  lua_remove(L, -2);
  push_engine(L);
  lua_pushstring(L, main_lua);
  lua_createtable(L, 4, 0);
  lua_pushstring(L, game_dir);
  lua_rawseti(L, -2, 1);
  const char *root = ty_host_root();
  const char *subdirs[] = {"scripts", "shaders", "content"};
  for (int i = 0; i < 3 && root; i++) {
    lua_pushfstring(L, "%s/%s", root, subdirs[i]);
    lua_rawseti(L, -2, i + 2);
  }
  if (!ty_host_call(L, 3, 0, main_lua)) return false;
  keep_step(L);
  return true;
}

bool ty_app_step(lua_State *L, double dt) {
  lua_rawgetp(L, LUA_REGISTRYINDEX, &step_key);
  push_engine(L);
  lua_pushnumber(L, dt);
  return ty_host_call(L, 2, 0, "frame");
}

bool ty_app_quitting(lua_State *L) {
  push_engine(L);
  lua_getfield(L, -1, "quitting");
  bool quit = lua_toboolean(L, -1);
  lua_pop(L, 2);
  return quit;
}

int ty_app_screenshot(lua_State *L, const char *path, char *why, size_t whysz) {
  if (whysz) why[0] = 0;
  lua_pushstring(L, path);
  if (!call_method(L, "screenshot", 1, 2)) return -1;
  /* engine:screenshot answers true, or nil/false and a message (a Lua expected failure). */
  bool ok = lua_toboolean(L, -2);
  const char *msg = lua_tostring(L, -1);
  if (!ok && msg && whysz) snprintf(why, whysz, "%s", msg);
  lua_pop(L, 2);
  return ok ? 1 : 0;
}

bool ty_app_shutdown(lua_State *L) {
  push_engine(L);
  lua_getfield(L, -1, "_shutdown");
  lua_insert(L, -2);
  if (!ty_host_call(L, 1, 1, "quitting")) return false;
  bool ok = lua_toboolean(L, -1);
  lua_pop(L, 1);
  return ok;
}
