/* tests/fuzz/link_frames_fuzz.c: fuzzes the cluster link's frame reader (server/link_frames.c)
 * and checks what must hold for any bytes: a frame lies inside the bytes given and takes as
 * many as its header says, writing it again gives back the same bytes, and what is read does
 * not depend on how the reads cut the stream (read in pieces, it gives what it gives whole).
 *
 * The first byte picks the piece size (1 to 64; 0: whole); the rest is the stream. Seeds:
 * tests/fuzz/corpus/link_frames/.
 *
 * Built two ways. With TYCHO_LIBFUZZER (cmake -DTYCHO_FUZZ=ON, clang) libFuzzer drives it:
 *   build-fuzz/link_frames_fuzz -max_total_time=60 /tmp/link-corpus tests/fuzz/corpus/link_frames
 * Without, main() below replays files and folders given on the command line (ctest
 * fuzz.link_frames_fuzz). */
#include "link_frames.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_CHECK(cond)                                                                             \
  do {                                                                                               \
    if (!(cond)) {                                                                                   \
      fprintf(stderr, "link_frames_fuzz: invariant failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
      abort();                                                                                       \
    }                                                                                                \
  } while (0)

/* Reads p[0, n) fed `piece` bytes at a time, as a link's buffer does; returns how many bytes
 * the frames read took, and whether it ended on a refusal. Each frame is written again and
 * compared with the bytes it came from. */
static size_t read_stream(const char *p, size_t n, size_t piece, int *bad) {
  char *buf = malloc(n ? n : 1), *again = malloc(n ? n : 1);
  size_t have = 0, fed = 0, taken = 0;
  *bad = 0;
  while (fed < n) {
    size_t k = n - fed < piece ? n - fed : piece;
    memcpy(buf + have, p + fed, k);
    have += k, fed += k;
    size_t at = 0, used;
    ty_link_frame f;
    const char *why = NULL;
    ty_link_status st;
    while ((st = ty_link_frame_next(buf + at, have - at, &f, &used, &why)) == TY_LINK_FRAME) {
      FUZZ_CHECK(used >= TY_LINK_FRAME_HEADER && used <= have - at);
      FUZZ_CHECK(f.channel == buf + at + TY_LINK_FRAME_HEADER && f.payload == f.channel + f.channel_len);
      FUZZ_CHECK(f.payload + f.payload_len == buf + at + used);
      FUZZ_CHECK(ty_link_frame_size(f.channel_len, f.payload_len) == used);
      ty_link_frame_put(again, f.channel, f.channel_len, f.payload, f.payload_len);
      FUZZ_CHECK(memcmp(again, buf + at, used) == 0);
      at += used;
    }
    memmove(buf, buf + at, have - at);
    have -= at, taken += at;
    if (st == TY_LINK_BAD) {
      FUZZ_CHECK(why != NULL);
      *bad = 1;
      break;
    }
  }
  free(buf);
  free(again);
  return taken;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  size_t piece = data[0] % 65 ? data[0] % 65 : size;
  int bad_cut, bad_whole;
  size_t cut = read_stream((const char *)data + 1, size - 1, piece, &bad_cut);
  size_t whole = read_stream((const char *)data + 1, size - 1, size, &bad_whole);
  FUZZ_CHECK(cut == whole && bad_cut == bad_whole);
  return 0;
}

#ifndef TYCHO_LIBFUZZER
#include "replay.h"

/* A file runs as libFuzzer wrote it, then with each of a few piece sizes in front. */
static int replay_file(const char *path) {
  return fuzz_replay_cut("link_frames_fuzz", path, 1, LLVMFuzzerTestOneInput);
}

int main(int argc, char **argv) { return fuzz_replay_main("link_frames_fuzz", argc, argv, replay_file); }
#endif
