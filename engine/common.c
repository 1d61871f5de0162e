/* engine/common.c: allocation growth, logging and the clock every module shares. */
#include "common.h"

#include <stdarg.h>
#include <string.h>
#include <time.h>

void ty_grow(void **ptr, uint32_t *cap, uint32_t need, size_t elem) {
  if (need <= *cap) return;
  uint32_t next = *cap ? *cap : 8;
  while (next < need) next = next > UINT32_MAX / 2 ? need : next * 2;
  void *p = TY_REALLOC(*ptr, (size_t)next * elem);
  if (!p) {
    fprintf(stderr, "tycho: out of memory growing an array to %u elements\n", next);
    abort();
  }
  *ptr = p;
  *cap = next;
}

void ty_bytes_append(char **buf, size_t *len, size_t *cap, const void *data, size_t n, size_t max) {
  if (*len + n > *cap) {
    size_t c = *cap ? *cap : 1024;
    while (c < *len + n) c *= 2;
    if (c > max) c = max;
    TY_ASSERT(c >= *len + n);
    *buf = TY_REALLOC(*buf, c);
    TY_ASSERT(*buf);
    *cap = c;
  }
  if (n) memcpy(*buf + *len, data, n);
  *len += n;
}

void ty_log(const char *name, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "tycho: %s: ", name);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

double ty_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
