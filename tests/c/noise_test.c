/* tests/c/noise_test.c: core's seeded noise: the text seed hash is FNV-1a, and the gradient
 * noise is 0 at integer points, bounded, repeatable, seeded and smooth. terrain_test.c pins
 * the terrain built over it. */
#include <stdbool.h>

#include "check.h"
#include "core/noise.h"

static void test_seed_text_is_fnv1a(void) {
  CHECK_EQ_INT(ty_noise_seed_text("", 0), 2166136261u);
  CHECK_EQ_INT(ty_noise_seed_text("a", 1), 0xe40c292cu);
  CHECK_EQ_INT(ty_noise_seed_text("foobar", 6), 0xbf9cf968u);
}

static void test_noise_is_smooth_and_seeded(void) {
  for (int i = -3; i <= 3; i++) CHECK_EQ_INT(ty_noise2(7, (float)i, (float)(2 * i)) == 0.0f, 1);
  bool differs = false;
  for (int i = 0; i < 2000; i++) {
    float x = (float)i * 0.37f - 300.0f, y = (float)i * 0.53f + 11.0f;
    float n = ty_noise2(1234, x, y);
    CHECK(n >= -1.01f && n <= 1.01f);
    CHECK(n == ty_noise2(1234, x, y));
    if (n != ty_noise2(1235, x, y)) differs = true;
    /* smooth: a hundredth of a cell moves it a little */
    CHECK(fabsf(n - ty_noise2(1234, x + 0.01f, y)) < 0.05f);
  }
  CHECK(differs);
}

int main(void) {
  RUN(test_seed_text_is_fnv1a);
  RUN(test_noise_is_smooth_and_seeded);
  return check_summary();
}
