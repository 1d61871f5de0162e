/* tests/c/audio_test.c: engine/audio without Lua: decoding from memory and its refusals,
 * sources on the clock with no output at all, the voice cap and its stealing rule, a
 * destroyed object taking its source's voice back, stale handles. */
#include "audio/audio.h" /* first: the public header compiles alone */
#include "check.h"

#include <stdlib.h>
#include <unistd.h>

static char dir[] = "/tmp/tycho-audio-test-XXXXXX";

/* A mono 16-bit WAV of frames frames of a square wave into buf; returns its size. */
static size_t make_wav(unsigned char *buf, uint32_t frames, uint32_t rate) {
  uint32_t bytes = frames * 2, riff = 36 + bytes, fmt = 16, byte_rate = rate * 2;
  uint16_t pcm = 1, ch = 1, align = 2, bits = 16;
  size_t n = 0;
#define PUT(p, k) (memcpy(buf + n, (p), (k)), n += (k))
  PUT("RIFF", 4);
  PUT(&riff, 4);
  PUT("WAVEfmt ", 8);
  PUT(&fmt, 4);
  PUT(&pcm, 2);
  PUT(&ch, 2);
  PUT(&rate, 4);
  PUT(&byte_rate, 4);
  PUT(&align, 2);
  PUT(&bits, 2);
  PUT("data", 4);
  PUT(&bytes, 4);
  for (uint32_t i = 0; i < frames; i++) {
    int16_t s = (i / 50) % 2 ? 12000 : -12000;
    PUT(&s, 2);
  }
#undef PUT
  return n;
}

static const char *write_clip(const char *name, uint32_t frames, uint32_t rate) {
  static char path[256];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  unsigned char *buf = malloc(44 + (size_t)frames * 2);
  size_t n = make_wav(buf, frames, rate);
  FILE *f = fopen(path, "wb");
  fwrite(buf, 1, n, f);
  fclose(f);
  free(buf);
  return path;
}

static const ty_source_params PLAIN = {1, 1, false, true, 1, 100, 1};

static void test_decode(void) {
  unsigned char buf[44 + 2000];
  size_t n = make_wav(buf, 1000, 8000);
  ty_pcm pcm;
  char err[256];
  CHECK(ty_audio_decode(buf, n, &pcm, err, sizeof err));
  CHECK_EQ_INT(pcm.frames, 1000);
  CHECK_EQ_INT(pcm.channels, 1);
  CHECK_EQ_INT(pcm.sample_rate, 8000);
  CHECK_EQ_INT(pcm.samples[0], -12000);
  ty_pcm_free(&pcm);
  CHECK(!ty_audio_decode(buf, 20, &pcm, err, sizeof err));
  CHECK(err[0] && pcm.samples == NULL);
  CHECK(!ty_audio_decode("hello, not a sound", 18, &pcm, err, sizeof err));
  CHECK(!ty_audio_decode(NULL, 0, &pcm, err, sizeof err));
  uint16_t eight = 8; /* channels */
  memcpy(buf + 22, &eight, 2);
  CHECK(!ty_audio_decode(buf, n, &pcm, err, sizeof err));
  CHECK(strstr(err, "channels") != NULL);
}

static void test_no_output_plays_on_the_clock(void) {
  ty_audio *A = ty_audio_create(&(ty_audio_desc){.output = TY_AUDIO_NONE});
  CHECK(!ty_audio_has_output(A));
  char err[256];
  ty_clip c = ty_audio_clip_load(A, write_clip("one.wav", 8000, 8000), false, err, sizeof err); /* 1 s */
  CHECK(c.id != 0);
  ty_clip_info info;
  CHECK(ty_audio_clip_info(A, c, &info) && fabs(info.duration - 1) < 1e-9);
  ty_world *W = ty_world_create();
  ty_source s = ty_audio_source_create(A, c, 0, &PLAIN);
  ty_audio_source_play(A, s);
  CHECK(ty_audio_source_playing(A, s));
  ty_audio_update(A, W, 0.5);
  CHECK(ty_audio_source_playing(A, s));
  CHECK_NEAR(ty_audio_source_time(A, s), 0.5, 1e-9);
  ty_audio_update(A, W, 0.6);
  CHECK(!ty_audio_source_playing(A, s));
  float silence[64];
  CHECK(!ty_audio_render(A, silence, 32));
  ty_audio_source_destroy(A, s);
  CHECK(!ty_audio_source_alive(A, s));
  ty_audio_source_play(A, s); /* stale: refused quietly */
  ty_audio_clip_unload(A, c);
  CHECK(!ty_audio_clip_info(A, c, &info));
  ty_world_destroy(W);
  ty_audio_destroy(A);
}

static void test_voice_cap_steals_the_quietest(void) {
  ty_audio *A = ty_audio_create(&(ty_audio_desc){.output = TY_AUDIO_LOOPBACK, .max_voices = 4});
  if (!ty_audio_has_output(A)) {
    fprintf(stderr, "  (no loopback mixer here: skipped)\n");
    ty_audio_destroy(A);
    return;
  }
  char err[256];
  ty_clip c = ty_audio_clip_load(A, write_clip("loop.wav", 4000, 8000), false, err, sizeof err);
  ty_world *W = ty_world_create();
  ty_source far[8];
  ty_source_params p = PLAIN;
  p.loop = true;
  for (int i = 0; i < 8; i++) {
    far[i] = ty_audio_source_create(A, c, 0, &p);
    ty_audio_source_set_position(A, far[i], (float[3]){0, 0, -50.0f - (float)i});
    ty_audio_source_play(A, far[i]);
  }
  ty_audio_stats st = ty_audio_get_stats(A);
  CHECK_EQ_INT(st.max_voices, 4);
  CHECK_EQ_INT(st.voices_busy, 4);
  CHECK_EQ_INT(st.playing, 8);
  CHECK_EQ_INT(st.waits, 4);
  ty_source near = ty_audio_source_create(A, c, 0, &p);
  ty_audio_source_set_position(A, near, (float[3]){0, 0, -2});
  ty_audio_source_play(A, near);
  st = ty_audio_get_stats(A);
  CHECK_EQ_INT(st.voices_busy, 4);
  CHECK_EQ_INT(st.steals, 1);
  float buf[2 * 256];
  CHECK(ty_audio_render(A, buf, 256));
  float peak = 0;
  for (int i = 0; i < 512; i++) peak = fmaxf(peak, fabsf(buf[i]));
  CHECK(peak > 0.05f);
  ty_audio_update(A, W, 1.0 / 60);
  CHECK(ty_audio_get_stats(A).voices_busy <= 4);
  ty_world_destroy(W);
  ty_audio_destroy(A);
}

static void test_destroyed_object_frees_its_voice(void) {
  ty_audio *A = ty_audio_create(&(ty_audio_desc){.output = TY_AUDIO_LOOPBACK});
  char err[256];
  ty_clip c = ty_audio_clip_load(A, write_clip("obj.wav", 4000, 8000), false, err, sizeof err);
  ty_world *W = ty_world_create();
  ty_id go = ty_object_create(W);
  ty_source_params p = PLAIN;
  p.loop = true;
  ty_source s = ty_audio_source_create(A, c, go, &p);
  ty_audio_source_play(A, s);
  ty_audio_update(A, W, 1.0 / 60);
  CHECK(ty_audio_source_playing(A, s));
  uint32_t busy = ty_audio_get_stats(A).voices_busy;
  ty_id out[4];
  uint32_t n = ty_object_destroy(W, go, out, 4);
  for (uint32_t i = 0; i < n; i++) ty_object_free(W, out[i]);
  ty_audio_update(A, W, 1.0 / 60);
  CHECK(!ty_audio_source_playing(A, s));
  CHECK_EQ_INT(ty_audio_get_stats(A).voices_busy, busy ? busy - 1 : 0);
  ty_world_destroy(W);
  ty_audio_destroy(A);
}

int main(void) {
  if (!mkdtemp(dir)) return 1;
  RUN(test_decode);
  RUN(test_no_output_plays_on_the_clock);
  RUN(test_voice_cap_steals_the_quietest);
  RUN(test_destroyed_object_frees_its_voice);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  return check_summary();
}
