/* tests/bench/fence_bench.c: what the fence's count hook costs a call, and what lazy calls
 * (bindings/lua_fence.c: no hook until a call runs past its grace) take back, in one run:
 *
 *  hooked  the fence as the sandbox runs it: a count hook from the call's first instruction
 *          (Lua 5.4 then runs every instruction through luaG_traceexec);
 *  lazy    the fence as a server module runs it: the default budget, no hook in a call
 *          shorter than the grace.
 *
 * Two calls: a short message handler (a few table reads and writes, one small table made,
 * what most of a server's calls are) and a plain loop of 20,000 turns (about 0.1 ms, inside
 * the grace). Rounds alternate hooked and lazy; the median of each is reported, with the
 * ratio hooked/lazy.
 *
 * usage: fence_bench [--frames N]   (N rounds of each; default 15)
 */
#include "bench.h"
#include "lua_fence.h"

enum { SHORT_CALLS = 20000, LOOP_CALLS = 40, LOOP_TURNS = 20000 };

static const char *SCRIPT =
    "local room = { x = 0, y = 0, moves = 0, last = nil }\n"
    "function handler(msg)\n"
    "  if msg.t == 'move' then\n"
    "    room.x = room.x + msg.dx\n"
    "    room.y = room.y + msg.dy\n"
    "    room.moves = room.moves + 1\n"
    "  end\n"
    "  room.last = { t = 'pos', x = room.x, y = room.y, n = room.moves }\n"
    "  return room.last.n\n"
    "end\n"
    "function loop(n)\n"
    "  local s = 0\n"
    "  for i = 1, n do s = s + i % 7 end\n"
    "  return s\n"
    "end\n";

static ty_fence fence;

/* Runs `name` calls times as fenced calls; returns ns per call. */
static double run(lua_State *S, const char *name, int calls, bool lazy) {
  fence.lazy = lazy;
  uint64_t t0 = ty_fence_now_ns();
  for (int i = 0; i < calls; i++) {
    lua_getglobal(S, name);
    if (name[0] == 'h') lua_pushvalue(S, 1);
    else lua_pushinteger(S, LOOP_TURNS);
    ty_fence_arm(&fence, S);
    int rc = lua_pcall(S, 1, 1, 0);
    ty_fence_disarm(&fence);
    if (rc != LUA_OK) {
      fprintf(stderr, "fence_bench: %s\n", lua_tostring(S, -1));
      exit(1);
    }
    lua_pop(S, 1);
  }
  return (double)(ty_fence_now_ns() - t0) / calls;
}

int main(int argc, char **argv) {
  int rounds = bench_frames(argc, argv, 15);
  fence = (ty_fence){.limit = 100000000};
  lua_State *S = luaL_newstate();
  luaL_openlibs(S);
  ty_ctx_open(S);
  ty_fence_install(S, &fence);
  ty_fence_open_guards(S);
  if (luaL_dostring(S, SCRIPT) != LUA_OK) {
    fprintf(stderr, "fence_bench: %s\n", lua_tostring(S, -1));
    return 1;
  }
  lua_createtable(S, 0, 3); /* the message, at index 1 */
  lua_pushliteral(S, "move");
  lua_setfield(S, -2, "t");
  lua_pushinteger(S, 1);
  lua_setfield(S, -2, "dx");
  lua_pushinteger(S, 2);
  lua_setfield(S, -2, "dy");

  double *hs = calloc((size_t)rounds, sizeof *hs), *ls = calloc((size_t)rounds, sizeof *ls);
  double *hl = calloc((size_t)rounds, sizeof *hl), *ll = calloc((size_t)rounds, sizeof *ll);
  run(S, "handler", SHORT_CALLS / 10, false); /* warm up: the watchdog starts with the first lazy call */
  run(S, "handler", SHORT_CALLS / 10, true);
  for (int r = 0; r < rounds; r++) {
    hs[r] = run(S, "handler", SHORT_CALLS, false);
    ls[r] = run(S, "handler", SHORT_CALLS, true);
    hl[r] = run(S, "loop", LOOP_CALLS, false);
    ll[r] = run(S, "loop", LOOP_CALLS, true);
  }
  double h_short = bench_median(hs, rounds), l_short = bench_median(ls, rounds);
  double h_loop = bench_median(hl, rounds), l_loop = bench_median(ll, rounds);
  printf("fence_bench: %d rounds of %d handler calls and %d loops of %d turns (medians)\n", rounds, SHORT_CALLS,
         LOOP_CALLS, LOOP_TURNS);
  printf("short handler: hooked %.0f ns/call, lazy %.0f ns/call, ratio hooked/lazy %.2fx\n", h_short, l_short,
         h_short / l_short);
  printf("plain loop:    hooked %.1f us/call, lazy %.1f us/call, ratio hooked/lazy %.2fx\n", h_loop / 1e3,
         l_loop / 1e3, h_loop / l_loop);
  ty_fence_stop(S);
  lua_close(S);
  free(hs);
  free(ls);
  free(hl);
  free(ll);
  return 0;
}
