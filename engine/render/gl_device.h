/* engine/render/gl_device.h: the GL 4.5 device layer: buffers, textures, samplers,
 * framebuffers, shader programs and vertex arrays, made with direct state access, and the
 * pipeline state, uniforms and draws that use them. With gl_timer.c (GPU timer queries),
 * the only GL caller of the renderer. gl_device.c holds the device, one file each kind
 * (gl_buffer.c, gl_texture.c, ...), gl_pipeline.c the state and draws.
 *
 * Descriptors in, handles out (sokol_gfx's shape): a zeroed descriptor field means its
 * default; every resource is a small handle that indexes a generation-checked pool, so
 * a destroyed or stale handle (one Lua kept) is refused with TY_GL_ERROR_BAD_HANDLE and
 * a message, never a crash. Handles are never 0; a failed make returns id 0.
 *
 * Errors: every call that takes a handle or makes a resource sets the device's status;
 * ty_gl_status_of / ty_gl_error read the last one ("" after a success). Failures are also
 * logged with a stable name (gl_bad_handle, gl_shader_compile, gl_shader_link,
 * gl_framebuffer_incomplete, ...) unless the device is quiet. Shader compile errors are
 * rewritten to name the source file and line ("shaders/sky.frag:12:5: error: ..."),
 * through #include expansion and injected defines.
 *
 * Threading: one device per GL context, used on the context's thread only.
 */
#ifndef TY_RENDER_GL_DEVICE_H
#define TY_RENDER_GL_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "glsl.h"  /* Required for: ty_glsl_include */
#include "graph.h" /* Required for: rg_format (texture formats), rg_backend */

typedef struct ty_gl_device ty_gl_device;

typedef struct ty_gl_buffer { uint32_t id; } ty_gl_buffer;
typedef struct ty_gl_texture { uint32_t id; } ty_gl_texture;
typedef struct ty_gl_sampler { uint32_t id; } ty_gl_sampler;
typedef struct ty_gl_framebuffer { uint32_t id; } ty_gl_framebuffer; /* id 0 in bind/clear/read: the window's */
typedef struct ty_gl_program { uint32_t id; } ty_gl_program;
typedef struct ty_gl_vertex_array { uint32_t id; } ty_gl_vertex_array; /* id 0 in bind: an empty one */

typedef enum ty_gl_status {
  TY_GL_OK = 0,
  TY_GL_ERROR_BAD_HANDLE,      /* id 0 where a resource is needed, or destroyed/stale */
  TY_GL_ERROR_POOL_FULL,       /* the pool for that kind has no free slot */
  TY_GL_ERROR_INVALID,         /* a descriptor or argument out of range */
  TY_GL_ERROR_COMPILE,         /* a shader stage did not compile; the message names file:line */
  TY_GL_ERROR_LINK,            /* the stages did not link */
  TY_GL_ERROR_INCLUDE,         /* an #include could not be resolved */
  TY_GL_ERROR_FRAMEBUFFER_INCOMPLETE,
  TY_GL_ERROR_RING_FULL,       /* this frame's region of a ring buffer is used up */
  TY_GL_ERROR_DRIVER,          /* GL raised an error (out of memory, a size past its limits) */
} ty_gl_status;

/* Pool sizes (0: the default in brackets); at most 65535 each. */
typedef struct ty_gl_device_desc {
  uint32_t buffer_pool;       /* [1024] */
  uint32_t texture_pool;      /* [1024] */
  uint32_t sampler_pool;      /* [128] */
  uint32_t framebuffer_pool;  /* [256] */
  uint32_t program_pool;      /* [256] */
  uint32_t vertex_array_pool; /* [256] */
  bool quiet;                 /* failures set the status and message but are not logged */
} ty_gl_device_desc;

/* Needs a current OpenGL 4.5 core context (ty_window_create makes one). NULL with a
 * gl_unavailable line when there is none or it is older. */
ty_gl_device *ty_gl_create(const ty_gl_device_desc *desc);
/* Destroys every resource still alive, then the device. NULL is fine. */
void ty_gl_destroy(ty_gl_device *dev);

ty_gl_status ty_gl_status_of(const ty_gl_device *dev); /* of the last call */
const char *ty_gl_error(const ty_gl_device *dev);     /* "" when the last call succeeded */
const char *ty_gl_status_name(ty_gl_status s);        /* "TY_GL_ERROR_COMPILE", ... */

typedef struct ty_gl_stats {
  uint32_t buffers, textures, samplers, framebuffers, programs, vertex_arrays; /* alive now */
  /* Since the device was made: pipeline descriptors applied, and the GL state calls they
   * issued (the cache skips the rest). */
  uint64_t pipeline_applies, state_calls;
} ty_gl_stats;
ty_gl_stats ty_gl_get_stats(const ty_gl_device *dev);

/* ---- buffers ----------------------------------------------------------------------- */

enum {
  TY_GL_BUFFER_DYNAMIC = 1u << 0, /* ty_gl_update_buffer may write it (GL_DYNAMIC_STORAGE_BIT) */
};

/* The most frame regions a ring may have. */
#define TY_GL_MAX_RING_FRAMES 4

typedef struct ty_gl_buffer_desc {
  size_t size;          /* bytes; for a ring, bytes per frame region */
  const void *data;     /* initial content (size bytes), or NULL (undefined content) */
  uint32_t flags;       /* TY_GL_BUFFER_* */
  /* > 0: a ring for per-frame data (instance matrices, per-draw uniforms): ring_frames
   * regions of `size` bytes in one persistently mapped, coherent buffer. Each frame
   * writes through ty_gl_ring_alloc and ends with ty_gl_ring_next_frame, which waits
   * until the GPU is done with the region it moves to. */
  uint32_t ring_frames;
  const char *label;    /* shown in GL debuggers */
} ty_gl_buffer_desc;

ty_gl_buffer ty_gl_make_buffer(ty_gl_device *dev, const ty_gl_buffer_desc *desc);
ty_gl_status ty_gl_destroy_buffer(ty_gl_device *dev, ty_gl_buffer buf);
/* Writes size bytes at offset: the buffer must be TY_GL_BUFFER_DYNAMIC. */
ty_gl_status ty_gl_update_buffer(ty_gl_device *dev, ty_gl_buffer buf, size_t offset, const void *data, size_t size);
/* Copies size bytes at offset back into out (tests, readbacks; it stalls). */
ty_gl_status ty_gl_read_buffer(ty_gl_device *dev, ty_gl_buffer buf, size_t offset, void *out, size_t size);

/* Reserves size bytes in the ring's current region, aligned to align (0: 256, which
 * suits uniform and storage binding offsets). Returns where to write, and the offset from
 * the buffer's start in *offset (for ty_gl_bind_buffer or a base instance); NULL with
 * TY_GL_ERROR_RING_FULL when the region has no room left. */
void *ty_gl_ring_alloc(ty_gl_device *dev, ty_gl_buffer ring, size_t size, size_t align, size_t *offset);
/* Ends the frame's use of the current region (a fence follows the GL commands issued so
 * far) and moves to the next one, waiting for the GPU to finish reading it if needed. */
ty_gl_status ty_gl_ring_next_frame(ty_gl_device *dev, ty_gl_buffer ring);

/* ---- textures ---------------------------------------------------------------------- */

typedef enum ty_gl_texture_type {
  TY_GL_TEXTURE_2D = 0,  /* a 2D array when layers > 1, multisampled when samples > 1 */
  TY_GL_TEXTURE_CUBE,    /* 6 faces, uploaded as layers 0..5 (+x -x +y -y +z -z) */
  TY_GL_TEXTURE_3D,      /* layers is the depth */
} ty_gl_texture_type;

/* ty_gl_texture_desc.mip_levels: every level down to 1x1. */
#define TY_GL_MIPS_FULL UINT32_MAX

/* Uploads use one layout per format (see ty_gl_format_upload_size): 8-bit formats take
 * bytes; every float format (16-bit ones too) takes 32-bit floats; RGB10_A2 a packed
 * uint32; R32UI uint32; DEPTH16 uint16; DEPTH24S8 a packed uint32 (depth << 8 | stencil);
 * DEPTH32F floats. */
typedef struct ty_gl_texture_desc {
  ty_gl_texture_type type;
  uint32_t width, height;
  uint32_t layers;      /* array layers or 3D depth; 0: 1 */
  uint32_t mip_levels;  /* 0: 1 */
  uint32_t samples;     /* 0 or 1: single-sampled */
  rg_format format;     /* 0 (RG_FORMAT_DEFAULT): RGBA8 */
  const void *data;     /* level 0 of every layer, tightly packed, rows bottom-up as GL has them */
  bool generate_mips;   /* after the upload of data */
  const char *label;
} ty_gl_texture_desc;

typedef struct ty_gl_texture_region {
  uint32_t level;
  uint32_t x, y, layer;          /* layer: array layer, cube face or 3D slice */
  uint32_t width, height, layers; /* 0 width or height: the whole level; 0 layers: 1 */
} ty_gl_texture_region;

ty_gl_texture ty_gl_make_texture(ty_gl_device *dev, const ty_gl_texture_desc *desc);
ty_gl_status ty_gl_destroy_texture(ty_gl_device *dev, ty_gl_texture tex);
/* Writes data (the format's upload layout, tightly packed) into region (NULL: all of level 0). */
ty_gl_status ty_gl_update_texture(ty_gl_device *dev, ty_gl_texture tex, const ty_gl_texture_region *region,
                                  const void *data);
ty_gl_status ty_gl_generate_mips(ty_gl_device *dev, ty_gl_texture tex);
/* Reads a whole level (every layer) back in the format's upload layout; size must be at
 * least what the level needs. Not for multisampled textures. */
ty_gl_status ty_gl_read_texture(ty_gl_device *dev, ty_gl_texture tex, uint32_t level, void *out, size_t size);
/* The texture's resolved descriptor (data and label cleared); false for a bad handle. */
bool ty_gl_texture_query(const ty_gl_device *dev, ty_gl_texture tex, ty_gl_texture_desc *out);
/* Bytes per pixel in the upload layout; 0 for a format out of range. */
size_t ty_gl_format_upload_size(rg_format format);
bool ty_gl_format_is_depth(rg_format format);

/* ---- samplers ---------------------------------------------------------------------- */

typedef enum ty_gl_filter { TY_GL_FILTER_DEFAULT = 0, TY_GL_FILTER_LINEAR, TY_GL_FILTER_NEAREST } ty_gl_filter;
typedef enum ty_gl_mip_filter { TY_GL_MIP_NONE = 0, TY_GL_MIP_NEAREST, TY_GL_MIP_LINEAR } ty_gl_mip_filter;
typedef enum ty_gl_wrap {
  TY_GL_WRAP_DEFAULT = 0, /* repeat */
  TY_GL_WRAP_REPEAT,
  TY_GL_WRAP_CLAMP,
  TY_GL_WRAP_MIRROR,
  TY_GL_WRAP_BORDER,
} ty_gl_wrap;
typedef enum ty_gl_compare {
  TY_GL_COMPARE_NONE = 0, /* a plain sampler */
  TY_GL_COMPARE_LESS,     /* a shadow sampler (sampler2DShadow) */
  TY_GL_COMPARE_LEQUAL,
  TY_GL_COMPARE_GREATER,
  TY_GL_COMPARE_GEQUAL,
} ty_gl_compare;

typedef struct ty_gl_sampler_desc {
  ty_gl_filter min_filter, mag_filter; /* default linear */
  ty_gl_mip_filter mip_filter;         /* default none: level 0 only */
  ty_gl_wrap wrap_u, wrap_v, wrap_w;
  ty_gl_compare compare;
  float max_anisotropy;                /* 0 or 1: off */
  float min_lod, max_lod;              /* both 0: GL's defaults (-1000, 1000) */
  float border_color[4];
  const char *label;
} ty_gl_sampler_desc;

ty_gl_sampler ty_gl_make_sampler(ty_gl_device *dev, const ty_gl_sampler_desc *desc);
ty_gl_status ty_gl_destroy_sampler(ty_gl_device *dev, ty_gl_sampler smp);

/* ---- framebuffers ------------------------------------------------------------------ */

#define TY_GL_MAX_COLOR_ATTACHMENTS 8

typedef struct ty_gl_attachment {
  ty_gl_texture texture; /* id 0: none */
  uint32_t level;
  uint32_t layer;        /* array layer, cube face or 3D slice */
  bool layered;          /* attach every layer (layered rendering); layer is ignored */
} ty_gl_attachment;

typedef struct ty_gl_framebuffer_desc {
  ty_gl_attachment colors[TY_GL_MAX_COLOR_ATTACHMENTS]; /* the first empty one ends the list */
  ty_gl_attachment depth_stencil; /* a depth format; DEPTH24S8 attaches stencil too */
  const char *label;
} ty_gl_framebuffer_desc;

/* The attachments must all exist and agree in size; the framebuffer keeps their handles
 * and refuses to bind once one of them is destroyed. */
ty_gl_framebuffer ty_gl_make_framebuffer(ty_gl_device *dev, const ty_gl_framebuffer_desc *desc);
ty_gl_status ty_gl_destroy_framebuffer(ty_gl_device *dev, ty_gl_framebuffer fb);
/* Binds fb for drawing (id 0: the window's) and, for a made framebuffer, sets the
 * viewport to its size. */
ty_gl_status ty_gl_bind_framebuffer(ty_gl_device *dev, ty_gl_framebuffer fb);
/* Clears one colour attachment, or the depth (and stencil) attachment. Like glClear they
 * honour the colour and depth write masks. */
ty_gl_status ty_gl_clear_color(ty_gl_device *dev, ty_gl_framebuffer fb, uint32_t index, const float rgba[4]);
ty_gl_status ty_gl_clear_depth_stencil(ty_gl_device *dev, ty_gl_framebuffer fb, float depth, int stencil);
/* Reads a rectangle of colour attachment index (for id 0, the back buffer) as RGBA8,
 * in GL's order: the bottom row first. */
ty_gl_status ty_gl_read_pixels(ty_gl_device *dev, ty_gl_framebuffer fb, uint32_t index, int x, int y, int width,
                               int height, uint8_t *rgba);
/* Width and height of a made framebuffer; false for a bad handle. */
bool ty_gl_framebuffer_size(const ty_gl_device *dev, ty_gl_framebuffer fb, uint32_t *width, uint32_t *height);

/* ---- programs ---------------------------------------------------------------------- */

typedef struct ty_gl_shader_source {
  const char *source; /* GLSL 4.50; "#version 450 core" is put first when it has no #version */
  const char *path;   /* the name messages use, e.g. "shaders/sky.frag"; NULL: "<vertex>", ... */
} ty_gl_shader_source;

/* `#include "name"` (or <name>) resolves here first (see glsl.h). */
typedef ty_glsl_include ty_gl_include;

typedef struct ty_gl_program_desc {
  ty_gl_shader_source vertex, fragment; /* a raster program: vertex, fragment optional (depth only) */
  ty_gl_shader_source compute;          /* or a compute program: compute alone */
  const char *defines;                  /* lines put after #version, e.g. "#define SHADOWS 1\n" */
  const ty_gl_include *includes;
  uint32_t include_count;
  const char *include_dir; /* then as a file under this folder; NULL: the table only */
  const char *label;
} ty_gl_program_desc;

/* Compiles and links. On failure the handle is id 0, the status is TY_GL_ERROR_COMPILE,
 * _LINK or _INCLUDE, and ty_gl_error holds the driver's log with every location written
 * as path:line (path of the file the line came from, includes included). Each file is
 * included once per stage (as with #pragma once), at most 16 deep. */
ty_gl_program ty_gl_make_program(ty_gl_device *dev, const ty_gl_program_desc *desc);
ty_gl_status ty_gl_destroy_program(ty_gl_device *dev, ty_gl_program prog);
ty_gl_status ty_gl_use_program(ty_gl_device *dev, ty_gl_program prog);
/* glGetUniformLocation; -1 when the program has no such uniform or the handle is bad. */
int ty_gl_uniform_location(ty_gl_device *dev, ty_gl_program prog, const char *name);

/* ---- vertex arrays ----------------------------------------------------------------- */

#define TY_GL_MAX_VERTEX_ATTRS 16
#define TY_GL_MAX_VERTEX_BINDINGS 8

typedef enum ty_gl_vertex_format {
  TY_GL_VERTEX_NONE = 0, /* attribute unused */
  TY_GL_VERTEX_FLOAT1,
  TY_GL_VERTEX_FLOAT2,
  TY_GL_VERTEX_FLOAT3,
  TY_GL_VERTEX_FLOAT4,
  TY_GL_VERTEX_HALF2,
  TY_GL_VERTEX_HALF4,
  TY_GL_VERTEX_UBYTE4N,    /* colours */
  TY_GL_VERTEX_BYTE4N,
  TY_GL_VERTEX_SHORT2N,
  TY_GL_VERTEX_SHORT4N,
  TY_GL_VERTEX_INT2_10_10_10N, /* packed normals and tangents */
  TY_GL_VERTEX_UINT1,      /* integer attributes (uint in GLSL) */
  TY_GL_VERTEX_UINT4,
  TY_GL_VERTEX_INT1,
  TY_GL_VERTEX_FORMAT_COUNT
} ty_gl_vertex_format;

typedef struct ty_gl_vertex_attr {
  ty_gl_vertex_format format;
  uint32_t binding; /* which bindings[] entry feeds it */
  uint32_t offset;  /* bytes from the start of a vertex */
} ty_gl_vertex_attr;

typedef struct ty_gl_vertex_binding {
  ty_gl_buffer buffer; /* id 0: unused */
  size_t offset;
  uint32_t stride;
  uint32_t divisor;    /* 0: per vertex; n: per n instances */
} ty_gl_vertex_binding;

typedef struct ty_gl_vertex_array_desc {
  ty_gl_vertex_attr attrs[TY_GL_MAX_VERTEX_ATTRS]; /* attrs[i] is shader location i */
  ty_gl_vertex_binding bindings[TY_GL_MAX_VERTEX_BINDINGS];
  ty_gl_buffer index_buffer; /* id 0: none */
  const char *label;
} ty_gl_vertex_array_desc;

ty_gl_vertex_array ty_gl_make_vertex_array(ty_gl_device *dev, const ty_gl_vertex_array_desc *desc);
ty_gl_status ty_gl_destroy_vertex_array(ty_gl_device *dev, ty_gl_vertex_array va);
/* id 0 binds an empty vertex array (a fullscreen triangle made from gl_VertexID). Refused
 * once a buffer it reads was destroyed. */
ty_gl_status ty_gl_bind_vertex_array(ty_gl_device *dev, ty_gl_vertex_array va);

/* ---- binding and drawing ----------------------------------------------------------- */

typedef enum ty_gl_buffer_target {
  TY_GL_TARGET_UNIFORM = 0,
  TY_GL_TARGET_STORAGE,
  TY_GL_TARGET_INDIRECT, /* index ignored */
} ty_gl_buffer_target;

typedef enum ty_gl_primitive {
  TY_GL_TRIANGLES = 0,
  TY_GL_TRIANGLE_STRIP,
  TY_GL_LINES,
  TY_GL_LINE_STRIP,
  TY_GL_POINTS,
} ty_gl_primitive;

/* size 0: from offset to the end. */
ty_gl_status ty_gl_bind_buffer(ty_gl_device *dev, ty_gl_buffer_target target, uint32_t index, ty_gl_buffer buf,
                               size_t offset, size_t size);
/* sampler id 0: the texture's own parameters. */
ty_gl_status ty_gl_bind_texture(ty_gl_device *dev, uint32_t unit, ty_gl_texture tex, ty_gl_sampler smp);
/* count vertices (or indices) from first, instance_count instances (0: 1). */
void ty_gl_draw(ty_gl_device *dev, ty_gl_primitive prim, uint32_t first, uint32_t count, uint32_t instance_count);
/* 32-bit indices from the bound vertex array's index buffer. */
void ty_gl_draw_indexed(ty_gl_device *dev, ty_gl_primitive prim, uint32_t first_index, uint32_t count,
                        uint32_t instance_count, int32_t base_vertex, uint32_t base_instance);
void ty_gl_dispatch(ty_gl_device *dev, uint32_t x, uint32_t y, uint32_t z);

/* Indirect indexed draws: draw_count commands (ty_bucket_command's layout: count,
 * instance count, first index, base vertex, base instance; 32-bit indices) read from the
 * buffer bound at TY_GL_TARGET_INDIRECT, starting offset bytes in, stride bytes apart. */
void ty_gl_draw_indexed_indirect(ty_gl_device *dev, ty_gl_primitive prim, size_t offset, uint32_t draw_count,
                                 uint32_t stride);

/* Binds level `level` of tex to image unit `unit` for compute stores and loads (format:
 * how the shader sees it, e.g. RG_FORMAT_R32UI); id 0 unbinds the unit. */
typedef enum ty_gl_access { TY_GL_ACCESS_READ = 0, TY_GL_ACCESS_WRITE, TY_GL_ACCESS_READ_WRITE } ty_gl_access;
ty_gl_status ty_gl_bind_image(ty_gl_device *dev, uint32_t unit, ty_gl_texture tex, uint32_t level, ty_gl_access access,
                              rg_format format);
/* Orders image stores before later reads of what they wrote. */
enum {
  TY_GL_BARRIER_TEXTURE_FETCH = 1u << 0, /* sampled as a texture next */
  TY_GL_BARRIER_IMAGE_ACCESS = 1u << 1,  /* read or written as an image next */
};
void ty_gl_barrier(ty_gl_device *dev, uint32_t bits);

/* ---- uniforms (default block, set on a program without binding it) ----------------- */

typedef enum ty_gl_uniform_type {
  TY_GL_UNIFORM_INT = 0, /* int (samplers too), count of them */
  TY_GL_UNIFORM_UINT,
  TY_GL_UNIFORM_VEC2,
  TY_GL_UNIFORM_VEC4,
  TY_GL_UNIFORM_MAT4,    /* column-major */
} ty_gl_uniform_type;
/* Sets count values of type at location (from the shader's layout or
 * ty_gl_uniform_location); data holds count ints, uints or float vectors. Location -1 is
 * skipped, as GL does. */
ty_gl_status ty_gl_set_uniform(ty_gl_device *dev, ty_gl_program prog, int location, ty_gl_uniform_type type,
                               uint32_t count, const void *data);

/* ---- pipeline state ------------------------------------------------------------------ */

/* Fixed-function state as one descriptor (sokol_gfx's pipeline habit): zeroed is depth
 * test LESS with writes, no blending, back faces culled, no depth bias. The device keeps
 * what GL holds and issues only the calls that change it. */
typedef enum ty_gl_depth { TY_GL_DEPTH_LESS = 0, TY_GL_DEPTH_LEQUAL, TY_GL_DEPTH_EQUAL, TY_GL_DEPTH_ALWAYS, TY_GL_DEPTH_OFF } ty_gl_depth;
typedef enum ty_gl_blend { TY_GL_BLEND_NONE = 0, TY_GL_BLEND_ALPHA, TY_GL_BLEND_ADDITIVE, TY_GL_BLEND_PREMULTIPLIED } ty_gl_blend;
typedef enum ty_gl_cull { TY_GL_CULL_BACK = 0, TY_GL_CULL_NONE, TY_GL_CULL_FRONT } ty_gl_cull;
typedef struct ty_gl_pipeline_desc {
  ty_gl_depth depth;
  bool no_depth_write;    /* TY_GL_DEPTH_OFF never writes */
  ty_gl_blend blend;      /* ALPHA: straight alpha (dst alpha accumulates coverage); ADDITIVE: one + one */
  ty_gl_cull cull;
  float depth_bias;       /* polygon offset units; both 0: off */
  float depth_bias_slope; /* polygon offset factor */
} ty_gl_pipeline_desc;
void ty_gl_apply_pipeline(ty_gl_device *dev, const ty_gl_pipeline_desc *desc);
/* Forgets what GL holds, so the next apply issues every call: for use after code outside
 * the device touched GL state. */
void ty_gl_reset_state(ty_gl_device *dev);
/* The viewport (bind_framebuffer sets it for a made framebuffer) and the scissor test:
 * rect NULL turns the test off, else {x, y, width, height} in pixels from the bottom-left. */
void ty_gl_set_viewport(ty_gl_device *dev, int x, int y, int width, int height);
void ty_gl_set_scissor(ty_gl_device *dev, const int rect[4]);

/* The GL object names behind handles, for tests and GL debuggers (the renderer itself
 * calls no GL outside the device); 0 (and the status set) for a bad handle. */
uint32_t ty_gl_buffer_name(ty_gl_device *dev, ty_gl_buffer buf);
uint32_t ty_gl_texture_name(ty_gl_device *dev, ty_gl_texture tex);
uint32_t ty_gl_sampler_name(ty_gl_device *dev, ty_gl_sampler smp);
uint32_t ty_gl_framebuffer_name(ty_gl_device *dev, ty_gl_framebuffer fb);
uint32_t ty_gl_program_name(ty_gl_device *dev, ty_gl_program prog);

/* ---- the render graph's backend ---------------------------------------------------- */

/* Physical textures for rg_graph come from dev: a transient's rg_texture_info becomes a
 * texture (2D, a 2D array for layers > 1, multisampled for samples > 1) whose handle id
 * is the graph's texture handle. dev must outlive the graph (rg_destroy gives them back). */
rg_backend ty_gl_graph_backend(ty_gl_device *dev);

#endif
