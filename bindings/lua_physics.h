/* bindings/lua_physics.h: the physics binding's opener. The scene reaches physics only
 * through the ty_physics_ops it puts in the state's context (bindings.h). */
#ifndef TY_LUA_PHYSICS_H
#define TY_LUA_PHYSICS_H

#include "bindings.h"

/* tycho._physics and tycho._physics3d, the World2D and World3D types, and the scene's
 * physics hooks (ty_ctx.physics). Open after ty_open_scene: bodies belong to GameObjects. */
void ty_open_physics(lua_State *L);

#endif
