/* server/ws_frames.h: the client-to-server half of RFC 6455 framing, as a parser over bytes
 * (no sockets, no libwebsockets): the host reads a plain connection's socket itself
 * (server/net.c) and hands each read here. Payloads are unmasked in place and handed back as
 * pointers into the bytes given, so a message that arrives whole in one read is never copied;
 * control frames (at most 125 bytes) are gathered here, whatever the reads cut them into. */
#ifndef TY_WS_FRAMES_H
#define TY_WS_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum ty_ws_kind {
  TY_WS_MORE,  /* every byte given was taken: nothing to report until more come */
  TY_WS_DATA,  /* a piece of a text or binary message (all of it when first and last) */
  TY_WS_PING,  /* a whole ping: its payload, for the pong */
  TY_WS_PONG,  /* a whole pong */
  TY_WS_CLOSE, /* a valid close: code (1005 when the frame had none) and reason */
  TY_WS_ERROR  /* the peer broke the protocol: close with code, say reason; nothing follows */
} ty_ws_kind;

typedef struct ty_ws_event {
  ty_ws_kind kind;
  const uint8_t *data; /* DATA, PING, PONG: the payload (DATA's points into the bytes given) */
  size_t len;
  bool first, last; /* DATA: the message's first piece, its last */
  bool binary;      /* DATA: a binary message (else text) */
  int code;         /* CLOSE: the peer's code; ERROR: the code to close with (1002, 1007, 1009) */
  const char *reason; /* CLOSE: the peer's reason (NUL-ended, valid UTF-8); ERROR: what broke */
} ty_ws_event;

typedef struct ty_ws_rx {
  uint64_t max_message; /* a message longer than this is an error (1009) before it is whole */
  uint64_t message_len; /* bytes of the open message announced so far */
  uint64_t left;        /* payload bytes of the current frame still to come */
  uint8_t hdr[14];      /* the current frame's header, as far as it has come */
  uint8_t hdr_len;
  uint8_t mask[4];
  uint8_t mask_at;  /* the mask byte the next payload byte takes */
  uint8_t opcode;   /* of the current frame */
  bool fin;         /* of the current frame */
  bool in_message;  /* a fragmented message is open: only continuations (and control frames) */
  bool first_piece; /* the open message has not handed out a piece yet */
  bool binary;      /* the open message's kind */
  bool failed;      /* an error was reported: everything after it is dropped */
  uint8_t *ctl;     /* a control frame's payload (and a NUL after a close reason), from its
                     * header to the next call after its event; else NULL */
  uint8_t ctl_len;
} ty_ws_rx;

#define TY_WS_CONTROL_MAX 125 /* bytes of a control frame's payload (RFC 6455 5.5) */

void ty_ws_rx_init(ty_ws_rx *rx, uint64_t max_message);
/* Frees what rx holds (a control frame's payload, while one is read): once the connection is gone. */
void ty_ws_rx_free(ty_ws_rx *rx);
/* Parses p[0, n) until one event: fills *ev and returns how many bytes it took (call again on
 * the rest). TY_WS_MORE takes every byte. Unmasks DATA payloads in place in p. */
size_t ty_ws_rx_next(ty_ws_rx *rx, uint8_t *p, size_t n, ty_ws_event *ev);

#endif
