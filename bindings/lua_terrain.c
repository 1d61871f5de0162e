/* bindings/lua_terrain.c: the Lua face of engine/terrain/terrain.h: the block world made from
 * a seed, which a game's client draws and its server checks edits against.
 *
 * Public names: tycho.terrain.seed(seed) -> the 32-bit seed; tycho.terrain.new(seed) ->
 * Terrain (terrain.seed, terrain:height(x, z), terrain:chunk(cx, cz) -> VoxelGrid,
 * terrain:block(x, y, z) answered from a cache of chunks); tycho.terrain.noise(x, y [, seed]);
 * the sizes tycho.terrain.CX, CY, CZ, SEA and MAX_XZ. A seed is what a SavedWorld keeps: an
 * integer (its low 32 bits), a finite float or a string (FNV-1a of its text as tostring
 * writes it). Bad seeds and coordinates outside the world raise argument errors. */
#include <math.h>
#include <string.h>

#include "bindings.h"
#include "lua_voxel.h"       /* Required for: ty_push_voxel_grid (Terrain:chunk's result) */
#include "core/noise.h"      /* Required for: ty_noise2, ty_noise_seed_text */
#include "terrain/terrain.h" /* Required for: ty_terrain_* */

#define TY_TERRAIN "Terrain"

typedef struct lterrain {
  uint32_t seed;
  ty_terrain_cache *cache; /* NULL until the first block(); then user value 1 owns it */
} lterrain;

static lterrain *check_terrain(lua_State *L, int idx) { return luaL_checkudata(L, idx, TY_TERRAIN); }

/* The seed at idx as 32 bits; raises for anything but an integer, a finite float or a string. */
static uint32_t check_seed(lua_State *L, int idx) {
  int t = lua_type(L, idx);
  if (t == LUA_TNUMBER && lua_isinteger(L, idx)) return (uint32_t)(lua_tointeger(L, idx) & 0xffffffff);
  if (t == LUA_TNUMBER && !isfinite(lua_tonumber(L, idx))) luaL_argerror(L, idx, "seed must be a finite number");
  if (t != LUA_TNUMBER && t != LUA_TSTRING)
    luaL_argerror(L, idx, lua_pushfstring(L, "seed must be an integer, a finite number or a string, got %s",
                                          luaL_typename(L, idx)));
  /* A float is hashed as its text: tostring's "%.14g" (with ".0" on integral values). */
  size_t len;
  const char *text = luaL_tolstring(L, idx, &len);
  uint32_t seed = ty_noise_seed_text(text, len);
  lua_pop(L, 1);
  return seed;
}

/* A cell coordinate along x or z: an integer with |v| < TY_TERRAIN_MAX_XZ. */
static int32_t check_xz(lua_State *L, int idx, const char *name) {
  lua_Integer v = luaL_checkinteger(L, idx);
  if (v <= -TY_TERRAIN_MAX_XZ || v >= TY_TERRAIN_MAX_XZ)
    luaL_argerror(L, idx, lua_pushfstring(L, "%s must be in %d..%d (the world's width)", name,
                                          -TY_TERRAIN_MAX_XZ + 1, TY_TERRAIN_MAX_XZ - 1));
  return (int32_t)v;
}

static int32_t check_chunk(lua_State *L, int idx, const char *name) {
  lua_Integer v = luaL_checkinteger(L, idx);
  if (v < TY_TERRAIN_MIN_CHUNK || v > TY_TERRAIN_MAX_CHUNK)
    luaL_argerror(L, idx, lua_pushfstring(L, "%s must be in %d..%d (chunks of the world)", name,
                                          TY_TERRAIN_MIN_CHUNK, TY_TERRAIN_MAX_CHUNK));
  return (int32_t)v;
}

/* tycho.terrain.seed(seed) -> integer in 0..2^32-1 */
static int terrain_seed(lua_State *L) {
  luaL_checkany(L, 1);
  lua_pushinteger(L, check_seed(L, 1));
  return 1;
}

/* tycho.terrain.new(seed) -> Terrain */
static int terrain_new(lua_State *L) {
  luaL_checkany(L, 1);
  uint32_t seed = check_seed(L, 1);
  lterrain *t = lua_newuserdatauv(L, sizeof *t, 1);
  t->seed = seed;
  t->cache = NULL;
  luaL_setmetatable(L, TY_TERRAIN);
  return 1;
}

/* terrain:height(x, z) -> the y of column (x, z)'s top block before trees */
static int terrain_height(lua_State *L) {
  lterrain *t = check_terrain(L, 1);
  int32_t x = check_xz(L, 2, "x"), z = check_xz(L, 3, "z");
  lua_pushinteger(L, ty_terrain_height(t->seed, x, z));
  return 1;
}

/* terrain:chunk(cx, cz) -> a new CX x CY x CZ VoxelGrid holding chunk (cx, cz) */
static int terrain_chunk(lua_State *L) {
  lterrain *t = check_terrain(L, 1);
  int32_t cx = check_chunk(L, 2, "cx"), cz = check_chunk(L, 3, "cz");
  uint8_t *cells = ty_push_voxel_grid(L, TY_TERRAIN_CX, TY_TERRAIN_CY, TY_TERRAIN_CZ);
  ty_terrain_chunk(t->seed, cx, cz, cells);
  return 1;
}

/* terrain:block(x, y, z) -> the natural block type there (0 air; air for y outside 0..CY-1) */
static int terrain_block(lua_State *L) {
  lterrain *t = check_terrain(L, 1);
  int32_t x = check_xz(L, 2, "x");
  lua_Integer y = luaL_checkinteger(L, 3);
  int32_t z = check_xz(L, 4, "z");
  if (y < 0 || y >= TY_TERRAIN_CY) {
    lua_pushinteger(L, TY_TERRAIN_AIR);
    return 1;
  }
  if (!t->cache) {
    /* Made on first use (a client that only asks for chunks never pays its 512 KiB), from the
     * Lua allocator, so a server module's memory cap counts it. */
    ty_terrain_cache *c = lua_newuserdatauv(L, sizeof *c, 0);
    ty_terrain_cache_init(c, t->seed);
    lua_setiuservalue(L, 1, 1);
    t->cache = c;
  }
  lua_pushinteger(L, ty_terrain_block(t->cache, x, (int32_t)y, z));
  return 1;
}

static int terrain_index(lua_State *L) {
  lterrain *t = check_terrain(L, 1);
  const char *k = luaL_checkstring(L, 2);
  if (strcmp(k, "seed") == 0) {
    lua_pushinteger(L, t->seed);
  } else {
    ty_type_push_methods(L, TY_TERRAIN);
    lua_getfield(L, -1, k);
  }
  return 1;
}

static int terrain_tostring(lua_State *L) {
  lterrain *t = check_terrain(L, 1);
  lua_pushfstring(L, "Terrain (seed %I)", (lua_Integer)t->seed);
  return 1;
}

/* tycho.terrain.noise(x, y [, seed]) -> number in about -1..1; seed is used as 32 bits */
static int terrain_noise(lua_State *L) {
  float x = (float)luaL_checknumber(L, 1), y = (float)luaL_checknumber(L, 2);
  uint32_t seed = (uint32_t)(luaL_optinteger(L, 3, 0) & 0xffffffff);
  lua_pushnumber(L, ty_noise2(seed, x, y));
  return 1;
}

void ty_open_terrain(lua_State *L) {
  static const luaL_Reg methods[] = {
      {"height", terrain_height}, {"chunk", terrain_chunk}, {"block", terrain_block}, {NULL, NULL}};
  static const luaL_Reg meta[] = {{"__index", terrain_index}, {"__tostring", terrain_tostring}, {NULL, NULL}};
  ty_type_register(L, TY_TERRAIN, meta, methods);

  static const luaL_Reg fns[] = {
      {"seed", terrain_seed}, {"new", terrain_new}, {"noise", terrain_noise}, {NULL, NULL}};
  luaL_newlib(L, fns);
  static const struct {
    const char *name;
    int value;
  } sizes[] = {{"CX", TY_TERRAIN_CX}, {"CY", TY_TERRAIN_CY}, {"CZ", TY_TERRAIN_CZ},
               {"SEA", TY_TERRAIN_SEA}, {"MAX_XZ", TY_TERRAIN_MAX_XZ}};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    lua_pushinteger(L, sizes[i].value);
    lua_setfield(L, -2, sizes[i].name);
  }
  lua_setfield(L, -2, "terrain");
}
