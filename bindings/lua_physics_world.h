/* bindings/lua_physics_world.h: what the physics binding's files share, private to
 * bindings/lua_physics*.c. They stand in floors, each calling only down:
 *   lua_physics_world.c: the worlds, their records of bodies and joints, the arguments every
 *     part reads, physics.lua's waiting list; it calls no other physics file;
 *   lua_physics_view.c (the live velocities), lua_physics_lerp.c (the drawing between steps),
 *     lua_physics_contact.c (the contact hooks), lua_physics_ray.c (the raycasts) and
 *     lua_physics_joint.c (the joints): over it alone;
 *   lua_physics_tick.c (the tick: over the views and joints) and lua_physics_body.c (what the
 *     body calls of both dimensions share: over the views);
 *   lua_physics2d.c and lua_physics3d.c, the body calls of one dimension each (over the body);
 *   lua_physics.c: the World2D and World3D types, the scene's hooks and the opener, on top. */
#ifndef TY_LUA_PHYSICS_WORLD_H
#define TY_LUA_PHYSICS_WORLD_H

#include "lua_scene.h"
#include "physics/physics2d.h"
#include "physics/physics3d.h"

typedef struct body_rec {
  uint32_t body; /* a ty_body2d or ty_body3d */
  ty_id go;
  uint32_t xf;
  ty_body_type type;    /* the body's, kept here: the tick asks for it of every body */
  float pos[3], rot[4]; /* the local values last seen or written */
  float scale[3];       /* the local scale its shapes were sized with */
  uint32_t slot[3];     /* its object's local tables in the locals list (ty_lua_local_slot) */
  uint32_t slots_epoch; /* the locals_epoch slot[] was read at */
  bool disabled;        /* its object (or an ancestor) is disabled: the body is too */
  bool interpolate;     /* drawn between its last two steps under a Loop (the default) */
  bool has_offset;      /* its transform holds a render offset this world set */
  bool stepped;         /* prev and cur hold the last step's poses */
  bool warned;          /* a refused pose was logged for it (once per body) */
  bool placed;          /* the game put the body somewhere since the last step */
  bool was_awake;       /* it was awake as the last step began (a body asleep through it did not move) */
  float prev_pos[3], prev_rot[4]; /* world pose before the last step (game units) */
  float cur_pos[3], cur_rot[4];   /* and after it */
} body_rec;

/* One userdata type per dimension (World2D, World3D) over the same struct. */
typedef struct lworld {
  int dims;      /* 2 or 3 */
  ty_phys2d *w2; /* dims 2 */
  ty_phys3d *w3; /* dims 3 */
  float upm;     /* game units per meter (2D; 1 in 3D) */
  body_rec *recs;
  uint32_t count, cap;
  double step_s; /* how long the backend's step call took at the last tick (the bench's yardstick) */
  struct joint_rec *joints; /* lua_physics_joint.c's */
  uint32_t joint_count, joint_cap;
} lworld;

/* A joint as the game made it: its objects and where it holds each body, in that body's
 * own frame, so that it can be made again when a body is rebuilt (a collider added, a 3D
 * setting changed). handle is 0 while a body is missing. */
typedef struct joint_rec {
  uint32_t handle; /* a ty_joint2d or ty_joint3d; 0: waiting for its bodies */
  uint32_t serial; /* the Joint userdata's check that the record is still its own */
  ty_id a, b;      /* b 0: the world */
  bool dead;       /* destroyed, or one of its objects was: the slot is free */
  union {
    ty_joint2d_desc d2;
    ty_joint3d_desc d3;
  } desc;
} joint_rec;

/* The scene's hooks (ty_physics_ops in bindings.h says what each does), put in the
 * state's context by ty_open_physics: step in lua_physics_tick.c, contacts in
 * lua_physics_contact.c, interpolate in lua_physics_lerp.c, view in lua_physics_view.c,
 * push_world in lua_physics_world.c, forget in lua_physics.c. */
void ty_lua_physics_step(lua_State *L, int scene_idx, ty_scene *S, double dt);
void ty_lua_physics_contacts(lua_State *L, int scene_idx, ty_scene *S);
void ty_lua_physics_forget(lua_State *L, ty_id id);
void ty_lua_physics_interpolate(lua_State *L, int scene_idx, double alpha);
void ty_lua_physics_push_world(lua_State *L, int scene_idx, int dims);
float *ty_lua_physics_view(lua_State *L, ty_vec *u, bool write);

/* Whether r's body is awake (the tick asks it of every body, twice). */
static inline bool lphys_awake(lworld *w, body_rec *r) {
  return w->dims == 2 ? ty_body2d_awake(w->w2, r->body) : ty_body3d_awake(w->w3, r->body);
}

/* ---- lua_physics_world.c: the worlds, their records, the arguments every part reads ---- */

/* "World2D" and "World3D": the worlds' type names (dims - 2). */
extern const char *const lphys_world_types[2];

ty_world *lphys_world_of(lua_State *L);
/* The record of id's body in its world of dims, or NULL (with *wout set to its world when found). */
body_rec *lphys_rec_of(lua_State *L, int dims, ty_id id, lworld **wout);
/* Records body b of object id (transform xf), its locals as they are now. */
void lphys_add_rec(lua_State *L, lworld *w, uint32_t b, ty_body_type type, ty_id id, uint32_t xf);
/* Takes off r's render offset, if this world set one (its object, if alive, is drawn where
 * it is). */
void lphys_clear_offset(lua_State *L, body_rec *r);
/* go's body went (the backend ended its joints): they wait to be made again. */
void lphys_joints_break(lworld *w, ty_id go);
/* r's body pose as a 3D world pose in game units (a 2D body at z 0, turned about Z). */
void lphys_body_pose(lworld *w, body_rec *r, float pos[3], float rot[4]);
/* Destroys record i's body and takes it off the list (the last record moves into it). */
void lphys_remove_rec(lua_State *L, lworld *w, uint32_t i);
/* The scene's world of dims if it has one (nothing pushed, NULL, when not). */
lworld *lphys_scene_world(lua_State *L, int scene_idx, int dims);
/* The worlds' __gc: their records leave the map, their bodies, joints and backend go. */
int lphys_world_gc(lua_State *L);
/* The World2D (dims 2) or World3D at idx; raises when it is not one or its scene is gone. */
lworld *lphys_check_world(lua_State *L, int idx, int dims);
/* Argument idx as layer bits for function fname: nil is every layer. */
uint32_t lphys_check_mask(lua_State *L, int idx, const char *fname);
/* Argument idx as a finite vector of dims numbers: a Vec3 (2D: z ignored), {x=, y=[, z=]} or
 * {x, y[, z]}. */
void lphys_check_vec(lua_State *L, int idx, int dims, float *out);
/* Reads the table at idx (an absolute index) as dims numbers, its fields x, y[, z] or else
 * its items 1, 2[, 3], into out: the index of the first that is not a finite number, or -1. */
int lphys_table_vec(lua_State *L, int idx, int dims, float *out);
/* A body type's name ('dynamic', 'static', 'kinematic'), argument idx in errors. */
ty_body_type lphys_check_type(lua_State *L, int idx, const char *name);
/* Number field k of the table at t, def when it is not a number; integer field k (layer
 * bits), 0 when absent. The components checked them. */
float lphys_opt_number(lua_State *L, int t, const char *k, float def);
lua_Integer lphys_opt_bits(lua_State *L, int t, const char *k);
/* P.setFlush's arguments 1 to 3, checked: physics.lua's flush(scene), mark(go) and
 * maskBits(v, argn, fname), kept for lphys_flush, lphys_mark_pending and lphys_check_mask. */
void lphys_set_lua_calls(lua_State *L);
/* Whether physics.lua's waiting list holds any object (P.setWaiting). */
void lphys_set_waiting(lua_State *L, bool waiting);
/* Builds the body of the GameObject at idx now if it waits to be built. */
void lphys_build_waiting(lua_State *L, int idx);
/* Builds the bodies waiting in the scene at scene_idx (physics.lua's flush), when any wait. */
void lphys_flush(lua_State *L, int scene_idx);
/* Puts object go back on physics.lua's waiting list, to be built (again) by a flush. */
void lphys_mark_pending(lua_State *L, ty_id go);
float lphys_quat_angle_z(const float q[4]);
void lphys_quat_mul(const float a[4], const float b[4], float out[4]);
/* Gives the state its map from objects to their bodies' records (ty_open_physics, first). */
void lphys_open_records(lua_State *L);

/* ---- lua_physics_body.c: what the body calls of both dimensions share ---- */

/* What createBody reads alike in both worlds (lphys_body_begin). */
typedef struct lphys_new_body {
  ty_id id;
  uint32_t xf; /* the object's transform */
  ty_body_type type;
  float pos[3], rot[4]; /* the object's world pose (game units) */
  float linear_damping, angular_damping, gravity_scale;
  bool lock_rotation, bullet;
} lphys_new_body;

/* The start of createBody(world, go, opts[, shapes]) in the world of dims: the world at 1,
 * the object at 2 (its tables read back), its options at 3 (in 3D its shapes at 4); raises
 * when the object has a body of dims already. */
lworld *lphys_body_begin(lua_State *L, int dims, lphys_new_body *nb);
/* The end of createBody: records body b, made from nb, with its interpolate option; pushes
 * true. */
int lphys_body_end(lua_State *L, lworld *w, uint32_t b, const lphys_new_body *nb);
/* The record of the body of the GameObject at idx in a world of dims; raises when it has none. */
body_rec *lphys_check_body(lua_State *L, int idx, int dims, lworld **w);
/* set(go, "interpolate", on) in either world. */
void lphys_set_interpolate(lua_State *L, body_rec *r, bool on);
/* The calls both tycho._physics (dims 2) and tycho._physics3d have, into the table on top. */
void lphys_open_body_common(lua_State *L, int dims);

/* ---- lua_physics2d.c and lua_physics3d.c: each dimension's own body calls ---- */

/* Pushes tycho._physics's (2D) or tycho._physics3d's table of its own calls. */
void lphys_open_body2d(lua_State *L);
void lphys_open_body3d(lua_State *L);

/* ---- lua_physics_view.c ---- */

/* What was written into the velocity views since the last commit reaches their bodies. */
void lphys_commit_views(lua_State *L);

/* ---- lua_physics_ray.c: world:raycast and world:raycastBatch, the world checked ---- */

int lphys_raycast(lua_State *L, lworld *w);
int lphys_raycast_batch(lua_State *L, lworld *w);

/* ---- lua_physics_joint.c ---- */

/* world:joint{...}, the world checked. */
int lphys_joint_new(lua_State *L, lworld *w);
/* At the tick, after bodies are built: joints of gone objects end, those waiting for a
 * rebuilt body are made again. */
void lphys_sync_joints(lua_State *L, lworld *w);
/* go was destroyed: its joints end for good. */
void lphys_joints_end(lworld *w, ty_id go);
uint32_t lphys_joint_count(const lworld *w);
void lphys_open_joints(lua_State *L);

#endif
