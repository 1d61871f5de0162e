/* tests/bench/bucket_bench.c: what draw bucketing plus the instance upload costs per frame
 * for 10k and 100k items, against a naive baseline in the same binary.
 *
 * The scene: items scattered over a 200 x 200 field around a camera looking down -z (about
 * a third in view), 64 meshes, 32 materials in 4 state groups, 15% transparent, half of
 * them shadow casters. Every frame 10% of the items move (a new world matrix: translation
 * and spin); that update is the game's work and is not timed. Timed: ours =
 * ty_bucket_build + ty_bucket_write_instances into a CPU buffer standing in for the
 * persistently mapped GL buffer; baseline = the same culling arithmetic, then an array of
 * structs per list sorted by qsort with a comparator, the same batching, and a memcpy of
 * each item's matrix. Medians over --frames frames (default 100) after a short warm-up.
 *
 * usage: bucket_bench [--frames N]
 */
#include "bench.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cglm/cglm.h>

#include "common.h"
#include "render/bucket.h"

enum { WARMUP = 5, MESHES = 64, MATERIALS = 32 };

typedef struct scene {
  uint32_t n;
  mat4 *world;
  ty_bucket_item *items;
  ty_bucket_mesh meshes[MESHES];
  ty_bucket_frame frame;
  unsigned char *upload; /* stands in for the mapped GL buffer */
  size_t upload_cap;
} scene;

static uint32_t rng_state = 0x2545F491u;
static uint32_t rng(void) {
  rng_state ^= rng_state << 13, rng_state ^= rng_state >> 17, rng_state ^= rng_state << 5;
  return rng_state;
}
static float frand(float lo, float hi) {
  return lo + (hi - lo) * (float)(rng() & 0xFFFFFF) / 16777216.0f;
}

static void place(mat4 m, float x, float y, float z, float angle, float scale) {
  float c = cosf(angle) * scale, s = sinf(angle) * scale;
  glm_mat4_identity(m);
  m[0][0] = c, m[0][2] = -s;
  m[1][1] = scale;
  m[2][0] = s, m[2][2] = c;
  m[3][0] = x, m[3][1] = y, m[3][2] = z;
}

static void scene_init(scene *s, uint32_t n) {
  memset(s, 0, sizeof *s);
  s->n = n;
  s->world = aligned_alloc(64, n * sizeof *s->world);
  s->items = malloc(n * sizeof *s->items);
  if (!s->world || !s->items) abort();
  for (uint32_t i = 0; i < MESHES; i++)
    s->meshes[i] = (ty_bucket_mesh){
        .index_count = 36 + 6 * i, .first_index = 1000 * i, .base_vertex = (int32_t)(500 * i)};
  for (uint32_t i = 0; i < n; i++) {
    place(s->world[i], frand(-100, 100), frand(-5, 5), frand(-100, 100), frand(0, 6.28f), frand(0.5f, 2));
    uint32_t material = rng() % MATERIALS;
    uint32_t flags = TY_BUCKET_ENABLED | TY_BUCKET_STATE(material % 4);
    if (rng() % 100 < 15) flags |= TY_BUCKET_TRANSPARENT;
    if (rng() % 2) flags |= TY_BUCKET_CASTS_SHADOW;
    s->items[i] = (ty_bucket_item){.world = (const float *)s->world[i], .mesh = rng() % MESHES,
                                   .material = material, .flags = flags, .radius = 1.0f};
  }
  mat4 proj, view, vp;
  glm_perspective(glm_rad(60.0f), 16.0f / 9.0f, 0.1f, 150.0f, proj);
  glm_lookat((vec3){0, 2, 20}, (vec3){0, 0, 0}, (vec3){0, 1, 0}, view);
  glm_mat4_mul(proj, view, vp);
  s->frame = (ty_bucket_frame){.items = s->items, .item_count = n, .meshes = s->meshes,
                               .mesh_count = MESHES, .camera_position = {0, 2, 20}};
  memcpy(s->frame.view_proj, vp, sizeof s->frame.view_proj);
  s->upload_cap = (size_t)n * 3 * 64; /* every item in every list: never too small */
  s->upload = aligned_alloc(64, s->upload_cap);
  if (!s->upload) abort();
}

static void scene_free(scene *s) {
  free(s->world);
  free(s->items);
  free(s->upload);
}

/* The game's part of the frame: a tenth of the items get a new matrix. */
static void scene_move(scene *s, int f) {
  for (uint32_t i = (uint32_t)f % 10; i < s->n; i += 10) {
    float *t = s->world[i][3];
    place(s->world[i], t[0] + 0.01f, t[1], t[2], 0.01f * (float)f + (float)i, 1.0f);
  }
}


typedef struct result {
  double ms, build_ms, upload_ms; /* medians */
  uint32_t opaque, transparent, shadow, batches;
} result;

/* ---- ours --------------------------------------------------------------------------- */

static result run_ours(scene *s, int frames, double *t_all, double *t_build, double *t_upload) {
  ty_bucket *b = ty_bucket_create(NULL);
  result r = {0};
  for (int f = 0; f < WARMUP + frames; f++) {
    scene_move(s, f);
    double t0 = ty_now();
    ty_bucket_build(b, &s->frame);
    double t1 = ty_now();
    if (ty_bucket_instance_size(b) > s->upload_cap) abort();
    ty_bucket_write_instances(b, s->upload);
    double t2 = ty_now();
    if (f >= WARMUP) {
      t_all[f - WARMUP] = (t2 - t0) * 1e3;
      t_build[f - WARMUP] = (t1 - t0) * 1e3;
      t_upload[f - WARMUP] = (t2 - t1) * 1e3;
    }
  }
  ty_bucket_counts c = ty_bucket_count(b);
  r.opaque = c.opaque, r.transparent = c.transparent, r.shadow = c.shadow, r.batches = c.batches;
  ty_bucket_destroy(b);
  r.ms = bench_median(t_all, frames);
  r.build_ms = bench_median(t_build, frames);
  r.upload_ms = bench_median(t_upload, frames);
  return r;
}

/* ---- baseline ----------------------------------------------------------------------- */

typedef struct naive_draw {
  uint32_t state, material, mesh, item;
  float depth;
} naive_draw;

static int cmp_opaque(const void *a, const void *b) {
  const naive_draw *x = a, *y = b;
  if (x->state != y->state) return x->state < y->state ? -1 : 1;
  if (x->material != y->material) return x->material < y->material ? -1 : 1;
  if (x->mesh != y->mesh) return x->mesh < y->mesh ? -1 : 1;
  return (x->depth > y->depth) - (x->depth < y->depth);
}

static int cmp_transparent(const void *a, const void *b) {
  const naive_draw *x = a, *y = b;
  if (x->depth != y->depth) return x->depth > y->depth ? -1 : 1;
  if (x->material != y->material) return x->material < y->material ? -1 : 1;
  return (x->mesh > y->mesh) - (x->mesh < y->mesh);
}

static int cmp_shadow(const void *a, const void *b) {
  const naive_draw *x = a, *y = b;
  if (x->mesh != y->mesh) return x->mesh < y->mesh ? -1 : 1;
  if (x->material != y->material) return x->material < y->material ? -1 : 1;
  return (x->item > y->item) - (x->item < y->item);
}

static bool outside(vec4 planes[6], vec3 c, float r) {
  for (int p = 0; p < 6; p++)
    if (glm_vec3_dot(planes[p], c) + planes[p][3] < -r) return true;
  return false;
}

static uint32_t naive_batches(const naive_draw *d, uint32_t n, ty_bucket_command *cmd,
                              const ty_bucket_mesh *meshes, uint32_t first) {
  uint32_t nb = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (nb && d[i].mesh == d[i - 1].mesh && d[i].material == d[i - 1].material) {
      cmd[nb - 1].instance_count++;
      continue;
    }
    const ty_bucket_mesh *m = &meshes[d[i].mesh];
    cmd[nb++] = (ty_bucket_command){m->index_count, 1, m->first_index, m->base_vertex, first + i};
  }
  return nb;
}

static result run_baseline(scene *s, int frames, double *t_all) {
  naive_draw *lists[3];
  ty_bucket_command *cmds = malloc(s->n * sizeof *cmds);
  for (int k = 0; k < 3; k++) lists[k] = malloc(s->n * sizeof *lists[k]);
  if (!cmds || !lists[0] || !lists[1] || !lists[2]) abort();
  int (*cmp[3])(const void *, const void *) = {cmp_opaque, cmp_transparent, cmp_shadow};
  result r = {0};
  for (int f = 0; f < WARMUP + frames; f++) {
    scene_move(s, f);
    double t0 = ty_now();
    mat4 vp;
    vec4 planes[6];
    memcpy(vp, s->frame.view_proj, sizeof vp);
    glm_frustum_planes(vp, planes);
    uint32_t count[3] = {0, 0, 0};
    for (uint32_t i = 0; i < s->n; i++) {
      const ty_bucket_item *it = &s->items[i];
      if (!(it->flags & TY_BUCKET_ENABLED)) continue;
      vec3 c;
      glm_mat4_mulv3(s->world[i], (vec3){it->center[0], it->center[1], it->center[2]}, 1.0f, c);
      float sc = glm_max(glm_vec3_norm2(s->world[i][0]), glm_max(glm_vec3_norm2(s->world[i][1]),
                                                                 glm_vec3_norm2(s->world[i][2])));
      float rad = it->radius * sqrtf(sc);
      const float *eye = s->frame.camera_position;
      naive_draw d = {it->flags >> TY_BUCKET_STATE_SHIFT, it->material, it->mesh, i,
                      glm_vec3_distance2(c, (vec3){eye[0], eye[1], eye[2]})};
      if (it->flags & TY_BUCKET_CASTS_SHADOW) lists[2][count[2]++] = d;
      if (outside(planes, c, rad)) continue;
      int k = it->flags & TY_BUCKET_TRANSPARENT ? 1 : 0;
      lists[k][count[k]++] = d;
    }
    unsigned char *out = s->upload;
    uint32_t first = 0, batches = 0;
    for (int k = 0; k < 3; k++) {
      qsort(lists[k], count[k], sizeof *lists[k], cmp[k]);
      batches += naive_batches(lists[k], count[k], cmds, s->meshes, first);
      first += count[k];
      for (uint32_t i = 0; i < count[k]; i++, out += 64) memcpy(out, s->world[lists[k][i].item], 64);
    }
    double t1 = ty_now();
    if (f >= WARMUP) t_all[f - WARMUP] = (t1 - t0) * 1e3;
    r.opaque = count[0], r.transparent = count[1], r.shadow = count[2], r.batches = batches;
  }
  for (int k = 0; k < 3; k++) free(lists[k]);
  free(cmds);
  r.ms = bench_median(t_all, frames);
  return r;
}

/* ---- report ------------------------------------------------------------------------- */

int main(int argc, char **argv) {
  int frames = bench_frames(argc, argv, 100);
  double *t_all = malloc((size_t)frames * sizeof *t_all);
  double *t_build = malloc((size_t)frames * sizeof *t_build);
  double *t_upload = malloc((size_t)frames * sizeof *t_upload);
  if (!t_all || !t_build || !t_upload) abort();

  static const struct {
    uint32_t n;
    double target_ms;
  } cases[] = {{10000, 0.5}, {100000, 4.0}};
  printf("bucket_bench: median of %d frames after %d warm-up, 10%% of items moving per frame\n", frames,
         WARMUP);
  printf("ours = ty_bucket_build (cull, key, radix sort, batch) + ty_bucket_write_instances; "
         "base = same culling, qsort on structs, per-item memcpy\n\n");
  printf("%7s | %7s %7s %7s %7s | %9s %9s %9s | %9s | %9s | %s\n", "items", "opaque", "transp", "shadow",
         "batches", "build ms", "upload ms", "ours ms", "base ms", "base/ours", "target");
  bool all_pass = true, mismatch = false;
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    scene s;
    scene_init(&s, cases[c].n);
    result ours = run_ours(&s, frames, t_all, t_build, t_upload);
    scene_free(&s);
    rng_state = 0x2545F491u; /* the same scene again for the baseline */
    scene_init(&s, cases[c].n);
    result base = run_baseline(&s, frames, t_all);
    scene_free(&s);
    rng_state = 0x2545F491u;
    mismatch |= ours.opaque != base.opaque || ours.transparent != base.transparent ||
                ours.shadow != base.shadow || ours.batches != base.batches;
    bool pass = ours.ms <= cases[c].target_ms;
    all_pass &= pass;
    printf("%7u | %7u %7u %7u %7u | %9.4f %9.4f %9.4f | %9.4f | %8.2fx | <= %.1f ms: %s\n", cases[c].n,
           ours.opaque, ours.transparent, ours.shadow, ours.batches, ours.build_ms, ours.upload_ms, ours.ms,
           base.ms, base.ms / ours.ms, cases[c].target_ms, pass ? "PASS" : "FAIL");
  }
  printf("\nlist sizes and batch counts %s the baseline; targets %s\n", mismatch ? "DIFFER from" : "match",
         all_pass ? "met" : "NOT met");
  free(t_all);
  free(t_build);
  free(t_upload);
  return mismatch ? 1 : 0;
}
