/* engine/render/draw2d.c: the tycho.draw queue of draw2d.h: shapes, images and laid-out
 * text become quads in runs of one texture; world text waits for the frame's camera.
 * draw2d_pass.c draws what ty_draw2d_take hands it. */
#include <math.h>
#include <string.h>

#include "draw2d_internal.h"
#include "render_internal.h"

typedef ty_draw2d_vertex dvertex;
typedef ty_draw2d_run drun;
typedef ty_draw2d_queue dqueue;
#define ATLAS TY_DRAW2D_ATLAS
#define SMOOTH TY_DRAW2D_SMOOTH

/* A world text: its quads in the world list and where its origin is (for sorting). */
typedef struct wtext {
  uint32_t first, count;
  float origin[3];
} wtext;

typedef struct wquad {
  float p[4][3];
  float uv[4]; /* u0, v0, u1, v1 */
  uint32_t page;
  uint8_t rgba[4];
} wquad;

/* One queue per process, as the UI layer's; `drawn` is the queue handed to this frame's
 * pass (the two swap, so a frame's vertices are never copied). */
static struct {
  dqueue q, drawn, spare; /* spare: the 2D queue's place while world text goes first */
  wtext *texts;
  uint32_t text_count, text_cap;
  wquad *wquads;
  uint32_t wquad_count, wquad_cap;
  bool dropped_logged;
  ty_draw2d_world world; /* what ty_draw2d_take_world last handed out */
} d;

static void to_bytes(const float c[4], uint8_t out[4]) {
  for (int i = 0; i < 4; i++) {
    float v = c ? c[i] : 1.0f;
    v = v < 0 ? 0 : v > 1 ? 1 : v;
    out[i] = (uint8_t)floorf(v * 255.0f + 0.5f);
  }
}

/* Room for n quads of texture key, or NULL when headless or past the cap (dropped). */
static dvertex *reserve(ty_renderer *R, uint32_t key, uint32_t n) {
  if (!ty_render_device(R)) return NULL;
  dqueue *q = &d.q;
  if (q->quads + n > TY_DRAW_MAX_QUADS) {
    if (!d.dropped_logged)
      ty_log("draw_queue_full", "more than %u tycho.draw quads in one frame: the rest are dropped", TY_DRAW_MAX_QUADS);
    d.dropped_logged = true;
    return NULL;
  }
  TY_GROW(q->verts, q->cap, (q->quads + n) * 4);
  if (!q->run_count || q->runs[q->run_count - 1].key != key) {
    TY_GROW(q->runs, q->run_cap, q->run_count + 1);
    q->runs[q->run_count++] = (drun){key, q->quads, 0};
  }
  q->runs[q->run_count - 1].count += n;
  dvertex *v = q->verts + q->quads * 4;
  q->quads += n;
  return v;
}

static void quad(dvertex *v, const float xy[8], const float uv[8], const uint8_t c[4]) {
  for (int i = 0; i < 4; i++) v[i] = (dvertex){xy[2 * i], xy[2 * i + 1], uv[2 * i], uv[2 * i + 1], {c[0], c[1], c[2], c[3]}};
}

static const float WHITE_UV[8] = {0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f};

static void flat(dvertex *v, float x0, float y0, float x1, float y1, const uint8_t c[4]) {
  quad(v, (const float[8]){x0, y0, x1, y0, x1, y1, x0, y1}, WHITE_UV, c);
}

void ty_draw_rect(ty_renderer *R, bool fill, float x, float y, float w, float h, const float rgba[4]) {
  if (w < 0) x += w, w = -w;
  if (h < 0) y += h, h = -h;
  dvertex *v = reserve(R, TY_RENDER_TEXTURE_WHITE, fill ? 1 : 4);
  if (!v) return;
  uint8_t c[4];
  to_bytes(rgba, c);
  if (fill) return flat(v, x, y, x + w, y + h, c);
  /* A one-pixel outline just inside the rectangle, its sides not overlapping. */
  float t = fminf(1, h), s = fminf(1, w);
  flat(v, x, y, x + w, y + t, c);
  flat(v + 4, x, y + h - t, x + w, y + h, c);
  flat(v + 8, x, y + t, x + s, y + h - t, c);
  flat(v + 12, x + w - s, y + t, x + w, y + h - t, c);
}

void ty_draw_circle(ty_renderer *R, bool fill, float x, float y, float radius, const float rgba[4]) {
  if (!(radius > 0)) return;
  uint32_t n = (uint32_t)fminf(256, fmaxf(12, ceilf(radius * 1.2f)));
  dvertex *v = reserve(R, TY_RENDER_TEXTURE_WHITE, n);
  if (!v) return;
  uint8_t c[4];
  to_bytes(rgba, c);
  float r0 = fill ? 0 : radius - 0.5f, r1 = fill ? radius : radius + 0.5f;
  for (uint32_t i = 0; i < n; i++) {
    float a0 = (float)i / (float)n * 6.2831853f, a1 = (float)(i + 1) / (float)n * 6.2831853f;
    float c0 = cosf(a0), s0 = sinf(a0), c1 = cosf(a1), s1 = sinf(a1);
    /* Fill: a triangle from the centre (its last corner repeated); line: a ring segment. */
    quad(v + 4 * i, (const float[8]){x + c0 * r0, y + s0 * r0, x + c0 * r1, y + s0 * r1, x + c1 * r1, y + s1 * r1,
                                     x + c1 * r0, y + s1 * r0}, WHITE_UV, c);
  }
}

void ty_draw_line(ty_renderer *R, float x1, float y1, float x2, float y2, const float rgba[4], float width) {
  float dx = x2 - x1, dy = y2 - y1, len = sqrtf(dx * dx + dy * dy);
  if (!(len > 0) || !(width > 0)) return;
  dvertex *v = reserve(R, TY_RENDER_TEXTURE_WHITE, 1);
  if (!v) return;
  uint8_t c[4];
  to_bytes(rgba, c);
  float nx = -dy / len * width * 0.5f, ny = dx / len * width * 0.5f;
  quad(v, (const float[8]){x1 + nx, y1 + ny, x2 + nx, y2 + ny, x2 - nx, y2 - ny, x1 - nx, y1 - ny}, WHITE_UV, c);
}

void ty_draw_image(ty_renderer *R, uint32_t texture, float x, float y, const float rect[4], float scale_x,
                   float scale_y, float rotation, const float rgba[4]) {
  uint32_t tw = 1, th = 1;
  if (!ty_render_texture_size(R, texture, &tw, &th) || !tw || !th) tw = th = 1;
  float r[4] = {0, 0, (float)tw, (float)th};
  if (rect) memcpy(r, rect, sizeof r);
  dvertex *v = reserve(R, texture, 1);
  if (!v) return;
  uint8_t c[4];
  to_bytes(rgba, c);
  float w = r[2] * scale_x, h = r[3] * scale_y, cs = cosf(rotation), sn = sinf(rotation);
  float xy[8], corners[8] = {0, 0, w, 0, w, h, 0, h};
  for (int i = 0; i < 4; i++) {
    xy[2 * i] = x + corners[2 * i] * cs - corners[2 * i + 1] * sn;
    xy[2 * i + 1] = y + corners[2 * i] * sn + corners[2 * i + 1] * cs;
  }
  /* Textures are stored bottom row first: v runs up from the image's last row. */
  float u0 = r[0] / (float)tw, u1 = (r[0] + r[2]) / (float)tw;
  float v0 = 1 - r[1] / (float)th, v1 = 1 - (r[1] + r[3]) / (float)th;
  quad(v, xy, (const float[8]){u0, v0, u1, v0, u1, v1, u0, v1}, c);
}

/* Where laid-out glyphs go: the 2D queue, or a world text's quads. */
typedef struct sink {
  ty_renderer *R;
  uint8_t c[4];
  const float *world; /* NULL: the 2D queue */
  float unit;         /* world units per pixel */
} sink;

static void put_glyphs(sink *k, const ty_text_quad *tq, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    const ty_text_quad *g = &tq[i];
    if (k->world) {
      if (d.wquad_count >= TY_DRAW_MAX_QUADS) return;
      TY_GROW(d.wquads, d.wquad_cap, d.wquad_count + 1);
      wquad *w = &d.wquads[d.wquad_count++];
      const float xs[4] = {g->x0, g->x1, g->x1, g->x0}, ys[4] = {g->y0, g->y0, g->y1, g->y1};
      for (int c = 0; c < 4; c++) {
        float lx = xs[c] * k->unit, ly = -ys[c] * k->unit; /* text y runs down the object's -Y */
        for (int r = 0; r < 3; r++) w->p[c][r] = k->world[r] * lx + k->world[4 + r] * ly + k->world[12 + r];
      }
      w->uv[0] = g->u0, w->uv[1] = g->v0, w->uv[2] = g->u1, w->uv[3] = g->v1;
      w->page = g->page;
      memcpy(w->rgba, k->c, 4);
      continue;
    }
    /* The glyphs from here on that share this one's page: one reservation. */
    uint32_t run = 1;
    while (i + run < n && tq[i + run].page == g->page) run++;
    dvertex *v = reserve(k->R, ATLAS | g->page, run);
    if (!v) return;
    for (uint32_t j = 0; j < run; j++, g++)
      quad(v + 4 * j, (const float[8]){g->x0, g->y0, g->x1, g->y0, g->x1, g->y1, g->x0, g->y1},
           (const float[8]){g->u0, g->v0, g->u1, g->v0, g->u1, g->v1, g->u0, g->v1}, k->c);
    i += run - 1;
  }
}

static void text_line(sink *k, ty_font *font, const char *s, size_t len, float x, float y) {
  const ty_text_quad *tq;
  uint32_t n = k->world ? ty_font_layout_sdf(font, s, len, x, y, &tq, NULL) : ty_font_layout(font, s, len, x, y, &tq, NULL);
  put_glyphs(k, tq, n);
}

static float aligned(float x, float box, float w, ty_draw_align align) {
  return align == TY_ALIGN_CENTER ? x + (box - w) * 0.5f : align == TY_ALIGN_RIGHT ? x + box - w : x;
}

/* Lays text out in a box whose top-left is (x, y) (see ty_draw_text) into k. */
static void layout_text(sink *k, ty_font *font, const char *s, size_t len, float x, float y, ty_draw_align align,
                        float width) {
  float lh = ty_font_height(font);
  if (width > 0) {
    const ty_text_line *lines;
    uint32_t n = ty_font_wrap(font, s, len, width, &lines);
    /* Copied: laying a line out reuses the buffer the lines came in. */
    ty_text_line *copy = n <= 64 ? (ty_text_line[64]){{0}} : TY_MALLOC(n * sizeof *copy);
    TY_ASSERT(copy);
    memcpy(copy, lines, n * sizeof *copy);
    for (uint32_t i = 0; i < n; i++)
      text_line(k, font, s + copy[i].start, copy[i].len, aligned(x, width, copy[i].width, align), y + lh * (float)i);
    if (n > 64) TY_FREE(copy);
    return;
  }
  float box = align == TY_ALIGN_LEFT ? 0 : ty_font_width(font, s, len);
  for (size_t at = 0, row = 0;; row++) {
    const char *nl = memchr(s + at, '\n', len - at);
    size_t end = nl ? (size_t)(nl - s) : len;
    float lx = align == TY_ALIGN_LEFT ? x : aligned(x, box, ty_font_width(font, s + at, end - at), align);
    text_line(k, font, s + at, end - at, lx, y + lh * (float)row);
    if (!nl) break;
    at = end + 1;
  }
}

void ty_draw_text(ty_renderer *R, ty_font *font, const char *s, size_t len, float x, float y, const float rgba[4],
                  ty_draw_align align, float width) {
  TY_ASSERT(font && (s || !len));
  if (!ty_render_device(R)) return;
  sink k = {.R = R};
  to_bytes(rgba, k.c);
  layout_text(&k, font, s, len, x, y, align, width);
}

void ty_draw_world_text(ty_renderer *R, ty_font *font, const char *s, size_t len, const float world[16],
                        const float rgba[4], ty_draw_align align, float width, float pixels_per_unit) {
  TY_ASSERT(font && (s || !len) && world);
  if (!ty_render_device(R) || !(pixels_per_unit > 0)) return;
  sink k = {.R = R, .world = world, .unit = 1.0f / pixels_per_unit};
  to_bytes(rgba, k.c);
  float box = width > 0 ? width : ty_font_width(font, s, len);
  TY_GROW(d.texts, d.text_cap, d.text_count + 1);
  wtext *t = &d.texts[d.text_count++];
  *t = (wtext){.first = d.wquad_count, .origin = {world[12], world[13], world[14]}};
  float left = align == TY_ALIGN_CENTER ? -box * 0.5f : align == TY_ALIGN_RIGHT ? -box : 0;
  layout_text(&k, font, s, len, left, 0, align, width);
  t = &d.texts[d.text_count - 1];
  t->count = d.wquad_count - t->first;
}

uint32_t ty_draw_queued(const ty_renderer *R, uint32_t *runs) {
  (void)R;
  if (runs) *runs = d.q.run_count;
  return d.q.quads;
}

void ty_draw_clear(ty_renderer *R) {
  (void)R;
  d.q.quads = d.q.run_count = 0;
  d.text_count = d.wquad_count = 0;
}

/* ---- world text: sorted and projected once the frame's camera is known ---------------- */

static const float *sort_view;

static float view_depth(const float v[16], const float p[3]) { return v[2] * p[0] + v[6] * p[1] + v[10] * p[2] + v[14]; }

/* The farthest first: view-space z is negative in front of the camera. */
static int farther_first(const void *a, const void *b) {
  float za = view_depth(sort_view, ((const wtext *)a)->origin), zb = view_depth(sort_view, ((const wtext *)b)->origin);
  return za < zb ? -1 : za > zb;
}

static bool project(const float vp[16], const float p[3], float w, float h, float out[2]) {
  float cx = vp[0] * p[0] + vp[4] * p[1] + vp[8] * p[2] + vp[12];
  float cy = vp[1] * p[0] + vp[5] * p[1] + vp[9] * p[2] + vp[13];
  float cw = vp[3] * p[0] + vp[7] * p[1] + vp[11] * p[2] + vp[15];
  if (!(cw > 1e-6f)) return false; /* behind the camera */
  out[0] = (cx / cw * 0.5f + 0.5f) * w, out[1] = (0.5f - cy / cw * 0.5f) * h;
  return true;
}

/* Puts this frame's world text, projected and sorted, in the queue ahead of the 2D calls. */
static void queue_world_text(ty_renderer *R, const ty_frame *F) {
  if (!d.text_count) return;
  dqueue flat = d.q;
  d.q = d.spare, d.q.quads = d.q.run_count = 0;
  sort_view = F->view;
  qsort(d.texts, d.text_count, sizeof *d.texts, farther_first);
  float W = (float)F->width, H = (float)F->height;
  for (uint32_t t = 0; t < d.text_count; t++) {
    for (uint32_t i = d.texts[t].first; i < d.texts[t].first + d.texts[t].count; i++) {
      const wquad *w = &d.wquads[i];
      float xy[8];
      bool seen = true;
      for (int c = 0; c < 4 && seen; c++) seen = project(F->view_proj, w->p[c], W, H, xy + 2 * c);
      dvertex *v = seen ? reserve(R, ATLAS | SMOOTH | w->page, 1) : NULL;
      if (v)
        quad(v, xy, (const float[8]){w->uv[0], w->uv[1], w->uv[2], w->uv[1], w->uv[2], w->uv[3], w->uv[0], w->uv[3]},
             w->rgba);
    }
  }
  for (uint32_t r = 0; r < flat.run_count; r++) {
    dvertex *v = reserve(R, flat.runs[r].key, flat.runs[r].count);
    if (!v) break;
    memcpy(v, flat.verts + (size_t)flat.runs[r].first * 4, (size_t)flat.runs[r].count * 4 * sizeof *v);
  }
  d.spare = flat;
  d.text_count = d.wquad_count = 0;
}

const ty_draw2d_world *ty_draw2d_take_world(const ty_frame *F) {
  ty_draw2d_world *o = &d.world;
  o->quads = o->run_count = 0;
  if (!d.text_count) return o;
  sort_view = F->view;
  qsort(d.texts, d.text_count, sizeof *d.texts, farther_first);
  static const int corner[6] = {0, 1, 2, 0, 2, 3};
  for (uint32_t t = 0; t < d.text_count; t++) {
    for (uint32_t i = d.texts[t].first; i < d.texts[t].first + d.texts[t].count; i++) {
      const wquad *w = &d.wquads[i];
      TY_GROW(o->verts, o->cap, (o->quads + 1) * 6);
      if (!o->run_count || o->runs[o->run_count - 1].key != w->page) {
        TY_GROW(o->runs, o->run_cap, o->run_count + 1);
        o->runs[o->run_count++] = (drun){w->page, o->quads, 0};
      }
      o->runs[o->run_count - 1].count++;
      const float us[4] = {w->uv[0], w->uv[2], w->uv[2], w->uv[0]}, vs[4] = {w->uv[1], w->uv[1], w->uv[3], w->uv[3]};
      ty_draw2d_world_vertex *v = o->verts + (size_t)o->quads * 6;
      for (int k = 0; k < 6; k++) {
        int c = corner[k];
        v[k] = (ty_draw2d_world_vertex){w->p[c][0], w->p[c][1], w->p[c][2], us[c], vs[c],
                                        {w->rgba[0], w->rgba[1], w->rgba[2], w->rgba[3]}};
      }
      o->quads++;
    }
  }
  d.text_count = d.wquad_count = 0;
  return o;
}

const ty_draw2d_queue *ty_draw2d_take(ty_renderer *R, const ty_frame *F) {
  d.dropped_logged = false;
  queue_world_text(R, F);
  dqueue t = d.drawn;
  d.drawn = d.q, d.q = t;
  ty_draw_clear(R);
  return &d.drawn;
}
