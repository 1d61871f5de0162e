/* tests/c/ws_frames_test.c: the host's client-frame parser (server/ws_frames.c): whole and
 * fragmented messages under every cut of the bytes, control frames between fragments, the
 * lengths' three forms, and each broken frame's close code. */
#include "check.h"
#include "ws_frames.h"

#include <stdlib.h>

typedef struct bytes {
  uint8_t b[200000];
  size_t n;
} bytes;

/* Appends one client frame: first byte (FIN, RSV, opcode) as given, masked unless mask is 0. */
static void frame(bytes *o, uint8_t first, const void *payload, size_t len, bool mask) {
  static const uint8_t key[4] = {0x37, 0xfa, 0x21, 0x3d};
  o->b[o->n++] = first;
  uint8_t m = mask ? 0x80 : 0;
  if (len < 126) {
    o->b[o->n++] = m | (uint8_t)len;
  } else if (len < 65536) {
    o->b[o->n++] = m | 126;
    o->b[o->n++] = (uint8_t)(len >> 8);
    o->b[o->n++] = (uint8_t)len;
  } else {
    o->b[o->n++] = m | 127;
    for (int i = 7; i >= 0; i--) o->b[o->n++] = (uint8_t)((uint64_t)len >> (8 * i));
  }
  if (mask) memcpy(o->b + o->n, key, 4), o->n += 4;
  for (size_t i = 0; i < len; i++) o->b[o->n++] = ((const uint8_t *)payload)[i] ^ (mask ? key[i & 3] : 0);
}

static void text(bytes *o, uint8_t first, const char *s) { frame(o, first, s, strlen(s), true); }

/* Feeds in (copied: the parser unmasks in place) chunk bytes at a time and writes what came
 * out as one line: "T:text|B:n|ping:..|pong:..|close:code:reason|error:code". */
static void run(const bytes *in, size_t chunk, uint64_t max, char *out, size_t cap) {
  static uint8_t copy[sizeof ((bytes *)0)->b];
  static char msg[sizeof ((bytes *)0)->b];
  memcpy(copy, in->b, in->n);
  ty_ws_rx rx;
  ty_ws_rx_init(&rx, max);
  size_t msg_len = 0, o = 0;
  out[0] = 0;
  for (size_t at = 0; at < in->n;) {
    size_t n = in->n - at < chunk ? in->n - at : chunk;
    uint8_t *p = copy + at;
    at += n;
    while (n) {
      ty_ws_event ev;
      size_t k = ty_ws_rx_next(&rx, p, n, &ev);
      CHECK(k <= n);
      CHECK(k > 0 || ev.kind != TY_WS_MORE);
      p += k;
      n -= k;
      switch (ev.kind) {
      case TY_WS_DATA:
        if (ev.first) msg_len = 0;
        memcpy(msg + msg_len, ev.data, ev.len);
        msg_len += ev.len;
        if (ev.last && ev.binary) o += (size_t)snprintf(out + o, cap - o, "B:%zu|", msg_len);
        else if (ev.last) o += (size_t)snprintf(out + o, cap - o, "T:%.*s|", (int)msg_len, msg);
        break;
      case TY_WS_PING:
      case TY_WS_PONG:
        o += (size_t)snprintf(out + o, cap - o, "%s:%.*s|", ev.kind == TY_WS_PING ? "ping" : "pong", (int)ev.len,
                              (const char *)ev.data);
        break;
      case TY_WS_CLOSE:
        o += (size_t)snprintf(out + o, cap - o, "close:%d:%s|", ev.code, ev.reason);
        break;
      case TY_WS_ERROR:
        o += (size_t)snprintf(out + o, cap - o, "error:%d|", ev.code);
        break;
      case TY_WS_MORE:
        break;
      }
    }
  }
  ty_ws_rx_free(&rx);
}

/* What in gives under every cut from 1 byte a read to all at once: the same each time. */
static void expect(const bytes *in, uint64_t max, const char *want) {
  static const size_t cuts[] = {1, 2, 3, 5, 7, 13, 64, 1000, (size_t)-1};
  char got[4096];
  for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
    run(in, cuts[i], max, got, sizeof got);
    if (strcmp(got, want) != 0) {
      fprintf(stderr, "  cut %zu: got \"%s\", want \"%s\"\n", cuts[i], got, want);
      check_failures_now++;
    }
  }
}

static bytes in;

static void test_whole_and_fragmented_messages(void) {
  in.n = 0;
  text(&in, 0x81, "hello");
  text(&in, 0x01, "frag");
  text(&in, 0x89, "p1"); /* a ping between fragments */
  text(&in, 0x00, "");   /* an empty middle piece */
  text(&in, 0x8a, "");   /* an empty pong */
  text(&in, 0x80, "mented");
  text(&in, 0x81, ""); /* an empty message */
  frame(&in, 0x82, "\0\1\2", 3, true);
  expect(&in, 1000, "T:hello|ping:p1|pong:|T:fragmented|T:|B:3|");
}

static void test_lengths_and_the_limit(void) {
  static char big[70000];
  memset(big, 'x', sizeof big);
  in.n = 0;
  frame(&in, 0x82, big, 300, true);         /* 16-bit length */
  frame(&in, 0x82, big, sizeof big, true);  /* 64-bit length */
  frame(&in, 0x82, big, 125, true);
  expect(&in, sizeof big, "B:300|B:70000|B:125|");
  in.n = 0;
  frame(&in, 0x82, big, 100, true);
  expect(&in, 100, "B:100|");
  frame(&in, 0x82, big, 101, true); /* one past: refused at its header */
  text(&in, 0x81, "not read");
  expect(&in, 100, "B:100|error:1009|");
  in.n = 0;
  frame(&in, 0x02, big, 60, true);
  frame(&in, 0x80, big, 41, true); /* the message, not the frame, is held to the limit */
  expect(&in, 100, "error:1009|");
}

static void test_close_codes_and_reasons(void) {
  static const struct {
    const char *payload;
    size_t len;
    const char *want;
  } cases[] = {
      {"", 0, "close:1005:|"},
      {"\x03\xe8", 2, "close:1000:|"},
      {"\x0b\xb8" "bye", 5, "close:3000:bye|"},
      {"\x03\xf3" "\xc3\xa9", 4, "close:1011:\xc3\xa9|"},
      {"\x03", 1, "error:1002|"},
      {"\x03\xed", 2, "error:1002|"},         /* 1005 may not be sent */
      {"\x03\xe7", 2, "error:1002|"},         /* 999 */
      {"\x0b\xb7", 2, "error:1002|"},         /* 2999 */
      {"\x03\xe8\xff", 3, "error:1007|"},     /* not UTF-8 */
      {"\x03\xe8\xc0\x80", 4, "error:1007|"}, /* overlong */
      {"\x03\xe8\xed\xa0\x80", 5, "error:1007|"}, /* a surrogate */
      {"\x03\xe8\xe2\x82", 4, "error:1007|"}, /* cut in a character */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    in.n = 0;
    frame(&in, 0x88, cases[i].payload, cases[i].len, true);
    expect(&in, 100, cases[i].want);
  }
}

static void test_broken_frames(void) {
  static const struct {
    uint8_t first;
    size_t len;
    bool mask;
    bool open_message; /* sent after an unfinished text frame */
    int code;
  } cases[] = {
      {0x81, 3, false, false, 1002}, /* unmasked */
      {0xc1, 3, true, false, 1002},  /* RSV1 */
      {0x91, 3, true, false, 1002},  /* RSV3 */
      {0x83, 3, true, false, 1002},  /* opcode 3 */
      {0x8b, 3, true, false, 1002},  /* opcode 0xB */
      {0x80, 3, true, false, 1002},  /* a continuation of nothing */
      {0x81, 3, true, true, 1002},   /* a new message inside one */
      {0x09, 3, true, false, 1002},  /* a ping not final */
      {0x89, 126, true, false, 1002}, /* a ping over 125 bytes */
  };
  static char pad[200];
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    in.n = 0;
    if (cases[i].open_message) text(&in, 0x01, "open");
    frame(&in, cases[i].first, pad, cases[i].len, cases[i].mask);
    text(&in, 0x81, "after"); /* dropped: the connection is closing */
    char want[32];
    snprintf(want, sizeof want, "error:%d|", cases[i].code);
    expect(&in, 1000, want);
  }
  in.n = 0; /* a 64-bit length with its top bit set */
  static const uint8_t top[] = {0x82, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 1, 1, 2, 3, 4};
  memcpy(in.b, top, sizeof top);
  in.n = sizeof top;
  expect(&in, (uint64_t)-1, "error:1002|");
}

static void test_payload_unmasked_in_place(void) {
  in.n = 0;
  text(&in, 0x81, "in place");
  ty_ws_rx rx;
  ty_ws_rx_init(&rx, 100);
  ty_ws_event ev;
  size_t k = ty_ws_rx_next(&rx, in.b, in.n, &ev);
  CHECK_EQ_INT(k, in.n);
  CHECK_EQ_INT(ev.kind, TY_WS_DATA);
  CHECK(ev.first && ev.last && !ev.binary);
  CHECK(ev.data == in.b + 6); /* no copy: the payload where it came */
  CHECK(ev.len == 8 && memcmp(ev.data, "in place", 8) == 0);
}

/* A control frame's payload is held from its header to the call after its event: an idle
 * connection keeps no buffer for control frames. */
static void test_control_buffer_held_only_while_used(void) {
  in.n = 0;
  frame(&in, 0x89, "are you there", 13, true);
  text(&in, 0x81, "after");
  ty_ws_rx rx;
  ty_ws_rx_init(&rx, 100);
  CHECK(rx.ctl == NULL);
  ty_ws_event ev;
  size_t k = ty_ws_rx_next(&rx, in.b, 10, &ev); /* the header and 4 payload bytes */
  CHECK_EQ_INT(ev.kind, TY_WS_MORE);
  CHECK(rx.ctl != NULL);
  size_t k2 = ty_ws_rx_next(&rx, in.b + k, in.n - k, &ev);
  CHECK_EQ_INT(ev.kind, TY_WS_PING);
  CHECK(ev.len == 13 && memcmp(ev.data, "are you there", 13) == 0);
  ty_ws_rx_next(&rx, in.b + k + k2, in.n - k - k2, &ev);
  CHECK_EQ_INT(ev.kind, TY_WS_DATA);
  CHECK(rx.ctl == NULL);
  ty_ws_rx_free(&rx);
}

int main(void) {
  RUN(test_whole_and_fragmented_messages);
  RUN(test_lengths_and_the_limit);
  RUN(test_close_codes_and_reasons);
  RUN(test_broken_frames);
  RUN(test_payload_unmasked_in_place);
  RUN(test_control_buffer_held_only_while_used);
  return check_summary();
}
