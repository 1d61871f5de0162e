/* server/module.c: a module's life. Each server/modules/NAME.lua runs in a lua_State of its
 * own (ty_host_create_module: no renderer, window, input, audio or physics) and is fenced
 * in: a memory cap through its own lua_Alloc, and an instruction budget per call through
 * bindings/lua_fence.c, which raises at every instruction once spent so that no pcall in the
 * module can keep catching it; every call is protected with a traceback. A module that
 * passes a cap is stopped (its sessions closed with 1011) and started over in a fresh state
 * after a backoff (1 s, doubling to 60 s); the host and the other modules keep serving.
 * Errors that clients can cause over and over reach the log as one traceback, then a count a
 * second. Its timers live here too: they run on the host's tick. */
#include "host_private.h"

#include <string.h>

#include "lua_host.h"
#include "lua_storage.h" /* Required for: closing a module's store */

#define RESTART_FIRST 1.0    /* seconds from a fence stopping a module to its restart */
#define RESTART_MAX 60.0     /* the backoff doubles up to this */
#define RESTART_HEALTHY 60.0 /* a module that ran this long since its restart starts over at 1 s */
#define ERR_QUIET 60.0       /* a caller's error is logged whole after this long without one */
#define ERR_WHOLE_PER_SEC 5  /* whole tracebacks per module and second; past it they are counted */

/* ---- fences ---- */

static void *module_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  module *m = ud;
  long long old = ptr ? (long long)osize : 0;
  if (nsize == 0) {
    free(ptr);
    m->mem -= old;
    return NULL;
  }
  /* The cap holds the module's calls (fence.cur: one is running); the host's own work in the
   * state between them (its references, its objects) is never refused. */
  if (m->fence.cur && (long long)nsize > old && m->mem - old + (long long)nsize > m->mem_cap) {
    m->mem_refused = true;
    return NULL;
  }
  void *p = realloc(ptr, nsize);
  if (!p) return NULL;
  m->mem += (long long)nsize - old;
  /* Memory a call allocates is work the fence charges (fence.cur: a call is running). */
  if (m->fence.cur && (long long)nsize > old) ty_fence_note_alloc(&m->fence, (size_t)((long long)nsize - old));
  return p;
}

module *module_of(lua_State *L) {
  void *ud;
  lua_getallocf(L, &ud);
  return ud;
}

/* Writes a module's error, or counts it. gate is the time of the last error of whoever the
 * call served, NULL for calls no client can repeat at will (loading, onStart, reloads), which
 * are always written. A gated error is written whole when its caller had none for ERR_QUIET
 * seconds and the module wrote fewer than ERR_WHOLE_PER_SEC this second; otherwise it is
 * counted, and module_errors_flush writes the count once a second: one client raising on
 * every message cannot fill the log. */
static void module_error(module *m, double *gate, const char *what, const char *msg) {
  if (!msg) msg = "(error object is not a string)"; /* never from ty_msgh, which always writes one */
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

void module_errors_flush(module *m, double now) {
  if (!m->err_hidden || now - m->err_summary_at < 1.0) return;
  ty_log("server_module_errors", "module %s: %llu more error%s not written out (one traceback per caller "
         "a minute); the latest: %s", m->name, m->err_hidden, m->err_hidden == 1 ? "" : "s", m->err_last);
  m->err_hidden = 0;
  m->err_summary_at = now;
}

bool module_call_at(module *m, double *gate, int nargs, int nresults, const char *what) {
  m->mem_refused = false; /* a cap passed outside this call is not this call's */
  ty_fence_arm(&m->fence, m->L);
  bool ok = ty_pcall(m->L, nargs, nresults); /* the message and the user's traceback (ty_msgh) */
  ty_fence_disarm(&m->fence);
  if (!ok) {
    module_error(m, gate, what, lua_tostring(m->L, -1));
    lua_pop(m->L, 1);
  }
  if (m->fence.exceeded) module_kill(m, "instruction budget");
  else if (m->mem_refused) module_kill(m, "memory cap");
  return ok && !m->dead;
}

bool module_call(module *m, int nargs, int nresults, const char *what) {
  return module_call_at(m, NULL, nargs, nresults, what);
}

/* ---- life ---- */

void module_kill(module *m, const char *why) {
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

bool module_load(host *h, module *m) {
  m->h = h;
  m->table_ref = m->host_ref = m->storage_ref = LUA_NOREF;
  m->mem_cap = h->cfg.max_memory;
  m->fence.limit = (uint64_t)h->cfg.max_instructions;
  /* lua_pushfstring knows %d %I %f %s %c %p %U only: a long long goes as a lua_Integer */
  snprintf(m->over_budget, sizeof m->over_budget, "module '%s' ran past its budget of %lld instructions in one call",
           m->name, h->cfg.max_instructions);
  m->fence.limit_why = m->over_budget;
  m->fence.lazy = true; /* a call gets the count hook only past a grace: see lua_fence.c */
  m->started_at = ty_now();
  m->err_at = ERR_NEVER;
  m->L = ty_host_create_module(h->cfg.modules_dir);
  if (!m->L) return false;
  lua_State *L = m->L;
  m->mem = (long long)lua_gc(L, LUA_GCCOUNT) * 1024 + lua_gc(L, LUA_GCCOUNTB);
  lua_setallocf(L, module_alloc, m);
  ty_fence_install(L, &m->fence);
  ty_fence_open_guards(L);
  /* Generational: most of a module's garbage is one message's decoded tables, which a minor
   * collection frees young; incremental mode let it pile up to twice the live heap (RSS). */
  lua_gc(L, LUA_GCGEN, 0, 0);
  host_lua_open(L);
  if (m->mem >= m->mem_cap) {
    ty_log("server_module_memory", "module %s: a fresh module state takes %lld bytes, more than --max-memory %lld: "
           "it cannot run (raise --max-memory)", m->name, m->mem, m->mem_cap);
    m->dead = true;
    return true;
  }
  char path[4400];
  snprintf(path, sizeof path, "%s/%s.lua", h->cfg.modules_dir, m->name);
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
  m->host_ref = host_lua_new_host(L);
  return true;
}

bool module_push_hook(module *m, const char *name) {
  if (m->dead || m->table_ref == LUA_NOREF) return false;
  lua_rawgeti(m->L, LUA_REGISTRYINDEX, m->table_ref);
  lua_getfield(m->L, -1, name);
  lua_remove(m->L, -2);
  if (lua_isfunction(m->L, -1)) return true;
  lua_pop(m->L, 1);
  return false;
}

bool module_start(module *m) {
  if (!module_push_hook(m, "onStart")) return !m->dead;
  lua_rawgeti(m->L, LUA_REGISTRYINDEX, m->host_ref);
  return module_call(m, 1, 0, "onStart");
}

void module_close_store(module *m) {
  if (m->storage_ref == LUA_NOREF) return;
  lua_rawgeti(m->L, LUA_REGISTRYINDEX, m->storage_ref);
  ty_storage_close_at(m->L, -1);
  lua_pop(m->L, 1);
}

/* A module stopped by a cap starts over when its backoff has passed (the host's tick), or on
 * its next save: its sessions (already closing with 1011) and timers let go of its state, the
 * state is closed, and the file loads into a fresh one and gets onStart, as at launch. Its old
 * state may have stopped mid-callback, so nothing of it is kept but what it saved in
 * host.storage. */
void module_restart(module *m) {
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
  module_close_store(m);
  ty_fence_stop(m->L); /* its finalizers get no time: the state may be the one that ran away */
  lua_close(m->L);
  module fresh = {0};
  memcpy(fresh.name, m->name, sizeof fresh.name);
  fresh.restart_delay = m->restart_delay; /* the backoff outlives the state */
  fresh.restarts = m->restarts;
  fresh.err_hidden = m->err_hidden;
  fresh.err_summary_at = m->err_summary_at;
  memcpy(fresh.err_last, m->err_last, sizeof fresh.err_last);
  *m = fresh;
  if (!module_load(h, m)) {
    m->dead = true;
    ty_log("server_reload_failed", "module %s: cannot create a Lua state; it stays stopped", m->name);
    return;
  }
  if (m->dead) {
    if (m->restart_at) return; /* a fence stopped it again while loading: module_kill said when it retries */
    ty_log("server_reload_failed", "module %s: %s.lua failed to load (above); it stays stopped until it is saved",
           m->name, m->name);
    return;
  }
  if (!module_start(m) && m->dead) return;
  ty_log("server_module_restarted", "module %s: restarted in a fresh state after it was stopped (restart %u)", m->name,
         ++m->restarts);
}

/* ---- timers ---- */

timer *timer_add(module *m, int fn_ref, double secs) {
  host *h = m->h;
  timer *t = TY_MALLOC(sizeof *t);
  TY_ASSERT(t);
  *t = (timer){.m = m, .id = ++h->next_timer, .fn_ref = fn_ref, .interval = secs, .next = ty_now() + secs};
  TY_GROW(h->timers, h->timers_cap, h->ntimers + 1);
  h->timers[h->ntimers++] = t;
  return t;
}

timer *timer_find(host *h, uint64_t id) {
  for (uint32_t i = 0; i < h->ntimers; i++)
    if (h->timers[i]->id == id) return h->timers[i];
  return NULL;
}

void timers_run(host *h, double now) {
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
}
