/* engine/render/submit.c: the renderer's GPU side: the shared vertex and index buffers,
 * the instance and indirect-command rings, the Frame block, materials and lights
 * buffers, samplers, material textures, cached framebuffers, pipeline state and the
 * draw submission every feature uses. Without GL every call is a no-op. */
#include "render_core.h"

#include <string.h>

/* ---- GPU resources ------------------------------------------------------------------ */

#if TYCHO_WITH_GL

static void destroy_vaos(ty_renderer *R) {
  for (uint32_t i = 0; i < R->vao_count; i++) ty_gl_destroy_vertex_array(R->dev, R->vaos[i].va);
  R->vao_count = 0;
}

void ty_render_gpu_release(ty_renderer *R) {
  ty_gl_device *dev = R->dev;
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
bool ty_render_upload_meshes(ty_renderer *R) {
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
void ty_render_gpu_write_instances(ty_renderer *R) {
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

void ty_render_upload_frame_data(ty_renderer *R) {
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
  ty_render_draw_runs(R, F, list, prog, 0, ty_bucket_get(R->bucket, list)->run_count);
}

void ty_render_draw_runs(ty_renderer *R, const ty_frame *F, ty_bucket_kind list, ty_program *prog,
                         uint32_t first_run, uint32_t run_count) {
  ty_gl_device *dev = R->dev;
  if (!dev || !prog || !prog->gl.id || !R->gpu_frame_ok || !run_count) return;
  const ty_bucket_list *l = ty_bucket_get(R->bucket, list);
  TY_ASSERT(first_run + run_count <= l->run_count);
  ty_gl_vertex_array va = vao_for(R, R->inst_offset);
  if (!va.id) return;
  ty_gl_use_program(dev, prog->gl);
  ty_gl_bind_vertex_array(dev, va);
  ty_render_bind_frame(R, F);
  if (R->draw_mode == TY_DRAW_MULTI_INDIRECT) ty_gl_bind_buffer(dev, TY_GL_TARGET_INDIRECT, 0, R->cmd_ring, 0, 0);
  ty_render_stats *st = &R->stats;
  for (uint32_t r = first_run; r < first_run + run_count; r++) {
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

void ty_render_evict_targets(ty_renderer *R) {
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

void ty_render_gpu_release(ty_renderer *R) { (void)R; }
ty_gl_sampler ty_render_sampler_get(ty_renderer *R, ty_render_sampler s) { (void)R, (void)s; return (ty_gl_sampler){0}; }
ty_gl_texture ty_render_texture_gl(ty_renderer *R, uint32_t t) { (void)R, (void)t; return (ty_gl_texture){0}; }
void ty_render_gpu_write_instances(ty_renderer *R) { (void)R; }
void ty_render_upload_frame_data(ty_renderer *R) { (void)R; }
bool ty_render_upload_meshes(ty_renderer *R) { (void)R; return false; }
void ty_render_evict_targets(ty_renderer *R) { (void)R; }
void ty_render_bind_frame(ty_renderer *R, const ty_frame *F) { (void)R, (void)F; }
void ty_render_set_state(ty_renderer *R, const ty_gl_pipeline_desc *s) { (void)R, (void)s; }
void ty_render_draw_list(ty_renderer *R, const ty_frame *F, ty_bucket_kind l, ty_program *p) { (void)R, (void)F, (void)l, (void)p; }
void ty_render_fullscreen(ty_renderer *R) { (void)R; }
ty_gl_framebuffer ty_render_target(ty_renderer *R, const ty_render_target_desc *d) { (void)R, (void)d; return (ty_gl_framebuffer){0}; }

#endif
