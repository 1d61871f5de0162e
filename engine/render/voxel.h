/* engine/render/voxel.h: block grids and their meshes, for any game built of cubes.
 *
 * A grid is one byte a cell (0 is air, 1..255 a block type). ty_voxel_mesh turns a grid
 * into ty_mesh_data the renderer draws: one quad per block face that borders air (faces
 * between two solid blocks are never seen, so they are never made), with a flat normal
 * per face and uvs into a texture atlas of equal tiles. A face on the grid's edge looks
 * at the neighbour cell the caller passes in a one-cell border, so chunks mesh alone
 * and still leave no faces between them. TY_VOXEL_ALL_FACES makes every face of every
 * block: the naive baseline the benchmark compares with.
 *
 * Needs no GL. Terrain from a seed (its noise, heights and chunks) is engine/terrain/. */
#ifndef TY_RENDER_VOXEL_H
#define TY_RENDER_VOXEL_H

#include <stdint.h>

#include "mesh.h" /* Required for: ty_mesh_data */

#define TY_VOXEL_TYPES 256
#define TY_VOXEL_MAX_SIDE 1024 /* cells along one axis */

typedef enum ty_voxel_mode {
  TY_VOXEL_CULLED = 0,   /* faces that border air only */
  TY_VOXEL_ALL_FACES,    /* six faces per block: the baseline */
} ty_voxel_mode;

/* Which atlas tile each face of a block type shows. */
typedef struct ty_voxel_tiles {
  uint16_t top, side, bottom;
} ty_voxel_tiles;

typedef struct ty_voxel_desc {
  /* (sx + 2) * (sy + 2) * (sz + 2) cells: the grid with a one-cell border of its
   * neighbours' cells all round; x varies fastest, then z, then y. */
  const uint8_t *cells;
  uint32_t size[3];                  /* sx, sy, sz: the grid without its border */
  const ty_voxel_tiles *tiles;       /* TY_VOXEL_TYPES entries; NULL: type t shows tile t - 1 */
  uint32_t atlas_columns, atlas_rows; /* tile grid of the atlas; 0 means 16 */
  /* Types that do not hide the faces behind them (glass, leaves): 1 = see-through.
   * NULL: every non-zero type is opaque. A see-through block still draws its faces,
   * except against a block of the same type. */
  const uint8_t *see_through;
  ty_voxel_mode mode;
} ty_voxel_desc;

/* Index of cell (x, y, z) in a bordered array of a grid of size s; x, y, z in -1..s. */
static inline uint32_t ty_voxel_index(const uint32_t s[3], int x, int y, int z) {
  return ((uint32_t)(y + 1) * (s[2] + 2) + (uint32_t)(z + 1)) * (s[0] + 2) + (uint32_t)(x + 1);
}

/* Meshes d into out (which it owns afterwards: ty_mesh_free). Positions are in cell
 * units from the grid's corner (cell (x, y, z) spans x..x+1, ...). Returns the number of
 * faces made; false-free: an empty grid gives an empty mesh. */
uint32_t ty_voxel_mesh(const ty_voxel_desc *d, ty_mesh_data *out);

#endif
