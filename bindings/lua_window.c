/* bindings/lua_window.c: tycho.window: the title, the size and fullscreen of the window
 * `tycho run` opened (engine/platform/window.c).
 *
 * Headless (`--headless`, `tycho test`, no display) every function still works: the title
 * and size are remembered, the size is what frames render at and what camera:worldToScreen
 * measures against, and fullscreen is refused (setFullscreen returns false). Sizes are in
 * screen units, the units of tycho.input.mouse(); getPixelSize gives the drawable's pixels,
 * which differ only on HiDPI displays. */
#include "lua_window.h"

#define HEADLESS_MAX 16384

/* The headless window: the window binding's part of the state's context. */
typedef struct lwindow {
  int width, height;
  ty_window *window; /* the window `tycho run` opened; NULL headless */
} lwindow;

/* Its address keys the title in the registry. */
static const char TITLE_KEY = 't';

static lwindow *lw_get(lua_State *L) {
  lwindow *lw = ty_ctx_get(L)->window;
  TY_ASSERT(lw && "the window binding was not opened");
  return lw;
}

ty_window *ty_lua_window(lua_State *L) { return lw_get(L)->window; }

void ty_lua_window_set(lua_State *L, ty_window *w) { lw_get(L)->window = w; }

void ty_lua_window_frame_size(lua_State *L, int *width, int *height) {
  ty_window *w = ty_lua_window(L);
  int fw = 0, fh = 0;
  if (w) ty_window_drawable_size(w, &fw, &fh);
  if (fw <= 0 || fh <= 0) {
    lwindow *lw = lw_get(L);
    fw = lw->width, fh = lw->height;
  }
  *width = fw, *height = fh;
}

void ty_lua_window_set_headless_size(lua_State *L, int width, int height) {
  TY_ASSERT(width > 0 && height > 0);
  lwindow *lw = lw_get(L);
  lw->width = width, lw->height = height;
}

/* tycho.window.setTitle(title) */
static int w_set_title(lua_State *L) {
  const char *title = luaL_checkstring(L, 1);
  ty_window *w = ty_lua_window(L);
  if (w) ty_window_set_title(w, title);
  lua_settop(L, 1);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &TITLE_KEY);
  return 0;
}

/* tycho.window.getTitle() -> title */
static int w_get_title(lua_State *L) {
  ty_window *w = ty_lua_window(L);
  if (w) {
    lua_pushstring(L, ty_window_title(w));
  } else if (lua_rawgetp(L, LUA_REGISTRYINDEX, &TITLE_KEY) == LUA_TNIL) {
    lua_pop(L, 1);
    lua_pushliteral(L, "tycho");
  }
  return 1;
}

/* tycho.window.getSize() -> width, height in screen units */
static int w_get_size(lua_State *L) {
  ty_window *w = ty_lua_window(L);
  int width = 0, height = 0;
  if (w) ty_window_size(w, &width, &height);
  if (width <= 0 || height <= 0) {
    lwindow *lw = lw_get(L);
    width = lw->width, height = lw->height;
  }
  lua_pushinteger(L, width);
  lua_pushinteger(L, height);
  return 2;
}

/* tycho.window.getPixelSize() -> width, height of the drawable in pixels */
static int w_get_pixel_size(lua_State *L) {
  int width, height;
  ty_lua_window_frame_size(L, &width, &height);
  lua_pushinteger(L, width);
  lua_pushinteger(L, height);
  return 2;
}

static int check_side(lua_State *L, int arg) {
  lua_Integer v = luaL_checkinteger(L, arg);
  luaL_argcheck(L, v >= 1 && v <= HEADLESS_MAX, arg, "size must be in 1..16384");
  return (int)v;
}

/* tycho.window.setSize(width, height) */
static int w_set_size(lua_State *L) {
  int width = check_side(L, 1), height = check_side(L, 2);
  ty_window *w = ty_lua_window(L);
  if (w) ty_window_set_size(w, width, height);
  else ty_lua_window_set_headless_size(L, width, height);
  return 0;
}

/* tycho.window.setFullscreen(on) -> whether the window is now as asked (false headless) */
static int w_set_fullscreen(lua_State *L) {
  luaL_checktype(L, 1, LUA_TBOOLEAN);
  bool on = lua_toboolean(L, 1);
  ty_window *w = ty_lua_window(L);
  lua_pushboolean(L, w ? ty_window_set_fullscreen(w, on) : false);
  return 1;
}

/* tycho.window.getFullscreen() -> bool */
static int w_get_fullscreen(lua_State *L) {
  ty_window *w = ty_lua_window(L);
  lua_pushboolean(L, w ? ty_window_fullscreen(w) : false);
  return 1;
}

/* tycho.window.isOpen() -> whether there is a window (false headless) */
static int w_is_open(lua_State *L) {
  lua_pushboolean(L, ty_lua_window(L) != NULL);
  return 1;
}

void ty_open_window(lua_State *L) {
  lwindow *lw = ty_ctx_part(L, sizeof *lw, NULL);
  lw->width = 1280, lw->height = 720; /* the window's default size too */
  ty_ctx_get(L)->window = lw;
  static const luaL_Reg fns[] = {{"setTitle", w_set_title},
                                 {"getTitle", w_get_title},
                                 {"getSize", w_get_size},
                                 {"setSize", w_set_size},
                                 {"getPixelSize", w_get_pixel_size},
                                 {"setFullscreen", w_set_fullscreen},
                                 {"getFullscreen", w_get_fullscreen},
                                 {"isOpen", w_is_open},
                                 {NULL, NULL}};
  luaL_newlib(L, fns);
  lua_setfield(L, -2, "window");
}
