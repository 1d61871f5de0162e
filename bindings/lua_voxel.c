/* bindings/lua_voxel.c: the Lua face of engine/render/voxel.h.
 *
 * Public names: tycho.voxel.grid(sx, sy, sz) -> VoxelGrid (one byte a cell),
 * tycho.voxel.palette{...} -> VoxelPalette (which atlas tile each face of each block type
 * shows), tycho.voxel.mesh(grid, opts) -> Mesh (a new one, or opts.mesh rewritten in place
 * so re-meshing an edited chunk keeps its id), tycho.voxel.noise(x, y, seed) (the same as
 * tycho.terrain.noise, kept under its first name). Meshes are the renderer's (the Mesh of
 * lua_render_assets.c, taken and made through its trio). */
#include "lua_voxel.h"

#include <string.h>

#include "lua_render.h"        /* Required for: ty_lua_renderer, the Mesh trio */
#include "render/voxel.h"      /* Required for: ty_voxel_mesh */
#include "core/noise.h"        /* Required for: ty_noise2 (tycho.voxel.noise) */
#define TY_VOXEL_PALETTE "VoxelPalette"

typedef struct lgrid {
  uint32_t size[3];
  uint8_t cells[]; /* size[0] * size[1] * size[2], x fastest, then z, then y */
} lgrid;

typedef struct lpalette {
  ty_voxel_tiles tiles[TY_VOXEL_TYPES];
  uint8_t see_through[TY_VOXEL_TYPES];
  uint32_t columns, rows;
} lpalette;

static lgrid *check_grid(lua_State *L, int idx) { return luaL_checkudata(L, idx, TY_VOXEL_GRID); }

static size_t cell_count(const lgrid *g) { return (size_t)g->size[0] * g->size[1] * g->size[2]; }

/* The cell's offset, or -1 outside the grid. */
static ptrdiff_t cell_at(const lgrid *g, lua_Integer x, lua_Integer y, lua_Integer z) {
  if (x < 0 || y < 0 || z < 0 || x >= g->size[0] || y >= g->size[1] || z >= g->size[2]) return -1;
  return (ptrdiff_t)(((size_t)y * g->size[2] + (size_t)z) * g->size[0] + (size_t)x);
}

static uint8_t check_type(lua_State *L, int idx) {
  lua_Integer t = luaL_checkinteger(L, idx);
  luaL_argcheck(L, t >= 0 && t <= 255, idx, "block type must be in 0..255");
  return (uint8_t)t;
}

uint8_t *ty_push_voxel_grid(lua_State *L, uint32_t sx, uint32_t sy, uint32_t sz) {
  TY_ASSERT(sx >= 1 && sx <= TY_VOXEL_MAX_SIDE && sy >= 1 && sy <= TY_VOXEL_MAX_SIDE && sz >= 1 &&
            sz <= TY_VOXEL_MAX_SIDE);
  size_t cells = (size_t)sx * sy * sz;
  lgrid *g = lua_newuserdatauv(L, sizeof *g + cells, 0);
  g->size[0] = sx, g->size[1] = sy, g->size[2] = sz;
  memset(g->cells, 0, cells);
  luaL_setmetatable(L, TY_VOXEL_GRID);
  return g->cells;
}

uint8_t *ty_check_voxel_grid(lua_State *L, int idx, uint32_t size[3]) {
  lgrid *g = check_grid(L, idx);
  memcpy(size, g->size, sizeof g->size);
  return g->cells;
}

/* tycho.voxel.grid(sx, sy, sz) -> VoxelGrid, every cell 0 */
static int voxel_grid(lua_State *L) {
  uint32_t s[3];
  for (int i = 0; i < 3; i++) {
    lua_Integer n = luaL_checkinteger(L, i + 1);
    luaL_argcheck(L, n >= 1 && n <= TY_VOXEL_MAX_SIDE, i + 1, "size must be in 1..1024");
    s[i] = (uint32_t)n;
  }
  luaL_argcheck(L, (size_t)s[0] * s[1] * s[2] <= (64u << 20), 1, "at most 64 Mi cells");
  ty_push_voxel_grid(L, s[0], s[1], s[2]);
  return 1;
}

/* grid:get(x, y, z) -> type (0 outside the grid) */
static int grid_get(lua_State *L) {
  lgrid *g = check_grid(L, 1);
  ptrdiff_t i = cell_at(g, luaL_checkinteger(L, 2), luaL_checkinteger(L, 3), luaL_checkinteger(L, 4));
  lua_pushinteger(L, i < 0 ? 0 : g->cells[i]);
  return 1;
}

/* grid:set(x, y, z, type) -> true, or false outside the grid */
static int grid_set(lua_State *L) {
  lgrid *g = check_grid(L, 1);
  ptrdiff_t i = cell_at(g, luaL_checkinteger(L, 2), luaL_checkinteger(L, 3), luaL_checkinteger(L, 4));
  uint8_t t = check_type(L, 5);
  if (i >= 0) g->cells[i] = t;
  lua_pushboolean(L, i >= 0);
  return 1;
}

/* grid:fill(x0, y0, z0, x1, y1, z1, type): the box between the corners, both included,
 * clipped to the grid. */
static int grid_fill(lua_State *L) {
  lgrid *g = check_grid(L, 1);
  lua_Integer lo[3], hi[3];
  for (int a = 0; a < 3; a++) {
    lua_Integer p = luaL_checkinteger(L, 2 + a), q = luaL_checkinteger(L, 5 + a);
    lo[a] = p < q ? p : q, hi[a] = p < q ? q : p;
    if (lo[a] < 0) lo[a] = 0;
    if (hi[a] >= g->size[a]) hi[a] = (lua_Integer)g->size[a] - 1;
  }
  uint8_t t = check_type(L, 8);
  for (lua_Integer y = lo[1]; y <= hi[1]; y++)
    for (lua_Integer z = lo[2]; z <= hi[2]; z++) {
      if (lo[0] > hi[0]) break;
      ptrdiff_t i = cell_at(g, lo[0], y, z);
      memset(g->cells + i, t, (size_t)(hi[0] - lo[0] + 1));
    }
  return 0;
}

/* grid:bytes() -> string of every cell; grid:setBytes(s) puts them back */
static int grid_bytes(lua_State *L) {
  lgrid *g = check_grid(L, 1);
  lua_pushlstring(L, (const char *)g->cells, cell_count(g));
  return 1;
}

static int grid_set_bytes(lua_State *L) {
  lgrid *g = check_grid(L, 1);
  size_t n;
  const char *s = luaL_checklstring(L, 2, &n);
  luaL_argcheck(L, n == cell_count(g), 2, "must hold one byte per cell");
  memcpy(g->cells, s, n);
  return 0;
}

/* grid:count(type) -> how many cells hold type */
static int grid_count(lua_State *L) {
  lgrid *g = check_grid(L, 1);
  uint8_t t = check_type(L, 2);
  size_t n = 0, cells = cell_count(g);
  for (size_t i = 0; i < cells; i++) n += g->cells[i] == t;
  lua_pushinteger(L, (lua_Integer)n);
  return 1;
}

/* grid:top(x, z) -> the highest y holding a block at column (x, z), or -1 */
static int grid_top(lua_State *L) {
  lgrid *g = check_grid(L, 1);
  lua_Integer x = luaL_checkinteger(L, 2), z = luaL_checkinteger(L, 3);
  for (lua_Integer y = (lua_Integer)g->size[1] - 1; y >= 0; y--) {
    ptrdiff_t i = cell_at(g, x, y, z);
    if (i < 0) break;
    if (g->cells[i]) {
      lua_pushinteger(L, y);
      return 1;
    }
  }
  lua_pushinteger(L, -1);
  return 1;
}

static int grid_index(lua_State *L) {
  lgrid *g = check_grid(L, 1);
  const char *k = luaL_checkstring(L, 2);
  if (strcmp(k, "sx") == 0) lua_pushinteger(L, g->size[0]);
  else if (strcmp(k, "sy") == 0) lua_pushinteger(L, g->size[1]);
  else if (strcmp(k, "sz") == 0) lua_pushinteger(L, g->size[2]);
  else {
    ty_type_push_methods(L, TY_VOXEL_GRID);
    lua_getfield(L, -1, k);
  }
  return 1;
}

static int grid_tostring(lua_State *L) {
  lgrid *g = check_grid(L, 1);
  lua_pushfstring(L, "VoxelGrid %dx%dx%d", (int)g->size[0], (int)g->size[1], (int)g->size[2]);
  return 1;
}

/* ---- palette ---- */

static uint16_t tile_number(lua_State *L, int idx, const char *what) {
  if (!lua_isinteger(L, idx)) luaL_error(L, "bad argument #1 to 'palette' (%s must be an integer tile index)", what);
  lua_Integer n = lua_tointeger(L, idx);
  if (n < 0 || n > 65535) luaL_error(L, "bad argument #1 to 'palette' (%s must be in 0..65535)", what);
  return (uint16_t)n;
}

/* tycho.voxel.palette{columns=16, rows=16, tiles={[type] = n or {top, side, bottom}},
 * seeThrough={[type]=true}} -> VoxelPalette */
static int voxel_palette(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lpalette *p = lua_newuserdatauv(L, sizeof *p, 0);
  memset(p, 0, sizeof *p);
  for (int t = 1; t < TY_VOXEL_TYPES; t++)
    p->tiles[t] = (ty_voxel_tiles){(uint16_t)(t - 1), (uint16_t)(t - 1), (uint16_t)(t - 1)};
  lua_getfield(L, 1, "columns");
  lua_getfield(L, 1, "rows");
  lua_Integer cols = luaL_optinteger(L, -2, 16), rows = luaL_optinteger(L, -1, 16);
  lua_pop(L, 2);
  luaL_argcheck(L, cols >= 1 && cols <= 4096 && rows >= 1 && rows <= 4096, 1, "columns and rows must be in 1..4096");
  p->columns = (uint32_t)cols, p->rows = (uint32_t)rows;
  if (lua_getfield(L, 1, "tiles") == LUA_TTABLE) {
    for (int t = 1; t < TY_VOXEL_TYPES; t++) {
      int kind = lua_rawgeti(L, -1, t);
      if (kind == LUA_TNUMBER) {
        uint16_t n = tile_number(L, -1, "a tile");
        p->tiles[t] = (ty_voxel_tiles){n, n, n};
      } else if (kind == LUA_TTABLE) {
        uint16_t v[3];
        for (int k = 0; k < 3; k++) {
          lua_rawgeti(L, -1, k + 1);
          v[k] = lua_isnil(L, -1) && k > 0 ? v[k - 1] : tile_number(L, -1, "a tile");
          lua_pop(L, 1);
        }
        p->tiles[t] = (ty_voxel_tiles){v[0], v[1], v[2]};
      } else if (kind != LUA_TNIL) {
        luaL_error(L, "bad argument #1 to 'palette' (tiles[%d] must be a number or {top, side, bottom})", t);
      }
      lua_pop(L, 1);
    }
  }
  lua_pop(L, 1);
  if (lua_getfield(L, 1, "seeThrough") == LUA_TTABLE) {
    for (int t = 1; t < TY_VOXEL_TYPES; t++) {
      lua_rawgeti(L, -1, t);
      p->see_through[t] = (uint8_t)lua_toboolean(L, -1);
      lua_pop(L, 1);
    }
  }
  lua_pop(L, 1);
  luaL_setmetatable(L, TY_VOXEL_PALETTE);
  return 1;
}

/* ---- meshing ---- */

/* Copies the layer of neighbour nb that touches the grid across one face (axis, side -1
 * or +1) into the bordered buffer. Face culling looks along the axes only, so the
 * border's edges and corners are never read and stay 0. */
static void copy_border(uint8_t *buf, const uint32_t s[3], const lgrid *nb, int axis, int side) {
  int u = (axis + 1) % 3, v = (axis + 2) % 3;
  for (int a = 0; a < (int)s[u]; a++)
    for (int b = 0; b < (int)s[v]; b++) {
      int dst[3], src[3];
      dst[axis] = side < 0 ? -1 : (int)s[axis];
      src[axis] = side < 0 ? (int)s[axis] - 1 : 0;
      dst[u] = src[u] = a;
      dst[v] = src[v] = b;
      buf[ty_voxel_index(s, dst[0], dst[1], dst[2])] = nb->cells[cell_at(nb, src[0], src[1], src[2])];
    }
}

static const char voxel_meshes_key = 0; /* registry: mesh id -> true for meshes made here */

/* tycho.voxel.mesh(grid, {palette=, neighbors={px=, nx=, py=, ny=, pz=, nz=}, mesh=,
 * allFaces=}) -> Mesh, faces */
static int voxel_mesh(lua_State *L) {
  lgrid *g = check_grid(L, 1);
  if (!lua_isnoneornil(L, 2)) luaL_checktype(L, 2, LUA_TTABLE);
  else {
    lua_settop(L, 1);
    lua_newtable(L);
  }
  const uint32_t *s = g->size;
  /* A mesh of n cells can hold 3n faces (a checkerboard): 1 Mi cells bounds it at ~400 MB. */
  luaL_argcheck(L, (size_t)s[0] * s[1] * s[2] <= (1u << 20), 1, "mesh at most 1 Mi cells at a time (mesh chunks)");
  size_t padded = (size_t)(s[0] + 2) * (s[1] + 2) * (s[2] + 2);
  uint8_t *buf = lua_newuserdatauv(L, padded, 0); /* collected with the call: no leak on error */
  memset(buf, 0, padded);
  for (uint32_t y = 0; y < s[1]; y++)
    for (uint32_t z = 0; z < s[2]; z++)
      memcpy(buf + ty_voxel_index(s, 0, (int)y, (int)z), g->cells + ((size_t)y * s[2] + z) * s[0], s[0]);
  if (lua_getfield(L, 2, "neighbors") == LUA_TTABLE) {
    static const char *const names[6] = {"px", "nx", "py", "ny", "pz", "nz"};
    for (int f = 0; f < 6; f++) {
      if (lua_getfield(L, -1, names[f]) != LUA_TNIL) {
        lgrid *nb = luaL_testudata(L, -1, TY_VOXEL_GRID);
        if (!nb) return luaL_error(L, "bad argument #2 to 'mesh' (neighbors.%s must be a VoxelGrid)", names[f]);
        if (memcmp(nb->size, g->size, sizeof g->size) != 0)
          return luaL_error(L, "bad argument #2 to 'mesh' (neighbors.%s must have the grid's size)", names[f]);
        copy_border(buf, s, nb, f / 2, f % 2 == 0 ? 1 : -1);
      }
      lua_pop(L, 1);
    }
  }
  lua_pop(L, 1);
  ty_voxel_desc d = {.cells = buf, .size = {s[0], s[1], s[2]}};
  if (lua_getfield(L, 2, "palette") != LUA_TNIL) {
    lpalette *p = luaL_testudata(L, -1, TY_VOXEL_PALETTE);
    if (!p) return luaL_error(L, "bad argument #2 to 'mesh' (palette must be a VoxelPalette)");
    d.tiles = p->tiles, d.see_through = p->see_through, d.atlas_columns = p->columns, d.atlas_rows = p->rows;
  }
  lua_getfield(L, 2, "allFaces");
  d.mode = lua_toboolean(L, -1) ? TY_VOXEL_ALL_FACES : TY_VOXEL_CULLED;
  lua_pop(L, 1);
  int has_target = lua_getfield(L, 2, "mesh") != LUA_TNIL;
  uint32_t target = 0;
  if (has_target) {
    uint32_t *u = ty_test_mesh(L, -1);
    if (!u) return luaL_error(L, "bad argument #2 to 'mesh' (mesh must be a Mesh)");
    target = *u;
    /* only meshes this function made may be rewritten: a built-in cube or a loaded file is
     * shared by everything that draws it */
    bool ours = false;
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &voxel_meshes_key) == LUA_TTABLE) {
      ours = lua_rawgeti(L, -1, target) == LUA_TBOOLEAN;
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
    if (!ours) return luaL_error(L, "bad argument #2 to 'mesh' (mesh must be one tycho.voxel.mesh made)");
  }
  int target_idx = lua_gettop(L);
  ty_mesh_data m;
  uint32_t faces = ty_voxel_mesh(&d, &m);
  ty_renderer *R = ty_lua_renderer(L);
  bool ok = true;
  if (has_target) ok = ty_render_update_mesh(R, target, &m);
  else target = ty_render_add_mesh(R, &m, "voxel");
  ty_mesh_free(&m);
  if (!has_target) {
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &voxel_meshes_key) != LUA_TTABLE) {
      lua_pop(L, 1);
      lua_newtable(L);
      lua_pushvalue(L, -1);
      lua_rawsetp(L, LUA_REGISTRYINDEX, &voxel_meshes_key);
    }
    lua_pushboolean(L, 1);
    lua_rawseti(L, -2, target);
    lua_pop(L, 1);
  }
  if (!ok) return luaL_error(L, "bad argument #2 to 'mesh' (mesh %d cannot be rewritten)", (int)target);
  if (has_target) {
    lua_pushvalue(L, target_idx);
  } else {
    ty_push_mesh(L, target);
  }
  lua_pushinteger(L, faces);
  return 2;
}

/* tycho.voxel.noise(x, y [, seed]) -> number in about -1..1 (tycho.terrain.noise) */
static int voxel_noise(lua_State *L) {
  float x = (float)luaL_checknumber(L, 1), y = (float)luaL_checknumber(L, 2);
  uint32_t seed = (uint32_t)(luaL_optinteger(L, 3, 0) & 0xffffffff);
  lua_pushnumber(L, ty_noise2(seed, x, y));
  return 1;
}

void ty_open_voxel(lua_State *L) {
  static const luaL_Reg grid_methods[] = {{"get", grid_get},     {"set", grid_set},     {"fill", grid_fill},
                                          {"bytes", grid_bytes}, {"setBytes", grid_set_bytes},
                                          {"count", grid_count}, {"top", grid_top},     {NULL, NULL}};
  static const luaL_Reg grid_meta[] = {{"__index", grid_index}, {"__tostring", grid_tostring}, {NULL, NULL}};
  ty_type_register(L, TY_VOXEL_GRID, grid_meta, grid_methods);
  ty_type_register(L, TY_VOXEL_PALETTE, NULL, NULL);

  static const luaL_Reg voxel_fns[] = {{"grid", voxel_grid}, {"palette", voxel_palette}, {"mesh", voxel_mesh},
                                       {"noise", voxel_noise}, {NULL, NULL}};
  luaL_newlib(L, voxel_fns);
  lua_setfield(L, -2, "voxel");
}
