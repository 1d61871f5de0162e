/* bindings/lua_render_state.c: what every file of the render binding reads tables with:
 * numbers, booleans and colours out of option tables, and asset paths resolved the way the
 * game's modules are found. It calls no other lua_render*.c file; lua_render_state.h says
 * which file stands where. */
#include "lua_render_state.h"

#include <string.h>
#include <sys/stat.h>

/* A number field of the table at idx, def when absent; an error naming what when not a number. */
float lr_opt_number(lua_State *L, int idx, const char *key, float def, const char *what) {
  float v = def;
  int t = lua_getfield(L, idx, key);
  if (t == LUA_TNUMBER) v = (float)lua_tonumber(L, -1);
  else if (t != LUA_TNIL) luaL_error(L, "%s: '%s' must be a number, got %s", what, key, luaL_typename(L, -1));
  lua_pop(L, 1);
  return v;
}

bool lr_opt_bool(lua_State *L, int idx, const char *key, bool def) {
  bool v = def;
  if (lua_getfield(L, idx, key) != LUA_TNIL) v = lua_toboolean(L, -1);
  lua_pop(L, 1);
  return v;
}

/* Reads a colour at idx: {r, g, b[, a]}, {r=, g=, b=[, a=]} or a Vec3; n is 3 or 4 (alpha
 * defaults to 1). False when the value is none of these. */
bool lr_read_color(lua_State *L, int idx, float *out, int n) {
  idx = lua_absindex(L, idx);
  if (n == 4) out[3] = 1.0f;
  if (ty_test_vec3(L, idx)) {
    ty_read_vec3(L, idx, out);
    return true;
  }
  if (!lua_istable(L, idx)) return false;
  static const char *const keys[] = {"r", "g", "b", "a"};
  for (int i = 0; i < n; i++) {
    int t = lua_rawgeti(L, idx, i + 1);
    if (t == LUA_TNIL) {
      lua_pop(L, 1);
      t = lua_getfield(L, idx, keys[i]);
    }
    if (t == LUA_TNUMBER) out[i] = (float)lua_tonumber(L, -1);
    else if (!(t == LUA_TNIL && i == 3)) {
      lua_pop(L, 1);
      return false;
    }
    lua_pop(L, 1);
  }
  return true;
}

/* A colour field of the table at idx into out (left alone when absent); whether it was
 * given, since every value (black included) is a colour. */
bool lr_opt_color(lua_State *L, int idx, const char *key, float *out, int n, const char *what) {
  bool given = lua_getfield(L, idx, key) != LUA_TNIL;
  if (given && !lr_read_color(L, -1, out, n))
    luaL_error(L, "%s: '%s' must be a colour {r, g, b%s} or a Vec3", what, key, n == 4 ? "[, a]" : "");
  lua_pop(L, 1);
  return given;
}

/* Resolves a relative asset path: as given when that exists, else under each folder of
 * package.path (the game's first), else under the engine's home. Unchanged when nothing
 * matches, so the loader's message names what the game wrote. */
void lr_resolve_path(lua_State *L, const char *path, char *out, size_t size) {
  struct stat st;
  snprintf(out, size, "%s", path);
  if (path[0] == '/' || stat(path, &st) == 0) return;
  char cand[4096];
  lua_getglobal(L, "package");
  lua_getfield(L, -1, "path");
  const char *pp = lua_tostring(L, -1);
  while (pp && *pp) {
    const char *end = strchr(pp, ';');
    size_t len = end ? (size_t)(end - pp) : strlen(pp);
    /* Only templates of the form DIR/?.lua name a folder. */
    if (len > 5 && strncmp(pp + len - 5, "?.lua", 5) == 0) {
      snprintf(cand, sizeof cand, "%.*s%s", (int)(len - 5), pp, path);
      if (stat(cand, &st) == 0) {
        snprintf(out, size, "%s", cand);
        lua_pop(L, 2);
        return;
      }
    }
    pp = end ? end + 1 : NULL;
  }
  lua_pop(L, 2);
  lua_getglobal(L, "tycho");
  if (lua_istable(L, -1) && lua_getfield(L, -1, "home") == LUA_TSTRING) {
    snprintf(cand, sizeof cand, "%s/%s", lua_tostring(L, -1), path);
    if (stat(cand, &st) == 0) snprintf(out, size, "%s", cand);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
}
