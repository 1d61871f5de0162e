/* engine/render/gl_timer.h: GPU timer queries (GL_TIME_ELAPSED) for timing passes without
 * stalling: the caller brackets work with begin/end and reads each result frames later,
 * once the driver says it is available. Part of the device layer: the only place these GL
 * calls are made.
 *
 * A ty_gl_timer is a block of queries addressed 0..count-1. Built without GL, or on a
 * driver whose timer has no bits, ty_gl_timer_create returns NULL and nothing is timed. */
#ifndef TY_RENDER_GL_TIMER_H
#define TY_RENDER_GL_TIMER_H

#include <stdbool.h>
#include <stdint.h>

#include "gl_device.h" /* Required for: ty_gl_device */

typedef struct ty_gl_timer ty_gl_timer;

/* count queries on dev's context (current); NULL without timer queries or count 0. */
ty_gl_timer *ty_gl_timer_create(ty_gl_device *dev, uint32_t count);
void ty_gl_timer_destroy(ty_gl_timer *t); /* NULL is fine; dev's context current */
/* Times the GPU work issued between begin and end into query i. One at a time: the
 * queries do not nest. An index past count is ignored. */
void ty_gl_timer_begin(ty_gl_timer *t, uint32_t i);
void ty_gl_timer_end(ty_gl_timer *t);
/* Query i's time in nanoseconds when the GPU has finished it; false (ns untouched) while it
 * has not, never waiting. */
bool ty_gl_timer_result(ty_gl_timer *t, uint32_t i, uint64_t *ns);

#endif
