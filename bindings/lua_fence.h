/* bindings/lua_fence.h: the budget a call into untrusted Lua code runs under.
 *
 * A fence counts a call's work in steps: the Lua instructions it runs (a count hook), the
 * C work done for it (charged before it runs) and the memory it allocates; and it keeps the
 * call's time. Past its step limit or its time the call raises "instruction limit exceeded"
 * or "time limit exceeded", at once and then at every further instruction, and the guarded
 * pcall, xpcall, coroutine.resume, coroutine.wrap and coroutine.close let that error through
 * (xpcall without running its handler, which Lua would run with the hook off), so untrusted
 * code cannot catch its way past the fence. bindings/lua_sandbox.c runs scenes under one, server/module.c
 * each server module's calls. A lazy fence (the server's) starts a call with a big budget
 * without the hook and has a watchdog thread arm it past a grace, charging what the call can
 * have run until then (lua_fence.c says how). */
#ifndef TY_LUA_FENCE_H
#define TY_LUA_FENCE_H

#include "bindings.h"
#include "lua_fence_watch.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct ty_fence {
  uint64_t limit;      /* steps per call; 0: none */
  double time_limit;   /* seconds per call; 0: none */
  const char *limit_why; /* the error past the step limit; NULL: "instruction limit exceeded (N
                          * instructions in one call)" */
  bool lazy;           /* a call with a big budget may start without the hook, armed by the
                        * watchdog only once it runs past a grace (lua_fence.c); its count then
                        * holds a charge for the time it ran unhooked, so leave it off where the
                        * count is reported (the sandbox) */
  /* the running call */
  uint64_t count;      /* steps so far */
  uint64_t total;      /* steps of every call */
  int step;            /* instructions between hook calls */
  size_t debt;         /* steps owed for memory the call allocated */
  double deadline;     /* ty_now() past which the call stops; 0: never */
  bool exceeded;       /* the call is past its budget: everything raises */
  bool timed_out;      /* ... and it was the time */
  char why[192];       /* the error it raises */
  /* the thread running the call: the state's main thread, or the coroutine it resumed
   * (anchored on the resumer's stack while it runs); NULL between calls */
  lua_State *cur;
  /* lazy calls (lua_fence.c) */
  bool lazy_call;      /* the running call started without the hook */
  bool charged;        /* ... and its unhooked stretch is in the count: the hook counts the rest */
  volatile sig_atomic_t armed; /* the running call counts its instructions: the watchdog's
                                * signal set the hook on the running thread, and the threads
                                * the call switches to get it too */
  uint64_t start_ns;   /* the running call's start (ty_fence_now_ns) */
  /* when the signal set the hook (monotonic, and the thread's CPU time; 0: not read): the
   * unhooked stretch ends there, whatever C work runs before the next instruction */
  volatile uint64_t armed_ns, armed_cpu;
  ty_fence_watched w;  /* what the watchdog reads and writes (lua_fence_watch.h) */
  struct ty_fence *outer;  /* the fence whose call was running on this thread when this one's began */
  int nested;              /* calls of this fence running inside its own lazy one */
} ty_fence;

/* Puts f in S's context (ty_ctx_open first), where every thread made from S finds it; when S
 * closes, f leaves the watchdog (f must outlive S). */
void ty_fence_install(lua_State *S, ty_fence *f);
ty_fence *ty_fence_of(lua_State *S);
/* Replaces pcall, xpcall, coroutine.resume, coroutine.wrap and coroutine.close in S with
 * guarded ones. */
void ty_fence_open_guards(lua_State *S);

/* The start of a call on S (the main thread): zeroes the count, sets the deadline and the
 * hook (or, for a lazy call, leaves it to the watchdog). ty_fence_disarm marks its end. A
 * fence's calls all run on one thread. */
void ty_fence_arm(ty_fence *f, lua_State *S);
void ty_fence_disarm(ty_fence *f);
/* Charges `steps` of C work done for the running call; raises the fence's error, as the hook
 * does, once the call is past its budget. */
void ty_fence_charge(lua_State *S, size_t steps);
/* For the state's allocator, during a call: `grown` more bytes were allocated. */
void ty_fence_note_alloc(ty_fence *f, size_t grown);
/* Makes S raise at its first instruction (finalizers run at lua_close). */
void ty_fence_stop(lua_State *S);

#endif
