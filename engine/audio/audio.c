/* engine/audio/audio.c: the output device, clips, sources and the voice pool over OpenAL
 * Soft (see audio.h for the model). Every AL call happens on the thread that owns the
 * ty_audio; OpenAL Soft mixes on its own thread (device) or inside ty_audio_render
 * (loopback). */
#define AL_ALEXT_PROTOTYPES
#include "audio_internal.h"

#include <AL/al.h>
#include <AL/alc.h>
#include <AL/alext.h>
#include <math.h>
#include <string.h>

#define HANDLE_INDEX_BITS 20u
#define HANDLE_INDEX(id) (((id) & ((1u << HANDLE_INDEX_BITS) - 1)) - 1)
#define HANDLE_GEN(id) ((id) >> HANDLE_INDEX_BITS)
#define HANDLE_MAKE(index, gen) (((uint32_t)(gen) << HANDLE_INDEX_BITS) | ((uint32_t)(index) + 1))
#define GEN_MAX ((1u << (32 - HANDLE_INDEX_BITS)) - 1)

/* A voiced source loses its voice to a virtual one only when that one is this much
 * louder, so two sources of about the same loudness do not trade the voice every frame. */
#define STEAL_HYSTERESIS 1.25f
/* One-shots alive at once: past this a new one frees the quietest waiting one (else the
 * quietest of all). A headless run whose game never calls render never ends a one-shot,
 * so without a bound they would pile up for ever. */
#define MAX_ONESHOTS 1024u
/* The render granularity: streams are refilled between chunks of this many frames. */
#define RENDER_CHUNK 1024u

typedef struct clip {
  uint32_t gen;
  bool used, unloaded;
  uint32_t refs; /* sources holding it */
  char *path;
  ALuint buffer; /* whole clips; 0 for streams */
  ty_clip_info info;
} clip;

typedef struct stream {
  SNDFILE *sf;
  ALuint bufs[TY_STREAM_BUFFERS];
  uint64_t starts[TY_STREAM_BUFFERS]; /* file frame each queued buffer starts at, in queue order */
  uint32_t queued, head;              /* ring over starts */
  uint64_t read_frame;                /* next frame to decode */
  bool eof;
  int16_t *scratch;
} stream;

enum { ST_STOPPED, ST_PLAYING, ST_PAUSED };

typedef struct source {
  uint32_t gen;
  bool used, oneshot;
  uint8_t state;
  uint32_t clip;  /* clip index + 1, 0: none */
  ty_id object;
  ty_source_params p;
  float pos[3], vel[3];
  bool placed;    /* pos holds a placement from its object (velocity needs two) */
  int32_t voice;  /* index into voices, -1: virtual or stopped */
  double time;    /* seconds into the clip while virtual */
  stream *st;     /* while voiced with a streamed clip */
} source;

typedef struct voice {
  ALuint al;
  int32_t source; /* index, -1: free */
} voice;

struct ty_audio {
  ty_audio_output kind;
  ALCdevice *dev;
  ALCcontext *ctx;
  bool lost; /* the device went away: silent from then on */
  uint32_t rate;
  float master;
  clip *clips;
  uint32_t clip_count, clip_cap, clip_free; /* free list through gen's top? no: a scan hint */
  source *sources;
  uint32_t source_count, source_cap;
  uint32_t *free_sources;
  uint32_t free_count, free_cap;
  voice *voices;
  uint32_t voice_count, max_voices;
  ty_id listener;
  float lpos[3], lvel[3];
  bool lplaced;
  double clock; /* audio time passed since the virtual sources last advanced */
  uint32_t oneshots; /* one-shots alive */
  uint64_t steals, waits;
};

static ALCcontext *current_ctx;

/* Makes A's context current (a process may hold several ty_audio, one at a time in use). */
static bool use(ty_audio *A) {
  if (!A->ctx || A->lost) return false;
  if (current_ctx != A->ctx) {
    alcMakeContextCurrent(A->ctx);
    current_ctx = A->ctx;
  }
  return true;
}

/* ---- creation ---- */

static bool open_output(ty_audio *A) {
  ALCint attrs[16];
  int n = 0;
  if (A->kind == TY_AUDIO_LOOPBACK) {
    A->dev = alcLoopbackOpenDeviceSOFT(NULL);
    if (!A->dev) return false;
    if (!alcIsRenderFormatSupportedSOFT(A->dev, (ALCsizei)A->rate, ALC_STEREO_SOFT, ALC_FLOAT_SOFT)) {
      alcCloseDevice(A->dev);
      A->dev = NULL;
      return false;
    }
    attrs[n++] = ALC_FORMAT_CHANNELS_SOFT, attrs[n++] = ALC_STEREO_SOFT;
    attrs[n++] = ALC_FORMAT_TYPE_SOFT, attrs[n++] = ALC_FLOAT_SOFT;
    attrs[n++] = ALC_FREQUENCY, attrs[n++] = (ALCint)A->rate;
    /* Measured output: plain panning (no HRTF filters) and no limiter, so gains add up. */
    attrs[n++] = ALC_HRTF_SOFT, attrs[n++] = ALC_FALSE;
    attrs[n++] = ALC_OUTPUT_LIMITER_SOFT, attrs[n++] = ALC_FALSE;
  } else {
    /* Our audio_unavailable line says it once; OpenAL Soft's own error lines would repeat
     * it (a user who sets ALSOFT_LOGLEVEL still gets them). */
    setenv("ALSOFT_LOGLEVEL", "0", 0);
    A->dev = alcOpenDevice(NULL);
    if (!A->dev) return false;
  }
  attrs[n++] = ALC_MONO_SOURCES, attrs[n++] = (ALCint)A->max_voices;
  attrs[n++] = ALC_STEREO_SOURCES, attrs[n++] = (ALCint)A->max_voices;
  attrs[n] = 0;
  A->ctx = alcCreateContext(A->dev, attrs);
  if (!A->ctx) {
    alcCloseDevice(A->dev);
    A->dev = NULL;
    return false;
  }
  current_ctx = NULL;
  use(A);
  if (A->kind == TY_AUDIO_DEVICE) {
    ALCint rate = 0;
    alcGetIntegerv(A->dev, ALC_FREQUENCY, 1, &rate);
    if (rate > 0) A->rate = (uint32_t)rate;
  }
  alDistanceModel(AL_INVERSE_DISTANCE_CLAMPED);
  alDopplerFactor(1.0f);
  alSpeedOfSound(343.3f);
  A->voices = TY_MALLOC(sizeof *A->voices * A->max_voices);
  TY_ASSERT(A->voices);
  for (uint32_t i = 0; i < A->max_voices; i++) {
    alGetError();
    ALuint s = 0;
    alGenSources(1, &s);
    if (alGetError() != AL_NO_ERROR) break; /* the device gives fewer: the pool is smaller */
    A->voices[i] = (voice){s, -1};
    A->voice_count++;
  }
  return true;
}

ty_audio *ty_audio_create(const ty_audio_desc *desc) {
  ty_audio *A = TY_MALLOC(sizeof *A);
  TY_ASSERT(A);
  memset(A, 0, sizeof *A);
  A->kind = desc ? desc->output : TY_AUDIO_LOOPBACK;
  A->rate = desc && desc->sample_rate ? desc->sample_rate : 48000;
  A->max_voices = desc && desc->max_voices ? desc->max_voices : 64;
  A->master = 1;
  if (A->kind != TY_AUDIO_NONE && !open_output(A)) {
    ty_log("audio_unavailable", "no %s could be opened; sound is off, the game runs on",
           A->kind == TY_AUDIO_LOOPBACK ? "loopback mixer (ALC_SOFT_loopback)" : "audio device");
  }
  return A;
}

static void stream_close(source *s);

void ty_audio_destroy(ty_audio *A) {
  if (!A) return;
  bool ok = A->ctx && (alcMakeContextCurrent(A->ctx), current_ctx = A->ctx, true);
  /* Voices let go of their buffers first: AL deletes no buffer still queued. */
  for (uint32_t i = 0; ok && i < A->voice_count; i++) {
    alSourceStop(A->voices[i].al);
    alSourcei(A->voices[i].al, AL_BUFFER, 0);
  }
  for (uint32_t i = 0; i < A->source_count; i++) stream_close(&A->sources[i]);
  for (uint32_t i = 0; ok && i < A->voice_count; i++) alDeleteSources(1, &A->voices[i].al);
  for (uint32_t i = 0; i < A->clip_count; i++) {
    clip *c = &A->clips[i];
    if (!c->used) continue;
    if (ok && c->buffer) alDeleteBuffers(1, &c->buffer);
    TY_FREE(c->path);
  }
  if (A->ctx) {
    alcMakeContextCurrent(NULL);
    current_ctx = NULL;
    alcDestroyContext(A->ctx);
  }
  if (A->dev) alcCloseDevice(A->dev);
  TY_FREE(A->voices);
  TY_FREE(A->clips);
  TY_FREE(A->sources);
  TY_FREE(A->free_sources);
  TY_FREE(A);
}

bool ty_audio_has_output(const ty_audio *A) { return A->ctx && !A->lost; }
ty_audio_output ty_audio_output_kind(const ty_audio *A) { return A->ctx ? A->kind : TY_AUDIO_NONE; }
uint32_t ty_audio_sample_rate(const ty_audio *A) { return A->rate; }

void ty_audio_set_master(ty_audio *A, float gain) {
  if (!(gain >= 0)) gain = 0;
  if (gain > 1) gain = 1;
  A->master = gain;
  if (use(A)) alListenerf(AL_GAIN, gain);
}
float ty_audio_master(const ty_audio *A) { return A->master; }

/* ---- clips ---- */

static clip *get_clip(const ty_audio *A, uint32_t id) {
  if (!id) return NULL;
  uint32_t i = HANDLE_INDEX(id);
  if (i >= A->clip_count) return NULL;
  clip *c = &A->clips[i];
  return c->used && c->gen == HANDLE_GEN(id) && !c->unloaded ? c : NULL;
}

static bool read_file(const char *path, unsigned char **data, size_t *size, char *err, size_t errsz) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(err, errsz, "%s: cannot open it", path);
    return false;
  }
  size_t len = 0, cap = 0;
  unsigned char *buf = NULL;
  for (;;) {
    if (len == cap) {
      cap = cap ? cap * 2 : 65536;
      if (cap > ((size_t)1 << 31)) {
        snprintf(err, errsz, "%s: larger than 2 GiB", path);
        TY_FREE(buf);
        fclose(f);
        return false;
      }
      unsigned char *p = TY_REALLOC(buf, cap);
      TY_ASSERT(p);
      buf = p;
    }
    size_t got = fread(buf + len, 1, cap - len, f);
    len += got;
    if (got == 0) break;
  }
  bool bad = ferror(f);
  fclose(f);
  if (bad) {
    snprintf(err, errsz, "%s: read error", path);
    TY_FREE(buf);
    return false;
  }
  *data = buf;
  *size = len;
  return true;
}

/* Decodes path into info and (A has a context) an AL buffer; false with err. */
static bool load_whole(ty_audio *A, const char *path, ALuint *buffer, ty_clip_info *info, char *err, size_t errsz) {
  unsigned char *data;
  size_t size;
  if (!read_file(path, &data, &size, err, errsz)) return false;
  ty_pcm pcm;
  char why[256];
  bool ok = ty_audio_decode(data, size, &pcm, why, sizeof why);
  TY_FREE(data);
  if (!ok) {
    snprintf(err, errsz, "%s: %s", path, why);
    return false;
  }
  *info = (ty_clip_info){(double)pcm.frames / pcm.sample_rate, pcm.channels, pcm.sample_rate, pcm.frames, false};
  if (use(A)) {
    size_t bytes = (size_t)pcm.frames * pcm.channels * sizeof(int16_t);
    if (bytes > INT32_MAX) {
      snprintf(err, errsz, "%s: too long to play whole; load it with stream = true", path);
      ty_pcm_free(&pcm);
      return false;
    }
    if (!*buffer) alGenBuffers(1, buffer);
    alGetError();
    alBufferData(*buffer, pcm.channels == 1 ? AL_FORMAT_MONO16 : AL_FORMAT_STEREO16, pcm.samples, (ALsizei)bytes,
                 (ALsizei)pcm.sample_rate);
    ALenum e = alGetError();
    if (e != AL_NO_ERROR) {
      snprintf(err, errsz, "%s: the mixer refused its samples (AL error 0x%x)", path, (unsigned)e);
      ty_pcm_free(&pcm);
      return false;
    }
  }
  ty_pcm_free(&pcm);
  return true;
}

static bool probe_stream(const char *path, ty_clip_info *info, char *err, size_t errsz) {
  SF_INFO si;
  SNDFILE *sf = ty_audio_stream_open(path, &si, err, errsz);
  if (!sf) return false;
  /* A header can claim any length: read one buffer's worth to see that it decodes. */
  int16_t probe[256 * 2];
  sf_count_t got = sf_readf_short(sf, probe, 256);
  sf_close(sf);
  if (got <= 0 || si.frames <= 0) {
    snprintf(err, errsz, "%s: no sound in it", path);
    return false;
  }
  *info = (ty_clip_info){(double)si.frames / si.samplerate, (uint32_t)si.channels, (uint32_t)si.samplerate,
                         (uint64_t)si.frames, true};
  return true;
}

ty_clip ty_audio_clip_load(ty_audio *A, const char *path, bool streamed, char *err, size_t errsz) {
  ty_clip_info info;
  ALuint buffer = 0;
  if (streamed ? !probe_stream(path, &info, err, errsz) : !load_whole(A, path, &buffer, &info, err, errsz)) {
    if (buffer) alDeleteBuffers(1, &buffer);
    return (ty_clip){0};
  }
  uint32_t i = 0;
  while (i < A->clip_count && A->clips[i].used) i++;
  if (i == A->clip_count) {
    if (i >= (1u << HANDLE_INDEX_BITS) - 2) {
      snprintf(err, errsz, "too many clips loaded");
      if (buffer) alDeleteBuffers(1, &buffer);
      return (ty_clip){0};
    }
    TY_GROW(A->clips, A->clip_cap, i + 1);
    A->clips[i] = (clip){0};
    A->clip_count++;
  }
  clip *c = &A->clips[i];
  uint32_t gen = c->gen % GEN_MAX + 1;
  size_t len = strlen(path) + 1;
  *c = (clip){.gen = gen, .used = true, .path = TY_MALLOC(len), .buffer = buffer, .info = info};
  TY_ASSERT(c->path);
  memcpy(c->path, path, len);
  return (ty_clip){HANDLE_MAKE(i, gen)};
}

bool ty_audio_clip_info(const ty_audio *A, ty_clip h, ty_clip_info *out) {
  clip *c = get_clip(A, h.id);
  if (!c) return false;
  *out = c->info;
  return true;
}

static void clip_release(ty_audio *A, uint32_t index) {
  clip *c = &A->clips[index];
  if (c->refs || !c->unloaded) return;
  if (c->buffer && use(A)) alDeleteBuffers(1, &c->buffer);
  TY_FREE(c->path);
  uint32_t gen = c->gen;
  *c = (clip){.gen = gen};
}

void ty_audio_clip_unload(ty_audio *A, ty_clip h) {
  clip *c = get_clip(A, h.id);
  if (!c) return;
  c->unloaded = true;
  clip_release(A, HANDLE_INDEX(h.id));
}

/* ---- sources ---- */

static source *get_source(const ty_audio *A, uint32_t id) {
  if (!id) return NULL;
  uint32_t i = HANDLE_INDEX(id);
  if (i >= A->source_count) return NULL;
  source *s = &A->sources[i];
  return s->used && s->gen == HANDLE_GEN(id) ? s : NULL;
}

static clip *source_clip(const ty_audio *A, const source *s) { return s->clip ? &A->clips[s->clip - 1] : NULL; }

static void stream_close(source *s) {
  stream *st = s->st;
  if (!st) return;
  if (st->sf) sf_close(st->sf);
  if (current_ctx) alDeleteBuffers(TY_STREAM_BUFFERS, st->bufs);
  TY_FREE(st->scratch);
  TY_FREE(st);
  s->st = NULL;
}

/* Decodes the next buffer of st into AL buffer b; 0 frames at the end (or on an error). */
static uint32_t stream_fill(stream *st, const clip *c, bool loop, ALuint b, uint64_t *start) {
  uint32_t ch = c->info.channels, n = 0;
  *start = st->read_frame;
  while (n < TY_STREAM_FRAMES && !st->eof) {
    sf_count_t got = sf_readf_short(st->sf, st->scratch + (size_t)n * ch, TY_STREAM_FRAMES - n);
    if (got > 0) {
      n += (uint32_t)got;
      st->read_frame += (uint64_t)got;
      continue;
    }
    if (loop && st->read_frame > 0 && sf_seek(st->sf, 0, SEEK_SET) == 0) {
      st->read_frame = 0;
      if (n == 0) *start = 0;
      continue;
    }
    st->eof = true;
  }
  if (n) {
    alBufferData(b, ch == 1 ? AL_FORMAT_MONO16 : AL_FORMAT_STEREO16, st->scratch, (ALsizei)(n * ch * sizeof(int16_t)),
                 (ALsizei)c->info.sample_rate);
  }
  return n;
}

/* Opens a stream for s on voice al at s->time and queues its first buffers. */
static bool stream_start(ty_audio *A, source *s, ALuint al) {
  const clip *c = source_clip(A, s);
  char err[256];
  SF_INFO info;
  SNDFILE *sf = ty_audio_stream_open(c->path, &info, err, sizeof err);
  if (!sf) {
    ty_log("audio_stream_failed", "%s", err);
    return false;
  }
  stream *st = TY_MALLOC(sizeof *st);
  TY_ASSERT(st);
  memset(st, 0, sizeof *st);
  st->sf = sf;
  st->scratch = TY_MALLOC((size_t)TY_STREAM_FRAMES * (size_t)info.channels * sizeof(int16_t));
  TY_ASSERT(st->scratch);
  alGenBuffers(TY_STREAM_BUFFERS, st->bufs);
  s->st = st;
  uint64_t at = (uint64_t)(s->time * c->info.sample_rate);
  if (at && at < c->info.frames && sf_seek(sf, (sf_count_t)at, SEEK_SET) >= 0) st->read_frame = at;
  for (uint32_t k = 0; k < TY_STREAM_BUFFERS; k++) {
    uint64_t start;
    if (!stream_fill(st, c, s->p.loop, st->bufs[k], &start)) break;
    alSourceQueueBuffers(al, 1, &st->bufs[k]);
    st->starts[(st->head + st->queued++) % TY_STREAM_BUFFERS] = start;
  }
  return st->queued > 0;
}

/* Unqueues what played, queues fresh buffers; restarts an underrun. False once the stream
 * has ended (nothing queued, nothing left). */
static bool stream_service(ty_audio *A, source *s, ALuint al) {
  stream *st = s->st;
  const clip *c = source_clip(A, s);
  ALint done = 0;
  alGetSourcei(al, AL_BUFFERS_PROCESSED, &done);
  while (done-- > 0) {
    ALuint b;
    alSourceUnqueueBuffers(al, 1, &b);
    st->head = (st->head + 1) % TY_STREAM_BUFFERS;
    st->queued--;
    uint64_t start;
    if (stream_fill(st, c, s->p.loop, b, &start)) {
      alSourceQueueBuffers(al, 1, &b);
      st->starts[(st->head + st->queued++) % TY_STREAM_BUFFERS] = start;
    }
  }
  if (!st->queued) return false;
  ALint state;
  alGetSourcei(al, AL_SOURCE_STATE, &state);
  if (state == AL_STOPPED && s->state == ST_PLAYING) alSourcePlay(al); /* underrun */
  return true;
}

static float source_audibility(const ty_audio *A, const source *s) {
  float g = s->p.volume;
  if (!s->p.spatial) return g;
  float d = 0;
  for (int k = 0; k < 3; k++) d += (s->pos[k] - A->lpos[k]) * (s->pos[k] - A->lpos[k]);
  d = sqrtf(d);
  float ref = s->p.min_distance, max = s->p.max_distance;
  if (d < ref) d = ref;
  if (d > max) d = max;
  float den = ref + s->p.rolloff * (d - ref);
  return den > 0 ? g * ref / den : g;
}

static void apply_params(ty_audio *A, const source *s, ALuint al) {
  alSourcef(al, AL_GAIN, s->p.volume);
  alSourcef(al, AL_PITCH, s->p.pitch);
  const clip *c = source_clip(A, s);
  alSourcei(al, AL_LOOPING, s->p.loop && c && !c->info.stream ? AL_TRUE : AL_FALSE);
  alSourcef(al, AL_REFERENCE_DISTANCE, s->p.min_distance);
  alSourcef(al, AL_MAX_DISTANCE, s->p.max_distance);
  alSourcef(al, AL_ROLLOFF_FACTOR, s->p.rolloff);
  if (s->p.spatial) {
    alSourcei(al, AL_SOURCE_RELATIVE, AL_FALSE);
    alSource3f(al, AL_POSITION, s->pos[0], s->pos[1], s->pos[2]);
    alSource3f(al, AL_VELOCITY, s->vel[0], s->vel[1], s->vel[2]);
  } else {
    /* At the listener, moving with it: centred, never attenuated or shifted. */
    alSourcei(al, AL_SOURCE_RELATIVE, AL_TRUE);
    alSource3f(al, AL_POSITION, 0, 0, 0);
    alSource3f(al, AL_VELOCITY, 0, 0, 0);
  }
}

/* Where s is in its clip, read from its voice when it has one. */
static double source_time(ty_audio *A, source *s) {
  if (s->voice < 0 || !use(A)) return s->time;
  ALuint al = A->voices[s->voice].al;
  const clip *c = source_clip(A, s);
  if (s->st) {
    ALint off = 0;
    alGetSourcei(al, AL_SAMPLE_OFFSET, &off);
    if (!s->st->queued) return s->time;
    uint64_t f = s->st->starts[s->st->head] + (uint64_t)(off > 0 ? off : 0);
    if (c->info.frames) f %= c->info.frames;
    return (double)f / c->info.sample_rate;
  }
  ALfloat t = 0;
  alGetSourcef(al, AL_SEC_OFFSET, &t);
  return t;
}

/* Takes s's voice away (s goes virtual, or is stopping): the voice is free after. */
static void unvoice(ty_audio *A, source *s) {
  if (s->voice < 0) return;
  voice *v = &A->voices[s->voice];
  if (use(A)) {
    if (s->state != ST_STOPPED) s->time = source_time(A, s);
    alSourceStop(v->al);
    alSourcei(v->al, AL_BUFFER, 0);
  }
  stream_close(s);
  v->source = -1;
  s->voice = -1;
}

/* Gives s voice vi and starts it at s->time. False (s stays virtual) when it cannot play. */
static bool voice_source(ty_audio *A, source *s, uint32_t vi) {
  const clip *c = source_clip(A, s);
  if (!c || !use(A)) return false;
  voice *v = &A->voices[vi];
  apply_params(A, s, v->al);
  if (c->info.stream) {
    if (!stream_start(A, s, v->al)) {
      alSourceStop(v->al);
      alSourcei(v->al, AL_BUFFER, 0);
      stream_close(s);
      return false;
    }
  } else {
    /* In whole frames: a float offset of 0.99999 s rounds to the clip's end, which AL
     * refuses, and the voice would start from the top instead. */
    uint64_t at = (uint64_t)(s->time * c->info.sample_rate);
    if (at >= c->info.frames) return false;
    alSourcei(v->al, AL_BUFFER, (ALint)c->buffer);
    if (at) alSourcei(v->al, AL_SAMPLE_OFFSET, (ALint)at);
  }
  v->source = (int32_t)(s - A->sources);
  s->voice = (int32_t)vi;
  alSourcePlay(v->al);
  if (s->state == ST_PAUSED) alSourcePause(v->al);
  return true;
}

static int32_t free_voice(const ty_audio *A) {
  for (uint32_t i = 0; i < A->voice_count; i++)
    if (A->voices[i].source < 0) return (int32_t)i;
  return -1;
}

/* The voiced source that is quietest now, and its loudness. */
static int32_t quietest_voice(const ty_audio *A, float *aud) {
  int32_t best = -1;
  float lo = INFINITY;
  for (uint32_t i = 0; i < A->voice_count; i++) {
    int32_t si = A->voices[i].source;
    if (si < 0) continue;
    float a = source_audibility(A, &A->sources[si]);
    if (a < lo) lo = a, best = (int32_t)i;
  }
  *aud = lo;
  return best;
}

/* Finds s a voice: a free one, else the quietest one's when s is louder by margin. */
static bool find_voice(ty_audio *A, source *s, float margin) {
  if (!A->voice_count || !use(A)) return false;
  const clip *c = source_clip(A, s);
  /* Nothing left to play (it ends on the clock): take no one's voice for it. */
  if (!c || (!c->info.stream && (uint64_t)(s->time * c->info.sample_rate) >= c->info.frames)) return false;
  int32_t vi = free_voice(A);
  if (vi < 0) {
    float lo;
    int32_t q = quietest_voice(A, &lo);
    if (q < 0 || !(source_audibility(A, s) > lo * margin)) return false;
    unvoice(A, &A->sources[A->voices[q].source]);
    A->steals++;
    vi = q;
  }
  return voice_source(A, s, (uint32_t)vi);
}

static void source_end(ty_audio *A, source *s) {
  unvoice(A, s);
  s->state = ST_STOPPED;
  s->time = 0;
}

ty_source ty_audio_source_create(ty_audio *A, ty_clip clip_h, ty_id object, const ty_source_params *p) {
  uint32_t i;
  if (A->free_count) i = A->free_sources[--A->free_count];
  else {
    if (A->source_count >= (1u << HANDLE_INDEX_BITS) - 2) return (ty_source){0};
    TY_GROW(A->sources, A->source_cap, A->source_count + 1);
    i = A->source_count++;
    A->sources[i] = (source){0};
  }
  source *s = &A->sources[i];
  uint32_t gen = s->gen % GEN_MAX + 1;
  *s = (source){.gen = gen, .used = true, .object = object, .p = *p, .voice = -1};
  clip *c = get_clip(A, clip_h.id);
  if (c) {
    c->refs++;
    s->clip = HANDLE_INDEX(clip_h.id) + 1;
  }
  return (ty_source){HANDLE_MAKE(i, gen)};
}

bool ty_audio_source_alive(const ty_audio *A, ty_source h) { return get_source(A, h.id) != NULL; }

static void source_free(ty_audio *A, source *s) {
  source_end(A, s);
  if (s->oneshot) A->oneshots--;
  uint32_t ci = s->clip;
  uint32_t gen = s->gen;
  *s = (source){.gen = gen, .voice = -1};
  if (ci) {
    A->clips[ci - 1].refs--;
    clip_release(A, ci - 1);
  }
  uint32_t i = (uint32_t)(s - A->sources);
  TY_GROW(A->free_sources, A->free_cap, A->free_count + 1);
  A->free_sources[A->free_count++] = i;
}

void ty_audio_source_destroy(ty_audio *A, ty_source h) {
  source *s = get_source(A, h.id);
  if (s) source_free(A, s);
}

void ty_audio_source_set_params(ty_audio *A, ty_source h, const ty_source_params *p) {
  source *s = get_source(A, h.id);
  if (!s) return;
  s->p = *p;
  if (s->voice >= 0 && use(A)) apply_params(A, s, A->voices[s->voice].al);
}

void ty_audio_source_set_clip(ty_audio *A, ty_source h, ty_clip clip_h) {
  source *s = get_source(A, h.id);
  if (!s) return;
  source_end(A, s);
  uint32_t old = s->clip;
  clip *c = get_clip(A, clip_h.id);
  s->clip = 0;
  if (c) {
    c->refs++;
    s->clip = HANDLE_INDEX(clip_h.id) + 1;
  }
  if (old) {
    A->clips[old - 1].refs--;
    clip_release(A, old - 1);
  }
}

void ty_audio_source_attach(ty_audio *A, ty_source h, ty_id object) {
  source *s = get_source(A, h.id);
  if (!s) return;
  source_end(A, s);
  s->object = object;
  s->placed = false;
  memset(s->vel, 0, sizeof s->vel);
}

void ty_audio_source_set_position(ty_audio *A, ty_source h, const float pos[3]) {
  source *s = get_source(A, h.id);
  if (!s) return;
  memcpy(s->pos, pos, sizeof s->pos);
  if (s->voice >= 0 && s->p.spatial && use(A)) alSource3f(A->voices[s->voice].al, AL_POSITION, pos[0], pos[1], pos[2]);
}

/* Frees the quietest one-shot other than keep, preferring one without a voice. */
static void drop_oneshot(ty_audio *A, const source *keep) {
  source *best = NULL;
  float lo = INFINITY;
  bool best_virtual = false;
  for (uint32_t i = 0; i < A->source_count; i++) {
    source *s = &A->sources[i];
    if (!s->used || !s->oneshot || s == keep) continue;
    bool virt = s->voice < 0;
    float a = source_audibility(A, s);
    if ((virt && !best_virtual) || (virt == best_virtual && a < lo)) best = s, lo = a, best_virtual = virt;
  }
  if (best) source_free(A, best);
}

void ty_audio_source_set_oneshot(ty_audio *A, ty_source h) {
  source *s = get_source(A, h.id);
  if (!s || s->oneshot) return;
  if (A->oneshots >= MAX_ONESHOTS) drop_oneshot(A, s);
  s->oneshot = true;
  A->oneshots++;
}

void ty_audio_source_play(ty_audio *A, ty_source h) {
  source *s = get_source(A, h.id);
  if (!s) return;
  source_end(A, s);
  if (!s->clip) return;
  s->state = ST_PLAYING;
  if (!find_voice(A, s, 1.0f) && A->voice_count) A->waits++;
}

void ty_audio_source_stop(ty_audio *A, ty_source h) {
  source *s = get_source(A, h.id);
  if (s) source_end(A, s);
}

void ty_audio_source_pause(ty_audio *A, ty_source h) {
  source *s = get_source(A, h.id);
  if (!s || s->state != ST_PLAYING) return;
  s->state = ST_PAUSED;
  if (s->voice >= 0 && use(A)) alSourcePause(A->voices[s->voice].al);
}

void ty_audio_source_resume(ty_audio *A, ty_source h) {
  source *s = get_source(A, h.id);
  if (!s || s->state != ST_PAUSED) return;
  s->state = ST_PLAYING;
  if (s->voice >= 0 && use(A)) alSourcePlay(A->voices[s->voice].al);
  else find_voice(A, s, 1.0f);
}

bool ty_audio_source_playing(ty_audio *A, ty_source h) {
  source *s = get_source(A, h.id);
  return s && s->state == ST_PLAYING;
}

bool ty_audio_source_paused(const ty_audio *A, ty_source h) {
  source *s = get_source(A, h.id);
  return s && s->state == ST_PAUSED;
}

double ty_audio_source_time(ty_audio *A, ty_source h) {
  source *s = get_source(A, h.id);
  if (!s || s->state == ST_STOPPED) return 0;
  return source_time(A, s);
}

void ty_audio_set_listener(ty_audio *A, ty_id object) {
  if (A->listener != object) A->lplaced = false;
  A->listener = object;
}

/* ---- the frame ---- */

/* Voiced sources: streams refilled, ended ones stopped. */
static void service_voices(ty_audio *A) {
  if (!use(A)) return;
  for (uint32_t i = 0; i < A->voice_count; i++) {
    int32_t si = A->voices[i].source;
    if (si < 0) continue;
    source *s = &A->sources[si];
    if (s->st) {
      if (!stream_service(A, s, A->voices[i].al) && s->state == ST_PLAYING) source_end(A, s);
      continue;
    }
    if (s->state != ST_PLAYING) continue;
    ALint state;
    alGetSourcei(A->voices[i].al, AL_SOURCE_STATE, &state);
    if (state == AL_STOPPED) source_end(A, s);
  }
}

/* Virtual sources advance by the audio time passed; non-looping ones end with their clip;
 * one-shots that ended are freed. */
static void advance_virtual(ty_audio *A) {
  double dt = A->clock;
  A->clock = 0;
  for (uint32_t i = 0; i < A->source_count; i++) {
    source *s = &A->sources[i];
    if (!s->used) continue;
    if (s->state == ST_PLAYING && s->voice < 0) {
      const clip *c = source_clip(A, s);
      double dur = c ? c->info.duration : 0;
      s->time += dt * s->p.pitch;
      /* Within half a frame of the end is the end (sums of render chunks are not exact). */
      if (dur <= 0) source_end(A, s);
      else if (s->time >= dur - 0.5 / c->info.sample_rate) {
        if (s->p.loop) s->time = fmod(s->time, dur);
        else source_end(A, s);
      }
    }
    if (s->oneshot && s->state == ST_STOPPED) source_free(A, s);
  }
}

/* Voices go to the loudest sources: free ones to waiting sources, and a waiting source
 * clearly louder than a voiced one takes its voice. */
static void rebalance(ty_audio *A) {
  if (!A->voice_count || !use(A)) return;
  for (uint32_t round = 0; round < A->voice_count; round++) {
    int32_t best = -1;
    float hi = -1;
    for (uint32_t i = 0; i < A->source_count; i++) {
      source *s = &A->sources[i];
      if (!s->used || s->state != ST_PLAYING || s->voice >= 0 || !s->clip) continue;
      float a = source_audibility(A, s);
      if (a > hi) hi = a, best = (int32_t)i;
    }
    if (best < 0) return;
    if (!find_voice(A, &A->sources[best], STEAL_HYSTERESIS)) return;
  }
}

static void quat_rotate(const float q[4], const float v[3], float out[3]) {
  float tx = 2 * (q[1] * v[2] - q[2] * v[1]), ty = 2 * (q[2] * v[0] - q[0] * v[2]), tz = 2 * (q[0] * v[1] - q[1] * v[0]);
  out[0] = v[0] + q[3] * tx + (q[1] * tz - q[2] * ty);
  out[1] = v[1] + q[3] * ty + (q[2] * tx - q[0] * tz);
  out[2] = v[2] + q[3] * tz + (q[0] * ty - q[1] * tx);
}

static void place_listener(ty_audio *A, ty_world *W, double dt) {
  ty_transforms *T = ty_world_transforms(W);
  float pos[3] = {0, 0, 0}, rot[4] = {0, 0, 0, 1};
  if (A->listener && ty_object_alive(W, A->listener) && !ty_object_destroyed(W, A->listener)) {
    uint32_t xf = ty_object_transform(W, A->listener);
    ty_transform_world_position(T, xf, pos);
    ty_transform_world_rotation(T, xf, rot);
  } else if (A->listener) {
    A->listener = 0;
    A->lplaced = false;
  }
  if (A->lplaced && dt > 0)
    for (int k = 0; k < 3; k++) A->lvel[k] = (float)((pos[k] - A->lpos[k]) / dt);
  else if (!A->lplaced) memset(A->lvel, 0, sizeof A->lvel);
  memcpy(A->lpos, pos, sizeof pos);
  A->lplaced = true;
  if (!use(A)) return;
  float fwd[3], up[3];
  quat_rotate(rot, (const float[3]){0, 0, -1}, fwd);
  quat_rotate(rot, (const float[3]){0, 1, 0}, up);
  float ori[6] = {fwd[0], fwd[1], fwd[2], up[0], up[1], up[2]};
  alListener3f(AL_POSITION, pos[0], pos[1], pos[2]);
  alListener3f(AL_VELOCITY, A->lvel[0], A->lvel[1], A->lvel[2]);
  alListenerfv(AL_ORIENTATION, ori);
}

static void check_device(ty_audio *A) {
  if (A->kind != TY_AUDIO_DEVICE || !A->dev || A->lost) return;
  ALCint connected = 1;
  alcGetIntegerv(A->dev, ALC_CONNECTED, 1, &connected);
  if (connected) return;
  ty_log("audio_device_lost", "the audio device went away; sound is off, the game runs on");
  A->lost = true;
  for (uint32_t i = 0; i < A->voice_count; i++) {
    int32_t si = A->voices[i].source;
    if (si < 0) continue;
    source *s = &A->sources[si];
    stream_close(s);
    s->voice = -1;
    A->voices[i].source = -1;
  }
  A->voice_count = 0; /* the sources keep playing on the clock */
}

void ty_audio_update(ty_audio *A, ty_world *W, double dt) {
  check_device(A);
  if (A->kind != TY_AUDIO_LOOPBACK || !A->ctx || A->lost) A->clock += dt > 0 ? dt : 0;
  place_listener(A, W, dt);
  bool al = use(A);
  if (al) alDeferUpdatesSOFT();
  ty_transforms *T = ty_world_transforms(W);
  for (uint32_t i = 0; i < A->source_count; i++) {
    source *s = &A->sources[i];
    if (!s->used || !s->object) continue;
    if (!ty_object_alive(W, s->object) || ty_object_destroyed(W, s->object)) {
      /* Its object is gone: silent at once, and its voice back in the pool. */
      source_end(A, s);
      s->object = 0;
      continue;
    }
    float pos[3];
    ty_transform_world_position(T, ty_object_transform(W, s->object), pos);
    if (s->placed && dt > 0)
      for (int k = 0; k < 3; k++) s->vel[k] = (float)((pos[k] - s->pos[k]) / dt);
    memcpy(s->pos, pos, sizeof pos);
    s->placed = true;
    if (s->voice >= 0 && s->p.spatial && al) {
      ALuint v = A->voices[s->voice].al;
      alSource3f(v, AL_POSITION, pos[0], pos[1], pos[2]);
      alSource3f(v, AL_VELOCITY, s->vel[0], s->vel[1], s->vel[2]);
    }
  }
  service_voices(A);
  advance_virtual(A);
  rebalance(A);
  if (al) alProcessUpdatesSOFT();
}

bool ty_audio_render(ty_audio *A, float *out, uint32_t frames) {
  if (A->kind != TY_AUDIO_LOOPBACK || !use(A)) {
    memset(out, 0, (size_t)frames * 2 * sizeof *out);
    return false;
  }
  for (uint32_t done = 0; done < frames;) {
    uint32_t n = frames - done < RENDER_CHUNK ? frames - done : RENDER_CHUNK;
    service_voices(A);
    alcRenderSamplesSOFT(A->dev, out + (size_t)done * 2, (ALCsizei)n);
    A->clock += (double)n / A->rate;
    done += n;
  }
  service_voices(A);
  advance_virtual(A);
  rebalance(A);
  return true;
}

/* ---- reload ---- */

static bool same_file(const char *a, const char *b) {
  if (strcmp(a, b) == 0) return true;
  char ra[4096], rb[4096];
  return realpath(a, ra) && realpath(b, rb) && strcmp(ra, rb) == 0;
}

int ty_audio_reload_file(ty_audio *A, const char *path, char *err, size_t errsz) {
  int count = 0;
  for (uint32_t i = 0; i < A->clip_count; i++) {
    clip *c = &A->clips[i];
    if (!c->used || c->unloaded || !same_file(c->path, path)) continue;
    /* Decode first: a file that no longer decodes leaves the old sound playing. */
    ty_clip_info info;
    if (c->info.stream) {
      if (!probe_stream(c->path, &info, err, errsz)) return -1;
    } else {
      unsigned char *data;
      size_t size;
      if (!read_file(c->path, &data, &size, err, errsz)) return -1;
      ty_pcm pcm;
      char why[256];
      bool ok = ty_audio_decode(data, size, &pcm, why, sizeof why);
      TY_FREE(data);
      if (!ok) {
        snprintf(err, errsz, "%s: %s", c->path, why);
        return -1;
      }
      ty_pcm_free(&pcm);
    }
    /* Sources on it let go of their voices, the clip is replaced, they start again. */
    uint32_t *idx = TY_MALLOC(sizeof *idx * (A->voice_count + 1)), nr = 0;
    TY_ASSERT(idx);
    for (uint32_t k = 0; k < A->source_count; k++) {
      source *s = &A->sources[k];
      if (!s->used || s->clip != i + 1 || s->state == ST_STOPPED) continue;
      if (s->voice >= 0 && nr < A->voice_count) idx[nr++] = k;
      unvoice(A, s);
      s->time = 0;
    }
    bool ok = true;
    if (c->info.stream) c->info = info;
    else ok = load_whole(A, c->path, &c->buffer, &c->info, err, errsz);
    /* The sources that had voices start again from the top (paused ones stay paused). */
    for (uint32_t k = 0; k < nr; k++) find_voice(A, &A->sources[idx[k]], 1.0f);
    TY_FREE(idx);
    if (!ok) return -1;
    count++;
  }
  return count;
}

ty_audio_stats ty_audio_get_stats(const ty_audio *A) {
  ty_audio_stats st = {.max_voices = A->voice_count, .steals = A->steals, .waits = A->waits};
  for (uint32_t i = 0; i < A->source_count; i++) {
    const source *s = &A->sources[i];
    if (!s->used) continue;
    st.sources++;
    if (s->state == ST_PLAYING) st.playing++;
  }
  for (uint32_t i = 0; i < A->voice_count; i++) st.voices_busy += A->voices[i].source >= 0;
  for (uint32_t i = 0; i < A->clip_count; i++) st.clips += A->clips[i].used && !A->clips[i].unloaded;
  return st;
}
