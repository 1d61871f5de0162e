/* engine/render/particles_pass.h: the Particles pass: every listed particle system
 * (engine/particles) drawn as camera-facing squares, one instanced draw per system, over
 * the scene colour after the lit passes, depth-tested against the scene and not writing
 * depth. The squares face the camera under a perspective and an orthographic camera alike. */
#ifndef TY_RENDER_PARTICLES_PASS_H
#define TY_RENDER_PARTICLES_PASS_H

#include <stdbool.h>
#include <stdint.h>

#include "renderer.h"                /* Required for: ty_renderer, ty_frame */
#include "../particles/particles.h"  /* Required for: ty_particles */

typedef enum ty_particles_blend { TY_PARTICLES_BLEND_ALPHA = 0, TY_PARTICLES_BLEND_ADDITIVE } ty_particles_blend;

typedef struct ty_particles_batch {
  const ty_particles *system; /* read while the pass is declared: its particles are copied */
  uint32_t texture;           /* a texture id; TY_RENDER_TEXTURE_WHITE: plain squares */
  ty_particles_blend blend;
} ty_particles_batch;

/* Declares the pass drawing batches (in order) into F's "hdr". Nothing is declared when
 * no batch holds a particle. False (ty_render_error says why) when the particle shader
 * never compiled. */
bool ty_render_add_particles(ty_renderer *R, ty_frame *F, const ty_particles_batch *batches, uint32_t count);
/* The particles drawn by the last frame's pass (stats and tests). */
uint32_t ty_render_particles_drawn(const ty_renderer *R);
/* Frees the pass's GPU objects; the renderer calls it when its device goes. */
void ty_render_particles_release(ty_renderer *R);

#endif
