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

/* With SSE (and without AVX, where glm_mul adds in another order) the local matrix and the
 * world multiply are written out in vector form below, fused into one step. */
#if defined(CGLM_SSE_FP) && !defined(__AVX__)
#define TY_TRANSFORM_FUSED 1
/* A local matrix as stored: its nine rotation-scale entries m[column][row] as lanes 0-2
 * of r[0] = m00 m11 m22, r[1] = m01 m20 m12, r[2] = m10 m02 m21 (lane 3 unused); the
 * position is the baked TRS's. */
typedef struct ty_local_mat {
  CGLM_ALIGN(16) float r[3][4];
} ty_local_mat;
#else
typedef struct ty_local_mat {
  CGLM_ALIGN_MAT mat4 m;
} ty_local_mat;
#endif

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
  ty_local_mat *local_mat; /* the local matrix built from baked */
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
  uint32_t touched_left; /* during a sync: entries whose node still has the touched flag */
  /* Room for one entry per slot, so that nothing recurses (chains can be 100k deep): the
   * stale part of an ancestor chain, then the queue of a sync walk. */
  uint32_t *scratch;

  uint64_t version_counter;
  uint64_t write_epoch;
  uint64_t synced_epoch;
  ty_transform_stats stats;
  ty_transforms_pull_fn pull; /* run at the start of every sync */
  void *pull_user;

  /* Render offsets, by slot, allocated on first use (most worlds never interpolate). */
  mat4 *offset;
  mat4 *render_world;
  uint8_t *has_offset;
  uint32_t offset_cap; /* slots the three arrays hold */
  uint32_t offset_count; /* slots with an offset set */
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
  TY_FREE(T->offset);
  TY_FREE(T->render_world);
  TY_FREE(T->has_offset);
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
  if (i < T->offset_cap && T->has_offset[i]) {
    T->has_offset[i] = 0;
    T->offset_count--;
  }
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

#ifndef TY_TRANSFORM_FUSED
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

#endif

/* Matrices held in registers while they are being built: a local matrix goes from compose
 * straight into the multiply, and a walk keeps the parent's world there for all of its
 * children (and for the next link of a chain) instead of reloading it.
 *
 * With SSE the stored local matrix is not a mat4 but the three vectors compose produces
 * (its nine rotation-scale entries, grouped as the formula computes them; the position is
 * the baked copy's): on 100k transforms the walk is bound by vector instructions, and this
 * saves the shuffles that would assemble columns only to take them apart again. */
#ifdef TY_TRANSFORM_FUSED
typedef struct ty_loc {
  __m128 r[3], pos; /* pos: x y z in lanes 0-2 */
} ty_loc;
typedef struct ty_cols {
  __m128 c[4];
} ty_cols;

/* The lanes of v in the order a, b, c, d (cglm's glmm_shuff1 takes them reversed). */
#define TY_SHUF(v, a, b, c, d) glmm_shuff1(v, d, c, b, a)
#define TY_SPLAT(v, a) glmm_shuff1(v, a, a, a, a)

static inline void ty_cols_load(ty_cols *m, const mat4 src) {
  for (int j = 0; j < 4; j++) m->c[j] = glmm_load(src[j]);
}

static inline void ty_cols_store(const ty_cols *m, mat4 dst) {
  for (int j = 0; j < 4; j++) glmm_store(dst[j], m->c[j]);
}

static inline void ty_loc_store(const ty_loc *l, ty_local_mat *dst) {
  for (int k = 0; k < 3; k++) glmm_store(dst->r[k], l->r[k]);
}

static inline void ty_loc_load(ty_loc *l, const ty_local_mat *src, const ty_trs *baked) {
  for (int k = 0; k < 3; k++) l->r[k] = glmm_load(src->r[k]);
  l->pos = _mm_loadu_ps(baked->pos);
}

/* One world column: ((a * p0 + b * p1) + c * p2), as glm_mul_sse2 computes it. */
static inline __m128 ty_cols_column(const ty_cols *p, __m128 a, __m128 b, __m128 c) {
  __m128 v = _mm_mul_ps(a, p->c[0]);
  v = glmm_fmadd(b, p->c[1], v);
  return glmm_fmadd(c, p->c[2], v);
}

/* w = p * l for affine matrices: glm_mul_sse2's operations in its order, so the bits are
 * the same as glm_mul's. Its last term, l[3][3] (always exactly 1) times p[3], is p[3]. */
static inline void ty_cols_mul(const ty_cols *p, const ty_loc *l, ty_cols *w) {
  w->c[0] = ty_cols_column(p, TY_SPLAT(l->r[0], 0), TY_SPLAT(l->r[1], 0), TY_SPLAT(l->r[2], 1));
  w->c[1] = ty_cols_column(p, TY_SPLAT(l->r[2], 0), TY_SPLAT(l->r[0], 1), TY_SPLAT(l->r[1], 2));
  w->c[2] = ty_cols_column(p, TY_SPLAT(l->r[1], 1), TY_SPLAT(l->r[2], 2), TY_SPLAT(l->r[0], 2));
  w->c[3] = _mm_add_ps(ty_cols_column(p, TY_SPLAT(l->pos, 0), TY_SPLAT(l->pos, 1), TY_SPLAT(l->pos, 2)),
                       p->c[3]);
}

/* The world of a root: its local matrix as columns, w lanes 0 0 0 1. */
static inline void ty_cols_from_loc(const ty_loc *l, ty_cols *w) {
  const __m128 xyz = _mm_castsi128_ps(_mm_setr_epi32(-1, -1, -1, 0));
  __m128 r0 = _mm_and_ps(l->r[0], xyz), r1 = _mm_and_ps(l->r[1], xyz), r2 = _mm_and_ps(l->r[2], xyz);
  w->c[0] = _mm_shuffle_ps(_mm_unpacklo_ps(r0, r1), r2, _MM_SHUFFLE(3, 1, 1, 0)); /* m00 m01 m02 0 */
  w->c[1] = _mm_shuffle_ps(_mm_unpacklo_ps(r2, r0), r1, _MM_SHUFFLE(3, 2, 3, 0)); /* m10 m11 m12 0 */
  w->c[2] = _mm_shuffle_ps(_mm_shuffle_ps(r1, r2, _MM_SHUFFLE(2, 2, 1, 1)), r0,
                           _MM_SHUFFLE(3, 2, 2, 0)); /* m20 m21 m22 0 */
  w->c[3] = _mm_or_ps(_mm_and_ps(l->pos, xyz), _mm_setr_ps(0.0f, 0.0f, 0.0f, 1.0f));
}

/* ty_transform_compose (below the #else) in vector form: lane for lane the same
 * operations in the same order, so the same bits. */
static inline void ty_loc_compose(const ty_trs *l, ty_loc *m) {
  __m128 q = _mm_loadu_ps(l->rot);      /* x y z w */
  __m128 ws = _mm_loadu_ps(&l->rot[3]); /* w sx sy sz */
  __m128 q2 = _mm_mul_ps(q, q);
  __m128 n = _mm_add_ss(_mm_add_ss(_mm_add_ss(q2, TY_SPLAT(q2, 1)), TY_SPLAT(q2, 2)), TY_SPLAT(q2, 3));
  float nf = _mm_cvtss_f32(n);
  __m128 sq = _mm_mul_ps(_mm_set1_ps(nf > 0.0f ? 2.0f / nf : 0.0f), q); /* sx sy sz sw */
  __m128 a = _mm_mul_ps(sq, q);                                           /* xx yy zz ww */
  __m128 b = _mm_mul_ps(TY_SHUF(sq, 0, 0, 1, 1), TY_SHUF(q, 1, 2, 2, 2)); /* xy xz yz */
  __m128 c = _mm_mul_ps(TY_SPLAT(sq, 3), TY_SHUF(q, 2, 1, 0, 0));         /* wz wy wx */
  __m128 diag = _mm_sub_ps(_mm_sub_ps(_mm_set1_ps(1.0f), TY_SHUF(a, 1, 0, 0, 0)), TY_SHUF(a, 2, 2, 1, 1));
  /* Each lane times the scale of the column it belongs to: the formula scales last. */
  m->r[0] = _mm_mul_ps(diag, TY_SHUF(ws, 1, 2, 3, 3));              /* m00 m11 m22 */
  m->r[1] = _mm_mul_ps(_mm_add_ps(b, c), TY_SHUF(ws, 1, 3, 2, 2)); /* m01 m20 m12: xy+wz xz+wy yz+wx */
  m->r[2] = _mm_mul_ps(_mm_sub_ps(b, c), TY_SHUF(ws, 2, 1, 3, 3)); /* m10 m02 m21: xy-wz xz-wy yz-wx */
  m->pos = _mm_loadu_ps(l->pos);
}
#else
typedef struct ty_loc {
  CGLM_ALIGN_MAT mat4 m;
} ty_loc;
typedef struct ty_cols {
  CGLM_ALIGN_MAT mat4 m;
} ty_cols;

static inline void ty_cols_load(ty_cols *m, mat4 src) { glm_mat4_copy(src, m->m); }
static inline void ty_cols_store(ty_cols *m, mat4 dst) { glm_mat4_copy(m->m, dst); }
static inline void ty_loc_store(ty_loc *l, ty_local_mat *dst) { glm_mat4_copy(l->m, dst->m); }
static inline void ty_loc_load(ty_loc *l, ty_local_mat *src, const ty_trs *baked) {
  (void)baked;
  glm_mat4_copy(src->m, l->m);
}
static inline void ty_cols_mul(ty_cols *p, ty_loc *l, ty_cols *w) { glm_mul(p->m, l->m, w->m); }
static inline void ty_cols_from_loc(ty_loc *l, ty_cols *w) { glm_mat4_copy(l->m, w->m); }
static inline void ty_loc_compose(const ty_trs *l, ty_loc *m) { ty_transform_compose(l, m->m); }
#endif

/* Brings k up to date, given that its parent already is. Returns whether its world was
 * rebuilt (and so now carries a new version). */
static bool ty_transform_update(ty_transforms *T, uint32_t k) {
  uint32_t p = T->parent[k];
  uint64_t pv = p == TY_TRANSFORM_NONE ? 0 : T->world_version[p];
  T->verified[k] = T->write_epoch;
  ty_loc l;
  if (memcmp(&T->local[k], &T->baked[k], sizeof(ty_trs)) != 0) {
    ty_loc_compose(&T->local[k], &l);
    ty_loc_store(&l, &T->local_mat[k]);
    T->baked[k] = T->local[k];
    T->stats.local_rebuilds++;
  } else if (pv != T->parent_version[k]) {
    ty_loc_load(&l, &T->local_mat[k], &T->baked[k]);
  } else {
    return false;
  }
  ty_cols w;
  if (p == TY_TRANSFORM_NONE) {
    ty_cols_from_loc(&l, &w);
  } else {
    ty_cols pw;
    ty_cols_load(&pw, T->world[p]);
    ty_cols_mul(&pw, &l, &w); /* affine: skips the w row */
  }
  ty_cols_store(&w, T->world[k]);
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
 * breadth-first about 40% slower on chains.
 *
 * Every node the walk compares is settled for this sync, so a touched one leaves the
 * touched list here (its flags are cleared and T->touched_left counts down): the sync loop
 * then skips it, and stops early once nothing touched is left. A node rebuilt by a read
 * counts as rebuilt here, since its children have not been compared against it. */
static void ty_transform_walk_children(ty_transforms *T, uint32_t top) {
  ty_trs *restrict local = T->local, *restrict baked = T->baked;
  ty_local_mat *restrict local_mat = T->local_mat;
  mat4 *restrict world = T->world;
  uint64_t *restrict wver = T->world_version, *restrict pver = T->parent_version;
  const uint32_t *restrict first_child = T->first_child, *restrict last_child = T->last_child;
  const uint32_t *restrict next_sibling = T->next_sibling;
  uint8_t *restrict flags = T->flags;
  uint32_t *restrict queue = T->scratch, head = 0, tail = 0, left = T->touched_left;
  uint64_t counter = T->version_counter, locals = 0; /* each world rebuilt takes a version */
  for (uint32_t n = top;;) {
    ty_cols nw;
    ty_cols_load(&nw, world[n]);
    const uint64_t nv = wver[n];
    for (uint32_t c = first_child[n]; c != TY_TRANSFORM_NONE; c = next_sibling[c]) {
      ty_cols pw = nw; /* the parent's world, then each link's down a chain of only children */
      uint64_t pv = nv;
      for (uint32_t k = c;;) {
        ty_loc l;
        ty_cols w;
        bool rebuilt = true;
        if (memcmp(&local[k], &baked[k], sizeof(ty_trs)) != 0) {
          ty_loc_compose(&local[k], &l);
          ty_loc_store(&l, &local_mat[k]);
          baked[k] = local[k];
          locals++;
        } else if (pv != pver[k]) {
          ty_loc_load(&l, &local_mat[k], &baked[k]);
        } else {
          rebuilt = false;
        }
        bool descend = rebuilt;
        if (rebuilt) {
          ty_cols_mul(&pw, &l, &w);
          ty_cols_store(&w, world[k]);
          wver[k] = ++counter;
          pver[k] = pv;
        }
        uint8_t f = flags[k];
        if (f & TY_TRANSFORM_TOUCHED) {
          flags[k] = f & (uint8_t) ~(TY_TRANSFORM_TOUCHED | TY_TRANSFORM_REBUILT_BY_READ);
          left--;
          descend |= (f & TY_TRANSFORM_REBUILT_BY_READ) != 0;
        }
        if (!descend) break;
        uint32_t first = first_child[k];
        if (first == TY_TRANSFORM_NONE) break;
        if (first != last_child[k]) {
          queue[tail++] = k;
          break;
        }
        if (rebuilt) {
          pw = w;
          pv = counter;
        } else {
          ty_cols_load(&pw, world[k]);
          pv = wver[k];
        }
        k = first;
      }
    }
    if (head == tail) break;
    n = queue[head++];
  }
  T->touched_left = left;
  T->stats.local_rebuilds += locals;
  T->stats.world_rebuilds += counter - T->version_counter;
  T->version_counter = counter;
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

/* Brings t's subtree up to date at a sync. t has just left the touched list; read_rebuilt
 * says whether a read rebuilt it since the last sync. */
static void ty_transform_sync_one(ty_transforms *T, uint32_t t, bool read_rebuilt) {
  /* Already compared in this epoch by a read that found it current: nothing to do, unless
   * the read rebuilt it and its children have not been compared against the new version.
   * (Nodes an ancestor's walk compared in this sync have left the list already.) */
  if (T->verified[t] == T->write_epoch && !read_rebuilt) return;
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
  if (ty_transform_update(T, t) || read_rebuilt) ty_transform_walk_children(T, t);
}

void ty_transforms_set_pull(ty_transforms *T, ty_transforms_pull_fn pull, void *user) {
  T->pull = pull;
  T->pull_user = user;
}

void ty_transforms_sync(ty_transforms *T) {
  if (T->pull) T->pull(T->pull_user);
  T->touched_left = T->touched_count;
  for (uint32_t j = 0; j < T->touched_count && T->touched_left; j++) {
    uint32_t t = T->touched[j];
    uint8_t f = T->flags[t];
    if (!(f & TY_TRANSFORM_TOUCHED)) continue; /* a walk in this sync compared it */
    T->flags[t] = f & (uint8_t) ~(TY_TRANSFORM_TOUCHED | TY_TRANSFORM_REBUILT_BY_READ);
    T->touched_left--;
    if (f & TY_TRANSFORM_ALIVE) ty_transform_sync_one(T, t, (f & TY_TRANSFORM_REBUILT_BY_READ) != 0);
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

/* Sizes the render offset arrays to the container's capacity (they lag behind its growth). */
static void ty_transform_offsets_fit(ty_transforms *T) {
  uint32_t cap = T->cap;
  if (T->offset_cap >= cap) return;
  mat4 *off = TY_REALLOC(T->offset, (size_t)cap * sizeof *off);
  TY_ASSERT(off);
  T->offset = off;
  mat4 *rw = TY_REALLOC(T->render_world, (size_t)cap * sizeof *rw);
  TY_ASSERT(rw);
  T->render_world = rw;
  uint8_t *has = TY_REALLOC(T->has_offset, cap);
  TY_ASSERT(has);
  memset(has + T->offset_cap, 0, cap - T->offset_cap);
  T->has_offset = has;
  T->offset_cap = cap;
}

void ty_transform_set_render_offset(ty_transforms *T, uint32_t i, const float m[16]) {
  ty_transform_check(T, i);
  if (!m) {
    if (i < T->offset_cap && T->has_offset[i]) {
      T->has_offset[i] = 0;
      T->offset_count--;
    }
    return;
  }
  ty_transform_offsets_fit(T);
  memcpy(T->offset[i], m, sizeof(mat4));
  if (!T->has_offset[i]) {
    T->has_offset[i] = 1;
    T->offset_count++;
  }
}

const float *ty_transform_render_world(ty_transforms *T, uint32_t i) {
  const float *w = ty_transform_world(T, i);
  if (!T->offset_count) return w;
  uint32_t a = i;
  while (a != TY_TRANSFORM_NONE && !(a < T->offset_cap && T->has_offset[a])) a = T->parent[a];
  if (a == TY_TRANSFORM_NONE) return w;
  ty_transform_offsets_fit(T); /* i may be newer than the arrays */
  /* Through locals: the side arrays are plain heap memory, not cache-line aligned. */
  mat4 off, world, out;
  memcpy(off, T->offset[a], sizeof off);
  memcpy(world, w, sizeof world);
  glm_mat4_mul(off, world, out);
  memcpy(T->render_world[i], out, sizeof out);
  return &T->render_world[i][0][0];
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
