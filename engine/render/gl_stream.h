/* engine/render/gl_stream.h: a vertex buffer the CPU rewrites every frame and the vertex
 * array that reads it, grown (never shrunk) to hold what a frame draws. The 2D queue,
 * world text, the overlay, the UI and particles each stream their vertices (or instances)
 * through one. */
#ifndef TY_RENDER_GL_STREAM_H
#define TY_RENDER_GL_STREAM_H

#include <stdbool.h>
#include <stddef.h>

#include "gl_device.h" /* Required for: ty_gl_device, ty_gl_buffer, ty_gl_vertex_array */

typedef struct ty_gl_stream {
  ty_gl_device *dev;     /* the device buffer and va live on; NULL: none made yet */
  ty_gl_buffer buffer;   /* TY_GL_BUFFER_DYNAMIC: written with ty_gl_update_buffer */
  ty_gl_vertex_array va; /* reads buffer through bindings[0] */
  size_t cap;            /* elements buffer holds */
} ty_gl_stream;

/* Room for n elements (n > 0) on dev. When the stream is too small, or its objects are
 * another device's, the buffer and vertex array are made again: the capacity is
 * first_cap doubled until it holds n (first_cap 0: twice n), and the vertex array is
 * layout with bindings[0].buffer set to the new buffer. layout->bindings[0].stride is the
 * element size; layout->label names both objects. False, with the device's status set,
 * when either could not be made (the next call tries again). */
bool ty_gl_stream_reserve(ty_gl_stream *s, ty_gl_device *dev, size_t n, size_t first_cap,
                          const ty_gl_vertex_array_desc *layout);

/* Destroys the buffer and vertex array (when they are dev's) and empties the stream, so
 * the next reserve makes them again: when the renderer lets go of dev, or when something
 * else layout names (an index buffer) was made again. */
void ty_gl_stream_release(ty_gl_stream *s, ty_gl_device *dev);

#endif
