/* engine/render/gl_device.c: the GL 4.5 device layer: generation-checked pools of GL
 * objects made with direct state access, a persistently mapped ring for per-frame data,
 * shader programs (their sources prepared by glsl.c), pipeline state applied through a
 * cache, and the render graph's texture backend. Built without GL (TYCHO_WITH_GL off), ty_gl_create
 * fails cleanly and the rest of the file is left out. */
#include "gl_device.h"

#include <stdarg.h>
#include <string.h>

#include "../common.h"

#if TYCHO_WITH_GL

#include <errno.h>
#include <epoxy/gl.h> /* Required for: GL 4.5 entry points (DSA) */

/* ---- pools ----------------------------------------------------------------------------
 * A handle id is (generation << 16) | (slot + 1): never 0, and a destroyed slot's
 * generation moves on, so an old handle no longer matches. */

#define SLOT_NONE UINT32_MAX

typedef struct pool {
  uint32_t cap, live;
  uint16_t *gen;
  bool *alive;
  uint32_t *free_slots; /* a stack; the lowest slots come out first */
  uint32_t free_count;
} pool;

static void pool_init(pool *p, uint32_t cap) {
  p->cap = cap;
  p->live = 0;
  p->gen = TY_MALLOC(cap * sizeof *p->gen);
  p->alive = TY_MALLOC(cap * sizeof *p->alive);
  p->free_slots = TY_MALLOC(cap * sizeof *p->free_slots);
  TY_ASSERT(p->gen && p->alive && p->free_slots);
  for (uint32_t i = 0; i < cap; i++) {
    p->gen[i] = 1;
    p->alive[i] = false;
    p->free_slots[i] = cap - 1 - i;
  }
  p->free_count = cap;
}

static void pool_free_arrays(pool *p) {
  TY_FREE(p->gen);
  TY_FREE(p->alive);
  TY_FREE(p->free_slots);
}

static uint32_t pool_alloc(pool *p) {
  if (!p->free_count) return SLOT_NONE;
  uint32_t i = p->free_slots[--p->free_count];
  p->alive[i] = true;
  p->live++;
  return i;
}

static void pool_release(pool *p, uint32_t i) {
  p->alive[i] = false;
  p->gen[i] = (uint16_t)(p->gen[i] + 1);
  if (p->gen[i] == 0) p->gen[i] = 1;
  p->free_slots[p->free_count++] = i;
  p->live--;
}

static uint32_t pool_id(const pool *p, uint32_t i) { return (uint32_t)p->gen[i] << 16 | (i + 1); }

static uint32_t pool_lookup(const pool *p, uint32_t id) {
  uint32_t i = (id & 0xFFFFu);
  if (i == 0 || i > p->cap) return SLOT_NONE;
  i--;
  if (!p->alive[i] || p->gen[i] != (uint16_t)(id >> 16)) return SLOT_NONE;
  return i;
}

/* ---- slots ---- */

typedef struct buffer_slot {
  GLuint name;
  size_t size; /* total bytes (a ring: stride * frames) */
  uint32_t flags;
  uint32_t ring_frames, ring_frame;
  size_t ring_stride, ring_head;
  uint8_t *mapped;
  GLsync fences[TY_GL_MAX_RING_FRAMES];
} buffer_slot;

typedef struct texture_slot {
  GLuint name;
  GLenum target;
  ty_gl_texture_desc desc; /* resolved: layers, mip_levels, samples >= 1; data, label NULL */
} texture_slot;

typedef struct sampler_slot {
  GLuint name;
} sampler_slot;

typedef struct framebuffer_slot {
  GLuint name;
  ty_gl_texture colors[TY_GL_MAX_COLOR_ATTACHMENTS];
  uint32_t color_count;
  ty_gl_texture depth;
  bool has_stencil;
  uint32_t width, height;
} framebuffer_slot;

typedef struct program_slot {
  GLuint name;
  bool compute;
} program_slot;

typedef struct vertex_array_slot {
  GLuint name;
  ty_gl_buffer buffers[TY_GL_MAX_VERTEX_BINDINGS + 1]; /* the vertex buffers, then the index buffer */
} vertex_array_slot;

/* The fixed-function state the device last set; each field is one GL setting, so a
 * change to one issues only its call. */
typedef struct gl_state {
  bool depth_test, depth_write, blend, cull, offset, scissor;
  GLenum depth_func, cull_face;
  ty_gl_blend blend_mode;
  float offset_factor, offset_units;
  GLint viewport[4], scissor_rect[4];
} gl_state;

struct ty_gl_device {
  pool buffers, textures, samplers, framebuffers, programs, vertex_arrays;
  buffer_slot *buffer_slots;
  texture_slot *texture_slots;
  sampler_slot *sampler_slots;
  framebuffer_slot *framebuffer_slots;
  program_slot *program_slots;
  vertex_array_slot *vertex_array_slots;
  GLuint empty_vertex_array;
  ty_gl_status status;
  char *error;
  size_t error_cap;
  bool quiet;
  bool anisotropy;
  GLint max_texture_size, max_3d_size, max_layers, max_samples, binding_align;
  GLfloat max_anisotropy;
  gl_state state;   /* what GL holds, as the last apply left it */
  bool state_known; /* false: the next apply issues every call */
  uint64_t pipeline_applies, state_calls;
};

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

static ty_gl_status ok(ty_gl_device *dev) {
  dev->status = TY_GL_OK;
  dev->error[0] = '\0';
  return TY_GL_OK;
}

static ty_gl_status fail(ty_gl_device *dev, ty_gl_status s, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static ty_gl_status fail(ty_gl_device *dev, ty_gl_status s, const char *fmt, ...) {
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

static void drain_gl_errors(void) {
  for (int i = 0; i < 16 && glGetError() != GL_NO_ERROR; i++) {
  }
}

static const char *gl_error_name(GLenum e) {
  switch (e) {
  case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
  case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
  case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
  case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
  case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
  default: return "a GL error";
  }
}

static void label(GLenum kind, GLuint name, const char *text) {
  if (text && *text) glObjectLabel(kind, name, -1, text);
}

/* A handle's parts for messages. */
#define HANDLE_FMT "%u (slot %u, generation %u)"
#define HANDLE_ARGS(id) (id), ((id) & 0xFFFFu), ((id) >> 16)

static uint32_t lookup(ty_gl_device *dev, const pool *p, uint32_t id, const char *kind, const char *fn) {
  uint32_t i = pool_lookup(p, id);
  if (i == SLOT_NONE) {
    if (id == 0) fail(dev, TY_GL_ERROR_BAD_HANDLE, "%s: no %s (handle 0)", fn, kind);
    else fail(dev, TY_GL_ERROR_BAD_HANDLE, "%s: %s " HANDLE_FMT " was destroyed or never made", fn, kind, HANDLE_ARGS(id));
  }
  return i;
}

static uint32_t take_slot(ty_gl_device *dev, pool *p, const char *kind, const char *fn) {
  uint32_t i = pool_alloc(p);
  if (i == SLOT_NONE) fail(dev, TY_GL_ERROR_POOL_FULL, "%s: all %u %s slots are in use", fn, p->cap, kind);
  return i;
}

/* ---- device ---- */

static uint32_t pool_size(uint32_t asked, uint32_t dflt) {
  uint32_t n = asked ? asked : dflt;
  return n > 0xFFFFu ? 0xFFFFu : n;
}

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
#define MAKE_POOL(field, slots, asked, dflt)                                   \
  do {                                                                         \
    pool_init(&dev->field, pool_size(asked, dflt));                            \
    dev->slots = TY_MALLOC(dev->field.cap * sizeof *dev->slots);               \
    TY_ASSERT(dev->slots);                                                     \
    memset(dev->slots, 0, dev->field.cap * sizeof *dev->slots);                \
  } while (0)
  MAKE_POOL(buffers, buffer_slots, d.buffer_pool, 1024);
  MAKE_POOL(textures, texture_slots, d.texture_pool, 1024);
  MAKE_POOL(samplers, sampler_slots, d.sampler_pool, 128);
  MAKE_POOL(framebuffers, framebuffer_slots, d.framebuffer_pool, 256);
  MAKE_POOL(programs, program_slots, d.program_pool, 256);
  MAKE_POOL(vertex_arrays, vertex_array_slots, d.vertex_array_pool, 256);
#undef MAKE_POOL
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
  label(GL_VERTEX_ARRAY, dev->empty_vertex_array, "tycho empty vertex array");
  ty_gl_reset_state(dev);
  return dev;
}

static void delete_buffer_slot(buffer_slot *b) {
  for (uint32_t f = 0; f < TY_GL_MAX_RING_FRAMES; f++)
    if (b->fences[f]) glDeleteSync(b->fences[f]);
  if (b->mapped) glUnmapNamedBuffer(b->name);
  glDeleteBuffers(1, &b->name);
  memset(b, 0, sizeof *b);
}

void ty_gl_destroy(ty_gl_device *dev) {
  if (!dev) return;
  for (uint32_t i = 0; i < dev->vertex_arrays.cap; i++)
    if (dev->vertex_arrays.alive[i]) glDeleteVertexArrays(1, &dev->vertex_array_slots[i].name);
  for (uint32_t i = 0; i < dev->framebuffers.cap; i++)
    if (dev->framebuffers.alive[i]) glDeleteFramebuffers(1, &dev->framebuffer_slots[i].name);
  for (uint32_t i = 0; i < dev->programs.cap; i++)
    if (dev->programs.alive[i]) glDeleteProgram(dev->program_slots[i].name);
  for (uint32_t i = 0; i < dev->samplers.cap; i++)
    if (dev->samplers.alive[i]) glDeleteSamplers(1, &dev->sampler_slots[i].name);
  for (uint32_t i = 0; i < dev->textures.cap; i++)
    if (dev->textures.alive[i]) glDeleteTextures(1, &dev->texture_slots[i].name);
  for (uint32_t i = 0; i < dev->buffers.cap; i++)
    if (dev->buffers.alive[i]) delete_buffer_slot(&dev->buffer_slots[i]);
  glDeleteVertexArrays(1, &dev->empty_vertex_array);
  pool *pools[] = {&dev->buffers, &dev->textures, &dev->samplers, &dev->framebuffers, &dev->programs, &dev->vertex_arrays};
  for (size_t i = 0; i < sizeof pools / sizeof *pools; i++) pool_free_arrays(pools[i]);
  TY_FREE(dev->buffer_slots);
  TY_FREE(dev->texture_slots);
  TY_FREE(dev->sampler_slots);
  TY_FREE(dev->framebuffer_slots);
  TY_FREE(dev->program_slots);
  TY_FREE(dev->vertex_array_slots);
  TY_FREE(dev->error);
  TY_FREE(dev);
}

ty_gl_stats ty_gl_get_stats(const ty_gl_device *dev) {
  return (ty_gl_stats){dev->buffers.live,      dev->textures.live, dev->samplers.live,
                       dev->framebuffers.live, dev->programs.live, dev->vertex_arrays.live,
                       dev->pipeline_applies,  dev->state_calls};
}

/* ---- buffers ---- */

static size_t align_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

ty_gl_buffer ty_gl_make_buffer(ty_gl_device *dev, const ty_gl_buffer_desc *desc) {
  TY_ASSERT(dev && desc);
  static const char fn[] = "ty_gl_make_buffer";
  if (desc->size == 0) {
    fail(dev, TY_GL_ERROR_INVALID, "%s: size is 0", fn);
    return (ty_gl_buffer){0};
  }
  if (desc->ring_frames > TY_GL_MAX_RING_FRAMES) {
    fail(dev, TY_GL_ERROR_INVALID, "%s: ring_frames %u is more than %d", fn, desc->ring_frames, TY_GL_MAX_RING_FRAMES);
    return (ty_gl_buffer){0};
  }
  if (desc->ring_frames && desc->data) {
    fail(dev, TY_GL_ERROR_INVALID, "%s: a ring starts empty (data must be NULL)", fn);
    return (ty_gl_buffer){0};
  }
  uint32_t i = take_slot(dev, &dev->buffers, "buffer", fn);
  if (i == SLOT_NONE) return (ty_gl_buffer){0};
  buffer_slot *b = &dev->buffer_slots[i];
  memset(b, 0, sizeof *b);
  b->flags = desc->flags;
  drain_gl_errors();
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
    delete_buffer_slot(b);
    pool_release(&dev->buffers, i);
    fail(dev, TY_GL_ERROR_DRIVER, "%s: %s making a buffer of %zu bytes", fn, gl_error_name(e), size);
    return (ty_gl_buffer){0};
  }
  label(GL_BUFFER, b->name, desc->label);
  ok(dev);
  return (ty_gl_buffer){pool_id(&dev->buffers, i)};
}

static buffer_slot *get_buffer(ty_gl_device *dev, ty_gl_buffer h, const char *fn) {
  uint32_t i = lookup(dev, &dev->buffers, h.id, "buffer", fn);
  return i == SLOT_NONE ? NULL : &dev->buffer_slots[i];
}

ty_gl_status ty_gl_destroy_buffer(ty_gl_device *dev, ty_gl_buffer buf) {
  uint32_t i = lookup(dev, &dev->buffers, buf.id, "buffer", "ty_gl_destroy_buffer");
  if (i == SLOT_NONE) return dev->status;
  delete_buffer_slot(&dev->buffer_slots[i]);
  pool_release(&dev->buffers, i);
  return ok(dev);
}

static bool range_ok(size_t offset, size_t size, size_t total) { return offset <= total && size <= total - offset; }

ty_gl_status ty_gl_update_buffer(ty_gl_device *dev, ty_gl_buffer buf, size_t offset, const void *data, size_t size) {
  static const char fn[] = "ty_gl_update_buffer";
  buffer_slot *b = get_buffer(dev, buf, fn);
  if (!b) return dev->status;
  if (!(b->flags & TY_GL_BUFFER_DYNAMIC))
    return fail(dev, TY_GL_ERROR_INVALID, "%s: buffer %u was not made TY_GL_BUFFER_DYNAMIC", fn, buf.id);
  if (!range_ok(offset, size, b->size))
    return fail(dev, TY_GL_ERROR_INVALID, "%s: %zu bytes at %zu run past the buffer's %zu", fn, size, offset, b->size);
  TY_ASSERT(data || size == 0);
  if (size) glNamedBufferSubData(b->name, (GLintptr)offset, (GLsizeiptr)size, data);
  return ok(dev);
}

ty_gl_status ty_gl_read_buffer(ty_gl_device *dev, ty_gl_buffer buf, size_t offset, void *out, size_t size) {
  static const char fn[] = "ty_gl_read_buffer";
  buffer_slot *b = get_buffer(dev, buf, fn);
  if (!b) return dev->status;
  if (!range_ok(offset, size, b->size))
    return fail(dev, TY_GL_ERROR_INVALID, "%s: %zu bytes at %zu run past the buffer's %zu", fn, size, offset, b->size);
  TY_ASSERT(out || size == 0);
  if (size) glGetNamedBufferSubData(b->name, (GLintptr)offset, (GLsizeiptr)size, out);
  return ok(dev);
}

void *ty_gl_ring_alloc(ty_gl_device *dev, ty_gl_buffer ring, size_t size, size_t align, size_t *offset) {
  static const char fn[] = "ty_gl_ring_alloc";
  buffer_slot *b = get_buffer(dev, ring, fn);
  if (!b) return NULL;
  if (!b->ring_frames) {
    fail(dev, TY_GL_ERROR_INVALID, "%s: buffer %u is not a ring (ring_frames 0)", fn, ring.id);
    return NULL;
  }
  if (align == 0) align = 256;
  if (align & (align - 1)) {
    fail(dev, TY_GL_ERROR_INVALID, "%s: alignment %zu is not a power of two", fn, align);
    return NULL;
  }
  size_t start = align_up(b->ring_head, align);
  if (start > b->ring_stride || size > b->ring_stride - start) {
    fail(dev, TY_GL_ERROR_RING_FULL, "%s: %zu more bytes do not fit this frame's %zu (%zu used)", fn, size,
         b->ring_stride, b->ring_head);
    return NULL;
  }
  b->ring_head = start + size;
  size_t at = (size_t)b->ring_frame * b->ring_stride + start;
  if (offset) *offset = at;
  ok(dev);
  return b->mapped + at;
}

ty_gl_status ty_gl_ring_next_frame(ty_gl_device *dev, ty_gl_buffer ring) {
  static const char fn[] = "ty_gl_ring_next_frame";
  buffer_slot *b = get_buffer(dev, ring, fn);
  if (!b) return dev->status;
  if (!b->ring_frames) return fail(dev, TY_GL_ERROR_INVALID, "%s: buffer %u is not a ring", fn, ring.id);
  if (b->fences[b->ring_frame]) glDeleteSync(b->fences[b->ring_frame]);
  b->fences[b->ring_frame] = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
  b->ring_frame = (b->ring_frame + 1) % b->ring_frames;
  b->ring_head = 0;
  GLsync f = b->fences[b->ring_frame];
  if (!f) return ok(dev);
  b->fences[b->ring_frame] = NULL;
  /* The region is reused only once the GPU has read it: wait, a second at a time. */
  GLenum r = GL_TIMEOUT_EXPIRED;
  for (int tries = 0; tries < 10 && r == GL_TIMEOUT_EXPIRED; tries++)
    r = glClientWaitSync(f, GL_SYNC_FLUSH_COMMANDS_BIT, 1000000000u);
  glDeleteSync(f);
  if (r == GL_WAIT_FAILED || r == GL_TIMEOUT_EXPIRED)
    return fail(dev, TY_GL_ERROR_DRIVER, "%s: waiting for the GPU to release a ring region %s", fn,
                r == GL_WAIT_FAILED ? "failed" : "timed out");
  return ok(dev);
}

/* ---- formats ---- */

typedef struct format_info {
  GLenum internal, format, type;
  uint8_t upload_size;
  bool depth, stencil;
} format_info;

static const format_info formats[RG_FORMAT_COUNT] = {
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

static bool format_ok(rg_format f) { return (unsigned)f < RG_FORMAT_COUNT; }
size_t ty_gl_format_upload_size(rg_format f) { return format_ok(f) ? formats[f].upload_size : 0; }
bool ty_gl_format_is_depth(rg_format f) { return format_ok(f) && formats[f].depth; }

/* ---- textures ---- */

static uint32_t mip_count(uint32_t w, uint32_t h, uint32_t d) {
  uint32_t m = w > h ? w : h, n = 1;
  if (d > m) m = d;
  while (m > 1) m >>= 1, n++;
  return n;
}

static uint32_t level_size(uint32_t size, uint32_t level) {
  uint32_t s = level < 32 ? size >> level : 0;
  return s ? s : 1;
}

static void unpack_defaults(void) {
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
  glPixelStorei(GL_UNPACK_IMAGE_HEIGHT, 0);
}

static texture_slot *get_texture(ty_gl_device *dev, ty_gl_texture h, const char *fn) {
  uint32_t i = lookup(dev, &dev->textures, h.id, "texture", fn);
  return i == SLOT_NONE ? NULL : &dev->texture_slots[i];
}

/* Uploads into t; region already checked. */
static void upload(const texture_slot *t, const ty_gl_texture_region *r, const void *data) {
  const format_info *f = &formats[t->desc.format];
  unpack_defaults();
  if (t->target == GL_TEXTURE_2D)
    glTextureSubImage2D(t->name, (GLint)r->level, (GLint)r->x, (GLint)r->y, (GLsizei)r->width, (GLsizei)r->height,
                        f->format, f->type, data);
  else
    glTextureSubImage3D(t->name, (GLint)r->level, (GLint)r->x, (GLint)r->y, (GLint)r->layer, (GLsizei)r->width,
                        (GLsizei)r->height, (GLsizei)r->layers, f->format, f->type, data);
}

ty_gl_texture ty_gl_make_texture(ty_gl_device *dev, const ty_gl_texture_desc *desc) {
  TY_ASSERT(dev && desc);
  static const char fn[] = "ty_gl_make_texture";
  ty_gl_texture_desc d = *desc;
  const char *lbl = d.label;
  d.data = NULL;
  d.label = NULL;
  if (!format_ok(d.format)) {
    fail(dev, TY_GL_ERROR_INVALID, "%s: format %d is not an rg_format", fn, (int)d.format);
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
    fail(dev, TY_GL_ERROR_INVALID, "%s: %s (%ux%u, %u layers, %u samples)", fn, bad, d.width, d.height, d.layers, d.samples);
    return (ty_gl_texture){0};
  }
  uint32_t full = mip_count(d.width, d.height, d.type == TY_GL_TEXTURE_3D ? d.layers : 1);
  if (d.mip_levels > full) d.mip_levels = full; /* TY_GL_MIPS_FULL, or more than there can be */

  uint32_t i = take_slot(dev, &dev->textures, "texture", fn);
  if (i == SLOT_NONE) return (ty_gl_texture){0};
  texture_slot *t = &dev->texture_slots[i];
  memset(t, 0, sizeof *t);
  t->desc = d;
  if (d.type == TY_GL_TEXTURE_CUBE) t->target = GL_TEXTURE_CUBE_MAP;
  else if (d.type == TY_GL_TEXTURE_3D) t->target = GL_TEXTURE_3D;
  else if (d.samples > 1) t->target = d.layers > 1 ? GL_TEXTURE_2D_MULTISAMPLE_ARRAY : GL_TEXTURE_2D_MULTISAMPLE;
  else t->target = d.layers > 1 ? GL_TEXTURE_2D_ARRAY : GL_TEXTURE_2D;
  GLenum internal = formats[d.format].internal;
  drain_gl_errors();
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
    glDeleteTextures(1, &t->name);
    pool_release(&dev->textures, i);
    fail(dev, TY_GL_ERROR_DRIVER, "%s: %s making a %ux%u %s texture", fn, gl_error_name(e), d.width, d.height,
         rg_format_name(d.format));
    return (ty_gl_texture){0};
  }
  label(GL_TEXTURE, t->name, lbl);
  ok(dev);
  return (ty_gl_texture){pool_id(&dev->textures, i)};
}

ty_gl_status ty_gl_destroy_texture(ty_gl_device *dev, ty_gl_texture tex) {
  uint32_t i = lookup(dev, &dev->textures, tex.id, "texture", "ty_gl_destroy_texture");
  if (i == SLOT_NONE) return dev->status;
  glDeleteTextures(1, &dev->texture_slots[i].name);
  memset(&dev->texture_slots[i], 0, sizeof dev->texture_slots[i]);
  pool_release(&dev->textures, i);
  return ok(dev);
}

ty_gl_status ty_gl_update_texture(ty_gl_device *dev, ty_gl_texture tex, const ty_gl_texture_region *region,
                                  const void *data) {
  static const char fn[] = "ty_gl_update_texture";
  texture_slot *t = get_texture(dev, tex, fn);
  if (!t) return dev->status;
  TY_ASSERT(data);
  const ty_gl_texture_desc *d = &t->desc;
  ty_gl_texture_region r = region ? *region : (ty_gl_texture_region){.layers = d->layers};
  if (d->samples > 1) return fail(dev, TY_GL_ERROR_INVALID, "%s: texture %u is multisampled", fn, tex.id);
  if (r.level >= d->mip_levels)
    return fail(dev, TY_GL_ERROR_INVALID, "%s: level %u of a texture with %u", fn, r.level, d->mip_levels);
  uint32_t lw = level_size(d->width, r.level), lh = level_size(d->height, r.level);
  uint32_t ll = d->type == TY_GL_TEXTURE_3D ? level_size(d->layers, r.level) : d->layers;
  if (r.width == 0 || r.height == 0) r.x = r.y = 0, r.width = lw, r.height = lh;
  if (r.layers == 0) r.layers = 1;
  if (!range_ok(r.x, r.width, lw) || !range_ok(r.y, r.height, lh) || !range_ok(r.layer, r.layers, ll))
    return fail(dev, TY_GL_ERROR_INVALID, "%s: region %ux%ux%u at (%u, %u, %u) is outside level %u (%ux%ux%u)", fn,
                r.width, r.height, r.layers, r.x, r.y, r.layer, r.level, lw, lh, ll);
  if (t->target == GL_TEXTURE_2D && (r.layer != 0 || r.layers != 1))
    return fail(dev, TY_GL_ERROR_INVALID, "%s: a 2D texture has one layer", fn);
  upload(t, &r, data);
  return ok(dev);
}

ty_gl_status ty_gl_generate_mips(ty_gl_device *dev, ty_gl_texture tex) {
  texture_slot *t = get_texture(dev, tex, "ty_gl_generate_mips");
  if (!t) return dev->status;
  if (t->desc.samples > 1) return fail(dev, TY_GL_ERROR_INVALID, "ty_gl_generate_mips: texture %u is multisampled", tex.id);
  if (t->desc.mip_levels > 1) glGenerateTextureMipmap(t->name);
  return ok(dev);
}

ty_gl_status ty_gl_read_texture(ty_gl_device *dev, ty_gl_texture tex, uint32_t level, void *out, size_t size) {
  static const char fn[] = "ty_gl_read_texture";
  texture_slot *t = get_texture(dev, tex, fn);
  if (!t) return dev->status;
  const ty_gl_texture_desc *d = &t->desc;
  if (d->samples > 1) return fail(dev, TY_GL_ERROR_INVALID, "%s: texture %u is multisampled", fn, tex.id);
  if (level >= d->mip_levels) return fail(dev, TY_GL_ERROR_INVALID, "%s: level %u of a texture with %u", fn, level, d->mip_levels);
  uint32_t layers = d->type == TY_GL_TEXTURE_3D ? level_size(d->layers, level) : d->layers;
  size_t need = (size_t)level_size(d->width, level) * level_size(d->height, level) * layers * formats[d->format].upload_size;
  if (size < need) return fail(dev, TY_GL_ERROR_INVALID, "%s: level %u needs %zu bytes, got %zu", fn, level, need, size);
  TY_ASSERT(out);
  glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glPixelStorei(GL_PACK_ROW_LENGTH, 0);
  glGetTextureImage(t->name, (GLint)level, formats[d->format].format, formats[d->format].type, (GLsizei)size, out);
  return ok(dev);
}

bool ty_gl_texture_query(const ty_gl_device *dev, ty_gl_texture tex, ty_gl_texture_desc *out) {
  uint32_t i = pool_lookup(&dev->textures, tex.id);
  if (i == SLOT_NONE) return false;
  if (out) *out = dev->texture_slots[i].desc;
  return true;
}

/* ---- samplers ---- */

static GLenum wrap_mode(ty_gl_wrap w) {
  switch (w) {
  case TY_GL_WRAP_CLAMP: return GL_CLAMP_TO_EDGE;
  case TY_GL_WRAP_MIRROR: return GL_MIRRORED_REPEAT;
  case TY_GL_WRAP_BORDER: return GL_CLAMP_TO_BORDER;
  default: return GL_REPEAT;
  }
}

ty_gl_sampler ty_gl_make_sampler(ty_gl_device *dev, const ty_gl_sampler_desc *desc) {
  TY_ASSERT(dev && desc);
  static const char fn[] = "ty_gl_make_sampler";
  if ((unsigned)desc->min_filter > TY_GL_FILTER_NEAREST || (unsigned)desc->mag_filter > TY_GL_FILTER_NEAREST ||
      (unsigned)desc->mip_filter > TY_GL_MIP_LINEAR || (unsigned)desc->wrap_u > TY_GL_WRAP_BORDER ||
      (unsigned)desc->wrap_v > TY_GL_WRAP_BORDER || (unsigned)desc->wrap_w > TY_GL_WRAP_BORDER ||
      (unsigned)desc->compare > TY_GL_COMPARE_GEQUAL) {
    fail(dev, TY_GL_ERROR_INVALID, "%s: a filter, wrap or compare value is out of range", fn);
    return (ty_gl_sampler){0};
  }
  uint32_t i = take_slot(dev, &dev->samplers, "sampler", fn);
  if (i == SLOT_NONE) return (ty_gl_sampler){0};
  sampler_slot *s = &dev->sampler_slots[i];
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
  label(GL_SAMPLER, s->name, desc->label);
  ok(dev);
  return (ty_gl_sampler){pool_id(&dev->samplers, i)};
}

ty_gl_status ty_gl_destroy_sampler(ty_gl_device *dev, ty_gl_sampler smp) {
  uint32_t i = lookup(dev, &dev->samplers, smp.id, "sampler", "ty_gl_destroy_sampler");
  if (i == SLOT_NONE) return dev->status;
  glDeleteSamplers(1, &dev->sampler_slots[i].name);
  dev->sampler_slots[i].name = 0;
  pool_release(&dev->samplers, i);
  return ok(dev);
}

/* ---- framebuffers ---- */

/* Attaches a; checks it against the size so far (0 x 0: none yet). */
static bool attach(ty_gl_device *dev, GLuint fb, GLenum point, const ty_gl_attachment *a, bool want_depth,
                   uint32_t *w, uint32_t *h, rg_format *format, const char *what) {
  static const char fn[] = "ty_gl_make_framebuffer";
  texture_slot *t = get_texture(dev, a->texture, fn);
  if (!t) return false;
  const ty_gl_texture_desc *d = &t->desc;
  if (formats[d->format].depth != want_depth) {
    fail(dev, TY_GL_ERROR_INVALID, "%s: %s texture %u is %s, which is %sa depth format", fn, what, a->texture.id,
         rg_format_name(d->format), want_depth ? "not " : "");
    return false;
  }
  if (a->level >= d->mip_levels) {
    fail(dev, TY_GL_ERROR_INVALID, "%s: %s level %u of a texture with %u", fn, what, a->level, d->mip_levels);
    return false;
  }
  uint32_t lw = level_size(d->width, a->level), lh = level_size(d->height, a->level);
  if (*w && (lw != *w || lh != *h)) {
    fail(dev, TY_GL_ERROR_INVALID, "%s: %s is %ux%u, the attachments before it %ux%u", fn, what, lw, lh, *w, *h);
    return false;
  }
  *w = lw;
  *h = lh;
  *format = d->format;
  bool single_layer = t->target == GL_TEXTURE_2D || t->target == GL_TEXTURE_2D_MULTISAMPLE;
  if (a->layered || single_layer) {
    glNamedFramebufferTexture(fb, point, t->name, (GLint)a->level);
  } else {
    uint32_t layers = d->type == TY_GL_TEXTURE_3D ? level_size(d->layers, a->level) : d->layers;
    if (a->layer >= layers) {
      fail(dev, TY_GL_ERROR_INVALID, "%s: %s layer %u of a texture with %u", fn, what, a->layer, layers);
      return false;
    }
    glNamedFramebufferTextureLayer(fb, point, t->name, (GLint)a->level, (GLint)a->layer);
  }
  return true;
}

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
    fail(dev, TY_GL_ERROR_INVALID, "%s: a framebuffer needs a colour or depth attachment", fn);
    return (ty_gl_framebuffer){0};
  }
  uint32_t i = take_slot(dev, &dev->framebuffers, "framebuffer", fn);
  if (i == SLOT_NONE) return (ty_gl_framebuffer){0};
  framebuffer_slot *f = &dev->framebuffer_slots[i];
  memset(f, 0, sizeof *f);
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
    texture_slot *t = get_texture(dev, desc->depth_stencil.texture, fn);
    good = t != NULL;
    if (good) {
      f->has_stencil = formats[t->desc.format].stencil;
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
      fail(dev, TY_GL_ERROR_FRAMEBUFFER_INCOMPLETE, "%s: %s%s%s", fn, fb_status_name(s), desc->label ? " in " : "",
           desc->label ? desc->label : "");
      good = false;
    }
  }
  if (!good) {
    glDeleteFramebuffers(1, &f->name);
    memset(f, 0, sizeof *f);
    pool_release(&dev->framebuffers, i);
    return (ty_gl_framebuffer){0};
  }
  f->width = w;
  f->height = h;
  label(GL_FRAMEBUFFER, f->name, desc->label);
  ok(dev);
  return (ty_gl_framebuffer){pool_id(&dev->framebuffers, i)};
}

ty_gl_status ty_gl_destroy_framebuffer(ty_gl_device *dev, ty_gl_framebuffer fb) {
  uint32_t i = lookup(dev, &dev->framebuffers, fb.id, "framebuffer", "ty_gl_destroy_framebuffer");
  if (i == SLOT_NONE) return dev->status;
  glDeleteFramebuffers(1, &dev->framebuffer_slots[i].name);
  memset(&dev->framebuffer_slots[i], 0, sizeof dev->framebuffer_slots[i]);
  pool_release(&dev->framebuffers, i);
  return ok(dev);
}

/* The framebuffer's slot when it and every texture it draws into are alive. */
static framebuffer_slot *get_framebuffer(ty_gl_device *dev, ty_gl_framebuffer h, const char *fn) {
  uint32_t i = lookup(dev, &dev->framebuffers, h.id, "framebuffer", fn);
  if (i == SLOT_NONE) return NULL;
  framebuffer_slot *f = &dev->framebuffer_slots[i];
  for (uint32_t c = 0; c <= f->color_count; c++) {
    ty_gl_texture t = c < f->color_count ? f->colors[c] : f->depth;
    if ((c < f->color_count || t.id) && pool_lookup(&dev->textures, t.id) == SLOT_NONE) {
      fail(dev, TY_GL_ERROR_BAD_HANDLE, "%s: framebuffer %u draws into texture %u, which was destroyed", fn, h.id, t.id);
      return NULL;
    }
  }
  return f;
}

ty_gl_status ty_gl_bind_framebuffer(ty_gl_device *dev, ty_gl_framebuffer fb) {
  if (fb.id == 0) {
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
    return ok(dev);
  }
  framebuffer_slot *f = get_framebuffer(dev, fb, "ty_gl_bind_framebuffer");
  if (!f) return dev->status;
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, f->name);
  ty_gl_set_viewport(dev, 0, 0, (int)f->width, (int)f->height);
  return ok(dev);
}

ty_gl_status ty_gl_clear_color(ty_gl_device *dev, ty_gl_framebuffer fb, uint32_t index, const float rgba[4]) {
  static const char fn[] = "ty_gl_clear_color";
  GLuint name = 0;
  if (fb.id) {
    framebuffer_slot *f = get_framebuffer(dev, fb, fn);
    if (!f) return dev->status;
    if (index >= f->color_count)
      return fail(dev, TY_GL_ERROR_INVALID, "%s: framebuffer %u has %u colour attachments, not %u", fn, fb.id,
                  f->color_count, index + 1);
    name = f->name;
  } else if (index != 0) {
    return fail(dev, TY_GL_ERROR_INVALID, "%s: the window's framebuffer has one colour buffer", fn);
  }
  glClearNamedFramebufferfv(name, GL_COLOR, (GLint)index, rgba);
  return ok(dev);
}

ty_gl_status ty_gl_clear_depth_stencil(ty_gl_device *dev, ty_gl_framebuffer fb, float depth, int stencil) {
  static const char fn[] = "ty_gl_clear_depth_stencil";
  GLuint name = 0;
  bool has_stencil = true;
  if (fb.id) {
    framebuffer_slot *f = get_framebuffer(dev, fb, fn);
    if (!f) return dev->status;
    if (!f->depth.id) return fail(dev, TY_GL_ERROR_INVALID, "%s: framebuffer %u has no depth attachment", fn, fb.id);
    name = f->name;
    has_stencil = f->has_stencil;
  }
  if (has_stencil) glClearNamedFramebufferfi(name, GL_DEPTH_STENCIL, 0, depth, stencil);
  else glClearNamedFramebufferfv(name, GL_DEPTH, 0, &depth);
  return ok(dev);
}

ty_gl_status ty_gl_read_pixels(ty_gl_device *dev, ty_gl_framebuffer fb, uint32_t index, int x, int y, int width,
                               int height, uint8_t *rgba) {
  static const char fn[] = "ty_gl_read_pixels";
  TY_ASSERT(rgba);
  GLuint name = 0;
  GLenum buffer = GL_BACK;
  if (x < 0 || y < 0 || width <= 0 || height <= 0)
    return fail(dev, TY_GL_ERROR_INVALID, "%s: bad rectangle %dx%d at (%d, %d)", fn, width, height, x, y);
  if (fb.id) {
    framebuffer_slot *f = get_framebuffer(dev, fb, fn);
    if (!f) return dev->status;
    if (index >= f->color_count)
      return fail(dev, TY_GL_ERROR_INVALID, "%s: framebuffer %u has %u colour attachments, not %u", fn, fb.id,
                  f->color_count, index + 1);
    if ((uint32_t)x + (uint32_t)width > f->width || (uint32_t)y + (uint32_t)height > f->height)
      return fail(dev, TY_GL_ERROR_INVALID, "%s: %dx%d at (%d, %d) is outside the %ux%u framebuffer", fn, width, height,
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
  return ok(dev);
}

bool ty_gl_framebuffer_size(const ty_gl_device *dev, ty_gl_framebuffer fb, uint32_t *width, uint32_t *height) {
  uint32_t i = pool_lookup(&dev->framebuffers, fb.id);
  if (i == SLOT_NONE) return false;
  if (width) *width = dev->framebuffer_slots[i].width;
  if (height) *height = dev->framebuffer_slots[i].height;
  return true;
}

static char *info_log(GLuint obj, bool program) {
  GLint n = 0;
  if (program) glGetProgramiv(obj, GL_INFO_LOG_LENGTH, &n);
  else glGetShaderiv(obj, GL_INFO_LOG_LENGTH, &n);
  char *log = TY_MALLOC((size_t)(n > 0 ? n : 1) + 1);
  TY_ASSERT(log);
  log[0] = '\0';
  if (n > 0) {
    if (program) glGetProgramInfoLog(obj, n, NULL, log);
    else glGetShaderInfoLog(obj, n, NULL, log);
  }
  return log;
}

/* Compiles one stage; 0 with the status set on failure. */
static GLuint compile_stage(ty_gl_device *dev, const ty_gl_program_desc *desc, GLenum stage, const char *stage_name,
                            const ty_gl_shader_source *src) {
  char fallback[32];
  snprintf(fallback, sizeof fallback, "<%s>", stage_name);
  const char *path = src->path && *src->path ? src->path : fallback;
  ty_glsl_text st = {0};
  ty_glsl_desc gd = {.defines = desc->defines, .includes = desc->includes, .include_count = desc->include_count,
                     .include_dir = desc->include_dir};
  char err[512];
  if (!ty_glsl_expand(&gd, src->source, path, &st, err, sizeof err)) {
    fail(dev, TY_GL_ERROR_INCLUDE, "%s", err);
    ty_glsl_free(&st);
    return 0;
  }
  GLuint sh = glCreateShader(stage);
  const GLchar *text = st.buf;
  glShaderSource(sh, 1, &text, NULL);
  glCompileShader(sh);
  GLint compiled = GL_FALSE;
  glGetShaderiv(sh, GL_COMPILE_STATUS, &compiled);
  if (!compiled) {
    char *log = info_log(sh, false);
    char *mapped = ty_glsl_map_log(&st, log);
    fail(dev, TY_GL_ERROR_COMPILE, "%s shader %s did not compile:\n%s", stage_name, path, mapped);
    TY_FREE(mapped);
    TY_FREE(log);
    glDeleteShader(sh);
    sh = 0;
  }
  ty_glsl_free(&st);
  return sh;
}

ty_gl_program ty_gl_make_program(ty_gl_device *dev, const ty_gl_program_desc *desc) {
  TY_ASSERT(dev && desc);
  static const char fn[] = "ty_gl_make_program";
  bool compute = desc->compute.source != NULL;
  if (compute ? (desc->vertex.source || desc->fragment.source) : !desc->vertex.source) {
    fail(dev, TY_GL_ERROR_INVALID, "%s: a program is vertex (+ fragment) or compute alone", fn);
    return (ty_gl_program){0};
  }
  uint32_t i = take_slot(dev, &dev->programs, "program", fn);
  if (i == SLOT_NONE) return (ty_gl_program){0};
  GLuint shaders[2] = {0, 0};
  uint32_t count = 0;
  bool good = true;
  if (compute) {
    good = (shaders[count++] = compile_stage(dev, desc, GL_COMPUTE_SHADER, "compute", &desc->compute)) != 0;
  } else {
    good = (shaders[count++] = compile_stage(dev, desc, GL_VERTEX_SHADER, "vertex", &desc->vertex)) != 0;
    if (good && desc->fragment.source)
      good = (shaders[count++] = compile_stage(dev, desc, GL_FRAGMENT_SHADER, "fragment", &desc->fragment)) != 0;
  }
  GLuint prog = 0;
  if (good) {
    prog = glCreateProgram();
    for (uint32_t s = 0; s < count; s++) glAttachShader(prog, shaders[s]);
    glLinkProgram(prog);
    GLint linked = GL_FALSE;
    glGetProgramiv(prog, GL_LINK_STATUS, &linked);
    for (uint32_t s = 0; s < count; s++) glDetachShader(prog, shaders[s]);
    if (!linked) {
      char *log = info_log(prog, true);
      const char *name = desc->label ? desc->label
                         : compute   ? (desc->compute.path ? desc->compute.path : "<compute>")
                                     : (desc->vertex.path ? desc->vertex.path : "<vertex>");
      size_t ll = strlen(log);
      while (ll && (log[ll - 1] == '\n' || log[ll - 1] == ' ')) log[--ll] = '\0';
      fail(dev, TY_GL_ERROR_LINK, "program %s did not link:\n%s", name, log);
      TY_FREE(log);
      glDeleteProgram(prog);
      good = false;
    }
  }
  for (uint32_t s = 0; s < count; s++)
    if (shaders[s]) glDeleteShader(shaders[s]);
  if (!good) {
    pool_release(&dev->programs, i);
    return (ty_gl_program){0};
  }
  dev->program_slots[i] = (program_slot){prog, compute};
  label(GL_PROGRAM, prog, desc->label);
  ok(dev);
  return (ty_gl_program){pool_id(&dev->programs, i)};
}

static program_slot *get_program(ty_gl_device *dev, ty_gl_program h, const char *fn) {
  uint32_t i = lookup(dev, &dev->programs, h.id, "program", fn);
  return i == SLOT_NONE ? NULL : &dev->program_slots[i];
}

ty_gl_status ty_gl_destroy_program(ty_gl_device *dev, ty_gl_program prog) {
  uint32_t i = lookup(dev, &dev->programs, prog.id, "program", "ty_gl_destroy_program");
  if (i == SLOT_NONE) return dev->status;
  glDeleteProgram(dev->program_slots[i].name);
  dev->program_slots[i] = (program_slot){0, false};
  pool_release(&dev->programs, i);
  return ok(dev);
}

ty_gl_status ty_gl_use_program(ty_gl_device *dev, ty_gl_program prog) {
  program_slot *p = get_program(dev, prog, "ty_gl_use_program");
  if (!p) return dev->status;
  glUseProgram(p->name);
  return ok(dev);
}

int ty_gl_uniform_location(ty_gl_device *dev, ty_gl_program prog, const char *name) {
  program_slot *p = get_program(dev, prog, "ty_gl_uniform_location");
  if (!p) return -1;
  ok(dev);
  return glGetUniformLocation(p->name, name);
}

/* ---- vertex arrays ---- */

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

ty_gl_vertex_array ty_gl_make_vertex_array(ty_gl_device *dev, const ty_gl_vertex_array_desc *desc) {
  TY_ASSERT(dev && desc);
  static const char fn[] = "ty_gl_make_vertex_array";
  uint32_t strides[TY_GL_MAX_VERTEX_BINDINGS] = {0};
  for (uint32_t a = 0; a < TY_GL_MAX_VERTEX_ATTRS; a++) {
    const ty_gl_vertex_attr *at = &desc->attrs[a];
    if (at->format == TY_GL_VERTEX_NONE) continue;
    if ((unsigned)at->format >= TY_GL_VERTEX_FORMAT_COUNT || at->binding >= TY_GL_MAX_VERTEX_BINDINGS) {
      fail(dev, TY_GL_ERROR_INVALID, "%s: attribute %u has a bad format or binding", fn, a);
      return (ty_gl_vertex_array){0};
    }
    if (!desc->bindings[at->binding].buffer.id) {
      fail(dev, TY_GL_ERROR_INVALID, "%s: attribute %u reads binding %u, which has no buffer", fn, a, at->binding);
      return (ty_gl_vertex_array){0};
    }
    uint32_t end = at->offset + vertex_formats[at->format].bytes;
    if (end > strides[at->binding]) strides[at->binding] = end;
  }
  for (uint32_t b = 0; b <= TY_GL_MAX_VERTEX_BINDINGS; b++) {
    ty_gl_buffer buf = b < TY_GL_MAX_VERTEX_BINDINGS ? desc->bindings[b].buffer : desc->index_buffer;
    if (buf.id && !get_buffer(dev, buf, fn)) return (ty_gl_vertex_array){0};
  }
  uint32_t i = take_slot(dev, &dev->vertex_arrays, "vertex array", fn);
  if (i == SLOT_NONE) return (ty_gl_vertex_array){0};
  vertex_array_slot *v = &dev->vertex_array_slots[i];
  memset(v, 0, sizeof *v);
  glCreateVertexArrays(1, &v->name);
  for (uint32_t b = 0; b < TY_GL_MAX_VERTEX_BINDINGS; b++) {
    const ty_gl_vertex_binding *vb = &desc->bindings[b];
    if (!vb->buffer.id) continue;
    v->buffers[b] = vb->buffer;
    uint32_t stride = vb->stride ? vb->stride : strides[b];
    glVertexArrayVertexBuffer(v->name, b, dev->buffer_slots[pool_lookup(&dev->buffers, vb->buffer.id)].name,
                              (GLintptr)vb->offset, (GLsizei)stride);
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
    glVertexArrayElementBuffer(v->name, dev->buffer_slots[pool_lookup(&dev->buffers, desc->index_buffer.id)].name);
  }
  label(GL_VERTEX_ARRAY, v->name, desc->label);
  ok(dev);
  return (ty_gl_vertex_array){pool_id(&dev->vertex_arrays, i)};
}

ty_gl_status ty_gl_destroy_vertex_array(ty_gl_device *dev, ty_gl_vertex_array va) {
  uint32_t i = lookup(dev, &dev->vertex_arrays, va.id, "vertex array", "ty_gl_destroy_vertex_array");
  if (i == SLOT_NONE) return dev->status;
  glDeleteVertexArrays(1, &dev->vertex_array_slots[i].name);
  memset(&dev->vertex_array_slots[i], 0, sizeof dev->vertex_array_slots[i]);
  pool_release(&dev->vertex_arrays, i);
  return ok(dev);
}

ty_gl_status ty_gl_bind_vertex_array(ty_gl_device *dev, ty_gl_vertex_array va) {
  static const char fn[] = "ty_gl_bind_vertex_array";
  if (va.id == 0) {
    glBindVertexArray(dev->empty_vertex_array);
    return ok(dev);
  }
  uint32_t i = lookup(dev, &dev->vertex_arrays, va.id, "vertex array", fn);
  if (i == SLOT_NONE) return dev->status;
  vertex_array_slot *v = &dev->vertex_array_slots[i];
  for (uint32_t b = 0; b <= TY_GL_MAX_VERTEX_BINDINGS; b++)
    if (v->buffers[b].id && pool_lookup(&dev->buffers, v->buffers[b].id) == SLOT_NONE)
      return fail(dev, TY_GL_ERROR_BAD_HANDLE, "%s: vertex array %u reads buffer %u, which was destroyed", fn, va.id,
                  v->buffers[b].id);
  glBindVertexArray(v->name);
  return ok(dev);
}

/* ---- binding and drawing ---- */

ty_gl_status ty_gl_bind_buffer(ty_gl_device *dev, ty_gl_buffer_target target, uint32_t index, ty_gl_buffer buf,
                               size_t offset, size_t size) {
  static const char fn[] = "ty_gl_bind_buffer";
  buffer_slot *b = get_buffer(dev, buf, fn);
  if (!b) return dev->status;
  if (size == 0) size = offset <= b->size ? b->size - offset : 0;
  if (size == 0 || !range_ok(offset, size, b->size))
    return fail(dev, TY_GL_ERROR_INVALID, "%s: %zu bytes at %zu run past the buffer's %zu", fn, size, offset, b->size);
  switch (target) {
  case TY_GL_TARGET_UNIFORM:
  case TY_GL_TARGET_STORAGE:
    if (offset % (size_t)dev->binding_align)
      return fail(dev, TY_GL_ERROR_INVALID, "%s: offset %zu is not a multiple of %d", fn, offset, dev->binding_align);
    glBindBufferRange(target == TY_GL_TARGET_UNIFORM ? GL_UNIFORM_BUFFER : GL_SHADER_STORAGE_BUFFER, index, b->name,
                      (GLintptr)offset, (GLsizeiptr)size);
    break;
  case TY_GL_TARGET_INDIRECT: glBindBuffer(GL_DRAW_INDIRECT_BUFFER, b->name); break;
  default: return fail(dev, TY_GL_ERROR_INVALID, "%s: target %d is not a ty_gl_buffer_target", fn, (int)target);
  }
  return ok(dev);
}

ty_gl_status ty_gl_bind_texture(ty_gl_device *dev, uint32_t unit, ty_gl_texture tex, ty_gl_sampler smp) {
  static const char fn[] = "ty_gl_bind_texture";
  texture_slot *t = get_texture(dev, tex, fn);
  if (!t) return dev->status;
  GLuint s = 0;
  if (smp.id) {
    uint32_t i = lookup(dev, &dev->samplers, smp.id, "sampler", fn);
    if (i == SLOT_NONE) return dev->status;
    s = dev->sampler_slots[i].name;
  }
  glBindTextureUnit(unit, t->name);
  glBindSampler(unit, s);
  return ok(dev);
}

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

/* ---- names ---- */

void ty_gl_draw_indexed_indirect(ty_gl_device *dev, ty_gl_primitive prim, size_t offset, uint32_t draw_count,
                                 uint32_t stride) {
  (void)dev;
  glMultiDrawElementsIndirect(primitive(prim), GL_UNSIGNED_INT, (const void *)(uintptr_t)offset, (GLsizei)draw_count,
                              (GLsizei)stride);
}

ty_gl_status ty_gl_bind_image(ty_gl_device *dev, uint32_t unit, ty_gl_texture tex, uint32_t level, ty_gl_access access,
                              rg_format format) {
  static const char fn[] = "ty_gl_bind_image";
  static const GLenum accesses[] = {GL_READ_ONLY, GL_WRITE_ONLY, GL_READ_WRITE};
  if ((unsigned)access > TY_GL_ACCESS_READ_WRITE || !format_ok(format) || formats[format].depth)
    return fail(dev, TY_GL_ERROR_INVALID, "%s: access %d or format %d cannot bind as an image", fn, (int)access,
                (int)format);
  GLuint name = 0;
  if (tex.id) {
    texture_slot *t = get_texture(dev, tex, fn);
    if (!t) return dev->status;
    name = t->name;
  }
  glBindImageTexture(unit, name, (GLint)level, GL_FALSE, 0, accesses[access], formats[format].internal);
  return ok(dev);
}

void ty_gl_barrier(ty_gl_device *dev, uint32_t bits) {
  (void)dev;
  GLbitfield b = 0;
  if (bits & TY_GL_BARRIER_TEXTURE_FETCH) b |= GL_TEXTURE_FETCH_BARRIER_BIT;
  if (bits & TY_GL_BARRIER_IMAGE_ACCESS) b |= GL_SHADER_IMAGE_ACCESS_BARRIER_BIT;
  if (b) glMemoryBarrier(b);
}

/* ---- uniforms ---- */

ty_gl_status ty_gl_set_uniform(ty_gl_device *dev, ty_gl_program prog, int location, ty_gl_uniform_type type,
                               uint32_t count, const void *data) {
  static const char fn[] = "ty_gl_set_uniform";
  program_slot *p = get_program(dev, prog, fn);
  if (!p) return dev->status;
  if (location < 0 || count == 0) return ok(dev);
  TY_ASSERT(data);
  GLuint name = p->name;
  GLsizei n = (GLsizei)count;
  switch (type) {
  case TY_GL_UNIFORM_INT: glProgramUniform1iv(name, location, n, data); break;
  case TY_GL_UNIFORM_UINT: glProgramUniform1uiv(name, location, n, data); break;
  case TY_GL_UNIFORM_VEC2: glProgramUniform2fv(name, location, n, data); break;
  case TY_GL_UNIFORM_VEC4: glProgramUniform4fv(name, location, n, data); break;
  case TY_GL_UNIFORM_MAT4: glProgramUniformMatrix4fv(name, location, n, GL_FALSE, data); break;
  default: return fail(dev, TY_GL_ERROR_INVALID, "%s: type %d is not a ty_gl_uniform_type", fn, (int)type);
  }
  return ok(dev);
}

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

uint32_t ty_gl_buffer_name(ty_gl_device *dev, ty_gl_buffer buf) {
  buffer_slot *b = get_buffer(dev, buf, "ty_gl_buffer_name");
  return b ? (ok(dev), b->name) : 0;
}
uint32_t ty_gl_texture_name(ty_gl_device *dev, ty_gl_texture tex) {
  texture_slot *t = get_texture(dev, tex, "ty_gl_texture_name");
  return t ? (ok(dev), t->name) : 0;
}
uint32_t ty_gl_sampler_name(ty_gl_device *dev, ty_gl_sampler smp) {
  uint32_t i = lookup(dev, &dev->samplers, smp.id, "sampler", "ty_gl_sampler_name");
  return i == SLOT_NONE ? 0 : (ok(dev), dev->sampler_slots[i].name);
}
uint32_t ty_gl_framebuffer_name(ty_gl_device *dev, ty_gl_framebuffer fb) {
  uint32_t i = lookup(dev, &dev->framebuffers, fb.id, "framebuffer", "ty_gl_framebuffer_name");
  return i == SLOT_NONE ? 0 : (ok(dev), dev->framebuffer_slots[i].name);
}
uint32_t ty_gl_program_name(ty_gl_device *dev, ty_gl_program prog) {
  program_slot *p = get_program(dev, prog, "ty_gl_program_name");
  return p ? (ok(dev), p->name) : 0;
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
