/* bindings/lua_render_assets.h: the render binding's assets (lua_render_assets.c): Mesh,
 * Texture and Material, for the bindings that take or make them. lua_render.h includes it,
 * so a file that includes that one sees these too. */
#ifndef TY_LUA_RENDER_ASSETS_H
#define TY_LUA_RENDER_ASSETS_H

#include <stdint.h>

#include "bindings.h"

/* Each userdata holds an id into the renderer's tables. check raises a type error, test
 * returns NULL (else the id's address), opt returns def for none or nil; push makes a new
 * userdata for an id. */
#define TY_MESH "Mesh"
#define TY_TEXTURE "Texture"
#define TY_MATERIAL "Material"
uint32_t ty_check_mesh(lua_State *L, int idx);
uint32_t *ty_test_mesh(lua_State *L, int idx);
uint32_t ty_opt_mesh(lua_State *L, int idx, uint32_t def);
void ty_push_mesh(lua_State *L, uint32_t id);
uint32_t ty_check_texture(lua_State *L, int idx);
uint32_t *ty_test_texture(lua_State *L, int idx);
uint32_t ty_opt_texture(lua_State *L, int idx, uint32_t def);
void ty_push_texture(lua_State *L, uint32_t id);
uint32_t ty_check_material(lua_State *L, int idx);
uint32_t *ty_test_material(lua_State *L, int idx);
uint32_t ty_opt_material(lua_State *L, int idx, uint32_t def);
void ty_push_material(lua_State *L, uint32_t id);

#endif
