/* engine/render/render_core.h: the renderer's own private header: the ty_renderer
 * struct and what its files (renderer.c, lifetime.c, registry.c, items.c, assets.c,
 * shader_cache.c, gather.c, submit.c, frame.c, pass_times.c, fullscreen.c) share. Features
 * never include it: what they may use is render_internal.h.
 *
 * The files, by idea: renderer.c holds the renderer's errors, device, stats and modes,
 * which every other file reads; lifetime.c creates, attaches and destroys, standing above
 * every part it frees; registry.c holds meshes, textures and materials; items.c items and
 * lights on generation-checked pools; assets.c loads and reloads files into the registry;
 * shader_cache.c builds programs from the shader folder; gather.c turns the scene into a
 * camera, lights and bucket items; submit.c owns the GPU side (uploads, framebuffers,
 * draws); frame.c runs a frame (begin, per-frame memory, passes, end); pass_times.c notes
 * and times the passes it ran; fullscreen.c is the user fullscreen pass; feature_table.c
 * lists the built-in features. */
#ifndef TY_RENDER_CORE_H
#define TY_RENDER_CORE_H

#include "render_internal.h"

#define RING_FRAMES 3
#define FB_IDLE_FRAMES 4
#define FRAME_TIME_HISTORY 120

typedef struct ty_pass_clock ty_pass_clock;
#define ARENA_BLOCK (64u * 1024u)

/* Slots behind generation-checked handles (items, lights): a handle is
 * (generation << TY_RENDER_POOL_SLOT_BITS) | (slot + 1), never 0, and a destroyed slot's
 * generation moves on, so an old handle no longer matches it. */
#define TY_RENDER_POOL_SLOT_BITS 22u
#define TY_RENDER_POOL_MAX_SLOTS ((1u << TY_RENDER_POOL_SLOT_BITS) - 1u)
typedef struct ty_render_pool {
  uint16_t *gen;
  bool *live;
  uint32_t cap, live_count;
  uint32_t *free_slots; /* a stack; the lowest slots come out first */
  uint32_t free_count, free_cap;
} ty_render_pool;

typedef struct mesh_rec {
  uint32_t first_vertex, vertex_count, first_index, index_count;
  float center[3], radius;
  uint32_t vertex_room, index_room; /* space reserved in the shared arrays (update_mesh) */
  char *path; /* loaded from (hot reload finds it by this); NULL when made in memory */
} mesh_rec;

typedef struct tex_rec {
  uint32_t width, height;
  uint8_t *pixels; /* top row first, as given */
  char *path;      /* loaded from; NULL when made from memory */
  ty_gl_texture gl;
} tex_rec;

typedef struct fb_entry {
  ty_render_target_desc key;
  ty_gl_framebuffer fb;
  uint64_t last_used;
} fb_entry;

typedef struct arena_block {
  struct arena_block *next;
  size_t used, size;
  _Alignas(16) unsigned char data[];
} arena_block;

typedef struct pass_thunk {
  ty_renderer *R;
  ty_render_pass_fn fn;
  void *data;
} pass_thunk;

typedef struct vao_entry {
  size_t offset;
  ty_gl_vertex_array va;
} vao_entry;

struct ty_renderer {
  ty_world *world;
  char *shader_dir;
  ty_gl_device *dev;
  struct ty_font *engine_fonts[8]; /* engine_font.c: the engine's own text, a font a size */
  char error[2048];

  /* meshes: CPU copies concatenated, so the GPU buffers are one upload */
  mesh_rec *meshes;
  uint32_t mesh_count, mesh_cap;
  ty_bucket_mesh *bmeshes;
  uint32_t bmesh_cap;
  ty_vertex *vertices;
  uint32_t vertex_count, vertex_cap;
  uint32_t *indices;
  uint32_t index_count, index_cap;

  tex_rec *textures;
  uint32_t texture_count, texture_cap;

  ty_material *materials;
  uint32_t material_count, material_cap;
  bool materials_dirty;

  ty_render_item *items; /* by item_pool slot */
  ty_render_pool item_pool;
  ty_light *lights;      /* by light_pool slot */
  ty_render_pool light_pool;

  /* one frame */
  ty_frame frame;
  ty_frame_block block;
  bool frame_open;
  float prev_view_proj[16];
  bool has_prev;
  ty_shadow_settings shadow; /* last frame's Shadow feature; cascades 0: no shadow culling */
  bool shadow_noted;         /* the Shadow feature ran this frame */
  float shadow_cull[TY_RENDER_MAX_CASCADES][16]; /* the cascades this frame's shadow list is split by */
  ty_bucket *bucket;
  ty_bucket_item *bitems;
  uint32_t bitem_cap;
  uint8_t *inst_cpu;
  size_t inst_cpu_cap;
  ty_gpu_light *gpu_lights;
  uint32_t gpu_light_count;
  bool lights_dropped_logged;
  rg_graph *graph;
  arena_block *arena;
  uint32_t *written;
  uint32_t written_count, written_cap;
  double frame_start;

  /* GPU */
  ty_gl_buffer vbo, ibo;
  uint32_t uploaded_vertices, uploaded_indices;
  /* Capacity of vbo/ibo (elements), and the ranges rewritten in place by update_mesh
   * since the last upload (lo == hi: none), so an edit uploads one mesh, not all. */
  uint32_t vbo_cap, ibo_cap;
  uint32_t dirty_v_lo, dirty_v_hi, dirty_i_lo, dirty_i_hi;
  uint32_t dead_vertices, dead_indices; /* room left behind by meshes that outgrew theirs */
  ty_gl_buffer inst_ring, cmd_ring;
  size_t inst_ring_size, cmd_ring_size;
  size_t inst_offset, cmd_offset;
  uint32_t cmd_list_first[TY_BUCKET_LIST_COUNT]; /* first command of each list in this frame's region */
  bool gpu_frame_ok;
  vao_entry vaos[TY_GL_MAX_RING_FRAMES + 1];
  uint32_t vao_count;
  ty_gl_buffer frame_ubo, material_ssbo, light_ssbo;
  uint32_t material_ssbo_cap, light_ssbo_cap;
  ty_gl_sampler samplers[TY_SAMPLER_COUNT];
  fb_entry *fbs;
  uint32_t fb_count, fb_cap;
  ty_program **programs;
  uint32_t program_count, program_cap;

  ty_draw_mode draw_mode;
  bool overlay;
  float frame_times[FRAME_TIME_HISTORY];
  uint32_t frame_time_count, frame_time_head;
  ty_render_stats stats;
  char *dump;
  size_t dump_cap;
  /* The passes the frame being executed ran so far, in order; timed when pass_timing. */
  ty_render_pass_time pass_times[TY_RENDER_MAX_PASS_TIMES];
  uint32_t pass_time_count;
  bool pass_timing;
  double pass_start;
  ty_pass_clock *pass_clock; /* GPU pass timing (pass_times.c); NULL until timed, or without timer queries */
  bool pass_clock_tried;
};

/* renderer.c */
char *ty_render_strdup(const char *s); /* NULL stays NULL; the copy is the caller's */

/* registry.c / items.c: freeing what they hold, on destroy. */
void ty_render_registry_free(ty_renderer *R);
void ty_render_items_free(ty_renderer *R);

/* engine_font.c */
void ty_render_engine_fonts_free(ty_renderer *R);

/* shader_cache.c */
char *ty_render_find_shader_dir(void); /* owned by the caller */
/* The cached program for these stages (built on first use); NULL, ty_render_error set,
 * when it has never built. fs_source: a user fragment shader given as source. */
ty_program *ty_render_program_get(ty_renderer *R, const char *vs, const char *fs, const char *cs,
                                  const char *fs_source, const char *defines);
void ty_render_programs_free(ty_renderer *R);

/* gather.c: the camera into F and the Frame block, this frame's lights, and every live
 * item into the bucket. */
void ty_render_setup_camera(ty_renderer *R, ty_frame *F, const ty_frame_desc *d);
void ty_render_gather_lights(ty_renderer *R, ty_frame *F, const ty_scene *scene);
void ty_render_gather_items(ty_renderer *R, const ty_scene *scene);

/* submit.c: the GPU side. */
void ty_render_gpu_release(ty_renderer *R);      /* everything made on the device */
void ty_render_gpu_write_instances(ty_renderer *R);
bool ty_render_upload_meshes(ty_renderer *R);
void ty_render_upload_frame_data(ty_renderer *R);
void ty_render_evict_targets(ty_renderer *R);   /* framebuffers no frame used lately */

/* frame.c */
void ty_render_frame_memory_free(ty_renderer *R);

/* pass_times.c: rg_execute's hooks (user: the renderer): pass names and, when timing, their
 * CPU and GPU times; frame_begin/end bracket rg_execute; release frees the timer queries
 * (the device's context current). */
void ty_render_pass_begin(void *user, const rg_pass_context *ctx);
void ty_render_pass_end(void *user, const rg_pass_context *ctx);
void ty_render_pass_frame_begin(ty_renderer *R);
void ty_render_pass_frame_end(ty_renderer *R);
void ty_render_pass_clock_release(ty_renderer *R);

#endif
