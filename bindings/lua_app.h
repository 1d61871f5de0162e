/* bindings/lua_app.h: what the executable's entry (engine/app/) asks of a running game's Lua
 * side, as C calls rather than Lua field names: make the engine, start the game, step a
 * frame, take a screenshot, ask whether the game quit, shut it down. The engine is
 * tycho.engine's instance (scripts/tycho/engine.lua), kept in the state's registry. */
#ifndef TY_LUA_APP_H
#define TY_LUA_APP_H

#include "bindings.h"

/* Makes the engine (require("tycho.engine").new{headless = headless}) and sets tycho.engine,
 * so that the game's main.lua builds its scene into it. False, the error reported, when
 * tycho.engine fails to load or to make one. */
bool ty_app_create_engine(lua_State *L, bool headless);

/* Runs the game's main_lua. With watch, through tycho.reload (hot reload), which tracks what
 * main.lua registers and watches game_dir and the engine's scripts/, shaders/ and content/.
 * False, the error reported, when main.lua fails. */
bool ty_app_start_game(lua_State *L, const char *main_lua, const char *game_dir, bool watch);

/* One frame of dt seconds: engine:step(dt). False, the error reported, when it raised. */
bool ty_app_step(lua_State *L, double dt);

/* Whether the game asked to stop (engine:quit() sets engine.quitting). */
bool ty_app_quitting(lua_State *L);

/* engine:screenshot(path). 1: done or queued for this frame; 0: refused, the engine's reason
 * (possibly empty) in why; -1: it raised (reported). */
int ty_app_screenshot(lua_State *L, const char *path, char *why, size_t whysz);

/* Runs the game's onQuit hooks once (engine:_shutdown()), however the loop ended. False when
 * one failed or main.lua never ran. */
bool ty_app_shutdown(lua_State *L);

#endif
