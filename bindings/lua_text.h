/* bindings/lua_text.h: the Font type of lua_text.c, for the bindings that draw text. */
#ifndef TY_LUA_TEXT_H
#define TY_LUA_TEXT_H

#include "bindings.h"
#include "text/text.h" /* Required for: ty_font */

#define TY_FONT "Font"

/* The font at idx; raises the standard bad-argument error for anything else. */
ty_font *ty_check_font(lua_State *L, int idx);
/* The font at idx, or NULL when it is not a Font. */
ty_font *ty_test_font(lua_State *L, int idx);
/* The font at idx, def for none or nil; raises for anything else. */
ty_font *ty_opt_font(lua_State *L, int idx, ty_font *def);
/* Pushes tycho.font.default(size): the engine's font, one Font per size, kept for the
 * state's life. Raises when the shipped file is missing (a broken install). */
ty_font *ty_push_default_font(lua_State *L, float size);

#endif
