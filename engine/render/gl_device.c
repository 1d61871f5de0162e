/* engine/render/gl_device.c: the GL 4.5 device itself: its generation-checked pools of GL
 * objects (one per kind, each kind's calls in a file of its own: gl_buffer.c, gl_texture.c,
 * gl_sampler.c, gl_framebuffer.c, gl_program.c, gl_vertex_array.c; state and draws in
 * gl_pipeline.c), the status and messages every call sets, the GL names behind handles
 * and the render graph's texture backend. Built without GL (TYCHO_WITH_GL off),
 * ty_gl_create fails cleanly and the rest is left out. */
#include "gl_device.h"

#include <stdarg.h>
#include <string.h>

#include "../common.h"

#if TYCHO_WITH_GL

#include "gl_device_internal.h"

/* ---- pools ---- */

#define SLOT_NONE UINT32_MAX

static void pool_init(gl_pool *p, uint32_t asked, uint32_t dflt, size_t slot_size, const char *kind,
                      void (*delete_slot)(void *)) {
  uint32_t cap = asked ? asked : dflt;
  if (cap > 0xFFFFu) cap = 0xFFFFu;
  *p = (gl_pool){.cap = cap, .free_count = cap, .slot_size = slot_size, .kind = kind, .delete_slot = delete_slot};
  p->gen = TY_MALLOC(cap * sizeof *p->gen);
  p->alive = TY_MALLOC(cap * sizeof *p->alive);
  p->free_slots = TY_MALLOC(cap * sizeof *p->free_slots);
  p->slots = TY_MALLOC(cap * slot_size);
  TY_ASSERT(p->gen && p->alive && p->free_slots && p->slots);
  memset(p->slots, 0, cap * slot_size);
  for (uint32_t i = 0; i < cap; i++) {
    p->gen[i] = 1;
    p->alive[i] = false;
    p->free_slots[i] = cap - 1 - i;
  }
}

static void *slot_at(const gl_pool *p, uint32_t i) { return (char *)p->slots + (size_t)i * p->slot_size; }
static uint32_t slot_index(const gl_pool *p, const void *slot) {
  return (uint32_t)(((const char *)slot - (const char *)p->slots) / p->slot_size);
}

/* Deletes what is still alive in p, then p's arrays. */
static void pool_destroy(gl_pool *p) {
  for (uint32_t i = 0; i < p->cap; i++)
    if (p->alive[i]) p->delete_slot(slot_at(p, i));
  TY_FREE(p->gen);
  TY_FREE(p->alive);
  TY_FREE(p->free_slots);
  TY_FREE(p->slots);
}

static uint32_t pool_lookup(const gl_pool *p, uint32_t id) {
  uint32_t i = (id & 0xFFFFu);
  if (i == 0 || i > p->cap) return SLOT_NONE;
  i--;
  if (!p->alive[i] || p->gen[i] != (uint16_t)(id >> 16)) return SLOT_NONE;
  return i;
}

/* ---- status and messages ---- */

static const char *const status_names[] = {
    "TY_GL_OK",         "TY_GL_ERROR_BAD_HANDLE", "TY_GL_ERROR_POOL_FULL",
    "TY_GL_ERROR_INVALID", "TY_GL_ERROR_COMPILE", "TY_GL_ERROR_LINK",
    "TY_GL_ERROR_INCLUDE", "TY_GL_ERROR_FRAMEBUFFER_INCOMPLETE", "TY_GL_ERROR_RING_FULL",
    "TY_GL_ERROR_DRIVER"};
/* The stable names failures are logged under. */
static const char *const log_names[] = {"",           "gl_bad_handle",   "gl_pool_full",
                                        "gl_invalid", "gl_shader_compile", "gl_shader_link",
                                        "gl_shader_include", "gl_framebuffer_incomplete", "gl_ring_full",
                                        "gl_driver_error"};

const char *ty_gl_status_name(ty_gl_status s) {
  return (unsigned)s < sizeof status_names / sizeof *status_names ? status_names[s] : "TY_GL_ERROR_?";
}

ty_gl_status ty_gl_ok(ty_gl_device *dev) {
  dev->status = TY_GL_OK;
  dev->error[0] = '\0';
  return TY_GL_OK;
}

ty_gl_status ty_gl_fail(ty_gl_device *dev, ty_gl_status s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(dev->error, dev->error_cap, fmt, ap);
  va_end(ap);
  if (n >= 0 && (size_t)n >= dev->error_cap) {
    size_t cap = (size_t)n + 1;
    char *e = TY_REALLOC(dev->error, cap);
    TY_ASSERT(e);
    dev->error = e;
    dev->error_cap = cap;
    va_start(ap, fmt);
    vsnprintf(dev->error, dev->error_cap, fmt, ap);
    va_end(ap);
  }
  dev->status = s;
  if (!dev->quiet) ty_log(log_names[s], "%s", dev->error);
  return s;
}

ty_gl_status ty_gl_status_of(const ty_gl_device *dev) { return dev->status; }
const char *ty_gl_error(const ty_gl_device *dev) { return dev->error; }

void ty_gl_drain_errors(void) {
  for (int i = 0; i < 16 && glGetError() != GL_NO_ERROR; i++) {
  }
}

const char *ty_gl_error_name(GLenum e) {
  switch (e) {
  case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
  case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
  case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
  case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
  case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
  default: return "a GL error";
  }
}

/* ---- slots by handle ---- */

void *ty_gl_take_slot(ty_gl_device *dev, gl_pool *p, const char *fn) {
  if (!p->free_count) {
    ty_gl_fail(dev, TY_GL_ERROR_POOL_FULL, "%s: all %u %s slots are in use", fn, p->cap, p->kind);
    return NULL;
  }
  uint32_t i = p->free_slots[--p->free_count];
  p->alive[i] = true;
  p->live++;
  void *slot = slot_at(p, i);
  memset(slot, 0, p->slot_size);
  return slot;
}

void ty_gl_drop_slot(gl_pool *p, void *slot) {
  uint32_t i = slot_index(p, slot);
  memset(slot, 0, p->slot_size);
  p->alive[i] = false;
  p->gen[i] = (uint16_t)(p->gen[i] + 1);
  if (p->gen[i] == 0) p->gen[i] = 1;
  p->free_slots[p->free_count++] = i;
  p->live--;
}

uint32_t ty_gl_made(ty_gl_device *dev, gl_pool *p, void *slot, GLenum kind, const char *label) {
  uint32_t i = slot_index(p, slot);
  if (label && *label) glObjectLabel(kind, *(const GLuint *)slot, -1, label);
  ty_gl_ok(dev);
  return (uint32_t)p->gen[i] << 16 | (i + 1);
}

void *ty_gl_find_slot(const gl_pool *p, uint32_t id) {
  uint32_t i = pool_lookup(p, id);
  return i == SLOT_NONE ? NULL : slot_at(p, i);
}

void *ty_gl_get_slot(ty_gl_device *dev, gl_pool *p, uint32_t id, const char *fn) {
  void *slot = ty_gl_find_slot(p, id);
  if (slot) return slot;
  if (id == 0) ty_gl_fail(dev, TY_GL_ERROR_BAD_HANDLE, "%s: no %s (handle 0)", fn, p->kind);
  else
    ty_gl_fail(dev, TY_GL_ERROR_BAD_HANDLE, "%s: %s %u (slot %u, generation %u) was destroyed or never made", fn,
               p->kind, id, id & 0xFFFFu, id >> 16);
  return NULL;
}

ty_gl_status ty_gl_destroy_slot(ty_gl_device *dev, gl_pool *p, uint32_t id, const char *fn) {
  void *slot = ty_gl_get_slot(dev, p, id, fn);
  if (!slot) return dev->status;
  p->delete_slot(slot);
  ty_gl_drop_slot(p, slot);
  return ty_gl_ok(dev);
}

/* ---- device ---- */

ty_gl_device *ty_gl_create(const ty_gl_device_desc *desc) {
  ty_gl_device_desc d = desc ? *desc : (ty_gl_device_desc){0};
  int version = epoxy_is_desktop_gl() ? epoxy_gl_version() : 0;
  if (version < 45) {
    ty_log("gl_unavailable", "the GL device needs a current OpenGL 4.5 core context (this one is %d.%d)", version / 10,
           version % 10);
    return NULL;
  }
  ty_gl_device *dev = TY_MALLOC(sizeof *dev);
  TY_ASSERT(dev);
  memset(dev, 0, sizeof *dev);
  dev->quiet = d.quiet;
  dev->error_cap = 256;
  dev->error = TY_MALLOC(dev->error_cap);
  TY_ASSERT(dev->error);
  dev->error[0] = '\0';
  pool_init(&dev->buffers, d.buffer_pool, 1024, sizeof(gl_buffer_slot), "buffer", ty_gl_delete_buffer_slot);
  pool_init(&dev->textures, d.texture_pool, 1024, sizeof(gl_texture_slot), "texture", ty_gl_delete_texture_slot);
  pool_init(&dev->samplers, d.sampler_pool, 128, sizeof(gl_sampler_slot), "sampler", ty_gl_delete_sampler_slot);
  pool_init(&dev->framebuffers, d.framebuffer_pool, 256, sizeof(gl_framebuffer_slot), "framebuffer",
            ty_gl_delete_framebuffer_slot);
  pool_init(&dev->programs, d.program_pool, 256, sizeof(gl_program_slot), "program", ty_gl_delete_program_slot);
  pool_init(&dev->vertex_arrays, d.vertex_array_pool, 256, sizeof(gl_vertex_array_slot), "vertex array",
            ty_gl_delete_vertex_array_slot);
  GLint ubo_align = 256, ssbo_align = 256;
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &dev->max_texture_size);
  glGetIntegerv(GL_MAX_3D_TEXTURE_SIZE, &dev->max_3d_size);
  glGetIntegerv(GL_MAX_ARRAY_TEXTURE_LAYERS, &dev->max_layers);
  glGetIntegerv(GL_MAX_SAMPLES, &dev->max_samples);
  glGetIntegerv(GL_UNIFORM_BUFFER_OFFSET_ALIGNMENT, &ubo_align);
  glGetIntegerv(GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT, &ssbo_align);
  dev->binding_align = ubo_align > ssbo_align ? ubo_align : ssbo_align;
  if (dev->binding_align < 256) dev->binding_align = 256;
  dev->anisotropy = epoxy_has_gl_extension("GL_EXT_texture_filter_anisotropic") ||
                    epoxy_has_gl_extension("GL_ARB_texture_filter_anisotropic");
  if (dev->anisotropy) glGetFloatv(GL_MAX_TEXTURE_MAX_ANISOTROPY_EXT, &dev->max_anisotropy);
  glCreateVertexArrays(1, &dev->empty_vertex_array);
  glObjectLabel(GL_VERTEX_ARRAY, dev->empty_vertex_array, -1, "tycho empty vertex array");
  ty_gl_reset_state(dev);
  return dev;
}

void ty_gl_destroy(ty_gl_device *dev) {
  if (!dev) return;
  /* Users before what they use: vertex arrays and framebuffers before buffers and textures. */
  gl_pool *pools[] = {&dev->vertex_arrays, &dev->framebuffers, &dev->programs,
                      &dev->samplers,      &dev->textures,     &dev->buffers};
  for (size_t i = 0; i < sizeof pools / sizeof *pools; i++) pool_destroy(pools[i]);
  glDeleteVertexArrays(1, &dev->empty_vertex_array);
  TY_FREE(dev->error);
  TY_FREE(dev);
}

ty_gl_stats ty_gl_get_stats(const ty_gl_device *dev) {
  return (ty_gl_stats){dev->buffers.live,      dev->textures.live, dev->samplers.live,
                       dev->framebuffers.live, dev->programs.live, dev->vertex_arrays.live,
                       dev->pipeline_applies,  dev->state_calls};
}

/* ---- names ---- */

/* The GL name behind handle id (every slot starts with it); 0 for a bad handle. */
static uint32_t name_of(ty_gl_device *dev, gl_pool *p, uint32_t id, const char *fn) {
  const GLuint *name = ty_gl_get_slot(dev, p, id, fn);
  return name ? (ty_gl_ok(dev), *name) : 0;
}

uint32_t ty_gl_buffer_name(ty_gl_device *dev, ty_gl_buffer buf) {
  return name_of(dev, &dev->buffers, buf.id, "ty_gl_buffer_name");
}
uint32_t ty_gl_texture_name(ty_gl_device *dev, ty_gl_texture tex) {
  return name_of(dev, &dev->textures, tex.id, "ty_gl_texture_name");
}
uint32_t ty_gl_sampler_name(ty_gl_device *dev, ty_gl_sampler smp) {
  return name_of(dev, &dev->samplers, smp.id, "ty_gl_sampler_name");
}
uint32_t ty_gl_framebuffer_name(ty_gl_device *dev, ty_gl_framebuffer fb) {
  return name_of(dev, &dev->framebuffers, fb.id, "ty_gl_framebuffer_name");
}
uint32_t ty_gl_program_name(ty_gl_device *dev, ty_gl_program prog) {
  return name_of(dev, &dev->programs, prog.id, "ty_gl_program_name");
}

/* ---- the render graph's backend ---- */

static uint32_t graph_create_texture(void *user, const rg_texture_info *info) {
  ty_gl_texture_desc d = {.width = info->width, .height = info->height, .layers = info->layers,
                          .samples = info->samples, .format = info->format, .label = "render graph transient"};
  return ty_gl_make_texture(user, &d).id;
}

static void graph_destroy_texture(void *user, uint32_t texture) { ty_gl_destroy_texture(user, (ty_gl_texture){texture}); }

rg_backend ty_gl_graph_backend(ty_gl_device *dev) {
  return (rg_backend){graph_create_texture, graph_destroy_texture, dev};
}

#else /* !TYCHO_WITH_GL */

ty_gl_device *ty_gl_create(const ty_gl_device_desc *desc) {
  (void)desc;
  ty_log("gl_unavailable", "this tycho was built without GL (TYCHO_WITH_GL=OFF)");
  return NULL;
}

void ty_gl_destroy(ty_gl_device *dev) { (void)dev; }

/* No device is ever made here, so the renderer's device calls are never reached; these give
 * the ones its code names something to link against, each refusing a device it cannot have. */
const char *ty_gl_error(const ty_gl_device *dev) {
  (void)dev;
  return "this tycho was built without GL";
}

ty_gl_texture ty_gl_make_texture(ty_gl_device *dev, const ty_gl_texture_desc *desc) {
  (void)dev, (void)desc;
  return (ty_gl_texture){0};
}

ty_gl_status ty_gl_destroy_texture(ty_gl_device *dev, ty_gl_texture tex) {
  (void)dev, (void)tex;
  return TY_GL_ERROR_BAD_HANDLE;
}

ty_gl_status ty_gl_clear_color(ty_gl_device *dev, ty_gl_framebuffer fb, uint32_t index, const float rgba[4]) {
  (void)dev, (void)fb, (void)index, (void)rgba;
  return TY_GL_ERROR_BAD_HANDLE;
}

ty_gl_status ty_gl_clear_depth_stencil(ty_gl_device *dev, ty_gl_framebuffer fb, float depth, int stencil) {
  (void)dev, (void)fb, (void)depth, (void)stencil;
  return TY_GL_ERROR_BAD_HANDLE;
}

ty_gl_status ty_gl_use_program(ty_gl_device *dev, ty_gl_program prog) {
  (void)dev, (void)prog;
  return TY_GL_ERROR_BAD_HANDLE;
}

ty_gl_status ty_gl_bind_texture(ty_gl_device *dev, uint32_t unit, ty_gl_texture tex, ty_gl_sampler smp) {
  (void)dev, (void)unit, (void)tex, (void)smp;
  return TY_GL_ERROR_BAD_HANDLE;
}

rg_backend ty_gl_graph_backend(ty_gl_device *dev) { return (rg_backend){NULL, NULL, dev}; }

#endif
