/* tests/c/render_features_test.c: the deferred path, Forward+ and the post features.
 *
 * Headless (no device): each feature declares its passes in a valid order, the graph
 * compiles, unused outputs are culled, and a missing input is an error naming it. Then
 * on a real GL 4.5 context (SDL's offscreen driver when there is no display) a sphere on
 * a plane under a sun and a red point light goes through the deferred sequence and
 * through Forward+, and the hdr image (read back before tonemapping) is checked where it
 * matters: lit against shadowed, brighter near the point light, nothing NaN or black. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <epoxy/gl.h>

#include "check.h"
#include "core/scene.h"
#include "core/transform.h"
#include "platform/platform.h"
#include "render/gl_device.h"
#include "render/renderer.h"

#define SIZE 64

static ty_world *W;
static ty_renderer *R;
static ty_window *win;
static ty_gl_device *dev;
static ty_id cam, sun_obj, point_obj;
static uint32_t sun_slot, point_slot;
static char shader_dir[1024];

/* ---- scene ---- */

static ty_id object_at(float x, float y, float z, float scale) {
  ty_id id = ty_object_create(W);
  ty_trs *t = ty_transform_write(ty_world_transforms(W), ty_object_transform(W, id));
  t->pos[0] = x, t->pos[1] = y, t->pos[2] = z;
  t->scale[0] = t->scale[1] = t->scale[2] = scale;
  return id;
}

/* A 10x10 white plane at y = 0, a sphere of radius 1 resting on it at the origin, a sun
 * shining along (1, -1, 0) (so the sphere's shadow covers (1.3, 0, 0)), a red point
 * light left of the sphere, and a camera at (0, 3, 6) looking at the origin. */
static void build_scene(void) {
  W = ty_world_create();
  R = ty_render_create(&(ty_render_desc){.world = W, .shader_dir = shader_dir});
  ty_mesh_data m;
  ty_mesh_sphere(&m, 32, 16);
  uint32_t sphere = ty_render_add_mesh(R, &m, "sphere");
  ty_mesh_free(&m);
  ty_mesh_plane(&m, 1);
  uint32_t plane = ty_render_add_mesh(R, &m, "plane");
  ty_mesh_free(&m);
  ty_material mat = ty_material_default();
  mat.roughness = 0.8f;
  uint32_t white = ty_render_add_material(R, &mat);
  mat.transparent = true;
  mat.base_color[0] = 0.2f, mat.base_color[1] = 0.4f, mat.base_color[3] = 0.5f;
  uint32_t glass = ty_render_add_material(R, &mat);

  ty_render_item *it = ty_render_item_at(R, ty_render_item_create(R, object_at(0, 0, 0, 10)));
  it->mesh = plane, it->material = white;
  it = ty_render_item_at(R, ty_render_item_create(R, object_at(0, 1, 0, 2)));
  it->mesh = sphere, it->material = white;
  /* A transparent sphere far to the back right, away from every probed pixel. */
  it = ty_render_item_at(R, ty_render_item_create(R, object_at(3, 0.5f, -3, 1)));
  it->mesh = sphere, it->material = glass;

  sun_obj = object_at(0, 5, 0, 1);
  sun_slot = ty_render_light_create(R, sun_obj, TY_LIGHT_DIRECTIONAL);
  ty_light *l = ty_render_light_at(R, sun_slot);
  l->has_direction = true;
  l->direction[0] = 0.70710678f, l->direction[1] = -0.70710678f, l->direction[2] = 0;
  l->intensity = 3.0f;
  l->cast_shadows = true;

  point_obj = object_at(-2.5f, 0.3f, 2.0f, 1);
  point_slot = ty_render_light_create(R, point_obj, TY_LIGHT_POINT);
  l = ty_render_light_at(R, point_slot);
  l->color[0] = 1, l->color[1] = 0, l->color[2] = 0;
  l->intensity = 30.0f;
  l->range = 1.5f;

  cam = object_at(0, 3, 6, 1);
  float a = -atan2f(3.0f, 6.0f) * 0.5f; /* half of the pitch down to the origin */
  ty_trs *t = ty_transform_write(ty_world_transforms(W), ty_object_transform(W, cam));
  t->rot[0] = sinf(a), t->rot[1] = 0, t->rot[2] = 0, t->rot[3] = cosf(a);
}

static void free_scene(void) {
  ty_render_destroy(R);
  ty_world_destroy(W);
  R = NULL, W = NULL;
}

static ty_frame *begin(void) {
  return ty_render_begin_frame(
      R, &(ty_frame_desc){.width = SIZE, .height = SIZE, .camera = {.object = cam, .fov_deg = 60, .near_plane = 0.1f,
                                                                  .far_plane = 100.0f},
                          .time = 1.0, .delta = 1.0f / 60.0f});
}

static bool add(ty_frame *F, ty_feature_kind k, const ty_feature_opts *o) {
  bool ok = ty_render_add_feature(R, F, k, o);
  if (!ok) fprintf(stderr, "  %s: %s\n", ty_feature_name(k), ty_render_error(R));
  return ok;
}

/* ---- reading the compiled graph back ---- */

static char dump[16384];

static void take_dump(void) { ty_render_dump_graph(R, dump, sizeof dump); }

/* The line of pass `name` in the dump, NULL when not declared. */
static const char *pass_line(const char *name) {
  size_t n = strlen(name);
  for (const char *p = dump; (p = strstr(p, name)) != NULL; p += n) {
    bool starts = p >= dump + 5 && p[-1] == ' ' && (p[-5] == '\n' || p - 5 == dump || p[-6] == '\n');
    if (starts && p[n] == ' ') return p;
  }
  return NULL;
}

static bool pass_culled(const char *name) {
  const char *l = pass_line(name);
  if (!l) return false;
  const char *reads = strstr(l, "reads:");
  const char *culled = strstr(l, " culled");
  return culled && reads && culled < reads;
}

/* The pass's position in the executed order, -1 when culled or absent. */
static int pass_order(const char *name) {
  const char *l = pass_line(name);
  if (!l || pass_culled(name)) return -1;
  return atoi(l - 4);
}

/* A side-effect pass that reads r: the frame's consumer, as a screenshot would be. */
typedef struct readback {
  rg_resource r;
  float *pixels; /* RGBA floats, bottom row first, when a device runs the pass */
  uint32_t *uints;
  uint32_t width, height;
} readback;

static void run_readback(const rg_pass_context *ctx, void *user) {
  readback *rb = user;
  ty_gl_texture tex = {rg_context_texture(ctx, rb->r)};
  ty_gl_texture_desc d;
  if (!dev || !ty_gl_texture_query(dev, tex, &d)) return;
  rb->width = d.width, rb->height = d.height;
  size_t n = (size_t)d.width * d.height;
  if (d.format == RG_FORMAT_R32UI) {
    rb->uints = calloc(n, sizeof(uint32_t));
    ty_gl_read_texture(dev, tex, 0, rb->uints, n * sizeof(uint32_t));
  } else {
    size_t comps = ty_gl_format_upload_size(d.format) / sizeof(float);
    float *raw = calloc(n * comps, sizeof(float));
    ty_gl_read_texture(dev, tex, 0, raw, n * comps * sizeof(float));
    rb->pixels = calloc(n * 4, sizeof(float));
    for (size_t i = 0; i < n; i++)
      for (size_t c = 0; c < comps && c < 4; c++) rb->pixels[i * 4 + c] = raw[i * comps + c];
    free(raw);
  }
}

static void add_readback(ty_frame *F, readback *rb, rg_resource r, const char *name) {
  rb->r = r;
  rg_add_pass(F->graph, &(rg_pass_desc){.name = name, .reads = &r, .read_count = 1, .side_effect = true,
                                        .execute = run_readback, .user = rb});
}

static void free_readback(readback *rb) {
  free(rb->pixels);
  free(rb->uints);
  memset(rb, 0, sizeof *rb);
}

/* ---- headless ---- */

static void test_deferred_sequence_declares_in_order(void) {
  build_scene();
  ty_frame *F = begin();
  ty_feature_opts o = {0};
  o.sky.kind = TY_SKY_COLOR;
  CHECK(add(F, TY_FEATURE_SHADOW, &o));
  CHECK(add(F, TY_FEATURE_GEOMETRY, &o));
  CHECK(F->gbuffer_albedo.id && F->gbuffer_normal.id && F->gbuffer_material.id);
  CHECK(add(F, TY_FEATURE_AO, &o));
  CHECK(F->ao.id != 0);
  rg_resource hdr0 = F->hdr;
  CHECK(add(F, TY_FEATURE_DEFERRED_LIGHTING, &o));
  CHECK(add(F, TY_FEATURE_SKY, &o));
  CHECK(add(F, TY_FEATURE_POINT_SPOT_LIGHT, &o));
  CHECK(add(F, TY_FEATURE_FORWARD_OVERLAY, &o));
  CHECK_EQ_INT(F->hdr.id, hdr0.id); /* drawn over in place so far */
  CHECK(add(F, TY_FEATURE_BLOOM, &o));
  CHECK(F->bloom.id != 0);
  const rg_texture_info *bi = rg_resource_info(F->graph, F->bloom);
  CHECK(bi && bi->width == SIZE / 2 && bi->height == SIZE / 2);
  CHECK(add(F, TY_FEATURE_DOF, &o));
  CHECK(F->hdr.id != hdr0.id); /* DoF samples hdr: a fresh version */
  rg_resource hdr_dof = F->hdr;
  CHECK(add(F, TY_FEATURE_TAA, &o));
  CHECK(F->hdr.id != hdr_dof.id);
  CHECK(add(F, TY_FEATURE_TONEMAP, &o));
  CHECK(ty_render_end_frame(R, F));
  take_dump();
  const char *order[] = {"Geometry", "AO", "AO.blur", "DeferredLighting", "PointSpotLight", "ForwardOverlay",
                         "DoF", "TAA"};
  int last = -1;
  for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
    int at = pass_order(order[i]);
    if (at <= last) fprintf(stderr, "  %s at %d, after %d\n%s", order[i], at, last, dump);
    CHECK(at > last);
    last = at;
  }
  CHECK(pass_order("Bloom.prefilter") > pass_order("ForwardOverlay"));
  CHECK(pass_order("Bloom.up") >= 0);
  CHECK(pass_order("Bloom.prefilter") >= 0);
  free_scene();
}

static void test_unused_outputs_are_culled(void) {
  build_scene();
  /* AO with nothing reading "ao": culled, while Geometry, whose gbuffer is read, stays. */
  ty_frame *F = begin();
  ty_feature_opts o = {0};
  CHECK(add(F, TY_FEATURE_GEOMETRY, &o));
  CHECK(add(F, TY_FEATURE_AO, &o));
  readback rb = {0};
  add_readback(F, &rb, F->gbuffer_albedo, "Readback");
  CHECK(ty_render_end_frame(R, F));
  take_dump();
  CHECK(pass_order("Geometry") >= 0);
  CHECK(pass_culled("AO"));
  CHECK(pass_culled("AO.blur"));

  /* Bloom nobody adds in: its whole chain goes; the light grid likewise. */
  F = begin();
  CHECK(add(F, TY_FEATURE_FORWARD_PLUS, &o));
  CHECK(add(F, TY_FEATURE_GEOMETRY, &o));
  CHECK(add(F, TY_FEATURE_DEFERRED_LIGHTING, &o));
  CHECK(add(F, TY_FEATURE_BLOOM, &o));
  add_readback(F, &rb, F->hdr, "Readback");
  CHECK(ty_render_end_frame(R, F));
  take_dump();
  CHECK(pass_culled("Bloom.prefilter"));
  CHECK(pass_culled("Bloom.up"));
  CHECK(pass_culled("LightCulling"));
  CHECK(pass_order("DepthPrepass") >= 0); /* Geometry draws over its depth */
  CHECK(pass_order("DepthPrepass") < pass_order("Geometry"));
  CHECK(pass_order("DeferredLighting") > pass_order("Geometry"));
  free_scene();
}

static void test_forward_plus_declares_a_compute_light_grid(void) {
  build_scene();
  ty_frame *F = begin();
  ty_feature_opts o = {0};
  o.lit.forward_plus = true;
  CHECK(add(F, TY_FEATURE_FORWARD_PLUS, &o));
  CHECK(F->light_grid.id != 0);
  const rg_texture_info *gi = rg_resource_info(F->graph, F->light_grid);
  CHECK(gi != NULL);
  if (gi) {
    CHECK_EQ_INT(gi->format, RG_FORMAT_R32UI);
    CHECK_EQ_INT(gi->width, (SIZE / 16) * 33);
    CHECK_EQ_INT(gi->height, SIZE / 16);
  }
  readback rb = {0};
  add_readback(F, &rb, F->light_grid, "Readback");
  CHECK(ty_render_end_frame(R, F));
  take_dump();
  const char *l = pass_line("LightCulling");
  CHECK(l && strncmp(l + 21, "compute", 7) == 0);
  CHECK(pass_order("DepthPrepass") >= 0 && pass_order("DepthPrepass") < pass_order("LightCulling"));
  free_scene();
}

static void test_missing_inputs_are_errors(void) {
  build_scene();
  ty_frame *F = begin();
  ty_feature_opts o = {0};
  struct { ty_feature_kind k; const char *msg; } cases[] = {
      {TY_FEATURE_DEFERRED_LIGHTING, "DeferredLighting needs gbuffer.albedo: add Geometry before it"},
      {TY_FEATURE_AO, "AO needs depth"},
      {TY_FEATURE_POINT_SPOT_LIGHT, "PointSpotLight needs gbuffer.albedo"},
      {TY_FEATURE_FORWARD_OVERLAY, "ForwardOverlay needs depth"},
      {TY_FEATURE_TAA, "TAA needs hdr"},
      {TY_FEATURE_BLOOM, "Bloom needs hdr"},
      {TY_FEATURE_DOF, "DoF needs hdr"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    CHECK(!ty_render_add_feature(R, F, cases[i].k, &o));
    if (!strstr(ty_render_error(R), cases[i].msg))
      fprintf(stderr, "  %s: got \"%s\"\n", ty_feature_name(cases[i].k), ty_render_error(R));
    CHECK(strstr(ty_render_error(R), cases[i].msg) != NULL);
  }
  /* With a gbuffer but no lighting yet, hdr is still missing for the additive passes. */
  CHECK(add(F, TY_FEATURE_GEOMETRY, &o));
  CHECK(!ty_render_add_feature(R, F, TY_FEATURE_POINT_SPOT_LIGHT, &o));
  CHECK(strstr(ty_render_error(R), "PointSpotLight needs hdr") != NULL);
  CHECK(!ty_render_add_feature(R, F, TY_FEATURE_BLOOM, &o));
  /* Nothing was declared by the refusals: only Geometry's pass exists. */
  CHECK(ty_render_end_frame(R, F));
  take_dump();
  CHECK(strstr(dump, ": 1 passes") != NULL);
  free_scene();
}

/* ---- on a GL context ---- */

static float luma(const float *px) { return 0.2126f * px[0] + 0.7152f * px[1] + 0.0722f * px[2]; }

/* The pixel where world point (x, y, z) lands, in rb's bottom-up RGBA floats. */
static const float *pixel_at(const ty_frame *F, const readback *rb, float x, float y, float z) {
  const float *m = F->view_proj;
  float cx = m[0] * x + m[4] * y + m[8] * z + m[12];
  float cy = m[1] * x + m[5] * y + m[9] * z + m[13];
  float cw = m[3] * x + m[7] * y + m[11] * z + m[15];
  int px = (int)((cx / cw * 0.5f + 0.5f) * (float)rb->width);
  int py = (int)((cy / cw * 0.5f + 0.5f) * (float)rb->height);
  if (px < 0) px = 0;
  if (py < 0) py = 0;
  if (px >= (int)rb->width) px = (int)rb->width - 1;
  if (py >= (int)rb->height) py = (int)rb->height - 1;
  return rb->pixels + ((size_t)py * rb->width + (size_t)px) * 4;
}

static bool all_finite(const readback *rb) {
  if (!rb->pixels) return false;
  for (size_t i = 0; i < (size_t)rb->width * rb->height * 4; i++)
    if (!isfinite(rb->pixels[i])) return false;
  return true;
}

/* On a failed check, the hdr image (clamped, top row first) goes next to the test for a look. */
static void write_png(const readback *rb, const char *path) {
  if (!rb->pixels) return;
  uint8_t *px = malloc((size_t)rb->width * rb->height * 4);
  for (uint32_t y = 0; y < rb->height; y++)
    for (uint32_t x = 0; x < rb->width; x++)
      for (int c = 0; c < 4; c++) {
        float v = c == 3 ? 1.0f : rb->pixels[(((size_t)(rb->height - 1 - y)) * rb->width + x) * 4 + c];
        v = v / (1.0f + v); /* Reinhard, enough to see shapes */
        px[((size_t)y * rb->width + x) * 4 + c] = (uint8_t)(fminf(fmaxf(c == 3 ? 1.0f : v, 0.0f), 1.0f) * 255.0f);
      }
  ty_image_write_png(path, (int)rb->width, (int)rb->height, px);
  fprintf(stderr, "  wrote %s\n", path);
  free(px);
}

static void attach(void) {
  build_scene();
  ty_render_attach(R, dev);
}

static void detach(void) {
  ty_render_attach(R, NULL);
  free_scene();
}

static void test_deferred_renders_sun_shadow_and_point_light(void) {
  attach();
  ty_feature_opts o = {0};
  o.sky.kind = TY_SKY_COLOR;
  o.ao.radius = 0.5f;
  readback rb = {0};
  ty_frame *F = NULL;
  for (int frame = 0; frame < 2; frame++) { /* the second frame runs with warm caches */
    free_readback(&rb);
    F = begin();
    CHECK(add(F, TY_FEATURE_SHADOW, &o));
    CHECK(add(F, TY_FEATURE_GEOMETRY, &o));
    CHECK(add(F, TY_FEATURE_AO, &o));
    CHECK(add(F, TY_FEATURE_DEFERRED_LIGHTING, &o));
    CHECK(add(F, TY_FEATURE_SKY, &o));
    CHECK(add(F, TY_FEATURE_POINT_SPOT_LIGHT, &o));
    CHECK(add(F, TY_FEATURE_FORWARD_OVERLAY, &o));
    add_readback(F, &rb, F->hdr, "Readback");
    CHECK(add(F, TY_FEATURE_TONEMAP, &o));
    CHECK(ty_render_end_frame(R, F));
  }
  CHECK_EQ_INT(glGetError(), GL_NO_ERROR);
  CHECK(all_finite(&rb));
  if (rb.pixels) {
    const float *lit = pixel_at(F, &rb, -2.0f, 0, -1.0f);
    const float *shadowed = pixel_at(F, &rb, 1.3f, 0, 0);
    const float *near_point = pixel_at(F, &rb, -2.5f, 0, 2.0f);
    const float *far_point = pixel_at(F, &rb, 2.5f, 0, 2.0f);
    const float *top = pixel_at(F, &rb, -0.5f, 1.9f, 0.3f); /* faces the sun */
    printf("     deferred: lit %.3f shadowed %.3f, red near the point light %.3f vs %.3f, sphere top %.3f\n",
           luma(lit), luma(shadowed), near_point[0], far_point[0], luma(top));
    CHECK(luma(lit) > 0.1f);
    CHECK(luma(shadowed) < 0.5f * luma(lit));
    CHECK(near_point[0] > far_point[0] + 0.2f);
    CHECK(near_point[0] > near_point[1] + 0.2f); /* the point light is red */
    CHECK(luma(top) > 0.1f);
    if (check_failures_now) write_png(&rb, "render_features_deferred.png");
  }
  free_readback(&rb);
  detach();
}

static void test_forward_plus_grid_and_image(void) {
  attach();
  ty_feature_opts o = {0};
  o.sky.kind = TY_SKY_COLOR;
  o.lit.forward_plus = true;
  readback img = {0}, grid = {0};
  ty_frame *F = begin();
  CHECK(add(F, TY_FEATURE_SHADOW, &o));
  CHECK(add(F, TY_FEATURE_FORWARD_PLUS, &o));
  add_readback(F, &grid, F->light_grid, "ReadGrid");
  CHECK(add(F, TY_FEATURE_SKY, &o));
  CHECK(add(F, TY_FEATURE_FORWARD_LIT, &o));
  add_readback(F, &img, F->hdr, "Readback");
  CHECK(add(F, TY_FEATURE_TONEMAP, &o));
  CHECK(ty_render_end_frame(R, F));
  CHECK_EQ_INT(glGetError(), GL_NO_ERROR);
  CHECK(grid.uints != NULL);
  if (grid.uints) {
    CHECK_EQ_INT(grid.width, (SIZE / 16) * 33);
    /* The tile under the point light lists it (index 0, the only point light); the
     * right-hand column, well away from its range, lists nothing. */
    const float *m = F->view_proj;
    float x = -2.5f, y = 0.0f, z = 2.0f;
    float cx = m[0] * x + m[4] * y + m[8] * z + m[12], cy = m[1] * x + m[5] * y + m[9] * z + m[13];
    float cw = m[3] * x + m[7] * y + m[11] * z + m[15];
    int tx = (int)((cx / cw * 0.5f + 0.5f) * SIZE) / 16, ty = (int)((cy / cw * 0.5f + 0.5f) * SIZE) / 16;
    CHECK(tx >= 0 && tx < SIZE / 16 && ty >= 0 && ty < SIZE / 16);
    if (tx >= 0 && tx < SIZE / 16 && ty >= 0 && ty < SIZE / 16) {
      const uint32_t *row = grid.uints + (size_t)ty * grid.width;
      CHECK_EQ_INT(row[tx * 33], 1);
      CHECK_EQ_INT(row[tx * 33 + 1], 0);
    }
    for (int r = 0; r < SIZE / 16; r++) CHECK_EQ_INT(grid.uints[(size_t)r * grid.width + (SIZE / 16 - 1) * 33], 0);
  }
  CHECK(all_finite(&img));
  if (img.pixels) {
    const float *near_point = pixel_at(F, &img, -2.5f, 0, 2.0f), *far_point = pixel_at(F, &img, 2.5f, 0, 2.0f);
    const float *lit = pixel_at(F, &img, -2.0f, 0, -1.0f), *shadowed = pixel_at(F, &img, 1.3f, 0, 0);
    printf("     forward+: lit %.3f shadowed %.3f, red near the point light %.3f vs %.3f\n", luma(lit),
           luma(shadowed), near_point[0], far_point[0]);
    CHECK(near_point[0] > far_point[0] + 0.2f);
    CHECK(luma(shadowed) < 0.5f * luma(lit));
    if (check_failures_now) write_png(&img, "render_features_forward_plus.png");
  }
  free_readback(&img);
  free_readback(&grid);
  detach();
}

static void test_post_features_run_clean(void) {
  attach();
  ty_feature_opts o = {0};
  o.sky.kind = TY_SKY_COLOR;
  o.bloom.threshold = 0.5f;
  o.dof.focus = 8.0f, o.dof.range = 2.0f;
  readback before = {0}, after = {0}, bloom = {0};
  for (int frame = 0; frame < 3; frame++) { /* TAA needs a history: frames 2 and 3 blend */
    free_readback(&before), free_readback(&after), free_readback(&bloom);
    ty_frame *F = begin();
    CHECK(add(F, TY_FEATURE_SHADOW, &o));
    CHECK(add(F, TY_FEATURE_GEOMETRY, &o));
    CHECK(add(F, TY_FEATURE_DEFERRED_LIGHTING, &o));
    CHECK(add(F, TY_FEATURE_SKY, &o));
    CHECK(add(F, TY_FEATURE_POINT_SPOT_LIGHT, &o));
    add_readback(F, &before, F->hdr, "ReadBefore");
    CHECK(add(F, TY_FEATURE_BLOOM, &o));
    add_readback(F, &bloom, F->bloom, "ReadBloom");
    CHECK(add(F, TY_FEATURE_DOF, &o));
    CHECK(add(F, TY_FEATURE_TAA, &o));
    add_readback(F, &after, F->hdr, "ReadAfter");
    CHECK(add(F, TY_FEATURE_TONEMAP, &o));
    CHECK(ty_render_end_frame(R, F));
    CHECK_EQ_INT(glGetError(), GL_NO_ERROR);
  }
  CHECK(all_finite(&before) && all_finite(&after) && all_finite(&bloom));
  if (before.pixels && after.pixels && bloom.pixels) {
    double sum_before = 0, sum_after = 0, sum_bloom = 0, diff = 0;
    size_t n = (size_t)SIZE * SIZE;
    for (size_t i = 0; i < n; i++) {
      sum_before += luma(before.pixels + i * 4);
      sum_after += luma(after.pixels + i * 4);
      diff += fabs(luma(before.pixels + i * 4) - luma(after.pixels + i * 4));
    }
    for (size_t i = 0; i < (size_t)bloom.width * bloom.height; i++) sum_bloom += luma(bloom.pixels + i * 4);
    printf("     post: mean luma %.3f before, %.3f after DoF+TAA (mean change %.4f), bloom %.4f\n", sum_before / (double)n,
           sum_after / (double)n, diff / (double)n, sum_bloom / (double)(bloom.width * bloom.height));
    CHECK_EQ_INT(bloom.width, SIZE / 2);
    CHECK(sum_bloom > 0.0);                      /* the sunlit plane is over the threshold */
    CHECK(diff / (double)n > 1e-4);              /* blur and reprojection changed the image */
    CHECK(fabs(sum_after - sum_before) / sum_before < 0.25); /* ...without losing its energy */
  }
  free_readback(&before), free_readback(&after), free_readback(&bloom);
  detach();
}

int main(void) {
  /* The shader folder of this source tree: tests/c/ -> shaders/. */
  snprintf(shader_dir, sizeof shader_dir, "%s", __FILE__);
  char *cut = strstr(shader_dir, "tests/c/render_features_test.c");
  if (cut) strcpy(cut, "shaders");
  else snprintf(shader_dir, sizeof shader_dir, "shaders");

  RUN(test_deferred_sequence_declares_in_order);
  RUN(test_unused_outputs_are_culled);
  RUN(test_forward_plus_declares_a_compute_light_grid);
  RUN(test_missing_inputs_are_errors);

  if (!getenv("DISPLAY") && !getenv("WAYLAND_DISPLAY")) setenv("SDL_VIDEODRIVER", "offscreen", 1);
  win = ty_window_create(&(ty_window_desc){.title = "render_features_test", .width = SIZE, .height = SIZE,
                                           .hidden = true, .fixed_size = true, .gl_debug = true});
  ty_platform_pin_libraries(); /* the GL driver stays mapped for LeakSanitizer */
  if (win) dev = ty_gl_create(&(ty_gl_device_desc){0});
  if (!win || !dev) {
    fprintf(stderr, "FAIL: no OpenGL 4.5 core context (SDL_VIDEODRIVER=offscreen needs Mesa's EGL and DRI drivers)\n");
    ty_window_destroy(win);
    check_failed++;
    return check_summary();
  }
  RUN(test_deferred_renders_sun_shadow_and_point_light);
  RUN(test_forward_plus_grid_and_image);
  RUN(test_post_features_run_clean);
  ty_gl_destroy(dev);
  ty_window_destroy(win);
  return check_summary();
}
