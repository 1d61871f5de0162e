/* engine/render/graph.h: the per-frame render graph.
 *
 * Every frame, features declare textures and passes on a fresh graph; rg_compile then
 * validates the declarations, culls passes whose outputs nobody reads, orders the rest,
 * and maps transient textures onto as few physical textures as their lifetimes allow;
 * rg_execute calls the surviving passes in that order. The graph itself never touches
 * GL: physical textures come from an rg_backend (the GL layer in the engine, a counting
 * mock in tests), pooled across frames so a steady frame creates nothing.
 *
 * Semantics, in the order passes are declared:
 *  - A write of a resource makes a new version of it; a read sees the version current
 *    when its pass is declared, so a pass depends on the last pass that wrote what it
 *    reads. Read-modify-write is the resource listed in both reads and writes: the pass
 *    reads the previous version and produces the next.
 *  - Imported resources (the backbuffer, history textures) exist before the first pass;
 *    a read-only import may never be written. Transients have no content until written.
 *  - Roots that are never culled: side-effect passes and passes that write an imported
 *    resource (their result leaves the graph). Everything else survives only if a
 *    surviving pass reads something it wrote, transitively.
 *
 * Handles are valid for the frame that made them (rg_begin starts a new frame); a stale
 * handle is reported by rg_compile, not a crash, since Lua may hold one.
 */
#ifndef TY_RENDER_GRAPH_H
#define TY_RENDER_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Returned by rg_pass_order, rg_resource_slot and friends for "none". */
#define RG_NONE UINT32_MAX

typedef enum rg_format {
  RG_FORMAT_DEFAULT = 0, /* RGBA8 */
  RG_FORMAT_RGBA8,
  RG_FORMAT_SRGB8_A8,
  RG_FORMAT_RGBA16F,
  RG_FORMAT_RGBA32F,
  RG_FORMAT_R11G11B10F,
  RG_FORMAT_RGB10_A2,
  RG_FORMAT_R8,
  RG_FORMAT_RG8,
  RG_FORMAT_R16F,
  RG_FORMAT_RG16F,
  RG_FORMAT_R32F,
  RG_FORMAT_RG32F,
  RG_FORMAT_R32UI,
  RG_FORMAT_DEPTH16,
  RG_FORMAT_DEPTH24S8,
  RG_FORMAT_DEPTH32F,
  RG_FORMAT_COUNT
} rg_format;

typedef enum rg_pass_kind {
  RG_PASS_RASTER = 0,
  RG_PASS_COMPUTE,
} rg_pass_kind;

typedef enum rg_status {
  RG_OK = 0,
  RG_ERROR_UNWRITTEN_READ,  /* a pass reads a transient before any pass wrote it */
  RG_ERROR_READ_ONLY_WRITE, /* a pass writes a read-only import */
  RG_ERROR_BAD_HANDLE,      /* a handle from another frame, or never made */
  RG_ERROR_CYCLE,           /* the dependencies loop (cannot happen by construction) */
  RG_ERROR_BACKEND,         /* the backend could not create a physical texture */
  RG_ERROR_NOT_COMPILED,    /* rg_execute after a failed or missing rg_compile */
} rg_status;

typedef struct rg_resource { uint32_t id; } rg_resource; /* id 0: none */
typedef struct rg_pass { uint32_t id; } rg_pass;         /* id 0: none */

/* A transient texture, sized in pixels or as a fraction of the frame. Zeroed fields
 * mean defaults: frame-sized (scale 1), RGBA8, one layer, one sample. */
typedef struct rg_texture_desc {
  uint32_t width, height; /* pixels; 0: scale * the frame size on that axis */
  float scale;            /* fraction of the frame size for a 0 width or height */
  rg_format format;
  uint32_t layers;
  uint32_t samples;
} rg_texture_desc;

/* A texture as the backend makes it: every field resolved, no defaults left. Two
 * transients alias, and a pooled texture is reused, only when these are all equal. */
typedef struct rg_texture_info {
  uint32_t width, height;
  rg_format format;
  uint32_t layers, samples;
} rg_texture_info;

typedef struct rg_import_desc {
  uint32_t texture;     /* the backend's handle; 0 is fine (e.g. the default framebuffer) */
  rg_texture_info info; /* what it is: shown to passes and in the dump */
  bool read_only;       /* e.g. last frame's history: passes may read it, never write it */
} rg_import_desc;

/* Physical textures come from here. `create_texture` returns the backend's handle, 0 on
 * failure; the graph owns what it creates and gives it back through `destroy_texture`.
 * Either function may be NULL (headless use: slots are still computed, handles are 0). */
typedef struct rg_backend {
  uint32_t (*create_texture)(void *user, const rg_texture_info *info);
  void (*destroy_texture)(void *user, uint32_t texture);
  void *user;
} rg_backend;


/* One resource as a running pass sees it. */
typedef struct rg_binding {
  rg_resource resource;
  uint32_t slot;    /* physical slot this frame; RG_NONE for imports */
  uint32_t texture; /* the backend's handle */
  rg_texture_info info;
} rg_binding;

typedef struct rg_pass_context {
  const char *name;
  rg_pass_kind kind;
  uint32_t frame_width, frame_height;
  const rg_binding *reads; /* in the order the pass declared them */
  uint32_t read_count;
  const rg_binding *writes;
  uint32_t write_count;
} rg_pass_context;

typedef struct rg_graph_desc {
  rg_backend backend;
  /* A pooled texture no frame claimed for this many frames in a row is destroyed
   * (0: 3), so a pass that runs every other frame does not recreate its targets. */
  uint32_t max_idle_frames;
  /* Optional: called around each pass rg_execute runs (profiling, the overlay's list of
   * the passes that ran); culled passes are never seen. */
  void (*pass_begin)(void *user, const rg_pass_context *ctx);
  void (*pass_end)(void *user, const rg_pass_context *ctx);
  void *pass_user;
} rg_graph_desc;

typedef void (*rg_execute_fn)(const rg_pass_context *ctx, void *user);

typedef struct rg_pass_desc {
  const char *name; /* copied */
  rg_pass_kind kind;
  const rg_resource *reads;
  uint32_t read_count;
  const rg_resource *writes;
  uint32_t write_count;
  bool side_effect; /* never cull (readbacks, queries, debug output) */
  rg_execute_fn execute;
  void *user;
} rg_pass_desc;

typedef struct rg_stats {
  uint32_t passes, culled;      /* declared this frame, and culled of those */
  uint32_t transients, imports; /* declared this frame */
  uint32_t physical;            /* physical textures the surviving transients use */
  uint32_t created, destroyed;  /* backend calls made by this frame's compile */
  uint32_t pooled;              /* physical textures the graph holds now */
} rg_stats;

typedef struct rg_graph rg_graph;

/* desc may be NULL (no backend). */
rg_graph *rg_create(const rg_graph_desc *desc);
/* Destroys every pooled texture through the backend. */
void rg_destroy(rg_graph *g);

/* Starts a new frame: forgets every pass and resource (handles go stale), keeps the pool. */
void rg_begin(rg_graph *g, uint32_t frame_width, uint32_t frame_height);

/* Declares resources. Names are copied; they identify resources in errors and dumps. */
rg_resource rg_import(rg_graph *g, const char *name, const rg_import_desc *desc);
rg_resource rg_transient(rg_graph *g, const char *name, const rg_texture_desc *desc);
/* rg_import, rg_transient and rg_add_pass return id 0 past 65535 declarations in a frame;
 * that frame's rg_compile then fails with a message saying so. */
/* The resource declared this frame under name (the last one, if several), or id 0. */
rg_resource rg_find(const rg_graph *g, const char *name);
/* The resolved description of r, NULL for a bad handle. */
const rg_texture_info *rg_resource_info(const rg_graph *g, rg_resource r);

rg_pass rg_add_pass(rg_graph *g, const rg_pass_desc *desc);

/* Validates, culls, orders, aliases and claims physical textures. On failure nothing will
 * execute this frame and rg_error says why ("pass 'X' reads resource 'Y' which no pass
 * writes"); the message is also logged, once while it stays the same across frames. */
rg_status rg_compile(rg_graph *g);
const char *rg_error(const rg_graph *g); /* "" after success */

/* Runs the surviving passes in order. Returns RG_ERROR_NOT_COMPILED, running nothing,
 * when this frame's compile did not succeed. */
rg_status rg_execute(rg_graph *g);

/* After a successful compile. */
uint32_t rg_pass_order(const rg_graph *g, rg_pass p);      /* position, RG_NONE if culled */
bool rg_pass_culled(const rg_graph *g, rg_pass p);
uint32_t rg_resource_slot(const rg_graph *g, rg_resource r); /* RG_NONE: import or unused */
uint32_t rg_resource_texture(const rg_graph *g, rg_resource r);
/* First and last position that uses r; false if no surviving pass does. */
bool rg_resource_lifetime(const rg_graph *g, rg_resource r, uint32_t *first, uint32_t *last);
rg_stats rg_get_stats(const rg_graph *g);

/* The backend handle of r as this pass sees it, 0 if the pass did not declare r. */
uint32_t rg_context_texture(const rg_pass_context *ctx, rg_resource r);

/* A human-readable pass list for the debug overlay: every declared pass with its kind,
 * position or "culled", reads and writes as name@version, then every resource with its
 * lifetime and physical slot. snprintf-style: writes at most size bytes (always
 * terminated when size > 0) and returns the length the whole text needs. */
size_t rg_dump(const rg_graph *g, char *buf, size_t size);

const char *rg_format_name(rg_format f);

#endif
