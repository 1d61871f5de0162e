/* bindings/lua_physics.h: the physics binding's hooks into the scene tick (lua_scene.c). */
#ifndef TY_LUA_PHYSICS_H
#define TY_LUA_PHYSICS_H

#include "bindings.h"
#include "core/scene.h"

/* The physics phase, before any physics hook: bodies waiting to be built are built, the
 * scene's 2D world takes moved and kinematic transforms, steps by dt and writes dynamic
 * bodies back. Nothing when the scene has no world. */
void ty_lua_physics_step(lua_State *L, int scene_idx, ty_scene *S, double dt);
/* The postPhysics phase, before any postPhysics hook: the last step's contacts go to the
 * components of both objects (onCollisionEnter/Exit, onTriggerEnter/Exit). */
void ty_lua_physics_contacts(lua_State *L, int scene_idx, ty_scene *S);
/* At the sweep: object id leaves its world. */
void ty_lua_physics_forget(lua_State *L, ty_id id);
/* Once per rendered frame of a fixed-step Loop, after its ticks: each awake dynamic body
 * with interpolation on is drawn alpha of the way from its pose before the last step to
 * its pose after it (a render offset on its transform; the object's own values stay the
 * stepped ones). */
void ty_lua_physics_interpolate(lua_State *L, int scene_idx, double alpha);
/* Pushes the scene's 2D world (the scene at scene_idx), made on first use. */
void ty_lua_physics_push_world(lua_State *L, int scene_idx, int dims);

/* The floats of a body velocity view (TY_VIEW_VELOCITY_2D, ...), read from the body now;
 * for a write, the view is remembered and what was written reaches the body before the
 * next read of any velocity view and before the next step. */
float *ty_lua_physics_view(lua_State *L, ty_vec *u, bool write);

void ty_open_physics(lua_State *L); /* tycho._physics, the 2D world type */

#endif
