/* server/host.c: the game host. Each server/modules/NAME.lua runs in its own lua_State
 * (ty_host_create), serves WebSocket path /NAME, and is fenced in: a memory cap through
 * its own lua_Alloc, an instruction budget per callback through a count hook, and every
 * call protected with a traceback. A module that passes a cap is stopped (its sessions
 * closed with 1011) and started over in a fresh state after a backoff (1 s, doubling to
 * 60 s); the host and the other modules keep serving. Errors that clients can cause over and
 * over reach the log as one traceback, then a count a second. */
#include "serve.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "cluster.h" /* Required for: host.cluster (--redis) */
#include "lua_host.h"
#include "lua_json.h"
#include "lua_storage.h"
#include "monitor.h" /* Required for: /_monitor, host:monitor */
#include "net.h"
#include "platform/watch.h" /* Required for: hot reload of modules */

#define HOOK_STEP 10000 /* instructions between two budget checks */
#define RESTART_FIRST 1.0   /* seconds from a fence stopping a module to its restart */
#define RESTART_MAX 60.0    /* the backoff doubles up to this */
#define RESTART_HEALTHY 60.0 /* a module that ran this long since its restart starts over at 1 s */
#define ERR_QUIET 60.0      /* a caller's error is logged whole after this long without one */
#define ERR_WHOLE_PER_SEC 5 /* whole tracebacks per module and second; past it they are counted */
#define ERR_NEVER (-1e9)    /* the time of "no error yet" */

typedef struct host host;

typedef struct module {
  host *h;
  char name[64];
  lua_State *L;
  int table_ref; /* what the module returned */
  int host_ref;  /* the host object given to onStart */
  int storage_ref; /* its WorldStorage once host.storage was first read, or LUA_NOREF */
  bool dead;     /* failed to load or passed a cap: gets no more calls */
  long long mem, mem_cap;
  bool mem_refused;
  long long steps, step_cap;
  bool budget_hit;
  double started_at;    /* its last load: RESTART_HEALTHY after it the backoff resets */
  double restart_at;    /* when on_tick restarts it after a fence stopped it; 0: none due */
  double restart_delay; /* the backoff of its next restart */
  unsigned restarts;    /* automatic restarts so far */
  double err_at;        /* its last error outside any session (timers) */
  double err_second;    /* the second err_whole counts in */
  int err_whole;        /* whole tracebacks written in that second */
  unsigned long long err_hidden; /* errors counted and not written since the last summary */
  double err_summary_at;
  char err_last[200];   /* the first line of the latest error counted */
} module;

typedef struct session {
  host *h;
  module *m;
  ty_client *c;
  uint64_t id;
  int handler_ref; /* onConnect's result, or LUA_NOREF */
  int box_ref;     /* the Lua session object */
  double err_at;   /* its last error (ERR_NEVER): a session's errors are logged whole once */
  struct session *prev, *next;
} session;

typedef struct session_box {
  session *s; /* NULL once the connection is gone */
  lua_Integer id;
} session_box;

typedef struct timer {
  module *m;
  uint64_t id;
  int fn_ref;
  double interval, next;
  bool cancelled;
} timer;

typedef struct timer_box {
  host *h;
  uint64_t id;
} timer_box;

struct host {
  ty_net *net;
  module *modules;
  uint32_t nmodules;
  session *sessions;
  timer **timers;
  uint32_t ntimers, timers_cap;
  uint64_t next_timer;
  ty_json_limits limits;
  const char *data_dir; /* --data: host.storage is DIR/worlds.sqlite */
  bool stopping;
  ty_watch *watch;         /* hot reload over modules_dir; NULL with --no-watch */
  const char *modules_dir;
  ty_cluster *cluster;     /* --redis: host.cluster; NULL alone */
  ty_monitor *monitor;     /* what /_monitor shows */
};

#define SESSION_MT "tycho.Session"
#define TIMER_MT "tycho.Timer"
#define HOST_MT "tycho.Host"

static volatile sig_atomic_t stop_signal;
static void on_signal(int sig) { stop_signal = sig; }

/* ---- fences ---- */

static void *module_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  module *m = ud;
  long long old = ptr ? (long long)osize : 0;
  if (nsize == 0) {
    free(ptr);
    m->mem -= old;
    return NULL;
  }
  if ((long long)nsize > old && m->mem - old + (long long)nsize > m->mem_cap) {
    m->mem_refused = true;
    return NULL;
  }
  void *p = realloc(ptr, nsize);
  if (p) m->mem += (long long)nsize - old;
  return p;
}

static module *module_of(lua_State *L) {
  void *ud;
  lua_getallocf(L, &ud);
  return ud;
}

static void budget_hook(lua_State *L, lua_Debug *ar) {
  (void)ar;
  module *m = module_of(L);
  m->steps += HOOK_STEP;
  if (m->steps > m->step_cap) {
    m->budget_hit = true;
    /* lua_pushfstring knows %d %I %f %s %c %p %U only: a long long goes as a lua_Integer */
    luaL_error(L, "module '%s' ran past its budget of %I instructions in one call", m->name, (lua_Integer)m->step_cap);
  }
}

static void module_kill(module *m, const char *why);

/* Writes a module's error, or counts it. gate is the time of the last error of whoever the
 * call served (a session, or the module's timers), NULL for calls no client can repeat at will
 * (loading, onStart, reloads), which are always written. A gated error is written whole when
 * its caller had none for ERR_QUIET seconds and the module wrote fewer than ERR_WHOLE_PER_SEC
 * this second; otherwise it is counted, and module_errors_flush writes the count once a
 * second: one client raising on every message cannot fill the log. */
static void module_error(module *m, double *gate, const char *what, const char *msg) {
  if (!msg) msg = "(error object is not a string)";
  if (gate) {
    double now = ty_now();
    bool quiet = now - *gate >= ERR_QUIET;
    *gate = now;
    if (now - m->err_second >= 1.0) {
      m->err_second = now;
      m->err_whole = 0;
    }
    if (!quiet || m->err_whole >= ERR_WHOLE_PER_SEC) {
      m->err_hidden++;
      snprintf(m->err_last, sizeof m->err_last, "%s: %.*s", what, (int)strcspn(msg, "\n"), msg);
      return;
    }
    m->err_whole++;
  }
  fprintf(stderr, "tycho: module %s: %s: %s\n", m->name, what, msg);
}

/* The count of the errors module_error did not write, at most once a second. */
static void module_errors_flush(module *m, double now) {
  if (!m->err_hidden || now - m->err_summary_at < 1.0) return;
  ty_log("server_module_errors", "module %s: %llu more error%s not written out (one traceback per caller "
         "a minute); the latest: %s", m->name, m->err_hidden, m->err_hidden == 1 ? "" : "s", m->err_last);
  m->err_hidden = 0;
  m->err_summary_at = now;
}

/* Calls the function below nargs arguments in m's state, fenced; an error is logged through
 * module_error with gate. False on any error. */
static bool module_call_at(module *m, double *gate, int nargs, int nresults, const char *what) {
  m->steps = 0;
  m->budget_hit = m->mem_refused = false; /* a cap passed outside this call is not this call's */
  lua_sethook(m->L, budget_hook, LUA_MASKCOUNT, HOOK_STEP);
  bool ok = ty_host_try(m->L, nargs, nresults);
  lua_sethook(m->L, NULL, 0, 0);
  if (!ok) {
    module_error(m, gate, what, lua_tostring(m->L, -1));
    lua_pop(m->L, 1);
  }
  if (m->budget_hit) module_kill(m, "instruction budget");
  else if (m->mem_refused) module_kill(m, "memory cap");
  return ok && !m->dead;
}

/* module_call_at for calls that are always logged whole. */
static bool module_call(module *m, int nargs, int nresults, const char *what) {
  return module_call_at(m, NULL, nargs, nresults, what);
}

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
  lua_getfield(L, -1, "methods");
  lua_pushvalue(L, 2);
  if (lua_rawget(L, -2) != LUA_TNIL) return 1;
  lua_getiuservalue(L, 1, 1); /* fields the module stored on the session */
  lua_pushvalue(L, 2);
  lua_rawget(L, -2);
  return 1;
}

static int s_newindex(lua_State *L) {
  luaL_checkudata(L, 1, SESSION_MT);
  lua_getiuservalue(L, 1, 1);
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

static session *session_find_handler(session *s, const char *name) {
  if (s->handler_ref == LUA_NOREF) return NULL;
  lua_State *L = s->m->L;
  lua_rawgeti(L, LUA_REGISTRYINDEX, s->handler_ref);
  lua_getfield(L, -1, name);
  lua_remove(L, -2);
  if (lua_isfunction(L, -1)) return s;
  lua_pop(L, 1);
  return NULL;
}

static void send_error(ty_client *c, const char *code, const char *message) {
  json_t *j = json_pack("{s:s, s:s, s:s}", "t", "error", "code", code, "message", message);
  char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
  if (text) ty_client_send(c, text, strlen(text), false);
  free(text);
  json_decref(j);
}

/* ---- the host object ---- */

static module *check_host(lua_State *L) {
  luaL_checkudata(L, 1, HOST_MT);
  return module_of(L);
}

static timer *timer_find(host *h, uint64_t id) {
  for (uint32_t i = 0; i < h->ntimers; i++)
    if (h->timers[i]->id == id) return h->timers[i];
  return NULL;
}

/* host:every(seconds, fn) -> timer */
static int h_every(lua_State *L) {
  module *m = check_host(L);
  double secs = luaL_checknumber(L, 2);
  luaL_argcheck(L, secs >= 0.001, 2, "interval must be at least 0.001 seconds");
  luaL_checktype(L, 3, LUA_TFUNCTION);
  host *h = m->h;
  timer *t = TY_MALLOC(sizeof *t);
  TY_ASSERT(t);
  lua_pushvalue(L, 3);
  *t = (timer){.m = m, .id = ++h->next_timer, .fn_ref = luaL_ref(L, LUA_REGISTRYINDEX),
               .interval = secs, .next = ty_now() + secs};
  TY_GROW(h->timers, h->timers_cap, h->ntimers + 1);
  h->timers[h->ntimers++] = t;
  timer_box *b = lua_newuserdatauv(L, sizeof *b, 0);
  b->h = h;
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

/* host:monitor(table), host:monitorRecord(), host:monitorCluster(records): server/monitor.c */
static int h_monitor(lua_State *L) {
  module *m = check_host(L);
  return ty_monitor_lua_report(L, m->h->monitor, m->name);
}
static int h_monitor_record(lua_State *L) { return ty_monitor_lua_record(L, check_host(L)->h->monitor); }
static int h_monitor_cluster(lua_State *L) { return ty_monitor_lua_cluster(L, check_host(L)->h->monitor); }

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
    if (!make_dirs(m->h->data_dir))
      return luaL_error(L, "host.storage: cannot create the data folder %s: %s", m->h->data_dir, strerror(errno));
    lua_pushfstring(L, "%s/worlds.sqlite", m->h->data_dir);
    if (!ty_storage_push_open(L, lua_tostring(L, -1))) return luaL_error(L, "host.storage: %s", lua_tostring(L, -1));
    m->storage_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  }
  lua_rawgeti(L, LUA_REGISTRYINDEX, m->storage_ref);
  return 1;
}

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
  lua_getfield(L, -1, "methods");
  lua_pushvalue(L, 2);
  lua_rawget(L, -2);
  return 1;
}

static void open_types(lua_State *L) {
  static const luaL_Reg session_methods[] = {
      {"send", s_send}, {"sendText", s_send_text}, {"sendBinary", s_send_binary}, {"close", s_close}, {NULL, NULL}};
  luaL_newmetatable(L, SESSION_MT);
  luaL_newlib(L, session_methods);
  lua_setfield(L, -2, "methods");
  lua_pushcfunction(L, s_index);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, s_newindex);
  lua_setfield(L, -2, "__newindex");
  lua_pushcfunction(L, s_tostring);
  lua_setfield(L, -2, "__tostring");
  lua_pop(L, 1);

  static const luaL_Reg timer_methods[] = {{"cancel", t_cancel}, {NULL, NULL}};
  luaL_newmetatable(L, TIMER_MT);
  luaL_newlib(L, timer_methods);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);

  static const luaL_Reg host_methods[] = {{"every", h_every}, {"log", h_log}, {"monitor", h_monitor},
      {"monitorRecord", h_monitor_record}, {"monitorCluster", h_monitor_cluster}, {NULL, NULL}};
  luaL_newmetatable(L, HOST_MT);
  luaL_newlib(L, host_methods);
  lua_setfield(L, -2, "methods");
  lua_pushcfunction(L, h_index);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
}

/* ---- modules ---- */

static void module_kill(module *m, const char *why) {
  if (m->dead) return;
  m->dead = true;
  double now = ty_now();
  if (m->restart_delay <= 0 || now - m->started_at >= RESTART_HEALTHY) m->restart_delay = RESTART_FIRST;
  m->restart_at = now + m->restart_delay;
  ty_log("server_module_stopped", "module %s passed its %s: stopped; its sessions are closed with 1011; "
         "it restarts in %.0f s", m->name, why, m->restart_delay);
  m->restart_delay = m->restart_delay * 2 < RESTART_MAX ? m->restart_delay * 2 : RESTART_MAX;
  for (session *s = m->h->sessions; s; s = s->next)
    if (s->m == m) ty_client_close(s->c, 1011, "module stopped");
  for (uint32_t i = 0; i < m->h->ntimers; i++)
    if (m->h->timers[i]->m == m) m->h->timers[i]->cancelled = true;
}

static bool module_load(host *h, module *m, const char *dir, const char *file, long long mem_cap, long long step_cap) {
  m->h = h;
  m->table_ref = m->host_ref = m->storage_ref = LUA_NOREF;
  m->mem_cap = mem_cap;
  m->step_cap = step_cap;
  m->started_at = ty_now();
  m->err_at = ERR_NEVER;
  m->L = ty_host_create(dir);
  if (!m->L) return false;
  lua_State *L = m->L;
  m->mem = (long long)lua_gc(L, LUA_GCCOUNT) * 1024 + lua_gc(L, LUA_GCCOUNTB);
  if (m->mem_cap < m->mem * 2) m->mem_cap = m->mem * 2; /* room to run at all */
  lua_setallocf(L, module_alloc, m);
  /* Generational: most of a module's garbage is one message's decoded tables, which a minor
   * collection frees young; incremental mode let it pile up to twice the live heap (RSS). */
  lua_gc(L, LUA_GCGEN, 0, 0);
  open_types(L);
  char path[4400];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  if (luaL_loadfile(L, path) != LUA_OK) {
    fprintf(stderr, "tycho: module %s: %s\n", m->name, lua_tostring(L, -1));
    lua_pop(L, 1);
    m->dead = true;
    return true;
  }
  if (!module_call(m, 0, 1, "loading")) {
    m->dead = true;
    return true;
  }
  if (!lua_istable(L, -1)) {
    fprintf(stderr, "tycho: module %s: %s returned %s, not a table\n", m->name, path, luaL_typename(L, -1));
    lua_pop(L, 1);
    m->dead = true;
    return true;
  }
  m->table_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_newuserdatauv(L, 0, 0);
  luaL_setmetatable(L, HOST_MT);
  m->host_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  return true;
}

static bool module_push_hook(module *m, const char *name) {
  if (m->dead || m->table_ref == LUA_NOREF) return false;
  lua_rawgeti(m->L, LUA_REGISTRYINDEX, m->table_ref);
  lua_getfield(m->L, -1, name);
  lua_remove(m->L, -2);
  if (lua_isfunction(m->L, -1)) return true;
  lua_pop(m->L, 1);
  return false;
}

static module *module_route(host *h, const char *path) {
  const char *seg = path;
  while (*seg == '/') seg++;
  size_t n = strcspn(seg, "/?#");
  char name[64];
  if (n == 0) snprintf(name, sizeof name, "default");
  else if (n >= sizeof name) return NULL;
  else snprintf(name, sizeof name, "%.*s", (int)n, seg);
  for (uint32_t i = 0; i < h->nmodules; i++)
    if (strcmp(h->modules[i].name, name) == 0) return &h->modules[i];
  return NULL;
}

/* ---- net events ---- */

/* Runs in m's state under module_call: makes s's Lua session object, then runs onConnect
 * and keeps its handler table. Everything that allocates in the module's state runs here, so
 * a refused allocation (the memory cap) is an error that stops the module, not a panic. */
static int session_open(lua_State *L) {
  session *s = lua_touserdata(L, 1);
  const char *path = lua_touserdata(L, 2);
  session_box *b = lua_newuserdatauv(L, sizeof *b, 1);
  b->s = s;
  b->id = (lua_Integer)s->id;
  lua_newtable(L);
  lua_pushstring(L, path); /* session.path: the request path, e.g. "/sync/room-1" (rooms by path) */
  lua_setfield(L, -2, "path");
  lua_setiuservalue(L, -2, 1);
  luaL_setmetatable(L, SESSION_MT);
  lua_pushvalue(L, -1);
  s->box_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  if (!module_push_hook(s->m, "onConnect")) return 0;
  lua_insert(L, -2);
  lua_call(L, 1, 1);
  if (lua_istable(L, -1)) s->handler_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  return 0;
}

static void on_open(void *user, ty_client *c, const char *path) {
  host *h = user;
  module *m = module_route(h, path);
  if (!m) {
    char reason[300]; /* ty_client_close cuts it to 123 bytes of UTF-8 */
    snprintf(reason, sizeof reason, "no module serves %s", path);
    ty_client_close(c, 1008, reason);
    return;
  }
  if (m->dead) {
    ty_client_close(c, 1011, "module stopped");
    return;
  }
  session *s = TY_MALLOC(sizeof *s);
  TY_ASSERT(s);
  *s = (session){.h = h, .m = m, .c = c, .id = ty_client_id(c), .handler_ref = LUA_NOREF, .box_ref = LUA_NOREF,
                 .err_at = ERR_NEVER};
  s->next = h->sessions;
  if (h->sessions) h->sessions->prev = s;
  h->sessions = s;
  ty_client_set_user(c, s);

  lua_State *L = m->L;
  lua_pushcfunction(L, session_open);
  lua_pushlightuserdata(L, s);
  lua_pushlightuserdata(L, (void *)path);
  if (!module_call_at(m, &s->err_at, 2, 0, "onConnect") && !m->dead) ty_client_close(c, 1011, "onConnect failed");
}

typedef struct delivery {
  session *s;
  const char *data;
  size_t len;
  bool binary;
} delivery;

/* Runs in the module's state under module_call: decodes one message there (JSON text into
 * Lua values, or binary as a string) and hands it to the session's onMessage. */
static int session_deliver(lua_State *L) {
  delivery *d = lua_touserdata(L, 1);
  session *s = d->s;
  if (d->binary) {
    lua_pushlstring(L, d->data, d->len);
  } else {
    char err[256];
    ty_json_status st = ty_json_push_decoded(L, d->data, d->len, &s->h->limits, err, sizeof err);
    if (st != TY_JSON_OK) {
      send_error(s->c, ty_json_status_code(st), err);
      return 0;
    }
  }
  if (!session_find_handler(s, "onMessage")) return 0;
  lua_insert(L, -2);
  lua_call(L, 1, 0);
  return 0;
}

static void on_message(void *user, ty_client *c, const char *data, size_t len, bool binary) {
  (void)user;
  session *s = ty_client_user(c);
  if (!s || !s->m || s->m->dead) return;
  lua_State *L = s->m->L;
  delivery d = {s, data, len, binary};
  lua_pushcfunction(L, session_deliver);
  lua_pushlightuserdata(L, &d);
  module_call_at(s->m, &s->err_at, 1, 0, "onMessage");
}

/* Runs the session's onClose, when it has one, under module_call. */
static int session_closed(lua_State *L) {
  session *s = lua_touserdata(L, 1);
  if (session_find_handler(s, "onClose")) lua_call(L, 0, 0);
  return 0;
}

/* Ends s: runs its onClose (unless its module is stopped or restarted), lets go of its Lua
 * session object (which reads as closed from now on) and frees it. */
static void session_end(host *h, session *s) {
  if (s->m) { /* NULL once its module restarted in a fresh state (module_restart) */
    lua_State *L = s->m->L;
    if (!s->m->dead && s->handler_ref != LUA_NOREF) {
      lua_pushcfunction(L, session_closed);
      lua_pushlightuserdata(L, s);
      module_call_at(s->m, &s->err_at, 1, 0, "onClose");
    }
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->box_ref);
    session_box *b = lua_touserdata(L, -1);
    if (b) b->s = NULL;
    lua_pop(L, 1);
    luaL_unref(L, LUA_REGISTRYINDEX, s->box_ref);
    luaL_unref(L, LUA_REGISTRYINDEX, s->handler_ref);
  }
  ty_client_set_user(s->c, NULL);
  if (s->prev) s->prev->next = s->next;
  else h->sessions = s->next;
  if (s->next) s->next->prev = s->prev;
  TY_FREE(s);
}

static void on_close(void *user, ty_client *c) {
  session *s = ty_client_user(c);
  if (s) session_end(user, s);
}

/* Writes what every module queued to its store and closes it (a later read of host.storage
 * would open it again: see push_storage). */
static void close_stores(host *h) {
  for (uint32_t i = 0; i < h->nmodules; i++) {
    module *m = &h->modules[i];
    if (m->storage_ref == LUA_NOREF) continue;
    lua_rawgeti(m->L, LUA_REGISTRYINDEX, m->storage_ref);
    ty_storage_close_at(m->L, -1);
    lua_pop(m->L, 1);
  }
}

/* Graceful shutdown, in this order: no new connections; every module's onStop (it may still
 * send); every client marked closing with 1001, so that from here a send is a quiet no-op;
 * every session's onClose, while the others are still sessions it can tell apart; the
 * stores closed, which writes every queued save; then the loop sends the 1001 closes and
 * ends, and ty_net_destroy tears lws down with no Lua left to run. */
static void host_stop(host *h) {
  h->stopping = true;
  ty_net_stop(h->net);
  for (uint32_t i = 0; i < h->nmodules; i++) {
    module *m = &h->modules[i];
    if (module_push_hook(m, "onStop")) module_call(m, 0, 0, "onStop");
    m->err_summary_at = ERR_NEVER; /* the last count is written now */
    module_errors_flush(m, ty_now());
  }
  ty_net_close_all(h->net, 1001, "server shutting down");
  while (h->sessions) session_end(h, h->sessions);
  close_stores(h);
}

/* ---- hot reload ---- */

/* A module stopped by a cap starts over when its backoff has passed (on_tick), or on its next
 * save: its sessions (already closing with 1011) and timers let go of its state, the state is
 * closed, and the file loads into a fresh one and gets onStart, as at launch. Its old state
 * may have stopped mid-callback, so nothing of it is kept but what it saved in host.storage. */
static void module_restart(module *m) {
  host *h = m->h;
  uint32_t kept = 0;
  for (uint32_t i = 0; i < h->ntimers; i++) {
    timer *t = h->timers[i];
    if (t->m == m) TY_FREE(t); /* its fn_ref goes with the state */
    else h->timers[kept++] = t;
  }
  h->ntimers = kept;
  for (session *s = h->sessions; s; s = s->next) {
    if (s->m != m) continue;
    ty_client_close(s->c, 1011, "module stopped");
    s->m = NULL;
    s->box_ref = s->handler_ref = LUA_NOREF;
  }
  if (m->storage_ref != LUA_NOREF) {
    lua_rawgeti(m->L, LUA_REGISTRYINDEX, m->storage_ref);
    ty_storage_close_at(m->L, -1);
    lua_pop(m->L, 1);
  }
  lua_close(m->L);
  long long mem_cap = m->mem_cap, step_cap = m->step_cap;
  module fresh = {0};
  memcpy(fresh.name, m->name, sizeof fresh.name);
  fresh.restart_delay = m->restart_delay; /* the backoff outlives the state */
  fresh.restarts = m->restarts;
  fresh.err_hidden = m->err_hidden;
  fresh.err_summary_at = m->err_summary_at;
  memcpy(fresh.err_last, m->err_last, sizeof fresh.err_last);
  *m = fresh;
  char file[80];
  snprintf(file, sizeof file, "%s.lua", m->name);
  if (!module_load(h, m, h->modules_dir, file, mem_cap, step_cap)) {
    m->dead = true;
    ty_log("server_reload_failed", "module %s: cannot create a Lua state; it stays stopped", m->name);
    return;
  }
  if (m->dead) {
    if (m->restart_at) return; /* a fence stopped it again while loading: module_kill said when it retries */
    ty_log("server_reload_failed", "module %s: %s failed to load (above); it stays stopped until it is saved", m->name, file);
    return;
  }
  if (module_push_hook(m, "onStart")) {
    lua_rawgeti(m->L, LUA_REGISTRYINDEX, m->host_ref);
    if (!module_call(m, 1, 0, "onStart") && m->dead) return;
  }
  ty_log("server_module_restarted", "module %s: restarted in a fresh state after it was stopped (restart %u)", m->name,
         ++m->restarts);
}

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
    lua_newuserdatauv(L, 0, 0);
    luaL_setmetatable(L, HOST_MT);
    m->host_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    if (module_push_hook(m, "onStart")) {
      lua_rawgeti(L, LUA_REGISTRYINDEX, m->host_ref);
      module_call(m, 1, 0, "onStart");
    }
    fprintf(stderr, "tycho serve: reloaded %s in %.1f ms\n", m->name, (ty_now() - t0) * 1000);
    return;
  }
  int fresh = lua_gettop(L);
  lua_getglobal(L, "require");
  lua_pushliteral(L, "tycho.reload");
  if (!ty_host_call(L, 1, 1, "loading tycho.reload")) {
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

/* A file under modules_dir settled: NAME.lua directly in it reloads module NAME. */
static void on_file_changed(const char *path, bool removed, void *user) {
  host *h = user;
  size_t dl = strlen(h->modules_dir);
  while (dl > 1 && h->modules_dir[dl - 1] == '/') dl--;
  if (strncmp(path, h->modules_dir, dl) != 0 || path[dl] != '/') return;
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

static void on_tick(void *user) {
  host *h = user;
  double started = ty_now();
  if (stop_signal && !h->stopping) {
    fprintf(stderr, "tycho serve: %s: shutting down\n", stop_signal == SIGINT ? "SIGINT" : "SIGTERM");
    host_stop(h);
  }
  double now = ty_now();
  if (h->watch && !h->stopping) ty_watch_poll(h->watch, now, on_file_changed, h);
  for (uint32_t i = 0; i < h->nmodules; i++) {
    module *m = &h->modules[i];
    /* Before the timers run: a restart frees the module's timers and packs h->timers. */
    if (m->restart_at && now >= m->restart_at && !h->stopping && m->L) module_restart(m);
    module_errors_flush(m, now);
  }
  /* Timers added by a timer run from the next tick on: walk only those there now. */
  uint32_t n = h->ntimers;
  for (uint32_t i = 0; i < n; i++) {
    timer *t = h->timers[i];
    if (t->cancelled || h->stopping || t->next > now) continue;
    t->next = now + t->interval;
    lua_rawgeti(t->m->L, LUA_REGISTRYINDEX, t->fn_ref);
    module_call_at(t->m, &t->m->err_at, 0, 0, "timer");
  }
  uint32_t kept = 0;
  for (uint32_t i = 0; i < h->ntimers; i++) {
    timer *t = h->timers[i];
    if (t->cancelled) {
      luaL_unref(t->m->L, LUA_REGISTRYINDEX, t->fn_ref);
      TY_FREE(t);
    } else {
      h->timers[kept++] = t;
    }
  }
  h->ntimers = kept;
  int conns;
  uint64_t received, sent;
  ty_net_counts(h->net, &conns, &received, &sent);
  ty_monitor_tick(h->monitor, ty_now(), ty_now() - started, received, sent, conns);
}

/* GET /_monitor: the page; GET /_monitor/api: its figures as JSON (server/monitor.c). */
static char *on_http(void *user, const char *path, const char **type, size_t *len) {
  host *h = user;
  char *body = NULL;
  if (strcmp(path, "/_monitor") == 0 || strcmp(path, "/_monitor/") == 0) {
    *type = "text/html; charset=utf-8";
    return ty_monitor_page(len);
  }
  if (strcmp(path, "/_monitor/api") == 0 && (body = ty_monitor_api(h->monitor))) {
    *type = "application/json";
    *len = strlen(body);
  }
  return body;
}

/* ---- the cluster's way into a module (server/cluster.c) ---- */

static lua_State *cluster_state(void *mod) {
  module *m = mod;
  return m->dead || m->h->stopping ? NULL : m->L;
}

static void cluster_call(void *mod, int nargs) {
  module *m = mod;
  module_call_at(m, &m->err_at, nargs, 0, "cluster");
}

/* ---- the command ---- */

static void serve_usage(FILE *f) {
  fprintf(f,
          "usage: tycho serve [--port 8787] [--host 127.0.0.1] [--modules server/modules] [--data data]\n"
          "                   [--max-frame BYTES] [--max-queue BYTES] [--max-memory BYTES]\n"
          "                   [--max-instructions N] [--max-clients N] [--ping SECS]\n"
          "                   [--tls-cert FILE --tls-key FILE] [--no-watch]\n"
          "                   [--redis redis://HOST:PORT [--node NAME] [--redis-optional]]\n"
          "Without --modules: ./server/modules when there is one, else the modules that come\n"
          "with tycho (its share/tycho/server/modules).\n");
}

/* The modules folder when --modules is not given: the project's server/modules (the current
 * folder's), else the bundled one beside the engine's scripts, so an installed tycho serves
 * from any folder. */
static const char *default_modules_dir(char *buf, size_t len) {
  struct stat st;
  if (stat("server/modules", &st) == 0 && S_ISDIR(st.st_mode)) return "server/modules";
  const char *root = ty_host_root();
  if (root) {
    snprintf(buf, len, "%s/server/modules", root);
    if (stat(buf, &st) == 0 && S_ISDIR(st.st_mode)) return buf;
  }
  return "server/modules"; /* reported as missing below */
}

static bool parse_size(const char *s, long long *out) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (errno || end == s || v < 0) return false;
  if (*end == 'k' || *end == 'K') v *= 1024, end++;
  else if (*end == 'm' || *end == 'M') v *= 1024 * 1024, end++;
  if (*end) return false;
  *out = v;
  return true;
}

/* Descriptors a host needs besides its clients: stdio, the event loop's and lws's own, the
 * listening socket, the watch, files modules read (as Redis keeps 32), and per module its
 * store (sqlite's database, WAL and shared-memory files) and one to spare. */
#define FD_RESERVE_BASE 32
#define FD_RESERVE_PER_MODULE 4
#define FD_LIMIT_MAX (1 << 20) /* lws sizes its tables by the limit: no more than this */

/* Raises the soft descriptor limit to the hard one (capped at FD_LIMIT_MAX), as Redis does at
 * start, and returns the limit in force; *was is the limit found. */
static long long fd_limit_raise(long long *was) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return *was = 1024;
  *was = rl.rlim_cur == RLIM_INFINITY ? FD_LIMIT_MAX : (long long)rl.rlim_cur;
  rlim_t want = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > FD_LIMIT_MAX ? FD_LIMIT_MAX : rl.rlim_max;
  if (want <= rl.rlim_cur) return *was;
  rl.rlim_cur = want;
  return setrlimit(RLIMIT_NOFILE, &rl) == 0 ? (long long)want : *was;
}

static int cmp_name(const void *a, const void *b) { return strcmp(((const module *)a)->name, ((const module *)b)->name); }

int cmd_serve(int argc, char **argv) {
  bool no_watch = false, redis_optional = false;
  const char *dir = NULL, *iface = "127.0.0.1", *data_dir = "data", *tls_cert = NULL, *tls_key = NULL;
  const char *redis_url = NULL, *node = NULL; /* --redis, --node: a cluster (server/cluster.c) */
  long long port = 8787, max_frame = 64 * 1024, max_queue = 1024 * 1024, max_mem = 64 * 1024 * 1024,
            max_steps = 100 * 1000 * 1000, ping = 20, max_clients = -1;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    long long *num = NULL;
    if (strcmp(a, "--no-watch") == 0 || strcmp(a, "--redis-optional") == 0) {
      *(a[2] == 'n' ? &no_watch : &redis_optional) = true;
      continue;
    }
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      serve_usage(stdout);
      return 0;
    }
    if (strcmp(a, "--port") == 0) num = &port;
    else if (strcmp(a, "--max-frame") == 0) num = &max_frame;
    else if (strcmp(a, "--max-queue") == 0) num = &max_queue;
    else if (strcmp(a, "--max-memory") == 0) num = &max_mem;
    else if (strcmp(a, "--max-instructions") == 0) num = &max_steps;
    else if (strcmp(a, "--ping") == 0) num = &ping;
    else if (strcmp(a, "--max-clients") == 0) num = &max_clients;
    else if ((strcmp(a, "--tls-cert") == 0 || strcmp(a, "--tls-key") == 0) && v) {
      *(a[6] == 'c' ? &tls_cert : &tls_key) = v;
      i++;
      continue;
    }
    else if ((strcmp(a, "--redis") == 0 || strcmp(a, "--node") == 0) && v) {
      *(a[2] == 'r' ? &redis_url : &node) = v;
      i++;
      continue;
    }
    else if ((strcmp(a, "--modules") == 0 || strcmp(a, "--host") == 0 || strcmp(a, "--data") == 0) && v) {
      if (a[2] == 'm') dir = v;
      else if (a[2] == 'h') iface = v;
      else data_dir = v;
      i++;
      continue;
    } else {
      fprintf(stderr, "tycho serve: unknown option '%s'\n", a);
      serve_usage(stderr);
      return 2;
    }
    if (!v || !parse_size(v, num)) {
      fprintf(stderr, "tycho serve: %s needs a non-negative number\n", a);
      return 2;
    }
    i++;
  }
  if (!tls_cert != !tls_key) {
    fprintf(stderr, "tycho serve: --tls-cert and --tls-key go together\n");
    return 2;
  }
  if (port > 65535 || max_frame < 16 || ping < 1 || ping > 30000 || max_clients == 0) {
    fprintf(stderr, "tycho serve: --port must be 0..65535, --max-frame at least 16, --ping 1..30000, --max-clients at least 1\n");
    return 2;
  }

  char bundled[PATH_MAX];
  if (!dir) {
    dir = default_modules_dir(bundled, sizeof bundled);
    fprintf(stderr, "tycho serve: modules from %s (%s)\n", dir,
            dir == bundled ? "the ones that come with tycho: no server/modules here" : "this folder's server/modules");
  }
  host h = {.limits = {TY_JSON_DEFAULT_DEPTH, TY_JSON_DEFAULT_ITEMS}, .data_dir = data_dir, .modules_dir = dir};
  if (!no_watch && (h.watch = ty_watch_create(0.01)) && !ty_watch_add(h.watch, dir)) {
    ty_watch_destroy(h.watch);
    h.watch = NULL;
  }
  DIR *d = opendir(dir);
  if (!d) {
    fprintf(stderr, "tycho serve: modules folder %s: %s\n", dir, strerror(errno));
    return 1;
  }
  struct dirent *e;
  uint32_t cap = 0;
  char *names[256];
  uint32_t nnames = 0;
  while ((e = readdir(d)) && nnames < 256) {
    size_t len = strlen(e->d_name);
    if (e->d_name[0] == '.' || len < 5 || len - 4 >= 64 || strcmp(e->d_name + len - 4, ".lua") != 0) continue;
    names[nnames++] = strdup(e->d_name);
  }
  closedir(d);
  h.modules = NULL;
  TY_GROW(h.modules, cap, nnames ? nnames : 1);
  memset(h.modules, 0, sizeof *h.modules * (nnames ? nnames : 1));
  for (uint32_t i = 0; i < nnames; i++) snprintf(h.modules[i].name, sizeof h.modules[i].name, "%.*s", (int)(strlen(names[i]) - 4), names[i]);
  h.nmodules = nnames;
  qsort(h.modules, h.nmodules, sizeof *h.modules, cmp_name);
  for (uint32_t i = 0; i < nnames; i++) free(names[i]);

  /* Clients are capped below the descriptor limit, with descriptors kept for the rest: at the
   * cap a connection is refused at once (net.c), so accept() never fails for want of one. */
  long long fd_was, fd_limit = fd_limit_raise(&fd_was);
  long long reserve = FD_RESERVE_BASE + FD_RESERVE_PER_MODULE * (long long)h.nmodules;
  long long fit = fd_limit - reserve > 1 ? fd_limit - reserve : 1;
  if (max_clients < 0) max_clients = fit;
  else if (max_clients > fit) {
    ty_log("serve_max_clients_lowered", "--max-clients %lld does not fit the descriptor limit %lld with %lld kept "
           "for files and stores: %lld (raise the hard limit, ulimit -Hn)", max_clients, fd_limit, reserve, fit);
    max_clients = fit;
  }
  if (max_clients > INT_MAX) max_clients = INT_MAX;
  char raised[48] = "";
  if (fd_was != fd_limit) snprintf(raised, sizeof raised, " (raised from %lld)", fd_was);
  fprintf(stderr, "tycho serve: descriptor limit %lld%s, up to %lld clients\n", fd_limit, raised, max_clients);

  int code = 0;
  for (uint32_t i = 0; i < h.nmodules; i++) {
    char file[80];
    snprintf(file, sizeof file, "%s.lua", h.modules[i].name);
    if (!module_load(&h, &h.modules[i], dir, file, max_mem, max_steps)) {
      code = 1;
      goto done;
    }
  }

  ty_net_config cfg = {.iface = iface, .port = (int)port, .max_frame = (size_t)max_frame,
                       .max_queue = (size_t)max_queue, .ping_secs = (int)ping, .hangup_secs = (int)ping * 2,
                       .max_clients = (int)max_clients,
                       .tls_cert = tls_cert, .tls_key = tls_key};
  ty_net_events ev = {.open = on_open, .message = on_message, .close = on_close, .tick = on_tick, .http = on_http};
  h.net = ty_net_create(&cfg, &ev, &h);
  if (!h.net) {
    code = 1;
    goto done;
  }
  char name[64];
  if (!node) snprintf(name, sizeof name, "node-%d", ty_net_port(h.net));
  h.monitor = ty_monitor_create(node ? node : name);
  if (redis_url) {
    char err[512];
    ty_cluster_hooks hooks = {.state = cluster_state, .call = cluster_call};
    h.cluster = ty_cluster_create(ty_net_loop(h.net), redis_url, node ? node : name, &hooks, err, sizeof err);
    if (!h.cluster && redis_optional) {
      ty_log("serve_alone", "%s: serving alone (--redis-optional)", err);
    } else if (!h.cluster) {
      fprintf(stderr, "tycho serve: %s (without --redis, or with --redis-optional, it serves alone)\n", err);
      ty_net_destroy(h.net);
      code = 1;
      goto done;
    }
  }
  for (uint32_t i = 0; i < h.nmodules; i++) {
    module *m = &h.modules[i];
    if (!module_push_hook(m, "onStart")) continue;
    lua_rawgeti(m->L, LUA_REGISTRYINDEX, m->host_ref);
    module_call(m, 1, 0, "onStart");
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
  fprintf(stderr, "tycho serve: listening on %s:%d%s (", iface, ty_net_port(h.net), tls_cert ? " with TLS" : "");
  for (uint32_t i = 0; i < h.nmodules; i++)
    fprintf(stderr, "%s/%s%s", i ? ", " : "", h.modules[i].name, h.modules[i].dead ? " [failed]" : "");
  fprintf(stderr, ")\n");
  ty_net_run(h.net);
  ty_cluster_destroy(h.cluster); /* before the modules' states close: its callbacks are dropped */
  h.cluster = NULL;
  ty_net_destroy(h.net); /* every session ended in host_stop: no Lua runs while lws tears down */
  ty_watch_destroy(h.watch);
  h.watch = NULL;
  close_stores(&h); /* closed in host_stop already, unless the loop ended some other way */
  fprintf(stderr, "tycho serve: stopped\n");
done:
  ty_watch_destroy(h.watch);
  for (uint32_t i = 0; i < h.ntimers; i++) TY_FREE(h.timers[i]);
  TY_FREE(h.timers);
  for (uint32_t i = 0; i < h.nmodules; i++)
    if (h.modules[i].L) lua_close(h.modules[i].L);
  TY_FREE(h.modules);
  ty_monitor_destroy(h.monitor);
  return code;
}
