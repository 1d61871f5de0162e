/* tests/c/render_graph_test.c: the render graph without GL: culling, ordering, versions,
 * transient aliasing, the texture pool across frames and the error messages. A counting
 * mock stands in for the GL backend. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "render/graph.h"

/* ---- fixtures ----------------------------------------------------------------------- */

typedef struct mock_backend {
  uint32_t next, created, destroyed, live;
  bool fail; /* create_texture returns 0 */
} mock_backend;

static uint32_t mock_create(void *user, const rg_texture_info *info) {
  mock_backend *m = user;
  (void)info;
  if (m->fail) return 0;
  m->created++;
  m->live++;
  return ++m->next;
}

static void mock_destroy(void *user, uint32_t texture) {
  mock_backend *m = user;
  CHECK(texture != 0);
  m->destroyed++;
  m->live--;
}

static rg_graph *graph_with(mock_backend *m, uint32_t max_idle) {
  rg_graph_desc d = {.backend = {mock_create, mock_destroy, m}, .max_idle_frames = max_idle};
  return rg_create(&d);
}

/* Names of the passes that ran, in order, joined by spaces. */
static char ran[512];

static void record(const rg_pass_context *ctx, void *user) {
  (void)user;
  if (ran[0]) strcat(ran, " ");
  strcat(ran, ctx->name);
}

/* add()'s (array, count) argument pairs */
#define LIST(...) \
  (rg_resource[]){__VA_ARGS__}, (uint32_t)(sizeof((rg_resource[]){__VA_ARGS__}) / sizeof(rg_resource))
#define NONE NULL, 0

static rg_pass add(rg_graph *g, const char *name, const rg_resource *reads, uint32_t nr,
                   const rg_resource *writes, uint32_t nw, bool side_effect) {
  rg_pass_desc d = {.name = name, .reads = reads, .read_count = nr, .writes = writes, .write_count = nw,
                    .side_effect = side_effect, .execute = record};
  return rg_add_pass(g, &d);
}

static rg_resource backbuffer(rg_graph *g) {
  return rg_import(g, "backbuffer", &(rg_import_desc){.info = {.width = 64, .height = 64}});
}

/* ---- culling ------------------------------------------------------------------------ */

static void test_unused_pass_culled(void) {
  rg_graph *g = rg_create(NULL);
  rg_begin(g, 64, 64);
  rg_resource bb = backbuffer(g), x = rg_transient(g, "x", NULL);
  rg_pass unused = add(g, "unused", NONE, LIST(x), false);
  rg_pass present = add(g, "present", NONE, LIST(bb), false);
  CHECK_EQ_INT(rg_compile(g), RG_OK);
  CHECK(rg_pass_culled(g, unused));
  CHECK(!rg_pass_culled(g, present));
  CHECK_EQ_INT(rg_pass_order(g, unused), RG_NONE);
  CHECK_EQ_INT(rg_pass_order(g, present), 0);
  CHECK_EQ_INT(rg_get_stats(g).culled, 1);
  CHECK_EQ_INT(rg_get_stats(g).physical, 0); /* x belongs to a culled pass only */
  CHECK_EQ_INT(rg_resource_slot(g, x), RG_NONE);
  ran[0] = '\0';
  CHECK_EQ_INT(rg_execute(g), RG_OK);
  CHECK(strcmp(ran, "present") == 0);
  rg_destroy(g);
}

static void test_culled_transitively(void) {
  rg_graph *g = rg_create(NULL);
  rg_begin(g, 64, 64);
  rg_resource bb = backbuffer(g);
  rg_resource x = rg_transient(g, "x", NULL), y = rg_transient(g, "y", NULL);
  rg_resource z = rg_transient(g, "z", NULL), u = rg_transient(g, "u", NULL);
  rg_pass a = add(g, "a", NONE, LIST(x), false);
  rg_pass b = add(g, "b", LIST(x), LIST(y), false);
  rg_pass c = add(g, "c", LIST(y), LIST(z), false); /* z: nobody reads it */
  rg_pass d = add(g, "d", NONE, LIST(u), false);    /* u feeds the root: kept */
  rg_pass e = add(g, "e", LIST(u), LIST(bb), false);
  CHECK_EQ_INT(rg_compile(g), RG_OK);
  CHECK(rg_pass_culled(g, a));
  CHECK(rg_pass_culled(g, b));
  CHECK(rg_pass_culled(g, c));
  CHECK(!rg_pass_culled(g, d));
  CHECK(!rg_pass_culled(g, e));
  CHECK_EQ_INT(rg_get_stats(g).culled, 3);
  CHECK_EQ_INT(rg_pass_order(g, d), 0);
  CHECK_EQ_INT(rg_pass_order(g, e), 1);
  rg_destroy(g);
}

static void test_side_effect_kept(void) {
  rg_graph *g = rg_create(NULL);
  rg_begin(g, 64, 64);
  rg_resource x = rg_transient(g, "x", NULL);
  rg_pass a = add(g, "draw", NONE, LIST(x), false);
  rg_pass readback = add(g, "readback", LIST(x), NONE, true);
  rg_pass marker = add(g, "marker", NONE, NONE, true);
  rg_pass idle = add(g, "idle", NONE, NONE, false);
  CHECK_EQ_INT(rg_compile(g), RG_OK);
  CHECK(!rg_pass_culled(g, a)); /* its output feeds a side-effect pass */
  CHECK(!rg_pass_culled(g, readback));
  CHECK(!rg_pass_culled(g, marker));
  CHECK(rg_pass_culled(g, idle));
  ran[0] = '\0';
  rg_execute(g);
  CHECK(strcmp(ran, "draw readback marker") == 0);
  rg_destroy(g);
}

/* ---- ordering ----------------------------------------------------------------------- */

static void test_order_dependencies_and_declaration(void) {
  rg_graph *g = rg_create(NULL);
  rg_begin(g, 64, 64);
  rg_resource bb = backbuffer(g);
  rg_resource depth = rg_transient(g, "depth", &(rg_texture_desc){.format = RG_FORMAT_DEPTH32F});
  rg_resource shadow = rg_transient(g, "shadow", &(rg_texture_desc){.width = 1024, .height = 1024,
                                                                      .format = RG_FORMAT_DEPTH32F});
  rg_resource ao = rg_transient(g, "ao", &(rg_texture_desc){.scale = 0.5f, .format = RG_FORMAT_R8});
  rg_resource hdr = rg_transient(g, "hdr", &(rg_texture_desc){.format = RG_FORMAT_RGBA16F});
  rg_resource dead = rg_transient(g, "dead", NULL);
  rg_pass p_depth = add(g, "depth", NONE, LIST(depth), false);
  rg_pass p_shadow = add(g, "shadow", NONE, LIST(shadow), false);
  rg_pass p_dead = add(g, "dead", LIST(depth), LIST(dead), false);
  rg_pass p_ao = add(g, "ao", LIST(depth), LIST(ao), false);
  rg_pass p_stats = add(g, "stats", NONE, NONE, true);
  rg_pass p_light = add(g, "light", LIST(depth, shadow, ao), LIST(hdr), false);
  rg_pass p_tone = add(g, "tonemap", LIST(hdr), LIST(bb), false);
  CHECK_EQ_INT(rg_compile(g), RG_OK);
  /* survivors are numbered consecutively, in declaration order, producers first */
  CHECK_EQ_INT(rg_pass_order(g, p_depth), 0);
  CHECK_EQ_INT(rg_pass_order(g, p_shadow), 1);
  CHECK(rg_pass_culled(g, p_dead));
  CHECK_EQ_INT(rg_pass_order(g, p_ao), 2);
  CHECK_EQ_INT(rg_pass_order(g, p_stats), 3);
  CHECK_EQ_INT(rg_pass_order(g, p_light), 4);
  CHECK_EQ_INT(rg_pass_order(g, p_tone), 5);
  CHECK(rg_pass_order(g, p_depth) < rg_pass_order(g, p_ao));
  CHECK(rg_pass_order(g, p_ao) < rg_pass_order(g, p_light));
  CHECK(rg_pass_order(g, p_shadow) < rg_pass_order(g, p_light));
  CHECK(rg_pass_order(g, p_light) < rg_pass_order(g, p_tone));
  ran[0] = '\0';
  rg_execute(g);
  CHECK(strcmp(ran, "depth shadow ao stats light tonemap") == 0);
  uint32_t first = 99, last = 99;
  CHECK(rg_resource_lifetime(g, depth, &first, &last));
  CHECK_EQ_INT(first, 0);
  CHECK_EQ_INT(last, 4);
  CHECK(!rg_resource_lifetime(g, dead, &first, &last));
  rg_destroy(g);
}

/* ---- versions ----------------------------------------------------------------------- */

static void test_read_modify_write_versions(void) {
  rg_graph *g = rg_create(NULL);
  rg_begin(g, 64, 64);
  rg_resource bb = backbuffer(g), x = rg_transient(g, "x", NULL), y = rg_transient(g, "y", NULL);
  rg_pass clear = add(g, "clear", NONE, LIST(x), false);     /* x@1 */
  rg_pass probe = add(g, "probe", LIST(x), LIST(y), false);  /* reads x@1 */
  rg_pass decals = add(g, "decals", LIST(x), LIST(x), false); /* x@1 -> x@2 */
  rg_pass comp = add(g, "compose", LIST(x, y), LIST(bb), false);
  CHECK_EQ_INT(rg_compile(g), RG_OK);
  CHECK(!rg_pass_culled(g, clear)); /* needed through decals' read */
  CHECK(!rg_pass_culled(g, probe));
  CHECK(!rg_pass_culled(g, decals));
  CHECK_EQ_INT(rg_pass_order(g, comp), 3);
  char dump[2048];
  rg_dump(g, dump, sizeof dump);
  CHECK(strstr(dump, "probe") && strstr(dump, "reads: x@1  writes: y@1"));
  CHECK(strstr(dump, "reads: x@1  writes: x@2"));
  CHECK(strstr(dump, "reads: x@2 y@1  writes: backbuffer@1"));
  rg_destroy(g);

  /* a plain write starts a new version: whoever wrote the old one is no longer needed */
  g = rg_create(NULL);
  rg_begin(g, 64, 64);
  bb = backbuffer(g);
  x = rg_transient(g, "x", NULL);
  rg_pass first = add(g, "first", NONE, LIST(x), false);
  rg_pass second = add(g, "second", NONE, LIST(x), false);
  rg_pass use = add(g, "use", LIST(x), LIST(bb), false);
  CHECK_EQ_INT(rg_compile(g), RG_OK);
  CHECK(rg_pass_culled(g, first));
  CHECK(!rg_pass_culled(g, second));
  CHECK(!rg_pass_culled(g, use));
  rg_destroy(g);
}

/* ---- aliasing ----------------------------------------------------------------------- */

/* a -> t1 -> b -> t2 -> c -> t3 -> d -> backbuffer: t1 [0,1], t2 [1,2], t3 [2,3]. */
static void chain(rg_graph *g, const rg_texture_desc *d1, const rg_texture_desc *d2,
                  const rg_texture_desc *d3, rg_resource t[3]) {
  rg_resource bb = backbuffer(g);
  t[0] = rg_transient(g, "t1", d1);
  t[1] = rg_transient(g, "t2", d2);
  t[2] = rg_transient(g, "t3", d3);
  add(g, "a", NONE, LIST(t[0]), false);
  add(g, "b", LIST(t[0]), LIST(t[1]), false);
  add(g, "c", LIST(t[1]), LIST(t[2]), false);
  add(g, "d", LIST(t[2]), LIST(bb), false);
}

static void test_aliasing_disjoint_share(void) {
  rg_graph *g = rg_create(NULL);
  rg_begin(g, 64, 64);
  rg_resource t[3];
  chain(g, NULL, NULL, NULL, t);
  CHECK_EQ_INT(rg_compile(g), RG_OK);
  uint32_t f = 0, l = 0;
  CHECK(rg_resource_lifetime(g, t[0], &f, &l) && f == 0 && l == 1);
  CHECK(rg_resource_lifetime(g, t[2], &f, &l) && f == 2 && l == 3);
  CHECK_EQ_INT(rg_resource_slot(g, t[0]), rg_resource_slot(g, t[2]));
  CHECK(rg_resource_slot(g, t[1]) != rg_resource_slot(g, t[0]));
  CHECK_EQ_INT(rg_get_stats(g).physical, 2);
  CHECK_EQ_INT(rg_get_stats(g).transients, 3);
  rg_destroy(g);
}

static void test_aliasing_overlap_no_share(void) {
  rg_graph *g = rg_create(NULL);
  rg_begin(g, 64, 64);
  rg_resource bb = backbuffer(g);
  rg_resource a = rg_transient(g, "a", NULL), b = rg_transient(g, "b", NULL);
  rg_resource c = rg_transient(g, "c", NULL);
  add(g, "pa", NONE, LIST(a), false);
  add(g, "pb", NONE, LIST(b), false);
  add(g, "pc", LIST(b), LIST(c), false);
  add(g, "out", LIST(a, c), LIST(bb), false); /* a lives across the whole frame */
  CHECK_EQ_INT(rg_compile(g), RG_OK);
  CHECK(rg_resource_slot(g, a) != rg_resource_slot(g, b));
  CHECK(rg_resource_slot(g, a) != rg_resource_slot(g, c));
  CHECK(rg_resource_slot(g, b) != rg_resource_slot(g, c)); /* meet in pc: both live there */
  CHECK_EQ_INT(rg_get_stats(g).physical, 3);
  rg_destroy(g);
}

static void test_aliasing_needs_equal_descriptors(void) {
  rg_graph *g = rg_create(NULL);
  rg_begin(g, 64, 64);
  rg_resource t[3];
  chain(g, NULL, NULL, &(rg_texture_desc){.format = RG_FORMAT_RGBA16F}, t);
  CHECK_EQ_INT(rg_compile(g), RG_OK);
  CHECK(rg_resource_slot(g, t[0]) != rg_resource_slot(g, t[2]));
  CHECK_EQ_INT(rg_get_stats(g).physical, 3);
  rg_destroy(g);

  g = rg_create(NULL); /* half size is a different descriptor too */
  rg_begin(g, 64, 64);
  chain(g, NULL, NULL, &(rg_texture_desc){.scale = 0.5f}, t);
  CHECK_EQ_INT(rg_compile(g), RG_OK);
  CHECK_EQ_INT(rg_get_stats(g).physical, 3);
  CHECK_EQ_INT(rg_resource_info(g, t[2])->width, 32);
  rg_destroy(g);

  g = rg_create(NULL); /* explicit pixels equal to the frame size are the same descriptor */
  rg_begin(g, 64, 64);
  chain(g, NULL, NULL, &(rg_texture_desc){.width = 64, .height = 64, .format = RG_FORMAT_RGBA8}, t);
  CHECK_EQ_INT(rg_compile(g), RG_OK);
  CHECK_EQ_INT(rg_get_stats(g).physical, 2);
  rg_destroy(g);
}

/* ---- pooling ------------------------------------------------------------------------ */

static void test_pool_reuses_across_frames(void) {
  mock_backend m = {0};
  rg_graph *g = graph_with(&m, 0);
  rg_resource t[3];
  rg_begin(g, 64, 64);
  chain(g, NULL, NULL, NULL, t);
  CHECK_EQ_INT(rg_compile(g), RG_OK);
  CHECK_EQ_INT(m.created, 2);
  CHECK_EQ_INT(rg_get_stats(g).created, 2);
  uint32_t tex[3];
  for (int i = 0; i < 3; i++) tex[i] = rg_resource_texture(g, t[i]);
  CHECK(tex[0] != 0 && tex[1] != 0 && tex[0] != tex[1]);
  CHECK_EQ_INT(tex[0], tex[2]);
  CHECK_EQ_INT(rg_execute(g), RG_OK);

  for (int frame = 0; frame < 3; frame++) { /* the same frame again: nothing created */
    rg_begin(g, 64, 64);
    chain(g, NULL, NULL, NULL, t);
    CHECK_EQ_INT(rg_compile(g), RG_OK);
    CHECK_EQ_INT(rg_get_stats(g).created, 0);
    CHECK_EQ_INT(rg_get_stats(g).destroyed, 0);
    for (int i = 0; i < 3; i++) CHECK_EQ_INT(rg_resource_texture(g, t[i]), tex[i]);
  }
  CHECK_EQ_INT(m.created, 2);
  CHECK_EQ_INT(m.destroyed, 0);

  /* a resize makes new textures; the old ones go after max_idle_frames (default 3) */
  for (int frame = 1; frame <= 3; frame++) {
    rg_begin(g, 128, 72);
    chain(g, NULL, NULL, NULL, t);
    CHECK_EQ_INT(rg_compile(g), RG_OK);
    CHECK_EQ_INT(rg_get_stats(g).created, frame == 1 ? 2 : 0);
    CHECK_EQ_INT(rg_get_stats(g).destroyed, frame == 3 ? 2 : 0);
  }
  CHECK_EQ_INT(m.live, 2);
  CHECK_EQ_INT(rg_get_stats(g).pooled, 2);
  rg_destroy(g);
  CHECK_EQ_INT(m.live, 0);
  CHECK_EQ_INT(m.created, m.destroyed);
}

static void test_pool_idle_limit(void) {
  mock_backend m = {0};
  rg_graph *g = graph_with(&m, 1);
  rg_resource t[3];
  rg_begin(g, 64, 64);
  chain(g, NULL, NULL, NULL, t);
  CHECK_EQ_INT(rg_compile(g), RG_OK);
  rg_begin(g, 32, 32);
  chain(g, NULL, NULL, NULL, t);
  CHECK_EQ_INT(rg_compile(g), RG_OK);
  CHECK_EQ_INT(m.created, 4);
  CHECK_EQ_INT(m.destroyed, 2); /* unclaimed for one frame is enough with max_idle_frames 1 */
  rg_destroy(g);
  CHECK_EQ_INT(m.live, 0);
}

static void test_backend_failure(void) {
  mock_backend m = {.fail = true};
  rg_graph *g = graph_with(&m, 0);
  rg_resource t[3];
  rg_begin(g, 64, 64);
  chain(g, NULL, NULL, NULL, t);
  CHECK_EQ_INT(rg_compile(g), RG_ERROR_BACKEND);
  CHECK(strstr(rg_error(g), "64x64 RGBA8") != NULL);
  ran[0] = '\0';
  CHECK_EQ_INT(rg_execute(g), RG_ERROR_NOT_COMPILED);
  CHECK(ran[0] == '\0');
  m.fail = false; /* the next frame recovers */
  rg_begin(g, 64, 64);
  chain(g, NULL, NULL, NULL, t);
  CHECK_EQ_INT(rg_compile(g), RG_OK);
  CHECK(strcmp(rg_error(g), "") == 0);
  rg_destroy(g);
  CHECK_EQ_INT(m.live, 0);
}

/* ---- errors ------------------------------------------------------------------------- */

static void test_unwritten_read_error(void) {
  rg_graph *g = rg_create(NULL);
  rg_begin(g, 64, 64);
  rg_resource bb = backbuffer(g), gb = rg_transient(g, "gbuffer", NULL);
  add(g, "lighting", LIST(gb), LIST(bb), false);
  add(g, "geometry", NONE, LIST(gb), false); /* too late: reads see what was declared before */
  CHECK_EQ_INT(rg_compile(g), RG_ERROR_UNWRITTEN_READ);
  CHECK(strcmp(rg_error(g), "pass 'lighting' reads resource 'gbuffer' which no pass writes") == 0);
  ran[0] = '\0';
  CHECK_EQ_INT(rg_execute(g), RG_ERROR_NOT_COMPILED);
  CHECK(ran[0] == '\0');
  char dump[512];
  rg_dump(g, dump, sizeof dump);
  CHECK(strstr(dump, "not compiled: pass 'lighting' reads") != NULL);
  rg_destroy(g);
}

static void test_read_only_import_error(void) {
  rg_graph *g = rg_create(NULL);
  rg_begin(g, 64, 64);
  rg_resource bb = backbuffer(g);
  rg_resource hist = rg_import(g, "history", &(rg_import_desc){.texture = 77, .read_only = true});
  rg_resource x = rg_transient(g, "x", NULL);
  add(g, "taa", LIST(hist), LIST(x), false); /* reading it is fine */
  add(g, "out", LIST(x), LIST(bb), false);
  CHECK_EQ_INT(rg_compile(g), RG_OK);
  rg_begin(g, 64, 64);
  bb = backbuffer(g);
  hist = rg_import(g, "history", &(rg_import_desc){.texture = 77, .read_only = true});
  add(g, "resolve", NONE, LIST(hist, bb), false);
  CHECK_EQ_INT(rg_compile(g), RG_ERROR_READ_ONLY_WRITE);
  CHECK(strcmp(rg_error(g), "pass 'resolve' writes resource 'history' which is imported read-only") == 0);
  rg_destroy(g);
}

static void test_stale_handle_error(void) {
  rg_graph *g = rg_create(NULL);
  rg_begin(g, 64, 64);
  rg_resource old = rg_transient(g, "old", NULL);
  rg_begin(g, 64, 64);
  rg_resource bb = backbuffer(g);
  CHECK(rg_resource_info(g, old) == NULL);
  add(g, "late", LIST(old), LIST(bb), false);
  CHECK_EQ_INT(rg_compile(g), RG_ERROR_BAD_HANDLE);
  CHECK(strcmp(rg_error(g), "pass 'late' uses a resource handle that is not from this frame") == 0);
  rg_begin(g, 64, 64);
  add(g, "none", LIST((rg_resource){0}), NONE, true);
  CHECK_EQ_INT(rg_compile(g), RG_ERROR_BAD_HANDLE);
  rg_destroy(g);
}

/* ---- execution ---------------------------------------------------------------------- */

typedef struct seen {
  int calls;
  rg_resource hist, half, bb;
  uint32_t half_texture;
  rg_pass_context ctx;
  rg_binding reads[2], writes[1];
} seen;

static void inspect(const rg_pass_context *ctx, void *user) {
  seen *s = user;
  s->calls++;
  if (strcmp(ctx->name, "blur") != 0) return;
  s->ctx = *ctx;
  CHECK_EQ_INT(ctx->read_count, 2);
  CHECK_EQ_INT(ctx->write_count, 1);
  memcpy(s->reads, ctx->reads, sizeof s->reads);
  memcpy(s->writes, ctx->writes, sizeof s->writes);
  CHECK_EQ_INT(rg_context_texture(ctx, s->hist), 77);
  CHECK_EQ_INT(rg_context_texture(ctx, s->half), s->half_texture);
  CHECK_EQ_INT(rg_context_texture(ctx, s->bb), 0);
}

static void test_execute_context(void) {
  mock_backend m = {0};
  rg_graph *g = graph_with(&m, 0);
  rg_begin(g, 64, 36);
  seen s = {0};
  s.bb = backbuffer(g);
  s.hist = rg_import(g, "history", &(rg_import_desc){.texture = 77, .read_only = true,
                                                      .info = {.width = 64, .height = 36,
                                                               .format = RG_FORMAT_RGBA16F}});
  s.half = rg_transient(g, "half", &(rg_texture_desc){.scale = 0.5f, .format = RG_FORMAT_RGBA16F});
  rg_add_pass(g, &(rg_pass_desc){.name = "down", .kind = RG_PASS_COMPUTE, .reads = &s.hist,
                                 .read_count = 1, .writes = &s.half, .write_count = 1, .execute = inspect,
                                 .user = &s});
  rg_add_pass(g, &(rg_pass_desc){.name = "blur", .reads = (rg_resource[]){s.half, s.hist},
                                 .read_count = 2, .writes = &s.bb, .write_count = 1, .execute = inspect,
                                 .user = &s});
  CHECK_EQ_INT(rg_compile(g), RG_OK);
  s.half_texture = rg_resource_texture(g, s.half);
  CHECK(s.half_texture != 0);
  CHECK(rg_find(g, "half").id == s.half.id);
  CHECK(rg_find(g, "nope").id == 0);
  CHECK_EQ_INT(rg_execute(g), RG_OK);
  CHECK_EQ_INT(s.calls, 2);
  CHECK_EQ_INT(s.ctx.frame_width, 64);
  CHECK_EQ_INT(s.ctx.kind, RG_PASS_RASTER);
  CHECK(s.reads[0].resource.id == s.half.id);
  CHECK_EQ_INT(s.reads[0].info.width, 32);
  CHECK_EQ_INT(s.reads[0].info.height, 18);
  CHECK_EQ_INT(s.reads[0].info.format, RG_FORMAT_RGBA16F);
  CHECK_EQ_INT(s.reads[0].info.layers, 1);
  CHECK_EQ_INT(s.reads[0].slot, 0);
  CHECK(s.reads[1].resource.id == s.hist.id);
  CHECK_EQ_INT(s.reads[1].slot, RG_NONE);
  CHECK_EQ_INT(s.reads[1].texture, 77);
  CHECK(s.writes[0].resource.id == s.bb.id);
  rg_destroy(g);
}

static void test_dump(void) {
  rg_graph *g = rg_create(NULL);
  rg_begin(g, 64, 64);
  rg_resource bb = backbuffer(g), x = rg_transient(g, "x", NULL);
  add(g, "unused", NONE, LIST(x), false);
  add(g, "present", NONE, LIST(bb), false);
  CHECK_EQ_INT(rg_compile(g), RG_OK);
  char dump[1024];
  size_t n = rg_dump(g, dump, sizeof dump);
  CHECK(n == strlen(dump));
  CHECK(strstr(dump, "2 passes (1 culled)") != NULL);
  CHECK(strstr(dump, "unused") && strstr(dump, " culled"));
  CHECK(strstr(dump, "present") != NULL);
  char small[16];
  CHECK_EQ_INT(rg_dump(g, small, sizeof small), n); /* snprintf-style: full length, truncated text */
  CHECK_EQ_INT(strlen(small), sizeof small - 1);
  CHECK_EQ_INT(rg_dump(g, NULL, 0), n);
  rg_destroy(g);
}

/* Lua can declare without bound: past 65535 a declaration returns id 0 and the frame's
 * compile fails with a message, instead of an abort; the next frame is fine again. */
static void test_declaration_overflow(void) {
  rg_graph *g = rg_create(NULL);
  rg_begin(g, 64, 64);
  rg_resource last = {0};
  for (int i = 0; i < 70000 && (i == 0 || last.id); i++) last = rg_transient(g, "t", NULL);
  CHECK_EQ_INT(last.id, 0);
  CHECK_EQ_INT(rg_compile(g), RG_ERROR_BAD_HANDLE);
  CHECK(strstr(rg_error(g), "65535") != NULL);
  rg_begin(g, 64, 64);
  rg_resource bb = backbuffer(g);
  add(g, "present", NONE, LIST(bb), false);
  CHECK_EQ_INT(rg_compile(g), RG_OK);
  rg_destroy(g);
}

int main(void) {
  RUN(test_unused_pass_culled);
  RUN(test_culled_transitively);
  RUN(test_side_effect_kept);
  RUN(test_order_dependencies_and_declaration);
  RUN(test_read_modify_write_versions);
  RUN(test_aliasing_disjoint_share);
  RUN(test_aliasing_overlap_no_share);
  RUN(test_aliasing_needs_equal_descriptors);
  RUN(test_pool_reuses_across_frames);
  RUN(test_pool_idle_limit);
  RUN(test_backend_failure);
  RUN(test_unwritten_read_error);
  RUN(test_read_only_import_error);
  RUN(test_stale_handle_error);
  RUN(test_execute_context);
  RUN(test_dump);
  RUN(test_declaration_overflow);
  return check_summary();
}
