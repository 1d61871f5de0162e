/* engine/physics/physics2d.h: 2D rigid bodies over Box2D 2.4, behind a C interface.
 *
 * The Box2D C++ stays in box2d_world.cpp; the rest of the engine sees worlds, bodies and
 * shapes as handles. Bodies and shapes live in pools indexed by generational ids, so a
 * stale handle is refused (ty_body2d_valid is false), never a dangling pointer.
 * Every value here is in Box2D's units (meters, kilograms, seconds, radians): the Lua
 * binding converts game units with the world's unitsPerMeter. */
#ifndef TY_PHYSICS2D_H
#define TY_PHYSICS2D_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ty_phys2d ty_phys2d;
/* A handle: low 20 bits the 1-based pool slot, high 12 bits its generation; 0 is none. */
typedef uint32_t ty_body2d;
typedef uint32_t ty_shape2d;

typedef enum { TY_BODY_STATIC, TY_BODY_KINEMATIC, TY_BODY_DYNAMIC } ty_body_type;
typedef enum { TY_SHAPE2D_BOX, TY_SHAPE2D_CIRCLE, TY_SHAPE2D_POLYGON } ty_shape2d_kind;

#define TY_SHAPE2D_MAX_POINTS 8 /* Box2D's b2_maxPolygonVertices */

typedef struct ty_body2d_desc {
  ty_body_type type;
  float x, y, angle;
  float linear_damping, angular_damping;
  float gravity_scale; /* 0 means the default, 1; set no_gravity for none */
  bool no_gravity;
  bool fixed_rotation;
  bool bullet; /* continuous collision against other dynamic bodies too (Box2D does it against static ones always) */
  uint64_t user; /* given back in contacts and ray hits (the binding stores a GameObject id) */
} ty_body2d_desc;

typedef struct ty_shape2d_desc {
  ty_shape2d_kind kind;
  float hx, hy;           /* box: half extents */
  float cx, cy;           /* box and circle: centre in the body's frame */
  float radius;           /* circle */
  float points[2 * TY_SHAPE2D_MAX_POINTS]; /* polygon: x, y pairs in the body's frame */
  int point_count;
  float density, friction, restitution;
  bool trigger;
  /* Collision layers: bit k is layer k+1. Two shapes touch when each one's layer is in the
   * other's mask. 0 in both means the defaults: layer 1, every layer in the mask. */
  uint32_t layer, mask;
} ty_shape2d_desc;

typedef enum { TY_CONTACT_BEGIN, TY_CONTACT_END } ty_contact_kind;

/* One begin or end of touching between two shapes, from the last step (or from a body's
 * destruction, which ends its contacts). normal points from a to b; impulse is the normal
 * impulse the first step of the contact applied (0 for triggers and ends). */
typedef struct ty_contact2d {
  ty_contact_kind kind;
  bool trigger;
  uint64_t user_a, user_b;
  float point[2], normal[2], impulse;
} ty_contact2d;

typedef struct ty_ray2d_hit {
  uint64_t user;
  float point[2], normal[2], fraction;
} ty_ray2d_hit;

/* create/destroy: the world owns every body and shape made in it. NULL when out of memory. */
ty_phys2d *ty_phys2d_create(float gx, float gy);
void ty_phys2d_destroy(ty_phys2d *W);
void ty_phys2d_set_gravity(ty_phys2d *W, float gx, float gy);
void ty_phys2d_gravity(const ty_phys2d *W, float out[2]);
/* Advances the world by dt seconds; contacts collect until ty_phys2d_clear_contacts. */
void ty_phys2d_step(ty_phys2d *W, float dt);
uint32_t ty_phys2d_body_count(const ty_phys2d *W);

/* The contacts collected since the last clear, in the order Box2D reported them. */
const ty_contact2d *ty_phys2d_contacts(const ty_phys2d *W, uint32_t *count);
void ty_phys2d_clear_contacts(ty_phys2d *W);

/* The nearest non-trigger shape along the segment p1 -> p2 whose layer is in mask (all
 * bits: every shape); false when none. */
bool ty_phys2d_raycast(ty_phys2d *W, const float p1[2], const float p2[2], uint32_t mask, ty_ray2d_hit *hit);

ty_body2d ty_body2d_create(ty_phys2d *W, const ty_body2d_desc *desc);
/* Destroys the body and its shapes; its touching contacts end (reported as TY_CONTACT_END). */
void ty_body2d_destroy(ty_phys2d *W, ty_body2d b);
bool ty_body2d_valid(const ty_phys2d *W, ty_body2d b);
ty_shape2d ty_shape2d_create(ty_phys2d *W, ty_body2d b, const ty_shape2d_desc *desc);

ty_body_type ty_body2d_type(const ty_phys2d *W, ty_body2d b);
void ty_body2d_set_type(ty_phys2d *W, ty_body2d b, ty_body_type type);
void ty_body2d_transform(const ty_phys2d *W, ty_body2d b, float *x, float *y, float *angle);
void ty_body2d_set_transform(ty_phys2d *W, ty_body2d b, float x, float y, float angle);
void ty_body2d_velocity(const ty_phys2d *W, ty_body2d b, float out[2]);
void ty_body2d_set_velocity(ty_phys2d *W, ty_body2d b, float vx, float vy);
float ty_body2d_angular_velocity(const ty_phys2d *W, ty_body2d b);
void ty_body2d_set_angular_velocity(ty_phys2d *W, ty_body2d b, float w);
void ty_body2d_apply_force(ty_phys2d *W, ty_body2d b, float fx, float fy);
void ty_body2d_apply_impulse(ty_phys2d *W, ty_body2d b, float ix, float iy);
bool ty_body2d_awake(const ty_phys2d *W, ty_body2d b);
void ty_body2d_set_awake(ty_phys2d *W, ty_body2d b, bool awake);
float ty_body2d_mass(const ty_phys2d *W, ty_body2d b);
/* Scales the mass its shapes' densities give to exactly mass (inertia scaled alike). */
void ty_body2d_set_mass(ty_phys2d *W, ty_body2d b, float mass);
void ty_body2d_set_damping(ty_phys2d *W, ty_body2d b, float linear, float angular);
void ty_body2d_set_gravity_scale(ty_phys2d *W, ty_body2d b, float scale);
void ty_body2d_set_fixed_rotation(ty_phys2d *W, ty_body2d b, bool fixed);
void ty_body2d_set_bullet(ty_phys2d *W, ty_body2d b, bool bullet);
/* A disabled body stays in the world but neither moves nor touches (its contacts end). */
void ty_body2d_set_enabled(ty_phys2d *W, ty_body2d b, bool enabled);

/* ---- joints ----
 * A joint holds two bodies together, or one body to a fixed point of the world (b 0).
 * Anchors and axes are in each body's own frame (the world's when b is 0), so a joint made
 * again after its bodies were rebuilt holds them as before. A joint ends with either of its
 * bodies (ty_joint2d_valid is then false). */
typedef uint32_t ty_joint2d;

typedef enum {
  TY_JOINT2D_REVOLUTE,  /* a pin: the anchors meet, the bodies turn freely about it */
  TY_JOINT2D_DISTANCE,  /* a rod (or a spring, with stiffness) between the two anchors */
  TY_JOINT2D_WELD,      /* glued: no relative motion */
  TY_JOINT2D_PRISMATIC, /* a slider along axis, no turning */
  TY_JOINT2D_WHEEL      /* a wheel: free turning, a spring along axis (a car's suspension) */
} ty_joint2d_kind;

/* A joint's motor and limits. The motor drives the joint at speed, with at most max_force;
 * the limits keep its position within [lower, upper]. Revolute: radians (b's angle from a's,
 * less the angle they were made at), rad/s, N*m. Prismatic: meters along the axis, m/s, N.
 * Wheel: the motor turns the wheel (rad/s, N*m), the limits bound its travel along the axis (m). */
typedef struct ty_joint2d_drive {
  bool motor, limit;
  float speed, max_force;
  float lower, upper;
} ty_joint2d_drive;

typedef struct ty_joint2d_desc {
  ty_joint2d_kind kind;
  ty_body2d a, b;         /* b 0: the world */
  float anchor_a[2], anchor_b[2];
  float axis[2];          /* prismatic, wheel: unit, in a's frame */
  float reference_angle;  /* revolute, weld, prismatic: b's angle minus a's, held by weld and prismatic */
  float length;           /* distance: the rest length */
  float stiffness, damping; /* distance, wheel: a spring (N/m, N*s/m); 0 stiffness: a rigid rod (distance) */
  bool collide_connected; /* the two bodies still touch each other */
  ty_joint2d_drive drive; /* revolute, prismatic, wheel: a motor and limits */
} ty_joint2d_desc;

/* 0 when a handle is stale or the pool is full. */
ty_joint2d ty_joint2d_create(ty_phys2d *W, const ty_joint2d_desc *desc);
void ty_joint2d_destroy(ty_phys2d *W, ty_joint2d j);
bool ty_joint2d_valid(const ty_phys2d *W, ty_joint2d j);
/* Sets a revolute, prismatic or wheel joint's motor and limits (others ignore it). */
void ty_joint2d_set_drive(ty_phys2d *W, ty_joint2d j, const ty_joint2d_drive *drive);
/* A revolute's or wheel's angle now (radians; b's from a's), a prismatic's or wheel's
 * translation along its axis (meters; b's from a's, along a's axis); others 0. */
float ty_joint2d_angle(const ty_phys2d *W, ty_joint2d j);
float ty_joint2d_translation(const ty_phys2d *W, ty_joint2d j);

#ifdef __cplusplus
}
#endif

#endif
