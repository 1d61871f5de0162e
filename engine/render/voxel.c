/* engine/render/voxel.c: face-culled meshing of block grids (voxel.h). One pass counts the
 * visible faces so the arrays are allocated once, a second writes them. */
#include "voxel.h"

#include <string.h>

#include "../common.h"

/* One face direction: the normal, which tile slot it shows, and its four corners as
 * offsets from the cell's minimum corner, counter-clockwise seen from outside, starting
 * bottom-left so uv (0,0),(1,0),(1,1),(0,1) stand the texture upright on side faces. */
typedef struct face_def {
  int dx, dy, dz;
  int slot; /* 0 top, 1 side, 2 bottom */
  float corners[4][3];
} face_def;

static const face_def FACES[6] = {
    {1, 0, 0, 1, {{1, 0, 1}, {1, 0, 0}, {1, 1, 0}, {1, 1, 1}}},
    {-1, 0, 0, 1, {{0, 0, 0}, {0, 0, 1}, {0, 1, 1}, {0, 1, 0}}},
    {0, 1, 0, 0, {{0, 1, 1}, {1, 1, 1}, {1, 1, 0}, {0, 1, 0}}},
    {0, -1, 0, 2, {{0, 0, 0}, {1, 0, 0}, {1, 0, 1}, {0, 0, 1}}},
    {0, 0, 1, 1, {{0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}}},
    {0, 0, -1, 1, {{1, 0, 0}, {0, 0, 0}, {0, 1, 0}, {1, 1, 0}}},
};

/* Whether the face of a block of type t towards a neighbour of type n is seen. */
static bool face_visible(const ty_voxel_desc *d, uint8_t t, uint8_t n) {
  if (d->mode == TY_VOXEL_ALL_FACES) return true;
  if (n == 0) return true;
  if (!d->see_through || !d->see_through[n]) return false;
  return n != t;
}

static void tile_of(const ty_voxel_desc *d, uint8_t t, int slot, uint32_t *col, uint32_t *row) {
  uint32_t cols = d->atlas_columns ? d->atlas_columns : 16, rows = d->atlas_rows ? d->atlas_rows : 16;
  uint32_t tile = t ? (uint32_t)t - 1u : 0u;
  if (d->tiles) {
    const ty_voxel_tiles *tt = &d->tiles[t];
    tile = slot == 0 ? tt->top : slot == 1 ? tt->side : tt->bottom;
  }
  tile %= cols * rows;
  *col = tile % cols;
  *row = tile / cols;
}

uint32_t ty_voxel_mesh(const ty_voxel_desc *d, ty_mesh_data *out) {
  TY_ASSERT(d && out && d->cells);
  memset(out, 0, sizeof *out);
  const uint32_t *s = d->size;
  TY_ASSERT(s[0] >= 1 && s[1] >= 1 && s[2] >= 1);
  TY_ASSERT(s[0] <= TY_VOXEL_MAX_SIDE && s[1] <= TY_VOXEL_MAX_SIDE && s[2] <= TY_VOXEL_MAX_SIDE);
  const uint8_t *c = d->cells;
  /* Neighbour offsets in the bordered array. */
  const int32_t row = (int32_t)s[0] + 2, layer = row * ((int32_t)s[2] + 2);
  int32_t step[6];
  for (int f = 0; f < 6; f++) step[f] = FACES[f].dx + FACES[f].dz * row + FACES[f].dy * layer;

  uint32_t faces = 0;
  for (uint32_t y = 0; y < s[1]; y++)
    for (uint32_t z = 0; z < s[2]; z++) {
      uint32_t i = ty_voxel_index(s, 0, (int)y, (int)z);
      for (uint32_t x = 0; x < s[0]; x++, i++) {
        uint8_t t = c[i];
        if (!t) continue;
        for (int f = 0; f < 6; f++) faces += face_visible(d, t, c[(int32_t)i + step[f]]);
      }
    }
  if (!faces) return 0;
  TY_ASSERT(faces <= UINT32_MAX / 6u);
  out->vertices = TY_MALLOC((size_t)faces * 4 * sizeof *out->vertices);
  out->indices = TY_MALLOC((size_t)faces * 6 * sizeof *out->indices);
  TY_ASSERT(out->vertices && out->indices);

  const float cols = (float)(d->atlas_columns ? d->atlas_columns : 16);
  const float rows = (float)(d->atlas_rows ? d->atlas_rows : 16);
  /* A small inset keeps linear filtering and mipmaps from bleeding in the next tile. */
  const float inset_u = 0.02f / cols, inset_v = 0.02f / rows;
  ty_vertex *v = out->vertices;
  uint32_t *ix = out->indices;
  uint32_t nv = 0, ni = 0;
  for (uint32_t y = 0; y < s[1]; y++)
    for (uint32_t z = 0; z < s[2]; z++) {
      uint32_t i = ty_voxel_index(s, 0, (int)y, (int)z);
      for (uint32_t x = 0; x < s[0]; x++, i++) {
        uint8_t t = c[i];
        if (!t) continue;
        for (int f = 0; f < 6; f++) {
          if (!face_visible(d, t, c[(int32_t)i + step[f]])) continue;
          const face_def *fd = &FACES[f];
          uint32_t tc, tr;
          tile_of(d, t, fd->slot, &tc, &tr);
          /* Texture rows are top first; v = 1 is the image's top. */
          float u0 = (float)tc / cols + inset_u, u1 = (float)(tc + 1) / cols - inset_u;
          float v1 = 1.0f - (float)tr / rows - inset_v, v0 = 1.0f - (float)(tr + 1) / rows + inset_v;
          const float uv[4][2] = {{u0, v0}, {u1, v0}, {u1, v1}, {u0, v1}};
          for (int k = 0; k < 4; k++) {
            ty_vertex *o = &v[nv + (uint32_t)k];
            o->position[0] = (float)x + fd->corners[k][0];
            o->position[1] = (float)y + fd->corners[k][1];
            o->position[2] = (float)z + fd->corners[k][2];
            o->normal[0] = (float)fd->dx, o->normal[1] = (float)fd->dy, o->normal[2] = (float)fd->dz;
            o->uv[0] = uv[k][0], o->uv[1] = uv[k][1];
          }
          ix[ni + 0] = nv, ix[ni + 1] = nv + 1, ix[ni + 2] = nv + 2;
          ix[ni + 3] = nv, ix[ni + 4] = nv + 2, ix[ni + 5] = nv + 3;
          nv += 4, ni += 6;
        }
      }
    }
  out->vertex_count = nv;
  out->index_count = ni;
  return faces;
}
