/* server/ws_frames.c: client frames (RFC 6455 5.2) parsed byte range by byte range: see
 * ws_frames.h. What the frames may be follows what libwebsockets 4.1 accepts on the path this
 * replaces (its server parser, without extensions): a client frame must be masked (5.1),
 * carries no reserved bit or opcode, a control frame is final and at most 125 bytes, a
 * continuation follows an unfinished message and nothing else does; a close's code is one
 * lws would echo (else 1002). Text is not checked for UTF-8 (lws is not asked to); a close
 * reason is (RFC 6455 7.1.6), as it is echoed to the peer. */
#include "ws_frames.h"

#include <string.h>

#include "common.h"

enum { OP_CONTINUATION = 0x0, OP_TEXT = 0x1, OP_BINARY = 0x2, OP_CLOSE = 0x8, OP_PING = 0x9, OP_PONG = 0xa };

void ty_ws_rx_init(ty_ws_rx *rx, uint64_t max_message) {
  memset(rx, 0, sizeof *rx);
  rx->max_message = max_message;
}

void ty_ws_rx_free(ty_ws_rx *rx) {
  TY_FREE(rx->ctl);
  rx->ctl = NULL;
}

static size_t fail(ty_ws_rx *rx, ty_ws_event *ev, int code, const char *reason, size_t taken) {
  rx->failed = true;
  ev->kind = TY_WS_ERROR;
  ev->code = code;
  ev->reason = reason;
  return taken;
}

/* Size of a masked client frame's header from its second byte: 2, the extended length, the key. */
static size_t header_size(const uint8_t *h) {
  size_t len = h[1] & 0x7f;
  return 2 + (len == 126 ? 2 : len == 127 ? 8 : 0) + 4;
}

/* Valid UTF-8 (RFC 3629), NUL included: the shared decoder takes every other character. */
static bool utf8_valid(const uint8_t *s, size_t n) {
  for (size_t i = 0; i < n;) {
    size_t k = s[i] ? ty_utf8_char((const char *)s + i, n - i) : 1;
    if (!k) return false;
    i += k;
  }
  return true;
}

/* The codes lws 4.1 echoes as they are (others it answers with 1002). */
static bool close_code_valid(int code) {
  return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1011) || code >= 3000;
}

/* Checks a header byte as it comes (at hdr_len 1 and 2): an error reason (with *code), or NULL. */
static const char *header_byte_error(ty_ws_rx *rx, int *code) {
  *code = 1002;
  uint8_t b0 = rx->hdr[0];
  if (rx->hdr_len == 1) {
    uint8_t op = b0 & 0x0f;
    if (b0 & 0x70) return "reserved bits set";
    if ((op > OP_BINARY && op < OP_CLOSE) || op > OP_PONG) return "reserved opcode";
    if (op >= OP_CLOSE && !(b0 & 0x80)) return "fragmented control frame";
    if (op == OP_CONTINUATION && !rx->in_message) return "continuation of no message";
    if (op != OP_CONTINUATION && op < OP_CLOSE && rx->in_message) return "new message inside a fragmented one";
    return NULL;
  }
  if (!(rx->hdr[1] & 0x80)) return "unmasked frame";
  if ((b0 & 0x08) && (rx->hdr[1] & 0x7f) > 125) return "control frame over 125 bytes";
  return NULL;
}

/* A whole control frame in rx->ctl: its event. */
static void control_event(ty_ws_rx *rx, ty_ws_event *ev) {
  ev->data = rx->ctl;
  ev->len = rx->ctl_len;
  if (rx->opcode != OP_CLOSE) {
    ev->kind = rx->opcode == OP_PING ? TY_WS_PING : TY_WS_PONG;
    return;
  }
  rx->ctl[rx->ctl_len] = 0;
  ev->kind = TY_WS_CLOSE;
  ev->code = 1005; /* none given (RFC 6455 7.1.5) */
  ev->reason = "";
  if (rx->ctl_len == 0) return;
  if (rx->ctl_len == 1) {
    fail(rx, ev, 1002, "close frame of one byte", 0);
    return;
  }
  ev->code = rx->ctl[0] << 8 | rx->ctl[1];
  ev->reason = (const char *)rx->ctl + 2;
  if (!close_code_valid(ev->code)) fail(rx, ev, 1002, "invalid close code", 0);
  else if (!utf8_valid(rx->ctl + 2, rx->ctl_len - 2u)) fail(rx, ev, 1007, "close reason not UTF-8", 0);
}

/* The header is whole: the frame's length, key and place in its message. Returns an error
 * reason (with *code), or NULL. */
static const char *header_done(ty_ws_rx *rx, int *code) {
  const uint8_t *h = rx->hdr;
  uint64_t len = h[1] & 0x7f;
  size_t at = 2;
  if (len == 126) {
    len = (uint64_t)h[2] << 8 | h[3];
    at = 4;
  } else if (len == 127) {
    len = 0;
    for (int k = 0; k < 8; k++) len = len << 8 | h[2 + k];
    at = 10;
    if (len >> 63) {
      *code = 1002;
      return "frame length past 63 bits";
    }
  }
  memcpy(rx->mask, h + at, 4);
  rx->mask_at = 0;
  rx->opcode = h[0] & 0x0f;
  rx->fin = h[0] & 0x80;
  rx->left = len;
  rx->hdr_len = 0;
  if (rx->opcode >= OP_CLOSE) {
    /* Held only while a control frame is read and its event used: idle, a connection
     * keeps no buffer for them. */
    if (!rx->ctl) rx->ctl = TY_MALLOC(TY_WS_CONTROL_MAX + 1);
    TY_ASSERT(rx->ctl);
    rx->ctl_len = 0;
    return NULL;
  }
  if (rx->opcode != OP_CONTINUATION) {
    rx->in_message = true;
    rx->first_piece = true;
    rx->binary = rx->opcode == OP_BINARY;
    rx->message_len = 0;
  }
  if (len > rx->max_message - rx->message_len) {
    *code = 1009;
    return "message too big";
  }
  rx->message_len += len;
  return NULL;
}

/* A piece of a data frame's payload (all that is left of it when len == 0): its event. */
static void data_event(ty_ws_rx *rx, ty_ws_event *ev, const uint8_t *data, size_t len) {
  ev->kind = TY_WS_DATA;
  ev->data = data;
  ev->len = len;
  ev->first = rx->first_piece;
  ev->last = rx->fin && rx->left == 0;
  ev->binary = rx->binary;
  rx->first_piece = false;
  if (ev->last) rx->in_message = false;
}

size_t ty_ws_rx_next(ty_ws_rx *rx, uint8_t *p, size_t n, ty_ws_event *ev) {
  memset(ev, 0, sizeof *ev);
  ev->kind = TY_WS_MORE;
  if (rx->ctl && (rx->hdr_len || rx->left == 0)) ty_ws_rx_free(rx); /* the last control event is used */
  if (rx->failed) return n; /* dropped: the connection is closing */
  size_t i = 0;
  while (i < n) {
    if (rx->hdr_len || rx->left == 0) { /* a header: byte by byte, checked as it comes */
      rx->hdr[rx->hdr_len++] = p[i++];
      int code;
      const char *err = rx->hdr_len <= 2 ? header_byte_error(rx, &code) : NULL;
      if (err) return fail(rx, ev, code, err, i);
      if (rx->hdr_len < 2 || rx->hdr_len < header_size(rx->hdr)) continue;
      err = header_done(rx, &code);
      if (err) return fail(rx, ev, code, err, i);
      if (rx->left) continue;
      if (rx->opcode >= OP_CLOSE) control_event(rx, ev);
      else if (rx->first_piece || rx->fin) data_event(rx, ev, p + i, 0);
      else continue; /* an empty middle piece: nothing to hand over */
      return i;
    }
    size_t k = n - i < rx->left ? n - i : (size_t)rx->left;
    uint8_t *d = rx->opcode >= OP_CLOSE ? rx->ctl + rx->ctl_len : p + i;
    for (size_t j = 0; j < k; j++) d[j] = p[i + j] ^ rx->mask[(rx->mask_at + j) & 3];
    rx->mask_at = (uint8_t)((rx->mask_at + k) & 3);
    rx->left -= k;
    i += k;
    if (rx->opcode < OP_CLOSE) {
      data_event(rx, ev, d, k);
      return i;
    }
    rx->ctl_len = (uint8_t)(rx->ctl_len + k);
    if (rx->left == 0) {
      control_event(rx, ev);
      return i;
    }
  }
  return i;
}
