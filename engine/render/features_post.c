/* engine/render/features_post.c: the post-processing features that work on hdr.
 *
 *  - TAA: jitters this frame's projection (Halton 2,3 over 8 frames), then blends hdr
 *    with last frame's result reprojected through depth, the history clamped to the
 *    current neighbourhood so moving content does not ghost. The history is two owned
 *    textures used in turn: last frame's imported read-only, this frame's imported for
 *    writing (an imported write is a root, so the pass is never culled).
 *  - Bloom: a soft threshold into half resolution, a downsample chain to 1/16 and a tent
 *    upsample back, each level added on the way up: "bloom", which Tonemap adds.
 *  - DoF: a circle of confusion from view depth against focus and range, and a gather
 *    over a golden-angle disc weighted by the samples' own confusion.
 *
 * Passes that sample hdr render into a fresh "hdr" transient (reading and writing one
 * texture in a draw is undefined). Declaring needs no device. */
#include "features_post.h"

#include <math.h>
#include <string.h>

#include <cglm/cglm.h>

#include "render_internal.h"

enum { UNIT_SRC = 1, UNIT_SRC2 = 2, UNIT_HISTORY = 3, UNIT_DEPTH = 8 };

#define BLOOM_LEVELS 4 /* 1/2, 1/4, 1/8, 1/16 */
#define TAA_JITTER_FRAMES 8
#define TAA_MAX_RENDERERS 8

/* ---- shared -------------------------------------------------------------------------- */

typedef struct post_pass {
  ty_program *prog;
  rg_resource src, src2, depth, history; /* sampled on UNIT_SRC, UNIT_SRC2, UNIT_DEPTH, UNIT_HISTORY */
  rg_resource out, out2;                 /* colour attachments 0 and 1 (out2 may be none) */
  float params[16];
  float matrix[16]; /* TAA: last frame's unjittered view-projection */
} post_pass;

static void run_post(ty_renderer *R, ty_frame *F, const rg_pass_context *ctx, void *data) {
#if TYCHO_WITH_GL
  post_pass *p = data;
  ty_gl_device *dev = ty_render_device(R);
  ty_render_target_desc td = {.colors = {rg_context_texture(ctx, p->out)}, .color_count = 1};
  if (p->out2.id) td.colors[td.color_count++] = rg_context_texture(ctx, p->out2);
  ty_gl_framebuffer fb = ty_render_target(R, &td);
  if (!fb.id || !p->prog || !p->prog->gl.id) return;
  ty_render_set_state(R, &(ty_gl_pipeline_desc){.depth = TY_GL_DEPTH_OFF, .cull = TY_GL_CULL_NONE});
  if (ty_gl_use_program(dev, p->prog->gl) != TY_GL_OK) return;
  ty_render_bind_frame(R, F);
  ty_gl_set_uniform(dev, p->prog->gl, ty_gl_uniform_location(dev, p->prog->gl, "params"), TY_GL_UNIFORM_VEC4, 4,
                    p->params);
  ty_gl_set_uniform(dev, p->prog->gl, ty_gl_uniform_location(dev, p->prog->gl, "reproject"), TY_GL_UNIFORM_MAT4, 1,
                    p->matrix);
  ty_gl_sampler linear = ty_render_sampler_get(R, TY_SAMPLER_LINEAR_CLAMP);
  ty_gl_sampler nearest = ty_render_sampler_get(R, TY_SAMPLER_NEAREST_CLAMP);
  const struct { uint32_t unit; rg_resource r; ty_gl_sampler s; } inputs[] = {
      {UNIT_SRC, p->src, linear}, {UNIT_SRC2, p->src2, linear},
      {UNIT_HISTORY, p->history, linear}, {UNIT_DEPTH, p->depth, nearest}};
  for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++)
    if (inputs[i].r.id) ty_gl_bind_texture(dev, inputs[i].unit, (ty_gl_texture){rg_context_texture(ctx, inputs[i].r)},
                                           inputs[i].s);
  ty_render_fullscreen(R);
#else
  (void)R, (void)F, (void)ctx, (void)data;
#endif
}

static bool need(ty_renderer *R, bool ok, const char *feature, const char *resource, const char *hint) {
  if (!ok) ty_render_fail(R, "feature_missing_input", "%s needs %s: %s", feature, resource, hint);
  return ok;
}

static bool has_hdr(ty_renderer *R, ty_frame *F, const char *feature) {
  return need(R, F->hdr.id != 0 && ty_render_written(R, F->hdr), feature, "hdr",
              "add a lighting feature (ForwardLit or DeferredLighting) before it");
}

/* A fresh hdr version in the same format as the current one, for passes that sample hdr. */
static rg_resource new_hdr(ty_renderer *R, ty_frame *F) {
  const rg_texture_info *info = rg_resource_info(F->graph, F->hdr);
  rg_resource r = rg_transient(F->graph, "hdr",
                               &(rg_texture_desc){.format = info ? info->format : RG_FORMAT_RGBA16F});
  ty_render_mark_write(R, r);
  return r;
}

static rg_pass add_post(ty_renderer *R, ty_frame *F, const char *name, const post_pass *p) {
  rg_resource reads[4], writes[2];
  uint32_t nr = 0, nw = 0;
  if (p->src.id) reads[nr++] = p->src;
  if (p->src2.id) reads[nr++] = p->src2;
  if (p->history.id) reads[nr++] = p->history;
  if (p->depth.id) reads[nr++] = p->depth;
  writes[nw++] = p->out;
  if (p->out2.id) writes[nw++] = p->out2;
  return ty_render_add_pass(R, F,
                            &(rg_pass_desc){.name = name, .reads = reads, .read_count = nr, .writes = writes,
                                            .write_count = nw},
                            run_post, p, sizeof *p);
}

/* ---- TAA ----------------------------------------------------------------------------- */

/* What TAA keeps across frames, per renderer: the two history textures and last
 * frame's unjittered view-projection. Plain storage: the textures belong to the device,
 * which destroys them with itself; a device change (or a resize) makes new ones. */
typedef struct taa_state {
  const ty_renderer *owner;
  ty_gl_device *dev;
  ty_gl_texture history[2];
  uint32_t width, height;
  uint32_t latest;     /* which history holds last frame's result */
  uint64_t frame;      /* F->index of the frame that wrote it */
  bool valid;
  float prev_view_proj[16];
} taa_state;

static taa_state taa_states[TAA_MAX_RENDERERS];

static taa_state *taa_state_of(const ty_renderer *R) {
  taa_state *free_slot = NULL;
  for (int i = 0; i < TAA_MAX_RENDERERS; i++) {
    if (taa_states[i].owner == R) return &taa_states[i];
    if (!taa_states[i].owner && !free_slot) free_slot = &taa_states[i];
  }
  if (!free_slot) free_slot = &taa_states[0]; /* more renderers than slots: share, history resets */
  memset(free_slot, 0, sizeof *free_slot);
  free_slot->owner = R;
  return free_slot;
}

/* Makes sure the history textures exist on the current device at the frame's size. */
static void taa_prepare(taa_state *s, ty_gl_device *dev, uint32_t w, uint32_t h) {
  if (s->dev == dev && s->width == w && s->height == h && (!dev || s->history[0].id)) return;
  if (s->dev && s->dev == dev)
    for (int i = 0; i < 2; i++)
      if (s->history[i].id) ty_gl_destroy_texture(dev, s->history[i]);
  memset(s->history, 0, sizeof s->history);
  s->dev = dev;
  s->width = w;
  s->height = h;
  s->valid = false;
  if (!dev) return;
  for (int i = 0; i < 2; i++)
    s->history[i] = ty_gl_make_texture(dev, &(ty_gl_texture_desc){.width = w, .height = h,
                                                                  .format = RG_FORMAT_RGBA16F,
                                                                  .label = "taa.history"});
}

static float halton(uint32_t i, uint32_t base) {
  float f = 1.0f, r = 0.0f;
  for (; i > 0; i /= base) {
    f /= (float)base;
    r += f * (float)(i % base);
  }
  return r;
}

/* Shifts this frame's projection by (jx, jy) pixels in the Frame block: every pass of
 * the frame draws with it, since the block is uploaded once before execution. The shift
 * is a clip-space translation by 2j/size * w, so it works for ortho and perspective. */
static void apply_jitter(ty_renderer *R, ty_frame *F, float jx, float jy) {
  ty_frame_block *b = ty_render_frame_block(R);
  float sx = 2.0f * jx / (float)F->width, sy = 2.0f * jy / (float)F->height;
  mat4 proj, view, vp, inv;
  memcpy(proj, b->proj, sizeof proj);
  memcpy(view, b->view, sizeof view);
  for (int c = 0; c < 4; c++) {
    proj[c][0] += sx * proj[c][3];
    proj[c][1] += sy * proj[c][3];
  }
  glm_mat4_mul(proj, view, vp);
  memcpy(b->proj, proj, sizeof proj);
  memcpy(b->view_proj, vp, sizeof vp);
  glm_mat4_inv(vp, inv);
  memcpy(b->inv_view_proj, inv, sizeof inv);
  glm_mat4_inv(proj, inv);
  memcpy(b->inv_proj, inv, sizeof inv);
  b->jitter[0] = jx;
  b->jitter[1] = jy;
}

bool ty_feature_taa(ty_renderer *R, ty_frame *F, const ty_feature_opts *o) {
  if (!has_hdr(R, F, "TAA") || !need(R, ty_render_written(R, F->depth), "TAA", "depth", "add Geometry or ForwardLit before it"))
    return false;
  ty_program *prog = ty_render_program(R, "common/fullscreen.vert", "post/taa.frag", NULL);
  if (!prog) return false;
  ty_gl_device *dev = ty_render_device(R);
  taa_state *s = taa_state_of(R);
  taa_prepare(s, dev, F->width, F->height);
  if (dev && (!s->history[0].id || !s->history[1].id)) {
    ty_render_fail(R, "taa_history", "TAA could not make its history textures: %s", ty_gl_error(dev));
    return false;
  }
  /* A skipped frame (TAA off for a while) leaves a history of some other view. */
  bool valid = s->valid && s->frame + 1 == F->index;

  /* The renderer jitters when the frame asked for it; otherwise TAA does, here. */
  if (F->jitter[0] == 0.0f && F->jitter[1] == 0.0f && F->width && F->height) {
    uint32_t i = (uint32_t)(F->index % TAA_JITTER_FRAMES) + 1;
    apply_jitter(R, F, halton(i, 2) - 0.5f, halton(i, 3) - 0.5f);
  }

  rg_graph *g = F->graph;
  rg_texture_info info = {.width = F->width, .height = F->height, .format = RG_FORMAT_RGBA16F, .layers = 1,
                          .samples = 1};
  uint32_t latest = s->latest & 1u;
  post_pass p = {.prog = prog, .src = F->hdr, .depth = F->depth};
  p.history = rg_import(g, "taa.history", &(rg_import_desc){.texture = s->history[latest].id, .info = info,
                                                            .read_only = true});
  p.out = new_hdr(R, F);
  p.out2 = rg_import(g, "taa.next", &(rg_import_desc){.texture = s->history[latest ^ 1u].id, .info = info});
  float blend = o->taa.blend > 0 ? o->taa.blend : 0.9f;
  if (blend > 0.99f) blend = 0.99f;
  p.params[0] = valid ? blend : 0.0f;
  memcpy(p.matrix, valid ? s->prev_view_proj : F->view_proj, sizeof p.matrix);
  add_post(R, F, "TAA", &p);

  s->latest = latest ^ 1u;
  s->frame = F->index;
  s->valid = true;
  memcpy(s->prev_view_proj, F->view_proj, sizeof s->prev_view_proj);
  F->hdr = p.out;
  return true;
}

/* ---- Bloom --------------------------------------------------------------------------- */

bool ty_feature_bloom(ty_renderer *R, ty_frame *F, const ty_feature_opts *o) {
  if (!has_hdr(R, F, "Bloom")) return false;
  ty_program *pre = ty_render_program(R, "common/fullscreen.vert", "post/bloom_down.frag", "#define PREFILTER 1\n");
  ty_program *down = pre ? ty_render_program(R, "common/fullscreen.vert", "post/bloom_down.frag", NULL) : NULL;
  ty_program *up = down ? ty_render_program(R, "common/fullscreen.vert", "post/bloom_up.frag", NULL) : NULL;
  if (!up) return false;
  float threshold = o->bloom.threshold > 0 ? o->bloom.threshold : 1.0f;

  rg_graph *g = F->graph;
  static const char *const down_names[BLOOM_LEVELS] = {"bloom.down0", "bloom.down1", "bloom.down2", "bloom.down3"};
  static const char *const up_names[BLOOM_LEVELS] = {"bloom", "bloom.up1", "bloom.up2", "bloom.up3"};
  rg_resource levels[BLOOM_LEVELS];
  uint32_t w[BLOOM_LEVELS], h[BLOOM_LEVELS];
  rg_resource src = F->hdr;
  uint32_t sw = F->width ? F->width : 1, sh = F->height ? F->height : 1;
  for (int i = 0; i < BLOOM_LEVELS; i++) {
    w[i] = sw / 2 ? sw / 2 : 1;
    h[i] = sh / 2 ? sh / 2 : 1;
    levels[i] = rg_transient(g, down_names[i],
                             &(rg_texture_desc){.width = w[i], .height = h[i], .format = RG_FORMAT_RGBA16F});
    post_pass p = {.prog = i == 0 ? pre : down, .src = src, .out = levels[i],
                   .params = {1.0f / (float)sw, 1.0f / (float)sh, threshold, threshold * 0.5f}};
    add_post(R, F, i == 0 ? "Bloom.prefilter" : "Bloom.down", &p);
    src = levels[i];
    sw = w[i];
    sh = h[i];
  }
  /* Up the chain: each level is its own downsample plus the tent-filtered level below. */
  rg_resource below = levels[BLOOM_LEVELS - 1];
  for (int i = BLOOM_LEVELS - 2; i >= 0; i--) {
    rg_resource out = rg_transient(g, up_names[i],
                                   &(rg_texture_desc){.width = w[i], .height = h[i], .format = RG_FORMAT_RGBA16F});
    post_pass p = {.prog = up, .src = below, .src2 = levels[i], .out = out,
                   .params = {1.0f / (float)w[i + 1], 1.0f / (float)h[i + 1], 1.0f, 0.0f}};
    add_post(R, F, "Bloom.up", &p);
    below = out;
  }
  ty_render_mark_write(R, below);
  F->bloom = below;
  F->bloom_intensity = o->bloom.intensity > 0 ? o->bloom.intensity : 0.05f;
  return true;
}

/* ---- DoF ----------------------------------------------------------------------------- */

bool ty_feature_dof(ty_renderer *R, ty_frame *F, const ty_feature_opts *o) {
  if (!has_hdr(R, F, "DoF") || !need(R, ty_render_written(R, F->depth), "DoF", "depth", "add Geometry or ForwardLit before it"))
    return false;
  ty_program *prog = ty_render_program(R, "common/fullscreen.vert", "post/dof.frag", NULL);
  if (!prog) return false;
  float focus = o->dof.focus > 0 ? o->dof.focus : 10.0f;
  float range = o->dof.range > 0 ? o->dof.range : 5.0f;
  float radius = o->dof.max_radius > 0 ? o->dof.max_radius : 8.0f;
  if (radius > 32.0f) radius = 32.0f;
  post_pass p = {.prog = prog, .src = F->hdr, .depth = F->depth, .params = {focus, range, radius, 0.0f}};
  p.out = new_hdr(R, F);
  add_post(R, F, "DoF", &p);
  F->hdr = p.out;
  return true;
}
