/* tests/fuzz/audio_fuzz.c: fuzzes ty_audio_decode (any sound file libsndfile reads, from
 * bytes) and checks what must hold for any input: it returns, a failure leaves the pcm
 * empty with a message, and a success gives mono or stereo samples at a sane rate, no more
 * frames than the cap, every sample readable.
 *
 * Seeds (tests/fuzz/corpus/audio/, written by make_audio_corpus.c) are short WAV, AIFF,
 * FLAC, OGG Vorbis and MP3 files.
 *
 * Built two ways. With TYCHO_LIBFUZZER (cmake -DTYCHO_FUZZ=ON, clang) libFuzzer drives it:
 *   LSAN_OPTIONS=suppressions=$PWD/tests/fuzz/audio_lsan.supp \
 *     build-fuzz/audio_fuzz -max_total_time=300 /tmp/audio-corpus tests/fuzz/corpus/audio
 * (libsndfile itself is not instrumented there: coverage is tycho's side of the decode; the
 * suppression is libsndfile's own leak on broken Vorbis headers, see audio_lsan.supp.)
 * Without, main() below replays files and folders given on the command line, each whole,
 * cut short at many lengths and with bytes flipped through its header, so every build
 * (ASan included) runs them as the ctest fuzz.audio_fuzz. */
#include "audio/audio.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_CHECK(cond)                                                                       \
  do {                                                                                         \
    if (!(cond)) {                                                                             \
      fprintf(stderr, "audio_fuzz: invariant failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
      abort();                                                                                 \
    }                                                                                          \
  } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ty_pcm pcm;
  char err[512];
  memset(err, 'x', sizeof err);
  bool ok = ty_audio_decode(data, size, &pcm, err, sizeof err);
  FUZZ_CHECK(memchr(err, 0, sizeof err) != NULL);
  if (!ok) {
    FUZZ_CHECK(err[0] != 0);
    FUZZ_CHECK(pcm.samples == NULL && pcm.frames == 0);
    return 0;
  }
  FUZZ_CHECK(pcm.samples != NULL && pcm.frames > 0 && pcm.frames <= TY_AUDIO_MAX_FRAMES);
  FUZZ_CHECK(pcm.channels == 1 || pcm.channels == 2);
  FUZZ_CHECK(pcm.sample_rate >= 1000 && pcm.sample_rate <= 384000);
  /* Every sample is there (ASan notices a short buffer). */
  int64_t sum = 0;
  for (uint64_t i = 0; i < pcm.frames * pcm.channels; i++) sum += pcm.samples[i];
  (void)sum;
  ty_pcm_free(&pcm);
  return 0;
}

#ifndef TYCHO_LIBFUZZER
#include "replay.h"

static int replay_file(const char *path) {
  size_t len = 0;
  uint8_t *buf = fuzz_read_file("audio_fuzz", path, 0, &len);
  if (!buf) return -1;
  LLVMFuzzerTestOneInput(buf, len);
  /* Truncated files are the commonest malformed input. */
  for (size_t cut = 0; cut < len; cut += (len / 64) + 1) LLVMFuzzerTestOneInput(buf, cut);
  /* Lying headers: each of the first 64 bytes set to 0x00 and 0xFF in turn. */
  for (size_t i = 0; i < len && i < 64; i++) {
    uint8_t keep = buf[i];
    buf[i] = 0x00;
    LLVMFuzzerTestOneInput(buf, len);
    buf[i] = 0xFF;
    LLVMFuzzerTestOneInput(buf, len);
    buf[i] = keep;
  }
  free(buf);
  return 1;
}

int main(int argc, char **argv) { return fuzz_replay_main("audio_fuzz", argc, argv, replay_file); }
#endif
