/* engine/render/gl_stream.c: per-frame vertex streams (see gl_stream.h), built on the
 * device's buffers and vertex arrays. Left out without GL, as its callers are. */
#include "gl_stream.h"

#include "../common.h"

#if TYCHO_WITH_GL

void ty_gl_stream_release(ty_gl_stream *s, ty_gl_device *dev) {
  if (s->dev == dev) {
    if (s->va.id) ty_gl_destroy_vertex_array(dev, s->va);
    if (s->buffer.id) ty_gl_destroy_buffer(dev, s->buffer);
  }
  *s = (ty_gl_stream){0};
}

bool ty_gl_stream_reserve(ty_gl_stream *s, ty_gl_device *dev, size_t n, size_t first_cap,
                          const ty_gl_vertex_array_desc *layout) {
  TY_ASSERT(n > 0 && layout && layout->bindings[0].stride > 0);
  if (s->dev != dev) *s = (ty_gl_stream){0}; /* another device's handles mean nothing here */
  if (n <= s->cap && s->va.id) return true;
  ty_gl_stream_release(s, dev);
  s->dev = dev;
  size_t cap = first_cap ? first_cap : n * 2;
  while (cap < n) cap *= 2;
  s->buffer = ty_gl_make_buffer(dev, &(ty_gl_buffer_desc){.size = cap * layout->bindings[0].stride,
                                                          .flags = TY_GL_BUFFER_DYNAMIC, .label = layout->label});
  if (!s->buffer.id) return false;
  ty_gl_vertex_array_desc vd = *layout;
  vd.bindings[0].buffer = s->buffer;
  s->va = ty_gl_make_vertex_array(dev, &vd);
  if (!s->va.id) return false;
  s->cap = cap;
  return true;
}

#endif
