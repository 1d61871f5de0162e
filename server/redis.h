/* server/redis.h: a Redis client on the host's libev loop (hiredis' async API and its libev
 * adapter): one connection for commands and one for pub/sub, each reconnected with backoff
 * when Redis goes away, sends garbage or stops answering. Everything runs on one thread. */
#ifndef TY_REDIS_H
#define TY_REDIS_H

#include <stdbool.h>
#include <stddef.h>

struct ev_loop;
struct redisReply;
typedef struct ty_redis ty_redis;

typedef struct ty_redis_events {
  /* The command connection is (again) up: state kept in Redis may have been lost. */
  void (*connected)(void *user);
  /* A message on a subscribed channel. */
  void (*message)(void *user, const char *channel, const char *data, size_t len);
} ty_redis_events;

/* The reply to one command: r is NULL with err set when the command failed (an error reply,
 * or the connection went away before the answer). r belongs to hiredis. */
typedef void (*ty_redis_reply_fn)(void *ud, struct redisReply *r, const char *err);

/* Checks url (redis://HOST[:PORT]) and that Redis answers PING within a second (a blocking
 * check, at start only), then connects on loop. NULL with a message in err when it cannot. */
ty_redis *ty_redis_create(struct ev_loop *loop, const char *url, const ty_redis_events *ev, void *user,
                          char *err, size_t errsz);
/* Fails every pending command's callback ("shutting down") and closes both connections. */
void ty_redis_destroy(ty_redis *r);
bool ty_redis_connected(const ty_redis *r);
/* The host and port of the url it was made with. */
const char *ty_redis_host(const ty_redis *r, int *port);

/* Sends one command; fn(ud, ...) is called exactly once, later (never from inside this call).
 * False (fn never called) while the command connection is down. */
bool ty_redis_command(ty_redis *r, int argc, const char **argv, const size_t *lens, ty_redis_reply_fn fn, void *ud);
/* Subscribes to channel now and after every reconnect. */
void ty_redis_subscribe(ty_redis *r, const char *channel);

#endif
