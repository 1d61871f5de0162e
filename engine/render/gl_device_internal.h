/* engine/render/gl_device_internal.h: what the device's files share (gl_device.c: the
 * device, its pools and messages; gl_buffer.c, gl_texture.c, gl_sampler.c,
 * gl_framebuffer.c, gl_program.c, gl_vertex_array.c: one kind of GL object each;
 * gl_pipeline.c: state and draws). Only those files include it, and only when built with
 * GL. */
#ifndef TY_RENDER_GL_DEVICE_INTERNAL_H
#define TY_RENDER_GL_DEVICE_INTERNAL_H

#include <stddef.h>

#include <epoxy/gl.h> /* Required for: GLuint, GLenum, GLsync */

#include "gl_device.h"

/* ---- pools ----------------------------------------------------------------------------
 * One per kind of object: the slots (an array of one slot struct, each starting with its
 * GL object's name) and which are alive. A handle id is (generation << 16) | (slot + 1):
 * never 0, and a freed slot's generation moves on, so an old handle no longer matches. */

typedef struct gl_pool {
  uint32_t cap, live;
  uint16_t *gen;
  bool *alive;
  uint32_t *free_slots; /* a stack; the lowest slots come out first */
  uint32_t free_count;
  void *slots;
  size_t slot_size;
  const char *kind;                 /* "buffer", "vertex array": what messages call it */
  void (*delete_slot)(void *slot); /* deletes the slot's GL objects */
} gl_pool;

/* ---- slots ---- */

typedef struct gl_buffer_slot {
  GLuint name;
  size_t size; /* total bytes (a ring: stride * frames) */
  uint32_t flags;
  uint32_t ring_frames, ring_frame;
  size_t ring_stride, ring_head;
  uint8_t *mapped;
  GLsync fences[TY_GL_MAX_RING_FRAMES];
} gl_buffer_slot;

typedef struct gl_texture_slot {
  GLuint name;
  GLenum target;
  ty_gl_texture_desc desc; /* resolved: layers, mip_levels, samples >= 1; data, label NULL */
} gl_texture_slot;

typedef struct gl_sampler_slot {
  GLuint name;
} gl_sampler_slot;

typedef struct gl_framebuffer_slot {
  GLuint name;
  ty_gl_texture colors[TY_GL_MAX_COLOR_ATTACHMENTS];
  uint32_t color_count;
  ty_gl_texture depth;
  bool has_stencil;
  uint32_t width, height;
} gl_framebuffer_slot;

typedef struct gl_program_slot {
  GLuint name;
  bool compute;
} gl_program_slot;

typedef struct gl_vertex_array_slot {
  GLuint name;
  ty_gl_buffer buffers[TY_GL_MAX_VERTEX_BINDINGS + 1]; /* the vertex buffers, then the index buffer */
} gl_vertex_array_slot;

/* Each slot starts with its GL object's name, which ty_gl_made labels. */
_Static_assert(offsetof(gl_buffer_slot, name) == 0, "a slot starts with its name");
_Static_assert(offsetof(gl_texture_slot, name) == 0, "a slot starts with its name");
_Static_assert(offsetof(gl_sampler_slot, name) == 0, "a slot starts with its name");
_Static_assert(offsetof(gl_framebuffer_slot, name) == 0, "a slot starts with its name");
_Static_assert(offsetof(gl_program_slot, name) == 0, "a slot starts with its name");
_Static_assert(offsetof(gl_vertex_array_slot, name) == 0, "a slot starts with its name");

/* Each kind's deleter (gl_pool.delete_slot), beside the rest of its kind. */
void ty_gl_delete_buffer_slot(void *slot);
void ty_gl_delete_texture_slot(void *slot);
void ty_gl_delete_sampler_slot(void *slot);
void ty_gl_delete_framebuffer_slot(void *slot);
void ty_gl_delete_program_slot(void *slot);
void ty_gl_delete_vertex_array_slot(void *slot);

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
  gl_pool buffers, textures, samplers, framebuffers, programs, vertex_arrays;
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

/* Sets the status to TY_GL_OK and clears the message; returns TY_GL_OK. */
ty_gl_status ty_gl_ok(ty_gl_device *dev);
/* Sets status s and the message (logged under s's stable name unless the device is
 * quiet); returns s. */
ty_gl_status ty_gl_fail(ty_gl_device *dev, ty_gl_status s, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Empties GL's error queue, so the next glGetError speaks of what follows. */
void ty_gl_drain_errors(void);
const char *ty_gl_error_name(GLenum e); /* "GL_OUT_OF_MEMORY", ... */

/* ---- slots by handle ---- */

/* A zeroed free slot of p, or NULL with TY_GL_ERROR_POOL_FULL (fn names the caller). */
void *ty_gl_take_slot(ty_gl_device *dev, gl_pool *p, const char *fn);
/* Gives back a slot whose GL objects are gone (or were never made): zeroed, and its
 * generation moved on. */
void ty_gl_drop_slot(gl_pool *p, void *slot);
/* Ends a make: labels the slot's GL object (kind: GL_BUFFER, ...), sets TY_GL_OK and
 * returns the new handle's id. */
uint32_t ty_gl_made(ty_gl_device *dev, gl_pool *p, void *slot, GLenum kind, const char *label);
/* The live slot behind handle id, or NULL with TY_GL_ERROR_BAD_HANDLE. */
void *ty_gl_get_slot(ty_gl_device *dev, gl_pool *p, uint32_t id, const char *fn);
/* The same, silently: NULL and no status. */
void *ty_gl_find_slot(const gl_pool *p, uint32_t id);
/* Deletes the GL objects behind handle id and gives its slot back; the status says
 * whether the handle was live. */
ty_gl_status ty_gl_destroy_slot(ty_gl_device *dev, gl_pool *p, uint32_t id, const char *fn);

/* ---- shared by the kinds ---- */

typedef struct gl_format_info {
  GLenum internal, format, type;
  uint8_t upload_size;
  bool depth, stencil;
} gl_format_info;

/* The GL side of a valid rg_format (see ty_gl_format_upload_size for the layouts). */
const gl_format_info *ty_gl_format_info(rg_format format);
bool ty_gl_format_valid(rg_format format);

/* size at mip level (never below 1). */
uint32_t ty_gl_level_size(uint32_t size, uint32_t level);
/* The layers of d at mip level: a 3D texture's depth shrinks with the level, array layers do not. */
uint32_t ty_gl_level_layers(const ty_gl_texture_desc *d, uint32_t level);
/* Whether size bytes at offset lie within total. */
bool ty_gl_range_ok(size_t offset, size_t size, size_t total);

#endif
