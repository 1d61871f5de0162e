/* engine/render/fullscreen.c: user fullscreen passes: a fragment shader (a file or
 * source) over the fullscreen triangle, reading up to TY_RENDER_MAX_PASS_READS graph
 * textures and writing one (a fresh version when it also reads it). */
#include "render_core.h"

#include <string.h>

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
  ty_program *prog = ty_render_program_get(R, "common/fullscreen.vert", fs, NULL, desc->shader_source, NULL);
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
