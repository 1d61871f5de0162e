/* engine/net/client.c: libwebsockets (4.1) client behind engine/net/client.h. Callbacks
 * only move bytes and queue events; frames are written one per CLIENT_WRITEABLE; incoming
 * fragments are gathered into a buffer that never grows past max_message. A connection
 * outlives its wsi until the owner releases it, and the wsi's opaque pointer is cleared
 * the moment the connection ends, so libwebsockets never calls back into freed memory. */
#include "net/client.h"

#include <libwebsockets.h>
#include <string.h>

/* Keeps lws's fd tables small: it sizes them by the process fd limit otherwise. */
#define CLIENT_FD_LIMIT 256
/* Idle seconds before a ping, and without any traffic before the server counts as gone. */
#define CLIENT_PING_SECS 20
#define CLIENT_HANGUP_SECS 50
/* A close whose queue never drains (the peer stopped reading) is cut after this long. */
#define CLIENT_CLOSE_SECS 5

typedef struct out_frame {
  struct out_frame *next;
  size_t len;
  bool binary;
  unsigned char buf[]; /* LWS_PRE bytes of room, then the payload */
} out_frame;

typedef struct queued_event {
  struct queued_event *next;
  ty_net_event ev;
  char text[]; /* the payload and the reason, each NUL-terminated */
} queued_event;

struct ty_net_conn {
  ty_net_client *client;
  ty_net_conn *prev, *next;
  struct lws *wsi; /* NULL once libwebsockets is done with the connection */
  ty_net_state state;
  bool opened;   /* the handshake finished at some point */
  bool ended;    /* the last event (CLOSE or ERROR) was produced */
  bool released; /* the owner let go: free as soon as wsi is NULL */
  size_t max_message, max_queue;
  out_frame *head, *tail;
  size_t queued;
  char *rx;
  size_t rx_len, rx_cap;
  bool rx_binary;
  int local_code; /* what we closed with, 0 if we did not */
  char local_reason[124];
  int peer_code; /* what the peer's close frame said, 0 if none came */
  char peer_reason[124];
  char url[1024];
  char error[1400]; /* why it never opened; "" otherwise */
  char address[256]; /* host without [] */
  char host_header[272];
  char path[1024];
};

struct ty_net_client {
  struct lws_context *ctx;
  struct lws_protocols protocols[2];
  lws_retry_bo_t retry;
  ty_net_conn *conns;
  queued_event *head, *tail;
  queued_event *current; /* what poll returned last; its bytes live until the next poll */
  lws_sorted_usec_list_t wake;
  bool destroying; /* lws_context_destroy is closing everything: no events */
};

/* ---- events ---- */

static void push_event(ty_net_conn *c, ty_net_event_kind kind, const char *data, size_t len, bool binary, int code,
                       const char *reason) {
  ty_net_client *cl = c->client;
  if (cl->destroying || c->released) return;
  if (!reason) reason = "";
  size_t rlen = strlen(reason);
  queued_event *q = TY_MALLOC(sizeof *q + len + 1 + rlen + 1);
  TY_ASSERT(q);
  memset(q, 0, sizeof *q);
  if (len) memcpy(q->text, data, len);
  q->text[len] = 0;
  memcpy(q->text + len + 1, reason, rlen + 1);
  q->ev = (ty_net_event){.kind = kind, .conn = c, .data = q->text, .len = len, .binary = binary, .code = code,
                         .reason = q->text + len + 1};
  if (cl->tail) cl->tail->next = q;
  else cl->head = q;
  cl->tail = q;
}

/* Drops the events still waiting for c (its owner released it). */
static void drop_events(ty_net_client *cl, ty_net_conn *c) {
  queued_event **pp = &cl->head, *last = NULL;
  while (*pp) {
    queued_event *q = *pp;
    if (q->ev.conn == c) {
      *pp = q->next;
      TY_FREE(q);
    } else {
      last = q;
      pp = &q->next;
    }
  }
  cl->tail = last;
  if (cl->current && cl->current->ev.conn == c) cl->current->ev.conn = NULL;
}

/* ---- connections ---- */

static void drop_queue(ty_net_conn *c) {
  while (c->head) {
    out_frame *f = c->head;
    c->head = f->next;
    TY_FREE(f);
  }
  c->tail = NULL;
  c->queued = 0;
}

static void conn_free(ty_net_conn *c) {
  ty_net_client *cl = c->client;
  if (c->prev) c->prev->next = c->next;
  else cl->conns = c->next;
  if (c->next) c->next->prev = c->prev;
  drop_queue(c);
  TY_FREE(c->rx);
  TY_FREE(c);
}

/* The connection is over: produce its last event once. */
static void finish(ty_net_conn *c, const char *why, size_t why_len) {
  if (c->ended) return;
  c->ended = true;
  c->state = TY_NET_CLOSED;
  drop_queue(c);
  if (c->opened || c->local_code) {
    int code = c->peer_code ? c->peer_code : c->local_code ? c->local_code : 1006;
    const char *reason = c->peer_code ? c->peer_reason : c->local_code ? c->local_reason : "connection lost";
    push_event(c, TY_NET_EVENT_CLOSE, NULL, 0, false, code, reason);
  } else {
    snprintf(c->error, sizeof c->error, "cannot connect to %s: %.*s", c->url, (int)why_len, why);
    push_event(c, TY_NET_EVENT_ERROR, NULL, 0, false, 0, c->error);
  }
}

/* libwebsockets is letting go of c's wsi: nothing may point at c from it afterwards. */
static void detach(ty_net_conn *c, struct lws *wsi) {
  lws_set_opaque_user_data(wsi, NULL);
  c->wsi = NULL;
  if (c->released) conn_free(c);
}

/* Sends the close frame for c->local_code from inside wsi's callback: the caller returns -1. */
static int close_now(ty_net_conn *c, struct lws *wsi) {
  c->state = TY_NET_CLOSING;
  lws_close_reason(wsi, (enum lws_close_status)c->local_code, (unsigned char *)c->local_reason,
                   strlen(c->local_reason));
  return -1;
}

static int on_receive(ty_net_conn *c, struct lws *wsi, const char *in, size_t len) {
  if (lws_is_first_fragment(wsi)) {
    c->rx_len = 0;
    c->rx_binary = lws_frame_is_binary(wsi);
  }
  size_t total = c->rx_len + len + lws_remaining_packet_payload(wsi);
  if (total > c->max_message) {
    ty_log("net_message_too_big", "%s sent a message of more than %zu bytes: closed with 1009", c->url,
           c->max_message);
    c->local_code = 1009;
    snprintf(c->local_reason, sizeof c->local_reason, "message too big");
    return close_now(c, wsi);
  }
  if (c->state != TY_NET_OPEN) return 0; /* closing: input is read and dropped */
  ty_bytes_append(&c->rx, &c->rx_len, &c->rx_cap, in, len, c->max_message);
  if (lws_is_final_fragment(wsi)) {
    size_t n = c->rx_len;
    c->rx_len = 0;
    push_event(c, TY_NET_EVENT_MESSAGE, c->rx, n, c->rx_binary, 0, NULL);
  }
  return 0;
}

static int on_writeable(ty_net_conn *c, struct lws *wsi) {
  if (c->peer_code) return 0; /* the peer is closing: lws finishes the handshake */
  out_frame *f = c->head;
  if (f) {
    c->head = f->next;
    if (!c->head) c->tail = NULL;
    c->queued -= f->len;
    int n = lws_write(wsi, f->buf + LWS_PRE, f->len, f->binary ? LWS_WRITE_BINARY : LWS_WRITE_TEXT);
    bool failed = n < (int)f->len;
    TY_FREE(f);
    if (failed) {
      ty_log("net_write_failed", "%s: write failed: closed", c->url);
      return -1;
    }
    if (c->head || c->state == TY_NET_CLOSING) lws_callback_on_writable(wsi);
    return 0;
  }
  if (c->state == TY_NET_CLOSING) return close_now(c, wsi);
  return 0;
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len) {
  ty_net_conn *c = wsi ? lws_get_opaque_user_data(wsi) : NULL;
  if (!c) return lws_callback_http_dummy(wsi, reason, user, in, len);
  switch (reason) {
  case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
    if (in) finish(c, in, strnlen(in, len ? len : 512));
    else finish(c, "connection failed", strlen("connection failed"));
    detach(c, wsi);
    return 0;
  case LWS_CALLBACK_CLIENT_ESTABLISHED:
    c->opened = true;
    if (c->state == TY_NET_CLOSING) { /* closed while connecting: go straight to the close handshake */
      lws_callback_on_writable(wsi);
      return 0;
    }
    c->state = TY_NET_OPEN;
    push_event(c, TY_NET_EVENT_OPEN, NULL, 0, false, 0, NULL);
    if (c->head) lws_callback_on_writable(wsi);
    return 0;
  case LWS_CALLBACK_CLIENT_RECEIVE:
    return on_receive(c, wsi, in, len);
  case LWS_CALLBACK_CLIENT_WRITEABLE:
    return on_writeable(c, wsi);
  case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE: {
    const unsigned char *p = in;
    c->peer_code = len >= 2 ? (p[0] << 8 | p[1]) : 1005; /* 1005: the frame carried no code */
    size_t n = len > 2 ? len - 2 : 0;
    if (n > sizeof c->peer_reason - 1) n = sizeof c->peer_reason - 1;
    if (n) memcpy(c->peer_reason, p + 2, n);
    c->peer_reason[n] = 0;
    c->state = TY_NET_CLOSING;
    return 0; /* lws answers with the same close frame */
  }
  case LWS_CALLBACK_CLIENT_CLOSED:
    finish(c, "connection lost", strlen("connection lost"));
    detach(c, wsi);
    return 0;
  case LWS_CALLBACK_WSI_DESTROY:
    finish(c, "connection lost", strlen("connection lost"));
    detach(c, wsi);
    return 0;
  default:
    return lws_callback_http_dummy(wsi, reason, user, in, len);
  }
}

/* ---- URLs ---- */

typedef struct parsed_url {
  bool tls;
  int port;
  char address[256];
  char path[1024];
} parsed_url;

static bool url_fail(char *err, size_t errsz, const char *url, const char *why) {
  snprintf(err, errsz, "bad URL '%s': %s", url, why);
  return false;
}

static bool is_plain(unsigned char ch) { return ch > 0x20 && ch < 0x7f; }

/* ws://host[:port][/path]; IPv6 hosts in brackets. */
static bool parse_url(const char *url, parsed_url *u, char *err, size_t errsz) {
  memset(u, 0, sizeof *u);
  const char *p;
  if (strncmp(url, "ws://", 5) == 0) {
    p = url + 5;
  } else if (strncmp(url, "wss://", 6) == 0) {
#if defined(LWS_WITH_TLS)
    u->tls = true;
    p = url + 6;
#else
    return url_fail(err, errsz, url, "wss:// needs libwebsockets built with TLS");
#endif
  } else {
    return url_fail(err, errsz, url, "it must start with ws:// or wss://");
  }
  const char *host = p, *host_end;
  if (*p == '[') {
    host = ++p;
    while (*p && *p != ']') p++;
    if (*p != ']') return url_fail(err, errsz, url, "no closing ] after the IPv6 address");
    host_end = p++;
  } else {
    while (*p && *p != ':' && *p != '/') p++;
    host_end = p;
  }
  size_t hlen = (size_t)(host_end - host);
  if (hlen == 0) return url_fail(err, errsz, url, "no host");
  if (hlen >= sizeof u->address) return url_fail(err, errsz, url, "the host is too long");
  for (const char *h = host; h < host_end; h++)
    if (!is_plain((unsigned char)*h) || *h == '@' || *h == '?' || *h == '#')
      return url_fail(err, errsz, url, "the host has a character hosts cannot have");
  memcpy(u->address, host, hlen);
  u->port = u->tls ? 443 : 80;
  if (*p == ':') {
    p++;
    long port = 0;
    const char *digits = p;
    while (*p >= '0' && *p <= '9' && port <= 65535) port = port * 10 + (*p++ - '0');
    if (p == digits || port < 1 || port > 65535 || (*p && *p != '/'))
      return url_fail(err, errsz, url, "the port must be a number from 1 to 65535");
    u->port = (int)port;
  }
  if (!*p) p = "/";
  if (strlen(p) >= sizeof u->path) return url_fail(err, errsz, url, "the path is too long");
  for (const char *q = p; *q; q++)
    if (!is_plain((unsigned char)*q) || *q == '#') return url_fail(err, errsz, url, "the path has a space, a control character or a #");
  snprintf(u->path, sizeof u->path, "%s", p);
  return true;
}

/* ---- the client ---- */

static void on_wake(lws_sorted_usec_list_t *sul) { (void)sul; /* only ends the poll wait */ }

ty_net_client *ty_net_client_create(void) {
  ty_net_client *cl = TY_MALLOC(sizeof *cl);
  TY_ASSERT(cl);
  memset(cl, 0, sizeof *cl);
  cl->protocols[0] = (struct lws_protocols){
      .name = "tycho-client",
      .callback = callback,
      .rx_buffer_size = 16384,
  };
  cl->retry.secs_since_valid_ping = CLIENT_PING_SECS;
  cl->retry.secs_since_valid_hangup = CLIENT_HANGUP_SECS;

  lws_set_log_level(LLL_ERR, NULL);
  struct lws_context_creation_info info;
  memset(&info, 0, sizeof info);
  info.port = CONTEXT_PORT_NO_LISTEN;
  info.protocols = cl->protocols;
  info.user = cl;
  info.fd_limit_per_thread = CLIENT_FD_LIMIT;
  info.gid = -1;
  info.uid = -1;
#if defined(LWS_WITH_TLS)
  info.options = LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
#endif
  cl->ctx = lws_create_context(&info);
  if (!cl->ctx) {
    ty_log("net_client_failed", "libwebsockets could not make a client context");
    TY_FREE(cl);
    return NULL;
  }
  return cl;
}

void ty_net_client_destroy(ty_net_client *cl) {
  if (!cl) return;
  cl->destroying = true;
  lws_context_destroy(cl->ctx);
  while (cl->conns) conn_free(cl->conns);
  TY_FREE(cl->current);
  while (cl->head) {
    queued_event *q = cl->head;
    cl->head = q->next;
    TY_FREE(q);
  }
  TY_FREE(cl);
}

ty_net_conn *ty_net_client_connect(ty_net_client *cl, const char *url, const ty_net_conn_desc *desc, char *err,
                                   size_t errsz) {
  parsed_url u;
  if (strlen(url) >= sizeof ((ty_net_conn *)0)->url) {
    snprintf(err, errsz, "bad URL: longer than %zu bytes", sizeof ((ty_net_conn *)0)->url - 1);
    return NULL;
  }
  if (!parse_url(url, &u, err, errsz)) return NULL;
  ty_net_conn *c = TY_MALLOC(sizeof *c);
  TY_ASSERT(c);
  memset(c, 0, sizeof *c);
  c->client = cl;
  c->state = TY_NET_CONNECTING;
  c->max_message = desc && desc->max_message ? desc->max_message : TY_NET_DEFAULT_MAX_MESSAGE;
  c->max_queue = desc && desc->max_queue ? desc->max_queue : TY_NET_DEFAULT_MAX_QUEUE;
  snprintf(c->url, sizeof c->url, "%s", url);
  snprintf(c->address, sizeof c->address, "%s", u.address);
  bool ipv6 = strchr(u.address, ':') != NULL;
  snprintf(c->host_header, sizeof c->host_header, ipv6 ? "[%s]:%d" : "%s:%d", u.address, u.port);
  snprintf(c->path, sizeof c->path, "%s", u.path);
  c->next = cl->conns;
  if (cl->conns) cl->conns->prev = c;
  cl->conns = c;

  struct lws_client_connect_info i;
  memset(&i, 0, sizeof i);
  i.context = cl->ctx;
  i.address = c->address;
  i.port = u.port;
  i.ssl_connection = u.tls ? LCCSCF_USE_SSL : 0;
  i.path = c->path;
  i.host = c->host_header;
  i.origin = c->host_header;
  i.local_protocol_name = cl->protocols[0].name; /* no subprotocol is asked of the server */
  i.opaque_user_data = c;
  i.pwsi = &c->wsi;
  i.retry_and_idle_policy = &cl->retry;
  if (!lws_client_connect_via_info(&i)) {
    /* Failed on the spot (no such host, no fd): reported like any other failure, as an
     * event, so callers handle one path. */
    c->wsi = NULL;
    static const char why[] = "the host is unknown or no socket could be opened";
    finish(c, why, sizeof why - 1);
  }
  return c;
}

void ty_net_client_service(ty_net_client *cl, double timeout_s) {
  if (cl->current) {
    TY_FREE(cl->current);
    cl->current = NULL;
  }
  if (timeout_s > 0 && !cl->head) {
    /* lws waits for sockets or its next timer; this timer bounds the wait. */
    lws_usec_t us = (lws_usec_t)(timeout_s * (double)LWS_US_PER_SEC);
    lws_sul_schedule(cl->ctx, 0, &cl->wake, on_wake, us > 0 ? us : 1);
    lws_service(cl->ctx, 0);
    lws_sul_cancel(&cl->wake);
  } else {
    lws_service(cl->ctx, -1); /* negative: poll without waiting */
  }
}

bool ty_net_client_poll(ty_net_client *cl, ty_net_event *ev) {
  if (cl->current) {
    TY_FREE(cl->current);
    cl->current = NULL;
  }
  queued_event *q = cl->head;
  if (!q) return false;
  cl->head = q->next;
  if (!cl->head) cl->tail = NULL;
  cl->current = q;
  *ev = q->ev;
  return true;
}

/* ---- one connection ---- */

ty_net_send_status ty_net_conn_send(ty_net_conn *c, const void *data, size_t len, bool binary) {
  if (c->state == TY_NET_CLOSING || c->state == TY_NET_CLOSED) return TY_NET_SEND_CLOSED;
  if (c->queued + len > c->max_queue) return TY_NET_SEND_FULL;
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
  if (c->state == TY_NET_OPEN && c->wsi) lws_callback_on_writable(c->wsi);
  return TY_NET_SEND_OK;
}

void ty_net_conn_close(ty_net_conn *c, int code, const char *reason) {
  if (c->state == TY_NET_CLOSING || c->state == TY_NET_CLOSED) return;
  bool was_open = c->state == TY_NET_OPEN;
  c->state = TY_NET_CLOSING;
  c->local_code = code;
  snprintf(c->local_reason, sizeof c->local_reason, "%s", reason ? reason : "");
  if (!c->wsi) return;
  if (!was_open) drop_queue(c); /* nothing was sent yet: a close asked for before open sends nothing */
  if (was_open) lws_callback_on_writable(c->wsi);
  lws_set_timeout(c->wsi, PENDING_TIMEOUT_USER_OK, CLIENT_CLOSE_SECS);
}

ty_net_state ty_net_conn_state(const ty_net_conn *c) { return c->state; }

const char *ty_net_conn_error(const ty_net_conn *c) { return c->error; }

const char *ty_net_conn_url(const ty_net_conn *c) { return c->url; }

void ty_net_conn_release(ty_net_conn *c) {
  ty_net_client *cl = c->client;
  drop_events(cl, c);
  c->released = true;
  if (!c->wsi) {
    conn_free(c);
    return;
  }
  ty_net_conn_close(c, 1001, "going away");
}
