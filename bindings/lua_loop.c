/* bindings/lua_loop.c: tycho.Loop, the fixed-step driver (engine/core/loop.h): it runs a
 * scene's ticks at a fixed timestep, as many per frame as the time that passed asks (up to
 * maxSubSteps), then its render function with the interpolation alpha. */
#include "lua_scene.h"

#include <string.h>

#define TY_LOOP "Loop"

/* ---- Loop ---- */

typedef struct ty_lloop {
  ty_loop loop;
} ty_lloop;
enum { LOOP_UV_SCENE = 1, LOOP_UV_RENDER };

static ty_lloop *check_loop(lua_State *L, int idx) { return luaL_checkudata(L, idx, TY_LOOP); }

/* tycho.Loop.new{scene=, fixedTimestep=1/60, maxSubSteps=8, render=function(alpha) end} */
static int loop_new(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_settop(L, 1);
  /* Options are checked by hand: a luaL_check* on a field would name its stack slot. */
  lua_getfield(L, 1, "scene");
  if (!ty_test_scene(L, 2))
    return luaL_argerror(L, 1, lua_pushfstring(L, "'scene' must be a Scene, got %s", luaL_typename(L, 2)));
  int ok = 1;
  double fixed = lua_getfield(L, 1, "fixedTimestep") == LUA_TNIL ? 1.0 / 60.0 : lua_tonumberx(L, 3, &ok);
  if (!ok || !(fixed > 0)) return luaL_argerror(L, 1, "'fixedTimestep' must be a number > 0");
  lua_Integer max = lua_getfield(L, 1, "maxSubSteps") == LUA_TNIL ? 8 : lua_tointegerx(L, 4, &ok);
  if (!ok || max < 1 || max > 1000) return luaL_argerror(L, 1, "'maxSubSteps' must be an integer in 1..1000");
  lua_getfield(L, 1, "render");
  if (!lua_isnil(L, 5) && !lua_isfunction(L, 5)) return luaL_argerror(L, 1, "'render' must be a function");
  ty_lloop *l = lua_newuserdatauv(L, sizeof *l, 2);
  ty_loop_init(&l->loop, fixed, (int)max);
  luaL_setmetatable(L, TY_LOOP);
  lua_pushvalue(L, 2);
  lua_setiuservalue(L, -2, LOOP_UV_SCENE);
  lua_pushvalue(L, 5);
  lua_setiuservalue(L, -2, LOOP_UV_RENDER);
  return 1;
}

static ty_lscene *loop_scene(lua_State *L, int idx) {
  lua_getiuservalue(L, idx, LOOP_UV_SCENE);
  return ty_check_scene(L, -1);
}

static void loop_tick(lua_State *L, ty_lloop *l, ty_lscene *ls, int scene_idx) {
  ty_clock_fixed_tick(&ls->clock, l->loop.fixed_timestep);
  ty_scene_run_tick(L, scene_idx, l->loop.fixed_timestep);
}

/* loop:advance(rawDt) -> steps, alpha */
static int loop_advance(lua_State *L) {
  ty_lloop *l = check_loop(L, 1);
  double raw = luaL_checknumber(L, 2);
  if (!(raw >= 0)) return luaL_argerror(L, 2, "rawDt must be >= 0");
  ty_lscene *ls = loop_scene(L, 1);
  int scene_idx = lua_gettop(L);
  if (ty_scene_walking(ls->scene)) return luaL_error(L, "loop:advance called from inside its scene's tick");
  int steps = ty_loop_begin(&l->loop, &ls->clock, raw);
  for (int i = 0; i < steps; i++) loop_tick(L, l, ls, scene_idx);
  double alpha = ty_loop_alpha(&l->loop);
  const ty_physics_ops *physics = ty_ctx_get(L)->physics;
  if (physics) physics->interpolate(L, scene_idx, alpha); /* bodies drawn between their last two steps */
  if (lua_getiuservalue(L, 1, LOOP_UV_RENDER) == LUA_TFUNCTION) {
    lua_pushnumber(L, alpha);
    lua_call(L, 1, 0);
  } else {
    lua_pop(L, 1);
  }
  lua_pushinteger(L, steps);
  lua_pushnumber(L, alpha);
  return 2;
}

static int loop_step(lua_State *L) {
  ty_lloop *l = check_loop(L, 1);
  ty_lscene *ls = loop_scene(L, 1);
  if (ty_scene_walking(ls->scene)) return luaL_error(L, "loop:step called from inside its scene's tick");
  loop_tick(L, l, ls, lua_gettop(L));
  return 0;
}

static int loop_pause(lua_State *L) {
  check_loop(L, 1)->loop.paused = true;
  return 0;
}

static int loop_resume(lua_State *L) {
  check_loop(L, 1)->loop.paused = false;
  return 0;
}

static int loop_index(lua_State *L) {
  ty_lloop *l = check_loop(L, 1);
  const char *k = luaL_checkstring(L, 2);
  if (luaL_getmetafield(L, 1, "__methods") && lua_getfield(L, -1, k) != LUA_TNIL) return 1;
  if (strcmp(k, "paused") == 0) lua_pushboolean(L, l->loop.paused);
  else if (strcmp(k, "fixedTimestep") == 0) lua_pushnumber(L, l->loop.fixed_timestep);
  else if (strcmp(k, "maxSubSteps") == 0) lua_pushinteger(L, l->loop.max_sub_steps);
  else if (strcmp(k, "accumulator") == 0) lua_pushnumber(L, l->loop.accumulator);
  else if (strcmp(k, "scene") == 0) lua_getiuservalue(L, 1, LOOP_UV_SCENE);
  else lua_pushnil(L);
  return 1;
}

void ty_open_loop(lua_State *L) {
  int tycho = lua_gettop(L);
  static const luaL_Reg loop_methods[] = {{"new", loop_new},     {"advance", loop_advance}, {"step", loop_step},
                                          {"pause", loop_pause}, {"resume", loop_resume},   {NULL, NULL}};
  static const luaL_Reg loop_meta[] = {{"__index", loop_index}, {NULL, NULL}};
  ty_type_register(L, TY_LOOP, loop_meta, loop_methods);
  ty_type_push_methods(L, TY_LOOP); /* tycho.Loop, so Lua code can add methods */
  lua_setfield(L, tycho, "Loop");
}
