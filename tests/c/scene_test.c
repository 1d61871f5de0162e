/* tests/c/scene_test.c: the object pool (generational ids, stale ids, retirement), scene
 * membership and the walk's rules, through engine/core/scene.h alone (no Lua). */
#include "check.h"
#include "core/scene.h"

/* Records each hook call as (object number, ref, phase). */
typedef struct rec {
  ty_id obj[256];
  int32_t ref[256];
  int phase[256];
  int n;
  /* actions a hook performs, keyed by ref */
  int32_t destroy_on_ref;
  ty_id destroy_target;
  int32_t spawn_on_ref;
  ty_scene *scene;
  ty_id spawned;
} rec;

static void record(void *user, ty_id object, int32_t ref, ty_phase phase) {
  rec *r = user;
  if (r->n < 256) {
    r->obj[r->n] = object;
    r->ref[r->n] = ref;
    r->phase[r->n] = (int)phase;
    r->n++;
  }
  if (ref == r->destroy_on_ref && r->destroy_target) {
    ty_object_destroy(ty_scene_world(r->scene), r->destroy_target, NULL, 0);
    r->destroy_target = 0;
  }
  if (ref == r->spawn_on_ref && !r->spawned) {
    ty_world *W = ty_scene_world(r->scene);
    r->spawned = ty_object_create(W);
    ty_object_add_component(W, r->spawned, 99, 1u << TY_PHASE_GAME_LOGIC);
    ty_scene_add(r->scene, r->spawned);
  }
}

static void tick(ty_scene *S, rec *r, ty_object_fn on_destroy, void *user) {
  ty_scene_begin(S);
  for (int p = 0; p < TY_PHASE_RENDER; p++) {
    ty_cursor cur = {0};
    ty_scene_walk(S, (ty_phase)p, &cur, record, r);
  }
  ty_scene_end(S, on_destroy, user);
}

static void test_ids_are_generational_and_reserved(void) {
  ty_world *W = ty_world_create();
  ty_id a = ty_object_create(W);
  CHECK(TY_ID_NUMBER(a) >= TY_RESERVED_IDS);
  CHECK_EQ_INT(TY_ID_VERSION(a), 0);
  CHECK(ty_object_alive(W, a));
  ty_object_destroy(W, a, (ty_id[1]){0}, 1);
  ty_object_free(W, a);
  CHECK(!ty_object_alive(W, a));
  /* Reserved numbers and garbage are never alive. */
  CHECK(!ty_object_alive(W, 0));
  CHECK(!ty_object_alive(W, 2));
  CHECK(!ty_object_alive(W, 0xFFFFFFFFu));
  ty_world_destroy(W);
}

static void test_stale_id_never_matches_reuse(void) {
  ty_world *W = ty_world_create();
  ty_id first = ty_object_create(W);
  ty_id out[1];
  ty_object_destroy(W, first, out, 1);
  ty_object_free(W, first);
  /* The freed number comes back with a new version: the old id stays dead. */
  ty_id again = 0;
  for (int i = 0; i < 10 && TY_ID_NUMBER(again) != TY_ID_NUMBER(first); i++) again = ty_object_create(W);
  CHECK_EQ_INT(TY_ID_NUMBER(again), TY_ID_NUMBER(first));
  CHECK_EQ_INT(TY_ID_VERSION(again), TY_ID_VERSION(first) + 1);
  CHECK(ty_object_alive(W, again));
  CHECK(!ty_object_alive(W, first));
  ty_world_destroy(W);
}

static void test_versions_retire_before_wrapping(void) {
  ty_world *W = ty_world_create();
  ty_id id = ty_object_create(W);
  uint32_t number = TY_ID_NUMBER(id);
  ty_id out[1];
  /* Recycle one number through every version: FIFO reuse means it only comes back once
   * the queue is through, so keep the world otherwise empty. */
  for (int v = 0; v < 0xFFFE; v++) {
    ty_object_destroy(W, id, out, 1);
    ty_object_free(W, id);
    id = ty_object_create(W);
    CHECK_EQ_INT(TY_ID_NUMBER(id), number);
    if (TY_ID_NUMBER(id) != number) break;
  }
  CHECK_EQ_INT(TY_ID_VERSION(id), 0xFFFE);
  ty_object_destroy(W, id, out, 1);
  ty_object_free(W, id);
  ty_id next = ty_object_create(W);
  CHECK(TY_ID_NUMBER(next) != number); /* retired at version 0xFFFF: never handed out again */
  ty_world_destroy(W);
}

static void test_walk_order_join_then_add(void) {
  ty_world *W = ty_world_create();
  ty_scene *S = ty_scene_create(W);
  ty_id a = ty_object_create(W), b = ty_object_create(W);
  const uint32_t upd = 1u << TY_PHASE_GAME_LOGIC, in = 1u << TY_PHASE_INPUT;
  ty_object_add_component(W, b, 1, upd);
  ty_object_add_component(W, a, 2, upd | in);
  ty_object_add_component(W, a, 3, upd);
  ty_scene_add(S, b); /* b joined first */
  ty_scene_add(S, a);
  rec r = {.scene = S};
  tick(S, &r, NULL, NULL);
  /* input phase first (only ref 2), then gameLogic: b's 1, then a's 2, 3 */
  CHECK_EQ_INT(r.n, 4);
  CHECK_EQ_INT(r.ref[0], 2);
  CHECK_EQ_INT(r.phase[0], TY_PHASE_INPUT);
  CHECK_EQ_INT(r.ref[1], 1);
  CHECK_EQ_INT(r.ref[2], 2);
  CHECK_EQ_INT(r.ref[3], 3);
  CHECK_EQ_INT(ty_scene_hook_count(S, TY_PHASE_GAME_LOGIC), 3);
  CHECK_EQ_INT(ty_scene_hook_count(S, TY_PHASE_PHYSICS), 0);
  ty_scene_destroy(S);
  ty_world_destroy(W);
}

static void test_disabled_objects_and_parents_skip(void) {
  ty_world *W = ty_world_create();
  ty_scene *S = ty_scene_create(W);
  ty_id p = ty_object_create(W), c = ty_object_create(W);
  ty_object_add_component(W, p, 1, 1u << TY_PHASE_GAME_LOGIC);
  ty_object_add_component(W, c, 2, 1u << TY_PHASE_GAME_LOGIC);
  CHECK(ty_object_set_parent(W, c, p));
  ty_scene_add(S, p);
  CHECK(ty_object_scene(W, c) == S); /* the child came along */
  ty_object_set_enabled(W, p, false);
  rec r = {.scene = S};
  tick(S, &r, NULL, NULL);
  CHECK_EQ_INT(r.n, 0);
  CHECK(!ty_object_active(W, c));
  CHECK(ty_object_enabled(W, c));
  ty_object_set_enabled(W, p, true);
  tick(S, &r, NULL, NULL);
  CHECK_EQ_INT(r.n, 2);
  ty_scene_destroy(S);
  ty_world_destroy(W);
}

static int destroyed_calls;
static ty_id destroyed_order[8];
static void count_destroy(void *user, ty_id id) {
  (void)user;
  if (destroyed_calls < 8) destroyed_order[destroyed_calls] = id;
  destroyed_calls++;
}

static void test_destroy_mid_tick_defers_and_stops_hooks(void) {
  ty_world *W = ty_world_create();
  ty_scene *S = ty_scene_create(W);
  ty_id a = ty_object_create(W), b = ty_object_create(W), kid = ty_object_create(W);
  const uint32_t two = (1u << TY_PHASE_INPUT) | (1u << TY_PHASE_GAME_LOGIC);
  ty_object_add_component(W, a, 1, two);
  ty_object_add_component(W, b, 2, two);
  ty_object_add_component(W, kid, 3, two);
  ty_object_set_parent(W, kid, b);
  ty_scene_add(S, a);
  ty_scene_add(S, b);
  rec r = {.scene = S, .destroy_on_ref = 1, .destroy_target = b};
  destroyed_calls = 0;
  tick(S, &r, count_destroy, NULL);
  /* a's input hook destroyed b (and kid): only a runs, in both phases. */
  CHECK_EQ_INT(r.n, 2);
  CHECK_EQ_INT(r.ref[0], 1);
  CHECK_EQ_INT(r.ref[1], 1);
  CHECK_EQ_INT(destroyed_calls, 2);
  CHECK(destroyed_order[0] == b && destroyed_order[1] == kid); /* parent first */
  CHECK(!ty_object_alive(W, b));
  CHECK(!ty_object_alive(W, kid));
  CHECK_EQ_INT(ty_scene_count(S), 1);
  CHECK_EQ_INT(ty_scene_hook_count(S, TY_PHASE_INPUT), 1);
  ty_scene_destroy(S);
  ty_world_destroy(W);
}

static void test_spawn_mid_tick_joins_at_flush(void) {
  ty_world *W = ty_world_create();
  ty_scene *S = ty_scene_create(W);
  ty_id a = ty_object_create(W);
  ty_object_add_component(W, a, 1, 1u << TY_PHASE_INPUT);
  ty_scene_add(S, a);
  rec r = {.scene = S, .spawn_on_ref = 1};
  tick(S, &r, NULL, NULL);
  CHECK(r.spawned != 0);
  CHECK_EQ_INT(r.n, 1); /* the spawned object's gameLogic hook did not run this tick */
  CHECK(!ty_scene_is_pending(S, r.spawned));
  CHECK_EQ_INT(ty_scene_count(S), 2);
  r.n = 0;
  tick(S, &r, NULL, NULL);
  CHECK_EQ_INT(r.n, 2);
  CHECK_EQ_INT(r.ref[1], 99);
  ty_scene_destroy(S);
  ty_world_destroy(W);
}

static void test_pending_visible_while_walking(void) {
  ty_world *W = ty_world_create();
  ty_scene *S = ty_scene_create(W);
  ty_scene_begin(S);
  ty_id a = ty_object_create(W);
  ty_scene_add(S, a);
  CHECK(ty_scene_is_pending(S, a));
  CHECK(ty_object_scene(W, a) == S);
  CHECK_EQ_INT(ty_scene_count(S), 1);
  /* added and destroyed in the same section: swept, never live */
  ty_object_destroy(W, a, NULL, 0);
  destroyed_calls = 0;
  ty_scene_end(S, count_destroy, NULL);
  CHECK_EQ_INT(destroyed_calls, 1);
  CHECK_EQ_INT(ty_scene_count(S), 0);
  CHECK(!ty_object_alive(W, a));
  ty_scene_destroy(S);
  ty_world_destroy(W);
}

static void test_remove_component_mid_walk_blanks(void) {
  ty_world *W = ty_world_create();
  ty_scene *S = ty_scene_create(W);
  ty_id a = ty_object_create(W);
  const uint32_t upd = 1u << TY_PHASE_GAME_LOGIC;
  ty_object_add_component(W, a, 1, upd);
  ty_object_add_component(W, a, 2, upd);
  ty_object_add_component(W, a, 3, upd);
  ty_scene_add(S, a);
  ty_scene_begin(S);
  CHECK(ty_object_remove_component(W, a, 2));
  CHECK_EQ_INT(ty_object_component_count(W, a), 3); /* blanked, not shifted, while walking */
  CHECK_EQ_INT(ty_object_components(W, a)[1].ref, TY_COMPONENT_REMOVED);
  CHECK_EQ_INT(ty_scene_hook_count(S, TY_PHASE_GAME_LOGIC), 2);
  ty_scene_end(S, NULL, NULL);
  CHECK_EQ_INT(ty_object_component_count(W, a), 2);
  CHECK_EQ_INT(ty_object_components(W, a)[1].ref, 3);
  ty_scene_destroy(S);
  ty_world_destroy(W);
}

static void test_set_parent_refuses_cycles_and_tags(void) {
  ty_world *W = ty_world_create();
  ty_id a = ty_object_create(W), b = ty_object_create(W);
  CHECK(ty_object_set_parent(W, b, a));
  CHECK(!ty_object_set_parent(W, a, b));
  CHECK(!ty_object_set_parent(W, a, a));
  CHECK(ty_object_parent(W, b) == a);
  CHECK(ty_object_first_child(W, a) == b);
  uint32_t t = ty_world_tag(W, "enemy", true);
  CHECK_EQ_INT(ty_world_tag(W, "enemy", false), t);
  CHECK_EQ_INT(ty_world_tag(W, "ghost", false), 0);
  ty_object_add_tag(W, a, t);
  ty_object_add_tag(W, a, t);
  const uint32_t *tags;
  CHECK_EQ_INT(ty_object_tags(W, a, &tags), 1);
  CHECK(ty_object_has_tag(W, a, t));
  ty_object_remove_tag(W, a, t);
  CHECK(!ty_object_has_tag(W, a, t));
  ty_world_destroy(W);
}

static void test_scene_remove_leaves_with_subtree(void) {
  ty_world *W = ty_world_create();
  ty_scene *S = ty_scene_create(W);
  ty_id p = ty_object_create(W), c = ty_object_create(W);
  ty_object_set_parent(W, c, p);
  ty_scene_add(S, p);
  CHECK_EQ_INT(ty_scene_count(S), 2);
  ty_scene_begin(S);
  ty_scene_remove(S, p);
  CHECK_EQ_INT(ty_scene_count(S), 2); /* deferred while walking */
  ty_scene_end(S, NULL, NULL);
  CHECK_EQ_INT(ty_scene_count(S), 0);
  CHECK(ty_object_alive(W, p) && ty_object_alive(W, c));
  CHECK(ty_object_scene(W, c) == NULL);
  ty_scene_destroy(S);
  ty_world_destroy(W);
}

int main(void) {
  RUN(test_ids_are_generational_and_reserved);
  RUN(test_stale_id_never_matches_reuse);
  RUN(test_versions_retire_before_wrapping);
  RUN(test_walk_order_join_then_add);
  RUN(test_disabled_objects_and_parents_skip);
  RUN(test_destroy_mid_tick_defers_and_stops_hooks);
  RUN(test_spawn_mid_tick_joins_at_flush);
  RUN(test_pending_visible_while_walking);
  RUN(test_remove_component_mid_walk_blanks);
  RUN(test_set_parent_refuses_cycles_and_tags);
  RUN(test_scene_remove_leaves_with_subtree);
  return check_summary();
}
