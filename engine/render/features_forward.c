/* engine/render/features_forward.c: the forward path's built-in features.
 *
 *  - Shadow: the sun's cascaded shadow map ("shadowMap": DEPTH32F array, one layer per
 *    cascade), splits and light matrices in the Frame block.
 *  - Sky: a flat colour, an equirectangular texture or an analytic atmosphere into hdr;
 *    behind what is already in depth, or filling hdr and clearing depth when it is first.
 *  - ForwardLit: PBR shading of the opaque list, then the transparent list blended.
 *  - Tonemap: hdr (+ bloom) to the backbuffer: ACES, Reinhard or none (an orthographic
 *    camera's default, so 2D colours arrive as given), then sRGB, rounded to bytes.
 *  - Overlay: FPS, a frame-time graph, draw counts and the graph's passes as text.
 *
 * Declaring needs no device (headless frames get the same passes, never executed); a
 * program is asked for only with a device, where a missing one refuses the feature. */
#include "features_forward.h"

#include <math.h>
#include <string.h>

#include <cglm/cglm.h>

#include "render_internal.h"

#if TYCHO_WITH_GL
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wsign-compare"
#include <stb/stb_easy_font.h> /* Required for: the overlay's text (libstb-dev) */
#pragma GCC diagnostic pop
#endif

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
    ty_render_draw_list(R, F, TY_BUCKET_LIST_SHADOW, p->prog);
  }
  ty_render_set_state(R, &(ty_gl_pipeline_desc){.depth = TY_GL_DEPTH_LESS, .cull = TY_GL_CULL_NONE});
#else
  (void)R, (void)F, (void)ctx, (void)data;
#endif
}

/* Fits one cascade (ty_render_fit_sun): a sphere around the camera frustum slice [d0, d1] (stable under
 * rotation), seen orthographically along the sun, snapped to whole texels (stable under
 * translation). */
void ty_render_fit_sun(const ty_frame *F, const ty_frame_block *B, float d0, float d1, const float sun[3],
                       uint32_t size, float out[16]) {
  const float *iv = B->inv_view; /* columns: right, up, back, position */
  vec3 right = {iv[0], iv[1], iv[2]}, up = {iv[4], iv[5], iv[6]};
  vec3 fwd = {F->camera_forward[0], F->camera_forward[1], F->camera_forward[2]};
  vec3 cam = {F->camera_position[0], F->camera_position[1], F->camera_position[2]};
  bool ortho = B->clip[2] > 0.5f;
  vec3 corners[8];
  int n = 0;
  for (int k = 0; k < 2; k++) {
    float d = k ? d1 : d0;
    float hw = ortho ? 1.0f / F->proj[0] : d / F->proj[0];
    float hh = ortho ? 1.0f / F->proj[5] : d / F->proj[5];
    for (int sy = -1; sy <= 1; sy += 2)
      for (int sx = -1; sx <= 1; sx += 2, n++)
        for (int a = 0; a < 3; a++) corners[n][a] = cam[a] + fwd[a] * d + right[a] * hw * (float)sx + up[a] * hh * (float)sy;
  }
  vec3 center = {0, 0, 0};
  for (int i = 0; i < 8; i++) glm_vec3_add(center, corners[i], center);
  glm_vec3_scale(center, 1.0f / 8.0f, center);
  float radius = 0;
  for (int i = 0; i < 8; i++) radius = fmaxf(radius, glm_vec3_distance(center, corners[i]));
  radius = ceilf(radius * 16.0f) / 16.0f;
  if (radius <= 0) radius = 1.0f;
  vec3 L = {sun[0], sun[1], sun[2]};
  vec3 lup = {0, 1, 0};
  if (fabsf(L[1]) > 0.99f) glm_vec3_copy((vec3){0, 0, 1}, lup);
  float back = radius + 100.0f; /* casters behind the slice still throw shadows into it */
  vec3 eye;
  glm_vec3_scale(L, -back, eye);
  glm_vec3_add(eye, center, eye);
  mat4 view, proj, vp;
  glm_lookat(eye, center, lup, view);
  glm_ortho(-radius, radius, -radius, radius, 0.0f, back + radius, proj);
  glm_mat4_mul(proj, view, vp);
  vec4 origin = {0, 0, 0, 1}, o;
  glm_mat4_mulv(vp, origin, o);
  float half = (float)size * 0.5f;
  float ox = o[0] * half, oy = o[1] * half;
  proj[3][0] += (roundf(ox) - ox) / half;
  proj[3][1] += (roundf(oy) - oy) / half;
  glm_mat4_mul(proj, view, vp);
  memcpy(out, vp, sizeof(float) * 16);
}

bool ty_feature_shadow(ty_renderer *R, ty_frame *F, const ty_feature_opts *o) {
  if (!F->has_sun) return true; /* nothing casts: no map, lit passes skip the lookup */
  ty_render_note_shadow_range(R, o->shadow.distance > 0 ? o->shadow.distance : 50.0f);
  uint32_t cascades = o->shadow.cascades ? o->shadow.cascades : 4;
  if (cascades > TY_RENDER_MAX_CASCADES) cascades = TY_RENDER_MAX_CASCADES;
  uint32_t size = o->shadow.size ? o->shadow.size : 2048;
  if (size > 8192) size = 8192;
  float distance = o->shadow.distance > 0 ? o->shadow.distance : 50.0f;
  float bias = o->shadow.bias > 0 ? o->shadow.bias : 0.002f;
  ty_program *prog = NULL;
  if (ty_render_device(R) && !(prog = need_program(R, "Shadow", "forward/shadow.vert", NULL, NULL))) return false;

  ty_frame_block *B = ty_render_frame_block(R);
  float nearp = B->clip[0] > 0 ? B->clip[0] : 0.1f;
  float farp = fminf(B->clip[1] > nearp ? B->clip[1] : 1000.0f, distance);
  if (B->clip[2] > 0.5f) nearp = fmaxf(B->clip[0], 0.0f); /* orthographic: linear splits from the near plane */
  float prev = nearp;
  for (uint32_t c = 0; c < cascades; c++) {
    float p = (float)(c + 1) / (float)cascades;
    float uni = nearp + (farp - nearp) * p;
    float lg = nearp > 0 ? nearp * powf(farp / nearp, p) : uni;
    float split = 0.75f * lg + 0.25f * uni; /* practical split scheme */
    ty_render_fit_sun(F, B, prev, split, F->sun_direction, size, B->shadow_view_proj[c]);
    B->cascade_splits[c] = split;
    prev = split;
  }
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

/* ---- Overlay ------------------------------------------------------------------------ */

#if TYCHO_WITH_GL
/* One overlay vertex: pixels from the top-left, and a colour. */
typedef struct overlay_vertex {
  float x, y;
  uint8_t rgba[4];
} overlay_vertex;

static struct {
  ty_gl_device *dev;
  ty_gl_buffer vbo;
  ty_gl_vertex_array va;
  size_t cap; /* vertices */
  overlay_vertex *cpu;
  size_t count, cpu_cap;
} overlay;
#endif

void ty_feature_overlay_release(ty_renderer *R) {
#if TYCHO_WITH_GL
  ty_gl_device *dev = ty_render_device(R);
  if (dev && overlay.dev == dev) {
    if (overlay.va.id) ty_gl_destroy_vertex_array(dev, overlay.va);
    if (overlay.vbo.id) ty_gl_destroy_buffer(dev, overlay.vbo);
  }
  TY_FREE(overlay.cpu);
  memset(&overlay, 0, sizeof overlay);
#else
  (void)R;
#endif
}

#if TYCHO_WITH_GL
static void overlay_push(float x, float y, const uint8_t c[4]) {
  if (overlay.count == overlay.cpu_cap) {
    overlay.cpu_cap = overlay.cpu_cap ? overlay.cpu_cap * 2 : 4096;
    overlay.cpu = TY_REALLOC(overlay.cpu, overlay.cpu_cap * sizeof *overlay.cpu);
    TY_ASSERT(overlay.cpu);
  }
  overlay.cpu[overlay.count++] = (overlay_vertex){x, y, {c[0], c[1], c[2], c[3]}};
}

static void overlay_rect(float x0, float y0, float x1, float y1, const uint8_t c[4]) {
  overlay_push(x0, y0, c);
  overlay_push(x1, y0, c);
  overlay_push(x1, y1, c);
  overlay_push(x0, y0, c);
  overlay_push(x1, y1, c);
  overlay_push(x0, y1, c);
}

/* stb_easy_font writes quads (x, y, z, rgba: 16 bytes a vertex); they become triangles. */
static float overlay_text(float x, float y, const char *text, const uint8_t c[4]) {
  static char quads[16 * 4 * 2000];
  char line[512];
  float lines = 0;
  while (*text) {
    size_t n = strcspn(text, "\n");
    if (n >= sizeof line) n = sizeof line - 1;
    memcpy(line, text, n);
    line[n] = 0;
    int q = stb_easy_font_print(x, y + lines * 10.0f, line, (unsigned char *)c, quads, (int)sizeof quads);
    for (int i = 0; i < q; i++) {
      float v[4][2];
      for (int k = 0; k < 4; k++) memcpy(v[k], quads + (i * 4 + k) * 16, sizeof v[k]);
      static const int tri[6] = {0, 1, 2, 0, 2, 3};
      for (int k = 0; k < 6; k++) overlay_push(v[tri[k]][0], v[tri[k]][1], c);
    }
    lines += 1;
    text += n;
    while (*text && *text != '\n') text++;
    if (*text == '\n') text++;
  }
  return lines * 10.0f;
}

typedef struct overlay_pass {
  ty_program *prog;
  rg_resource out;
  const char *extra; /* per-frame copy */
  ty_overlay_corner corner;
} overlay_pass;

/* Measures text the way overlay_text draws it: widest line and height, in pixels. */
static void overlay_measure(const char *text, float *w, float *h) {
  char line[512];
  float lines = 0;
  while (*text) {
    size_t n = strcspn(text, "\n");
    if (n >= sizeof line) n = sizeof line - 1;
    memcpy(line, text, n);
    line[n] = 0;
    float lw = (float)stb_easy_font_width(line);
    if (lw > *w) *w = lw;
    lines += 1;
    text += n;
    while (*text && *text != '\n') text++;
    if (*text == '\n') text++;
  }
  *h += lines * 10.0f;
}

#endif

size_t ty_render_overlay_text(ty_renderer *R, const ty_frame *F, char *buf, size_t size) {
  float times[120];
  uint32_t nt = ty_render_frame_times(R, times, 120);
  double avg = 0, worst = 0;
  for (uint32_t i = 0; i < nt; i++) {
    avg += times[i];
    if (times[i] > worst) worst = times[i];
  }
  avg = nt ? avg / nt : 0;
  const ty_render_stats *st = ty_render_stats_mut(R);
  uint32_t np = 0;
  const ty_render_pass_time *pt = ty_render_pass_times(R, &np);
  /* Shadow casters are counted whether or not a Shadow pass draws them: the figure shows
   * only when one ran (a shadow count with shadows off reads as a bug). */
  bool shadows = false;
  for (uint32_t i = 0; i < np; i++)
    if (strncmp(pt[i].name, "Shadow", 6) == 0) shadows = true;
  size_t len = 0;
#define OUT(...)                                                                        \
  do {                                                                                  \
    int n_ = snprintf(buf ? buf + len : NULL, buf && len < size ? size - len : 0, __VA_ARGS__); \
    if (n_ > 0) len += (size_t)n_;                                                      \
  } while (0)
  OUT("%.1f FPS  %.2f ms (worst %.2f)\ndraw calls %u  draws %u  instances %u  triangles %llu\n",
      avg > 0 ? 1.0 / avg : 0.0, avg * 1000.0, worst * 1000.0, st->draw_calls, st->draws, st->instances,
      (unsigned long long)st->triangles);
  OUT("opaque %u  transparent %u", F->buckets.opaque, F->buckets.transparent);
  if (shadows) OUT("  shadow %u", F->buckets.shadow);
  OUT("  culled %u  lights %u\n", F->buckets.culled, F->light_count);
  /* The passes that ran this frame before the overlay (culled ones never run). */
  double total = 0;
  bool timed = false;
  for (uint32_t i = 0; i < np; i++) {
    if (pt[i].ms >= 0) {
      OUT("  %-22s %7.2f ms\n", pt[i].name, pt[i].ms);
      total += pt[i].ms, timed = true;
    } else {
      OUT("  %s\n", pt[i].name);
    }
  }
  if (timed) OUT("  %-22s %7.2f ms\n", "passes", total);
#undef OUT
  if (buf && size) buf[len < size ? len : size - 1] = 0;
  return len;
}

#if TYCHO_WITH_GL
static void overlay_execute(ty_renderer *R, ty_frame *F, const rg_pass_context *ctx, void *data) {
  overlay_pass *p = data;
  ty_gl_device *dev = ty_render_device(R);
  overlay.count = 0;
  float times[120];
  uint32_t nt = ty_render_frame_times(R, times, 120);
  /* A dark panel under everything, so the text reads over a bright sky. */
  static const uint8_t bg[4] = {0, 0, 0, 200}, fg[4] = {255, 255, 255, 255}, dim[4] = {180, 220, 255, 255},
                       bar[4] = {90, 220, 90, 230}, slow[4] = {240, 80, 60, 235};
  size_t need = ty_render_overlay_text(R, F, NULL, 0) + 1;
  char *text = ty_render_frame_alloc(R, need);
  ty_render_overlay_text(R, F, text, need);
  /* The first three lines above the graph, the pass list under it. */
  char *list = text;
  for (int k = 0; k < 3 && list; k++) list = strchr(list, '\n') ? strchr(list, '\n') + 1 : NULL;
  if (list) list[-1] = 0;
  const float pad = 6, gh = 40, graph_w = 120 * 2;
  float w = graph_w, h = 0;
  overlay_measure(text, &w, &h);
  h += 4 + gh + 6;
  if (list) overlay_measure(list, &w, &h);
  if (p->extra) overlay_measure(p->extra, &w, &h);
  w += 2 * pad, h += 2 * pad;
  /* Its corner, a margin from the edges. */
  const float margin = 8;
  bool right = p->corner == TY_OVERLAY_BOTTOM_RIGHT || p->corner == TY_OVERLAY_TOP_RIGHT;
  bool bottom = p->corner == TY_OVERLAY_BOTTOM_RIGHT || p->corner == TY_OVERLAY_BOTTOM_LEFT;
  float x0 = right ? (float)F->width - w - margin : margin;
  float y0 = bottom ? (float)F->height - h - margin : margin;
  if (x0 < 0) x0 = 0;
  if (y0 < 0) y0 = 0;
  overlay_rect(x0, y0, x0 + w, y0 + h, bg);
  float x = x0 + pad, y = y0 + pad;
  y += overlay_text(x, y, text, fg);
  float gy = y + 4;
  for (uint32_t i = 0; i < nt; i++) {
    float bh = fminf(times[i] / (1.0f / 30.0f), 1.0f) * gh;
    overlay_rect(x + (float)i * 2, gy + gh - bh, x + (float)i * 2 + 1.5f, gy + gh, times[i] > 1.0f / 55.0f ? slow : bar);
  }
  y = gy + gh + 6;
  if (list) y += overlay_text(x, y, list, dim);
  if (p->extra) y += overlay_text(x, y, p->extra, fg);

  if (overlay.dev != dev) memset(&overlay.vbo, 0, sizeof overlay.vbo), overlay.va.id = 0, overlay.cap = 0, overlay.dev = dev;
  if (overlay.count > overlay.cap) {
    if (overlay.va.id) ty_gl_destroy_vertex_array(dev, overlay.va);
    if (overlay.vbo.id) ty_gl_destroy_buffer(dev, overlay.vbo);
    overlay.cap = overlay.count * 2;
    overlay.vbo = ty_gl_make_buffer(dev, &(ty_gl_buffer_desc){.size = overlay.cap * sizeof(overlay_vertex),
                                                              .flags = TY_GL_BUFFER_DYNAMIC, .label = "overlay"});
    ty_gl_vertex_array_desc vd = {.label = "overlay"};
    vd.bindings[0] = (ty_gl_vertex_binding){.buffer = overlay.vbo, .stride = sizeof(overlay_vertex)};
    vd.attrs[0] = (ty_gl_vertex_attr){TY_GL_VERTEX_FLOAT2, 0, offsetof(overlay_vertex, x)};
    vd.attrs[1] = (ty_gl_vertex_attr){TY_GL_VERTEX_UBYTE4N, 0, offsetof(overlay_vertex, rgba)};
    overlay.va = ty_gl_make_vertex_array(dev, &vd);
  }
  if (!overlay.va.id) return;
  ty_gl_update_buffer(dev, overlay.vbo, 0, overlay.cpu, overlay.count * sizeof(overlay_vertex));
  ty_render_target(R, &(ty_render_target_desc){.colors = {rg_context_texture(ctx, p->out)}, .color_count = 1});
  ty_render_set_state(R, &(ty_gl_pipeline_desc){.depth = TY_GL_DEPTH_OFF, .blend = TY_GL_BLEND_ALPHA, .cull = TY_GL_CULL_NONE});
  ty_gl_use_program(dev, p->prog->gl);
  ty_gl_set_uniform(dev, p->prog->gl, 0, TY_GL_UNIFORM_VEC2, 1, (const float[2]){(float)F->width, (float)F->height});
  ty_gl_bind_vertex_array(dev, overlay.va);
  ty_gl_draw(dev, TY_GL_TRIANGLES, 0, (uint32_t)overlay.count, 1);
  ty_render_stats_mut(R)->draw_calls++;
  ty_render_set_state(R, NULL);
}
#endif

bool ty_feature_overlay(ty_renderer *R, ty_frame *F, const ty_feature_opts *o) {
  if (!ty_render_overlay(R)) return true; /* toggled off: nothing to draw */
#if TYCHO_WITH_GL
  ty_program *prog = NULL;
  if (ty_render_device(R) && !(prog = need_program(R, "Overlay", "forward/overlay.vert", "forward/overlay.frag", NULL)))
    return false;
  overlay_pass op = {.prog = prog, .out = F->backbuffer, .corner = o->overlay.corner};
  if (o->overlay.text) {
    size_t n = strlen(o->overlay.text) + 1;
    char *copy = ty_render_frame_alloc(R, n);
    memcpy(copy, o->overlay.text, n);
    op.extra = copy;
  }
  rg_resource rw = F->backbuffer;
  ty_render_mark_write(R, rw);
  ty_render_add_pass(R, F,
                     &(rg_pass_desc){.name = "Overlay", .kind = RG_PASS_RASTER, .reads = &rw, .read_count = 1,
                                     .writes = &rw, .write_count = 1, .side_effect = true},
                     overlay_execute, &op, sizeof op);
#else
  (void)F, (void)o;
#endif
  return true;
}
