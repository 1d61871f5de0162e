/* engine/render/bucket.c: draw bucketing behind bucket.h.
 *
 * One pass over the items culls each bounding sphere (moved into world space, its radius
 * scaled by the largest axis scale, so the sphere still contains the mesh) and appends a
 * (key, item index) pair to each list it belongs to; a caster once per shadow cascade it
 * overlaps. Each list is then radix-sorted and cut into batches. Keys, most significant
 * first:
 *  - opaque:      state 8 | material 24 | mesh 16 | depth 16 (ascending: front-to-back)
 *  - transparent: inverted depth 32 | material 16 | mesh 16  (back-to-front)
 *  - shadow:      cascade 8 | mesh 24 | material 32
 * A batch or run never spans two cascades. The cascades are orthographic boxes of one
 * orientation, so a caster's centre is moved into the light's frame once (three dot
 * products) and tested against every box at once, a vector lane per cascade.
 * When every id of the frame fits its field, batching reads the ids back from the sorted
 * keys (no second fetch of each item); otherwise ids are truncated in the keys only and
 * batching compares the items' real ids, so a collision costs an extra batch, never a
 * wrong draw. Depth is a float mapped to an unsigned integer of the same order; for
 * opaque its top 16 bits are a logarithmic quantisation (about 0.4% steps), enough for
 * early-z.
 *
 * Fields sit on byte boundaries because the radix sort goes 8 bits at a time, least
 * significant first (stable, so ties keep item order), and skips every byte in which all
 * keys agree: small ids then cost one pass per field, and typical opaque keys (a few
 * states, under 256 materials and meshes) need five of the eight passes.
 */
#include "bucket.h"

#include <math.h>
#include <string.h>

#include <cglm/cglm.h>

#include "../common.h"

_Static_assert(sizeof(ty_bucket_command) == 20, "DrawElementsIndirectCommand is five packed 32-bit words");

enum { MATRIX_BYTES = 16 * sizeof(float) };

typedef struct list_buf {
  uint64_t *keys;
  uint32_t *vals;
  uint32_t keys_cap, vals_cap, count;
  ty_bucket_batch *batches;
  ty_bucket_command *commands;
  ty_bucket_run *runs;
  uint32_t batches_cap, commands_cap, runs_cap;
  ty_bucket_list pub;
} list_buf;

struct ty_bucket {
  uint32_t extra, stride;
  list_buf lists[TY_BUCKET_LIST_COUNT];
  uint64_t *tmp_keys; /* the radix sort's other half; trades places with a list's after each pass */
  uint32_t *tmp_vals;
  uint32_t tmp_keys_cap, tmp_vals_cap;
  const ty_bucket_item *items;
  ty_bucket_counts counts;
  uint32_t instance_count;
};

ty_bucket *ty_bucket_create(const ty_bucket_desc *desc) {
  ty_bucket *b = TY_MALLOC(sizeof *b);
  TY_ASSERT(b);
  memset(b, 0, sizeof *b);
  b->extra = desc ? desc->instance_bytes : 0;
  TY_ASSERT(b->extra % 16 == 0);
  b->stride = MATRIX_BYTES + b->extra;
  return b;
}

void ty_bucket_destroy(ty_bucket *b) {
  if (!b) return;
  for (int k = 0; k < TY_BUCKET_LIST_COUNT; k++) {
    list_buf *l = &b->lists[k];
    TY_FREE(l->keys);
    TY_FREE(l->vals);
    TY_FREE(l->batches);
    TY_FREE(l->commands);
    TY_FREE(l->runs);
  }
  TY_FREE(b->tmp_keys);
  TY_FREE(b->tmp_vals);
  TY_FREE(b);
}

/* ---- keys --------------------------------------------------------------------------- */

/* An unsigned integer ordered as the float is (negatives flipped, positives above them). */
static inline uint32_t float_order(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

/* ---- radix sort --------------------------------------------------------------------- */

static void swap_u64(uint64_t **a, uint64_t **b, uint32_t *ca, uint32_t *cb) {
  uint64_t *t = *a;
  *a = *b, *b = t;
  uint32_t c = *ca;
  *ca = *cb, *cb = c;
}

static void swap_u32(uint32_t **a, uint32_t **b, uint32_t *ca, uint32_t *cb) {
  uint32_t *t = *a;
  *a = *b, *b = t;
  uint32_t c = *ca;
  *ca = *cb, *cb = c;
}

/* Sorts l's (key, value) pairs by key, stably. The result lands in l's buffers. */
static void radix_sort(ty_bucket *b, list_buf *l) {
  uint32_t n = l->count;
  if (n < 2) return;
  /* the lists trade buffers with this one, so it holds whatever a shorter list left here */
  TY_GROW(b->tmp_keys, b->tmp_keys_cap, n);
  TY_GROW(b->tmp_vals, b->tmp_vals_cap, n);
  /* bytes in which every key agrees need neither a histogram nor a pass */
  uint64_t any = 0, all = ~0ull;
  for (uint32_t i = 0; i < n; i++) any |= l->keys[i], all &= l->keys[i];
  unsigned shifts[8], digits = 0;
  for (unsigned d = 0; d < 8; d++)
    if (((any ^ all) >> (8 * d)) & 0xFF) shifts[digits++] = 8 * d;
  if (digits == 0) return;
  uint32_t hist[8][256];
  memset(hist, 0, sizeof hist[0] * digits);
  for (uint32_t i = 0; i < n; i++) {
    uint64_t v = l->keys[i];
    for (unsigned d = 0; d < digits; d++) hist[d][(v >> shifts[d]) & 0xFF]++;
  }
  for (unsigned d = 0; d < digits; d++) {
    uint32_t sum = 0, *off = hist[d];
    for (int j = 0; j < 256; j++) {
      uint32_t c = off[j];
      off[j] = sum;
      sum += c;
    }
    const unsigned shift = shifts[d];
    const uint64_t *sk = l->keys;
    const uint32_t *sv = l->vals;
    uint64_t *dk = b->tmp_keys;
    uint32_t *dv = b->tmp_vals;
    for (uint32_t i = 0; i < n; i++) {
      uint32_t at = off[(sk[i] >> shift) & 0xFF]++;
      dk[at] = sk[i];
      dv[at] = sv[i];
    }
    swap_u64(&l->keys, &b->tmp_keys, &l->keys_cap, &b->tmp_keys_cap);
    swap_u32(&l->vals, &b->tmp_vals, &l->vals_cap, &b->tmp_vals_cap);
  }
}

/* ---- build -------------------------------------------------------------------------- */

/* Where a list's key holds the mesh and material ids, so batching can compare keys instead
 * of fetching every item again (a cache miss per item on large frames). */
typedef struct key_ids {
  unsigned mesh_shift, mesh_bits, material_shift, material_bits;
  unsigned cascade_shift, cascade_bits; /* a field no batch or run may span; 0 bits: none */
} key_ids;

static const key_ids KEY_IDS[TY_BUCKET_LIST_COUNT] = {
    [TY_BUCKET_LIST_OPAQUE] = {16, 16, 32, 24, 0, 0},
    [TY_BUCKET_LIST_TRANSPARENT] = {0, 16, 16, 16, 0, 0},
    [TY_BUCKET_LIST_SHADOW] = {32, 24, 0, 32, 56, 8},
};

static inline uint32_t key_field(uint64_t key, unsigned shift, unsigned bits) {
  return (uint32_t)((key >> shift) & ((1ull << bits) - 1));
}

/* Cuts a sorted list into batches of equal mesh + material, and those into material runs.
 * exact: every id fit its key field, so the key's fields are the ids themselves.
 * cascades: how many cascades the list is split into (ranges noted per cascade); 0: none. */
static void batch(ty_bucket *b, ty_bucket_kind kind, const ty_bucket_frame *f, uint32_t first_instance,
                  bool exact, uint32_t cascades) {
  list_buf *l = &b->lists[kind];
  ty_bucket_range ranges[TY_BUCKET_MAX_CASCADES];
  memset(ranges, 0, sizeof ranges);
  TY_GROW(l->batches, l->batches_cap, l->count);
  TY_GROW(l->commands, l->commands_cap, l->count);
  TY_GROW(l->runs, l->runs_cap, l->count);
  const key_ids *ids = &KEY_IDS[kind];
  uint32_t nb = 0, nr = 0;
  uint32_t mesh = 0, material = 0, cascade = 0;
  for (uint32_t i = 0; i < l->count; i++) {
    const uint32_t g = key_field(l->keys[i], ids->cascade_shift, ids->cascade_bits);
    if (g < cascades) ranges[g].item_count++;
    uint32_t me, ma;
    if (exact) {
      me = key_field(l->keys[i], ids->mesh_shift, ids->mesh_bits);
      ma = key_field(l->keys[i], ids->material_shift, ids->material_bits);
    } else {
      const ty_bucket_item *it = &f->items[l->vals[i]];
      me = it->mesh, ma = it->material;
    }
    if (nb && me == mesh && ma == material && g == cascade) {
      l->batches[nb - 1].count++;
      continue;
    }
    const bool same_run = nr && l->runs[nr - 1].material == ma && g == cascade;
    mesh = me, material = ma, cascade = g;
    l->batches[nb] = (ty_bucket_batch){me, ma, first_instance + i, 1};
    if (same_run) {
      l->runs[nr - 1].batch_count++;
    } else {
      if (g < cascades) {
        if (!ranges[g].run_count) ranges[g].first_run = nr;
        ranges[g].run_count++;
      }
      l->runs[nr++] = (ty_bucket_run){ma, nb, 1};
    }
    nb++;
  }
  for (uint32_t c = 0, at = 0; c < cascades; c++) {
    ranges[c].first_item = at;
    at += ranges[c].item_count;
    b->counts.shadow_cascade[c] = ranges[c].item_count;
  }
  for (uint32_t j = 0; j < nb; j++) {
    const ty_bucket_mesh *m = &f->meshes[l->batches[j].mesh];
    l->commands[j] = (ty_bucket_command){
        .count = m->index_count,
        .instance_count = l->batches[j].count,
        .first_index = m->first_index,
        .base_vertex = m->base_vertex,
        .base_instance = l->batches[j].first_instance,
    };
  }
  l->pub = (ty_bucket_list){
      .items = l->vals,
      .count = l->count,
      .first_instance = first_instance,
      .batches = l->batches,
      .commands = l->commands,
      .batch_count = nb,
      .runs = l->runs,
      .run_count = nr,
      .cascade_count = cascades,
  };
  memcpy(l->pub.cascades, ranges, sizeof ranges);
  b->counts.batches += nb;
}

static inline float min_plane_distance(const vec4 planes[6], float x, float y, float z) {
  float d = planes[0][0] * x + planes[0][1] * y + planes[0][2] * z + planes[0][3];
  for (int p = 1; p < 6; p++) {
    float e = planes[p][0] * x + planes[p][1] * y + planes[p][2] * z + planes[p][3];
    d = e < d ? e : d;
  }
  return d;
}

typedef float f32x4 __attribute__((vector_size(16))); /* GCC and Clang vectors: SSE, NEON */
typedef int32_t i32x4 __attribute__((vector_size(16)));
_Static_assert(TY_BUCKET_MAX_CASCADES == 4, "one lane per cascade");

/* The shadow cascades as boxes in the light's frame: a point p is inside cascade c when
 * |axis[a] . p - mid[a][c]| <= half[a][c] on each axis a. Axis-major, and past count the
 * boxes hold nothing (half is -inf), so the hot loop tests every cascade at once (one
 * vector of TY_BUCKET_MAX_CASCADES lanes per axis). */
typedef struct light_boxes {
  uint32_t count; /* 0: no cascades, nothing culled */
  float axis[3][3];
  f32x4 mid[3], half[3];
} light_boxes;

/* Row a of an orthographic matrix keeps r . p + t within [-1, 1]: along the unit axis
 * r / |r| that is a slab of centre -t / |r| and half-width 1 / |r|. False (no culling) when
 * a matrix is not orthographic or the cascades disagree on the orientation. */
static bool light_boxes_from(light_boxes *lb, const float (*m)[16], uint32_t count) {
  memset(lb, 0, sizeof *lb);
  for (int c = 0; c < TY_BUCKET_MAX_CASCADES; c++)
    for (int a = 0; a < 3; a++) lb->half[a][c] = -INFINITY;
  if (!m || count == 0) return false;
  TY_ASSERT(count <= TY_BUCKET_MAX_CASCADES);
  for (uint32_t c = 0; c < count; c++) {
    const float *v = m[c];
    if (v[3] != 0.0f || v[7] != 0.0f || v[11] != 0.0f || v[15] != 1.0f) return false;
    for (int a = 0; a < 3; a++) {
      const float rx = v[a], ry = v[4 + a], rz = v[8 + a];
      const float len = sqrtf(rx * rx + ry * ry + rz * rz);
      if (!(len > 0.0f)) return false;
      const float n[3] = {rx / len, ry / len, rz / len};
      if (c == 0) memcpy(lb->axis[a], n, sizeof n);
      else if (n[0] * lb->axis[a][0] + n[1] * lb->axis[a][1] + n[2] * lb->axis[a][2] < 1.0f - 1e-5f) return false;
      const float mid = -v[12 + a] / len, half = 1.0f / len;
      lb->mid[a][c] = mid;
      /* the cascades' axes agree to rounding, not exactly: a sliver of slack */
      lb->half[a][c] = half + 1e-5f * (fabsf(mid) + half);
    }
  }
  lb->count = count;
  return true;
}

void ty_bucket_build(ty_bucket *b, const ty_bucket_frame *f) {
  TY_ASSERT(f && (f->item_count == 0 || f->items));
  TY_ASSERT(f->mesh_count == 0 || f->meshes);
  uint32_t n = f->item_count;
  b->items = f->items;
  memset(&b->counts, 0, sizeof b->counts);
  light_boxes lb;
  light_boxes_from(&lb, f->shadow_cascades, f->shadow_cascade_count);
  const uint32_t nc = lb.count;
  /* every list can hold every item (the shadow list once per cascade), so the hot loop
   * never checks capacity */
  /* + room for the writes past the last kept entry (the loop writes every cascade's) */
  const uint32_t shadow_cap = n * (nc ? nc : 1) + TY_BUCKET_MAX_CASCADES;
  for (int k = 0; k < TY_BUCKET_LIST_COUNT; k++) {
    list_buf *l = &b->lists[k];
    const uint32_t cap = k == TY_BUCKET_LIST_SHADOW ? shadow_cap : n;
    TY_GROW(l->keys, l->keys_cap, cap);
    TY_GROW(l->vals, l->vals_cap, cap);
    l->count = 0;
  }

  mat4 vp;
  vec4 cam[6];
  memcpy(vp, f->view_proj, sizeof vp);
  glm_frustum_planes(vp, cam);
  const float(*ax)[3] = lb.axis;
  const float px = f->camera_position[0], py = f->camera_position[1], pz = f->camera_position[2];
  const float fx = f->camera_forward[0], fy = f->camera_forward[1], fz = f->camera_forward[2];
  const bool along_axis = fx != 0.0f || fy != 0.0f || fz != 0.0f;

  list_buf *op = &b->lists[TY_BUCKET_LIST_OPAQUE], *tr = &b->lists[TY_BUCKET_LIST_TRANSPARENT],
           *sh = &b->lists[TY_BUCKET_LIST_SHADOW];
  uint64_t *op_k = op->keys, *tr_k = tr->keys, *sh_k = sh->keys;
  uint32_t *op_v = op->vals, *tr_v = tr->vals, *sh_v = sh->vals;
  uint32_t no = 0, nt = 0, ns = 0, culled = 0, disabled = 0, invalid = 0;
  uint32_t casters = 0;
  uint32_t material_bits = 0; /* OR of every material id, to know whether they fit the keys */

  /* Which lists an item joins is data the branch predictor cannot learn (visibility is
   * scattered), so every key is written and only the counts advance conditionally. */
  for (uint32_t i = 0; i < n; i++) {
    const ty_bucket_item *it = &f->items[i];
    const uint32_t flags = it->flags, mesh = it->mesh, material = it->material;
    if (!(flags & TY_BUCKET_ENABLED) || mesh >= f->mesh_count) {
      disabled += !(flags & TY_BUCKET_ENABLED);
      invalid += (flags & TY_BUCKET_ENABLED) != 0;
      continue;
    }
    material_bits |= material;
    const float *m = it->world;
    const float lx = it->center[0], ly = it->center[1], lz = it->center[2];
    const float cx = m[0] * lx + m[4] * ly + m[8] * lz + m[12];
    const float cy = m[1] * lx + m[5] * ly + m[9] * lz + m[13];
    const float cz = m[2] * lx + m[6] * ly + m[10] * lz + m[14];
    const float s0 = m[0] * m[0] + m[1] * m[1] + m[2] * m[2];
    const float s1 = m[4] * m[4] + m[5] * m[5] + m[6] * m[6];
    const float s2 = m[8] * m[8] + m[9] * m[9] + m[10] * m[10];
    float smax = s0 > s1 ? s0 : s1;
    smax = smax > s2 ? smax : s2;
    const float r = it->radius * sqrtf(smax);

    const uint32_t caster = (flags / TY_BUCKET_CASTS_SHADOW) & 1u;
    const uint64_t shadow_key = (uint64_t)(mesh & 0xFFFFFFu) << 32 | material;
    if (nc) {
      const float u = ax[0][0] * cx + ax[0][1] * cy + ax[0][2] * cz;
      const float v = ax[1][0] * cx + ax[1][1] * cy + ax[1][2] * cz;
      const float w = ax[2][0] * cx + ax[2][1] * cy + ax[2][2] * cz;
      /* |p - mid| <= half + r on each axis, as two compares; a lane per cascade */
      const f32x4 du = u - lb.mid[0], dv = v - lb.mid[1], dw = w - lb.mid[2];
      const f32x4 hu = lb.half[0] + r, hv = lb.half[1] + r, hw = lb.half[2] + r;
      const i32x4 in = (du <= hu) & (-du <= hu) & (dv <= hv) & (-dv <= hv) & (dw <= hw) & (-dw <= hw);
      uint32_t mask = (uint32_t)((in[0] & 1) | (in[1] & 2) | (in[2] & 4) | (in[3] & 8)); /* bit c: in cascade c */
      mask &= -caster;
      for (uint32_t c = 0; c < TY_BUCKET_MAX_CASCADES; c++) {
        sh_k[ns] = (uint64_t)c << 56 | shadow_key;
        sh_v[ns] = i;
        ns += (mask >> c) & 1u;
      }
      casters += mask != 0;
    } else {
      sh_k[ns] = shadow_key;
      sh_v[ns] = i;
      ns += caster;
      casters += caster;
    }

    const uint32_t visible = min_plane_distance(cam, cx, cy, cz) >= -r;
    const uint32_t transparent = (flags / TY_BUCKET_TRANSPARENT) & 1u;
    const float dx = cx - px, dy = cy - py, dz = cz - pz;
    /* squared distance orders like distance and saves a square root */
    const float depth = along_axis ? dx * fx + dy * fy + dz * fz : dx * dx + dy * dy + dz * dz;
    const uint32_t d = float_order(depth);
    tr_k[nt] = (uint64_t)(~d) << 32 | (uint64_t)(material & 0xFFFFu) << 16 | (mesh & 0xFFFFu);
    tr_v[nt] = i;
    nt += visible & transparent;
    op_k[no] = (uint64_t)(flags >> TY_BUCKET_STATE_SHIFT) << 56 | (uint64_t)(material & 0xFFFFFFu) << 32 |
               (uint64_t)(mesh & 0xFFFFu) << 16 | (d >> 16);
    op_v[no] = i;
    no += visible & (transparent ^ 1u);
    culled += visible ^ 1u;
  }
  op->count = no, tr->count = nt, sh->count = ns;
  b->counts.opaque = no, b->counts.transparent = nt, b->counts.shadow = casters;
  b->counts.cascades = nc; /* shadow_cascade: counted by batch, from the sorted list */
  b->counts.culled = culled, b->counts.disabled = disabled, b->counts.invalid = invalid;

  /* every valid mesh id is below mesh_count */
  uint32_t mesh_bits = f->mesh_count ? f->mesh_count - 1 : 0;
  uint32_t first = 0;
  for (int k = 0; k < TY_BUCKET_LIST_COUNT; k++) {
    const key_ids *ids = &KEY_IDS[k];
    bool exact = (ids->mesh_bits >= 32 || mesh_bits >> ids->mesh_bits == 0) &&
                 (ids->material_bits >= 32 || material_bits >> ids->material_bits == 0);
    radix_sort(b, &b->lists[k]);
    batch(b, (ty_bucket_kind)k, f, first, exact, k == TY_BUCKET_LIST_SHADOW ? nc : 0);
    first += b->lists[k].count;
  }
  b->instance_count = first;
}

/* ---- results ------------------------------------------------------------------------ */

const ty_bucket_list *ty_bucket_get(const ty_bucket *b, ty_bucket_kind kind) {
  TY_ASSERT((unsigned)kind < TY_BUCKET_LIST_COUNT);
  return &b->lists[kind].pub;
}

ty_bucket_counts ty_bucket_count(const ty_bucket *b) { return b->counts; }

uint32_t ty_bucket_instance_stride(const ty_bucket *b) { return b->stride; }

size_t ty_bucket_instance_size(const ty_bucket *b) { return (size_t)b->instance_count * b->stride; }

void ty_bucket_write_instances(const ty_bucket *b, void *dst) {
  unsigned char *out = dst;
  const ty_bucket_item *items = b->items;
  for (int k = 0; k < TY_BUCKET_LIST_COUNT; k++) {
    const list_buf *l = &b->lists[k];
    if (b->extra == 0) {
      /* sorted order scatters the reads: fetch items, then their matrices, ahead of use */
      for (uint32_t i = 0; i < l->count; i++, out += MATRIX_BYTES) {
        if (i + 16 < l->count) __builtin_prefetch(&items[l->vals[i + 16]]);
        if (i + 8 < l->count) __builtin_prefetch(items[l->vals[i + 8]].world);
        memcpy(out, items[l->vals[i]].world, MATRIX_BYTES);
      }
      continue;
    }
    for (uint32_t i = 0; i < l->count; i++, out += b->stride) {
      if (i + 16 < l->count) __builtin_prefetch(&items[l->vals[i + 16]]);
      if (i + 8 < l->count) {
        const ty_bucket_item *ahead = &items[l->vals[i + 8]];
        __builtin_prefetch(ahead->world);
        __builtin_prefetch(ahead->instance_data);
      }
      const ty_bucket_item *it = &items[l->vals[i]];
      memcpy(out, it->world, MATRIX_BYTES);
      if (it->instance_data) memcpy(out + MATRIX_BYTES, it->instance_data, b->extra);
      else memset(out + MATRIX_BYTES, 0, b->extra);
    }
  }
}
