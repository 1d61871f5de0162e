/* tests/c/renderer_test.c: the renderer headless (registries, stale slots, bucket counts,
 * the pass list each feature declares, graph errors) and on a real GL 4.5 context through
 * SDL's offscreen driver (a lit, shadowed sphere under a colour sky; user shaders that
 * break; missing textures). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h> /* Required for: rmdir */

#include "check.h"
#include "core/scene.h"
#include "platform/platform.h"
#include "render/render_internal.h" /* Required for: ty_render_engine_font */
#include "render/renderer.h"
#include "text/text.h"

static bool contains(const char *haystack, const char *needle) { return strstr(haystack, needle) != NULL; }

static ty_trs *trs(ty_world *W, ty_id id) { return ty_transform_write(ty_world_transforms(W), ty_object_transform(W, id)); }

static ty_id object_at(ty_world *W, float x, float y, float z) {
  ty_id id = ty_object_create(W);
  ty_trs *t = trs(W, id);
  t->pos[0] = x, t->pos[1] = y, t->pos[2] = z;
  return id;
}

static ty_frame_desc frame_desc(ty_id camera, uint32_t w, uint32_t h) {
  return (ty_frame_desc){.width = w, .height = h,
                         .camera = {.object = camera, .fov_deg = 60, .near_plane = 0.1f, .far_plane = 100}};
}

/* ---- headless ---- */

static void test_registries_and_builtins(void) {
  ty_world *W = ty_world_create();
  ty_renderer *R = ty_render_create(&(ty_render_desc){.world = W});
  CHECK_EQ_INT(ty_render_mesh_count(R), 1); /* the placeholder cube */
  uint32_t v = 0, i = 0;
  CHECK(ty_render_mesh_info(R, TY_RENDER_MESH_PLACEHOLDER, &v, &i));
  CHECK_EQ_INT(v, 24);
  CHECK_EQ_INT(i, 36);
  CHECK(!ty_render_mesh_info(R, 7, &v, &i));
  ty_mesh_data m;
  ty_mesh_sphere(&m, 16, 8);
  uint32_t sphere = ty_render_add_mesh(R, &m, "sphere");
  ty_mesh_free(&m);
  CHECK_EQ_INT(sphere, 1);

  uint32_t w = 0, h = 0;
  CHECK(ty_render_texture_size(R, TY_RENDER_TEXTURE_WHITE, &w, &h) && w == 1 && h == 1);
  CHECK(ty_render_texture_size(R, TY_RENDER_TEXTURE_PLACEHOLDER, &w, &h) && w == 8 && h == 8);
  bool ok = true;
  uint32_t t = ty_render_load_texture(R, "no/such/texture.png", &ok);
  CHECK(!ok);
  CHECK_EQ_INT(t, TY_RENDER_TEXTURE_PLACEHOLDER);
  CHECK(contains(ty_render_error(R), "no/such/texture.png"));
  uint32_t bad_mesh = ty_render_load_mesh(R, "no/such/mesh.obj", &ok);
  CHECK(!ok);
  CHECK_EQ_INT(bad_mesh, TY_RENDER_MESH_PLACEHOLDER);
  CHECK(contains(ty_render_error(R), "no/such/mesh.obj"));

  const ty_material *def = ty_render_material(R, TY_RENDER_MATERIAL_DEFAULT);
  CHECK(def && def->roughness == 0.5f && def->base_color[0] == 1 && !def->transparent);
  ty_material red = ty_material_default();
  red.base_color[1] = red.base_color[2] = 0;
  uint32_t mat = ty_render_add_material(R, &red);
  CHECK_EQ_INT(mat, 1);
  red.metallic = 1;
  CHECK(ty_render_set_material(R, mat, &red));
  CHECK(ty_render_material(R, mat)->metallic == 1);
  CHECK(!ty_render_set_material(R, 99, &red));
  CHECK(ty_render_material(R, 99) == NULL);
  ty_render_destroy(R);
  ty_world_destroy(W);
}

static void test_item_slots_are_reused_and_stale_ones_refused(void) {
  ty_world *W = ty_world_create();
  ty_renderer *R = ty_render_create(&(ty_render_desc){.world = W});
  ty_id o = ty_object_create(W);
  uint32_t a = ty_render_item_create(R, o), b = ty_render_item_create(R, o);
  CHECK(a != b);
  CHECK_EQ_INT(ty_render_item_count(R), 2);
  ty_render_item *it = ty_render_item_at(R, a);
  CHECK(it && it->enabled && it->cast_shadows && it->tint[3] == 1 && it->rect[2] == 1);
  CHECK_EQ_INT(it->mesh, TY_RENDER_MESH_PLACEHOLDER);
  ty_render_item_destroy(R, a);
  CHECK(ty_render_item_at(R, a) == NULL);
  ty_render_item_destroy(R, a); /* twice: a no-op */
  CHECK_EQ_INT(ty_render_item_count(R), 1);
  /* The slot is reused under a new generation: the old handle stays refused, and
   * destroying through it leaves the new item alone. */
  uint32_t c = ty_render_item_create(R, o);
  CHECK(c != a && c != 0);
  CHECK(ty_render_item_at(R, a) == NULL);
  ty_render_item_at(R, c)->material = 7;
  ty_render_item_destroy(R, a);
  CHECK(ty_render_item_at(R, c) && ty_render_item_at(R, c)->material == 7);
  CHECK_EQ_INT(ty_render_item_count(R), 2);
  CHECK(ty_render_item_at(R, 0) == NULL);
  CHECK(ty_render_item_at(R, 12345) == NULL);
  CHECK(ty_render_item_at(R, UINT32_MAX) == NULL);
  /* Many at once: handles stay distinct and valid as the pool grows. */
  uint32_t many[300];
  for (int i = 0; i < 300; i++) many[i] = ty_render_item_create(R, o);
  for (int i = 0; i < 300; i++) CHECK(ty_render_item_at(R, many[i]) != NULL);
  for (int i = 0; i < 300; i++) ty_render_item_destroy(R, many[i]);
  CHECK_EQ_INT(ty_render_item_count(R), 2);

  uint32_t l = ty_render_light_create(R, o, TY_LIGHT_POINT);
  CHECK(ty_render_light_at(R, l) && ty_render_light_at(R, l)->type == TY_LIGHT_POINT);
  ty_render_light_destroy(R, l);
  CHECK(ty_render_light_at(R, l) == NULL);
  uint32_t l2 = ty_render_light_create(R, o, TY_LIGHT_SPOT);
  CHECK(l2 != l && ty_render_light_at(R, l) == NULL);
  CHECK(ty_render_light_at(R, l2) && ty_render_light_at(R, l2)->type == TY_LIGHT_SPOT);
  ty_render_light_destroy(R, l);
  CHECK(ty_render_light_at(R, l2) != NULL);
  ty_render_destroy(R);
  ty_world_destroy(W);
}

/* A scene: two opaque items and one transparent in view, one behind the camera, one
 * disabled, one under a disabled parent, one on a destroyed object. */
static void test_bucket_counts(void) {
  ty_world *W = ty_world_create();
  ty_renderer *R = ty_render_create(&(ty_render_desc){.world = W});
  ty_material glass = ty_material_default();
  glass.transparent = true;
  uint32_t glass_id = ty_render_add_material(R, &glass);
  ty_id cam = object_at(W, 0, 0, 5);
  ty_id a = object_at(W, -1, 0, 0), b = object_at(W, 1, 0, 0), c = object_at(W, 0, 1, 0);
  ty_id behind = object_at(W, 0, 0, 20);
  ty_id off = object_at(W, 0, -1, 0);
  ty_id parent = object_at(W, 0, 0, 0), child = object_at(W, 0, 0, 0);
  CHECK(ty_object_set_parent(W, child, parent));
  ty_object_set_enabled(W, parent, false);
  ty_render_item_create(R, a);
  ty_render_item_create(R, b);
  ty_render_item_at(R, ty_render_item_create(R, c))->material = glass_id;
  ty_render_item_create(R, behind);
  ty_render_item_at(R, ty_render_item_create(R, off))->enabled = false;
  ty_render_item_create(R, child);
  ty_id gone = object_at(W, 0, 0, 0);
  ty_render_item_create(R, gone);
  ty_id out[4];
  CHECK_EQ_INT(ty_object_destroy(W, gone, out, 4), 1);
  ty_object_free(W, gone);

  ty_frame_desc d = frame_desc(cam, 320, 240);
  ty_frame *F = ty_render_begin_frame(R, &d);
  CHECK_EQ_INT(F->buckets.opaque, 2);
  CHECK_EQ_INT(F->buckets.transparent, 1);
  CHECK_EQ_INT(F->buckets.shadow, 3); /* both opaque and the one behind the camera; glass casts none */
  CHECK_EQ_INT(F->buckets.culled, 1);
  CHECK_EQ_INT(F->buckets.disabled, 3);
  CHECK_NEAR(F->camera_position[2], 5, 1e-6);
  CHECK_NEAR(F->camera_forward[2], -1, 1e-6);
  CHECK(ty_render_end_frame(R, F)); /* an empty graph compiles */
  CHECK(ty_render_get_stats(R).bucket_ms >= 0);

  /* The parent comes back: its child draws again. */
  ty_object_set_enabled(W, parent, true);
  F = ty_render_begin_frame(R, &d);
  CHECK_EQ_INT(F->buckets.opaque, 3);
  CHECK_EQ_INT(F->index, 2);
  ty_render_end_frame(R, F);
  ty_render_destroy(R);
  ty_world_destroy(W);
}

static void test_lights_and_sun(void) {
  ty_world *W = ty_world_create();
  ty_renderer *R = ty_render_create(&(ty_render_desc){.world = W});
  ty_id cam = object_at(W, 0, 0, 5);
  ty_id sun_obj = object_at(W, 0, 10, 0);
  uint32_t soft = ty_render_light_create(R, sun_obj, TY_LIGHT_DIRECTIONAL);
  ty_render_light_at(R, soft)->cast_shadows = false;
  uint32_t sun = ty_render_light_create(R, sun_obj, TY_LIGHT_DIRECTIONAL);
  ty_light *L = ty_render_light_at(R, sun);
  L->has_direction = true;
  L->direction[0] = 0, L->direction[1] = -2, L->direction[2] = 0;
  L->intensity = 3;
  ty_render_light_create(R, object_at(W, 1, 1, 1), TY_LIGHT_POINT);
  ty_render_light_at(R, ty_render_light_create(R, object_at(W, 1, 1, 1), TY_LIGHT_SPOT))->enabled = false;
  ty_frame_desc d = frame_desc(cam, 64, 64);
  ty_frame *F = ty_render_begin_frame(R, &d);
  CHECK(F->has_sun);
  CHECK_NEAR(F->sun_direction[1], -1, 1e-6); /* normalised, and the casting light won */
  CHECK_NEAR(F->sun_intensity, 3, 1e-6);
  CHECK_EQ_INT(F->light_count, 1);
  ty_render_end_frame(R, F);
  ty_render_destroy(R);
  ty_world_destroy(W);
}

/* Where p lies for one cascade: 1 its centre is inside the box, 0 a unit sphere around
 * it is clear of the box, -1 neither (a case the test must not pick). */
static int cascade_side(const float vp[16], const float p[3]) {
  bool inside = true;
  for (int a = 0; a < 3; a++) {
    float clip = vp[a] * p[0] + vp[4 + a] * p[1] + vp[8 + a] * p[2] + vp[12 + a];
    float reach = sqrtf(vp[a] * vp[a] + vp[4 + a] * vp[4 + a] + vp[8 + a] * vp[8 + a]); /* a unit sphere */
    if (fabsf(clip) > 1.0f + reach) return 0;
    if (fabsf(clip) > 1.0f) inside = false;
  }
  return inside ? 1 : -1;
}

/* One caster under a sun straight above, moved about: after the first frame (no cascades
 * known yet: one whole list) each cascade lists it only when its box (its clip volume)
 * reaches it; a caster far up between the sun and the first slice is kept; one at a split
 * is in both cascades; and the Shadow pass finds the list split by its own cascades. */
static void test_shadow_cascades(void) {
  ty_world *W = ty_world_create();
  ty_renderer *R = ty_render_create(&(ty_render_desc){.world = W});
  ty_id cam = object_at(W, 0, 0, 10);
  ty_light *L = ty_render_light_at(R, ty_render_light_create(R, object_at(W, 0, 0, 0), TY_LIGHT_DIRECTIONAL));
  L->has_direction = true;
  L->direction[0] = 0, L->direction[1] = -1, L->direction[2] = 0;
  L->cast_shadows = true;
  ty_id thing = object_at(W, 0, 0, 0);
  ty_render_item_create(R, thing);
  ty_feature_opts o;
  memset(&o, 0, sizeof o);
  ty_frame_desc d = frame_desc(cam, 64, 64);
  ty_frame *F = ty_render_begin_frame(R, &d);
  CHECK_EQ_INT(F->buckets.cascades, 0);
  CHECK_EQ_INT(F->buckets.shadow, 1);
  CHECK(ty_render_add_feature(R, F, TY_FEATURE_SHADOW, &o));
  ty_bucket_range ranges[TY_RENDER_MAX_CASCADES];
  const ty_frame_block *B = ty_render_frame_block(R);
  CHECK(!ty_render_shadow_split(R, (const float(*)[16])B->shadow_view_proj, 4, ranges));
  float vp[4][16];
  memcpy(vp, B->shadow_view_proj, sizeof vp);
  float split0 = B->cascade_splits[0];
  CHECK(ty_render_end_frame(R, F));

  struct {
    float p[3];
    const char *what;
  } cases[] = {
      {{200, 0, 0}, "far to the side"},
      {{0, 0, 8}, "just ahead"},
      {{0, 0, -30}, "40 ahead"},
      {{0, 60, 8}, "60 up, between the sun and the first slice"},
      {{0, 0, 10 - split0}, "at the first split"},
  };
  int in_first[5] = {0};
  for (int k = 0; k < 5; k++) {
    memcpy(trs(W, thing)->pos, cases[k].p, sizeof cases[k].p);
    F = ty_render_begin_frame(R, &d);
    CHECK_EQ_INT(F->buckets.cascades, 4);
    uint32_t any = 0;
    for (int c = 0; c < 4; c++) {
      int side = cascade_side(vp[c], cases[k].p);
      CHECK(side >= 0);
      if (side >= 0 && (int)F->buckets.shadow_cascade[c] != side)
        fprintf(stderr, "  %s: cascade %d lists %u, its box says %d\n", cases[k].what, c, F->buckets.shadow_cascade[c], side);
      CHECK_EQ_INT(F->buckets.shadow_cascade[c], side);
      any |= F->buckets.shadow_cascade[c];
    }
    CHECK_EQ_INT(F->buckets.shadow, any);
    in_first[k] = (int)F->buckets.shadow_cascade[0] + 2 * (int)F->buckets.shadow_cascade[1];
    CHECK(ty_render_add_feature(R, F, TY_FEATURE_SHADOW, &o));
    CHECK(memcmp(vp, B->shadow_view_proj, sizeof vp) == 0); /* the same camera: the same cascades */
    CHECK(ty_render_shadow_split(R, (const float(*)[16])B->shadow_view_proj, 4, ranges));
    uint32_t items = 0;
    for (int c = 0; c < 4; c++) items += ranges[c].item_count;
    CHECK_EQ_INT(items, F->buckets.shadow_cascade[0] + F->buckets.shadow_cascade[1] +
                            F->buckets.shadow_cascade[2] + F->buckets.shadow_cascade[3]);
    CHECK(ty_render_end_frame(R, F));
  }
  CHECK_EQ_INT(in_first[0], 0); /* far to the side: in neither, nor any other (above) */
  CHECK(in_first[1] & 1);
  CHECK_EQ_INT(in_first[2] & 1, 0); /* 40 ahead is past the first cascade */
  CHECK(in_first[3] & 1);
  CHECK_EQ_INT(in_first[4], 3); /* both sides of the split */

  /* Other settings this frame than last: the list was split by other cascades, so the
   * pass draws it whole into each. */
  F = ty_render_begin_frame(R, &d);
  o.shadow.cascades = 2;
  CHECK(ty_render_add_feature(R, F, TY_FEATURE_SHADOW, &o));
  CHECK(!ty_render_shadow_split(R, (const float(*)[16])B->shadow_view_proj, 2, ranges));
  CHECK(ty_render_end_frame(R, F));
  F = ty_render_begin_frame(R, &d);
  CHECK_EQ_INT(F->buckets.cascades, 2);
  CHECK(ty_render_add_feature(R, F, TY_FEATURE_SHADOW, &o));
  CHECK(ty_render_shadow_split(R, (const float(*)[16])B->shadow_view_proj, 2, ranges));
  CHECK(ty_render_end_frame(R, F));
  /* No Shadow feature: the next frame culls no casters. */
  F = ty_render_begin_frame(R, &d);
  CHECK(ty_render_end_frame(R, F));
  F = ty_render_begin_frame(R, &d);
  CHECK_EQ_INT(F->buckets.cascades, 0);
  CHECK_EQ_INT(F->buckets.shadow, 1);
  CHECK(ty_render_end_frame(R, F));
  ty_render_destroy(R);
  ty_world_destroy(W);
}

static size_t dump(ty_renderer *R, char *buf, size_t n) { return ty_render_dump_graph(R, buf, n); }

static void test_forward_pass_list(void) {
  ty_world *W = ty_world_create();
  ty_renderer *R = ty_render_create(&(ty_render_desc){.world = W});
  ty_id cam = object_at(W, 0, 0, 5);
  ty_render_item_create(R, object_at(W, 0, 0, 0));
  ty_render_light_create(R, object_at(W, 0, 5, 0), TY_LIGHT_DIRECTIONAL);
  ty_frame_desc d = frame_desc(cam, 160, 120);
  ty_frame *F = ty_render_begin_frame(R, &d);
  ty_feature_opts o = {0};
  o.sky.kind = TY_SKY_ATMOSPHERE;
  CHECK(ty_render_add_feature(R, F, TY_FEATURE_SHADOW, &o));
  CHECK(F->shadow_map.id != 0);
  CHECK(ty_render_add_feature(R, F, TY_FEATURE_SKY, &o));
  CHECK(ty_render_add_feature(R, F, TY_FEATURE_FORWARD_LIT, &o));
  CHECK(ty_render_add_feature(R, F, TY_FEATURE_TONEMAP, &o));
  CHECK(ty_render_end_frame(R, F));
  char buf[8192];
  dump(R, buf, sizeof buf);
  const char *s = strstr(buf, "Shadow"), *k = strstr(buf, "Sky"), *l = strstr(buf, "ForwardLit"),
             *t = strstr(buf, "Tonemap");
  CHECK(s && k && l && t);
  CHECK(s < k && k < l && l < t); /* declared in this order, and none culled */
  CHECK(contains(buf, "(0 culled)"));
  if (getenv("TY_RENDERER_TEST_SHOTS")) fprintf(stderr, "%s\n", buf);
  ty_render_stats st = ty_render_get_stats(R);
  CHECK_EQ_INT(st.passes, 4);
  CHECK_EQ_INT(st.culled_passes, 0);
  CHECK_EQ_INT(strcmp(ty_feature_name(TY_FEATURE_FORWARD_LIT), "ForwardLit"), 0);
  /* One table names every kind: each name finds its kind back; Lua's spelling of the
   * overlay is the table's. */
  for (int kind = 0; kind < TY_FEATURE_COUNT; kind++) {
    ty_feature_kind found = TY_FEATURE_COUNT;
    CHECK(ty_feature_find(ty_feature_name((ty_feature_kind)kind), &found));
    CHECK_EQ_INT(found, kind);
  }
  CHECK_EQ_INT(strcmp(ty_feature_name(TY_FEATURE_OVERLAY), "DebugOverlay"), 0);
  CHECK(!ty_feature_find("NoSuchFeature", NULL) && !ty_feature_find(NULL, NULL));
  CHECK_EQ_INT(strcmp(ty_feature_name(TY_FEATURE_COUNT), "?"), 0);

  /* Without Tonemap nothing reads hdr: every pass is culled. */
  F = ty_render_begin_frame(R, &d);
  ty_render_add_feature(R, F, TY_FEATURE_SKY, &o);
  ty_render_add_feature(R, F, TY_FEATURE_FORWARD_LIT, &o);
  CHECK(ty_render_end_frame(R, F));
  CHECK_EQ_INT(ty_render_get_stats(R).culled_passes, 2);
  ty_render_destroy(R);
  ty_world_destroy(W);
}

/* The engine font (the overlay's and tycho.ui's text) loads from content/ beside the
 * shaders, once a size; with no such file it is NULL and the error names the path. */
static void test_engine_font_found_once_a_size_or_named_missing(void) {
  ty_world *W = ty_world_create();
  ty_renderer *R = ty_render_create(&(ty_render_desc){.world = W});
  ty_font *f13 = ty_render_engine_font(R, 13);
  CHECK(f13 != NULL);
  CHECK(ty_render_engine_font(R, 13) == f13);
  ty_font *f26 = ty_render_engine_font(R, 26);
  CHECK(f26 != NULL && f26 != f13);
  CHECK(ty_font_height(f26) > ty_font_height(f13));
  /* More sizes than it keeps: the oldest goes, the newest stay usable. */
  for (int size = 1; size <= 12; size++) CHECK(ty_render_engine_font(R, (float)size) != NULL);
  CHECK(ty_font_size(ty_render_engine_font(R, 12)) == 12);
  ty_render_destroy(R);
  R = ty_render_create(&(ty_render_desc){.world = W, .shader_dir = "/nonexistent/shaders"});
  CHECK(ty_render_engine_font(R, 13) == NULL);
  CHECK(contains(ty_render_error(R), "/nonexistent/shaders/../content/fonts/DejaVuSans.ttf"));
  ty_render_destroy(R);
  ty_world_destroy(W);
}

static void test_reading_an_unwritten_resource_names_both(void) {
  ty_world *W = ty_world_create();
  ty_renderer *R = ty_render_create(&(ty_render_desc){.world = W});
  ty_frame_desc d = frame_desc(0, 64, 64);
  ty_frame *F = ty_render_begin_frame(R, &d);
  CHECK(ty_render_add_feature(R, F, TY_FEATURE_TONEMAP, NULL));
  CHECK(!ty_render_end_frame(R, F));
  CHECK(contains(ty_render_error(R), "Tonemap"));
  CHECK(contains(ty_render_error(R), "hdr"));

  /* A user pass reading hdr before anyone wrote it, headless too. */
  F = ty_render_begin_frame(R, &d);
  rg_resource out = rg_transient(F->graph, "tinted", &(rg_texture_desc){.format = RG_FORMAT_RGBA16F});
  ty_fullscreen_desc fd = {.name = "Tint", .shader_source = "void main() {}\n", .reads = {F->hdr},
                           .read_names = {"src"}, .read_count = 1, .write = out};
  CHECK(ty_render_add_fullscreen(R, F, &fd));
  rg_add_pass(F->graph, &(rg_pass_desc){.name = "Keep", .reads = &out, .read_count = 1, .side_effect = true});
  CHECK(!ty_render_end_frame(R, F));
  CHECK(contains(ty_render_error(R), "Tint"));
  CHECK(contains(ty_render_error(R), "hdr"));
  ty_render_destroy(R);
  ty_world_destroy(W);
}

/* ---- on a GL context ---- */

static ty_window *win;
static ty_gl_device *dev;

typedef struct scene {
  ty_world *W;
  ty_renderer *R;
  ty_id cam, ball;
  uint32_t ball_item, sun; /* handles */
} scene;

static scene lit_scene(void) {
  scene s = {0};
  s.W = ty_world_create();
  s.R = ty_render_create(&(ty_render_desc){.world = s.W});
  ty_render_attach(s.R, dev);
  s.cam = object_at(s.W, 0, 0, 3);
  s.ball = object_at(s.W, 0, 0, 0);
  ty_trs *t = trs(s.W, s.ball);
  t->scale[0] = t->scale[1] = t->scale[2] = 2; /* radius 1 */
  ty_mesh_data m;
  ty_mesh_sphere(&m, 48, 24);
  uint32_t mesh = ty_render_add_mesh(s.R, &m, "sphere");
  ty_mesh_free(&m);
  ty_material mat = ty_material_default();
  mat.base_color[0] = 0.8f, mat.base_color[1] = 0.8f, mat.base_color[2] = 0.8f;
  s.ball_item = ty_render_item_create(s.R, s.ball);
  ty_render_item *it = ty_render_item_at(s.R, s.ball_item);
  it->mesh = mesh;
  it->material = ty_render_add_material(s.R, &mat);
  /* The sun travels right and into the screen: the sphere's left and front are lit. */
  s.sun = ty_render_light_create(s.R, object_at(s.W, 0, 0, 0), TY_LIGHT_DIRECTIONAL);
  ty_light *L = ty_render_light_at(s.R, s.sun);
  L->has_direction = true;
  L->direction[0] = 1, L->direction[1] = 0, L->direction[2] = -1;
  L->intensity = 3;
  return s;
}

static void free_scene(scene *s) {
  ty_render_destroy(s->R);
  ty_world_destroy(s->W);
}

static bool render_forward(scene *s, ty_draw_mode mode) {
  ty_render_set_draw_mode(s->R, mode);
  ty_frame_desc d = frame_desc(s->cam, 64, 64);
  ty_frame *F = ty_render_begin_frame(s->R, &d);
  ty_feature_opts o = {0};
  o.sky.kind = TY_SKY_COLOR;
  o.sky.has_color = true;
  o.sky.color[0] = 0.2f, o.sky.color[1] = 0.4f, o.sky.color[2] = 0.9f;
  bool ok = ty_render_add_feature(s->R, F, TY_FEATURE_SHADOW, &o) && ty_render_add_feature(s->R, F, TY_FEATURE_SKY, &o) &&
            ty_render_add_feature(s->R, F, TY_FEATURE_FORWARD_LIT, &o) &&
            ty_render_add_feature(s->R, F, TY_FEATURE_TONEMAP, &o);
  if (!ok) fprintf(stderr, "  feature refused: %s\n", ty_render_error(s->R));
  return ok && ty_render_end_frame(s->R, F);
}

static int luma(const uint8_t *p) { return p[0] * 3 + p[1] * 6 + p[2]; }

static void pixel(int x, int y, uint8_t out[4]) {
  memset(out, 0, 4);
  ty_window_read_pixels(win, x, y, 1, 1, out);
}

static void test_gl_lit_sphere_under_a_sky(void) {
  scene s = lit_scene();
  ty_draw_mode modes[3] = {TY_DRAW_MULTI_INDIRECT, TY_DRAW_INSTANCED, TY_DRAW_PER_OBJECT};
  for (int m = 0; m < 3; m++) {
    CHECK(render_forward(&s, modes[m]));
    if (ty_render_error(s.R)[0]) fprintf(stderr, "  error: %s\n", ty_render_error(s.R));
    uint8_t sky[4], centre[4], right[4], left[4];
    pixel(1, 1, sky);
    pixel(32, 32, centre);
    pixel(32 + 15, 32, right);
    pixel(32 - 12, 32, left);
    /* The sky's colour: more blue than red, neither black nor white. */
    CHECK(sky[2] > sky[0] + 40);
    CHECK(sky[2] < 255 && sky[2] > 100);
    /* The lit side is brighter than the side facing away from the sun. */
    CHECK(luma(centre) > luma(right) + 100);
    CHECK(luma(left) > luma(right) + 100);
    CHECK(centre[0] != sky[0] || centre[2] != sky[2]);
    ty_render_stats st = ty_render_get_stats(s.R);
    CHECK(st.instances >= 2); /* the shadow pass and the lit pass */
    CHECK(st.triangles > 1000);
    if (modes[m] == TY_DRAW_MULTI_INDIRECT) CHECK(st.draws >= 2);
    ty_window_swap(win);
  }
  free_scene(&s);
}

static void test_gl_shadow_falls_on_a_plane(void) {
  scene s = lit_scene();
  /* A floor under the ball, the sun straight down: the floor under the ball is dark. */
  ty_light *L = ty_render_light_at(s.R, s.sun);
  L->direction[0] = 0, L->direction[1] = -1, L->direction[2] = 0;
  ty_id floor = object_at(s.W, 0, -1.0f, 0);
  ty_trs *t = trs(s.W, floor);
  t->scale[0] = t->scale[2] = 20;
  ty_mesh_data m;
  ty_mesh_plane(&m, 1);
  uint32_t plane = ty_render_add_mesh(s.R, &m, "plane");
  ty_mesh_free(&m);
  ty_render_item_at(s.R, ty_render_item_create(s.R, floor))->mesh = plane;
  /* Look down from above at an angle. */
  ty_trs *c = trs(s.W, s.cam);
  c->pos[0] = 0, c->pos[1] = 4, c->pos[2] = 4;
  float a = -0.785398f / 2; /* -45 degrees about X */
  c->rot[0] = sinf(a), c->rot[1] = 0, c->rot[2] = 0, c->rot[3] = cosf(a);
  /* Move the ball aside and compare floor under it with open floor. */
  ty_trs *b = trs(s.W, s.ball);
  b->pos[0] = -1.5f;
  CHECK(render_forward(&s, TY_DRAW_MULTI_INDIRECT));
  /* Project the floor point under the ball and one mirrored to +x. */
  ty_frame_desc d = frame_desc(s.cam, 64, 64);
  ty_frame *F = ty_render_begin_frame(s.R, &d);
  /* Inside the shadow's disc yet not hidden behind the ball from this camera, and open floor. */
  float pts[2][4] = {{-0.75f, -1, 0.4f, 1}, {1.5f, -1, 0.4f, 1}};
  int px[2][2];
  for (int i = 0; i < 2; i++) {
    float clip[4] = {0, 0, 0, 0};
    for (int r = 0; r < 4; r++)
      for (int k = 0; k < 4; k++) clip[r] += F->view_proj[k * 4 + r] * pts[i][k];
    px[i][0] = (int)((clip[0] / clip[3] * 0.5f + 0.5f) * 64);
    px[i][1] = (int)((1.0f - (clip[1] / clip[3] * 0.5f + 0.5f)) * 64);
  }
  ty_render_end_frame(s.R, F);
  CHECK(render_forward(&s, TY_DRAW_MULTI_INDIRECT));
  uint8_t shadowed[4], open[4];
  pixel(px[0][0], px[0][1], shadowed);
  pixel(px[1][0], px[1][1], open);
  CHECK(luma(open) > luma(shadowed) + 60);
  if (getenv("TY_RENDERER_TEST_SHOTS")) {
    fprintf(stderr, "  shadowed %d,%d: %d  open %d,%d: %d\n", px[0][0], px[0][1], luma(shadowed), px[1][0], px[1][1], luma(open));
    ty_window_screenshot(win, "/tmp/renderer_shadow.png");
  }
  ty_window_swap(win);
  free_scene(&s);
}

static void test_gl_broken_user_shader_keeps_last_good(void) {
  scene s = lit_scene();
  const char *good = "#include \"common/frame.glsl\"\n"
                     "layout(location = 0) in vec2 uv;\n"
                     "uniform sampler2D src;\n"
                     "uniform vec4 params[4];\n"
                     "layout(location = 0) out vec4 o;\n"
                     "void main() { o = texture(src, uv) * params[0]; }\n";
  const char *bad = "layout(location = 0) in vec2 uv;\n"
                    "layout(location = 0) out vec4 o;\n"
                    "void main() {\n"
                    "  o = nope;\n"
                    "}\n";
  for (int round = 0; round < 2; round++) {
    ty_frame_desc d = frame_desc(s.cam, 64, 64);
    ty_frame *F = ty_render_begin_frame(s.R, &d);
    ty_feature_opts o = {0};
    o.sky.kind = TY_SKY_COLOR;
    CHECK(ty_render_add_feature(s.R, F, TY_FEATURE_SKY, &o));
    CHECK(ty_render_add_feature(s.R, F, TY_FEATURE_FORWARD_LIT, &o));
    ty_fullscreen_desc fd = {.name = "Darken", .shader_path = "game/darken.frag",
                             .shader_source = round == 0 ? good : bad, .reads = {F->hdr}, .read_names = {"src"},
                             .read_count = 1, .write = F->hdr, .params = {0.5f, 0.5f, 0.5f, 1}};
    bool added = ty_render_add_fullscreen(s.R, F, &fd);
    if (round == 1) {
      CHECK(contains(ty_render_error(s.R), "game/darken.frag:4"));
    } else {
      CHECK(ty_render_error(s.R)[0] == 0);
    }
    CHECK(added); /* the last good program stays */
    CHECK(ty_render_add_feature(s.R, F, TY_FEATURE_TONEMAP, &o));
    CHECK(ty_render_end_frame(s.R, F));
    ty_window_swap(win);
  }
  /* A shader that never compiled refuses its pass with file:line. */
  ty_frame_desc d = frame_desc(s.cam, 64, 64);
  ty_frame *F = ty_render_begin_frame(s.R, &d);
  ty_fullscreen_desc fd = {.name = "Broken", .shader_path = "game/broken.frag", .shader_source = bad,
                           .write = F->backbuffer};
  CHECK(!ty_render_add_fullscreen(s.R, F, &fd));
  CHECK(contains(ty_render_error(s.R), "game/broken.frag:4"));
  ty_render_end_frame(s.R, F);
  free_scene(&s);
}

static void test_gl_missing_texture_draws_the_placeholder(void) {
  scene s = lit_scene();
  bool ok = true;
  uint32_t tex = ty_render_load_texture(s.R, "content/missing.png", &ok);
  CHECK(!ok && tex == TY_RENDER_TEXTURE_PLACEHOLDER);
  ty_material m = ty_material_default();
  m.unlit = true;
  m.nearest = true;
  m.texture = tex;
  ty_render_item *it = ty_render_item_at(s.R, s.ball_item);
  it->material = ty_render_add_material(s.R, &m);
  ty_mesh_data q;
  ty_mesh_quad(&q);
  it->mesh = ty_render_add_mesh(s.R, &q, "quad");
  ty_mesh_free(&q);
  CHECK(render_forward(&s, TY_DRAW_INSTANCED));
  /* The quad covers the centre: every pixel there is magenta or black, and both occur. */
  int magenta = 0, black = 0;
  for (int y = 26; y < 38; y++)
    for (int x = 26; x < 38; x++) {
      uint8_t p[4];
      pixel(x, y, p);
      if (p[0] > 180 && p[2] > 180 && p[1] < 80) magenta++;
      else if (p[0] < 40 && p[1] < 40 && p[2] < 40) black++;
    }
  CHECK(magenta > 10);
  CHECK(black > 10);
  ty_window_swap(win);
  free_scene(&s);
}

static void test_gl_overlay_and_reattach(void) {
  scene s = lit_scene();
  ty_render_set_overlay(s.R, true);
  CHECK(ty_render_overlay(s.R));
  ty_render_note_frame_time(s.R, 1.0 / 60.0);
  ty_frame_desc d = frame_desc(s.cam, 64, 64);
  ty_frame *F = ty_render_begin_frame(s.R, &d);
  ty_feature_opts o = {0};
  o.sky.kind = TY_SKY_ATMOSPHERE;
  o.overlay.text = "hello";
  CHECK(ty_render_add_feature(s.R, F, TY_FEATURE_SKY, &o));
  CHECK(ty_render_add_feature(s.R, F, TY_FEATURE_FORWARD_LIT, &o));
  CHECK(ty_render_add_feature(s.R, F, TY_FEATURE_TONEMAP, &o));
  CHECK(ty_render_add_feature(s.R, F, TY_FEATURE_OVERLAY, &o));
  CHECK(ty_render_end_frame(s.R, F));
  char buf[4096];
  ty_render_dump_graph(s.R, buf, sizeof buf);
  CHECK(contains(buf, "Overlay"));
  /* Detach and attach again: everything is made anew and still draws. */
  ty_render_attach(s.R, NULL);
  CHECK(ty_render_device(s.R) == NULL);
  ty_render_attach(s.R, dev);
  CHECK(render_forward(&s, TY_DRAW_MULTI_INDIRECT));
  uint8_t centre[4];
  pixel(32, 32, centre);
  CHECK(luma(centre) > 300);
  ty_window_swap(win);
  free_scene(&s);
}

/* The overlay: a dark panel behind its text (readable over a white sky), the passes that
 * ran with their times, and no shadow figure unless a Shadow pass ran. */
static void test_gl_overlay_panel_and_passes(void) {
  scene s = lit_scene();
  int dark[3] = {0, 0, 0};
  for (int pass = 0; pass < 3; pass++) {
    bool on = pass > 0, shadows = pass == 2;
    ty_render_set_overlay(s.R, on);
    ty_render_note_frame_time(s.R, 1.0 / 60.0);
    ty_frame_desc d = frame_desc(s.cam, 64, 64);
    ty_frame *F = ty_render_begin_frame(s.R, &d);
    ty_feature_opts o = {0};
    o.sky.kind = TY_SKY_COLOR;
    o.sky.color[0] = o.sky.color[1] = o.sky.color[2] = 4; /* white after tonemapping */
    o.overlay.corner = TY_OVERLAY_TOP_LEFT;
    if (shadows) CHECK(ty_render_add_feature(s.R, F, TY_FEATURE_SHADOW, &o));
    CHECK(ty_render_add_feature(s.R, F, TY_FEATURE_SKY, &o));
    CHECK(ty_render_add_feature(s.R, F, TY_FEATURE_FORWARD_LIT, &o));
    CHECK(ty_render_add_feature(s.R, F, TY_FEATURE_TONEMAP, &o));
    CHECK(ty_render_add_feature(s.R, F, TY_FEATURE_OVERLAY, &o));
    CHECK(ty_render_end_frame(s.R, F));
    uint32_t n = 0;
    const ty_render_pass_time *t = ty_render_pass_times(s.R, &n);
    CHECK(n >= (on ? 4u : 3u));
    bool saw_shadow = false;
    for (uint32_t i = 0; i < n; i++) {
      if (on) CHECK(t[i].ms >= 0); /* shown: every pass is timed */
      saw_shadow |= strncmp(t[i].name, "Shadow", 6) == 0;
    }
    CHECK(saw_shadow == shadows);
    char text[4096];
    ty_render_overlay_text(s.R, F, text, sizeof text);
    CHECK(contains(text, "ForwardLit"));
    CHECK(contains(text, "shadow ") == shadows);
    CHECK(contains(text, " ms\n") == on);
    for (int y = 12; y < 52; y++)
      for (int x = 12; x < 52; x++) {
        uint8_t p[4];
        pixel(x, y, p);
        dark[pass] += luma(p) < 900;
      }
    ty_window_swap(win);
  }
  /* The sphere covers some of the square; the panel (text aside) darkens most of the rest. */
  CHECK(dark[1] > dark[0] + 400);
  ty_render_set_overlay(s.R, false);
  free_scene(&s);
}

/* Hot reload: a texture or mesh file rewritten on disk replaces the data behind the same
 * id; a file that no longer loads keeps the old data and says why. */
static void test_reload_file_in_place(void) {
  ty_world *W = ty_world_create();
  ty_renderer *R = ty_render_create(&(ty_render_desc){.world = W});
  char dir[] = "/tmp/renderer_test_XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  char png[256], obj[256];
  snprintf(png, sizeof png, "%s/a.png", dir);
  snprintf(obj, sizeof obj, "%s/a.obj", dir);
  uint8_t px[4 * 4 * 4];
  memset(px, 200, sizeof px);
  CHECK(ty_image_write_png(png, 2, 2, px));
  FILE *f = fopen(obj, "w");
  fputs("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", f);
  fclose(f);
  bool ok = false;
  uint32_t tex = ty_render_load_texture(R, png, &ok);
  CHECK(ok);
  uint32_t mesh = ty_render_load_mesh(R, obj, &ok);
  CHECK(ok);
  CHECK_EQ_INT(ty_render_reload_file(R, "/tmp/no/such/file.png"), 0);

  CHECK(ty_image_write_png(png, 4, 4, px));
  CHECK_EQ_INT(ty_render_reload_file(R, png), 1);
  uint32_t w = 0, h = 0;
  CHECK(ty_render_texture_size(R, tex, &w, &h) && w == 4 && h == 4);

  f = fopen(obj, "w");
  fputs("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1 2 3\nf 2 4 3\n", f);
  fclose(f);
  CHECK_EQ_INT(ty_render_reload_file(R, obj), 1);
  uint32_t nv = 0, ni = 0;
  CHECK(ty_render_mesh_info(R, mesh, &nv, &ni) && ni == 6);

  f = fopen(png, "w"); /* a save caught half written */
  fputs("not a png", f);
  fclose(f);
  CHECK_EQ_INT(ty_render_reload_file(R, png), -1);
  CHECK(strstr(ty_render_error(R), "a.png") != NULL);
  CHECK(ty_render_texture_size(R, tex, &w, &h) && w == 4 && h == 4);

  remove(png), remove(obj), rmdir(dir);
  ty_render_destroy(R);
  ty_world_destroy(W);
}

/* Re-meshing for hours must not grow the shared arrays without bound: a mesh that outgrows
 * its room moves, and the room it leaves is packed away once it outweighs what is used. */
static void test_rewritten_meshes_stay_bounded(void) {
  ty_world *W = ty_world_create();
  ty_renderer *R = ty_render_create(&(ty_render_desc){.world = W});
  ty_mesh_data small, big;
  ty_mesh_sphere(&small, 8, 4);
  ty_mesh_sphere(&big, 64, 32);
  uint32_t a = ty_render_add_mesh(R, &small, "a"), b = ty_render_add_mesh(R, &small, "b");
  uint32_t peak = 0;
  for (int round = 0; round < 200; round++) {
    /* alternate which one outgrows its room, so both keep moving */
    CHECK(ty_render_update_mesh(R, round % 2 ? a : b, &big));
    CHECK(ty_render_update_mesh(R, round % 2 ? b : a, &small));
    uint32_t v = 0;
    ty_render_mesh_storage(R, &v, NULL);
    if (v > peak) peak = v;
  }
  /* two meshes of at most big's size with a quarter of headroom, plus what may be left
   * behind before a compaction: far below 200 moves' worth */
  CHECK(peak < 8 * big.vertex_count + 70000);
  uint32_t nv = 0, ni = 0;
  /* the last round (199) gave a the big mesh and b the small one; both kept their data */
  CHECK(ty_render_mesh_info(R, a, &nv, &ni) && nv == big.vertex_count && ni == big.index_count);
  CHECK(ty_render_mesh_info(R, b, &nv, &ni) && nv == small.vertex_count && ni == small.index_count);
  ty_mesh_free(&small);
  ty_mesh_free(&big);
  ty_render_destroy(R);
  ty_world_destroy(W);
}

int main(void) {
  RUN(test_registries_and_builtins);
  RUN(test_item_slots_are_reused_and_stale_ones_refused);
  RUN(test_bucket_counts);
  RUN(test_lights_and_sun);
  RUN(test_shadow_cascades);
  RUN(test_forward_pass_list);
  RUN(test_reading_an_unwritten_resource_names_both);
  RUN(test_engine_font_found_once_a_size_or_named_missing);
  RUN(test_reload_file_in_place);
  RUN(test_rewritten_meshes_stay_bounded);

  if (!getenv("DISPLAY") && !getenv("WAYLAND_DISPLAY")) setenv("SDL_VIDEODRIVER", "offscreen", 1);
  win = ty_window_create(&(ty_window_desc){.title = "renderer_test", .width = 64, .height = 64, .hidden = true,
                                           .fixed_size = true});
  ty_platform_pin_libraries(); /* the GL driver stays mapped for LeakSanitizer */
  if (win) dev = ty_gl_create(&(ty_gl_device_desc){.quiet = true});
  if (!win || !dev) {
    fprintf(stderr, "FAIL: no OpenGL 4.5 context (SDL_VIDEODRIVER=offscreen): the GL half did not run\n");
    ty_window_destroy(win);
    check_failed++;
    return check_summary();
  }
  RUN(test_gl_lit_sphere_under_a_sky);
  RUN(test_gl_shadow_falls_on_a_plane);
  RUN(test_gl_broken_user_shader_keeps_last_good);
  RUN(test_gl_missing_texture_draws_the_placeholder);
  RUN(test_gl_overlay_and_reattach);
  RUN(test_gl_overlay_panel_and_passes);
  ty_gl_destroy(dev);
  ty_window_destroy(win);
  return check_summary();
}
