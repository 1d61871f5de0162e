/* bindings/lua_ui.c: tycho.ui, the Lua face of engine/render/ui.h: the screen-space layer
 * (rect, text, measure, queued, clear) and feature(), the render feature that draws it.
 * Textures are the renderer's (the Texture of lua_render_assets.c, taken through its trio). */
#include "bindings.h"

#include <string.h>

#include "lua_render.h" /* Required for: ty_lua_renderer, the Texture trio */
#include "render/ui.h"  /* Required for: ty_ui_* */

static void opt_color(lua_State *L, int idx, float out[4]) {
  out[0] = out[1] = out[2] = out[3] = 1;
  if (lua_isnoneornil(L, idx)) return;
  luaL_checktype(L, idx, LUA_TTABLE);
  for (int i = 0; i < 4; i++) {
    int t = lua_rawgeti(L, idx, i + 1);
    if (t != LUA_TNIL) {
      if (!lua_isnumber(L, -1)) luaL_argerror(L, idx, "color components must be numbers");
      out[i] = (float)lua_tonumber(L, -1);
    }
    lua_pop(L, 1);
  }
}

/* The first call that queued into an empty queue, "tycho.ui.text at main.lua:12": what
 * the engine names when nothing draws the queue. Noted once per frame, not per call. */
static char ui_first_call[256];

static void note_first_call(lua_State *L, const char *fn) {
  if (ty_ui_queued(ty_lua_renderer(L)) != 0) return;
  luaL_where(L, 1);
  const char *where = lua_tostring(L, -1);
  size_t n = strlen(where);
  while (n && (where[n - 1] == ' ' || where[n - 1] == ':')) n--; /* "file:line: " */
  snprintf(ui_first_call, sizeof ui_first_call, "%s%s%.*s", fn, n ? " at " : "", (int)n, where);
  lua_pop(L, 1);
}

/* tycho.ui.rect(x, y, w, h [, color [, texture [, uv]]]) */
static int ui_rect(lua_State *L) {
  note_first_call(L, "tycho.ui.rect");
  float x = (float)luaL_checknumber(L, 1), y = (float)luaL_checknumber(L, 2);
  float w = (float)luaL_checknumber(L, 3), h = (float)luaL_checknumber(L, 4);
  float c[4], uv[4];
  opt_color(L, 5, c);
  uint32_t tex = ty_opt_texture(L, 6, TY_RENDER_TEXTURE_WHITE);
  bool has_uv = !lua_isnoneornil(L, 7);
  if (has_uv) {
    luaL_checktype(L, 7, LUA_TTABLE);
    for (int i = 0; i < 4; i++) {
      lua_rawgeti(L, 7, i + 1);
      if (!lua_isnumber(L, -1)) luaL_argerror(L, 7, "uv must be {u0, v0, u1, v1} numbers");
      uv[i] = (float)lua_tonumber(L, -1);
      lua_pop(L, 1);
    }
  }
  ty_ui_rect(ty_lua_renderer(L), x, y, w, h, c, tex, has_uv ? uv : NULL);
  return 0;
}

/* tycho.ui.text(x, y, text [, color [, scale]]) -> width */
static int ui_text(lua_State *L) {
  note_first_call(L, "tycho.ui.text");
  float x = (float)luaL_checknumber(L, 1), y = (float)luaL_checknumber(L, 2);
  const char *text = luaL_checkstring(L, 3);
  float c[4];
  opt_color(L, 4, c);
  float scale = (float)luaL_optnumber(L, 5, 1);
  luaL_argcheck(L, scale > 0 && scale <= 64, 5, "scale must be in (0, 64]");
  lua_pushnumber(L, ty_ui_text(ty_lua_renderer(L), x, y, scale, c, text));
  return 1;
}

/* tycho.ui.measure(text [, scale]) -> width, height */
static int ui_measure(lua_State *L) {
  const char *text = luaL_checkstring(L, 1);
  float scale = (float)luaL_optnumber(L, 2, 1);
  luaL_argcheck(L, scale > 0 && scale <= 64, 2, "scale must be in (0, 64]");
  float w, h;
  ty_ui_measure(ty_lua_renderer(L), text, scale, &w, &h);
  lua_pushnumber(L, w);
  lua_pushnumber(L, h);
  return 2;
}

/* tycho.ui.queued() -> vertices, first call ("tycho.ui.text at main.lua:12", or nil) */
static int ui_queued(lua_State *L) {
  uint32_t n = ty_ui_queued(ty_lua_renderer(L));
  lua_pushinteger(L, n);
  if (n && ui_first_call[0]) lua_pushstring(L, ui_first_call);
  else lua_pushnil(L);
  return 2;
}

/* tycho.ui.clear(): drops this frame's queue undrawn. */
static int ui_clear(lua_State *L) {
  ty_ui_clear(ty_lua_renderer(L));
  return 0;
}

/* The UI feature's addPasses(self, frame): draws this frame's queue. */
static int ui_add_passes(lua_State *L) {
  ty_renderer *R = ty_lua_renderer(L);
  ty_frame *F = ty_render_frame_current(R);
  if (!F) return luaL_error(L, "UI: addPasses outside a frame");
  if (!ty_render_add_ui(R, F)) return luaL_error(L, "%s", ty_render_error(R));
  return 0;
}

/* tycho.ui.feature() -> {name = "UI", addPasses = ...}: add it last (after Tonemap). */
static int ui_feature(lua_State *L) {
  lua_createtable(L, 0, 3);
  lua_pushliteral(L, "UI");
  lua_setfield(L, -2, "name");
  lua_pushboolean(L, 1);
  lua_setfield(L, -2, "enabled");
  lua_pushcfunction(L, ui_add_passes);
  lua_setfield(L, -2, "addPasses");
  return 1;
}

void ty_open_ui(lua_State *L) {
  static const luaL_Reg fns[] = {{"rect", ui_rect},     {"text", ui_text},   {"measure", ui_measure},
                                 {"queued", ui_queued}, {"clear", ui_clear}, {"feature", ui_feature},
                                 {NULL, NULL}};
  luaL_newlib(L, fns);
  lua_setfield(L, -2, "ui");
}
