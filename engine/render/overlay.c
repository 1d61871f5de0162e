/* engine/render/overlay.c: the debug overlay (F3): FPS, a frame-time graph, draw counts and
 * the passes run so far, in the engine font (engine_font.c) over a dark panel in a corner
 * of the backbuffer. Glyphs come from the shared glyph atlas (engine/text); the panel and
 * the graph's bars are vertices the shader does not texture, so the whole overlay is one
 * draw (one more for each further atlas page its glyphs landed on). */
#include <math.h>
#include <string.h>

#include "../text/text.h"
#include "features_forward.h"
#include "gl_stream.h"
#include "render_internal.h"

size_t ty_render_overlay_text(ty_renderer *R, const ty_frame *F, char *buf, size_t size) {
  float times[120];
  uint32_t nt = ty_render_frame_times(R, times, 120);
  double avg = 0, worst = 0;
  for (uint32_t i = 0; i < nt; i++) {
    avg += times[i];
    if (times[i] > worst) worst = times[i];
  }
  avg = nt ? avg / nt : 0;
  const ty_render_stats *st = ty_render_stats_mut(R);
  uint32_t np = 0;
  const ty_render_pass_time *pt = ty_render_pass_times(R, &np);
  /* Shadow casters are counted whether or not a Shadow pass draws them: the figure shows
   * only when one ran (a shadow count with shadows off reads as a bug). */
  bool shadows = false;
  for (uint32_t i = 0; i < np; i++)
    if (strncmp(pt[i].name, "Shadow", 6) == 0) shadows = true;
  size_t len = 0;
#define OUT(...)                                                                        \
  do {                                                                                  \
    int n_ = snprintf(buf ? buf + len : NULL, buf && len < size ? size - len : 0, __VA_ARGS__); \
    if (n_ > 0) len += (size_t)n_;                                                      \
  } while (0)
  OUT("%.1f FPS  %.2f ms (worst %.2f)\ndraw calls %u  draws %u  instances %u  triangles %llu\n",
      avg > 0 ? 1.0 / avg : 0.0, avg * 1000.0, worst * 1000.0, st->draw_calls, st->draws, st->instances,
      (unsigned long long)st->triangles);
  OUT("opaque %u  transparent %u", F->buckets.opaque, F->buckets.transparent);
  if (shadows) {
    OUT("  shadow %u", F->buckets.shadow);
    for (uint32_t c = 0; c < F->buckets.cascades; c++) /* each cascade's casters: "(412/380/97/20)" */
      OUT("%s%u%s", c ? "/" : " (", F->buckets.shadow_cascade[c], c + 1 == F->buckets.cascades ? ")" : "");
  }
  OUT("  culled %u  lights %u\n", F->buckets.culled, F->light_count);
  /* The passes that ran this frame before the overlay (culled ones never run): the CPU's
   * time for each and, once the timer queries of a finished frame are read, the GPU's. */
  double total = 0, gpu_total = 0;
  bool timed = false, gpu_timed = false;
  for (uint32_t i = 0; i < np; i++) {
    if (pt[i].ms >= 0 && pt[i].gpu_ms >= 0) {
      OUT("  %-22s %7.2f ms  gpu %7.2f ms\n", pt[i].name, pt[i].ms, pt[i].gpu_ms);
      gpu_total += pt[i].gpu_ms, gpu_timed = true;
    } else if (pt[i].ms >= 0) {
      OUT("  %-22s %7.2f ms\n", pt[i].name, pt[i].ms);
    } else {
      OUT("  %s\n", pt[i].name);
    }
    if (pt[i].ms >= 0) total += pt[i].ms, timed = true;
  }
  if (gpu_timed) OUT("  %-22s %7.2f ms  gpu %7.2f ms\n", "passes", total, gpu_total);
  else if (timed) OUT("  %-22s %7.2f ms\n", "passes", total);
#undef OUT
  if (buf && size) buf[len < size ? len : size - 1] = 0;
  return len;
}

#if TYCHO_WITH_GL
/* One overlay vertex: pixels from the top-left, atlas texture coordinates (u < 0: a flat
 * rectangle, no texture) and a colour. */
typedef struct overlay_vertex {
  float x, y, u, v;
  uint8_t rgba[4];
} overlay_vertex;

/* A quad as laid out: its corners (top-left, top-right, bottom-right, bottom-left) and the
 * atlas page it samples (UINT32_MAX: none). */
typedef struct overlay_quad {
  overlay_vertex v[4];
  uint32_t page;
} overlay_quad;

static struct {
  ty_gl_stream stream;
  overlay_quad *quads;
  uint32_t count, quad_cap;
  overlay_vertex *cpu;
  uint32_t cpu_cap;
} overlay;
#endif

void ty_feature_overlay_release(ty_renderer *R) {
#if TYCHO_WITH_GL
  ty_gl_stream_release(&overlay.stream, ty_render_device(R));
  TY_FREE(overlay.quads);
  TY_FREE(overlay.cpu);
  memset(&overlay, 0, sizeof overlay);
#else
  (void)R;
#endif
}

#if TYCHO_WITH_GL
static void push_quad(float x0, float y0, float x1, float y1, float u0, float v0, float u1, float v1, uint32_t page,
                      const uint8_t c[4]) {
  TY_GROW(overlay.quads, overlay.quad_cap, overlay.count + 1);
  overlay_quad *q = &overlay.quads[overlay.count++];
  q->v[0] = (overlay_vertex){x0, y0, u0, v0, {c[0], c[1], c[2], c[3]}};
  q->v[1] = (overlay_vertex){x1, y0, u1, v0, {c[0], c[1], c[2], c[3]}};
  q->v[2] = (overlay_vertex){x1, y1, u1, v1, {c[0], c[1], c[2], c[3]}};
  q->v[3] = (overlay_vertex){x0, y1, u0, v1, {c[0], c[1], c[2], c[3]}};
  q->page = page;
}

static void overlay_rect(float x0, float y0, float x1, float y1, const uint8_t c[4]) {
  push_quad(x0, y0, x1, y1, -1, -1, -1, -1, UINT32_MAX, c);
}

/* Where a line splits into a name and a right-aligned figure ("  Sky      1.09 ms"): the
 * text's monospace columns do not line up in a proportional font, so the figure after
 * the last run of two spaces is aligned on its right edge instead. Returns the name's
 * length (the whole line when it has no figure) and the figure's start in *fig. */
static size_t split_figure(const char *line, size_t n, size_t *fig) {
  *fig = n;
  if (n < 2 || line[n - 1] != 's') return n; /* figures end in "ms" */
  size_t i = n;
  while (i > 1 && !(line[i - 1] == ' ' && line[i - 2] == ' ')) i--;
  if (i <= 1) return n;
  *fig = i;
  size_t name = i;
  while (name > 0 && line[name - 1] == ' ') name--;
  return name;
}

/* Draws text's lines from (x, y), the top of the first, each figure ending at x + right
 * (right 0: lines drawn as they are); returns the height they took. */
static float overlay_text(ty_font *font, float x, float y, float right, const char *text, const uint8_t c[4]) {
  float lh = ty_font_height(font);
  float lines = 0;
  while (*text) {
    size_t n = strcspn(text, "\n"), fig = n;
    size_t name = right > 0 ? split_figure(text, n, &fig) : n;
    const ty_text_quad *tq;
    for (int part = 0; part < 2; part++) {
      const char *s = part ? text + fig : text;
      size_t len = part ? n - fig : name;
      if (!len) continue;
      float px = part ? x + right - ty_font_width(font, s, len) : x;
      uint32_t k = ty_font_layout(font, s, len, floorf(px), y + lines * lh, &tq, NULL);
      for (uint32_t i = 0; i < k; i++)
        push_quad(tq[i].x0, tq[i].y0, tq[i].x1, tq[i].y1, tq[i].u0, tq[i].v0, tq[i].u1, tq[i].v1, tq[i].page, c);
    }
    lines += 1;
    text += n;
    if (*text == '\n') text++;
  }
  return lines * lh;
}

/* Measures text the way overlay_text draws it: widens *w to its widest line, adds its
 * height to *h; *right (may be NULL) gets where its figures end: past the widest name
 * by a gap and the widest figure. */
static void overlay_measure(ty_font *font, const char *text, float *w, float *h, float *right) {
  float lh = ty_font_height(font), names = 0, figs = 0;
  for (const char *s = text; *s;) {
    size_t n = strcspn(s, "\n"), fig = n;
    size_t name = right ? split_figure(s, n, &fig) : n;
    names = fmaxf(names, ty_font_width(font, s, name));
    figs = fmaxf(figs, ty_font_width(font, s + fig, n - fig));
    *h += lh;
    s += n;
    if (*s == '\n') s++;
  }
  float line = figs > 0 ? names + 2 * lh + figs : names;
  if (right) *right = figs > 0 ? line : 0;
  if (line > *w) *w = line;
}

typedef struct overlay_pass {
  ty_program *prog;
  ty_font *font;
  float scale; /* whole pixels a layout pixel: the panel grows with large frames */
  rg_resource out;
  const char *extra; /* per-frame copy */
  ty_overlay_corner corner;
} overlay_pass;

/* Lays the overlay out into overlay.quads. */
static void overlay_layout(ty_renderer *R, const ty_frame *F, const overlay_pass *p) {
  overlay.count = 0;
  float times[120];
  uint32_t nt = ty_render_frame_times(R, times, 120);
  /* A dark panel under everything, so the text reads over a bright sky. */
  static const uint8_t bg[4] = {0, 0, 0, 200}, fg[4] = {255, 255, 255, 255}, dim[4] = {180, 220, 255, 255},
                       bar[4] = {90, 220, 90, 230}, slow[4] = {240, 80, 60, 235};
  size_t need = ty_render_overlay_text(R, F, NULL, 0) + 1;
  char *text = ty_render_frame_alloc(R, need);
  ty_render_overlay_text(R, F, text, need);
  /* The first three lines above the graph, the pass list under it. */
  char *list = text;
  for (int k = 0; k < 3 && list; k++) list = strchr(list, '\n') ? strchr(list, '\n') + 1 : NULL;
  if (list) list[-1] = 0;
  const float s = p->scale, pad = 6 * s, gh = 40 * s, bw = 2 * s, graph_w = 120 * bw;
  float w = graph_w, h = 0, figures = 0;
  overlay_measure(p->font, text, &w, &h, NULL);
  h += 4 * s + gh + 6 * s;
  if (list) overlay_measure(p->font, list, &w, &h, &figures);
  if (p->extra) overlay_measure(p->font, p->extra, &w, &h, NULL);
  w = ceilf(w + 2 * pad), h = ceilf(h + 2 * pad);
  /* Its corner, a margin from the edges, on whole pixels so glyphs sample texel for pixel. */
  const float margin = 8 * fmaxf(1.0f, s); /* never under 8 pixels, however small the text */
  bool right = p->corner == TY_OVERLAY_BOTTOM_RIGHT || p->corner == TY_OVERLAY_TOP_RIGHT;
  bool bottom = p->corner == TY_OVERLAY_BOTTOM_RIGHT || p->corner == TY_OVERLAY_BOTTOM_LEFT;
  float x0 = floorf(right ? (float)F->width - w - margin : margin);
  float y0 = floorf(bottom ? (float)F->height - h - margin : margin);
  if (x0 < 0) x0 = 0;
  if (y0 < 0) y0 = 0;
  overlay_rect(x0, y0, x0 + w, y0 + h, bg);
  float x = x0 + pad, y = y0 + pad;
  y += overlay_text(p->font, x, y, 0, text, fg);
  float gy = y + 4 * s;
  for (uint32_t i = 0; i < nt; i++) {
    float bh = fminf(times[i] / (1.0f / 30.0f), 1.0f) * gh;
    float bx = x + (float)i * bw;
    overlay_rect(bx, gy + gh - bh, bx + bw * 0.75f, gy + gh, times[i] > 1.0f / 55.0f ? slow : bar);
  }
  y = gy + gh + 6 * s;
  if (list) y += overlay_text(p->font, x, y, figures, list, dim);
  if (p->extra) overlay_text(p->font, x, y, 0, p->extra, fg);
}

/* Vertices of the quads sampling page (the flat ones with the first page drawn, `flat`),
 * appended to overlay.cpu from *at as two triangles each; the count written. */
static uint32_t emit_page(uint32_t page, bool flat, uint32_t at) {
  static const int tri[6] = {0, 1, 2, 0, 2, 3};
  uint32_t n = 0;
  for (uint32_t i = 0; i < overlay.count; i++) {
    const overlay_quad *q = &overlay.quads[i];
    if (q->page != page && !(flat && q->page == UINT32_MAX)) continue;
    for (int k = 0; k < 6; k++) overlay.cpu[at + n++] = q->v[tri[k]];
  }
  return n;
}

static void overlay_execute(ty_renderer *R, ty_frame *F, const rg_pass_context *ctx, void *data) {
  overlay_pass *p = data;
  ty_gl_device *dev = ty_render_device(R);
  overlay_layout(R, F, p);
  /* One run a page the glyphs use, in page order; the panel and bars go first in the
   * first run (they lie under the text or beside it, so drawing them first is the same). */
  uint32_t first_page = UINT32_MAX;
  bool used[TY_TEXT_MAX_PAGES] = {0};
  for (uint32_t i = 0; i < overlay.count; i++) {
    uint32_t pg = overlay.quads[i].page;
    if (pg == UINT32_MAX) continue;
    used[pg] = true;
    if (pg < first_page) first_page = pg;
  }
  TY_GROW(overlay.cpu, overlay.cpu_cap, overlay.count * 6);
  uint32_t run_first[TY_TEXT_MAX_PAGES + 1], run_count[TY_TEXT_MAX_PAGES + 1], run_page[TY_TEXT_MAX_PAGES + 1];
  uint32_t runs = 0, total = 0;
  if (first_page == UINT32_MAX) { /* no glyph at all: the flat quads alone */
    run_first[0] = 0, run_page[0] = 0, run_count[0] = emit_page(UINT32_MAX, true, 0);
    total = run_count[0], runs = 1;
  }
  for (uint32_t pg = 0; pg < TY_TEXT_MAX_PAGES; pg++) {
    if (!used[pg]) continue;
    uint32_t n = emit_page(pg, pg == first_page, total);
    run_first[runs] = total, run_count[runs] = n, run_page[runs++] = pg;
    total += n;
  }

  ty_gl_vertex_array_desc vd = {.label = "overlay"};
  vd.bindings[0].stride = sizeof(overlay_vertex);
  vd.attrs[0] = (ty_gl_vertex_attr){TY_GL_VERTEX_FLOAT2, 0, offsetof(overlay_vertex, x)};
  vd.attrs[1] = (ty_gl_vertex_attr){TY_GL_VERTEX_FLOAT2, 0, offsetof(overlay_vertex, u)};
  vd.attrs[2] = (ty_gl_vertex_attr){TY_GL_VERTEX_UBYTE4N, 0, offsetof(overlay_vertex, rgba)};
  if (!total || !ty_gl_stream_reserve(&overlay.stream, dev, total, 0, &vd)) return;
  ty_gl_update_buffer(dev, overlay.stream.buffer, 0, overlay.cpu, (size_t)total * sizeof(overlay_vertex));
  ty_render_target(R, &(ty_render_target_desc){.colors = {rg_context_texture(ctx, p->out)}, .color_count = 1});
  ty_render_set_state(R, &(ty_gl_pipeline_desc){.depth = TY_GL_DEPTH_OFF, .blend = TY_GL_BLEND_ALPHA, .cull = TY_GL_CULL_NONE});
  ty_gl_use_program(dev, p->prog->gl);
  ty_gl_set_uniform(dev, p->prog->gl, 0, TY_GL_UNIFORM_VEC2, 1, (const float[2]){(float)F->width, (float)F->height});
  ty_gl_bind_vertex_array(dev, overlay.stream.va);
  ty_gl_sampler nearest = ty_render_sampler_get(R, TY_SAMPLER_NEAREST_CLAMP);
  for (uint32_t i = 0; i < runs; i++) {
    ty_gl_bind_texture(dev, 0, ty_render_glyph_page(R, run_page[i]), nearest);
    ty_gl_draw(dev, TY_GL_TRIANGLES, run_first[i], run_count[i], 1);
    ty_render_stats_mut(R)->draw_calls++;
  }
  ty_render_set_state(R, NULL);
}
#endif

bool ty_feature_overlay(ty_renderer *R, ty_frame *F, const ty_feature_opts *o) {
  if (!ty_render_overlay(R)) return true; /* toggled off: nothing to draw */
#if TYCHO_WITH_GL
  overlay_pass op = {.out = F->backbuffer, .corner = o->overlay.corner};
  if (ty_render_device(R)) {
    /* 13-pixel text from a 480-line frame up to a 1080-line one, whole multiples above (crisp
     * on a dense screen), smaller below 480 lines (down to 8 pixels) so the panel leaves a
     * small window's game in view. */
    op.scale = F->height >= 1080 ? floorf((float)F->height / 1080.0f) : fminf(1.0f, fmaxf(8.0f / 13.0f, (float)F->height / 480.0f));
    op.prog = ty_render_program(R, "forward/overlay.vert", "forward/overlay.frag", NULL);
    op.font = op.prog ? ty_render_engine_font(R, 13.0f * op.scale) : NULL;
    if (!op.font) {
      char msg[2048];
      snprintf(msg, sizeof msg, "%s", ty_render_error(R));
      ty_render_fail(R, "render_feature_disabled", "Overlay: %s", msg);
      return false;
    }
  }
  if (o->overlay.text) {
    size_t n = strlen(o->overlay.text) + 1;
    char *copy = ty_render_frame_alloc(R, n);
    memcpy(copy, o->overlay.text, n);
    op.extra = copy;
  }
  rg_resource rw = F->backbuffer;
  ty_render_mark_write(R, rw);
  ty_render_add_pass(R, F,
                     &(rg_pass_desc){.name = "Overlay", .kind = RG_PASS_RASTER, .reads = &rw, .read_count = 1,
                                     .writes = &rw, .write_count = 1, .side_effect = true},
                     overlay_execute, &op, sizeof op);
#else
  (void)F, (void)o;
#endif
  return true;
}
