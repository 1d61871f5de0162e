/* server/host_lua.c: what a server module's Lua sees of the host: the Session a client's
 * connection is (send, sendText, sendBinary, close; id, open, address, path and the fields
 * the module stores on it), the Timer host:every returns, and the Host object onStart gets
 * (every, log, storage, name). */
#include "host_private.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "lua_host.h" /* Required for: ty_fanout_set_sender */
#include "lua_storage.h"

#define SESSION_MT "tycho.Session"
#define TIMER_MT "tycho.Timer"
#define HOST_MT "tycho.Host"

typedef struct session_box {
  session *s; /* NULL once the connection is gone */
  lua_Integer id;
} session_box;

typedef struct timer_box {
  host *h;
  uint64_t id;
} timer_box;

/* ---- sessions ---- */

static session *check_session(lua_State *L) {
  session_box *b = luaL_checkudata(L, 1, SESSION_MT);
  return b->s;
}

/* session:send(value) -> true, or false when the connection is closing or gone */
static int s_send(lua_State *L) {
  session *s = check_session(L);
  luaL_checkany(L, 2);
  ty_json_push_encoded(L, 2);
  size_t len;
  const char *text = lua_tolstring(L, -1, &len);
  lua_pushboolean(L, s && ty_client_send(s->c, text, len, false));
  return 1;
}

/* session:sendText(text): text already encoded (Room:broadcast encodes once for everyone) */
static int s_send_text(lua_State *L) {
  session *s = check_session(L);
  size_t len;
  const char *text = luaL_checklstring(L, 2, &len);
  lua_pushboolean(L, s && ty_client_send(s->c, text, len, false));
  return 1;
}

/* s_send_text for tycho.fanout, given the session's block (the text is already encoded). */
static void session_send_text(void *member, const char *text, size_t len) {
  session_box *b = member;
  if (b->s) ty_client_send(b->s->c, text, len, false);
}

static int s_send_binary(lua_State *L) {
  session *s = check_session(L);
  size_t len;
  const char *data = luaL_checklstring(L, 2, &len);
  lua_pushboolean(L, s && ty_client_send(s->c, data, len, true));
  return 1;
}

/* session:close([code [, reason]]) */
static int s_close(lua_State *L) {
  session *s = check_session(L);
  lua_Integer code = luaL_optinteger(L, 2, 1000);
  const char *reason = luaL_optstring(L, 3, "");
  luaL_argcheck(L, code == 1000 || (code >= 3000 && code <= 4999), 2, "close code must be 1000 or 3000..4999");
  if (s) ty_client_close(s->c, (int)code, reason);
  return 0;
}

static int s_index(lua_State *L) {
  session_box *b = luaL_checkudata(L, 1, SESSION_MT);
  const char *k = lua_tostring(L, 2);
  if (k && strcmp(k, "id") == 0) {
    lua_pushinteger(L, b->id);
    return 1;
  }
  if (k && strcmp(k, "open") == 0) {
    lua_pushboolean(L, b->s != NULL);
    return 1;
  }
  if (k && strcmp(k, "address") == 0) { /* the peer's IP address (per-address limits); nil once closed */
    char addr[64];
    if (b->s && ty_client_address(b->s->c, addr, sizeof addr)[0]) lua_pushstring(L, addr);
    else lua_pushnil(L);
    return 1;
  }
  lua_getmetatable(L, 1);
  lua_getfield(L, -1, "__methods");
  lua_pushvalue(L, 2);
  if (lua_rawget(L, -2) != LUA_TNIL) return 1;
  /* the fields the module stored on the session, or (until it stores one) its path alone */
  if (lua_getiuservalue(L, 1, 1) == LUA_TSTRING) {
    if (!k || strcmp(k, "path") != 0) lua_pushnil(L);
    return 1;
  }
  lua_pushvalue(L, 2);
  lua_rawget(L, -2);
  return 1;
}

/* A session's fields live in a table made on the first one stored: until then the user value
 * is the path string (short paths are interned, so an idle session holds no table). */
static int s_newindex(lua_State *L) {
  luaL_checkudata(L, 1, SESSION_MT);
  if (lua_getiuservalue(L, 1, 1) == LUA_TSTRING) {
    lua_createtable(L, 0, 2);
    lua_insert(L, -2);
    lua_setfield(L, -2, "path");
    lua_pushvalue(L, -1);
    lua_setiuservalue(L, 1, 1);
  }
  lua_pushvalue(L, 2);
  lua_pushvalue(L, 3);
  lua_rawset(L, -3);
  return 0;
}

static int s_tostring(lua_State *L) {
  session_box *b = luaL_checkudata(L, 1, SESSION_MT);
  lua_pushfstring(L, "Session(%I%s)", b->id, b->s ? "" : ", closed");
  return 1;
}

/* ---- the host object ---- */

static module *check_host(lua_State *L) {
  luaL_checkudata(L, 1, HOST_MT);
  return module_of(L);
}

/* host:every(seconds, fn) -> timer */
static int h_every(lua_State *L) {
  module *m = check_host(L);
  double secs = luaL_checknumber(L, 2);
  luaL_argcheck(L, secs >= 0.001, 2, "interval must be at least 0.001 seconds");
  luaL_checktype(L, 3, LUA_TFUNCTION);
  lua_pushvalue(L, 3);
  timer *t = timer_add(m, luaL_ref(L, LUA_REGISTRYINDEX), secs);
  timer_box *b = lua_newuserdatauv(L, sizeof *b, 0);
  b->h = m->h;
  b->id = t->id;
  luaL_setmetatable(L, TIMER_MT);
  return 1;
}

static int t_cancel(lua_State *L) {
  timer_box *b = luaL_checkudata(L, 1, TIMER_MT);
  timer *t = timer_find(b->h, b->id);
  if (t) t->cancelled = true;
  return 0;
}

/* host:log(...): one line on stderr, tagged with the module */
static int h_log(lua_State *L) {
  module *m = check_host(L);
  int n = lua_gettop(L); /* before luaL_buffinit, which may use a stack slot */
  luaL_Buffer buf;
  luaL_buffinit(L, &buf);
  for (int i = 2; i <= n; i++) {
    if (i > 2) luaL_addchar(&buf, '\t');
    luaL_tolstring(L, i, NULL);
    luaL_addvalue(&buf);
  }
  luaL_pushresult(&buf);
  fprintf(stderr, "tycho serve [%s] %s\n", m->name, lua_tostring(L, -1));
  return 0;
}

/* Creates dir and its parents (mkdir -p); false with errno set when it cannot. */
static bool make_dirs(const char *dir) {
  char buf[4096];
  if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf) {
    errno = ENAMETOOLONG;
    return false;
  }
  for (char *p = buf + 1;; p++) {
    if (*p != '/' && *p) continue;
    char c = *p;
    *p = 0;
    if (mkdir(buf, 0755) != 0 && errno != EEXIST) return false;
    if (!c) return true;
    *p = c;
  }
}

/* host.storage: the module's own handle on DATA/worlds.sqlite, opened on first use so that
 * modules that never store anything open nothing, and opened again on the next read after
 * the module closed it (host.storage is always a usable store). Raises when the store cannot
 * be opened. */
static int push_storage(lua_State *L, module *m) {
  if (m->storage_ref != LUA_NOREF) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, m->storage_ref);
    bool open = ty_storage_is_open_at(L, -1);
    lua_pop(L, 1);
    if (!open) { /* the module called close(): that handle stays closed, a new one serves */
      luaL_unref(L, LUA_REGISTRYINDEX, m->storage_ref);
      m->storage_ref = LUA_NOREF;
    }
  }
  if (m->storage_ref == LUA_NOREF) {
    if (!make_dirs(m->h->cfg.data_dir))
      return luaL_error(L, "host.storage: cannot create the data folder %s: %s", m->h->cfg.data_dir, strerror(errno));
    lua_pushfstring(L, "%s/worlds.sqlite", m->h->cfg.data_dir);
    if (!ty_storage_push_open(L, lua_tostring(L, -1))) return luaL_error(L, "host.storage: %s", lua_tostring(L, -1));
    m->storage_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  }
  lua_rawgeti(L, LUA_REGISTRYINDEX, m->storage_ref);
  return 1;
}

/* host:monitor(table), host:monitorRecord(), host:monitorCluster(records): server/monitor.c */
static int h_monitor(lua_State *L) {
  module *m = check_host(L);
  return ty_monitor_lua_report(L, m->h->monitor, m->name);
}
static int h_monitor_record(lua_State *L) { return ty_monitor_lua_record(L, check_host(L)->h->monitor); }
static int h_monitor_cluster(lua_State *L) { return ty_monitor_lua_cluster(L, check_host(L)->h->monitor); }

static int h_index(lua_State *L) {
  const char *k = lua_tostring(L, 2);
  if (k && strcmp(k, "storage") == 0) return push_storage(L, module_of(L));
  if (k && strcmp(k, "name") == 0) {
    lua_pushstring(L, module_of(L)->name);
    return 1;
  }
  if (k && strcmp(k, "cluster") == 0) {
    module *m = module_of(L);
    if (!m->h->cluster) lua_pushnil(L);
    else ty_cluster_push(L, m->h->cluster, m);
    return 1;
  }
  lua_getmetatable(L, 1);
  lua_getfield(L, -1, "__methods");
  lua_pushvalue(L, 2);
  lua_rawget(L, -2);
  return 1;
}

void host_lua_open(lua_State *L) {
  static const luaL_Reg session_methods[] = {
      {"send", s_send}, {"sendText", s_send_text}, {"sendBinary", s_send_binary}, {"close", s_close}, {NULL, NULL}};
  static const luaL_Reg session_meta[] = {
      {"__index", s_index}, {"__newindex", s_newindex}, {"__tostring", s_tostring}, {NULL, NULL}};
  ty_type_register(L, SESSION_MT, session_meta, session_methods);
  ty_fanout_set_sender(L, SESSION_MT, session_send_text); /* Room:broadcast's fan-out, from C */

  static const luaL_Reg timer_methods[] = {{"cancel", t_cancel}, {NULL, NULL}};
  ty_type_register(L, TIMER_MT, NULL, timer_methods);

  static const luaL_Reg host_methods[] = {{"every", h_every}, {"log", h_log}, {"monitor", h_monitor},
      {"monitorRecord", h_monitor_record}, {"monitorCluster", h_monitor_cluster}, {NULL, NULL}};
  static const luaL_Reg host_meta[] = {{"__index", h_index}, {NULL, NULL}};
  ty_type_register(L, HOST_MT, host_meta, host_methods);
}

int host_lua_new_host(lua_State *L) {
  lua_newuserdatauv(L, 0, 0);
  luaL_setmetatable(L, HOST_MT);
  return luaL_ref(L, LUA_REGISTRYINDEX);
}

void host_lua_push_session(lua_State *L, session *s, const char *path) {
  session_box *b = lua_newuserdatauv(L, sizeof *b, 1);
  b->s = s;
  b->id = (lua_Integer)s->id;
  lua_pushstring(L, path); /* session.path: the request path, e.g. "/sync/room-1" (rooms by path) */
  lua_setiuservalue(L, -2, 1); /* s_newindex makes it a table of fields when one is stored */
  luaL_setmetatable(L, SESSION_MT);
}

void host_lua_session_gone(lua_State *L, int box_ref) {
  lua_rawgeti(L, LUA_REGISTRYINDEX, box_ref);
  session_box *b = lua_touserdata(L, -1);
  if (b) b->s = NULL;
  lua_pop(L, 1);
}
