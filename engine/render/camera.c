/* engine/render/camera.c: screen <-> world through a camera's projection, in doubles so a
 * round trip comes back to the same pixel (camera.h says which projection and units). */
#include "camera.h"

#include <math.h>

#include "../common.h"

void ty_camera_planes(const ty_camera_desc *c, float *near_plane, float *far_plane) {
  float n = c->near_plane, f = c->far_plane;
  if (c->orthographic) {
    if (n == 0 && f == 0) n = -100.0f, f = 100.0f;
  } else {
    if (n <= 0) n = 0.1f;
    if (f <= n) f = 1000.0f;
  }
  *near_plane = n;
  *far_plane = f;
}

static double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* out = m * v for a column-major 3x3 m. */
static void mul3(const double m[9], const double v[3], double out[3]) {
  double x = v[0], y = v[1], z = v[2];
  for (int r = 0; r < 3; r++) out[r] = m[r] * x + m[3 + r] * y + m[6 + r] * z;
}

bool ty_camera_view_make(ty_camera_view *v, const ty_camera_desc *c, const float world[16], double width,
                         double height) {
  TY_ASSERT(v && c && world && width > 0 && height > 0);
  const double *a = v->axes;
  for (int col = 0; col < 3; col++)
    for (int r = 0; r < 3; r++) v->axes[col * 3 + r] = world[col * 4 + r];
  for (int r = 0; r < 3; r++) v->origin[r] = world[12 + r];
  /* inverse of a 3x3 by cofactors: rows of the inverse are the cross products of columns */
  double c0[3] = {a[4] * a[8] - a[5] * a[7], a[5] * a[6] - a[3] * a[8], a[3] * a[7] - a[4] * a[6]}; /* y x z */
  double c1[3] = {a[7] * a[2] - a[8] * a[1], a[8] * a[0] - a[6] * a[2], a[6] * a[1] - a[7] * a[0]}; /* z x x */
  double c2[3] = {a[1] * a[5] - a[2] * a[4], a[2] * a[3] - a[0] * a[5], a[0] * a[4] - a[1] * a[3]}; /* x x y */
  double det = a[0] * c0[0] + a[1] * c0[1] + a[2] * c0[2];
  if (!(fabs(det) > 1e-30) || !isfinite(det)) return false;
  for (int col = 0; col < 3; col++) {
    v->inv[col * 3 + 0] = c0[col] / det;
    v->inv[col * 3 + 1] = c1[col] / det;
    v->inv[col * 3 + 2] = c2[col] / det;
  }
  double len = sqrt(dot3(a + 6, a + 6));
  for (int r = 0; r < 3; r++) v->forward[r] = -a[6 + r] / len;

  float n, f;
  ty_camera_planes(c, &n, &f);
  double aspect = width / height;
  v->orthographic = c->orthographic;
  v->near_plane = n;
  v->width = width;
  v->height = height;
  if (c->orthographic) {
    double size = c->size > 0 ? c->size : 5.0;
    v->half_h = size;
    v->half_w = size * aspect;
  } else {
    double fov = c->fov_deg > 0 ? c->fov_deg : 60.0;
    v->half_h = tan(fov * (M_PI / 180.0) * 0.5);
    v->half_w = v->half_h * aspect;
  }
  return true;
}

void ty_camera_world_to_screen(const ty_camera_view *v, const double p[3], double out[3]) {
  double d[3] = {p[0] - v->origin[0], p[1] - v->origin[1], p[2] - v->origin[2]}, cam[3];
  mul3(v->inv, d, cam);
  double nx, ny;
  if (v->orthographic) {
    nx = cam[0] / v->half_w;
    ny = cam[1] / v->half_h;
  } else {
    double w = -cam[2];
    if (fabs(w) < 1e-12) w = w < 0 ? -1e-12 : 1e-12;
    nx = cam[0] / (w * v->half_w);
    ny = cam[1] / (w * v->half_h);
  }
  out[0] = (nx + 1.0) * 0.5 * v->width;
  out[1] = (1.0 - ny) * 0.5 * v->height;
  out[2] = dot3(d, v->forward);
}

/* The camera-space point of screen (x, y) at camera-space z = -1 (perspective: the ray's
 * direction) or z = 0 (orthographic: where the ray crosses the camera's plane). */
static void screen_to_camera(const ty_camera_view *v, double x, double y, double cam[3]) {
  double nx = 2.0 * x / v->width - 1.0, ny = 1.0 - 2.0 * y / v->height;
  cam[0] = nx * v->half_w;
  cam[1] = ny * v->half_h;
  cam[2] = v->orthographic ? 0.0 : -1.0;
}

void ty_camera_screen_to_world(const ty_camera_view *v, double x, double y, double depth, double out[3]) {
  double cam[3], w[3], back[3];
  screen_to_camera(v, x, y, cam);
  if (v->orthographic) {
    /* from the camera's plane along the view axis (world -Z column) to the depth asked */
    mul3(v->axes, cam, w);
    double axis[3] = {-v->axes[6], -v->axes[7], -v->axes[8]};
    double t = (depth - dot3(w, v->forward)) / dot3(axis, v->forward);
    for (int r = 0; r < 3; r++) out[r] = v->origin[r] + w[r] + axis[r] * t;
  } else {
    mul3(v->axes, cam, back); /* world offset of camera-space (x, y, -1) */
    double t = depth / dot3(back, v->forward);
    for (int r = 0; r < 3; r++) out[r] = v->origin[r] + back[r] * t;
  }
}

void ty_camera_screen_ray(const ty_camera_view *v, double x, double y, double origin[3], double dir[3]) {
  double cam[3], w[3];
  screen_to_camera(v, x, y, cam);
  if (v->orthographic) {
    cam[2] = -v->near_plane;
    mul3(v->axes, cam, w);
    for (int r = 0; r < 3; r++) origin[r] = v->origin[r] + w[r];
    for (int r = 0; r < 3; r++) dir[r] = v->forward[r];
    return;
  }
  mul3(v->axes, cam, w);
  double len = sqrt(dot3(w, w));
  for (int r = 0; r < 3; r++) dir[r] = w[r] / len;
  /* the near plane, in camera space z = -near: the same world offset scaled by near */
  for (int r = 0; r < 3; r++) origin[r] = v->origin[r] + w[r] * v->near_plane;
}
