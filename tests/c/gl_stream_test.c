/* tests/c/gl_stream_test.c: per-frame vertex streams (engine/render/gl_stream.h) on a real
 * GL context, SDL's offscreen driver where there is no display: how they grow, that what
 * they draw is what was written, and that a failed make or another device leaves nothing
 * behind. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "platform/platform.h"
#include "render/gl_device.h"
#include "render/gl_stream.h"

static ty_window *win;
static ty_gl_device *dev;

/* A position-only layout: FLOAT2 at 0, 8 bytes a vertex. */
static ty_gl_vertex_array_desc position_layout(ty_gl_buffer index_buffer) {
  ty_gl_vertex_array_desc vd = {.index_buffer = index_buffer, .label = "stream test"};
  vd.bindings[0].stride = 2 * sizeof(float);
  vd.attrs[0] = (ty_gl_vertex_attr){TY_GL_VERTEX_FLOAT2, 0, 0};
  return vd;
}

static void test_grows_by_doubling_and_keeps_handles_that_fit(void) {
  ty_gl_stats before = ty_gl_get_stats(dev);
  ty_gl_vertex_array_desc vd = position_layout((ty_gl_buffer){0});
  ty_gl_stream s = {0};
  CHECK(ty_gl_stream_reserve(&s, dev, 3, 0, &vd));
  CHECK_EQ_INT(s.cap, 6); /* first_cap 0: twice what was asked */
  CHECK(s.dev == dev && s.buffer.id && s.va.id);
  ty_gl_buffer first_buffer = s.buffer;
  ty_gl_vertex_array first_va = s.va;
  CHECK(ty_gl_stream_reserve(&s, dev, 6, 0, &vd));
  CHECK_EQ_INT(s.buffer.id, first_buffer.id);
  CHECK_EQ_INT(s.va.id, first_va.id);
  CHECK(ty_gl_stream_reserve(&s, dev, 7, 0, &vd));
  CHECK_EQ_INT(s.cap, 14);
  CHECK(s.buffer.id != first_buffer.id && s.va.id != first_va.id);
  /* The smaller ones are gone, not leaked. */
  CHECK_EQ_INT(ty_gl_update_buffer(dev, first_buffer, 0, (const float[2]){0, 0}, 8), TY_GL_ERROR_BAD_HANDLE);
  CHECK_EQ_INT(ty_gl_bind_vertex_array(dev, first_va), TY_GL_ERROR_BAD_HANDLE);
  ty_gl_stats grown = ty_gl_get_stats(dev);
  CHECK_EQ_INT(grown.buffers, before.buffers + 1);
  CHECK_EQ_INT(grown.vertex_arrays, before.vertex_arrays + 1);
  /* Room for 14 vertices is 14 * 8 bytes: the 14th can be written, a 15th cannot. */
  CHECK_EQ_INT(ty_gl_update_buffer(dev, s.buffer, 13 * 8, (const float[2]){1, 2}, 8), TY_GL_OK);
  CHECK_EQ_INT(ty_gl_update_buffer(dev, s.buffer, 14 * 8, (const float[2]){1, 2}, 8), TY_GL_ERROR_INVALID);
  /* A first capacity doubles until it holds n. */
  CHECK(ty_gl_stream_reserve(&s, dev, 100, 24, &vd));
  CHECK_EQ_INT(s.cap, 192);
  ty_gl_stream_release(&s, dev);
  CHECK(s.dev == NULL && s.buffer.id == 0 && s.va.id == 0 && s.cap == 0);
  ty_gl_stats after = ty_gl_get_stats(dev);
  CHECK_EQ_INT(after.buffers, before.buffers);
  CHECK_EQ_INT(after.vertex_arrays, before.vertex_arrays);
}

static void test_draws_what_was_written(void) {
  /* A quad covering the target, streamed as four vertices through an index buffer. */
  const uint32_t idx[] = {0, 1, 2, 0, 2, 3};
  ty_gl_buffer ib = ty_gl_make_buffer(dev, &(ty_gl_buffer_desc){.size = sizeof idx, .data = idx});
  ty_gl_vertex_array_desc vd = position_layout(ib);
  ty_gl_stream s = {0};
  CHECK(ty_gl_stream_reserve(&s, dev, 4, 0, &vd));
  const float verts[] = {-1, -1, 1, -1, 1, 1, -1, 1};
  CHECK_EQ_INT(ty_gl_update_buffer(dev, s.buffer, 0, verts, sizeof verts), TY_GL_OK);
  ty_gl_program prog = ty_gl_make_program(
      dev, &(ty_gl_program_desc){
               .vertex = {"layout(location = 0) in vec2 pos;\nvoid main() { gl_Position = vec4(pos, 0.0, 1.0); }\n"},
               .fragment = {"layout(location = 0) out vec4 o;\nvoid main() { o = vec4(0.0, 1.0, 0.0, 1.0); }\n"}});
  CHECK(prog.id != 0);
  ty_gl_texture color = ty_gl_make_texture(dev, &(ty_gl_texture_desc){.width = 4, .height = 4});
  ty_gl_framebuffer fb = ty_gl_make_framebuffer(dev, &(ty_gl_framebuffer_desc){.colors = {{.texture = color}}});
  ty_gl_bind_framebuffer(dev, fb);
  ty_gl_clear_color(dev, fb, 0, (const float[4]){0, 0, 0, 0});
  ty_gl_apply_pipeline(dev, &(ty_gl_pipeline_desc){.depth = TY_GL_DEPTH_OFF, .cull = TY_GL_CULL_NONE});
  ty_gl_use_program(dev, prog);
  CHECK_EQ_INT(ty_gl_bind_vertex_array(dev, s.va), TY_GL_OK);
  ty_gl_draw_indexed(dev, TY_GL_TRIANGLES, 0, 6, 1, 0, 0);
  uint8_t px[4 * 4 * 4];
  CHECK_EQ_INT(ty_gl_read_pixels(dev, fb, 0, 0, 0, 4, 4, px), TY_GL_OK);
  int green = 0;
  for (int i = 0; i < 16; i++) green += px[i * 4] == 0 && px[i * 4 + 1] == 255 && px[i * 4 + 2] == 0;
  CHECK_EQ_INT(green, 16);
  ty_gl_bind_framebuffer(dev, (ty_gl_framebuffer){0});
  ty_gl_bind_vertex_array(dev, (ty_gl_vertex_array){0});
  ty_gl_stream_release(&s, dev);
  ty_gl_destroy_framebuffer(dev, fb);
  ty_gl_destroy_texture(dev, color);
  ty_gl_destroy_program(dev, prog);
  ty_gl_destroy_buffer(dev, ib);
}

static void test_a_failed_make_is_retried_and_leaves_nothing(void) {
  ty_gl_stats before = ty_gl_get_stats(dev);
  /* Attribute 1 reads binding 1, which has no buffer: the vertex array is refused. */
  ty_gl_vertex_array_desc bad = position_layout((ty_gl_buffer){0});
  bad.attrs[1] = (ty_gl_vertex_attr){TY_GL_VERTEX_FLOAT2, 1, 0};
  ty_gl_stream s = {0};
  CHECK(!ty_gl_stream_reserve(&s, dev, 8, 0, &bad));
  CHECK_EQ_INT(ty_gl_status_of(dev), TY_GL_ERROR_INVALID);
  CHECK(strstr(ty_gl_error(dev), "binding 1") != NULL);
  CHECK_EQ_INT(s.cap, 0);
  /* The next reserve tries again, and the buffer the failed one made is not kept twice. */
  ty_gl_vertex_array_desc good = position_layout((ty_gl_buffer){0});
  CHECK(ty_gl_stream_reserve(&s, dev, 8, 0, &good));
  CHECK_EQ_INT(s.cap, 16);
  ty_gl_stats now = ty_gl_get_stats(dev);
  CHECK_EQ_INT(now.buffers, before.buffers + 1);
  CHECK_EQ_INT(now.vertex_arrays, before.vertex_arrays + 1);
  ty_gl_stream_release(&s, dev);
  ty_gl_stream_release(&s, dev); /* twice: nothing left to destroy */
  now = ty_gl_get_stats(dev);
  CHECK_EQ_INT(now.buffers, before.buffers);
}

static void test_another_device_makes_its_own(void) {
  ty_gl_vertex_array_desc vd = position_layout((ty_gl_buffer){0});
  ty_gl_stream s = {0};
  CHECK(ty_gl_stream_reserve(&s, dev, 10, 0, &vd));
  ty_gl_stats first = ty_gl_get_stats(dev);
  ty_gl_device *other = ty_gl_create(&(ty_gl_device_desc){.quiet = true});
  CHECK(other != NULL);
  if (!other) return;
  /* Fits the capacity, but the handles are dev's: other gets a buffer and array of its own. */
  CHECK(ty_gl_stream_reserve(&s, other, 5, 0, &vd));
  CHECK(s.dev == other);
  CHECK_EQ_INT(s.cap, 10);
  ty_gl_stats theirs = ty_gl_get_stats(other);
  CHECK_EQ_INT(theirs.buffers, 1);
  CHECK_EQ_INT(theirs.vertex_arrays, 1);
  /* dev's objects were not destroyed through other's handles (ty_gl_destroy(dev) frees them). */
  CHECK_EQ_INT(ty_gl_get_stats(dev).buffers, first.buffers);
  ty_gl_stream_release(&s, other);
  CHECK_EQ_INT(ty_gl_get_stats(other).buffers, 0);
  ty_gl_destroy(other);
}

/* No context is a failure, never a skip (gl_device_test says what to install). */
static void test_has_a_device(void) { CHECK(win && dev); }

int main(void) {
  setenv("SDL_VIDEODRIVER", "offscreen", 1);
  win = ty_window_create(&(ty_window_desc){.title = "gl_stream_test", .width = 16, .height = 16, .hidden = true,
                                           .fixed_size = true});
  ty_platform_pin_libraries(); /* the GL driver stays mapped for LeakSanitizer */
  if (win) dev = ty_gl_create(&(ty_gl_device_desc){.quiet = true});
  RUN(test_has_a_device);
  if (!win || !dev) {
    ty_window_destroy(win);
    return check_summary();
  }
  RUN(test_grows_by_doubling_and_keeps_handles_that_fit);
  RUN(test_draws_what_was_written);
  RUN(test_a_failed_make_is_retried_and_leaves_nothing);
  RUN(test_another_device_makes_its_own);
  ty_gl_destroy(dev);
  ty_window_destroy(win);
  return check_summary();
}
