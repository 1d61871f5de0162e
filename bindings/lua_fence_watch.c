/* bindings/lua_fence_watch.c: the watchdog thread that arms a lazy fence's call once it has
 * run past its grace (the design, and why its charge can only be too high, is at the top of
 * lua_fence.c). It reads, with atomics, what each watched fence publishes: a sequence number
 * odd while a call runs, the call's start; it publishes readings of the fence's thread's CPU
 * time (sample_v, a seqlock), and kicks that thread with KICK_SIGNAL. */
#define _GNU_SOURCE /* Required for: pthread_setname_np */
#include "lua_fence_watch.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#define GRACE_NS 1000000u /* a lazy call runs this long unhooked at least */
#define TICK_NS 1000000L  /* the watchdog's period */
#define DOZE_TICKS 4      /* ticks without a call before it sleeps until one */

uint64_t ty_fence_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ty_fence_ns_of(ts);
}

static struct {
  pthread_mutex_t life; /* held while the thread starts or stops */
  pthread_mutex_t mu;   /* the list, and a tick */
  ty_fence_watched *list;
  pthread_t thread;
  bool on;
  atomic_bool stopping;
  /* no call for DOZE_TICKS ticks: the thread sleeps until the next call wakes it */
  pthread_mutex_t doze_mu;
  pthread_cond_t wake;
  atomic_bool dozing;
} watch = {.life = PTHREAD_MUTEX_INITIALIZER, .mu = PTHREAD_MUTEX_INITIALIZER, .doze_mu = PTHREAD_MUTEX_INITIALIZER,
           .wake = PTHREAD_COND_INITIALIZER};

/* Publishes a reading of f's owner's CPU time, taken before seq was read (under watch.mu). */
static void publish_sample(ty_fence_watched *f, uint64_t cpu, uint64_t seq) {
  uint64_t v = atomic_load_explicit(&f->sample_v, memory_order_relaxed);
  atomic_store_explicit(&f->sample_v, v + 1, memory_order_relaxed);
  atomic_thread_fence(memory_order_release);
  uint64_t last_seq = atomic_load_explicit(&f->last_seq, memory_order_relaxed);
  if (last_seq != seq) {
    atomic_store_explicit(&f->prev_cpu, atomic_load_explicit(&f->last_cpu, memory_order_relaxed), memory_order_relaxed);
    atomic_store_explicit(&f->prev_seq, last_seq, memory_order_relaxed);
  }
  atomic_store_explicit(&f->last_cpu, cpu, memory_order_relaxed);
  atomic_store_explicit(&f->last_seq, seq, memory_order_relaxed);
  atomic_store_explicit(&f->sample_v, v + 2, memory_order_release);
}

/* One look at every watched fence; true when a call ran since the last. The owner's CPU time is read before its sequence number
 * and published with it: a call with a greater number began after the reading, so the
 * reading is a floor of the thread's CPU time at the call's start. */
static bool tick(uint64_t now) {
  ty_fence_watched *read_for = NULL; /* the fence whose owner `cpu` is the reading of */
  uint64_t cpu = NO_FLOOR;
  bool ran = false;
  for (ty_fence_watched *f = watch.list; f; f = f->next_watched) {
    if (!read_for || !pthread_equal(read_for->owner, f->owner)) { /* one reading per thread */
      struct timespec ts;
      read_for = f;
      cpu = f->cpu_clock_ok && clock_gettime(f->cpu_clock, &ts) == 0 ? ty_fence_ns_of(ts) : NO_FLOOR;
    }
    uint64_t seq = atomic_load_explicit(&f->seq, memory_order_acquire);
    ran = ran || seq != f->seen_seq || (seq & 1);
    f->seen_seq = seq;
    if (cpu != NO_FLOOR) publish_sample(f, cpu, seq);
    if (!(seq & 1) || atomic_load_explicit(&f->kicked, memory_order_relaxed) == seq) continue;
    uint64_t since = atomic_load_explicit(&f->since, memory_order_relaxed);
    atomic_thread_fence(memory_order_acquire);
    if (atomic_load_explicit(&f->seq, memory_order_relaxed) != seq || now < since + GRACE_NS) continue;
    atomic_store_explicit(&f->kicked, seq, memory_order_release);
    pthread_kill(f->owner, KICK_SIGNAL);
  }
  return ran;
}

/* Sleeps until a call starts (ty_fence_arm wakes it), the watchdog stops, or a second passes,
 * unless a call started since the last tick. */
static void doze(void) {
  pthread_mutex_lock(&watch.doze_mu);
  atomic_store(&watch.dozing, true); /* then the sequence numbers: a call starting now sees one or the other */
  pthread_mutex_lock(&watch.mu);
  bool quiet = true;
  for (ty_fence_watched *f = watch.list; f; f = f->next_watched) quiet = quiet && atomic_load(&f->seq) == f->seen_seq;
  pthread_mutex_unlock(&watch.mu);
  struct timespec until;
  clock_gettime(CLOCK_MONOTONIC, &until);
  until.tv_sec++;
  while (quiet && atomic_load(&watch.dozing) && !atomic_load(&watch.stopping))
    if (pthread_cond_timedwait(&watch.wake, &watch.doze_mu, &until) == ETIMEDOUT) break;
  atomic_store(&watch.dozing, false);
  pthread_mutex_unlock(&watch.doze_mu);
}

static void wake_watchdog(void) {
  pthread_mutex_lock(&watch.doze_mu);
  atomic_store(&watch.dozing, false);
  pthread_cond_signal(&watch.wake);
  pthread_mutex_unlock(&watch.doze_mu);
}

static void *watchdog(void *unused) {
  (void)unused;
  const struct timespec period = {0, TICK_NS};
  int quiet = 0;
  while (!atomic_load(&watch.stopping)) {
    clock_nanosleep(CLOCK_MONOTONIC, 0, &period, NULL);
    pthread_mutex_lock(&watch.mu);
    bool ran = tick(ty_fence_now_ns());
    pthread_mutex_unlock(&watch.mu);
    quiet = ran ? 0 : quiet + 1;
    if (quiet >= DOZE_TICKS) {
      doze();
      quiet = 0;
    }
  }
  return NULL;
}

static void init_wake(void) { /* the doze's timeout is on CLOCK_MONOTONIC */
  pthread_condattr_t a;
  pthread_condattr_init(&a);
  pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
  pthread_cond_destroy(&watch.wake);
  pthread_cond_init(&watch.wake, &a);
  pthread_condattr_destroy(&a);
}

/* Starts the signal handler and the thread with the first fence. false: no thread (the
 * fence stays eager). */
static bool start_watchdog(void (*on_kick)(int)) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_kick;
  sa.sa_flags = SA_RESTART; /* blocking calls the Lua thread is in when kicked go on */
  sigemptyset(&sa.sa_mask);
  if (sigaction(KICK_SIGNAL, &sa, NULL) != 0) return false;
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old); /* the thread takes no signal: the process's go elsewhere */
  atomic_store(&watch.stopping, false);
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, init_wake);
  bool ok = pthread_create(&watch.thread, NULL, watchdog, NULL) == 0;
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (ok) pthread_setname_np(watch.thread, "tycho-fence"); /* what top and ps show */
  return ok;
}

bool ty_fence_watch(ty_fence_watched *f, void (*on_kick)(int)) {
  pthread_mutex_lock(&watch.life);
  bool ok = watch.on || start_watchdog(on_kick);
  if (ok) {
    watch.on = true;
    pthread_mutex_lock(&watch.mu);
    f->owner = pthread_self();
    f->cpu_clock_ok = pthread_getcpuclockid(f->owner, &f->cpu_clock) == 0; /* else: charged by the time */
    /* a first floor, so that no call is charged by the time alone, which counts a wait (a
     * disk's fsync under sqlite) as if Lua ran through it */
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0) publish_sample(f, ty_fence_ns_of(ts), atomic_load(&f->seq));
    f->next_watched = watch.list;
    watch.list = f;
    f->watched = true;
    pthread_mutex_unlock(&watch.mu);
  }
  pthread_mutex_unlock(&watch.life);
  return ok;
}

void ty_fence_unwatch(ty_fence_watched *f) {
  if (!f->watched) return;
  pthread_mutex_lock(&watch.life);
  pthread_mutex_lock(&watch.mu);
  for (ty_fence_watched **p = &watch.list; *p; p = &(*p)->next_watched)
    if (*p == f) {
      *p = f->next_watched;
      break;
    }
  f->watched = false;
  bool last = !watch.list;
  pthread_mutex_unlock(&watch.mu);
  if (last) {
    atomic_store(&watch.stopping, true);
    wake_watchdog();
    pthread_join(watch.thread, NULL);
    watch.on = false;
  }
  pthread_mutex_unlock(&watch.life);
}

void ty_fence_watch_wake(void) {
  if (atomic_load(&watch.dozing)) wake_watchdog();
}
