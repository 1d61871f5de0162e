/* engine/render/render_internal.h: the services the renderer offers its
 * features (features_*.c include it; the renderer never includes them back:
 * feature_table.c is how it knows them). Nothing outside engine/render/ includes it.
 *
 * What a feature file gets from here:
 *  - the renderer's state it needs (the device, the frame block, samplers, options);
 *  - a program cache: programs built from files under the shader folder, with #include
 *    resolved there, that keep their last good build when a reload fails;
 *  - C passes whose user data lives in per-frame memory (reset by begin_frame);
 *  - pass-local framebuffers cached by their attachments' texture handles;
 *  - drawing a bucket list with the shared vertex array, instance buffer and materials;
 *  - pipeline state as the device's descriptor (ty_render_set_state). A feature calls
 *    the device (gl_device.h) for the rest, never GL.
 *
 * GPU conventions (shaders/common/frame.glsl mirrors them):
 *  - uniform block binding 0: the Frame block (ty_frame_block below, std140);
 *  - storage binding 1: materials (ty_gpu_material), 2: lights (ty_gpu_light), std430;
 *  - uniform location 0 in programs given to ty_render_draw_list: uint material index;
 *    location 1: int cascade (shadow passes);
 *  - texture units: 0 the material's base colour, 1..3 free for a pass's inputs,
 *    4 the shadow map (sampler2DArrayShadow), 5 the light grid (usampler2D),
 *    6 ambient occlusion, 7 the sky texture; 8.. free.
 *  - light grid ("lightGrid", R32UI): width tilesX * 33, height tilesY, tiles of 16 px;
 *    texel (tx * 33, ty) holds the tile's light count, texels (tx * 33 + 1 + i, ty) up to
 *    32 indices into the lights buffer.
 */
#ifndef TY_RENDER_INTERNAL_H
#define TY_RENDER_INTERNAL_H

#include "renderer.h"

#include "../common.h"

#define TY_UNIT_BASE_COLOR 0u
#define TY_UNIT_SHADOW 4u
#define TY_UNIT_LIGHT_GRID 5u
#define TY_UNIT_AO 6u
#define TY_UNIT_SKY 7u

#define TY_LOC_MATERIAL 0
#define TY_LOC_CASCADE 1

#define TY_LIGHT_GRID_TILE 16u
#define TY_LIGHT_GRID_MAX 32u
#define TY_LIGHT_GRID_STRIDE 33u

/* std140 Frame block (binding 0); shaders/common/frame.glsl declares the same. */
typedef struct ty_frame_block {
  float view[16], proj[16], view_proj[16], inv_view_proj[16], prev_view_proj[16];
  float inv_proj[16], inv_view[16];
  float shadow_view_proj[TY_RENDER_MAX_CASCADES][16];
  float cascade_splits[4];  /* view-space depth where each cascade ends */
  float camera_position[4]; /* w: time (seconds, wrapped to keep precision) */
  float camera_forward[4];  /* w: delta */
  float sun_direction[4];   /* the way sunlight travels; w: 1 when there is a sun */
  float sun_color[4];       /* colour * intensity; w: 1 when the shadow map is valid */
  float ambient[4];         /* rgb; w: 1 for hemispherical sky ambient (IBL) */
  float sky_color[4];       /* rgb: the sky's horizon colour for ambient; w: sky intensity */
  float viewport[4];        /* width, height, 1/width, 1/height */
  float jitter[4];          /* this frame's jitter in pixels, then last frame's */
  uint32_t counts[4];       /* lights, cascades, light grid tiles x, tiles y */
  float shadow_params[4];   /* bias, map size, cascade count, shadow distance */
  float clip[4];            /* near, far, orthographic (1/0), unused */
} ty_frame_block;

/* std430 material record (binding 1). */
typedef struct ty_gpu_material {
  float base_color[4];
  float emissive_metallic[4]; /* rgb emissive, w metallic */
  float params[4];            /* x roughness, y unlit, z transparent, w clamp (1: keep uv in the rect) */
} ty_gpu_material;

/* std430 light record (binding 2). */
typedef struct ty_gpu_light {
  float position_range[4];  /* world position, range */
  float color_type[4];      /* colour * intensity, type (1 point, 2 spot) */
  float direction_cos[4];   /* direction the light travels, cos(outer half angle) */
  float params[4];          /* x cos(inner half angle), unused */
} ty_gpu_light;

/* ---- programs ------------------------------------------------------------------------- */

/* A cached program. gl is the last good build (id 0 while none, and always headless). */
typedef struct ty_program {
  char *vs, *fs, *cs;  /* paths under the shader folder (fs may name a user file) */
  char *fs_source;     /* a user fullscreen shader given as source; NULL: read fs */
  char *defines;
  ty_gl_program gl;
  bool tried;          /* a build was attempted on the current device */
  bool has_material;   /* declares u_material at TY_LOC_MATERIAL: draw_list sets it per run */
  char *error;         /* the last failed build's message, NULL after a success */
} ty_program;

/* The program for these stages and defines (NULL defines: none), built on first use.
 * Headless it is never built and always returned (gl id 0). With a device NULL is
 * returned, ty_render_error set with file:line, when it has never built. */
ty_program *ty_render_program(ty_renderer *R, const char *vs_path, const char *fs_path, const char *defines);
ty_program *ty_render_compute_program(ty_renderer *R, const char *cs_path, const char *defines);

/* ---- per-frame memory and passes ---------------------------------------------------- */

/* size bytes (16-aligned, zeroed) valid until the next begin_frame. Never fails. */
void *ty_render_frame_alloc(ty_renderer *R, size_t size);

/* A pass's code: runs during end_frame's execute, with a device only. */
typedef void (*ty_render_pass_fn)(ty_renderer *R, ty_frame *F, const rg_pass_context *ctx, void *data);

/* rg_add_pass with fn in place of desc->execute/user; data (data_size bytes, may be 0)
 * is copied into per-frame memory and handed to fn. */
rg_pass ty_render_add_pass(ty_renderer *R, ty_frame *F, const rg_pass_desc *desc, ty_render_pass_fn fn,
                           const void *data, size_t data_size);

/* Whether some pass declared this frame writes r. mark_first_write also records the
 * write and answers whether it is the first: that pass clears the resource. */
bool ty_render_written(const ty_renderer *R, rg_resource r);
bool ty_render_mark_write(ty_renderer *R, rg_resource r);

/* ---- framebuffers ------------------------------------------------------------------- */

/* Attachments by texture handle as the graph hands them out (rg_context_texture);
 * a texture id 0 in colors[0] with no depth is the window's framebuffer. */
typedef struct ty_render_target_desc {
  uint32_t colors[TY_GL_MAX_COLOR_ATTACHMENTS];
  uint32_t color_count;
  uint32_t depth;
  uint32_t depth_layer; /* array layer of depth (shadow cascades) */
  uint32_t color_level; /* mip level of every colour attachment */
} ty_render_target_desc;

/* A framebuffer for these attachments, made once and reused while they live; an entry
 * no frame used for a few frames is destroyed. Bound (viewport set) on return. */
ty_gl_framebuffer ty_render_target(ty_renderer *R, const ty_render_target_desc *desc);

/* ---- drawing ------------------------------------------------------------------------ */

/* Binds the Frame block (0), materials (1) and lights (2). */
void ty_render_bind_frame(ty_renderer *R, const ty_frame *F);
/* Draws a bucket list with prog (made with ty_render_program; its vertex stage takes the
 * attributes of renderer.h) in the renderer's draw mode; sets location 0 (material) per
 * run and binds each material's texture to unit 0. Counts stats. Pipeline state (depth,
 * blend, cull) is the caller's. */
void ty_render_draw_list(ty_renderer *R, const ty_frame *F, ty_bucket_kind list, ty_program *prog);
/* The same for the runs [first_run, first_run + run_count) of the list (a cascade's range). */
void ty_render_draw_runs(ty_renderer *R, const ty_frame *F, ty_bucket_kind list, ty_program *prog,
                         uint32_t first_run, uint32_t run_count);
/* Draws the fullscreen triangle (shaders/common/fullscreen.vert) with the empty vertex
 * array and whatever program is in use. */
void ty_render_fullscreen(ty_renderer *R);

/* Fixed-function state for a pass (the device's descriptor, applied through its cache):
 * NULL or zeroed is depth test and write on (LESS), no blend, back faces culled. */
void ty_render_set_state(ty_renderer *R, const ty_gl_pipeline_desc *s);

/* The last frame times noted (ty_render_note_frame_time), oldest first, into out (up to
 * max); returns how many. */
uint32_t ty_render_frame_times(const ty_renderer *R, float *out, uint32_t max);

/* Samplers the features share. */
typedef enum ty_render_sampler {
  TY_SAMPLER_LINEAR_CLAMP = 0,
  TY_SAMPLER_NEAREST_CLAMP,
  TY_SAMPLER_LINEAR_REPEAT_MIP,
  TY_SAMPLER_NEAREST_REPEAT,
  TY_SAMPLER_SHADOW, /* compare LEQUAL, clamp, linear (hardware PCF) */
  TY_SAMPLER_LINEAR_CLAMP_MIP, /* material textures that clamp (sprites) */
  TY_SAMPLER_COUNT
} ty_render_sampler;
ty_gl_sampler ty_render_sampler_get(ty_renderer *R, ty_render_sampler s);
/* A texture id's GL texture, uploaded (mipmapped) on first use; unknown ids give white. */
ty_gl_texture ty_render_texture_gl(ty_renderer *R, uint32_t texture);

/* The CPU copy of the Frame block: features change it while declaring passes, end_frame
 * uploads it once before executing. */
ty_frame_block *ty_render_frame_block(ty_renderer *R);
/* This frame's point and spot lights as the lights buffer holds them; *count set. */
const ty_gpu_light *ty_render_gpu_lights(const ty_renderer *R, uint32_t *count);

/* Sets ty_render_error (printf-style) and logs it under name when name is not NULL. */
void ty_render_fail(ty_renderer *R, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Stats a pass adds to (draws it made outside ty_render_draw_list). */
ty_render_stats *ty_render_stats_mut(ty_renderer *R);

/* Shadow casters: the Shadow feature notes its settings (ty_render_note_shadow), and the
 * next frame's bucketing fits the same cascades (ty_render_fit_cascades: the frame block's
 * camera, the sun, those settings) and lists each caster in those its sphere overlaps.
 * ty_render_shadow_split says whether this frame's shadow list was split by exactly the
 * cascades vp, and each one's range then (else each cascade draws the whole list: the
 * first frame, or settings that changed this frame).
 * ty_render_fit_sun fits an orthographic sun view-projection around the camera frustum
 * slice [d0, d1], snapped to whole texels of a size x size map. */
typedef struct ty_shadow_settings {
  float distance;    /* how far the cascades reach */
  uint32_t cascades; /* 1..TY_RENDER_MAX_CASCADES; 0: no Shadow feature */
  uint32_t size;     /* texels per side of each cascade */
} ty_shadow_settings;
void ty_render_note_shadow(ty_renderer *R, const ty_shadow_settings *s);
void ty_render_fit_cascades(const ty_frame *F, const ty_frame_block *B, const ty_shadow_settings *s,
                            float vp[][16], float splits[]);
bool ty_render_shadow_split(const ty_renderer *R, const float (*vp)[16], uint32_t cascades,
                            ty_bucket_range ranges[]);
void ty_render_fit_sun(const ty_frame *F, const ty_frame_block *B, float d0, float d1, const float sun[3],
                       uint32_t size, float out[16]);

/* The engine's own text (the debug overlay): the shipped TrueType face (DejaVu Sans, in
 * content/fonts beside the shaders folder) at size pixels, loaded on first use and kept
 * until the renderer goes; NULL, ty_render_error set, when the file is missing. */
struct ty_font *ty_render_engine_font(ty_renderer *R, float size);
/* Glyph atlas page `page` (engine/text) as a GL texture of R's device, made or refreshed
 * by what changed in it (draw2d_pass.c owns them; every pass that draws glyphs asks). */
ty_gl_texture ty_render_glyph_page(ty_renderer *R, uint32_t page);

/* Shadow cascade matrices: set by the Shadow feature; read by features that want them. */
uint32_t ty_render_cascades(const ty_renderer *R);

/* ---- features ----------------------------------------------------------------------- */

/* Calls every built-in feature's release (feature_table.c walks its table): what the
 * features keep on the device goes before the device does. Declared here rather than in
 * feature_table.h, which needs renderer.h: the renderer reaches the table without including
 * it, so the two modules do not need each other. */
void ty_feature_release_all(ty_renderer *R);

#endif
