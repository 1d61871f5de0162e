/* engine/render/gl_sampler.c: the device's samplers: filtering, wrapping, depth
 * comparison (shadow samplers), anisotropy and level-of-detail range, as one descriptor. */
#include "gl_device.h"

#include "../common.h"

#if TYCHO_WITH_GL

#include "gl_device_internal.h"

static GLenum wrap_mode(ty_gl_wrap w) {
  switch (w) {
  case TY_GL_WRAP_CLAMP: return GL_CLAMP_TO_EDGE;
  case TY_GL_WRAP_MIRROR: return GL_MIRRORED_REPEAT;
  case TY_GL_WRAP_BORDER: return GL_CLAMP_TO_BORDER;
  default: return GL_REPEAT;
  }
}

void ty_gl_delete_sampler_slot(void *slot) { glDeleteSamplers(1, &((gl_sampler_slot *)slot)->name); }

ty_gl_sampler ty_gl_make_sampler(ty_gl_device *dev, const ty_gl_sampler_desc *desc) {
  TY_ASSERT(dev && desc);
  static const char fn[] = "ty_gl_make_sampler";
  if ((unsigned)desc->min_filter > TY_GL_FILTER_NEAREST || (unsigned)desc->mag_filter > TY_GL_FILTER_NEAREST ||
      (unsigned)desc->mip_filter > TY_GL_MIP_LINEAR || (unsigned)desc->wrap_u > TY_GL_WRAP_BORDER ||
      (unsigned)desc->wrap_v > TY_GL_WRAP_BORDER || (unsigned)desc->wrap_w > TY_GL_WRAP_BORDER ||
      (unsigned)desc->compare > TY_GL_COMPARE_GEQUAL) {
    ty_gl_fail(dev, TY_GL_ERROR_INVALID, "%s: a filter, wrap or compare value is out of range", fn);
    return (ty_gl_sampler){0};
  }
  gl_sampler_slot *s = ty_gl_take_slot(dev, &dev->samplers, fn);
  if (!s) return (ty_gl_sampler){0};
  glCreateSamplers(1, &s->name);
  bool min_near = desc->min_filter == TY_GL_FILTER_NEAREST;
  GLenum min;
  switch (desc->mip_filter) {
  case TY_GL_MIP_NEAREST: min = min_near ? GL_NEAREST_MIPMAP_NEAREST : GL_LINEAR_MIPMAP_NEAREST; break;
  case TY_GL_MIP_LINEAR: min = min_near ? GL_NEAREST_MIPMAP_LINEAR : GL_LINEAR_MIPMAP_LINEAR; break;
  default: min = min_near ? GL_NEAREST : GL_LINEAR; break;
  }
  glSamplerParameteri(s->name, GL_TEXTURE_MIN_FILTER, (GLint)min);
  glSamplerParameteri(s->name, GL_TEXTURE_MAG_FILTER, desc->mag_filter == TY_GL_FILTER_NEAREST ? GL_NEAREST : GL_LINEAR);
  glSamplerParameteri(s->name, GL_TEXTURE_WRAP_S, (GLint)wrap_mode(desc->wrap_u));
  glSamplerParameteri(s->name, GL_TEXTURE_WRAP_T, (GLint)wrap_mode(desc->wrap_v));
  glSamplerParameteri(s->name, GL_TEXTURE_WRAP_R, (GLint)wrap_mode(desc->wrap_w));
  if (desc->compare != TY_GL_COMPARE_NONE) {
    static const GLenum funcs[] = {GL_NEVER, GL_LESS, GL_LEQUAL, GL_GREATER, GL_GEQUAL};
    glSamplerParameteri(s->name, GL_TEXTURE_COMPARE_MODE, GL_COMPARE_REF_TO_TEXTURE);
    glSamplerParameteri(s->name, GL_TEXTURE_COMPARE_FUNC, (GLint)funcs[desc->compare]);
  }
  if (desc->max_anisotropy > 1 && dev->anisotropy) {
    float a = desc->max_anisotropy < dev->max_anisotropy ? desc->max_anisotropy : dev->max_anisotropy;
    glSamplerParameterf(s->name, GL_TEXTURE_MAX_ANISOTROPY_EXT, a);
  }
  if (desc->min_lod != 0 || desc->max_lod != 0) {
    glSamplerParameterf(s->name, GL_TEXTURE_MIN_LOD, desc->min_lod);
    glSamplerParameterf(s->name, GL_TEXTURE_MAX_LOD, desc->max_lod);
  }
  glSamplerParameterfv(s->name, GL_TEXTURE_BORDER_COLOR, desc->border_color);
  return (ty_gl_sampler){ty_gl_made(dev, &dev->samplers, s, GL_SAMPLER, desc->label)};
}

ty_gl_status ty_gl_destroy_sampler(ty_gl_device *dev, ty_gl_sampler smp) {
  return ty_gl_destroy_slot(dev, &dev->samplers, smp.id, "ty_gl_destroy_sampler");
}

#endif
