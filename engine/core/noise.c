/* engine/core/noise.c: seeded gradient noise and the text seed hash (noise.h). */
#include "noise.h"

#include <math.h>

#include "../common.h"

/* A 32-bit integer hash (lowbias32): the same input gives the same gradient everywhere. */
static uint32_t hash3(uint32_t seed, int32_t x, int32_t y) {
  uint32_t h = seed ^ ((uint32_t)x * 0x8da6b343u) ^ ((uint32_t)y * 0xd8163841u);
  h ^= h >> 16;
  h *= 0x7feb352du;
  h ^= h >> 15;
  h *= 0x846ca68bu;
  h ^= h >> 16;
  return h;
}

static float grad(uint32_t seed, int32_t ix, int32_t iy, float dx, float dy) {
  static const float G[8][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1},
                                {0.70710678f, 0.70710678f}, {-0.70710678f, 0.70710678f},
                                {0.70710678f, -0.70710678f}, {-0.70710678f, -0.70710678f}};
  const float *g = G[hash3(seed, ix, iy) & 7u];
  return g[0] * dx + g[1] * dy;
}

static float fade(float t) { return t * t * t * (t * (t * 6.0f - 15.0f) + 10.0f); }

float ty_noise2(uint32_t seed, float x, float y) {
  float fx = floorf(x), fy = floorf(y);
  int32_t ix = (int32_t)fx, iy = (int32_t)fy;
  float dx = x - fx, dy = y - fy;
  float n00 = grad(seed, ix, iy, dx, dy), n10 = grad(seed, ix + 1, iy, dx - 1, dy);
  float n01 = grad(seed, ix, iy + 1, dx, dy - 1), n11 = grad(seed, ix + 1, iy + 1, dx - 1, dy - 1);
  float u = fade(dx), w = fade(dy);
  float a = n00 + u * (n10 - n00), b = n01 + u * (n11 - n01);
  return (a + w * (b - a)) * 1.41421356f;
}

uint32_t ty_noise_seed_text(const char *text, size_t len) {
  TY_ASSERT(text || len == 0);
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < len; i++) h = (h ^ (uint8_t)text[i]) * 16777619u;
  return h;
}
