/* tests/c/gl_device_test.c: the window (its text input too), the GL 4.5 device and screenshots on a real
 * context. With no display it runs through SDL's offscreen driver (Mesa llvmpipe in CI,
 * NVIDIA's EGL on a GPU machine). No context is a failure, never a skip: this test is
 * what says the renderer can run here at all. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <SDL.h> /* Required for: pushing a text event through the window's queue */
#include <epoxy/gl.h>

#include "check.h"
#include "platform/platform.h"
#include "render/gl_device.h"
#include "render/graph.h"

static ty_window *win;
static ty_gl_device *dev;

#define CHECK_STATUS(call, expected)                                                          \
  do {                                                                                        \
    ty_gl_status check_s_ = (call);                                                           \
    if (check_s_ != (expected)) {                                                             \
      fprintf(stderr, "  %s:%d: %s gave %s, not %s (%s)\n", __FILE__, __LINE__, #call,        \
              ty_gl_status_name(check_s_), ty_gl_status_name(expected), ty_gl_error(dev));    \
      check_failures_now++;                                                                   \
    }                                                                                         \
  } while (0)

#define CHECK_NO_GL_ERROR() CHECK_EQ_INT(glGetError(), GL_NO_ERROR)

static bool contains(const char *haystack, const char *needle) { return strstr(haystack, needle) != NULL; }

/* ---- fixtures ---- */

static const char *const fullscreen_vs =
    "#version 450 core\n"
    "void main() {\n"
    "  vec2 p = vec2((gl_VertexID << 1) & 2, gl_VertexID & 2);\n"
    "  gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);\n"
    "}\n";

/* The colour comes from a uniform block, so the ring and buffer binding are exercised. */
static const char *const color_fs =
    "#version 450 core\n"
    "layout(std140, binding = 0) uniform Params { vec4 color; };\n"
    "layout(location = 0) out vec4 frag;\n"
    "void main() { frag = color; }\n";

/* A target: an RGBA8 colour texture and a framebuffer drawing into it. */
typedef struct target {
  ty_gl_texture color, depth;
  ty_gl_framebuffer fb;
} target;

static target make_target(uint32_t w, uint32_t h, bool depth) {
  target t = {0};
  t.color = ty_gl_make_texture(dev, &(ty_gl_texture_desc){.width = w, .height = h, .format = RG_FORMAT_RGBA8});
  ty_gl_framebuffer_desc fd = {.colors = {{.texture = t.color}}};
  if (depth) {
    t.depth = ty_gl_make_texture(dev, &(ty_gl_texture_desc){.width = w, .height = h, .format = RG_FORMAT_DEPTH24S8});
    fd.depth_stencil.texture = t.depth;
  }
  t.fb = ty_gl_make_framebuffer(dev, &fd);
  return t;
}

static void free_target(target *t) {
  ty_gl_destroy_framebuffer(dev, t->fb);
  ty_gl_destroy_texture(dev, t->color);
  if (t->depth.id) ty_gl_destroy_texture(dev, t->depth);
}

/* Every pixel of an w x h RGBA8 read equals rgba. */
static bool all_pixels(const uint8_t *px, int n, const uint8_t rgba[4]) {
  for (int i = 0; i < n; i++)
    if (memcmp(px + i * 4, rgba, 4) != 0) {
      fprintf(stderr, "  pixel %d is %d %d %d %d, not %d %d %d %d\n", i, px[i * 4], px[i * 4 + 1], px[i * 4 + 2],
              px[i * 4 + 3], rgba[0], rgba[1], rgba[2], rgba[3]);
      return false;
    }
  return true;
}

/* ---- context ---- */

static void test_context_is_gl45_core(void) {
  CHECK(win != NULL);
  if (!win) return;
  GLint major = 0, minor = 0, profile = 0;
  glGetIntegerv(GL_MAJOR_VERSION, &major);
  glGetIntegerv(GL_MINOR_VERSION, &minor);
  glGetIntegerv(GL_CONTEXT_PROFILE_MASK, &profile);
  printf("     GL_VERSION %s, GL_RENDERER %s, SDL video driver %s\n", (const char *)glGetString(GL_VERSION),
         (const char *)glGetString(GL_RENDERER), ty_platform_video_driver());
  CHECK(major * 10 + minor >= 45);
  CHECK(profile & GL_CONTEXT_CORE_PROFILE_BIT);
  int w = 0, h = 0;
  ty_window_drawable_size(win, &w, &h);
  CHECK_EQ_INT(w, 64);
  CHECK_EQ_INT(h, 64);
  CHECK(ty_platform_has_gl());
  CHECK(dev != NULL);
  /* No events offscreen; polling must still be safe with and without a snapshot. */
  ty_input in;
  ty_input_init(&in);
  ty_window_attach_input(win, &in);
  ty_window_poll(win, &in);
  ty_window_poll(win, NULL);
  CHECK(!ty_window_close_requested(win));
  ty_input_set_pointer_lock(&in, false); /* answered by the driver; must not crash */
  CHECK_NO_GL_ERROR();
}

/* SDL's text input follows the snapshot, and SDL_TEXTINPUT reaches it only while on. */
static void test_window_text_input(void) {
  CHECK(!SDL_IsTextInputActive()); /* SDL2 starts it on; the window turns it off */
  ty_input in;
  ty_input_init(&in);
  ty_window_attach_input(win, &in);
  SDL_Event e = {.text = {.type = SDL_TEXTINPUT}};
  strcpy(e.text.text, "h\xc3\xa9");
  ty_input_start_text(&in, &(ty_input_rect){10, 20, 100, 24});
  CHECK(SDL_IsTextInputActive());
  CHECK(ty_input_text_active(&in));
  CHECK_EQ_INT(SDL_PushEvent(&e), 1);
  strcpy(e.text.text, "!");
  CHECK_EQ_INT(SDL_PushEvent(&e), 1);
  ty_window_poll(win, &in);
  CHECK(strcmp(in.text, "h\xc3\xa9!") == 0);
  CHECK_EQ_INT(in.text_len, 4);
  ty_input_stop_text(&in);
  CHECK(!SDL_IsTextInputActive());
  ty_input_begin_frame(&in);
  SDL_PushEvent(&e); /* SDL may drop it already; the snapshot must */
  ty_window_poll(win, &in);
  CHECK_EQ_INT(in.text_len, 0);
  /* A snapshot that asked for text before the window came gets it on attach. */
  ty_input early;
  ty_input_init(&early);
  ty_input_start_text(&early, NULL);
  ty_window_attach_input(win, &early);
  CHECK(SDL_IsTextInputActive());
  ty_input_stop_text(&early);
  CHECK(!SDL_IsTextInputActive());
}

/* ---- buffers ---- */

static void test_buffer_create_update_read(void) {
  uint32_t data[64], back[64];
  for (int i = 0; i < 64; i++) data[i] = (uint32_t)i * 2654435761u;
  ty_gl_buffer fixed = ty_gl_make_buffer(dev, &(ty_gl_buffer_desc){.size = sizeof data, .data = data, .label = "fixed"});
  CHECK(fixed.id != 0);
  CHECK_STATUS(ty_gl_read_buffer(dev, fixed, 0, back, sizeof back), TY_GL_OK);
  CHECK(memcmp(data, back, sizeof data) == 0);
  /* Immutable storage without the dynamic flag refuses writes. */
  CHECK_STATUS(ty_gl_update_buffer(dev, fixed, 0, data, 4), TY_GL_ERROR_INVALID);

  ty_gl_buffer dyn = ty_gl_make_buffer(dev, &(ty_gl_buffer_desc){.size = sizeof data, .flags = TY_GL_BUFFER_DYNAMIC});
  CHECK(dyn.id != 0);
  CHECK_STATUS(ty_gl_update_buffer(dev, dyn, 16, data, 32), TY_GL_OK);
  CHECK_STATUS(ty_gl_read_buffer(dev, dyn, 16, back, 32), TY_GL_OK);
  CHECK(memcmp(data, back, 32) == 0);
  CHECK_STATUS(ty_gl_update_buffer(dev, dyn, sizeof data - 4, data, 8), TY_GL_ERROR_INVALID);
  CHECK(contains(ty_gl_error(dev), "run past"));
  CHECK_STATUS(ty_gl_read_buffer(dev, dyn, 0, back, sizeof data + 1), TY_GL_ERROR_INVALID);

  CHECK_EQ_INT(ty_gl_make_buffer(dev, &(ty_gl_buffer_desc){.size = 0}).id, 0);
  CHECK_EQ_INT(ty_gl_status_of(dev), TY_GL_ERROR_INVALID);
  CHECK_STATUS(ty_gl_destroy_buffer(dev, fixed), TY_GL_OK);
  CHECK_STATUS(ty_gl_destroy_buffer(dev, dyn), TY_GL_OK);
  CHECK_NO_GL_ERROR();
}

static void test_ring_buffer(void) {
  ty_gl_buffer ring = ty_gl_make_buffer(dev, &(ty_gl_buffer_desc){.size = 1000, .ring_frames = 3, .label = "instances"});
  CHECK(ring.id != 0);
  size_t off[3];
  uint8_t *a = ty_gl_ring_alloc(dev, ring, 100, 0, &off[0]);
  uint8_t *b = ty_gl_ring_alloc(dev, ring, 100, 16, &off[1]);
  CHECK(a && b);
  if (!a || !b) return;
  CHECK_EQ_INT(off[0], 0);
  CHECK_EQ_INT(off[1], 112); /* 100 rounded up to 16 */
  CHECK_EQ_INT(b - a, 112);
  memset(a, 0xAB, 100);
  /* 1000 bytes per frame (1024 once aligned for binding offsets): 900 more do not fit after 212. */
  CHECK(ty_gl_ring_alloc(dev, ring, 900, 16, NULL) == NULL);
  CHECK_EQ_INT(ty_gl_status_of(dev), TY_GL_ERROR_RING_FULL);
  CHECK(ty_gl_ring_alloc(dev, ring, 100, 3, NULL) == NULL);
  CHECK_EQ_INT(ty_gl_status_of(dev), TY_GL_ERROR_INVALID);
  /* The next frame writes to another region; after all three, the first comes back. */
  CHECK_STATUS(ty_gl_ring_next_frame(dev, ring), TY_GL_OK);
  uint8_t *c = ty_gl_ring_alloc(dev, ring, 100, 0, &off[2]);
  CHECK(c != NULL && off[2] >= 1000);
  CHECK_STATUS(ty_gl_ring_next_frame(dev, ring), TY_GL_OK);
  CHECK_STATUS(ty_gl_ring_next_frame(dev, ring), TY_GL_OK);
  size_t again;
  CHECK(ty_gl_ring_alloc(dev, ring, 100, 0, &again) == a);
  CHECK_EQ_INT(again, 0);
  /* The mapping is coherent: what was written is what GL reads. */
  uint8_t back[100];
  CHECK_STATUS(ty_gl_read_buffer(dev, ring, 0, back, sizeof back), TY_GL_OK);
  CHECK(back[0] == 0xAB && back[99] == 0xAB);
  /* A plain buffer is not a ring. */
  ty_gl_buffer plain = ty_gl_make_buffer(dev, &(ty_gl_buffer_desc){.size = 64});
  CHECK(ty_gl_ring_alloc(dev, plain, 4, 0, NULL) == NULL);
  CHECK_EQ_INT(ty_gl_status_of(dev), TY_GL_ERROR_INVALID);
  CHECK_EQ_INT(ty_gl_make_buffer(dev, &(ty_gl_buffer_desc){.size = 64, .ring_frames = 9}).id, 0);
  ty_gl_destroy_buffer(dev, plain);
  CHECK_STATUS(ty_gl_destroy_buffer(dev, ring), TY_GL_OK);
  CHECK_NO_GL_ERROR();
}

/* ---- textures ---- */

static void test_texture_upload_and_read(void) {
  uint8_t px[4 * 4 * 4], back[sizeof px];
  for (size_t i = 0; i < sizeof px; i++) px[i] = (uint8_t)(i * 7);
  ty_gl_texture t = ty_gl_make_texture(dev, &(ty_gl_texture_desc){.width = 4, .height = 4, .data = px, .label = "t"});
  CHECK(t.id != 0);
  CHECK_STATUS(ty_gl_read_texture(dev, t, 0, back, sizeof back), TY_GL_OK);
  CHECK(memcmp(px, back, sizeof px) == 0);
  CHECK_STATUS(ty_gl_read_texture(dev, t, 0, back, 10), TY_GL_ERROR_INVALID);
  /* A sub-rectangle update. */
  uint8_t red[2 * 2 * 4];
  for (int i = 0; i < 4; i++) memcpy(red + i * 4, (uint8_t[]){255, 0, 0, 255}, 4);
  CHECK_STATUS(ty_gl_update_texture(dev, t, &(ty_gl_texture_region){.x = 2, .y = 2, .width = 2, .height = 2}, red), TY_GL_OK);
  ty_gl_read_texture(dev, t, 0, back, sizeof back);
  CHECK(back[(3 * 4 + 3) * 4] == 255 && back[(3 * 4 + 3) * 4 + 1] == 0);
  CHECK(back[0] == px[0]);
  CHECK_STATUS(ty_gl_update_texture(dev, t, &(ty_gl_texture_region){.x = 3, .width = 2, .height = 1}, red),
               TY_GL_ERROR_INVALID);
  ty_gl_texture_desc q;
  CHECK(ty_gl_texture_query(dev, t, &q));
  CHECK_EQ_INT(q.format, RG_FORMAT_RGBA8); /* the default, resolved */
  CHECK_EQ_INT(q.mip_levels, 1);
  ty_gl_destroy_texture(dev, t);

  /* Float formats take 32-bit floats, whatever their storage. */
  float f[2 * 2] = {0.25f, -1.5f, 3.0f, 1e6f}, fb[4];
  ty_gl_texture r32 = ty_gl_make_texture(dev, &(ty_gl_texture_desc){.width = 2, .height = 2, .format = RG_FORMAT_R32F, .data = f});
  CHECK_STATUS(ty_gl_read_texture(dev, r32, 0, fb, sizeof fb), TY_GL_OK);
  CHECK(memcmp(f, fb, sizeof f) == 0);
  ty_gl_destroy_texture(dev, r32);

  /* A full mip chain, an array and a cube map. */
  ty_gl_texture mips = ty_gl_make_texture(dev, &(ty_gl_texture_desc){.width = 16, .height = 8, .mip_levels = TY_GL_MIPS_FULL});
  CHECK(ty_gl_texture_query(dev, mips, &q));
  CHECK_EQ_INT(q.mip_levels, 5);
  CHECK_STATUS(ty_gl_generate_mips(dev, mips), TY_GL_OK);
  ty_gl_texture arr = ty_gl_make_texture(dev, &(ty_gl_texture_desc){.width = 8, .height = 8, .layers = 4, .format = RG_FORMAT_RG16F});
  ty_gl_texture cube = ty_gl_make_texture(dev, &(ty_gl_texture_desc){.type = TY_GL_TEXTURE_CUBE, .width = 8, .height = 8});
  ty_gl_texture ms = ty_gl_make_texture(dev, &(ty_gl_texture_desc){.width = 8, .height = 8, .samples = 4});
  CHECK(arr.id && cube.id && ms.id);
  CHECK(ty_gl_texture_query(dev, cube, &q) && q.layers == 6);
  for (int i = 0; i < RG_FORMAT_COUNT; i++) {
    ty_gl_texture any = ty_gl_make_texture(dev, &(ty_gl_texture_desc){.width = 4, .height = 4, .format = (rg_format)i});
    if (!any.id) fprintf(stderr, "  format %s: %s\n", rg_format_name((rg_format)i), ty_gl_error(dev));
    CHECK(any.id != 0);
    ty_gl_destroy_texture(dev, any);
  }
  ty_gl_destroy_texture(dev, mips);
  ty_gl_destroy_texture(dev, arr);
  ty_gl_destroy_texture(dev, cube);
  ty_gl_destroy_texture(dev, ms);

  /* Refused descriptors. */
  CHECK_EQ_INT(ty_gl_make_texture(dev, &(ty_gl_texture_desc){.width = 0, .height = 4}).id, 0);
  CHECK_EQ_INT(ty_gl_status_of(dev), TY_GL_ERROR_INVALID);
  CHECK_EQ_INT(ty_gl_make_texture(dev, &(ty_gl_texture_desc){.width = 4, .height = 4, .format = RG_FORMAT_COUNT}).id, 0);
  CHECK_EQ_INT(ty_gl_make_texture(dev, &(ty_gl_texture_desc){.width = 1u << 20, .height = 4}).id, 0);
  CHECK_EQ_INT(ty_gl_make_texture(dev, &(ty_gl_texture_desc){.type = TY_GL_TEXTURE_CUBE, .width = 8, .height = 4}).id, 0);
  CHECK_EQ_INT(ty_gl_make_texture(dev, &(ty_gl_texture_desc){.width = 8, .height = 8, .samples = 4, .mip_levels = 2}).id, 0);
  CHECK_NO_GL_ERROR();
}

static void test_sampler(void) {
  ty_gl_sampler s = ty_gl_make_sampler(dev, &(ty_gl_sampler_desc){.min_filter = TY_GL_FILTER_NEAREST,
                                                                 .mip_filter = TY_GL_MIP_LINEAR,
                                                                 .wrap_u = TY_GL_WRAP_CLAMP,
                                                                 .compare = TY_GL_COMPARE_LEQUAL,
                                                                 .max_anisotropy = 8});
  CHECK(s.id != 0);
  CHECK(ty_gl_sampler_name(dev, s) != 0);
  CHECK_EQ_INT(ty_gl_make_sampler(dev, &(ty_gl_sampler_desc){.wrap_v = (ty_gl_wrap)42}).id, 0);
  CHECK_STATUS(ty_gl_destroy_sampler(dev, s), TY_GL_OK);
  CHECK_NO_GL_ERROR();
}

/* ---- framebuffers ---- */

static void test_clear_and_read_back_exact_pixels(void) {
  target t = make_target(8, 8, true);
  CHECK(t.color.id && t.depth.id && t.fb.id);
  uint32_t w = 0, h = 0;
  CHECK(ty_gl_framebuffer_size(dev, t.fb, &w, &h) && w == 8 && h == 8);
  const float c[4] = {51 / 255.0f, 102 / 255.0f, 153 / 255.0f, 1.0f};
  CHECK_STATUS(ty_gl_clear_color(dev, t.fb, 0, c), TY_GL_OK);
  CHECK_STATUS(ty_gl_clear_depth_stencil(dev, t.fb, 1.0f, 0), TY_GL_OK);
  uint8_t px[8 * 8 * 4];
  memset(px, 0, sizeof px);
  CHECK_STATUS(ty_gl_read_pixels(dev, t.fb, 0, 0, 0, 8, 8, px), TY_GL_OK);
  CHECK(all_pixels(px, 64, (const uint8_t[]){51, 102, 153, 255}));
  /* The texture holds the same bytes. */
  uint8_t tex[sizeof px];
  ty_gl_read_texture(dev, t.color, 0, tex, sizeof tex);
  CHECK(memcmp(px, tex, sizeof px) == 0);
  CHECK_STATUS(ty_gl_read_pixels(dev, t.fb, 0, 4, 4, 8, 8, px), TY_GL_ERROR_INVALID);
  CHECK_STATUS(ty_gl_read_pixels(dev, t.fb, 1, 0, 0, 1, 1, px), TY_GL_ERROR_INVALID);
  CHECK_STATUS(ty_gl_clear_color(dev, t.fb, 3, c), TY_GL_ERROR_INVALID);

  /* Attachments must agree in size and kind. */
  ty_gl_texture small = ty_gl_make_texture(dev, &(ty_gl_texture_desc){.width = 4, .height = 4});
  ty_gl_framebuffer bad = ty_gl_make_framebuffer(dev, &(ty_gl_framebuffer_desc){.colors = {{.texture = t.color}, {.texture = small}}});
  CHECK_EQ_INT(bad.id, 0);
  CHECK(contains(ty_gl_error(dev), "4x4"));
  bad = ty_gl_make_framebuffer(dev, &(ty_gl_framebuffer_desc){.colors = {{.texture = t.depth}}});
  CHECK_EQ_INT(bad.id, 0);
  CHECK(contains(ty_gl_error(dev), "depth"));
  CHECK_EQ_INT(ty_gl_make_framebuffer(dev, &(ty_gl_framebuffer_desc){0}).id, 0);
  CHECK_EQ_INT(ty_gl_get_stats(dev).framebuffers, 1);

  /* Depth only (a shadow map) and a layer of an array. */
  ty_gl_texture shadow = ty_gl_make_texture(dev, &(ty_gl_texture_desc){.width = 16, .height = 16, .format = RG_FORMAT_DEPTH32F});
  ty_gl_framebuffer sfb = ty_gl_make_framebuffer(dev, &(ty_gl_framebuffer_desc){.depth_stencil = {.texture = shadow}});
  CHECK(sfb.id != 0);
  CHECK_STATUS(ty_gl_clear_depth_stencil(dev, sfb, 0.5f, 0), TY_GL_OK);
  float depth[16 * 16];
  CHECK_STATUS(ty_gl_read_texture(dev, shadow, 0, depth, sizeof depth), TY_GL_OK);
  CHECK(depth[0] == 0.5f && depth[255] == 0.5f);
  ty_gl_texture arr = ty_gl_make_texture(dev, &(ty_gl_texture_desc){.width = 4, .height = 4, .layers = 3});
  ty_gl_framebuffer afb = ty_gl_make_framebuffer(dev, &(ty_gl_framebuffer_desc){.colors = {{.texture = arr, .layer = 2}}});
  CHECK(afb.id != 0);
  CHECK_EQ_INT(ty_gl_make_framebuffer(dev, &(ty_gl_framebuffer_desc){.colors = {{.texture = arr, .layer = 3}}}).id, 0);
  ty_gl_destroy_framebuffer(dev, afb);
  ty_gl_destroy_framebuffer(dev, sfb);
  ty_gl_destroy_texture(dev, arr);
  ty_gl_destroy_texture(dev, shadow);
  ty_gl_destroy_texture(dev, small);
  free_target(&t);
  CHECK_NO_GL_ERROR();
}

/* ---- programs and drawing ---- */

static void draw_color(ty_gl_program prog, ty_gl_buffer ring, const float color[4]) {
  size_t off = 0;
  float *p = ty_gl_ring_alloc(dev, ring, 16, 0, &off);
  CHECK(p != NULL);
  if (!p) return;
  memcpy(p, color, 16);
  CHECK_STATUS(ty_gl_use_program(dev, prog), TY_GL_OK);
  CHECK_STATUS(ty_gl_bind_buffer(dev, TY_GL_TARGET_UNIFORM, 0, ring, off, 16), TY_GL_OK);
  CHECK_STATUS(ty_gl_bind_vertex_array(dev, (ty_gl_vertex_array){0}), TY_GL_OK);
  ty_gl_draw(dev, TY_GL_TRIANGLES, 0, 3, 1);
}

static void test_fullscreen_triangle_draws_a_known_color(void) {
  ty_gl_program prog = ty_gl_make_program(dev, &(ty_gl_program_desc){.vertex = {fullscreen_vs, "fullscreen.vert"},
                                                                    .fragment = {color_fs, "color.frag"},
                                                                    .label = "color"});
  CHECK(prog.id != 0);
  if (!prog.id) return;
  CHECK(ty_gl_program_name(dev, prog) != 0);
  CHECK(ty_gl_uniform_location(dev, prog, "no_such_uniform") == -1);
  ty_gl_buffer ring = ty_gl_make_buffer(dev, &(ty_gl_buffer_desc){.size = 4096, .ring_frames = 2});
  target t = make_target(16, 16, false);
  CHECK_STATUS(ty_gl_bind_framebuffer(dev, t.fb), TY_GL_OK);
  ty_gl_clear_color(dev, t.fb, 0, (const float[]){0, 0, 0, 1});
  draw_color(prog, ring, (const float[]){1.0f, 0.0f, 1.0f, 1.0f});
  uint8_t px[16 * 16 * 4];
  CHECK_STATUS(ty_gl_read_pixels(dev, t.fb, 0, 0, 0, 16, 16, px), TY_GL_OK);
  CHECK(all_pixels(px, 256, (const uint8_t[]){255, 0, 255, 255}));
  /* A second frame, a second region of the ring, a second colour. */
  CHECK_STATUS(ty_gl_ring_next_frame(dev, ring), TY_GL_OK);
  draw_color(prog, ring, (const float[]){0.0f, 1.0f, 0.0f, 1.0f});
  ty_gl_read_pixels(dev, t.fb, 0, 0, 0, 16, 16, px);
  CHECK(all_pixels(px, 256, (const uint8_t[]){0, 255, 0, 255}));
  CHECK_STATUS(ty_gl_bind_framebuffer(dev, (ty_gl_framebuffer){0}), TY_GL_OK);
  free_target(&t);
  ty_gl_destroy_buffer(dev, ring);
  ty_gl_destroy_program(dev, prog);
  CHECK_NO_GL_ERROR();
}

static void test_vertex_array_and_indexed_draw(void) {
  /* Two triangles covering the target, through a vertex buffer and an index buffer. */
  const float verts[] = {-1, -1, 1, -1, 1, 1, -1, 1};
  const uint32_t idx[] = {0, 1, 2, 0, 2, 3};
  ty_gl_buffer vb = ty_gl_make_buffer(dev, &(ty_gl_buffer_desc){.size = sizeof verts, .data = verts});
  ty_gl_buffer ib = ty_gl_make_buffer(dev, &(ty_gl_buffer_desc){.size = sizeof idx, .data = idx});
  ty_gl_vertex_array va = ty_gl_make_vertex_array(dev, &(ty_gl_vertex_array_desc){
                                                           .attrs = {{.format = TY_GL_VERTEX_FLOAT2}},
                                                           .bindings = {{.buffer = vb}},
                                                           .index_buffer = ib,
                                                       });
  CHECK(va.id != 0);
  ty_gl_program prog = ty_gl_make_program(
      dev, &(ty_gl_program_desc){
               .vertex = {"layout(location = 0) in vec2 pos;\nvoid main() { gl_Position = vec4(pos, 0.0, 1.0); }\n", "quad.vert"},
               .fragment = {"layout(location = 0) out vec4 o;\nvoid main() { o = vec4(0.0, 0.0, 1.0, 1.0); }\n", "blue.frag"}});
  CHECK(prog.id != 0); /* no #version: one is supplied */
  target t = make_target(8, 8, false);
  ty_gl_bind_framebuffer(dev, t.fb);
  ty_gl_clear_color(dev, t.fb, 0, (const float[]){0, 0, 0, 0});
  CHECK_STATUS(ty_gl_use_program(dev, prog), TY_GL_OK);
  CHECK_STATUS(ty_gl_bind_vertex_array(dev, va), TY_GL_OK);
  ty_gl_draw_indexed(dev, TY_GL_TRIANGLES, 0, 6, 1, 0, 0);
  uint8_t px[8 * 8 * 4];
  ty_gl_read_pixels(dev, t.fb, 0, 0, 0, 8, 8, px);
  CHECK(all_pixels(px, 64, (const uint8_t[]){0, 0, 255, 255}));
  /* The same quad as two indirect commands (one triangle each), read stride bytes apart
   * from an offset into the indirect buffer. */
  const uint32_t cmds[] = {0, 0, 0, 0, 0, 0, 0, 3, 1, 0, 0, 0, 0, 0, 3, 1, 3, 0, 0, 0, 0};
  ty_gl_buffer ind = ty_gl_make_buffer(dev, &(ty_gl_buffer_desc){.size = sizeof cmds, .data = cmds});
  ty_gl_clear_color(dev, t.fb, 0, (const float[]){0, 0, 0, 0});
  CHECK_STATUS(ty_gl_bind_buffer(dev, TY_GL_TARGET_INDIRECT, 0, ind, 0, 0), TY_GL_OK);
  ty_gl_draw_indexed_indirect(dev, TY_GL_TRIANGLES, 7 * sizeof(uint32_t), 2, 7 * sizeof(uint32_t));
  ty_gl_read_pixels(dev, t.fb, 0, 0, 0, 8, 8, px);
  CHECK(all_pixels(px, 64, (const uint8_t[]){0, 0, 255, 255}));
  ty_gl_destroy_buffer(dev, ind);
  /* Missing buffers are refused up front. */
  CHECK_EQ_INT(ty_gl_make_vertex_array(dev, &(ty_gl_vertex_array_desc){.attrs = {{.format = TY_GL_VERTEX_FLOAT2, .binding = 1}},
                                                                        .bindings = {{.buffer = vb}}}).id, 0);
  ty_gl_bind_vertex_array(dev, (ty_gl_vertex_array){0});
  ty_gl_bind_framebuffer(dev, (ty_gl_framebuffer){0});
  free_target(&t);
  ty_gl_destroy_program(dev, prog);
  ty_gl_destroy_vertex_array(dev, va);
  ty_gl_destroy_buffer(dev, vb);
  ty_gl_destroy_buffer(dev, ib);
  CHECK_NO_GL_ERROR();
}

static void test_includes_and_defines(void) {
  const ty_gl_include incs[] = {
      {"color.glsl", "#include \"value.glsl\"\nvec4 pick() { return vec4(VALUE, 0.0, VALUE, 1.0); }\n"},
      {"value.glsl", "#define VALUE_FROM_INCLUDE 1\n"},
  };
  const char *fs = "#version 450 core\n"
                   "#include \"color.glsl\"\n"
                   "#include \"color.glsl\"\n" /* once per stage: no redefinition of pick() */
                   "layout(location = 0) out vec4 o;\n"
                   "void main() { o = pick(); }\n";
  ty_gl_program prog = ty_gl_make_program(dev, &(ty_gl_program_desc){.vertex = {fullscreen_vs, "fullscreen.vert"},
                                                                    .fragment = {fs, "inc.frag"},
                                                                    .defines = "#define VALUE 1.0\n",
                                                                    .includes = incs,
                                                                    .include_count = 2});
  CHECK(prog.id != 0);
  if (!prog.id) fprintf(stderr, "  %s\n", ty_gl_error(dev));
  target t = make_target(4, 4, false);
  ty_gl_bind_framebuffer(dev, t.fb);
  ty_gl_use_program(dev, prog);
  ty_gl_bind_vertex_array(dev, (ty_gl_vertex_array){0});
  ty_gl_draw(dev, TY_GL_TRIANGLES, 0, 3, 0);
  uint8_t px[4 * 4 * 4];
  ty_gl_read_pixels(dev, t.fb, 0, 0, 0, 4, 4, px);
  CHECK(all_pixels(px, 16, (const uint8_t[]){255, 0, 255, 255}));
  ty_gl_bind_framebuffer(dev, (ty_gl_framebuffer){0});
  free_target(&t);
  ty_gl_destroy_program(dev, prog);

  /* An include from a folder. */
  char dir[] = "/tmp/tycho_gl_incXXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  char path[sizeof dir + 32];
  snprintf(path, sizeof path, "%s/disk.glsl", dir);
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  if (f) {
    fputs("vec4 disk() { return vec4(1.0); }\n", f);
    fclose(f);
  }
  prog = ty_gl_make_program(dev, &(ty_gl_program_desc){
                                     .vertex = {fullscreen_vs, NULL},
                                     .fragment = {"#include <disk.glsl>\nlayout(location = 0) out vec4 o;\nvoid main() { o = disk(); }\n", NULL},
                                     .include_dir = dir});
  CHECK(prog.id != 0);
  ty_gl_destroy_program(dev, prog);
  unlink(path);
  rmdir(dir);
  CHECK_NO_GL_ERROR();
}

static void test_broken_shader_reports_file_and_line(void) {
  const char *broken = "#version 450 core\n"                     /* 1 */
                       "layout(location = 0) out vec4 o;\n"      /* 2 */
                       "void main() {\n"                         /* 3 */
                       "  o = vec4(undefined_thing, 1.0);\n"     /* 4 */
                       "}\n";
  ty_gl_program p = ty_gl_make_program(dev, &(ty_gl_program_desc){.vertex = {fullscreen_vs, "fullscreen.vert"},
                                                                 .fragment = {broken, "shaders/broken.frag"},
                                                                 .defines = "#define A 1\n#define B 2\n"});
  CHECK_EQ_INT(p.id, 0);
  CHECK_EQ_INT(ty_gl_status_of(dev), TY_GL_ERROR_COMPILE);
  const char *e = ty_gl_error(dev);
  printf("     %s\n", e);
  CHECK(contains(e, "shaders/broken.frag:4"));
  CHECK(contains(e, "undefined_thing"));
  CHECK(contains(e, "fragment"));

  /* An error inside an include names the include and its line. */
  const ty_gl_include inc = {"lib.glsl", "float f() {\n  return nope;\n}\n"};
  const char *user = "#version 450 core\n#include \"lib.glsl\"\nlayout(location = 0) out vec4 o;\nvoid main() { o = vec4(f()); }\n";
  p = ty_gl_make_program(dev, &(ty_gl_program_desc){.vertex = {fullscreen_vs, "fullscreen.vert"},
                                                   .fragment = {user, "user.frag"},
                                                   .includes = &inc,
                                                   .include_count = 1});
  CHECK_EQ_INT(p.id, 0);
  CHECK(contains(ty_gl_error(dev), "lib.glsl:2"));
  printf("     %s\n", ty_gl_error(dev));

  /* An error in the vertex stage without a path is named by its stage. */
  p = ty_gl_make_program(dev, &(ty_gl_program_desc){.vertex = {"#version 450 core\nvoid main() {\n  gl_Position = 1;\n}\n", NULL}});
  CHECK_EQ_INT(p.id, 0);
  CHECK(contains(ty_gl_error(dev), "<vertex>:3"));

  /* A missing include is named where it is included. */
  p = ty_gl_make_program(dev, &(ty_gl_program_desc){.vertex = {fullscreen_vs, "fullscreen.vert"},
                                                   .fragment = {"#version 450 core\n\n#include \"nowhere.glsl\"\nvoid main() {}\n", "a.frag"}});
  CHECK_EQ_INT(p.id, 0);
  CHECK_EQ_INT(ty_gl_status_of(dev), TY_GL_ERROR_INCLUDE);
  CHECK(contains(ty_gl_error(dev), "a.frag:3: cannot find include 'nowhere.glsl'"));

  /* Stages that do not fit together fail to link. */
  p = ty_gl_make_program(dev, &(ty_gl_program_desc){
                                  .vertex = {fullscreen_vs, "fullscreen.vert"},
                                  .fragment = {"in vec3 never_written;\nlayout(location = 0) out vec4 o;\nvoid main() { o = vec4(never_written, 1.0); }\n", "link.frag"},
                                  .label = "mismatch"});
  CHECK_EQ_INT(p.id, 0);
  CHECK_EQ_INT(ty_gl_status_of(dev), TY_GL_ERROR_LINK);
  CHECK(contains(ty_gl_error(dev), "mismatch"));

  /* A compute program compiles alone. */
  p = ty_gl_make_program(dev, &(ty_gl_program_desc){
                                  .compute = {"layout(local_size_x = 1) in;\nlayout(std430, binding = 0) buffer B { uint v[]; };\nvoid main() { v[gl_GlobalInvocationID.x] = gl_GlobalInvocationID.x * 3u; }\n", "triple.comp"}});
  CHECK(p.id != 0);
  ty_gl_buffer sb = ty_gl_make_buffer(dev, &(ty_gl_buffer_desc){.size = 16});
  ty_gl_use_program(dev, p);
  ty_gl_bind_buffer(dev, TY_GL_TARGET_STORAGE, 0, sb, 0, 0);
  ty_gl_dispatch(dev, 4, 1, 1);
  glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
  uint32_t v[4] = {0};
  ty_gl_read_buffer(dev, sb, 0, v, sizeof v);
  CHECK(v[0] == 0 && v[1] == 3 && v[2] == 6 && v[3] == 9);
  ty_gl_destroy_buffer(dev, sb);
  ty_gl_destroy_program(dev, p);
  CHECK_EQ_INT(ty_gl_make_program(dev, &(ty_gl_program_desc){.fragment = {color_fs, NULL}}).id, 0);
  CHECK_EQ_INT(ty_gl_status_of(dev), TY_GL_ERROR_INVALID);
  CHECK_NO_GL_ERROR();
}

/* ---- handles ---- */

static void test_stale_handles_are_refused(void) {
  ty_gl_texture t = ty_gl_make_texture(dev, &(ty_gl_texture_desc){.width = 4, .height = 4});
  CHECK_STATUS(ty_gl_destroy_texture(dev, t), TY_GL_OK);
  CHECK_STATUS(ty_gl_destroy_texture(dev, t), TY_GL_ERROR_BAD_HANDLE);
  CHECK(contains(ty_gl_error(dev), "destroyed"));
  uint8_t px[64];
  CHECK_STATUS(ty_gl_update_texture(dev, t, NULL, px), TY_GL_ERROR_BAD_HANDLE);
  CHECK_STATUS(ty_gl_read_texture(dev, t, 0, px, sizeof px), TY_GL_ERROR_BAD_HANDLE);
  CHECK_STATUS(ty_gl_bind_texture(dev, 0, t, (ty_gl_sampler){0}), TY_GL_ERROR_BAD_HANDLE);
  CHECK(!ty_gl_texture_query(dev, t, NULL));
  CHECK_EQ_INT(ty_gl_texture_name(dev, t), 0);
  /* The slot is reused under a new generation; the old handle still does not match. */
  ty_gl_texture t2 = ty_gl_make_texture(dev, &(ty_gl_texture_desc){.width = 4, .height = 4});
  CHECK((t2.id & 0xFFFF) == (t.id & 0xFFFF));
  CHECK(t2.id != t.id);
  CHECK_STATUS(ty_gl_read_texture(dev, t, 0, px, sizeof px), TY_GL_ERROR_BAD_HANDLE);
  CHECK_STATUS(ty_gl_read_texture(dev, t2, 0, px, sizeof px), TY_GL_OK);

  /* Handle 0 and made-up ids. */
  CHECK_STATUS(ty_gl_destroy_buffer(dev, (ty_gl_buffer){0}), TY_GL_ERROR_BAD_HANDLE);
  CHECK_STATUS(ty_gl_use_program(dev, (ty_gl_program){0xFFFFFFFFu}), TY_GL_ERROR_BAD_HANDLE);
  CHECK_STATUS(ty_gl_destroy_sampler(dev, (ty_gl_sampler){0x00010000u}), TY_GL_ERROR_BAD_HANDLE);
  CHECK_STATUS(ty_gl_bind_vertex_array(dev, (ty_gl_vertex_array){12345}), TY_GL_ERROR_BAD_HANDLE);
  CHECK_STATUS(ty_gl_update_buffer(dev, (ty_gl_buffer){7}, 0, px, 1), TY_GL_ERROR_BAD_HANDLE);
  CHECK(ty_gl_ring_alloc(dev, (ty_gl_buffer){7}, 4, 0, NULL) == NULL);
  CHECK_EQ_INT(ty_gl_uniform_location(dev, (ty_gl_program){3}, "x"), -1);

  /* A framebuffer whose texture was destroyed refuses to bind, clear or read. */
  target tg = make_target(4, 4, false);
  ty_gl_destroy_texture(dev, tg.color);
  CHECK_STATUS(ty_gl_bind_framebuffer(dev, tg.fb), TY_GL_ERROR_BAD_HANDLE);
  CHECK_STATUS(ty_gl_clear_color(dev, tg.fb, 0, (const float[]){0, 0, 0, 0}), TY_GL_ERROR_BAD_HANDLE);
  CHECK_STATUS(ty_gl_read_pixels(dev, tg.fb, 0, 0, 0, 1, 1, px), TY_GL_ERROR_BAD_HANDLE);
  CHECK_STATUS(ty_gl_destroy_framebuffer(dev, tg.fb), TY_GL_OK);
  CHECK_STATUS(ty_gl_bind_framebuffer(dev, tg.fb), TY_GL_ERROR_BAD_HANDLE);

  /* A vertex array whose buffer was destroyed refuses to bind. */
  ty_gl_buffer vb = ty_gl_make_buffer(dev, &(ty_gl_buffer_desc){.size = 64});
  ty_gl_vertex_array va = ty_gl_make_vertex_array(dev, &(ty_gl_vertex_array_desc){.attrs = {{.format = TY_GL_VERTEX_FLOAT4}},
                                                                                   .bindings = {{.buffer = vb}}});
  CHECK(va.id != 0);
  ty_gl_destroy_buffer(dev, vb);
  CHECK_STATUS(ty_gl_bind_vertex_array(dev, va), TY_GL_ERROR_BAD_HANDLE);
  CHECK_STATUS(ty_gl_destroy_vertex_array(dev, va), TY_GL_OK);
  ty_gl_destroy_texture(dev, t2);

  /* A full pool says so, and a freed slot is usable again. */
  ty_gl_device *small = ty_gl_create(&(ty_gl_device_desc){.texture_pool = 2, .quiet = true});
  ty_gl_texture a = ty_gl_make_texture(small, &(ty_gl_texture_desc){.width = 1, .height = 1});
  ty_gl_texture b = ty_gl_make_texture(small, &(ty_gl_texture_desc){.width = 1, .height = 1});
  ty_gl_texture c = ty_gl_make_texture(small, &(ty_gl_texture_desc){.width = 1, .height = 1});
  CHECK(a.id && b.id && !c.id);
  CHECK_EQ_INT(ty_gl_status_of(small), TY_GL_ERROR_POOL_FULL);
  ty_gl_destroy_texture(small, a);
  CHECK(ty_gl_make_texture(small, &(ty_gl_texture_desc){.width = 1, .height = 1}).id != 0);
  CHECK_EQ_INT(ty_gl_get_stats(small).textures, 2);
  ty_gl_destroy(small); /* frees what is still alive */
  CHECK_NO_GL_ERROR();
}

/* ---- render graph backend ---- */

static uint32_t seen_texture;
static rg_resource seen_resource;

static void note_texture(const rg_pass_context *ctx, void *user) {
  (void)user;
  seen_texture = rg_context_texture(ctx, seen_resource);
}

static void nothing(const rg_pass_context *ctx, void *user) { (void)ctx, (void)user; }

static void test_graph_backend_creates_and_destroys_textures(void) {
  uint32_t before = ty_gl_get_stats(dev).textures;
  rg_graph *g = rg_create(&(rg_graph_desc){.backend = ty_gl_graph_backend(dev)});
  for (int frame = 0; frame < 3; frame++) {
    rg_begin(g, 32, 16);
    rg_resource bb = rg_import(g, "backbuffer", &(rg_import_desc){.info = {.width = 32, .height = 16}});
    rg_resource hdr = rg_transient(g, "hdr", &(rg_texture_desc){.format = RG_FORMAT_RGBA16F});
    rg_resource half = rg_transient(g, "half", &(rg_texture_desc){.scale = 0.5f, .format = RG_FORMAT_R8});
    seen_resource = hdr;
    rg_add_pass(g, &(rg_pass_desc){.name = "scene", .writes = &hdr, .write_count = 1, .execute = nothing});
    rg_add_pass(g, &(rg_pass_desc){.name = "down", .reads = &hdr, .read_count = 1, .writes = &half, .write_count = 1,
                                   .execute = nothing});
    rg_resource reads[] = {hdr, half};
    rg_add_pass(g, &(rg_pass_desc){.name = "tonemap", .reads = reads, .read_count = 2, .writes = &bb, .write_count = 1,
                                   .execute = note_texture});
    CHECK_EQ_INT(rg_compile(g), RG_OK);
    rg_stats st = rg_get_stats(g);
    CHECK_EQ_INT(st.physical, 2);
    CHECK_EQ_INT(st.created, frame == 0 ? 2 : 0); /* pooled across frames */
    CHECK_EQ_INT(ty_gl_get_stats(dev).textures, before + 2);
    ty_gl_texture_desc q;
    ty_gl_texture hdr_tex = {rg_resource_texture(g, hdr)};
    CHECK(ty_gl_texture_query(dev, hdr_tex, &q));
    CHECK_EQ_INT(q.width, 32);
    CHECK_EQ_INT(q.height, 16);
    CHECK_EQ_INT(q.format, RG_FORMAT_RGBA16F);
    ty_gl_texture half_tex = {rg_resource_texture(g, half)};
    CHECK(ty_gl_texture_query(dev, half_tex, &q));
    CHECK_EQ_INT(q.width, 16);
    CHECK_EQ_INT(q.format, RG_FORMAT_R8);
    /* A graph texture is a real render target. */
    ty_gl_framebuffer fb = ty_gl_make_framebuffer(dev, &(ty_gl_framebuffer_desc){.colors = {{.texture = hdr_tex}}});
    CHECK(fb.id != 0);
    ty_gl_destroy_framebuffer(dev, fb);
    seen_texture = 0;
    CHECK_EQ_INT(rg_execute(g), RG_OK);
    CHECK_EQ_INT(seen_texture, hdr_tex.id);
  }
  rg_destroy(g);
  CHECK_EQ_INT(ty_gl_get_stats(dev).textures, before);
  CHECK_NO_GL_ERROR();
}

/* ---- the window's back buffer and screenshots ---- */

static void test_window_read_pixels_and_screenshot(void) {
  /* Top half red, bottom half blue: GL's y grows upward, images' downward. */
  const char *fs = "layout(location = 0) out vec4 o;\n"
                   "void main() { o = gl_FragCoord.y > 32.0 ? vec4(1, 0, 0, 1) : vec4(0, 0, 1, 1); }\n";
  ty_gl_program prog = ty_gl_make_program(dev, &(ty_gl_program_desc){.vertex = {fullscreen_vs, NULL}, .fragment = {fs, NULL}});
  CHECK(prog.id != 0);
  CHECK_STATUS(ty_gl_bind_framebuffer(dev, (ty_gl_framebuffer){0}), TY_GL_OK);
  glViewport(0, 0, 64, 64);
  CHECK_STATUS(ty_gl_clear_color(dev, (ty_gl_framebuffer){0}, 0, (const float[]){0, 0, 0, 1}), TY_GL_OK);
  ty_gl_use_program(dev, prog);
  ty_gl_bind_vertex_array(dev, (ty_gl_vertex_array){0});
  ty_gl_draw(dev, TY_GL_TRIANGLES, 0, 3, 1);
  uint8_t *px = malloc(64 * 64 * 4);
  CHECK(ty_window_read_pixels(win, 0, 0, 64, 64, px));
  CHECK(all_pixels(px, 64 * 32, (const uint8_t[]){255, 0, 0, 255}));                /* top rows first */
  CHECK(all_pixels(px + 64 * 32 * 4, 64 * 32, (const uint8_t[]){0, 0, 255, 255})); /* then the bottom */
  uint8_t one[4];
  CHECK(ty_window_read_pixels(win, 10, 63, 1, 1, one) && one[2] == 255 && one[0] == 0);
  CHECK(!ty_window_read_pixels(win, 60, 60, 8, 8, px)); /* outside the drawable */
  /* GL's own order from the device read: the bottom row first. */
  CHECK_STATUS(ty_gl_read_pixels(dev, (ty_gl_framebuffer){0}, 0, 0, 0, 1, 1, one), TY_GL_OK);
  CHECK(one[2] == 255 && one[0] == 0);

  char path[] = "/tmp/tycho_shotXXXXXX.png";
  int fd = mkstemps(path, 4);
  CHECK(fd >= 0);
  close(fd);
  CHECK(ty_window_screenshot(win, path));
  int w = 0, h = 0;
  uint8_t *img = ty_image_load(path, &w, &h);
  CHECK(img != NULL);
  if (img) {
    CHECK_EQ_INT(w, 64);
    CHECK_EQ_INT(h, 64);
    CHECK(memcmp(img, (const uint8_t[]){255, 0, 0, 255}, 4) == 0);                  /* top-left */
    CHECK(memcmp(img + (63 * 64 + 63) * 4, (const uint8_t[]){0, 0, 255, 255}, 4) == 0); /* bottom-right */
    ty_image_free(img);
  }
  unlink(path);
  ty_window_swap(win);
  free(px);
  ty_gl_destroy_program(dev, prog);
  CHECK_NO_GL_ERROR();
}

static void test_png_round_trip(void) {
  const uint8_t px[3 * 2 * 4] = {255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255,
                                 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120};
  char path[] = "/tmp/tycho_pngXXXXXX.png";
  int fd = mkstemps(path, 4);
  CHECK(fd >= 0);
  close(fd);
  CHECK(ty_image_write_png(path, 3, 2, px));
  int w = 0, h = 0;
  uint8_t *back = ty_image_load(path, &w, &h);
  CHECK(back != NULL);
  if (back) {
    CHECK_EQ_INT(w, 3);
    CHECK_EQ_INT(h, 2);
    CHECK(memcmp(back, px, sizeof px) == 0);
    ty_image_free(back);
  }
  unlink(path);
  CHECK(!ty_image_write_png("/nonexistent-dir/x.png", 3, 2, px));
  CHECK(ty_image_load("/nonexistent-dir/x.png", &w, &h) == NULL);
}

/* The pipeline descriptor reaches GL, and the device skips calls for state GL holds. */
static void test_pipeline_state_is_applied_and_cached(void) {
  ty_gl_reset_state(dev);
  ty_gl_apply_pipeline(dev, &(ty_gl_pipeline_desc){.depth = TY_GL_DEPTH_LEQUAL, .no_depth_write = true,
                                                   .blend = TY_GL_BLEND_ALPHA, .cull = TY_GL_CULL_FRONT,
                                                   .depth_bias = 2.0f, .depth_bias_slope = 1.5f});
  GLint func = 0, face = 0, src_alpha = 0;
  GLboolean mask = GL_TRUE;
  GLfloat factor = 0, units = 0;
  glGetIntegerv(GL_DEPTH_FUNC, &func);
  glGetBooleanv(GL_DEPTH_WRITEMASK, &mask);
  glGetIntegerv(GL_CULL_FACE_MODE, &face);
  glGetIntegerv(GL_BLEND_SRC_ALPHA, &src_alpha);
  glGetFloatv(GL_POLYGON_OFFSET_FACTOR, &factor);
  glGetFloatv(GL_POLYGON_OFFSET_UNITS, &units);
  CHECK(glIsEnabled(GL_DEPTH_TEST) && glIsEnabled(GL_BLEND) && glIsEnabled(GL_CULL_FACE));
  CHECK(glIsEnabled(GL_POLYGON_OFFSET_FILL) && !glIsEnabled(GL_SCISSOR_TEST));
  CHECK_EQ_INT(func, GL_LEQUAL);
  CHECK_EQ_INT(mask, GL_FALSE);
  CHECK_EQ_INT(face, GL_FRONT);
  CHECK_EQ_INT(src_alpha, GL_ONE);
  CHECK(factor == 1.5f && units == 2.0f);

  /* The same descriptor again: no GL call. One field changed: that field's calls only. */
  ty_gl_stats before = ty_gl_get_stats(dev);
  ty_gl_apply_pipeline(dev, &(ty_gl_pipeline_desc){.depth = TY_GL_DEPTH_LEQUAL, .no_depth_write = true,
                                                   .blend = TY_GL_BLEND_ALPHA, .cull = TY_GL_CULL_FRONT,
                                                   .depth_bias = 2.0f, .depth_bias_slope = 1.5f});
  ty_gl_stats same = ty_gl_get_stats(dev);
  CHECK(same.pipeline_applies == before.pipeline_applies + 1);
  CHECK(same.state_calls == before.state_calls);
  ty_gl_apply_pipeline(dev, &(ty_gl_pipeline_desc){.depth = TY_GL_DEPTH_LEQUAL, .no_depth_write = true,
                                                   .blend = TY_GL_BLEND_ALPHA, .cull = TY_GL_CULL_BACK,
                                                   .depth_bias = 2.0f, .depth_bias_slope = 1.5f});
  CHECK(ty_gl_get_stats(dev).state_calls == same.state_calls + 1); /* glCullFace alone */
  glGetIntegerv(GL_CULL_FACE_MODE, &face);
  CHECK_EQ_INT(face, GL_BACK);

  /* Zeroed (NULL): depth LESS with writes, no blend, no bias. */
  ty_gl_apply_pipeline(dev, NULL);
  glGetIntegerv(GL_DEPTH_FUNC, &func);
  glGetBooleanv(GL_DEPTH_WRITEMASK, &mask);
  CHECK_EQ_INT(func, GL_LESS);
  CHECK_EQ_INT(mask, GL_TRUE);
  CHECK(!glIsEnabled(GL_BLEND) && !glIsEnabled(GL_POLYGON_OFFSET_FILL) && glIsEnabled(GL_CULL_FACE));

  /* A change made behind the device's back is undone after a reset. */
  glDisable(GL_CULL_FACE);
  ty_gl_apply_pipeline(dev, NULL);
  CHECK(!glIsEnabled(GL_CULL_FACE)); /* the cache believed it on */
  ty_gl_reset_state(dev);
  ty_gl_apply_pipeline(dev, NULL);
  CHECK(glIsEnabled(GL_CULL_FACE));

  int rect[4] = {1, 2, 3, 4};
  GLint got[4] = {0};
  ty_gl_set_scissor(dev, rect);
  glGetIntegerv(GL_SCISSOR_BOX, got);
  CHECK(glIsEnabled(GL_SCISSOR_TEST) && got[0] == 1 && got[1] == 2 && got[2] == 3 && got[3] == 4);
  ty_gl_set_scissor(dev, NULL);
  CHECK(!glIsEnabled(GL_SCISSOR_TEST));
  /* GL's defaults again for the tests after this one. */
  ty_gl_apply_pipeline(dev, &(ty_gl_pipeline_desc){.depth = TY_GL_DEPTH_OFF, .cull = TY_GL_CULL_NONE});
  glDepthMask(GL_TRUE);
  ty_gl_reset_state(dev);
}

/* Uniforms go through the program handle; a stale handle is refused, -1 is skipped. */
static void test_set_uniform(void) {
  ty_gl_program prog = ty_gl_make_program(
      dev, &(ty_gl_program_desc){.vertex = {"layout(location = 0) uniform vec4 u_v[2];\n"
                                            "layout(location = 2) uniform uint u_u;\n"
                                            "void main() { gl_Position = u_v[0] + u_v[1] * float(u_u); }\n",
                                            NULL}});
  CHECK(prog.id != 0);
  const float v[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  uint32_t u = 7;
  CHECK_EQ_INT(ty_gl_set_uniform(dev, prog, 0, TY_GL_UNIFORM_VEC4, 2, v), TY_GL_OK);
  CHECK_EQ_INT(ty_gl_set_uniform(dev, prog, 2, TY_GL_UNIFORM_UINT, 1, &u), TY_GL_OK);
  CHECK_EQ_INT(ty_gl_set_uniform(dev, prog, -1, TY_GL_UNIFORM_UINT, 1, &u), TY_GL_OK);
  GLfloat back[4] = {0};
  GLuint uback = 0;
  GLuint name = ty_gl_program_name(dev, prog);
  glGetUniformfv(name, 1, back);
  glGetUniformuiv(name, 2, &uback);
  CHECK(back[0] == 5 && back[3] == 8);
  CHECK_EQ_INT(uback, 7);
  ty_gl_destroy_program(dev, prog);
  CHECK_EQ_INT(ty_gl_set_uniform(dev, prog, 0, TY_GL_UNIFORM_VEC4, 1, v), TY_GL_ERROR_BAD_HANDLE);
  CHECK(strstr(ty_gl_error(dev), "ty_gl_set_uniform") != NULL);
}

/* A texture bound as an image for compute stores; formats an image cannot take and stale
 * handles are refused. */
static void test_bind_image(void) {
  ty_gl_texture tex = ty_gl_make_texture(dev, &(ty_gl_texture_desc){.width = 4, .height = 4, .format = RG_FORMAT_R32UI});
  ty_gl_texture depth = ty_gl_make_texture(dev, &(ty_gl_texture_desc){.width = 4, .height = 4, .format = RG_FORMAT_DEPTH32F});
  CHECK(tex.id && depth.id);
  CHECK_STATUS(ty_gl_bind_image(dev, 0, tex, 0, TY_GL_ACCESS_WRITE, RG_FORMAT_R32UI), TY_GL_OK);
  GLint name = 0, access = 0;
  glGetIntegeri_v(GL_IMAGE_BINDING_NAME, 0, &name);
  glGetIntegeri_v(GL_IMAGE_BINDING_ACCESS, 0, &access);
  CHECK_EQ_INT(name, (GLint)ty_gl_texture_name(dev, tex));
  CHECK_EQ_INT(access, GL_WRITE_ONLY);
  ty_gl_barrier(dev, TY_GL_BARRIER_TEXTURE_FETCH | TY_GL_BARRIER_IMAGE_ACCESS);
  CHECK_STATUS(ty_gl_bind_image(dev, 0, (ty_gl_texture){0}, 0, TY_GL_ACCESS_WRITE, RG_FORMAT_R32UI), TY_GL_OK);
  glGetIntegeri_v(GL_IMAGE_BINDING_NAME, 0, &name);
  CHECK_EQ_INT(name, 0);
  CHECK_STATUS(ty_gl_bind_image(dev, 0, depth, 0, TY_GL_ACCESS_READ, RG_FORMAT_DEPTH32F), TY_GL_ERROR_INVALID);
  CHECK_STATUS(ty_gl_bind_image(dev, 0, tex, 0, (ty_gl_access)7, RG_FORMAT_R32UI), TY_GL_ERROR_INVALID);
  ty_gl_destroy_texture(dev, tex);
  CHECK_STATUS(ty_gl_bind_image(dev, 0, tex, 0, TY_GL_ACCESS_WRITE, RG_FORMAT_R32UI), TY_GL_ERROR_BAD_HANDLE);
  ty_gl_destroy_texture(dev, depth);
  CHECK_NO_GL_ERROR();
}

int main(void) {
  /* GL without a display: SDL's offscreen driver makes an EGL context (llvmpipe in CI). */
  setenv("SDL_VIDEODRIVER", "offscreen", 1);
  win = ty_window_create(&(ty_window_desc){.title = "gl_device_test", .width = 64, .height = 64, .hidden = true,
                                           .fixed_size = true, .gl_debug = true});
  /* Quiet: failures the tests provoke are read through ty_gl_error, not logged. */
  ty_platform_pin_libraries(); /* the GL driver stays mapped for LeakSanitizer */
  if (win) dev = ty_gl_create(&(ty_gl_device_desc){.quiet = true});
  RUN(test_context_is_gl45_core);
  if (!win || !dev) {
    fprintf(stderr, "FAIL: no OpenGL 4.5 core context through SDL_VIDEODRIVER=offscreen (see the tycho: line above);"
                    " install Mesa's EGL and DRI drivers (libegl-mesa0 libgl1-mesa-dri)\n");
    ty_window_destroy(win);
    return check_summary();
  }
  RUN(test_window_text_input);
  RUN(test_buffer_create_update_read);
  RUN(test_ring_buffer);
  RUN(test_texture_upload_and_read);
  RUN(test_sampler);
  RUN(test_clear_and_read_back_exact_pixels);
  RUN(test_fullscreen_triangle_draws_a_known_color);
  RUN(test_vertex_array_and_indexed_draw);
  RUN(test_includes_and_defines);
  RUN(test_broken_shader_reports_file_and_line);
  RUN(test_stale_handles_are_refused);
  RUN(test_pipeline_state_is_applied_and_cached);
  RUN(test_set_uniform);
  RUN(test_bind_image);
  RUN(test_graph_backend_creates_and_destroys_textures);
  RUN(test_window_read_pixels_and_screenshot);
  RUN(test_png_round_trip);
  ty_gl_destroy(dev);
  ty_window_destroy(win);
  return check_summary();
}
