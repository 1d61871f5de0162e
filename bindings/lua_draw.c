/* bindings/lua_draw.c: tycho.draw, the Lua face of engine/render/draw2d.h: text, rect,
 * circle, line, image, queued, clear, and for the engine: _addPasses (after every
 * feature's passes: draws and empties the queue) and _world (the Text component's text). Arguments are checked even headless,
 * where the queue itself drops every call. */
#include <string.h>

#include "lua_render.h" /* Required for: ty_lua_renderer, ty_check_texture */
#include "lua_scene.h"  /* Required for: ty_check_gameobject, ty_lua_world_matrix */
#include "lua_text.h"
#include "render/draw2d.h"

#define TY_TEXTURE "Texture" /* lua_render.c's texture userdata: a uint32_t id */

/* An optional {r, g, b, a} (a defaults to 1) at idx into out; white when nil. */
static const float *opt_color(lua_State *L, int idx, float out[4]) {
  out[0] = out[1] = out[2] = out[3] = 1;
  if (lua_isnoneornil(L, idx)) return out;
  if (!lua_istable(L, idx)) luaL_typeerror(L, idx, "color table {r, g, b, a}");
  for (int i = 0; i < 4; i++) {
    int t = lua_rawgeti(L, idx, i + 1);
    if (t == LUA_TNUMBER) out[i] = (float)lua_tonumber(L, -1);
    else if (t != LUA_TNIL || i < 3) luaL_argerror(L, idx, "color must be {r, g, b [, a]} numbers");
    lua_pop(L, 1);
  }
  return out;
}

static bool check_mode(lua_State *L, int idx) {
  static const char *const modes[] = {"line", "fill", NULL};
  return luaL_checkoption(L, idx, NULL, modes) == 1;
}

static float num(lua_State *L, int idx) { return (float)luaL_checknumber(L, idx); }

/* Field key of the options table at idx, or a bad-argument error naming it. */
static int opt_field(lua_State *L, int idx, const char *key, int type, const char *expected) {
  int t = lua_getfield(L, idx, key);
  if (t != LUA_TNIL && t != type) {
    const char *msg = lua_pushfstring(L, "%s: %s expected, got %s", key, expected, luaL_typename(L, -1));
    luaL_argerror(L, idx, msg);
  }
  return t;
}

/* tycho.draw.text(str, x, y [, {font=, color=, align=, width=}]) */
static int draw_text(lua_State *L) {
  size_t len;
  const char *s = luaL_checklstring(L, 1, &len);
  float x = num(L, 2), y = num(L, 3), c[4] = {1, 1, 1, 1}, width = 0;
  ty_draw_align align = TY_ALIGN_LEFT;
  ty_font *font = NULL;
  if (!lua_isnoneornil(L, 4)) {
    luaL_checktype(L, 4, LUA_TTABLE);
    if (opt_field(L, 4, "font", LUA_TUSERDATA, "Font") != LUA_TNIL) {
      font = ty_test_font(L, -1);
      if (!font) luaL_argerror(L, 4, "font: Font expected, got userdata");
    }
    if (opt_field(L, 4, "color", LUA_TTABLE, "table") != LUA_TNIL) opt_color(L, lua_gettop(L), c);
    if (opt_field(L, 4, "align", LUA_TSTRING, "string") != LUA_TNIL) {
      const char *a = lua_tostring(L, -1);
      if (strcmp(a, "center") == 0) align = TY_ALIGN_CENTER;
      else if (strcmp(a, "right") == 0) align = TY_ALIGN_RIGHT;
      else if (strcmp(a, "left") != 0)
        luaL_argerror(L, 4, lua_pushfstring(L, "align: \"left\", \"center\" or \"right\" expected, got \"%s\"", a));
    }
    if (opt_field(L, 4, "width", LUA_TNUMBER, "number") != LUA_TNIL) {
      width = (float)lua_tonumber(L, -1);
      if (!(width >= 0)) luaL_argerror(L, 4, "width: must not be negative");
    }
  }
  ty_renderer *R = ty_lua_renderer(L);
  if (!ty_render_device(R)) return 0; /* headless: nothing would draw it */
  if (!font) font = ty_push_default_font(L, 12);
  ty_draw_text(R, font, s, len, x, y, c, align, width);
  return 0;
}

/* tycho.draw.rect(mode, x, y, w, h [, color]) */
static int draw_rect(lua_State *L) {
  bool fill = check_mode(L, 1);
  float x = num(L, 2), y = num(L, 3), w = num(L, 4), h = num(L, 5), c[4];
  ty_draw_rect(ty_lua_renderer(L), fill, x, y, w, h, opt_color(L, 6, c));
  return 0;
}

/* tycho.draw.circle(mode, x, y, r [, color]) */
static int draw_circle(lua_State *L) {
  bool fill = check_mode(L, 1);
  float x = num(L, 2), y = num(L, 3), r = num(L, 4), c[4];
  luaL_argcheck(L, r >= 0, 4, "radius must not be negative");
  ty_draw_circle(ty_lua_renderer(L), fill, x, y, r, opt_color(L, 5, c));
  return 0;
}

/* tycho.draw.line(x1, y1, x2, y2 [, color [, width]]) */
static int draw_line(lua_State *L) {
  float x1 = num(L, 1), y1 = num(L, 2), x2 = num(L, 3), y2 = num(L, 4), c[4];
  opt_color(L, 5, c);
  float width = (float)luaL_optnumber(L, 6, 1);
  luaL_argcheck(L, width >= 0, 6, "width must not be negative");
  ty_draw_line(ty_lua_renderer(L), x1, y1, x2, y2, c, width);
  return 0;
}

/* tycho.draw.image(texture, x, y [, {rect=, scale=, rotation=, color=}]) */
static int draw_image(lua_State *L) {
  uint32_t tex = ty_check_texture(L, 1);
  float x = num(L, 2), y = num(L, 3), c[4] = {1, 1, 1, 1}, rect[4], sx = 1, sy = 1, rot = 0;
  bool has_rect = false;
  if (!lua_isnoneornil(L, 4)) {
    luaL_checktype(L, 4, LUA_TTABLE);
    if (opt_field(L, 4, "rect", LUA_TTABLE, "table") != LUA_TNIL) {
      for (int i = 0; i < 4; i++) {
        if (lua_rawgeti(L, -1 - i, i + 1) != LUA_TNUMBER) luaL_argerror(L, 4, "rect: {x, y, w, h} numbers expected");
        rect[i] = (float)lua_tonumber(L, -1);
      }
      has_rect = true;
    }
    int t = lua_getfield(L, 4, "scale");
    if (t == LUA_TNUMBER) sx = sy = (float)lua_tonumber(L, -1);
    else if (t == LUA_TTABLE) {
      lua_getfield(L, -1, "x");
      lua_getfield(L, -2, "y");
      if (!lua_isnumber(L, -2) || !lua_isnumber(L, -1)) luaL_argerror(L, 4, "scale: number or {x=, y=} expected");
      sx = (float)lua_tonumber(L, -2), sy = (float)lua_tonumber(L, -1);
    } else if (t != LUA_TNIL) luaL_argerror(L, 4, "scale: number or {x=, y=} expected");
    if (opt_field(L, 4, "rotation", LUA_TNUMBER, "number") != LUA_TNIL) rot = (float)lua_tonumber(L, -1);
    if (opt_field(L, 4, "color", LUA_TTABLE, "table") != LUA_TNIL) opt_color(L, lua_gettop(L), c);
  }
  ty_draw_image(ty_lua_renderer(L), tex, x, y, has_rect ? rect : NULL, sx, sy, rot, c);
  return 0;
}

static ty_draw_align check_align(lua_State *L, int idx) {
  static const char *const aligns[] = {"left", "center", "right", NULL};
  return (ty_draw_align)luaL_checkoption(L, idx, "left", aligns);
}

/* tycho.draw._world(gameObject, text, font, color, align, width, pixelsPerUnit): the Text
 * component's call, once a rendered frame (scripts/tycho/text.lua). */
static int draw_world(lua_State *L) {
  ty_id id = ty_check_gameobject(L, 1);
  size_t len;
  const char *s = luaL_checklstring(L, 2, &len);
  ty_font *font = ty_check_font(L, 3);
  float c[4];
  opt_color(L, 4, c);
  ty_draw_align align = check_align(L, 5);
  float width = (float)luaL_optnumber(L, 6, 0), ppu = (float)luaL_checknumber(L, 7);
  luaL_argcheck(L, width >= 0, 6, "width must not be negative");
  luaL_argcheck(L, ppu > 0, 7, "pixelsPerUnit must be positive");
  ty_renderer *R = ty_lua_renderer(L);
  if (!ty_render_device(R)) return 0;
  ty_draw_world_text(R, font, s, len, ty_lua_world_matrix(L, id), c, align, width, ppu);
  return 0;
}

/* tycho.draw.queued() -> quads, draws: what the next frame will draw */
static int draw_queued(lua_State *L) {
  uint32_t runs;
  lua_pushinteger(L, ty_draw_queued(ty_lua_renderer(L), &runs));
  lua_pushinteger(L, runs);
  return 2;
}

/* tycho.draw.clear(): drops the queue undrawn. */
static int draw_clear(lua_State *L) {
  ty_draw_clear(ty_lua_renderer(L));
  return 0;
}

/* tycho.draw._addPasses(): the engine's call once every feature declared its passes. */
static int draw_add_passes(lua_State *L) {
  ty_renderer *R = ty_lua_renderer(L);
  ty_frame *F = ty_render_frame_current(R);
  if (!F) {
    ty_draw_clear(R);
    return 0;
  }
  if (!ty_render_add_draw2d(R, F)) return luaL_error(L, "%s", ty_render_error(R));
  return 0;
}

void ty_open_draw(lua_State *L) {
  static const luaL_Reg fns[] = {{"text", draw_text},       {"rect", draw_rect},   {"circle", draw_circle},
                                 {"line", draw_line},       {"image", draw_image}, {"queued", draw_queued},
                                 {"clear", draw_clear},     {"_addPasses", draw_add_passes},
                                 {"_world", draw_world},
                                 {NULL, NULL}};
  luaL_newlib(L, fns);
  lua_setfield(L, -2, "draw");
}
