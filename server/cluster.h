/* server/cluster.h: `host.cluster`, the Lua face of the Redis connection (server/redis.c)
 * that `tycho serve --redis URL --node NAME` opens, for the modules' cluster logic
 * (scripts/tycho/server/cluster.lua: leases, presence, relay). */
#ifndef TY_CLUSTER_H
#define TY_CLUSTER_H

#include <lua.h>
#include <stdbool.h>
#include <stddef.h>

struct ev_loop;
typedef struct ty_cluster ty_cluster;

/* How the cluster reaches a module without knowing the host's types. */
typedef struct ty_cluster_hooks {
  /* The module's state now, or NULL while it is stopped: a callback made for another state
   * (one the module had before a restart) is dropped. */
  lua_State *(*state)(void *mod);
  /* Calls the function under nargs arguments on the state's stack, fenced as a timer is. */
  void (*call)(void *mod, int nargs);
} ty_cluster_hooks;

/* How the relay reaches other processes: over direct links (server/peer_link.h) listening
 * on iface:port (port 0: any), or, with redis_only, through Redis pub/sub alone. */
typedef struct ty_cluster_relay {
  bool redis_only;
  const char *iface;
  int port;
} ty_cluster_relay;

/* Connects to url as node (a name for the logs and the monitor). NULL with a message in err
 * when Redis cannot be reached or url is wrong. A link listener that cannot be made is logged
 * and leaves the relay to pub/sub. */
ty_cluster *ty_cluster_create(struct ev_loop *loop, const char *url, const char *node, const ty_cluster_relay *relay,
                              const ty_cluster_hooks *hooks, char *err, size_t errsz);
void ty_cluster_destroy(ty_cluster *c);
/* Pushes the module's host.cluster object (made on first use). */
int ty_cluster_push(lua_State *L, ty_cluster *c, void *mod);

#endif
