/* tests/c/fence_test.c: bindings/lua_fence.c's lazy calls: a call with a big budget starts
 * with no count hook and is armed by the watchdog past its grace, and a runaway one still
 * never runs more Lua instructions than its budget; small budgets and short time limits
 * stay hooked from the first instruction; C work is charged at the time bound before the
 * hook comes, and time spent waiting is not; the watchdog thread ends with the last lazy
 * fence's state. */
#include "check.h"
#include "lua_fence.h"

#include <stdlib.h>
#include <time.h>

static ty_fence fence;

/* hooked(): whether the running thread has a hook now. */
static int l_hooked(lua_State *S) {
  lua_pushboolean(S, lua_gethook(S) != NULL);
  return 1;
}

static uint64_t cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* busy(ms): spins in C for ms milliseconds of the thread's CPU time, then charges one step of
 * C work. */
static int l_busy(lua_State *S) {
  uint64_t until = cpu_ns() + (uint64_t)(luaL_checknumber(S, 1) * 1e6);
  while (cpu_ns() < until) {}
  ty_fence_charge(S, 1);
  return 0;
}

/* sleep(ms): waits ms milliseconds in C (as a disk's fsync would), then charges one step. */
static int l_sleep(lua_State *S) {
  uint64_t until = ty_fence_now_ns() + (uint64_t)(luaL_checknumber(S, 1) * 1e6);
  struct timespec at = {(time_t)(until / 1000000000u), (long)(until % 1000000000u)};
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) != 0) {} /* the watchdog's signal */
  ty_fence_charge(S, 1);
  return 0;
}

static lua_State *fenced(uint64_t limit, double time_limit, bool lazy) {
  fence = (ty_fence){.limit = limit, .time_limit = time_limit, .lazy = lazy};
  lua_State *S = luaL_newstate();
  luaL_openlibs(S);
  ty_ctx_open(S);
  ty_fence_install(S, &fence);
  ty_fence_open_guards(S);
  lua_register(S, "hooked", l_hooked);
  lua_register(S, "busy", l_busy);
  lua_register(S, "sleep", l_sleep);
  return S;
}

static void close_fenced(lua_State *S) {
  ty_fence_stop(S);
  lua_close(S);
}

/* Runs chunk as one fenced call; returns its error, or NULL. Leaves its result on S. */
static const char *call(lua_State *S, const char *chunk) {
  if (luaL_loadstring(S, chunk) != LUA_OK) return lua_tostring(S, -1);
  ty_fence_arm(&fence, S);
  int rc = lua_pcall(S, 0, 1, 0);
  ty_fence_disarm(&fence);
  return rc == LUA_OK ? NULL : lua_tostring(S, -1);
}

static int threads_now(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  int n = -1;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "Threads: %d", &n) == 1) break;
  if (f) fclose(f);
  return n;
}

static void test_short_call_runs_unhooked(void) {
  lua_State *S = fenced(100000000, 0, true);
  CHECK(call(S, "return hooked()") == NULL);
  CHECK(!lua_toboolean(S, -1));
  lua_pop(S, 1);
  /* and a hook left from an earlier call (one armed by the watchdog, or stopped) is taken off */
  ty_fence_stop(S);
  CHECK(call(S, "return hooked()") == NULL);
  CHECK(!lua_toboolean(S, -1));
  lua_pop(S, 1);
  close_fenced(S);
}

static void test_small_budget_and_eager_fence_hook_at_once(void) {
  lua_State *S = fenced(1000, 0, true);
  CHECK(call(S, "return hooked()") == NULL);
  CHECK(lua_toboolean(S, -1));
  close_fenced(S);
  S = fenced(100000000, 0.005, true); /* a time limit of a few graces */
  CHECK(call(S, "return hooked()") == NULL);
  CHECK(lua_toboolean(S, -1));
  close_fenced(S);
  S = fenced(100000000, 0, false);
  CHECK(call(S, "return hooked()") == NULL);
  CHECK(lua_toboolean(S, -1));
  close_fenced(S);
}

/* A runaway loop is armed past the grace and stopped having run no more instructions than
 * its budget: each turn of `while true do i = i + 1 end` is four (GETTABUP, ADDI, SETTABUP,
 * JMP). */
static void test_runaway_stops_within_its_budget(void) {
  lua_State *S = fenced(20000000, 0, true);
  const char *err = call(S, "i = 0 start = hooked() while true do i = i + 1 end");
  CHECK(err && strstr(err, "instruction limit exceeded (20000000 instructions in one call)"));
  lua_getglobal(S, "start");
  CHECK(!lua_toboolean(S, -1)); /* it began unhooked */
  lua_getglobal(S, "i");
  lua_Integer turns = lua_tointeger(S, -1);
  CHECK(turns > 0);
  CHECK(4 * turns <= 20000000);
  printf("  runaway: %lld instructions run, %llu counted, of a budget of 20 M\n", 4 * (long long)turns,
         (unsigned long long)fence.count);
  CHECK(fence.exceeded && fence.count > fence.limit);
  lua_settop(S, 0);
  /* the next call starts afresh and unhooked */
  CHECK(call(S, "return hooked()") == NULL);
  CHECK(!lua_toboolean(S, -1));
  close_fenced(S);
}

static void test_runaway_in_coroutine_and_pcall_stops(void) {
  lua_State *S = fenced(20000000, 0, true);
  const char *err = call(S, "local co = coroutine.wrap(function() while true do end end) "
                            "while true do pcall(co) end");
  CHECK(err && strstr(err, "instruction limit exceeded"));
  lua_settop(S, 0);
  err = call(S, "local function spin() while true do end end while true do xpcall(spin, spin) end");
  CHECK(err && strstr(err, "instruction limit exceeded"));
  close_fenced(S);
}

/* The unhooked stretch ends at the watchdog's signal: C work inside the grace keeps no
 * charge, and 10 ms of CPU in one C function (at 4 G steps a second, 40 M against a budget of
 * 20 M if charged to its end) is charged only up to the signal, as no Lua instruction ran
 * after it; the Lua loop that follows is still stopped. */
static void test_c_work_counts_the_time_bound(void) {
  lua_State *S = fenced(20000000, 0, true);
  CHECK(call(S, "busy(0.1) return hooked()") == NULL); /* well inside the grace: no charge kept */
  CHECK(!lua_toboolean(S, -1));
  CHECK(fence.count < 1000);
  lua_settop(S, 0);
  CHECK(call(S, "busy(10)") == NULL);
  CHECK(fence.count < fence.limit);
  lua_settop(S, 0);
  const char *err = call(S, "busy(10) while true do end");
  CHECK(err && strstr(err, "instruction limit exceeded"));
  close_fenced(S);
}

/* Time the thread spends waiting is not charged: the bound is its CPU time when that is less,
 * from the very first call (40 ms at 4 G steps a second would be 160 M). */
static void test_waiting_is_not_charged(void) {
  lua_State *S = fenced(100000000, 0, true);
  CHECK(call(S, "sleep(40) for _ = 1, 1000 do end return 1") == NULL);
  CHECK(fence.count < 20000000);
  lua_settop(S, 0);
  CHECK(call(S, "for _ = 1, 3 do sleep(15) end return 1") == NULL);
  close_fenced(S);
}

static void test_time_limit_holds_lazily(void) {
  lua_State *S = fenced(0, 0.05, true);
  uint64_t t0 = ty_fence_now_ns();
  const char *err = call(S, "start = hooked() while true do end");
  double took = (double)(ty_fence_now_ns() - t0) * 1e-9;
  CHECK(err && strstr(err, "time limit exceeded"));
  CHECK(fence.timed_out);
  CHECK(took >= 0.05 && took < 1.0);
  lua_getglobal(S, "start");
  CHECK(!lua_toboolean(S, -1));
  close_fenced(S);
}

static void test_watchdog_ends_with_the_last_state(void) {
  int before = threads_now();
  lua_State *a = fenced(100000000, 0, true);
  CHECK(call(a, "return 1") == NULL);
  CHECK_EQ_INT(threads_now(), before + 1);
  close_fenced(a);
  CHECK_EQ_INT(threads_now(), before);
}

int main(void) {
  RUN(test_short_call_runs_unhooked);
  RUN(test_small_budget_and_eager_fence_hook_at_once);
  RUN(test_runaway_stops_within_its_budget);
  RUN(test_runaway_in_coroutine_and_pcall_stops);
  RUN(test_c_work_counts_the_time_bound);
  RUN(test_waiting_is_not_charged);
  RUN(test_time_limit_holds_lazily);
  RUN(test_watchdog_ends_with_the_last_state);
  return check_summary();
}
