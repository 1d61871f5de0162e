/* engine/render/renderer.h: the renderer: the scene's draw items and lights, the meshes,
 * materials and textures they use, and one frame's render graph with the built-in
 * features' passes.
 *
 * Two tiers in one object. Everything a game builds (meshes, materials, textures, items,
 * lights, a frame's graph and buckets) works with no GL device: headless code that only
 * builds scenes never crashes and still sees bucket counts and the pass list. With a
 * device (ty_render_attach), resources upload lazily on first use and passes execute.
 *
 * A frame:
 *   F = ty_render_begin_frame(R, &desc);  syncs transforms, gathers every enabled item on
 *                                         an active object, buckets (bucket.h), writes
 *                                         instance data once, starts the graph
 *   ty_render_add_feature(R, F, kind, &opts) / ty_render_add_fullscreen(R, F, &desc) /
 *   rg_add_pass(F->graph, ...)            in the order the preset lists features
 *   ty_render_end_frame(R, F);            compiles and executes the graph, counts stats
 * then the window reads pixels (screenshot) and swaps.
 *
 * Resource conventions shared by the features (the names are the graph's): "hdr"
 * (RGBA16F scene colour) and "depth" (DEPTH32F) are made by begin_frame; the first pass
 * declared to write them clears them. Shadow writes "shadowMap"; Geometry writes
 * "gbuffer.albedo" (RGBA8: base colour, a: unused), "gbuffer.normal" (RGBA16F: view-space
 * normal, a: roughness), "gbuffer.material" (RG8: metallic, ao); AO writes "ao" (R8);
 * ForwardPlus writes "lightGrid"; Bloom writes "bloom"; Tonemap writes "backbuffer"
 * (imported: the window's framebuffer). ty_frame keeps the latest of each.
 *
 * GPU conventions (the chunks in shaders/common/): vertex attributes 0 position, 1 normal, 2 uv;
 * per-instance attributes (divisor 1, so a draw's baseInstance offsets them) 3..6 the
 * world matrix columns, 7 tint (rgba), 8 uv rect (x, y, w, h); uniform block binding 0
 * the Frame block; storage binding 1 materials, 2 lights.
 */
#ifndef TY_RENDER_RENDERER_H
#define TY_RENDER_RENDERER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bucket.h"    /* Required for: ty_bucket_counts, ty_bucket_kind */
#include "gl_device.h" /* Required for: ty_gl_device */
#include "graph.h"     /* Required for: rg_graph, rg_resource */
#include "mesh.h"      /* Required for: ty_mesh_data */
#include "../core/scene.h" /* Required for: ty_world, ty_id */

typedef struct ty_renderer ty_renderer;

/* Fixed ids that always exist. */
#define TY_RENDER_MESH_PLACEHOLDER 0u     /* a cube: what a missing mesh draws as */
#define TY_RENDER_TEXTURE_WHITE 0u        /* 1x1 white: "no texture" */
#define TY_RENDER_TEXTURE_PLACEHOLDER 1u  /* magenta/black checker: a missing texture */
#define TY_RENDER_MATERIAL_DEFAULT 0u     /* white, roughness 0.5, not metallic */

#define TY_RENDER_MAX_CASCADES 4
#define TY_RENDER_MAX_LIGHTS 256 /* point and spot lights per frame; more are dropped, logged */

typedef struct ty_render_desc {
  ty_world *world;        /* whose objects the items and lights hang on; required */
  const char *shader_dir; /* where shaders/ lives; NULL: "shaders" under the executable's home */
} ty_render_desc;

ty_renderer *ty_render_create(const ty_render_desc *desc);
/* Destroys every GPU resource (the device must still be alive), then the renderer. */
void ty_render_destroy(ty_renderer *R);

/* Gives the renderer a device (NULL detaches, freeing its GPU resources first). Existing
 * meshes, textures and materials upload on their next use. */
void ty_render_attach(ty_renderer *R, ty_gl_device *dev);
ty_gl_device *ty_render_device(const ty_renderer *R);

/* The last error message of a call that failed ("" when none): a shader that did not
 * compile (file:line), a graph that did not compile, a file that did not load. */
const char *ty_render_error(const ty_renderer *R);

/* ---- meshes (never freed: a game has few; ids are dense from 0) ---------------------- */

/* Copies m; computes its bounding sphere. Returns the mesh id. */
uint32_t ty_render_add_mesh(ty_renderer *R, const ty_mesh_data *m, const char *name);
/* Loads an OBJ, glTF (.gltf) or binary glTF (.glb) file. On failure returns
 * TY_RENDER_MESH_PLACEHOLDER, logs mesh_load_failed and sets ty_render_error. */
uint32_t ty_render_load_mesh(ty_renderer *R, const char *path, bool *ok);
uint32_t ty_render_mesh_count(const ty_renderer *R);
/* Replaces mesh's vertices and indices with a copy of m, keeping its id (a re-meshed
 * voxel chunk, edited terrain): in place when m fits the room it had, else it moves to
 * fresh room at the end of the shared buffers. Only the changed range is uploaded.
 * False for an unknown id or the placeholder. */
bool ty_render_update_mesh(ty_renderer *R, uint32_t mesh, const ty_mesh_data *m);
/* Vertex and index counts of a mesh; false for an unknown id. */
bool ty_render_mesh_info(const ty_renderer *R, uint32_t mesh, uint32_t *vertices, uint32_t *indices);
/* The renderer's CPU copy of a mesh (kept for re-upload after a device change): its
 * vertices, and its indices counting from its first vertex. Borrowed: valid until the next
 * mesh is added or updated. False for an unknown id. */
bool ty_render_mesh_data(const ty_renderer *R, uint32_t mesh, const ty_vertex **vertices, uint32_t *vertex_count,
                         const uint32_t **indices, uint32_t *index_count);
/* Vertices and indices the shared arrays hold, every mesh's room included: bounded however
 * often meshes are rewritten (the room a moved mesh leaves is packed away). */
void ty_render_mesh_storage(const ty_renderer *R, uint32_t *vertices, uint32_t *indices);

/* ---- textures (ids dense from 0; 0 and 1 are the built-ins above) -------------------- */

/* Copies width * height RGBA8 pixels, top row first. */
uint32_t ty_render_add_texture(ty_renderer *R, uint32_t width, uint32_t height, const uint8_t *rgba,
                               const char *name);
/* PNG or JPEG (stb_image). On failure returns TY_RENDER_TEXTURE_PLACEHOLDER, logs
 * texture_load_failed and sets ty_render_error; *ok (may be NULL) says which. Loading
 * the same path again returns the same id. */
uint32_t ty_render_load_texture(ty_renderer *R, const char *path, bool *ok);
bool ty_render_texture_size(const ty_renderer *R, uint32_t texture, uint32_t *width, uint32_t *height);

/* ---- materials ------------------------------------------------------------------------ */

typedef struct ty_material {
  float base_color[4]; /* linear rgba */
  float emissive[3];
  float metallic, roughness;
  uint32_t texture;    /* base colour map, multiplied in; TY_RENDER_TEXTURE_WHITE: none */
  bool transparent;    /* drawn back-to-front, blended, casts no shadow */
  bool unlit;          /* colour as given (sprites, UI) */
  bool nearest;        /* nearest-neighbour filtering (pixel art) */
  bool clamp;          /* clamp to the edge instead of repeating, and keep every sample inside
                          the item's uv rect (half a texel in), so a sprite never shows its
                          opposite edge or a neighbouring atlas cell */
} ty_material;

/* A material with the defaults: white, metallic 0, roughness 0.5, opaque, lit, repeating. */
ty_material ty_material_default(void);
uint32_t ty_render_add_material(ty_renderer *R, const ty_material *m);
/* False for an unknown id. */
bool ty_render_set_material(ty_renderer *R, uint32_t material, const ty_material *m);
const ty_material *ty_render_material(const ty_renderer *R, uint32_t material); /* NULL: unknown */

/* ---- items: what MeshRenderer and Sprite components are ------------------------------ */

typedef struct ty_render_item {
  ty_id object;       /* its transform gives the world matrix; drawn only while active */
  uint32_t mesh, material;
  bool enabled;
  bool cast_shadows;  /* default true */
  float tint[4];      /* per-instance colour, multiplied in; default 1,1,1,1 */
  float rect[4];      /* per-instance uv rect x, y, w, h; default 0,0,1,1 */
} ty_render_item;

/* A handle for an item on object, enabled, drawing the placeholder mesh with the default
 * material until set. Handles are generation-checked (never 0): once destroyed, a handle
 * finds nothing, even after its slot holds a new item. 0, with ty_render_error set, only
 * when 4194303 items are alive. */
uint32_t ty_render_item_create(ty_renderer *R, ty_id object);
void ty_render_item_destroy(ty_renderer *R, uint32_t item); /* a stale handle: nothing happens */
/* The item behind a live handle, written in place (NULL for 0 or a stale handle). */
ty_render_item *ty_render_item_at(ty_renderer *R, uint32_t item);
uint32_t ty_render_item_count(const ty_renderer *R); /* live items */

/* ---- lights ----------------------------------------------------------------------------- */

typedef enum ty_light_type { TY_LIGHT_DIRECTIONAL = 0, TY_LIGHT_POINT, TY_LIGHT_SPOT } ty_light_type;

typedef struct ty_light {
  ty_id object;          /* position (point, spot) and, without has_direction, direction */
  ty_light_type type;
  bool enabled;
  bool cast_shadows;     /* the first enabled directional light that casts is the sun */
  float color[3];        /* linear */
  float intensity;
  float range;           /* point, spot: where the light reaches zero */
  float inner_angle, outer_angle; /* spot, degrees, full cone */
  bool has_direction;    /* direction below, in world space; else the object's -Z */
  float direction[3];    /* the way the light travels */
} ty_light;

/* Lights have generation-checked handles as items do. */
uint32_t ty_render_light_create(ty_renderer *R, ty_id object, ty_light_type type);
void ty_render_light_destroy(ty_renderer *R, uint32_t light);
ty_light *ty_render_light_at(ty_renderer *R, uint32_t light); /* NULL for 0 or a stale handle */

/* ---- a frame ------------------------------------------------------------------------- */

typedef struct ty_camera_desc {
  ty_id object;       /* the view is the inverse of its world matrix; 0: identity at the origin */
  bool orthographic;
  float fov_deg;      /* perspective: vertical field of view */
  float size;         /* orthographic: half the view's height in world units */
  float near_plane, far_plane;
} ty_camera_desc;

typedef struct ty_frame_desc {
  uint32_t width, height; /* the backbuffer's pixels */
  ty_camera_desc camera;
  double time;            /* seconds, for shaders */
  float delta;
  bool jitter;            /* sub-pixel projection jitter (TAA sets it for the next frame) */
  const ty_scene *scene;  /* draw and light only objects in this scene; NULL: every object */
} ty_frame_desc;

/* The Frame features share; valid from begin_frame to end_frame. */
typedef struct ty_frame {
  rg_graph *graph;
  uint32_t width, height;
  uint64_t index; /* frames begun so far, this one included */
  /* The latest version of each shared resource; id 0 while no feature made it. */
  rg_resource backbuffer, hdr, depth, shadow_map, ao, light_grid, bloom;
  rg_resource gbuffer_albedo, gbuffer_normal, gbuffer_material;
  float bloom_intensity; /* how strongly Tonemap adds "bloom": Bloom's intensity option */
  float view[16], proj[16], view_proj[16], inv_view_proj[16], prev_view_proj[16];
  float camera_position[3], camera_forward[3];
  float jitter[2]; /* in pixels, applied to proj */
  bool has_sun;    /* a directional light lit this frame */
  float sun_direction[3], sun_color[3], sun_intensity;
  ty_bucket_counts buckets;
  uint32_t light_count; /* point and spot lights this frame */
  double time;
  float delta;
} ty_frame;

/* Returns the renderer's frame object (one, reused); never fails. */
ty_frame *ty_render_begin_frame(ty_renderer *R, const ty_frame_desc *desc);
/* The frame between begin_frame and end_frame, NULL outside one: what a feature living
 * outside the renderer (the UI layer, features_ui.c) adds its passes to. */
ty_frame *ty_render_frame_current(ty_renderer *R);

/* The built-in features: each declares its passes on F's graph when added. */
typedef enum ty_feature_kind {
  TY_FEATURE_SHADOW = 0,
  TY_FEATURE_SKY,
  TY_FEATURE_FORWARD_LIT,
  TY_FEATURE_GEOMETRY,
  TY_FEATURE_AO,
  TY_FEATURE_DEFERRED_LIGHTING,
  TY_FEATURE_POINT_SPOT_LIGHT,
  TY_FEATURE_FORWARD_OVERLAY,
  TY_FEATURE_FORWARD_PLUS,
  TY_FEATURE_TAA,
  TY_FEATURE_BLOOM,
  TY_FEATURE_DOF,
  TY_FEATURE_TONEMAP,
  TY_FEATURE_OVERLAY, /* the debug overlay: text over the backbuffer */
  TY_FEATURE_COUNT
} ty_feature_kind;

typedef enum ty_sky_kind { TY_SKY_NONE = 0, TY_SKY_COLOR, TY_SKY_TEXTURE, TY_SKY_ATMOSPHERE } ty_sky_kind;

/* How Tonemap brings the linear scene colour to the display, before its sRGB encoding.
 * AUTO: NONE under an orthographic camera (2D: colours reach the screen as given), else
 * ACES (REINHARD when tonemap.aces is off). NONE only clamps to 0..1. */
typedef enum ty_tonemap_mode { TY_TONEMAP_AUTO = 0, TY_TONEMAP_ACES, TY_TONEMAP_REINHARD, TY_TONEMAP_NONE } ty_tonemap_mode;

/* The screen corner the debug overlay sits in: away from where HUDs usually are. */
typedef enum ty_overlay_corner {
  TY_OVERLAY_BOTTOM_RIGHT = 0,
  TY_OVERLAY_BOTTOM_LEFT,
  TY_OVERLAY_TOP_RIGHT,
  TY_OVERLAY_TOP_LEFT,
} ty_overlay_corner;

/* Every feature's options; each reads its own block. Zeroed fields mean defaults. */
typedef struct ty_feature_opts {
  struct { uint32_t cascades; uint32_t size; float distance; float bias; } shadow; /* [4, 2048, 50, 0.002] */
  /* color is used only with has_color (zero is a colour, black): else [0.5, 0.7, 1] */
  struct { ty_sky_kind kind; bool has_color; float color[3]; uint32_t texture; float intensity; } sky;
  /* ambient is used only with has_ambient: else [0.03] each */
  struct { bool ibl; bool has_ambient; float ambient[3]; bool forward_plus; } lit;
  struct { float radius; float intensity; uint32_t samples; bool full_resolution; } ao; /* [0.5, 1, 12, half] */
  struct { float blend; } taa;                                  /* history weight [0.9] */
  struct { float threshold; float intensity; } bloom;           /* [1, 0.05] */
  struct { float focus; float range; float max_radius; } dof;   /* [10, 5, 8 px] */
  struct { float exposure; bool aces; ty_tonemap_mode mode; } tonemap; /* [1, true, auto] */
  struct { const char *text; ty_overlay_corner corner; } overlay; /* extra lines (may be NULL), where */
} ty_feature_opts;

const char *ty_feature_name(ty_feature_kind kind); /* "Shadow", "ForwardLit", ..., "DebugOverlay"; "?" */
/* The kind named name (ty_feature_name's spelling); false for no built-in feature. */
bool ty_feature_find(const char *name, ty_feature_kind *kind);
/* Declares kind's passes on F->graph and updates F's resources. False (nothing declared,
 * ty_render_error says why) when a resource it needs is missing or its program never
 * compiled; a feature whose reloaded shader fails keeps its last good program. */
bool ty_render_add_feature(ty_renderer *R, ty_frame *F, ty_feature_kind kind, const ty_feature_opts *opts);

/* A fullscreen pass with a user fragment shader (the vertex stage is the engine's
 * fullscreen triangle). reads[i] is bound to texture unit i and to the sampler uniform
 * read_names[i]; the pass writes one colour target, `write` (read-modify-write when it
 * also appears in reads: the pass then renders into a fresh version). vec4 uniform
 * `params[4]` holds params. */
#define TY_RENDER_MAX_PASS_READS 8
typedef struct ty_fullscreen_desc {
  const char *name;
  const char *shader_path;   /* a file under the game or shader folder ... */
  const char *shader_source; /* ... or the source itself (path then names it in messages) */
  rg_resource reads[TY_RENDER_MAX_PASS_READS];
  const char *read_names[TY_RENDER_MAX_PASS_READS];
  uint32_t read_count;
  rg_resource write;
  float params[16];
} ty_fullscreen_desc;
bool ty_render_add_fullscreen(ty_renderer *R, ty_frame *F, const ty_fullscreen_desc *desc);

/* Compiles and executes the graph (executes only with a device). False when the graph
 * did not compile: nothing drew, ty_render_error names the pass and resource. */
bool ty_render_end_frame(ty_renderer *R, ty_frame *F);

/* Re-reads every program built from path (hot reload); a failed compile keeps the last
 * good program and returns false with the message. */
bool ty_render_reload_shader(ty_renderer *R, const char *path);
/* Re-reads every texture and mesh loaded from path (hot reload), in place behind the same
 * ids, so everything drawing them updates. Returns how many it reloaded (0: nothing was
 * loaded from path), or -1 when the file no longer loads: the old data stays, the message
 * is in ty_render_error. A load that failed at first (the placeholder) is not tracked. */
int ty_render_reload_file(ty_renderer *R, const char *path);

/* ---- stats and modes --------------------------------------------------------------- */

typedef struct ty_render_stats {
  uint32_t draw_calls;   /* GL draw calls issued (a multi-draw counts once) */
  uint32_t draws;        /* indirect commands and plain draws: instanced batches */
  uint32_t instances;    /* instances drawn, all passes */
  uint64_t triangles;    /* all passes */
  uint32_t passes, culled_passes;
  /* Fixed-function state this frame: descriptors the passes applied, and the GL calls
   * that took (the device skips what GL already holds). */
  uint32_t pipeline_applies, state_calls;
  double cpu_ms;         /* begin_frame to end_frame, CPU */
  double bucket_ms;      /* gather, bucket and instance upload, CPU */
  /* Shadow casters this frame, each once, and in each cascade (cascades: how many the
   * list was split into; 0 when the casters were not culled per cascade). */
  uint32_t shadow_casters, cascades, cascade_casters[TY_RENDER_MAX_CASCADES];
} ty_render_stats;
ty_render_stats ty_render_get_stats(const ty_renderer *R);

typedef enum ty_draw_mode {
  TY_DRAW_MULTI_INDIRECT = 0, /* one glMultiDrawElementsIndirect per material run */
  TY_DRAW_INSTANCED,          /* one instanced draw per batch */
  TY_DRAW_PER_OBJECT,         /* one glDrawElements per object: the baseline benchmarks compare to */
} ty_draw_mode;
void ty_render_set_draw_mode(ty_renderer *R, ty_draw_mode mode);

/* The debug overlay's inputs: shown while on. */
void ty_render_set_overlay(ty_renderer *R, bool on);
bool ty_render_overlay(const ty_renderer *R);
/* The overlay's text for F (FPS, counts, the passes run so far with their times) into buf
 * (snprintf rules); returns its length. The shadow figure shows only when a Shadow pass ran. */
size_t ty_render_overlay_text(ty_renderer *R, const ty_frame *F, char *buf, size_t size);
/* The last frame's wall time, for the FPS line and the frame-time graph. */
void ty_render_note_frame_time(ty_renderer *R, double seconds);

/* The passes the last executed frame ran (culled ones never run), in order, for the
 * overlay and tycho.stats.passTimes(); while a frame executes, those run so far. With timing
 * on (or the overlay shown), ms is the CPU time spent recording and submitting each, and
 * gpu_ms the GPU's time for it from timer queries, read a few frames later without waiting
 * (the newest frame the GPU has finished); -1 untimed, and gpu_ms -1 until a frame is read
 * or on a driver without timer queries. Nothing waits for the GPU. */
#define TY_RENDER_MAX_PASS_TIMES 64
typedef struct ty_render_pass_time {
  char name[40];
  float ms;
  float gpu_ms;
} ty_render_pass_time;
void ty_render_set_pass_timing(ty_renderer *R, bool on);
bool ty_render_pass_timing(const ty_renderer *R);
const ty_render_pass_time *ty_render_pass_times(const ty_renderer *R, uint32_t *count);

/* The pass list of the last compiled graph (rg_dump), for the overlay and Lua. */
size_t ty_render_dump_graph(const ty_renderer *R, char *buf, size_t size);

#endif
