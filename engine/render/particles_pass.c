/* engine/render/particles_pass.c: the Particles pass of particles_pass.h. Declaring it
 * copies every batch's particles into per-frame memory (the simulation may run again
 * before the graph executes); executing uploads them into one instance buffer and draws
 * each batch as instanced squares: six indices over four corners, base instance at the
 * batch's first particle. */
#include "particles_pass.h"

#include <stddef.h> /* Required for: offsetof */
#include <stdio.h>  /* Required for: snprintf */

#include "gl_stream.h"
#include "render_internal.h"

typedef struct particles_run {
  uint32_t first, count, texture;
  ty_particles_blend blend;
} particles_run;

/* One set of GPU objects per process, as the UI layer keeps: a game has one renderer; dev
 * says whose they are so a new device never sees stale ones. */
static struct {
  uint32_t drawn;
#if TYCHO_WITH_GL
  ty_gl_device *dev; /* whose indices are */
  ty_gl_buffer indices;
  ty_gl_stream instances;
#endif
} pp;

uint32_t ty_render_particles_drawn(const ty_renderer *R) {
  (void)R;
  return pp.drawn;
}

void ty_render_particles_release(ty_renderer *R) {
#if TYCHO_WITH_GL
  ty_gl_device *dev = ty_render_device(R);
  ty_gl_stream_release(&pp.instances, dev);
  if (dev && pp.dev == dev && pp.indices.id) ty_gl_destroy_buffer(dev, pp.indices);
  pp.dev = NULL, pp.indices.id = 0;
#else
  (void)R;
#endif
}

#if TYCHO_WITH_GL
typedef struct particles_pass {
  ty_program *alpha, *additive;
  rg_resource hdr, depth;
  ty_particle_instance *instances; /* per-frame copy */
  particles_run *runs;
  uint32_t count, run_count;
} particles_pass;

/* Room on the device for n instances: the buffer grows to twice what is asked. */
static bool gpu_reserve(ty_gl_device *dev, uint32_t n) {
  if (pp.dev != dev) pp.dev = dev, pp.indices.id = 0;
  if (!pp.indices.id) {
    static const uint32_t quad[6] = {0, 1, 2, 0, 2, 3};
    pp.indices = ty_gl_make_buffer(dev, &(ty_gl_buffer_desc){.size = sizeof quad, .data = quad,
                                                             .label = "particles.indices"});
    if (!pp.indices.id) return false;
  }
  ty_gl_vertex_array_desc vd = {.label = "particles", .index_buffer = pp.indices};
  vd.bindings[0] = (ty_gl_vertex_binding){.stride = sizeof(ty_particle_instance), .divisor = 1};
  vd.attrs[0] = (ty_gl_vertex_attr){TY_GL_VERTEX_FLOAT4, 0, offsetof(ty_particle_instance, position)};
  vd.attrs[1] = (ty_gl_vertex_attr){TY_GL_VERTEX_FLOAT4, 0, offsetof(ty_particle_instance, color)};
  return ty_gl_stream_reserve(&pp.instances, dev, n, 0, &vd);
}

static void particles_execute(ty_renderer *R, ty_frame *F, const rg_pass_context *ctx, void *data) {
  particles_pass *p = data;
  ty_gl_device *dev = ty_render_device(R);
  if (!p->count || !gpu_reserve(dev, p->count)) return;
  ty_gl_update_buffer(dev, pp.instances.buffer, 0, p->instances, (size_t)p->count * sizeof(ty_particle_instance));
  ty_render_target_desc td = {.colors = {rg_context_texture(ctx, p->hdr)}, .color_count = 1};
  if (p->depth.id) td.depth = rg_context_texture(ctx, p->depth);
  if (!ty_render_target(R, &td).id) return;
  ty_render_bind_frame(R, F);
  ty_gl_bind_vertex_array(dev, pp.instances.va);
  ty_gl_sampler smp = ty_render_sampler_get(R, TY_SAMPLER_LINEAR_CLAMP);
  ty_render_stats *stats = ty_render_stats_mut(R);
  for (uint32_t i = 0; i < p->run_count; i++) {
    const particles_run *run = &p->runs[i];
    bool add = run->blend == TY_PARTICLES_BLEND_ADDITIVE;
    ty_render_set_state(R, &(ty_gl_pipeline_desc){.depth = p->depth.id ? TY_GL_DEPTH_LEQUAL : TY_GL_DEPTH_OFF,
                                                   .no_depth_write = true,
                                                   .blend = add ? TY_GL_BLEND_ADDITIVE : TY_GL_BLEND_ALPHA,
                                                   .cull = TY_GL_CULL_NONE});
    ty_gl_use_program(dev, (add ? p->additive : p->alpha)->gl);
    ty_gl_bind_texture(dev, 0, ty_render_texture_gl(R, run->texture), smp);
    ty_gl_draw_indexed(dev, TY_GL_TRIANGLES, 0, 6, run->count, 0, run->first);
    stats->draw_calls++;
    stats->draws++;
    stats->instances += run->count;
    stats->triangles += 2ull * run->count;
  }
  ty_render_set_state(R, NULL);
}

/* The program for one blend, or NULL with the error naming the pass. */
static ty_program *need_program(ty_renderer *R, const char *defines) {
  ty_program *prog = ty_render_program(R, "particles/particle.vert", "particles/particle.frag", defines);
  if (!prog) {
    char msg[2048];
    snprintf(msg, sizeof msg, "%s", ty_render_error(R));
    ty_render_fail(R, "render_feature_disabled", "Particles: %s", msg);
  }
  return prog;
}
#endif

bool ty_render_add_particles(ty_renderer *R, ty_frame *F, const ty_particles_batch *batches, uint32_t count) {
  TY_ASSERT(R && F && (batches || !count));
  uint32_t total = 0;
  for (uint32_t i = 0; i < count; i++) total += ty_particles_count(batches[i].system);
  pp.drawn = total;
  if (!total || !F->hdr.id) return true;
#if TYCHO_WITH_GL
  particles_pass p = {.hdr = F->hdr};
  if (ty_render_device(R)) {
    p.alpha = need_program(R, NULL);
    p.additive = p.alpha ? need_program(R, "#define ADDITIVE 1\n") : NULL;
    if (!p.additive) return false;
  }
  p.instances = ty_render_frame_alloc(R, (size_t)total * sizeof *p.instances);
  p.runs = ty_render_frame_alloc(R, (size_t)count * sizeof *p.runs);
  for (uint32_t i = 0; i < count; i++) {
    uint32_t n = ty_particles_write_instances(batches[i].system, p.instances + p.count);
    if (!n) continue;
    p.runs[p.run_count++] = (particles_run){p.count, n, batches[i].texture, batches[i].blend};
    p.count += n;
  }
  rg_resource reads[2] = {F->hdr}, writes[1] = {F->hdr};
  uint32_t nr = 1;
  if (F->depth.id && ty_render_written(R, F->depth)) reads[nr++] = p.depth = F->depth;
  ty_render_mark_write(R, F->hdr);
  ty_render_add_pass(R, F,
                     &(rg_pass_desc){.name = "Particles", .kind = RG_PASS_RASTER, .reads = reads, .read_count = nr,
                                     .writes = writes, .write_count = 1},
                     particles_execute, &p, sizeof p);
#endif
  return true;
}
