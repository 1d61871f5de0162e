/* engine/terrain/terrain.h: the block world generated from a seed, the same on every machine.
 *
 * A world is columns of TY_TERRAIN_CX x TY_TERRAIN_CY x TY_TERRAIN_CZ cells (a chunk), one
 * byte a cell (0 air, else a block type), generated from a 32-bit seed: ground from the
 * seeded gradient noise of engine/core/noise.h (stone, then dirt under grass, sand at the
 * shore, stone under snow on the heights) and trees placed by a hash, each wholly inside its
 * chunk so a chunk never depends on its neighbours: crafty's rules, over the engine's noise.
 * The client draws this (examples/crafty meshes chunks with
 * engine/render/voxel.h) and the crafty server checks edits against it: both call these
 * functions, so they agree on every natural block. Nothing here draws; no GL, no Lua.
 *
 * ty_terrain_cache answers one cell at a time from a few generated chunks kept by position,
 * so repeated questions about one neighbourhood generate each chunk once. */
#ifndef TY_TERRAIN_TERRAIN_H
#define TY_TERRAIN_TERRAIN_H

#include <stddef.h>
#include <stdint.h>

#define TY_TERRAIN_CX 16  /* a chunk's cells along x */
#define TY_TERRAIN_CY 128 /* along y: the world's height; above and below is air */
#define TY_TERRAIN_CZ 16  /* along z */
#define TY_TERRAIN_CHUNK_CELLS (TY_TERRAIN_CX * TY_TERRAIN_CY * TY_TERRAIN_CZ)
#define TY_TERRAIN_SEA 40 /* shore level: columns this low (and one above) are sand */
/* Cells are generated for |x|, |z| < TY_TERRAIN_MAX_XZ; chunks for cx, cz in
 * TY_TERRAIN_MIN_CHUNK..TY_TERRAIN_MAX_CHUNK (those that hold such a cell). */
#define TY_TERRAIN_MAX_XZ (1 << 24)
#define TY_TERRAIN_MIN_CHUNK (-(TY_TERRAIN_MAX_XZ / TY_TERRAIN_CX))
#define TY_TERRAIN_MAX_CHUNK (TY_TERRAIN_MAX_XZ / TY_TERRAIN_CX - 1)

/* The block types the generator writes: crafty's ids (examples/crafty/blocks.lua). */
enum {
  TY_TERRAIN_AIR = 0,
  TY_TERRAIN_GRASS = 1,
  TY_TERRAIN_DIRT = 2,
  TY_TERRAIN_STONE = 3,
  TY_TERRAIN_SAND = 4,
  TY_TERRAIN_LOG = 5,
  TY_TERRAIN_LEAVES = 6,
  TY_TERRAIN_SNOW = 10,
};

/* Index of cell (x, y, z) of a chunk: x varies fastest, then z, then y (a VoxelGrid's order). */
static inline uint32_t ty_terrain_index(int x, int y, int z) {
  return ((uint32_t)y * TY_TERRAIN_CZ + (uint32_t)z) * TY_TERRAIN_CX + (uint32_t)x;
}

/* The y of the top block of column (x, z) before trees, unclamped (a chunk clamps it to
 * TY_TERRAIN_CY - 8). Defined for any x, z; the world uses |x|, |z| < TY_TERRAIN_MAX_XZ. */
int32_t ty_terrain_height(uint32_t seed, int32_t x, int32_t z);

/* Writes chunk (cx, cz) — cells x = cx * TY_TERRAIN_CX .. + TY_TERRAIN_CX - 1, and so for z —
 * into cells (TY_TERRAIN_CHUNK_CELLS bytes, ty_terrain_index order). */
void ty_terrain_chunk(uint32_t seed, int32_t cx, int32_t cz, uint8_t *cells);

#define TY_TERRAIN_CACHE_SLOTS 16 /* chunks kept: a 4 x 4 tiling, so any 4 x 4 block of chunks fits */

/* Generated chunks of one seed, kept by position. Large (about 512 KiB): the caller places it. */
typedef struct ty_terrain_cache {
  uint32_t seed;
  uint32_t filled; /* bit i: slot i holds chunk (cx[i], cz[i]) */
  int32_t cx[TY_TERRAIN_CACHE_SLOTS], cz[TY_TERRAIN_CACHE_SLOTS];
  uint8_t cells[TY_TERRAIN_CACHE_SLOTS][TY_TERRAIN_CHUNK_CELLS];
} ty_terrain_cache;

/* Empties c and sets its seed. */
void ty_terrain_cache_init(ty_terrain_cache *c, uint32_t seed);

/* The natural block at (x, y, z): what ty_terrain_chunk puts there, generating its chunk into
 * c when c does not hold it. Air for y outside 0..TY_TERRAIN_CY - 1; |x|, |z| < TY_TERRAIN_MAX_XZ. */
uint8_t ty_terrain_block(ty_terrain_cache *c, int32_t x, int32_t y, int32_t z);

#endif
