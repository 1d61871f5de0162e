/* bindings/lua_text.c: the Lua face of engine/text/text.h: tycho.font.load(path, size),
 * tycho.font.default([size]) and the Font type (getWidth, getHeight, getAscent,
 * getDescent, getSize, wrap, preload) and tycho.font.stats(). Text is drawn from Lua by
 * tycho.draw (lua_draw.c), which takes its fonts from here. */
#include <string.h>

#include "lua_host_root.h" /* Required for: ty_host_root (the shipped font's folder) */
#include "lua_text.h"

#define DEFAULT_FONT "content/fonts/DejaVuSans.ttf"
#define DEFAULT_SIZE 12.0f /* LÖVE's default font size */

typedef struct font_ud {
  ty_font *font;
} font_ud;

ty_font *ty_check_font(lua_State *L, int idx) { return ((font_ud *)ty_check(L, idx, TY_FONT))->font; }
ty_font *ty_test_font(lua_State *L, int idx) {
  font_ud *u = ty_test(L, idx, TY_FONT);
  return u ? u->font : NULL;
}
ty_font *ty_opt_font(lua_State *L, int idx, ty_font *def) {
  font_ud *u = ty_opt(L, idx, TY_FONT);
  return u ? u->font : def;
}

static int font_gc(lua_State *L) {
  font_ud *u = luaL_checkudata(L, 1, TY_FONT);
  ty_font_destroy(u->font);
  u->font = NULL;
  return 0;
}

static float check_size(lua_State *L, int idx) {
  lua_Number size = luaL_optnumber(L, idx, DEFAULT_SIZE);
  luaL_argcheck(L, size > 0 && size <= TY_TEXT_MAX_SIZE, idx, "size must be in (0, 512]");
  return (float)size;
}

/* Pushes a Font for path, or nil and the message. */
static int push_loaded(lua_State *L, const char *path, float size) {
  font_ud *u = lua_newuserdatauv(L, sizeof *u, 0);
  u->font = NULL;
  char err[512];
  u->font = ty_font_load(path, size, err, sizeof err);
  if (!u->font) return ty_fail(L, "%s", err);
  luaL_setmetatable(L, TY_FONT);
  return 1;
}

/* tycho.font.load(path [, size]) -> Font, or nil and a message */
static int font_load(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  return push_loaded(L, path, check_size(L, 2));
}

ty_font *ty_push_default_font(lua_State *L, float size) {
  luaL_getsubtable(L, LUA_REGISTRYINDEX, "tycho.font.default");
  lua_pushnumber(L, size);
  if (lua_rawget(L, -2) == LUA_TUSERDATA) {
    lua_remove(L, -2);
    return ty_check_font(L, -1);
  }
  lua_pop(L, 1);
  lua_pushfstring(L, "%s/" DEFAULT_FONT, ty_host_root());
  int n = push_loaded(L, lua_tostring(L, -1), size);
  if (n == 2) lua_error(L); /* the message is on top */
  lua_remove(L, -2);
  lua_pushnumber(L, size);
  lua_pushvalue(L, -2);
  lua_rawset(L, -4);
  lua_remove(L, -2);
  return ty_check_font(L, -1);
}

/* tycho.font.default([size]) -> Font (12 pixels unless given; one Font per size) */
static int font_default(lua_State *L) {
  ty_push_default_font(L, check_size(L, 1));
  return 1;
}

/* font:getWidth(text) -> pixels of its widest line */
static int font_get_width(lua_State *L) {
  ty_font *f = ty_check_font(L, 1);
  size_t len;
  const char *s = luaL_checklstring(L, 2, &len);
  lua_pushnumber(L, ty_font_width(f, s, len));
  return 1;
}

static int font_get_height(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)ty_font_height(ty_check_font(L, 1))); /* whole pixels */
  return 1;
}

static int font_get_ascent(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)ty_font_ascent(ty_check_font(L, 1)));
  return 1;
}

static int font_get_descent(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)ty_font_descent(ty_check_font(L, 1)));
  return 1;
}

static int font_get_size(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)ty_font_size(ty_check_font(L, 1)));
  return 1;
}

/* font:wrap(text, width) -> lines (array of strings), widest line's width */
static int font_wrap(lua_State *L) {
  ty_font *f = ty_check_font(L, 1);
  size_t len;
  const char *s = luaL_checklstring(L, 2, &len);
  lua_Number width = luaL_checknumber(L, 3);
  luaL_argcheck(L, width >= 0, 3, "width must not be negative");
  const ty_text_line *lines;
  uint32_t n = ty_font_wrap(f, s, len, (float)width, &lines);
  lua_createtable(L, (int)n, 0);
  float widest = 0;
  for (uint32_t i = 0; i < n; i++) {
    lua_pushlstring(L, s + lines[i].start, lines[i].len);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
    if (lines[i].width > widest) widest = lines[i].width;
  }
  lua_pushnumber(L, widest);
  return 2;
}

/* font:preload(text): rasterises text's glyphs into the atlas now, so the first frame that
 * draws them does not. */
static int font_preload(lua_State *L) {
  ty_font *f = ty_check_font(L, 1);
  size_t len;
  const char *s = luaL_checklstring(L, 2, &len);
  const ty_text_quad *quads;
  for (size_t at = 0;;) { /* line by line: a long text shapes in pieces */
    const char *nl = memchr(s + at, '\n', len - at);
    size_t end = nl ? (size_t)(nl - s) : len;
    ty_font_layout(f, s + at, end - at, 0, 0, &quads, NULL);
    if (!nl) return 0;
    at = end + 1;
  }
}

/* tycho.font.stats() -> {pages=, glyphs=, evictions=}: the glyph atlas */
static int font_stats(lua_State *L) {
  uint64_t glyphs, evictions;
  ty_text_atlas_stats(&glyphs, &evictions);
  lua_createtable(L, 0, 4);
  lua_pushinteger(L, ty_text_page_count());
  lua_setfield(L, -2, "pages");
  lua_pushinteger(L, TY_TEXT_MAX_PAGES);
  lua_setfield(L, -2, "maxPages");
  lua_pushinteger(L, (lua_Integer)glyphs);
  lua_setfield(L, -2, "glyphs");
  lua_pushinteger(L, (lua_Integer)evictions);
  lua_setfield(L, -2, "evictions");
  return 1;
}

static int font_tostring(lua_State *L) {
  font_ud *u = luaL_checkudata(L, 1, TY_FONT);
  if (u->font) lua_pushfstring(L, "Font(%d px)", (int)ty_font_size(u->font));
  else lua_pushliteral(L, "Font(freed)");
  return 1;
}

void ty_open_text(lua_State *L) {
  static const luaL_Reg methods[] = {{"getWidth", font_get_width},     {"getHeight", font_get_height},
                                     {"getAscent", font_get_ascent},   {"getDescent", font_get_descent},
                                     {"getSize", font_get_size},       {"wrap", font_wrap},
                                     {"preload", font_preload},
                                     {NULL, NULL}};
  static const luaL_Reg meta[] = {{"__gc", font_gc}, {"__tostring", font_tostring}, {NULL, NULL}};
  ty_type_register(L, TY_FONT, meta, methods);
  static const luaL_Reg fns[] = {{"load", font_load}, {"default", font_default}, {"stats", font_stats},
                                 {NULL, NULL}};
  luaL_newlib(L, fns);
  lua_setfield(L, -2, "font");
}
