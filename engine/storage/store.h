/* engine/storage/store.h: the generic store, knowing nothing of what a game keeps in it: one
 * sqlite file in WAL mode, marked as a tycho store (another program's database is refused,
 * a damaged or newer one left as it was), brought to its schema's version on open by
 * numbered migrations in one transaction; transactions, full (fsynced at commit) or
 * incremental (durable at the next checkpoint), and batches of them in one commit; named
 * blobs; atomic writes of a file beside the store; and a writer thread that runs queued jobs
 * and every checkpoint on a connection of its own.
 *
 * A schema is what a game keeps: its migrations, its prepared statements and the functions
 * over them. crafty's SavedWorld (saved_world.h) is one; the engine itself defines none.
 * One ty_store per thread: every call runs on the caller's thread, except queued jobs. */
#ifndef TY_STORE_H
#define TY_STORE_H

#include "common.h"

/* How many queued jobs may wait for the writer thread; one more waits for room. */
#define TY_STORE_QUEUE_JOBS 64

typedef enum ty_storage_status {
  TY_STORAGE_OK = 0,
  TY_STORAGE_MISSING, /* no such record */
  TY_STORAGE_FAILED,  /* refused or failed: the message says why, nothing was changed */
} ty_storage_status;

typedef struct ty_store ty_store;
struct sqlite3;
struct sqlite3_stmt;

typedef struct ty_store_schema {
  /* The PRAGMA user_version this build migrates every store to; a file with a higher one is
   * refused. */
  int version;
  /* migrations[v]: the SQL taking the tables from version v to v + 1 (version entries). */
  const char *const *migrations;
  /* Prepared once the store is migrated, on every connection: ty_store_stmt(s, i). */
  const char *const *statements;
  int nstatements;
  /* NULL, or called inside the migration transaction after the steps ran, the statements
   * prepared, with the version the file had (0 for a new one): for rows a step's SQL cannot
   * move. False (a message in err) refuses the store. */
  bool (*upgrade)(ty_store *s, int64_t from, char *err, size_t errsz);
} ty_store_schema;

/* Opens (creating when absent) the store at path, ":memory:" for a private one, and applies
 * schema's migrations; schema must outlive the store. NULL with a message in err when the
 * file is not a tycho store, is damaged, or was written by a newer tycho; such a file is
 * left as it was. */
ty_store *ty_store_open(const char *path, const ty_store_schema *schema, char *err, size_t errsz);
/* Writes every queued job first (a failure is only logged). */
void ty_store_close(ty_store *s);

struct sqlite3 *ty_store_db(ty_store *s);
/* The schema's statement i, prepared on this connection (reset it after use). */
struct sqlite3_stmt *ty_store_stmt(ty_store *s, int i);

/* Writes the message into err (when not NULL) and logs it under a stable name; returns
 * TY_STORAGE_FAILED. */
ty_storage_status ty_store_fail(char *err, size_t errsz, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* ty_store_fail under storage_sql with what and sqlite's last message. */
ty_storage_status ty_store_sql_fail(ty_store *s, char *err, size_t errsz, const char *what);
bool ty_store_exec(ty_store *s, const char *sql, char *err, size_t errsz);

/* A write transaction, durable at its commit (synchronous=FULL). ty_store_finish commits
 * when st is TY_STORAGE_OK, else rolls back; it returns st, or TY_STORAGE_FAILED when the
 * commit fails. Inside a batch, a savepoint of the batch instead (see below). */
bool ty_store_begin(ty_store *s, char *err, size_t errsz);
ty_storage_status ty_store_finish(ty_store *s, ty_storage_status st, char *err, size_t errsz);
/* A write transaction that commits without fsync: atomic, and kept through a crash of the
 * process, but on disk only at the next checkpoint or full commit. For saves made on a
 * frame, where an fsync costs more than the frame. */
bool ty_store_begin_incremental(ty_store *s, char *err, size_t errsz);
ty_storage_status ty_store_finish_incremental(ty_store *s, ty_storage_status st, char *err, size_t errsz);

/* A batch: one incremental transaction (BEGIN IMMEDIATE, committed without fsync) holding
 * every save made on s until ty_store_batch_end, so that a server's saves of one tick pay
 * for one commit and one round of file locks instead of one each. Each transaction begun in
 * it (ty_store_begin, ty_store_begin_incremental, a queued job, which then runs at once) is
 * a savepoint: its failure rolls back that save alone. ty_store_batch_end commits the batch
 * when st is TY_STORAGE_OK, else rolls all of it back; if the commit fails, nothing of the
 * batch was saved. begin drains the queued jobs first; it refuses a batch already open. */
bool ty_store_batch_begin(ty_store *s, char *err, size_t errsz);
ty_storage_status ty_store_batch_end(ty_store *s, ty_storage_status st, char *err, size_t errsz);
bool ty_store_in_batch(const ty_store *s);

/* Asks the writer thread for a passive checkpoint (the WAL copied into the database file,
 * both fsynced: every commit so far is then on disk) and returns at once. The store asks for
 * one itself once the WAL holds 1000 pages; a server calls it every few seconds to bound what
 * a power loss could take from incremental commits. Nothing for ":memory:". */
void ty_store_checkpoint(ty_store *s);

/* Named blobs: opaque bytes under a key (a server room's CRDT state, a game's own data),
 * replaced whole in one statement. put stores a copy of data. */
ty_storage_status ty_store_put_blob(ty_store *s, const char *key, const void *data, size_t len, char *err,
                                    size_t errsz);
/* TY_STORAGE_MISSING when nothing is stored under key. On OK, *out is owned by the caller
 * (free it; non-NULL even for zero bytes) and *len holds its size. */
ty_storage_status ty_store_get_blob(ty_store *s, const char *key, void **out, size_t *len, char *err,
                                    size_t errsz);
/* TY_STORAGE_MISSING when nothing was stored under key. */
ty_storage_status ty_store_delete_blob(ty_store *s, const char *key, char *err, size_t errsz);

/* Writes len bytes of text to path so that path holds either its old content or all of
 * text, never a mix: a temporary file beside it, fsync, rename over path, fsync of the
 * folder. */
ty_storage_status ty_store_write_atomic(const char *path, const char *text, size_t len, char *err, size_t errsz);

/* ---- queued jobs (store_writer.c) ----
 * A job runs on the writer thread, in one transaction of its own (fsynced at commit) on the
 * writer's connection conn, in the order queued, so that the commit's disk wait never lands
 * on the caller. run's failure is logged (storage_queued_save_failed) and returned by the
 * next ty_store_flush. Every other call a schema makes should first ty_store_drain, so that
 * it sees the queued writes. A ":memory:" store, which a second connection cannot open,
 * runs a job at once instead. */
typedef ty_storage_status (*ty_store_job_fn)(ty_store *conn, void *job, char *err, size_t errsz);
/* Takes ownership of job (free_job frees it, after it ran or when it cannot be queued).
 * Returns at once, TY_STORAGE_FAILED only when the writer cannot start; waits only while
 * TY_STORE_QUEUE_JOBS jobs are already queued. In a batch, the job runs at once, as a
 * savepoint of the batch. */
ty_storage_status ty_store_queue(ty_store *s, void *job, ty_store_job_fn run, void (*free_job)(void *), char *err,
                                 size_t errsz);
/* Waits until every queued job is written. */
void ty_store_drain(ty_store *s);
/* Waits as drain does; TY_STORAGE_FAILED, with the first failure since the previous flush
 * in err, when one failed; the failure is then cleared. */
ty_storage_status ty_store_flush(ty_store *s, char *err, size_t errsz);
/* Without waiting: true, with its message in err, when a queued job failed since the last
 * flush (which still reports it). */
bool ty_store_last_error(ty_store *s, char *err, size_t errsz);
/* Queued jobs not yet written. */
uint32_t ty_store_pending(ty_store *s);

/* Now, in milliseconds since 1970 (as JavaScript's Date.now()). */
double ty_storage_now_ms(void);

#endif
