/* server/host_private.h: what the rooms of the game host share (private to server/).
 *
 *   host.c      the host: starting, the tick, shutdown (ty_serve)
 *   module.c    a module's life: its fenced state, its calls, errors, stop and restart, timers
 *   reload.c    hot reload of a module's file in its running state
 *   host_lua.c  what a module's Lua sees of the host: Session, Timer, Host
 *   route.c     paths to modules, and the net's open/message/close events to sessions
 *
 * Each module runs in a lua_State of its own, fenced by bindings/lua_fence.c (an
 * instruction budget per call that no pcall can catch its way past) and a memory cap (its
 * own lua_Alloc). */
#ifndef TY_HOST_PRIVATE_H
#define TY_HOST_PRIVATE_H

#include "serve.h"

#include "lua_fence.h"
#include "lua_json.h"
#include "cluster.h" /* Required for: host.cluster (--redis) */
#include "monitor.h" /* Required for: /_monitor, host:monitor */
#include "net.h"
#include "platform/watch.h" /* Required for: hot reload of modules */

#define ERR_NEVER (-1e9) /* the time of "no error yet" */

typedef struct host host;

typedef struct module {
  ty_fence fence; /* its instruction budget per call; the state's extra space points here */
  host *h;
  char name[64];
  char over_budget[160]; /* the error the fence raises past its budget */
  lua_State *L;
  int table_ref;   /* what the module returned */
  int host_ref;    /* the host object given to onStart */
  int storage_ref; /* its WorldStorage once host.storage was first read, or LUA_NOREF */
  bool dead;       /* failed to load or passed a cap: gets no more calls */
  long long mem, mem_cap;
  bool mem_refused;
  double started_at;    /* its last load: RESTART_HEALTHY after it the backoff resets */
  double restart_at;    /* when on_tick restarts it after a fence stopped it; 0: none due */
  double restart_delay; /* the backoff of its next restart */
  unsigned restarts;    /* automatic restarts so far */
  double err_at;        /* its last error outside any session (timers) */
  double err_second;    /* the second err_whole counts in */
  int err_whole;        /* whole tracebacks written in that second */
  unsigned long long err_hidden; /* errors counted and not written since the last summary */
  double err_summary_at;
  char err_last[200]; /* the first line of the latest error counted */
} module;

typedef struct session {
  host *h;
  module *m; /* NULL once its module restarted in a fresh state */
  ty_client *c;
  uint64_t id;
  int handler_ref; /* onConnect's result, or LUA_NOREF */
  int box_ref;     /* the Lua session object */
  double err_at;   /* its last error (ERR_NEVER): a session's errors are logged whole once */
  struct session *prev, *next;
} session;

typedef struct timer {
  module *m;
  uint64_t id;
  int fn_ref;
  double interval, next;
  bool cancelled;
} timer;

struct host {
  ty_serve_config cfg;
  ty_net *net;
  module *modules;
  uint32_t nmodules;
  session *sessions;
  timer **timers;
  uint32_t ntimers, timers_cap;
  uint64_t next_timer;
  ty_json_limits limits;
  bool stopping;
  ty_watch *watch; /* hot reload over cfg.modules_dir; NULL with watch off */
  ty_cluster *cluster; /* --redis: host.cluster; NULL alone */
  ty_monitor *monitor; /* what /_monitor shows */
};

/* ---- module.c ---- */

module *module_of(lua_State *L);
/* Makes m's fenced state and runs NAME.lua from the modules folder in it. False only when no
 * state could be made; a module that fails to load is marked dead, with the reason logged. */
bool module_load(host *h, module *m);
/* Runs m's onStart(host), when it has one: the one way a module starts, at launch, on its
 * first good reload and after a restart. False when it raised or a fence stopped it. */
bool module_start(module *m);
/* Pushes m's hook `name` and returns true when it is a function (else pushes nothing). */
bool module_push_hook(module *m, const char *name);
/* Calls the function below nargs arguments in m's state, fenced. gate is the time of the last
 * error of whoever the call served (a session, or the module's timers), NULL for calls no
 * client can repeat at will, which are always logged whole. False on any error. */
bool module_call_at(module *m, double *gate, int nargs, int nresults, const char *what);
bool module_call(module *m, int nargs, int nresults, const char *what);
/* Stops m after it passed a cap (why): its sessions close with 1011, its timers stop, and it
 * restarts after a backoff. */
void module_kill(module *m, const char *why);
/* Starts m over in a fresh state (after a fence stopped it). */
void module_restart(module *m);
/* Writes the count of m's errors that were not written, at most once a second. */
void module_errors_flush(module *m, double now);
/* Writes what m queued to its store and closes it. */
void module_close_store(module *m);

/* A timer of m calling the function held at fn_ref every secs seconds. */
timer *timer_add(module *m, int fn_ref, double secs);
timer *timer_find(host *h, uint64_t id);
/* Runs the timers due at now, then frees the cancelled ones. */
void timers_run(host *h, double now);

/* ---- reload.c ---- */

/* A file under the modules folder settled (a platform/watch.h callback, user: the host). */
void host_file_changed(const char *path, bool removed, void *user);

/* ---- host_lua.c ---- */

/* Registers the Session, Timer and Host types in L. */
void host_lua_open(lua_State *L);
/* A new Host object for a module's onStart, held in the registry: its reference. */
int host_lua_new_host(lua_State *L);
/* Pushes a new Session object for s, with session.path = path. */
void host_lua_push_session(lua_State *L, session *s, const char *path);
/* The Session object at box_ref reads as closed from now on. */
void host_lua_session_gone(lua_State *L, int box_ref);

/* ---- route.c ---- */

/* The net's events, with the host as their user pointer. */
void route_open(void *user, ty_client *c, const char *path);
void route_message(void *user, ty_client *c, const char *data, size_t len, bool binary);
void route_close(void *user, ty_client *c);
/* Ends s: runs its onClose (unless its module is stopped or restarted), lets go of its Lua
 * session object and frees it. */
void session_end(host *h, session *s);

#endif
