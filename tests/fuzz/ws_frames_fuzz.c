/* tests/fuzz/ws_frames_fuzz.c: fuzzes the host's client-frame parser (server/ws_frames.c)
 * and checks what must hold for any bytes: each call takes no more than it is given and
 * moves on (or reports), a DATA piece lies inside the bytes given, no message grows past the
 * limit, nothing is reported after an error, and the events do not depend on how the reads
 * cut the stream: the bytes parsed in pieces give what they give parsed whole.
 *
 * The first byte picks the piece size (1 to 64; 0: whole), the second the message limit
 * (16 to 1036 bytes); the rest is the stream. Seeds: tests/fuzz/corpus/ws_frames/.
 *
 * Built two ways. With TYCHO_LIBFUZZER (cmake -DTYCHO_FUZZ=ON, clang) libFuzzer drives it:
 *   build-fuzz/ws_frames_fuzz -max_total_time=60 /tmp/ws-corpus tests/fuzz/corpus/ws_frames
 * Without, main() below replays files and folders given on the command line (ctest
 * fuzz.ws_frames_fuzz). */
#include "ws_frames.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_CHECK(cond)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "ws_frames_fuzz: invariant failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
      abort();                                                                                     \
    }                                                                                              \
  } while (0)

typedef struct transcript {
  uint8_t *b;
  size_t n, cap;
} transcript;

static void put(transcript *t, const void *p, size_t n) {
  if (t->n + n > t->cap) {
    t->cap = (t->n + n) * 2;
    t->b = realloc(t->b, t->cap);
    FUZZ_CHECK(t->b);
  }
  memcpy(t->b + t->n, p, n);
  t->n += n;
}

/* Parses stream in pieces of chunk bytes and writes every event (kind, flags, code, payload)
 * to t: DATA pieces joined into whole messages, so that the cut does not show. */
static void parse(const uint8_t *stream, size_t size, size_t chunk, uint64_t max, transcript *t) {
  uint8_t *copy = malloc(size ? size : 1); /* the parser unmasks in place */
  FUZZ_CHECK(copy);
  memcpy(copy, stream, size);
  ty_ws_rx rx;
  ty_ws_rx_init(&rx, max);
  uint64_t message = 0;
  bool failed = false;
  for (size_t at = 0; at < size;) {
    size_t n = size - at < chunk ? size - at : chunk;
    uint8_t *p = copy + at;
    at += n;
    while (n) {
      ty_ws_event ev;
      size_t k = ty_ws_rx_next(&rx, p, n, &ev);
      FUZZ_CHECK(k <= n);
      FUZZ_CHECK(k > 0 || ev.kind != TY_WS_MORE);
      FUZZ_CHECK(!failed || ev.kind == TY_WS_MORE);
      uint8_t kind = (uint8_t)ev.kind;
      switch (ev.kind) {
      case TY_WS_DATA:
        FUZZ_CHECK(ev.len == 0 || (ev.data >= p && ev.data + ev.len <= p + k));
        message = ev.first ? ev.len : message + ev.len;
        FUZZ_CHECK(message <= max);
        if (ev.first) put(t, &kind, 1), put(t, &ev.binary, 1);
        put(t, ev.data, ev.len);
        if (ev.last) put(t, "|", 1);
        break;
      case TY_WS_PING:
      case TY_WS_PONG:
        FUZZ_CHECK(ev.len <= 125);
        put(t, &kind, 1);
        put(t, ev.data, ev.len);
        break;
      case TY_WS_CLOSE:
      case TY_WS_ERROR:
        FUZZ_CHECK(ev.reason != NULL);
        put(t, &kind, 1);
        put(t, &ev.code, sizeof ev.code);
        put(t, ev.reason, strlen(ev.reason));
        failed = failed || ev.kind == TY_WS_ERROR;
        break;
      case TY_WS_MORE:
        break;
      }
      p += k;
      n -= k;
    }
  }
  ty_ws_rx_free(&rx);
  free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2) return 0;
  size_t chunk = data[0] % 65 ? data[0] % 65 : (size_t)-1;
  uint64_t max = 16 + 4 * (uint64_t)data[1];
  transcript cut = {0}, whole = {0};
  parse(data + 2, size - 2, chunk, max, &cut);
  parse(data + 2, size - 2, (size_t)-1, max, &whole);
  FUZZ_CHECK(cut.n == whole.n && (cut.n == 0 || memcmp(cut.b, whole.b, cut.n) == 0));
  free(cut.b);
  free(whole.b);
  return 0;
}

#ifndef TYCHO_LIBFUZZER
#include "replay.h"

/* A file runs as libFuzzer wrote it, then with each of a few piece sizes in front. */
static int replay_file(const char *path) {
  return fuzz_replay_cut("ws_frames_fuzz", path, 2, LLVMFuzzerTestOneInput);
}

int main(int argc, char **argv) { return fuzz_replay_main("ws_frames_fuzz", argc, argv, replay_file); }
#endif
