/* tests/c/camera_test.c: screen <-> world through a camera (engine/render/camera.h),
 * checked against cglm's projection (the renderer's path: glm_perspective / glm_ortho
 * times the inverse world matrix), round trips, rays and the degenerate cases. */
#include <cglm/cglm.h>

#include "check.h"
#include "render/camera.h"

/* A camera's world matrix: at pos, turned by angle about axis, scaled by s. */
static void camera_world(mat4 m, vec3 pos, float angle, vec3 axis, vec3 s) {
  glm_mat4_identity(m);
  glm_translate(m, pos);
  glm_rotate(m, angle, axis);
  glm_scale(m, s);
}

/* Where cglm puts world point p: pixels from the top-left and NDC depth. */
static void cglm_screen(const ty_camera_desc *c, mat4 world, float w, float h, vec3 p, double out[2]) {
  mat4 view, proj, vp;
  glm_mat4_inv(world, view);
  float n, f;
  ty_camera_planes(c, &n, &f);
  float aspect = w / h;
  if (c->orthographic) glm_ortho(-c->size * aspect, c->size * aspect, -c->size, c->size, n, f, proj);
  else glm_perspective(glm_rad(c->fov_deg), aspect, n, f, proj);
  glm_mat4_mul(proj, view, vp);
  vec4 clip, p4 = {p[0], p[1], p[2], 1.0f};
  glm_mat4_mulv(vp, p4, clip);
  out[0] = (clip[0] / clip[3] + 1.0) * 0.5 * w;
  out[1] = (1.0 - clip[1] / clip[3]) * 0.5 * h;
}

static void test_matches_cglm(void) {
  vec3 pos = {1, 2, 8}, axis = {0.3f, 1, 0.2f}, s = {1, 1, 1};
  mat4 world;
  camera_world(world, pos, 0.6f, axis, s);
  ty_camera_desc cams[2] = {{.fov_deg = 55, .near_plane = 0.2f, .far_plane = 200},
                            {.orthographic = true, .size = 4, .near_plane = -50, .far_plane = 50}};
  vec3 points[3] = {{0, 0, 0}, {-3, 1, -4}, {2.5f, -1, 3}};
  for (int k = 0; k < 2; k++) {
    ty_camera_view v;
    CHECK(ty_camera_view_make(&v, &cams[k], (const float *)world, 640, 480));
    for (int i = 0; i < 3; i++) {
      double want[2], got[3], p[3] = {points[i][0], points[i][1], points[i][2]};
      cglm_screen(&cams[k], world, 640, 480, points[i], want);
      ty_camera_world_to_screen(&v, p, got);
      CHECK_NEAR(got[0], want[0], 1e-2);
      CHECK_NEAR(got[1], want[1], 1e-2);
    }
  }
}

static void test_round_trip(void) {
  vec3 pos = {-20, 35, 90}, axis = {1, 0.5f, -0.25f}, s = {2, 2, 2};
  mat4 world;
  camera_world(world, pos, 2.1f, axis, s);
  ty_camera_desc cams[2] = {{.fov_deg = 70, .near_plane = 0.05f, .far_plane = 1000},
                            {.orthographic = true, .size = 12}};
  for (int k = 0; k < 2; k++) {
    ty_camera_view v;
    CHECK(ty_camera_view_make(&v, &cams[k], (const float *)world, 1920, 1080));
    double screens[3][3] = {{0, 0, 0.05}, {1919.5, 3, 17}, {960, 540, 999}};
    for (int i = 0; i < 3; i++) {
      double p[3], back[3];
      ty_camera_screen_to_world(&v, screens[i][0], screens[i][1], screens[i][2], p);
      ty_camera_world_to_screen(&v, p, back);
      for (int a = 0; a < 3; a++) CHECK_NEAR(back[a], screens[i][a], 1e-7);
    }
  }
}

static void test_depth_is_world_distance_along_forward(void) {
  /* scaled by 3 and facing +X: depth must still be world units */
  vec3 pos = {5, 0, 0}, axis = {0, 1, 0}, s = {3, 3, 3};
  mat4 world;
  camera_world(world, pos, -GLM_PI_2f, axis, s);
  ty_camera_desc c = {.fov_deg = 60, .near_plane = 0.1f, .far_plane = 100};
  ty_camera_view v;
  CHECK(ty_camera_view_make(&v, &c, (const float *)world, 100, 100));
  CHECK_NEAR(v.forward[0], 1, 1e-6);
  double p[3] = {12, 0, 0}, out[3];
  ty_camera_world_to_screen(&v, p, out);
  CHECK_NEAR(out[0], 50, 1e-4);
  CHECK_NEAR(out[1], 50, 1e-4);
  CHECK_NEAR(out[2], 7, 1e-5);
  double o[3], d[3];
  ty_camera_screen_ray(&v, 50, 50, o, d);
  CHECK_NEAR(d[0], 1, 1e-6);
  CHECK_NEAR(o[0], 5 + 0.1 * 3, 1e-5); /* the near plane is in the camera's (scaled) units */
}

static void test_degenerate(void) {
  mat4 world;
  vec3 pos = {0, 0, 0}, axis = {0, 1, 0}, zero = {0, 0, 0};
  camera_world(world, pos, 0, axis, zero);
  ty_camera_desc c = {.fov_deg = 60};
  ty_camera_view v;
  CHECK(!ty_camera_view_make(&v, &c, (const float *)world, 100, 100));
  /* bad planes take the renderer's defaults; a point in the camera's plane stays finite */
  glm_mat4_identity(world);
  CHECK(ty_camera_view_make(&v, &c, (const float *)world, 100, 100));
  CHECK_NEAR(v.near_plane, 0.1, 1e-7);
  double p[3] = {1, 0, 0}, out[3];
  ty_camera_world_to_screen(&v, p, out);
  CHECK(isfinite(out[0]) && isfinite(out[1]));
  CHECK_NEAR(out[2], 0, 1e-12);
  float n, f;
  ty_camera_planes(&(ty_camera_desc){.orthographic = true}, &n, &f);
  CHECK(n == -100 && f == 100);
}

int main(void) {
  RUN(test_matches_cglm);
  RUN(test_round_trip);
  RUN(test_depth_is_world_distance_along_forward);
  RUN(test_degenerate);
  return check_summary();
}
