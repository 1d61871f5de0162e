/* bindings/lua_image.h: tycho.image, image files as plain Lua values (golden-image tests,
 * tools that write sprites). */
#ifndef TY_LUA_IMAGE_H
#define TY_LUA_IMAGE_H

#include "bindings.h"

/* Adds tycho.image to the table on top of the stack. */
void ty_open_image(lua_State *L);

#endif
