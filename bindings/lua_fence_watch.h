/* bindings/lua_fence_watch.h: the watchdog of lazy fences (lua_fence_watch.c), for
 * lua_fence.c alone. */
#ifndef TY_LUA_FENCE_WATCH_H
#define TY_LUA_FENCE_WATCH_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#define KICK_SIGNAL (SIGRTMIN + 2) /* sent to a fence's thread when its call passes the grace */
#define NO_FLOOR UINT64_MAX        /* no reading of a thread's CPU time */

/* A fence as the watchdog sees it (ty_fence's `w`). */
typedef struct ty_fence_watched {
  _Atomic uint64_t seq;    /* odd while a call runs, one more at each start and end */
  _Atomic uint64_t since;  /* ... the running call's start */
  _Atomic uint64_t kicked; /* the seq the watchdog signalled for */
  /* the watchdog's readings of the owner's CPU time, each with seq as read just after it: the
   * latest, and the latest before it with another seq (a seqlock: sample_v) */
  _Atomic uint64_t sample_v, last_cpu, last_seq, prev_cpu, prev_seq;
  clockid_t cpu_clock; /* the owner's CPU time */
  bool cpu_clock_ok;
  uint64_t seen_seq;   /* the watchdog's: seq at its last tick */
  bool watched;        /* known to the watchdog */
  pthread_t owner;     /* the thread that runs the fence's calls (the one that armed it first) */
  struct ty_fence_watched *next_watched;
} ty_fence_watched;

static inline uint64_t ty_fence_ns_of(struct timespec ts) {
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* CLOCK_MONOTONIC in nanoseconds: the clock lazy calls are charged by. */
uint64_t ty_fence_now_ns(void);

/* Watches a fence's calls from the calling thread (f->owner), starting the watchdog, with on_kick
 * as KICK_SIGNAL's handler, for the first fence. false: no watchdog (f stays eager). */
bool ty_fence_watch(ty_fence_watched *f, void (*on_kick)(int));
/* Stops watching it (when watched); the last fence stops and joins the thread. */
void ty_fence_unwatch(ty_fence_watched *f);
/* For ty_fence_arm, after the call's sequence number: wakes the watchdog if it dozes. */
void ty_fence_watch_wake(void);

#endif
