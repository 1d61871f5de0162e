/* bindings/lua_watch.c: tycho._watch, the file watcher (engine/platform/watch.h) as Lua
 * sees it. Private to the engine's scripts: scripts/tycho/reload.lua polls one each frame. */
#include "bindings.h"
#include "platform/watch.h"

#define WATCH_MT "tycho.Watch"

typedef struct watch_box {
  ty_watch *w; /* NULL once closed */
} watch_box;

static watch_box *check_watch(lua_State *L) {
  watch_box *b = luaL_checkudata(L, 1, WATCH_MT);
  if (!b->w) luaL_argerror(L, 1, "watcher is closed");
  return b;
}

/* _watch.open([settleSeconds]) -> Watch, or nil, message */
static int w_open(lua_State *L) {
  double settle = luaL_optnumber(L, 1, 0.01);
  luaL_argcheck(L, settle >= 0 && settle < 10, 1, "settle must be in [0, 10) seconds");
  ty_watch *w = ty_watch_create(settle);
  if (!w) {
    return ty_fail(L, "inotify is unavailable (see the watch_failed line)");
  }
  watch_box *b = lua_newuserdatauv(L, sizeof *b, 0);
  b->w = w;
  luaL_setmetatable(L, WATCH_MT);
  return 1;
}

/* watch:add(dir) -> true, or nil, message */
static int w_add(lua_State *L) {
  watch_box *b = check_watch(L);
  const char *dir = luaL_checkstring(L, 2);
  if (ty_watch_add(b->w, dir)) {
    lua_pushboolean(L, 1);
    return 1;
  }
  return ty_fail(L, "cannot watch %s", dir);
}

static void push_change(const char *path, bool removed, void *user) {
  lua_State *L = user;
  if (lua_isnil(L, -1)) { /* the first change makes the array */
    lua_pop(L, 1);
    lua_newtable(L);
  }
  lua_Integer n = (lua_Integer)luaL_len(L, -1);
  lua_createtable(L, 0, 2);
  lua_pushstring(L, path);
  lua_setfield(L, -2, "path");
  lua_pushboolean(L, removed);
  lua_setfield(L, -2, "removed");
  lua_rawseti(L, -2, n + 1);
}

/* watch:poll() -> array of {path=, removed=}, or nil when nothing settled (no garbage
 * in the common case: this runs every frame). */
static int w_poll(lua_State *L) {
  watch_box *b = check_watch(L);
  lua_pushnil(L);
  ty_watch_poll(b->w, ty_now(), push_change, L);
  return 1;
}

/* watch:pending() -> whether a burst is still settling */
static int w_pending(lua_State *L) {
  lua_pushboolean(L, ty_watch_pending(check_watch(L)->w));
  return 1;
}

static int w_close(lua_State *L) {
  watch_box *b = luaL_checkudata(L, 1, WATCH_MT);
  ty_watch_destroy(b->w);
  b->w = NULL;
  return 0;
}

void ty_open_watch(lua_State *L) {
  static const luaL_Reg methods[] = {
      {"add", w_add}, {"poll", w_poll}, {"pending", w_pending}, {"close", w_close}, {NULL, NULL}};
  static const luaL_Reg meta[] = {{"__gc", w_close}, {NULL, NULL}};
  ty_type_register(L, WATCH_MT, meta, methods);
  static const luaL_Reg fns[] = {{"open", w_open}, {NULL, NULL}};
  luaL_newlib(L, fns);
  lua_setfield(L, -2, "_watch");
}
