/* engine/core/time.c: the clock's arithmetic and the fixed-step accumulator. */
#include "time.h"

void ty_clock_init(ty_clock *c) {
  *c = (ty_clock){0};
  c->scale = 1.0;
}

static void clock_count_frame(ty_clock *c, double raw_dt) {
  c->fps_window += raw_dt;
  c->fps_frames++;
  if (c->fps_window >= 0.5) {
    c->fps = c->fps_frames / c->fps_window;
    c->fps_window = 0;
    c->fps_frames = 0;
  } else if (c->fps == 0 && raw_dt > 0) {
    c->fps = 1.0 / raw_dt; /* until the first window closes */
  }
}

void ty_clock_tick(ty_clock *c, double dt) {
  c->unscaled_delta = dt;
  c->delta = dt * c->scale;
  c->elapsed += c->delta;
  c->unscaled_elapsed += dt;
  c->frame_count++;
  clock_count_frame(c, dt);
}

void ty_clock_frame(ty_clock *c, double raw_dt) {
  c->unscaled_delta = raw_dt;
  c->unscaled_elapsed += raw_dt;
  clock_count_frame(c, raw_dt);
}

void ty_clock_fixed_tick(ty_clock *c, double fixed_dt) {
  c->delta = fixed_dt;
  c->elapsed += fixed_dt;
  c->frame_count++;
}

void ty_loop_init(ty_loop *l, double fixed_timestep, int max_sub_steps) {
  TY_ASSERT(fixed_timestep > 0 && max_sub_steps >= 1);
  *l = (ty_loop){.fixed_timestep = fixed_timestep, .max_sub_steps = max_sub_steps};
}

int ty_loop_begin(ty_loop *l, ty_clock *c, double raw_dt) {
  if (raw_dt < 0) raw_dt = 0;
  ty_clock_frame(c, raw_dt);
  if (l->paused) return 0;
  double cap = l->fixed_timestep * l->max_sub_steps;
  l->accumulator += (raw_dt < cap ? raw_dt : cap) * c->scale;
  int steps = 0;
  while (l->accumulator >= l->fixed_timestep && steps < l->max_sub_steps) {
    l->accumulator -= l->fixed_timestep;
    steps++;
  }
  return steps;
}

double ty_loop_alpha(const ty_loop *l) { return l->accumulator / l->fixed_timestep; }
