/* bindings/lua_host.h: making a Lua state that has tycho in it, and running code in it
 * with errors reported as file:line plus a traceback. */
#ifndef TY_LUA_HOST_H
#define TY_LUA_HOST_H

#include "bindings.h"
#include "lua_host_root.h" /* Required for: ty_host_root, which the host's users ask too */

/* A new state with the standard libraries, the `tycho` global (also require("tycho")),
 * package.path over the engine's scripts/ (and game_dir when not NULL), and the engine's
 * Lua side loaded. Returns NULL with a message on stderr when scripts/ cannot be found
 * or fails to load. Free with lua_close. */
lua_State *ty_host_create(const char *game_dir);

/* A state for a server module (tycho serve): the standard libraries and only the part of
 * `tycho` a module runs with (json, storage, crdt, terrain and its voxel grids, now, fanout,
 * fs), package.path over the engine's scripts/ and game_dir, and no renderer, window, input,
 * audio, physics or scenes. NULL with a message on stderr as ty_host_create. */
lua_State *ty_host_create_module(const char *game_dir);

/* What member:sendText(text) does for a member whose metatable is the one named tname
 * (luaL_newmetatable's name), given that member's userdata block: tycho.fanout calls it
 * straight for such members instead of looking sendText up and calling it from Lua (a
 * broadcast makes one such call per member). Set once per state. */
typedef void (*ty_fanout_sender)(void *member, const char *text, size_t len);
void ty_fanout_set_sender(lua_State *L, const char *tname, ty_fanout_sender send);

/* Pushes msg (NULL: none), a newline and "stack traceback:" with L1's frames from level
 * on, as luaL_traceback does, trimmed to the user's code: the engine's frames (C functions
 * and the engine's scripts/) above the first frame of a user's file and below the last
 * one are left out, so the first line names the user's file:line. A stack with no user
 * frame is written whole. */
void ty_host_traceback(lua_State *L, lua_State *L1, const char *msg, int level);

/* Calls the function below nargs arguments under ty_pcall (lua_floor.h). On error, prints
 * "tycho: <what>: <message and traceback>" and returns false. */
bool ty_host_call(lua_State *L, int nargs, int nresults, const char *what);

#endif
