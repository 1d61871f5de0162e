/* bindings/lua_time.c: Time, the userdata over a ty_clock (engine/core/time.h) that
 * scene.time is: delta, elapsed, frame count, fps, and the one writable field, scale. */
#include "lua_time.h"

#include <string.h>

/* ---- Time ---- */

ty_clock *ty_check_time(lua_State *L, int idx) { return *(ty_clock **)ty_check(L, idx, TY_TIME); }

void ty_push_time(lua_State *L, ty_clock *clock, int owner) {
  owner = lua_absindex(L, owner);
  ty_clock **tp = lua_newuserdatauv(L, sizeof *tp, 1);
  *tp = clock;
  luaL_setmetatable(L, TY_TIME);
  lua_pushvalue(L, owner);
  lua_setiuservalue(L, -2, 1);
}

static int time_index(lua_State *L) {
  ty_clock *c = ty_check_time(L, 1);
  const char *k = luaL_checkstring(L, 2);
  if (strcmp(k, "delta") == 0) lua_pushnumber(L, c->delta);
  else if (strcmp(k, "scale") == 0) lua_pushnumber(L, c->scale);
  else if (strcmp(k, "elapsed") == 0) lua_pushnumber(L, c->elapsed);
  else if (strcmp(k, "unscaledDelta") == 0) lua_pushnumber(L, c->unscaled_delta);
  else if (strcmp(k, "unscaledElapsed") == 0) lua_pushnumber(L, c->unscaled_elapsed);
  else if (strcmp(k, "frameCount") == 0) lua_pushinteger(L, (lua_Integer)c->frame_count);
  else if (strcmp(k, "fps") == 0) lua_pushnumber(L, c->fps);
  else lua_pushnil(L);
  return 1;
}

static int time_newindex(lua_State *L) {
  ty_clock *c = ty_check_time(L, 1);
  const char *k = luaL_checkstring(L, 2);
  if (strcmp(k, "scale") != 0) return luaL_error(L, "Time.%s is read-only (only scale can be set)", k);
  double s = luaL_checknumber(L, 3);
  if (!(s >= 0)) return luaL_argerror(L, 3, "time scale must be >= 0");
  c->scale = s;
  return 0;
}

static int time_tostring(lua_State *L) {
  ty_clock *c = ty_check_time(L, 1);
  lua_pushfstring(L, "Time (elapsed %f, frame %d)", c->elapsed, (int)c->frame_count);
  return 1;
}

void ty_open_time(lua_State *L) {
  static const luaL_Reg time_meta[] = {
      {"__index", time_index}, {"__newindex", time_newindex}, {"__tostring", time_tostring}, {NULL, NULL}};
  ty_type_register(L, TY_TIME, time_meta, NULL);
}
