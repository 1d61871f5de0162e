/* tests/c/terrain_test.c: heights, chunk layers and trees (noise_test.c tests the noise
 * under them), and the chunk cache answering exactly what ty_terrain_chunk generates
 * (negative coordinates, evictions, the world's edges). The checksums pin the terrain itself: saved worlds store only edits and
 * replay them onto regenerated terrain, so a change there moves every player's world. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/noise.h" /* Required for: ty_noise_seed_text (seeds, checksums) */
#include "terrain/terrain.h"

static uint32_t checksum(const uint8_t *cells, size_t n) { return ty_noise_seed_text((const char *)cells, n); }

static void test_heights_stay_in_the_world(void) {
  /* At (0, 0) every octave is at an integer point: noise 0, so the base height. */
  CHECK_EQ_INT(ty_terrain_height(99, 0, 0), 44);
  int lo = 1000, hi = -1000;
  for (int32_t x = -400; x <= 400; x += 7)
    for (int32_t z = -400; z <= 400; z += 5) {
      int32_t h = ty_terrain_height(2024, x, z);
      if (h < lo) lo = h;
      if (h > hi) hi = h;
    }
  CHECK(lo > 10 && hi < TY_TERRAIN_CY - 8);
  CHECK(hi - lo > 15); /* hills, not a plain */
  /* Far out the heights are still ground. */
  int32_t far = ty_terrain_height(5, TY_TERRAIN_MAX_XZ - 1, -(TY_TERRAIN_MAX_XZ - 1));
  CHECK(far > 0 && far < TY_TERRAIN_CY);
}

/* Every column: stone at the bottom, the top block at the (clamped) height by its band, air
 * above it but for trees, and trees only on grass, trunks of 4 or 5 logs under leaves. */
static void check_chunk_layers(uint32_t seed, int32_t cx, int32_t cz, const uint8_t *cells, int *logs) {
  for (int lx = 0; lx < TY_TERRAIN_CX; lx++)
    for (int lz = 0; lz < TY_TERRAIN_CZ; lz++) {
      int h = ty_terrain_height(seed, cx * TY_TERRAIN_CX + lx, cz * TY_TERRAIN_CZ + lz);
      if (h > TY_TERRAIN_CY - 8) h = TY_TERRAIN_CY - 8;
      uint8_t top = cells[ty_terrain_index(lx, h, lz)];
      uint8_t want = h <= TY_TERRAIN_SEA + 1 ? TY_TERRAIN_SAND : h > 68 ? TY_TERRAIN_SNOW : TY_TERRAIN_GRASS;
      CHECK_EQ_INT(top, want);
      CHECK_EQ_INT(cells[ty_terrain_index(lx, 0, lz)], TY_TERRAIN_STONE);
      CHECK_EQ_INT(cells[ty_terrain_index(lx, h - 4, lz)], TY_TERRAIN_STONE);
      for (int y = 0; y < h; y++) CHECK(cells[ty_terrain_index(lx, y, lz)] != TY_TERRAIN_AIR);
      int trunk = 0;
      for (int y = h + 1; y < TY_TERRAIN_CY; y++) {
        uint8_t c = cells[ty_terrain_index(lx, y, lz)];
        CHECK(c == TY_TERRAIN_AIR || c == TY_TERRAIN_LOG || c == TY_TERRAIN_LEAVES);
        if (c == TY_TERRAIN_LOG) trunk++;
      }
      if (trunk) {
        CHECK_EQ_INT(top, TY_TERRAIN_GRASS);
        CHECK(trunk == 4 || trunk == 5);
        CHECK(lx >= 2 && lx < TY_TERRAIN_CX - 2 && lz >= 2 && lz < TY_TERRAIN_CZ - 2);
        CHECK_EQ_INT(cells[ty_terrain_index(lx, h + 1, lz)], TY_TERRAIN_LOG);
        CHECK_EQ_INT(cells[ty_terrain_index(lx, h + trunk + 1, lz)], TY_TERRAIN_LEAVES);
        *logs += trunk;
      }
    }
}

static void test_chunks_have_layers_and_trees(void) {
  uint8_t *cells = malloc(TY_TERRAIN_CHUNK_CELLS);
  int logs = 0;
  for (int32_t cx = -3; cx <= 3; cx++)
    for (int32_t cz = -3; cz <= 3; cz++) {
      ty_terrain_chunk(1234, cx, cz, cells);
      check_chunk_layers(1234, cx, cz, cells, &logs);
    }
  CHECK(logs > 20); /* about one tree in 97 columns away from the edges */
  free(cells);
}

static void test_chunks_are_pinned(void) {
  /* Checksums of whole chunks: any change to the generator (or to how a compiler rounds it)
   * shows here first. examples/crafty/spec compares with the Lua generator this replaced. */
  uint8_t *cells = malloc(TY_TERRAIN_CHUNK_CELLS);
  ty_terrain_chunk(1234, 0, 0, cells);
  uint32_t a = checksum(cells, TY_TERRAIN_CHUNK_CELLS);
  ty_terrain_chunk(1234, -5, 3, cells);
  uint32_t b = checksum(cells, TY_TERRAIN_CHUNK_CELLS);
  ty_terrain_chunk(ty_noise_seed_text("meadow", 6), 2, -2, cells);
  uint32_t c = checksum(cells, TY_TERRAIN_CHUNK_CELLS);
  CHECK_EQ_INT(a, 0x309587b9u);
  CHECK_EQ_INT(b, 0xe15f9bc8u);
  CHECK_EQ_INT(c, 0x4a5f550fu);
  /* another seed, another chunk */
  ty_terrain_chunk(1235, 0, 0, cells);
  CHECK(checksum(cells, TY_TERRAIN_CHUNK_CELLS) != a);
  free(cells);
}

/* The cache answers cell by cell what the chunks hold, across negative coordinates and
 * chunk borders, and keeps answering right when chunks evict each other. */
static void test_cache_matches_chunks(void) {
  ty_terrain_cache *c = malloc(sizeof *c);
  ty_terrain_cache_init(c, 77);
  uint8_t *cells = malloc(TY_TERRAIN_CHUNK_CELLS);
  const int32_t chunks[][2] = {{-1, -1}, {0, 0}, {-1, 0}, {3, -4}, {7, 0}, {-1, -1}, {3, 0}, {-5, -1}};
  for (size_t i = 0; i < sizeof chunks / sizeof chunks[0]; i++) {
    int32_t cx = chunks[i][0], cz = chunks[i][1];
    ty_terrain_chunk(77, cx, cz, cells);
    size_t wrong = 0;
    for (int y = 0; y < TY_TERRAIN_CY; y += 3)
      for (int lz = 0; lz < TY_TERRAIN_CZ; lz++)
        for (int lx = 0; lx < TY_TERRAIN_CX; lx++)
          wrong += ty_terrain_block(c, cx * TY_TERRAIN_CX + lx, y, cz * TY_TERRAIN_CZ + lz) !=
                   cells[ty_terrain_index(lx, y, lz)];
    CHECK_EQ_INT(wrong, 0);
  }
  /* (-1, -1) and (3, -5) share a slot: alternating between them regenerates, never mixes. */
  for (int k = 0; k < 6; k++) {
    int32_t cx = k % 2 ? 3 : -1, cz = k % 2 ? -5 : -1;
    ty_terrain_chunk(77, cx, cz, cells);
    CHECK_EQ_INT(ty_terrain_block(c, cx * 16 + 5, 20, cz * 16 + 9), cells[ty_terrain_index(5, 20, 9)]);
  }
  CHECK_EQ_INT(ty_terrain_block(c, 3, -1, 3), TY_TERRAIN_AIR);
  CHECK_EQ_INT(ty_terrain_block(c, 3, TY_TERRAIN_CY, 3), TY_TERRAIN_AIR);
  CHECK_EQ_INT(ty_terrain_block(c, 3, 0, 3), TY_TERRAIN_STONE);
  free(cells);
  free(c);
}

static void test_world_edges(void) {
  uint8_t *cells = malloc(TY_TERRAIN_CHUNK_CELLS);
  int logs = 0;
  ty_terrain_chunk(9, TY_TERRAIN_MIN_CHUNK, TY_TERRAIN_MAX_CHUNK, cells);
  check_chunk_layers(9, TY_TERRAIN_MIN_CHUNK, TY_TERRAIN_MAX_CHUNK, cells, &logs);
  ty_terrain_cache *c = malloc(sizeof *c);
  ty_terrain_cache_init(c, 9);
  const int32_t edge = TY_TERRAIN_MAX_XZ - 1;
  CHECK_EQ_INT(ty_terrain_block(c, -edge, 0, edge), TY_TERRAIN_STONE);
  CHECK_EQ_INT(ty_terrain_block(c, edge, 0, -edge), TY_TERRAIN_STONE);
  free(c);
  free(cells);
}

int main(void) {
  RUN(test_heights_stay_in_the_world);
  RUN(test_chunks_have_layers_and_trees);
  RUN(test_chunks_are_pinned);
  RUN(test_cache_matches_chunks);
  RUN(test_world_edges);
  return check_summary();
}
