/* engine/core/time.h: a scene's clock and the fixed-step loop that drives it. */
#ifndef TY_TIME_H
#define TY_TIME_H

#include "../common.h"

typedef struct ty_clock {
  double scale;            /* >= 0: 0 pauses, 0.5 is slow motion */
  double delta;            /* scaled seconds of the current tick */
  double unscaled_delta;   /* raw seconds of the current frame */
  double elapsed;          /* sum of delta */
  double unscaled_elapsed; /* sum of unscaled_delta */
  uint64_t frame_count;    /* ticks run */
  double fps;              /* frames per second over the last half-second window */
  double fps_window;       /* private: unscaled seconds in the current window */
  uint32_t fps_frames;     /* private: frames in the current window */
} ty_clock;

void ty_clock_init(ty_clock *c);
/* scene:update(dt) with no Loop: every field advances by one tick of dt. */
void ty_clock_tick(ty_clock *c, double dt);
/* Under a Loop: once per advance (raw frame time) ... */
void ty_clock_frame(ty_clock *c, double raw_dt);
/* ... and once per fixed tick. */
void ty_clock_fixed_tick(ty_clock *c, double fixed_dt);

typedef struct ty_loop {
  double fixed_timestep; /* seconds per tick, > 0 */
  int max_sub_steps;     /* ticks per advance at most, >= 1 */
  double accumulator;
  bool paused;
} ty_loop;

void ty_loop_init(ty_loop *l, double fixed_timestep, int max_sub_steps);

/* The accumulator step of loop:advance: clamps raw_dt to fixed*maxSubSteps, scales it,
 * adds it (unless paused), and returns how many ticks to run now (<= max_sub_steps),
 * taking them off the accumulator. The caller runs each tick with ty_clock_fixed_tick,
 * then reads ty_loop_alpha. */
int ty_loop_begin(ty_loop *l, ty_clock *c, double raw_dt);
double ty_loop_alpha(const ty_loop *l);

#endif
