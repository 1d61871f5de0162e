/* engine/render/gl_texture.c: the device's textures (2D, arrays, cubes, 3D, multisampled),
 * made as immutable storage and uploaded in one layout per format, read back, bound for
 * sampling and as compute images; and the table from rg_format to GL's formats. */
#include "gl_device.h"

#include "../common.h"

#if TYCHO_WITH_GL

#include "gl_device_internal.h"

/* ---- formats ---- */

static const gl_format_info formats[RG_FORMAT_COUNT] = {
    [RG_FORMAT_DEFAULT] = {GL_RGBA8, GL_RGBA, GL_UNSIGNED_BYTE, 4, false, false},
    [RG_FORMAT_RGBA8] = {GL_RGBA8, GL_RGBA, GL_UNSIGNED_BYTE, 4, false, false},
    [RG_FORMAT_SRGB8_A8] = {GL_SRGB8_ALPHA8, GL_RGBA, GL_UNSIGNED_BYTE, 4, false, false},
    [RG_FORMAT_RGBA16F] = {GL_RGBA16F, GL_RGBA, GL_FLOAT, 16, false, false},
    [RG_FORMAT_RGBA32F] = {GL_RGBA32F, GL_RGBA, GL_FLOAT, 16, false, false},
    [RG_FORMAT_R11G11B10F] = {GL_R11F_G11F_B10F, GL_RGB, GL_FLOAT, 12, false, false},
    [RG_FORMAT_RGB10_A2] = {GL_RGB10_A2, GL_RGBA, GL_UNSIGNED_INT_2_10_10_10_REV, 4, false, false},
    [RG_FORMAT_R8] = {GL_R8, GL_RED, GL_UNSIGNED_BYTE, 1, false, false},
    [RG_FORMAT_RG8] = {GL_RG8, GL_RG, GL_UNSIGNED_BYTE, 2, false, false},
    [RG_FORMAT_R16F] = {GL_R16F, GL_RED, GL_FLOAT, 4, false, false},
    [RG_FORMAT_RG16F] = {GL_RG16F, GL_RG, GL_FLOAT, 8, false, false},
    [RG_FORMAT_R32F] = {GL_R32F, GL_RED, GL_FLOAT, 4, false, false},
    [RG_FORMAT_RG32F] = {GL_RG32F, GL_RG, GL_FLOAT, 8, false, false},
    [RG_FORMAT_R32UI] = {GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, 4, false, false},
    [RG_FORMAT_DEPTH16] = {GL_DEPTH_COMPONENT16, GL_DEPTH_COMPONENT, GL_UNSIGNED_SHORT, 2, true, false},
    [RG_FORMAT_DEPTH24S8] = {GL_DEPTH24_STENCIL8, GL_DEPTH_STENCIL, GL_UNSIGNED_INT_24_8, 4, true, true},
    [RG_FORMAT_DEPTH32F] = {GL_DEPTH_COMPONENT32F, GL_DEPTH_COMPONENT, GL_FLOAT, 4, true, false},
};

bool ty_gl_format_valid(rg_format f) { return (unsigned)f < RG_FORMAT_COUNT; }
const gl_format_info *ty_gl_format_info(rg_format f) { return &formats[f]; }
size_t ty_gl_format_upload_size(rg_format f) { return ty_gl_format_valid(f) ? formats[f].upload_size : 0; }
bool ty_gl_format_is_depth(rg_format f) { return ty_gl_format_valid(f) && formats[f].depth; }

/* ---- textures ---- */

static uint32_t mip_count(uint32_t w, uint32_t h, uint32_t d) {
  uint32_t m = w > h ? w : h, n = 1;
  if (d > m) m = d;
  while (m > 1) m >>= 1, n++;
  return n;
}

uint32_t ty_gl_level_size(uint32_t size, uint32_t level) {
  uint32_t s = level < 32 ? size >> level : 0;
  return s ? s : 1;
}

uint32_t ty_gl_level_layers(const ty_gl_texture_desc *d, uint32_t level) {
  return d->type == TY_GL_TEXTURE_3D ? ty_gl_level_size(d->layers, level) : d->layers;
}

static void unpack_defaults(void) {
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
  glPixelStorei(GL_UNPACK_IMAGE_HEIGHT, 0);
}

/* Uploads into t; region already checked. */
static void upload(const gl_texture_slot *t, const ty_gl_texture_region *r, const void *data) {
  const gl_format_info *f = &formats[t->desc.format];
  unpack_defaults();
  if (t->target == GL_TEXTURE_2D)
    glTextureSubImage2D(t->name, (GLint)r->level, (GLint)r->x, (GLint)r->y, (GLsizei)r->width, (GLsizei)r->height,
                        f->format, f->type, data);
  else
    glTextureSubImage3D(t->name, (GLint)r->level, (GLint)r->x, (GLint)r->y, (GLint)r->layer, (GLsizei)r->width,
                        (GLsizei)r->height, (GLsizei)r->layers, f->format, f->type, data);
}

void ty_gl_delete_texture_slot(void *slot) { glDeleteTextures(1, &((gl_texture_slot *)slot)->name); }

ty_gl_texture ty_gl_make_texture(ty_gl_device *dev, const ty_gl_texture_desc *desc) {
  TY_ASSERT(dev && desc);
  static const char fn[] = "ty_gl_make_texture";
  ty_gl_texture_desc d = *desc;
  const char *lbl = d.label;
  d.data = NULL;
  d.label = NULL;
  if (!ty_gl_format_valid(d.format)) {
    ty_gl_fail(dev, TY_GL_ERROR_INVALID, "%s: format %d is not an rg_format", fn, (int)d.format);
    return (ty_gl_texture){0};
  }
  if (d.format == RG_FORMAT_DEFAULT) d.format = RG_FORMAT_RGBA8;
  if (d.layers == 0) d.layers = 1;
  if (d.samples == 0) d.samples = 1;
  if (d.mip_levels == 0) d.mip_levels = 1;
  if (d.type == TY_GL_TEXTURE_CUBE && d.layers == 1) d.layers = 6;
  uint32_t max = (uint32_t)(d.type == TY_GL_TEXTURE_3D ? dev->max_3d_size : dev->max_texture_size);
  const char *bad = NULL;
  if ((unsigned)d.type > TY_GL_TEXTURE_3D) bad = "type is not a ty_gl_texture_type";
  else if (d.width == 0 || d.height == 0) bad = "width and height must be at least 1";
  else if (d.width > max || d.height > max) bad = "width or height is past GL_MAX_TEXTURE_SIZE";
  else if (d.type == TY_GL_TEXTURE_CUBE && (d.layers != 6 || d.width != d.height)) bad = "a cube map is square with 6 faces";
  else if (d.type == TY_GL_TEXTURE_3D ? d.layers > max : d.layers > (uint32_t)dev->max_layers) bad = "too many layers";
  else if (d.samples > 1 && (d.type != TY_GL_TEXTURE_2D || d.samples > (uint32_t)dev->max_samples))
    bad = "multisampling needs a 2D texture and at most GL_MAX_SAMPLES samples";
  else if (d.samples > 1 && (d.mip_levels > 1 || desc->data || d.generate_mips)) bad = "a multisampled texture has one level and no data";
  if (bad) {
    ty_gl_fail(dev, TY_GL_ERROR_INVALID, "%s: %s (%ux%u, %u layers, %u samples)", fn, bad, d.width, d.height, d.layers, d.samples);
    return (ty_gl_texture){0};
  }
  uint32_t full = mip_count(d.width, d.height, d.type == TY_GL_TEXTURE_3D ? d.layers : 1);
  if (d.mip_levels > full) d.mip_levels = full; /* TY_GL_MIPS_FULL, or more than there can be */

  gl_texture_slot *t = ty_gl_take_slot(dev, &dev->textures, fn);
  if (!t) return (ty_gl_texture){0};
  t->desc = d;
  if (d.type == TY_GL_TEXTURE_CUBE) t->target = GL_TEXTURE_CUBE_MAP;
  else if (d.type == TY_GL_TEXTURE_3D) t->target = GL_TEXTURE_3D;
  else if (d.samples > 1) t->target = d.layers > 1 ? GL_TEXTURE_2D_MULTISAMPLE_ARRAY : GL_TEXTURE_2D_MULTISAMPLE;
  else t->target = d.layers > 1 ? GL_TEXTURE_2D_ARRAY : GL_TEXTURE_2D;
  GLenum internal = formats[d.format].internal;
  ty_gl_drain_errors();
  glCreateTextures(t->target, 1, &t->name);
  switch (t->target) {
  case GL_TEXTURE_2D:
  case GL_TEXTURE_CUBE_MAP:
    glTextureStorage2D(t->name, (GLsizei)d.mip_levels, internal, (GLsizei)d.width, (GLsizei)d.height);
    break;
  case GL_TEXTURE_2D_ARRAY:
  case GL_TEXTURE_3D:
    glTextureStorage3D(t->name, (GLsizei)d.mip_levels, internal, (GLsizei)d.width, (GLsizei)d.height, (GLsizei)d.layers);
    break;
  case GL_TEXTURE_2D_MULTISAMPLE:
    glTextureStorage2DMultisample(t->name, (GLsizei)d.samples, internal, (GLsizei)d.width, (GLsizei)d.height, GL_TRUE);
    break;
  default:
    glTextureStorage3DMultisample(t->name, (GLsizei)d.samples, internal, (GLsizei)d.width, (GLsizei)d.height,
                                  (GLsizei)d.layers, GL_TRUE);
    break;
  }
  if (d.samples == 1) {
    /* GL's default minification wants mipmaps; a texture without them would be incomplete. */
    glTextureParameteri(t->name, GL_TEXTURE_MIN_FILTER, d.mip_levels > 1 ? GL_LINEAR_MIPMAP_LINEAR : GL_LINEAR);
    glTextureParameteri(t->name, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    if (desc->data) {
      ty_gl_texture_region r = {.width = d.width, .height = d.height, .layers = d.layers};
      upload(t, &r, desc->data);
    }
    if (d.generate_mips && d.mip_levels > 1) glGenerateTextureMipmap(t->name);
  }
  GLenum e = glGetError();
  if (e != GL_NO_ERROR) {
    ty_gl_delete_texture_slot(t);
    ty_gl_drop_slot(&dev->textures, t);
    ty_gl_fail(dev, TY_GL_ERROR_DRIVER, "%s: %s making a %ux%u %s texture", fn, ty_gl_error_name(e), d.width, d.height,
               rg_format_name(d.format));
    return (ty_gl_texture){0};
  }
  return (ty_gl_texture){ty_gl_made(dev, &dev->textures, t, GL_TEXTURE, lbl)};
}

ty_gl_status ty_gl_destroy_texture(ty_gl_device *dev, ty_gl_texture tex) {
  return ty_gl_destroy_slot(dev, &dev->textures, tex.id, "ty_gl_destroy_texture");
}

/* The slot of tex when it is single-sampled and has mip level `level`. */
static gl_texture_slot *get_level(ty_gl_device *dev, ty_gl_texture tex, uint32_t level, const char *fn) {
  gl_texture_slot *t = ty_gl_get_slot(dev, &dev->textures, tex.id, fn);
  if (!t) return NULL;
  if (t->desc.samples > 1) ty_gl_fail(dev, TY_GL_ERROR_INVALID, "%s: texture %u is multisampled", fn, tex.id);
  else if (level >= t->desc.mip_levels)
    ty_gl_fail(dev, TY_GL_ERROR_INVALID, "%s: level %u of a texture with %u", fn, level, t->desc.mip_levels);
  else return t;
  return NULL;
}

ty_gl_status ty_gl_update_texture(ty_gl_device *dev, ty_gl_texture tex, const ty_gl_texture_region *region,
                                  const void *data) {
  static const char fn[] = "ty_gl_update_texture";
  gl_texture_slot *t = get_level(dev, tex, region ? region->level : 0, fn);
  if (!t) return dev->status;
  TY_ASSERT(data);
  const ty_gl_texture_desc *d = &t->desc;
  ty_gl_texture_region r = region ? *region : (ty_gl_texture_region){.layers = d->layers};
  uint32_t lw = ty_gl_level_size(d->width, r.level), lh = ty_gl_level_size(d->height, r.level);
  uint32_t ll = ty_gl_level_layers(d, r.level);
  if (r.width == 0 || r.height == 0) r.x = r.y = 0, r.width = lw, r.height = lh;
  if (r.layers == 0) r.layers = 1;
  if (!ty_gl_range_ok(r.x, r.width, lw) || !ty_gl_range_ok(r.y, r.height, lh) || !ty_gl_range_ok(r.layer, r.layers, ll))
    return ty_gl_fail(dev, TY_GL_ERROR_INVALID, "%s: region %ux%ux%u at (%u, %u, %u) is outside level %u (%ux%ux%u)", fn,
                      r.width, r.height, r.layers, r.x, r.y, r.layer, r.level, lw, lh, ll);
  if (t->target == GL_TEXTURE_2D && (r.layer != 0 || r.layers != 1))
    return ty_gl_fail(dev, TY_GL_ERROR_INVALID, "%s: a 2D texture has one layer", fn);
  upload(t, &r, data);
  return ty_gl_ok(dev);
}

ty_gl_status ty_gl_generate_mips(ty_gl_device *dev, ty_gl_texture tex) {
  gl_texture_slot *t = get_level(dev, tex, 0, "ty_gl_generate_mips");
  if (!t) return dev->status;
  if (t->desc.mip_levels > 1) glGenerateTextureMipmap(t->name);
  return ty_gl_ok(dev);
}

ty_gl_status ty_gl_read_texture(ty_gl_device *dev, ty_gl_texture tex, uint32_t level, void *out, size_t size) {
  static const char fn[] = "ty_gl_read_texture";
  gl_texture_slot *t = get_level(dev, tex, level, fn);
  if (!t) return dev->status;
  const ty_gl_texture_desc *d = &t->desc;
  size_t need = (size_t)ty_gl_level_size(d->width, level) * ty_gl_level_size(d->height, level) *
                ty_gl_level_layers(d, level) * formats[d->format].upload_size;
  if (size < need) return ty_gl_fail(dev, TY_GL_ERROR_INVALID, "%s: level %u needs %zu bytes, got %zu", fn, level, need, size);
  TY_ASSERT(out);
  glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glPixelStorei(GL_PACK_ROW_LENGTH, 0);
  glGetTextureImage(t->name, (GLint)level, formats[d->format].format, formats[d->format].type, (GLsizei)size, out);
  return ty_gl_ok(dev);
}

bool ty_gl_texture_query(const ty_gl_device *dev, ty_gl_texture tex, ty_gl_texture_desc *out) {
  const gl_texture_slot *t = ty_gl_find_slot(&dev->textures, tex.id);
  if (!t) return false;
  if (out) *out = t->desc;
  return true;
}

ty_gl_status ty_gl_bind_texture(ty_gl_device *dev, uint32_t unit, ty_gl_texture tex, ty_gl_sampler smp) {
  static const char fn[] = "ty_gl_bind_texture";
  gl_texture_slot *t = ty_gl_get_slot(dev, &dev->textures, tex.id, fn);
  if (!t) return dev->status;
  GLuint s = 0;
  if (smp.id) {
    const gl_sampler_slot *sampler = ty_gl_get_slot(dev, &dev->samplers, smp.id, fn);
    if (!sampler) return dev->status;
    s = sampler->name;
  }
  glBindTextureUnit(unit, t->name);
  glBindSampler(unit, s);
  return ty_gl_ok(dev);
}

ty_gl_status ty_gl_bind_image(ty_gl_device *dev, uint32_t unit, ty_gl_texture tex, uint32_t level, ty_gl_access access,
                              rg_format format) {
  static const char fn[] = "ty_gl_bind_image";
  static const GLenum accesses[] = {GL_READ_ONLY, GL_WRITE_ONLY, GL_READ_WRITE};
  if ((unsigned)access > TY_GL_ACCESS_READ_WRITE || !ty_gl_format_valid(format) || formats[format].depth)
    return ty_gl_fail(dev, TY_GL_ERROR_INVALID, "%s: access %d or format %d cannot bind as an image", fn, (int)access,
                      (int)format);
  GLuint name = 0;
  if (tex.id) {
    gl_texture_slot *t = ty_gl_get_slot(dev, &dev->textures, tex.id, fn);
    if (!t) return dev->status;
    name = t->name;
  }
  glBindImageTexture(unit, name, (GLint)level, GL_FALSE, 0, accesses[access], formats[format].internal);
  return ty_gl_ok(dev);
}

#endif
