/* engine/render/features_deferred.c: the deferred path and Forward+.
 *
 *  - Geometry: the opaque list into the gbuffer (albedo, view-space normal + roughness,
 *    metallic + ao) and depth.
 *  - AO: screen-space ambient occlusion from depth and the gbuffer normal, then a
 *    depth-aware blur, into "ao".
 *  - DeferredLighting: the sun (with its shadow map) and ambient (times ao) into hdr.
 *  - PointSpotLight: every point and spot light added over hdr from the gbuffer.
 *  - ForwardOverlay: the transparent list forward-lit over the deferred image.
 *  - ForwardPlus: a depth prepass, then a compute pass that culls point and spot lights
 *    per 16x16 px tile into "lightGrid" for ForwardLit.
 *
 * Declaring needs no device: headless frames get the same passes, which never execute.
 * Pass code runs only during end_frame with a device, so every device call lives there. */
#include "features_deferred.h"

#include <math.h>
#include <string.h>

#include "render_internal.h"

/* ---- shared by the passes below ------------------------------------------------------ */

/* Texture units of the gbuffer inputs (1..3 are free for a pass's inputs, 8.. too). */
enum { UNIT_ALBEDO = 1, UNIT_NORMAL = 2, UNIT_MATERIAL = 3, UNIT_DEPTH = 8, UNIT_INPUT = 9 };

/* Where a missing input is reported; the message says which feature to add. */
static bool need(ty_renderer *R, bool ok, const char *feature, const char *resource, const char *hint) {
  if (!ok) ty_render_fail(R, "feature_missing_input", "%s needs %s: %s", feature, resource, hint);
  return ok;
}

/* Lists r among a pass's reads when an earlier pass wrote it, so the pass keeps (draws
 * over) that content, and records this write. True when this pass is the first writer:
 * it then clears r. */
static bool write_over(ty_renderer *R, rg_resource r, rg_resource *reads, uint32_t *read_count) {
  bool first = ty_render_mark_write(R, r);
  if (!first) reads[(*read_count)++] = r;
  return first;
}

/* Declares pass `name`, which reads reads[0..nr) (reads has room for one more) and draws
 * into *target alone, over what an earlier pass wrote there (see write_over). target and
 * clear point into data, which is copied: *clear (NULL: the pass never clears) is set
 * first, true when this pass is target's first writer. */
static void add_pass_over(ty_renderer *R, ty_frame *F, const char *name, rg_resource *reads, uint32_t nr,
                          rg_resource *target, bool *clear, ty_render_pass_fn run, void *data, size_t size) {
  bool first = write_over(R, *target, reads, &nr);
  if (clear) *clear = first;
  ty_render_add_pass(R, F,
                     &(rg_pass_desc){.name = name, .reads = reads, .read_count = nr, .writes = target, .write_count = 1},
                     run, data, size);
}

#if TYCHO_WITH_GL
static ty_gl_texture tex_of(const rg_pass_context *ctx, rg_resource r) {
  return (ty_gl_texture){r.id ? rg_context_texture(ctx, r) : 0};
}

/* Targets colour resource r alone, no depth; id 0 when that failed. */
static ty_gl_framebuffer color_target(ty_renderer *R, const rg_pass_context *ctx, rg_resource r) {
  return ty_render_target(R, &(ty_render_target_desc){.colors = {rg_context_texture(ctx, r)}, .color_count = 1});
}

/* Uses prog, binds the Frame block and sets its `params` (vec4[4]) when it has them. */
static bool use(ty_renderer *R, const ty_frame *F, ty_program *prog, const float params[16]) {
  ty_gl_device *dev = ty_render_device(R);
  if (!prog || !prog->gl.id || ty_gl_use_program(dev, prog->gl) != TY_GL_OK) return false;
  ty_render_bind_frame(R, F);
  if (params) {
    int loc = ty_gl_uniform_location(dev, prog->gl, "params");
    ty_gl_set_uniform(dev, prog->gl, loc, TY_GL_UNIFORM_VEC4, 4, params);
  }
  return true;
}

static void bind(ty_renderer *R, uint32_t unit, ty_gl_texture tex, ty_render_sampler s) {
  if (tex.id) ty_gl_bind_texture(ty_render_device(R), unit, tex, ty_render_sampler_get(R, s));
}

/* The gbuffer and depth on their units. */
static void bind_gbuffer(ty_renderer *R, const rg_pass_context *ctx, const ty_frame *F) {
  bind(R, UNIT_ALBEDO, tex_of(ctx, F->gbuffer_albedo), TY_SAMPLER_NEAREST_CLAMP);
  bind(R, UNIT_NORMAL, tex_of(ctx, F->gbuffer_normal), TY_SAMPLER_NEAREST_CLAMP);
  bind(R, UNIT_MATERIAL, tex_of(ctx, F->gbuffer_material), TY_SAMPLER_NEAREST_CLAMP);
  bind(R, UNIT_DEPTH, tex_of(ctx, F->depth), TY_SAMPLER_NEAREST_CLAMP);
}
#endif

/* ---- Geometry ------------------------------------------------------------------------ */

typedef struct geometry_pass {
  ty_program *prog;
  rg_resource albedo, normal, material, depth;
  bool clear_depth;
} geometry_pass;

static void run_geometry(ty_renderer *R, ty_frame *F, const rg_pass_context *ctx, void *data) {
#if TYCHO_WITH_GL
  geometry_pass *p = data;
  ty_gl_device *dev = ty_render_device(R);
  ty_render_target_desc td = {.colors = {rg_context_texture(ctx, p->albedo), rg_context_texture(ctx, p->normal),
                                         rg_context_texture(ctx, p->material)},
                              .color_count = 3,
                              .depth = rg_context_texture(ctx, p->depth)};
  ty_gl_framebuffer fb = ty_render_target(R, &td);
  if (!fb.id) return;
  static const float zero[4] = {0, 0, 0, 0};
  ty_render_set_state(R, &(ty_gl_pipeline_desc){.depth = TY_GL_DEPTH_LEQUAL});
  for (uint32_t i = 0; i < 3; i++) ty_gl_clear_color(dev, fb, i, zero);
  if (p->clear_depth) ty_gl_clear_depth_stencil(dev, fb, 1.0f, 0);
  if (!use(R, F, p->prog, NULL)) return;
  ty_render_draw_list(R, F, TY_BUCKET_LIST_OPAQUE, p->prog);
#else
  (void)R, (void)F, (void)ctx, (void)data;
#endif
}

bool ty_feature_geometry(ty_renderer *R, ty_frame *F, const ty_feature_opts *o) {
  (void)o;
  ty_program *prog = ty_render_program(R, "deferred/geometry.vert", "deferred/geometry.frag", NULL);
  if (!prog) return false;
  rg_graph *g = F->graph;
  geometry_pass p = {.prog = prog, .depth = F->depth};
  p.albedo = rg_transient(g, "gbuffer.albedo", &(rg_texture_desc){.format = RG_FORMAT_RGBA8});
  p.normal = rg_transient(g, "gbuffer.normal", &(rg_texture_desc){.format = RG_FORMAT_RGBA16F});
  p.material = rg_transient(g, "gbuffer.material", &(rg_texture_desc){.format = RG_FORMAT_RG8});
  rg_resource reads[1];
  uint32_t nr = 0;
  p.clear_depth = write_over(R, F->depth, reads, &nr);
  rg_resource writes[4] = {p.albedo, p.normal, p.material, p.depth};
  ty_render_add_pass(R, F,
                     &(rg_pass_desc){.name = "Geometry", .reads = reads, .read_count = nr, .writes = writes,
                                     .write_count = 4},
                     run_geometry, &p, sizeof p);
  ty_render_mark_write(R, p.albedo);
  ty_render_mark_write(R, p.normal);
  ty_render_mark_write(R, p.material);
  F->gbuffer_albedo = p.albedo;
  F->gbuffer_normal = p.normal;
  F->gbuffer_material = p.material;
  return true;
}

/* ---- AO ------------------------------------------------------------------------------ */

typedef struct ao_pass {
  ty_program *prog;
  rg_resource input, output; /* SSAO: input unused (gbuffer from F); blur: the raw ao */
  float params[16];
} ao_pass;

static void run_ssao(ty_renderer *R, ty_frame *F, const rg_pass_context *ctx, void *data) {
#if TYCHO_WITH_GL
  ao_pass *p = data;
  ty_gl_framebuffer fb = color_target(R, ctx, p->output);
  if (!fb.id) return;
  ty_render_set_state(R, &(ty_gl_pipeline_desc){.depth = TY_GL_DEPTH_OFF, .cull = TY_GL_CULL_NONE});
  if (!use(R, F, p->prog, p->params)) return;
  bind_gbuffer(R, ctx, F);
  bind(R, UNIT_INPUT, tex_of(ctx, p->input), TY_SAMPLER_LINEAR_CLAMP);
  ty_render_fullscreen(R);
#else
  (void)R, (void)F, (void)ctx, (void)data;
#endif
}

bool ty_feature_ao(ty_renderer *R, ty_frame *F, const ty_feature_opts *o) {
  if (!need(R, ty_render_written(R, F->depth), "AO", "depth", "add Geometry (or ForwardPlus) before it") ||
      !need(R, F->gbuffer_normal.id != 0, "AO", "gbuffer.normal", "add Geometry before it"))
    return false;
  ty_program *ssao = ty_render_program(R, "common/fullscreen.vert", "deferred/ssao.frag", NULL);
  ty_program *blur = ssao ? ty_render_program(R, "common/fullscreen.vert", "deferred/ao_blur.frag", NULL) : NULL;
  if (!ssao || !blur) return false;
  float radius = o->ao.radius > 0 ? o->ao.radius : 0.5f;
  float intensity = o->ao.intensity > 0 ? o->ao.intensity : 1.0f;
  uint32_t samples = o->ao.samples ? o->ao.samples : 12u;
  if (samples > 64) samples = 64;
  /* Occlusion is low-frequency and blurred anyway: at half the size on each axis it costs
   * a quarter (on llvmpipe 150 of 280 ms a 720p frame at full size), and the lighting pass
   * upsamples it bilinearly. */
  float scale = o->ao.full_resolution ? 1.0f : 0.5f;

  rg_graph *g = F->graph;
  /* raw: occlusion and view-space z, so the blur reads one texel a tap (16-bit float z
   * keeps ~3 digits, enough for its relative depth test). */
  rg_resource raw = rg_transient(g, "ao.raw", &(rg_texture_desc){.format = RG_FORMAT_RG16F, .scale = scale});
  rg_resource ao = rg_transient(g, "ao", &(rg_texture_desc){.format = RG_FORMAT_R8, .scale = scale});
  ao_pass a = {.prog = ssao,
               .output = raw,
               .params = {radius, intensity, (float)samples, (float)(F->index % 64u), 1.0f / scale}};
  rg_resource reads[2] = {F->depth, F->gbuffer_normal};
  ty_render_add_pass(R, F,
                     &(rg_pass_desc){.name = "AO", .reads = reads, .read_count = 2, .writes = &raw, .write_count = 1},
                     run_ssao, &a, sizeof a);
  ao_pass b = {.prog = blur, .input = raw, .output = ao};
  ty_render_add_pass(R, F,
                     &(rg_pass_desc){.name = "AO.blur", .reads = &raw, .read_count = 1, .writes = &ao,
                                     .write_count = 1},
                     run_ssao, &b, sizeof b);
  ty_render_mark_write(R, raw);
  ty_render_mark_write(R, ao);
  F->ao = ao;
  return true;
}

/* ---- DeferredLighting and PointSpotLight --------------------------------------------- */

typedef struct lighting_pass {
  ty_program *prog;
  rg_resource hdr, shadow_map, ao;
  bool clear, additive;
  float params[16];
} lighting_pass;

static void run_lighting(ty_renderer *R, ty_frame *F, const rg_pass_context *ctx, void *data) {
#if TYCHO_WITH_GL
  lighting_pass *p = data;
  ty_gl_device *dev = ty_render_device(R);
  ty_gl_framebuffer fb = color_target(R, ctx, p->hdr);
  if (!fb.id) return;
  if (p->clear) ty_gl_clear_color(dev, fb, 0, (const float[4]){0, 0, 0, 1});
  ty_render_set_state(R, &(ty_gl_pipeline_desc){.depth = TY_GL_DEPTH_OFF,
                                                  .blend = p->additive ? TY_GL_BLEND_ADDITIVE : TY_GL_BLEND_NONE,
                                                  .cull = TY_GL_CULL_NONE});
  if (!use(R, F, p->prog, p->params)) return;
  bind_gbuffer(R, ctx, F);
  bind(R, TY_UNIT_SHADOW, tex_of(ctx, p->shadow_map), TY_SAMPLER_SHADOW);
  bind(R, TY_UNIT_AO, tex_of(ctx, p->ao), TY_SAMPLER_LINEAR_CLAMP);
  ty_render_fullscreen(R);
#else
  (void)R, (void)F, (void)ctx, (void)data;
#endif
}

static bool need_gbuffer(ty_renderer *R, ty_frame *F, const char *feature) {
  return need(R, F->gbuffer_albedo.id != 0, feature, "gbuffer.albedo", "add Geometry before it") &&
         need(R, ty_render_written(R, F->depth), feature, "depth", "add Geometry before it");
}

/* The ambient term in the Frame block, as ForwardLit sets it (the same options). */
static void set_ambient(ty_renderer *R, const ty_feature_opts *o) {
  ty_frame_block *B = ty_render_frame_block(R);
  for (int k = 0; k < 3; k++) B->ambient[k] = o->lit.has_ambient ? o->lit.ambient[k] : 0.03f;
  B->ambient[3] = o->lit.ibl ? 1.0f : 0.0f;
}

bool ty_feature_deferred_lighting(ty_renderer *R, ty_frame *F, const ty_feature_opts *o) {
  if (!need_gbuffer(R, F, "DeferredLighting")) return false;
  bool shadows = F->shadow_map.id != 0 && ty_render_written(R, F->shadow_map);
  bool ao = F->ao.id != 0 && ty_render_written(R, F->ao);
  char defines[64];
  snprintf(defines, sizeof defines, "#define HAS_SHADOW %d\n#define HAS_AO %d\n", shadows ? 1 : 0, ao ? 1 : 0);
  ty_program *prog = ty_render_program(R, "common/fullscreen.vert", "deferred/lighting.frag", defines);
  if (!prog) return false;

  lighting_pass p = {.prog = prog, .hdr = F->hdr};
  rg_resource reads[8] = {F->gbuffer_albedo, F->gbuffer_normal, F->gbuffer_material, F->depth};
  uint32_t nr = 4;
  if (shadows) reads[nr++] = p.shadow_map = F->shadow_map;
  if (ao) reads[nr++] = p.ao = F->ao;
  set_ambient(R, o);
  add_pass_over(R, F, "DeferredLighting", reads, nr, &p.hdr, &p.clear, run_lighting, &p, sizeof p);
  return true;
}

#if TYCHO_WITH_GL
/* The pixels a light of this range can reach: its bounding box projected, as a scissor
 * rectangle. False when it is off screen; the whole frame when the box crosses the
 * camera plane. */
static bool light_rect(const float vp[16], const float pos_range[4], uint32_t w, uint32_t h, int rect[4]) {
  float x0 = 1e30f, y0 = 1e30f, x1 = -1e30f, y1 = -1e30f;
  for (int k = 0; k < 8; k++) {
    float p[3] = {pos_range[0] + (k & 1 ? pos_range[3] : -pos_range[3]),
                  pos_range[1] + (k & 2 ? pos_range[3] : -pos_range[3]),
                  pos_range[2] + (k & 4 ? pos_range[3] : -pos_range[3])};
    float cx = vp[0] * p[0] + vp[4] * p[1] + vp[8] * p[2] + vp[12];
    float cy = vp[1] * p[0] + vp[5] * p[1] + vp[9] * p[2] + vp[13];
    float cw = vp[3] * p[0] + vp[7] * p[1] + vp[11] * p[2] + vp[15];
    if (cw <= 1e-4f) {
      rect[0] = rect[1] = 0, rect[2] = (int)w, rect[3] = (int)h;
      return true;
    }
    float nx = cx / cw, ny = cy / cw;
    x0 = fminf(x0, nx), y0 = fminf(y0, ny), x1 = fmaxf(x1, nx), y1 = fmaxf(y1, ny);
  }
  if (x1 < -1 || y1 < -1 || x0 > 1 || y0 > 1) return false;
  int px0 = (int)floorf((fmaxf(x0, -1) * 0.5f + 0.5f) * (float)w), py0 = (int)floorf((fmaxf(y0, -1) * 0.5f + 0.5f) * (float)h);
  int px1 = (int)ceilf((fminf(x1, 1) * 0.5f + 0.5f) * (float)w), py1 = (int)ceilf((fminf(y1, 1) * 0.5f + 0.5f) * (float)h);
  rect[0] = px0, rect[1] = py0, rect[2] = px1 - px0, rect[3] = py1 - py0;
  return rect[2] > 0 && rect[3] > 0;
}
#endif

/* Lights are binned on the CPU into 64 px screen tiles by the rectangle each can reach;
 * every tile with lights is one scissored draw that loops over its own few. A pixel then
 * reads the gbuffer once and pays for the lights near it, not for all of them: one
 * full-screen loop over hello's 48 small lights cost ~5 times the sun's pass on llvmpipe. */
enum { LIGHT_TILE = 64, TILE_LIGHTS = 32 };

static void run_point_spot(ty_renderer *R, ty_frame *F, const rg_pass_context *ctx, void *data) {
#if TYCHO_WITH_GL
  lighting_pass *p = data;
  ty_gl_device *dev = ty_render_device(R);
  ty_gl_framebuffer fb = color_target(R, ctx, p->hdr);
  if (!fb.id) return;
  ty_render_set_state(R, &(ty_gl_pipeline_desc){.depth = TY_GL_DEPTH_OFF, .blend = TY_GL_BLEND_ADDITIVE, .cull = TY_GL_CULL_NONE});
  if (!use(R, F, p->prog, NULL)) return;
  bind_gbuffer(R, ctx, F);
  int count_loc = ty_gl_uniform_location(dev, p->prog->gl, "u_count");
  int list_loc = ty_gl_uniform_location(dev, p->prog->gl, "u_lights");
  if (count_loc < 0 || list_loc < 0) return;
  uint32_t n = 0;
  const ty_gpu_light *lights = ty_render_gpu_lights(R, &n);
  const float *vp = ty_render_frame_block(R)->view_proj;
  int (*rects)[4] = ty_render_frame_alloc(R, (n ? n : 1) * sizeof *rects);
  bool *on = ty_render_frame_alloc(R, n ? n : 1);
  for (uint32_t i = 0; i < n; i++) on[i] = light_rect(vp, lights[i].position_range, F->width, F->height, rects[i]);
  for (uint32_t ty = 0; ty < F->height; ty += LIGHT_TILE)
    for (uint32_t tx = 0; tx < F->width; tx += LIGHT_TILE) {
      int list[TILE_LIGHTS], k = 0;
      for (uint32_t i = 0; i <= n; i++) {
        bool flush = i == n || k == TILE_LIGHTS;
        if (flush && k > 0) {
          ty_gl_set_scissor(dev, (const int[4]){(int)tx, (int)ty, LIGHT_TILE, LIGHT_TILE});
          ty_gl_set_uniform(dev, p->prog->gl, count_loc, TY_GL_UNIFORM_INT, 1, &k);
          ty_gl_set_uniform(dev, p->prog->gl, list_loc, TY_GL_UNIFORM_INT, (uint32_t)k, list);
          ty_render_fullscreen(R);
          k = 0;
        }
        if (i == n) break;
        const int *r = rects[i];
        if (on[i] && r[0] < (int)tx + LIGHT_TILE && r[0] + r[2] > (int)tx && r[1] < (int)ty + LIGHT_TILE &&
            r[1] + r[3] > (int)ty)
          list[k++] = (int)i;
      }
    }
  ty_gl_set_scissor(dev, NULL);
#else
  (void)R, (void)F, (void)ctx, (void)data;
#endif
}

bool ty_feature_point_spot_light(ty_renderer *R, ty_frame *F, const ty_feature_opts *o) {
  (void)o;
  if (!need_gbuffer(R, F, "PointSpotLight") ||
      !need(R, ty_render_written(R, F->hdr), "PointSpotLight", "hdr", "add DeferredLighting before it"))
    return false;
  /* No point or spot light this frame: a full-screen pass that adds nothing (20 ms a 720p
   * frame on llvmpipe) is not declared at all. */
  if (F->light_count == 0) return true;
  ty_program *prog = ty_render_program(R, "common/fullscreen.vert", "deferred/point_spot.frag", NULL);
  if (!prog) return false;
  lighting_pass p = {.prog = prog, .hdr = F->hdr, .additive = true};
  rg_resource reads[5] = {F->gbuffer_albedo, F->gbuffer_normal, F->gbuffer_material, F->depth};
  uint32_t nr = 4;
  add_pass_over(R, F, "PointSpotLight", reads, nr, &p.hdr, NULL, run_point_spot, &p, sizeof p);
  return true;
}

/* ---- ForwardOverlay ------------------------------------------------------------------ */

typedef struct overlay_pass {
  ty_program *prog;
  rg_resource hdr, depth, shadow_map, light_grid;
} overlay_pass;

static void run_overlay(ty_renderer *R, ty_frame *F, const rg_pass_context *ctx, void *data) {
#if TYCHO_WITH_GL
  overlay_pass *p = data;
  ty_gl_framebuffer fb = ty_render_target(R, &(ty_render_target_desc){.colors = {rg_context_texture(ctx, p->hdr)},
                                                                       .color_count = 1,
                                                                       .depth = rg_context_texture(ctx, p->depth)});
  if (!fb.id) return;
  /* Tested against the opaque depth, never written: transparent surfaces do not hide
   * each other, they are sorted back to front instead. */
  ty_render_set_state(R, &(ty_gl_pipeline_desc){.depth = TY_GL_DEPTH_LEQUAL, .no_depth_write = true,
                                                .blend = TY_GL_BLEND_ALPHA, .cull = TY_GL_CULL_NONE});
  if (!use(R, F, p->prog, NULL)) return;
  bind(R, TY_UNIT_SHADOW, tex_of(ctx, p->shadow_map), TY_SAMPLER_SHADOW);
  bind(R, TY_UNIT_LIGHT_GRID, tex_of(ctx, p->light_grid), TY_SAMPLER_NEAREST_CLAMP);
  ty_render_draw_list(R, F, TY_BUCKET_LIST_TRANSPARENT, p->prog);
  ty_render_set_state(R, &(ty_gl_pipeline_desc){.depth = TY_GL_DEPTH_LEQUAL, .cull = TY_GL_CULL_NONE});
#else
  (void)R, (void)F, (void)ctx, (void)data;
#endif
}

bool ty_feature_forward_overlay(ty_renderer *R, ty_frame *F, const ty_feature_opts *o) {
  if (!need(R, ty_render_written(R, F->depth), "ForwardOverlay", "depth", "add Geometry (or ForwardPlus) before it") ||
      !need(R, ty_render_written(R, F->hdr), "ForwardOverlay", "hdr", "add DeferredLighting (or ForwardLit) before it"))
    return false;
  bool shadows = F->shadow_map.id != 0 && ty_render_written(R, F->shadow_map);
  bool grid = o->lit.forward_plus && F->light_grid.id != 0 && ty_render_written(R, F->light_grid);
  char defines[96];
  snprintf(defines, sizeof defines, "#define HAS_SHADOW %d\n#define FORWARD_PLUS %d\n#define TRANSPARENT 1\n",
           shadows ? 1 : 0, grid ? 1 : 0);
  ty_program *prog = ty_render_program(R, "deferred/geometry.vert", "deferred/overlay.frag", defines);
  if (!prog) return false;
  overlay_pass p = {.prog = prog, .hdr = F->hdr, .depth = F->depth};
  rg_resource reads[4] = {F->depth};
  uint32_t nr = 1;
  if (shadows) reads[nr++] = p.shadow_map = F->shadow_map;
  if (grid) reads[nr++] = p.light_grid = F->light_grid;
  add_pass_over(R, F, "ForwardOverlay", reads, nr, &p.hdr, NULL, run_overlay, &p, sizeof p);
  return true;
}

/* ---- ForwardPlus --------------------------------------------------------------------- */

typedef struct prepass {
  ty_program *prog;
  rg_resource depth;
  bool clear;
} prepass;

static void run_prepass(ty_renderer *R, ty_frame *F, const rg_pass_context *ctx, void *data) {
#if TYCHO_WITH_GL
  prepass *p = data;
  ty_gl_framebuffer fb =
      ty_render_target(R, &(ty_render_target_desc){.depth = rg_context_texture(ctx, p->depth)});
  if (!fb.id) return;
  ty_render_set_state(R, NULL);
  if (p->clear) ty_gl_clear_depth_stencil(ty_render_device(R), fb, 1.0f, 0);
  if (!use(R, F, p->prog, NULL)) return;
  ty_render_draw_list(R, F, TY_BUCKET_LIST_OPAQUE, p->prog);
#else
  (void)R, (void)F, (void)ctx, (void)data;
#endif
}

typedef struct cull_pass {
  ty_program *prog;
  rg_resource depth, grid;
  uint32_t tiles_x, tiles_y;
} cull_pass;

static void run_light_cull(ty_renderer *R, ty_frame *F, const rg_pass_context *ctx, void *data) {
#if TYCHO_WITH_GL
  cull_pass *p = data;
  ty_gl_device *dev = ty_render_device(R);
  if (!use(R, F, p->prog, NULL)) return;
  bind(R, 1, tex_of(ctx, p->depth), TY_SAMPLER_NEAREST_CLAMP);
  if (ty_gl_bind_image(dev, 0, tex_of(ctx, p->grid), 0, TY_GL_ACCESS_WRITE, RG_FORMAT_R32UI) != TY_GL_OK) return;
  ty_gl_dispatch(dev, p->tiles_x, p->tiles_y, 1);
  /* ForwardLit fetches the grid as a texture next. */
  ty_gl_barrier(dev, TY_GL_BARRIER_TEXTURE_FETCH | TY_GL_BARRIER_IMAGE_ACCESS);
  ty_gl_bind_image(dev, 0, (ty_gl_texture){0}, 0, TY_GL_ACCESS_WRITE, RG_FORMAT_R32UI);
#else
  (void)R, (void)F, (void)ctx, (void)data;
#endif
}

bool ty_feature_forward_plus(ty_renderer *R, ty_frame *F, const ty_feature_opts *o) {
  (void)o;
  ty_program *depth_prog = ty_render_program(R, "deferred/geometry.vert", "deferred/depth.frag", "#define DEPTH_ONLY 1\n");
  ty_program *cull = depth_prog ? ty_render_compute_program(R, "deferred/light_cull.comp", NULL) : NULL;
  if (!depth_prog || !cull) return false;
  rg_graph *g = F->graph;
  uint32_t tiles_x = (F->width + TY_LIGHT_GRID_TILE - 1) / TY_LIGHT_GRID_TILE;
  uint32_t tiles_y = (F->height + TY_LIGHT_GRID_TILE - 1) / TY_LIGHT_GRID_TILE;
  if (!tiles_x) tiles_x = 1;
  if (!tiles_y) tiles_y = 1;

  prepass d = {.prog = depth_prog, .depth = F->depth};
  rg_resource reads[1];
  add_pass_over(R, F, "DepthPrepass", reads, 0, &d.depth, &d.clear, run_prepass, &d, sizeof d);

  cull_pass c = {.prog = cull, .depth = F->depth, .tiles_x = tiles_x, .tiles_y = tiles_y};
  c.grid = rg_transient(g, "lightGrid",
                        &(rg_texture_desc){.width = tiles_x * TY_LIGHT_GRID_STRIDE, .height = tiles_y,
                                           .format = RG_FORMAT_R32UI});
  ty_render_mark_write(R, c.grid);
  ty_render_add_pass(R, F,
                     &(rg_pass_desc){.name = "LightCulling", .kind = RG_PASS_COMPUTE, .reads = &c.depth,
                                     .read_count = 1, .writes = &c.grid, .write_count = 1},
                     run_light_cull, &c, sizeof c);
  F->light_grid = c.grid;
  ty_frame_block *fbk = ty_render_frame_block(R);
  fbk->counts[2] = tiles_x;
  fbk->counts[3] = tiles_y;
  return true;
}
