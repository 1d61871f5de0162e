/* engine/core/transform.h: hierarchical transforms with compare-on-read caching.
 *
 * A transform's local TRS (position, rotation quaternion, scale: ten floats) is plain
 * memory that callers write directly through ty_transform_write(). Nothing is recomputed
 * on write. On read, a world matrix is rebuilt only when the ten scalars differ from the
 * ten baked into the cached local matrix (the baked copy starts as NaN, so the first read
 * always builds) or when the parent's world version differs from the one this matrix was
 * built against. World versions come from one counter shared by the whole container, so a
 * re-parent or detach changes the version a child sees without any notification.
 * The inverse and decomposed world rotation/scale are cached against the world version.
 *
 * Every write marks the transform "touched"; ty_transforms_sync() walks only touched
 * subtrees, so a frame where nothing moved costs nothing, and after a sync every read is
 * a plain load until the next write.
 */
#ifndef TY_TRANSFORM_H
#define TY_TRANSFORM_H

#include "../common.h"

#define TY_TRANSFORM_NONE UINT32_MAX

/* The ten scalars of a local transform. Rotation is a unit quaternion x, y, z, w. */
typedef struct ty_trs {
  float pos[3];
  float rot[4];
  float scale[3];
} ty_trs;

typedef struct ty_transform_stats {
  uint64_t local_rebuilds; /* local TRS matrices recomputed */
  uint64_t world_rebuilds; /* world matrices recomputed (roots included) */
} ty_transform_stats;

typedef struct ty_transforms ty_transforms;

ty_transforms *ty_transforms_create(void);
void ty_transforms_destroy(ty_transforms *T);

/* A new transform at the identity, with no parent. Returns its index. */
uint32_t ty_transform_create(ty_transforms *T);
/* Detaches i from its parent, makes each of its children a root, and frees the index. */
void ty_transform_destroy(ty_transforms *T, uint32_t i);
/* Indices are handed out densely from 0: ty_transform_create returns the lowest free one. */
uint32_t ty_transforms_capacity(const ty_transforms *T);

/* Local TRS: read it freely; write only through the pointer ty_transform_write returns. */
const ty_trs *ty_transform_local(const ty_transforms *T, uint32_t i);
ty_trs *ty_transform_write(ty_transforms *T, uint32_t i);

/* Hierarchy. set_parent keeps the child's local TRS (it moves with the new parent) and
 * returns false, changing nothing, when parent is i or one of i's descendants. */
bool ty_transform_set_parent(ty_transforms *T, uint32_t i, uint32_t parent);
uint32_t ty_transform_parent(const ty_transforms *T, uint32_t i);
uint32_t ty_transform_first_child(const ty_transforms *T, uint32_t i);
uint32_t ty_transform_next_sibling(const ty_transforms *T, uint32_t i);

/* World values, brought up to date on read. The matrix is column-major (cglm's mat4) and
 * owned by the container: valid until the next write, re-parent or destroy. */
const float *ty_transform_world(ty_transforms *T, uint32_t i);
const float *ty_transform_world_inverse(ty_transforms *T, uint32_t i);
void ty_transform_world_position(ty_transforms *T, uint32_t i, float out[3]);
void ty_transform_world_rotation(ty_transforms *T, uint32_t i, float out[4]);
void ty_transform_world_scale(ty_transforms *T, uint32_t i, float out[3]);
/* The version of i's current world matrix (after bringing it up to date). */
uint32_t ty_transform_world_version(ty_transforms *T, uint32_t i);

/* Render offsets: a rigid world-space transform (column-major 4x4) that moves i and its
 * subtree where they are drawn, never where they are: physics interpolation blends a body
 * between its last two steps for the frame while game logic reads the stepped pose. NULL
 * clears it; destroying i clears it too. */
void ty_transform_set_render_offset(ty_transforms *T, uint32_t i, const float m[16]);
/* The world matrix as drawn: the world matrix, after the render offset of i or of its
 * nearest ancestor that has one. Owned by the container: valid until the next call for i
 * or the next write. The world matrix itself when no offset is set anywhere. */
const float *ty_transform_render_world(ty_transforms *T, uint32_t i);

/* Brings every touched subtree up to date: the once-per-frame pass. It first calls the
 * pull hook, if one is set, so a host that keeps local TRS in memory of its own (the Lua
 * binding's position tables) writes what changed there through ty_transform_write. */
void ty_transforms_sync(ty_transforms *T);
typedef void (*ty_transforms_pull_fn)(void *user);
void ty_transforms_set_pull(ty_transforms *T, ty_transforms_pull_fn pull, void *user);

ty_transform_stats ty_transforms_stats(const ty_transforms *T);
void ty_transforms_reset_stats(ty_transforms *T);

#endif
