/* engine/core/transform.c: the transform hierarchy behind transform.h.
 *
 * Storage is structure-of-arrays indexed by slot, all arrays carved out of one 64-byte
 * aligned block that only create() grows, so reads, writes and sync never allocate.
 * Hot arrays (walked every frame): local TRS, the baked TRS copy, local and world
 * matrices, world/parent versions, the hierarchy links, a verified-epoch stamp and a flag
 * byte. Cold arrays (only touched on demand): the cached inverse and the decomposed world
 * rotation/scale, each tagged with the world version it was computed from.
 *
 * Staleness is found by comparison, never by notification:
 *  - local: the ten floats differ bitwise from the baked copy (which starts as a
 *    signalling NaN pattern that arithmetic never produces, so the first read builds);
 *  - world: the local changed, or the parent's world version differs from the one this
 *    world was built against (0 for a root). Versions come from one monotonic 64-bit
 *    counter per container, so no value is ever reused and a re-parent or detach shows up
 *    as a version mismatch.
 *
 * Epochs make the common cases cheap. Every write, re-parent, create and destroy bumps
 * write_epoch. A node stamped verified == write_epoch is known up to date (and so are its
 * ancestors, which were verified first), so a read climbs only to the nearest verified
 * ancestor. After a sync, synced_epoch == write_epoch and every read is a plain load.
 *
 * Sync relies on one invariant: every node whose local changed, whose world was rebuilt
 * outside a sync walk (by a read), or whose place in the tree changed since the last sync
 * is on the touched list. A sync walk rebuilds a node and then compares its children, so a
 * child that did not rebuild has nothing new above it; its own descendants can only be
 * stale through some touched node, which is processed in its turn. The walk therefore
 * descends only into children that rebuilt, which keeps a sync with every node moving
 * O(n) instead of O(n * depth) when touched nodes overlap.
 */
#include "transform.h"

#include <float.h>
#include <string.h>

#include <cglm/cglm.h>

/* Bit pattern for the baked TRS before the first build: a signalling NaN, which no
 * arithmetic produces (results are quiet NaNs), so a real local value never matches it. */
#define TY_TRANSFORM_UNBAKED 0x7FA5A5A5u

enum {
  TY_TRANSFORM_ALIVE = 1,
  TY_TRANSFORM_TOUCHED = 2,         /* on the touched list (dedup) */
  TY_TRANSFORM_REBUILT_BY_READ = 4, /* world rebuilt outside a sync walk since last sync */
};

/* Every per-slot array, in the order they are laid out in the block. */
#define TY_TRANSFORM_ARRAYS(X)                                                         \
  X(local) X(baked) X(local_mat) X(world) X(world_version) X(parent_version)          \
  X(verified) X(parent) X(first_child) X(last_child) X(next_sibling) X(prev_sibling)  \
  X(flags) X(inverse) X(inverse_version) X(world_rot) X(world_scale) X(decomp_version) \
  X(free_heap) X(touched) X(scratch)

struct ty_transforms {
  uint32_t count; /* one past the highest slot ever handed out */
  uint32_t cap;
  void *block; /* the allocation every array below points into */

  /* hot */
  ty_trs *local;
  ty_trs *baked;
  mat4 *local_mat;
  mat4 *world;
  uint64_t *world_version;
  uint64_t *parent_version; /* parent's world version this world was built against */
  uint64_t *verified;       /* write_epoch at which the node was last found up to date */
  uint32_t *parent, *first_child, *last_child, *next_sibling, *prev_sibling;
  uint8_t *flags;

  /* cold */
  mat4 *inverse;
  uint64_t *inverse_version;
  versor *world_rot;
  vec3 *world_scale;
  uint64_t *decomp_version;

  /* Free slots as a binary min-heap, so create() hands out the lowest one in O(log n). */
  uint32_t *free_heap;
  uint32_t free_count;
  /* Slots to visit at the next sync; at most one entry per slot thanks to the flag. */
  uint32_t *touched;
  uint32_t touched_count;
  /* Room for one entry per slot, so that nothing recurses (chains can be 100k deep): the
   * stale part of an ancestor chain, then the queue of a sync walk. */
  uint32_t *scratch;

  uint64_t version_counter;
  uint64_t write_epoch;
  uint64_t synced_epoch;
  ty_transform_stats stats;
  ty_transforms_pull_fn pull; /* run at the start of every sync */
  void *pull_user;
};

/* ---- storage ------------------------------------------------------------------------ */

static size_t ty_transform_align64(size_t n) { return (n + 63) & ~(size_t)63; }

/* Moves every array into a new block of at least `need` slots. Each array starts on a
 * cache line, which also satisfies cglm's 16 (SSE) or 32 (AVX) byte mat4 alignment. */
static void ty_transforms_grow(ty_transforms *T, uint32_t need) {
  uint32_t cap = T->cap ? T->cap : 64;
  while (cap < need) {
    TY_ASSERT(cap <= UINT32_MAX / 2); /* slot indices must stay below TY_TRANSFORM_NONE */
    cap *= 2;
  }
  size_t size = 0;
#define TY_SIZE_ARRAY(name) size = ty_transform_align64(size) + (size_t)cap * sizeof *T->name;
  TY_TRANSFORM_ARRAYS(TY_SIZE_ARRAY)
#undef TY_SIZE_ARRAY
  char *raw = TY_MALLOC(size + 64);
  if (!raw) {
    fprintf(stderr, "tycho: out of memory growing transforms to %u slots\n", cap);
    abort();
  }
  char *base = (char *)(((uintptr_t)raw + 63) & ~(uintptr_t)63);
  size_t off = 0;
#define TY_MOVE_ARRAY(name)                                                  \
  off = ty_transform_align64(off);                                          \
  if (T->count) memcpy(base + off, T->name, (size_t)T->count * sizeof *T->name); \
  T->name = (void *)(base + off);                                           \
  off += (size_t)cap * sizeof *T->name;
  TY_TRANSFORM_ARRAYS(TY_MOVE_ARRAY)
#undef TY_MOVE_ARRAY
  TY_FREE(T->block);
  T->block = raw;
  T->cap = cap;
}

static void ty_transform_heap_push(ty_transforms *T, uint32_t v) {
  uint32_t *h = T->free_heap, k = T->free_count++;
  while (k > 0) {
    uint32_t up = (k - 1) / 2;
    if (h[up] <= v) break;
    h[k] = h[up];
    k = up;
  }
  h[k] = v;
}

static uint32_t ty_transform_heap_pop(ty_transforms *T) {
  uint32_t *h = T->free_heap, top = h[0], last = h[--T->free_count], n = T->free_count, k = 0;
  for (;;) {
    uint32_t c = 2 * k + 1;
    if (c >= n) break;
    if (c + 1 < n && h[c + 1] < h[c]) c++;
    if (last <= h[c]) break;
    h[k] = h[c];
    k = c;
  }
  if (n) h[k] = last;
  return top;
}

static void ty_transform_check(const ty_transforms *T, uint32_t i) {
  TY_ASSERT(i < T->count && (T->flags[i] & TY_TRANSFORM_ALIVE));
}

static void ty_transform_mark_touched(ty_transforms *T, uint32_t i) {
  if (!(T->flags[i] & TY_TRANSFORM_TOUCHED)) {
    T->flags[i] |= TY_TRANSFORM_TOUCHED;
    T->touched[T->touched_count++] = i;
  }
}

/* ---- container ---------------------------------------------------------------------- */

ty_transforms *ty_transforms_create(void) {
  ty_transforms *T = TY_MALLOC(sizeof *T);
  TY_ASSERT(T);
  memset(T, 0, sizeof *T);
  ty_transforms_grow(T, 64);
  return T;
}

void ty_transforms_destroy(ty_transforms *T) {
  if (!T) return;
  TY_FREE(T->block);
  TY_FREE(T);
}

uint32_t ty_transform_create(ty_transforms *T) {
  uint32_t i;
  if (T->free_count) {
    i = ty_transform_heap_pop(T);
  } else {
    if (T->count == T->cap) ty_transforms_grow(T, T->count + 1);
    i = T->count++;
    T->flags[i] = 0;
  }
  static const ty_trs identity = {{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}};
  T->local[i] = identity;
  const uint32_t unbaked = TY_TRANSFORM_UNBAKED;
  float *b = (float *)&T->baked[i];
  for (size_t k = 0; k < sizeof(ty_trs) / sizeof(float); k++) memcpy(&b[k], &unbaked, sizeof unbaked);
  T->world_version[i] = 0;
  T->parent_version[i] = 0;
  T->verified[i] = 0;
  T->inverse_version[i] = 0;
  T->decomp_version[i] = 0;
  T->parent[i] = T->first_child[i] = T->last_child[i] = TY_TRANSFORM_NONE;
  T->next_sibling[i] = T->prev_sibling[i] = TY_TRANSFORM_NONE;
  /* A reused slot may still be on the touched list from before it was destroyed. */
  T->flags[i] = (uint8_t)((T->flags[i] & TY_TRANSFORM_TOUCHED) | TY_TRANSFORM_ALIVE);
  ty_transform_mark_touched(T, i);
  T->write_epoch++;
  return i;
}

uint32_t ty_transforms_capacity(const ty_transforms *T) { return T->count; }

static void ty_transform_unlink(ty_transforms *T, uint32_t i) {
  uint32_t p = T->parent[i];
  if (p == TY_TRANSFORM_NONE) return;
  uint32_t prev = T->prev_sibling[i], next = T->next_sibling[i];
  if (prev != TY_TRANSFORM_NONE) T->next_sibling[prev] = next;
  else T->first_child[p] = next;
  if (next != TY_TRANSFORM_NONE) T->prev_sibling[next] = prev;
  else T->last_child[p] = prev;
  T->parent[i] = T->prev_sibling[i] = T->next_sibling[i] = TY_TRANSFORM_NONE;
}

void ty_transform_destroy(ty_transforms *T, uint32_t i) {
  ty_transform_check(T, i);
  ty_transform_unlink(T, i);
  for (uint32_t c = T->first_child[i], next; c != TY_TRANSFORM_NONE; c = next) {
    next = T->next_sibling[c];
    T->parent[c] = T->prev_sibling[c] = T->next_sibling[c] = TY_TRANSFORM_NONE;
    ty_transform_mark_touched(T, c);
  }
  T->first_child[i] = T->last_child[i] = TY_TRANSFORM_NONE;
  /* Keep the touched bit: the slot may still be on the list (sync skips it while dead),
   * and a create that reuses it before the sync must not list it twice. */
  T->flags[i] &= TY_TRANSFORM_TOUCHED;
  ty_transform_heap_push(T, i);
  T->write_epoch++;
}

/* ---- local TRS and hierarchy -------------------------------------------------------- */

const ty_trs *ty_transform_local(const ty_transforms *T, uint32_t i) {
  ty_transform_check(T, i);
  return &T->local[i];
}

ty_trs *ty_transform_write(ty_transforms *T, uint32_t i) {
  ty_transform_check(T, i);
  ty_transform_mark_touched(T, i);
  T->write_epoch++;
  return &T->local[i];
}

bool ty_transform_set_parent(ty_transforms *T, uint32_t i, uint32_t parent) {
  ty_transform_check(T, i);
  if (parent != TY_TRANSFORM_NONE) ty_transform_check(T, parent);
  if (parent == i) return false;
  if (T->parent[i] == parent) return true;
  /* A childless node has no descendants, which spares the O(depth) climb when chains are
   * built one link at a time. */
  if (parent != TY_TRANSFORM_NONE && T->first_child[i] != TY_TRANSFORM_NONE) {
    for (uint32_t a = T->parent[parent]; a != TY_TRANSFORM_NONE; a = T->parent[a])
      if (a == i) return false;
  }
  ty_transform_unlink(T, i);
  if (parent != TY_TRANSFORM_NONE) {
    uint32_t last = T->last_child[parent];
    T->parent[i] = parent;
    T->prev_sibling[i] = last;
    if (last != TY_TRANSFORM_NONE) T->next_sibling[last] = i;
    else T->first_child[parent] = i;
    T->last_child[parent] = i;
  }
  ty_transform_mark_touched(T, i);
  T->write_epoch++;
  return true;
}

uint32_t ty_transform_parent(const ty_transforms *T, uint32_t i) {
  ty_transform_check(T, i);
  return T->parent[i];
}

uint32_t ty_transform_first_child(const ty_transforms *T, uint32_t i) {
  ty_transform_check(T, i);
  return T->first_child[i];
}

uint32_t ty_transform_next_sibling(const ty_transforms *T, uint32_t i) {
  ty_transform_check(T, i);
  return T->next_sibling[i];
}

/* ---- bringing worlds up to date ----------------------------------------------------- */

/* T * R * S with the scale folded into the rotation columns. Written out rather than via
 * glm_quat_mat4 because that one divides by |q| instead of |q|^2, which is only right for
 * exactly unit quaternions; dividing by the squared norm keeps a slightly drifted
 * quaternion a pure rotation. */
static void ty_transform_compose(const ty_trs *l, mat4 m) {
  float x = l->rot[0], y = l->rot[1], z = l->rot[2], w = l->rot[3];
  float n = x * x + y * y + z * z + w * w;
  float s = n > 0.0f ? 2.0f / n : 0.0f;
  float xx = s * x * x, yy = s * y * y, zz = s * z * z;
  float xy = s * x * y, xz = s * x * z, yz = s * y * z;
  float wx = s * w * x, wy = s * w * y, wz = s * w * z;
  float sx = l->scale[0], sy = l->scale[1], sz = l->scale[2];
#ifdef CGLM_SSE_FP
  /* Whole-column stores: glm_mul reloads these columns at once right away, and four
   * scalar stores cannot be forwarded to one vector load (the load would stall). */
  glmm_store(m[0], _mm_setr_ps((1.0f - yy - zz) * sx, (xy + wz) * sx, (xz - wy) * sx, 0.0f));
  glmm_store(m[1], _mm_setr_ps((xy - wz) * sy, (1.0f - xx - zz) * sy, (yz + wx) * sy, 0.0f));
  glmm_store(m[2], _mm_setr_ps((xz + wy) * sz, (yz - wx) * sz, (1.0f - xx - yy) * sz, 0.0f));
  glmm_store(m[3], _mm_setr_ps(l->pos[0], l->pos[1], l->pos[2], 1.0f));
#else
  m[0][0] = (1.0f - yy - zz) * sx;
  m[0][1] = (xy + wz) * sx;
  m[0][2] = (xz - wy) * sx;
  m[0][3] = 0.0f;
  m[1][0] = (xy - wz) * sy;
  m[1][1] = (1.0f - xx - zz) * sy;
  m[1][2] = (yz + wx) * sy;
  m[1][3] = 0.0f;
  m[2][0] = (xz + wy) * sz;
  m[2][1] = (yz - wx) * sz;
  m[2][2] = (1.0f - xx - yy) * sz;
  m[2][3] = 0.0f;
  m[3][0] = l->pos[0];
  m[3][1] = l->pos[1];
  m[3][2] = l->pos[2];
  m[3][3] = 1.0f;
#endif
}

/* Brings k up to date, given that its parent already is. Returns whether its world was
 * rebuilt (and so now carries a new version). */
static bool ty_transform_update(ty_transforms *T, uint32_t k) {
  bool local_changed = memcmp(&T->local[k], &T->baked[k], sizeof(ty_trs)) != 0;
  if (local_changed) {
    ty_transform_compose(&T->local[k], T->local_mat[k]);
    T->baked[k] = T->local[k];
    T->stats.local_rebuilds++;
  }
  uint32_t p = T->parent[k];
  uint64_t pv = p == TY_TRANSFORM_NONE ? 0 : T->world_version[p];
  T->verified[k] = T->write_epoch;
  if (!local_changed && pv == T->parent_version[k]) return false;
  if (p == TY_TRANSFORM_NONE) glm_mat4_copy(T->local_mat[k], T->world[k]);
  else glm_mul(T->world[p], T->local_mat[k], T->world[k]); /* affine: skips the w row */
  T->world_version[k] = ++T->version_counter;
  T->parent_version[k] = pv;
  T->stats.world_rebuilds++;
  return true;
}

/* Collects i and its ancestors up to (not including) the nearest one already verified in
 * this epoch, into scratch with i first. Returns how many. */
static uint32_t ty_transform_stale_chain(ty_transforms *T, uint32_t i) {
  uint32_t n = 0;
  for (uint32_t a = i; a != TY_TRANSFORM_NONE && T->verified[a] != T->write_epoch; a = T->parent[a])
    T->scratch[n++] = a;
  return n;
}

/* Compares top's descendants top-down, descending only below nodes that rebuilt (see the
 * file comment for why that is enough).
 *
 * The visiting order is about memory: with a dozen per-slot arrays, every subtree a walk
 * interleaves adds a dozen streams for the hardware prefetcher. So branching nodes are
 * expanded breadth-first (scratch is the queue; each node enters at most once), which
 * keeps a tree created level by level in memory order, while a run of only children is
 * followed straight down, which keeps chains created depth-first in memory order. On 100k
 * transforms, pure depth-first measured about twice as slow on a binary tree and pure
 * breadth-first about 40% slower on chains. */
static void ty_transform_walk_children(ty_transforms *T, uint32_t top) {
  uint32_t *queue = T->scratch, head = 0, tail = 0;
  for (uint32_t n = top;;) {
    for (uint32_t c = T->first_child[n]; c != TY_TRANSFORM_NONE; c = T->next_sibling[c]) {
      for (uint32_t k = c; ty_transform_update(T, k);) {
        uint32_t first = T->first_child[k];
        if (first == TY_TRANSFORM_NONE) break;
        if (first != T->last_child[k]) {
          queue[tail++] = k;
          break;
        }
        k = first;
      }
    }
    if (head == tail) return;
    n = queue[head++];
  }
}

/* The read path outside a sync: brings the stale part of i's chain up to date, root side
 * first. Whatever rebuilds here goes on the touched list so that the next sync compares
 * its children too. */
static void ty_transform_refresh(ty_transforms *T, uint32_t i) {
  uint32_t n = ty_transform_stale_chain(T, i);
  while (n) {
    uint32_t k = T->scratch[--n];
    if (ty_transform_update(T, k)) {
      T->flags[k] |= TY_TRANSFORM_REBUILT_BY_READ;
      ty_transform_mark_touched(T, k);
    }
  }
}

static void ty_transform_sync_one(ty_transforms *T, uint32_t t) {
  uint8_t f = T->flags[t];
  if (!(f & TY_TRANSFORM_ALIVE)) return;
  /* Already compared in this epoch, by an ancestor's walk in this sync (which descended
   * if it rebuilt) or by a read that found it current: nothing to do, unless a read
   * rebuilt it and its children have not been compared against the new version. */
  if (T->verified[t] == T->write_epoch && !(f & TY_TRANSFORM_REBUILT_BY_READ)) return;
  uint32_t n = ty_transform_stale_chain(T, t);
  /* The first stale ancestor from the top rebuilds, which cascades a new version down the
   * chain, so walking from it covers t's whole subtree. */
  while (n > 1) {
    uint32_t k = T->scratch[--n];
    if (ty_transform_update(T, k)) {
      ty_transform_walk_children(T, k);
      return;
    }
  }
  if (ty_transform_update(T, t) || (f & TY_TRANSFORM_REBUILT_BY_READ)) ty_transform_walk_children(T, t);
}

void ty_transforms_set_pull(ty_transforms *T, ty_transforms_pull_fn pull, void *user) {
  T->pull = pull;
  T->pull_user = user;
}

void ty_transforms_sync(ty_transforms *T) {
  if (T->pull) T->pull(T->pull_user);
  for (uint32_t j = 0; j < T->touched_count; j++) {
    uint32_t t = T->touched[j];
    ty_transform_sync_one(T, t);
    /* Only t's own flags are consulted when t is processed, so they can go now. */
    T->flags[t] &= (uint8_t) ~(TY_TRANSFORM_TOUCHED | TY_TRANSFORM_REBUILT_BY_READ);
  }
  T->touched_count = 0;
  T->synced_epoch = T->write_epoch;
}

/* ---- world reads -------------------------------------------------------------------- */

const float *ty_transform_world(ty_transforms *T, uint32_t i) {
  ty_transform_check(T, i);
  if (T->write_epoch != T->synced_epoch && T->verified[i] != T->write_epoch) ty_transform_refresh(T, i);
  return &T->world[i][0][0];
}

uint32_t ty_transform_world_version(ty_transforms *T, uint32_t i) {
  ty_transform_world(T, i);
  /* The contract's type is 32 bits; internally versions are 64-bit so they never wrap. */
  return (uint32_t)T->world_version[i];
}

void ty_transform_world_position(ty_transforms *T, uint32_t i, float out[3]) {
  const float *m = ty_transform_world(T, i);
  out[0] = m[12];
  out[1] = m[13];
  out[2] = m[14];
}

/* Affine inverse: the upper 3x3 inverted in general (so scale and shear are handled,
 * unlike glm_inv_tr) and the translation carried through it. A singular matrix (a zero
 * scale) has no inverse; it gets a zero linear part rather than infinities. */
static void ty_transform_affine_inverse(mat4 m, mat4 dest) {
  mat3 a, inv;
  glm_mat4_pick3(m, a);
  if (glm_mat3_det(a) == 0.0f) glm_mat3_zero(inv);
  else glm_mat3_inv(a, inv);
  vec3 t;
  glm_mat3_mulv(inv, m[3], t);
  glm_mat4_identity(dest);
  glm_mat4_ins3(inv, dest);
  dest[3][0] = -t[0];
  dest[3][1] = -t[1];
  dest[3][2] = -t[2];
}

const float *ty_transform_world_inverse(ty_transforms *T, uint32_t i) {
  ty_transform_world(T, i);
  if (T->inverse_version[i] != T->world_version[i]) {
    ty_transform_affine_inverse(T->world[i], T->inverse[i]);
    T->inverse_version[i] = T->world_version[i];
  }
  return &T->inverse[i][0][0];
}

/* Splits the world's 3x3 into scale and rotation. Scale is the column lengths, with x
 * taking the sign of the determinant (a mirrored basis); a zero-length column is rebuilt
 * as the cross product of the other two, and with two or more gone the rotation is the
 * identity. No path divides by zero, so there are no NaNs. */
static void ty_transform_decompose(mat4 m, versor rot, vec3 scale) {
  mat3 r;
  bool zero[3];
  int zeros = 0;
  for (int c = 0; c < 3; c++) {
    scale[c] = glm_vec3_norm(m[c]);
    zero[c] = glm_vec3_norm2(m[c]) < FLT_MIN;
    zeros += zero[c];
    if (zero[c]) glm_vec3_zero(r[c]);
    else glm_vec3_scale(m[c], 1.0f / scale[c], r[c]);
  }
  if (zeros >= 2) {
    glm_quat_identity(rot);
    return;
  }
  if (zeros == 1) {
    int c = zero[0] ? 0 : zero[1] ? 1 : 2;
    glm_vec3_crossn(r[(c + 1) % 3], r[(c + 2) % 3], r[c]);
  } else if (glm_mat3_det(r) < 0.0f) {
    scale[0] = -scale[0];
    glm_vec3_negate(r[0]);
  }
  glm_mat3_quat(r, rot);
  glm_quat_normalize(rot);
}

static void ty_transform_decomposed(ty_transforms *T, uint32_t i) {
  ty_transform_world(T, i);
  if (T->decomp_version[i] != T->world_version[i]) {
    ty_transform_decompose(T->world[i], T->world_rot[i], T->world_scale[i]);
    T->decomp_version[i] = T->world_version[i];
  }
}

void ty_transform_world_rotation(ty_transforms *T, uint32_t i, float out[4]) {
  ty_transform_decomposed(T, i);
  memcpy(out, T->world_rot[i], 4 * sizeof(float));
}

void ty_transform_world_scale(ty_transforms *T, uint32_t i, float out[3]) {
  ty_transform_decomposed(T, i);
  memcpy(out, T->world_scale[i], 3 * sizeof(float));
}

/* ---- stats -------------------------------------------------------------------------- */

ty_transform_stats ty_transforms_stats(const ty_transforms *T) { return T->stats; }

void ty_transforms_reset_stats(ty_transforms *T) { memset(&T->stats, 0, sizeof T->stats); }
