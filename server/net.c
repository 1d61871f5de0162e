/* server/net.c: libwebsockets (4.1) behind server/net.h. Frames are written only on
 * LWS_CALLBACK_SERVER_WRITEABLE: every small frame queued by then goes out in one send (the
 * WebSocket headers written here, the batch handed to lws raw), because on a busy room a
 * syscall per frame costs more than everything else together; a large frame is written by
 * lws alone. Incoming fragments are gathered into a per-client buffer that never grows past
 * max_frame; heartbeat is lws's validity policy. */
#include "net.h"

#include <libwebsockets.h>
#include <string.h>

#include "common.h"

typedef struct out_frame {
  struct out_frame *next;
  size_t len;
  bool binary;
  unsigned char buf[]; /* LWS_PRE bytes of room, then the payload */
} out_frame;

struct ty_client {
  ty_net *net;
  struct lws *wsi;
  uint64_t id;
  void *user;
  ty_client *prev, *next; /* every live client, for shutdown */
  out_frame *head, *tail;
  size_t queued;
  char *rx;
  size_t rx_len, rx_cap;
  bool rx_binary;
  bool closing;
  int close_code;
  char close_reason[124];
};

#define BATCH_MAX (32 * 1024) /* bytes of frames (headers included) gathered into one send */

struct ty_net {
  struct lws_context *ctx;
  unsigned char batch[LWS_PRE + BATCH_MAX]; /* the send being gathered (one thread: one buffer) */
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
};

typedef struct pss {
  ty_client *client;
} pss;

static ty_client *client_create(ty_net *net, struct lws *wsi) {
  ty_client *c = TY_MALLOC(sizeof *c);
  TY_ASSERT(c);
  memset(c, 0, sizeof *c);
  c->net = net;
  c->wsi = wsi;
  c->id = ++net->next_id;
  c->next = net->clients;
  if (net->clients) net->clients->prev = c;
  net->clients = c;
  return c;
}

static void drop_queue(ty_client *c) {
  while (c->head) {
    out_frame *f = c->head;
    c->head = f->next;
    TY_FREE(f);
  }
  c->tail = NULL;
  c->queued = 0;
}

static void client_free(ty_client *c) {
  ty_net *net = c->net;
  if (c->prev) c->prev->next = c->next;
  else net->clients = c->next;
  if (c->next) c->next->prev = c->prev;
  drop_queue(c);
  TY_FREE(c->rx);
  TY_FREE(c);
}

uint64_t ty_client_id(const ty_client *c) { return c->id; }
void *ty_client_user(const ty_client *c) { return c->user; }
void ty_client_set_user(ty_client *c, void *user) { c->user = user; }
int ty_net_port(const ty_net *net) { return net->port; }

void ty_client_close(ty_client *c, int code, const char *reason) {
  if (c->closing) return;
  c->closing = true;
  c->close_code = code;
  snprintf(c->close_reason, sizeof c->close_reason, "%s", reason ? reason : "");
  lws_callback_on_writable(c->wsi);
  /* A peer that never reads never makes us writable: lws drops it when this expires. */
  lws_set_timeout(c->wsi, PENDING_TIMEOUT_USER_OK, 5);
}

bool ty_client_send(ty_client *c, const void *data, size_t len, bool binary) {
  if (c->closing) return false;
  if (c->queued + len > c->net->cfg.max_queue) {
    ty_log("net_queue_full", "client %llu has %zu bytes unsent (cap %zu): dropped",
           (unsigned long long)c->id, c->queued, c->net->cfg.max_queue);
    drop_queue(c);
    ty_client_close(c, 1008, "send queue full");
    return false;
  }
  out_frame *f = TY_MALLOC(sizeof *f + LWS_PRE + len);
  TY_ASSERT(f);
  f->next = NULL;
  f->len = len;
  f->binary = binary;
  if (len) memcpy(f->buf + LWS_PRE, data, len);
  if (c->tail) c->tail->next = f;
  else c->head = f;
  c->tail = f;
  c->queued += len;
  lws_callback_on_writable(c->wsi);
  return true;
}

/* Closes wsi from inside its callback: the caller returns -1 right after. */
static int close_now(struct lws *wsi, int code, const char *reason) {
  lws_close_reason(wsi, (enum lws_close_status)code, (unsigned char *)reason, strlen(reason));
  return -1;
}

static int on_receive(ty_client *c, struct lws *wsi, const char *in, size_t len) {
  ty_net *net = c->net;
  if (lws_is_first_fragment(wsi)) {
    c->rx_len = 0;
    c->rx_binary = lws_frame_is_binary(wsi);
  }
  size_t total = c->rx_len + len + lws_remaining_packet_payload(wsi);
  if (total > net->cfg.max_frame) {
    ty_log("net_frame_too_big", "client %llu sent a message of more than %zu bytes: closed",
           (unsigned long long)c->id, net->cfg.max_frame);
    return close_now(wsi, 1009, "message too big");
  }
  if (c->closing) return 0; /* a closing client's input is read and dropped */
  if (c->rx_len + len > c->rx_cap) {
    size_t cap = c->rx_cap ? c->rx_cap : 1024;
    while (cap < c->rx_len + len) cap *= 2;
    if (cap > net->cfg.max_frame) cap = net->cfg.max_frame;
    c->rx = TY_REALLOC(c->rx, cap);
    TY_ASSERT(c->rx);
    c->rx_cap = cap;
  }
  if (len) memcpy(c->rx + c->rx_len, in, len);
  c->rx_len += len;
  if (lws_is_final_fragment(wsi)) {
    size_t n = c->rx_len;
    c->rx_len = 0;
    net->ev.message(net->user, c, c->rx ? c->rx : "", n, c->rx_binary);
  }
  return 0;
}

/* Server-to-client frame header (RFC 6455 5.2: FIN, opcode, unmasked length); returns its size. */
static size_t frame_header(unsigned char *h, size_t len, bool binary) {
  h[0] = 0x80 | (binary ? 0x2 : 0x1);
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

static out_frame *pop_frame(ty_client *c) {
  out_frame *f = c->head;
  c->head = f->next;
  if (!c->head) c->tail = NULL;
  c->queued -= f->len;
  return f;
}

static int on_writeable(ty_client *c, struct lws *wsi) {
  if (!c->head) return c->closing ? close_now(wsi, c->close_code, c->close_reason) : 0;
  unsigned char *batch = c->net->batch + LWS_PRE;
  size_t n = 0;
  int wrote;
  size_t want;
  if (c->head->len + 10 > BATCH_MAX) {
    out_frame *f = pop_frame(c); /* too big to gather: lws frames it from its own LWS_PRE room */
    want = f->len;
    wrote = lws_write(wsi, f->buf + LWS_PRE, f->len, f->binary ? LWS_WRITE_BINARY : LWS_WRITE_TEXT);
    TY_FREE(f);
  } else {
    while (c->head && n + c->head->len + 10 <= BATCH_MAX) {
      out_frame *f = pop_frame(c);
      n += frame_header(batch + n, f->len, f->binary);
      memcpy(batch + n, f->buf + LWS_PRE, f->len);
      n += f->len;
      TY_FREE(f);
    }
    want = n;
    /* Whole frames, already framed: lws sends them as they are (and keeps what the socket
     * does not take yet, writing it before it calls us again). */
    wrote = lws_write(wsi, batch, n, LWS_WRITE_RAW);
  }
  if (wrote < (int)want) {
    ty_log("net_write_failed", "client %llu: write failed: dropped", (unsigned long long)c->id);
    return -1;
  }
  if (c->head || c->closing) lws_callback_on_writable(wsi);
  return 0;
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len) {
  struct lws_context *ctx = lws_get_context(wsi);
  ty_net *net = ctx ? lws_context_user(ctx) : NULL;
  pss *p = user;
  switch (reason) {
  case LWS_CALLBACK_FILTER_NETWORK_CONNECTION:
    return net && net->stopping ? -1 : 0; /* shutting down: accept nothing new */
  case LWS_CALLBACK_ESTABLISHED: {
    p->client = client_create(net, wsi);
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
  default:
    return lws_callback_http_dummy(wsi, reason, user, in, len);
  }
}

static void on_tick(lws_sorted_usec_list_t *sul) {
  ty_net *net = lws_container_of(sul, ty_net, tick_sul);
  net->ev.tick(net->user);
  if (net->stopping && (!net->clients || ty_now() > net->stop_deadline)) {
    net->done = true;
    lws_cancel_service(net->ctx);
    return;
  }
  lws_sul_schedule(net->ctx, 0, &net->tick_sul, on_tick, 10 * LWS_US_PER_MS);
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
      .rx_buffer_size = 2048, /* per connection (lws keeps one each); longer messages arrive in parts */
  };
  net->retry.secs_since_valid_ping = (uint16_t)cfg->ping_secs;
  net->retry.secs_since_valid_hangup = (uint16_t)cfg->hangup_secs;

  lws_set_log_level(LLL_ERR, NULL);
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
  net->ctx = lws_create_context(&info);
  if (!net->ctx) {
    fprintf(stderr, "tycho serve: cannot listen on %s:%d%s\n", cfg->iface ? cfg->iface : "*", cfg->port,
            cfg->tls_cert ? " (or cannot load the TLS certificate and key)" : "");
    TY_FREE(net);
    return NULL;
  }
  net->port = lws_get_vhost_listen_port(lws_get_vhost_by_name(net->ctx, "default"));
  if (net->port <= 0) net->port = cfg->port;
  lws_sul_schedule(net->ctx, 0, &net->tick_sul, on_tick, 10 * LWS_US_PER_MS);
  return net;
}

void ty_net_run(ty_net *net) {
  while (!net->done)
    if (lws_service(net->ctx, 0) < 0) break;
}

void ty_net_stop(ty_net *net) {
  if (net->stopping) return;
  net->stopping = true;
  net->stop_deadline = ty_now() + 3.0;
  for (ty_client *c = net->clients; c; c = c->next) ty_client_close(c, 1001, "server shutting down");
}

void ty_net_destroy(ty_net *net) {
  if (!net) return;
  lws_context_destroy(net->ctx);
  TY_FREE(net);
}
