/* tests/bench/transform_bench.c: how much the compare-on-read transform hierarchy costs per
 * frame against recomputing everything, on 100k transforms in three tree shapes modelled
 * on Bevy's transform benchmarks, with 0%, 1% and 100% of the transforms moving.
 *
 * A frame writes the moving transforms' local TRS, then times (a) ty_transforms_sync and
 * (b) sync plus reading every world matrix. The baseline holds the same data in plain
 * arrays and each frame rebuilds every local matrix and every world matrix top-down, with
 * the same arithmetic and no comparisons or dirty tracking. Medians over --frames frames
 * (default 50) after a short warm-up.
 *
 * usage: transform_bench [--frames N]
 */
#include "bench.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cglm/cglm.h>

#include "core/transform.h"

enum { N = 100000, WARMUP = 5 };

static volatile float sink; /* keeps the world reads from being optimised away */

/* ---- shapes: parent indices in creation order, every parent before its children ----- */

/* Breadth-first from `roots` roots with a fixed fan-out, stopping at N nodes. */
static void shape_fanout(uint32_t *parent, uint32_t roots, uint32_t fanout) {
  uint32_t made = 0, next_parent = 0;
  for (; made < roots && made < N; made++) parent[made] = TY_TRANSFORM_NONE;
  while (made < N) {
    for (uint32_t k = 0; k < fanout && made < N; k++) parent[made++] = next_parent;
    next_parent++;
  }
}

/* Wide: few levels, high fan-out (1 root, fan-out 10: depth 6). */
static void shape_wide(uint32_t *parent) { shape_fanout(parent, 1, 10); }

/* Deep: a binary tree (1 root, fan-out 2: depth 17). */
static void shape_deep(uint32_t *parent) { shape_fanout(parent, 1, 2); }

/* Chains: roots that each carry 8 chains of 17 links (depth 18). */
static void shape_chains(uint32_t *parent) {
  uint32_t made = 0;
  while (made < N) {
    uint32_t root = made;
    parent[made++] = TY_TRANSFORM_NONE;
    for (int c = 0; c < 8 && made < N; c++) {
      uint32_t up = root;
      for (int k = 0; k < 17 && made < N; k++, made++) {
        parent[made] = up;
        up = made;
      }
    }
  }
}

static uint32_t shape_depth(const uint32_t *parent) {
  static uint32_t depth[N];
  uint32_t deepest = 0;
  for (uint32_t i = 0; i < N; i++) {
    depth[i] = parent[i] == TY_TRANSFORM_NONE ? 1 : depth[parent[i]] + 1;
    if (depth[i] > deepest) deepest = depth[i];
  }
  return deepest;
}

/* ---- frame inputs shared by both sides ---------------------------------------------- */

static void initial_trs(uint32_t i, ty_trs *l) {
  float a = 0.001f * (float)(i % 97);
  l->pos[0] = 0.5f + 0.01f * (float)(i % 13);
  l->pos[1] = 0.1f;
  l->pos[2] = -0.2f;
  l->rot[0] = 0, l->rot[1] = sinf(a), l->rot[2] = 0, l->rot[3] = cosf(a);
  l->scale[0] = l->scale[1] = l->scale[2] = 1.0f;
}

/* What a moving transform gets written on frame f: a new position and spin. */
static void moved_trs(int f, const float spin[4], ty_trs *l) {
  l->pos[0] = 0.5f + 0.001f * (float)f;
  memcpy(l->rot, spin, sizeof l->rot);
}

/* A fixed pseudo-random subset, so that "1%" is 1% of every level (a stride would always
 * pick index 0, the root, and turn 1% into a full rebuild of single-root shapes). */
static bool is_moving(uint32_t i, int percent) {
  uint32_t h = i + 0x9E3779B9u;
  h ^= h >> 16, h *= 0x7FEB352Du, h ^= h >> 15, h *= 0x846CA68Bu, h ^= h >> 16;
  return h % 100 < (uint32_t)percent;
}

/* ---- timing ------------------------------------------------------------------------- */

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}


typedef struct result {
  double sync_ns, sync_read_ns; /* medians, whole frame */
  double worlds_per_frame;      /* world matrices ours rebuilt per measured frame */
  double checksum;              /* sum of the last frame's reads, to compare the two sides */
} result;

/* ---- ours --------------------------------------------------------------------------- */

static result run_ours(const uint32_t *parent, int percent, int frames, double *t_a, double *t_b) {
  ty_transforms *T = ty_transforms_create();
  for (uint32_t i = 0; i < N; i++) {
    uint32_t id = ty_transform_create(T);
    initial_trs(id, ty_transform_write(T, id));
    if (parent[i] != TY_TRANSFORM_NONE) ty_transform_set_parent(T, id, parent[i]);
  }
  ty_transforms_sync(T);
  result r = {0};
  for (int f = 0; f < WARMUP + frames; f++) {
    versor spin;
    glm_quatv(spin, 0.01f * (float)f, (vec3){0, 1, 0});
    for (uint32_t i = 0; i < N; i++)
      if (is_moving(i, percent)) moved_trs(f, spin, ty_transform_write(T, i));
    double t0 = now_ns();
    ty_transforms_sync(T);
    double t1 = now_ns();
    float sum = 0;
    for (uint32_t i = 0; i < N; i++) sum += ty_transform_world(T, i)[12];
    double t2 = now_ns();
    sink = sum;
    r.checksum = sum;
    if (f == WARMUP - 1) ty_transforms_reset_stats(T);
    if (f >= WARMUP) {
      t_a[f - WARMUP] = t1 - t0;
      t_b[f - WARMUP] = t2 - t0;
    }
  }
  r.worlds_per_frame = (double)ty_transforms_stats(T).world_rebuilds / frames;
  ty_transforms_destroy(T);
  r.sync_ns = bench_median(t_a, frames);
  r.sync_read_ns = bench_median(t_b, frames);
  return r;
}

/* ---- baseline: recompute everything ------------------------------------------------- */

/* The same folded T * R * S the engine uses, so the two sides do identical arithmetic. */
static void compose(const ty_trs *l, mat4 m) {
  float x = l->rot[0], y = l->rot[1], z = l->rot[2], w = l->rot[3];
  float n = x * x + y * y + z * z + w * w;
  float s = n > 0.0f ? 2.0f / n : 0.0f;
  float xx = s * x * x, yy = s * y * y, zz = s * z * z;
  float xy = s * x * y, xz = s * x * z, yz = s * y * z;
  float wx = s * w * x, wy = s * w * y, wz = s * w * z;
  float sx = l->scale[0], sy = l->scale[1], sz = l->scale[2];
  m[0][0] = (1.0f - yy - zz) * sx, m[0][1] = (xy + wz) * sx, m[0][2] = (xz - wy) * sx, m[0][3] = 0;
  m[1][0] = (xy - wz) * sy, m[1][1] = (1.0f - xx - zz) * sy, m[1][2] = (yz + wx) * sy, m[1][3] = 0;
  m[2][0] = (xz + wy) * sz, m[2][1] = (yz - wx) * sz, m[2][2] = (1.0f - xx - yy) * sz, m[2][3] = 0;
  m[3][0] = l->pos[0], m[3][1] = l->pos[1], m[3][2] = l->pos[2], m[3][3] = 1;
}

static result run_baseline(const uint32_t *parent, int percent, int frames, double *t_a, double *t_b) {
  ty_trs *trs = malloc(N * sizeof *trs);
  mat4 *local = aligned_alloc(64, N * sizeof *local);
  mat4 *world = aligned_alloc(64, N * sizeof *world);
  if (!trs || !local || !world) abort();
  for (uint32_t i = 0; i < N; i++) initial_trs(i, &trs[i]);
  result r = {.worlds_per_frame = N};
  for (int f = 0; f < WARMUP + frames; f++) {
    versor spin;
    glm_quatv(spin, 0.01f * (float)f, (vec3){0, 1, 0});
    for (uint32_t i = 0; i < N; i++)
      if (is_moving(i, percent)) moved_trs(f, spin, &trs[i]);
    double t0 = now_ns();
    for (uint32_t i = 0; i < N; i++) compose(&trs[i], local[i]);
    for (uint32_t i = 0; i < N; i++) { /* creation order is top-down */
      if (parent[i] == TY_TRANSFORM_NONE) glm_mat4_copy(local[i], world[i]);
      else glm_mul(world[parent[i]], local[i], world[i]);
    }
    double t1 = now_ns();
    float sum = 0;
    for (uint32_t i = 0; i < N; i++) sum += world[i][3][0];
    double t2 = now_ns();
    sink = sum;
    r.checksum = sum;
    if (f >= WARMUP) {
      t_a[f - WARMUP] = t1 - t0;
      t_b[f - WARMUP] = t2 - t0;
    }
  }
  free(trs);
  free(local);
  free(world);
  r.sync_ns = bench_median(t_a, frames);
  r.sync_read_ns = bench_median(t_b, frames);
  return r;
}

/* ---- report ------------------------------------------------------------------------- */

int main(int argc, char **argv) {
  int frames = bench_frames(argc, argv, 50);

  static const struct {
    const char *name;
    void (*build)(uint32_t *parent);
  } shapes[] = {{"wide", shape_wide}, {"deep", shape_deep}, {"chains", shape_chains}};
  static const int percents[] = {0, 1, 100};
  static uint32_t parent[N];
  double *t_a = malloc((size_t)frames * sizeof *t_a), *t_b = malloc((size_t)frames * sizeof *t_b);
  if (!t_a || !t_b) abort();

  printf("transform_bench: %d transforms, median of %d frames after %d warm-up\n", N, frames, WARMUP);
  printf("ours = ty_transforms_sync (a), then + reading every world matrix (b); "
         "base = recompute every local and world matrix (a), then + reading (b)\n\n");
  printf("%-12s %6s %8s | %10s %8s | %10s %8s | %10s %8s | %10s %8s | %6s %6s\n", "shape", "moving",
         "rebuilt", "sync ms", "ns/obj", "+read ms", "ns/obj", "base ms", "ns/obj", "+read ms", "ns/obj",
         "(a)", "(b)");
  double worst_static_ms = 0, worst_static_read_ms = 0, worst_full_ns = 0, worst_full_read_ns = 0;
  bool mismatch = false;
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
    shapes[s].build(parent);
    char label[32];
    snprintf(label, sizeof label, "%s(d%u)", shapes[s].name, shape_depth(parent));
    for (size_t p = 0; p < sizeof percents / sizeof percents[0]; p++) {
      int pct = percents[p];
      result ours = run_ours(parent, pct, frames, t_a, t_b);
      result base = run_baseline(parent, pct, frames, t_a, t_b);
      mismatch |= ours.checksum != base.checksum;
      printf("%-12s %5d%% %8.0f | %10.4f %8.2f | %10.4f %8.2f | %10.4f %8.2f | %10.4f %8.2f | %6.3f %6.3f\n",
             label, pct, ours.worlds_per_frame, ours.sync_ns * 1e-6, ours.sync_ns / N, ours.sync_read_ns * 1e-6,
             ours.sync_read_ns / N, base.sync_ns * 1e-6, base.sync_ns / N, base.sync_read_ns * 1e-6,
             base.sync_read_ns / N, ours.sync_ns / base.sync_ns, ours.sync_read_ns / base.sync_read_ns);
      if (pct == 0) {
        worst_static_ms = fmax(worst_static_ms, ours.sync_ns * 1e-6);
        worst_static_read_ms = fmax(worst_static_read_ms, ours.sync_read_ns * 1e-6);
      } else if (pct == 100) {
        worst_full_ns = fmax(worst_full_ns, ours.sync_ns / N);
        worst_full_read_ns = fmax(worst_full_read_ns, ours.sync_read_ns / N);
      }
    }
  }
  printf("\nrebuilt: world matrices ours rebuilt per frame (the baseline rebuilds all %d); "
         "ratio columns: ours / baseline, (a) sync vs recompute, (b) with the reads; "
         "world checksums %s the baseline\n", N, mismatch ? "DIFFER from" : "match");
  printf("targets: static 100k sync %.4f ms (+read %.4f ms) vs <= 0.1 ms: %s; "
         "100%% moving sync %.2f ns/obj (+read %.2f) vs <= 15 ns/obj: %s\n",
         worst_static_ms, worst_static_read_ms, worst_static_ms <= 0.1 ? "PASS" : "FAIL",
         worst_full_ns, worst_full_read_ns, worst_full_ns <= 15.0 ? "PASS" : "FAIL");
  free(t_a);
  free(t_b);
  return mismatch ? 1 : 0;
}
