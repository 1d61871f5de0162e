/* tests/c/transform_test.c: the transform hierarchy (engine/core/transform.h): matrix
 * values, compare-on-read rebuild counts, hierarchy edits noticed without notification,
 * sync, slot reuse, and depth that would overflow a recursive implementation. */
#include <cglm/cglm.h>

#include "check.h"
#include "core/transform.h"

static const float kEps = 1e-4f;

static void set_trs(ty_transforms *T, uint32_t i, float px, float py, float pz, const float q[4],
                    float sx, float sy, float sz) {
  ty_trs *l = ty_transform_write(T, i);
  l->pos[0] = px, l->pos[1] = py, l->pos[2] = pz;
  for (int k = 0; k < 4; k++) l->rot[k] = q[k];
  l->scale[0] = sx, l->scale[1] = sy, l->scale[2] = sz;
}

static void set_pos(ty_transforms *T, uint32_t i, float x, float y, float z) {
  ty_trs *l = ty_transform_write(T, i);
  l->pos[0] = x, l->pos[1] = y, l->pos[2] = z;
}

static void quat_axis_angle(float angle, float ax, float ay, float az, versor q) {
  vec3 axis = {ax, ay, az};
  glm_quatv(q, angle, axis);
}

/* The reference: T * R * S through cglm's own translate/rotate/scale, a different path
 * from the engine's folded formula. */
static void reference_local(const ty_trs *l, mat4 m) {
  versor q = {l->rot[0], l->rot[1], l->rot[2], l->rot[3]};
  vec3 p = {l->pos[0], l->pos[1], l->pos[2]}, s = {l->scale[0], l->scale[1], l->scale[2]};
  glm_mat4_identity(m);
  glm_translate(m, p);
  glm_quat_rotate(m, q, m);
  glm_scale(m, s);
}

static bool mat_near(const float *a, const float *b, float eps) {
  for (int k = 0; k < 16; k++)
    if (!(fabsf(a[k] - b[k]) <= eps * (1.0f + fabsf(b[k])))) return false;
  return true;
}

static uint64_t rebuilds_local(const ty_transforms *T) { return ty_transforms_stats(T).local_rebuilds; }
static uint64_t rebuilds_world(const ty_transforms *T) { return ty_transforms_stats(T).world_rebuilds; }

static void test_identity(void) {
  ty_transforms *T = ty_transforms_create();
  uint32_t a = ty_transform_create(T);
  CHECK_EQ_INT(a, 0);
  const ty_trs *l = ty_transform_local(T, a);
  CHECK(l->rot[3] == 1.0f && l->scale[0] == 1.0f && l->pos[0] == 0.0f);
  mat4 id = GLM_MAT4_IDENTITY_INIT;
  CHECK(memcmp(ty_transform_world(T, a), id, sizeof id) == 0);
  CHECK(mat_near(ty_transform_world_inverse(T, a), &id[0][0], 0));
  float r[4], s[3], p[3];
  ty_transform_world_rotation(T, a, r);
  ty_transform_world_scale(T, a, s);
  ty_transform_world_position(T, a, p);
  CHECK(r[0] == 0 && r[1] == 0 && r[2] == 0 && r[3] == 1);
  CHECK(s[0] == 1 && s[1] == 1 && s[2] == 1);
  CHECK(p[0] == 0 && p[1] == 0 && p[2] == 0);
  CHECK_EQ_INT(ty_transform_parent(T, a), TY_TRANSFORM_NONE);
  CHECK_EQ_INT(ty_transform_first_child(T, a), TY_TRANSFORM_NONE);
  CHECK_EQ_INT(ty_transforms_capacity(T), 1);
  ty_transforms_destroy(T);
}

static void test_trs_matrix(void) {
  ty_transforms *T = ty_transforms_create();
  uint32_t a = ty_transform_create(T);
  versor q;
  quat_axis_angle(GLM_PI_2f, 0, 0, 1, q); /* x -> y, y -> -x */
  set_trs(T, a, 1, 2, 3, q, 2, 3, 4);
  /* Column-major: each column is R * S applied to a basis vector, then the position. */
  const float expect[16] = {0, 2, 0, 0, -3, 0, 0, 0, 0, 0, 4, 0, 1, 2, 3, 1};
  CHECK(mat_near(ty_transform_world(T, a), expect, kEps));

  /* A general rotation against cglm's translate/rotate/scale. */
  versor q2 = {0.1f, -0.7f, 0.3f, 0.6f};
  glm_quat_normalize(q2);
  set_trs(T, a, -4, 0.5f, 9, q2, 0.5f, -2, 1.5f);
  mat4 ref;
  reference_local(ty_transform_local(T, a), ref);
  CHECK(mat_near(ty_transform_world(T, a), &ref[0][0], kEps));

  /* A child composes as parent * local. */
  uint32_t b = ty_transform_create(T);
  CHECK(ty_transform_set_parent(T, b, a));
  set_trs(T, b, 1, 1, 1, q, 1, 2, 1);
  mat4 lb, wb;
  reference_local(ty_transform_local(T, b), lb);
  glm_mat4_mul(ref, lb, wb);
  CHECK(mat_near(ty_transform_world(T, b), &wb[0][0], kEps));
  ty_transforms_destroy(T);
}

/* A chain of n transforms, each one unit along x from its parent; returns the deepest. */
static uint32_t make_chain(ty_transforms *T, int n) {
  uint32_t prev = TY_TRANSFORM_NONE;
  for (int k = 0; k < n; k++) {
    uint32_t i = ty_transform_create(T);
    set_pos(T, i, 1, 0, 0);
    if (prev != TY_TRANSFORM_NONE) CHECK(ty_transform_set_parent(T, i, prev));
    prev = i;
  }
  return prev;
}

static void test_deep_chain_propagation(void) {
  enum { N = 10000 };
  ty_transforms *T = ty_transforms_create();
  uint32_t prev = make_chain(T, N);
  float p[3];
  ty_transform_world_position(T, prev, p);
  CHECK_NEAR(p[0], N, 0);
  CHECK_EQ_INT(rebuilds_world(T), N);
  /* A quarter turn at the root swings the whole chain onto the y axis. */
  versor q;
  quat_axis_angle(GLM_PI_2f, 0, 0, 1, q);
  memcpy(ty_transform_write(T, 0)->rot, q, sizeof q);
  ty_transform_world_position(T, prev, p);
  CHECK_NEAR(p[0], 1, 1e-2);
  CHECK_NEAR(p[1], N - 1, 1e-2);
  ty_transforms_destroy(T);
}

static void test_wide_propagation(void) {
  enum { N = 10000 };
  ty_transforms *T = ty_transforms_create();
  uint32_t root = ty_transform_create(T);
  for (int k = 0; k < N; k++) {
    uint32_t c = ty_transform_create(T);
    set_pos(T, c, (float)k, 0, 0);
    CHECK(ty_transform_set_parent(T, c, root));
  }
  /* Children keep insertion order. */
  uint32_t n = 0, expect = root + 1;
  for (uint32_t c = ty_transform_first_child(T, root); c != TY_TRANSFORM_NONE; c = ty_transform_next_sibling(T, c)) {
    if (c != expect) break;
    expect++, n++;
  }
  CHECK_EQ_INT(n, N);
  ty_transforms_sync(T);
  ty_transforms_reset_stats(T);
  set_pos(T, root, 0, 7, 0);
  ty_transforms_sync(T);
  CHECK_EQ_INT(rebuilds_local(T), 1);
  CHECK_EQ_INT(rebuilds_world(T), N + 1);
  bool all = true;
  for (uint32_t k = 0; k < N; k++) {
    float p[3];
    ty_transform_world_position(T, root + 1 + k, p);
    all = all && p[0] == (float)k && p[1] == 7.0f;
  }
  CHECK(all);
  ty_transforms_destroy(T);
}

static void test_compare_on_read_counts(void) {
  ty_transforms *T = ty_transforms_create();
  uint32_t p = ty_transform_create(T), c = ty_transform_create(T);
  CHECK(ty_transform_set_parent(T, c, p));
  set_pos(T, c, 1, 0, 0);

  ty_transform_world(T, c);
  CHECK_EQ_INT(rebuilds_local(T), 2);
  CHECK_EQ_INT(rebuilds_world(T), 2);
  ty_transform_world(T, c);
  ty_transform_world(T, p);
  CHECK_EQ_INT(rebuilds_local(T), 2);
  CHECK_EQ_INT(rebuilds_world(T), 2);

  /* Writing the value already there is no change. */
  ty_transforms_reset_stats(T);
  ty_trs same = *ty_transform_local(T, c);
  *ty_transform_write(T, c) = same;
  ty_transform_world(T, c);
  CHECK_EQ_INT(rebuilds_local(T), 0);
  CHECK_EQ_INT(rebuilds_world(T), 0);

  /* Moving the parent rebuilds the child's world but not its local matrix. */
  uint32_t v = ty_transform_world_version(T, c);
  set_pos(T, p, 0, 3, 0);
  float pos[3];
  ty_transform_world_position(T, c, pos);
  CHECK(pos[0] == 1 && pos[1] == 3);
  CHECK_EQ_INT(rebuilds_local(T), 1);
  CHECK_EQ_INT(rebuilds_world(T), 2);
  CHECK(ty_transform_world_version(T, c) != v);
  ty_transforms_destroy(T);
}

static void test_reparent_and_detach_noticed(void) {
  ty_transforms *T = ty_transforms_create();
  uint32_t a = ty_transform_create(T), b = ty_transform_create(T), c = ty_transform_create(T);
  set_pos(T, a, 10, 0, 0);
  set_pos(T, b, 0, 5, 0);
  set_pos(T, c, 1, 0, 0);
  CHECK(ty_transform_set_parent(T, c, a));
  float p[3];
  ty_transform_world_position(T, c, p);
  CHECK(p[0] == 11 && p[1] == 0);
  ty_transform_world(T, b);
  uint32_t v = ty_transform_world_version(T, c);

  ty_transforms_reset_stats(T);
  CHECK(ty_transform_set_parent(T, c, b));
  CHECK_EQ_INT(ty_transform_parent(T, c), b);
  CHECK_EQ_INT(ty_transform_first_child(T, a), TY_TRANSFORM_NONE);
  ty_transform_world_position(T, c, p);
  CHECK(p[0] == 1 && p[1] == 5);
  CHECK_EQ_INT(rebuilds_local(T), 0);
  CHECK_EQ_INT(rebuilds_world(T), 1);
  uint32_t v2 = ty_transform_world_version(T, c);
  CHECK(v2 > v);

  ty_transforms_reset_stats(T);
  CHECK(ty_transform_set_parent(T, c, TY_TRANSFORM_NONE));
  ty_transform_world_position(T, c, p);
  CHECK(p[0] == 1 && p[1] == 0);
  CHECK_EQ_INT(rebuilds_local(T), 0);
  CHECK_EQ_INT(rebuilds_world(T), 1); /* a root's world is its local, recomputed */
  CHECK(ty_transform_world_version(T, c) > v2);

  /* Re-parenting to the same parent changes nothing. */
  ty_transforms_reset_stats(T);
  CHECK(ty_transform_set_parent(T, c, TY_TRANSFORM_NONE));
  ty_transform_world(T, c);
  CHECK_EQ_INT(rebuilds_world(T), 0);
  ty_transforms_destroy(T);
}

static void test_cycle_refused(void) {
  ty_transforms *T = ty_transforms_create();
  uint32_t a = ty_transform_create(T), b = ty_transform_create(T), c = ty_transform_create(T);
  uint32_t d = ty_transform_create(T);
  CHECK(ty_transform_set_parent(T, b, a));
  CHECK(ty_transform_set_parent(T, c, b));
  CHECK(ty_transform_set_parent(T, d, a));
  CHECK(!ty_transform_set_parent(T, a, a));
  CHECK(!ty_transform_set_parent(T, a, c));
  CHECK(!ty_transform_set_parent(T, a, b));
  CHECK(!ty_transform_set_parent(T, b, c));
  CHECK_EQ_INT(ty_transform_parent(T, a), TY_TRANSFORM_NONE);
  CHECK_EQ_INT(ty_transform_parent(T, b), a);
  CHECK_EQ_INT(ty_transform_first_child(T, a), b);
  CHECK_EQ_INT(ty_transform_next_sibling(T, b), d);
  /* Moving a subtree under a sibling's branch is fine. */
  CHECK(ty_transform_set_parent(T, b, d));
  CHECK_EQ_INT(ty_transform_first_child(T, a), d);
  CHECK_EQ_INT(ty_transform_first_child(T, d), b);
  ty_transforms_destroy(T);
}

static void test_destroy_makes_children_roots(void) {
  ty_transforms *T = ty_transforms_create();
  uint32_t g = ty_transform_create(T), p = ty_transform_create(T);
  uint32_t c1 = ty_transform_create(T), c2 = ty_transform_create(T);
  CHECK(ty_transform_set_parent(T, p, g));
  CHECK(ty_transform_set_parent(T, c1, p));
  CHECK(ty_transform_set_parent(T, c2, p));
  set_pos(T, p, 100, 0, 0);
  set_pos(T, c1, 1, 0, 0);
  set_pos(T, c2, 0, 2, 0);
  float pos[3];
  ty_transform_world_position(T, c1, pos);
  CHECK(pos[0] == 101);
  ty_transforms_sync(T);

  ty_transform_destroy(T, p);
  CHECK_EQ_INT(ty_transform_first_child(T, g), TY_TRANSFORM_NONE);
  CHECK_EQ_INT(ty_transform_parent(T, c1), TY_TRANSFORM_NONE);
  CHECK_EQ_INT(ty_transform_parent(T, c2), TY_TRANSFORM_NONE);
  CHECK_EQ_INT(ty_transform_next_sibling(T, c1), TY_TRANSFORM_NONE);
  CHECK(ty_transform_local(T, c1)->pos[0] == 1);
  ty_transforms_sync(T);
  ty_transform_world_position(T, c1, pos);
  CHECK(pos[0] == 1 && pos[1] == 0);
  ty_transform_world_position(T, c2, pos);
  CHECK(pos[0] == 0 && pos[1] == 2);
  /* The freed slot comes back as a fresh identity root. */
  CHECK_EQ_INT(ty_transform_create(T), p);
  ty_transform_world_position(T, p, pos);
  CHECK(pos[0] == 0);
  CHECK_EQ_INT(ty_transform_first_child(T, p), TY_TRANSFORM_NONE);
  ty_transforms_destroy(T);
}

static void test_inverse(void) {
  ty_transforms *T = ty_transforms_create();
  uint32_t a = ty_transform_create(T), b = ty_transform_create(T);
  CHECK(ty_transform_set_parent(T, b, a));
  versor q, q2;
  quat_axis_angle(0.7f, 1, 2, 3, q);
  quat_axis_angle(-1.3f, 0, 1, 0, q2);
  set_trs(T, a, 3, -2, 5, q, 2, 0.5f, 3);
  set_trs(T, b, -1, 4, 2, q2, -1, 1.5f, 0.25f);
  for (uint32_t i = 0; i < 2; i++) {
    mat4 w, inv, prod;
    memcpy(w, ty_transform_world(T, i), sizeof w);
    memcpy(inv, ty_transform_world_inverse(T, i), sizeof inv);
    glm_mat4_mul(inv, w, prod);
    mat4 id = GLM_MAT4_IDENTITY_INIT;
    CHECK(mat_near(&prod[0][0], &id[0][0], 1e-4f));
  }
  /* Cached per world version: follows a change. */
  set_pos(T, a, 0, 0, 0);
  mat4 w, inv, prod, id = GLM_MAT4_IDENTITY_INIT;
  memcpy(w, ty_transform_world(T, b), sizeof w);
  memcpy(inv, ty_transform_world_inverse(T, b), sizeof inv);
  glm_mat4_mul(w, inv, prod);
  CHECK(mat_near(&prod[0][0], &id[0][0], 1e-4f));
  /* A zero scale has no inverse; it must still be finite. */
  set_trs(T, a, 1, 1, 1, q, 0, 1, 1);
  const float *z = ty_transform_world_inverse(T, b);
  bool finite = true;
  for (int k = 0; k < 16; k++) finite = finite && isfinite(z[k]);
  CHECK(finite);
  ty_transforms_destroy(T);
}

/* Rebuilds T * R * S from the decomposed world values and compares with the world. */
static bool decomposition_reconstructs(ty_transforms *T, uint32_t i) {
  ty_trs d;
  ty_transform_world_position(T, i, d.pos);
  ty_transform_world_rotation(T, i, d.rot);
  ty_transform_world_scale(T, i, d.scale);
  for (int k = 0; k < 3; k++)
    if (!isfinite(d.pos[k]) || !isfinite(d.scale[k])) return false;
  for (int k = 0; k < 4; k++)
    if (!isfinite(d.rot[k])) return false;
  mat4 m;
  reference_local(&d, m);
  return mat_near(&m[0][0], ty_transform_world(T, i), 1e-4f);
}

static void test_decomposition(void) {
  ty_transforms *T = ty_transforms_create();
  uint32_t a = ty_transform_create(T);
  versor q;
  quat_axis_angle(1.1f, 0.3f, -1, 0.2f, q);
  set_trs(T, a, 1, 2, 3, q, 2, 3, 4);
  versor r;
  float s[3];
  ty_transform_world_rotation(T, a, r);
  ty_transform_world_scale(T, a, s);
  CHECK_NEAR(fabsf(glm_quat_dot(r, q)), 1, 1e-5);
  CHECK_NEAR(s[0], 2, 1e-5);
  CHECK_NEAR(s[1], 3, 1e-5);
  CHECK_NEAR(s[2], 4, 1e-5);
  CHECK(decomposition_reconstructs(T, a));

  /* Negative scales: one or three flips mirror the basis; any sign split is fine as long
   * as the world matrix comes back. */
  const float scales[][3] = {{-1, 1, 1}, {1, -2, 1}, {1, 1, -3}, {-1, -1, 1}, {-2, -3, -4}, {0.5f, -0.25f, 8}};
  for (size_t k = 0; k < sizeof scales / sizeof scales[0]; k++) {
    set_trs(T, a, -1, 0, 2, q, scales[k][0], scales[k][1], scales[k][2]);
    CHECK(decomposition_reconstructs(T, a));
  }

  /* Zero scale: zero scale, identity rotation, no NaN. */
  set_trs(T, a, 0, 0, 0, q, 0, 0, 0);
  ty_transform_world_rotation(T, a, r);
  ty_transform_world_scale(T, a, s);
  CHECK(s[0] == 0 && s[1] == 0 && s[2] == 0);
  CHECK(r[0] == 0 && r[1] == 0 && r[2] == 0 && r[3] == 1);
  /* One flattened axis still reconstructs. */
  set_trs(T, a, 0, 0, 0, q, 1, 0, 2);
  CHECK(decomposition_reconstructs(T, a));

  /* Through a hierarchy (uniform parent scale, so no shear). */
  uint32_t b = ty_transform_create(T);
  CHECK(ty_transform_set_parent(T, b, a));
  versor q2;
  quat_axis_angle(-0.4f, 1, 0, 0, q2);
  set_trs(T, a, 5, 0, 0, q, -2, -2, -2);
  set_trs(T, b, 0, 1, 0, q2, 1, 3, -0.5f);
  CHECK(decomposition_reconstructs(T, b));
  /* Cached per world version: follows a parent change. */
  set_trs(T, a, 5, 0, 0, q, 3, 3, 3);
  CHECK(decomposition_reconstructs(T, b));
  ty_transforms_destroy(T);
}

/* 10 roots, each with a 9-node child subtree of 3 children x 3 grandchildren, plus a
 * 100-node chain under root 0's first child. */
static void test_sync(void) {
  ty_transforms *T = ty_transforms_create();
  uint32_t roots[10], kids[10][3];
  for (int r = 0; r < 10; r++) {
    roots[r] = ty_transform_create(T);
    set_pos(T, roots[r], (float)r, 0, 0);
    for (int k = 0; k < 3; k++) {
      kids[r][k] = ty_transform_create(T);
      CHECK(ty_transform_set_parent(T, kids[r][k], roots[r]));
      set_pos(T, kids[r][k], 0, 1, 0);
      for (int g = 0; g < 3; g++) {
        uint32_t gc = ty_transform_create(T);
        CHECK(ty_transform_set_parent(T, gc, kids[r][k]));
        set_pos(T, gc, 0, 0, 1);
      }
    }
  }
  uint32_t prev = kids[0][0], leaf = prev;
  for (int k = 0; k < 100; k++) {
    leaf = ty_transform_create(T);
    CHECK(ty_transform_set_parent(T, leaf, prev));
    set_pos(T, leaf, 1, 0, 0);
    prev = leaf;
  }
  const uint32_t n = ty_transforms_capacity(T);
  ty_transforms_sync(T);
  CHECK_EQ_INT(rebuilds_world(T), n);
  CHECK_EQ_INT(rebuilds_local(T), n);

  /* A static frame rebuilds nothing, on sync or on read. */
  ty_transforms_reset_stats(T);
  ty_transforms_sync(T);
  for (uint32_t i = 0; i < n; i++) ty_transform_world(T, i);
  CHECK_EQ_INT(rebuilds_world(T), 0);
  CHECK_EQ_INT(rebuilds_local(T), 0);

  /* One touched node rebuilds its own subtree and nothing else. */
  set_pos(T, kids[3][1], 0, 2, 0);
  ty_transforms_sync(T);
  CHECK_EQ_INT(rebuilds_local(T), 1);
  CHECK_EQ_INT(rebuilds_world(T), 4);
  ty_transforms_reset_stats(T);
  set_pos(T, kids[0][0], 0, 2, 0);
  ty_transforms_sync(T);
  CHECK_EQ_INT(rebuilds_local(T), 1);
  CHECK_EQ_INT(rebuilds_world(T), 104);
  float p[3];
  ty_transform_world_position(T, leaf, p);
  CHECK(p[0] == 100 && p[1] == 2);

  /* A descendant touched before its ancestor: the sync brings the ancestor chain up to
   * date first, so nothing is built twice. */
  ty_transforms_reset_stats(T);
  uint32_t gc9 = ty_transform_first_child(T, kids[9][0]);
  set_pos(T, gc9, 0, 0, 2);
  set_pos(T, roots[9], 9, 0, 1);
  ty_transforms_sync(T);
  CHECK_EQ_INT(rebuilds_local(T), 2);
  CHECK_EQ_INT(rebuilds_world(T), 13);
  ty_transform_world_position(T, gc9, p);
  CHECK(p[0] == 9 && p[1] == 1 && p[2] == 3);

  /* Touched but unchanged: nothing. */
  ty_transforms_reset_stats(T);
  ty_transform_write(T, roots[5]);
  ty_transforms_sync(T);
  CHECK_EQ_INT(rebuilds_world(T), 0);

  /* A read between the write and the sync rebuilds part of the subtree; the sync still
   * has to reach the rest. */
  ty_transforms_reset_stats(T);
  set_pos(T, roots[7], 0, 0, 50);
  uint32_t gc = ty_transform_first_child(T, kids[7][2]);
  ty_transform_world(T, kids[7][2]);
  ty_transforms_sync(T);
  CHECK_EQ_INT(rebuilds_world(T), 13);
  ty_transform_world_position(T, gc, p);
  CHECK(p[0] == 0 && p[1] == 1 && p[2] == 51);
  ty_transforms_destroy(T);
}

static void test_lowest_free_index(void) {
  ty_transforms *T = ty_transforms_create();
  for (int k = 0; k < 8; k++) CHECK_EQ_INT(ty_transform_create(T), k);
  ty_transform_destroy(T, 5);
  ty_transform_destroy(T, 1);
  ty_transform_destroy(T, 6);
  ty_transform_destroy(T, 3);
  CHECK_EQ_INT(ty_transform_create(T), 1);
  CHECK_EQ_INT(ty_transform_create(T), 3);
  CHECK_EQ_INT(ty_transform_create(T), 5);
  CHECK_EQ_INT(ty_transform_create(T), 6);
  CHECK_EQ_INT(ty_transform_create(T), 8);
  CHECK_EQ_INT(ty_transforms_capacity(T), 9);
  ty_transforms_destroy(T);
}

static void test_100k_chain_no_recursion(void) {
  enum { N = 100000 };
  ty_transforms *T = ty_transforms_create();
  uint32_t prev = make_chain(T, N);
  float p[3];
  ty_transform_world_position(T, prev, p); /* climbs 100k ancestors on read */
  CHECK(p[0] == N);
  ty_transforms_sync(T);
  set_pos(T, 0, 1, 1, 0);
  ty_transforms_sync(T); /* walks 100k levels down */
  ty_transform_world_position(T, prev, p);
  CHECK(p[0] == N && p[1] == 1);
  CHECK(!ty_transform_set_parent(T, 0, prev)); /* the cycle check climbs 100k too */
  ty_transform_destroy(T, N / 2);
  ty_transforms_sync(T);
  ty_transform_world_position(T, prev, p);
  CHECK(p[0] == N / 2 - 1 && p[1] == 0);
  ty_transforms_destroy(T);
}

/* ---- randomized: every operation mix against a from-scratch reference --------------- */

static uint32_t rng_state = 12345;
static uint32_t rng(void) {
  rng_state = rng_state * 1664525u + 1013904223u;
  return rng_state >> 8;
}
static float rngf(float lo, float hi) { return lo + (hi - lo) * (float)(rng() & 0xFFFF) / 65535.0f; }

enum { RN = 48 };
static uint32_t ref_parent[RN];
static uint64_t ref_order[RN];
static bool ref_alive[RN];

static void reference_world(ty_transforms *T, uint32_t i, mat4 out) {
  uint32_t chain[RN], n = 0;
  for (uint32_t a = i; a != TY_TRANSFORM_NONE; a = ref_parent[a]) chain[n++] = a;
  glm_mat4_identity(out);
  while (n) {
    mat4 l;
    reference_local(ty_transform_local(T, chain[--n]), l);
    glm_mat4_mul(out, l, out);
  }
}

static bool ref_is_ancestor(uint32_t a, uint32_t i) {
  for (uint32_t x = i; x != TY_TRANSFORM_NONE; x = ref_parent[x])
    if (x == a) return true;
  return false;
}

static bool check_node(ty_transforms *T, uint32_t i) {
  mat4 ref;
  reference_world(T, i, ref);
  if (!mat_near(ty_transform_world(T, i), &ref[0][0], 1e-3f)) return false;
  if (ty_transform_parent(T, i) != ref_parent[i]) return false;
  /* Children in attach order, all of them. */
  uint32_t expect = 0, seen = 0;
  for (uint32_t k = 0; k < RN; k++) expect += ref_alive[k] && ref_parent[k] == i;
  uint64_t last = 0;
  for (uint32_t c = ty_transform_first_child(T, i); c != TY_TRANSFORM_NONE; c = ty_transform_next_sibling(T, c)) {
    if (ref_parent[c] != i || ref_order[c] <= last) return false;
    last = ref_order[c];
    seen++;
  }
  return seen == expect;
}

static void test_randomized_against_reference(void) {
  ty_transforms *T = ty_transforms_create();
  uint64_t order = 0;
  int mismatches = 0;
  for (int step = 0; step < 40000; step++) {
    uint32_t i = rng() % RN, op = rng() % 100;
    if (!ref_alive[i]) {
      if (op < 30) {
        uint32_t got = ty_transform_create(T);
        uint32_t lowest = 0;
        while (ref_alive[lowest]) lowest++;
        CHECK_EQ_INT(got, lowest);
        ref_alive[got] = true;
        ref_parent[got] = TY_TRANSFORM_NONE;
      }
      continue;
    }
    if (op < 35) {
      ty_transform_destroy(T, i);
      ref_alive[i] = false;
      for (uint32_t k = 0; k < RN; k++)
        if (ref_parent[k] == i) ref_parent[k] = TY_TRANSFORM_NONE;
      ref_parent[i] = TY_TRANSFORM_NONE;
    } else if (op < 60) {
      ty_trs *l = ty_transform_write(T, i);
      if (rng() % 4) { /* else: written back unchanged */
        for (int k = 0; k < 3; k++) l->pos[k] = rngf(-2, 2), l->scale[k] = rngf(0.5f, 1.5f);
        versor q = {rngf(-1, 1), rngf(-1, 1), rngf(-1, 1), rngf(-1, 1)};
        glm_quat_normalize(q); /* on a copy: ty_trs.rot is not 16-byte aligned for SSE */
        memcpy(l->rot, q, sizeof l->rot);
      }
    } else if (op < 75) {
      uint32_t p = rng() % (RN + 4);
      if (p >= RN) p = TY_TRANSFORM_NONE;
      else if (!ref_alive[p]) continue;
      bool cycle = p != TY_TRANSFORM_NONE && ref_is_ancestor(i, p);
      bool ok = ty_transform_set_parent(T, i, p);
      CHECK(ok == !cycle);
      if (ok && ref_parent[i] != p) {
        ref_parent[i] = p;
        ref_order[i] = ++order;
      }
    } else if (op < 90) {
      mismatches += !check_node(T, i);
    } else if (op < 95) {
      float r[4], s[3], pos[3];
      ty_transform_world_rotation(T, i, r);
      ty_transform_world_scale(T, i, s);
      ty_transform_world_position(T, i, pos);
      mat4 ref;
      reference_world(T, i, ref);
      mismatches += !(fabsf(pos[0] - ref[3][0]) < 1e-3f && fabsf(pos[2] - ref[3][2]) < 1e-3f);
    } else {
      ty_transforms_sync(T);
      ty_transforms_reset_stats(T);
      for (uint32_t k = 0; k < RN; k++)
        if (ref_alive[k]) mismatches += !check_node(T, k);
      /* Everything was current after the sync: those reads rebuilt nothing. */
      mismatches += rebuilds_world(T) != 0;
    }
  }
  CHECK_EQ_INT(mismatches, 0);
  ty_transforms_destroy(T);
}

/* A render offset moves what is drawn (the object and its subtree), never the world
 * matrix; cleared or with none set, the drawn matrix is the world one. */
static void test_render_offset(void) {
  ty_transforms *T = ty_transforms_create();
  uint32_t body = ty_transform_create(T), child = ty_transform_create(T), other = ty_transform_create(T);
  ty_transform_set_parent(T, child, body);
  set_pos(T, body, 0, 10, 0);
  set_pos(T, child, 1, 0, 0);
  CHECK(ty_transform_render_world(T, body) == ty_transform_world(T, body));
  float off[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0.5f, 0, 1}; /* drawn half a unit higher */
  ty_transform_set_render_offset(T, body, off);
  CHECK(fabsf(ty_transform_world(T, body)[13] - 10) < kEps);
  CHECK(fabsf(ty_transform_render_world(T, body)[13] - 10.5f) < kEps);
  CHECK(fabsf(ty_transform_render_world(T, child)[13] - 10.5f) < kEps);
  CHECK(fabsf(ty_transform_render_world(T, child)[12] - 1) < kEps);
  CHECK(ty_transform_render_world(T, other) == ty_transform_world(T, other));
  ty_transform_set_render_offset(T, body, NULL);
  CHECK(ty_transform_render_world(T, child) == ty_transform_world(T, child));
  ty_transform_set_render_offset(T, child, off);
  ty_transform_destroy(T, child); /* its offset goes with it */
  uint32_t again = ty_transform_create(T);
  CHECK(ty_transform_render_world(T, again) == ty_transform_world(T, again));
  /* A child made after the container grew past the offset arrays is drawn offset too. */
  ty_transform_set_render_offset(T, body, off);
  uint32_t last = body;
  for (int k = 0; k < 300; k++) {
    last = ty_transform_create(T);
    ty_transform_set_parent(T, last, body);
  }
  CHECK(fabsf(ty_transform_render_world(T, last)[13] - 10.5f) < kEps);
  ty_transforms_destroy(T);
}

int main(void) {
  RUN(test_identity);
  RUN(test_trs_matrix);
  RUN(test_deep_chain_propagation);
  RUN(test_wide_propagation);
  RUN(test_compare_on_read_counts);
  RUN(test_reparent_and_detach_noticed);
  RUN(test_cycle_refused);
  RUN(test_destroy_makes_children_roots);
  RUN(test_inverse);
  RUN(test_decomposition);
  RUN(test_sync);
  RUN(test_lowest_free_index);
  RUN(test_100k_chain_no_recursion);
  RUN(test_randomized_against_reference);
  RUN(test_render_offset);
  return check_summary();
}
