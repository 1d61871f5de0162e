/* engine/render/frame.c: one frame: begin (gather, bucket, instances, the graph's
 * shared resources), per-frame memory, C passes on the graph, end (compile, upload,
 * execute, the context left plain). */
#include "render_core.h"

#include <stdio.h>
#include <string.h>

#include "../platform/platform.h" /* Required for: ty_now */

/* ---- per-frame memory --------------------------------------------------------------- */

void *ty_render_frame_alloc(ty_renderer *R, size_t size) {
  size = (size + 15u) & ~(size_t)15u;
  arena_block *b = R->arena;
  if (!b || b->size - b->used < size) {
    size_t cap = size > ARENA_BLOCK ? size : ARENA_BLOCK;
    arena_block *nb = TY_MALLOC(sizeof *nb + cap);
    TY_ASSERT(nb);
    nb->next = R->arena;
    nb->used = 0;
    nb->size = cap;
    R->arena = nb;
    b = nb;
  }
  void *p = b->data + b->used;
  b->used += size;
  memset(p, 0, size);
  return p;
}

/* A frame that needed several blocks is given one block as large as all of them for the
 * next frame, so a steady frame (even a large one) allocates nothing. */
static void arena_reset(ty_renderer *R) {
  arena_block *b = R->arena;
  if (b && b->next) {
    size_t total = 0;
    while (b) {
      arena_block *n = b->next;
      total += b->size;
      TY_FREE(b);
      b = n;
    }
    b = TY_MALLOC(sizeof *b + total);
    TY_ASSERT(b);
    b->size = total;
  }
  if (b) {
    b->next = NULL;
    b->used = 0;
  }
  R->arena = b;
}

static void thunk_execute(const rg_pass_context *ctx, void *user) {
  pass_thunk *t = user;
  if (t->R->dev && t->fn) t->fn(t->R, &t->R->frame, ctx, t->data);
}

rg_pass ty_render_add_pass(ty_renderer *R, ty_frame *F, const rg_pass_desc *desc, ty_render_pass_fn fn,
                           const void *data, size_t data_size) {
  pass_thunk *t = ty_render_frame_alloc(R, sizeof *t);
  t->R = R;
  t->fn = fn;
  if (data_size) {
    t->data = ty_render_frame_alloc(R, data_size);
    if (data) memcpy(t->data, data, data_size);
  }
  rg_pass_desc d = *desc;
  d.execute = thunk_execute;
  d.user = t;
  return rg_add_pass(F->graph, &d);
}

bool ty_render_written(const ty_renderer *R, rg_resource r) {
  for (uint32_t i = 0; i < R->written_count; i++)
    if (R->written[i] == r.id) return true;
  return false;
}

bool ty_render_mark_write(ty_renderer *R, rg_resource r) {
  if (!r.id || ty_render_written(R, r)) return false;
  TY_GROW(R->written, R->written_cap, R->written_count + 1);
  R->written[R->written_count++] = r.id;
  return true;
}

ty_frame_block *ty_render_frame_block(ty_renderer *R) { return &R->block; }
const ty_gpu_light *ty_render_gpu_lights(const ty_renderer *R, uint32_t *count) {
  if (count) *count = R->gpu_light_count;
  return R->gpu_lights;
}
ty_render_stats *ty_render_stats_mut(ty_renderer *R) { return &R->stats; }
uint32_t ty_render_cascades(const ty_renderer *R) { return R->block.counts[1]; }

uint32_t ty_render_frame_times(const ty_renderer *R, float *out, uint32_t max) {
  uint32_t n = R->frame_time_count < max ? R->frame_time_count : max;
  uint32_t start = (R->frame_time_head + FRAME_TIME_HISTORY - n) % FRAME_TIME_HISTORY;
  for (uint32_t i = 0; i < n; i++) out[i] = R->frame_times[(start + i) % FRAME_TIME_HISTORY];
  return n;
}



ty_frame *ty_render_frame_current(ty_renderer *R) { return R->frame_open ? &R->frame : NULL; }

ty_frame *ty_render_begin_frame(ty_renderer *R, const ty_frame_desc *desc) {
  TY_ASSERT(desc);
  double t0 = ty_now();
  ty_frame *F = &R->frame;
  uint64_t index = F->index + 1;
  memset(F, 0, sizeof *F);
  F->index = index;
  F->graph = R->graph;
  F->width = desc->width ? desc->width : 1;
  F->height = desc->height ? desc->height : 1;
  F->time = desc->time;
  F->delta = desc->delta;
  R->frame_open = true;
  R->frame_start = t0;
  R->written_count = 0;
  arena_reset(R);
  R->stats = (ty_render_stats){0};
  memset(&R->block, 0, sizeof R->block);

  ty_transforms_sync(ty_world_transforms(R->world));
  ty_render_setup_camera(R, F, desc);
  ty_render_gather_lights(R, F, desc->scene);
  ty_render_gather_items(R, desc->scene);
  if (R->dev) {
    ty_render_gpu_write_instances(R);
  } else {
    size_t size = ty_bucket_instance_size(R->bucket);
    if (size > R->inst_cpu_cap) {
      TY_FREE(R->inst_cpu);
      R->inst_cpu = TY_MALLOC(size);
      TY_ASSERT(R->inst_cpu);
      R->inst_cpu_cap = size;
    }
    if (size) ty_bucket_write_instances(R->bucket, R->inst_cpu);
  }
  F->buckets = ty_bucket_count(R->bucket);
  R->stats.shadow_casters = F->buckets.shadow;
  R->stats.cascades = F->buckets.cascades < TY_RENDER_MAX_CASCADES ? F->buckets.cascades : TY_RENDER_MAX_CASCADES;
  memcpy(R->stats.cascade_casters, F->buckets.shadow_cascade, sizeof R->stats.cascade_casters);
  R->stats.bucket_ms = (ty_now() - t0) * 1000.0;

  rg_begin(R->graph, F->width, F->height);
  rg_texture_info bb = {.width = F->width, .height = F->height, .format = RG_FORMAT_RGBA8, .layers = 1, .samples = 1};
  F->backbuffer = rg_import(R->graph, "backbuffer", &(rg_import_desc){.texture = 0, .info = bb});
  F->hdr = rg_transient(R->graph, "hdr", &(rg_texture_desc){.format = RG_FORMAT_RGBA16F});
  F->depth = rg_transient(R->graph, "depth", &(rg_texture_desc){.format = RG_FORMAT_DEPTH32F});
  return F;
}


bool ty_render_end_frame(ty_renderer *R, ty_frame *F) {
  (void)F;
  if (!R->shadow_noted) R->shadow.cascades = 0; /* no Shadow feature this frame: cull no casters */
  R->shadow_noted = false;
  rg_status st = rg_compile(R->graph);
  rg_stats gs = rg_get_stats(R->graph);
  R->stats.passes = gs.passes - gs.culled;
  R->stats.culled_passes = gs.culled;
  size_t need = rg_dump(R->graph, NULL, 0) + 1;
  if (need > R->dump_cap) { /* grown, never shrunk: a steady frame allocates nothing */
    TY_FREE(R->dump);
    R->dump = TY_MALLOC(need);
    TY_ASSERT(R->dump);
    R->dump_cap = need;
  }
  rg_dump(R->graph, R->dump, need);
  bool ok = st == RG_OK;
  if (!ok) {
    ty_render_fail(R, NULL, "%s", rg_error(R->graph));
  } else if (R->dev) {
#if TYCHO_WITH_GL
    ty_render_upload_meshes(R);
    ty_render_upload_frame_data(R);
    ty_render_pass_frame_begin(R);
    ty_gl_reset_state(R->dev); /* GL state may have changed since the last frame */
    ty_gl_stats before = ty_gl_get_stats(R->dev);
    rg_execute(R->graph);
    ty_render_pass_frame_end(R);
    ty_gl_stats after = ty_gl_get_stats(R->dev);
    R->stats.pipeline_applies = (uint32_t)(after.pipeline_applies - before.pipeline_applies);
    R->stats.state_calls = (uint32_t)(after.state_calls - before.state_calls);
    /* Leave the context as the window expects it: default framebuffer, plain state. */
    ty_gl_bind_framebuffer(R->dev, (ty_gl_framebuffer){0});
    ty_gl_set_viewport(R->dev, 0, 0, (int)R->frame.width, (int)R->frame.height);
    ty_gl_apply_pipeline(R->dev, NULL);
    if (R->inst_ring.id) ty_gl_ring_next_frame(R->dev, R->inst_ring);
    if (R->cmd_ring.id) ty_gl_ring_next_frame(R->dev, R->cmd_ring);
    ty_render_evict_targets(R);
#endif
  }
  R->frame_open = false;
  R->stats.cpu_ms = (ty_now() - R->frame_start) * 1000.0;
  return ok;
}

void ty_render_frame_memory_free(ty_renderer *R) {
  while (R->arena) {
    arena_block *n = R->arena->next;
    TY_FREE(R->arena);
    R->arena = n;
  }
  TY_FREE(R->bitems);
  TY_FREE(R->inst_cpu);
  TY_FREE(R->gpu_lights);
  TY_FREE(R->written);
}
