/* server/net.c: libwebsockets (4.1) behind server/net.h. lws runs on a libev loop of ours
 * (epoll on Linux, through lws's evlib_ev plugin), so each turn of the loop costs what is
 * ready rather than a poll() over every socket; where the plugin does not load, lws's own
 * poll loop serves instead. Each client's outgoing frames are framed as they are queued
 * (the WebSocket headers written here) into one byte buffer of its own, which goes to the
 * socket in one send at the end of the loop's turn (flush_due), straight from here on plain
 * TCP; only what the socket does not take then (and everything over TLS, or on lws's poll
 * loop) waits for LWS_CALLBACK_SERVER_WRITEABLE, handed to lws raw in sends of BATCH_MAX at
 * most. On a busy room a syscall or an allocation per frame would cost more than everything
 * else together, and asking lws for each writable callback costs two epoll_ctl; an idle
 * client holds no buffer at all. Reads are the same on plain TCP on that loop: once lws has
 * done the handshake, the host reads the socket itself, one recv per readiness, and parses
 * the frames with server/ws_frames.c (see "the direct read path" below); elsewhere lws reads.
 * Incoming messages are handed over from the read buffer when whole, and only gathered (never
 * past max_frame) when they come in parts; heartbeat is lws's validity policy, and a message
 * received counts as a sign of life as a pong does. Open connections are counted from accept
 * to close, and one past max_clients is answered 503 and closed at once, so that accept()
 * never meets the process's descriptor limit (where it would fail on every turn of the loop). */
#define _GNU_SOURCE 1 /* Required for: RTLD_NEXT (the masking guard's recv and SSL_read) */
#include "net.h"

#include <dlfcn.h> /* Required for: dlsym, the real recv and SSL_read under the guard's */
#include <errno.h>
#include <ev.h> /* Required for: the loop lws runs on (LWS_SERVER_OPTION_LIBEV, foreign loop) */
#include <fcntl.h> /* Required for: the spare descriptor (accept_shed) */
#include <libwebsockets.h>
#ifdef __GLIBC__
#include <malloc.h> /* Required for: malloc_trim (heap_trim) */
#endif
#include <netinet/in.h> /* Required for: ntohs, sockaddr_in (find_listen_fd) */
#include <string.h>
#include <sys/resource.h> /* Required for: the descriptor limit, which sizes the guard table */
#include <sys/socket.h>
#include <unistd.h>

#include "common.h"
#include "ws_frames.h"

struct ty_client {
  ty_net *net;
  struct lws *wsi;
  int fd; /* its socket's (lws_get_socket_fd reads the wsi, a cache miss a call on a busy host) */
  uint64_t id;
  void *user;
  ty_client *prev, *next; /* every live client, for shutdown */
  unsigned char *out; /* LWS_PRE bytes of room, then framed bytes; [out_off, out_len) unsent */
  size_t out_off, out_len, out_cap;
  size_t frame_end; /* where the frame that out_off is in ends: > out_off while a frame cut at
                       BATCH_MAX is half written, == out_off between frames */
  char *rx;
  size_t rx_len, rx_cap;
  bool rx_binary;
  bool closing;
  bool closed; /* handed back to lws to close: nothing more is written */
  bool flush_due; /* on net's flush list: its output goes at the end of this turn */
  bool waiting;   /* asked lws for a writable callback: its output goes from on_writeable */
  ty_client *flush_next;
  struct guard *guard; /* its masking guard (see recv below) */
  bool direct_rx;   /* read here (on_readable), not by lws: see rx_start */
  bool close_sent;  /* direct_rx: our close frame is queued (ours, not lws's) */
  bool close_done;  /* direct_rx: the peer's close came, or its input broke: killed once the queue is out */
  ev_io rx_w;       /* direct_rx: its socket's readiness */
  ty_ws_rx ws;      /* direct_rx: its frames as they come */
  double valid_at; /* when a message last counted as a sign of life (lws_validity_confirmed) */
  int close_code;
  char *close_reason; /* from ty_client_close on (124 bytes): an open client holds none */
};

#define BATCH_MAX (32 * 1024) /* bytes handed to one send */
#define OUT_MIN 4096           /* first size of a client's outgoing buffer: a broadcast round fits */
#define RX_BUFFER 256          /* lws's receive buffer per connection */
#define RX_READ 4096           /* bytes one direct read takes at most (as lws's service buffer) */
#define TRIM_QUIET 1.0         /* seconds without a message in or out before heap_trim */
#define SPARE_MAX 1024         /* drained OUT_MIN buffers kept for the next turn's sends */

struct ty_net {
  struct lws_context *ctx;
  struct ev_loop *loop; /* ours, lent to lws; NULL when lws polls on its own */
  ev_prepare flush_w;   /* at the end of each turn of loop: flush_due's clients are written */
  bool direct;          /* plain TCP on loop: sends go out at the end of the turn, unasked */
  ty_client *flush_due; /* clients that got output in this turn (flush_next links them) */
  void *spare[SPARE_MAX]; /* drained send buffers of OUT_MIN bytes, for the next ones */
  int spares;
  int spares_low; /* the fewest spares there were since the last tick: so many went unused */
  struct lws_protocols protocols[2];
  lws_retry_bo_t retry;
  ty_net_config cfg;
  ty_net_events ev;
  void *user;
  ty_client *clients;
  uint64_t next_id;
  lws_sorted_usec_list_t tick_sul;
  bool stopping, done;
  double stop_deadline;
  int port;
  int conns;      /* accepted and not yet closed, handshaken or not */
  uint64_t received, sent; /* whole messages in, frames queued out (the monitor's rates) */
  double valid_every; /* seconds between two validity confirmations of one client */
  double refused_at;  /* when the last net_client_cap line was written */
  uint64_t trim_seen; /* received + sent when heap_trim last looked */
  int trim_conns;     /* and conns */
  double quiet_since; /* since when they have not changed */
  bool trimmed;       /* heap_trim ran in this quiet spell */
  unsigned long refused; /* refusals not yet in a net_client_cap line */
};

/* ---- the masking guard ----
 * RFC 6455 5.1: a server must close a connection that sends an unmasked frame, with 1002.
 * lws 4.1 parses the mask bit and takes such frames as they come (later versions refuse them),
 * and tells its user nothing of it. So the bytes lws reads from each client are followed here
 * on their way in: this file defines recv(), which lws calls (as every caller in the process
 * does: the definition in the executable comes first), and the real one is libc's, through
 * RTLD_NEXT. Sockets not in the table pass straight through, at the cost of a lookup.
 * For a plain connection the guard skips the HTTP request head, then walks the frame headers
 * (payloads skipped whole, never copied): the first frame whose mask bit is clear is cut off,
 * with everything after it, before lws sees it, and the client is closed with 1002. Over TLS
 * recv carries ciphertext: there the plaintext is followed as lws reads it through
 * SSL_read(), defined here the same way, and the client is marked closing before lws parses
 * the frame, so that nothing of it or after it reaches the module (on_receive drops a closing
 * client's input). */
typedef struct guard {
  int fd;
  struct lws *wsi;
  ty_client *client; /* once ESTABLISHED */
  bool tls;          /* its bytes are followed through SSL_read, not recv */
  bool in_frames;    /* past the request head */
  bool refused;      /* an unmasked frame came: nothing more goes to lws */
  bool frame_seen;   /* a byte past the request head came: lws holds it, so lws reads on */
  bool direct;       /* read by the host (rx_start): what lws reads at its close is not followed */
  uint8_t head_match; /* bytes of "\r\n\r\n" matched */
  uint8_t hdr[14];   /* the frame header read so far */
  uint8_t hdr_len;
  uint64_t left;     /* payload bytes of the current frame still to come */
} guard;

static guard **guards; /* by descriptor; guards_n slots (the descriptor limit) */
static int guards_n;
static struct {
  unsigned long n; /* clients closed for an unmasked frame, not yet logged */
  double at;       /* the last net_unmasked_frame line */
} unmasked_log;

/* One net_unmasked_frame line a second at most, with a count: each costs a peer only a
 * connection. */
static void unmasked_flush(double now) {
  if (!unmasked_log.n || now - unmasked_log.at < 1.0) return;
  ty_log("net_unmasked_frame", "%lu client%s sent a frame without a mask: closed with 1002", unmasked_log.n,
         unmasked_log.n == 1 ? "" : "s");
  unmasked_log.n = 0;
  unmasked_log.at = now;
}

/* Size of a client frame header from its second byte: 2, the extended length, the mask key. */
static size_t guard_header_size(const uint8_t *h) {
  size_t n = 2 + ((h[1] & 0x7f) == 126 ? 2 : (h[1] & 0x7f) == 127 ? 8 : 0);
  return n + (h[1] & 0x80 ? 4 : 0);
}

/* Follows n bytes of g's stream; returns how many may go to lws (all, or those before an
 * unmasked frame). */
static size_t guard_follow(guard *g, const uint8_t *p, size_t n) {
  size_t i = 0;
  if (!g->in_frames) {
    static const char end[] = "\r\n\r\n";
    for (; i < n && g->head_match < 4; i++)
      g->head_match = p[i] == end[g->head_match] ? g->head_match + 1 : p[i] == '\r' ? 1 : 0;
    if (g->head_match < 4) return n;
    g->in_frames = true;
  }
  if (i < n) g->frame_seen = true;
  while (i < n) {
    if (g->left) { /* a payload: skipped whole */
      size_t k = n - i < g->left ? n - i : (size_t)g->left;
      g->left -= k;
      i += k;
      continue;
    }
    size_t start = i; /* where this header's bytes begin in p (its first bytes may be older) */
    g->hdr[g->hdr_len++] = p[i++];
    if (g->hdr_len == 2 && !(g->hdr[1] & 0x80)) { /* unmasked */
      g->refused = true;
      return start >= 1 ? start - 1 : 0; /* cut before the frame's first byte where it is in p */
    }
    if (g->hdr_len < 2 || g->hdr_len < guard_header_size(g->hdr)) continue;
    uint64_t len = g->hdr[1] & 0x7f;
    if (len == 126) len = (uint64_t)g->hdr[2] << 8 | g->hdr[3];
    else if (len == 127)
      for (int k = 0; k < 8; k++) len = (k ? len << 8 : 0) | g->hdr[2 + k];
    g->left = len;
    g->hdr_len = 0;
  }
  return n;
}

/* libc's recv, under the one defined below. */
static ssize_t real_recv(int fd, void *buf, size_t len, int flags) {
  static ssize_t (*next)(int, void *, size_t, int);
  if (!next) next = (ssize_t (*)(int, void *, size_t, int))dlsym(RTLD_NEXT, "recv");
  return next(fd, buf, len, flags);
}

/* lws reads every connection through recv(): see the masking guard above. */
ssize_t recv(int fd, void *buf, size_t len, int flags) {
  guard *g = fd >= 0 && fd < guards_n ? guards[fd] : NULL;
  ssize_t n = real_recv(fd, buf, len, flags);
  if (!g || g->tls || g->direct || n <= 0 || (flags & MSG_PEEK)) return n;
  if (g->refused) { /* read and dropped: lws must not see it, nor wait on it */
    errno = EAGAIN;
    return -1;
  }
  size_t keep = guard_follow(g, buf, (size_t)n);
  if (g->refused) {
    unmasked_log.n++;
    unmasked_flush(ty_now());
    if (g->client) ty_client_close(g->client, 1002, "unmasked frame");
    if (!keep) {
      errno = EAGAIN;
      return -1;
    }
  }
  return (ssize_t)keep;
}

#if defined(LWS_WITH_TLS) && !defined(LWS_WITH_MBEDTLS) /* lws over OpenSSL, as Debian builds it */
/* lws reads a TLS connection's plaintext through SSL_read(): see the masking guard above. */
int SSL_read(SSL *ssl, void *buf, int num) {
  static int (*next)(SSL *, void *, int);
  static int (*get_fd)(const SSL *);
  if (!next) next = (int (*)(SSL *, void *, int))dlsym(RTLD_NEXT, "SSL_read");
  int n = next(ssl, buf, num);
  if (n <= 0 || !guards) return n;
  if (!get_fd) get_fd = (int (*)(const SSL *))dlsym(RTLD_NEXT, "SSL_get_fd");
  int fd = get_fd ? get_fd(ssl) : -1;
  guard *g = fd >= 0 && fd < guards_n ? guards[fd] : NULL;
  if (!g || !g->tls || g->refused) return n;
  guard_follow(g, buf, (size_t)n);
  if (g->refused) {
    unmasked_log.n++;
    unmasked_flush(ty_now());
    if (g->client) ty_client_close(g->client, 1002, "unmasked frame");
  }
  return n;
}
#endif

static guard *guard_create(struct lws *wsi, bool tls) {
  guard *g = TY_MALLOC(sizeof *g);
  TY_ASSERT(g);
  memset(g, 0, sizeof *g);
  g->wsi = wsi;
  g->fd = lws_get_socket_fd(wsi);
  g->tls = tls;
  if (g->fd >= 0 && g->fd < guards_n) guards[g->fd] = g;
  return g;
}

static void guard_free(guard *g) {
  if (g->fd >= 0 && g->fd < guards_n && guards[g->fd] == g) guards[g->fd] = NULL;
  if (g->client) g->client->guard = NULL;
  TY_FREE(g);
}

typedef struct pss {
  ty_client *client;
  char *http_body; /* a plain HTTP answer waiting for the socket: LWS_PRE bytes, then the body */
  size_t http_len;
} pss;

static ty_client *client_create(ty_net *net, struct lws *wsi) {
  ty_client *c = TY_MALLOC(sizeof *c);
  TY_ASSERT(c);
  memset(c, 0, sizeof *c);
  c->net = net;
  c->wsi = wsi;
  c->fd = lws_get_socket_fd(wsi);
  c->id = ++net->next_id;
  c->next = net->clients;
  if (net->clients) net->clients->prev = c;
  net->clients = c;
  return c;
}

/* A drained buffer of the first size is kept for the next client that sends (a busy room
 * would otherwise take and give back one per client per turn); spares_shrink frees those
 * a tick did not use. */
static void drop_queue(ty_client *c) {
  ty_net *net = c->net;
  if (c->out && c->out_cap == OUT_MIN && net->spares < SPARE_MAX) net->spare[net->spares++] = c->out;
  else TY_FREE(c->out);
  c->out = NULL;
  c->out_off = c->out_len = c->out_cap = c->frame_end = 0;
}

/* Size of the frame (header and payload) whose header starts at h, as frame_header wrote it. */
static size_t frame_size(const unsigned char *h) {
  size_t len = h[1] & 0x7f;
  if (len < 126) return 2 + len;
  if (len == 126) return 4 + ((size_t)h[2] << 8 | h[3]);
  uint64_t n = 0;
  for (int i = 0; i < 8; i++) n = n << 8 | h[2 + i];
  return 10 + (size_t)n;
}

/* Stops reading c's socket here: lws closes it from now (and reads what it wants to). */
static void rx_stop(ty_client *c) {
  if (c->direct_rx && ev_is_active(&c->rx_w)) ev_io_stop(c->net->loop, &c->rx_w);
}

static void client_free(ty_client *c) {
  ty_net *net = c->net;
  rx_stop(c);
  ty_ws_rx_free(&c->ws);
  TY_FREE(c->close_reason);
  if (c->guard) c->guard->client = NULL;
  if (c->prev) c->prev->next = c->next;
  else net->clients = c->next;
  if (c->next) c->next->prev = c->prev;
  if (c->flush_due) /* closed in the turn it was sent to (rare): off the flush list */
    for (ty_client **p = &net->flush_due; *p; p = &(*p)->flush_next)
      if (*p == c) {
        *p = c->flush_next;
        break;
      }
  drop_queue(c);
  TY_FREE(c->rx);
  TY_FREE(c);
}

uint64_t ty_client_id(const ty_client *c) { return c->id; }
void *ty_client_user(const ty_client *c) { return c->user; }
void ty_client_set_user(ty_client *c, void *user) { c->user = user; }
int ty_net_port(const ty_net *net) { return net->port; }

const char *ty_client_address(const ty_client *c, char *buf, size_t len) {
  if (len == 0) return buf;
  buf[0] = 0;
  if (c->wsi && !lws_get_peer_simple(c->wsi, buf, len)) buf[0] = 0;
  return buf;
}

/* A close reason as RFC 6455 5.5.1 wants it: valid UTF-8, at most 123 bytes (a close frame's
 * payload is 125, the code takes 2). Reasons carry what peers sent (a request path, say):
 * bytes that are no character, and control characters, are written as \xNN; the cut falls
 * between characters. */
static void close_reason_copy(char out[124], const char *in) {
  const unsigned char *s = (const unsigned char *)in;
  size_t o = 0, left = strlen(in);
  while (*s) {
    size_t n = ty_utf8_char((const char *)s, left);
    bool escape = n == 0 || (n == 1 && (*s < 0x20 || *s == 0x7f));
    size_t w = escape ? 4 : n;
    if (o + w > 123) break;
    if (escape) {
      snprintf(out + o, 5, "\\x%02X", *s);
      n = 1;
    } else {
      memcpy(out + o, s, n);
    }
    o += w;
    s += n;
    left -= n;
  }
  out[o] = 0;
}

static bool queue_frame(ty_client *c, int opcode, const void *data, size_t len, bool capped);

/* A direct_rx client's close frame goes after its queued frames, as they do: lws's would go
 * out before them, since lws writes its own frames first. Code 1005 (the peer's close had
 * none) is echoed as a close without a payload. */
static void close_queue(ty_client *c) {
  unsigned char payload[2 + 124];
  size_t len = 0;
  if (c->close_code != 1005) {
    payload[0] = (unsigned char)(c->close_code >> 8);
    payload[1] = (unsigned char)c->close_code;
    len = strlen(c->close_reason);
    memcpy(payload + 2, c->close_reason, len);
    len += 2;
  }
  queue_frame(c, 0x8, payload, len, false);
  c->close_sent = true;
}

void ty_client_close(ty_client *c, int code, const char *reason) {
  if (c->closing || c->closed) return;
  c->closing = true;
  c->close_code = code;
  c->close_reason = TY_MALLOC(124);
  TY_ASSERT(c->close_reason);
  close_reason_copy(c->close_reason, reason ? reason : "");
  if (c->direct_rx) {
    close_queue(c);
    /* A peer that never reads nor answers our close is dropped by lws when this expires. */
    lws_set_timeout(c->wsi, PENDING_TIMEOUT_USER_OK, 5);
    return;
  }
  c->waiting = true;
  lws_callback_on_writable(c->wsi);
  /* A peer that never reads never makes us writable: lws drops it when this expires. */
  lws_set_timeout(c->wsi, PENDING_TIMEOUT_USER_OK, 5);
}

/* Server-to-client frame header (RFC 6455 5.2: FIN, opcode, unmasked length); returns its size. */
static size_t frame_header(unsigned char *h, size_t len, int opcode) {
  h[0] = (unsigned char)(0x80 | opcode);
  if (len < 126) {
    h[1] = (unsigned char)len;
    return 2;
  }
  if (len < 65536) {
    h[1] = 126;
    h[2] = (unsigned char)(len >> 8);
    h[3] = (unsigned char)len;
    return 4;
  }
  h[1] = 127;
  for (int i = 0; i < 8; i++) h[2 + i] = (unsigned char)((uint64_t)len >> (56 - 8 * i));
  return 10;
}

/* Frames data into c's queue, to go out at the end of the turn. capped: held to max_queue
 * (everything but a close frame); past it the client is dropped. */
static bool queue_frame(ty_client *c, int opcode, const void *data, size_t len, bool capped) {
  size_t queued = c->out_len - c->out_off;
  if (capped && queued + len > c->net->cfg.max_queue) {
    ty_log("net_queue_full", "client %llu has %zu bytes unsent (cap %zu): dropped",
           (unsigned long long)c->id, queued, c->net->cfg.max_queue);
    /* The close frame must follow whole frames: a frame already half on the wire is
     * finished first (its rest stays queued), every frame after it goes. */
    if (c->frame_end > c->out_off) c->out_len = c->frame_end;
    else drop_queue(c);
    ty_client_close(c, 1008, "send queue full");
    return false;
  }
  size_t need = 10 + len;
  if (c->out_len + need > c->out_cap) {
    if (c->out_off > LWS_PRE) { /* what was sent makes room first */
      memmove(c->out + LWS_PRE, c->out + c->out_off, queued);
      c->frame_end -= c->out_off - LWS_PRE;
      c->out_off = LWS_PRE;
      c->out_len = LWS_PRE + queued;
    }
    if (c->out_len + need > c->out_cap) {
      size_t cap = c->out_cap ? c->out_cap : OUT_MIN;
      while (cap < LWS_PRE + queued + need) cap *= 2;
      ty_net *net = c->net;
      if (!c->out && cap == OUT_MIN && net->spares) {
        c->out = net->spare[--net->spares];
        if (net->spares < net->spares_low) net->spares_low = net->spares;
      } else {
        c->out = TY_REALLOC(c->out, cap);
      }
      TY_ASSERT(c->out);
      if (!c->out_cap) c->out_off = c->out_len = c->frame_end = LWS_PRE;
      c->out_cap = cap;
    }
  }
  c->out_len += frame_header(c->out + c->out_len, len, opcode);
  if (len) memcpy(c->out + c->out_len, data, len);
  c->out_len += len;
  /* Once per batch: written at the end of the turn (flush), or, over TLS and on lws's own
   * poll loop, when lws says the socket is writable (on_writeable asks again while anything
   * is left). */
  if (!queued) {
    if (c->net->direct) {
      if (!c->flush_due && !c->waiting) {
        c->flush_due = true;
        c->flush_next = c->net->flush_due;
        c->net->flush_due = c;
      }
    } else {
      lws_callback_on_writable(c->wsi);
    }
  }
  return true;
}

bool ty_client_send(ty_client *c, const void *data, size_t len, bool binary) {
  if (c->closing || c->closed) return false; /* a quiet no-op, at shutdown too */
  if (!queue_frame(c, binary ? 0x2 : 0x1, data, len, true)) return false;
  c->net->sent++;
  return true;
}

/* Closes c's wsi from inside its callback: the caller returns -1 right after. */
static int close_now(ty_client *c, struct lws *wsi, int code, const char *reason) {
  c->closed = c->closing = true;
  lws_close_reason(wsi, (enum lws_close_status)code, (unsigned char *)reason, strlen(reason));
  return -1;
}

/* A client that talks is alive, pong or not (server.md: dropped when it "has sent nothing
 * and answered no ping"). lws re-sorts its timer list on each confirmation: a few a ping
 * period are plenty. */
static void confirm_alive(ty_client *c) {
  double now = ty_now();
  if (now - c->valid_at >= c->net->valid_every) {
    c->valid_at = now;
    lws_validity_confirmed(c->wsi);
  }
}

/* A piece of a message, from lws or the host's own reads: a message whole in one piece
 * (nearly every one) is handed over from the read buffer, so an idle client holds no receive
 * buffer of its own; one in parts is gathered (never past max_frame) and handed over whole. */
static void take_piece(ty_client *c, const char *data, size_t len, bool first, bool last, bool binary) {
  ty_net *net = c->net;
  if (first) c->rx_len = 0;
  if (c->rx_len == 0 && last) {
    net->received++;
    net->ev.message(net->user, c, len ? data : "", len, binary);
    return;
  }
  ty_bytes_append(&c->rx, &c->rx_len, &c->rx_cap, data, len, net->cfg.max_frame);
  if (!last) return;
  size_t n = c->rx_len;
  c->rx_len = 0;
  net->received++;
  net->ev.message(net->user, c, c->rx ? c->rx : "", n, binary);
  /* Messages in parts are rare: their buffer is not kept for the next one. */
  TY_FREE(c->rx);
  c->rx = NULL;
  c->rx_cap = 0;
}

static int on_receive(ty_client *c, struct lws *wsi, const char *in, size_t len) {
  ty_net *net = c->net;
  bool first = lws_is_first_fragment(wsi);
  if (first) {
    c->rx_len = 0;
    c->rx_binary = lws_frame_is_binary(wsi);
  }
  size_t total = c->rx_len + len + lws_remaining_packet_payload(wsi);
  if (total > net->cfg.max_frame) {
    ty_log("net_frame_too_big", "client %llu sent a message of more than %zu bytes: closed",
           (unsigned long long)c->id, net->cfg.max_frame);
    return close_now(c, wsi, 1009, "message too big");
  }
  if (c->closing) return 0; /* a closing client's input is read and dropped */
  confirm_alive(c);
  take_piece(c, in, len, first, lws_is_final_fragment(wsi), c->rx_binary);
  return 0;
}

/* A direct_rx client whose close is over (both sides' close frames, or its input broke) and
 * whose queue is out: lws may drop the connection. */
static bool close_finished(ty_client *c) {
  return c->direct_rx && c->close_done && !c->out && !lws_partial_buffered(c->wsi);
}

/* Has lws drop a direct_rx client's connection (no close frame of its own: ours went out, or
 * the peer is gone), from outside its callbacks: at once, on lws's next timer turn. */
static void rx_kill(ty_client *c) {
  c->closed = c->closing = true;
  rx_stop(c);
  lws_set_timeout(c->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
}

static int on_writeable(ty_client *c, struct lws *wsi) {
  c->waiting = false;
  if (c->closed) return 0; /* lws is closing it: its close frame is lws's to write */
  size_t queued = c->out_len - c->out_off;
  if (!queued && c->direct_rx) { /* its close frame, if any, was queued as the others */
    if (!close_finished(c)) return 0;
    c->closed = true;
    rx_stop(c);
    return -1;
  }
  if (!queued) return c->closing ? close_now(c, wsi, c->close_code, c->close_reason ? c->close_reason : "") : 0;
  size_t n = queued < BATCH_MAX ? queued : BATCH_MAX;
  /* Whole frames, already framed (a cut at BATCH_MAX continues in the next send): lws sends
   * them as they are, and keeps what the socket does not take yet, writing it before it
   * calls us again. The LWS_PRE bytes before them are ours to lend. */
  if (lws_write(wsi, c->out + c->out_off, n, LWS_WRITE_RAW) < (int)n) {
    ty_log("net_write_failed", "client %llu: write failed: dropped", (unsigned long long)c->id);
    c->closed = c->closing = true; /* closed at the TCP level: no close frame after a cut frame */
    return -1;
  }
  c->out_off += n;
  while (c->frame_end < c->out_off) c->frame_end += frame_size(c->out + c->frame_end);
  if (c->out_off == c->out_len) drop_queue(c); /* drained: an idle client keeps no buffer */
  /* While lws holds bytes the socket did not take, the next frames wait for it (lws calls
   * back once its bytes are out): written straight, they would pass them. */
  if (c->out || (c->closing && !c->direct_rx) || lws_partial_buffered(wsi)) {
    c->waiting = true;
    lws_callback_on_writable(wsi);
  } else if (close_finished(c)) {
    c->closed = true;
    rx_stop(c);
    return -1;
  }
  return 0;
}

/* A write outside lws failed: the client is closed at the TCP level, as on_writeable does
 * (no close frame after what may be a cut frame), once lws's timeout fires. */
static void write_failed(ty_client *c) {
  ty_log("net_write_failed", "client %llu: write failed: dropped", (unsigned long long)c->id);
  c->closed = c->closing = true;
  lws_set_timeout(c->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
}

/* Writes c's queue straight to its socket (plain TCP), at the end of the turn that queued it:
 * no writable callback asked for, so no epoll_ctl to add POLLOUT and none to take it off.
 * What the socket does not take goes the lws way (on_writeable) as before; a frame the
 * socket took only part of is finished by lws first (lws_write keeps its rest and writes it
 * before anything else, its own pings and pongs included), so every frame stays whole on
 * the wire. A closing client's close frame is always lws's: it is asked for once the queue
 * is out. */
static void flush_client(ty_client *c) {
  size_t queued = c->out_len - c->out_off;
  if (c->closed || c->waiting) return;
  if (queued) {
    ssize_t n = send(c->fd, c->out + c->out_off, queued, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      write_failed(c);
      return;
    }
    if (n > 0) {
      c->out_off += (size_t)n;
      while (c->frame_end < c->out_off) c->frame_end += frame_size(c->out + c->frame_end);
      if (c->frame_end > c->out_off) { /* a frame cut: lws finishes it */
        size_t rest = c->frame_end - c->out_off;
        if (lws_write(c->wsi, c->out + c->out_off, rest, LWS_WRITE_RAW) < (int)rest) {
          write_failed(c);
          return;
        }
        c->out_off = c->frame_end;
      }
      if (c->out_off == c->out_len) drop_queue(c);
    }
  }
  if (c->out || (c->closing && !c->direct_rx) || lws_partial_buffered(c->wsi)) {
    c->waiting = true;
    lws_callback_on_writable(c->wsi);
  } else if (close_finished(c)) {
    rx_kill(c);
  }
}

static void flush_due(struct ev_loop *loop, ev_prepare *w, int revents) {
  (void)loop;
  (void)revents;
  ty_net *net = w->data;
  while (net->flush_due) {
    ty_client *c = net->flush_due;
    net->flush_due = c->flush_next;
    c->flush_due = false;
    c->flush_next = NULL;
    flush_client(c);
  }
}

/* ---- the direct read path ----
 * On the libev loop, a plain connection is read here once lws has finished its handshake:
 * one recv per readiness (at most RX_READ bytes, into one buffer all clients share: a turn
 * hands every whole message to the module before the next read), frames parsed by
 * server/ws_frames.c, and lws told to stop watching the socket for input (rx flow control).
 * lws's per-byte frame parser cost more than the rest of a read together. lws keeps the
 * rest: the handshake, writes the socket does not take, its pings and timeouts, and the
 * close itself, which is asked of it (rx_kill, or -1 from the writable callback) once the
 * close handshake is over, so that lws frees the connection and says CLOSED once. Over TLS,
 * on lws's poll loop, and where bytes came with the handshake (lws holds them), lws reads
 * as before. */

/* A piece of a message: handed over when whole; gathered (up to max_frame, which the parser
 * holds it to) when it comes in parts. */
static void rx_data(ty_client *c, const ty_ws_event *ev) {
  if (c->closing) return; /* a closing client's input is read and dropped */
  take_piece(c, (const char *)ev->data, ev->len, ev->first, ev->last, ev->binary);
}

/* The peer's close: echoed (code and reason, RFC 6455 5.5.1), or the answer to ours. */
static void rx_close(ty_client *c, const ty_ws_event *ev) {
  if (c->close_done) return;
  c->close_done = true;
  ty_client_close(c, ev->code, ev->reason);
  if (close_finished(c)) rx_kill(c);
}

/* A broken frame: closed with the parser's code; nothing more is read from it as frames. */
static void rx_error(ty_client *c, const ty_ws_event *ev) {
  if (ev->code == 1009)
    ty_log("net_frame_too_big", "client %llu sent a message of more than %zu bytes: closed",
           (unsigned long long)c->id, c->net->cfg.max_frame);
  if (strcmp(ev->reason, "unmasked frame") == 0) {
    unmasked_log.n++;
    unmasked_flush(ty_now());
  }
  c->close_done = true;
  ty_client_close(c, ev->code, ev->reason);
  if (close_finished(c)) rx_kill(c);
}

static void rx_bytes(ty_client *c, uint8_t *p, size_t n) {
  if (!c->closing) confirm_alive(c);
  while (n && !c->closed) {
    ty_ws_event ev;
    size_t k = ty_ws_rx_next(&c->ws, p, n, &ev);
    p += k;
    n -= k;
    switch (ev.kind) {
    case TY_WS_DATA:
      rx_data(c, &ev);
      break;
    case TY_WS_PING: /* answered in its turn, after what is queued (lws's pong went first) */
      if (!c->closing) queue_frame(c, 0xa, ev.data, ev.len, true);
      break;
    case TY_WS_PONG:
      lws_validity_confirmed(c->wsi);
      break;
    case TY_WS_CLOSE:
      rx_close(c, &ev);
      break;
    case TY_WS_ERROR:
      rx_error(c, &ev);
      break;
    case TY_WS_MORE:
      break;
    }
  }
}

static void on_readable(struct ev_loop *loop, ev_io *w, int revents) {
  (void)loop;
  (void)revents;
  ty_client *c = w->data;
  static uint8_t buf[RX_READ];
  ssize_t n = real_recv(w->fd, buf, sizeof buf, 0);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
  if (n <= 0) { /* closed or reset, mid-frame or not: what it was sending is dropped */
    rx_kill(c);
    return;
  }
  rx_bytes(c, buf, (size_t)n);
}

/* Takes c's input from lws, right after its handshake; false where lws keeps it. */
static bool rx_start(ty_client *c) {
  if (lws_rx_flow_control(c->wsi, 0) < 0) return false;
  c->direct_rx = true;
  ty_ws_rx_init(&c->ws, c->net->cfg.max_frame);
  ev_io_init(&c->rx_w, on_readable, c->fd, EV_READ);
  c->rx_w.data = c;
  ev_io_start(c->net->loop, &c->rx_w);
  return true;
}

/* Writes the pending net_client_cap line when a second has passed since the last one. */
static void refused_flush(ty_net *net, double now) {
  if (!net->refused || now - net->refused_at < 1.0) return;
  ty_log("net_client_cap", "refused %lu connection%s: %d open, --max-clients %d", net->refused,
         net->refused == 1 ? "" : "s", net->conns, net->cfg.max_clients);
  net->refused = 0;
  net->refused_at = now;
}

/* One connection past max_clients: told why in plain HTTP (a WebSocket client reports the
 * status), where the port is not TLS, and closed by lws right after. Logged at most once a
 * second, with a count. */
static void refuse(ty_net *net, int fd) {
#define BUSY_BODY "too many clients\n"
  static const char busy[] = "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nRetry-After: 5\r\n"
                             "Content-Type: text/plain\r\nContent-Length: 17\r\n\r\n" BUSY_BODY;
  _Static_assert(sizeof BUSY_BODY - 1 == 17, "Content-Length");
  if (!net->cfg.tls_cert && fd >= 0) {
    ssize_t n = send(fd, busy, sizeof busy - 1, MSG_DONTWAIT | MSG_NOSIGNAL);
    (void)n; /* best effort: the close says the rest */
  }
  net->refused++;
  refused_flush(net, ty_now());
}

/* A plain GET the host answers (/_monitor): headers now, the body when the socket is writable. */
static int http_begin(ty_net *net, struct lws *wsi, pss *p, const char *path) {
  const char *type = "text/plain";
  size_t len = 0;
  char *body = net && net->ev.http ? net->ev.http(net->user, path, &type, &len) : NULL;
  if (!body) return 1; /* lws's default answer */
  uint8_t head[LWS_PRE + 512], *start = head + LWS_PRE, *q = start, *end = head + sizeof head - 1;
  if (lws_add_http_common_headers(wsi, HTTP_STATUS_OK, type, len, &q, end) ||
      lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_CACHE_CONTROL, (unsigned char *)"no-store", 8, &q, end) ||
      lws_finalize_write_http_header(wsi, start, &q, end)) {
    TY_FREE(body);
    return -1;
  }
  p->http_body = TY_MALLOC(LWS_PRE + len + 1);
  TY_ASSERT(p->http_body);
  memcpy(p->http_body + LWS_PRE, body, len);
  p->http_len = len;
  TY_FREE(body);
  lws_callback_on_writable(wsi);
  return 0;
}

static int http_write(struct lws *wsi, pss *p) {
  if (!p->http_body) return 0;
  int n = lws_write(wsi, (unsigned char *)p->http_body + LWS_PRE, p->http_len, LWS_WRITE_HTTP_FINAL);
  TY_FREE(p->http_body);
  p->http_body = NULL;
  if (n < 0) return -1;
  return lws_http_transaction_completed(wsi) ? -1 : 0;
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len) {
  struct lws_context *ctx = lws_get_context(wsi);
  ty_net *net = ctx ? lws_context_user(ctx) : NULL;
  pss *p = user;
  switch (reason) {
  case LWS_CALLBACK_FILTER_NETWORK_CONNECTION:
    if (!net || net->stopping) return -1; /* shutting down: accept nothing new */
    if (net->conns >= net->cfg.max_clients) {
      refuse(net, ((struct lws_filter_network_conn_args *)user)->accept_fd);
      return -1; /* lws closes it */
    }
    return 0;
  case LWS_CALLBACK_SERVER_NEW_CLIENT_INSTANTIATED: /* the wsi of a connection FILTER let in */
    if (net) {
      net->conns++;
      /* WSI_DESTROY counts it out and frees this */
      lws_set_opaque_user_data(wsi, guard_create(wsi, net->cfg.tls_cert != NULL));
    }
    return 0;
  case LWS_CALLBACK_WSI_DESTROY: {
    guard *g = net ? lws_get_opaque_user_data(wsi) : NULL;
    if (g && g->wsi == wsi) {
      lws_set_opaque_user_data(wsi, NULL);
      guard_free(g);
      net->conns--;
    }
    return 0;
  }
  case LWS_CALLBACK_ESTABLISHED: {
    p->client = client_create(net, wsi);
    p->client->valid_at = ty_now();
    guard *g = lws_get_opaque_user_data(wsi);
    if (g && g->wsi == wsi) {
      g->client = p->client;
      p->client->guard = g;
      if (g->refused) { /* an unmasked frame came with the handshake */
        ty_client_close(p->client, 1002, "unmasked frame");
        return 0;
      }
      if (net->direct && !g->tls && !g->frame_seen) g->direct = rx_start(p->client);
    }
    char path[256] = "/";
    if (lws_hdr_copy(wsi, path, sizeof path, WSI_TOKEN_GET_URI) < 0) {
      ty_client_close(p->client, 1008, "path too long");
      return 0;
    }
    if (net->stopping) ty_client_close(p->client, 1001, "server shutting down");
    else net->ev.open(net->user, p->client, path);
    return 0;
  }
  case LWS_CALLBACK_RECEIVE:
    return p && p->client ? on_receive(p->client, wsi, in, len) : 0;
  case LWS_CALLBACK_SERVER_WRITEABLE:
    return p && p->client ? on_writeable(p->client, wsi) : 0;
  case LWS_CALLBACK_CLOSED:
    if (p && p->client) {
      net->ev.close(net->user, p->client);
      client_free(p->client);
      p->client = NULL;
    }
    return 0;
  case LWS_CALLBACK_HTTP: {
    /* A plain request, no upgrade: the guard looks for the next request head (a browser
     * keeps the connection for its next GET), not for frames. */
    guard *g = net ? lws_get_opaque_user_data(wsi) : NULL;
    if (g && g->wsi == wsi) {
      g->in_frames = false;
      g->head_match = 0;
      g->hdr_len = 0;
      g->left = 0;
      g->frame_seen = false;
    }
    if (p && !p->client && in) {
      int r = http_begin(net, wsi, p, in);
      if (r <= 0) return r;
    }
    return lws_callback_http_dummy(wsi, reason, user, in, len);
  }
  case LWS_CALLBACK_HTTP_WRITEABLE:
    if (p && p->http_body) return http_write(wsi, p);
    return lws_callback_http_dummy(wsi, reason, user, in, len);
  case LWS_CALLBACK_CLOSED_HTTP:
  case LWS_CALLBACK_HTTP_DROP_PROTOCOL:
    if (p && p->http_body) {
      TY_FREE(p->http_body);
      p->http_body = NULL;
    }
    return lws_callback_http_dummy(wsi, reason, user, in, len);
  default:
    return lws_callback_http_dummy(wsi, reason, user, in, len);
  }
}

/* lws's own error lines, at most one a second for a run of the same line, with a count: a
 * fault that repeats on every turn of the loop (as accept() failing did) must not fill the
 * disk. lws's emitter has no user pointer: the state is the process's. */
static struct {
  char line[160];
  unsigned long repeats; /* of line, since it was written */
  double at;
} lws_log_state;

static void lws_log_flush(double now) {
  if (!lws_log_state.repeats || now - lws_log_state.at < 1.0) return;
  fprintf(stderr, "tycho: lws: %s (%lu more times)\n", lws_log_state.line, lws_log_state.repeats);
  lws_log_state.repeats = 0;
  lws_log_state.at = now;
}

/* The last resort when accept() fails for want of a descriptor anyway (the client cap keeps a
 * reserve, but a module may open files past it): the failed connection stays queued on the
 * listening socket, which stays readable, and lws would try again on every turn of the loop.
 * A spare descriptor, held from the start, is given up for a moment to accept the connection
 * at the head of the queue and close it (libev's documented way out of EMFILE). lws says
 * nothing of the failure but its log line, so this runs from there. */
static struct {
  int listen_fd, spare_fd; /* -1 until ty_net_create found them */
  unsigned long shed;      /* connections closed this way, not yet logged */
  double at;               /* the last net_accept_shed line */
} accept_shed = {-1, -1, 0, 0};

static void accept_shed_one(void) {
  if (accept_shed.listen_fd < 0 || accept_shed.spare_fd < 0) return;
  close(accept_shed.spare_fd);
  int fd = accept(accept_shed.listen_fd, NULL, NULL);
  if (fd >= 0) {
    close(fd);
    accept_shed.shed++;
  }
  accept_shed.spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
}

static void accept_shed_flush(double now) {
  if (!accept_shed.shed || now - accept_shed.at < 1.0) return;
  ty_log("net_accept_shed", "closed %lu connection%s at accept: the process has no descriptor left for them",
         accept_shed.shed, accept_shed.shed == 1 ? "" : "s");
  accept_shed.shed = 0;
  accept_shed.at = now;
}

/* The listening socket lws made: the one that accepts connections on port. */
static int find_listen_fd(int port) {
  for (int fd = 0; fd < 1024; fd++) {
    int on = 0;
    socklen_t n = sizeof on;
    struct sockaddr_storage sa;
    socklen_t sl = sizeof sa;
    if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &on, &n) != 0 || !on) continue;
    if (getsockname(fd, (struct sockaddr *)&sa, &sl) != 0 || sa.ss_family != AF_INET) continue;
    if (ntohs(((struct sockaddr_in *)&sa)->sin_port) == port) return fd;
  }
  return -1;
}

static void lws_log_emit(int level, const char *line) {
  (void)level;
  if (strstr(line, "accept: errno 24") || strstr(line, "accept: errno 23")) accept_shed_one(); /* EMFILE, ENFILE */
  char text[160];
  snprintf(text, sizeof text, "%s", line);
  text[strcspn(text, "\n")] = 0;
  /* lws prefixes a timestamp "[2026/11/25 19:36:49:1234] E: ": compare what follows it */
  const char *body = text[0] == '[' && strchr(text, ']') ? strchr(text, ']') + 1 : text;
  while (*body == ' ') body++;
  double now = ty_now();
  if (strcmp(body, lws_log_state.line) == 0) {
    lws_log_state.repeats++;
    lws_log_flush(now);
    return;
  }
  if (lws_log_state.repeats) { /* a different line: the old one's count first */
    lws_log_state.at = 0;
    lws_log_flush(now);
  }
  snprintf(lws_log_state.line, sizeof lws_log_state.line, "%s", body);
  lws_log_state.at = now;
  fprintf(stderr, "tycho: lws: %s\n", body);
}

static void spares_free(ty_net *net) {
  while (net->spares) TY_FREE(net->spare[--net->spares]);
  net->spares_low = 0;
}

/* Frees the spares no send took since the last tick: the pool holds what one turn of the
 * loop needs under the load of the moment, and nothing once the sends stop. */
static void spares_shrink(ty_net *net) {
  for (int n = net->spares_low; n > 0 && net->spares; n--) TY_FREE(net->spare[--net->spares]);
  net->spares_low = net->spares;
}

/* Gives the heap's free pages back to the system once the server has been quiet (no message
 * in or out, no connection opened or closed) for TRIM_QUIET seconds. Connecting and joining
 * leave holes behind (send queues of a broadcast round, decoded messages, a welcome's text)
 * between what each connection keeps, and glibc's free returns only the heap's top: without
 * this an idle server's RSS holds its busiest moment's peak (measured: about 1.4 KB per
 * connection after 1,000 joins into 50 rooms, tests/bench/host_bench.sh). Only when quiet,
 * once a spell: malloc_trim walks every free chunk, tens of ms on a heap of 100 MB in small
 * pieces, a pause no busy tick may take. */
static void heap_trim(ty_net *net, double now) {
  uint64_t seen = net->received + net->sent;
  if (seen != net->trim_seen || net->conns != net->trim_conns) {
    net->trim_seen = seen;
    net->trim_conns = net->conns;
    net->quiet_since = now;
    net->trimmed = false;
    return;
  }
  if (net->trimmed || now - net->quiet_since < TRIM_QUIET) return;
  net->trimmed = true;
  spares_free(net);
#ifdef __GLIBC__
  malloc_trim(0);
#endif
}

static void on_tick(lws_sorted_usec_list_t *sul) {
  ty_net *net = lws_container_of(sul, ty_net, tick_sul);
  net->ev.tick(net->user);
  refused_flush(net, ty_now());
  lws_log_flush(ty_now());
  unmasked_flush(ty_now());
  accept_shed_flush(ty_now());
  heap_trim(net, ty_now());
  spares_shrink(net);
  if (net->stopping && (!net->clients || ty_now() > net->stop_deadline)) {
    net->done = true;
    if (net->loop) ev_break(net->loop, EVBREAK_ALL);
    else lws_cancel_service(net->ctx);
    return;
  }
  lws_sul_schedule(net->ctx, 0, &net->tick_sul, on_tick, 10 * LWS_US_PER_MS);
}

/* lws on a libev loop of ours: lws installs no signal watcher on a loop it does not own, so
 * the host's SIGINT/SIGTERM handlers stay its own (they interrupt epoll_wait; the tick sees
 * the flag), and ty_net_run can end the loop with ev_break. Where lws cannot load its libev
 * plugin, its poll loop serves (the same behaviour, at a poll() over every socket per turn). */
static struct lws_context *create_context(ty_net *net, struct lws_context_creation_info *info) {
  net->loop = ev_loop_new(EVFLAG_AUTO | EVFLAG_NOSIGMASK);
  if (net->loop) {
    void *loops[1] = {net->loop};
    info->options |= LWS_SERVER_OPTION_LIBEV;
    info->foreign_loops = loops;
    struct lws_context *ctx = lws_create_context(info);
    info->options &= ~(uint64_t)LWS_SERVER_OPTION_LIBEV;
    info->foreign_loops = NULL;
    if (ctx) return ctx;
    ev_loop_destroy(net->loop);
    net->loop = NULL;
  }
  struct lws_context *ctx = lws_create_context(info);
  if (ctx)
    ty_log("net_evlib_unavailable", "libwebsockets' libev plugin (evlib_ev) did not load: "
           "serving on lws's poll loop, which scans every socket each turn");
  return ctx;
}

struct ev_loop *ty_net_loop(ty_net *net) { return net->loop; }

void ty_net_counts(const ty_net *net, int *conns, uint64_t *received, uint64_t *sent) {
  *conns = net->conns;
  *received = net->received;
  *sent = net->sent;
}

ty_net *ty_net_create(const ty_net_config *cfg, const ty_net_events *ev, void *user) {
  ty_net *net = TY_MALLOC(sizeof *net);
  TY_ASSERT(net);
  memset(net, 0, sizeof *net);
  net->cfg = *cfg;
  net->ev = *ev;
  net->user = user;
  net->protocols[0] = (struct lws_protocols){
      .name = "tycho",
      .callback = callback,
      .per_session_data_size = sizeof(pss),
      /* lws keeps one of these per connection and reads the socket at most this much at a
       * time; game messages are far smaller, and longer ones arrive in parts. */
      .rx_buffer_size = RX_BUFFER,
      /* Left 0, lws would cut every send to rx_buffer_size and copy the rest aside to send
       * on later wake-ups: a gathered batch goes to the socket whole instead. */
      .tx_packet_size = BATCH_MAX,
  };
  net->retry.secs_since_valid_ping = (uint16_t)cfg->ping_secs;
  net->retry.secs_since_valid_hangup = (uint16_t)cfg->hangup_secs;
  net->valid_every = cfg->ping_secs / 4.0;
  struct rlimit rl;
  if (!guards && getrlimit(RLIMIT_NOFILE, &rl) == 0) { /* one slot per descriptor the process may have */
    guards_n = rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > (1 << 20) ? 1 << 20 : (int)rl.rlim_cur;
    guards = TY_MALLOC(sizeof *guards * (size_t)guards_n);
    TY_ASSERT(guards);
    memset(guards, 0, sizeof *guards * (size_t)guards_n);
  }
  if (net->cfg.max_clients <= 0) net->cfg.max_clients = 1;

  lws_set_log_level(LLL_ERR, lws_log_emit);
  struct lws_context_creation_info info;
  memset(&info, 0, sizeof info);
  info.port = cfg->port;
  info.iface = cfg->iface && strcmp(cfg->iface, "0.0.0.0") != 0 ? cfg->iface : NULL;
  info.protocols = net->protocols;
  info.user = net;
  info.retry_and_idle_policy = &net->retry;
  info.options = LWS_SERVER_OPTION_DISABLE_IPV6;
  if (cfg->tls_cert && cfg->tls_key) {
    info.options |= LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
    info.ssl_cert_filepath = cfg->tls_cert;
    info.ssl_private_key_filepath = cfg->tls_key;
  }
  info.gid = -1;
  info.uid = -1;
  net->ctx = create_context(net, &info);
  if (!net->ctx) {
    fprintf(stderr, "tycho serve: cannot listen on %s:%d%s\n", cfg->iface ? cfg->iface : "*", cfg->port,
            cfg->tls_cert ? " (or cannot load the TLS certificate and key)" : "");
    TY_FREE(net);
    return NULL;
  }
  net->port = lws_get_vhost_listen_port(lws_get_vhost_by_name(net->ctx, "default"));
  if (net->port <= 0) net->port = cfg->port;
  if (net->loop) { /* flush_due ends every turn of the loop; unref'd, it alone keeps no loop running */
    net->direct = !cfg->tls_cert; /* TLS: lws's writes (its records are its own) */
    ev_prepare_init(&net->flush_w, flush_due);
    net->flush_w.data = net;
    ev_prepare_start(net->loop, &net->flush_w);
    ev_unref(net->loop);
  }
  if (accept_shed.spare_fd < 0) accept_shed.spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  accept_shed.listen_fd = find_listen_fd(net->port);
  lws_sul_schedule(net->ctx, 0, &net->tick_sul, on_tick, 10 * LWS_US_PER_MS);
  /* lws arms its libev timer only after some I/O: a wake-up through its event pipe is the
   * first, so the tick runs on a host nobody has connected to yet. */
  if (net->loop) lws_cancel_service(net->ctx);
  return net;
}

void ty_net_run(ty_net *net) {
  if (net->loop) {
    ev_run(net->loop, 0); /* until on_tick's ev_break */
    return;
  }
  while (!net->done)
    if (lws_service(net->ctx, 0) < 0) break;
}

void ty_net_stop(ty_net *net) {
  if (net->stopping) return;
  net->stopping = true;
  net->stop_deadline = ty_now() + 3.0;
}

void ty_net_close_all(ty_net *net, int code, const char *reason) {
  for (ty_client *c = net->clients; c; c = c->next) ty_client_close(c, code, reason);
}

void ty_net_destroy(ty_net *net) {
  if (!net) return;
  if (net->loop) {
    ev_ref(net->loop);
    ev_prepare_stop(net->loop, &net->flush_w);
  }
  lws_context_destroy(net->ctx); /* frees every guard (WSI_DESTROY) */
  spares_free(net);
  if (net->loop) ev_loop_destroy(net->loop); /* after lws has stopped its watchers on it */
  TY_FREE(guards);
  guards = NULL;
  guards_n = 0;
  if (accept_shed.spare_fd >= 0) close(accept_shed.spare_fd);
  accept_shed.spare_fd = accept_shed.listen_fd = -1;
  TY_FREE(net);
}
