/* engine/render/camera.h: a camera's projection worked in double precision, for moving
 * points between the screen and the world (camera:worldToScreen, :screenToWorld and
 * :screenPointToRay).
 *
 * It is the projection the renderer draws with (renderer.c's setup_camera): the view is
 * the inverse of the camera object's world matrix, the camera looks down its -Z with +Y
 * up, and the projection is glm's right-handed perspective (vertical fov) or orthographic
 * one (size = half the view's height) with the same defaults for bad planes. TAA's
 * sub-pixel jitter is left out.
 *
 * Screen coordinates: x to the right and y down from the top-left corner, over a screen of
 * width x height in whatever unit those are given (tycho.window's screen units, the
 * mouse's). Depth: world units from the camera's position along its forward axis, as
 * Unity's Camera.WorldToScreenPoint gives it: the near plane is at depth `near`, and a
 * point behind the camera has a negative depth.
 */
#ifndef TY_RENDER_CAMERA_H
#define TY_RENDER_CAMERA_H

#include <stdbool.h>

#include "renderer.h" /* Required for: ty_camera_desc */

typedef struct ty_camera_view {
  double axes[9];    /* the world matrix's x, y, z columns */
  double origin[3];  /* its translation: the camera's position */
  double inv[9];     /* the inverse of axes: world direction -> camera space */
  double forward[3]; /* unit -Z axis in world space */
  double half_w, half_h; /* perspective: tan of half the fov across and up; orthographic: half extents */
  double near_plane;
  double width, height;
  bool orthographic;
} ty_camera_view;

/* The clip planes the renderer uses for c: its defaults stand in for planes that cannot
 * be used (perspective near <= 0 or far <= near; orthographic 0 and 0). */
void ty_camera_planes(const ty_camera_desc *c, float *near_plane, float *far_plane);

/* Fills v for camera c whose object's world matrix is world (column-major 4x4), seen on a
 * screen of width x height (both > 0). False when the world matrix cannot be inverted (a
 * zero scale): v is not usable then. */
bool ty_camera_view_make(ty_camera_view *v, const ty_camera_desc *c, const float world[16], double width,
                         double height);

/* out = screen x, y and depth of world point p. A point in the camera's plane (depth 0
 * under perspective) has no screen position: it comes out far off screen, not NaN. */
void ty_camera_world_to_screen(const ty_camera_view *v, const double p[3], double out[3]);
/* out = the world point at screen (x, y) and the given depth. */
void ty_camera_screen_to_world(const ty_camera_view *v, double x, double y, double depth, double out[3]);
/* The ray through screen (x, y): origin on the near plane, dir a unit vector away from the
 * camera (the camera's forward under an orthographic projection). */
void ty_camera_screen_ray(const ty_camera_view *v, double x, double y, double origin[3], double dir[3]);

#endif
