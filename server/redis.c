/* server/redis.c: hiredis' async API on the host's libev loop, behind server/redis.h. Two
 * connections: commands, and pub/sub (a subscribed connection takes no other command). A
 * connection that fails, is closed, answers with something hiredis cannot parse, or leaves a
 * command unanswered for STALL_SECS is dropped (its pending commands fail with an error) and
 * made again after a backoff (0.1 s doubling to 0.5 s). Every failure is one log line. */
#include "redis.h"

#include <ev.h> /* Required for: the host's loop, and the reconnect/watchdog timer */
#include <hiredis/adapters/libev.h>
#include <hiredis/async.h>
#include <hiredis/hiredis.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define BACKOFF_FIRST 0.1
#define BACKOFF_MAX 0.5 /* short: a cluster's leases wait for their owners to be back (cluster.lua's GRACE) */
#define STALL_SECS 5.0  /* a command unanswered this long means Redis is gone (or hung) */
#define WATCH_SECS 0.1  /* how often the timer checks for a due reconnect or a stall */
#define LOG_EVERY 30.0  /* while Redis stays away, one line this often (with a count) */

typedef struct link {
  redisAsyncContext *ac; /* NULL while down */
  bool up;               /* connected (its connect callback said so) */
  double retry_at;       /* when a down link is made again */
  double backoff;
  unsigned failures; /* tries that failed since it was last up */
  double logged_at;  /* the last redis_disconnected line */
} link;

struct ty_redis {
  struct ev_loop *loop;
  ev_timer watch;
  char host[256];
  int port;
  ty_redis_events ev;
  void *user;
  link cmd, sub;
  int pending;           /* commands sent on cmd and not answered yet */
  double progress_at;    /* the last answer, or the send that made pending non-zero */
  char **channels;
  uint32_t nchannels, channels_cap;
  bool destroying;
};

typedef struct request {
  ty_redis *r;
  ty_redis_reply_fn fn;
  void *ud;
} request;

static void link_open(ty_redis *r, link *l);

static link *link_of(ty_redis *r, const redisAsyncContext *ac) {
  return ac == r->cmd.ac ? &r->cmd : &r->sub;
}

static const char *link_name(ty_redis *r, const link *l) {
  return l == &r->cmd ? "commands" : "pub/sub";
}

/* The link is gone (hiredis frees the context after this): try again after the backoff. */
static void link_down(ty_redis *r, link *l, const char *why) {
  double now = ty_now();
  if (!r->destroying && (l->failures == 0 || now - l->logged_at >= LOG_EVERY)) {
    ty_log("redis_disconnected", "redis %s:%d (%s connection): %s; reconnecting every %.1f s at most%s", r->host,
           r->port, link_name(r, l), why, BACKOFF_MAX, l->failures ? " (still down)" : "");
    l->logged_at = now;
  }
  l->failures++;
  l->ac = NULL;
  l->up = false;
  l->retry_at = now + l->backoff;
  l->backoff = l->backoff * 2 < BACKOFF_MAX ? l->backoff * 2 : BACKOFF_MAX;
  if (l == &r->cmd) r->pending = 0; /* hiredis has failed every pending callback already */
}

static void on_disconnect(const redisAsyncContext *ac, int status) {
  ty_redis *r = ac->data;
  link *l = link_of(r, ac);
  link_down(r, l, status == REDIS_OK ? "closed" : (ac->errstr[0] ? ac->errstr : "connection lost"));
}

static void on_sub_message(redisAsyncContext *ac, void *reply, void *privdata) {
  (void)privdata;
  ty_redis *r = ac->data;
  redisReply *m = reply;
  if (!m || r->destroying || m->type != REDIS_REPLY_ARRAY || m->elements != 3) return;
  if (m->element[0]->type != REDIS_REPLY_STRING || strcmp(m->element[0]->str, "message") != 0) return;
  if (m->element[1]->type != REDIS_REPLY_STRING || m->element[2]->type != REDIS_REPLY_STRING) return;
  r->ev.message(r->user, m->element[1]->str, m->element[2]->str, m->element[2]->len);
}

static void subscribe_on(ty_redis *r, const char *channel) {
  const char *argv[2] = {"SUBSCRIBE", channel};
  redisAsyncCommandArgv(r->sub.ac, on_sub_message, NULL, 2, argv, NULL);
}

static void on_connect(const redisAsyncContext *ac, int status) {
  ty_redis *r = ac->data;
  link *l = link_of(r, ac);
  if (status != REDIS_OK) { /* hiredis frees the context; no disconnect callback follows */
    link_down(r, l, ac->errstr[0] ? ac->errstr : "cannot connect");
    return;
  }
  l->up = true;
  l->backoff = BACKOFF_FIRST;
  ty_log("redis_connected", "redis %s:%d (%s connection) is up%s", r->host, r->port, link_name(r, l),
         l->failures > 1 ? " again" : "");
  l->failures = 0;
  if (l == &r->sub) {
    for (uint32_t i = 0; i < r->nchannels; i++) subscribe_on(r, r->channels[i]);
  } else {
    r->progress_at = ty_now();
    r->ev.connected(r->user);
  }
}

static void link_open(ty_redis *r, link *l) {
  redisAsyncContext *ac = redisAsyncConnect(r->host, r->port);
  if (!ac || ac->err) {
    if (ac) {
      link_down(r, l, ac->errstr);
      redisAsyncFree(ac);
    } else {
      link_down(r, l, "out of memory");
    }
    return;
  }
  ac->data = r;
  l->ac = ac;
  redisLibevAttach(r->loop, ac);
  redisAsyncSetConnectCallback(ac, on_connect);
  redisAsyncSetDisconnectCallback(ac, on_disconnect);
}

static void on_watch(struct ev_loop *loop, ev_timer *w, int revents) {
  (void)loop;
  (void)revents;
  ty_redis *r = w->data;
  double now = ty_now();
  if (r->cmd.up && r->pending > 0 && now - r->progress_at > STALL_SECS) {
    ty_log("redis_stalled", "redis %s:%d left %d commands unanswered for %.0f s: dropping the connection",
           r->host, r->port, r->pending, STALL_SECS);
    /* Not redisAsyncDisconnect, which waits for the answers: freed now, failing them all. */
    redisAsyncContext *ac = r->cmd.ac;
    ac->onDisconnect = NULL;
    link_down(r, &r->cmd, "no answer");
    redisAsyncFree(ac);
    r->pending = 0;
  }
  if (!r->cmd.ac && now >= r->cmd.retry_at) link_open(r, &r->cmd);
  if (!r->sub.ac && now >= r->sub.retry_at) link_open(r, &r->sub);
}

/* redis://HOST[:PORT][/] into r->host, r->port. */
static bool parse_url(ty_redis *r, const char *url, char *err, size_t errsz) {
  const char *p = strncmp(url, "redis://", 8) == 0 ? url + 8 : NULL;
  size_t n = p ? strcspn(p, ":/") : 0;
  if (!p || n == 0 || n >= sizeof r->host || strchr(p, '@')) {
    snprintf(err, errsz, "--redis %s: expected redis://HOST[:PORT] (no password or database)", url);
    return false;
  }
  memcpy(r->host, p, n);
  r->host[n] = 0;
  r->port = 6379;
  if (p[n] == ':') {
    char *end;
    long port = strtol(p + n + 1, &end, 10);
    if (end == p + n + 1 || (*end && strcmp(end, "/") != 0) || port < 1 || port > 65535) {
      snprintf(err, errsz, "--redis %s: the port must be a number 1..65535", url);
      return false;
    }
    r->port = (int)port;
  } else if (p[n] && strcmp(p + n, "/") != 0) {
    snprintf(err, errsz, "--redis %s: expected redis://HOST[:PORT]", url);
    return false;
  }
  return true;
}

/* One blocking PING, so that a wrong address or a Redis that is down is said at start. */
static bool check_reachable(ty_redis *r, char *err, size_t errsz) {
  struct timeval tv = {1, 0};
  redisContext *c = redisConnectWithTimeout(r->host, r->port, tv);
  bool ok = false;
  if (!c || c->err) {
    snprintf(err, errsz, "cannot reach redis at %s:%d: %s", r->host, r->port, c ? c->errstr : "out of memory");
  } else {
    redisSetTimeout(c, tv);
    redisReply *reply = redisCommand(c, "PING");
    if (!reply) snprintf(err, errsz, "redis at %s:%d does not answer: %s", r->host, r->port, c->errstr);
    else if (reply->type == REDIS_REPLY_ERROR)
      snprintf(err, errsz, "redis at %s:%d refuses PING: %s", r->host, r->port, reply->str);
    else ok = true;
    if (reply) freeReplyObject(reply);
  }
  if (c) redisFree(c);
  return ok;
}

ty_redis *ty_redis_create(struct ev_loop *loop, const char *url, const ty_redis_events *ev, void *user,
                          char *err, size_t errsz) {
  ty_redis *r = TY_MALLOC(sizeof *r);
  TY_ASSERT(r);
  memset(r, 0, sizeof *r);
  r->loop = loop;
  r->ev = *ev;
  r->user = user;
  r->cmd.backoff = r->sub.backoff = BACKOFF_FIRST;
  if (!parse_url(r, url, err, errsz) || !check_reachable(r, err, errsz)) {
    TY_FREE(r);
    return NULL;
  }
  ev_timer_init(&r->watch, on_watch, WATCH_SECS, WATCH_SECS);
  r->watch.data = r;
  ev_timer_start(loop, &r->watch);
  link_open(r, &r->cmd);
  link_open(r, &r->sub);
  return r;
}

const char *ty_redis_host(const ty_redis *r, int *port) {
  *port = r->port;
  return r->host;
}

void ty_redis_destroy(ty_redis *r) {
  if (!r) return;
  r->destroying = true;
  ev_timer_stop(r->loop, &r->watch);
  if (r->cmd.ac) redisAsyncFree(r->cmd.ac);
  if (r->sub.ac) redisAsyncFree(r->sub.ac);
  for (uint32_t i = 0; i < r->nchannels; i++) TY_FREE(r->channels[i]);
  TY_FREE(r->channels);
  TY_FREE(r);
}

bool ty_redis_connected(const ty_redis *r) { return r->cmd.up; }

static void on_reply(redisAsyncContext *ac, void *reply, void *privdata) {
  request *q = privdata;
  ty_redis *r = q->r;
  redisReply *rep = reply;
  if (r->pending > 0) r->pending--;
  r->progress_at = ty_now();
  if (r->destroying) q->fn(q->ud, NULL, "shutting down");
  else if (!rep) q->fn(q->ud, NULL, ac->errstr[0] ? ac->errstr : "redis connection lost");
  else if (rep->type == REDIS_REPLY_ERROR) q->fn(q->ud, NULL, rep->str);
  else q->fn(q->ud, rep, NULL);
  TY_FREE(q);
}

bool ty_redis_command(ty_redis *r, int argc, const char **argv, const size_t *lens, ty_redis_reply_fn fn, void *ud) {
  if (!r->cmd.up) return false;
  request *q = TY_MALLOC(sizeof *q);
  TY_ASSERT(q);
  *q = (request){r, fn, ud};
  if (redisAsyncCommandArgv(r->cmd.ac, on_reply, q, argc, argv, lens) != REDIS_OK) {
    TY_FREE(q);
    return false;
  }
  if (r->pending++ == 0) r->progress_at = ty_now();
  return true;
}

void ty_redis_subscribe(ty_redis *r, const char *channel) {
  for (uint32_t i = 0; i < r->nchannels; i++)
    if (strcmp(r->channels[i], channel) == 0) return;
  TY_GROW(r->channels, r->channels_cap, r->nchannels + 1);
  r->channels[r->nchannels++] = strdup(channel);
  if (r->sub.up) subscribe_on(r, channel);
}
