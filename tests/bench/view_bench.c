/* tests/bench/view_bench.c: the two ways a script can reach an object's position, measured
 * with the bunnymark's update on bare Lua 5.4 (no engine around them), so the choice the
 * scene binding made rests on figures anyone can reproduce.
 *
 *  plain  the update over plain Lua tables: the floor;
 *  table  go.position is a plain table (what tycho does); a frame then reads every table
 *         back from C (three lua_getfield per object, compared with C's floats);
 *  view   go.position is a userdata viewing C floats, with the leanest __index/__newindex
 *         we could write: the key found by one raw compare per axis against interned
 *         strings held as upvalues, no registry lookup, no liveness check.
 *
 * usage: view_bench [--frames N]   (N ticks, median reported; default 301)
 */
#include "bench.h"

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

enum { N = 10000 };

static float floats[N][3]; /* the C side of every position */

/* Upvalues 1..3: "x", "y", "z". */
static int axis_of(lua_State *L) {
  for (int a = 0; a < 3; a++)
    if (lua_rawequal(L, 2, lua_upvalueindex(a + 1))) return a;
  return -1;
}

/* The userdata holds a pointer to its object's three floats. */
static int view_index(lua_State *L) {
  float *f = *(float **)lua_touserdata(L, 1);
  int a = axis_of(L);
  if (a < 0) return luaL_error(L, "no field");
  lua_pushnumber(L, f[a]);
  return 1;
}

static int view_newindex(lua_State *L) {
  float *f = *(float **)lua_touserdata(L, 1);
  int a = axis_of(L);
  if (a < 0) return luaL_error(L, "no field");
  f[a] = (float)luaL_checknumber(L, 3);
  return 0;
}

/* view(i): a userdata viewing floats[i]. */
static int new_view(lua_State *L) {
  lua_Integer i = luaL_checkinteger(L, 1);
  float **p = lua_newuserdatauv(L, sizeof *p, 0);
  *p = floats[i - 1];
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_setmetatable(L, -2);
  return 1;
}

/* readback(list): every table's x, y, z into floats, written only when changed. */
static int readback(lua_State *L) {
  static const char *const axes[3] = {"x", "y", "z"};
  for (lua_Integer i = 1; i <= N; i++) {
    lua_rawgeti(L, 1, i);
    for (int a = 0; a < 3; a++) {
      lua_getfield(L, -1, axes[a]);
      float v = (float)lua_tonumber(L, -1);
      if (v != floats[i - 1][a]) floats[i - 1][a] = v;
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
  return 0;
}

static const char SCRIPT[] =
    "local N, REPS, view, readback, clock = ...\n"
    "local W, H = 800, 600\n"
    "local function update(self)\n"
    "  local p = self.gameObject.position\n"
    "  local x, y = p.x + self.vx, p.y + self.vy\n"
    "  if x < 0 or x > W then self.vx = -self.vx end\n"
    "  if y < 0 or y > H then self.vy = -self.vy end\n"
    "  p.x, p.y = x, y\n"
    "end\n"
    "local Bunny = { update = update }; Bunny.__index = Bunny\n"
    "local function make(kind)\n"
    "  local list, tables = {}, {}\n"
    "  for i = 1, N do\n"
    "    local x, y = (i * 37) % W, (i * 91) % H\n"
    "    local pos = kind == 'view' and view(i) or { x = x, y = y, z = 0 }\n"
    "    if kind == 'view' then pos.x, pos.y, pos.z = x, y, 0 end\n"
    "    tables[i] = pos\n"
    "    list[i] = setmetatable({ gameObject = { position = pos }, vx = (i % 7) - 3, vy = (i % 5) - 2 }, Bunny)\n"
    "  end\n"
    "  return list, tables\n"
    "end\n"
    "local sets = {}\n"
    "for _, kind in ipairs { 'plain', 'table', 'view' } do sets[kind] = { make(kind) } end\n"
    "local times = { plain = {}, table = {}, tableSync = {}, view = {} }\n"
    "for r = 1, REPS + 5 do\n"
    "  for _, kind in ipairs { 'plain', 'table', 'view' } do\n"
    "    local list = sets[kind][1]\n"
    "    local t0 = clock()\n"
    "    for i = 1, N do list[i]:update() end\n"
    "    local t1 = clock()\n"
    "    if kind == 'table' then readback(sets.table[2]) end\n"
    "    local t2 = clock()\n"
    "    if r > 5 then\n"
    "      times[kind][r - 5] = t1 - t0\n"
    "      if kind == 'table' then times.tableSync[r - 5] = t2 - t1 end\n"
    "    end\n"
    "  end\n"
    "end\n"
    "local function median(t) table.sort(t); return t[(#t + 1) // 2] / N * 1e9 end\n"
    "return median(times.plain), median(times.table), median(times.tableSync), median(times.view)\n";

int main(int argc, char **argv) {
  int reps = bench_frames(argc, argv, 301);
  lua_State *L = luaL_newstate();
  luaL_openlibs(L);
  if (luaL_loadstring(L, SCRIPT) != LUA_OK) goto fail;
  lua_pushinteger(L, N);
  lua_pushinteger(L, reps);
  /* view(i), with the metatable as its upvalue */
  lua_newtable(L);
  static const lua_CFunction access[2] = {view_index, view_newindex};
  static const char *const names[2] = {"__index", "__newindex"};
  for (int k = 0; k < 2; k++) {
    lua_pushliteral(L, "x");
    lua_pushliteral(L, "y");
    lua_pushliteral(L, "z");
    lua_pushcclosure(L, access[k], 3);
    lua_setfield(L, -2, names[k]);
  }
  lua_pushcclosure(L, new_view, 1);
  lua_pushcfunction(L, readback);
  lua_getglobal(L, "os");
  lua_getfield(L, -1, "clock");
  lua_remove(L, -2);
  if (lua_pcall(L, 5, 4, 0) != LUA_OK) goto fail;
  double plain = lua_tonumber(L, -4), table = lua_tonumber(L, -3), sync = lua_tonumber(L, -2),
         view = lua_tonumber(L, -1);
  printf("view_bench: the bunnymark update on bare Lua 5.4, %d objects, median of %d ticks (CPU time)\n", N, reps);
  printf("  plain tables            %6.1f ns/object\n", plain);
  printf("  position as a table     %6.1f ns/object  %5.2fx plain; + %5.1f ns read back per frame (%.2fx)\n", table,
         table / plain, sync, (table + sync) / plain);
  printf("  position as a userdata  %6.1f ns/object  %5.2fx plain (leanest __index/__newindex)\n", view,
         view / plain);
  lua_close(L);
  return 0;
fail:
  fprintf(stderr, "view_bench: %s\n", lua_tostring(L, -1));
  lua_close(L);
  return 1;
}
