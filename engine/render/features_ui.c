/* engine/render/features_ui.c: the UI layer of ui.h: a queue of screen-space triangles
 * (rectangles, and text in the engine font: glyphs of the shared atlas) drawn by one pass
 * over the backbuffer after Tonemap, in runs of the same texture. HUDs, menus and the
 * engine's error box are built from it (examples/crafty, scripts/tycho/engine.lua). */
#include "ui.h"
#include "features_ui.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "../text/text.h"
#include "gl_stream.h"
#include "render_internal.h"

/* A run's texture: a renderer texture id, or UI_ATLAS | a glyph atlas page. */
#define UI_ATLAS 0x80000000u

typedef struct ui_vertex {
  float x, y, u, v;
  uint8_t rgba[4];
} ui_vertex; /* 20 bytes */

/* A run of vertices drawn with one texture. */
typedef struct ui_run {
  uint32_t texture, first, count;
} ui_run;

/* One queue per process: a game has one renderer; the device fields say whose GPU
 * objects these are so a new device never sees stale ones. */
static struct {
  ui_vertex *verts;
  uint32_t count, cap;
  ui_run *runs;
  uint32_t run_count, run_cap;
  bool dropped_logged;
#if TYCHO_WITH_GL
  ty_gl_stream stream;
#endif
} ui;

/* UI colours are sRGB, as given: a channel c is the byte c * 255 with halves rounding up,
 * the rule Tonemap's output follows, so a sprite and a rectangle of one colour match. */
static void to_bytes(const float c[4], uint8_t out[4]) {
  for (int i = 0; i < 4; i++) {
    float v = c ? c[i] : 1.0f;
    v = v < 0 ? 0 : v > 1 ? 1 : v;
    out[i] = (uint8_t)floorf(v * 255.0f + 0.5f);
  }
}

/* Room for n more vertices in a run of texture; NULL (dropped) past the cap. */
static ui_vertex *reserve(uint32_t texture, uint32_t n) {
  if (ui.count + n > TY_UI_MAX_VERTICES) {
    if (!ui.dropped_logged) ty_log("ui_queue_full", "more than %u UI vertices in one frame: the rest are dropped",
                                   TY_UI_MAX_VERTICES);
    ui.dropped_logged = true;
    return NULL;
  }
  TY_GROW(ui.verts, ui.cap, ui.count + n);
  if (!ui.run_count || ui.runs[ui.run_count - 1].texture != texture) {
    TY_GROW(ui.runs, ui.run_cap, ui.run_count + 1);
    ui.runs[ui.run_count++] = (ui_run){texture, ui.count, 0};
  }
  ui.runs[ui.run_count - 1].count += n;
  ui_vertex *v = ui.verts + ui.count;
  ui.count += n;
  return v;
}

void ty_ui_rect(ty_renderer *R, float x, float y, float w, float h, const float rgba[4], uint32_t texture,
                const float uv[4]) {
  (void)R;
  ui_vertex *v = reserve(texture, 6);
  if (!v) return;
  uint8_t c[4];
  to_bytes(rgba, c);
  /* uv is in image terms (v down from the top row); textures are stored bottom row first. */
  float u0 = uv ? uv[0] : 0, v0 = uv ? uv[1] : 0, u1 = uv ? uv[2] : 1, v1 = uv ? uv[3] : 1;
  const float xs[4] = {x, x + w, x + w, x}, ys[4] = {y, y, y + h, y + h};
  const float us[4] = {u0, u1, u1, u0}, vs[4] = {1 - v0, 1 - v0, 1 - v1, 1 - v1};
  static const int order[6] = {0, 1, 2, 0, 2, 3};
  for (int k = 0; k < 6; k++) {
    int i = order[k];
    v[k] = (ui_vertex){xs[i], ys[i], us[i], vs[i], {c[0], c[1], c[2], c[3]}};
  }
}

/* The engine font for scale (its em 10 * scale pixels, as the old bitmap lines were
 * tall), and in *k how much its pixels stretch past the largest size a font loads at. */
static ty_font *ui_font(ty_renderer *R, float scale, float *k) {
  float size = fmaxf(1.0f, roundf(10.0f * scale));
  if (size > TY_TEXT_MAX_SIZE) size = TY_TEXT_MAX_SIZE;
  *k = 10.0f * scale / size;
  if (fabsf(*k - 1.0f) < 0.05f) *k = 1.0f; /* rounding to a whole size: draw it texel for pixel */
  return ty_render_engine_font(R, size);
}

/* Measures each line of text and, with a colour, queues its glyphs from (x, y), the top
 * of the first line; returns the widest line and the line count in *lines. */
static float for_lines(ty_renderer *R, const char *text, float scale, float x, float y, const uint8_t *c,
                       int *lines) {
  float k;
  ty_font *font = ui_font(R, scale, &k);
  *lines = 0;
  if (!font) {
    ty_log("ui_font_missing", "%s", ty_render_error(R));
    return 0;
  }
  float lh = ty_font_height(font), widest = 0;
  x = floorf(x + 0.5f), y = floorf(y + 0.5f); /* glyphs on whole pixels sample texel for pixel */
  while (*text || *lines == 0) {
    size_t n = strcspn(text, "\n");
    float w;
    const ty_text_quad *q;
    uint32_t count = c ? ty_font_layout(font, text, n, 0, 0, &q, &w) : 0;
    if (!c) w = ty_font_width(font, text, n);
    if (w * k > widest) widest = w * k;
    float top = (float)*lines * lh;
    for (uint32_t i = 0; i < count; i++) {
      ui_vertex *v = reserve(UI_ATLAS | q[i].page, 6);
      if (!v) break;
      const float xs[4] = {q[i].x0, q[i].x1, q[i].x1, q[i].x0}, ys[4] = {q[i].y0, q[i].y0, q[i].y1, q[i].y1};
      const float us[4] = {q[i].u0, q[i].u1, q[i].u1, q[i].u0}, vs[4] = {q[i].v0, q[i].v0, q[i].v1, q[i].v1};
      static const int tri[6] = {0, 1, 2, 0, 2, 3};
      for (int t = 0; t < 6; t++) {
        int j = tri[t];
        v[t] = (ui_vertex){x + xs[j] * k, y + (top + ys[j]) * k, us[j], vs[j], {c[0], c[1], c[2], c[3]}};
      }
    }
    (*lines)++;
    text += n;
    if (*text == '\n') text++;
    else break;
  }
  return widest;
}

float ty_ui_text(ty_renderer *R, float x, float y, float scale, const float rgba[4], const char *text) {
  TY_ASSERT(R && text);
  uint8_t c[4];
  to_bytes(rgba, c);
  int lines;
  return for_lines(R, text, scale > 0 ? scale : 1, x, y, c, &lines);
}

void ty_ui_measure(ty_renderer *R, const char *text, float scale, float *width, float *height) {
  TY_ASSERT(R && text);
  if (scale <= 0) scale = 1;
  int lines;
  float w = for_lines(R, text, scale, 0, 0, NULL, &lines);
  float k;
  ty_font *font = ui_font(R, scale, &k);
  if (width) *width = w;
  if (height) *height = font ? (float)lines * ty_font_height(font) * k : 0;
}

uint32_t ty_ui_queued(const ty_renderer *R) {
  (void)R;
  return ui.count;
}

void ty_ui_clear(ty_renderer *R) {
  (void)R;
  ui.count = 0;
  ui.run_count = 0;
}

void ty_features_ui_release(ty_renderer *R) {
#if TYCHO_WITH_GL
  ty_gl_stream_release(&ui.stream, ty_render_device(R));
#else
  (void)R;
#endif
}

#if TYCHO_WITH_GL
typedef struct ui_pass {
  ty_program *prog;
  rg_resource out;
  ui_vertex *verts; /* per-frame copies */
  ui_run *runs;
  uint32_t count, run_count;
} ui_pass;

static void ui_execute(ty_renderer *R, ty_frame *F, const rg_pass_context *ctx, void *data) {
  ui_pass *p = data;
  ty_gl_device *dev = ty_render_device(R);
  if (!p->count) return;
  ty_gl_vertex_array_desc vd = {.label = "ui"};
  vd.bindings[0].stride = sizeof(ui_vertex);
  vd.attrs[0] = (ty_gl_vertex_attr){TY_GL_VERTEX_FLOAT2, 0, offsetof(ui_vertex, x)};
  vd.attrs[1] = (ty_gl_vertex_attr){TY_GL_VERTEX_FLOAT2, 0, offsetof(ui_vertex, u)};
  vd.attrs[2] = (ty_gl_vertex_attr){TY_GL_VERTEX_UBYTE4N, 0, offsetof(ui_vertex, rgba)};
  if (!ty_gl_stream_reserve(&ui.stream, dev, p->count, 0, &vd)) return;
  ty_gl_update_buffer(dev, ui.stream.buffer, 0, p->verts, p->count * sizeof(ui_vertex));
  ty_render_target(R, &(ty_render_target_desc){.colors = {rg_context_texture(ctx, p->out)}, .color_count = 1});
  ty_render_set_state(R, &(ty_gl_pipeline_desc){.depth = TY_GL_DEPTH_OFF, .blend = TY_GL_BLEND_ALPHA, .cull = TY_GL_CULL_NONE});
  ty_gl_use_program(dev, p->prog->gl);
  ty_gl_set_uniform(dev, p->prog->gl, 0, TY_GL_UNIFORM_VEC2, 1, (const float[2]){(float)F->width, (float)F->height});
  ty_gl_bind_vertex_array(dev, ui.stream.va);
  ty_gl_sampler smp = ty_render_sampler_get(R, TY_SAMPLER_LINEAR_CLAMP);
  ty_gl_sampler nearest = ty_render_sampler_get(R, TY_SAMPLER_NEAREST_CLAMP);
  for (uint32_t i = 0; i < p->run_count; i++) {
    uint32_t t = p->runs[i].texture;
    /* Glyphs sit on whole pixels at their size: nearest is exact (and stretched ones blur
     * less than linear would smear them). */
    if (t & UI_ATLAS) ty_gl_bind_texture(dev, 0, ty_render_glyph_page(R, t & ~UI_ATLAS), nearest);
    else ty_gl_bind_texture(dev, 0, ty_render_texture_gl(R, t), smp);
    ty_gl_draw(dev, TY_GL_TRIANGLES, p->runs[i].first, p->runs[i].count, 1);
    ty_render_stats_mut(R)->draw_calls++;
  }
  ty_render_set_state(R, NULL);
}
#endif

bool ty_render_add_ui(ty_renderer *R, ty_frame *F) {
  TY_ASSERT(R && F);
  bool ok = true;
#if TYCHO_WITH_GL
  if (ui.count && F->backbuffer.id) {
    ty_program *prog = NULL;
    if (ty_render_device(R)) {
      prog = ty_render_program(R, "ui/ui.vert", "ui/ui.frag", NULL);
      if (!prog) {
        char msg[2048];
        snprintf(msg, sizeof msg, "%s", ty_render_error(R));
        ty_render_fail(R, "render_feature_disabled", "UI: %s", msg);
        ok = false;
      }
    }
    if (ok) {
      ui_pass up = {.prog = prog, .out = F->backbuffer, .count = ui.count, .run_count = ui.run_count};
      up.verts = ty_render_frame_alloc(R, ui.count * sizeof(ui_vertex));
      memcpy(up.verts, ui.verts, ui.count * sizeof(ui_vertex));
      up.runs = ty_render_frame_alloc(R, ui.run_count * sizeof(ui_run));
      memcpy(up.runs, ui.runs, ui.run_count * sizeof(ui_run));
      rg_resource rw = F->backbuffer;
      ty_render_mark_write(R, rw);
      ty_render_add_pass(R, F,
                         &(rg_pass_desc){.name = "UI", .kind = RG_PASS_RASTER, .reads = &rw, .read_count = 1,
                                         .writes = &rw, .write_count = 1, .side_effect = true},
                         ui_execute, &up, sizeof up);
    }
  }
#else
  (void)F;
#endif
  ui.count = 0;
  ui.run_count = 0;
  ui.dropped_logged = false;
  return ok;
}
