/* engine/render/gl_vertex_array.c: the device's vertex arrays: attribute formats and the
 * buffers that feed them, described once and checked against the buffers' lives when
 * bound. */
#include "gl_device.h"

#include "../common.h"

#if TYCHO_WITH_GL

#include "gl_device_internal.h"

typedef struct vertex_format_info {
  GLint size;
  GLenum type;
  GLboolean normalized;
  bool integer;
  uint32_t bytes;
} vertex_format_info;

static const vertex_format_info vertex_formats[TY_GL_VERTEX_FORMAT_COUNT] = {
    [TY_GL_VERTEX_FLOAT1] = {1, GL_FLOAT, GL_FALSE, false, 4},
    [TY_GL_VERTEX_FLOAT2] = {2, GL_FLOAT, GL_FALSE, false, 8},
    [TY_GL_VERTEX_FLOAT3] = {3, GL_FLOAT, GL_FALSE, false, 12},
    [TY_GL_VERTEX_FLOAT4] = {4, GL_FLOAT, GL_FALSE, false, 16},
    [TY_GL_VERTEX_HALF2] = {2, GL_HALF_FLOAT, GL_FALSE, false, 4},
    [TY_GL_VERTEX_HALF4] = {4, GL_HALF_FLOAT, GL_FALSE, false, 8},
    [TY_GL_VERTEX_UBYTE4N] = {4, GL_UNSIGNED_BYTE, GL_TRUE, false, 4},
    [TY_GL_VERTEX_BYTE4N] = {4, GL_BYTE, GL_TRUE, false, 4},
    [TY_GL_VERTEX_SHORT2N] = {2, GL_SHORT, GL_TRUE, false, 4},
    [TY_GL_VERTEX_SHORT4N] = {4, GL_SHORT, GL_TRUE, false, 8},
    [TY_GL_VERTEX_INT2_10_10_10N] = {4, GL_INT_2_10_10_10_REV, GL_TRUE, false, 4},
    [TY_GL_VERTEX_UINT1] = {1, GL_UNSIGNED_INT, GL_FALSE, true, 4},
    [TY_GL_VERTEX_UINT4] = {4, GL_UNSIGNED_INT, GL_FALSE, true, 16},
    [TY_GL_VERTEX_INT1] = {1, GL_INT, GL_FALSE, true, 4},
};

void ty_gl_delete_vertex_array_slot(void *slot) { glDeleteVertexArrays(1, &((gl_vertex_array_slot *)slot)->name); }

ty_gl_vertex_array ty_gl_make_vertex_array(ty_gl_device *dev, const ty_gl_vertex_array_desc *desc) {
  TY_ASSERT(dev && desc);
  static const char fn[] = "ty_gl_make_vertex_array";
  uint32_t strides[TY_GL_MAX_VERTEX_BINDINGS] = {0};
  for (uint32_t a = 0; a < TY_GL_MAX_VERTEX_ATTRS; a++) {
    const ty_gl_vertex_attr *at = &desc->attrs[a];
    if (at->format == TY_GL_VERTEX_NONE) continue;
    if ((unsigned)at->format >= TY_GL_VERTEX_FORMAT_COUNT || at->binding >= TY_GL_MAX_VERTEX_BINDINGS) {
      ty_gl_fail(dev, TY_GL_ERROR_INVALID, "%s: attribute %u has a bad format or binding", fn, a);
      return (ty_gl_vertex_array){0};
    }
    if (!desc->bindings[at->binding].buffer.id) {
      ty_gl_fail(dev, TY_GL_ERROR_INVALID, "%s: attribute %u reads binding %u, which has no buffer", fn, a, at->binding);
      return (ty_gl_vertex_array){0};
    }
    uint32_t end = at->offset + vertex_formats[at->format].bytes;
    if (end > strides[at->binding]) strides[at->binding] = end;
  }
  const gl_buffer_slot *bufs[TY_GL_MAX_VERTEX_BINDINGS + 1] = {0}; /* the vertex buffers, then the index buffer */
  for (uint32_t b = 0; b <= TY_GL_MAX_VERTEX_BINDINGS; b++) {
    ty_gl_buffer buf = b < TY_GL_MAX_VERTEX_BINDINGS ? desc->bindings[b].buffer : desc->index_buffer;
    if (buf.id && !(bufs[b] = ty_gl_get_slot(dev, &dev->buffers, buf.id, fn))) return (ty_gl_vertex_array){0};
  }
  gl_vertex_array_slot *v = ty_gl_take_slot(dev, &dev->vertex_arrays, fn);
  if (!v) return (ty_gl_vertex_array){0};
  glCreateVertexArrays(1, &v->name);
  for (uint32_t b = 0; b < TY_GL_MAX_VERTEX_BINDINGS; b++) {
    const ty_gl_vertex_binding *vb = &desc->bindings[b];
    if (!vb->buffer.id) continue;
    v->buffers[b] = vb->buffer;
    uint32_t stride = vb->stride ? vb->stride : strides[b];
    glVertexArrayVertexBuffer(v->name, b, bufs[b]->name, (GLintptr)vb->offset, (GLsizei)stride);
    if (vb->divisor) glVertexArrayBindingDivisor(v->name, b, vb->divisor);
  }
  for (uint32_t a = 0; a < TY_GL_MAX_VERTEX_ATTRS; a++) {
    const ty_gl_vertex_attr *at = &desc->attrs[a];
    if (at->format == TY_GL_VERTEX_NONE) continue;
    const vertex_format_info *f = &vertex_formats[at->format];
    glEnableVertexArrayAttrib(v->name, a);
    if (f->integer) glVertexArrayAttribIFormat(v->name, a, f->size, f->type, at->offset);
    else glVertexArrayAttribFormat(v->name, a, f->size, f->type, f->normalized, at->offset);
    glVertexArrayAttribBinding(v->name, a, at->binding);
  }
  if (desc->index_buffer.id) {
    v->buffers[TY_GL_MAX_VERTEX_BINDINGS] = desc->index_buffer;
    glVertexArrayElementBuffer(v->name, bufs[TY_GL_MAX_VERTEX_BINDINGS]->name);
  }
  return (ty_gl_vertex_array){ty_gl_made(dev, &dev->vertex_arrays, v, GL_VERTEX_ARRAY, desc->label)};
}

ty_gl_status ty_gl_destroy_vertex_array(ty_gl_device *dev, ty_gl_vertex_array va) {
  return ty_gl_destroy_slot(dev, &dev->vertex_arrays, va.id, "ty_gl_destroy_vertex_array");
}

ty_gl_status ty_gl_bind_vertex_array(ty_gl_device *dev, ty_gl_vertex_array va) {
  static const char fn[] = "ty_gl_bind_vertex_array";
  if (va.id == 0) {
    glBindVertexArray(dev->empty_vertex_array);
    return ty_gl_ok(dev);
  }
  gl_vertex_array_slot *v = ty_gl_get_slot(dev, &dev->vertex_arrays, va.id, fn);
  if (!v) return dev->status;
  for (uint32_t b = 0; b <= TY_GL_MAX_VERTEX_BINDINGS; b++)
    if (v->buffers[b].id && !ty_gl_find_slot(&dev->buffers, v->buffers[b].id))
      return ty_gl_fail(dev, TY_GL_ERROR_BAD_HANDLE, "%s: vertex array %u reads buffer %u, which was destroyed", fn, va.id,
                        v->buffers[b].id);
  glBindVertexArray(v->name);
  return ty_gl_ok(dev);
}

#endif
