/* server/host.c: the game host (ty_serve). Finds the modules (each server/modules/NAME.lua
 * serves WebSocket path /NAME), loads each into its own fenced state (module.c), routes the
 * net's events to them (route.c), runs their timers, restarts and reloads on its tick, and
 * shuts down in order on SIGINT or SIGTERM. */
#include "host_private.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>

#define MODULES_MAX 256

static volatile sig_atomic_t stop_signal;
static void on_signal(int sig) { stop_signal = sig; }

/* Writes what every module queued to its store and closes it (a later read of host.storage
 * would open it again: see host_lua.c). */
static void close_stores(host *h) {
  for (uint32_t i = 0; i < h->nmodules; i++)
    if (h->modules[i].L) module_close_store(&h->modules[i]);
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

static void on_tick(void *user) {
  host *h = user;
  double started = ty_now();
  if (stop_signal && !h->stopping) {
    fprintf(stderr, "tycho serve: %s: shutting down\n", stop_signal == SIGINT ? "SIGINT" : "SIGTERM");
    host_stop(h);
  }
  double now = ty_now();
  if (h->watch && !h->stopping) ty_watch_poll(h->watch, now, host_file_changed, h);
  for (uint32_t i = 0; i < h->nmodules; i++) {
    module *m = &h->modules[i];
    /* Before the timers run: a restart frees the module's timers and packs h->timers. */
    if (m->restart_at && now >= m->restart_at && !h->stopping && m->L) module_restart(m);
    module_errors_flush(m, now);
  }
  timers_run(h, now);
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

/* --redis: joins the cluster (server/cluster.c). False when Redis cannot be reached and the
 * user did not ask to serve alone (--redis-optional). */
static bool join_cluster(host *h, const char *node) {
  if (!h->cfg.redis_url) return true;
  char err[512];
  ty_cluster_hooks hooks = {.state = cluster_state, .call = cluster_call};
  ty_cluster_relay relay = {.redis_only = h->cfg.relay_redis, .iface = h->cfg.iface, .port = h->cfg.link_port};
  h->cluster = ty_cluster_create(ty_net_loop(h->net), h->cfg.redis_url, node, &relay, &hooks, err, sizeof err);
  if (h->cluster) return true;
  if (h->cfg.redis_optional) {
    ty_log("serve_alone", "%s: serving alone (--redis-optional)", err);
    return true;
  }
  fprintf(stderr, "tycho serve: %s (without --redis, or with --redis-optional, it serves alone)\n", err);
  return false;
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

/* Clients are capped below the descriptor limit, with descriptors kept for the rest: at the
 * cap a connection is refused at once (net.c), so accept() never fails for want of one. */
static int max_clients(const host *h) {
  long long fd_was, fd_limit = fd_limit_raise(&fd_was);
  long long reserve = FD_RESERVE_BASE + FD_RESERVE_PER_MODULE * (long long)h->nmodules;
  long long fit = fd_limit - reserve > 1 ? fd_limit - reserve : 1;
  long long n = h->cfg.max_clients;
  if (n < 0) n = fit;
  else if (n > fit) {
    ty_log("serve_max_clients_lowered", "--max-clients %lld does not fit the descriptor limit %lld with %lld kept "
           "for files and stores: %lld (raise the hard limit, ulimit -Hn)", n, fd_limit, reserve, fit);
    n = fit;
  }
  if (n > INT_MAX) n = INT_MAX;
  char raised[48] = "";
  if (fd_was != fd_limit) snprintf(raised, sizeof raised, " (raised from %lld)", fd_was);
  fprintf(stderr, "tycho serve: descriptor limit %lld%s, up to %lld clients\n", fd_limit, raised, n);
  return (int)n;
}

static int cmp_name(const void *a, const void *b) { return strcmp(((const module *)a)->name, ((const module *)b)->name); }

/* One module per NAME.lua directly in the modules folder, sorted by name. False when the
 * folder cannot be read. */
static bool find_modules(host *h) {
  DIR *d = opendir(h->cfg.modules_dir);
  if (!d) {
    fprintf(stderr, "tycho serve: modules folder %s: %s\n", h->cfg.modules_dir, strerror(errno));
    return false;
  }
  h->modules = TY_MALLOC(sizeof *h->modules * MODULES_MAX);
  TY_ASSERT(h->modules);
  memset(h->modules, 0, sizeof *h->modules * MODULES_MAX);
  struct dirent *e;
  while ((e = readdir(d)) && h->nmodules < MODULES_MAX) {
    size_t len = strlen(e->d_name);
    if (e->d_name[0] == '.' || len < 5 || len - 4 >= sizeof h->modules->name || strcmp(e->d_name + len - 4, ".lua") != 0)
      continue;
    module *m = &h->modules[h->nmodules++];
    snprintf(m->name, sizeof m->name, "%.*s", (int)(len - 4), e->d_name);
  }
  closedir(d);
  qsort(h->modules, h->nmodules, sizeof *h->modules, cmp_name);
  return true;
}

int ty_serve(const ty_serve_config *cfg) {
  host h = {.cfg = *cfg, .limits = {TY_JSON_DEFAULT_DEPTH, TY_JSON_DEFAULT_ITEMS}};
  if (cfg->watch && (h.watch = ty_watch_create(0.01)) && !ty_watch_add(h.watch, cfg->modules_dir)) {
    ty_watch_destroy(h.watch);
    h.watch = NULL;
  }
  int code = 1;
  if (!find_modules(&h)) goto done;
  int clients = max_clients(&h);
  for (uint32_t i = 0; i < h.nmodules; i++)
    if (!module_load(&h, &h.modules[i])) goto done;

  ty_net_config net = {.iface = cfg->iface, .port = cfg->port, .max_frame = (size_t)cfg->max_frame,
                       .max_queue = (size_t)cfg->max_queue, .ping_secs = cfg->ping_secs,
                       .hangup_secs = cfg->ping_secs * 2, .max_clients = clients,
                       .tls_cert = cfg->tls_cert, .tls_key = cfg->tls_key};
  ty_net_events ev = {.open = route_open, .message = route_message, .close = route_close, .tick = on_tick, .http = on_http};
  h.net = ty_net_create(&net, &ev, &h);
  if (!h.net) goto done;
  char port_node[64];
  snprintf(port_node, sizeof port_node, "node-%d", ty_net_port(h.net));
  const char *node = cfg->node ? cfg->node : port_node;
  h.monitor = ty_monitor_create(node);
  if (!join_cluster(&h, node)) {
    ty_net_destroy(h.net);
    goto done;
  }
  for (uint32_t i = 0; i < h.nmodules; i++) module_start(&h.modules[i]);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
  fprintf(stderr, "tycho serve: listening on %s:%d%s (", cfg->iface, ty_net_port(h.net), cfg->tls_cert ? " with TLS" : "");
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
  code = 0;
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
