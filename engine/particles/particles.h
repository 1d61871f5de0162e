/* engine/particles/particles.h: particle systems simulated on the CPU, no GL.
 *
 * A system is a pool of particles in structure-of-arrays form (positions, velocities,
 * ages, lifetimes in separate arrays, so the integration loop streams through memory).
 * Emission comes from a rate (particles per second, fractions carried to the next update)
 * and from bursts (ty_particles_emit). A particle leaves the emitter at the emitter's
 * world position in a direction within `spread` of `direction` at a speed drawn from
 * `speed`, falls under `gravity`, slows under `damping`, and dies after its lifetime;
 * its colour and size follow curves of up to TY_PARTICLES_MAX_KEYS evenly spaced keys
 * over its life. Particles live in world space: moving the emitter leaves them behind.
 *
 * Every random draw comes from the system's own generator, seeded from desc->seed, so
 * the same desc, updates and bursts give the same particles in any binary.
 *
 *   ps = ty_particles_create(&desc);
 *   ty_particles_update(ps, dt, origin);      each tick: age, move, kill, emit rate * dt
 *   ty_particles_emit(ps, 50, origin);        a burst
 *   n = ty_particles_write_instances(ps, out) what the renderer draws
 *   ty_particles_destroy(ps);
 */
#ifndef TY_PARTICLES_H
#define TY_PARTICLES_H

#include <stdbool.h>
#include <stdint.h>

typedef struct ty_particles ty_particles;

#define TY_PARTICLES_MAX_KEYS 8
/* The most particles one system holds: a larger max_particles is capped, logged. */
#define TY_PARTICLES_CAP 1000000u
/* Samples of the colour and size curves per system, read instead of interpolating keys. */
#define TY_PARTICLES_CURVE_SAMPLES 256u

typedef struct ty_particles_desc {
  uint32_t max_particles;   /* live particles at most [1000]; emission past it is dropped */
  float rate;               /* particles per second [0] */
  float lifetime[2];        /* seconds, min and max [1, 1]; each particle draws one */
  float speed[2];           /* world units per second, min and max [0, 0] */
  float direction[3];       /* the way particles leave; normalised here [0, 1, 0] */
  float spread;             /* radians, the full angle of the cone (or arc when planar) [0] */
  bool planar;              /* 2D: directions stay in the XY plane */
  float gravity[3];         /* acceleration, world units per second squared [0, 0, 0] */
  float damping;            /* velocity lost per second, as a fraction [0] */
  float radius;             /* particles start within this distance of the emitter [0] */
  bool stopped;             /* the rate emits nothing (bursts still do) */
  float colors[TY_PARTICLES_MAX_KEYS][4]; /* linear rgba over life, evenly spaced */
  uint32_t color_count;     /* 0: white */
  float sizes[TY_PARTICLES_MAX_KEYS];     /* world units over life, evenly spaced */
  uint32_t size_count;      /* 0: 1 */
  uint64_t seed;            /* the generator's seed; the same seed, the same particles */
} ty_particles_desc;

/* What the renderer draws per particle: a square of side size facing the camera. */
typedef struct ty_particle_instance {
  float position[3];
  float size;
  float color[4]; /* linear rgba */
} ty_particle_instance;

/* NULL desc: the defaults. Never fails (allocation failure aborts, as TY_GROW does). */
ty_particles *ty_particles_create(const ty_particles_desc *desc);
void ty_particles_destroy(ty_particles *ps);

/* Replaces the options; live particles stay (the newest beyond a smaller max go). The
 * generator is reseeded only when the seed changed. */
void ty_particles_configure(ty_particles *ps, const ty_particles_desc *desc);
const ty_particles_desc *ty_particles_get_desc(const ty_particles *ps);

/* Ages and moves every particle by dt seconds, removes the dead, then emits rate * dt
 * new ones spread along the way the emitter moved from the last update's origin to this
 * one (each aged by how long ago in this step it left). dt <= 0 (or NaN) does nothing. */
void ty_particles_update(ty_particles *ps, float dt, const float origin[3]);
/* Emits n particles at origin now; returns how many fit under max_particles. */
uint32_t ty_particles_emit(ty_particles *ps, uint32_t n, const float origin[3]);
/* Removes every particle, drops the carried fraction and reseeds the generator. */
void ty_particles_reset(ty_particles *ps);

uint32_t ty_particles_count(const ty_particles *ps);
/* Particles emitted since creation or the last reset (the rate and bursts). */
uint64_t ty_particles_emitted(const ty_particles *ps);
/* The live particle i's position (false past the count). */
bool ty_particles_position(const ty_particles *ps, uint32_t i, float out[3]);

/* Writes every live particle's instance into out (room for ty_particles_count); returns
 * how many it wrote. */
uint32_t ty_particles_write_instances(const ty_particles *ps, ty_particle_instance *out);

#endif
