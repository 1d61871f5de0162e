/* engine/storage/store_writer.c: the generic store's queued jobs (store.h) and the writer
 * thread that runs them, and the checkpoints asked of it.
 *
 * An incremental save on a frame costs ~0.1 ms, but about one commit in fifty waits several
 * ms in write() for the kernel's writeback. Queued jobs move the sqlite work to a thread with
 * its own connection to the same file: the caller pays for a copy of what it saves. A schema
 * drains the queue before its other calls, so reads see queued writes and writes keep the
 * order they were made in. */
#include "store_internal.h"

#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

static void job_free(store_job *j) {
  if (j->free_job) j->free_job(j->job);
  TY_FREE(j);
}

/* One job in one transaction on conn. Unlike the incremental transactions made on the
 * caller's thread, this commit fsyncs (synchronous=FULL) and checkpoints as usual: it is off
 * the frame. */
static ty_storage_status job_run(ty_store *conn, const store_job *j, char *err, size_t errsz) {
  if (!ty_store_begin(conn, err, errsz)) return TY_STORAGE_FAILED;
  return ty_store_finish(conn, j->run(conn, j->job, err, errsz), err, errsz);
}

/* Keeps the first failure for the next flush, and logs it under a stable name (lock held). */
static void job_failed(ty_store *s, const char *why) {
  ty_log("storage_queued_save_failed", "%s", why);
  if (s->failed) return;
  s->failed = true;
  snprintf(s->first_error, sizeof s->first_error, "%s", why);
}

/* The writer yields to the game: SCHED_BATCH keeps its wake-up (each queued job) from
 * preempting the thread that queued it, and a lower priority keeps its sqlite work from
 * taking the game's core on a busy machine. Best effort: a refusal changes nothing else. */
static void writer_lower_priority(void) {
#ifdef SCHED_BATCH
  struct sched_param sp = {0};
  pthread_setschedparam(pthread_self(), SCHED_BATCH, &sp);
#endif
  errno = 0;
  if (setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 5) != 0) errno = 0;
}

/* A passive checkpoint on the writer's connection, then, when it copied the whole WAL, the
 * log's restart: sqlite starts the WAL over at the next write and fsyncs its new header
 * there, which would be the caller's next commit. A write of the file's version, unchanged,
 * under the write lock, makes that write this thread's. Skipped when a reader or writer of
 * another connection keeps the WAL in use; the caller's commit then pays for the restart. */
static void writer_checkpoint(ty_store *conn) {
  sqlite3 *db = ty_store_db(conn);
  int log = 0, copied = 0;
  if (sqlite3_wal_checkpoint_v2(db, NULL, SQLITE_CHECKPOINT_PASSIVE, &log, &copied) != SQLITE_OK || log <= 0 ||
      copied < log)
    return;
  /* Not fsynced at commit (the header's fsync is the restart's own): the write lock it holds
   * keeps the caller's next commit waiting for as short a time as can be. */
  if (sqlite3_exec(db, "PRAGMA synchronous = NORMAL; BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
    sqlite3_exec(db, "PRAGMA synchronous = FULL", NULL, NULL, NULL);
    return;
  }
  sqlite3_stmt *st;
  int64_t version = -1;
  if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK) {
    if (sqlite3_step(st) == SQLITE_ROW) version = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
  }
  char sql[64];
  snprintf(sql, sizeof sql, "PRAGMA user_version = %lld", (long long)version);
  bool ok = version >= 0 && sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK;
  sqlite3_exec(db, ok ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL);
  sqlite3_exec(db, "PRAGMA synchronous = FULL", NULL, NULL, NULL);
}

static void *writer_main(void *arg) {
  ty_store *s = arg;
  char open_err[512], err[512];
  writer_lower_priority();
  ty_store *conn = store_connect(s, open_err, sizeof open_err);
  pthread_mutex_lock(&s->lock);
  for (;;) {
    while (!s->head && !s->checkpoint && !s->stop) pthread_cond_wait(&s->wake, &s->lock);
    if (s->checkpoint) { /* before the next job: the caller asked for it earlier */
      s->checkpoint = false;
      pthread_mutex_unlock(&s->lock);
      if (conn) writer_checkpoint(conn);
      pthread_mutex_lock(&s->lock);
      continue;
    }
    store_job *j = s->head;
    if (!j) break; /* stopping, and every job is written */
    s->head = j->next;
    if (!s->head) s->tail = NULL;
    pthread_mutex_unlock(&s->lock);
    ty_storage_status st = TY_STORAGE_FAILED;
    if (conn) st = job_run(conn, j, err, sizeof err);
    else snprintf(err, sizeof err, "%s", open_err);
    job_free(j);
    pthread_mutex_lock(&s->lock);
    if (st != TY_STORAGE_OK) job_failed(s, err);
    s->pending--;
    pthread_cond_broadcast(&s->done);
  }
  pthread_mutex_unlock(&s->lock);
  ty_store_close(conn);
  return NULL;
}

void store_writer_stop(ty_store *s) {
  if (!s->started) return; /* every queued job is written first; a failure was logged by the writer */
  pthread_mutex_lock(&s->lock);
  s->stop = true;
  pthread_cond_signal(&s->wake);
  pthread_mutex_unlock(&s->lock);
  pthread_join(s->thread, NULL);
  s->started = false;
}

/* Starts the writer thread unless it runs (lock held); false, with the reason, when it cannot. */
static bool writer_start(ty_store *s, char *err, size_t errsz) {
  if (s->started) return true;
  int rc = pthread_create(&s->thread, NULL, writer_main, s);
  if (rc != 0) {
    ty_store_fail(err, errsz, "storage_writer", "cannot start the writer thread: %s", strerror(rc));
    return false;
  }
  s->started = true;
  return true;
}

void ty_store_checkpoint(ty_store *s) {
  if (!s->path) return; /* ":memory:" has no WAL; the writer's connection checkpoints itself */
  pthread_mutex_lock(&s->lock);
  bool queued = writer_start(s, NULL, 0);
  if (queued) {
    s->checkpoint = true;
    pthread_cond_signal(&s->wake);
  }
  pthread_mutex_unlock(&s->lock);
  /* Without a writer the WAL must still stop growing: checkpointed here, as sqlite would. */
  if (!queued) sqlite3_wal_checkpoint_v2(s->db, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
}

void ty_store_drain(ty_store *s) {
  if (!s->started) return; /* only the owner's thread starts it */
  pthread_mutex_lock(&s->lock);
  while (s->pending) pthread_cond_wait(&s->done, &s->lock);
  pthread_mutex_unlock(&s->lock);
}

ty_storage_status ty_store_queue(ty_store *s, void *job, ty_store_job_fn run, void (*free_job)(void *), char *err,
                                 size_t errsz) {
  store_job *j = TY_MALLOC(sizeof *j);
  TY_ASSERT(j);
  *j = (store_job){.job = job, .run = run, .free_job = free_job};
  /* ":memory:" has no file a second connection could open, and in a batch the writer's
   * connection could not write before the batch commits: written here. */
  if (!s->path || s->batch) {
    char why[512];
    ty_storage_status st = job_run(s, j, why, sizeof why);
    job_free(j);
    pthread_mutex_lock(&s->lock);
    if (st != TY_STORAGE_OK) job_failed(s, why);
    pthread_mutex_unlock(&s->lock);
    return TY_STORAGE_OK;
  }
  pthread_mutex_lock(&s->lock);
  if (!writer_start(s, err, errsz)) {
    pthread_mutex_unlock(&s->lock);
    job_free(j);
    return TY_STORAGE_FAILED;
  }
  /* Bounded: a caller that outpaces the disk waits here for room, rather than memory grow. */
  while (s->pending >= TY_STORE_QUEUE_JOBS) pthread_cond_wait(&s->done, &s->lock);
  if (s->tail) s->tail->next = j;
  else s->head = j;
  s->tail = j;
  s->pending++;
  pthread_cond_signal(&s->wake);
  pthread_mutex_unlock(&s->lock);
  return TY_STORAGE_OK;
}

ty_storage_status ty_store_flush(ty_store *s, char *err, size_t errsz) {
  pthread_mutex_lock(&s->lock);
  while (s->pending) pthread_cond_wait(&s->done, &s->lock);
  bool failed = s->failed;
  if (failed && err && errsz) snprintf(err, errsz, "%s", s->first_error);
  s->failed = false;
  pthread_mutex_unlock(&s->lock);
  return failed ? TY_STORAGE_FAILED : TY_STORAGE_OK;
}

bool ty_store_last_error(ty_store *s, char *err, size_t errsz) {
  pthread_mutex_lock(&s->lock);
  bool failed = s->failed;
  if (failed && err && errsz) snprintf(err, errsz, "%s", s->first_error);
  pthread_mutex_unlock(&s->lock);
  return failed;
}

uint32_t ty_store_pending(ty_store *s) {
  pthread_mutex_lock(&s->lock);
  uint32_t n = s->pending;
  pthread_mutex_unlock(&s->lock);
  return n;
}
