/* engine/particles/particles.c: the particle pool of particles.h: emission, integration,
 * removal of the dead and the colour and size curves. */
#include "particles.h"

#include <math.h>
#include <string.h>

#include "../common.h"

#define TY_PI 3.14159265358979f

struct ty_particles {
  ty_particles_desc desc;
  uint32_t count, cap;
  /* Structure of arrays, cap entries each. */
  float *px, *py, *pz, *vx, *vy, *vz, *age, *life;
  uint64_t rng;
  uint64_t emitted;
  float carry;         /* the fraction of a particle the rate owes */
  float last[3];       /* the origin of the last update */
  bool has_last;
  float curve[TY_PARTICLES_CURVE_SAMPLES][5]; /* rgba, size */
};

/* ---- the generator: splitmix64, one 64-bit state, well mixed from any seed ---------- */

static uint64_t next_u64(ty_particles *ps) {
  uint64_t z = (ps->rng += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static float next_float(ty_particles *ps) { return (float)(next_u64(ps) >> 40) * (1.0f / 16777216.0f); }

static float between(ty_particles *ps, const float range[2]) {
  return range[0] + (range[1] - range[0]) * next_float(ps);
}

/* ---- options ------------------------------------------------------------------------- */

static void apply_defaults(ty_particles_desc *d) {
  if (d->max_particles == 0) d->max_particles = 1000;
  if (d->max_particles > TY_PARTICLES_CAP) {
    ty_log("particles_capped", "a particle system asked for %u particles: capped at %u", d->max_particles,
           TY_PARTICLES_CAP);
    d->max_particles = TY_PARTICLES_CAP;
  }
  if (d->lifetime[0] <= 0 && d->lifetime[1] <= 0) d->lifetime[0] = d->lifetime[1] = 1;
  if (d->lifetime[1] < d->lifetime[0]) d->lifetime[1] = d->lifetime[0];
  if (d->speed[1] < d->speed[0]) d->speed[1] = d->speed[0];
  float len = sqrtf(d->direction[0] * d->direction[0] + d->direction[1] * d->direction[1] +
                    d->direction[2] * d->direction[2]);
  if (!(len > 0)) {
    d->direction[0] = 0, d->direction[1] = 1, d->direction[2] = 0;
  } else {
    for (int k = 0; k < 3; k++) d->direction[k] /= len;
  }
  if (d->color_count == 0) {
    d->color_count = 1;
    for (int k = 0; k < 4; k++) d->colors[0][k] = 1;
  }
  if (d->color_count > TY_PARTICLES_MAX_KEYS) d->color_count = TY_PARTICLES_MAX_KEYS;
  if (d->size_count == 0) d->size_count = 1, d->sizes[0] = 1;
  if (d->size_count > TY_PARTICLES_MAX_KEYS) d->size_count = TY_PARTICLES_MAX_KEYS;
}

/* Linear interpolation through n evenly spaced keys of width w at t in [0, 1]. */
static void sample_keys(const float *keys, uint32_t n, uint32_t w, float t, float *out) {
  if (n == 1) {
    memcpy(out, keys, w * sizeof *out);
    return;
  }
  float x = t * (float)(n - 1);
  uint32_t i = (uint32_t)x;
  if (i >= n - 1) i = n - 2;
  float f = x - (float)i;
  for (uint32_t k = 0; k < w; k++) out[k] = keys[i * w + k] + (keys[(i + 1) * w + k] - keys[i * w + k]) * f;
}

static void build_curve(ty_particles *ps) {
  const ty_particles_desc *d = &ps->desc;
  for (uint32_t s = 0; s < TY_PARTICLES_CURVE_SAMPLES; s++) {
    float t = (float)s / (float)(TY_PARTICLES_CURVE_SAMPLES - 1);
    sample_keys(&d->colors[0][0], d->color_count, 4, t, ps->curve[s]);
    sample_keys(d->sizes, d->size_count, 1, t, &ps->curve[s][4]);
  }
}

ty_particles *ty_particles_create(const ty_particles_desc *desc) {
  ty_particles *ps = TY_MALLOC(sizeof *ps);
  TY_ASSERT(ps);
  memset(ps, 0, sizeof *ps);
  ty_particles_desc d = desc ? *desc : (ty_particles_desc){0};
  apply_defaults(&d);
  ps->desc = d;
  ps->rng = d.seed;
  build_curve(ps);
  return ps;
}

void ty_particles_destroy(ty_particles *ps) {
  if (!ps) return;
  float *arrays[] = {ps->px, ps->py, ps->pz, ps->vx, ps->vy, ps->vz, ps->age, ps->life};
  for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++) TY_FREE(arrays[i]);
  TY_FREE(ps);
}

void ty_particles_configure(ty_particles *ps, const ty_particles_desc *desc) {
  TY_ASSERT(ps && desc);
  ty_particles_desc d = *desc;
  apply_defaults(&d);
  if (d.seed != ps->desc.seed) ps->rng = d.seed;
  ps->desc = d;
  if (ps->count > d.max_particles) ps->count = d.max_particles;
  build_curve(ps);
}

const ty_particles_desc *ty_particles_get_desc(const ty_particles *ps) { return &ps->desc; }

/* Room for `need` particles in every array. */
static void reserve(ty_particles *ps, uint32_t need) {
  if (need <= ps->cap) return;
  uint32_t cap = ps->cap ? ps->cap : 64;
  while (cap < need) cap *= 2;
  if (cap > ps->desc.max_particles) cap = ps->desc.max_particles;
  float **arrays[] = {&ps->px, &ps->py, &ps->pz, &ps->vx, &ps->vy, &ps->vz, &ps->age, &ps->life};
  for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++) {
    float *p = TY_REALLOC(*arrays[i], (size_t)cap * sizeof(float));
    TY_ASSERT(p);
    *arrays[i] = p;
  }
  ps->cap = cap;
}

/* A unit direction within the spread of desc->direction. */
static void draw_direction(ty_particles *ps, float out[3]) {
  const ty_particles_desc *d = &ps->desc;
  const float *dir = d->direction;
  if (d->planar) {
    float a = atan2f(dir[1], dir[0]) + (next_float(ps) - 0.5f) * d->spread;
    out[0] = cosf(a), out[1] = sinf(a), out[2] = 0;
    return;
  }
  /* Uniform over the spherical cap of half-angle spread / 2 around dir. */
  float half = d->spread * 0.5f;
  if (half > TY_PI) half = TY_PI;
  float cos_t = 1.0f - next_float(ps) * (1.0f - cosf(half));
  float sin_t = sqrtf(fmaxf(0.0f, 1.0f - cos_t * cos_t));
  float phi = next_float(ps) * 2.0f * TY_PI;
  /* An orthonormal basis (t, b) perpendicular to dir. */
  float t[3];
  if (fabsf(dir[0]) < 0.9f) t[0] = 0, t[1] = -dir[2], t[2] = dir[1]; /* dir x (1,0,0) */
  else t[0] = dir[2], t[1] = 0, t[2] = -dir[0];                      /* dir x (0,1,0) */
  float tl = sqrtf(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
  for (int k = 0; k < 3; k++) t[k] /= tl;
  float b[3] = {dir[1] * t[2] - dir[2] * t[1], dir[2] * t[0] - dir[0] * t[2], dir[0] * t[1] - dir[1] * t[0]};
  float c = cosf(phi) * sin_t, s = sinf(phi) * sin_t;
  for (int k = 0; k < 3; k++) out[k] = dir[k] * cos_t + t[k] * c + b[k] * s;
}

/* Emits n particles spread evenly along the segment from -> to over the last `step`
 * seconds: the k-th has flown step * (1 - (k + 1) / n) already (a burst: step 0, from ==
 * to). Returns how many fit under max_particles. */
static uint32_t spawn(ty_particles *ps, uint32_t n, const float from[3], const float to[3], float step) {
  const ty_particles_desc *d = &ps->desc;
  uint32_t room = d->max_particles - ps->count;
  if (n > room) n = room;
  if (!n) return 0;
  reserve(ps, ps->count + n);
  for (uint32_t k = 0; k < n; k++) {
    uint32_t i = ps->count++;
    float f = ((float)k + 1.0f) / (float)n;
    float pre = step * (1.0f - f);
    float dir[3];
    draw_direction(ps, dir);
    float speed = between(ps, d->speed);
    float life = between(ps, d->lifetime);
    float pos[3];
    for (int c = 0; c < 3; c++) pos[c] = from[c] + (to[c] - from[c]) * f;
    if (d->radius > 0) {
      /* Uniform in a disc (planar) or ball of the radius: rejection sampling. */
      float o[3];
      do {
        o[0] = next_float(ps) * 2 - 1, o[1] = next_float(ps) * 2 - 1, o[2] = d->planar ? 0 : next_float(ps) * 2 - 1;
      } while (o[0] * o[0] + o[1] * o[1] + o[2] * o[2] > 1);
      for (int c = 0; c < 3; c++) pos[c] += o[c] * d->radius;
    }
    float v[3] = {dir[0] * speed, dir[1] * speed, dir[2] * speed};
    ps->px[i] = pos[0] + v[0] * pre, ps->py[i] = pos[1] + v[1] * pre, ps->pz[i] = pos[2] + v[2] * pre;
    ps->vx[i] = v[0], ps->vy[i] = v[1], ps->vz[i] = v[2];
    ps->age[i] = pre;
    ps->life[i] = life;
  }
  ps->emitted += n;
  return n;
}

uint32_t ty_particles_emit(ty_particles *ps, uint32_t n, const float origin[3]) {
  TY_ASSERT(ps && origin);
  return spawn(ps, n, origin, origin, 0);
}

void ty_particles_update(ty_particles *ps, float dt, const float origin[3]) {
  TY_ASSERT(ps && origin);
  if (!(dt > 0)) return;
  const ty_particles_desc *d = &ps->desc;
  float gx = d->gravity[0] * dt, gy = d->gravity[1] * dt, gz = d->gravity[2] * dt;
  float keep = d->damping > 0 ? fmaxf(0.0f, 1.0f - d->damping * dt) : 1.0f;
  uint32_t n = ps->count;
  float *px = ps->px, *py = ps->py, *pz = ps->pz, *vx = ps->vx, *vy = ps->vy, *vz = ps->vz, *age = ps->age;
  for (uint32_t i = 0; i < n; i++) {
    vx[i] = (vx[i] + gx) * keep, vy[i] = (vy[i] + gy) * keep, vz[i] = (vz[i] + gz) * keep;
    px[i] += vx[i] * dt, py[i] += vy[i] * dt, pz[i] += vz[i] * dt;
    age[i] += dt;
  }
  /* Remove the dead by moving the last live particle into each hole. */
  float *life = ps->life;
  for (uint32_t i = 0; i < n;) {
    if (age[i] < life[i]) {
      i++;
      continue;
    }
    n--;
    px[i] = px[n], py[i] = py[n], pz[i] = pz[n], vx[i] = vx[n], vy[i] = vy[n], vz[i] = vz[n];
    age[i] = age[n], life[i] = life[n];
  }
  ps->count = n;
  const float *from = ps->has_last ? ps->last : origin;
  if (d->rate > 0 && !d->stopped) {
    ps->carry += d->rate * dt;
    uint32_t due = ps->carry >= (float)UINT32_MAX ? UINT32_MAX : (uint32_t)ps->carry;
    ps->carry -= (float)due;
    if (ps->carry > 1) ps->carry = 0; /* precision lost at a huge rate: owe nothing */
    spawn(ps, due, from, origin, dt);
  }
  memcpy(ps->last, origin, sizeof ps->last);
  ps->has_last = true;
}

void ty_particles_reset(ty_particles *ps) {
  TY_ASSERT(ps);
  ps->count = 0;
  ps->carry = 0;
  ps->emitted = 0;
  ps->has_last = false;
  ps->rng = ps->desc.seed;
}

uint32_t ty_particles_count(const ty_particles *ps) { return ps->count; }

uint64_t ty_particles_emitted(const ty_particles *ps) { return ps->emitted; }

bool ty_particles_position(const ty_particles *ps, uint32_t i, float out[3]) {
  if (i >= ps->count) return false;
  out[0] = ps->px[i], out[1] = ps->py[i], out[2] = ps->pz[i];
  return true;
}

uint32_t ty_particles_write_instances(const ty_particles *ps, ty_particle_instance *out) {
  const float scale = (float)(TY_PARTICLES_CURVE_SAMPLES - 1);
  for (uint32_t i = 0; i < ps->count; i++) {
    float t = ps->age[i] / ps->life[i];
    uint32_t s = (uint32_t)(fminf(fmaxf(t, 0.0f), 1.0f) * scale + 0.5f);
    const float *c = ps->curve[s];
    ty_particle_instance *o = &out[i];
    o->position[0] = ps->px[i], o->position[1] = ps->py[i], o->position[2] = ps->pz[i];
    o->size = c[4];
    o->color[0] = c[0], o->color[1] = c[1], o->color[2] = c[2], o->color[3] = c[3];
  }
  return ps->count;
}
