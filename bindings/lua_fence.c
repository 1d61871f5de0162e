/* bindings/lua_fence.c: the budget a call into untrusted Lua runs under (see lua_fence.h).
 *
 * A count hook every `step` instructions adds them to the call's count; C work done for
 * the call is charged to the same count before it runs (ty_fence_charge), and memory the
 * call allocates after it (ty_fence_note_alloc, from the state's allocator). Past the limit,
 * or past the call's time, the hook raises, and from then on raises at every instruction of
 * the thread, while the guarded pcall, xpcall and coroutine functions pass that error on
 * instead of catching it, so nothing the untrusted code does can keep the call going.
 *
 * Lazy calls. Lua 5.4 calls luaG_traceexec at every instruction of a thread that has a count
 * hook, whatever its count, so a hooked call runs about twice as slow as a bare one, and
 * nearly every call of a server module is short. A fence with `lazy` set therefore starts a
 * call whose budget is big (at least LAZY_MIN_LIMIT steps, no time limit under
 * LAZY_MIN_SECONDS) with no hook, and arms it only once it has run past GRACE_NS:
 *   - one watchdog thread per process (lua_fence_watch.c) (started with the first lazy fence, joined when the
 *     last one's state closes) wakes every TICK_NS. Each fence publishes with atomics a
 *     sequence number, odd while a call runs, and the call's start. A call seen running past
 *     the grace gets one KICK_SIGNAL, sent with pthread_kill to the fence's own thread only
 *     (the sqlite writer and the watchdog itself, which blocks every signal, never get it).
 *     SA_RESTART resumes the blocking calls it lands in (sqlite's reads and writes, lws's
 *     sends); epoll_wait returns EINTR whatever the flag, which libev retries.
 *   - the signal's handler, on the Lua thread, checks that the call it was sent for is still
 *     the running one and sets the count hook (count 1) on the thread running it (f->cur),
 *     as lua.c's SIGINT handler does: lua_sethook only stores fields, which Lua allows from a
 *     signal handler, and the handler does nothing else (no allocation, no I/O). The
 *     watchdog never calls lua_sethook itself: it walks the thread's CallInfo list, which the
 *     Lua thread changes. Lua 5.4 rereads the hook flag at every jump and loop back edge, so
 *     a running loop sees it.
 *   - the instructions run before the hook came are unknown. The first hook call charges them
 *     as the most the time could hold: MAX_STEPS_PER_NS times the nanoseconds since the
 *     call's start or, if less, times the Lua thread's CPU time since the watchdog's last
 *     reading of it from before the call (the readings come with each tick, and a first one
 *     when the fence is watched; on a busy machine the thread runs only part of the time,
 *     and a call waiting on the disk not at all). Every VM instruction is a load, a
 *     decode and an indirect jump through the dispatch table: stock Lua 5.4 runs its cheapest
 *     (a FORLOOP) at 0.3 G a second on the 2.6 GHz server cores this was measured on, about
 *     8 cycles each, and 4 G a second would take one every 1.5 cycles at 6 GHz, faster than
 *     any core we know dispatches an interpreter. So the count can only be too high: a lazy
 *     call is never let past its budget, and is stopped earlier than an exact count would
 *     stop it by what the charge overestimates (about 4 M steps per millisecond unhooked:
 *     4 to 8 % of the default budget when the watchdog gets its core at once). The stretch
 *     ends at the signal (on_kick reads both clocks, which is async-signal-safe): a long C
 *     function the call is in then (a big world's load) runs no Lua instruction before the
 *     hook's first call, so its time is not charged as instructions, as an eager fence never
 *     charged it. Until the signal comes, ty_fence_charge weighs the same bound without
 *     keeping it.
 *   - memory debt wakes the hook as it always did; in a call not armed yet the hook weighs
 *     the debt and the time bound and takes itself off again. A coroutine the call switches
 *     to, or back from, gets the hook when the call is armed and loses one it kept from an
 *     earlier call when it is not (sync_hook, also around coroutine.close and a wrapped
 *     coroutine's reset, which run __close on the coroutine), so the handler only ever needs
 *     to hook the thread running at that moment.
 *   - after DOZE_TICKS ticks in which no call ran the watchdog sleeps until the next call
 *     starts (ty_fence_arm wakes it: one lock and signal, only then). Nothing is lost by it:
 *     the grace still starts with the call. An idle server whose modules run no timers costs
 *     it about 0.04 % of a core, one whose timers run every few ms about 0.5 % (a tick is
 *     some 14 us on the shared 2-core machine measured, most of it the wake-up).
 * A small budget or a short time limit stays eager, hooked from its first instruction: the
 * grace's charge would be most of it. So does a call of a fence inside a lazy call of its
 * own (`nested`). */
#include "lua_fence.h"
#include "lua_fence_watch.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Memory a call allocates is charged as work: one step per ALLOC_BYTES_PER_STEP bytes. When
 * DEBT_NOW steps are owed, the hook is called at the running thread's next instruction
 * instead of up to a thousand later, so a few instructions that each allocate megabytes
 * (s .. s, {...} of a long list) stop as soon as they pass the budget. */
#define ALLOC_BYTES_PER_STEP 16
#define DEBT_NOW (1u << 16)

#define LAZY_MIN_LIMIT 10000000u /* a smaller step budget stays eager */
#define LAZY_MIN_SECONDS 0.01    /* ... and so does a shorter time limit */
#define MAX_STEPS_PER_NS 4u      /* the VM's instruction rate can not pass 4e9 a second */

ty_fence *ty_fence_of(lua_State *S) { return ty_ctx_get(S)->fence; }

static void count_hook(lua_State *S, lua_Debug *ar);

/* ---- the watchdog's signal (the watchdog is lua_fence_watch.c) ---- */

/* The fence whose call is running on this thread (its outer ones through ->outer). */
static _Thread_local ty_fence *_Atomic running;

static void on_kick(int sig) {
  (void)sig;
  int saved = errno;
  for (ty_fence *f = atomic_load_explicit(&running, memory_order_relaxed); f; f = f->outer) {
    uint64_t seq = atomic_load_explicit(&f->w.seq, memory_order_relaxed);
    if (atomic_load_explicit(&f->w.kicked, memory_order_acquire) != seq || f->armed || !f->cur) continue;
    struct timespec now, cpu; /* clock_gettime is async-signal-safe */
    f->armed_ns = clock_gettime(CLOCK_MONOTONIC, &now) == 0 ? ty_fence_ns_of(now) : 0;
    f->armed_cpu = clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu) == 0 ? ty_fence_ns_of(cpu) : 0;
    f->armed = 1;
    lua_sethook(f->cur, count_hook, LUA_MASKCOUNT, 1);
  }
  errno = saved;
}

/* A call switches to L (a coroutine, or back to its resumer): L gets the hook when the call
 * counts instructions (a coroutine made before the call was armed has none), and loses one
 * it kept from an earlier call when the call does not. */
static void sync_hook(ty_fence *f, lua_State *L) {
  bool hooked = lua_gethook(L) == count_hook;
  if (!f->lazy_call || f->armed || f->exceeded) {
    if (!hooked) lua_sethook(L, count_hook, LUA_MASKCOUNT, f->exceeded ? 1 : f->step);
    return;
  }
  if (!hooked) return;
  lua_sethook(L, NULL, 0, 0);
  if (f->armed) lua_sethook(L, count_hook, LUA_MASKCOUNT, 1); /* the watchdog came in between */
}

/* ---- counting ---- */

/* The install's anchor in the registry: when the state closes, the fence leaves the watchdog. */
static const char anchor_key = 0;

static int anchor_gc(lua_State *S) {
  ty_fence_unwatch(&(*(ty_fence **)lua_touserdata(S, 1))->w);
  return 0;
}

void ty_fence_install(lua_State *S, ty_fence *f) {
  ty_ctx_get(S)->fence = f;
  *(ty_fence **)lua_newuserdatauv(S, sizeof f, 0) = f;
  lua_createtable(S, 0, 1);
  lua_pushcfunction(S, anchor_gc);
  lua_setfield(S, -2, "__gc");
  lua_setmetatable(S, -2);
  lua_rawsetp(S, LUA_REGISTRYINDEX, &anchor_key);
}

/* The owner's CPU time at a moment before the running call began (the watchdog's latest
 * reading from before it), or NO_FLOOR. */
static uint64_t cpu_floor(ty_fence *f) {
  uint64_t v = atomic_load_explicit(&f->w.sample_v, memory_order_acquire);
  uint64_t last_cpu = atomic_load_explicit(&f->w.last_cpu, memory_order_relaxed);
  uint64_t last_seq = atomic_load_explicit(&f->w.last_seq, memory_order_relaxed);
  uint64_t prev_cpu = atomic_load_explicit(&f->w.prev_cpu, memory_order_relaxed);
  uint64_t prev_seq = atomic_load_explicit(&f->w.prev_seq, memory_order_relaxed);
  atomic_thread_fence(memory_order_acquire);
  if (!v || (v & 1) || atomic_load_explicit(&f->w.sample_v, memory_order_relaxed) != v) return NO_FLOOR; /* none, or being written */
  uint64_t seq = atomic_load_explicit(&f->w.seq, memory_order_relaxed);
  return last_seq < seq ? last_cpu : prev_seq < seq ? prev_cpu : NO_FLOOR;
}

/* The most instructions the running lazy call can have run unhooked: MAX_STEPS_PER_NS times
 * the nanoseconds since its start or, when `tight`, times its thread's CPU time since the
 * floor if less (on a busy machine the thread runs only part of the time; one system call
 * to know it). */
static uint64_t unhooked_bound(ty_fence *f, bool tight) {
  /* An armed call ran unhooked only until the signal: a long C function it was in then (a
   * world's load) runs no Lua instruction before the hook's first call. */
  bool kicked = f->armed && f->armed_ns;
  uint64_t ns = (kicked ? f->armed_ns : ty_fence_now_ns()) - f->start_ns, floor;
  struct timespec ts;
  if (tight && (floor = cpu_floor(f)) != NO_FLOOR &&
      ((kicked && f->armed_cpu) || clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)) {
    uint64_t cpu = kicked && f->armed_cpu ? f->armed_cpu : ty_fence_ns_of(ts);
    if (cpu >= floor && cpu - floor < ns) ns = cpu - floor;
  }
  return ns * MAX_STEPS_PER_NS;
}

/* Adds steps, and the memory debt, to the running call's count. Returns true once the
 * call is past its budget or its time (f->why then says which). A lazy call not yet
 * charged for its unhooked stretch is charged now if it is armed (the hook counts from
 * here); if not, the stretch's bound is weighed without being kept. */
static bool over_budget(ty_fence *f, size_t steps) {
  steps += f->debt;
  f->debt = 0;
  uint64_t unhooked = 0;
  if (f->lazy_call && !f->charged) {
    /* once per armed call, or when the elapsed time alone would stop the call: tight */
    unhooked = unhooked_bound(f, f->armed);
    if (!f->armed && f->limit && f->count + steps + unhooked > f->limit) unhooked = unhooked_bound(f, true);
    if (f->armed) {
      f->charged = true;
      steps += unhooked;
      unhooked = 0;
    }
  }
  f->count += steps;
  f->total += steps;
  if (f->limit && f->count + unhooked > f->limit) {
    if (f->limit_why) snprintf(f->why, sizeof f->why, "%s", f->limit_why);
    else snprintf(f->why, sizeof f->why, "instruction limit exceeded (%llu instructions in one call)",
                  (unsigned long long)f->limit);
  } else if (f->deadline > 0 && ty_now() > f->deadline) {
    snprintf(f->why, sizeof f->why, "time limit exceeded (%.3g s in one call)", f->time_limit);
    f->timed_out = true;
  } else {
    return false;
  }
  f->exceeded = true;
  return true;
}

static void count_hook(lua_State *S, lua_Debug *ar) {
  ty_fence *f = ty_fence_of(S);
  if (!f->exceeded && f->lazy_call && !f->armed) {
    /* memory debt in a lazy call the watchdog has not armed: weighed with the time bound,
     * which covers the instructions too; the call goes on unhooked */
    if (!over_budget(f, 0)) {
      lua_sethook(S, NULL, 0, 0);
      if (f->armed) lua_sethook(S, count_hook, LUA_MASKCOUNT, 1); /* the watchdog came in between */
      return;
    }
  } else if (!f->exceeded) {
    /* Called early (memory debt, the watchdog) or on a thread made while it was: back to the
     * usual step. The instructions since the last call are not known then, only that they
     * are fewer. */
    int step = lua_gethookcount(S);
    if (step != f->step) lua_sethook(S, count_hook, LUA_MASKCOUNT, f->step);
    if (!over_budget(f, (size_t)step)) return;
  }
  /* From now on raise at every instruction of this thread, so a pcall in the scene
   * cannot catch the stop and go on. */
  lua_sethook(S, count_hook, LUA_MASKCOUNT, 1);
  char where[160] = "";
  if (lua_getinfo(S, "Sl", ar) && ar->currentline > 0)
    snprintf(where, sizeof where, "%s:%d: ", ar->short_src, ar->currentline);
  luaL_error(S, "%s%s", where, f->why);
}

void ty_fence_charge(lua_State *S, size_t steps) {
  ty_fence *f = ty_fence_of(S);
  if (!f->exceeded && !over_budget(f, steps)) return;
  lua_sethook(S, count_hook, LUA_MASKCOUNT, 1); /* as the hook does: no pcall gets past it */
  luaL_where(S, 1); /* the scene's line that called the C function (level 0 is that function) */
  lua_pushstring(S, f->why);
  lua_concat(S, 2);
  lua_error(S);
}

void ty_fence_arm(ty_fence *f, lua_State *S) {
  f->step = (f->limit && f->limit < 1000) ? (int)f->limit : 1000;
  f->count = 0;
  f->debt = 0;
  f->exceeded = f->timed_out = false;
  f->why[0] = '\0';
  f->deadline = f->time_limit > 0 ? ty_now() + f->time_limit : 0;
  f->cur = S;
  f->lazy_call = f->lazy && (!f->limit || f->limit >= LAZY_MIN_LIMIT) &&
                 (f->time_limit <= 0 || f->time_limit >= LAZY_MIN_SECONDS);
  if (atomic_load_explicit(&f->w.seq, memory_order_relaxed) & 1) {
    /* a call of this fence inside a lazy one of its own: hooked, within the outer's watch */
    f->lazy_call = false;
    f->nested++;
  }
  if (f->lazy_call && !(f->w.watched && pthread_equal(f->w.owner, pthread_self()))) {
    ty_fence_unwatch(&f->w); /* its calls moved to another thread */
    if (!ty_fence_watch(&f->w, on_kick)) f->lazy_call = f->lazy = false; /* no watchdog: eager from here */
  }
  if (!f->lazy_call) {
    lua_sethook(S, count_hook, LUA_MASKCOUNT, f->step);
    return;
  }
  f->charged = false;
  f->armed = 0;
  f->armed_ns = f->armed_cpu = 0;
  if (lua_gethook(S)) lua_sethook(S, NULL, 0, 0);
  f->start_ns = ty_fence_now_ns();
  atomic_store_explicit(&f->w.since, f->start_ns, memory_order_relaxed);
  atomic_store(&f->w.seq, atomic_load_explicit(&f->w.seq, memory_order_relaxed) + 1); /* then dozing: see doze */
  ty_fence_watch_wake();
  f->outer = atomic_load_explicit(&running, memory_order_relaxed);
  atomic_store_explicit(&running, f, memory_order_relaxed);
}

void ty_fence_disarm(ty_fence *f) {
  if (f->nested) {
    f->nested--;
  } else if (atomic_load_explicit(&f->w.seq, memory_order_relaxed) & 1) {
    atomic_store_explicit(&f->w.seq, atomic_load_explicit(&f->w.seq, memory_order_relaxed) + 1, memory_order_release);
    atomic_store_explicit(&running, f->outer, memory_order_relaxed);
  }
  f->lazy_call = false;
  f->cur = NULL;
}

void ty_fence_stop(lua_State *S) {
  ty_fence_of(S)->exceeded = true;
  lua_sethook(S, count_hook, LUA_MASKCOUNT, 1);
}

void ty_fence_note_alloc(ty_fence *f, size_t grown) {
  size_t before = f->debt;
  f->debt += grown / ALLOC_BYTES_PER_STEP;
  /* lua_sethook only sets fields: it is safe here, as it is in a signal handler. */
  if (before < DEBT_NOW && f->debt >= DEBT_NOW && f->cur && !f->exceeded) lua_sethook(f->cur, count_hook, LUA_MASKCOUNT, 1);
}

/* ---- catching errors, and coroutines, under the fence ---- */

/* pcall and xpcall as the scene has them: the stock ones, except that an error raised
 * because the call is over its budget is not caught: it goes on up at once, and xpcall's
 * message handler is not run for it (Lua runs a handler with the hook off when the error
 * comes from the hook, so a handler that loops would never be stopped). */
static int pcall_done(lua_State *S, int status, lua_KContext extra) {
  if (status != LUA_OK && status != LUA_YIELD) {
    if (ty_fence_of(S)->exceeded) return lua_error(S);
    lua_pushboolean(S, 0);
    lua_pushvalue(S, -2);
    return 2;
  }
  return lua_gettop(S) - (int)extra;
}

static int fence_pcall(lua_State *S) {
  luaL_checkany(S, 1);
  lua_pushboolean(S, 1); /* the first result when nothing fails */
  lua_insert(S, 1);
  return pcall_done(S, lua_pcallk(S, lua_gettop(S) - 2, LUA_MULTRET, 0, 0, pcall_done), 0);
}

/* The message handler xpcall installs: the scene's, unless the call is over its budget. */
static int guarded_handler(lua_State *S) {
  if (ty_fence_of(S)->exceeded) return 1; /* the error object, as it is */
  lua_pushvalue(S, lua_upvalueindex(1));
  lua_insert(S, 1);
  lua_call(S, lua_gettop(S) - 1, 1);
  return 1;
}

static int fence_xpcall(lua_State *S) {
  int n = lua_gettop(S);
  luaL_checktype(S, 2, LUA_TFUNCTION);
  lua_pushvalue(S, 2);
  lua_pushcclosure(S, guarded_handler, 1);
  lua_replace(S, 2);
  lua_pushboolean(S, 1); /* the first result when nothing fails */
  lua_pushvalue(S, 1);   /* the function, called with the arguments after the handler */
  lua_rotate(S, 3, 2);
  return pcall_done(S, lua_pcallk(S, n - 2, LUA_MULTRET, 2, 2, pcall_done), 2);
}

/* Resumes co with the top narg values of S, with co as the running thread while it runs
 * (where memory debt wakes the hook). Returns how many values it yielded or returned, moved
 * onto S, or -1 with the error on S. */
static int resume(lua_State *S, lua_State *co, int narg) {
  if (!lua_checkstack(co, narg)) {
    lua_pushliteral(S, "too many arguments to resume");
    return -1;
  }
  lua_xmove(S, co, narg);
  ty_fence *f = ty_fence_of(S);
  lua_State *outer = f->cur;
  f->cur = co;
  sync_hook(f, co);
  int nres, status = lua_resume(co, S, narg, &nres);
  f->cur = outer;
  sync_hook(f, outer);
  if (status != LUA_OK && status != LUA_YIELD) {
    lua_xmove(co, S, 1);
    return -1;
  }
  if (!lua_checkstack(S, nres + 1)) {
    lua_pop(co, nres);
    lua_pushliteral(S, "too many results to resume");
    return -1;
  }
  lua_xmove(co, S, nres);
  return nres;
}

/* lua_resetthread(co), which runs co's pending to-be-closed variables on co: with co as the
 * running thread meanwhile, as resume does. */
static int reset_thread(lua_State *S, lua_State *co) {
  ty_fence *f = ty_fence_of(S);
  lua_State *outer = f->cur;
  f->cur = co;
  sync_hook(f, co);
  int status = lua_resetthread(co);
  f->cur = outer;
  sync_hook(f, outer);
  return status;
}

/* coroutine.resume: a coroutine stopped by the budget stops its resumer too. */
static int fence_resume(lua_State *S) {
  lua_State *co = lua_tothread(S, 1);
  luaL_argexpected(S, co, 1, "coroutine");
  int r = resume(S, co, lua_gettop(S) - 1);
  if (r < 0) {
    if (ty_fence_of(S)->exceeded) return lua_error(S);
    lua_pushboolean(S, 0);
    lua_insert(S, -2);
    return 2;
  }
  lua_pushboolean(S, 1);
  lua_insert(S, -(r + 1));
  return r + 1;
}

/* The function coroutine.wrap returns: resumes its coroutine, raising its errors (with the
 * caller's position when the error is a string, after closing a dead coroutine's pending
 * to-be-closed variables), as the stock one does. */
static int wrapped(lua_State *S) {
  lua_State *co = lua_tothread(S, lua_upvalueindex(1));
  int r = resume(S, co, lua_gettop(S));
  if (r >= 0) return r;
  int status = lua_status(co);
  if (status != LUA_OK && status != LUA_YIELD) {
    status = reset_thread(S, co);
    lua_xmove(co, S, 1);
  }
  if (!ty_fence_of(S)->exceeded && status != LUA_ERRMEM && lua_type(S, -1) == LUA_TSTRING) {
    luaL_where(S, 1);
    lua_insert(S, -2);
    lua_concat(S, 2);
  }
  return lua_error(S);
}

/* coroutine.close: the stock one (its upvalue), with co as the running thread while its
 * to-be-closed variables run, as resume does; a coroutine stopped by the budget while
 * closing stops its closer too. */
static int fence_close(lua_State *S) {
  lua_State *co = lua_tothread(S, 1);
  luaL_argexpected(S, co, 1, "coroutine");
  ty_fence *f = ty_fence_of(S);
  lua_State *outer = f->cur;
  if (co != outer) {
    f->cur = co;
    sync_hook(f, co);
  }
  lua_pushvalue(S, lua_upvalueindex(1));
  lua_insert(S, 1);
  int status = lua_pcall(S, lua_gettop(S) - 1, LUA_MULTRET, 0);
  if (co != outer) {
    f->cur = outer;
    sync_hook(f, outer);
  }
  if (status != LUA_OK) return lua_error(S);
  if (f->exceeded) {
    lua_pushstring(S, f->why);
    return lua_error(S);
  }
  return lua_gettop(S);
}

static int fence_wrap(lua_State *S) {
  luaL_checktype(S, 1, LUA_TFUNCTION);
  lua_State *co = lua_newthread(S);
  lua_pushvalue(S, 1);
  lua_xmove(S, co, 1);
  lua_pushcclosure(S, wrapped, 1);
  return 1;
}

void ty_fence_open_guards(lua_State *S) {
  lua_pushcfunction(S, fence_pcall);
  lua_setglobal(S, "pcall");
  lua_pushcfunction(S, fence_xpcall);
  lua_setglobal(S, "xpcall");
  lua_getglobal(S, LUA_COLIBNAME);
  lua_pushcfunction(S, fence_resume);
  lua_setfield(S, -2, "resume");
  lua_pushcfunction(S, fence_wrap);
  lua_setfield(S, -2, "wrap");
  lua_getfield(S, -1, "close");
  lua_pushcclosure(S, fence_close, 1);
  lua_setfield(S, -2, "close");
  lua_pop(S, 1);
}
