/* bindings/lua_particles.h: tycho._particles, the Lua face of engine/particles and of the
 * Particles render pass (the ParticleSystem component is scripts/tycho/particles.lua). */
#ifndef TY_LUA_PARTICLES_H
#define TY_LUA_PARTICLES_H

#include "bindings.h"

/* Opens tycho._particles into the tycho table at the top of the stack; after ty_open_render
 * (the pass draws with the state's renderer). */
void ty_open_particles(lua_State *L);

#endif
