/* engine/render/registry.c: the renderer's registries: meshes (their CPU copies
 * concatenated, so the GPU buffers are one upload), textures and materials. Loading files
 * into them is assets.c. */
#include "render_core.h"

#include <string.h>

/* ---- meshes ------------------------------------------------------------------------- */

uint32_t ty_render_add_mesh(ty_renderer *R, const ty_mesh_data *m, const char *name) {
  (void)name;
  TY_ASSERT(m);
  uint32_t id = R->mesh_count;
  TY_GROW(R->meshes, R->mesh_cap, id + 1);
  TY_GROW(R->bmeshes, R->bmesh_cap, id + 1);
  mesh_rec *mr = &R->meshes[id];
  memset(mr, 0, sizeof *mr);
  mr->first_vertex = R->vertex_count;
  mr->vertex_count = m->vertex_count;
  mr->first_index = R->index_count;
  mr->index_count = m->index_count;
  mr->vertex_room = m->vertex_count;
  mr->index_room = m->index_count;
  ty_mesh_bounds(m, mr->center, &mr->radius);
  if (m->vertex_count) {
    TY_GROW(R->vertices, R->vertex_cap, R->vertex_count + m->vertex_count);
    memcpy(R->vertices + R->vertex_count, m->vertices, m->vertex_count * sizeof *m->vertices);
    R->vertex_count += m->vertex_count;
  }
  if (m->index_count) {
    TY_GROW(R->indices, R->index_cap, R->index_count + m->index_count);
    /* Indices out of range would read past the mesh: they become vertex 0 instead. */
    for (uint32_t i = 0; i < m->index_count; i++)
      R->indices[R->index_count + i] = m->indices[i] < m->vertex_count ? m->indices[i] : 0;
    R->index_count += m->index_count;
  }
  R->bmeshes[id] = (ty_bucket_mesh){.index_count = mr->index_count, .first_index = mr->first_index,
                                    .base_vertex = (int32_t)mr->first_vertex};
  R->mesh_count++;
  return id;
}


uint32_t ty_render_mesh_count(const ty_renderer *R) { return R->mesh_count; }

static void widen(uint32_t *lo, uint32_t *hi, uint32_t a, uint32_t b) {
  if (*lo == *hi) *lo = a, *hi = b;
  else {
    if (a < *lo) *lo = a;
    if (b > *hi) *hi = b;
  }
}

/* Packs every mesh's room together again once moved meshes have left more room behind
 * than they use: a game that re-meshes chunks for hours keeps its buffers bounded. The
 * whole arrays upload again (into the same GPU buffers). */
static void compact_meshes(ty_renderer *R) {
  uint32_t nv = 0, ni = 0;
  for (uint32_t i = 0; i < R->mesh_count; i++) nv += R->meshes[i].vertex_room, ni += R->meshes[i].index_room;
  ty_vertex *vertices = TY_MALLOC((nv ? nv : 1) * sizeof *vertices);
  uint32_t *indices = TY_MALLOC((ni ? ni : 1) * sizeof *indices);
  TY_ASSERT(vertices && indices);
  uint32_t v = 0, n = 0;
  for (uint32_t i = 0; i < R->mesh_count; i++) {
    mesh_rec *mr = &R->meshes[i];
    memcpy(vertices + v, R->vertices + mr->first_vertex, mr->vertex_room * sizeof *vertices);
    memcpy(indices + n, R->indices + mr->first_index, mr->index_room * sizeof *indices);
    mr->first_vertex = v, mr->first_index = n;
    v += mr->vertex_room, n += mr->index_room;
    R->bmeshes[i] = (ty_bucket_mesh){.index_count = mr->index_count, .first_index = mr->first_index,
                                     .base_vertex = (int32_t)mr->first_vertex};
  }
  TY_FREE(R->vertices);
  TY_FREE(R->indices);
  R->vertices = vertices, R->vertex_cap = nv ? nv : 1, R->vertex_count = nv;
  R->indices = indices, R->index_cap = ni ? ni : 1, R->index_count = ni;
  R->dead_vertices = R->dead_indices = 0;
  R->uploaded_vertices = R->uploaded_indices = 0;
  R->dirty_v_lo = R->dirty_v_hi = R->dirty_i_lo = R->dirty_i_hi = 0;
}

bool ty_render_update_mesh(ty_renderer *R, uint32_t mesh, const ty_mesh_data *m) {
  TY_ASSERT(m);
  /* The placeholder stands for every missing mesh: it is never rewritten. */
  if (mesh >= R->mesh_count || mesh == TY_RENDER_MESH_PLACEHOLDER) return false;
  mesh_rec *mr = &R->meshes[mesh];
  bool in_place = m->vertex_count <= mr->vertex_room && m->index_count <= mr->index_room;
  if (!in_place) {
    /* Moves to the end of the shared arrays with a quarter more room, so a mesh that
     * grows edit by edit moves rarely; its old range is left unused. */
    uint32_t vroom = m->vertex_count + m->vertex_count / 4 + 16, iroom = m->index_count + m->index_count / 4 + 24;
    R->dead_vertices += mr->vertex_room, R->dead_indices += mr->index_room;
    TY_GROW(R->vertices, R->vertex_cap, R->vertex_count + vroom);
    TY_GROW(R->indices, R->index_cap, R->index_count + iroom);
    mr->first_vertex = R->vertex_count, mr->vertex_room = vroom;
    mr->first_index = R->index_count, mr->index_room = iroom;
    memset(R->vertices + R->vertex_count, 0, vroom * sizeof *R->vertices);
    memset(R->indices + R->index_count, 0, iroom * sizeof *R->indices);
    R->vertex_count += vroom;
    R->index_count += iroom;
  }
  mr->vertex_count = m->vertex_count;
  mr->index_count = m->index_count;
  ty_mesh_bounds(m, mr->center, &mr->radius);
  if (m->vertex_count) memcpy(R->vertices + mr->first_vertex, m->vertices, m->vertex_count * sizeof *m->vertices);
  for (uint32_t i = 0; i < m->index_count; i++)
    R->indices[mr->first_index + i] = m->indices[i] < m->vertex_count ? m->indices[i] : 0;
  if (in_place) {
    widen(&R->dirty_v_lo, &R->dirty_v_hi, mr->first_vertex, mr->first_vertex + m->vertex_count);
    widen(&R->dirty_i_lo, &R->dirty_i_hi, mr->first_index, mr->first_index + m->index_count);
  }
  R->bmeshes[mesh] = (ty_bucket_mesh){.index_count = mr->index_count, .first_index = mr->first_index,
                                      .base_vertex = (int32_t)mr->first_vertex};
  if (R->dead_vertices > 65536 && R->dead_vertices > R->vertex_count / 2) compact_meshes(R);
  return true;
}

void ty_render_mesh_storage(const ty_renderer *R, uint32_t *vertices, uint32_t *indices) {
  if (vertices) *vertices = R->vertex_count;
  if (indices) *indices = R->index_count;
}

bool ty_render_mesh_info(const ty_renderer *R, uint32_t mesh, uint32_t *vertices, uint32_t *indices) {
  if (mesh >= R->mesh_count) return false;
  if (vertices) *vertices = R->meshes[mesh].vertex_count;
  if (indices) *indices = R->meshes[mesh].index_count;
  return true;
}

bool ty_render_mesh_data(const ty_renderer *R, uint32_t mesh, const ty_vertex **vertices, uint32_t *vertex_count,
                         const uint32_t **indices, uint32_t *index_count) {
  if (mesh >= R->mesh_count) return false;
  const mesh_rec *mr = &R->meshes[mesh];
  *vertices = mr->vertex_count ? R->vertices + mr->first_vertex : NULL;
  *vertex_count = mr->vertex_count;
  *indices = mr->index_count ? R->indices + mr->first_index : NULL;
  *index_count = mr->index_count;
  return true;
}


/* ---- textures ----------------------------------------------------------------------- */

uint32_t ty_render_add_texture(ty_renderer *R, uint32_t width, uint32_t height, const uint8_t *rgba, const char *name) {
  (void)name;
  TY_ASSERT(width > 0 && height > 0 && rgba);
  uint32_t id = R->texture_count;
  TY_GROW(R->textures, R->texture_cap, id + 1);
  tex_rec *t = &R->textures[id];
  memset(t, 0, sizeof *t);
  t->width = width;
  t->height = height;
  size_t bytes = (size_t)width * height * 4;
  t->pixels = TY_MALLOC(bytes);
  TY_ASSERT(t->pixels);
  memcpy(t->pixels, rgba, bytes);
  R->texture_count++;
  return id;
}


bool ty_render_texture_size(const ty_renderer *R, uint32_t texture, uint32_t *width, uint32_t *height) {
  if (texture >= R->texture_count) return false;
  if (width) *width = R->textures[texture].width;
  if (height) *height = R->textures[texture].height;
  return true;
}

/* ---- materials ---------------------------------------------------------------------- */

ty_material ty_material_default(void) {
  return (ty_material){.base_color = {1, 1, 1, 1}, .metallic = 0.0f, .roughness = 0.5f,
                       .texture = TY_RENDER_TEXTURE_WHITE};
}

uint32_t ty_render_add_material(ty_renderer *R, const ty_material *m) {
  TY_ASSERT(m);
  uint32_t id = R->material_count;
  TY_GROW(R->materials, R->material_cap, id + 1);
  R->materials[id] = *m;
  R->material_count++;
  R->materials_dirty = true;
  return id;
}

bool ty_render_set_material(ty_renderer *R, uint32_t material, const ty_material *m) {
  if (material >= R->material_count || !m) return false;
  R->materials[material] = *m;
  R->materials_dirty = true;
  return true;
}

const ty_material *ty_render_material(const ty_renderer *R, uint32_t material) {
  return material < R->material_count ? &R->materials[material] : NULL;
}

void ty_render_registry_free(ty_renderer *R) {
  for (uint32_t i = 0; i < R->texture_count; i++) {
    TY_FREE(R->textures[i].pixels);
    TY_FREE(R->textures[i].path);
  }
  TY_FREE(R->textures);
  for (uint32_t i = 0; i < R->mesh_count; i++) TY_FREE(R->meshes[i].path);
  TY_FREE(R->meshes);
  TY_FREE(R->bmeshes);
  TY_FREE(R->vertices);
  TY_FREE(R->indices);
  TY_FREE(R->materials);
}
