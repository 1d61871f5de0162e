/* engine/render/pass_times.c: the passes a frame ran and, while timing is on (timePasses or
 * the overlay), their times: ms, the CPU time rg_execute spent recording and submitting
 * each, and gpu_ms, the GPU's own time for it from timer queries (gl_timer.c).
 *
 * The GPU runs frames behind the CPU, so a pass's queries are read later, never waited for:
 * each frame writes one row of a ring PASS_CLOCK_FRAMES deep (a query per pass), and before
 * the next frame executes every earlier row whose queries have all finished is read; the
 * newest one read gives gpu_ms, matched to this frame's passes by position and name. A row
 * the GPU has still not finished when its turn comes again is dropped. */
#include "render_core.h"

#include <stdio.h>
#include <string.h>

#include "../platform/platform.h" /* Required for: ty_now */
#include "gl_timer.h"

#define PASS_CLOCK_FRAMES 4

typedef struct clock_row {
  uint32_t count; /* queries issued: passes 0..count-1 of that frame */
  bool pending;   /* issued and not read yet */
  double start;   /* ty_now() as the frame began executing */
  char name[TY_RENDER_MAX_PASS_TIMES][sizeof ((ty_render_pass_time *)0)->name];
} clock_row;

struct ty_pass_clock {
  ty_gl_timer *timer; /* PASS_CLOCK_FRAMES * TY_RENDER_MAX_PASS_TIMES queries */
  uint32_t row;       /* the row the frame being executed writes */
  bool open;          /* a query is running (begun in pass_begin) */
  clock_row rows[PASS_CLOCK_FRAMES];
  ty_render_pass_time last[TY_RENDER_MAX_PASS_TIMES]; /* the newest frame read, ms unused */
  uint32_t last_count;
};

static bool timing(const ty_renderer *R) { return (R->pass_timing || R->overlay) && R->dev; }

/* The GPU times of a row, once every query in it has finished. A time longer than the
 * wall time since the frame began cannot be right (llvmpipe's first query in a context
 * counts from its clock's zero), so that pass is left untimed (-1). */
static bool read_row(ty_pass_clock *c, uint32_t r) {
  clock_row *row = &c->rows[r];
  float ms[TY_RENDER_MAX_PASS_TIMES];
  double limit = (ty_now() - row->start) * 1000.0;
  for (uint32_t i = 0; i < row->count; i++) {
    uint64_t ns = 0;
    if (!ty_gl_timer_result(c->timer, r * TY_RENDER_MAX_PASS_TIMES + i, &ns)) return false;
    double v = (double)ns * 1e-6;
    ms[i] = v <= limit ? (float)v : -1.0f;
  }
  for (uint32_t i = 0; i < row->count; i++) {
    memcpy(c->last[i].name, row->name[i], sizeof c->last[i].name);
    c->last[i].gpu_ms = ms[i];
  }
  c->last_count = row->count;
  row->pending = false;
  return true;
}

/* The clock for R's device, made the first time it times; NULL on a driver without timer
 * queries (tried once per device). */
static ty_pass_clock *clock_for(ty_renderer *R) {
  if (!R->pass_clock && !R->pass_clock_tried) {
    R->pass_clock_tried = true;
    ty_gl_timer *t = ty_gl_timer_create(R->dev, PASS_CLOCK_FRAMES * TY_RENDER_MAX_PASS_TIMES);
    if (t) {
      R->pass_clock = TY_MALLOC(sizeof *R->pass_clock);
      TY_ASSERT(R->pass_clock);
      memset(R->pass_clock, 0, sizeof *R->pass_clock);
      R->pass_clock->timer = t;
    }
  }
  return R->pass_clock;
}

void ty_render_pass_frame_begin(ty_renderer *R) {
  R->pass_time_count = 0;
  ty_pass_clock *c = timing(R) ? clock_for(R) : R->pass_clock;
  if (!c) return;
  if (!timing(R)) { /* off: what was measured before goes stale, so forget it */
    for (uint32_t r = 0; r < PASS_CLOCK_FRAMES; r++) c->rows[r].pending = false;
    c->last_count = 0;
    return;
  }
  for (uint32_t k = 1; k < PASS_CLOCK_FRAMES; k++) { /* oldest first: the newest read wins */
    uint32_t r = (c->row + k) % PASS_CLOCK_FRAMES;
    if (c->rows[r].pending) read_row(c, r);
  }
  c->row = (c->row + 1) % PASS_CLOCK_FRAMES;
  c->rows[c->row].count = 0;
  c->rows[c->row].pending = false;
  c->rows[c->row].start = ty_now();
}

void ty_render_pass_frame_end(ty_renderer *R) {
  ty_pass_clock *c = R->pass_clock;
  if (c && timing(R)) c->rows[c->row].pending = c->rows[c->row].count > 0;
}

void ty_render_pass_clock_release(ty_renderer *R) {
  if (R->pass_clock) {
    ty_gl_timer_destroy(R->pass_clock->timer);
    TY_FREE(R->pass_clock);
  }
  R->pass_clock = NULL;
  R->pass_clock_tried = false;
}

/* This frame's pass n (its index i) in the newest frame read: same place and name, else the
 * first of that name; -1 when it did not run there. */
static float gpu_ms_of(const ty_pass_clock *c, uint32_t i, const char *name) {
  if (i < c->last_count && strcmp(c->last[i].name, name) == 0) return c->last[i].gpu_ms;
  for (uint32_t j = 0; j < c->last_count; j++)
    if (strcmp(c->last[j].name, name) == 0) return c->last[j].gpu_ms;
  return -1.0f;
}

void ty_render_pass_begin(void *user, const rg_pass_context *ctx) {
  ty_renderer *R = user;
  (void)ctx;
  ty_pass_clock *c = R->pass_clock;
  if (c && timing(R) && c->rows[c->row].count < TY_RENDER_MAX_PASS_TIMES) {
    ty_gl_timer_begin(c->timer, c->row * TY_RENDER_MAX_PASS_TIMES + c->rows[c->row].count);
    c->open = true;
  }
  R->pass_start = ty_now();
}

void ty_render_pass_end(void *user, const rg_pass_context *ctx) {
  ty_renderer *R = user;
  double end = ty_now();
  const char *name = ctx->name ? ctx->name : "?";
  ty_pass_clock *c = R->pass_clock;
  if (c && c->open) {
    ty_gl_timer_end(c->timer);
    c->open = false;
    clock_row *row = &c->rows[c->row];
    snprintf(row->name[row->count], sizeof row->name[row->count], "%s", name);
    row->count++;
  }
  if (R->pass_time_count == TY_RENDER_MAX_PASS_TIMES) return;
  uint32_t i = R->pass_time_count++;
  ty_render_pass_time *t = &R->pass_times[i];
  snprintf(t->name, sizeof t->name, "%s", name);
  t->ms = timing(R) ? (float)((end - R->pass_start) * 1000.0) : -1.0f;
  t->gpu_ms = c && timing(R) ? gpu_ms_of(c, i, t->name) : -1.0f;
}

void ty_render_set_pass_timing(ty_renderer *R, bool on) { R->pass_timing = on; }
bool ty_render_pass_timing(const ty_renderer *R) { return R->pass_timing; }

const ty_render_pass_time *ty_render_pass_times(const ty_renderer *R, uint32_t *count) {
  if (count) *count = R->pass_time_count;
  return R->pass_times;
}
