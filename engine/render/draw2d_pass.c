/* engine/render/draw2d_pass.c: the pass that draws tycho.draw's queue (draw2d.c) over the
 * backbuffer after every feature's: one vertex stream, one index buffer of quads (0 1 2,
 * 0 2 3 each), a draw per run of one texture with alpha blending; glyph atlas pages
 * (engine/text) become GL textures here, refreshed by the rectangle that changed.
 *
 * World text (tycho.Text) has a pass of its own, WorldText, declared by Tonemap just
 * before it: into the scene's HDR target, depth-tested against what the scene drew (a
 * wall hides a label behind it) without writing depth, back to front, a draw a page. */
#include <string.h>

#include "draw2d_internal.h"
#include "gl_stream.h"
#include "render_internal.h"

#if TYCHO_WITH_GL
/* The GPU objects, the device's they are (a new device makes them again). */
static struct {
  ty_gl_device *dev;
  ty_gl_stream quad_stream; /* the queue's vertices, four a quad */
  ty_gl_buffer ibo;
  uint32_t quads; /* quads ibo holds indices for */
  ty_gl_texture pages[TY_TEXT_MAX_PAGES];
  uint8_t *scratch;
  uint32_t scratch_cap;
  ty_gl_stream world_stream; /* world text's vertices */
} gpu;

typedef struct draw_pass {
  ty_program *flat, *image, *sdf; /* glyphs and shapes; images (sRGB textures); world text */
  rg_resource out;
  const ty_draw2d_queue *q;
} draw_pass;

/* Makes, or refreshes from the atlas, the GL texture of each glyph page. */
static void sync_pages(ty_gl_device *dev) {
  for (uint32_t p = 0; p < ty_text_page_count(); p++) {
    uint32_t r[4];
    bool dirty = ty_text_page_take_dirty(p, r);
    if (!gpu.pages[p].id) {
      gpu.pages[p] = ty_gl_make_texture(dev, &(ty_gl_texture_desc){.width = TY_TEXT_PAGE_SIZE,
                                                                   .height = TY_TEXT_PAGE_SIZE,
                                                                   .data = ty_text_page_pixels(p),
                                                                   .label = "glyph atlas"});
      continue;
    }
    if (!dirty) continue;
    /* The changed rectangle, its rows packed together as the upload wants them. */
    TY_GROW(gpu.scratch, gpu.scratch_cap, r[2] * r[3] * 4);
    const uint8_t *px = ty_text_page_pixels(p);
    for (uint32_t y = 0; y < r[3]; y++)
      memcpy(gpu.scratch + (size_t)y * r[2] * 4, px + ((size_t)(r[1] + y) * TY_TEXT_PAGE_SIZE + r[0]) * 4, r[2] * 4);
    ty_gl_update_texture(dev, gpu.pages[p],
                         &(ty_gl_texture_region){.x = r[0], .y = r[1], .width = r[2], .height = r[3]}, gpu.scratch);
  }
}

static void forget_gpu(void) {
  gpu.dev = NULL, gpu.ibo.id = 0, gpu.quads = 0;
  gpu.quad_stream = (ty_gl_stream){0};
  gpu.world_stream = (ty_gl_stream){0};
  memset(gpu.pages, 0, sizeof gpu.pages);
}

ty_gl_texture ty_render_glyph_page(ty_renderer *R, uint32_t page) {
  ty_gl_device *dev = ty_render_device(R);
  if (!dev || page >= TY_TEXT_MAX_PAGES) return (ty_gl_texture){0};
  if (gpu.dev != dev) forget_gpu(), gpu.dev = dev;
  sync_pages(dev);
  return gpu.pages[page];
}

/* Room for quads quads: indices for them (a capacity that doubles from 1024) and a vertex
 * stream as large. */
static bool ensure_buffers(ty_gl_device *dev, uint32_t quads) {
  if (quads > gpu.quads || !gpu.ibo.id) {
    if (gpu.ibo.id) ty_gl_destroy_buffer(dev, gpu.ibo);
    ty_gl_stream_release(&gpu.quad_stream, dev); /* its vertex array reads the old indices */
    uint32_t cap = 1024;
    while (cap < quads) cap *= 2;
    uint32_t *idx = TY_MALLOC((size_t)cap * 6 * sizeof *idx);
    TY_ASSERT(idx);
    for (uint32_t q = 0; q < cap; q++) {
      static const uint32_t order[6] = {0, 1, 2, 0, 2, 3};
      for (int k = 0; k < 6; k++) idx[q * 6 + k] = q * 4 + order[k];
    }
    gpu.ibo = ty_gl_make_buffer(dev, &(ty_gl_buffer_desc){.size = (size_t)cap * 6 * sizeof *idx, .data = idx,
                                                          .label = "draw2d indices"});
    TY_FREE(idx);
    gpu.quads = gpu.ibo.id ? cap : 0;
    if (!gpu.ibo.id) return false;
  }
  ty_gl_vertex_array_desc vd = {.index_buffer = gpu.ibo, .label = "draw2d"};
  vd.bindings[0].stride = sizeof(ty_draw2d_vertex);
  vd.attrs[0] = (ty_gl_vertex_attr){TY_GL_VERTEX_FLOAT2, 0, offsetof(ty_draw2d_vertex, x)};
  vd.attrs[1] = (ty_gl_vertex_attr){TY_GL_VERTEX_FLOAT2, 0, offsetof(ty_draw2d_vertex, u)};
  vd.attrs[2] = (ty_gl_vertex_attr){TY_GL_VERTEX_UBYTE4N, 0, offsetof(ty_draw2d_vertex, rgba)};
  size_t verts = (size_t)gpu.quads * 4;
  return ty_gl_stream_reserve(&gpu.quad_stream, dev, verts, verts, &vd);
}

static void draw_execute(ty_renderer *R, ty_frame *F, const rg_pass_context *ctx, void *data) {
  draw_pass *p = data;
  const ty_draw2d_queue *q = p->q;
  ty_gl_device *dev = ty_render_device(R);
  if (!q->quads || !p->flat->gl.id || !p->image->gl.id || !p->sdf->gl.id) return;
  if (gpu.dev != dev) forget_gpu(), gpu.dev = dev;
  if (!ensure_buffers(dev, q->quads)) return;
  sync_pages(dev);
  ty_gl_update_buffer(dev, gpu.quad_stream.buffer, 0, q->verts, (size_t)q->quads * 4 * sizeof(ty_draw2d_vertex));
  ty_render_target(R, &(ty_render_target_desc){.colors = {rg_context_texture(ctx, p->out)}, .color_count = 1});
  ty_render_set_state(R, &(ty_gl_pipeline_desc){.depth = TY_GL_DEPTH_OFF, .blend = TY_GL_BLEND_ALPHA, .cull = TY_GL_CULL_NONE});
  ty_render_bind_frame(R, F);
  ty_gl_bind_vertex_array(dev, gpu.quad_stream.va);
  ty_gl_sampler linear = ty_render_sampler_get(R, TY_SAMPLER_LINEAR_CLAMP);
  ty_gl_sampler nearest = ty_render_sampler_get(R, TY_SAMPLER_NEAREST_CLAMP);
  ty_program *current = NULL;
  for (uint32_t i = 0; i < q->run_count; i++) {
    const ty_draw2d_run *r = &q->runs[i];
    bool image = !(r->key & TY_DRAW2D_ATLAS) && r->key != TY_RENDER_TEXTURE_WHITE;
    ty_program *prog = image ? p->image : (r->key & TY_DRAW2D_SMOOTH) ? p->sdf : p->flat;
    if (prog != current) ty_gl_use_program(dev, prog->gl), current = prog;
    ty_gl_texture tex = r->key & TY_DRAW2D_ATLAS ? gpu.pages[r->key & ~(TY_DRAW2D_ATLAS | TY_DRAW2D_SMOOTH)] : ty_render_texture_gl(R, r->key);
    bool smooth = image || (r->key & TY_DRAW2D_SMOOTH);
    ty_gl_bind_texture(dev, 0, tex, smooth ? linear : nearest);
    ty_gl_draw_indexed(dev, TY_GL_TRIANGLES, r->first * 6, r->count * 6, 1, 0, 0);
    ty_render_stats_mut(R)->draw_calls++;
  }
  ty_render_set_state(R, NULL);
}

bool ty_render_add_draw2d(ty_renderer *R, ty_frame *F) {
  TY_ASSERT(R && F);
  ty_text_next_frame();
  ty_gl_device *dev = ty_render_device(R);
  if (!F->backbuffer.id || !dev) {
    ty_draw_clear(R);
    return true;
  }
  ty_program *flat = ty_render_program(R, "draw/draw2d.vert", "draw/draw2d.frag", NULL);
  ty_program *image = flat ? ty_render_program(R, "draw/draw2d.vert", "draw/draw2d.frag", "#define IMAGE 1\n") : NULL;
  ty_program *sdf = image ? ty_render_program(R, "draw/draw2d.vert", "draw/draw2d.frag", "#define SDF 1\n") : NULL;
  if (!sdf) {
    char msg[2048];
    snprintf(msg, sizeof msg, "%s", ty_render_error(R));
    ty_render_fail(R, "render_feature_disabled", "tycho.draw: %s", msg);
    ty_draw_clear(R);
    return false;
  }
  const ty_draw2d_queue *q = ty_draw2d_take(R, F);
  if (!q->quads) return true;
  rg_resource rw = F->backbuffer;
  ty_render_mark_write(R, rw);
  ty_render_add_pass(R, F,
                     &(rg_pass_desc){.name = "Draw2D", .kind = RG_PASS_RASTER, .reads = &rw, .read_count = 1,
                                     .writes = &rw, .write_count = 1, .side_effect = true},
                     draw_execute, &(draw_pass){.flat = flat, .image = image, .sdf = sdf, .out = F->backbuffer, .q = q},
                     sizeof(draw_pass));
  return true;
}

typedef struct world_pass {
  ty_program *prog;
  rg_resource hdr, depth;
  const ty_draw2d_world *w;
} world_pass;

/* Room for verts vertices: a capacity that doubles from 6 * 256 (256 glyphs). */
static bool ensure_world_buffers(ty_gl_device *dev, uint32_t verts) {
  ty_gl_vertex_array_desc vd = {.label = "world text"};
  vd.bindings[0].stride = sizeof(ty_draw2d_world_vertex);
  vd.attrs[0] = (ty_gl_vertex_attr){TY_GL_VERTEX_FLOAT3, 0, offsetof(ty_draw2d_world_vertex, x)};
  vd.attrs[1] = (ty_gl_vertex_attr){TY_GL_VERTEX_FLOAT2, 0, offsetof(ty_draw2d_world_vertex, u)};
  vd.attrs[2] = (ty_gl_vertex_attr){TY_GL_VERTEX_UBYTE4N, 0, offsetof(ty_draw2d_world_vertex, rgba)};
  return ty_gl_stream_reserve(&gpu.world_stream, dev, verts, 6 * 256, &vd);
}

static void world_execute(ty_renderer *R, ty_frame *F, const rg_pass_context *ctx, void *data) {
  world_pass *p = data;
  const ty_draw2d_world *w = p->w;
  ty_gl_device *dev = ty_render_device(R);
  if (!w->quads || !p->prog->gl.id) return;
  if (gpu.dev != dev) forget_gpu(), gpu.dev = dev;
  if (!ensure_world_buffers(dev, w->quads * 6)) return;
  sync_pages(dev);
  ty_gl_update_buffer(dev, gpu.world_stream.buffer, 0, w->verts, (size_t)w->quads * 6 * sizeof(ty_draw2d_world_vertex));
  ty_render_target(R, &(ty_render_target_desc){.colors = {rg_context_texture(ctx, p->hdr)}, .color_count = 1,
                                               .depth = p->depth.id ? rg_context_texture(ctx, p->depth) : 0});
  ty_render_set_state(R, &(ty_gl_pipeline_desc){.depth = p->depth.id ? TY_GL_DEPTH_LEQUAL : TY_GL_DEPTH_OFF,
                                                .no_depth_write = true, .blend = TY_GL_BLEND_ALPHA,
                                                .cull = TY_GL_CULL_NONE});
  ty_render_bind_frame(R, F);
  ty_gl_use_program(dev, p->prog->gl);
  ty_gl_bind_vertex_array(dev, gpu.world_stream.va);
  ty_gl_sampler linear = ty_render_sampler_get(R, TY_SAMPLER_LINEAR_CLAMP);
  for (uint32_t i = 0; i < w->run_count; i++) {
    const ty_draw2d_run *r = &w->runs[i];
    ty_gl_bind_texture(dev, 0, gpu.pages[r->key], linear);
    ty_gl_draw(dev, TY_GL_TRIANGLES, r->first * 6, r->count * 6, 1);
    ty_render_stats_mut(R)->draw_calls++;
  }
  ty_render_set_state(R, NULL);
}

bool ty_render_add_world_text(ty_renderer *R, ty_frame *F) {
  TY_ASSERT(R && F);
  if (!F->hdr.id || !ty_render_device(R)) return true; /* no scene target: the 2D pass draws it */
  ty_program *prog = ty_render_program(R, "draw/world_text.vert", "draw/draw2d.frag", "#define SDF 1\n#define WORLD 1\n");
  if (!prog) {
    char msg[2048];
    snprintf(msg, sizeof msg, "%s", ty_render_error(R));
    ty_render_fail(R, "render_feature_disabled", "tycho.Text: %s", msg);
    return false;
  }
  const ty_draw2d_world *w = ty_draw2d_take_world(F);
  if (!w->quads) return true;
  /* Depth-tested against what the scene drew into depth; none drawn: over everything. */
  bool depth = F->depth.id && ty_render_written(R, F->depth);
  rg_resource reads[2] = {F->hdr, F->depth};
  ty_render_mark_write(R, F->hdr);
  ty_render_add_pass(R, F,
                     &(rg_pass_desc){.name = "WorldText", .kind = RG_PASS_RASTER, .reads = reads,
                                     .read_count = depth ? 2 : 1, .writes = &F->hdr, .write_count = 1},
                     world_execute,
                     &(world_pass){.prog = prog, .hdr = F->hdr, .depth = depth ? F->depth : (rg_resource){0}, .w = w},
                     sizeof(world_pass));
  return true;
}

#else

bool ty_render_add_world_text(ty_renderer *R, ty_frame *F) {
  (void)R, (void)F;
  return true;
}

ty_gl_texture ty_render_glyph_page(ty_renderer *R, uint32_t page) {
  (void)R, (void)page;
  return (ty_gl_texture){0};
}

bool ty_render_add_draw2d(ty_renderer *R, ty_frame *F) {
  TY_ASSERT(R && F);
  ty_text_next_frame();
  ty_draw_clear(R);
  return true;
}

#endif
