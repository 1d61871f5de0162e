/* tests/fuzz/make_audio_corpus.c: writes the seed corpus of audio_fuzz, one short file per
 * container and encoding libsndfile reads (WAV 8/16/24-bit and float, mono and stereo,
 * FLAC, OGG Vorbis, MP3), each a few hundred frames of a tone. Run it again when a format
 * is added; the files are committed:
 *   cc tests/fuzz/make_audio_corpus.c -lsndfile -lm -o /tmp/make_audio_corpus &&
 *   /tmp/make_audio_corpus tests/fuzz/corpus/audio */
#include <math.h>
#include <sndfile.h>
#include <stdio.h>

static int write_one(const char *dir, const char *name, int format, int channels, int rate, int frames) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  SF_INFO info = {.samplerate = rate, .channels = channels, .format = format};
  SNDFILE *sf = sf_open(path, SFM_WRITE, &info);
  if (!sf) {
    fprintf(stderr, "%s: %s\n", path, sf_strerror(NULL));
    return 1;
  }
  float buf[2];
  for (int i = 0; i < frames; i++) {
    for (int c = 0; c < channels; c++) buf[c] = 0.4f * sinf(6.2831853f * (440.0f + 110.0f * c) * (float)i / rate);
    sf_writef_float(sf, buf, 1);
  }
  sf_close(sf);
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: make_audio_corpus DIR\n");
    return 2;
  }
  const char *d = argv[1];
  int bad = 0;
  bad |= write_one(d, "mono16.wav", SF_FORMAT_WAV | SF_FORMAT_PCM_16, 1, 8000, 200);
  bad |= write_one(d, "stereo8.wav", SF_FORMAT_WAV | SF_FORMAT_PCM_U8, 2, 8000, 200);
  bad |= write_one(d, "mono24.wav", SF_FORMAT_WAV | SF_FORMAT_PCM_24, 1, 11025, 150);
  bad |= write_one(d, "float.wav", SF_FORMAT_WAV | SF_FORMAT_FLOAT, 2, 8000, 120);
  bad |= write_one(d, "adpcm.wav", SF_FORMAT_WAV | SF_FORMAT_IMA_ADPCM, 1, 8000, 300);
  bad |= write_one(d, "tone.flac", SF_FORMAT_FLAC | SF_FORMAT_PCM_16, 1, 8000, 300);
  bad |= write_one(d, "tone.ogg", SF_FORMAT_OGG | SF_FORMAT_VORBIS, 1, 8000, 800);
  bad |= write_one(d, "tone.mp3", SF_FORMAT_MPEG | SF_FORMAT_MPEG_LAYER_III, 1, 8000, 1200);
  bad |= write_one(d, "tone.aiff", SF_FORMAT_AIFF | SF_FORMAT_PCM_16, 1, 8000, 200);
  return bad;
}
