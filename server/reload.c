/* server/reload.c: hot reload of a server module. A saved NAME.lua re-runs in its module's
 * running state and tycho.reload.patchModule makes the table other code holds run the new
 * code, rooms, sessions and timers kept; a module a fence stopped starts over instead. Any
 * failure logs why and the last good version keeps serving. */
#include "host_private.h"

#include <string.h>

/* Re-runs path in m's own state. The table other code holds stays the module's table:
 * tycho.reload.patchModule calls the new table's onReload(old, host), patches the new
 * functions into it, and swaps old functions held by live sessions' handler tables and by
 * timers for the new ones. Rooms, sessions and timers stay; nothing is re-run but the
 * file. Any failure logs why and the old code keeps serving. */
static void module_reload(module *m, const char *path, bool removed) {
  double t0 = ty_now();
  lua_State *L = m->L;
  if (removed) {
    ty_log("server_reload_failed", "module %s: %s is gone; the last good version keeps serving", m->name, path);
    return;
  }
  if (!L) return; /* no state could be made for it */
  if (m->dead && m->table_ref != LUA_NOREF) { /* stopped by a fence */
    module_restart(m);
    if (!m->dead) fprintf(stderr, "tycho serve: reloaded %s in %.1f ms\n", m->name, (ty_now() - t0) * 1000);
    return;
  }
  int top = lua_gettop(L);
  if (luaL_loadfile(L, path) != LUA_OK) {
    ty_log("server_reload_failed", "module %s: %s; the last good version keeps serving", m->name, lua_tostring(L, -1));
    lua_settop(L, top);
    return;
  }
  bool was_dead = m->dead;
  m->dead = false; /* module_call refuses a dead module */
  if (!module_call(m, 0, 1, "reloading")) {
    m->dead = m->dead || was_dead;
    ty_log("server_reload_failed", "module %s: running %s failed (above); the last good version keeps serving", m->name, path);
    lua_settop(L, top);
    return;
  }
  if (!lua_istable(L, -1)) {
    m->dead = was_dead;
    ty_log("server_reload_failed", "module %s: %s returned %s, not a table; the last good version keeps serving", m->name,
           path, luaL_typename(L, -1));
    lua_settop(L, top);
    return;
  }
  if (m->table_ref == LUA_NOREF) { /* its first good version: start it as at launch */
    m->table_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    m->host_ref = host_lua_new_host(L);
    module_start(m);
    fprintf(stderr, "tycho serve: reloaded %s in %.1f ms\n", m->name, (ty_now() - t0) * 1000);
    return;
  }
  int fresh = lua_gettop(L);
  lua_getglobal(L, "require");
  lua_pushliteral(L, "tycho.reload");
  if (!module_call(m, 1, 1, "loading tycho.reload")) {
    lua_settop(L, top);
    return;
  }
  /* holders: [1] the module's timer functions in h->timers order, then session handlers */
  host *h = m->h;
  lua_newtable(L);
  int holders = lua_gettop(L);
  lua_newtable(L);
  for (uint32_t i = 0; i < h->ntimers; i++) {
    if (h->timers[i]->m != m) continue;
    lua_rawgeti(L, LUA_REGISTRYINDEX, h->timers[i]->fn_ref);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  lua_rawseti(L, holders, 1);
  lua_Integer n = 1;
  for (session *s = h->sessions; s; s = s->next) {
    if (s->m != m || s->handler_ref == LUA_NOREF) continue;
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->handler_ref);
    lua_rawseti(L, holders, ++n);
  }
  lua_getfield(L, fresh + 1, "patchModule");
  lua_rawgeti(L, LUA_REGISTRYINDEX, m->table_ref);
  lua_pushvalue(L, fresh);
  lua_pushvalue(L, holders);
  lua_rawgeti(L, LUA_REGISTRYINDEX, m->host_ref);
  if (!module_call(m, 4, 2, "onReload")) {
    lua_settop(L, top);
    return;
  }
  if (!lua_toboolean(L, -2)) {
    ty_log("server_reload_failed", "module %s: %s; the last good version keeps serving", m->name, lua_tostring(L, -1));
    lua_settop(L, top);
    return;
  }
  lua_rawgeti(L, holders, 1); /* timers whose function was the module's now run the new one */
  for (uint32_t i = 0; i < h->ntimers; i++) {
    timer *t = h->timers[i];
    if (t->m != m) continue;
    if (lua_rawgeti(L, -1, (lua_Integer)i + 1) == LUA_TFUNCTION) {
      lua_rawgeti(L, LUA_REGISTRYINDEX, t->fn_ref);
      bool same = lua_rawequal(L, -1, -2);
      lua_pop(L, 1);
      if (!same) {
        luaL_unref(L, LUA_REGISTRYINDEX, t->fn_ref);
        t->fn_ref = luaL_ref(L, LUA_REGISTRYINDEX); /* pops the new function */
        continue;
      }
    }
    lua_pop(L, 1);
  }
  lua_settop(L, top);
  lua_gc(L, LUA_GCCOLLECT); /* the old version's closures go now, not at some later step */
  fprintf(stderr, "tycho serve: reloaded %s in %.1f ms\n", m->name, (ty_now() - t0) * 1000);
}

/* NAME.lua directly in the modules folder reloads module NAME. */
void host_file_changed(const char *path, bool removed, void *user) {
  host *h = user;
  size_t dl = strlen(h->cfg.modules_dir);
  while (dl > 1 && h->cfg.modules_dir[dl - 1] == '/') dl--;
  if (strncmp(path, h->cfg.modules_dir, dl) != 0 || path[dl] != '/') return;
  const char *file = path + dl + 1;
  size_t len = strlen(file);
  if (strchr(file, '/') || len < 5 || strcmp(file + len - 4, ".lua") != 0) return;
  for (uint32_t i = 0; i < h->nmodules; i++) {
    module *m = &h->modules[i];
    if (strlen(m->name) == len - 4 && strncmp(m->name, file, len - 4) == 0) {
      module_reload(m, path, removed);
      return;
    }
  }
  /* A new file is a new path to serve: that needs a restart (modules are routed at start). */
}
