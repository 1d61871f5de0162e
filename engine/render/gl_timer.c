/* engine/render/gl_timer.c: GPU timer queries (see gl_timer.h): GL_TIME_ELAPSED queries made
 * with glCreateQueries, read with GL_QUERY_RESULT only once GL_QUERY_RESULT_AVAILABLE. */
#include "gl_timer.h"

#include "../common.h"

#if TYCHO_WITH_GL

#include <epoxy/gl.h> /* Required for: glCreateQueries, glGetQueryObject* */

struct ty_gl_timer {
  uint32_t count;
  GLuint names[];
};

ty_gl_timer *ty_gl_timer_create(ty_gl_device *dev, uint32_t count) {
  (void)dev;
  if (count == 0) return NULL;
  GLint bits = 0; /* 0: the driver keeps no time, so nothing could be measured */
  glGetQueryiv(GL_TIME_ELAPSED, GL_QUERY_COUNTER_BITS, &bits);
  if (bits <= 0) return NULL;
  ty_gl_timer *t = TY_MALLOC(sizeof *t + count * sizeof(GLuint));
  TY_ASSERT(t);
  t->count = count;
  glCreateQueries(GL_TIME_ELAPSED, (GLsizei)count, t->names);
  return t;
}

void ty_gl_timer_destroy(ty_gl_timer *t) {
  if (!t) return;
  glDeleteQueries((GLsizei)t->count, t->names);
  TY_FREE(t);
}

void ty_gl_timer_begin(ty_gl_timer *t, uint32_t i) {
  if (t && i < t->count) glBeginQuery(GL_TIME_ELAPSED, t->names[i]);
}

void ty_gl_timer_end(ty_gl_timer *t) {
  if (t) glEndQuery(GL_TIME_ELAPSED);
}

bool ty_gl_timer_result(ty_gl_timer *t, uint32_t i, uint64_t *ns) {
  if (!t || i >= t->count) return false;
  GLint available = 0;
  glGetQueryObjectiv(t->names[i], GL_QUERY_RESULT_AVAILABLE, &available);
  if (!available) return false;
  GLuint64 v = 0;
  glGetQueryObjectui64v(t->names[i], GL_QUERY_RESULT, &v);
  *ns = (uint64_t)v;
  return true;
}

#else

ty_gl_timer *ty_gl_timer_create(ty_gl_device *dev, uint32_t count) {
  (void)dev, (void)count;
  return NULL;
}
void ty_gl_timer_destroy(ty_gl_timer *t) { (void)t; }
void ty_gl_timer_begin(ty_gl_timer *t, uint32_t i) { (void)t, (void)i; }
void ty_gl_timer_end(ty_gl_timer *t) { (void)t; }
bool ty_gl_timer_result(ty_gl_timer *t, uint32_t i, uint64_t *ns) {
  (void)t, (void)i, (void)ns;
  return false;
}

#endif
