/* engine/render/renderer.c: the renderer object's own state, which every other file of
 * the renderer reads: its errors, its device, its stats and modes. Creating, attaching and
 * destroying it is lifetime.c's, the one file that knows every part that holds memory; the
 * rest lives in files named for their idea (render_core.h lists them); the built-in
 * features in features_*.c, known through feature_table.c.
 *
 * Headless (no device) everything but GL work runs: frames gather, bucket and write
 * instances into CPU memory, features declare passes, the graph compiles. With a device
 * GPU resources are made lazily on first use and freed on detach. */
#include "render_core.h"

#include <stdarg.h>
#include <string.h>


/* ---- errors --------------------------------------------------------------------------- */

void ty_render_fail(ty_renderer *R, const char *name, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(R->error, sizeof R->error, fmt, ap);
  va_end(ap);
  if (name) ty_log(name, "%s", R->error);
}

const char *ty_render_error(const ty_renderer *R) { return R->error; }

char *ty_render_strdup(const char *s) {
  if (!s) return NULL;
  size_t n = strlen(s) + 1;
  char *d = TY_MALLOC(n);
  TY_ASSERT(d);
  memcpy(d, s, n);
  return d;
}

/* ---- the device ---------------------------------------------------------------------- */

ty_gl_device *ty_render_device(const ty_renderer *R) { return R->dev; }

/* ---- stats and modes ---------------------------------------------------------------- */

ty_render_stats ty_render_get_stats(const ty_renderer *R) { return R->stats; }
void ty_render_set_draw_mode(ty_renderer *R, ty_draw_mode mode) { R->draw_mode = mode; }
void ty_render_set_overlay(ty_renderer *R, bool on) { R->overlay = on; }
bool ty_render_overlay(const ty_renderer *R) { return R->overlay; }

void ty_render_note_frame_time(ty_renderer *R, double seconds) {
  R->frame_times[R->frame_time_head] = (float)seconds;
  R->frame_time_head = (R->frame_time_head + 1) % FRAME_TIME_HISTORY;
  if (R->frame_time_count < FRAME_TIME_HISTORY) R->frame_time_count++;
}

size_t ty_render_dump_graph(const ty_renderer *R, char *buf, size_t size) {
  const char *d = R->dump ? R->dump : "";
  size_t n = strlen(d);
  if (size) {
    size_t k = n < size - 1 ? n : size - 1;
    memcpy(buf, d, k);
    buf[k] = 0;
  }
  return n;
}
