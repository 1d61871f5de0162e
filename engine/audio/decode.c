/* engine/audio/decode.c: sound files to 16-bit PCM through libsndfile, from memory (whole
 * clips, the fuzzer) or from a file a few thousand frames at a time (streams). */
#include "audio_internal.h"

#include <string.h>

/* ---- libsndfile's virtual IO over a byte range ---- */

typedef struct mem_file {
  const unsigned char *data;
  sf_count_t size, pos;
} mem_file;

static sf_count_t mem_length(void *user) { return ((mem_file *)user)->size; }

static sf_count_t mem_seek(sf_count_t offset, int whence, void *user) {
  mem_file *m = user;
  sf_count_t base = whence == SEEK_CUR ? m->pos : whence == SEEK_END ? m->size : 0;
  sf_count_t to = base + offset;
  if (to < 0 || to > m->size) return -1;
  m->pos = to;
  return to;
}

static sf_count_t mem_read(void *ptr, sf_count_t count, void *user) {
  mem_file *m = user;
  if (count < 0) return 0;
  sf_count_t left = m->size - m->pos;
  if (count > left) count = left;
  memcpy(ptr, m->data + m->pos, (size_t)count);
  m->pos += count;
  return count;
}

static sf_count_t mem_write(const void *ptr, sf_count_t count, void *user) { return 0; }
static sf_count_t mem_tell(void *user) { return ((mem_file *)user)->pos; }

/* Refuses what the mixer cannot play: more than two channels, rates outside what any file
 * really has. */
bool ty_audio_check_format(const SF_INFO *info, char *err, size_t errsz) {
  if (info->channels < 1 || info->channels > 2) {
    snprintf(err, errsz, "%d channels (only mono and stereo play)", info->channels);
    return false;
  }
  if (info->samplerate < 1000 || info->samplerate > 384000) {
    snprintf(err, errsz, "a sample rate of %d Hz", info->samplerate);
    return false;
  }
  return true;
}

void ty_pcm_free(ty_pcm *pcm) {
  TY_FREE(pcm->samples);
  memset(pcm, 0, sizeof *pcm);
}

bool ty_audio_decode(const void *data, size_t size, ty_pcm *out, char *err, size_t errsz) {
  memset(out, 0, sizeof *out);
  if (errsz) err[0] = 0;
  if (!data || size == 0) {
    snprintf(err, errsz, "empty file");
    return false;
  }
  SF_VIRTUAL_IO io = {mem_length, mem_seek, mem_read, mem_write, mem_tell};
  mem_file m = {data, (sf_count_t)size, 0};
  SF_INFO info;
  memset(&info, 0, sizeof info);
  SNDFILE *sf = sf_open_virtual(&io, SFM_READ, &info, &m);
  if (!sf) {
    snprintf(err, errsz, "not a sound file this build decodes (%s)", sf_strerror(NULL));
    return false;
  }
  if (!ty_audio_check_format(&info, err, errsz)) {
    sf_close(sf);
    return false;
  }
  /* The header's frame count is a hint only (a hostile one lies): grow while reading. */
  uint32_t ch = (uint32_t)info.channels;
  uint64_t cap = 0, n = 0;
  int16_t *buf = NULL;
  for (;;) {
    if (n == cap) {
      uint64_t next = cap ? cap * 2 : 16384;
      if (next > TY_AUDIO_MAX_FRAMES) next = TY_AUDIO_MAX_FRAMES;
      if (next == cap) {
        snprintf(err, errsz, "longer than %llu frames", (unsigned long long)TY_AUDIO_MAX_FRAMES);
        TY_FREE(buf);
        sf_close(sf);
        return false;
      }
      int16_t *p = TY_REALLOC(buf, (size_t)(next * ch * sizeof *buf));
      if (!p) {
        snprintf(err, errsz, "out of memory");
        TY_FREE(buf);
        sf_close(sf);
        return false;
      }
      buf = p;
      cap = next;
    }
    sf_count_t got = sf_readf_short(sf, buf + n * ch, (sf_count_t)(cap - n));
    if (got <= 0) break;
    n += (uint64_t)got;
  }
  int e = sf_error(sf);
  sf_close(sf);
  if (e != SF_ERR_NO_ERROR && n == 0) {
    snprintf(err, errsz, "undecodable (%s)", sf_error_number(e));
    TY_FREE(buf);
    return false;
  }
  if (n == 0) {
    snprintf(err, errsz, "no sound in it (0 frames)");
    TY_FREE(buf);
    return false;
  }
  out->samples = buf;
  out->frames = n;
  out->channels = ch;
  out->sample_rate = (uint32_t)info.samplerate;
  return true;
}

/* ---- streams: one file handle per playing source ---- */

SNDFILE *ty_audio_stream_open(const char *path, SF_INFO *info, char *err, size_t errsz) {
  memset(info, 0, sizeof *info);
  SNDFILE *sf = sf_open(path, SFM_READ, info);
  if (!sf) {
    snprintf(err, errsz, "%s: %s", path, sf_strerror(NULL));
    return NULL;
  }
  if (!ty_audio_check_format(info, err, errsz)) {
    sf_close(sf);
    return NULL;
  }
  return sf;
}
