/* tests/bench/json_bench.c: what a game server encodes most, a crafty `players` list (one
 * entry per mover: an id and five coordinates, reals with fractions), written by the
 * encoder's short way (bindings/lua_json_write.c: straight from the Lua values) and by the
 * long way it replaced (a jansson tree, then json_dumps, which formats each real with
 * "%.17g"), in the same run; both texts are compared byte for byte first.
 *
 * usage: json_bench [--frames N]   (N rounds of 1000 encodes each way, medians; default 41)
 */
#include "bench.h"

#include <lauxlib.h>
#include <lualib.h>
#include <time.h>

#include "lua_json.h"
#include "lua_json_write.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* {t = "players", players = {{playerId = i, x =, y =, z =, yaw =, pitch =} x movers}} */
static void push_players(lua_State *L, int movers) {
  lua_createtable(L, 0, 2);
  lua_pushliteral(L, "players");
  lua_setfield(L, -2, "t");
  lua_createtable(L, movers, 0);
  for (int i = 1; i <= movers; i++) {
    lua_createtable(L, 0, 6);
    lua_pushinteger(L, 1000 + i);
    lua_setfield(L, -2, "playerId");
    static const char *const axes[] = {"x", "y", "z", "yaw", "pitch"};
    for (int a = 0; a < 5; a++) {
      lua_pushnumber(L, (i * 37 + a * 11) % 256 + (double)((i * 7919 + a * 104729) % 1000) / 997.0);
      lua_setfield(L, -2, axes[a]);
    }
    lua_rawseti(L, -2, i);
  }
  lua_setfield(L, -2, "players");
}

static int encode_long(lua_State *L) {
  ty_json_push_long(L, 1);
  return 1;
}

/* ns per encode of the value at index 1, one way, over `reps` encodes. */
static double time_way(lua_State *L, bool short_way, int reps) {
  double t0 = now_s();
  for (int r = 0; r < reps; r++) {
    if (short_way) {
      if (!ty_json_push_short(L, 1)) return -1;
    } else {
      lua_pushcfunction(L, encode_long);
      lua_pushvalue(L, 1);
      lua_call(L, 1, 1);
    }
    lua_pop(L, 1);
  }
  return (now_s() - t0) * 1e9 / reps;
}

int main(int argc, char **argv) {
  int rounds = bench_frames(argc, argv, 41);
  lua_State *L = luaL_newstate();
  static const int sizes[] = {1, 20};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    lua_settop(L, 0);
    push_players(L, sizes[k]);
    if (!ty_json_push_short(L, 1)) {
      fprintf(stderr, "json_bench: the short way refused the players list\n");
      return 1;
    }
    lua_pushcfunction(L, encode_long);
    lua_pushvalue(L, 1);
    lua_call(L, 1, 1);
    if (strcmp(lua_tostring(L, 2), lua_tostring(L, 3)) != 0) {
      fprintf(stderr, "json_bench: the two ways differ:\n  %s\n  %s\n", lua_tostring(L, 2), lua_tostring(L, 3));
      return 1;
    }
    size_t bytes = lua_rawlen(L, 2);
    lua_settop(L, 1);
    double *fast = malloc(sizeof *fast * (size_t)rounds), *slow = malloc(sizeof *slow * (size_t)rounds);
    for (int r = 0; r < rounds; r++) {
      fast[r] = time_way(L, true, 1000);
      slow[r] = time_way(L, false, 1000);
    }
    double f = bench_median(fast, rounds), s = bench_median(slow, rounds);
    printf("players list of %2d (%4zu bytes): short way %8.0f ns, jansson %8.0f ns; ratio jansson/short %.1fx\n",
           sizes[k], bytes, f, s, s / f);
    free(fast);
    free(slow);
  }
  printf("texts match byte for byte\n");
  lua_close(L);
  return 0;
}
