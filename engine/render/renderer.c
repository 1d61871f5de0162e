/* engine/render/renderer.c: the renderer: registries (meshes, textures, materials, draw
 * items, lights), one frame's gather + bucketing + instance upload, the render graph's
 * frame, the program cache, framebuffer cache and the draw submission every feature
 * uses. The built-in features live in features_*.c; this file dispatches to them.
 *
 * Headless (no device) everything but GL work runs: frames gather, bucket and write
 * instances into CPU memory, features declare passes, the graph compiles. With a device
 * GPU resources are made lazily on first use and freed on detach. */
#include "render_internal.h"

#include <math.h>
#include <stdarg.h>
#include <limits.h> /* Required for: PATH_MAX */
#include <stdlib.h> /* Required for: realpath */
#include <string.h>
#include <unistd.h>

#include <cglm/cglm.h>

#include "../platform/platform.h"
#include "camera.h" /* Required for: ty_camera_planes */

#define RING_FRAMES 3
#define FB_IDLE_FRAMES 4
#define FRAME_TIME_HISTORY 120
#define ARENA_BLOCK (64u * 1024u)

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

  ty_render_item *items;
  bool *item_live;
  uint32_t item_cap, item_live_count;
  uint32_t *item_free;
  uint32_t item_free_count, item_free_cap;

  ty_light *lights;
  bool *light_live;
  uint32_t light_cap;
  uint32_t *light_free;
  uint32_t light_free_count, light_free_cap;

  /* one frame */
  ty_frame frame;
  ty_frame_block block;
  bool frame_open;
  float prev_view_proj[16];
  bool has_prev;
  float shadow_range; /* how far last frame's cascades reached: 0, no shadow culling */
  bool shadow_noted;  /* the Shadow feature ran this frame */
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
};

static const float identity[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};

/* ---- errors --------------------------------------------------------------------------- */

void ty_render_fail(ty_renderer *R, const char *name, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(R->error, sizeof R->error, fmt, ap);
  va_end(ap);
  if (name) ty_log(name, "%s", R->error);
}

const char *ty_render_error(const ty_renderer *R) { return R->error; }

static char *dup_str(const char *s) {
  if (!s) return NULL;
  size_t n = strlen(s) + 1;
  char *d = TY_MALLOC(n);
  TY_ASSERT(d);
  memcpy(d, s, n);
  return d;
}

/* ---- shader folder ------------------------------------------------------------------ */

static bool dir_has_shaders(const char *dir) {
  char probe[4400];
  snprintf(probe, sizeof probe, "%s/common/frame.glsl", dir);
  return access(probe, R_OK) == 0;
}

/* TYCHO_HOME/shaders, then beside the executable (or one folder up: a build folder),
 * then the source tree this was built from. */
static char *find_shader_dir(void) {
  char cand[4200];
  const char *home = getenv("TYCHO_HOME");
  if (home) {
    snprintf(cand, sizeof cand, "%s/shaders", home);
    if (dir_has_shaders(cand)) return dup_str(cand);
  }
  char exe[4000];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (slash) *slash = 0;
    snprintf(cand, sizeof cand, "%s/shaders", exe);
    if (dir_has_shaders(cand)) return dup_str(cand);
    snprintf(cand, sizeof cand, "%s/../shaders", exe);
    if (dir_has_shaders(cand)) return dup_str(cand);
  }
#ifdef TYCHO_SOURCE_DIR
  snprintf(cand, sizeof cand, "%s/shaders", TYCHO_SOURCE_DIR);
  if (dir_has_shaders(cand)) return dup_str(cand);
#endif
  return dup_str("shaders");
}

/* ---- creation ----------------------------------------------------------------------- */

static void add_builtin_texture(ty_renderer *R, uint32_t w, uint32_t h, const uint8_t *px, const char *name) {
  uint32_t id = ty_render_add_texture(R, w, h, px, name);
  (void)id;
}

ty_renderer *ty_render_create(const ty_render_desc *desc) {
  TY_ASSERT(desc && desc->world);
  ty_renderer *R = TY_MALLOC(sizeof *R);
  TY_ASSERT(R);
  memset(R, 0, sizeof *R);
  R->world = desc->world;
  R->shader_dir = desc->shader_dir ? dup_str(desc->shader_dir) : find_shader_dir();
  R->bucket = ty_bucket_create(&(ty_bucket_desc){.instance_bytes = 32});
  R->graph = rg_create(NULL);

  ty_mesh_data cube;
  ty_mesh_cube(&cube);
  ty_render_add_mesh(R, &cube, "placeholder");
  ty_mesh_free(&cube);

  static const uint8_t white[4] = {255, 255, 255, 255};
  add_builtin_texture(R, 1, 1, white, "white");
  uint8_t checker[8 * 8 * 4];
  for (int y = 0; y < 8; y++)
    for (int x = 0; x < 8; x++) {
      bool m = ((x ^ y) & 1) == 0;
      uint8_t *p = checker + (y * 8 + x) * 4;
      p[0] = m ? 255 : 0, p[1] = 0, p[2] = m ? 255 : 0, p[3] = 255;
    }
  add_builtin_texture(R, 8, 8, checker, "placeholder");

  ty_material def = ty_material_default();
  ty_render_add_material(R, &def);
  return R;
}

static void gpu_release(ty_renderer *R);

void ty_render_destroy(ty_renderer *R) {
  if (!R) return;
  ty_render_attach(R, NULL);
  rg_destroy(R->graph);
  ty_bucket_destroy(R->bucket);
  for (uint32_t i = 0; i < R->texture_count; i++) {
    TY_FREE(R->textures[i].pixels);
    TY_FREE(R->textures[i].path);
  }
  for (uint32_t i = 0; i < R->program_count; i++) {
    ty_program *p = R->programs[i];
    TY_FREE(p->vs);
    TY_FREE(p->fs);
    TY_FREE(p->cs);
    TY_FREE(p->fs_source);
    TY_FREE(p->defines);
    TY_FREE(p->error);
    TY_FREE(p);
  }
  while (R->arena) {
    arena_block *n = R->arena->next;
    TY_FREE(R->arena);
    R->arena = n;
  }
  TY_FREE(R->programs);
  TY_FREE(R->textures);
  for (uint32_t i = 0; i < R->mesh_count; i++) TY_FREE(R->meshes[i].path);
  TY_FREE(R->meshes);
  TY_FREE(R->bmeshes);
  TY_FREE(R->vertices);
  TY_FREE(R->indices);
  TY_FREE(R->materials);
  TY_FREE(R->items);
  TY_FREE(R->item_live);
  TY_FREE(R->item_free);
  TY_FREE(R->lights);
  TY_FREE(R->light_live);
  TY_FREE(R->light_free);
  TY_FREE(R->bitems);
  TY_FREE(R->inst_cpu);
  TY_FREE(R->gpu_lights);
  TY_FREE(R->written);
  TY_FREE(R->fbs);
  TY_FREE(R->dump);
  TY_FREE(R->shader_dir);
  TY_FREE(R);
}

ty_gl_device *ty_render_device(const ty_renderer *R) { return R->dev; }

/* rg_execute's hooks: note each pass that runs and, when timing, how long it took. The
 * GPU runs ahead of the CPU, so a timed pass waits for the work before it (ty_gl_finish) and
 * for its own: exact per pass, at the price of the overlap. */
static void pass_begin(void *user, const rg_pass_context *ctx) {
  ty_renderer *R = user;
  (void)ctx;
#if TYCHO_WITH_GL
  if ((R->pass_timing || R->overlay) && R->dev) ty_gl_finish(R->dev);
#endif
  R->pass_start = ty_now();
}

static void pass_end(void *user, const rg_pass_context *ctx) {
  ty_renderer *R = user;
  if (R->pass_time_count == TY_RENDER_MAX_PASS_TIMES) return;
  ty_render_pass_time *t = &R->pass_times[R->pass_time_count++];
  snprintf(t->name, sizeof t->name, "%s", ctx->name ? ctx->name : "?");
  t->ms = -1.0f;
#if TYCHO_WITH_GL
  if ((R->pass_timing || R->overlay) && R->dev) {
    ty_gl_finish(R->dev);
    t->ms = (float)((ty_now() - R->pass_start) * 1000.0);
  }
#endif
}

void ty_render_set_pass_timing(ty_renderer *R, bool on) { R->pass_timing = on; }
bool ty_render_pass_timing(const ty_renderer *R) { return R->pass_timing; }

const ty_render_pass_time *ty_render_pass_times(const ty_renderer *R, uint32_t *count) {
  if (count) *count = R->pass_time_count;
  return R->pass_times;
}

void ty_render_attach(ty_renderer *R, ty_gl_device *dev) {
  if (R->dev == dev) return;
  if (R->dev) gpu_release(R);
  R->dev = dev;
  /* The graph's pool belongs to one backend: a new device gets a new graph. */
  rg_destroy(R->graph);
  if (dev) {
    rg_backend be = ty_gl_graph_backend(dev);
    R->graph = rg_create(
        &(rg_graph_desc){.backend = be, .pass_begin = pass_begin, .pass_end = pass_end, .pass_user = R});
  } else {
    R->graph = rg_create(NULL);
  }
  R->frame_open = false;
}

/* ---- meshes ------------------------------------------------------------------------- */

uint32_t ty_render_add_mesh(ty_renderer *R, const ty_mesh_data *m, const char *name) {
  (void)name;
  TY_ASSERT(m);
  uint32_t id = R->mesh_count;
  TY_GROW(R->meshes, R->mesh_cap, id + 1);
  TY_GROW(R->bmeshes, R->bmesh_cap, id + 1);
  mesh_rec *mr = &R->meshes[id];
  memset(mr, 0, sizeof *mr);
  mr->first_vertex = R->vertex_count;
  mr->vertex_count = m->vertex_count;
  mr->first_index = R->index_count;
  mr->index_count = m->index_count;
  mr->vertex_room = m->vertex_count;
  mr->index_room = m->index_count;
  ty_mesh_bounds(m, mr->center, &mr->radius);
  if (m->vertex_count) {
    TY_GROW(R->vertices, R->vertex_cap, R->vertex_count + m->vertex_count);
    memcpy(R->vertices + R->vertex_count, m->vertices, m->vertex_count * sizeof *m->vertices);
    R->vertex_count += m->vertex_count;
  }
  if (m->index_count) {
    TY_GROW(R->indices, R->index_cap, R->index_count + m->index_count);
    /* Indices out of range would read past the mesh: they become vertex 0 instead. */
    for (uint32_t i = 0; i < m->index_count; i++)
      R->indices[R->index_count + i] = m->indices[i] < m->vertex_count ? m->indices[i] : 0;
    R->index_count += m->index_count;
  }
  R->bmeshes[id] = (ty_bucket_mesh){.index_count = mr->index_count, .first_index = mr->first_index,
                                    .base_vertex = (int32_t)mr->first_vertex};
  R->mesh_count++;
  return id;
}

uint32_t ty_render_load_mesh(ty_renderer *R, const char *path, bool *ok) {
  ty_mesh_data m;
  char err[1024];
  if (!ty_mesh_load(path, &m, err, sizeof err)) {
    ty_render_fail(R, "mesh_load_failed", "%s", err);
    if (ok) *ok = false;
    return TY_RENDER_MESH_PLACEHOLDER;
  }
  uint32_t id = ty_render_add_mesh(R, &m, path);
  ty_mesh_free(&m);
  R->meshes[id].path = dup_str(path);
  if (ok) *ok = true;
  return id;
}

/* Two spellings of one file ("./a.png", "/game/a.png") are the same when both resolve. */
static bool same_file(const char *a, const char *b) {
  if (!a || !b) return false;
  if (strcmp(a, b) == 0) return true;
  char ra[PATH_MAX], rb[PATH_MAX];
  return realpath(a, ra) && realpath(b, rb) && strcmp(ra, rb) == 0;
}

int ty_render_reload_file(ty_renderer *R, const char *path) {
  TY_ASSERT(path);
  int reloaded = 0;
  for (uint32_t i = 0; i < R->texture_count; i++) {
    tex_rec *t = &R->textures[i];
    if (!same_file(t->path, path)) continue;
    int w = 0, h = 0;
    uint8_t *px = ty_image_load(path, &w, &h);
    if (!px) {
      ty_render_fail(R, "texture_reload_failed", "%s: cannot load the image; keeping the last one", path);
      return -1;
    }
    size_t bytes = (size_t)w * (size_t)h * 4;
    uint8_t *copy = TY_MALLOC(bytes);
    TY_ASSERT(copy);
    memcpy(copy, px, bytes);
    ty_image_free(px);
    TY_FREE(t->pixels);
    t->pixels = copy;
    t->width = (uint32_t)w, t->height = (uint32_t)h;
    if (R->dev && t->gl.id) ty_gl_destroy_texture(R->dev, t->gl);
    t->gl.id = 0; /* made again, from the new pixels, on its next use */
    reloaded++;
  }
  for (uint32_t i = 0; i < R->mesh_count; i++) {
    if (!same_file(R->meshes[i].path, path)) continue;
    ty_mesh_data m;
    char err[1024];
    if (!ty_mesh_load(path, &m, err, sizeof err)) {
      ty_render_fail(R, "mesh_reload_failed", "%s; keeping the last mesh", err);
      return -1;
    }
    ty_render_update_mesh(R, i, &m);
    ty_mesh_free(&m);
    reloaded++;
  }
  return reloaded;
}

uint32_t ty_render_mesh_count(const ty_renderer *R) { return R->mesh_count; }

static void widen(uint32_t *lo, uint32_t *hi, uint32_t a, uint32_t b) {
  if (*lo == *hi) *lo = a, *hi = b;
  else {
    if (a < *lo) *lo = a;
    if (b > *hi) *hi = b;
  }
}

/* Packs every mesh's room together again once moved meshes have left more room behind
 * than they use: a game that re-meshes chunks for hours keeps its buffers bounded. The
 * whole arrays upload again (into the same GPU buffers). */
static void compact_meshes(ty_renderer *R) {
  uint32_t nv = 0, ni = 0;
  for (uint32_t i = 0; i < R->mesh_count; i++) nv += R->meshes[i].vertex_room, ni += R->meshes[i].index_room;
  ty_vertex *vertices = TY_MALLOC((nv ? nv : 1) * sizeof *vertices);
  uint32_t *indices = TY_MALLOC((ni ? ni : 1) * sizeof *indices);
  TY_ASSERT(vertices && indices);
  uint32_t v = 0, n = 0;
  for (uint32_t i = 0; i < R->mesh_count; i++) {
    mesh_rec *mr = &R->meshes[i];
    memcpy(vertices + v, R->vertices + mr->first_vertex, mr->vertex_room * sizeof *vertices);
    memcpy(indices + n, R->indices + mr->first_index, mr->index_room * sizeof *indices);
    mr->first_vertex = v, mr->first_index = n;
    v += mr->vertex_room, n += mr->index_room;
    R->bmeshes[i] = (ty_bucket_mesh){.index_count = mr->index_count, .first_index = mr->first_index,
                                     .base_vertex = (int32_t)mr->first_vertex};
  }
  TY_FREE(R->vertices);
  TY_FREE(R->indices);
  R->vertices = vertices, R->vertex_cap = nv ? nv : 1, R->vertex_count = nv;
  R->indices = indices, R->index_cap = ni ? ni : 1, R->index_count = ni;
  R->dead_vertices = R->dead_indices = 0;
  R->uploaded_vertices = R->uploaded_indices = 0;
  R->dirty_v_lo = R->dirty_v_hi = R->dirty_i_lo = R->dirty_i_hi = 0;
}

bool ty_render_update_mesh(ty_renderer *R, uint32_t mesh, const ty_mesh_data *m) {
  TY_ASSERT(m);
  /* The placeholder stands for every missing mesh: it is never rewritten. */
  if (mesh >= R->mesh_count || mesh == TY_RENDER_MESH_PLACEHOLDER) return false;
  mesh_rec *mr = &R->meshes[mesh];
  bool in_place = m->vertex_count <= mr->vertex_room && m->index_count <= mr->index_room;
  if (!in_place) {
    /* Moves to the end of the shared arrays with a quarter more room, so a mesh that
     * grows edit by edit moves rarely; its old range is left unused. */
    uint32_t vroom = m->vertex_count + m->vertex_count / 4 + 16, iroom = m->index_count + m->index_count / 4 + 24;
    R->dead_vertices += mr->vertex_room, R->dead_indices += mr->index_room;
    TY_GROW(R->vertices, R->vertex_cap, R->vertex_count + vroom);
    TY_GROW(R->indices, R->index_cap, R->index_count + iroom);
    mr->first_vertex = R->vertex_count, mr->vertex_room = vroom;
    mr->first_index = R->index_count, mr->index_room = iroom;
    memset(R->vertices + R->vertex_count, 0, vroom * sizeof *R->vertices);
    memset(R->indices + R->index_count, 0, iroom * sizeof *R->indices);
    R->vertex_count += vroom;
    R->index_count += iroom;
  }
  mr->vertex_count = m->vertex_count;
  mr->index_count = m->index_count;
  ty_mesh_bounds(m, mr->center, &mr->radius);
  if (m->vertex_count) memcpy(R->vertices + mr->first_vertex, m->vertices, m->vertex_count * sizeof *m->vertices);
  for (uint32_t i = 0; i < m->index_count; i++)
    R->indices[mr->first_index + i] = m->indices[i] < m->vertex_count ? m->indices[i] : 0;
  if (in_place) {
    widen(&R->dirty_v_lo, &R->dirty_v_hi, mr->first_vertex, mr->first_vertex + m->vertex_count);
    widen(&R->dirty_i_lo, &R->dirty_i_hi, mr->first_index, mr->first_index + m->index_count);
  }
  R->bmeshes[mesh] = (ty_bucket_mesh){.index_count = mr->index_count, .first_index = mr->first_index,
                                      .base_vertex = (int32_t)mr->first_vertex};
  if (R->dead_vertices > 65536 && R->dead_vertices > R->vertex_count / 2) compact_meshes(R);
  return true;
}

ty_frame *ty_render_frame_current(ty_renderer *R) { return R->frame_open ? &R->frame : NULL; }

void ty_render_mesh_storage(const ty_renderer *R, uint32_t *vertices, uint32_t *indices) {
  if (vertices) *vertices = R->vertex_count;
  if (indices) *indices = R->index_count;
}

bool ty_render_mesh_info(const ty_renderer *R, uint32_t mesh, uint32_t *vertices, uint32_t *indices) {
  if (mesh >= R->mesh_count) return false;
  if (vertices) *vertices = R->meshes[mesh].vertex_count;
  if (indices) *indices = R->meshes[mesh].index_count;
  return true;
}

bool ty_render_mesh_data(const ty_renderer *R, uint32_t mesh, const ty_vertex **vertices, uint32_t *vertex_count,
                         const uint32_t **indices, uint32_t *index_count) {
  if (mesh >= R->mesh_count) return false;
  const mesh_rec *mr = &R->meshes[mesh];
  *vertices = mr->vertex_count ? R->vertices + mr->first_vertex : NULL;
  *vertex_count = mr->vertex_count;
  *indices = mr->index_count ? R->indices + mr->first_index : NULL;
  *index_count = mr->index_count;
  return true;
}

/* ---- textures ----------------------------------------------------------------------- */

uint32_t ty_render_add_texture(ty_renderer *R, uint32_t width, uint32_t height, const uint8_t *rgba, const char *name) {
  (void)name;
  TY_ASSERT(width > 0 && height > 0 && rgba);
  uint32_t id = R->texture_count;
  TY_GROW(R->textures, R->texture_cap, id + 1);
  tex_rec *t = &R->textures[id];
  memset(t, 0, sizeof *t);
  t->width = width;
  t->height = height;
  size_t bytes = (size_t)width * height * 4;
  t->pixels = TY_MALLOC(bytes);
  TY_ASSERT(t->pixels);
  memcpy(t->pixels, rgba, bytes);
  R->texture_count++;
  return id;
}

uint32_t ty_render_load_texture(ty_renderer *R, const char *path, bool *ok) {
  TY_ASSERT(path);
  for (uint32_t i = 0; i < R->texture_count; i++) {
    if (R->textures[i].path && !strcmp(R->textures[i].path, path)) {
      if (ok) *ok = true;
      return i;
    }
  }
  int w = 0, h = 0;
  uint8_t *px = ty_image_load(path, &w, &h);
  if (!px) {
    ty_render_fail(R, "texture_load_failed", "%s: cannot load the image; drawing the placeholder", path);
    if (ok) *ok = false;
    return TY_RENDER_TEXTURE_PLACEHOLDER;
  }
  uint32_t id = ty_render_add_texture(R, (uint32_t)w, (uint32_t)h, px, path);
  ty_image_free(px);
  R->textures[id].path = dup_str(path);
  if (ok) *ok = true;
  return id;
}

bool ty_render_texture_size(const ty_renderer *R, uint32_t texture, uint32_t *width, uint32_t *height) {
  if (texture >= R->texture_count) return false;
  if (width) *width = R->textures[texture].width;
  if (height) *height = R->textures[texture].height;
  return true;
}

/* ---- materials ---------------------------------------------------------------------- */

ty_material ty_material_default(void) {
  return (ty_material){.base_color = {1, 1, 1, 1}, .metallic = 0.0f, .roughness = 0.5f,
                       .texture = TY_RENDER_TEXTURE_WHITE};
}

uint32_t ty_render_add_material(ty_renderer *R, const ty_material *m) {
  TY_ASSERT(m);
  uint32_t id = R->material_count;
  TY_GROW(R->materials, R->material_cap, id + 1);
  R->materials[id] = *m;
  R->material_count++;
  R->materials_dirty = true;
  return id;
}

bool ty_render_set_material(ty_renderer *R, uint32_t material, const ty_material *m) {
  if (material >= R->material_count || !m) return false;
  R->materials[material] = *m;
  R->materials_dirty = true;
  return true;
}

const ty_material *ty_render_material(const ty_renderer *R, uint32_t material) {
  return material < R->material_count ? &R->materials[material] : NULL;
}

/* ---- items and lights --------------------------------------------------------------- */

uint32_t ty_render_item_create(ty_renderer *R, ty_id object) {
  uint32_t slot;
  if (R->item_free_count) {
    slot = R->item_free[--R->item_free_count];
  } else {
    slot = R->item_cap;
    uint32_t cap = R->item_cap;
    TY_GROW(R->items, cap, slot + 1);
    uint32_t cap2 = R->item_cap;
    TY_GROW(R->item_live, cap2, cap);
    for (uint32_t i = R->item_cap; i < cap; i++) R->item_live[i] = false;
    /* Every new slot but the one taken goes on the free list, lowest last so it comes out first. */
    TY_GROW(R->item_free, R->item_free_cap, R->item_free_count + (cap - R->item_cap));
    for (uint32_t i = cap; i-- > R->item_cap + 1;) R->item_free[R->item_free_count++] = i;
    R->item_cap = cap;
  }
  R->item_live[slot] = true;
  R->item_live_count++;
  R->items[slot] = (ty_render_item){.object = object, .mesh = TY_RENDER_MESH_PLACEHOLDER,
                                    .material = TY_RENDER_MATERIAL_DEFAULT, .enabled = true, .cast_shadows = true,
                                    .tint = {1, 1, 1, 1}, .rect = {0, 0, 1, 1}};
  return slot;
}

void ty_render_item_destroy(ty_renderer *R, uint32_t slot) {
  if (slot >= R->item_cap || !R->item_live[slot]) return;
  R->item_live[slot] = false;
  R->item_live_count--;
  TY_GROW(R->item_free, R->item_free_cap, R->item_free_count + 1);
  R->item_free[R->item_free_count++] = slot;
}

ty_render_item *ty_render_item_at(ty_renderer *R, uint32_t slot) {
  return slot < R->item_cap && R->item_live[slot] ? &R->items[slot] : NULL;
}

uint32_t ty_render_item_count(const ty_renderer *R) { return R->item_live_count; }

uint32_t ty_render_light_create(ty_renderer *R, ty_id object, ty_light_type type) {
  uint32_t slot;
  if (R->light_free_count) {
    slot = R->light_free[--R->light_free_count];
  } else {
    slot = R->light_cap;
    uint32_t cap = R->light_cap;
    TY_GROW(R->lights, cap, slot + 1);
    uint32_t cap2 = R->light_cap;
    TY_GROW(R->light_live, cap2, cap);
    for (uint32_t i = R->light_cap; i < cap; i++) R->light_live[i] = false;
    TY_GROW(R->light_free, R->light_free_cap, R->light_free_count + (cap - R->light_cap));
    for (uint32_t i = cap; i-- > R->light_cap + 1;) R->light_free[R->light_free_count++] = i;
    R->light_cap = cap;
  }
  R->light_live[slot] = true;
  R->lights[slot] = (ty_light){.object = object, .type = type, .enabled = true,
                               .cast_shadows = type == TY_LIGHT_DIRECTIONAL, .color = {1, 1, 1}, .intensity = 1.0f,
                               .range = 10.0f, .inner_angle = 30.0f, .outer_angle = 45.0f,
                               .direction = {0, -1, 0}};
  return slot;
}

void ty_render_light_destroy(ty_renderer *R, uint32_t slot) {
  if (slot >= R->light_cap || !R->light_live[slot]) return;
  R->light_live[slot] = false;
  TY_GROW(R->light_free, R->light_free_cap, R->light_free_count + 1);
  R->light_free[R->light_free_count++] = slot;
}

ty_light *ty_render_light_at(ty_renderer *R, uint32_t slot) {
  return slot < R->light_cap && R->light_live[slot] ? &R->lights[slot] : NULL;
}

/* ---- per-frame memory --------------------------------------------------------------- */

void *ty_render_frame_alloc(ty_renderer *R, size_t size) {
  size = (size + 15u) & ~(size_t)15u;
  arena_block *b = R->arena;
  if (!b || b->size - b->used < size) {
    size_t cap = size > ARENA_BLOCK ? size : ARENA_BLOCK;
    arena_block *nb = TY_MALLOC(sizeof *nb + cap);
    TY_ASSERT(nb);
    nb->next = R->arena;
    nb->used = 0;
    nb->size = cap;
    R->arena = nb;
    b = nb;
  }
  void *p = b->data + b->used;
  b->used += size;
  memset(p, 0, size);
  return p;
}

/* A frame that needed several blocks is given one block as large as all of them for the
 * next frame, so a steady frame (even a large one) allocates nothing. */
static void arena_reset(ty_renderer *R) {
  arena_block *b = R->arena;
  if (b && b->next) {
    size_t total = 0;
    while (b) {
      arena_block *n = b->next;
      total += b->size;
      TY_FREE(b);
      b = n;
    }
    b = TY_MALLOC(sizeof *b + total);
    TY_ASSERT(b);
    b->size = total;
  }
  if (b) {
    b->next = NULL;
    b->used = 0;
  }
  R->arena = b;
}

static void thunk_execute(const rg_pass_context *ctx, void *user) {
  pass_thunk *t = user;
  if (t->R->dev && t->fn) t->fn(t->R, &t->R->frame, ctx, t->data);
}

rg_pass ty_render_add_pass(ty_renderer *R, ty_frame *F, const rg_pass_desc *desc, ty_render_pass_fn fn,
                           const void *data, size_t data_size) {
  pass_thunk *t = ty_render_frame_alloc(R, sizeof *t);
  t->R = R;
  t->fn = fn;
  if (data_size) {
    t->data = ty_render_frame_alloc(R, data_size);
    if (data) memcpy(t->data, data, data_size);
  }
  rg_pass_desc d = *desc;
  d.execute = thunk_execute;
  d.user = t;
  return rg_add_pass(F->graph, &d);
}

bool ty_render_written(const ty_renderer *R, rg_resource r) {
  for (uint32_t i = 0; i < R->written_count; i++)
    if (R->written[i] == r.id) return true;
  return false;
}

bool ty_render_mark_write(ty_renderer *R, rg_resource r) {
  if (!r.id || ty_render_written(R, r)) return false;
  TY_GROW(R->written, R->written_cap, R->written_count + 1);
  R->written[R->written_count++] = r.id;
  return true;
}

ty_frame_block *ty_render_frame_block(ty_renderer *R) { return &R->block; }
const ty_gpu_light *ty_render_gpu_lights(const ty_renderer *R, uint32_t *count) {
  if (count) *count = R->gpu_light_count;
  return R->gpu_lights;
}
ty_render_stats *ty_render_stats_mut(ty_renderer *R) { return &R->stats; }
uint32_t ty_render_cascades(const ty_renderer *R) { return R->block.counts[1]; }

uint32_t ty_render_frame_times(const ty_renderer *R, float *out, uint32_t max) {
  uint32_t n = R->frame_time_count < max ? R->frame_time_count : max;
  uint32_t start = (R->frame_time_head + FRAME_TIME_HISTORY - n) % FRAME_TIME_HISTORY;
  for (uint32_t i = 0; i < n; i++) out[i] = R->frame_times[(start + i) % FRAME_TIME_HISTORY];
  return n;
}

/* ---- GPU resources ------------------------------------------------------------------ */

#if TYCHO_WITH_GL

static void destroy_vaos(ty_renderer *R) {
  for (uint32_t i = 0; i < R->vao_count; i++) ty_gl_destroy_vertex_array(R->dev, R->vaos[i].va);
  R->vao_count = 0;
}

static void gpu_release(ty_renderer *R) {
  ty_gl_device *dev = R->dev;
  ty_features_forward_release(R);
  ty_features_ui_release(R);
  destroy_vaos(R);
  for (uint32_t i = 0; i < R->fb_count; i++) ty_gl_destroy_framebuffer(dev, R->fbs[i].fb);
  R->fb_count = 0;
  for (uint32_t i = 0; i < R->program_count; i++) {
    ty_program *p = R->programs[i];
    if (p->gl.id) ty_gl_destroy_program(dev, p->gl);
    p->gl.id = 0;
    p->tried = false;
  }
  for (uint32_t i = 0; i < R->texture_count; i++) {
    if (R->textures[i].gl.id) ty_gl_destroy_texture(dev, R->textures[i].gl);
    R->textures[i].gl.id = 0;
  }
  for (int i = 0; i < TY_SAMPLER_COUNT; i++) {
    if (R->samplers[i].id) ty_gl_destroy_sampler(dev, R->samplers[i]);
    R->samplers[i].id = 0;
  }
  ty_gl_buffer *bufs[] = {&R->vbo, &R->ibo, &R->inst_ring, &R->cmd_ring, &R->frame_ubo, &R->material_ssbo,
                          &R->light_ssbo};
  for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++) {
    if (bufs[i]->id) ty_gl_destroy_buffer(dev, *bufs[i]);
    bufs[i]->id = 0;
  }
  R->uploaded_vertices = R->uploaded_indices = 0;
  R->vbo_cap = R->ibo_cap = 0;
  R->inst_ring_size = R->cmd_ring_size = 0;
  R->material_ssbo_cap = R->light_ssbo_cap = 0;
  R->materials_dirty = true;
  /* The graph's pooled textures go back to this device before it leaves. */
  rg_destroy(R->graph);
  R->graph = rg_create(NULL);
}

ty_gl_sampler ty_render_sampler_get(ty_renderer *R, ty_render_sampler s) {
  if (!R->dev) return (ty_gl_sampler){0};
  if (!R->samplers[s].id) {
    ty_gl_sampler_desc d = {0};
    switch (s) {
    case TY_SAMPLER_LINEAR_CLAMP: d.wrap_u = d.wrap_v = d.wrap_w = TY_GL_WRAP_CLAMP; break;
    case TY_SAMPLER_NEAREST_CLAMP:
      d.min_filter = d.mag_filter = TY_GL_FILTER_NEAREST;
      d.wrap_u = d.wrap_v = d.wrap_w = TY_GL_WRAP_CLAMP;
      break;
    case TY_SAMPLER_LINEAR_REPEAT_MIP:
      d.mip_filter = TY_GL_MIP_LINEAR;
      d.max_anisotropy = 8.0f;
      break;
    case TY_SAMPLER_NEAREST_REPEAT: d.min_filter = d.mag_filter = TY_GL_FILTER_NEAREST; break;
    case TY_SAMPLER_LINEAR_CLAMP_MIP: /* no anisotropy: sprites face the camera, and llvmpipe's blurs them */
      d.mip_filter = TY_GL_MIP_LINEAR;
      d.wrap_u = d.wrap_v = d.wrap_w = TY_GL_WRAP_CLAMP;
      break;
    case TY_SAMPLER_SHADOW:
      d.wrap_u = d.wrap_v = d.wrap_w = TY_GL_WRAP_CLAMP;
      d.compare = TY_GL_COMPARE_LEQUAL;
      break;
    default: break;
    }
    d.label = "renderer sampler";
    R->samplers[s] = ty_gl_make_sampler(R->dev, &d);
  }
  return R->samplers[s];
}

ty_gl_texture ty_render_texture_gl(ty_renderer *R, uint32_t texture) {
  if (!R->dev) return (ty_gl_texture){0};
  if (texture >= R->texture_count) texture = TY_RENDER_TEXTURE_WHITE;
  tex_rec *t = &R->textures[texture];
  if (!t->gl.id) {
    /* GL wants the bottom row first; uv (0,0) is then the image's bottom-left. */
    size_t row = (size_t)t->width * 4;
    uint8_t *flipped = TY_MALLOC(row * t->height);
    TY_ASSERT(flipped);
    for (uint32_t y = 0; y < t->height; y++) memcpy(flipped + y * row, t->pixels + (t->height - 1 - y) * row, row);
    t->gl = ty_gl_make_texture(R->dev, &(ty_gl_texture_desc){.width = t->width, .height = t->height,
                                                             .format = RG_FORMAT_SRGB8_A8,
                                                             .mip_levels = TY_GL_MIPS_FULL, .data = flipped,
                                                             .generate_mips = true, .label = "material texture"});
    TY_FREE(flipped);
    if (!t->gl.id && texture != TY_RENDER_TEXTURE_WHITE) return ty_render_texture_gl(R, TY_RENDER_TEXTURE_WHITE);
  }
  return t->gl;
}

/* One vertex array per instance-ring region: the instance binding's offset is baked in. */
static ty_gl_vertex_array vao_for(ty_renderer *R, size_t inst_offset) {
  for (uint32_t i = 0; i < R->vao_count; i++)
    if (R->vaos[i].offset == inst_offset) return R->vaos[i].va;
  if (R->vao_count == sizeof R->vaos / sizeof *R->vaos) destroy_vaos(R);
  ty_gl_vertex_array_desc d = {.index_buffer = R->ibo, .label = "scene vertices"};
  d.bindings[0] = (ty_gl_vertex_binding){.buffer = R->vbo, .stride = sizeof(ty_vertex)};
  d.bindings[1] = (ty_gl_vertex_binding){.buffer = R->inst_ring, .offset = inst_offset, .stride = 96, .divisor = 1};
  d.attrs[0] = (ty_gl_vertex_attr){TY_GL_VERTEX_FLOAT3, 0, offsetof(ty_vertex, position)};
  d.attrs[1] = (ty_gl_vertex_attr){TY_GL_VERTEX_FLOAT3, 0, offsetof(ty_vertex, normal)};
  d.attrs[2] = (ty_gl_vertex_attr){TY_GL_VERTEX_FLOAT2, 0, offsetof(ty_vertex, uv)};
  for (uint32_t c = 0; c < 6; c++) d.attrs[3 + c] = (ty_gl_vertex_attr){TY_GL_VERTEX_FLOAT4, 1, c * 16};
  ty_gl_vertex_array va = ty_gl_make_vertex_array(R->dev, &d);
  if (va.id) R->vaos[R->vao_count++] = (vao_entry){inst_offset, va};
  return va;
}

/* Brings the GPU copies up to date: appended meshes and ranges rewritten in place are
 * written into the existing buffers; only outgrowing them makes new ones (with half
 * again the room, so meshes added one by one do not upload everything each time). */
static bool upload_meshes(ty_renderer *R) {
  bool grow = !R->vbo.id || !R->ibo.id || R->vbo_cap < R->vertex_count || R->ibo_cap < R->index_count;
  if (grow) {
    destroy_vaos(R);
    if (R->vbo.id) ty_gl_destroy_buffer(R->dev, R->vbo);
    if (R->ibo.id) ty_gl_destroy_buffer(R->dev, R->ibo);
    R->vbo_cap = R->vertex_count + R->vertex_count / 2 + 1024;
    R->ibo_cap = R->index_count + R->index_count / 2 + 1536;
    R->vbo = ty_gl_make_buffer(R->dev, &(ty_gl_buffer_desc){.size = R->vbo_cap * sizeof(ty_vertex),
                                                            .flags = TY_GL_BUFFER_DYNAMIC, .label = "mesh vertices"});
    R->ibo = ty_gl_make_buffer(R->dev, &(ty_gl_buffer_desc){.size = R->ibo_cap * sizeof(uint32_t),
                                                            .flags = TY_GL_BUFFER_DYNAMIC, .label = "mesh indices"});
    R->uploaded_vertices = 0;
    R->uploaded_indices = 0;
    R->dirty_v_lo = R->dirty_v_hi = R->dirty_i_lo = R->dirty_i_hi = 0;
    if (!R->vbo.id || !R->ibo.id) return false;
  }
  if (R->dirty_v_hi > R->dirty_v_lo && R->dirty_v_lo < R->uploaded_vertices) {
    uint32_t hi = R->dirty_v_hi < R->uploaded_vertices ? R->dirty_v_hi : R->uploaded_vertices;
    ty_gl_update_buffer(R->dev, R->vbo, R->dirty_v_lo * sizeof(ty_vertex), R->vertices + R->dirty_v_lo,
                        (hi - R->dirty_v_lo) * sizeof(ty_vertex));
  }
  if (R->dirty_i_hi > R->dirty_i_lo && R->dirty_i_lo < R->uploaded_indices) {
    uint32_t hi = R->dirty_i_hi < R->uploaded_indices ? R->dirty_i_hi : R->uploaded_indices;
    ty_gl_update_buffer(R->dev, R->ibo, R->dirty_i_lo * sizeof(uint32_t), R->indices + R->dirty_i_lo,
                        (hi - R->dirty_i_lo) * sizeof(uint32_t));
  }
  R->dirty_v_lo = R->dirty_v_hi = R->dirty_i_lo = R->dirty_i_hi = 0;
  if (R->uploaded_vertices < R->vertex_count)
    ty_gl_update_buffer(R->dev, R->vbo, R->uploaded_vertices * sizeof(ty_vertex), R->vertices + R->uploaded_vertices,
                        (R->vertex_count - R->uploaded_vertices) * sizeof(ty_vertex));
  if (R->uploaded_indices < R->index_count)
    ty_gl_update_buffer(R->dev, R->ibo, R->uploaded_indices * sizeof(uint32_t), R->indices + R->uploaded_indices,
                        (R->index_count - R->uploaded_indices) * sizeof(uint32_t));
  R->uploaded_vertices = R->vertex_count;
  R->uploaded_indices = R->index_count;
  return true;
}

/* A ring that holds at least need bytes a frame: grown (made anew) when it does not. */
static bool ensure_ring(ty_renderer *R, ty_gl_buffer *ring, size_t *have, size_t need, const char *label) {
  if (ring->id && *have >= need) return true;
  size_t size = *have ? *have : 64 * 1024;
  while (size < need) size *= 2;
  if (ring->id) {
    destroy_vaos(R);
    ty_gl_destroy_buffer(R->dev, *ring);
  }
  *ring = ty_gl_make_buffer(R->dev, &(ty_gl_buffer_desc){.size = size, .ring_frames = RING_FRAMES, .label = label});
  *have = ring->id ? size : 0;
  return ring->id != 0;
}

/* Writes instances and indirect commands for this frame into the rings. */
static void gpu_write_instances(ty_renderer *R) {
  R->gpu_frame_ok = false;
  size_t size = ty_bucket_instance_size(R->bucket);
  size_t need = size ? size : 96;
  if (!ensure_ring(R, &R->inst_ring, &R->inst_ring_size, need, "instances")) return;
  void *dst = ty_gl_ring_alloc(R->dev, R->inst_ring, need, 256, &R->inst_offset);
  if (!dst) return;
  if (size) ty_bucket_write_instances(R->bucket, dst);
  uint32_t total = 0;
  for (int k = 0; k < TY_BUCKET_LIST_COUNT; k++) total += ty_bucket_get(R->bucket, (ty_bucket_kind)k)->batch_count;
  size_t cmd_bytes = (total ? total : 1) * sizeof(ty_bucket_command);
  if (!ensure_ring(R, &R->cmd_ring, &R->cmd_ring_size, cmd_bytes, "draw commands")) return;
  uint8_t *cmds = ty_gl_ring_alloc(R->dev, R->cmd_ring, cmd_bytes, 256, &R->cmd_offset);
  if (!cmds) return;
  uint32_t at = 0;
  for (int k = 0; k < TY_BUCKET_LIST_COUNT; k++) {
    const ty_bucket_list *l = ty_bucket_get(R->bucket, (ty_bucket_kind)k);
    R->cmd_list_first[k] = at;
    if (l->batch_count) memcpy(cmds + at * sizeof(ty_bucket_command), l->commands, l->batch_count * sizeof(ty_bucket_command));
    at += l->batch_count;
  }
  R->gpu_frame_ok = true;
}

static void upload_frame_data(ty_renderer *R) {
  ty_gl_device *dev = R->dev;
  if (!R->frame_ubo.id)
    R->frame_ubo = ty_gl_make_buffer(dev, &(ty_gl_buffer_desc){.size = sizeof(ty_frame_block),
                                                               .flags = TY_GL_BUFFER_DYNAMIC, .label = "Frame"});
  ty_gl_update_buffer(dev, R->frame_ubo, 0, &R->block, sizeof R->block);
  if (R->materials_dirty || R->material_ssbo_cap < R->material_count) {
    if (R->material_ssbo_cap < R->material_count) {
      if (R->material_ssbo.id) ty_gl_destroy_buffer(dev, R->material_ssbo);
      uint32_t cap = R->material_count < 64 ? 64 : R->material_count * 2;
      R->material_ssbo = ty_gl_make_buffer(dev, &(ty_gl_buffer_desc){.size = cap * sizeof(ty_gpu_material),
                                                                     .flags = TY_GL_BUFFER_DYNAMIC,
                                                                     .label = "materials"});
      R->material_ssbo_cap = R->material_ssbo.id ? cap : 0;
    }
    ty_gpu_material *gm = TY_MALLOC(R->material_count * sizeof *gm);
    TY_ASSERT(gm);
    for (uint32_t i = 0; i < R->material_count; i++) {
      const ty_material *m = &R->materials[i];
      gm[i] = (ty_gpu_material){{m->base_color[0], m->base_color[1], m->base_color[2], m->base_color[3]},
                                {m->emissive[0], m->emissive[1], m->emissive[2], m->metallic},
                                {m->roughness, m->unlit ? 1.0f : 0.0f, m->transparent ? 1.0f : 0.0f, m->clamp ? 1.0f : 0.0f}};
    }
    if (R->material_ssbo.id) ty_gl_update_buffer(dev, R->material_ssbo, 0, gm, R->material_count * sizeof *gm);
    TY_FREE(gm);
    R->materials_dirty = false;
  }
  uint32_t lc = R->gpu_light_count ? R->gpu_light_count : 1;
  if (R->light_ssbo_cap < lc) {
    if (R->light_ssbo.id) ty_gl_destroy_buffer(dev, R->light_ssbo);
    uint32_t cap = lc < 32 ? 32 : TY_RENDER_MAX_LIGHTS;
    R->light_ssbo = ty_gl_make_buffer(dev, &(ty_gl_buffer_desc){.size = cap * sizeof(ty_gpu_light),
                                                                .flags = TY_GL_BUFFER_DYNAMIC, .label = "lights"});
    R->light_ssbo_cap = R->light_ssbo.id ? cap : 0;
  }
  if (R->gpu_light_count && R->light_ssbo.id)
    ty_gl_update_buffer(dev, R->light_ssbo, 0, R->gpu_lights, R->gpu_light_count * sizeof(ty_gpu_light));
}

void ty_render_bind_frame(ty_renderer *R, const ty_frame *F) {
  (void)F;
  if (!R->dev) return;
  if (R->frame_ubo.id) ty_gl_bind_buffer(R->dev, TY_GL_TARGET_UNIFORM, 0, R->frame_ubo, 0, 0);
  if (R->material_ssbo.id) ty_gl_bind_buffer(R->dev, TY_GL_TARGET_STORAGE, 1, R->material_ssbo, 0, 0);
  if (R->light_ssbo.id) ty_gl_bind_buffer(R->dev, TY_GL_TARGET_STORAGE, 2, R->light_ssbo, 0, 0);
}

void ty_render_set_state(ty_renderer *R, const ty_gl_pipeline_desc *s) {
  if (R->dev) ty_gl_apply_pipeline(R->dev, s);
}

void ty_render_draw_list(ty_renderer *R, const ty_frame *F, ty_bucket_kind list, ty_program *prog) {
  ty_gl_device *dev = R->dev;
  if (!dev || !prog || !prog->gl.id || !R->gpu_frame_ok) return;
  const ty_bucket_list *l = ty_bucket_get(R->bucket, list);
  if (!l->count) return;
  ty_gl_vertex_array va = vao_for(R, R->inst_offset);
  if (!va.id) return;
  ty_gl_use_program(dev, prog->gl);
  ty_gl_bind_vertex_array(dev, va);
  ty_render_bind_frame(R, F);
  if (R->draw_mode == TY_DRAW_MULTI_INDIRECT) ty_gl_bind_buffer(dev, TY_GL_TARGET_INDIRECT, 0, R->cmd_ring, 0, 0);
  ty_render_stats *st = &R->stats;
  for (uint32_t r = 0; r < l->run_count; r++) {
    const ty_bucket_run *run = &l->runs[r];
    uint32_t mat = run->material < R->material_count ? run->material : TY_RENDER_MATERIAL_DEFAULT;
    if (prog->has_material) ty_gl_set_uniform(dev, prog->gl, TY_LOC_MATERIAL, TY_GL_UNIFORM_UINT, 1, &mat);
    const ty_material *m = &R->materials[mat];
    ty_render_sampler smp = m->nearest ? (m->clamp ? TY_SAMPLER_NEAREST_CLAMP : TY_SAMPLER_NEAREST_REPEAT)
                                       : (m->clamp ? TY_SAMPLER_LINEAR_CLAMP_MIP : TY_SAMPLER_LINEAR_REPEAT_MIP);
    ty_gl_bind_texture(dev, TY_UNIT_BASE_COLOR, ty_render_texture_gl(R, m->texture), ty_render_sampler_get(R, smp));
    if (R->draw_mode == TY_DRAW_MULTI_INDIRECT) {
      size_t off = R->cmd_offset + (size_t)(R->cmd_list_first[list] + run->first_batch) * sizeof(ty_bucket_command);
      ty_gl_draw_indexed_indirect(dev, TY_GL_TRIANGLES, off, run->batch_count, sizeof(ty_bucket_command));
      st->draw_calls++;
      st->draws += run->batch_count;
    }
    for (uint32_t b = run->first_batch; b < run->first_batch + run->batch_count; b++) {
      const ty_bucket_batch *bt = &l->batches[b];
      const ty_bucket_command *c = &l->commands[b];
      if (R->draw_mode == TY_DRAW_INSTANCED) {
        ty_gl_draw_indexed(dev, TY_GL_TRIANGLES, c->first_index, c->count, bt->count, c->base_vertex,
                           bt->first_instance);
        st->draw_calls++;
        st->draws++;
      } else if (R->draw_mode == TY_DRAW_PER_OBJECT) {
        for (uint32_t k = 0; k < bt->count; k++)
          ty_gl_draw_indexed(dev, TY_GL_TRIANGLES, c->first_index, c->count, 1, c->base_vertex,
                             bt->first_instance + k);
        st->draw_calls += bt->count;
        st->draws += bt->count;
      }
      st->instances += bt->count;
      st->triangles += (uint64_t)(c->count / 3) * bt->count;
    }
  }
}

void ty_render_fullscreen(ty_renderer *R) {
  if (!R->dev) return;
  ty_gl_bind_vertex_array(R->dev, (ty_gl_vertex_array){0});
  ty_gl_draw(R->dev, TY_GL_TRIANGLES, 0, 3, 1);
  R->stats.draw_calls++;
  R->stats.draws++;
  R->stats.triangles += 1;
}

static bool target_equal(const ty_render_target_desc *a, const ty_render_target_desc *b) {
  return a->color_count == b->color_count && a->depth == b->depth && a->depth_layer == b->depth_layer &&
         a->color_level == b->color_level && !memcmp(a->colors, b->colors, a->color_count * sizeof a->colors[0]);
}

ty_gl_framebuffer ty_render_target(ty_renderer *R, const ty_render_target_desc *desc) {
  ty_gl_framebuffer none = {0};
  if (!R->dev) return none;
  if ((desc->color_count == 0 || (desc->color_count == 1 && desc->colors[0] == 0)) && desc->depth == 0) {
    ty_gl_bind_framebuffer(R->dev, none);
    ty_gl_set_viewport(R->dev, 0, 0, (int)R->frame.width, (int)R->frame.height);
    return none;
  }
  ty_render_target_desc key = {0};
  key.color_count = desc->color_count;
  memcpy(key.colors, desc->colors, desc->color_count * sizeof key.colors[0]);
  key.depth = desc->depth;
  key.depth_layer = desc->depth_layer;
  key.color_level = desc->color_level;
  for (uint32_t i = 0; i < R->fb_count; i++) {
    if (target_equal(&R->fbs[i].key, &key)) {
      R->fbs[i].last_used = R->frame.index;
      if (ty_gl_bind_framebuffer(R->dev, R->fbs[i].fb) == TY_GL_OK) return R->fbs[i].fb;
      /* An attachment went away (the graph recycled it): make it again. */
      ty_gl_destroy_framebuffer(R->dev, R->fbs[i].fb);
      R->fbs[i] = R->fbs[--R->fb_count];
      break;
    }
  }
  ty_gl_framebuffer_desc fd = {.label = "pass target"};
  for (uint32_t i = 0; i < key.color_count && i < TY_GL_MAX_COLOR_ATTACHMENTS; i++)
    fd.colors[i] = (ty_gl_attachment){.texture = {key.colors[i]}, .level = key.color_level};
  if (key.depth) fd.depth_stencil = (ty_gl_attachment){.texture = {key.depth}, .layer = key.depth_layer};
  ty_gl_framebuffer fb = ty_gl_make_framebuffer(R->dev, &fd);
  if (!fb.id) {
    ty_render_fail(R, "render_target_failed", "framebuffer: %s", ty_gl_error(R->dev));
    return none;
  }
  TY_GROW(R->fbs, R->fb_cap, R->fb_count + 1);
  R->fbs[R->fb_count++] = (fb_entry){key, fb, R->frame.index};
  ty_gl_bind_framebuffer(R->dev, fb);
  return fb;
}

static void evict_targets(ty_renderer *R) {
  for (uint32_t i = 0; i < R->fb_count;) {
    if (R->frame.index - R->fbs[i].last_used > FB_IDLE_FRAMES) {
      ty_gl_destroy_framebuffer(R->dev, R->fbs[i].fb);
      R->fbs[i] = R->fbs[--R->fb_count];
    } else {
      i++;
    }
  }
}

#else /* no GL: everything GPU is a no-op */

static void gpu_release(ty_renderer *R) { (void)R; }
ty_gl_sampler ty_render_sampler_get(ty_renderer *R, ty_render_sampler s) { (void)R, (void)s; return (ty_gl_sampler){0}; }
ty_gl_texture ty_render_texture_gl(ty_renderer *R, uint32_t t) { (void)R, (void)t; return (ty_gl_texture){0}; }
static void gpu_write_instances(ty_renderer *R) { (void)R; }
static void upload_frame_data(ty_renderer *R) { (void)R; }
static bool upload_meshes(ty_renderer *R) { (void)R; return false; }
static void evict_targets(ty_renderer *R) { (void)R; }
void ty_render_bind_frame(ty_renderer *R, const ty_frame *F) { (void)R, (void)F; }
void ty_render_set_state(ty_renderer *R, const ty_gl_pipeline_desc *s) { (void)R, (void)s; }
void ty_render_draw_list(ty_renderer *R, const ty_frame *F, ty_bucket_kind l, ty_program *p) { (void)R, (void)F, (void)l, (void)p; }
void ty_render_fullscreen(ty_renderer *R) { (void)R; }
ty_gl_framebuffer ty_render_target(ty_renderer *R, const ty_render_target_desc *d) { (void)R, (void)d; return (ty_gl_framebuffer){0}; }

#endif

/* ---- programs ----------------------------------------------------------------------- */

static char *read_text(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  if (n < 0) {
    fclose(f);
    return NULL;
  }
  char *s = TY_MALLOC((size_t)n + 1);
  TY_ASSERT(s);
  size_t got = fread(s, 1, (size_t)n, f);
  fclose(f);
  s[got] = 0;
  return s;
}

/* A stage's file: an engine shader under the shader folder, or a user's file as given. */
static void resolve_path(const ty_renderer *R, const char *path, char *out, size_t size) {
  if (path[0] == '/' || access(path, R_OK) == 0) snprintf(out, size, "%s", path);
  else snprintf(out, size, "%s/%s", R->shader_dir, path);
}

static bool same_str(const char *a, const char *b) { return (!a && !b) || (a && b && !strcmp(a, b)); }

/* Builds p on the device; on success replaces the last good program. */
static bool program_build(ty_renderer *R, ty_program *p) {
#if TYCHO_WITH_GL
  if (!R->dev) return false;
  p->tried = true;
  char vs_path[4096] = "", fs_path[4096] = "", cs_path[4096] = "";
  char *vs = NULL, *fs = NULL, *cs = NULL;
  bool ok = true;
  if (p->vs) {
    resolve_path(R, p->vs, vs_path, sizeof vs_path);
    if (!(vs = read_text(vs_path))) ok = false;
  }
  if (ok && p->fs) {
    if (p->fs_source) {
      snprintf(fs_path, sizeof fs_path, "%s", p->fs);
      fs = dup_str(p->fs_source);
    } else {
      resolve_path(R, p->fs, fs_path, sizeof fs_path);
      if (!(fs = read_text(fs_path))) ok = false;
    }
  }
  if (ok && p->cs) {
    resolve_path(R, p->cs, cs_path, sizeof cs_path);
    if (!(cs = read_text(cs_path))) ok = false;
  }
  ty_gl_program gl = {0};
  if (!ok) {
    const char *missing = p->cs ? cs_path : (!vs && p->vs) ? vs_path : fs_path;
    ty_render_fail(R, "shader_load_failed", "%s: cannot read the shader file", missing);
  } else {
    ty_gl_program_desc d = {.defines = p->defines, .include_dir = R->shader_dir, .label = p->fs ? p->fs : p->cs};
    if (p->cs) {
      d.compute = (ty_gl_shader_source){cs, cs_path};
    } else {
      d.vertex = (ty_gl_shader_source){vs, vs_path};
      if (fs) d.fragment = (ty_gl_shader_source){fs, fs_path};
    }
    gl = ty_gl_make_program(R->dev, &d);
    if (!gl.id) {
      ty_render_fail(R, NULL, "%s", ty_gl_error(R->dev));
      ok = false;
    }
  }
  TY_FREE(vs);
  TY_FREE(fs);
  TY_FREE(cs);
  TY_FREE(p->error);
  p->error = NULL;
  if (!ok) {
    p->error = dup_str(R->error);
    return false;
  }
  if (p->gl.id) ty_gl_destroy_program(R->dev, p->gl);
  p->gl = gl;
  /* depth-only programs have no material: setting location 0 there would hit whatever the
   * driver put at 0 (Mesa numbers uniform block members too) */
  p->has_material = ty_gl_uniform_location(R->dev, gl, "u_material") == TY_LOC_MATERIAL;
  return true;
#else
  (void)R, (void)p;
  return false;
#endif
}

static ty_program *program_get(ty_renderer *R, const char *vs, const char *fs, const char *cs, const char *fs_source,
                               const char *defines) {
  if (defines && !defines[0]) defines = NULL;
  ty_program *p = NULL;
  for (uint32_t i = 0; i < R->program_count && !p; i++) {
    ty_program *q = R->programs[i];
    if (same_str(q->vs, vs) && same_str(q->fs, fs) && same_str(q->cs, cs) && same_str(q->defines, defines)) p = q;
  }
  if (!p) {
    p = TY_MALLOC(sizeof *p);
    TY_ASSERT(p);
    memset(p, 0, sizeof *p);
    p->vs = dup_str(vs);
    p->fs = dup_str(fs);
    p->cs = dup_str(cs);
    p->defines = dup_str(defines);
    p->fs_source = dup_str(fs_source);
    TY_GROW(R->programs, R->program_cap, R->program_count + 1);
    R->programs[R->program_count++] = p;
  } else if (fs_source && !same_str(p->fs_source, fs_source)) {
    /* New source under the same name: a reload; a failure keeps the last good build. */
    TY_FREE(p->fs_source);
    p->fs_source = dup_str(fs_source);
    if (R->dev) program_build(R, p);
  }
  if (!R->dev) return p;
  if (!p->tried) program_build(R, p);
  if (!p->gl.id) {
    if (p->error) snprintf(R->error, sizeof R->error, "%s", p->error);
    return NULL;
  }
  return p;
}

ty_program *ty_render_program(ty_renderer *R, const char *vs_path, const char *fs_path, const char *defines) {
  TY_ASSERT(vs_path);
  return program_get(R, vs_path, fs_path, NULL, NULL, defines);
}

ty_program *ty_render_compute_program(ty_renderer *R, const char *cs_path, const char *defines) {
  TY_ASSERT(cs_path);
  return program_get(R, NULL, NULL, cs_path, NULL, defines);
}

/* a names b when they are equal or one ends with "/" + the other. */
static bool path_matches(const char *a, const char *b) {
  if (!a || !b) return false;
  size_t la = strlen(a), lb = strlen(b);
  if (la == lb) return !strcmp(a, b);
  const char *lng = la > lb ? a : b, *sht = la > lb ? b : a;
  size_t ll = la > lb ? la : lb, ls = la > lb ? lb : la;
  return lng[ll - ls - 1] == '/' && !strcmp(lng + ll - ls, sht);
}

bool ty_render_reload_shader(ty_renderer *R, const char *path) {
  TY_ASSERT(path);
  size_t n = strlen(path);
  bool include = n > 5 && !strcmp(path + n - 5, ".glsl");
  bool ok = true;
  char first_error[2048] = "";
  for (uint32_t i = 0; i < R->program_count; i++) {
    ty_program *p = R->programs[i];
    bool hit = include || path_matches(p->vs, path) || (path_matches(p->fs, path) && !p->fs_source) ||
               path_matches(p->cs, path);
    if (!hit) continue;
    if (!R->dev) {
      p->tried = false;
      continue;
    }
    if (!program_build(R, p)) {
      if (ok) snprintf(first_error, sizeof first_error, "%s", R->error);
      ok = false;
    }
  }
  if (!ok) snprintf(R->error, sizeof R->error, "%s", first_error);
  return ok;
}

/* ---- a frame ------------------------------------------------------------------------ */

static void halton(uint32_t i, uint32_t base, float *out) {
  float f = 1.0f, r = 0.0f;
  while (i > 0) {
    f /= (float)base;
    r += f * (float)(i % base);
    i /= base;
  }
  *out = r;
}

static void setup_camera(ty_renderer *R, ty_frame *F, const ty_frame_desc *d) {
  ty_transforms *T = ty_world_transforms(R->world);
  const ty_camera_desc *c = &d->camera;
  mat4 view, world, proj;
  if (c->object && ty_object_alive(R->world, c->object)) {
    uint32_t xf = ty_object_transform(R->world, c->object);
    const float *w = ty_transform_world(T, xf), *rw = ty_transform_render_world(T, xf);
    memcpy(world, rw, sizeof world);
    if (rw == w) memcpy(view, ty_transform_world_inverse(T, xf), sizeof view);
    else glm_mat4_inv(world, view); /* a camera on (or under) an interpolated body */
  } else {
    glm_mat4_identity(world);
    glm_mat4_identity(view);
  }
  float aspect = F->height ? (float)F->width / (float)F->height : 1.0f;
  float nearp, farp;
  ty_camera_planes(c, &nearp, &farp); /* camera.c converts screen <-> world with the same */
  if (c->orthographic) {
    float size = c->size > 0 ? c->size : 5.0f;
    glm_ortho(-size * aspect, size * aspect, -size, size, nearp, farp, proj);
  } else {
    float fov = c->fov_deg > 0 ? c->fov_deg : 60.0f;
    glm_perspective(glm_rad(fov), aspect, nearp, farp, proj);
  }
  F->jitter[0] = F->jitter[1] = 0;
  if (d->jitter && F->width && F->height) {
    uint32_t i = (uint32_t)(F->index % 8) + 1;
    halton(i, 2, &F->jitter[0]);
    halton(i, 3, &F->jitter[1]);
    F->jitter[0] -= 0.5f, F->jitter[1] -= 0.5f;
    float jx = 2.0f * F->jitter[0] / (float)F->width, jy = 2.0f * F->jitter[1] / (float)F->height;
    if (c->orthographic) proj[3][0] += jx, proj[3][1] += jy;
    else proj[2][0] -= jx, proj[2][1] -= jy; /* clip w is -z: this shifts NDC by +j */
  }
  mat4 vp, ivp;
  glm_mat4_mul(proj, view, vp);
  glm_mat4_inv(vp, ivp);
  memcpy(F->view, view, sizeof F->view);
  memcpy(F->proj, proj, sizeof F->proj);
  memcpy(F->view_proj, vp, sizeof F->view_proj);
  memcpy(F->inv_view_proj, ivp, sizeof F->inv_view_proj);
  memcpy(F->prev_view_proj, R->has_prev ? R->prev_view_proj : F->view_proj, sizeof F->prev_view_proj);
  memcpy(R->prev_view_proj, vp, sizeof R->prev_view_proj);
  R->has_prev = true;
  F->camera_position[0] = world[3][0], F->camera_position[1] = world[3][1], F->camera_position[2] = world[3][2];
  vec3 fwd = {-world[2][0], -world[2][1], -world[2][2]};
  glm_vec3_normalize(fwd);
  memcpy(F->camera_forward, fwd, sizeof F->camera_forward);

  ty_frame_block *B = &R->block;
  memcpy(B->view, F->view, 64);
  memcpy(B->proj, F->proj, 64);
  memcpy(B->view_proj, F->view_proj, 64);
  memcpy(B->inv_view_proj, F->inv_view_proj, 64);
  memcpy(B->prev_view_proj, F->prev_view_proj, 64);
  mat4 ip;
  glm_mat4_inv(proj, ip);
  memcpy(B->inv_proj, ip, 64);
  memcpy(B->inv_view, world, 64);
  B->camera_position[0] = F->camera_position[0], B->camera_position[1] = F->camera_position[1];
  B->camera_position[2] = F->camera_position[2], B->camera_position[3] = (float)fmod(d->time, 3600.0);
  B->camera_forward[0] = fwd[0], B->camera_forward[1] = fwd[1], B->camera_forward[2] = fwd[2];
  B->camera_forward[3] = d->delta;
  B->viewport[0] = (float)F->width, B->viewport[1] = (float)F->height;
  B->viewport[2] = F->width ? 1.0f / (float)F->width : 0, B->viewport[3] = F->height ? 1.0f / (float)F->height : 0;
  B->jitter[2] = B->jitter[0], B->jitter[3] = B->jitter[1];
  B->jitter[0] = F->jitter[0], B->jitter[1] = F->jitter[1];
  B->clip[0] = nearp, B->clip[1] = farp, B->clip[2] = c->orthographic ? 1.0f : 0.0f;
}

static void light_direction(ty_transforms *T, const ty_light *l, uint32_t xf, float out[3]) {
  if (l->has_direction) {
    memcpy(out, l->direction, sizeof(float) * 3);
  } else {
    const float *w = ty_transform_world(T, xf);
    out[0] = -w[8], out[1] = -w[9], out[2] = -w[10];
  }
  float len = sqrtf(out[0] * out[0] + out[1] * out[1] + out[2] * out[2]);
  if (len > 0) out[0] /= len, out[1] /= len, out[2] /= len;
  else out[0] = 0, out[1] = -1, out[2] = 0;
}

/* A light shines when it is enabled, on a live, active object in the frame's scene. */
static bool light_on(const ty_renderer *R, const ty_light *l, const ty_scene *scene) {
  return l->enabled && ty_object_alive(R->world, l->object) && ty_object_active(R->world, l->object) &&
         (!scene || ty_object_scene(R->world, l->object) == scene);
}

static void gather_lights(ty_renderer *R, ty_frame *F, const ty_scene *scene) {
  ty_transforms *T = ty_world_transforms(R->world);
  ty_frame_block *B = &R->block;
  F->has_sun = false;
  R->gpu_light_count = 0;
  if (!R->gpu_lights) R->gpu_lights = TY_MALLOC(TY_RENDER_MAX_LIGHTS * sizeof *R->gpu_lights);
  TY_ASSERT(R->gpu_lights);
  const ty_light *sun = NULL;
  uint32_t sun_xf = 0, dropped = 0;
  for (int pass = 0; pass < 2 && !sun; pass++) {
    for (uint32_t i = 0; i < R->light_cap && !sun; i++) {
      const ty_light *l = &R->lights[i];
      if (!R->light_live[i] || l->type != TY_LIGHT_DIRECTIONAL || !light_on(R, l, scene)) continue;
      if (pass == 0 && !l->cast_shadows) continue; /* a casting sun first, then any */
      sun = l;
      sun_xf = ty_object_transform(R->world, l->object);
    }
  }
  for (uint32_t i = 0; i < R->light_cap; i++) {
    const ty_light *l = &R->lights[i];
    if (!R->light_live[i] || l->type == TY_LIGHT_DIRECTIONAL || !light_on(R, l, scene)) continue;
    if (R->gpu_light_count == TY_RENDER_MAX_LIGHTS) {
      dropped++;
      continue;
    }
    uint32_t xf = ty_object_transform(R->world, l->object);
    float pos[3], dir[3];
    ty_transform_world_position(T, xf, pos);
    light_direction(T, l, xf, dir);
    float outer = glm_rad(fmaxf(l->outer_angle, 0.1f) * 0.5f), inner = glm_rad(fmaxf(l->inner_angle, 0.0f) * 0.5f);
    if (inner > outer) inner = outer;
    R->gpu_lights[R->gpu_light_count++] = (ty_gpu_light){
        {pos[0], pos[1], pos[2], l->range > 0 ? l->range : 10.0f},
        {l->color[0] * l->intensity, l->color[1] * l->intensity, l->color[2] * l->intensity,
         l->type == TY_LIGHT_SPOT ? 2.0f : 1.0f},
        {dir[0], dir[1], dir[2], l->type == TY_LIGHT_SPOT ? cosf(outer) : -2.0f},
        {l->type == TY_LIGHT_SPOT ? cosf(inner) : -2.0f, 0, 0, 0}};
  }
  if (dropped && !R->lights_dropped_logged) {
    ty_log("render_too_many_lights", "%u point/spot lights past %d dropped this frame", dropped, TY_RENDER_MAX_LIGHTS);
    R->lights_dropped_logged = true;
  }
  F->light_count = R->gpu_light_count;
  B->counts[0] = R->gpu_light_count;
  memset(B->sun_direction, 0, sizeof B->sun_direction);
  memset(B->sun_color, 0, sizeof B->sun_color);
  if (sun) {
    F->has_sun = true;
    light_direction(T, sun, sun_xf, F->sun_direction);
    memcpy(F->sun_color, sun->color, sizeof F->sun_color);
    F->sun_intensity = sun->intensity;
    memcpy(B->sun_direction, F->sun_direction, 12);
    B->sun_direction[3] = 1.0f;
    for (int k = 0; k < 3; k++) B->sun_color[k] = sun->color[k] * sun->intensity;
  } else {
    memset(F->sun_direction, 0, sizeof F->sun_direction);
    memset(F->sun_color, 0, sizeof F->sun_color);
    F->sun_intensity = 0;
  }
}

/* Every live item becomes a bucket item: enabled ones on active objects with their world
 * matrix, the rest as disabled (so the counts show them). */
static void gather_items(ty_renderer *R, const ty_scene *scene) {
  ty_world *W = R->world;
  ty_transforms *T = ty_world_transforms(W);
  TY_GROW(R->bitems, R->bitem_cap, R->item_cap ? R->item_cap : 1);
  ty_bucket_item *out = R->bitems;
  uint32_t n = 0;
  const uint32_t mesh_count = R->mesh_count, material_count = R->material_count;
  const ty_material *mats = R->materials;
  const mesh_rec *meshes = R->meshes;
  for (uint32_t s = 0, cap = R->item_cap; s < cap; s++) {
    if (!R->item_live[s]) continue;
    const ty_render_item *it = &R->items[s];
    ty_bucket_item *b = &out[n++];
    uint32_t mesh = it->mesh < mesh_count ? it->mesh : TY_RENDER_MESH_PLACEHOLDER;
    uint32_t mat = it->material < material_count ? it->material : TY_RENDER_MATERIAL_DEFAULT;
    const mesh_rec *mr = &meshes[mesh];
    b->mesh = mesh;
    b->material = mat;
    b->center[0] = mr->center[0], b->center[1] = mr->center[1], b->center[2] = mr->center[2];
    b->radius = mr->radius;
    b->instance_data = it->tint; /* tint then rect: 32 contiguous bytes */
    uint32_t xf = it->enabled ? ty_object_drawable(W, it->object, scene) : TY_TRANSFORM_NONE;
    if (xf == TY_TRANSFORM_NONE) {
      b->world = identity;
      b->flags = 0;
      continue;
    }
    b->world = ty_transform_render_world(T, xf); /* interpolated bodies drawn between steps */
    const ty_material *m = &mats[mat];
    uint32_t flags = TY_BUCKET_ENABLED | TY_BUCKET_STATE(m->unlit ? 1 : 0);
    if (m->transparent) flags |= TY_BUCKET_TRANSPARENT;
    else if (it->cast_shadows) flags |= TY_BUCKET_CASTS_SHADOW;
    b->flags = flags;
  }
  ty_bucket_frame bf = {.items = out, .item_count = n, .meshes = R->bmeshes, .mesh_count = R->mesh_count};
  /* Casters outside the sun's volume over the shadow range throw no shadow anyone sees:
   * the range is last frame's (the Shadow feature runs after bucketing). */
  float sun_vp[16];
  const ty_frame *F = &R->frame;
  if (F->has_sun && R->shadow_range > 0) {
    const ty_frame_block *B = &R->block;
    float nearp = B->clip[2] > 0.5f ? fmaxf(B->clip[0], 0.0f) : (B->clip[0] > 0 ? B->clip[0] : 0.1f);
    float farp = fminf(B->clip[1] > nearp ? B->clip[1] : 1000.0f, R->shadow_range);
    ty_render_fit_sun(F, B, nearp, farp, F->sun_direction, 2048, sun_vp);
    bf.shadow_view_proj = sun_vp;
  }
  memcpy(bf.view_proj, R->frame.view_proj, sizeof bf.view_proj);
  memcpy(bf.camera_position, R->frame.camera_position, sizeof bf.camera_position);
  memcpy(bf.camera_forward, R->frame.camera_forward, sizeof bf.camera_forward);
  ty_bucket_build(R->bucket, &bf);
}

void ty_render_note_shadow_range(ty_renderer *R, float distance) {
  R->shadow_range = distance;
  R->shadow_noted = true;
}

ty_frame *ty_render_begin_frame(ty_renderer *R, const ty_frame_desc *desc) {
  TY_ASSERT(desc);
  double t0 = ty_now();
  ty_frame *F = &R->frame;
  uint64_t index = F->index + 1;
  memset(F, 0, sizeof *F);
  F->index = index;
  F->graph = R->graph;
  F->width = desc->width ? desc->width : 1;
  F->height = desc->height ? desc->height : 1;
  F->time = desc->time;
  F->delta = desc->delta;
  R->frame_open = true;
  R->frame_start = t0;
  R->written_count = 0;
  arena_reset(R);
  R->stats = (ty_render_stats){0};
  memset(&R->block, 0, sizeof R->block);

  ty_transforms_sync(ty_world_transforms(R->world));
  setup_camera(R, F, desc);
  gather_lights(R, F, desc->scene);
  gather_items(R, desc->scene);
  if (R->dev) {
    gpu_write_instances(R);
  } else {
    size_t size = ty_bucket_instance_size(R->bucket);
    if (size > R->inst_cpu_cap) {
      TY_FREE(R->inst_cpu);
      R->inst_cpu = TY_MALLOC(size);
      TY_ASSERT(R->inst_cpu);
      R->inst_cpu_cap = size;
    }
    if (size) ty_bucket_write_instances(R->bucket, R->inst_cpu);
  }
  F->buckets = ty_bucket_count(R->bucket);
  R->stats.bucket_ms = (ty_now() - t0) * 1000.0;

  rg_begin(R->graph, F->width, F->height);
  rg_texture_info bb = {.width = F->width, .height = F->height, .format = RG_FORMAT_RGBA8, .layers = 1, .samples = 1};
  F->backbuffer = rg_import(R->graph, "backbuffer", &(rg_import_desc){.texture = 0, .info = bb});
  F->hdr = rg_transient(R->graph, "hdr", &(rg_texture_desc){.format = RG_FORMAT_RGBA16F});
  F->depth = rg_transient(R->graph, "depth", &(rg_texture_desc){.format = RG_FORMAT_DEPTH32F});
  return F;
}

const char *ty_feature_name(ty_feature_kind kind) {
  static const char *names[TY_FEATURE_COUNT] = {
      "Shadow", "Sky", "ForwardLit", "Geometry", "AO", "DeferredLighting", "PointSpotLight",
      "ForwardOverlay", "ForwardPlus", "TAA", "Bloom", "DoF", "Tonemap", "Overlay"};
  return (unsigned)kind < TY_FEATURE_COUNT ? names[kind] : "?";
}

bool ty_render_add_feature(ty_renderer *R, ty_frame *F, ty_feature_kind kind, const ty_feature_opts *opts) {
  static const ty_feature_opts zero;
  if (!opts) opts = &zero;
  switch (kind) {
  case TY_FEATURE_SHADOW: return ty_feature_shadow(R, F, opts);
  case TY_FEATURE_SKY: return ty_feature_sky(R, F, opts);
  case TY_FEATURE_FORWARD_LIT: return ty_feature_forward_lit(R, F, opts);
  case TY_FEATURE_GEOMETRY: return ty_feature_geometry(R, F, opts);
  case TY_FEATURE_AO: return ty_feature_ao(R, F, opts);
  case TY_FEATURE_DEFERRED_LIGHTING: return ty_feature_deferred_lighting(R, F, opts);
  case TY_FEATURE_POINT_SPOT_LIGHT: return ty_feature_point_spot_light(R, F, opts);
  case TY_FEATURE_FORWARD_OVERLAY: return ty_feature_forward_overlay(R, F, opts);
  case TY_FEATURE_FORWARD_PLUS: return ty_feature_forward_plus(R, F, opts);
  case TY_FEATURE_TAA: return ty_feature_taa(R, F, opts);
  case TY_FEATURE_BLOOM: return ty_feature_bloom(R, F, opts);
  case TY_FEATURE_DOF: return ty_feature_dof(R, F, opts);
  case TY_FEATURE_TONEMAP: return ty_feature_tonemap(R, F, opts);
  case TY_FEATURE_OVERLAY: return ty_feature_overlay(R, F, opts);
  default: ty_render_fail(R, NULL, "unknown feature kind %d", (int)kind); return false;
  }
}

/* ---- user fullscreen passes ---------------------------------------------------------- */

typedef struct fullscreen_pass {
  ty_program *prog;
  uint32_t read_count;
  rg_resource reads[TY_RENDER_MAX_PASS_READS];
  int locations[TY_RENDER_MAX_PASS_READS];
  rg_resource write;
  float params[16];
  int params_location;
} fullscreen_pass;

static void fullscreen_execute(ty_renderer *R, ty_frame *F, const rg_pass_context *ctx, void *data) {
#if TYCHO_WITH_GL
  fullscreen_pass *p = data;
  if (!p->prog || !p->prog->gl.id) return;
  uint32_t target = rg_context_texture(ctx, p->write);
  ty_render_target(R, &(ty_render_target_desc){.colors = {target}, .color_count = 1});
  ty_render_set_state(R, &(ty_gl_pipeline_desc){.depth = TY_GL_DEPTH_OFF, .cull = TY_GL_CULL_NONE});
  ty_gl_use_program(R->dev, p->prog->gl);
  ty_render_bind_frame(R, F);
  for (uint32_t i = 0; i < p->read_count; i++) {
    ty_gl_bind_texture(R->dev, i, (ty_gl_texture){rg_context_texture(ctx, p->reads[i])},
                       ty_render_sampler_get(R, TY_SAMPLER_LINEAR_CLAMP));
  }
  for (uint32_t i = 0; i < p->read_count; i++)
    ty_gl_set_uniform(R->dev, p->prog->gl, p->locations[i], TY_GL_UNIFORM_INT, 1, &(int){(int)i});
  ty_gl_set_uniform(R->dev, p->prog->gl, p->params_location, TY_GL_UNIFORM_VEC4, 4, p->params);
  ty_render_fullscreen(R);
#else
  (void)R, (void)F, (void)ctx, (void)data;
#endif
}

bool ty_render_add_fullscreen(ty_renderer *R, ty_frame *F, const ty_fullscreen_desc *desc) {
  TY_ASSERT(desc);
  const char *name = desc->name ? desc->name : "Fullscreen";
  if (!desc->shader_path && !desc->shader_source) {
    ty_render_fail(R, NULL, "pass '%s': no shader_path or shader_source", name);
    return false;
  }
  if (!desc->write.id || desc->read_count > TY_RENDER_MAX_PASS_READS) {
    ty_render_fail(R, NULL, "pass '%s': no write target, or more than %d reads", name, TY_RENDER_MAX_PASS_READS);
    return false;
  }
  const char *fs = desc->shader_path ? desc->shader_path : name;
  ty_program *prog = program_get(R, "common/fullscreen.vert", fs, NULL, desc->shader_source, NULL);
  if (!prog) return false; /* ty_render_error holds file:line */
  fullscreen_pass p = {.prog = prog, .read_count = desc->read_count, .params_location = -1};
  memcpy(p.reads, desc->reads, sizeof p.reads);
  memcpy(p.params, desc->params, sizeof p.params);
  bool rmw = false;
  for (uint32_t i = 0; i < desc->read_count; i++) {
    p.locations[i] = -1;
    if (desc->reads[i].id == desc->write.id) rmw = true;
  }
#if TYCHO_WITH_GL
  if (R->dev && prog->gl.id) {
    for (uint32_t i = 0; i < desc->read_count; i++)
      if (desc->read_names[i]) p.locations[i] = ty_gl_uniform_location(R->dev, prog->gl, desc->read_names[i]);
    p.params_location = ty_gl_uniform_location(R->dev, prog->gl, "params");
    if (p.params_location < 0) p.params_location = ty_gl_uniform_location(R->dev, prog->gl, "params[0]");
  }
#endif
  rg_resource write = desc->write;
  if (rmw) {
    /* Sampling and rendering one texture at once is undefined: render a fresh version. */
    const rg_texture_info *info = rg_resource_info(F->graph, desc->write);
    if (!info) {
      ty_render_fail(R, NULL, "pass '%s': its write target is not a resource of this frame", name);
      return false;
    }
    rg_texture_desc td = {.width = info->width, .height = info->height, .format = info->format,
                          .layers = info->layers, .samples = info->samples};
    write = rg_transient(F->graph, name, &td);
    rg_resource *fields[] = {&F->hdr, &F->backbuffer, &F->bloom, &F->ao};
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
      if (fields[i]->id == desc->write.id) *fields[i] = write;
  }
  p.write = write;
  ty_render_mark_write(R, write);
  ty_render_add_pass(R, F,
                     &(rg_pass_desc){.name = name, .kind = RG_PASS_RASTER, .reads = desc->reads,
                                     .read_count = desc->read_count, .writes = &write, .write_count = 1},
                     fullscreen_execute, &p, sizeof p);
  return true;
}

bool ty_render_end_frame(ty_renderer *R, ty_frame *F) {
  (void)F;
  if (!R->shadow_noted) R->shadow_range = 0; /* no Shadow feature this frame: cull no casters */
  R->shadow_noted = false;
  rg_status st = rg_compile(R->graph);
  rg_stats gs = rg_get_stats(R->graph);
  R->stats.passes = gs.passes - gs.culled;
  R->stats.culled_passes = gs.culled;
  size_t need = rg_dump(R->graph, NULL, 0) + 1;
  if (need > R->dump_cap) { /* grown, never shrunk: a steady frame allocates nothing */
    TY_FREE(R->dump);
    R->dump = TY_MALLOC(need);
    TY_ASSERT(R->dump);
    R->dump_cap = need;
  }
  rg_dump(R->graph, R->dump, need);
  bool ok = st == RG_OK;
  if (!ok) {
    ty_render_fail(R, NULL, "%s", rg_error(R->graph));
  } else if (R->dev) {
#if TYCHO_WITH_GL
    upload_meshes(R);
    upload_frame_data(R);
    R->pass_time_count = 0;
    ty_gl_reset_state(R->dev); /* GL state may have changed since the last frame */
    rg_execute(R->graph);
    /* Leave the context as the window expects it: default framebuffer, plain state. */
    ty_gl_bind_framebuffer(R->dev, (ty_gl_framebuffer){0});
    ty_gl_set_viewport(R->dev, 0, 0, (int)R->frame.width, (int)R->frame.height);
    ty_gl_apply_pipeline(R->dev, NULL);
    if (R->inst_ring.id) ty_gl_ring_next_frame(R->dev, R->inst_ring);
    if (R->cmd_ring.id) ty_gl_ring_next_frame(R->dev, R->cmd_ring);
    evict_targets(R);
#endif
  }
  R->frame_open = false;
  R->stats.cpu_ms = (ty_now() - R->frame_start) * 1000.0;
  return ok;
}

/* ---- stats and modes ---------------------------------------------------------------- */

ty_render_stats ty_render_get_stats(const ty_renderer *R) { return R->stats; }
void ty_render_set_draw_mode(ty_renderer *R, ty_draw_mode mode) { R->draw_mode = mode; }
void ty_render_set_overlay(ty_renderer *R, bool on) { R->overlay = on; }
bool ty_render_overlay(const ty_renderer *R) { return R->overlay; }

void ty_render_note_frame_time(ty_renderer *R, double seconds) {
  R->frame_times[R->frame_time_head] = (float)seconds;
  R->frame_time_head = (R->frame_time_head + 1) % FRAME_TIME_HISTORY;
  if (R->frame_time_count < FRAME_TIME_HISTORY) R->frame_time_count++;
}

size_t ty_render_dump_graph(const ty_renderer *R, char *buf, size_t size) {
  const char *d = R->dump ? R->dump : "";
  size_t n = strlen(d);
  if (size) {
    size_t k = n < size - 1 ? n : size - 1;
    memcpy(buf, d, k);
    buf[k] = 0;
  }
  return n;
}
