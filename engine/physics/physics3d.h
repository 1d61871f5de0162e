/* engine/physics/physics3d.h: 3D rigid bodies over Bullet 3, behind a C interface.
 *
 * Bullet's C++ stays in bullet_world.cpp. A body is made whole from its shapes (a
 * compound of boxes, spheres, capsules and, for static bodies, triangle meshes); changing
 * its shapes means making it again. Bodies live in a pool indexed by generational ids, so
 * a stale handle is refused. Units are meters, kilograms, seconds; quaternions x, y, z, w. */
#ifndef TY_PHYSICS3D_H
#define TY_PHYSICS3D_H

#include <stdbool.h>
#include <stdint.h>

#include "physics/physics2d.h" /* Required for: ty_body_type, ty_contact_kind */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ty_phys3d ty_phys3d;
typedef uint32_t ty_body3d; /* low 20 bits the 1-based slot, high 12 its generation; 0 none */

typedef enum { TY_SHAPE3D_BOX, TY_SHAPE3D_SPHERE, TY_SHAPE3D_CAPSULE, TY_SHAPE3D_MESH } ty_shape3d_kind;

typedef struct ty_shape3d_desc {
  ty_shape3d_kind kind;
  float center[3];
  float half[3];       /* box */
  float radius;        /* sphere, capsule */
  float height;        /* capsule: the whole height along Y, caps included */
  const float *vertices; /* mesh: x, y, z triples (copied) */
  uint32_t vertex_count;
  const uint32_t *indices; /* mesh: three per triangle (copied) */
  uint32_t index_count;
} ty_shape3d_desc;

typedef struct ty_body3d_desc {
  ty_body_type type;
  float position[3], rotation[4];
  float mass; /* dynamic bodies; 0 means 1 */
  float friction, restitution;
  float linear_damping, angular_damping;
  float gravity_scale;
  bool lock_rotation;
  bool ccd; /* continuous collision: a fast body is swept between steps, not passing through thin things */
  bool trigger; /* overlaps are reported, nothing is pushed */
  /* Collision layers (Bullet filters whole bodies): bit k is layer k+1; two bodies touch
   * when each one's layer is in the other's mask. 0 in both means layer 1, mask all. */
  uint32_t layer, mask;
  uint64_t user;
} ty_body3d_desc;

typedef struct ty_contact3d {
  ty_contact_kind kind;
  bool trigger;
  uint64_t user_a, user_b;
  float point[3], normal[3], impulse; /* normal from a towards b */
} ty_contact3d;

typedef struct ty_ray3d_hit {
  uint64_t user;
  float point[3], normal[3], fraction;
} ty_ray3d_hit;

ty_phys3d *ty_phys3d_create(const float gravity[3]);
void ty_phys3d_destroy(ty_phys3d *W);
void ty_phys3d_set_gravity(ty_phys3d *W, const float g[3]);
void ty_phys3d_gravity(const ty_phys3d *W, float out[3]);
/* Steps exactly dt, then compares touching pairs with the last step's: begins and ends
 * collect until ty_phys3d_clear_contacts. */
void ty_phys3d_step(ty_phys3d *W, float dt);
const ty_contact3d *ty_phys3d_contacts(const ty_phys3d *W, uint32_t *count);
void ty_phys3d_clear_contacts(ty_phys3d *W);
/* The nearest non-trigger body along p1 -> p2 whose layer is in mask; false when none. */
bool ty_phys3d_raycast(ty_phys3d *W, const float p1[3], const float p2[3], uint32_t mask, ty_ray3d_hit *hit);

/* shapes: n descriptors (a triangle mesh only on a static body; 0 when refused). */
ty_body3d ty_body3d_create(ty_phys3d *W, const ty_body3d_desc *desc, const ty_shape3d_desc *shapes, uint32_t n);
void ty_body3d_destroy(ty_phys3d *W, ty_body3d b);
ty_body_type ty_body3d_type(const ty_phys3d *W, ty_body3d b);
void ty_body3d_transform(const ty_phys3d *W, ty_body3d b, float pos[3], float rot[4]);
/* Places the body (a kinematic one moves there through the next step, pushing). */
void ty_body3d_set_transform(ty_phys3d *W, ty_body3d b, const float pos[3], const float rot[4]);
void ty_body3d_velocity(const ty_phys3d *W, ty_body3d b, float out[3]);
void ty_body3d_set_velocity(ty_phys3d *W, ty_body3d b, const float v[3]);
void ty_body3d_angular_velocity(const ty_phys3d *W, ty_body3d b, float out[3]);
void ty_body3d_set_angular_velocity(ty_phys3d *W, ty_body3d b, const float v[3]);
void ty_body3d_apply_force(ty_phys3d *W, ty_body3d b, const float f[3]);
void ty_body3d_apply_impulse(ty_phys3d *W, ty_body3d b, const float i[3]);
bool ty_body3d_awake(const ty_phys3d *W, ty_body3d b);
void ty_body3d_wake(ty_phys3d *W, ty_body3d b);
float ty_body3d_mass(const ty_phys3d *W, ty_body3d b);
/* A disabled body leaves the simulation (its contacts end) until enabled again. */
void ty_body3d_set_enabled(ty_phys3d *W, ty_body3d b, bool enabled);

/* ---- joints (Bullet constraints) ----
 * A joint holds two bodies together, or one body to the world (b 0). It is placed by a frame
 * in each body's own frame (the world's when b is 0): the frames meet, and a hinge turns
 * about, a slider moves along, its frame's X axis. A joint ends with either of its bodies. */
typedef uint32_t ty_joint3d;

typedef enum {
  TY_JOINT3D_FIXED,  /* glued */
  TY_JOINT3D_HINGE,  /* a door: turns about one axis through the anchor */
  TY_JOINT3D_POINT,  /* a ball and socket: turns any way about the anchor */
  TY_JOINT3D_SLIDER  /* moves along one axis, no turning */
} ty_joint3d_kind;

/* A hinge's or slider's motor and limits: speed with at most max_force, the position kept
 * within [lower, upper]. Hinge: radians about the axis, rad/s, N*m. Slider: meters along the
 * axis, m/s, N. */
typedef struct ty_joint3d_drive {
  bool motor, limit;
  float speed, max_force;
  float lower, upper;
} ty_joint3d_drive;

typedef struct ty_joint3d_desc {
  ty_joint3d_kind kind;
  ty_body3d a, b;
  float pos_a[3], rot_a[4]; /* the joint's frame in a's frame */
  float pos_b[3], rot_b[4]; /* and in b's (the world's when b is 0) */
  bool collide_connected;
  ty_joint3d_drive drive; /* hinge, slider */
} ty_joint3d_desc;

/* 0 when a handle is stale or the pool is full. */
ty_joint3d ty_joint3d_create(ty_phys3d *W, const ty_joint3d_desc *desc);
void ty_joint3d_destroy(ty_phys3d *W, ty_joint3d j);
bool ty_joint3d_valid(const ty_phys3d *W, ty_joint3d j);
/* Sets a hinge's or slider's motor and limits (others ignore it). */
void ty_joint3d_set_drive(ty_phys3d *W, ty_joint3d j, const ty_joint3d_drive *drive);
/* Hinge: its angle (radians, b's turn from a's, within +-pi); slider: its translation
 * (meters, b's travel from a's along the axis); others 0. As in 2D, a motor's positive speed
 * makes the position grow. */
float ty_joint3d_position(const ty_phys3d *W, ty_joint3d j);

#ifdef __cplusplus
}
#endif

#endif
