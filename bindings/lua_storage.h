/* bindings/lua_storage.h: tycho.storage, the Lua face of engine/storage, and what the game
 * host (server/host.c) uses to give each module its own handle on the server's store. */
#ifndef TY_LUA_STORAGE_H
#define TY_LUA_STORAGE_H

#include "bindings.h"

/* Opens the store at path and pushes a WorldStorage; on failure pushes nil and a message
 * and returns false. */
bool ty_storage_push_open(lua_State *L, const char *path);
/* Closes the WorldStorage at idx (a no-op when it is closed already or not one). */
void ty_storage_close_at(lua_State *L, int idx);
/* True when the value at idx is a WorldStorage that is still open. */
bool ty_storage_is_open_at(lua_State *L, int idx);

#endif
