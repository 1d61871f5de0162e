/* tests/bench/bench.h: what the C benchmarks share: medians and the --frames argument. */
#ifndef TY_BENCH_H
#define TY_BENCH_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int bench_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Sorts v in place and returns its median. */
static inline double bench_median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Reads `--frames N` (the only option a benchmark takes); exits 2 on anything else. */
static inline int bench_frames(int argc, char **argv, int fallback) {
  int frames = fallback;
  for (int a = 1; a < argc; a++) {
    if (strcmp(argv[a], "--frames") == 0 && a + 1 < argc) {
      frames = atoi(argv[++a]);
    } else {
      fprintf(stderr, "usage: %s [--frames N]\n", argv[0]);
      exit(2);
    }
  }
  return frames < 1 ? 1 : frames;
}

#endif
