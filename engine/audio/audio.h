/* engine/audio/audio.h: sound over OpenAL Soft, files decoded by libsndfile (WAV, OGG
 * Vorbis, FLAC, MP3).
 *
 * A ty_audio owns one output: the system's default device (a game with a window), a
 * loopback device that mixes only when asked (headless runs and tests: ty_audio_render),
 * or nothing (no device could be opened: every call still works and is silent).
 *
 * Clips are decoded sound. A whole clip is decoded once into one AL buffer that every
 * source playing it shares; a streamed clip (music) keeps only its path, and each source
 * playing it decodes small buffers from its own file handle while it plays.
 *
 * Sources are what games hold: a clip, gain, pitch, loop, 3D placement. Voices are the AL
 * sources that make sound, a fixed pool of max_voices. A source that plays takes a free
 * voice; when none is free the quietest playing source (gain times distance attenuation
 * at the listener) loses its voice to a louder newcomer, or the newcomer is the quietest
 * and waits. A source without a voice still plays on the clock ("virtual"): it ends when
 * its clip would have, and takes a voice back, at the right offset, once one frees up or
 * it becomes louder than a voiced one. So any number of sources never exceed the pool.
 *
 * Handles are generation-checked: a stale clip or source handle is refused, never a crash.
 */
#ifndef TY_AUDIO_H
#define TY_AUDIO_H

#include "../common.h"
#include "../core/scene.h" /* Required for: ty_world, ty_id (sources follow GameObjects) */

typedef struct ty_audio ty_audio;
typedef struct ty_clip { uint32_t id; } ty_clip;     /* 0: none */
typedef struct ty_source { uint32_t id; } ty_source; /* 0: none */

typedef enum ty_audio_output {
  TY_AUDIO_LOOPBACK = 0, /* mixes only in ty_audio_render: headless and tests */
  TY_AUDIO_DEVICE,       /* the system's default device */
  TY_AUDIO_NONE,         /* no output at all: silence */
} ty_audio_output;

typedef struct ty_audio_desc {
  ty_audio_output output;
  uint32_t sample_rate; /* loopback mixing rate; 0: 48000 */
  uint32_t max_voices;  /* the voice pool; 0: 64 */
} ty_audio_desc;

/* Never NULL. When the output cannot be opened it logs one audio_unavailable line and
 * runs silent (ty_audio_has_output says false). */
ty_audio *ty_audio_create(const ty_audio_desc *desc);
void ty_audio_destroy(ty_audio *A);
bool ty_audio_has_output(const ty_audio *A);
ty_audio_output ty_audio_output_kind(const ty_audio *A);
uint32_t ty_audio_sample_rate(const ty_audio *A);
void ty_audio_set_master(ty_audio *A, float gain); /* 0..1 */
float ty_audio_master(const ty_audio *A);

/* ---- decoding (no device needed; what the fuzzer drives) ---- */
typedef struct ty_pcm {
  int16_t *samples;     /* interleaved; free with ty_pcm_free */
  uint64_t frames;
  uint32_t channels;    /* 1 or 2 */
  uint32_t sample_rate;
} ty_pcm;

/* Decodes a whole file held in memory. False with a message in err (the pcm left empty)
 * for anything that is not a sound file libsndfile reads, more than two channels, an
 * absurd rate, or more than TY_AUDIO_MAX_FRAMES frames. */
#define TY_AUDIO_MAX_FRAMES (48000ull * 60 * 20) /* 20 minutes at 48 kHz */
bool ty_audio_decode(const void *data, size_t size, ty_pcm *out, char *err, size_t errsz);
void ty_pcm_free(ty_pcm *pcm);

/* ---- clips ---- */
typedef struct ty_clip_info {
  double duration; /* seconds */
  uint32_t channels, sample_rate;
  uint64_t frames;
  bool stream;
} ty_clip_info;

/* Loads path (streamed: checked now, decoded while playing). A zero handle and a message
 * in err on failure. */
ty_clip ty_audio_clip_load(ty_audio *A, const char *path, bool streamed, char *err, size_t errsz);
/* Every clip loaded from path decoded again in place (sources playing it restart it).
 * Returns how many clips reloaded; -1 with a message when the file no longer decodes (the
 * old sound stays). */
int ty_audio_reload_file(ty_audio *A, const char *path, char *err, size_t errsz);
/* Frees the clip once no source uses it; sources keep it alive until they let go. */
void ty_audio_clip_unload(ty_audio *A, ty_clip c);
bool ty_audio_clip_info(const ty_audio *A, ty_clip c, ty_clip_info *out);

/* ---- sources ---- */
typedef struct ty_source_params {
  float volume;       /* gain, >= 0 */
  float pitch;        /* > 0 */
  bool loop;
  bool spatial;       /* false: plays as is, centred */
  float min_distance; /* full volume inside it */
  float max_distance; /* attenuation stops there */
  float rolloff;
} ty_source_params;

/* A source follows object's world transform (0: none; it sits at position, which
 * ty_audio_source_set_position moves). Clip may be 0 (silent until one is set). */
ty_source ty_audio_source_create(ty_audio *A, ty_clip clip, ty_id object, const ty_source_params *p);
void ty_audio_source_destroy(ty_audio *A, ty_source s); /* stops it, frees its voice */
bool ty_audio_source_alive(const ty_audio *A, ty_source s);
void ty_audio_source_set_params(ty_audio *A, ty_source s, const ty_source_params *p);
void ty_audio_source_set_clip(ty_audio *A, ty_source s, ty_clip clip); /* stops it */
/* Follows object from now on (0: stays where it is); stops it. */
void ty_audio_source_attach(ty_audio *A, ty_source s, ty_id object);
void ty_audio_source_set_position(ty_audio *A, ty_source s, const float pos[3]);
void ty_audio_source_play(ty_audio *A, ty_source s);   /* from the start */
void ty_audio_source_stop(ty_audio *A, ty_source s);
void ty_audio_source_pause(ty_audio *A, ty_source s);
void ty_audio_source_resume(ty_audio *A, ty_source s);
bool ty_audio_source_playing(ty_audio *A, ty_source s); /* playing or virtual; not paused */
bool ty_audio_source_paused(const ty_audio *A, ty_source s);
double ty_audio_source_time(ty_audio *A, ty_source s);  /* seconds into the clip */
/* One-shots: destroyed by ty_audio_update once they end. */
void ty_audio_source_set_oneshot(ty_audio *A, ty_source s);

/* The ears follow object (0: the origin with identity rotation). */
void ty_audio_set_listener(ty_audio *A, ty_id object);

/* The once-a-frame pass: every source following an object and the listener placed from
 * world transforms (brought up to date by the caller: ty_transforms_sync), velocities for
 * doppler from the move since the last update over dt (0: no velocity change), sources
 * whose object is gone stopped and detached, finished one-shots freed, streams refilled,
 * voices handed to the loudest sources. A lost device logs one audio_device_lost line
 * and the rest runs silent. */
void ty_audio_update(ty_audio *A, ty_world *W, double dt);
/* Loopback only: mixes frames frames of interleaved stereo float into out (streams are
 * refilled in between). False (out zeroed) when the output is not a loopback. */
bool ty_audio_render(ty_audio *A, float *out, uint32_t frames);

typedef struct ty_audio_stats {
  uint32_t sources, playing, voices_busy, max_voices, clips;
  uint64_t steals;  /* voices taken from a quieter source */
  uint64_t waits;   /* plays that found no voice they could take */
} ty_audio_stats;
ty_audio_stats ty_audio_get_stats(const ty_audio *A);

#endif
