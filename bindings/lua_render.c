/* bindings/lua_render.c: the Lua face of engine/render/renderer.h.
 *
 * Public names: tycho.mesh (built-in shapes and files), tycho.material{...},
 * tycho.texture.load, tycho.stats.render. The components, features and presets are Lua
 * (scripts/tycho/render.lua, scripts/tycho/presets/) over the private table
 * tycho._render this file fills: item and light slots, a frame's begin and end, the
 * built-in features' options parsed once into a userdata, the Frame and RenderGraph
 * userdata a feature's addPasses sees, and the Camera's screen <-> world conversions
 * (engine/render/camera.h).
 *
 * One renderer per Lua state, made headless when the host opens the binding and kept in
 * the registry; the run loop gives it a window (ty_lua_render_set_window). Meshes,
 * materials and textures are ids into renderer tables that are never freed, so a Lua
 * handle never dangles. Graph and resource handles carry the serial of the frame that
 * made them: one kept past its frame raises an error instead of naming a stranger. */
#include "lua_render.h"

#include <string.h>
#include <sys/stat.h>

#include "lua_scene.h" /* Required for: ty_lctx_get, ty_check_gameobject */
#include "lua_window.h" /* Required for: ty_lua_window_frame_size */
#include "render/camera.h" /* Required for: ty_camera_view */

#define TY_MESH "Mesh"
#define TY_MATERIAL "Material"
#define TY_TEXTURE "Texture"
#define TY_FRAME "Frame"
#define TY_GRAPH "RenderGraph"
#define TY_RESOURCE "RenderResource"
#define TY_FEATURE_OPTS "FeatureOptions"

/* A pass whose execute is a Lua function: lives until the next frame begins. */
typedef struct lua_pass {
  lua_State *L;
  int fn_ref;    /* the execute function */
  int owner_ref; /* the feature that declared it, LUA_NOREF when none */
  char name[64];
} lua_pass;

typedef struct lrender {
  ty_renderer *R;
  ty_gl_device *dev;
  ty_window *window;
  ty_frame *F;          /* the frame begun last (NULL before the first) */
  bool in_frame;        /* between beginFrame and endFrame */
  bool executing;       /* inside endFrame: Lua passes are running */
  uint64_t serial;      /* frames begun: stamps graph and resource handles */
  lua_pass **passes;    /* this frame's Lua passes (pointers: rg keeps them as user data) */
  uint32_t pass_count, pass_cap;
  int frame_ref;        /* the Frame userdata, one per state, reused */
  int owner_ref;        /* the feature whose addPasses runs now, LUA_NOREF outside */
  int failures_ref;     /* this frame's Lua pass failures: {{pass=, message=, owner=}} */
} lrender;

typedef struct lgraph {
  uint64_t serial;
} lgraph;

typedef struct lresource {
  rg_resource r;
  uint64_t serial;
} lresource;

typedef struct lfeature {
  ty_feature_kind kind;
  ty_feature_opts opts; /* overlay.text points into the userdata's user value */
} lfeature;

static lrender *lr_get(lua_State *L) {
  lrender *lr = ty_ctx_get(L)->render;
  TY_ASSERT(lr && "the render binding was not opened");
  return lr;
}

ty_renderer *ty_lua_renderer(lua_State *L) { return lr_get(L)->R; }

ty_window *ty_lua_render_window(lua_State *L) { return lr_get(L)->window; }

bool ty_lua_render_set_window(lua_State *L, ty_window *w) {
  lrender *lr = lr_get(L);
  if (lr->dev) {
    ty_render_attach(lr->R, NULL);
    ty_gl_destroy(lr->dev);
    lr->dev = NULL;
  }
  lr->window = NULL;
  if (!w) return true;
  /* ty_gl_create logs gl_unavailable itself when the context is missing or too old. */
  lr->dev = ty_gl_create(NULL);
  if (!lr->dev) return false;
  lr->window = w;
  ty_render_attach(lr->R, lr->dev);
  return true;
}

/* ---- helpers ---- */

static void release_passes(lua_State *L, lrender *lr) {
  for (uint32_t i = 0; i < lr->pass_count; i++) {
    luaL_unref(L, LUA_REGISTRYINDEX, lr->passes[i]->fn_ref);
    luaL_unref(L, LUA_REGISTRYINDEX, lr->passes[i]->owner_ref);
    TY_FREE(lr->passes[i]);
  }
  lr->pass_count = 0;
}

static int render_gc(lua_State *L) {
  lrender *lr = lua_touserdata(L, 1);
  if (!lr->R) return 0;
  release_passes(L, lr);
  TY_FREE(lr->passes);
  lr->passes = NULL;
  /* The renderer frees its GPU resources through the device, so the device goes last. */
  ty_render_destroy(lr->R);
  lr->R = NULL;
  ty_gl_destroy(lr->dev);
  lr->dev = NULL;
  return 0;
}

/* A number field of the table at idx, def when absent; an error naming what when not a number. */
static float opt_number(lua_State *L, int idx, const char *key, float def, const char *what) {
  float v = def;
  int t = lua_getfield(L, idx, key);
  if (t == LUA_TNUMBER) v = (float)lua_tonumber(L, -1);
  else if (t != LUA_TNIL) luaL_error(L, "%s: '%s' must be a number, got %s", what, key, luaL_typename(L, -1));
  lua_pop(L, 1);
  return v;
}

static bool opt_bool(lua_State *L, int idx, const char *key, bool def) {
  bool v = def;
  if (lua_getfield(L, idx, key) != LUA_TNIL) v = lua_toboolean(L, -1);
  lua_pop(L, 1);
  return v;
}

/* Reads a colour at idx: {r, g, b[, a]}, {r=, g=, b=[, a=]} or a Vec3; n is 3 or 4 (alpha
 * defaults to 1). False when the value is none of these. */
static bool read_color(lua_State *L, int idx, float *out, int n) {
  idx = lua_absindex(L, idx);
  if (n == 4) out[3] = 1.0f;
  if (luaL_testudata(L, idx, TY_VEC3)) {
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
static bool opt_color(lua_State *L, int idx, const char *key, float *out, int n, const char *what) {
  bool given = lua_getfield(L, idx, key) != LUA_TNIL;
  if (given && !read_color(L, -1, out, n))
    luaL_error(L, "%s: '%s' must be a colour {r, g, b%s} or a Vec3", what, key, n == 4 ? "[, a]" : "");
  lua_pop(L, 1);
  return given;
}

/* Resolves a relative asset path: as given when that exists, else under each folder of
 * package.path (the game's first), else under the engine's home. Unchanged when nothing
 * matches, so the loader's message names what the game wrote. */
static void resolve_path(lua_State *L, const char *path, char *out, size_t size) {
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

/* ---- Mesh ---- */

static uint32_t *push_id(lua_State *L, const char *type, uint32_t id) {
  uint32_t *u = lua_newuserdatauv(L, sizeof *u, 0);
  *u = id;
  luaL_setmetatable(L, type);
  return u;
}

static uint32_t check_mesh(lua_State *L, int idx) { return *(uint32_t *)luaL_checkudata(L, idx, TY_MESH); }
static uint32_t check_material(lua_State *L, int idx) { return *(uint32_t *)luaL_checkudata(L, idx, TY_MATERIAL); }
static uint32_t check_texture(lua_State *L, int idx) { return *(uint32_t *)luaL_checkudata(L, idx, TY_TEXTURE); }

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
  resolve_path(L, path, full, sizeof full);
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
  uint32_t id = check_mesh(L, 1);
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
  uint32_t id = check_mesh(L, 1);
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
  lua_pushfstring(L, "Mesh #%d", (int)check_mesh(L, 1));
  return 1;
}

/* ---- Texture ---- */

static int texture_load(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  char full[4096];
  resolve_path(L, path, full, sizeof full);
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
  uint32_t id = check_texture(L, 1);
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
  lua_pushfstring(L, "Texture #%d", (int)check_texture(L, 1));
  return 1;
}

/* ---- Material ---- */

/* Sets field k of m from the value at idx; false for an unknown field. Raises on a bad value. */
static bool material_set_field(lua_State *L, ty_material *m, const char *k, int idx) {
  idx = lua_absindex(L, idx);
  if (strcmp(k, "baseColor") == 0) {
    if (!read_color(L, idx, m->base_color, 4))
      luaL_error(L, "Material.baseColor must be a colour {r, g, b[, a]} or a Vec3, got %s", luaL_typename(L, idx));
  } else if (strcmp(k, "emissive") == 0) {
    if (!read_color(L, idx, m->emissive, 3))
      luaL_error(L, "Material.emissive must be a colour {r, g, b} or a Vec3, got %s", luaL_typename(L, idx));
  } else if (strcmp(k, "metallic") == 0 || strcmp(k, "roughness") == 0) {
    if (!lua_isnumber(L, idx)) luaL_error(L, "Material.%s must be a number, got %s", k, luaL_typename(L, idx));
    float v = (float)lua_tonumber(L, idx);
    v = v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v;
    if (k[0] == 'm') m->metallic = v;
    else m->roughness = v;
  } else if (strcmp(k, "texture") == 0) {
    if (lua_isnil(L, idx)) m->texture = TY_RENDER_TEXTURE_WHITE;
    else if (luaL_testudata(L, idx, TY_TEXTURE)) m->texture = *(uint32_t *)lua_touserdata(L, idx);
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
  uint32_t id = check_material(L, 1);
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
  uint32_t id = check_material(L, 1);
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
  lua_pushfstring(L, "Material #%d", (int)check_material(L, 1));
  return 1;
}

/* ---- items and lights (tycho._render) ---- */

static ty_render_item *check_item(lua_State *L, lrender *lr, int idx) {
  lua_Integer slot = luaL_checkinteger(L, idx);
  ty_render_item *it = slot >= 0 && slot <= UINT32_MAX ? ty_render_item_at(lr->R, (uint32_t)slot) : NULL;
  if (!it) luaL_error(L, "render item %d is not live", (int)slot);
  return it;
}

/* _render.itemCreate(gameObject) -> slot */
static int r_item_create(lua_State *L) {
  ty_id id = ty_check_gameobject(L, 1);
  lua_pushinteger(L, ty_render_item_create(lr_get(L)->R, id));
  return 1;
}

static int r_item_destroy(lua_State *L) {
  lrender *lr = lr_get(L);
  check_item(L, lr, 1);
  ty_render_item_destroy(lr->R, (uint32_t)lua_tointeger(L, 1));
  return 0;
}

/* _render.itemSet(slot, field, value...): mesh, material, enabled, castShadows, tint (r, g,
 * b, a), rect (x, y, w, h). */
static int r_item_set(lua_State *L) {
  lrender *lr = lr_get(L);
  ty_render_item *it = check_item(L, lr, 1);
  const char *k = luaL_checkstring(L, 2);
  if (strcmp(k, "mesh") == 0) it->mesh = lua_isnil(L, 3) ? TY_RENDER_MESH_PLACEHOLDER : check_mesh(L, 3);
  else if (strcmp(k, "material") == 0)
    it->material = lua_isnil(L, 3) ? TY_RENDER_MATERIAL_DEFAULT : check_material(L, 3);
  else if (strcmp(k, "enabled") == 0) it->enabled = lua_toboolean(L, 3);
  else if (strcmp(k, "castShadows") == 0) it->cast_shadows = lua_toboolean(L, 3);
  else if (strcmp(k, "tint") == 0 || strcmp(k, "rect") == 0) {
    float *dst = k[0] == 't' ? it->tint : it->rect;
    for (int i = 0; i < 4; i++) dst[i] = (float)luaL_checknumber(L, 3 + i);
  } else return luaL_argerror(L, 2, "unknown item field");
  return 0;
}

static ty_light *check_light(lua_State *L, lrender *lr, int idx) {
  lua_Integer slot = luaL_checkinteger(L, idx);
  ty_light *l = slot >= 0 && slot <= UINT32_MAX ? ty_render_light_at(lr->R, (uint32_t)slot) : NULL;
  if (!l) luaL_error(L, "light %d is not live", (int)slot);
  return l;
}

/* _render.lightCreate(gameObject, "directional"|"point"|"spot") -> slot */
static int r_light_create(lua_State *L) {
  ty_id id = ty_check_gameobject(L, 1);
  static const char *const types[] = {"directional", "point", "spot", NULL};
  int t = luaL_checkoption(L, 2, NULL, types);
  lua_pushinteger(L, ty_render_light_create(lr_get(L)->R, id, (ty_light_type)t));
  return 1;
}

static int r_light_destroy(lua_State *L) {
  lrender *lr = lr_get(L);
  check_light(L, lr, 1);
  ty_render_light_destroy(lr->R, (uint32_t)lua_tointeger(L, 1));
  return 0;
}

/* _render.lightSet(slot, field, value...): enabled, castShadows, color (r, g, b), intensity,
 * range, innerAngle, outerAngle, direction (x, y, z; nil: the object's -Z). */
static int r_light_set(lua_State *L) {
  lrender *lr = lr_get(L);
  ty_light *l = check_light(L, lr, 1);
  const char *k = luaL_checkstring(L, 2);
  if (strcmp(k, "enabled") == 0) l->enabled = lua_toboolean(L, 3);
  else if (strcmp(k, "castShadows") == 0) l->cast_shadows = lua_toboolean(L, 3);
  else if (strcmp(k, "color") == 0) {
    for (int i = 0; i < 3; i++) l->color[i] = (float)luaL_checknumber(L, 3 + i);
  } else if (strcmp(k, "direction") == 0) {
    l->has_direction = !lua_isnil(L, 3);
    if (l->has_direction)
      for (int i = 0; i < 3; i++) l->direction[i] = (float)luaL_checknumber(L, 3 + i);
  } else if (strcmp(k, "intensity") == 0) l->intensity = (float)luaL_checknumber(L, 3);
  else if (strcmp(k, "range") == 0) l->range = (float)luaL_checknumber(L, 3);
  else if (strcmp(k, "innerAngle") == 0) l->inner_angle = (float)luaL_checknumber(L, 3);
  else if (strcmp(k, "outerAngle") == 0) l->outer_angle = (float)luaL_checknumber(L, 3);
  else return luaL_argerror(L, 2, "unknown light field");
  return 0;
}

/* _render.readColor(value, n) -> r, g, b[, a] or nothing: the components share the colour
 * shapes materials accept. */
static int r_read_color(lua_State *L) {
  int n = (int)luaL_optinteger(L, 2, 4);
  float c[4] = {1, 1, 1, 1};
  if (n != 3) n = 4;
  if (!read_color(L, 1, c, n)) return 0;
  for (int i = 0; i < n; i++) lua_pushnumber(L, c[i]);
  return n;
}

/* ---- resources and the graph ---- */

static void push_resource(lua_State *L, lrender *lr, rg_resource r) {
  if (!r.id) {
    lua_pushnil(L);
    return;
  }
  lresource *u = lua_newuserdatauv(L, sizeof *u, 0);
  u->r = r;
  u->serial = lr->serial;
  luaL_setmetatable(L, TY_RESOURCE);
}

/* The graph of the current frame; raises when there is none or the handle is stale. */
static rg_graph *graph_of(lua_State *L, lrender *lr, uint64_t serial) {
  if (!lr->F || serial != lr->serial) luaL_error(L, "this render graph belongs to an earlier frame");
  return lr->F->graph;
}

static rg_graph *check_graph(lua_State *L, int idx, lrender *lr, bool building) {
  lgraph *g = luaL_checkudata(L, idx, TY_GRAPH);
  rg_graph *rg = graph_of(L, lr, g->serial);
  if (building && !lr->in_frame) luaL_error(L, "passes can only be added while the frame is being built (addPasses)");
  return rg;
}

/* A resource argument: a RenderResource of this frame or the name of one. */
static rg_resource to_resource(lua_State *L, lrender *lr, int idx, const char *what) {
  idx = lua_absindex(L, idx);
  if (lua_type(L, idx) == LUA_TSTRING) {
    rg_resource r = lr->F ? rg_find(lr->F->graph, lua_tostring(L, idx)) : (rg_resource){0};
    if (!r.id) luaL_error(L, "%s: no resource named '%s' in this frame", what, lua_tostring(L, idx));
    return r;
  }
  lresource *u = luaL_testudata(L, idx, TY_RESOURCE);
  if (!u) luaL_error(L, "%s: a RenderResource or a resource name expected, got %s", what, luaL_typename(L, idx));
  if (u->serial != lr->serial) luaL_error(L, "%s: the resource belongs to an earlier frame", what);
  return u->r;
}

static int resource_tostring(lua_State *L) {
  lresource *u = luaL_checkudata(L, 1, TY_RESOURCE);
  lua_pushfstring(L, "RenderResource #%d", (int)u->r.id);
  return 1;
}

static int resource_eq(lua_State *L) {
  lresource *a = lua_touserdata(L, 1), *b = lua_touserdata(L, 2);
  lua_pushboolean(L, a->r.id == b->r.id && a->serial == b->serial);
  return 1;
}

static int resource_index(lua_State *L) {
  lresource *u = luaL_checkudata(L, 1, TY_RESOURCE);
  const char *k = luaL_checkstring(L, 2);
  lrender *lr = lr_get(L);
  if (strcmp(k, "id") == 0) {
    lua_pushinteger(L, u->r.id);
    return 1;
  }
  const rg_texture_info *info = lr->F && u->serial == lr->serial ? rg_resource_info(lr->F->graph, u->r) : NULL;
  if (!info) return lua_pushnil(L), 1;
  if (strcmp(k, "width") == 0) lua_pushinteger(L, info->width);
  else if (strcmp(k, "height") == 0) lua_pushinteger(L, info->height);
  else if (strcmp(k, "format") == 0) lua_pushstring(L, rg_format_name(info->format));
  else lua_pushnil(L);
  return 1;
}

static const char *const FORMAT_NAMES[] = {"default", "rgba8",     "srgb8_a8", "rgba16f", "rgba32f", "r11g11b10f",
                                           "rgb10_a2", "r8",       "rg8",      "r16f",    "rg16f",   "r32f",
                                           "rg32f",   "r32ui",     "depth16",  "depth24s8", "depth32f", NULL};

/* graph:transient(name [, {width=, height=, scale=, format=, layers=, samples=}]) -> RenderResource */
static int graph_transient(lua_State *L) {
  lrender *lr = lr_get(L);
  rg_graph *g = check_graph(L, 1, lr, true);
  const char *name = luaL_checkstring(L, 2);
  rg_texture_desc d = {0};
  if (!lua_isnoneornil(L, 3)) {
    luaL_checktype(L, 3, LUA_TTABLE);
    d.width = (uint32_t)opt_number(L, 3, "width", 0, "transient");
    d.height = (uint32_t)opt_number(L, 3, "height", 0, "transient");
    d.scale = opt_number(L, 3, "scale", 0, "transient");
    d.layers = (uint32_t)opt_number(L, 3, "layers", 0, "transient");
    d.samples = (uint32_t)opt_number(L, 3, "samples", 0, "transient");
    lua_getfield(L, 3, "format");
    if (!lua_isnil(L, -1)) d.format = (rg_format)luaL_checkoption(L, -1, NULL, FORMAT_NAMES);
    lua_pop(L, 1);
  }
  rg_resource r = rg_transient(g, name, &d);
  if (!r.id) return luaL_error(L, "transient: the frame's graph is full (65535 resources)");
  push_resource(L, lr, r);
  return 1;
}

static int graph_find(lua_State *L) {
  lrender *lr = lr_get(L);
  rg_graph *g = check_graph(L, 1, lr, false);
  push_resource(L, lr, rg_find(g, luaL_checkstring(L, 2)));
  return 1;
}

static int graph_dump(lua_State *L) {
  lrender *lr = lr_get(L);
  rg_graph *g = check_graph(L, 1, lr, false);
  size_t need = rg_dump(g, NULL, 0);
  luaL_Buffer b;
  char *buf = luaL_buffinitsize(L, &b, need + 1);
  rg_dump(g, buf, need + 1);
  luaL_pushresultsize(&b, need);
  return 1;
}

/* Reads the array or map of resources at idx into out; names[i] gets the key (maps) or
 * "input<i>" (arrays). Returns how many. */
static uint32_t read_resources(lua_State *L, lrender *lr, int idx, rg_resource *out, const char **names,
                               uint32_t max, const char *what) {
  if (lua_isnil(L, idx)) return 0;
  if (!lua_istable(L, idx)) luaL_error(L, "%s must be a table of resources", what);
  idx = lua_absindex(L, idx);
  uint32_t n = 0;
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    if (n == max) luaL_error(L, "%s: at most %d resources", what, (int)max);
    out[n] = to_resource(L, lr, -1, what);
    if (names) {
      if (lua_type(L, -2) == LUA_TSTRING) {
        names[n] = lua_tostring(L, -2); /* the key stays in the table, so the string lives */
      } else {
        static const char *const inputs[] = {"input0", "input1", "input2", "input3",
                                             "input4", "input5", "input6", "input7"};
        lua_Integer i = lua_isinteger(L, -2) ? lua_tointeger(L, -2) : 0;
        names[n] = i >= 1 && i <= 8 ? inputs[i - 1] : inputs[n];
      }
    }
    n++;
    lua_pop(L, 1);
  }
  return n;
}

/* graph:fullscreen{name=, shader=path_or_source, reads={name=resource, ...}, write=resource,
 * params={...}} -> the written RenderResource */
static int graph_fullscreen(lua_State *L) {
  lrender *lr = lr_get(L);
  check_graph(L, 1, lr, true);
  luaL_checktype(L, 2, LUA_TTABLE);
  ty_fullscreen_desc d = {0};
  lua_getfield(L, 2, "name");
  bool named = !lua_isnil(L, -1);
  d.name = luaL_optstring(L, -1, "fullscreen");
  lua_getfield(L, 2, "shader");
  const char *shader = lua_tostring(L, -1);
  if (!shader) return luaL_argerror(L, 2, "'shader' (a path or GLSL source) is required");
  char path[4096];
  if (strchr(shader, '\n') || strstr(shader, "void main")) {
    /* The program is cached under this name. A named pass keeps its program when its source
     * changes (a failed rebuild keeps the last good one); unnamed passes are told apart by
     * their source, so two of them never share a program. */
    d.shader_source = shader;
    if (named) {
      d.shader_path = d.name;
    } else {
      uint64_t h = 1469598103934665603ull; /* FNV-1a */
      for (const char *c = shader; *c; c++) h = (h ^ (unsigned char)*c) * 1099511628211ull;
      snprintf(path, sizeof path, "fullscreen-%016llx", (unsigned long long)h);
      d.shader_path = path;
    }
  } else {
    resolve_path(L, shader, path, sizeof path);
    d.shader_path = path;
  }
  lua_getfield(L, 2, "reads");
  d.read_count = read_resources(L, lr, -1, d.reads, d.read_names, TY_RENDER_MAX_PASS_READS, "fullscreen reads");
  lua_getfield(L, 2, "write");
  if (lua_isnil(L, -1)) return luaL_argerror(L, 2, "'write' (a resource) is required");
  d.write = to_resource(L, lr, -1, "fullscreen write");
  if (lua_getfield(L, 2, "params") == LUA_TTABLE) {
    lua_Integer n = luaL_len(L, -1);
    if (n > 16) return luaL_argerror(L, 2, "'params' holds at most 16 numbers");
    for (lua_Integer i = 1; i <= n; i++) {
      lua_geti(L, -1, i);
      d.params[i - 1] = (float)lua_tonumber(L, -1);
      lua_pop(L, 1);
    }
  }
  rg_resource old_hdr = lr->F->hdr;
  if (!ty_render_add_fullscreen(lr->R, lr->F, &d))
    return luaL_error(L, "fullscreen pass '%s': %s", d.name, ty_render_error(lr->R));
  /* A read-modify-write makes a fresh version: hand back the latest one. */
  if (d.write.id == old_hdr.id) push_resource(L, lr, lr->F->hdr);
  else if (lua_getfield(L, 2, "write") == LUA_TSTRING) push_resource(L, lr, rg_find(lr->F->graph, lua_tostring(L, -1)));
  else push_resource(L, lr, d.write);
  return 1;
}

static void push_bindings(lua_State *L, const rg_binding *b, uint32_t n) {
  lua_createtable(L, (int)n, 0);
  for (uint32_t i = 0; i < n; i++) {
    lua_createtable(L, 0, 4);
    lua_pushinteger(L, b[i].texture);
    lua_setfield(L, -2, "texture");
    lua_pushinteger(L, b[i].info.width);
    lua_setfield(L, -2, "width");
    lua_pushinteger(L, b[i].info.height);
    lua_setfield(L, -2, "height");
    lua_pushstring(L, rg_format_name(b[i].info.format));
    lua_setfield(L, -2, "format");
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
}

/* The execute of a Lua pass: calls its function with a context table, containing errors. */
static void lua_pass_execute(const rg_pass_context *ctx, void *user) {
  lua_pass *p = user;
  lua_State *L = p->L;
  int top = lua_gettop(L);
  lua_rawgeti(L, LUA_REGISTRYINDEX, p->fn_ref);
  lua_createtable(L, 0, 5);
  lua_pushstring(L, ctx->name);
  lua_setfield(L, -2, "name");
  lua_pushinteger(L, ctx->frame_width);
  lua_setfield(L, -2, "width");
  lua_pushinteger(L, ctx->frame_height);
  lua_setfield(L, -2, "height");
  push_bindings(L, ctx->reads, ctx->read_count);
  lua_setfield(L, -2, "reads");
  push_bindings(L, ctx->writes, ctx->write_count);
  lua_setfield(L, -2, "writes");
  if (!ty_pcall(L, 1, 0)) {
    const char *msg = lua_tostring(L, -1);
    /* A feature's pass is reported with the feature when the engine disables it. */
    if (p->owner_ref == LUA_NOREF || p->owner_ref == LUA_REFNIL)
      ty_log("render_pass_failed", "pass '%s': %s", p->name, msg ? msg : "?");
    lrender *lr = lr_get(L);
    lua_rawgeti(L, LUA_REGISTRYINDEX, lr->failures_ref);
    lua_createtable(L, 0, 3);
    lua_pushstring(L, p->name);
    lua_setfield(L, -2, "pass");
    lua_pushvalue(L, -3);
    lua_setfield(L, -2, "message");
    lua_rawgeti(L, LUA_REGISTRYINDEX, p->owner_ref);
    lua_setfield(L, -2, "owner");
    lua_rawseti(L, -2, (lua_Integer)luaL_len(L, -2) + 1);
  }
  lua_settop(L, top);
}

/* graph:addPass{name=, reads={}, writes={}, sideEffect=, compute=, execute=function(ctx) end} */
static int graph_addPass(lua_State *L) {
  lrender *lr = lr_get(L);
  rg_graph *g = check_graph(L, 1, lr, true);
  luaL_checktype(L, 2, LUA_TTABLE);
  rg_resource reads[32], writes[32];
  lua_getfield(L, 2, "name");
  const char *name = luaL_optstring(L, -1, "pass");
  lua_getfield(L, 2, "reads");
  uint32_t nr = read_resources(L, lr, -1, reads, NULL, 32, "addPass reads");
  lua_getfield(L, 2, "writes");
  uint32_t nw = read_resources(L, lr, -1, writes, NULL, 32, "addPass writes");
  rg_pass_desc d = {.name = name,
                    .kind = opt_bool(L, 2, "compute", false) ? RG_PASS_COMPUTE : RG_PASS_RASTER,
                    .reads = reads,
                    .read_count = nr,
                    .writes = writes,
                    .write_count = nw,
                    .side_effect = opt_bool(L, 2, "sideEffect", false)};
  int t = lua_getfield(L, 2, "execute");
  if (t != LUA_TNIL && t != LUA_TFUNCTION) return luaL_argerror(L, 2, "'execute' must be a function");
  if (t == LUA_TFUNCTION) {
    lua_pass *p = TY_MALLOC(sizeof *p);
    TY_ASSERT(p);
    p->L = L;
    snprintf(p->name, sizeof p->name, "%s", name);
    p->fn_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_rawgeti(L, LUA_REGISTRYINDEX, lr->owner_ref);
    p->owner_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    TY_GROW(lr->passes, lr->pass_cap, lr->pass_count + 1);
    lr->passes[lr->pass_count++] = p;
    d.execute = lua_pass_execute;
    d.user = p;
  }
  rg_pass pass = rg_add_pass(g, &d);
  if (!pass.id) return luaL_error(L, "addPass: the frame's graph is full (65535 passes)");
  lua_pushinteger(L, pass.id);
  return 1;
}

static int graph_tostring(lua_State *L) {
  luaL_checkudata(L, 1, TY_GRAPH);
  lua_pushliteral(L, "RenderGraph");
  return 1;
}

/* ---- Frame ---- */

static void push_frame(lua_State *L, lrender *lr) { lua_rawgeti(L, LUA_REGISTRYINDEX, lr->frame_ref); }

static int frame_index(lua_State *L) {
  lrender *lr = lr_get(L);
  const char *k = luaL_checkstring(L, 2);
  ty_frame *F = lr->F;
  if (F) {
    struct {
      const char *name;
      rg_resource r;
    } res[] = {{"hdr", F->hdr},         {"depth", F->depth},         {"shadowMap", F->shadow_map},
               {"ao", F->ao},           {"lightGrid", F->light_grid}, {"bloom", F->bloom},
               {"backbuffer", F->backbuffer}};
    for (size_t i = 0; i < sizeof res / sizeof *res; i++) {
      if (strcmp(k, res[i].name) == 0) {
        push_resource(L, lr, res[i].r);
        return 1;
      }
    }
    if (strcmp(k, "gbuffer") == 0) {
      lua_createtable(L, 0, 3);
      push_resource(L, lr, F->gbuffer_albedo);
      lua_setfield(L, -2, "albedo");
      push_resource(L, lr, F->gbuffer_normal);
      lua_setfield(L, -2, "normal");
      push_resource(L, lr, F->gbuffer_material);
      lua_setfield(L, -2, "material");
      return 1;
    }
    if (strcmp(k, "buckets") == 0) {
      lua_createtable(L, 0, 6);
      lua_pushinteger(L, F->buckets.opaque);
      lua_setfield(L, -2, "opaque");
      lua_pushinteger(L, F->buckets.transparent);
      lua_setfield(L, -2, "transparent");
      lua_pushinteger(L, F->buckets.shadow);
      lua_setfield(L, -2, "shadow");
      lua_pushinteger(L, F->buckets.culled);
      lua_setfield(L, -2, "culled");
      lua_pushinteger(L, F->buckets.disabled);
      lua_setfield(L, -2, "disabled");
      lua_pushinteger(L, F->buckets.batches);
      lua_setfield(L, -2, "batches");
      return 1;
    }
    if (strcmp(k, "width") == 0) return lua_pushinteger(L, F->width), 1;
    if (strcmp(k, "height") == 0) return lua_pushinteger(L, F->height), 1;
    if (strcmp(k, "index") == 0) return lua_pushinteger(L, (lua_Integer)F->index), 1;
    if (strcmp(k, "time") == 0) return lua_pushnumber(L, F->time), 1;
    if (strcmp(k, "delta") == 0) return lua_pushnumber(L, F->delta), 1;
    if (strcmp(k, "lightCount") == 0) return lua_pushinteger(L, F->light_count), 1;
    if (strcmp(k, "hasSun") == 0) return lua_pushboolean(L, F->has_sun), 1;
  }
  /* graph, camera and whatever features stash live in the user value. */
  lua_getiuservalue(L, 1, 1);
  lua_pushvalue(L, 2);
  lua_rawget(L, -2);
  return 1;
}

static int frame_newindex(lua_State *L) {
  lua_getiuservalue(L, 1, 1);
  lua_pushvalue(L, 2);
  lua_pushvalue(L, 3);
  lua_rawset(L, -3);
  return 0;
}

static int frame_tostring(lua_State *L) {
  lrender *lr = lr_get(L);
  lua_pushfstring(L, "Frame #%d", lr->F ? (int)lr->F->index : 0);
  return 1;
}

static ty_id opt_gameobject(lua_State *L, int idx) { return lua_isnil(L, idx) ? 0 : ty_check_gameobject(L, idx); }

/* _render.beginFrame{width=, height=, camera=GameObject|nil, orthographic=, fov=, size=,
 * near=, far=, time=, delta=, jitter=, scene=Scene|nil} -> Frame; with a scene, only its
 * objects draw and light. */
static int r_begin_frame(lua_State *L) {
  lrender *lr = lr_get(L);
  /* a pass's execute calling engine:frame() would free the pass that is running */
  if (lr->executing) return luaL_error(L, "beginFrame: a frame is executing (engine:frame() called from a pass?)");
  luaL_checktype(L, 1, LUA_TTABLE);
  ty_frame_desc d = {0};
  int w, h;
  ty_lua_window_frame_size(L, &w, &h);
  d.width = (uint32_t)opt_number(L, 1, "width", (float)w, "beginFrame");
  d.height = (uint32_t)opt_number(L, 1, "height", (float)h, "beginFrame");
  if (!d.width) d.width = 1;
  if (!d.height) d.height = 1;
  lua_getfield(L, 1, "camera");
  d.camera.object = opt_gameobject(L, -1);
  lua_pop(L, 1);
  d.camera.orthographic = opt_bool(L, 1, "orthographic", false);
  d.camera.fov_deg = opt_number(L, 1, "fov", 60, "beginFrame");
  d.camera.size = opt_number(L, 1, "size", 5, "beginFrame");
  d.camera.near_plane = opt_number(L, 1, "near", 0.1f, "beginFrame");
  d.camera.far_plane = opt_number(L, 1, "far", 1000, "beginFrame");
  lua_getfield(L, 1, "time");
  d.time = lua_tonumber(L, -1);
  lua_pop(L, 1);
  d.delta = opt_number(L, 1, "delta", 0, "beginFrame");
  d.jitter = opt_bool(L, 1, "jitter", false);
  if (lua_getfield(L, 1, "scene") != LUA_TNIL) d.scene = ty_check_scene(L, -1)->scene;
  lua_pop(L, 1);

  release_passes(L, lr);
  /* The failures list and the frame's field table are kept and emptied, not made anew;
   * only the graph is new each frame, so a graph kept from an earlier frame is refused. */
  lua_rawgeti(L, LUA_REGISTRYINDEX, lr->failures_ref);
  for (lua_Integer i = (lua_Integer)lua_rawlen(L, -1); i > 0; i--) {
    lua_pushnil(L);
    lua_rawseti(L, -2, i);
  }
  lua_pop(L, 1);
  lr->serial++;
  lr->F = ty_render_begin_frame(lr->R, &d);
  lr->in_frame = true;

  push_frame(L, lr);
  if (lua_getiuservalue(L, -1, 1) != LUA_TTABLE) {
    lua_pop(L, 1);
    lua_createtable(L, 0, 4);
    lua_pushvalue(L, -1);
    lua_setiuservalue(L, -3, 1);
  }
  lgraph *g = lua_newuserdatauv(L, sizeof *g, 0);
  g->serial = lr->serial;
  luaL_setmetatable(L, TY_GRAPH);
  lua_setfield(L, -2, "graph");
  lua_pop(L, 1);
  return 1;
}

static const char *const FEATURE_NAMES[TY_FEATURE_COUNT + 1] = {
    "Shadow", "Sky",   "ForwardLit", "Geometry", "AO",    "DeferredLighting", "PointSpotLight",
    "ForwardOverlay", "ForwardPlus", "TAA", "Bloom", "DoF", "Tonemap", "DebugOverlay", NULL};

static void parse_feature_opts(lua_State *L, int idx, lfeature *f) {
  ty_feature_opts *o = &f->opts;
  const char *what = FEATURE_NAMES[f->kind];
  switch (f->kind) {
  case TY_FEATURE_SHADOW:
    o->shadow.cascades = (uint32_t)opt_number(L, idx, "cascades", 0, what);
    if (o->shadow.cascades > TY_RENDER_MAX_CASCADES) luaL_error(L, "Shadow: at most %d cascades", TY_RENDER_MAX_CASCADES);
    o->shadow.size = (uint32_t)opt_number(L, idx, "size", 0, what);
    o->shadow.distance = opt_number(L, idx, "distance", 0, what);
    o->shadow.bias = opt_number(L, idx, "bias", 0, what);
    break;
  case TY_FEATURE_SKY: {
    static const char *const kinds[] = {"none", "color", "texture", "atmosphere", NULL};
    o->sky.kind = TY_SKY_COLOR;
    if (lua_getfield(L, idx, "kind") != LUA_TNIL) {
      const char *k = lua_tostring(L, -1);
      int found = -1;
      for (int i = 0; k && kinds[i]; i++)
        if (strcmp(k, kinds[i]) == 0) found = i;
      if (found < 0) luaL_error(L, "Sky: 'kind' must be \"none\", \"color\", \"texture\" or \"atmosphere\"");
      o->sky.kind = (ty_sky_kind)found;
    }
    lua_pop(L, 1);
    o->sky.color[0] = 0.5f, o->sky.color[1] = 0.7f, o->sky.color[2] = 1.0f;
    o->sky.has_color = opt_color(L, idx, "color", o->sky.color, 3, what);
    if (lua_getfield(L, idx, "texture") != LUA_TNIL) {
      if (!luaL_testudata(L, -1, TY_TEXTURE)) luaL_error(L, "Sky: 'texture' must be a Texture");
      o->sky.texture = *(uint32_t *)lua_touserdata(L, -1);
    }
    lua_pop(L, 1);
    o->sky.intensity = opt_number(L, idx, "intensity", 0, what);
    break;
  }
  case TY_FEATURE_FORWARD_LIT:
  case TY_FEATURE_FORWARD_OVERLAY:
  case TY_FEATURE_FORWARD_PLUS:
  case TY_FEATURE_DEFERRED_LIGHTING:
    o->lit.ibl = opt_bool(L, idx, "ibl", false);
    o->lit.forward_plus = opt_bool(L, idx, "forwardPlus", false);
    o->lit.has_ambient = opt_color(L, idx, "ambient", o->lit.ambient, 3, what);
    break;
  case TY_FEATURE_AO:
    o->ao.radius = opt_number(L, idx, "radius", 0, what);
    o->ao.intensity = opt_number(L, idx, "intensity", 0, what);
    o->ao.samples = (uint32_t)opt_number(L, idx, "samples", 0, what);
    o->ao.full_resolution = opt_bool(L, idx, "fullResolution", false);
    break;
  case TY_FEATURE_TAA: o->taa.blend = opt_number(L, idx, "blend", 0, what); break;
  case TY_FEATURE_BLOOM:
    o->bloom.threshold = opt_number(L, idx, "threshold", 0, what);
    o->bloom.intensity = opt_number(L, idx, "intensity", 0, what);
    break;
  case TY_FEATURE_DOF:
    o->dof.focus = opt_number(L, idx, "focus", 0, what);
    o->dof.range = opt_number(L, idx, "range", 0, what);
    o->dof.max_radius = opt_number(L, idx, "maxRadius", 0, what);
    break;
  case TY_FEATURE_TONEMAP:
  {
    static const char *const modes[] = {"auto", "aces", "reinhard", "none", NULL};
    o->tonemap.exposure = opt_number(L, idx, "exposure", 1, what);
    o->tonemap.aces = opt_bool(L, idx, "aces", true);
    o->tonemap.mode = TY_TONEMAP_AUTO;
    if (lua_getfield(L, idx, "mode") != LUA_TNIL) {
      const char *m = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
      int found = -1;
      for (int i = 0; m && modes[i]; i++)
        if (strcmp(m, modes[i]) == 0) found = i;
      if (found < 0) luaL_error(L, "Tonemap: 'mode' must be \"auto\", \"aces\", \"reinhard\" or \"none\"");
      o->tonemap.mode = (ty_tonemap_mode)found;
    }
    lua_pop(L, 1);
    break;
  }
  case TY_FEATURE_OVERLAY: {
    static const char *const corners[] = {"bottom-right", "bottom-left", "top-right", "top-left", NULL};
    lua_getfield(L, idx, "corner");
    if (!lua_isnil(L, -1)) {
      const char *c = lua_tostring(L, -1);
      int i = 0;
      while (corners[i] && (!c || strcmp(corners[i], c) != 0)) i++;
      if (!corners[i])
        luaL_error(L, "%s: corner must be \"bottom-right\", \"bottom-left\", \"top-right\" or \"top-left\", got %s",
                   what, c ? c : luaL_typename(L, -1));
      o->overlay.corner = (ty_overlay_corner)i;
    }
    lua_pop(L, 1);
    break;
  }
  default: break;
  }
}

/* _render.featureOptions(kindName, opts) -> FeatureOptions: parsed once, used every frame. */
static int r_feature_options(lua_State *L) {
  int kind = luaL_checkoption(L, 1, NULL, FEATURE_NAMES);
  if (!lua_isnoneornil(L, 2)) luaL_checktype(L, 2, LUA_TTABLE);
  else {
    lua_settop(L, 1);
    lua_newtable(L);
  }
  lfeature *f = lua_newuserdatauv(L, sizeof *f, 1);
  memset(f, 0, sizeof *f);
  f->kind = (ty_feature_kind)kind;
  luaL_setmetatable(L, TY_FEATURE_OPTS);
  parse_feature_opts(L, 2, f);
  if (f->kind == TY_FEATURE_OVERLAY && lua_getfield(L, 2, "text") == LUA_TSTRING) {
    f->opts.overlay.text = lua_tostring(L, -1);
    lua_setiuservalue(L, -2, 1); /* keeps the string alive as long as the options */
  }
  lua_settop(L, 3);
  return 1;
}

/* _render.addFeature(options) -> true, or false, message */
static int r_add_feature(lua_State *L) {
  lrender *lr = lr_get(L);
  lfeature *f = luaL_checkudata(L, 1, TY_FEATURE_OPTS);
  if (!lr->in_frame) return luaL_error(L, "features add passes only while a frame is being built");
  if (ty_render_add_feature(lr->R, lr->F, f->kind, &f->opts)) {
    lua_pushboolean(L, 1);
    return 1;
  }
  lua_pushboolean(L, 0);
  lua_pushstring(L, ty_render_error(lr->R));
  return 2;
}

/* _render.setOwner(feature|nil): passes added from now on belong to feature. */
static int r_set_owner(lua_State *L) {
  lrender *lr = lr_get(L);
  luaL_unref(L, LUA_REGISTRYINDEX, lr->owner_ref);
  lua_settop(L, 1);
  lr->owner_ref = lua_isnil(L, 1) ? LUA_NOREF : luaL_ref(L, LUA_REGISTRYINDEX);
  return 0;
}

/* _render.endFrame() -> ok, message|nil, failures ({{pass=, message=, owner=}}) */
static int r_end_frame(lua_State *L) {
  lrender *lr = lr_get(L);
  if (!lr->in_frame) return luaL_error(L, "endFrame without beginFrame");
  lr->in_frame = false;
  lr->executing = true;
  bool ok = ty_render_end_frame(lr->R, lr->F);
  lr->executing = false;
  lua_pushboolean(L, ok);
  if (ok) lua_pushnil(L);
  else lua_pushstring(L, ty_render_error(lr->R));
  lua_rawgeti(L, LUA_REGISTRYINDEX, lr->failures_ref);
  return 3;
}

/* ---- screen <-> world through a camera (Camera:worldToScreen and friends) ---- */

/* Reads _render.camera*(go, orthographic, fov, size, near, far, width, height, ...): the
 * Camera component's fields and the screen it is measured against. */
static void check_camera_view(lua_State *L, ty_camera_view *v) {
  ty_id id = ty_check_gameobject(L, 1);
  ty_camera_desc c = {.object = id,
                      .orthographic = lua_toboolean(L, 2),
                      .fov_deg = (float)luaL_checknumber(L, 3),
                      .size = (float)luaL_checknumber(L, 4),
                      .near_plane = (float)luaL_checknumber(L, 5),
                      .far_plane = (float)luaL_checknumber(L, 6)};
  double w = luaL_checknumber(L, 7), h = luaL_checknumber(L, 8);
  if (!(w > 0 && h > 0)) luaL_error(L, "the screen is %f x %f: both sides must be positive", w, h);
  if (!ty_camera_view_make(v, &c, ty_lua_world_matrix(L, id), w, h))
    luaL_error(L, "the camera's world matrix cannot be inverted (a zero scale?)");
}

/* _render.cameraToScreen(camera args..., x, y, z) -> screen x, y, depth */
static int r_camera_to_screen(lua_State *L) {
  ty_camera_view v;
  check_camera_view(L, &v);
  double p[3] = {luaL_checknumber(L, 9), luaL_checknumber(L, 10), luaL_checknumber(L, 11)}, out[3];
  ty_camera_world_to_screen(&v, p, out);
  for (int i = 0; i < 3; i++) lua_pushnumber(L, out[i]);
  return 3;
}

/* _render.cameraToWorld(camera args..., x, y [, depth]) -> Vec3 (table form: doubles);
 * depth defaults to the near plane the renderer uses */
static int r_camera_to_world(lua_State *L) {
  ty_camera_view v;
  check_camera_view(L, &v);
  double out[3];
  double x = luaL_checknumber(L, 9), y = luaL_checknumber(L, 10), depth = luaL_optnumber(L, 11, v.near_plane);
  ty_camera_screen_to_world(&v, x, y, depth, out);
  ty_push_vec3_table(L, out[0], out[1], out[2]);
  return 1;
}

/* _render.cameraRay(camera args..., x, y) -> origin Vec3, direction Vec3 (table forms) */
static int r_camera_ray(lua_State *L) {
  ty_camera_view v;
  check_camera_view(L, &v);
  double o[3], d[3];
  ty_camera_screen_ray(&v, luaL_checknumber(L, 9), luaL_checknumber(L, 10), o, d);
  ty_push_vec3_table(L, o[0], o[1], o[2]);
  ty_push_vec3_table(L, d[0], d[1], d[2]);
  return 2;
}

static int r_in_frame(lua_State *L) {
  lua_pushboolean(L, lr_get(L)->in_frame);
  return 1;
}

static int r_has_window(lua_State *L) {
  lrender *lr = lr_get(L);
  lua_pushboolean(L, lr->window != NULL && lr->dev != NULL);
  return 1;
}

/* _render.screenshot(path) -> true, or nil, message */
static int r_screenshot(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  lrender *lr = lr_get(L);
  if (!lr->window) {
    return ty_fail(L, "no window");
  }
  if (!ty_window_screenshot(lr->window, path)) {
    return ty_fail(L, "%s: the screenshot could not be written", path);
  }
  lua_pushboolean(L, 1);
  return 1;
}

static int r_note_frame_time(lua_State *L) {
  ty_render_note_frame_time(lr_get(L)->R, luaL_checknumber(L, 1));
  return 0;
}

static int r_set_overlay(lua_State *L) {
  ty_render_set_overlay(lr_get(L)->R, lua_toboolean(L, 1));
  return 0;
}

/* _render.setDrawMode("multiIndirect"|"instanced"|"perObject") */
static int r_set_draw_mode(lua_State *L) {
  static const char *const modes[] = {"multiIndirect", "instanced", "perObject", NULL};
  ty_render_set_draw_mode(lr_get(L)->R, (ty_draw_mode)luaL_checkoption(L, 1, NULL, modes));
  return 0;
}

static int r_reload_shader(lua_State *L) {
  lrender *lr = lr_get(L);
  if (ty_render_reload_shader(lr->R, luaL_checkstring(L, 1))) {
    lua_pushboolean(L, 1);
    return 1;
  }
  return ty_fail(L, "%s", ty_render_error(lr->R));
}

/* _render.reloadFile(path) -> count of textures and meshes reloaded (false: none was
 * loaded from path), or nil, message when the file no longer loads (the old data stays). */
static int r_reload_file(lua_State *L) {
  lrender *lr = lr_get(L);
  int n = ty_render_reload_file(lr->R, luaL_checkstring(L, 1));
  if (n < 0) {
    return ty_fail(L, "%s", ty_render_error(lr->R));
  }
  if (n == 0) lua_pushboolean(L, 0);
  else lua_pushinteger(L, n);
  return 1;
}

static int r_item_count(lua_State *L) {
  lua_pushinteger(L, ty_render_item_count(lr_get(L)->R));
  return 1;
}

/* tycho.stats.render() -> {drawCalls=, draws=, instances=, triangles=, passes=,
 * culledPasses=, cpuMs=, bucketMs=} of the last frame */
static int stats_render(lua_State *L) {
  ty_render_stats s = ty_render_get_stats(lr_get(L)->R);
  lua_createtable(L, 0, 8);
  lua_pushinteger(L, s.draw_calls);
  lua_setfield(L, -2, "drawCalls");
  lua_pushinteger(L, s.draws);
  lua_setfield(L, -2, "draws");
  lua_pushinteger(L, s.instances);
  lua_setfield(L, -2, "instances");
  lua_pushinteger(L, (lua_Integer)s.triangles);
  lua_setfield(L, -2, "triangles");
  lua_pushinteger(L, s.passes);
  lua_setfield(L, -2, "passes");
  lua_pushinteger(L, s.culled_passes);
  lua_setfield(L, -2, "culledPasses");
  lua_pushnumber(L, s.cpu_ms);
  lua_setfield(L, -2, "cpuMs");
  lua_pushnumber(L, s.bucket_ms);
  lua_setfield(L, -2, "bucketMs");
  return 1;
}

/* tycho.stats.passTimes() -> {{name=, ms=}, ...}: the passes the last executed frame ran,
 * in order (none headless); ms only while timing is on (timePasses, or the overlay shown). */
static int stats_pass_times(lua_State *L) {
  uint32_t n = 0;
  const ty_render_pass_time *t = ty_render_pass_times(lr_get(L)->R, &n);
  lua_createtable(L, (int)n, 0);
  for (uint32_t i = 0; i < n; i++) {
    lua_createtable(L, 0, 2);
    lua_pushstring(L, t[i].name);
    lua_setfield(L, -2, "name");
    if (t[i].ms >= 0) {
      lua_pushnumber(L, t[i].ms);
      lua_setfield(L, -2, "ms");
    }
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  return 1;
}

/* tycho.stats.timePasses(on) -> was: time every pass (a glFinish around each) from the next
 * frame on. */
static int stats_time_passes(lua_State *L) {
  ty_renderer *R = lr_get(L)->R;
  bool was = ty_render_pass_timing(R);
  ty_render_set_pass_timing(R, lua_toboolean(L, 1));
  lua_pushboolean(L, was);
  return 1;
}

/* ---- opening ---- */

void ty_open_render(lua_State *L) {
  int tycho = lua_gettop(L);
  /* Made after the scene binding's world, so at lua_close it is finalized first. */
  lrender *lr = ty_ctx_part(L, sizeof *lr, render_gc);
  lr->owner_ref = LUA_NOREF;
  lr->R = ty_render_create(&(ty_render_desc){.world = ty_lctx_get(L)->world});
  TY_ASSERT(lr->R);
  ty_ctx_get(L)->render = lr;
  lua_newtable(L);
  lr->failures_ref = luaL_ref(L, LUA_REGISTRYINDEX);
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
  static const luaL_Reg resource_meta[] = {
      {"__index", resource_index}, {"__eq", resource_eq}, {"__tostring", resource_tostring}, {NULL, NULL}};
  ty_type_register(L, TY_RESOURCE, resource_meta, NULL);
  ty_type_register(L, TY_FEATURE_OPTS, NULL, NULL);
  static const luaL_Reg frame_meta[] = {
      {"__index", frame_index}, {"__newindex", frame_newindex}, {"__tostring", frame_tostring}, {NULL, NULL}};
  ty_type_register(L, TY_FRAME, frame_meta, NULL);

  static const luaL_Reg graph_methods[] = {{"fullscreen", graph_fullscreen},
                                           {"addPass", graph_addPass},
                                           {"transient", graph_transient},
                                           {"find", graph_find},
                                           {"dump", graph_dump},
                                           {NULL, NULL}};
  static const luaL_Reg graph_meta[] = {{"__tostring", graph_tostring}, {NULL, NULL}};
  ty_type_register(L, TY_GRAPH, graph_meta, graph_methods);

  /* The one Frame userdata; its user value holds graph, camera and feature fields. */
  lua_newuserdatauv(L, 1, 1);
  lua_newtable(L);
  lua_setiuservalue(L, -2, 1);
  luaL_setmetatable(L, TY_FRAME);
  lr->frame_ref = luaL_ref(L, LUA_REGISTRYINDEX);

  static const luaL_Reg mesh_fns[] = {{"cube", mesh_cube}, {"sphere", mesh_sphere}, {"plane", mesh_plane},
                                      {"quad", mesh_quad}, {"load", mesh_load},     {NULL, NULL}};
  luaL_newlib(L, mesh_fns);
  lua_setfield(L, tycho, "mesh");
  static const luaL_Reg texture_fns[] = {{"load", texture_load}, {"new", texture_new}, {NULL, NULL}};
  luaL_newlib(L, texture_fns);
  lua_setfield(L, tycho, "texture");
  lua_pushcfunction(L, material_new);
  lua_setfield(L, tycho, "material");

  static const luaL_Reg private_fns[] = {{"itemCreate", r_item_create},
                                         {"itemDestroy", r_item_destroy},
                                         {"itemSet", r_item_set},
                                         {"itemCount", r_item_count},
                                         {"lightCreate", r_light_create},
                                         {"lightDestroy", r_light_destroy},
                                         {"lightSet", r_light_set},
                                         {"readColor", r_read_color},
                                         {"beginFrame", r_begin_frame},
                                         {"featureOptions", r_feature_options},
                                         {"addFeature", r_add_feature},
                                         {"setOwner", r_set_owner},
                                         {"endFrame", r_end_frame},
                                         {"inFrame", r_in_frame},
                                         {"hasWindow", r_has_window},
                                         {"cameraToScreen", r_camera_to_screen},
                                         {"cameraToWorld", r_camera_to_world},
                                         {"cameraRay", r_camera_ray},
                                         {"screenshot", r_screenshot},
                                         {"noteFrameTime", r_note_frame_time},
                                         {"setOverlay", r_set_overlay},
                                         {"setDrawMode", r_set_draw_mode},
                                         {"reloadShader", r_reload_shader},
                                         {"reloadFile", r_reload_file},
                                         {NULL, NULL}};
  luaL_newlib(L, private_fns);
  lua_setfield(L, tycho, "_render");

  if (lua_getfield(L, tycho, "stats") != LUA_TTABLE) {
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_setfield(L, tycho, "stats");
  }
  lua_pushcfunction(L, stats_render);
  lua_setfield(L, -2, "render");
  lua_pushcfunction(L, stats_pass_times);
  lua_setfield(L, -2, "passTimes");
  lua_pushcfunction(L, stats_time_passes);
  lua_setfield(L, -2, "timePasses");
  lua_pop(L, 1);
  lua_settop(L, tycho);
}
