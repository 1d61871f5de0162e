/* engine/net/client.h: the WebSocket client under tycho.net. One ty_net_client owns one
 * libwebsockets context and any number of connections. Every libwebsockets callback only
 * records an event; the owner drains them with ty_net_client_poll after servicing, so no
 * game code ever runs inside libwebsockets. Everything runs on the caller's thread. */
#ifndef TY_NET_CLIENT_H
#define TY_NET_CLIENT_H

#include "common.h"

typedef struct ty_net_client ty_net_client;
typedef struct ty_net_conn ty_net_conn;

/* Defaults for a zeroed ty_net_conn_desc field. */
#define TY_NET_DEFAULT_MAX_MESSAGE ((size_t)1 << 20)
#define TY_NET_DEFAULT_MAX_QUEUE ((size_t)1 << 20)

typedef enum ty_net_state {
  TY_NET_CONNECTING = 0,
  TY_NET_OPEN,
  TY_NET_CLOSING, /* a close was asked for; what was queued is still being written */
  TY_NET_CLOSED,
} ty_net_state;

typedef enum ty_net_event_kind {
  TY_NET_EVENT_OPEN,    /* the handshake finished */
  TY_NET_EVENT_MESSAGE, /* one whole message: data, len, binary */
  TY_NET_EVENT_CLOSE,   /* an opened (or locally closed) connection ended: code, reason */
  TY_NET_EVENT_ERROR,   /* the connection never opened: reason says why */
} ty_net_event_kind;

/* CLOSE and ERROR are the last event of a connection. */
typedef struct ty_net_event {
  ty_net_event_kind kind;
  ty_net_conn *conn;
  const char *data; /* MESSAGE: valid until the next poll or service */
  size_t len;
  bool binary;
  int code;           /* CLOSE: the peer's close code, ours when we closed, 1006 when none */
  const char *reason; /* CLOSE, ERROR: never NULL */
} ty_net_event;

typedef struct ty_net_conn_desc {
  size_t max_message; /* 0: 1 MiB. A bigger incoming message closes the connection with 1009 */
  size_t max_queue;   /* 0: 1 MiB. Bytes waiting to be written; a send past it is refused */
} ty_net_conn_desc;

typedef enum ty_net_send_status {
  TY_NET_SEND_OK = 0,
  TY_NET_SEND_CLOSED, /* closing or closed: nothing was queued */
  TY_NET_SEND_FULL,   /* the queue would pass max_queue: nothing was queued */
} ty_net_send_status;

/* The libwebsockets context is made here. NULL (with a net_client_failed log line) when it
 * cannot be. Free with ty_net_client_destroy, which drops every connection without events. */
ty_net_client *ty_net_client_create(void);
void ty_net_client_destroy(ty_net_client *cl);

/* Starts connecting to url ("ws://host[:port][/path]", or wss:// where libwebsockets has
 * TLS). Returns NULL and a message in err only for a URL it cannot use; any later failure
 * (refused, DNS) arrives as an ERROR event. The connection belongs to the caller until
 * ty_net_conn_release. desc may be NULL. */
ty_net_conn *ty_net_client_connect(ty_net_client *cl, const char *url, const ty_net_conn_desc *desc, char *err,
                                   size_t errsz);

/* One libwebsockets service pass. timeout_s <= 0 never blocks; otherwise waits at most that
 * long for something to happen (not at all when events are already waiting). */
void ty_net_client_service(ty_net_client *cl, double timeout_s);
/* Pops the next event into *ev; false when there is none. */
bool ty_net_client_poll(ty_net_client *cl, ty_net_event *ev);

/* Queues one frame (copied); written in order as the socket becomes writable. Frames sent
 * while connecting go out once the handshake is done. */
ty_net_send_status ty_net_conn_send(ty_net_conn *c, const void *data, size_t len, bool binary);
/* Writes what is queued, then closes with code (1000, or 3000..4999) and reason (cut to
 * 123 bytes). Before the handshake it gives up the connection. No-op once closing. */
void ty_net_conn_close(ty_net_conn *c, int code, const char *reason);
ty_net_state ty_net_conn_state(const ty_net_conn *c);
const char *ty_net_conn_url(const ty_net_conn *c);
/* Why the connection never opened (refused, DNS, handshake), "" while it has not failed. */
const char *ty_net_conn_error(const ty_net_conn *c);
/* The owner is done with c: its pending events are dropped, it is closed with 1001 if it is
 * still open, and freed once libwebsockets lets go of it. c must not be used afterwards. */
void ty_net_conn_release(ty_net_conn *c);

#endif
