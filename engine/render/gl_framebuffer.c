/* engine/render/gl_framebuffer.c: the device's framebuffers: colour and depth (-stencil)
 * attachments checked against each other when made and against their textures' lives when
 * used; binding, clears and pixel reads (the window's framebuffer too). */
#include "gl_device.h"

#include <stdio.h>

#include "../common.h"

#if TYCHO_WITH_GL

#include "gl_device_internal.h"

/* Attaches a; checks it against the size so far (0 x 0: none yet). */
static bool attach(ty_gl_device *dev, GLuint fb, GLenum point, const ty_gl_attachment *a, bool want_depth,
                   uint32_t *w, uint32_t *h, rg_format *format, const char *what) {
  static const char fn[] = "ty_gl_make_framebuffer";
  gl_texture_slot *t = ty_gl_get_slot(dev, &dev->textures, a->texture.id, fn);
  if (!t) return false;
  const ty_gl_texture_desc *d = &t->desc;
  if (ty_gl_format_info(d->format)->depth != want_depth) {
    ty_gl_fail(dev, TY_GL_ERROR_INVALID, "%s: %s texture %u is %s, which is %sa depth format", fn, what, a->texture.id,
               rg_format_name(d->format), want_depth ? "not " : "");
    return false;
  }
  if (a->level >= d->mip_levels) {
    ty_gl_fail(dev, TY_GL_ERROR_INVALID, "%s: %s level %u of a texture with %u", fn, what, a->level, d->mip_levels);
    return false;
  }
  uint32_t lw = ty_gl_level_size(d->width, a->level), lh = ty_gl_level_size(d->height, a->level);
  if (*w && (lw != *w || lh != *h)) {
    ty_gl_fail(dev, TY_GL_ERROR_INVALID, "%s: %s is %ux%u, the attachments before it %ux%u", fn, what, lw, lh, *w, *h);
    return false;
  }
  *w = lw;
  *h = lh;
  *format = d->format;
  bool single_layer = t->target == GL_TEXTURE_2D || t->target == GL_TEXTURE_2D_MULTISAMPLE;
  if (a->layered || single_layer) {
    glNamedFramebufferTexture(fb, point, t->name, (GLint)a->level);
  } else {
    uint32_t layers = ty_gl_level_layers(d, a->level);
    if (a->layer >= layers) {
      ty_gl_fail(dev, TY_GL_ERROR_INVALID, "%s: %s layer %u of a texture with %u", fn, what, a->layer, layers);
      return false;
    }
    glNamedFramebufferTextureLayer(fb, point, t->name, (GLint)a->level, (GLint)a->layer);
  }
  return true;
}

void ty_gl_delete_framebuffer_slot(void *slot) { glDeleteFramebuffers(1, &((gl_framebuffer_slot *)slot)->name); }

static const char *fb_status_name(GLenum s) {
  switch (s) {
  case GL_FRAMEBUFFER_INCOMPLETE_ATTACHMENT: return "GL_FRAMEBUFFER_INCOMPLETE_ATTACHMENT";
  case GL_FRAMEBUFFER_INCOMPLETE_MISSING_ATTACHMENT: return "GL_FRAMEBUFFER_INCOMPLETE_MISSING_ATTACHMENT";
  case GL_FRAMEBUFFER_UNSUPPORTED: return "GL_FRAMEBUFFER_UNSUPPORTED";
  case GL_FRAMEBUFFER_INCOMPLETE_MULTISAMPLE: return "GL_FRAMEBUFFER_INCOMPLETE_MULTISAMPLE";
  case GL_FRAMEBUFFER_INCOMPLETE_LAYER_TARGETS: return "GL_FRAMEBUFFER_INCOMPLETE_LAYER_TARGETS";
  default: return "incomplete";
  }
}

ty_gl_framebuffer ty_gl_make_framebuffer(ty_gl_device *dev, const ty_gl_framebuffer_desc *desc) {
  TY_ASSERT(dev && desc);
  static const char fn[] = "ty_gl_make_framebuffer";
  uint32_t n = 0;
  while (n < TY_GL_MAX_COLOR_ATTACHMENTS && desc->colors[n].texture.id) n++;
  if (n == 0 && !desc->depth_stencil.texture.id) {
    ty_gl_fail(dev, TY_GL_ERROR_INVALID, "%s: a framebuffer needs a colour or depth attachment", fn);
    return (ty_gl_framebuffer){0};
  }
  gl_framebuffer_slot *f = ty_gl_take_slot(dev, &dev->framebuffers, fn);
  if (!f) return (ty_gl_framebuffer){0};
  glCreateFramebuffers(1, &f->name);
  uint32_t w = 0, h = 0;
  rg_format fmt = RG_FORMAT_DEFAULT;
  GLenum draw[TY_GL_MAX_COLOR_ATTACHMENTS];
  bool good = true;
  for (uint32_t c = 0; c < n && good; c++) {
    char what[32];
    snprintf(what, sizeof what, "colour attachment %u", c);
    good = attach(dev, f->name, GL_COLOR_ATTACHMENT0 + c, &desc->colors[c], false, &w, &h, &fmt, what);
    f->colors[c] = desc->colors[c].texture;
    draw[c] = GL_COLOR_ATTACHMENT0 + c;
  }
  f->color_count = n;
  if (good && desc->depth_stencil.texture.id) {
    gl_texture_slot *t = ty_gl_get_slot(dev, &dev->textures, desc->depth_stencil.texture.id, fn);
    good = t != NULL;
    if (good) {
      f->has_stencil = ty_gl_format_info(t->desc.format)->stencil;
      GLenum point = f->has_stencil ? GL_DEPTH_STENCIL_ATTACHMENT : GL_DEPTH_ATTACHMENT;
      good = attach(dev, f->name, point, &desc->depth_stencil, true, &w, &h, &fmt, "depth attachment");
      f->depth = desc->depth_stencil.texture;
    }
  }
  if (good) {
    if (n) {
      glNamedFramebufferDrawBuffers(f->name, (GLsizei)n, draw);
      glNamedFramebufferReadBuffer(f->name, GL_COLOR_ATTACHMENT0);
    } else {
      glNamedFramebufferDrawBuffer(f->name, GL_NONE);
      glNamedFramebufferReadBuffer(f->name, GL_NONE);
    }
    GLenum s = glCheckNamedFramebufferStatus(f->name, GL_DRAW_FRAMEBUFFER);
    if (s != GL_FRAMEBUFFER_COMPLETE) {
      ty_gl_fail(dev, TY_GL_ERROR_FRAMEBUFFER_INCOMPLETE, "%s: %s%s%s", fn, fb_status_name(s), desc->label ? " in " : "",
                 desc->label ? desc->label : "");
      good = false;
    }
  }
  if (!good) {
    ty_gl_delete_framebuffer_slot(f);
    ty_gl_drop_slot(&dev->framebuffers, f);
    return (ty_gl_framebuffer){0};
  }
  f->width = w;
  f->height = h;
  return (ty_gl_framebuffer){ty_gl_made(dev, &dev->framebuffers, f, GL_FRAMEBUFFER, desc->label)};
}

ty_gl_status ty_gl_destroy_framebuffer(ty_gl_device *dev, ty_gl_framebuffer fb) {
  return ty_gl_destroy_slot(dev, &dev->framebuffers, fb.id, "ty_gl_destroy_framebuffer");
}

/* The framebuffer's slot when it and every texture it draws into are alive. */
static gl_framebuffer_slot *get_framebuffer(ty_gl_device *dev, ty_gl_framebuffer h, const char *fn) {
  gl_framebuffer_slot *f = ty_gl_get_slot(dev, &dev->framebuffers, h.id, fn);
  if (!f) return NULL;
  for (uint32_t c = 0; c <= f->color_count; c++) {
    ty_gl_texture t = c < f->color_count ? f->colors[c] : f->depth;
    if ((c < f->color_count || t.id) && !ty_gl_find_slot(&dev->textures, t.id)) {
      ty_gl_fail(dev, TY_GL_ERROR_BAD_HANDLE, "%s: framebuffer %u draws into texture %u, which was destroyed", fn, h.id, t.id);
      return NULL;
    }
  }
  return f;
}

/* get_framebuffer's slot when the framebuffer has colour attachment index too. */
static gl_framebuffer_slot *get_color_target(ty_gl_device *dev, ty_gl_framebuffer fb, uint32_t index, const char *fn) {
  gl_framebuffer_slot *f = get_framebuffer(dev, fb, fn);
  if (f && index >= f->color_count) {
    ty_gl_fail(dev, TY_GL_ERROR_INVALID, "%s: framebuffer %u has %u colour attachments, not %u", fn, fb.id,
               f->color_count, index + 1);
    return NULL;
  }
  return f;
}

ty_gl_status ty_gl_bind_framebuffer(ty_gl_device *dev, ty_gl_framebuffer fb) {
  if (fb.id == 0) {
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
    return ty_gl_ok(dev);
  }
  gl_framebuffer_slot *f = get_framebuffer(dev, fb, "ty_gl_bind_framebuffer");
  if (!f) return dev->status;
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, f->name);
  ty_gl_set_viewport(dev, 0, 0, (int)f->width, (int)f->height);
  return ty_gl_ok(dev);
}

ty_gl_status ty_gl_clear_color(ty_gl_device *dev, ty_gl_framebuffer fb, uint32_t index, const float rgba[4]) {
  static const char fn[] = "ty_gl_clear_color";
  GLuint name = 0;
  if (fb.id) {
    gl_framebuffer_slot *f = get_color_target(dev, fb, index, fn);
    if (!f) return dev->status;
    name = f->name;
  } else if (index != 0) {
    return ty_gl_fail(dev, TY_GL_ERROR_INVALID, "%s: the window's framebuffer has one colour buffer", fn);
  }
  glClearNamedFramebufferfv(name, GL_COLOR, (GLint)index, rgba);
  return ty_gl_ok(dev);
}

ty_gl_status ty_gl_clear_depth_stencil(ty_gl_device *dev, ty_gl_framebuffer fb, float depth, int stencil) {
  static const char fn[] = "ty_gl_clear_depth_stencil";
  GLuint name = 0;
  bool has_stencil = true;
  if (fb.id) {
    gl_framebuffer_slot *f = get_framebuffer(dev, fb, fn);
    if (!f) return dev->status;
    if (!f->depth.id) return ty_gl_fail(dev, TY_GL_ERROR_INVALID, "%s: framebuffer %u has no depth attachment", fn, fb.id);
    name = f->name;
    has_stencil = f->has_stencil;
  }
  if (has_stencil) glClearNamedFramebufferfi(name, GL_DEPTH_STENCIL, 0, depth, stencil);
  else glClearNamedFramebufferfv(name, GL_DEPTH, 0, &depth);
  return ty_gl_ok(dev);
}

ty_gl_status ty_gl_read_pixels(ty_gl_device *dev, ty_gl_framebuffer fb, uint32_t index, int x, int y, int width,
                               int height, uint8_t *rgba) {
  static const char fn[] = "ty_gl_read_pixels";
  TY_ASSERT(rgba);
  GLuint name = 0;
  GLenum buffer = GL_BACK;
  if (x < 0 || y < 0 || width <= 0 || height <= 0)
    return ty_gl_fail(dev, TY_GL_ERROR_INVALID, "%s: bad rectangle %dx%d at (%d, %d)", fn, width, height, x, y);
  if (fb.id) {
    gl_framebuffer_slot *f = get_color_target(dev, fb, index, fn);
    if (!f) return dev->status;
    if ((uint32_t)x + (uint32_t)width > f->width || (uint32_t)y + (uint32_t)height > f->height)
      return ty_gl_fail(dev, TY_GL_ERROR_INVALID, "%s: %dx%d at (%d, %d) is outside the %ux%u framebuffer", fn, width, height,
                        x, y, f->width, f->height);
    name = f->name;
    buffer = GL_COLOR_ATTACHMENT0 + index;
  }
  GLint previous = 0;
  glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &previous);
  glNamedFramebufferReadBuffer(name, buffer);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, name);
  glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glPixelStorei(GL_PACK_ROW_LENGTH, 0);
  glReadPixels(x, y, width, height, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, (GLuint)previous);
  return ty_gl_ok(dev);
}

bool ty_gl_framebuffer_size(const ty_gl_device *dev, ty_gl_framebuffer fb, uint32_t *width, uint32_t *height) {
  const gl_framebuffer_slot *f = ty_gl_find_slot(&dev->framebuffers, fb.id);
  if (!f) return false;
  if (width) *width = f->width;
  if (height) *height = f->height;
  return true;
}

#endif
