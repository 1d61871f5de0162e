/* engine/render/features_forward.c: the forward path's built-in features.
 *
 *  - Shadow: the sun's cascaded shadow map ("shadowMap": DEPTH32F array, one layer per
 *    cascade), splits and light matrices in the Frame block.
 *  - Sky: a flat colour, an equirectangular texture or an analytic atmosphere into hdr;
 *    behind what is already in depth, or filling hdr and clearing depth when it is first.
 *  - ForwardLit: PBR shading of the opaque list, then the transparent list blended.
 *  - Tonemap: hdr (+ bloom) to the backbuffer: ACES, Reinhard or none (an orthographic
 *    camera's default, so 2D colours arrive as given), then sRGB, rounded to bytes.
 *
 * Declaring needs no device (headless frames get the same passes, never executed); a
 * program is asked for only with a device, where a missing one refuses the feature. */
#include "features_forward.h"

#include "draw2d.h" /* Required for: ty_render_add_world_text */
#include "render_internal.h"

/* A pass that draws over r: it reads r when some pass wrote it already, else it clears. */
static bool draw_over(ty_renderer *R, rg_resource r, rg_resource *reads, uint32_t *nr, rg_resource *writes,
                      uint32_t *nw) {
  bool clear = !ty_render_written(R, r);
  if (!clear) reads[(*nr)++] = r;
  writes[(*nw)++] = r;
  ty_render_mark_write(R, r);
  return clear;
}

/* The program a feature needs, or NULL (with the error naming the feature) on a device
 * where it never compiled. Headless: a program that is never built. */
static ty_program *need_program(ty_renderer *R, const char *feature, const char *vs, const char *fs,
                                const char *defines) {
  ty_program *p = ty_render_program(R, vs, fs, defines);
  if (!p) {
    char msg[2048];
    snprintf(msg, sizeof msg, "%s", ty_render_error(R));
    ty_render_fail(R, "render_feature_disabled", "%s: %s", feature, msg);
  }
  return p;
}

/* ---- Shadow ------------------------------------------------------------------------- */

typedef struct shadow_pass {
  ty_program *prog;
  rg_resource map;
  uint32_t cascades;
  bool split; /* the shadow list is split by these cascades: each draws its own range */
  ty_bucket_range ranges[TY_RENDER_MAX_CASCADES];
} shadow_pass;

static void shadow_execute(ty_renderer *R, ty_frame *F, const rg_pass_context *ctx, void *data) {
#if TYCHO_WITH_GL
  shadow_pass *p = data;
  uint32_t tex = rg_context_texture(ctx, p->map);
  ty_gl_device *dev = ty_render_device(R);
  /* Slope-scaled depth bias against acne. */
  ty_render_set_state(R, &(ty_gl_pipeline_desc){.depth = TY_GL_DEPTH_LESS, .cull = TY_GL_CULL_NONE,
                                                .depth_bias = 2.0f, .depth_bias_slope = 1.5f});
  for (uint32_t c = 0; c < p->cascades; c++) {
    ty_gl_framebuffer fb = ty_render_target(R, &(ty_render_target_desc){.depth = tex, .depth_layer = c});
    if (!fb.id) break;
    ty_gl_clear_depth_stencil(dev, fb, 1.0f, 0);
    if (p->prog->gl.id) ty_gl_set_uniform(dev, p->prog->gl, TY_LOC_CASCADE, TY_GL_UNIFORM_INT, 1, &(int){(int)c});
    if (p->split) {
      ty_render_draw_runs(R, F, TY_BUCKET_LIST_SHADOW, p->prog, p->ranges[c].first_run, p->ranges[c].run_count);
    } else {
      ty_render_draw_list(R, F, TY_BUCKET_LIST_SHADOW, p->prog);
    }
  }
  ty_render_set_state(R, &(ty_gl_pipeline_desc){.depth = TY_GL_DEPTH_LESS, .cull = TY_GL_CULL_NONE});
#else
  (void)R, (void)F, (void)ctx, (void)data;
#endif
}

bool ty_feature_shadow(ty_renderer *R, ty_frame *F, const ty_feature_opts *o) {
  if (!F->has_sun) return true; /* nothing casts: no map, lit passes skip the lookup */
  uint32_t cascades = o->shadow.cascades ? o->shadow.cascades : 4;
  if (cascades > TY_RENDER_MAX_CASCADES) cascades = TY_RENDER_MAX_CASCADES;
  uint32_t size = o->shadow.size ? o->shadow.size : 2048;
  if (size > 8192) size = 8192;
  float distance = o->shadow.distance > 0 ? o->shadow.distance : 50.0f;
  float bias = o->shadow.bias > 0 ? o->shadow.bias : 0.002f;
  ty_program *prog = NULL;
  if (ty_render_device(R) && !(prog = need_program(R, "Shadow", "forward/shadow.vert", NULL, NULL))) return false;

  ty_shadow_settings settings = {.distance = distance, .cascades = cascades, .size = size};
  ty_render_note_shadow(R, &settings);
  ty_frame_block *B = ty_render_frame_block(R);
  ty_render_fit_cascades(F, B, &settings, B->shadow_view_proj, B->cascade_splits);
  for (uint32_t c = cascades; c < 4; c++) B->cascade_splits[c] = -1e30f;
  B->shadow_params[0] = bias;
  B->shadow_params[1] = (float)size;
  B->shadow_params[2] = (float)cascades;
  B->shadow_params[3] = distance;
  B->counts[1] = cascades;
  B->sun_color[3] = 1.0f;

  /* Two layers at least, so the map is always a 2D array (sampler2DArrayShadow). */
  F->shadow_map = rg_transient(F->graph, "shadowMap",
                               &(rg_texture_desc){.width = size, .height = size, .format = RG_FORMAT_DEPTH32F,
                                                  .layers = cascades < 2 ? 2 : cascades});
  ty_render_mark_write(R, F->shadow_map);
  shadow_pass sp = {.prog = prog, .map = F->shadow_map, .cascades = cascades};
  sp.split = ty_render_shadow_split(R, (const float(*)[16])B->shadow_view_proj, cascades, sp.ranges);
  ty_render_add_pass(R, F,
                     &(rg_pass_desc){.name = "Shadow", .kind = RG_PASS_RASTER, .writes = &F->shadow_map, .write_count = 1},
                     shadow_execute, &sp, sizeof sp);
  return true;
}

/* ---- Sky ---------------------------------------------------------------------------- */

typedef struct sky_pass {
  ty_program *prog;
  rg_resource hdr, depth;
  bool behind;      /* depth already holds the scene: draw only at the far plane */
  bool clear_hdr, clear_depth;
  uint32_t texture; /* SKY_KIND 2 */
  bool textured;
} sky_pass;

static void sky_execute(ty_renderer *R, ty_frame *F, const rg_pass_context *ctx, void *data) {
  sky_pass *p = data;
  ty_gl_device *dev = ty_render_device(R);
  ty_gl_framebuffer fb = ty_render_target(R, &(ty_render_target_desc){.colors = {rg_context_texture(ctx, p->hdr)},
                                                                      .color_count = 1,
                                                                      .depth = rg_context_texture(ctx, p->depth)});
  if (!fb.id) return;
  if (p->clear_hdr) ty_gl_clear_color(dev, fb, 0, (const float[4]){0, 0, 0, 1});
  if (p->clear_depth) {
    ty_render_set_state(R, NULL); /* depth writes on, so the clear reaches it */
    ty_gl_clear_depth_stencil(dev, fb, 1.0f, 0);
  }
  ty_render_set_state(R, &(ty_gl_pipeline_desc){.depth = p->behind ? TY_GL_DEPTH_LEQUAL : TY_GL_DEPTH_OFF,
                                                 .no_depth_write = true, .cull = TY_GL_CULL_NONE});
  ty_gl_use_program(dev, p->prog->gl);
  ty_render_bind_frame(R, F);
  if (p->textured)
    ty_gl_bind_texture(dev, TY_UNIT_SKY, ty_render_texture_gl(R, p->texture),
                       ty_render_sampler_get(R, TY_SAMPLER_LINEAR_REPEAT_MIP));
  ty_render_fullscreen(R);
}

bool ty_feature_sky(ty_renderer *R, ty_frame *F, const ty_feature_opts *o) {
  ty_sky_kind kind = o->sky.kind;
  if (kind == TY_SKY_NONE) return true;
  if (kind > TY_SKY_ATMOSPHERE) {
    ty_render_fail(R, NULL, "Sky: unknown kind %d", (int)kind);
    return false;
  }
  static const int shader_kind[] = {0, 1, 2, 3};
  char defines[96];
  snprintf(defines, sizeof defines, "#define FAR_PLANE 1\n#define SKY_KIND %d\n", shader_kind[kind]);
  ty_program *prog = NULL;
  if (ty_render_device(R) && !(prog = need_program(R, "Sky", "common/fullscreen.vert", "forward/sky.frag", defines)))
    return false;
  ty_frame_block *B = ty_render_frame_block(R);
  static const float default_sky[3] = {0.5f, 0.7f, 1.0f};
  for (int k = 0; k < 3; k++) B->sky_color[k] = o->sky.has_color ? o->sky.color[k] : default_sky[k];
  B->sky_color[3] = o->sky.intensity > 0 ? o->sky.intensity : 1.0f;

  sky_pass sp = {.prog = prog, .hdr = F->hdr, .depth = F->depth, .texture = o->sky.texture,
                 .textured = kind == TY_SKY_TEXTURE};
  rg_resource reads[2], writes[2];
  uint32_t nr = 0, nw = 0;
  sp.behind = ty_render_written(R, F->depth);
  if (sp.behind) reads[nr++] = F->depth;
  sp.clear_hdr = draw_over(R, F->hdr, reads, &nr, writes, &nw);
  if (!sp.behind) sp.clear_depth = draw_over(R, F->depth, reads, &nr, writes, &nw);
  if (!sp.behind) sp.clear_hdr = false; /* the sky covers every pixel */
  ty_render_add_pass(R, F,
                     &(rg_pass_desc){.name = "Sky", .kind = RG_PASS_RASTER, .reads = reads, .read_count = nr,
                                     .writes = writes, .write_count = nw},
                     sky_execute, &sp, sizeof sp);
  return true;
}

/* ---- ForwardLit --------------------------------------------------------------------- */

typedef struct lit_pass {
  ty_program *prog;
  rg_resource hdr, depth, shadow, grid;
  bool clear_hdr, clear_depth;
} lit_pass;

static void lit_execute(ty_renderer *R, ty_frame *F, const rg_pass_context *ctx, void *data) {
  lit_pass *p = data;
  ty_gl_device *dev = ty_render_device(R);
  ty_gl_framebuffer fb = ty_render_target(R, &(ty_render_target_desc){.colors = {rg_context_texture(ctx, p->hdr)},
                                                                      .color_count = 1,
                                                                      .depth = rg_context_texture(ctx, p->depth)});
  if (!fb.id) return;
  ty_render_set_state(R, NULL);
  if (p->clear_hdr) ty_gl_clear_color(dev, fb, 0, (const float[4]){0, 0, 0, 1});
  if (p->clear_depth) ty_gl_clear_depth_stencil(dev, fb, 1.0f, 0);
  if (p->shadow.id)
    ty_gl_bind_texture(dev, TY_UNIT_SHADOW, (ty_gl_texture){rg_context_texture(ctx, p->shadow)},
                       ty_render_sampler_get(R, TY_SAMPLER_SHADOW));
  if (p->grid.id)
    ty_gl_bind_texture(dev, TY_UNIT_LIGHT_GRID, (ty_gl_texture){rg_context_texture(ctx, p->grid)},
                       ty_render_sampler_get(R, TY_SAMPLER_NEAREST_CLAMP));
  ty_render_set_state(R, &(ty_gl_pipeline_desc){.depth = TY_GL_DEPTH_LEQUAL});
  ty_render_draw_list(R, F, TY_BUCKET_LIST_OPAQUE, p->prog);
  ty_render_set_state(R, &(ty_gl_pipeline_desc){.depth = TY_GL_DEPTH_LEQUAL, .no_depth_write = true,
                                                 .blend = TY_GL_BLEND_ALPHA, .cull = TY_GL_CULL_NONE});
  ty_render_draw_list(R, F, TY_BUCKET_LIST_TRANSPARENT, p->prog);
  ty_render_set_state(R, NULL);
}

bool ty_feature_forward_lit(ty_renderer *R, ty_frame *F, const ty_feature_opts *o) {
  bool plus = o->lit.forward_plus && F->light_grid.id;
  ty_program *prog = NULL;
  if (ty_render_device(R) &&
      !(prog = need_program(R, "ForwardLit", "forward/lit.vert", "forward/lit.frag", plus ? "#define FORWARD_PLUS 1\n" : NULL)))
    return false;
  ty_frame_block *B = ty_render_frame_block(R);
  for (int k = 0; k < 3; k++) B->ambient[k] = o->lit.has_ambient ? o->lit.ambient[k] : 0.03f;
  B->ambient[3] = o->lit.ibl ? 1.0f : 0.0f;
  if (o->lit.ibl && B->sky_color[3] == 0) {
    B->sky_color[0] = 0.5f, B->sky_color[1] = 0.7f, B->sky_color[2] = 1.0f, B->sky_color[3] = 1.0f;
  }
  lit_pass lp = {.prog = prog, .hdr = F->hdr, .depth = F->depth};
  rg_resource reads[4], writes[2];
  uint32_t nr = 0, nw = 0;
  if (F->shadow_map.id && ty_render_written(R, F->shadow_map)) reads[nr++] = lp.shadow = F->shadow_map;
  else B->sun_color[3] = 0.0f;
  if (plus) reads[nr++] = lp.grid = F->light_grid;
  lp.clear_hdr = draw_over(R, F->hdr, reads, &nr, writes, &nw);
  lp.clear_depth = draw_over(R, F->depth, reads, &nr, writes, &nw);
  ty_render_add_pass(R, F,
                     &(rg_pass_desc){.name = "ForwardLit", .kind = RG_PASS_RASTER, .reads = reads, .read_count = nr,
                                     .writes = writes, .write_count = nw},
                     lit_execute, &lp, sizeof lp);
  return true;
}

/* ---- Tonemap ------------------------------------------------------------------------ */

typedef struct tonemap_pass {
  ty_program *prog;
  rg_resource hdr, bloom, out;
  float params[4];
} tonemap_pass;

static void tonemap_execute(ty_renderer *R, ty_frame *F, const rg_pass_context *ctx, void *data) {
#if TYCHO_WITH_GL
  tonemap_pass *p = data;
  ty_gl_device *dev = ty_render_device(R);
  ty_render_target(R, &(ty_render_target_desc){.colors = {rg_context_texture(ctx, p->out)}, .color_count = 1});
  ty_render_set_state(R, &(ty_gl_pipeline_desc){.depth = TY_GL_DEPTH_OFF, .cull = TY_GL_CULL_NONE});
  ty_gl_use_program(dev, p->prog->gl);
  ty_render_bind_frame(R, F);
  ty_gl_sampler s = ty_render_sampler_get(R, TY_SAMPLER_LINEAR_CLAMP);
  ty_gl_bind_texture(dev, 1, (ty_gl_texture){rg_context_texture(ctx, p->hdr)}, s);
  if (p->bloom.id) ty_gl_bind_texture(dev, 2, (ty_gl_texture){rg_context_texture(ctx, p->bloom)}, s);
  else ty_gl_bind_texture(dev, 2, ty_render_texture_gl(R, TY_RENDER_TEXTURE_WHITE), s);
  ty_gl_set_uniform(dev, p->prog->gl, 0, TY_GL_UNIFORM_VEC4, 1, p->params);
  ty_render_fullscreen(R);
#else
  (void)R, (void)F, (void)ctx, (void)data;
#endif
}

bool ty_feature_tonemap(ty_renderer *R, ty_frame *F, const ty_feature_opts *o) {
  ty_program *prog = NULL;
  if (ty_render_device(R) && !(prog = need_program(R, "Tonemap", "common/fullscreen.vert", "forward/tonemap.frag", NULL)))
    return false;
  /* tycho.Text in the world goes into the scene first: tonemapped with it, behind its walls. */
  if (!ty_render_add_world_text(R, F)) return false;
  /* Zeroed options are the defaults (exposure 1, auto, ACES): aces off counts once an exposure is given. */
  ty_tonemap_mode mode = o->tonemap.mode;
  if (mode == TY_TONEMAP_AUTO) {
    bool aces = o->tonemap.aces || o->tonemap.exposure == 0;
    bool ortho = ty_render_frame_block(R)->clip[2] > 0.5f;
    mode = ortho ? TY_TONEMAP_NONE : aces ? TY_TONEMAP_ACES : TY_TONEMAP_REINHARD;
  }
  /* forward/tonemap.frag's curve: 0 none, 1 ACES, 2 Reinhard. */
  float curve = mode == TY_TONEMAP_ACES ? 1.0f : mode == TY_TONEMAP_REINHARD ? 2.0f : 0.0f;
  float bloom_intensity = F->bloom_intensity > 0 ? F->bloom_intensity : 0.05f;
  tonemap_pass tp = {.prog = prog, .hdr = F->hdr, .bloom = F->bloom, .out = F->backbuffer,
                     .params = {o->tonemap.exposure > 0 ? o->tonemap.exposure : 1.0f, curve, bloom_intensity,
                                F->bloom.id ? 1.0f : 0.0f}};
  rg_resource reads[2] = {F->hdr, F->bloom};
  ty_render_mark_write(R, F->backbuffer);
  ty_render_add_pass(R, F,
                     &(rg_pass_desc){.name = "Tonemap", .kind = RG_PASS_RASTER, .reads = reads,
                                     .read_count = F->bloom.id ? 2 : 1, .writes = &F->backbuffer, .write_count = 1},
                     tonemap_execute, &tp, sizeof tp);
  return true;
}
