/* tests/bench/render_bench.c: the renderer's per-frame costs through its public C API.
 *
 * (a) CPU: ty_render_begin_frame (transform sync, gather of every enabled item, bucketing,
 *     instance write) for 10k and 100k MeshRenderer items on ty_world objects (a world
 *     holds at most 65024 objects, so the 100k items sit two to an object), 10% of them
 *     moving each frame (the move is the game's work, not timed). Figures: the renderer's
 *     own bucket_ms and begin_frame's wall time, medians over --frames frames. Baseline in
 *     the same run: the straightforward gather: read every item's world matrix, cull
 *     nothing, qsort an array of structs by (material, mesh, depth), then copy each
 *     matrix, tint and rect into the instance buffer. Targets: <= 0.5 ms (10k), <= 4 ms (100k).
 * (b) GL (a hidden window; SDL's offscreen driver when there is no display): draw
 *     submission of 10k small quads through ForwardLit, TY_DRAW_MULTI_INDIRECT against
 *     TY_DRAW_PER_OBJECT (one glDrawElements per object), and TY_DRAW_INSTANCED: end_frame's
 *     CPU time (graph execution and submission) and its time to a glFinish (drawn), objects
 *     per second of each and the ratio. Target: >= 10x submitted. The quads are tiny and
 *     the target 64 x 64, so the rasteriser's work is small beside submission; on llvmpipe
 *     the vertex work still runs on the same CPU cores, which caps the "drawn" ratio.
 *
 * usage: render_bench [--frames N]
 */
#include "bench.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "core/scene.h"
#include "core/transform.h"
#include "render/renderer.h"
#if TYCHO_WITH_GL
#include <epoxy/gl.h>
#include "platform/platform.h"
#endif

enum { WARMUP = 5, MATERIALS = 16 };

typedef struct bench_scene {
  ty_world *world;
  ty_renderer *R;
  ty_id *objects;
  uint32_t n;       /* items */
  uint32_t objects_n; /* objects: a world holds at most 65024, so 100k items share them two by two */
  ty_id camera;
} bench_scene;

static uint32_t rng_state = 0x9E3779B9u;
static uint32_t rng(void) {
  rng_state ^= rng_state << 13, rng_state ^= rng_state >> 17, rng_state ^= rng_state << 5;
  return rng_state;
}
static float frand(float lo, float hi) { return lo + (hi - lo) * (float)(rng() & 0xFFFFFF) / 16777216.0f; }

static void set_trs(ty_world *W, ty_id id, float x, float y, float z, float angle, float s) {
  ty_trs *t = ty_transform_write(ty_world_transforms(W), ty_object_transform(W, id));
  t->pos[0] = x, t->pos[1] = y, t->pos[2] = z;
  t->rot[0] = 0, t->rot[1] = sinf(angle * 0.5f), t->rot[2] = 0, t->rot[3] = cosf(angle * 0.5f);
  t->scale[0] = t->scale[1] = t->scale[2] = s;
}

/* n items over a field in front of the camera; quads only (draw submission) or a mix. */
static void scene_init(bench_scene *s, uint32_t n, bool quads, float field) {
  memset(s, 0, sizeof *s);
  s->n = n;
  s->world = ty_world_create();
  s->R = ty_render_create(&(ty_render_desc){.world = s->world});
  if (!s->R) abort();
  ty_mesh_data m;
  uint32_t meshes[3];
  uint32_t mesh_count = quads ? 1 : 3;
  if (quads) {
    ty_mesh_quad(&m);
    meshes[0] = ty_render_add_mesh(s->R, &m, "quad");
    ty_mesh_free(&m);
  } else {
    ty_mesh_cube(&m);
    meshes[0] = ty_render_add_mesh(s->R, &m, "cube");
    ty_mesh_free(&m);
    ty_mesh_sphere(&m, 16, 8);
    meshes[1] = ty_render_add_mesh(s->R, &m, "sphere");
    ty_mesh_free(&m);
    ty_mesh_plane(&m, 1);
    meshes[2] = ty_render_add_mesh(s->R, &m, "plane");
    ty_mesh_free(&m);
  }
  uint32_t materials[MATERIALS];
  for (uint32_t i = 0; i < MATERIALS; i++) {
    ty_material mat = ty_material_default();
    mat.base_color[0] = (float)(i % 4) / 3.0f, mat.base_color[1] = (float)(i / 4) / 3.0f;
    mat.transparent = !quads && i % 8 == 7; /* 1 in 8 */
    materials[i] = ty_render_add_material(s->R, &mat);
  }
  uint32_t per_object = n > 60000 ? 2 : 1;
  s->objects_n = (n + per_object - 1) / per_object;
  s->objects = malloc(s->objects_n * sizeof *s->objects);
  if (!s->objects) abort();
  for (uint32_t i = 0; i < s->objects_n; i++) {
    ty_id id = ty_object_create(s->world);
    if (!id) abort();
    s->objects[i] = id;
    set_trs(s->world, id, frand(-field, field), frand(-field * 0.5f, field * 0.5f), frand(-2 * field, -1),
            frand(0, 6.28f), quads ? 0.05f : frand(0.5f, 1.5f));
  }
  for (uint32_t i = 0; i < n; i++) {
    ty_render_item *it = ty_render_item_at(s->R, ty_render_item_create(s->R, s->objects[i / per_object]));
    it->mesh = meshes[rng() % mesh_count];
    it->material = materials[rng() % MATERIALS];
  }
  s->camera = ty_object_create(s->world);
  set_trs(s->world, s->camera, 0, 0, 5, 0, 1);
  /* a sun that casts, as in a lit game: the Shadow feature's range culls far casters */
  ty_id sun = ty_object_create(s->world);
  ty_light *l = ty_render_light_at(s->R, ty_render_light_create(s->R, sun, TY_LIGHT_DIRECTIONAL));
  l->has_direction = true;
  l->direction[0] = -0.4f, l->direction[1] = -1.0f, l->direction[2] = -0.3f;
  l->cast_shadows = true;
}

static void scene_free(bench_scene *s) {
  ty_render_destroy(s->R);
  ty_world_destroy(s->world);
  free(s->objects);
}

/* The game's part: a tenth of the objects move (a different tenth each frame). */
static void scene_move(bench_scene *s, int f) {
  ty_transforms *T = ty_world_transforms(s->world);
  for (uint32_t i = (uint32_t)f % 10; i < s->objects_n; i += 10) {
    ty_trs *t = ty_transform_write(T, ty_object_transform(s->world, s->objects[i]));
    t->pos[0] += 0.01f;
    float a = 0.01f * (float)f;
    t->rot[1] = sinf(a), t->rot[3] = cosf(a);
  }
}

static ty_frame_desc frame_desc(const bench_scene *s, uint32_t w, uint32_t h) {
  return (ty_frame_desc){.width = w, .height = h, .delta = 1.0f / 60.0f,
                         .camera = {.object = s->camera, .fov_deg = 60, .near_plane = 0.1f, .far_plane = 500}};
}

/* ---- (a) CPU: gather, bucket, instance write ------------------------------------------ */

typedef struct naive_draw {
  uint32_t material, mesh;
  float depth;
  const float *world;
  const ty_render_item *item;
} naive_draw;

static int cmp_draw(const void *a, const void *b) {
  const naive_draw *x = a, *y = b;
  if (x->material != y->material) return x->material < y->material ? -1 : 1;
  if (x->mesh != y->mesh) return x->mesh < y->mesh ? -1 : 1;
  return (x->depth > y->depth) - (x->depth < y->depth);
}

static void run_cpu(uint32_t n, int frames, double target_ms) {
  bench_scene s;
  scene_init(&s, n, false, 100.0f);
  double *bucket = malloc((size_t)frames * sizeof *bucket), *wall = malloc((size_t)frames * sizeof *wall);
  double *naive = malloc((size_t)frames * sizeof *naive);
  naive_draw *draws = malloc(n * sizeof *draws);
  unsigned char *upload = malloc((size_t)n * 96);
  if (!bucket || !wall || !naive || !draws || !upload) abort();
  ty_frame_desc fd = frame_desc(&s, 1280, 720);
  ty_bucket_counts counts = {0};
  for (int f = 0; f < WARMUP + frames; f++) {
    scene_move(&s, f);
    double t0 = ty_now();
    ty_frame *F = ty_render_begin_frame(s.R, &fd);
    double t1 = ty_now();
    counts = F->buckets;
    ty_render_add_feature(s.R, F, TY_FEATURE_SHADOW, NULL);
    ty_render_end_frame(s.R, F);
    if (f >= WARMUP) {
      wall[f - WARMUP] = (t1 - t0) * 1e3;
      bucket[f - WARMUP] = ty_render_get_stats(s.R).bucket_ms;
    }
  }
  ty_transforms *T = ty_world_transforms(s.world);
  for (int f = 0; f < WARMUP + frames; f++) {
    scene_move(&s, f);
    double t0 = ty_now();
    ty_transforms_sync(T);
    uint32_t nd = 0;
    for (uint32_t i = 0; i < n; i++) {
      const ty_render_item *it = ty_render_item_at(s.R, i);
      if (!it || !it->enabled || !ty_object_active(s.world, it->object)) continue;
      const float *w = ty_transform_world(T, ty_object_transform(s.world, it->object));
      draws[nd++] = (naive_draw){it->material, it->mesh, w[14], w, it};
    }
    qsort(draws, nd, sizeof *draws, cmp_draw);
    unsigned char *p = upload;
    for (uint32_t i = 0; i < nd; i++) {
      memcpy(p, draws[i].world, 64);
      memcpy(p + 64, draws[i].item->tint, 16);
      memcpy(p + 80, draws[i].item->rect, 16);
      p += 96;
    }
    if (f >= WARMUP) naive[f - WARMUP] = (ty_now() - t0) * 1e3;
  }
  double b = bench_median(bucket, frames), w = bench_median(wall, frames), nv = bench_median(naive, frames);
  char cascades[64] = "";
  for (uint32_t c = 0, at = 0; c < counts.cascades && at < sizeof cascades; c++)
    at += (uint32_t)snprintf(cascades + at, sizeof cascades - at, "%s%u", c ? "/" : " per cascade ",
                             counts.shadow_cascade[c]);
  printf("  %6u items: bucket %.3f ms, begin_frame %.3f ms (target <= %.1f ms: %s) | naive gather+qsort+copy %.3f ms"
         " | %.1fx faster | opaque %u transparent %u shadow %u%s batches %u\n",
         n, b, w, target_ms, w <= target_ms ? "met" : "MISSED", nv, nv / w, counts.opaque, counts.transparent,
         counts.shadow, cascades, counts.batches);
  free(bucket), free(wall), free(naive), free(draws), free(upload);
  scene_free(&s);
}

/* ---- (b) GL: draw submission ------------------------------------------------------------ */

#if TYCHO_WITH_GL
typedef struct submit_result {
  double cpu_ms;   /* end_frame's return: graph execution and draw submission on the CPU */
  double total_ms; /* until glFinish: the driver has drawn everything */
  ty_render_stats stats;
} submit_result;

static submit_result run_submit(bench_scene *s, ty_draw_mode mode, int frames) {
  double *cpu = malloc((size_t)frames * sizeof *cpu), *total = malloc((size_t)frames * sizeof *total);
  if (!cpu || !total) abort();
  ty_render_set_draw_mode(s->R, mode);
  ty_frame_desc fd = frame_desc(s, 64, 64);
  ty_feature_opts opts;
  memset(&opts, 0, sizeof opts);
  for (int f = 0; f < WARMUP + frames; f++) {
    scene_move(s, f);
    ty_frame *F = ty_render_begin_frame(s->R, &fd);
    if (!ty_render_add_feature(s->R, F, TY_FEATURE_FORWARD_LIT, &opts) ||
        !ty_render_add_feature(s->R, F, TY_FEATURE_TONEMAP, &opts)) {
      fprintf(stderr, "render_bench: %s\n", ty_render_error(s->R));
      exit(1);
    }
    glFinish(); /* time only this frame's submission and drawing */
    double t0 = ty_now();
    if (!ty_render_end_frame(s->R, F)) {
      fprintf(stderr, "render_bench: %s\n", ty_render_error(s->R));
      exit(1);
    }
    double t1 = ty_now();
    glFinish();
    if (f >= WARMUP) cpu[f - WARMUP] = (t1 - t0) * 1e3, total[f - WARMUP] = (ty_now() - t0) * 1e3;
  }
  submit_result r = {bench_median(cpu, frames), bench_median(total, frames), ty_render_get_stats(s->R)};
  free(cpu), free(total);
  return r;
}

static void print_submit(const char *name, const submit_result *r) {
  printf("  %-15s %8.3f ms submit %8.3f ms drawn  %5u GL draw calls  %12.0f objects/s submitted  %12.0f drawn"
         "  %u GL state calls for %u pipeline applies\n",
         name, r->cpu_ms, r->total_ms, r->stats.draw_calls, r->stats.instances / (r->cpu_ms * 1e-3),
         r->stats.instances / (r->total_ms * 1e-3), r->stats.state_calls, r->stats.pipeline_applies);
}

static int run_gl(int frames) {
  if (!getenv("SDL_VIDEODRIVER") && !getenv("DISPLAY") && !getenv("WAYLAND_DISPLAY"))
    setenv("SDL_VIDEODRIVER", "offscreen", 1);
  ty_window *w = ty_window_create(&(ty_window_desc){.width = 64, .height = 64, .hidden = true});
  if (!w) return 1;
  ty_gl_device *dev = ty_gl_create(&(ty_gl_device_desc){0});
  if (!dev) {
    ty_window_destroy(w);
    return 1;
  }
  printf("draw submission, 10000 quads, 64 x 64 target, %s (%s):\n", (const char *)glGetString(GL_RENDERER),
         ty_platform_video_driver());
  bench_scene s;
  scene_init(&s, 10000, true, 4.0f);
  ty_render_attach(s.R, dev);
  submit_result per = run_submit(&s, TY_DRAW_PER_OBJECT, frames);
  submit_result inst = run_submit(&s, TY_DRAW_INSTANCED, frames);
  submit_result multi = run_submit(&s, TY_DRAW_MULTI_INDIRECT, frames);
  print_submit("per object", &per);
  print_submit("instanced", &inst);
  print_submit("multi-indirect", &multi);
  /* Same objects in both, so the ratio of objects per second is the ratio of times. */
  double submit_ratio = per.cpu_ms / multi.cpu_ms, drawn_ratio = per.total_ms / multi.total_ms;
  printf("  multi-indirect / per object: %.1fx objects per second submitted (target >= 10x: %s), %.1fx drawn%s\n",
         submit_ratio, submit_ratio >= 10 ? "met" : "MISSED", drawn_ratio,
         strstr((const char *)glGetString(GL_RENDERER), "llvmpipe") ? " (llvmpipe shades on these CPU cores)" : "");
  ty_render_attach(s.R, NULL);
  scene_free(&s);
  ty_gl_destroy(dev);
  ty_window_destroy(w);
  return 0;
}
#endif

int main(int argc, char **argv) {
  int frames = bench_frames(argc, argv, 30);
  printf("render_bench: medians over %d frames\n", frames);
  printf("gather + bucketing + instance write, 10%% of the objects moving each frame:\n");
  run_cpu(10000, frames, 0.5);
  run_cpu(100000, frames, 4.0);
#if TYCHO_WITH_GL
  if (run_gl(frames) != 0) {
    printf("draw submission: no GL 4.5 context here (set SDL_VIDEODRIVER=offscreen)\n");
    return 1;
  }
#else
  printf("draw submission: this build has no GL\n");
#endif
  return 0;
}
