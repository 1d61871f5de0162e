/* tests/c/bucket_test.c: draw bucketing: sort orders of the three lists, frustum
 * culling, batches and indirect commands, and the instance upload. The camera sits at the
 * origin looking down -z with a 60 degree vertical field of view and a square aspect. */
#include <stdlib.h>
#include <string.h>

#include <cglm/cglm.h>

#include "check.h"
#include "render/bucket.h"

enum { MAX_ITEMS = 6000 };

static float worlds[MAX_ITEMS][16];
static ty_bucket_item items[MAX_ITEMS];
static uint32_t item_count;

static const ty_bucket_mesh meshes[] = {
    {.index_count = 36, .first_index = 0, .base_vertex = 0},
    {.index_count = 6, .first_index = 36, .base_vertex = 24},
    {.index_count = 960, .first_index = 42, .base_vertex = 28},
    {.index_count = 3, .first_index = 1002, .base_vertex = -5},
};

static void reset(void) { item_count = 0; }

/* An item at (x, y, z), uniformly scaled, with a unit-radius sphere at its origin. */
static uint32_t put(float x, float y, float z, float scale, uint32_t mesh, uint32_t material,
                    uint32_t flags) {
  uint32_t i = item_count++;
  float *w = worlds[i];
  memset(w, 0, sizeof worlds[i]);
  w[0] = w[5] = w[10] = scale;
  w[15] = 1;
  w[12] = x, w[13] = y, w[14] = z;
  items[i] = (ty_bucket_item){
      .world = w, .mesh = mesh, .material = material, .flags = flags, .radius = 1};
  return i;
}

static ty_bucket_frame frame(void) {
  ty_bucket_frame f = {.items = items, .item_count = item_count, .meshes = meshes, .mesh_count = 4};
  mat4 proj, view, vp;
  glm_perspective(glm_rad(60.0f), 1.0f, 0.1f, 100.0f, proj);
  glm_lookat((vec3){0, 0, 0}, (vec3){0, 0, -1}, (vec3){0, 1, 0}, view);
  glm_mat4_mul(proj, view, vp);
  memcpy(f.view_proj, vp, sizeof f.view_proj);
  return f;
}

static const uint32_t OPAQUE = TY_BUCKET_ENABLED;
static const uint32_t BLEND = TY_BUCKET_ENABLED | TY_BUCKET_TRANSPARENT;
static const uint32_t CASTER = TY_BUCKET_ENABLED | TY_BUCKET_CASTS_SHADOW;

static const ty_bucket_list *list(const ty_bucket *b, ty_bucket_kind k) { return ty_bucket_get(b, k); }

/* ---- sort orders -------------------------------------------------------------------- */

static void test_opaque_front_to_back_state_first(void) {
  reset();
  uint32_t far1 = put(0, 0, -10, 1, 0, 1, OPAQUE);
  uint32_t near1 = put(0, 0, -5, 1, 0, 1, OPAQUE);
  uint32_t mat0 = put(0, 0, -20, 1, 0, 0, OPAQUE);
  uint32_t state1 = put(0, 0, -2, 1, 0, 0, OPAQUE | TY_BUCKET_STATE(1));
  uint32_t nearest1 = put(0.5f, 0, -3, 1, 0, 1, OPAQUE);
  ty_bucket *b = ty_bucket_create(NULL);
  ty_bucket_frame f = frame();
  ty_bucket_build(b, &f);
  const ty_bucket_list *o = list(b, TY_BUCKET_LIST_OPAQUE);
  CHECK_EQ_INT(o->count, 5);
  CHECK_EQ_INT(o->items[0], mat0);     /* material beats depth */
  CHECK_EQ_INT(o->items[1], nearest1); /* same material and mesh: front to back */
  CHECK_EQ_INT(o->items[2], near1);
  CHECK_EQ_INT(o->items[3], far1);
  CHECK_EQ_INT(o->items[4], state1); /* the state group beats everything */
  ty_bucket_destroy(b);
}

static void test_transparent_back_to_front(void) {
  reset();
  uint32_t a = put(0, 0, -3, 1, 0, 0, BLEND);
  uint32_t b_ = put(0, 0, -30, 1, 1, 2, BLEND);
  uint32_t c = put(1, 0, -10, 1, 0, 0, BLEND);
  uint32_t o1 = put(0, 0, -8, 1, 0, 0, OPAQUE);
  ty_bucket *b = ty_bucket_create(NULL);
  ty_bucket_frame f = frame();
  ty_bucket_build(b, &f);
  const ty_bucket_list *t = list(b, TY_BUCKET_LIST_TRANSPARENT);
  CHECK_EQ_INT(t->count, 3);
  CHECK_EQ_INT(t->items[0], b_);
  CHECK_EQ_INT(t->items[1], c);
  CHECK_EQ_INT(t->items[2], a);
  const ty_bucket_list *o = list(b, TY_BUCKET_LIST_OPAQUE);
  CHECK_EQ_INT(o->count, 1); /* transparent items stay out of the opaque list */
  CHECK_EQ_INT(o->items[0], o1);
  ty_bucket_counts n = ty_bucket_count(b);
  CHECK_EQ_INT(n.opaque, 1);
  CHECK_EQ_INT(n.transparent, 3);
  CHECK_EQ_INT(n.shadow, 0);
  CHECK_EQ_INT(t->first_instance, 1); /* after the opaque instances */
  ty_bucket_destroy(b);
}

static void test_depth_along_forward_axis(void) {
  reset();
  uint32_t ahead = put(0, 0, -10, 1, 0, 0, BLEND); /* distance 10, depth 10 */
  uint32_t side = put(4, 0, -9, 1, 0, 0, BLEND);   /* distance 9.85, depth 9 */
  uint32_t wide = put(5, 0, -9.5f, 1, 0, 0, BLEND); /* distance 10.7, depth 9.5 */
  ty_bucket *b = ty_bucket_create(NULL);
  ty_bucket_frame f = frame();
  ty_bucket_build(b, &f); /* straight-line distance */
  const ty_bucket_list *t = list(b, TY_BUCKET_LIST_TRANSPARENT);
  CHECK_EQ_INT(t->items[0], wide);
  CHECK_EQ_INT(t->items[1], ahead);
  CHECK_EQ_INT(t->items[2], side);
  f.camera_forward[2] = -1; /* view depth along -z */
  ty_bucket_build(b, &f);
  t = list(b, TY_BUCKET_LIST_TRANSPARENT);
  CHECK_EQ_INT(t->items[0], ahead);
  CHECK_EQ_INT(t->items[1], wide);
  CHECK_EQ_INT(t->items[2], side);
  ty_bucket_destroy(b);
}

/* ---- culling ------------------------------------------------------------------------ */

static void test_frustum_culling(void) {
  reset();
  uint32_t inside = put(0, 0, -10, 1, 0, 0, OPAQUE);
  put(0, 0, 10, 1, 0, 0, OPAQUE);       /* behind the camera */
  put(-100, 0, -10, 1, 0, 0, OPAQUE);   /* far left */
  put(0, 50, -10, 1, 0, 0, BLEND);      /* above */
  put(0, 0, -200, 1, 0, 0, OPAQUE);     /* beyond the far plane */
  uint32_t edge = put(-6.5f, 0, -10, 1, 0, 0, OPAQUE); /* centre 0.63 outside, radius 1 */
  uint32_t small = put(-6.5f, 0, -10, 1, 0, 0, OPAQUE);
  items[small].radius = 0.5f; /* same place, sphere too small to reach in */
  uint32_t scaled = put(-6.5f, 0, -10, 10, 0, 0, OPAQUE);
  items[scaled].radius = 0.1f; /* scaled by 10: radius 1 in the world */
  uint32_t offset = put(-7, 0, -10, 1, 0, 0, OPAQUE);
  items[offset].center[0] = 1; /* local centre moves the sphere back inside */
  ty_bucket *b = ty_bucket_create(NULL);
  ty_bucket_frame f = frame();
  ty_bucket_build(b, &f);
  ty_bucket_counts n = ty_bucket_count(b);
  CHECK_EQ_INT(n.opaque, 4);
  CHECK_EQ_INT(n.transparent, 0);
  CHECK_EQ_INT(n.culled, 5);
  const ty_bucket_list *o = list(b, TY_BUCKET_LIST_OPAQUE);
  bool seen_inside = false, seen_edge = false, seen_scaled = false, seen_offset = false;
  for (uint32_t i = 0; i < o->count; i++) {
    seen_inside |= o->items[i] == inside;
    seen_edge |= o->items[i] == edge;
    seen_scaled |= o->items[i] == scaled;
    seen_offset |= o->items[i] == offset;
    CHECK(o->items[i] != small);
  }
  CHECK(seen_inside && seen_edge && seen_scaled && seen_offset);
  ty_bucket_destroy(b);
}

static void test_disabled_and_invalid_skipped(void) {
  reset();
  put(0, 0, -10, 1, 0, 0, TY_BUCKET_CASTS_SHADOW | TY_BUCKET_TRANSPARENT); /* not enabled */
  put(0, 0, -10, 1, 0, 0, 0);
  put(0, 0, -10, 1, 9, 0, CASTER); /* mesh 9 is not in the table */
  uint32_t ok = put(0, 0, -10, 1, 3, 0, OPAQUE);
  ty_bucket *b = ty_bucket_create(NULL);
  ty_bucket_frame f = frame();
  ty_bucket_build(b, &f);
  ty_bucket_counts n = ty_bucket_count(b);
  CHECK_EQ_INT(n.disabled, 2);
  CHECK_EQ_INT(n.invalid, 1);
  CHECK_EQ_INT(n.opaque, 1);
  CHECK_EQ_INT(n.transparent, 0);
  CHECK_EQ_INT(n.shadow, 0);
  CHECK_EQ_INT(list(b, TY_BUCKET_LIST_OPAQUE)->items[0], ok);
  ty_bucket_destroy(b);
}

static void test_shadow_casters(void) {
  reset();
  uint32_t behind = put(0, 0, 10, 1, 2, 0, CASTER); /* off screen, still casts */
  uint32_t m1b = put(0, 0, -10, 1, 1, 5, CASTER);
  uint32_t m1a = put(0, 0, -20, 1, 1, 4, CASTER | TY_BUCKET_TRANSPARENT);
  put(0, 0, -10, 1, 0, 0, OPAQUE); /* not a caster */
  uint32_t m0 = put(3, 0, -10, 1, 0, 7, CASTER);
  ty_bucket *b = ty_bucket_create(NULL);
  ty_bucket_frame f = frame();
  ty_bucket_build(b, &f);
  const ty_bucket_list *s = list(b, TY_BUCKET_LIST_SHADOW);
  CHECK_EQ_INT(s->count, 4);
  CHECK_EQ_INT(s->items[0], m0); /* mesh, then material */
  CHECK_EQ_INT(s->items[1], m1a);
  CHECK_EQ_INT(s->items[2], m1b);
  CHECK_EQ_INT(s->items[3], behind);
  CHECK_EQ_INT(ty_bucket_count(b).culled, 1);
  CHECK_EQ_INT(s->first_instance, 4); /* three opaque + one transparent come first */

  CHECK_EQ_INT(s->cascade_count, 0); /* no cascades: one list, every caster once */

  /* one light cascade culls casters outside it: an orthographic box around x in [-1, 5] */
  mat4 light;
  glm_ortho(-1, 5, -2, 2, -50, 50, light);
  f.shadow_cascades = (const float(*)[16])light;
  f.shadow_cascade_count = 1;
  ty_bucket_build(b, &f);
  s = list(b, TY_BUCKET_LIST_SHADOW);
  CHECK_EQ_INT(s->count, 4); /* all within x [-1, 5] and z [-50, 50] */
  CHECK_EQ_INT(s->cascade_count, 1);
  CHECK_EQ_INT(s->cascades[0].item_count, 4);
  CHECK_EQ_INT(s->cascades[0].run_count, s->run_count);
  worlds[m0][12] = 20;       /* move one out */
  ty_bucket_build(b, &f);
  s = list(b, TY_BUCKET_LIST_SHADOW);
  CHECK_EQ_INT(s->count, 3);
  for (uint32_t i = 0; i < s->count; i++) CHECK(s->items[i] != m0);
  ty_bucket_destroy(b);
}

/* Two cascades of a sun straight above (the light at y = 20 looking down, its box reaching
 * to y = -20): cascade 0 over x in [-5, 5], cascade 1 over x in [5, 15], both over z in
 * [-5, 5]. Unit spheres, one mesh and material, so only the cascade splits batches. */
static void two_cascades(float out[2][16]) {
  mat4 view, proj, vp;
  glm_lookat((vec3){0, 20, 0}, (vec3){0, 0, 0}, (vec3){0, 0, -1}, view);
  glm_ortho(-5, 5, -5, 5, 0, 40, proj);
  glm_mat4_mul(proj, view, vp);
  memcpy(out[0], vp, sizeof vp);
  glm_ortho(5, 15, -5, 5, 0, 40, proj);
  glm_mat4_mul(proj, view, vp);
  memcpy(out[1], vp, sizeof vp);
}

static void test_shadow_cascades(void) {
  reset();
  uint32_t in0 = put(0, 0, 0, 1, 0, 0, CASTER);
  uint32_t both = put(5, 0, 0, 1, 0, 0, CASTER);   /* straddles the two */
  uint32_t in1 = put(10, 0, 0, 1, 0, 0, CASTER);
  put(30, 0, 0, 1, 0, 0, CASTER);                  /* beside both boxes */
  uint32_t above = put(0, 19.5f, 0, 1, 0, 0, CASTER); /* between the light and the receivers */
  put(0, 30, 0, 1, 0, 0, CASTER);                  /* behind the light's near plane: clipped anyway */
  put(0, -30, 0, 1, 0, 0, CASTER);                 /* past the far end */
  uint32_t edge = put(0, 0, 5.5f, 1, 0, 0, CASTER); /* its centre outside, its sphere inside */
  put(0, 0, 6.5f, 1, 0, 0, CASTER);                /* its sphere outside too */
  put(0, 0, 0, 1, 0, 0, OPAQUE);                   /* casts nothing */
  float cascades[2][16];
  two_cascades(cascades);
  ty_bucket *b = ty_bucket_create(NULL);
  ty_bucket_frame f = frame();
  f.shadow_cascades = (const float(*)[16])cascades;
  f.shadow_cascade_count = 2;
  ty_bucket_build(b, &f);
  const ty_bucket_list *s = list(b, TY_BUCKET_LIST_SHADOW);
  CHECK_EQ_INT(s->cascade_count, 2);
  CHECK_EQ_INT(s->count, 6);
  const uint32_t want[6] = {in0, both, above, edge, both, in1}; /* cascade 0, then 1 */
  for (uint32_t i = 0; i < 6 && i < s->count; i++) CHECK_EQ_INT(s->items[i], want[i]);
  CHECK_EQ_INT(s->cascades[0].first_item, 0);
  CHECK_EQ_INT(s->cascades[0].item_count, 4);
  CHECK_EQ_INT(s->cascades[1].first_item, 4);
  CHECK_EQ_INT(s->cascades[1].item_count, 2);
  /* one mesh and material, yet a batch and a run per cascade */
  CHECK_EQ_INT(s->batch_count, 2);
  CHECK_EQ_INT(s->run_count, 2);
  CHECK_EQ_INT(s->cascades[0].first_run, 0);
  CHECK_EQ_INT(s->cascades[0].run_count, 1);
  CHECK_EQ_INT(s->cascades[1].first_run, 1);
  CHECK_EQ_INT(s->cascades[1].run_count, 1);
  CHECK_EQ_INT(s->batches[1].first_instance, s->first_instance + 4);
  CHECK_EQ_INT(s->commands[0].instance_count, 4);
  CHECK_EQ_INT(s->commands[1].instance_count, 2);
  CHECK_EQ_INT(s->commands[1].base_instance, s->first_instance + 4);
  ty_bucket_counts n = ty_bucket_count(b);
  CHECK_EQ_INT(n.shadow, 5); /* each caster once */
  CHECK_EQ_INT(n.cascades, 2);
  CHECK_EQ_INT(n.shadow_cascade[0], 4);
  CHECK_EQ_INT(n.shadow_cascade[1], 2);
  /* every listed copy gets its instance */
  CHECK_EQ_INT(ty_bucket_instance_size(b), (size_t)(n.opaque + n.transparent + s->count) * 64);

  /* A cascade with nothing in it has an empty range; the others keep theirs. */
  worlds[in1][12] = 0, worlds[both][12] = 0;
  ty_bucket_build(b, &f);
  s = list(b, TY_BUCKET_LIST_SHADOW);
  CHECK_EQ_INT(s->count, 5); /* all five in cascade 0 */
  CHECK_EQ_INT(s->cascades[1].item_count, 0);
  CHECK_EQ_INT(s->cascades[1].run_count, 0);
  CHECK_EQ_INT(s->cascades[0].run_count, 1);

  /* Every caster in both cascades, after a frame whose lists were short: the shadow list
   * is twice the items (the sort's scratch, traded between lists, grows with it). */
  reset();
  for (uint32_t i = 0; i < 300; i++) put(5, 0, (float)(i % 5) - 2, 1, i % 3, i % 7, CASTER);
  f = frame();
  f.shadow_cascades = (const float(*)[16])cascades;
  f.shadow_cascade_count = 2;
  ty_bucket_build(b, &f);
  s = list(b, TY_BUCKET_LIST_SHADOW);
  CHECK_EQ_INT(s->count, 600);
  CHECK_EQ_INT(s->cascades[1].first_item, 300);
  for (uint32_t i = 1; i < s->count; i++) {
    const ty_bucket_item *p = &items[s->items[i - 1]], *q = &items[s->items[i]];
    if (i != 300) CHECK(p->mesh < q->mesh || (p->mesh == q->mesh && p->material <= q->material));
  }
  uint32_t batched = 0;
  for (uint32_t k = 0; k < s->batch_count; k++) batched += s->commands[k].instance_count;
  CHECK_EQ_INT(batched, 600);
  CHECK_EQ_INT(s->batch_count, 2 * 21); /* 3 meshes x 7 materials in each cascade */

  /* Matrices that are not orthographic, or cascades of different orientations, cull
   * nothing: every caster once, unsplit. */
  mat4 persp;
  glm_perspective(1.0f, 1.0f, 0.1f, 50.0f, persp);
  memcpy(cascades[1], persp, sizeof persp);
  ty_bucket_build(b, &f);
  s = list(b, TY_BUCKET_LIST_SHADOW);
  CHECK_EQ_INT(s->cascade_count, 0);
  CHECK_EQ_INT(s->count, 300);
  two_cascades(cascades);
  glm_rotate_y((vec4 *)cascades[1], 0.5f, (vec4 *)cascades[1]);
  ty_bucket_build(b, &f);
  CHECK_EQ_INT(list(b, TY_BUCKET_LIST_SHADOW)->cascade_count, 0);
  CHECK_EQ_INT(list(b, TY_BUCKET_LIST_SHADOW)->count, 300);
  ty_bucket_destroy(b);
}

/* ---- batches and commands ----------------------------------------------------------- */

static void test_batches_and_indirect_commands(void) {
  reset();
  put(0, 0, -10, 1, 1, 0, OPAQUE);
  put(1, 0, -11, 1, 2, 0, OPAQUE);
  put(2, 0, -12, 1, 1, 0, OPAQUE);
  put(-1, 0, -13, 1, 1, 1, OPAQUE);
  put(-2, 0, -14, 1, 2, 0, OPAQUE);
  put(0, 1, -15, 1, 1, 0, OPAQUE);
  put(0, 0, -5, 1, 3, 2, BLEND);
  put(0, 0, -6, 1, 3, 2, BLEND);  /* next to the first in depth order: one batch */
  put(0, 0, -7, 1, 0, 2, BLEND);
  put(0, 0, -8, 1, 3, 2, BLEND);  /* same as the first two but not adjacent: its own batch */
  ty_bucket *b = ty_bucket_create(NULL);
  ty_bucket_frame f = frame();
  ty_bucket_build(b, &f);

  const ty_bucket_list *o = list(b, TY_BUCKET_LIST_OPAQUE);
  CHECK_EQ_INT(o->batch_count, 3);
  const ty_bucket_batch want[3] = {{1, 0, 0, 3}, {2, 0, 3, 2}, {1, 1, 5, 1}};
  for (int i = 0; i < 3; i++) {
    CHECK_EQ_INT(o->batches[i].mesh, want[i].mesh);
    CHECK_EQ_INT(o->batches[i].material, want[i].material);
    CHECK_EQ_INT(o->batches[i].first_instance, want[i].first_instance);
    CHECK_EQ_INT(o->batches[i].count, want[i].count);
    const ty_bucket_mesh *m = &meshes[want[i].mesh];
    CHECK_EQ_INT(o->commands[i].count, m->index_count);
    CHECK_EQ_INT(o->commands[i].instance_count, want[i].count);
    CHECK_EQ_INT(o->commands[i].first_index, m->first_index);
    CHECK_EQ_INT(o->commands[i].base_vertex, m->base_vertex);
    CHECK_EQ_INT(o->commands[i].base_instance, want[i].first_instance);
  }
  /* front to back inside the first batch */
  CHECK(worlds[o->items[0]][14] > worlds[o->items[1]][14]);
  CHECK(worlds[o->items[1]][14] > worlds[o->items[2]][14]);
  CHECK_EQ_INT(o->run_count, 2); /* material 0 (two batches), material 1 */
  CHECK_EQ_INT(o->runs[0].material, 0);
  CHECK_EQ_INT(o->runs[0].first_batch, 0);
  CHECK_EQ_INT(o->runs[0].batch_count, 2);
  CHECK_EQ_INT(o->runs[1].material, 1);
  CHECK_EQ_INT(o->runs[1].first_batch, 2);
  CHECK_EQ_INT(o->runs[1].batch_count, 1);

  const ty_bucket_list *t = list(b, TY_BUCKET_LIST_TRANSPARENT);
  CHECK_EQ_INT(t->first_instance, 6);
  CHECK_EQ_INT(t->batch_count, 3); /* depth order -8, -7, -6 -5: mesh 3, mesh 0, mesh 3 x2 */
  CHECK_EQ_INT(t->batches[0].mesh, 3);
  CHECK_EQ_INT(t->batches[0].count, 1);
  CHECK_EQ_INT(t->batches[1].mesh, 0);
  CHECK_EQ_INT(t->batches[2].mesh, 3);
  CHECK_EQ_INT(t->batches[2].count, 2);
  CHECK_EQ_INT(t->commands[2].base_instance, 8);
  CHECK_EQ_INT(t->commands[2].base_vertex, -5);
  CHECK_EQ_INT(t->run_count, 1);
  CHECK_EQ_INT(ty_bucket_count(b).batches, 6);
  ty_bucket_destroy(b);
}

static void test_instance_upload(void) {
  reset();
  uint32_t a = put(0, 0, -10, 1, 1, 0, CASTER);
  uint32_t c = put(1, 0, -5, 2, 1, 0, BLEND);
  uint32_t d = put(0, 0, 10, 1, 0, 3, CASTER); /* shadow only */
  static const float tint[4] = {0.25f, 0.5f, 0.75f, 1.0f};
  items[c].instance_data = tint;
  ty_bucket *b = ty_bucket_create(&(ty_bucket_desc){.instance_bytes = 16});
  ty_bucket_frame f = frame();
  ty_bucket_build(b, &f);
  CHECK_EQ_INT(ty_bucket_instance_stride(b), 80);
  CHECK_EQ_INT(ty_bucket_instance_size(b), 4 * 80); /* a, c, then the shadow copies of d, a */
  float buf[4][20];
  memset(buf, 0xAB, sizeof buf);
  ty_bucket_write_instances(b, buf);
  CHECK(memcmp(buf[0], worlds[a], 64) == 0);
  CHECK(memcmp(buf[1], worlds[c], 64) == 0);
  CHECK(memcmp(buf[1] + 16, tint, 16) == 0);
  CHECK(memcmp(buf[2], worlds[d], 64) == 0);
  CHECK(memcmp(buf[3], worlds[a], 64) == 0);
  for (int k = 0; k < 4; k++) CHECK(buf[0][16 + k] == 0.0f && buf[2][16 + k] == 0.0f);
  const ty_bucket_list *s = list(b, TY_BUCKET_LIST_SHADOW);
  CHECK_EQ_INT(s->commands[0].base_instance, 2);
  CHECK_EQ_INT(s->commands[1].base_instance, 3);
  ty_bucket_destroy(b);
}

/* ---- the radix sort against qsort on many random items ------------------------------ */

static uint32_t rng_state = 12345;
static uint32_t rng(void) {
  rng_state ^= rng_state << 13, rng_state ^= rng_state >> 17, rng_state ^= rng_state << 5;
  return rng_state;
}
static float frand(float lo, float hi) {
  return lo + (hi - lo) * (float)(rng() & 0xFFFFFF) / 16777216.0f;
}

static float dist2(uint32_t i) {
  const float *w = worlds[i];
  return w[12] * w[12] + w[13] * w[13] + w[14] * w[14];
}

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

/* list is a permutation of want (the items expected in it) */
static bool same_members(const uint32_t *list_items, uint32_t n, const uint32_t *want, uint32_t wn) {
  if (n != wn) return false;
  uint32_t *copy = malloc(sizeof *copy * (n ? n : 1));
  memcpy(copy, list_items, sizeof *copy * n);
  qsort(copy, n, sizeof *copy, cmp_u32);
  bool same = n == 0 || memcmp(copy, want, sizeof *copy * n) == 0;
  free(copy);
  return same;
}

static void test_random_sort_orders(void) {
  reset();
  static uint32_t want_op[MAX_ITEMS], want_tr[MAX_ITEMS], want_sh[MAX_ITEMS];
  uint32_t nop = 0, ntr = 0, nsh = 0;
  for (int i = 0; i < 5000; i++) {
    uint32_t flags = TY_BUCKET_ENABLED | TY_BUCKET_STATE(rng() % 3);
    if (rng() % 4 == 0) flags |= TY_BUCKET_TRANSPARENT;
    if (rng() % 2) flags |= TY_BUCKET_CASTS_SHADOW;
    /* inside a cone well within the frustum, so nothing is culled */
    float z = -frand(1, 90);
    float x = frand(-0.4f, 0.4f) * -z, y = frand(-0.4f, 0.4f) * -z;
    uint32_t id = put(x, y, z, 1, rng() % 4, rng() % 3000, flags);
    items[id].radius = 0.01f;
    if (flags & TY_BUCKET_TRANSPARENT) want_tr[ntr++] = id;
    else want_op[nop++] = id;
    if (flags & TY_BUCKET_CASTS_SHADOW) want_sh[nsh++] = id;
  }
  ty_bucket *b = ty_bucket_create(NULL);
  ty_bucket_frame f = frame();
  for (int round = 0; round < 2; round++) { /* the second build reuses the buffers */
    ty_bucket_build(b, &f);
    const ty_bucket_list *o = list(b, TY_BUCKET_LIST_OPAQUE), *t = list(b, TY_BUCKET_LIST_TRANSPARENT),
                         *s = list(b, TY_BUCKET_LIST_SHADOW);
    CHECK(same_members(o->items, o->count, want_op, nop));
    CHECK(same_members(t->items, t->count, want_tr, ntr));
    CHECK(same_members(s->items, s->count, want_sh, nsh));
    int bad_op = 0, bad_tr = 0, bad_sh = 0;
    for (uint32_t i = 1; i < o->count; i++) {
      const ty_bucket_item *p = &items[o->items[i - 1]], *q = &items[o->items[i]];
      uint32_t ps = p->flags >> TY_BUCKET_STATE_SHIFT, qs = q->flags >> TY_BUCKET_STATE_SHIFT;
      if (ps != qs) bad_op += ps > qs;
      else if (p->material != q->material) bad_op += p->material > q->material;
      else if (p->mesh != q->mesh) bad_op += p->mesh > q->mesh;
      else bad_op += dist2(o->items[i - 1]) > dist2(o->items[i]) * 1.01f; /* quantised */
    }
    for (uint32_t i = 1; i < t->count; i++) bad_tr += dist2(t->items[i - 1]) < dist2(t->items[i]);
    for (uint32_t i = 1; i < s->count; i++) {
      const ty_bucket_item *p = &items[s->items[i - 1]], *q = &items[s->items[i]];
      if (p->mesh != q->mesh) bad_sh += p->mesh > q->mesh;
      else if (p->material != q->material) bad_sh += p->material > q->material;
      else bad_sh += s->items[i - 1] > s->items[i]; /* equal keys keep item order */
    }
    CHECK_EQ_INT(bad_op, 0);
    CHECK_EQ_INT(bad_tr, 0);
    CHECK_EQ_INT(bad_sh, 0);
    /* batches cover each list exactly, and neighbours differ */
    uint32_t covered = 0;
    for (uint32_t j = 0; j < o->batch_count; j++) {
      CHECK_EQ_INT(o->batches[j].first_instance, covered);
      covered += o->batches[j].count;
      if (j)
        CHECK(o->batches[j].mesh != o->batches[j - 1].mesh ||
              o->batches[j].material != o->batches[j - 1].material);
    }
    CHECK_EQ_INT(covered, o->count);
  }
  ty_bucket_destroy(b);
}

/* Ids too wide for their key fields collide in the keys; batches must still be pure. */
static void test_wide_ids_batch_correctly(void) {
  reset();
  for (int i = 0; i < 12; i++) {
    uint32_t material = i % 2 ? 0x1000001u : 0x2000001u; /* equal in the low 24 and 16 bits */
    put(0, 0, -2.0f - (float)i, 1, 1, material, i < 6 ? OPAQUE : BLEND);
  }
  ty_bucket *b = ty_bucket_create(NULL);
  ty_bucket_frame f = frame();
  ty_bucket_build(b, &f);
  for (int k = TY_BUCKET_LIST_OPAQUE; k <= TY_BUCKET_LIST_TRANSPARENT; k++) {
    const ty_bucket_list *l = list(b, (ty_bucket_kind)k);
    CHECK_EQ_INT(l->count, 6);
    uint32_t covered = 0;
    for (uint32_t j = 0; j < l->batch_count; j++) {
      const ty_bucket_batch *bt = &l->batches[j];
      for (uint32_t i = 0; i < bt->count; i++) {
        const ty_bucket_item *it = &items[l->items[bt->first_instance - l->first_instance + i]];
        CHECK(it->material == bt->material && it->mesh == bt->mesh);
      }
      covered += bt->count;
    }
    CHECK_EQ_INT(covered, 6);
    CHECK(l->batch_count >= 2);
  }
  ty_bucket_destroy(b);
}

static void test_empty_frame(void) {
  reset();
  ty_bucket *b = ty_bucket_create(NULL);
  ty_bucket_frame f = frame();
  ty_bucket_build(b, &f);
  ty_bucket_counts n = ty_bucket_count(b);
  CHECK_EQ_INT(n.opaque + n.transparent + n.shadow + n.batches, 0);
  CHECK_EQ_INT(ty_bucket_instance_size(b), 0);
  ty_bucket_write_instances(b, NULL);
  ty_bucket_destroy(b);
}

int main(void) {
  RUN(test_opaque_front_to_back_state_first);
  RUN(test_transparent_back_to_front);
  RUN(test_depth_along_forward_axis);
  RUN(test_frustum_culling);
  RUN(test_disabled_and_invalid_skipped);
  RUN(test_shadow_casters);
  RUN(test_shadow_cascades);
  RUN(test_batches_and_indirect_commands);
  RUN(test_instance_upload);
  RUN(test_random_sort_orders);
  RUN(test_wide_ids_batch_correctly);
  RUN(test_empty_frame);
  return check_summary();
}
