/* server/serve.h: `tycho serve`, the WebSocket game host over Lua modules (server/host.c).
 * engine/app/serve_cmd.c reads the command line into a ty_serve_config; ty_serve runs it. */
#ifndef TY_SERVE_H
#define TY_SERVE_H

#include <stdbool.h>

typedef struct ty_serve_config {
  const char *iface;       /* the address to listen on */
  int port;                /* 0: any free port */
  const char *modules_dir; /* server/modules: NAME.lua serves /NAME */
  const char *data_dir;    /* host.storage is DIR/worlds.sqlite */
  long long max_frame;     /* bytes of one message */
  long long max_queue;     /* bytes queued to one client */
  long long max_memory;    /* bytes of one module's Lua state */
  long long max_instructions; /* one call into a module */
  long long max_clients;   /* -1: as many as the descriptor limit allows */
  int ping_secs;           /* a quiet client is pinged after this, dropped after twice this */
  const char *tls_cert, *tls_key; /* both or neither */
  bool watch;              /* reload a module when its file is saved */
  const char *redis_url;   /* --redis: join a cluster (server/cluster.c); NULL: serve alone */
  const char *node;        /* --node: this process's name in the cluster; NULL: node-PORT */
  bool redis_optional;     /* --redis-optional: serve alone when Redis cannot be reached */
  bool relay_redis;        /* --relay redis: relay through Redis pub/sub alone (no direct links) */
  int link_port;           /* --link-port: the direct links' port on iface (0: any free one) */
} ty_serve_config;

/* Runs the host until SIGINT or SIGTERM. Returns the process exit code: 0 after a clean
 * shutdown, 1 when the host cannot start. */
int ty_serve(const ty_serve_config *cfg);

/* The command line's entry (engine/app/serve_cmd.c): argv holds the options after "serve".
 * Returns the process exit code: ty_serve's, or 2 on a usage error. */
int cmd_serve(int argc, char **argv);

#endif
