/* tests/bench/crdt_bench.c: what applying inbound Transform puts costs a ty_crdt_state, and
 * the same workload in @dcl/ecs under node (tests/compat/crdt_bench.js) in the same run.
 *
 * 1,000 synced entities (numbers 512..1511), each with a Transform. A frame is one buffer
 * of inbound PUT_COMPONENT messages applied in one call:
 *   moving: 100 puts per frame, each a newer timestamp and a new position (accepted);
 *   all:    1,000 puts per frame, one per entity (accepted);
 *   echo:   the last frame again, so nothing changes (every put refused as identical).
 * Medians over the frames after a warm-up; allocations are counted per frame by wrapping
 * malloc (not under ASan, which owns malloc).
 *
 * usage: crdt_bench [--frames N] [--no-node]
 */
#include "bench.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sync/crdt.h"

enum { ENTITIES = 1000, FIRST = 512, WARMUP = 50 };

/* ---- allocation counter ---- */

#if defined(__SANITIZE_ADDRESS__)
#define BENCH_COUNTS_ALLOCS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BENCH_COUNTS_ALLOCS 0
#endif
#endif
#ifndef BENCH_COUNTS_ALLOCS
#define BENCH_COUNTS_ALLOCS 1
#endif

static unsigned long allocs;

#if BENCH_COUNTS_ALLOCS
/* glibc's own entry points: this executable's malloc wraps them to count calls. */
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
void *malloc(size_t n) {
  allocs++;
  return __libc_malloc(n);
}
void *calloc(size_t n, size_t size) {
  allocs++;
  return __libc_calloc(n, size);
}
void *realloc(void *p, size_t n) {
  allocs++;
  return __libc_realloc(p, n);
}
void free(void *p) { __libc_free(p); }
#endif

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}


/* Frame f of a workload: `puts` Transform puts, entity k of the frame being
 * FIRST + (f * puts + k) % ENTITIES, each with the entity's next timestamp. */
static void make_frame(ty_crdt_buf *b, uint32_t *stamps, int f, int puts) {
  b->len = 0;
  for (int k = 0; k < puts; k++) {
    uint32_t i = (uint32_t)((f * puts + k) % ENTITIES);
    ty_crdt_transform t;
    ty_crdt_transform_default(&t);
    t.position[0] = (float)f;
    t.position[1] = (float)k * 0.5f;
    t.position[2] = (float)i;
    uint8_t data[TY_CRDT_TRANSFORM_SIZE];
    ty_crdt_transform_encode(&t, data);
    ty_crdt_write_put(b, FIRST + i, TY_CRDT_TRANSFORM_ID, ++stamps[i], data, sizeof data);
  }
}

typedef struct result {
  double median_us;
  double puts_per_s;
  double allocs_per_frame;
  unsigned long applied;
} result;

/* Times `frames` frames of `puts` puts on a state already holding the entities. */
static result run(int frames, int puts, bool echo) {
  ty_crdt_state *s = ty_crdt_create(NULL);
  static uint32_t stamps[ENTITIES];
  memset(stamps, 0, sizeof stamps);
  ty_crdt_buf frame = {0}, corrections = {0};
  make_frame(&frame, stamps, 0, ENTITIES); /* everyone's first Transform */
  ty_crdt_apply(s, frame.data, frame.len, &corrections);
  /* Build every frame up front so the timed loop only applies. */
  int total = WARMUP + frames;
  ty_crdt_buf *all = calloc((size_t)total, sizeof *all);
  for (int f = 0; f < total; f++) make_frame(&all[f], stamps, f + 1, puts);
  double *times = malloc(sizeof(double) * (size_t)frames);
  unsigned long applied = 0, alloc_total = 0;
  for (int f = 0; f < total; f++) {
    const ty_crdt_buf *b = echo ? &all[0] : &all[f];
    corrections.len = 0;
    unsigned long before = allocs;
    double t0 = now();
    uint32_t n = ty_crdt_apply(s, b->data, b->len, &corrections);
    double t1 = now();
    if (f >= WARMUP) {
      times[f - WARMUP] = t1 - t0;
      applied += n;
      alloc_total += allocs - before;
    }
  }
  result r;
  double med = bench_median(times, frames);
  r.median_us = med * 1e6;
  r.puts_per_s = puts / med;
  r.allocs_per_frame = (double)alloc_total / frames;
  r.applied = applied;
  for (int f = 0; f < total; f++) ty_crdt_buf_free(&all[f]);
  free(all);
  free(times);
  ty_crdt_buf_free(&frame);
  ty_crdt_buf_free(&corrections);
  ty_crdt_destroy(s);
  return r;
}

static void print(const char *name, int puts, int frames, result r) {
  printf("tycho  %-7s %5d puts/frame: median %9.2f us/frame  %12.0f puts/s  applied %lu/%d  ", name, puts,
         r.median_us, r.puts_per_s, r.applied, puts * frames);
  if (BENCH_COUNTS_ALLOCS) printf("allocs/frame %.2f\n", r.allocs_per_frame);
  else printf("allocs/frame n/a (ASan)\n");
}

/* Runs tests/compat/crdt_bench.js (found from this file's path) and reads its median for
 * `puts` puts per frame; returns a negative number when node or @dcl/ecs is missing. */
static double node_median_us(const char *workload, int frames) {
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", __FILE__);
  char *slash = strrchr(dir, '/');
  if (!slash) return -1;
  *slash = 0;
  char cmd[8192];
  snprintf(cmd, sizeof cmd, "cd '%s/../compat' && node crdt_bench.js %s %d 2>&1", dir, workload, frames);
  FILE *p = popen(cmd, "r");
  if (!p) return -1;
  char line[1024];
  double med = -1;
  while (fgets(line, sizeof line, p)) {
    fputs(line, stdout);
    const char *m = strstr(line, "median ");
    if (m && strncmp(line, "dcl/ecs", 7) == 0) med = atof(m + 7);
  }
  if (pclose(p) != 0) return -1;
  return med;
}

int main(int argc, char **argv) {
  int frames = 2000;
  bool node = true;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--frames") == 0 && i + 1 < argc) frames = atoi(argv[++i]);
    else if (strcmp(argv[i], "--no-node") == 0) node = false;
    else {
      fprintf(stderr, "usage: crdt_bench [--frames N] [--no-node]\n");
      return 2;
    }
  }
  if (frames < 1) frames = 1;
  printf("crdt_bench: %d synced entities, Transform puts, median of %d frames after %d warm-up\n", ENTITIES, frames,
         WARMUP);
  result moving = run(frames, 100, false);
  print("moving", 100, frames, moving);
  result all = run(frames / 4 > 0 ? frames / 4 : 1, ENTITIES, false);
  print("all", ENTITIES, frames / 4 > 0 ? frames / 4 : 1, all);
  result echo = run(frames, 100, true);
  print("echo", 100, frames, echo);
  if (!node) return 0;
  double dcl_moving = node_median_us("moving", frames);
  double dcl_all = node_median_us("all", frames / 4 > 0 ? frames / 4 : 1);
  if (dcl_moving < 0 || dcl_all < 0) {
    printf("dcl/ecs: node or tests/compat/node_modules missing (npm ci --prefix tests/compat): no ratio\n");
    return 0;
  }
  printf("ratio  moving: tycho is %.1fx faster than @dcl/ecs per frame\n", dcl_moving / moving.median_us);
  printf("ratio  all:    tycho is %.1fx faster than @dcl/ecs per frame\n", dcl_all / all.median_us);
  return 0;
}
