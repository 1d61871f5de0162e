/* bindings/lua_render_assets.c: the renderer's assets as Lua values: tycho.mesh (built-in
 * shapes, cached per state, and files), tycho.texture (files and pixels), tycho.material{...}.
 *
 * Each is a userdata holding an id into a renderer table that is never freed, so a Lua
 * handle never dangles. The Mesh, Texture and Material trios (lua_render_assets.h) are how
 * other bindings take and make them. */
#include "lua_render_assets.h"
#include "lua_render_state.h"

#include <string.h>

/* ---- Mesh ---- */

static uint32_t *push_id(lua_State *L, const char *type, uint32_t id) {
  uint32_t *u = lua_newuserdatauv(L, sizeof *u, 0);
  *u = id;
  luaL_setmetatable(L, type);
  return u;
}

/* The trios lua_render.h exports: the id a Mesh, Texture or Material userdata holds. */
uint32_t ty_check_mesh(lua_State *L, int idx) { return *(uint32_t *)ty_check(L, idx, TY_MESH); }
uint32_t *ty_test_mesh(lua_State *L, int idx) { return ty_test(L, idx, TY_MESH); }
uint32_t ty_opt_mesh(lua_State *L, int idx, uint32_t def) {
  uint32_t *u = ty_opt(L, idx, TY_MESH);
  return u ? *u : def;
}
void ty_push_mesh(lua_State *L, uint32_t id) { push_id(L, TY_MESH, id); }

uint32_t ty_check_texture(lua_State *L, int idx) { return *(uint32_t *)ty_check(L, idx, TY_TEXTURE); }
uint32_t *ty_test_texture(lua_State *L, int idx) { return ty_test(L, idx, TY_TEXTURE); }
uint32_t ty_opt_texture(lua_State *L, int idx, uint32_t def) {
  uint32_t *u = ty_opt(L, idx, TY_TEXTURE);
  return u ? *u : def;
}
void ty_push_texture(lua_State *L, uint32_t id) { push_id(L, TY_TEXTURE, id); }

uint32_t ty_check_material(lua_State *L, int idx) { return *(uint32_t *)ty_check(L, idx, TY_MATERIAL); }
uint32_t *ty_test_material(lua_State *L, int idx) { return ty_test(L, idx, TY_MATERIAL); }
uint32_t ty_opt_material(lua_State *L, int idx, uint32_t def) {
  uint32_t *u = ty_opt(L, idx, TY_MATERIAL);
  return u ? *u : def;
}
void ty_push_material(lua_State *L, uint32_t id) { push_id(L, TY_MATERIAL, id); }

/* Meshes are never freed, so built-in shapes are made once per state and shared. */
static int push_cached_mesh(lua_State *L, const char *key, int (*make)(lua_State *L, ty_mesh_data *m)) {
  lua_getfield(L, LUA_REGISTRYINDEX, "tycho.render.meshes");
  if (lua_getfield(L, -1, key) == LUA_TUSERDATA) {
    lua_remove(L, -2);
    return 1;
  }
  lua_pop(L, 1);
  ty_mesh_data m = {0};
  make(L, &m);
  uint32_t id = ty_render_add_mesh(lr_get(L)->R, &m, key);
  ty_mesh_free(&m);
  push_id(L, TY_MESH, id);
  lua_pushvalue(L, -1);
  lua_setfield(L, -3, key);
  lua_remove(L, -2);
  return 1;
}

static int make_cube(lua_State *L, ty_mesh_data *m) {
  (void)L;
  ty_mesh_cube(m);
  return 0;
}
static int make_quad(lua_State *L, ty_mesh_data *m) {
  (void)L;
  ty_mesh_quad(m);
  return 0;
}
static int make_sphere(lua_State *L, ty_mesh_data *m) {
  ty_mesh_sphere(m, (uint32_t)lua_tointeger(L, 1), (uint32_t)lua_tointeger(L, 2));
  return 0;
}
static int make_plane(lua_State *L, ty_mesh_data *m) {
  ty_mesh_plane(m, (uint32_t)lua_tointeger(L, 1));
  return 0;
}

static int mesh_cube(lua_State *L) { return push_cached_mesh(L, "cube", make_cube); }
static int mesh_quad(lua_State *L) { return push_cached_mesh(L, "quad", make_quad); }

static int mesh_sphere(lua_State *L) {
  lua_Integer seg = luaL_optinteger(L, 1, 32), rings = luaL_optinteger(L, 2, 16);
  luaL_argcheck(L, seg >= 3 && seg <= 1024, 1, "segments must be in 3..1024");
  luaL_argcheck(L, rings >= 2 && rings <= 1024, 2, "rings must be in 2..1024");
  lua_settop(L, 0);
  lua_pushinteger(L, seg);
  lua_pushinteger(L, rings);
  char key[64];
  snprintf(key, sizeof key, "sphere:%d:%d", (int)seg, (int)rings);
  return push_cached_mesh(L, key, make_sphere);
}

static int mesh_plane(lua_State *L) {
  lua_Integer n = luaL_optinteger(L, 1, 1);
  luaL_argcheck(L, n >= 1 && n <= 1024, 1, "subdivisions must be in 1..1024");
  lua_settop(L, 0);
  lua_pushinteger(L, n);
  char key[64];
  snprintf(key, sizeof key, "plane:%d", (int)n);
  return push_cached_mesh(L, key, make_plane);
}

/* tycho.mesh.load(path) -> Mesh, or the placeholder Mesh, false, message */
static int mesh_load(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  char full[4096];
  lr_resolve_path(L, path, full, sizeof full);
  lua_getfield(L, LUA_REGISTRYINDEX, "tycho.render.meshes");
  lua_pushfstring(L, "file:%s", full);
  if (lua_rawget(L, -2) == LUA_TUSERDATA) return 1;
  lua_pop(L, 1);
  lrender *lr = lr_get(L);
  bool ok = false;
  uint32_t id = ty_render_load_mesh(lr->R, full, &ok);
  push_id(L, TY_MESH, id);
  if (!ok) {
    lua_pushboolean(L, 0);
    const char *err = ty_render_error(lr->R);
    lua_pushstring(L, err && *err ? err : "mesh could not be loaded");
    return 3;
  }
  lua_pushfstring(L, "file:%s", full);
  lua_pushvalue(L, -2);
  lua_rawset(L, -4);
  return 1;
}

/* mesh:triangles() -> {vertices = {x1, y1, z1, ...}, indices = {i1, i2, i3, ...}} (indices
 * from 1): the positions a MeshCollider takes, read from the renderer's CPU copy. */
static int mesh_triangles(lua_State *L) {
  uint32_t id = ty_check_mesh(L, 1);
  const ty_vertex *v;
  const uint32_t *idx;
  uint32_t nv = 0, ni = 0;
  if (!ty_render_mesh_data(lr_get(L)->R, id, &v, &nv, &idx, &ni)) nv = ni = 0;
  lua_createtable(L, 0, 2);
  lua_createtable(L, (int)(3 * nv), 0);
  for (uint32_t i = 0; i < nv; i++)
    for (int k = 0; k < 3; k++) {
      lua_pushnumber(L, v[i].position[k]);
      lua_rawseti(L, -2, (lua_Integer)(3 * i + (uint32_t)k + 1));
    }
  lua_setfield(L, -2, "vertices");
  lua_createtable(L, (int)ni, 0);
  for (uint32_t i = 0; i < ni; i++) {
    lua_pushinteger(L, (lua_Integer)idx[i] + 1);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  lua_setfield(L, -2, "indices");
  return 1;
}

static int mesh_index(lua_State *L) {
  uint32_t id = ty_check_mesh(L, 1);
  const char *k = luaL_checkstring(L, 2);
  uint32_t v = 0, i = 0;
  bool known = ty_render_mesh_info(lr_get(L)->R, id, &v, &i);
  if (strcmp(k, "vertexCount") == 0) lua_pushinteger(L, known ? v : 0);
  else if (strcmp(k, "indexCount") == 0) lua_pushinteger(L, known ? i : 0);
  else if (strcmp(k, "id") == 0) lua_pushinteger(L, id);
  else if (strcmp(k, "triangles") == 0) lua_pushcfunction(L, mesh_triangles);
  else lua_pushnil(L);
  return 1;
}

static int id_eq(lua_State *L) {
  lua_pushboolean(L, *(uint32_t *)lua_touserdata(L, 1) == *(uint32_t *)lua_touserdata(L, 2));
  return 1;
}

static int mesh_tostring(lua_State *L) {
  lua_pushfstring(L, "Mesh #%d", (int)ty_check_mesh(L, 1));
  return 1;
}

/* ---- Texture ---- */

static int texture_load(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  char full[4096];
  lr_resolve_path(L, path, full, sizeof full);
  lrender *lr = lr_get(L);
  bool ok = false;
  uint32_t id = ty_render_load_texture(lr->R, full, &ok);
  push_id(L, TY_TEXTURE, id);
  if (ok) return 1;
  lua_pushboolean(L, 0);
  const char *err = ty_render_error(lr->R);
  lua_pushstring(L, err && *err ? err : "texture could not be loaded");
  return 3;
}

/* tycho.texture.new(width, height [, pixels]): pixels a string of width*height*4 RGBA8
 * bytes, top row first (white when absent). */
static int texture_new(lua_State *L) {
  lua_Integer w = luaL_checkinteger(L, 1), h = luaL_checkinteger(L, 2);
  luaL_argcheck(L, w >= 1 && w <= 16384, 1, "width must be in 1..16384");
  luaL_argcheck(L, h >= 1 && h <= 16384, 2, "height must be in 1..16384");
  size_t need = (size_t)w * (size_t)h * 4, len = 0;
  const char *bytes = luaL_optlstring(L, 3, NULL, &len);
  uint8_t *white = NULL;
  if (bytes) {
    luaL_argcheck(L, len == need, 3, "pixels must hold width * height * 4 bytes");
  } else {
    white = TY_MALLOC(need);
    TY_ASSERT(white);
    memset(white, 255, need);
  }
  uint32_t id = ty_render_add_texture(lr_get(L)->R, (uint32_t)w, (uint32_t)h,
                                      bytes ? (const uint8_t *)bytes : white, luaL_optstring(L, 4, "texture"));
  TY_FREE(white);
  push_id(L, TY_TEXTURE, id);
  return 1;
}

static int texture_index(lua_State *L) {
  uint32_t id = ty_check_texture(L, 1);
  const char *k = luaL_checkstring(L, 2);
  uint32_t w = 0, h = 0;
  bool known = ty_render_texture_size(lr_get(L)->R, id, &w, &h);
  if (strcmp(k, "width") == 0) lua_pushinteger(L, known ? w : 0);
  else if (strcmp(k, "height") == 0) lua_pushinteger(L, known ? h : 0);
  else if (strcmp(k, "id") == 0) lua_pushinteger(L, id);
  else lua_pushnil(L);
  return 1;
}

static int texture_tostring(lua_State *L) {
  lua_pushfstring(L, "Texture #%d", (int)ty_check_texture(L, 1));
  return 1;
}

/* ---- Material ---- */

/* Sets field k of m from the value at idx; false for an unknown field. Raises on a bad value. */
static bool material_set_field(lua_State *L, ty_material *m, const char *k, int idx) {
  idx = lua_absindex(L, idx);
  if (strcmp(k, "baseColor") == 0) {
    if (!lr_read_color(L, idx, m->base_color, 4))
      luaL_error(L, "Material.baseColor must be a colour {r, g, b[, a]} or a Vec3, got %s", luaL_typename(L, idx));
  } else if (strcmp(k, "emissive") == 0) {
    if (!lr_read_color(L, idx, m->emissive, 3))
      luaL_error(L, "Material.emissive must be a colour {r, g, b} or a Vec3, got %s", luaL_typename(L, idx));
  } else if (strcmp(k, "metallic") == 0 || strcmp(k, "roughness") == 0) {
    if (!lua_isnumber(L, idx)) luaL_error(L, "Material.%s must be a number, got %s", k, luaL_typename(L, idx));
    float v = (float)lua_tonumber(L, idx);
    v = v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v;
    if (k[0] == 'm') m->metallic = v;
    else m->roughness = v;
  } else if (strcmp(k, "texture") == 0) {
    if (lua_isnil(L, idx)) m->texture = TY_RENDER_TEXTURE_WHITE;
    else if (ty_test_texture(L, idx)) m->texture = *ty_test_texture(L, idx);
    else luaL_error(L, "Material.texture must be a Texture or nil, got %s", luaL_typename(L, idx));
  } else if (strcmp(k, "transparent") == 0) {
    m->transparent = lua_toboolean(L, idx);
  } else if (strcmp(k, "unlit") == 0) {
    m->unlit = lua_toboolean(L, idx);
  } else if (strcmp(k, "nearest") == 0) {
    m->nearest = lua_toboolean(L, idx);
  } else if (strcmp(k, "wrap") == 0) {
    const char *w = lua_type(L, idx) == LUA_TSTRING ? lua_tostring(L, idx) : NULL;
    if (!w || (strcmp(w, "repeat") != 0 && strcmp(w, "clamp") != 0))
      luaL_error(L, "Material.wrap must be \"repeat\" or \"clamp\", got %s", w ? w : luaL_typename(L, idx));
    m->clamp = w[0] == 'c';
  } else {
    return false;
  }
  return true;
}

/* tycho.material{baseColor=, metallic=, roughness=, texture=, transparent=, emissive=, unlit=, nearest=,
 * wrap=} */
static int material_new(lua_State *L) {
  ty_material m = ty_material_default();
  if (!lua_isnoneornil(L, 1)) {
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_pushnil(L);
    while (lua_next(L, 1)) {
      if (lua_type(L, -2) != LUA_TSTRING) return luaL_argerror(L, 1, "material fields are named by strings");
      const char *k = lua_tostring(L, -2);
      if (!material_set_field(L, &m, k, -1)) {
        return luaL_argerror(L, 1, lua_pushfstring(L, "unknown material field '%s'", k));
      }
      lua_pop(L, 1);
    }
  }
  push_id(L, TY_MATERIAL, ty_render_add_material(lr_get(L)->R, &m));
  return 1;
}

static void push_color(lua_State *L, const float *c, int n) {
  static const char *const keys[] = {"r", "g", "b", "a"};
  lua_createtable(L, n, n);
  for (int i = 0; i < n; i++) {
    lua_pushnumber(L, c[i]);
    lua_rawseti(L, -2, i + 1);
    lua_pushnumber(L, c[i]);
    lua_setfield(L, -2, keys[i]);
  }
}

static int material_index(lua_State *L) {
  uint32_t id = ty_check_material(L, 1);
  const char *k = luaL_checkstring(L, 2);
  const ty_material *m = ty_render_material(lr_get(L)->R, id);
  if (!m) return luaL_error(L, "Material #%d does not exist", (int)id);
  if (strcmp(k, "baseColor") == 0) push_color(L, m->base_color, 4);
  else if (strcmp(k, "emissive") == 0) push_color(L, m->emissive, 3);
  else if (strcmp(k, "metallic") == 0) lua_pushnumber(L, m->metallic);
  else if (strcmp(k, "roughness") == 0) lua_pushnumber(L, m->roughness);
  else if (strcmp(k, "transparent") == 0) lua_pushboolean(L, m->transparent);
  else if (strcmp(k, "unlit") == 0) lua_pushboolean(L, m->unlit);
  else if (strcmp(k, "nearest") == 0) lua_pushboolean(L, m->nearest);
  else if (strcmp(k, "wrap") == 0) lua_pushstring(L, m->clamp ? "clamp" : "repeat");
  else if (strcmp(k, "id") == 0) lua_pushinteger(L, id);
  else if (strcmp(k, "texture") == 0) {
    if (m->texture == TY_RENDER_TEXTURE_WHITE) lua_pushnil(L);
    else push_id(L, TY_TEXTURE, m->texture);
  } else lua_pushnil(L);
  return 1;
}

static int material_newindex(lua_State *L) {
  uint32_t id = ty_check_material(L, 1);
  const char *k = luaL_checkstring(L, 2);
  lrender *lr = lr_get(L);
  const ty_material *cur = ty_render_material(lr->R, id);
  if (!cur) return luaL_error(L, "Material #%d does not exist", (int)id);
  ty_material m = *cur;
  if (!material_set_field(L, &m, k, 3)) return luaL_error(L, "Material has no field '%s'", k);
  ty_render_set_material(lr->R, id, &m);
  return 0;
}

static int material_tostring(lua_State *L) {
  lua_pushfstring(L, "Material #%d", (int)ty_check_material(L, 1));
  return 1;
}

/* ---- opening ---- */

void lr_open_assets(lua_State *L, int tycho) {
  lua_newtable(L);
  lua_setfield(L, LUA_REGISTRYINDEX, "tycho.render.meshes");

  static const luaL_Reg mesh_meta[] = {
      {"__index", mesh_index}, {"__eq", id_eq}, {"__tostring", mesh_tostring}, {NULL, NULL}};
  ty_type_register(L, TY_MESH, mesh_meta, NULL);
  static const luaL_Reg texture_meta[] = {
      {"__index", texture_index}, {"__eq", id_eq}, {"__tostring", texture_tostring}, {NULL, NULL}};
  ty_type_register(L, TY_TEXTURE, texture_meta, NULL);
  static const luaL_Reg material_meta[] = {{"__index", material_index},
                                           {"__newindex", material_newindex},
                                           {"__eq", id_eq},
                                           {"__tostring", material_tostring},
                                           {NULL, NULL}};
  ty_type_register(L, TY_MATERIAL, material_meta, NULL);

  static const luaL_Reg mesh_fns[] = {{"cube", mesh_cube}, {"sphere", mesh_sphere}, {"plane", mesh_plane},
                                      {"quad", mesh_quad}, {"load", mesh_load},     {NULL, NULL}};
  luaL_newlib(L, mesh_fns);
  lua_setfield(L, tycho, "mesh");
  static const luaL_Reg texture_fns[] = {{"load", texture_load}, {"new", texture_new}, {NULL, NULL}};
  luaL_newlib(L, texture_fns);
  lua_setfield(L, tycho, "texture");
  lua_pushcfunction(L, material_new);
  lua_setfield(L, tycho, "material");
}
