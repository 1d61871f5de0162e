/* tests/c/time_test.c: the clock's arithmetic and the fixed-step accumulator. */
#include "check.h"
#include "core/time.h"

static void test_clock_tick_scales_delta(void) {
  ty_clock c;
  ty_clock_init(&c);
  ty_clock_tick(&c, 0.1);
  CHECK_NEAR(c.delta, 0.1, 1e-12);
  c.scale = 0.5;
  ty_clock_tick(&c, 0.1);
  CHECK_NEAR(c.delta, 0.05, 1e-12);
  CHECK_NEAR(c.elapsed, 0.15, 1e-12);
  CHECK_NEAR(c.unscaled_elapsed, 0.2, 1e-12);
  CHECK_NEAR(c.unscaled_delta, 0.1, 1e-12);
  c.scale = 0;
  ty_clock_tick(&c, 0.1);
  CHECK_NEAR(c.delta, 0, 1e-12);
  CHECK_NEAR(c.elapsed, 0.15, 1e-12);
  CHECK_EQ_INT(c.frame_count, 3);
  CHECK(c.fps > 0);
}

static void test_loop_accumulates_and_caps(void) {
  ty_clock c;
  ty_loop l;
  ty_clock_init(&c);
  ty_loop_init(&l, 0.01, 4);
  CHECK_EQ_INT(ty_loop_begin(&l, &c, 0.025), 2);
  CHECK_NEAR(ty_loop_alpha(&l), 0.5, 1e-9);
  /* A stall of 1 s is clamped to fixed*maxSubSteps = 0.04: 4 ticks, not 100. */
  CHECK_EQ_INT(ty_loop_begin(&l, &c, 1.0), 4);
  CHECK_NEAR(ty_loop_alpha(&l), 0.5, 1e-9);
  CHECK_NEAR(c.unscaled_elapsed, 1.025, 1e-12);
}

static void test_loop_scale_and_pause(void) {
  ty_clock c;
  ty_loop l;
  ty_clock_init(&c);
  ty_loop_init(&l, 0.01, 8);
  c.scale = 0.5;
  CHECK_EQ_INT(ty_loop_begin(&l, &c, 0.04), 2);
  l.paused = true;
  CHECK_EQ_INT(ty_loop_begin(&l, &c, 0.04), 0);
  CHECK_NEAR(l.accumulator, 0, 1e-12);
  CHECK_NEAR(c.unscaled_delta, 0.04, 1e-12); /* the frame still counts while paused */
  l.paused = false;
  c.scale = 0;
  CHECK_EQ_INT(ty_loop_begin(&l, &c, 0.04), 0);
}

static void test_fixed_tick_fields(void) {
  ty_clock c;
  ty_clock_init(&c);
  ty_clock_frame(&c, 0.5);
  ty_clock_fixed_tick(&c, 0.25);
  ty_clock_fixed_tick(&c, 0.25);
  CHECK_NEAR(c.delta, 0.25, 1e-12);
  CHECK_NEAR(c.elapsed, 0.5, 1e-12);
  CHECK_EQ_INT(c.frame_count, 2);
  CHECK_NEAR(c.unscaled_elapsed, 0.5, 1e-12);
}

int main(void) {
  RUN(test_clock_tick_scales_delta);
  RUN(test_loop_accumulates_and_caps);
  RUN(test_loop_scale_and_pause);
  RUN(test_fixed_tick_fields);
  return check_summary();
}
