/* engine/core/noise.h: seeded noise, the same on every machine: 2D gradient noise and the
 * hash that turns a seed given as text into 32 bits. The block world (engine/terrain/) makes
 * its ground from these; tycho.terrain.noise and tycho.voxel.noise hand them to Lua. The
 * arithmetic is fixed (float, in this order), since saved worlds replay edits onto terrain
 * regenerated from it. */
#ifndef TY_NOISE_H
#define TY_NOISE_H

#include <stddef.h>
#include <stdint.h>

/* Gradient noise at (x, y) for seed, in about -1..1; smooth, 0 at integer points. */
float ty_noise2(uint32_t seed, float x, float y);

/* A seed given as text (or a number written as text) as a 32-bit seed: FNV-1a of its bytes.
 * An integer seed is its low 32 bits; the caller takes those. */
uint32_t ty_noise_seed_text(const char *text, size_t len);

#endif
