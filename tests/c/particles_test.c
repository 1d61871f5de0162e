/* tests/c/particles_test.c: engine/particles: the colour and size curves reach the
 * instances, the dead leave and the live keep their data, emission follows the rate and
 * the emitter's path, the cap holds, and a seed repeats itself. */
#include "check.h"
#include "particles/particles.h"

static const float ORIGIN[3] = {0, 0, 0};

static void test_curves_reach_the_instances(void) {
  ty_particles_desc d = {.lifetime = {1, 1}, .color_count = 2, .size_count = 3};
  const float colors[2][4] = {{1, 0, 0, 1}, {0, 0, 1, 0}};
  memcpy(d.colors, colors, sizeof colors);
  d.sizes[0] = 2, d.sizes[1] = 4, d.sizes[2] = 0;
  ty_particles *ps = ty_particles_create(&d);
  ty_particle_instance out[1];
  CHECK_EQ_INT(ty_particles_emit(ps, 1, ORIGIN), 1);
  CHECK_EQ_INT(ty_particles_write_instances(ps, out), 1);
  CHECK_NEAR(out[0].color[0], 1, 1e-6);
  CHECK_NEAR(out[0].color[2], 0, 1e-6);
  CHECK_NEAR(out[0].size, 2, 1e-6);
  ty_particles_update(ps, 0.5f, ORIGIN); /* half-way: the middle size key, the colours' mean */
  ty_particles_write_instances(ps, out);
  CHECK_NEAR(out[0].size, 4, 0.02);
  CHECK_NEAR(out[0].color[0], 0.5, 0.01);
  CHECK_NEAR(out[0].color[3], 0.5, 0.01);
  ty_particles_update(ps, 0.25f, ORIGIN);
  ty_particles_write_instances(ps, out);
  CHECK_NEAR(out[0].size, 2, 0.04);
  ty_particles_destroy(ps);
}

static void test_the_dead_leave_and_the_live_keep_their_data(void) {
  /* Lifetimes 0.5..2 and speed 1 straight up: a particle's height is its age, so after
   * the removals every survivor must still be where its own age puts it. */
  ty_particles_desc d = {.lifetime = {0.5f, 2}, .speed = {1, 1}, .direction = {0, 1, 0}, .seed = 9, .max_particles = 500};
  ty_particles *ps = ty_particles_create(&d);
  ty_particles_emit(ps, 500, ORIGIN);
  for (int i = 0; i < 60; i++) ty_particles_update(ps, 1.0f / 60, ORIGIN);
  uint32_t n = ty_particles_count(ps);
  CHECK(n > 100 && n < 500);
  for (uint32_t i = 0; i < n; i++) {
    float p[3];
    CHECK(ty_particles_position(ps, i, p));
    CHECK_NEAR(p[1], 1.0, 1e-4);
  }
  float p[3];
  CHECK(!ty_particles_position(ps, n, p));
  for (int i = 0; i < 60; i++) ty_particles_update(ps, 1.0f / 60, ORIGIN);
  CHECK_EQ_INT(ty_particles_count(ps), 0);
  ty_particles_destroy(ps);
}

static void test_rate_spreads_particles_along_the_emitter_path(void) {
  ty_particles_desc d = {.rate = 600, .lifetime = {10, 10}};
  ty_particles *ps = ty_particles_create(&d);
  const float a[3] = {0, 0, 0}, b[3] = {10, 0, 0};
  ty_particles_update(ps, 0.1f, a); /* 60 at a */
  ty_particles_update(ps, 0.1f, b); /* 60 between a and b */
  CHECK_EQ_INT(ty_particles_count(ps), 120);
  CHECK_EQ_INT(ty_particles_emitted(ps), 120);
  float lo = 1e9f, hi = -1e9f;
  for (uint32_t i = 60; i < 120; i++) {
    float p[3];
    ty_particles_position(ps, i, p);
    lo = p[0] < lo ? p[0] : lo, hi = p[0] > hi ? p[0] : hi;
  }
  CHECK(lo > 0 && lo < 0.5f);
  CHECK_NEAR(hi, 10, 1e-5);
  ty_particles_destroy(ps);
}

static void test_max_particles_caps_emission_and_the_pool(void) {
  ty_particles_desc d = {.max_particles = 10000000};
  ty_particles *ps = ty_particles_create(&d);
  CHECK_EQ_INT(ty_particles_get_desc(ps)->max_particles, TY_PARTICLES_CAP);
  d.max_particles = 10;
  ty_particles_configure(ps, &d);
  CHECK_EQ_INT(ty_particles_emit(ps, 25, ORIGIN), 10);
  CHECK_EQ_INT(ty_particles_emit(ps, 1, ORIGIN), 0);
  d.max_particles = 4;
  ty_particles_configure(ps, &d);
  CHECK_EQ_INT(ty_particles_count(ps), 4);
  ty_particles_destroy(ps);
}

static void test_a_seed_repeats_itself(void) {
  ty_particles_desc d = {.rate = 1000, .lifetime = {0.1f, 1}, .speed = {1, 5}, .spread = 3, .radius = 1,
                         .gravity = {0, -9, 0}, .seed = 77};
  ty_particles *a = ty_particles_create(&d), *b = ty_particles_create(&d);
  d.seed = 78;
  ty_particles *c = ty_particles_create(&d);
  for (int i = 0; i < 30; i++) {
    ty_particles_update(a, 1.0f / 60, ORIGIN);
    ty_particles_update(b, 1.0f / 60, ORIGIN);
    ty_particles_update(c, 1.0f / 60, ORIGIN);
  }
  CHECK_EQ_INT(ty_particles_count(a), ty_particles_count(b));
  int same = 1, differs = 0;
  for (uint32_t i = 0; i < ty_particles_count(a); i++) {
    float pa[3], pb[3], pc[3];
    ty_particles_position(a, i, pa);
    ty_particles_position(b, i, pb);
    if (memcmp(pa, pb, sizeof pa)) same = 0;
    if (ty_particles_position(c, i, pc) && memcmp(pa, pc, sizeof pa)) differs = 1;
  }
  CHECK(same);
  CHECK(differs);
  ty_particles_reset(a); /* reseeds: the same particles again */
  for (int i = 0; i < 30; i++) ty_particles_update(a, 1.0f / 60, ORIGIN);
  float pa[3], pb[3];
  ty_particles_position(a, 7, pa);
  ty_particles_position(b, 7, pb);
  CHECK(!memcmp(pa, pb, sizeof pa));
  ty_particles_destroy(a);
  ty_particles_destroy(b);
  ty_particles_destroy(c);
}

int main(void) {
  RUN(test_curves_reach_the_instances);
  RUN(test_the_dead_leave_and_the_live_keep_their_data);
  RUN(test_rate_spreads_particles_along_the_emitter_path);
  RUN(test_max_particles_caps_emission_and_the_pool);
  RUN(test_a_seed_repeats_itself);
  return check_summary();
}
