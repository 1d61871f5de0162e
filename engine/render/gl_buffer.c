/* engine/render/gl_buffer.c: the device's buffers: immutable storage made with direct
 * state access, dynamic ones written with ty_gl_update_buffer, rings (one persistently
 * mapped, coherent buffer of per-frame regions, each fenced before it is reused), and
 * their binding to uniform, storage and indirect targets. */
#include "gl_device.h"

#include "../common.h"

#if TYCHO_WITH_GL

#include "gl_device_internal.h"

bool ty_gl_range_ok(size_t offset, size_t size, size_t total) { return offset <= total && size <= total - offset; }

static size_t align_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

/* The failure of a range that runs past b's end. */
static ty_gl_status past_end(ty_gl_device *dev, const char *fn, const gl_buffer_slot *b, size_t offset, size_t size) {
  return ty_gl_fail(dev, TY_GL_ERROR_INVALID, "%s: %zu bytes at %zu run past the buffer's %zu", fn, size, offset,
                    b->size);
}

void ty_gl_delete_buffer_slot(void *slot) {
  gl_buffer_slot *b = slot;
  for (uint32_t f = 0; f < TY_GL_MAX_RING_FRAMES; f++)
    if (b->fences[f]) glDeleteSync(b->fences[f]);
  if (b->mapped) glUnmapNamedBuffer(b->name);
  glDeleteBuffers(1, &b->name);
}

ty_gl_buffer ty_gl_make_buffer(ty_gl_device *dev, const ty_gl_buffer_desc *desc) {
  TY_ASSERT(dev && desc);
  static const char fn[] = "ty_gl_make_buffer";
  if (desc->size == 0) {
    ty_gl_fail(dev, TY_GL_ERROR_INVALID, "%s: size is 0", fn);
    return (ty_gl_buffer){0};
  }
  if (desc->ring_frames > TY_GL_MAX_RING_FRAMES) {
    ty_gl_fail(dev, TY_GL_ERROR_INVALID, "%s: ring_frames %u is more than %d", fn, desc->ring_frames,
               TY_GL_MAX_RING_FRAMES);
    return (ty_gl_buffer){0};
  }
  if (desc->ring_frames && desc->data) {
    ty_gl_fail(dev, TY_GL_ERROR_INVALID, "%s: a ring starts empty (data must be NULL)", fn);
    return (ty_gl_buffer){0};
  }
  gl_buffer_slot *b = ty_gl_take_slot(dev, &dev->buffers, fn);
  if (!b) return (ty_gl_buffer){0};
  b->flags = desc->flags;
  ty_gl_drain_errors();
  glCreateBuffers(1, &b->name);
  GLbitfield storage = (desc->flags & TY_GL_BUFFER_DYNAMIC) ? GL_DYNAMIC_STORAGE_BIT : 0;
  if (desc->ring_frames) {
    const GLbitfield map = GL_MAP_WRITE_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT;
    b->ring_frames = desc->ring_frames;
    b->ring_stride = align_up(desc->size, (size_t)dev->binding_align);
    b->size = b->ring_stride * b->ring_frames;
    glNamedBufferStorage(b->name, (GLsizeiptr)b->size, NULL, storage | map);
    b->mapped = glMapNamedBufferRange(b->name, 0, (GLsizeiptr)b->size, map);
  } else {
    b->size = desc->size;
    glNamedBufferStorage(b->name, (GLsizeiptr)b->size, desc->data, storage);
  }
  GLenum e = glGetError();
  if (e != GL_NO_ERROR || (desc->ring_frames && !b->mapped)) {
    size_t size = b->size;
    ty_gl_delete_buffer_slot(b);
    ty_gl_drop_slot(&dev->buffers, b);
    ty_gl_fail(dev, TY_GL_ERROR_DRIVER, "%s: %s making a buffer of %zu bytes", fn, ty_gl_error_name(e), size);
    return (ty_gl_buffer){0};
  }
  return (ty_gl_buffer){ty_gl_made(dev, &dev->buffers, b, GL_BUFFER, desc->label)};
}

ty_gl_status ty_gl_destroy_buffer(ty_gl_device *dev, ty_gl_buffer buf) {
  return ty_gl_destroy_slot(dev, &dev->buffers, buf.id, "ty_gl_destroy_buffer");
}

ty_gl_status ty_gl_update_buffer(ty_gl_device *dev, ty_gl_buffer buf, size_t offset, const void *data, size_t size) {
  static const char fn[] = "ty_gl_update_buffer";
  gl_buffer_slot *b = ty_gl_get_slot(dev, &dev->buffers, buf.id, fn);
  if (!b) return dev->status;
  if (!(b->flags & TY_GL_BUFFER_DYNAMIC))
    return ty_gl_fail(dev, TY_GL_ERROR_INVALID, "%s: buffer %u was not made TY_GL_BUFFER_DYNAMIC", fn, buf.id);
  if (!ty_gl_range_ok(offset, size, b->size))
    return past_end(dev, fn, b, offset, size);
  TY_ASSERT(data || size == 0);
  if (size) glNamedBufferSubData(b->name, (GLintptr)offset, (GLsizeiptr)size, data);
  return ty_gl_ok(dev);
}

ty_gl_status ty_gl_read_buffer(ty_gl_device *dev, ty_gl_buffer buf, size_t offset, void *out, size_t size) {
  static const char fn[] = "ty_gl_read_buffer";
  gl_buffer_slot *b = ty_gl_get_slot(dev, &dev->buffers, buf.id, fn);
  if (!b) return dev->status;
  if (!ty_gl_range_ok(offset, size, b->size))
    return past_end(dev, fn, b, offset, size);
  TY_ASSERT(out || size == 0);
  if (size) glGetNamedBufferSubData(b->name, (GLintptr)offset, (GLsizeiptr)size, out);
  return ty_gl_ok(dev);
}

/* ---- rings ---- */

void *ty_gl_ring_alloc(ty_gl_device *dev, ty_gl_buffer ring, size_t size, size_t align, size_t *offset) {
  static const char fn[] = "ty_gl_ring_alloc";
  gl_buffer_slot *b = ty_gl_get_slot(dev, &dev->buffers, ring.id, fn);
  if (!b) return NULL;
  if (!b->ring_frames) {
    ty_gl_fail(dev, TY_GL_ERROR_INVALID, "%s: buffer %u is not a ring (ring_frames 0)", fn, ring.id);
    return NULL;
  }
  if (align == 0) align = 256;
  if (align & (align - 1)) {
    ty_gl_fail(dev, TY_GL_ERROR_INVALID, "%s: alignment %zu is not a power of two", fn, align);
    return NULL;
  }
  size_t start = align_up(b->ring_head, align);
  if (start > b->ring_stride || size > b->ring_stride - start) {
    ty_gl_fail(dev, TY_GL_ERROR_RING_FULL, "%s: %zu more bytes do not fit this frame's %zu (%zu used)", fn, size,
               b->ring_stride, b->ring_head);
    return NULL;
  }
  b->ring_head = start + size;
  size_t at = (size_t)b->ring_frame * b->ring_stride + start;
  if (offset) *offset = at;
  ty_gl_ok(dev);
  return b->mapped + at;
}

ty_gl_status ty_gl_ring_next_frame(ty_gl_device *dev, ty_gl_buffer ring) {
  static const char fn[] = "ty_gl_ring_next_frame";
  gl_buffer_slot *b = ty_gl_get_slot(dev, &dev->buffers, ring.id, fn);
  if (!b) return dev->status;
  if (!b->ring_frames) return ty_gl_fail(dev, TY_GL_ERROR_INVALID, "%s: buffer %u is not a ring", fn, ring.id);
  if (b->fences[b->ring_frame]) glDeleteSync(b->fences[b->ring_frame]);
  b->fences[b->ring_frame] = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
  b->ring_frame = (b->ring_frame + 1) % b->ring_frames;
  b->ring_head = 0;
  GLsync f = b->fences[b->ring_frame];
  if (!f) return ty_gl_ok(dev);
  b->fences[b->ring_frame] = NULL;
  /* The region is reused only once the GPU has read it: wait, a second at a time. */
  GLenum r = GL_TIMEOUT_EXPIRED;
  for (int tries = 0; tries < 10 && r == GL_TIMEOUT_EXPIRED; tries++)
    r = glClientWaitSync(f, GL_SYNC_FLUSH_COMMANDS_BIT, 1000000000u);
  glDeleteSync(f);
  if (r == GL_WAIT_FAILED || r == GL_TIMEOUT_EXPIRED)
    return ty_gl_fail(dev, TY_GL_ERROR_DRIVER, "%s: waiting for the GPU to release a ring region %s", fn,
                      r == GL_WAIT_FAILED ? "failed" : "timed out");
  return ty_gl_ok(dev);
}

/* ---- binding ---- */

ty_gl_status ty_gl_bind_buffer(ty_gl_device *dev, ty_gl_buffer_target target, uint32_t index, ty_gl_buffer buf,
                               size_t offset, size_t size) {
  static const char fn[] = "ty_gl_bind_buffer";
  gl_buffer_slot *b = ty_gl_get_slot(dev, &dev->buffers, buf.id, fn);
  if (!b) return dev->status;
  if (size == 0) size = offset <= b->size ? b->size - offset : 0;
  if (size == 0 || !ty_gl_range_ok(offset, size, b->size))
    return past_end(dev, fn, b, offset, size);
  switch (target) {
  case TY_GL_TARGET_UNIFORM:
  case TY_GL_TARGET_STORAGE:
    if (offset % (size_t)dev->binding_align)
      return ty_gl_fail(dev, TY_GL_ERROR_INVALID, "%s: offset %zu is not a multiple of %d", fn, offset,
                        dev->binding_align);
    glBindBufferRange(target == TY_GL_TARGET_UNIFORM ? GL_UNIFORM_BUFFER : GL_SHADER_STORAGE_BUFFER, index, b->name,
                      (GLintptr)offset, (GLsizeiptr)size);
    break;
  case TY_GL_TARGET_INDIRECT: glBindBuffer(GL_DRAW_INDIRECT_BUFFER, b->name); break;
  default: return ty_gl_fail(dev, TY_GL_ERROR_INVALID, "%s: target %d is not a ty_gl_buffer_target", fn, (int)target);
  }
  return ty_gl_ok(dev);
}

#endif
