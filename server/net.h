/* server/net.h: the WebSocket transport under the game host: one libwebsockets context,
 * its listening socket, per-client send queues and close codes, behind a few functions
 * and a void *user pointer (redis ae.h style). Everything runs on one thread. */
#ifndef TY_NET_H
#define TY_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ev_loop;
typedef struct ty_net ty_net;
typedef struct ty_client ty_client;

typedef struct ty_net_config {
  const char *iface;  /* address to bind ("127.0.0.1", "0.0.0.0") */
  int port;           /* 0 picks a free one: see ty_net_port */
  size_t max_frame;   /* a message larger than this is closed with 1009 before it is whole */
  size_t max_queue;   /* bytes queued to one client; past it the client is dropped with 1008 */
  int ping_secs;      /* idle seconds before the server pings */
  int hangup_secs;    /* idle seconds (no pong, no data) before the connection is dropped */
  int max_clients;    /* open connections (handshaken or not); one past it is refused at once */
  const char *tls_cert; /* PEM certificate (chain) file: serves wss:// when set with tls_key */
  const char *tls_key;  /* PEM private key file */
} ty_net_config;

typedef struct ty_net_events {
  /* A client finished its handshake on path (no query string). */
  void (*open)(void *user, ty_client *c, const char *path);
  /* One whole message (all fragments), at most max_frame bytes. */
  void (*message)(void *user, ty_client *c, const char *data, size_t len, bool binary);
  /* The connection is gone; c is freed right after. */
  void (*close)(void *user, ty_client *c);
  /* About every 10 ms: timers and signal checks. */
  void (*tick)(void *user);
  /* A plain HTTP GET of path (no WebSocket upgrade): the body (malloc'd; freed here) and its
   * *type, or NULL for lws's default answer. May be NULL. */
  char *(*http)(void *user, const char *path, const char **type, size_t *len);
} ty_net_events;

/* Binds and listens. NULL (with a message on stderr) when it cannot. Free with ty_net_destroy. */
ty_net *ty_net_create(const ty_net_config *cfg, const ty_net_events *ev, void *user);
void ty_net_destroy(ty_net *net);
int ty_net_port(const ty_net *net);
/* The libev loop lws runs on, for other watchers on the same thread (server/redis.c); NULL
 * where lws serves on its own poll loop. */
struct ev_loop *ty_net_loop(ty_net *net);
/* Open connections, and whole messages received and frames queued since the start. */
void ty_net_counts(const ty_net *net, int *conns, uint64_t *received, uint64_t *sent);

/* Services connections until ty_net_stop's shutdown has finished. */
void ty_net_run(ty_net *net);
/* Stops accepting, and makes ty_net_run return once every client is gone (or after a few
 * seconds). Clients already connected are left to ty_net_close_all. */
void ty_net_stop(ty_net *net);
/* ty_client_close on every client: from here their sends are refused (a quiet false). */
void ty_net_close_all(ty_net *net, int code, const char *reason);

uint64_t ty_client_id(const ty_client *c);
void *ty_client_user(const ty_client *c);
void ty_client_set_user(ty_client *c, void *user);
/* The peer's IP address as text ("127.0.0.1", "::1") into buf; "" when unknown. Behind a
 * proxy this is the proxy's address. */
const char *ty_client_address(const ty_client *c, char *buf, size_t len);
/* Queues one frame (copied). False when the client is closing or was just dropped for
 * passing max_queue. */
bool ty_client_send(ty_client *c, const void *data, size_t len, bool binary);
/* Closes after what is queued has been written. The reason goes out as valid UTF-8 of at most
 * 123 bytes (RFC 6455 5.5.1): a byte that is not part of a UTF-8 character, and a control
 * character, is written as \xNN, and a cut never falls inside a character. */
void ty_client_close(ty_client *c, int code, const char *reason);

#endif
