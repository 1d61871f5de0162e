/* engine/render/gl_pipeline.c: the device's fixed-function state, applied from one
 * descriptor through a cache of what GL holds (only the calls that change something are
 * issued), the viewport and scissor, and the draws, dispatches and barriers. */
#include "gl_device.h"

#include <string.h>

#include "../common.h"

#if TYCHO_WITH_GL

#include "gl_device_internal.h"

/* ---- pipeline state ---- */

/* Each setter compares with what GL holds and calls GL only on a change. */
static bool state_differs(ty_gl_device *dev, bool same) {
  if (same && dev->state_known) return false;
  dev->state_calls++;
  return true;
}

static void set_enabled(ty_gl_device *dev, GLenum cap, bool *held, bool want) {
  if (!state_differs(dev, *held == want)) return;
  if (want) glEnable(cap);
  else glDisable(cap);
  *held = want;
}

void ty_gl_reset_state(ty_gl_device *dev) {
  dev->state_known = false;
  dev->state.viewport[2] = dev->state.scissor_rect[2] = -1; /* matches no rectangle asked for */
}

void ty_gl_apply_pipeline(ty_gl_device *dev, const ty_gl_pipeline_desc *desc) {
  static const ty_gl_pipeline_desc plain = {0};
  static const GLenum funcs[] = {GL_LESS, GL_LEQUAL, GL_EQUAL, GL_ALWAYS};
  const ty_gl_pipeline_desc *d = desc ? desc : &plain;
  gl_state *g = &dev->state;
  dev->pipeline_applies++;
  if (!dev->state_known) {
    /* Settings no descriptor changes: set once per reset. */
    glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
    glBlendEquation(GL_FUNC_ADD);
    dev->state_calls += 2;
  }
  bool depth_on = d->depth != TY_GL_DEPTH_OFF && (unsigned)d->depth < TY_GL_DEPTH_OFF;
  set_enabled(dev, GL_DEPTH_TEST, &g->depth_test, depth_on);
  if (depth_on && state_differs(dev, g->depth_func == funcs[d->depth])) {
    g->depth_func = funcs[d->depth];
    glDepthFunc(g->depth_func);
  }
  bool write = depth_on && !d->no_depth_write;
  if (state_differs(dev, g->depth_write == write)) {
    g->depth_write = write;
    glDepthMask(write ? GL_TRUE : GL_FALSE);
  }
  bool blend_on = d->blend != TY_GL_BLEND_NONE && (unsigned)d->blend <= TY_GL_BLEND_PREMULTIPLIED;
  set_enabled(dev, GL_BLEND, &g->blend, blend_on);
  if (blend_on && state_differs(dev, g->blend_mode == d->blend)) {
    g->blend_mode = d->blend;
    switch (d->blend) {
    case TY_GL_BLEND_ALPHA: glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA); break;
    case TY_GL_BLEND_ADDITIVE: glBlendFunc(GL_ONE, GL_ONE); break;
    default: glBlendFunc(GL_ONE, GL_ONE_MINUS_SRC_ALPHA); break;
    }
  }
  bool cull_on = d->cull != TY_GL_CULL_NONE;
  set_enabled(dev, GL_CULL_FACE, &g->cull, cull_on);
  GLenum face = d->cull == TY_GL_CULL_FRONT ? GL_FRONT : GL_BACK;
  if (cull_on && state_differs(dev, g->cull_face == face)) {
    g->cull_face = face;
    glCullFace(face);
  }
  bool offset_on = d->depth_bias != 0.0f || d->depth_bias_slope != 0.0f;
  set_enabled(dev, GL_POLYGON_OFFSET_FILL, &g->offset, offset_on);
  if (offset_on &&
      state_differs(dev, g->offset_factor == d->depth_bias_slope && g->offset_units == d->depth_bias)) {
    g->offset_factor = d->depth_bias_slope;
    g->offset_units = d->depth_bias;
    glPolygonOffset(d->depth_bias_slope, d->depth_bias);
  }
  set_enabled(dev, GL_SCISSOR_TEST, &g->scissor, false); /* a pass turns it on after its apply */
  dev->state_known = true;
}

void ty_gl_set_viewport(ty_gl_device *dev, int x, int y, int width, int height) {
  GLint *v = dev->state.viewport;
  if (dev->state_known && v[0] == x && v[1] == y && v[2] == width && v[3] == height) return;
  v[0] = x, v[1] = y, v[2] = width, v[3] = height;
  glViewport(x, y, (GLsizei)width, (GLsizei)height);
  dev->state_calls++;
}

void ty_gl_set_scissor(ty_gl_device *dev, const int rect[4]) {
  set_enabled(dev, GL_SCISSOR_TEST, &dev->state.scissor, rect != NULL);
  if (!rect) return;
  GLint *r = dev->state.scissor_rect;
  if (dev->state_known && r[0] == rect[0] && r[1] == rect[1] && r[2] == rect[2] && r[3] == rect[3]) return;
  memcpy(r, rect, sizeof dev->state.scissor_rect);
  glScissor(rect[0], rect[1], (GLsizei)rect[2], (GLsizei)rect[3]);
  dev->state_calls++;
}

/* ---- draws ---- */

static GLenum primitive(ty_gl_primitive p) {
  switch (p) {
  case TY_GL_TRIANGLE_STRIP: return GL_TRIANGLE_STRIP;
  case TY_GL_LINES: return GL_LINES;
  case TY_GL_LINE_STRIP: return GL_LINE_STRIP;
  case TY_GL_POINTS: return GL_POINTS;
  default: return GL_TRIANGLES;
  }
}

void ty_gl_draw(ty_gl_device *dev, ty_gl_primitive prim, uint32_t first, uint32_t count, uint32_t instance_count) {
  (void)dev;
  glDrawArraysInstanced(primitive(prim), (GLint)first, (GLsizei)count, (GLsizei)(instance_count ? instance_count : 1));
}

void ty_gl_draw_indexed(ty_gl_device *dev, ty_gl_primitive prim, uint32_t first_index, uint32_t count,
                        uint32_t instance_count, int32_t base_vertex, uint32_t base_instance) {
  (void)dev;
  glDrawElementsInstancedBaseVertexBaseInstance(primitive(prim), (GLsizei)count, GL_UNSIGNED_INT,
                                                (const void *)((uintptr_t)first_index * 4u),
                                                (GLsizei)(instance_count ? instance_count : 1), base_vertex, base_instance);
}

void ty_gl_dispatch(ty_gl_device *dev, uint32_t x, uint32_t y, uint32_t z) {
  (void)dev;
  glDispatchCompute(x, y, z);
}

void ty_gl_draw_indexed_indirect(ty_gl_device *dev, ty_gl_primitive prim, size_t offset, uint32_t draw_count,
                                 uint32_t stride) {
  (void)dev;
  glMultiDrawElementsIndirect(primitive(prim), GL_UNSIGNED_INT, (const void *)(uintptr_t)offset, (GLsizei)draw_count,
                              (GLsizei)stride);
}

void ty_gl_barrier(ty_gl_device *dev, uint32_t bits) {
  (void)dev;
  GLbitfield b = 0;
  if (bits & TY_GL_BARRIER_TEXTURE_FETCH) b |= GL_TEXTURE_FETCH_BARRIER_BIT;
  if (bits & TY_GL_BARRIER_IMAGE_ACCESS) b |= GL_SHADER_IMAGE_ACCESS_BARRIER_BIT;
  if (b) glMemoryBarrier(b);
}

#endif
