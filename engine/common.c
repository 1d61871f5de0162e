/* engine/common.c: allocation growth, logging and the clock every module shares. */
#include "common.h"

#include <stdarg.h>
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
