/* bindings/lua_image.c: tycho.image.load(path) -> {width=, height=, pixels=} and
 * tycho.image.save(path, width, height, pixels), over the platform's stb-backed image
 * files. Pixels are a string of RGBA8 bytes, top row first: what a golden-image test
 * compares byte by byte, and what engine:screenshot writes. No window or GL needed. */
#include "lua_image.h"


#include "platform/platform.h" /* Required for: ty_image_load, ty_image_write_png */

/* tycho.image.load(path) -> {width=, height=, pixels=} or nil, message */
static int image_load(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  int w = 0, h = 0;
  uint8_t *px = ty_image_load(path, &w, &h);
  if (!px) {
    luaL_pushfail(L);
    lua_pushfstring(L, "%s: cannot decode image", path);
    return 2;
  }
  lua_createtable(L, 0, 3);
  lua_pushinteger(L, w);
  lua_setfield(L, -2, "width");
  lua_pushinteger(L, h);
  lua_setfield(L, -2, "height");
  lua_pushlstring(L, (const char *)px, (size_t)w * (size_t)h * 4);
  lua_setfield(L, -2, "pixels");
  ty_image_free(px);
  return 1;
}

/* tycho.image.save(path, width, height, pixels) -> true or nil, message (PNG only) */
static int image_save(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  lua_Integer w = luaL_checkinteger(L, 2), h = luaL_checkinteger(L, 3);
  size_t len;
  const char *px = luaL_checklstring(L, 4, &len);
  luaL_argcheck(L, w > 0 && w <= 65536, 2, "width must be in 1..65536");
  luaL_argcheck(L, h > 0 && h <= 65536, 3, "height must be in 1..65536");
  if ((lua_Integer)len != w * h * 4)
    return luaL_argerror(L, 4, lua_pushfstring(L, "expected %d bytes (width * height * 4), got %d",
                                               (int)(w * h * 4), (int)len));
  if (!ty_image_write_png(path, (int)w, (int)h, (const uint8_t *)px)) {
    luaL_pushfail(L);
    lua_pushfstring(L, "%s: cannot write PNG", path);
    return 2;
  }
  lua_pushboolean(L, 1);
  return 1;
}

void ty_open_image(lua_State *L) {
  static const luaL_Reg fns[] = {{"load", image_load}, {"save", image_save}, {NULL, NULL}};
  luaL_newlib(L, fns);
  lua_setfield(L, -2, "image");
}
