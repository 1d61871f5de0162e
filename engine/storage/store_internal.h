/* engine/storage/store_internal.h: the generic store's state, shared by store.c (the
 * connection, migrations, transactions, blobs) and store_writer.c (queued jobs); no other
 * file includes it. */
#ifndef TY_STORE_INTERNAL_H
#define TY_STORE_INTERNAL_H

#include "store.h"

#include <pthread.h>
#include <sqlite3.h>

enum { STORE_BLOB_PUT, STORE_BLOB_GET, STORE_BLOB_DELETE, STORE_ST_COUNT };

/* A queued job (ty_store_queue): owned by the queue until the writer ran it. */
typedef struct store_job {
  struct store_job *next;
  void *job;
  ty_store_job_fn run;
  void (*free_job)(void *);
} store_job;

struct ty_store {
  sqlite3 *db;
  const ty_store_schema *schema;
  sqlite3_stmt **st;                  /* the schema's statements */
  sqlite3_stmt *own[STORE_ST_COUNT];  /* the store's own (blobs) */
  bool batch; /* a batch is open (ty_store_batch_begin): transactions are its savepoints */
  /* For the writer's own connection; NULL for ":memory:" and on the writer's connection. */
  char *path;
  /* The writer thread, started by the first queued job or checkpoint. lock guards every
   * field below; wake tells the writer a job (or a checkpoint, or stop) came, done tells
   * callers a job was written. */
  pthread_mutex_t lock;
  pthread_cond_t wake, done;
  bool started, stop;
  bool checkpoint; /* a checkpoint was asked for (ty_store_checkpoint) */
  pthread_t thread;
  store_job *head, *tail;
  uint32_t pending;      /* queued jobs not yet written, the one being written included */
  bool failed;           /* a queued job failed since the last flush: first_error says which */
  char first_error[512];
};

/* store.c: a second connection to s's file for the writer thread, with the schema's
 * statements prepared (the store was opened, migrated and checked by ty_store_open). Close
 * it with ty_store_close. */
ty_store *store_connect(const ty_store *s, char *err, size_t errsz);
/* store_writer.c: stops the writer once every queued job is written (close). */
void store_writer_stop(ty_store *s);

#endif
