/* server/peer_link.c: a cluster's direct links (see peer_link.h). One listening socket, and a
 * list of links, each a non-blocking TCP socket with one ev_io: dialed ones start connecting,
 * accepted ones wait for their HELLO. What is sent is appended to the link's output, and an
 * ev_prepare writes every link's output when the loop is about to wait, so the frames of one
 * turn of the loop leave in one send per link. A timer drops links that are not up after
 * SETUP_SECS. */
#define _GNU_SOURCE /* Required for: accept4 */
#include "peer_link.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ev.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common.h"
#include "link_frames.h"

#define SETUP_SECS 5.0             /* a link not up by then is dropped */
#define REDIAL_SECS 5.0            /* after a failed dial, the same peer is not dialed again for this long */
#define OUT_MAX (64u * 1024 * 1024) /* queued bytes past which a link is too far behind */
#define READ_CHUNK (64u * 1024)
#define READS_PER_EVENT 16
#define DEAD_PEER_MS 10000u /* see set_link_options */
#define MAX_PENDING 64 /* accepted links not up yet; one more is closed at once */
#define MAX_FAILED 32

typedef enum link_state { DIALING, AWAIT_OK, AWAIT_HELLO, UP } link_state;

typedef struct conn {
  struct conn *next;
  ty_links *owner;
  ev_io io;
  link_state state;
  bool dialed;
  bool broken; /* drop it at its next event (set where it cannot be freed at once) */
  double since;
  char peer[TY_LINK_PEER_MAX]; /* empty on an accepted link until its HELLO */
  char token[40];              /* a dialed link's: the peer's, for the HELLO */
  char *in;
  size_t in_len, in_cap;
  char *out;
  size_t out_len, out_cap, out_off;
} conn;

typedef struct failed_dial {
  char peer[TY_LINK_PEER_MAX];
  double until;
} failed_dial;

struct ty_links {
  struct ev_loop *loop;
  ty_links_events ev;
  void *user;
  ev_io listener;
  bool listener_paused; /* out of descriptors: the sweep listens again */
  ev_prepare flush;
  ev_timer sweep;
  conn *links;
  char self[TY_LINK_PEER_MAX];
  char address[80];
  char token[33];
  failed_dial failed[MAX_FAILED];
  unsigned nfailed;
};

static void on_link_io(struct ev_loop *loop, ev_io *w, int revents);

static double now_of(ty_links *l) { return ev_now(l->loop); }

/* No Nagle delay, and a peer that vanished without a close (its machine gone) found out in
 * seconds: data unacknowledged for DEAD_PEER_MS, or a quiet link whose probes go unanswered,
 * ends the connection, and with it the link. (The socket is non-blocking from its making.) */
static void set_link_options(int fd) {
  int one = 1, idle = 5, interval = 2, probes = 3;
  unsigned dead_ms = DEAD_PEER_MS;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof interval);
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &probes, sizeof probes);
  setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &dead_ms, sizeof dead_ms);
}

static conn *link_new(ty_links *l, int fd, link_state state) {
  conn *k = TY_MALLOC(sizeof *k);
  TY_ASSERT(k);
  memset(k, 0, sizeof *k);
  k->owner = l;
  k->state = state;
  k->since = now_of(l);
  ev_io_init(&k->io, on_link_io, fd, state == DIALING ? EV_WRITE : EV_READ);
  k->io.data = k;
  ev_io_start(l->loop, &k->io);
  k->next = l->links;
  l->links = k;
  return k;
}

/* Has k's watcher wait for events (EV_READ, EV_WRITE or both) from now on. */
static void link_watch(conn *k, int events) {
  if ((k->io.events & (EV_READ | EV_WRITE)) == events) return;
  ev_io_stop(k->owner->loop, &k->io);
  ev_io_set(&k->io, k->io.fd, events);
  ev_io_start(k->owner->loop, &k->io);
}

/* Stops k's watcher, closes its socket and frees it (k is off the list already). */
static void link_free(conn *k) {
  ev_io_stop(k->owner->loop, &k->io);
  close(k->io.fd);
  TY_FREE(k->in);
  TY_FREE(k->out);
  TY_FREE(k);
}

/* The link frames to peer go on: the one this process dialed. Frames are only ever sent on
 * dialed links, and each process dials its peers, so that one process's frames to another
 * keep to one socket, in order, for as long as it is up. */
static conn *link_up_to(const ty_links *l, const char *peer) {
  for (conn *k = l->links; k; k = k->next)
    if (k->dialed && k->state == UP && !k->broken && strcmp(k->peer, peer) == 0) return k;
  return NULL;
}

/* Closes k; tells the caller when it was the last link up to its peer. */
static void link_drop(conn *k, const char *why) {
  ty_links *l = k->owner;
  for (conn **p = &l->links; *p; p = &(*p)->next)
    if (*p == k) {
      *p = k->next;
      break;
    }
  bool was_up = k->dialed && k->state == UP;
  if (why) ty_log("cluster_link_dropped", "link %s %s: %s", k->dialed ? "to" : "from", k->peer[0] ? k->peer : "?", why);
  if (k->dialed && k->state != UP && l->nfailed < MAX_FAILED) {
    failed_dial *f = &l->failed[l->nfailed++];
    snprintf(f->peer, sizeof f->peer, "%s", k->peer);
    f->until = now_of(l) + REDIAL_SECS;
  }
  char peer[TY_LINK_PEER_MAX];
  snprintf(peer, sizeof peer, "%s", k->peer);
  link_free(k); /* after the line: the peer sees the close once it is said */
  if (was_up && !link_up_to(l, peer)) l->ev.down(l->user, peer);
}

static bool queue_frame(conn *k, const char *channel, size_t channel_len, const char *data, size_t len) {
  size_t size = ty_link_frame_size(channel_len, len);
  if (!size || k->out_len - k->out_off + size > OUT_MAX) return false;
  if (k->out_len + size > k->out_cap) {
    if (k->out_off) { /* what was written makes room first */
      memmove(k->out, k->out + k->out_off, k->out_len - k->out_off);
      k->out_len -= k->out_off, k->out_off = 0;
    }
    size_t cap = k->out_cap ? k->out_cap : 4096;
    while (cap < k->out_len + size) cap *= 2;
    char *grown = TY_REALLOC(k->out, cap);
    TY_ASSERT(grown);
    k->out = grown, k->out_cap = cap;
  }
  ty_link_frame_put(k->out + k->out_len, channel, channel_len, data, len);
  k->out_len += size;
  ev_prepare_start(k->owner->loop, &k->owner->flush);
  return true;
}

static bool queue_text(conn *k, const char *text) { return queue_frame(k, "", 0, text, strlen(text)); }

/* Writes what k has queued; false when the socket failed. Leaves a write watch on while the
 * kernel takes no more. */
static bool link_write(conn *k) {
  while (k->out_off < k->out_len) {
    ssize_t n = send(k->io.fd, k->out + k->out_off, k->out_len - k->out_off, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    if (n <= 0) return false;
    k->out_off += (size_t)n;
  }
  if (k->out_off == k->out_len) k->out_off = k->out_len = 0;
  link_watch(k, EV_READ | (k->out_len ? EV_WRITE : 0));
  return true;
}

static void on_flush(struct ev_loop *loop, ev_prepare *w, int revents) {
  (void)revents;
  ty_links *l = w->data;
  ev_prepare_stop(loop, w);
  for (conn *k = l->links, *next; k; k = next) {
    next = k->next;
    if (k->state != DIALING && k->out_len && !k->broken && !link_write(k)) link_drop(k, strerror(errno));
  }
}

/* A control frame (empty channel): HELLO on an accepted link, OK on a dialed one. */
static bool on_control(conn *k, const char *text, size_t len) {
  ty_links *l = k->owner;
  char msg[256];
  if (len >= sizeof msg) return false;
  memcpy(msg, text, len);
  msg[len] = 0;
  if (k->state == AWAIT_OK) {
    if (strcmp(msg, "OK") != 0) return false;
    k->state = UP;
    return true;
  }
  if (k->state != AWAIT_HELLO) return false;
  char to[TY_LINK_PEER_MAX], token[40], from[TY_LINK_PEER_MAX];
  if (sscanf(msg, "HELLO %95s %39s %95s", to, token, from) != 3 || strcmp(to, l->self) != 0
      || strcmp(token, l->token) != 0)
    return false;
  snprintf(k->peer, sizeof k->peer, "%s", from);
  k->state = UP;
  return queue_text(k, "OK");
}

/* Hands every whole frame in k's input on; false (with why) when the link must be dropped. */
static bool take_frames(conn *k, const char **why) {
  ty_links *l = k->owner;
  size_t at = 0;
  while (!k->broken) {
    ty_link_frame f;
    size_t used;
    ty_link_status st = ty_link_frame_next(k->in + at, k->in_len - at, &f, &used, why);
    if (st == TY_LINK_BAD) return false;
    if (st == TY_LINK_NEED) break;
    at += used;
    if (f.channel_len == 0) {
      if (!on_control(k, f.payload, f.payload_len)) {
        *why = k->state == UP ? "a control frame after the link was up"
                              : "a bad HELLO or OK (wrong process id or token)";
        return false;
      }
    } else if (k->state != UP) {
      *why = "a frame before the link was up";
      return false;
    } else {
      l->ev.frame(l->user, k->peer, f.channel, f.channel_len, f.payload, f.payload_len);
    }
  }
  memmove(k->in, k->in + at, k->in_len - at);
  k->in_len -= at;
  if (!k->in_len && k->in_cap > 4 * READ_CHUNK) { /* a big frame's room goes back */
    TY_FREE(k->in);
    k->in = NULL, k->in_cap = 0;
  }
  return true;
}

/* Reads what the socket holds, READS_PER_EVENT reads at most (the loop's other work goes on
 * between), and hands its frames on. */
static bool link_read(conn *k, const char **why) {
  for (int reads = 0; reads < READS_PER_EVENT; reads++) {
    if (k->in_cap - k->in_len < READ_CHUNK) {
      size_t cap = k->in_cap ? k->in_cap * 2 : 2 * READ_CHUNK;
      if (cap > TY_LINK_FRAME_MAX + 4 + 2 * READ_CHUNK) cap = TY_LINK_FRAME_MAX + 4 + 2 * READ_CHUNK;
      if (cap - k->in_len < 1) {
        *why = "input past the largest frame";
        return false;
      }
      char *grown = TY_REALLOC(k->in, cap);
      TY_ASSERT(grown);
      k->in = grown, k->in_cap = cap;
    }
    ssize_t n = recv(k->io.fd, k->in + k->in_len, k->in_cap - k->in_len, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
    if (n <= 0) {
      *why = n == 0 ? "closed by the peer" : strerror(errno);
      return false;
    }
    k->in_len += (size_t)n;
    if (!take_frames(k, why)) return false;
    if (k->broken) return true;
  }
  return true;
}

static void on_link_io(struct ev_loop *loop, ev_io *w, int revents) {
  (void)loop;
  conn *k = w->data;
  const char *why = NULL;
  if (k->broken) {
    link_drop(k, "too far behind");
    return;
  }
  if (k->state == DIALING) {
    int e = 0;
    socklen_t el = sizeof e;
    if (getsockopt(w->fd, SOL_SOCKET, SO_ERROR, &e, &el) != 0 || e) {
      link_drop(k, e ? strerror(e) : "connect failed");
      return;
    }
    k->state = AWAIT_OK;
    link_watch(k, EV_READ);
    char hello[256]; /* the token is the peer's own, read from its record in Redis */
    snprintf(hello, sizeof hello, "HELLO %s %s %s", k->peer, k->token, k->owner->self);
    queue_text(k, hello); /* nothing else is queued before it: a link takes frames once up */
    return;
  }
  if ((revents & EV_READ) && !link_read(k, &why)) {
    link_drop(k, why);
    return;
  }
  if (k->broken) {
    link_drop(k, "too far behind");
    return;
  }
  if ((revents & EV_WRITE) && !link_write(k)) link_drop(k, strerror(errno));
}

static void on_accept(struct ev_loop *loop, ev_io *w, int revents) {
  (void)revents;
  ty_links *l = w->data;
  for (;;) {
    int fd = accept4(w->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0 && errno == EINTR) continue;
    if (fd < 0) {
      if (errno == EMFILE || errno == ENFILE) { /* else the socket stays readable and the loop spins */
        ty_log("cluster_link_accept", "accept: %s: links are not taken for a second", strerror(errno));
        ev_io_stop(loop, w);
        l->listener_paused = true;
      } else if (errno != EAGAIN && errno != EWOULDBLOCK) {
        ty_log("cluster_link_accept", "accept: %s", strerror(errno));
      }
      return;
    }
    unsigned pending = 0;
    for (conn *k = l->links; k; k = k->next) pending += k->state == AWAIT_HELLO;
    if (pending >= MAX_PENDING) { /* connections that say nothing hold no more than this */
      close(fd);
      continue;
    }
    set_link_options(fd);
    link_new(l, fd, AWAIT_HELLO);
  }
}

static void on_sweep(struct ev_loop *loop, ev_timer *w, int revents) {
  (void)revents;
  ty_links *l = w->data;
  double now = now_of(l);
  for (conn *k = l->links, *next; k; k = next) {
    next = k->next;
    if (k->state != UP && now - k->since > SETUP_SECS) link_drop(k, "not up in time");
  }
  if (l->listener_paused) {
    l->listener_paused = false;
    ev_io_start(loop, &l->listener);
  }
  unsigned kept = 0;
  for (unsigned i = 0; i < l->nfailed; i++)
    if (l->failed[i].until > now) l->failed[kept++] = l->failed[i];
  l->nfailed = kept;
}

/* Splits "HOST:PORT" or "[HOST]:PORT" into a socket address. */
static bool parse_address(const char *addr, struct sockaddr_storage *ss, socklen_t *len) {
  char host[64];
  const char *colon = strrchr(addr, ':');
  if (!colon || colon == addr) return false;
  const char *h = addr;
  size_t hl = (size_t)(colon - addr);
  if (*h == '[' && hl >= 2 && h[hl - 1] == ']') h++, hl -= 2;
  if (hl >= sizeof host) return false;
  memcpy(host, h, hl);
  host[hl] = 0;
  char *end;
  long port = strtol(colon + 1, &end, 10);
  if (*end || port <= 0 || port > 65535) return false;
  memset(ss, 0, sizeof *ss);
  struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
  struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;
  if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET, v4->sin_port = htons((uint16_t)port), *len = sizeof *v4;
    return true;
  }
  if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6, v6->sin6_port = htons((uint16_t)port), *len = sizeof *v6;
    return true;
  }
  return false;
}

void ty_links_dial(ty_links *l, const char *peer, const char *addr, const char *token) {
  if (strlen(peer) >= TY_LINK_PEER_MAX || strcmp(peer, l->self) == 0 || strlen(token) >= 40) return;
  for (conn *k = l->links; k; k = k->next)
    if (k->dialed && strcmp(k->peer, peer) == 0 && !k->broken) return; /* up, or being made */
  for (unsigned i = 0; i < l->nfailed; i++)
    if (strcmp(l->failed[i].peer, peer) == 0 && l->failed[i].until > now_of(l)) return;
  struct sockaddr_storage ss;
  socklen_t len;
  if (!parse_address(addr, &ss, &len)) return;
  int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return;
  set_link_options(fd);
  if (connect(fd, (struct sockaddr *)&ss, len) != 0 && errno != EINPROGRESS) {
    close(fd);
    return;
  }
  conn *k = link_new(l, fd, DIALING);
  k->dialed = true;
  snprintf(k->peer, sizeof k->peer, "%s", peer);
  snprintf(k->token, sizeof k->token, "%s", token);
}

bool ty_links_up(const ty_links *l, const char *peer) { return link_up_to(l, peer) != NULL; }

bool ty_links_send(ty_links *l, const char *peer, const char *channel, const char *data, size_t len) {
  conn *k = link_up_to(l, peer);
  if (!k) return false;
  if (queue_frame(k, channel, strlen(channel), data, len)) return true;
  k->broken = true; /* dropped at its next event, where freeing it is safe */
  ev_feed_event(l->loop, &k->io, EV_CUSTOM);
  return false;
}

const char *ty_links_address(const ty_links *l) { return l->address; }
const char *ty_links_token(const ty_links *l) { return l->token; }

bool ty_links_address_toward(const char *host, int port, char *out, size_t outsz) {
  struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_DGRAM}, *res = NULL;
  char service[16];
  snprintf(service, sizeof service, "%d", port);
  if (getaddrinfo(host, service, &hints, &res) != 0 || !res) return false;
  int fd = socket(res->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  bool ok = fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen) == 0;
  struct sockaddr_storage ss;
  socklen_t len = sizeof ss;
  ok = ok && getsockname(fd, (struct sockaddr *)&ss, &len) == 0;
  if (ok) {
    void *a = ss.ss_family == AF_INET6 ? (void *)&((struct sockaddr_in6 *)&ss)->sin6_addr
                                       : (void *)&((struct sockaddr_in *)&ss)->sin_addr;
    ok = inet_ntop(ss.ss_family, a, out, (socklen_t)outsz) != NULL;
  }
  if (fd >= 0) close(fd);
  freeaddrinfo(res);
  return ok;
}

ty_links *ty_links_create(struct ev_loop *loop, const char *self_id, const char *iface, int port,
                          const char *advertise, const ty_links_events *ev, void *user, char *err, size_t errsz) {
  if (strlen(self_id) >= TY_LINK_PEER_MAX) {
    snprintf(err, errsz, "process id too long for a link");
    return NULL;
  }
  struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE}, *res = NULL;
  char service[16];
  snprintf(service, sizeof service, "%d", port);
  int gai = getaddrinfo(iface, service, &hints, &res);
  if (gai != 0 || !res) {
    snprintf(err, errsz, "cluster link: %s: %s", iface, gai_strerror(gai));
    return NULL;
  }
  int fd = socket(res->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  int one = 1;
  if (fd >= 0) setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (fd < 0 || bind(fd, res->ai_addr, res->ai_addrlen) != 0 || listen(fd, 64) != 0) {
    snprintf(err, errsz, "cluster link: cannot listen on %s port %d: %s", iface, port, strerror(errno));
    if (fd >= 0) close(fd);
    freeaddrinfo(res);
    return NULL;
  }
  freeaddrinfo(res);
  struct sockaddr_storage ss;
  socklen_t len = sizeof ss;
  getsockname(fd, (struct sockaddr *)&ss, &len);
  int bound = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                             : ((struct sockaddr_in *)&ss)->sin_port);

  ty_links *l = TY_MALLOC(sizeof *l);
  TY_ASSERT(l);
  memset(l, 0, sizeof *l);
  l->loop = loop;
  l->ev = *ev;
  l->user = user;
  snprintf(l->self, sizeof l->self, "%s", self_id);
  const char *host = advertise ? advertise : iface;
  snprintf(l->address, sizeof l->address, strchr(host, ':') ? "[%s]:%d" : "%s:%d", host, bound);
  unsigned char raw[16];
  if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw) {
    close(fd);
    TY_FREE(l);
    snprintf(err, errsz, "cluster link: no random bytes for its token: %s", strerror(errno));
    return NULL;
  }
  for (int i = 0; i < 16; i++) snprintf(l->token + 2 * i, 3, "%02x", raw[i]);
  ev_io_init(&l->listener, on_accept, fd, EV_READ);
  l->listener.data = l;
  ev_io_start(loop, &l->listener);
  ev_prepare_init(&l->flush, on_flush);
  l->flush.data = l;
  ev_timer_init(&l->sweep, on_sweep, 1.0, 1.0);
  l->sweep.data = l;
  ev_timer_start(loop, &l->sweep);
  return l;
}

void ty_links_destroy(ty_links *l) {
  if (!l) return;
  while (l->links) {
    conn *k = l->links;
    l->links = k->next;
    link_free(k);
  }
  ev_io_stop(l->loop, &l->listener);
  close(l->listener.fd);
  ev_prepare_stop(l->loop, &l->flush);
  ev_timer_stop(l->loop, &l->sweep);
  TY_FREE(l);
}
