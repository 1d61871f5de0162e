/* tests/fuzz/replay.h: the plain main() every fuzz target gets outside libFuzzer builds: it
 * replays the target's corpus (ctest fuzz.NAME), each file argument and each regular file
 * in each folder argument. Nothing replayed is a failure, so a missing corpus is an error,
 * not a pass. */
#ifndef TY_FUZZ_REPLAY_H
#define TY_FUZZ_REPLAY_H

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

/* A whole file, after `reserve` spare bytes at the front (a target that puts a selector
 * byte first writes it there); *len counts the reserve too. NULL, with a line on stderr,
 * when the file cannot be opened. The caller frees the buffer. */
static uint8_t *fuzz_read_file(const char *name, const char *path, size_t reserve, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "%s: cannot open %s\n", name, path);
    return NULL;
  }
  uint8_t *buf = NULL;
  size_t n = reserve, cap = 0;
  for (;;) {
    if (n == cap || !buf) {
      cap = cap ? cap * 2 : 4096;
      uint8_t *p = realloc(buf, cap);
      if (!p) abort();
      buf = p;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    if (!got) break;
    n += got;
  }
  fclose(f);
  *len = n;
  return buf;
}

/* For a target whose first byte picks the size of the pieces it cuts a stream into: runs the
 * file at path as libFuzzer wrote it, then with each of a few piece sizes put in its first byte
 * (when it has at least min_len bytes). 1, or -1 when the file cannot be read. */
static inline int fuzz_replay_cut(const char *name, const char *path, size_t min_len,
                                  int (*one)(const uint8_t *data, size_t size)) {
  size_t len = 0;
  uint8_t *buf = fuzz_read_file(name, path, 0, &len);
  if (!buf) return -1;
  one(buf, len);
  static const uint8_t pieces[] = {0, 1, 2, 3, 7, 64};
  for (size_t i = 0; len >= min_len && i < sizeof pieces; i++) {
    buf[0] = pieces[i];
    one(buf, len);
  }
  free(buf);
  return 1;
}

/* replay(path) runs one corpus file; a negative result stops the replay as a failure. */
static int fuzz_replay_main(const char *name, int argc, char **argv, int (*replay)(const char *path)) {
  int replayed = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      fprintf(stderr, "%s: %s does not exist\n", name, argv[i]);
      return 1;
    }
    if (!S_ISDIR(st.st_mode)) {
      if (replay(argv[i]) < 0) return 1;
      replayed++;
      continue;
    }
    DIR *d = opendir(argv[i]);
    if (!d) return 1;
    struct dirent *e;
    while ((e = readdir(d))) {
      char path[4096];
      snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
      if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) continue;
      if (replay(path) < 0) {
        closedir(d);
        return 1;
      }
      replayed++;
    }
    closedir(d);
  }
  printf("%s: replayed %d inputs\n", name, replayed);
  return replayed ? 0 : 1;
}

#endif
