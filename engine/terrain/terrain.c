/* engine/terrain/terrain.c: column heights over core's seeded noise, chunk generation and
 * the chunk cache (terrain.h). The arithmetic is fixed: heights are summed in double from
 * float noise at float coordinates, in this order, so that every build and every machine
 * makes the same blocks (the same ones examples/crafty/world.lua made when it did this in Lua). */
#include "terrain.h"

#include <math.h>
#include <string.h>

#include "../common.h"
#include "core/noise.h" /* Required for: ty_noise2, the ground's octaves */

/* ---- heights ---------------------------------------------------------------------------- */

/* One octave: noise at (x, z) / scale, the coordinates rounded to float as the noise takes them. */
static double octave(uint32_t seed, int32_t x, int32_t z, double scale) {
  return (double)ty_noise2(seed, (float)((double)x / scale), (float)((double)z / scale));
}

int32_t ty_terrain_height(uint32_t seed, int32_t x, int32_t z) {
  /* Rolling hills in three octaves, then mountains where a fourth, slow noise is high. */
  double h = 44.0 + 14.0 * octave(seed, x, z, 96.0);
  h = h + 6.0 * octave(seed + 1u, x, z, 32.0);
  h = h + 2.0 * octave(seed + 2u, x, z, 11.0);
  double mountains = octave(seed + 3u, x, z, 160.0);
  if (mountains > 0.2) h = h + (mountains - 0.2) * 60.0;
  return (int32_t)floor(h);
}

/* ---- chunks ------------------------------------------------------------------------------ */

/* Where trees grow and how tall: a 32-bit hash of the column. */
static uint32_t tree_hash(uint32_t seed, int32_t x, int32_t z) {
  uint32_t h = seed ^ ((uint32_t)x * 374761393u) ^ ((uint32_t)z * 668265263u);
  h = (h ^ (h >> 13)) * 1274126177u;
  return h ^ (h >> 16);
}

/* Fills the box between two corners (both included, in either order) clipped to the chunk. */
static void fill(uint8_t *cells, int x0, int y0, int z0, int x1, int y1, int z1, uint8_t type) {
  int lo[3] = {x0 < x1 ? x0 : x1, y0 < y1 ? y0 : y1, z0 < z1 ? z0 : z1};
  int hi[3] = {x0 < x1 ? x1 : x0, y0 < y1 ? y1 : y0, z0 < z1 ? z1 : z0};
  const int size[3] = {TY_TERRAIN_CX, TY_TERRAIN_CY, TY_TERRAIN_CZ};
  for (int a = 0; a < 3; a++) {
    if (lo[a] < 0) lo[a] = 0;
    if (hi[a] >= size[a]) hi[a] = size[a] - 1;
    if (lo[a] > hi[a]) return;
  }
  for (int y = lo[1]; y <= hi[1]; y++)
    for (int z = lo[2]; z <= hi[2]; z++) memset(cells + ty_terrain_index(lo[0], y, z), type, (size_t)(hi[0] - lo[0] + 1));
}

static void set_cell(uint8_t *cells, int x, int y, int z, uint8_t type) {
  if (y >= 0 && y < TY_TERRAIN_CY) cells[ty_terrain_index(x, y, z)] = type;
}

/* The highest y holding a block in column (x, z), or -1. */
static int top(const uint8_t *cells, int x, int z) {
  for (int y = TY_TERRAIN_CY - 1; y >= 0; y--)
    if (cells[ty_terrain_index(x, y, z)]) return y;
  return -1;
}

void ty_terrain_chunk(uint32_t seed, int32_t cx, int32_t cz, uint8_t *cells) {
  TY_ASSERT(cells);
  TY_ASSERT(cx >= TY_TERRAIN_MIN_CHUNK && cx <= TY_TERRAIN_MAX_CHUNK);
  TY_ASSERT(cz >= TY_TERRAIN_MIN_CHUNK && cz <= TY_TERRAIN_MAX_CHUNK);
  memset(cells, 0, TY_TERRAIN_CHUNK_CELLS);
  const int32_t x0 = cx * TY_TERRAIN_CX, z0 = cz * TY_TERRAIN_CZ;
  for (int lx = 0; lx < TY_TERRAIN_CX; lx++)
    for (int lz = 0; lz < TY_TERRAIN_CZ; lz++) {
      int h = ty_terrain_height(seed, x0 + lx, z0 + lz);
      if (h > TY_TERRAIN_CY - 8) h = TY_TERRAIN_CY - 8;
      fill(cells, lx, 0, lz, lx, h - 4, lz, TY_TERRAIN_STONE);
      if (h <= TY_TERRAIN_SEA + 1) {
        fill(cells, lx, h - 3, lz, lx, h, lz, TY_TERRAIN_SAND);
      } else if (h > 68) {
        fill(cells, lx, h - 3, lz, lx, h - 1, lz, TY_TERRAIN_STONE);
        set_cell(cells, lx, h, lz, TY_TERRAIN_SNOW);
      } else {
        fill(cells, lx, h - 3, lz, lx, h - 1, lz, TY_TERRAIN_DIRT);
        set_cell(cells, lx, h, lz, TY_TERRAIN_GRASS);
      }
    }
  /* Trees two columns in from every edge, so their leaves stay inside the chunk. Order
   * matters: a tree grows only on grass, and earlier trees' leaves may cover a later site. */
  for (int lx = 2; lx < TY_TERRAIN_CX - 2; lx++)
    for (int lz = 2; lz < TY_TERRAIN_CZ - 2; lz++) {
      int32_t x = x0 + lx, z = z0 + lz;
      if (tree_hash(seed, x, z) % 97u != 0) continue;
      int h = top(cells, lx, lz);
      if (h < 0 || cells[ty_terrain_index(lx, h, lz)] != TY_TERRAIN_GRASS) continue;
      int trunk = 4 + (int)(tree_hash(seed + 7u, x, z) % 2u);
      fill(cells, lx - 2, h + trunk - 1, lz - 2, lx + 2, h + trunk, lz + 2, TY_TERRAIN_LEAVES);
      fill(cells, lx - 1, h + trunk + 1, lz - 1, lx + 1, h + trunk + 1, lz + 1, TY_TERRAIN_LEAVES);
      fill(cells, lx, h + 1, lz, lx, h + trunk, lz, TY_TERRAIN_LOG);
    }
}

/* ---- the cache ----------------------------------------------------------------------------- */

void ty_terrain_cache_init(ty_terrain_cache *c, uint32_t seed) {
  TY_ASSERT(c);
  c->seed = seed;
  c->filled = 0;
}

/* Floor division: the chunk that holds coordinate v. */
static int32_t chunk_of(int32_t v, int32_t size) { return (v >= 0 ? v : v - (size - 1)) / size; }

uint8_t ty_terrain_block(ty_terrain_cache *c, int32_t x, int32_t y, int32_t z) {
  TY_ASSERT(c);
  TY_ASSERT(x > -TY_TERRAIN_MAX_XZ && x < TY_TERRAIN_MAX_XZ && z > -TY_TERRAIN_MAX_XZ && z < TY_TERRAIN_MAX_XZ);
  if (y < 0 || y >= TY_TERRAIN_CY) return TY_TERRAIN_AIR;
  int32_t cx = chunk_of(x, TY_TERRAIN_CX), cz = chunk_of(z, TY_TERRAIN_CZ);
  /* The slot is the chunk's position modulo 4 on each axis: neighbours never evict each other. */
  uint32_t slot = ((uint32_t)cx & 3u) | (((uint32_t)cz & 3u) << 2);
  if (!(c->filled & (1u << slot)) || c->cx[slot] != cx || c->cz[slot] != cz) {
    ty_terrain_chunk(c->seed, cx, cz, c->cells[slot]);
    c->cx[slot] = cx, c->cz[slot] = cz;
    c->filled |= 1u << slot;
  }
  return c->cells[slot][ty_terrain_index(x - cx * TY_TERRAIN_CX, y, z - cz * TY_TERRAIN_CZ)];
}
