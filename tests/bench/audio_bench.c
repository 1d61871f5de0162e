/* tests/bench/audio_bench.c: engine/audio, figures printed, nothing judged.
 *  1. The mixer's CPU per second of audio with 32 and 128 looping spatial voices (a mono
 *     44.1 kHz clip, resampled to 48 kHz, each voice at its own place and pitch), rendered
 *     in 1,024-frame chunks through the loopback device on this thread, so the process CPU
 *     clock measures the mix itself. Target: 128 voices under 5% of one core.
 *  2. The once-a-frame placement of 1,000 playing sources from their GameObjects' world
 *     transforms (all moving; 64 voices, the rest virtual and ranked for voices each frame):
 *     ty_audio_update alone, median of the frames. Target <= 0.1 ms. The transform sync
 *     before it is the renderer's too, printed beside it.
 *  3. Latency from ty_audio_source_play to the first sample: in the mix (loopback, the same
 *     1,024-frame chunks), and the default device's buffer as OpenAL Soft reports it
 *     (ALC_DEVICE_LATENCY_SOFT), or its default period x periods where there is no device.
 * --frames N: seconds of audio per mixer figure and N x 20 placement frames (default 10). */
#define AL_ALEXT_PROTOTYPES
#include "audio/audio.h"
#include "bench.h"
#include "common.h"

#include <AL/al.h>
#include <AL/alc.h>
#include <AL/alext.h>
#include <math.h>
#include <time.h>
#include <unistd.h>

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A mono 16-bit WAV of seconds of a noisy tone at rate. */
static void write_wav(const char *path, double seconds, uint32_t rate) {
  uint32_t frames = (uint32_t)(seconds * rate), bytes = frames * 2;
  FILE *f = fopen(path, "wb");
  if (!f) exit(1);
  uint32_t h32[] = {36 + bytes};
  fwrite("RIFF", 1, 4, f);
  fwrite(h32, 4, 1, f);
  fwrite("WAVEfmt ", 1, 8, f);
  uint32_t fmt_len = 16, byte_rate = rate * 2;
  uint16_t pcm = 1, ch = 1, align = 2, bits = 16;
  fwrite(&fmt_len, 4, 1, f);
  fwrite(&pcm, 2, 1, f);
  fwrite(&ch, 2, 1, f);
  fwrite(&rate, 4, 1, f);
  fwrite(&byte_rate, 4, 1, f);
  fwrite(&align, 2, 1, f);
  fwrite(&bits, 2, 1, f);
  fwrite("data", 1, 4, f);
  fwrite(&bytes, 4, 1, f);
  uint32_t r = 1;
  for (uint32_t i = 0; i < frames; i++) {
    r = r * 1103515245u + 12345u;
    double v = 0.3 * sin(2 * M_PI * 440 * i / rate) + 0.1 * ((double)(r >> 16) / 32768.0 - 1);
    int16_t s = (int16_t)(v * 32767);
    fwrite(&s, 2, 1, f);
  }
  fclose(f);
}

static const ty_source_params SPATIAL = {1, 1, true, true, 1, 200, 1};

static void mixer(const char *clip_path, uint32_t voices, int seconds) {
  ty_audio *A = ty_audio_create(&(ty_audio_desc){.output = TY_AUDIO_LOOPBACK, .max_voices = 128});
  char err[256];
  ty_clip c = ty_audio_clip_load(A, clip_path, false, err, sizeof err);
  if (!c.id) {
    fprintf(stderr, "audio_bench: %s\n", err);
    exit(1);
  }
  ty_world *W = ty_world_create();
  uint32_t r = 7;
  for (uint32_t i = 0; i < voices; i++) {
    ty_source_params p = SPATIAL;
    r = r * 1103515245u + 12345u;
    p.pitch = 0.8f + 0.4f * (float)(r >> 16) / 65536.0f;
    ty_source s = ty_audio_source_create(A, c, 0, &p);
    float pos[3] = {(float)((int)(r >> 8) % 40 - 20), 0, (float)((int)(r >> 20) % 40 - 20)};
    ty_audio_source_set_position(A, s, pos);
    ty_audio_source_play(A, s);
  }
  ty_audio_update(A, W, 0);
  ty_audio_stats st = ty_audio_get_stats(A);
  uint32_t rate = ty_audio_sample_rate(A), chunk = 1024, total = rate * (uint32_t)seconds;
  float *buf = malloc(sizeof(float) * 2 * chunk);
  double c0 = cpu_now(), w0 = ty_now();
  for (uint32_t done = 0; done < total; done += chunk) ty_audio_render(A, buf, chunk);
  double cpu = cpu_now() - c0, wall = ty_now() - w0;
  printf("mixer %3u spatial voices (%u voiced): %6.2f ms CPU per second of audio = %.2f%% of one core (wall %.2f ms/s)\n",
         voices, st.voices_busy, cpu * 1000 / seconds, cpu * 100 / seconds, wall * 1000 / seconds);
  free(buf);
  ty_world_destroy(W);
  ty_audio_destroy(A);
}

static void placement(const char *clip_path, int frames) {
  enum { N = 1000 };
  ty_audio *A = ty_audio_create(&(ty_audio_desc){.output = TY_AUDIO_LOOPBACK});
  char err[256];
  ty_clip c = ty_audio_clip_load(A, clip_path, false, err, sizeof err);
  ty_world *W = ty_world_create();
  ty_transforms *T = ty_world_transforms(W);
  ty_id ids[N];
  ty_id ears = ty_object_create(W);
  for (int i = 0; i < N; i++) {
    ids[i] = ty_object_create(W);
    ty_audio_source_play(A, ty_audio_source_create(A, c, ids[i], &SPATIAL));
  }
  ty_audio_set_listener(A, ears);
  double *upd = malloc(sizeof(double) * (size_t)frames), *sync = malloc(sizeof(double) * (size_t)frames);
  float *buf = malloc(sizeof(float) * 2 * 800);
  for (int f = 0; f < frames; f++) {
    for (int i = 0; i < N; i++) {
      ty_trs *t = ty_transform_write(T, ty_object_transform(W, ids[i]));
      float a = (float)i * 0.37f + (float)f * 0.01f;
      t->pos[0] = 30 * cosf(a) * (1 + (float)(i % 7));
      t->pos[2] = 30 * sinf(a) * (1 + (float)(i % 7));
    }
    double t0 = ty_now();
    ty_transforms_sync(T);
    double t1 = ty_now();
    ty_audio_update(A, W, 1.0 / 60);
    double t2 = ty_now();
    sync[f] = t1 - t0;
    upd[f] = t2 - t1;
    ty_audio_render(A, buf, 800); /* a 60 Hz frame's worth of mixing, so voices move on */
  }
  ty_audio_stats st = ty_audio_get_stats(A);
  printf("place %d moving sources from their transforms: %.4f ms/frame median (target <= 0.1 ms; "
         "%u voiced of %u playing, %llu steals); transform sync before it %.4f ms\n",
         N, bench_median(upd, frames) * 1000, st.voices_busy, st.playing, (unsigned long long)st.steals,
         bench_median(sync, frames) * 1000);
  free(upd);
  free(sync);
  free(buf);
  ty_world_destroy(W);
  ty_audio_destroy(A);
}

static void latency(const char *clip_path) {
  ty_audio *A = ty_audio_create(&(ty_audio_desc){.output = TY_AUDIO_LOOPBACK});
  char err[256];
  ty_clip c = ty_audio_clip_load(A, clip_path, false, err, sizeof err);
  ty_world *W = ty_world_create();
  ty_source_params p = SPATIAL;
  p.spatial = false;
  p.loop = false;
  ty_source s = ty_audio_source_create(A, c, 0, &p);
  uint32_t rate = ty_audio_sample_rate(A), chunk = 1024;
  float *buf = calloc(2 * chunk, sizeof(float));
  ty_audio_render(A, buf, chunk); /* a running mix, then the play between two chunks */
  double t0 = ty_now();
  ty_audio_source_play(A, s);
  long first = -1;
  for (uint32_t k = 0; k < 16 && first < 0; k++) {
    ty_audio_render(A, buf, chunk);
    for (uint32_t i = 0; i < chunk && first < 0; i++)
      if (buf[2 * i] != 0 || buf[2 * i + 1] != 0) first = (long)(k * chunk + i);
  }
  double wall = ty_now() - t0;
  printf("latency play() to first sample in the mix: %ld samples (%.2f ms of audio; %.3f ms to mix it), %u-frame chunks at %u Hz\n",
         first, first < 0 ? -1.0 : first * 1000.0 / rate, wall * 1000, chunk, rate);
  free(buf);
  ty_world_destroy(W);
  ty_audio_destroy(A);

  /* The default device's buffer: what a played sound waits behind before it is heard. */
  ALCdevice *dev = alcOpenDevice(NULL);
  ALCcontext *ctx = dev ? alcCreateContext(dev, NULL) : NULL;
  if (ctx && alcIsExtensionPresent(dev, "ALC_SOFT_device_clock")) {
    alcMakeContextCurrent(ctx);
    ALCint64SOFT clk[2] = {0, 0};
    alcGetInteger64vSOFT(dev, ALC_DEVICE_CLOCK_LATENCY_SOFT, 2, clk);
    ALCint freq = 0, refresh = 0;
    alcGetIntegerv(dev, ALC_FREQUENCY, 1, &freq);
    alcGetIntegerv(dev, ALC_REFRESH, 1, &refresh);
    printf("latency default device (%s): %.2f ms buffered at %d Hz, %d updates/s\n",
           alcGetString(dev, ALC_DEVICE_SPECIFIER), (double)clk[1] / 1e6, freq, refresh);
    alcMakeContextCurrent(NULL);
  } else {
    /* OpenAL Soft's defaults (alsoftrc period_size = 1024, periods = 3) at 48 kHz. */
    printf("latency default device: none here; OpenAL Soft's default buffer is 3 x 1024 frames = %.2f ms at 48 kHz\n",
           3 * 1024 * 1000.0 / 48000);
  }
  if (ctx) alcDestroyContext(ctx);
  if (dev) alcCloseDevice(dev);
}

int main(int argc, char **argv) {
  int seconds = bench_frames(argc, argv, 10);
  char dir[] = "/tmp/tycho-audio-bench-XXXXXX";
  if (!mkdtemp(dir)) return 1;
  char clip[128];
  snprintf(clip, sizeof clip, "%s/clip.wav", dir);
  write_wav(clip, 2.0, 44100);
  mixer(clip, 32, seconds);
  mixer(clip, 128, seconds);
  placement(clip, seconds * 20);
  latency(clip);
  unlink(clip);
  rmdir(dir);
  return 0;
}
