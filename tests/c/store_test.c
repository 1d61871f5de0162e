/* tests/c/store_test.c: the generic store (engine/storage/store.h) under a schema of the
 * test's own, a list of notes, so that nothing of crafty's SavedWorld is involved: migrations
 * run in order and once, the upgrade hook sees the version the file had, a store of a newer
 * schema is refused and left byte-identical, the store's named blobs, queued jobs (order,
 * a failure reported once by the next flush), batches (one commit, each transaction in it a
 * savepoint), checkpoints on the writer thread and atomic file writes. storage_test.c tests
 * crafty's schema over it. */
#include "check.h"
#include "storage/store.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[256];

static const char *path_in(const char *name) {
  static char buf[4][512];
  static int next;
  char *p = buf[next++ & 3];
  snprintf(p, 512, "%s/%s", dir, name);
  return p;
}

static char *read_all(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)len + 1);
  *n = fread(buf, 1, (size_t)len, f);
  buf[*n] = 0;
  fclose(f);
  return buf;
}

/* ---- the notes schema: version 1 a table, version 2 a column more ---- */

enum { NOTE_ADD, NOTE_COUNT, NOTE_TEXT_AT, NOTE_ST };

static const char *const note_migrations[] = {
    "CREATE TABLE notes (seq INTEGER PRIMARY KEY, text TEXT NOT NULL);",
    "ALTER TABLE notes ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0;",
};
static const char *const note_statements_v1[NOTE_ST] = {
    [NOTE_ADD] = "INSERT INTO notes (text) VALUES (?1)",
    [NOTE_COUNT] = "SELECT count(*) FROM notes",
    [NOTE_TEXT_AT] = "SELECT text FROM notes ORDER BY seq LIMIT 1 OFFSET ?1",
};
static const char *const note_statements_v2[NOTE_ST] = {
    [NOTE_ADD] = "INSERT INTO notes (text, pinned) VALUES (?1, 1)",
    [NOTE_COUNT] = "SELECT count(*) FROM notes WHERE pinned = 0",
    [NOTE_TEXT_AT] = "SELECT text FROM notes ORDER BY seq LIMIT 1 OFFSET ?1",
};

static int64_t upgraded_from = -1;
static int upgrades;

static bool note_upgrade(ty_store *s, int64_t from, char *err, size_t errsz) {
  upgraded_from = from;
  upgrades++;
  return true;
}

static const ty_store_schema notes_v1 = {.version = 1, .migrations = note_migrations,
                                         .statements = note_statements_v1, .nstatements = NOTE_ST,
                                         .upgrade = note_upgrade};
static const ty_store_schema notes_v2 = {.version = 2, .migrations = note_migrations,
                                         .statements = note_statements_v2, .nstatements = NOTE_ST,
                                         .upgrade = note_upgrade};

static ty_storage_status add_note(ty_store *s, const char *text) {
  sqlite3_stmt *st = ty_store_stmt(s, NOTE_ADD);
  sqlite3_bind_text(st, 1, text, -1, SQLITE_TRANSIENT);
  int rc = sqlite3_step(st);
  sqlite3_reset(st);
  return rc == SQLITE_DONE ? TY_STORAGE_OK : ty_store_sql_fail(s, NULL, 0, "adding a note");
}

static int64_t count_notes(ty_store *s) {
  sqlite3_stmt *st = ty_store_stmt(s, NOTE_COUNT);
  int64_t n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
  sqlite3_reset(st);
  return n;
}

static int64_t pragma(ty_store *s, const char *sql) {
  sqlite3_stmt *st;
  int64_t v = -1;
  if (sqlite3_prepare_v2(ty_store_db(s), sql, -1, &st, NULL) != SQLITE_OK) return -1;
  if (sqlite3_step(st) == SQLITE_ROW) v = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  return v;
}

static void test_migrations_run_in_order_once(void) {
  char err[512] = "";
  upgrades = 0;
  ty_store *s = ty_store_open(path_in("notes.sqlite"), &notes_v1, err, sizeof err);
  CHECK(s);
  if (!s) return;
  CHECK_EQ_INT(upgraded_from, 0);
  CHECK_EQ_INT(pragma(s, "PRAGMA user_version"), 1);
  CHECK(ty_store_begin(s, err, sizeof err));
  CHECK_EQ_INT(ty_store_finish(s, add_note(s, "one"), err, sizeof err), TY_STORAGE_OK);
  /* A rolled-back transaction leaves nothing. */
  CHECK(ty_store_begin(s, err, sizeof err));
  CHECK_EQ_INT(add_note(s, "dropped"), TY_STORAGE_OK);
  CHECK_EQ_INT(ty_store_finish(s, TY_STORAGE_FAILED, err, sizeof err), TY_STORAGE_FAILED);
  CHECK_EQ_INT(count_notes(s), 1);
  ty_store_close(s);

  /* The same version again: no step runs, the hook is not called. */
  s = ty_store_open(path_in("notes.sqlite"), &notes_v1, err, sizeof err);
  CHECK(s);
  CHECK_EQ_INT(upgrades, 1);
  ty_store_close(s);

  /* Version 2: only the second step runs (the first would fail: the table exists). */
  s = ty_store_open(path_in("notes.sqlite"), &notes_v2, err, sizeof err);
  CHECK(s);
  if (!s) return;
  CHECK_EQ_INT(upgrades, 2);
  CHECK_EQ_INT(upgraded_from, 1);
  CHECK_EQ_INT(pragma(s, "PRAGMA user_version"), 2);
  CHECK_EQ_INT(count_notes(s), 1); /* the old row, pinned = 0 by the new column's default */
  sqlite3_stmt *st;
  CHECK(sqlite3_prepare_v2(ty_store_db(s), "PRAGMA journal_mode", -1, &st, NULL) == SQLITE_OK);
  CHECK(sqlite3_step(st) == SQLITE_ROW && strcmp((const char *)sqlite3_column_text(st, 0), "wal") == 0);
  sqlite3_finalize(st);
  ty_store_close(s);
}

static void test_refuses_a_newer_schema_untouched(void) {
  char err[512] = "";
  size_t n0, n1;
  char *before = read_all(path_in("notes.sqlite"), &n0);
  CHECK(before);
  ty_store *s = ty_store_open(path_in("notes.sqlite"), &notes_v1, err, sizeof err);
  CHECK(!s);
  CHECK(strstr(err, "has schema 2, written by a newer tycho") != NULL);
  char *after = read_all(path_in("notes.sqlite"), &n1);
  CHECK(after && n0 == n1 && memcmp(before, after, n0) == 0);
  free(before);
  free(after);
  /* Another program's database is not a tycho store. */
  sqlite3 *db;
  CHECK(sqlite3_open(path_in("other.sqlite"), &db) == SQLITE_OK);
  CHECK(sqlite3_exec(db, "CREATE TABLE t (x)", NULL, NULL, NULL) == SQLITE_OK);
  sqlite3_close(db);
  CHECK(!ty_store_open(path_in("other.sqlite"), &notes_v1, err, sizeof err));
  CHECK(strstr(err, "not a tycho store") != NULL);
}

static void test_blobs(void) {
  char err[512] = "";
  ty_store *s = ty_store_open(":memory:", &notes_v1, err, sizeof err);
  CHECK(s);
  if (!s) return;
  void *out;
  size_t len;
  CHECK_EQ_INT(ty_store_get_blob(s, "room", &out, &len, err, sizeof err), TY_STORAGE_MISSING);
  CHECK_EQ_INT(ty_store_put_blob(s, "room", "\0\1\2", 3, err, sizeof err), TY_STORAGE_OK);
  CHECK_EQ_INT(ty_store_put_blob(s, "empty", NULL, 0, err, sizeof err), TY_STORAGE_OK);
  CHECK_EQ_INT(ty_store_get_blob(s, "room", &out, &len, err, sizeof err), TY_STORAGE_OK);
  CHECK(len == 3 && memcmp(out, "\0\1\2", 3) == 0);
  free(out);
  CHECK_EQ_INT(ty_store_get_blob(s, "empty", &out, &len, err, sizeof err), TY_STORAGE_OK);
  CHECK(out != NULL && len == 0);
  free(out);
  CHECK_EQ_INT(ty_store_put_blob(s, "room", "x", 1, err, sizeof err), TY_STORAGE_OK); /* replaced whole */
  CHECK_EQ_INT(ty_store_get_blob(s, "room", &out, &len, err, sizeof err), TY_STORAGE_OK);
  CHECK(len == 1 && memcmp(out, "x", 1) == 0);
  free(out);
  CHECK_EQ_INT(ty_store_delete_blob(s, "room", err, sizeof err), TY_STORAGE_OK);
  CHECK_EQ_INT(ty_store_delete_blob(s, "room", err, sizeof err), TY_STORAGE_MISSING);
  ty_store_close(s);
}

/* ---- queued jobs ---- */

static ty_storage_status job_add(ty_store *conn, void *job, char *err, size_t errsz) {
  const char *text = job;
  if (strcmp(text, "refuse") == 0) return ty_store_fail(err, errsz, "store_test_refused", "refused %s", text);
  return add_note(conn, text);
}

static int freed;
static void job_free(void *job) {
  freed++;
  free(job);
}

static char *copy_text(const char *s) {
  char *p = malloc(strlen(s) + 1);
  strcpy(p, s);
  return p;
}

static void test_queued_jobs(void) {
  char err[512] = "";
  ty_store *s = ty_store_open(path_in("queue.sqlite"), &notes_v1, err, sizeof err);
  CHECK(s);
  if (!s) return;
  freed = 0;
  char text[32];
  for (int i = 0; i < 200; i++) {
    snprintf(text, sizeof text, "n%03d", i);
    CHECK_EQ_INT(ty_store_queue(s, copy_text(text), job_add, job_free, err, sizeof err), TY_STORAGE_OK);
    CHECK(ty_store_pending(s) <= TY_STORE_QUEUE_JOBS);
  }
  CHECK_EQ_INT(ty_store_flush(s, err, sizeof err), TY_STORAGE_OK);
  CHECK_EQ_INT(ty_store_pending(s), 0);
  CHECK_EQ_INT(freed, 200);
  CHECK_EQ_INT(count_notes(s), 200);
  /* In the order queued. */
  sqlite3_stmt *st = ty_store_stmt(s, NOTE_TEXT_AT);
  sqlite3_bind_int(st, 1, 123);
  CHECK(sqlite3_step(st) == SQLITE_ROW && strcmp((const char *)sqlite3_column_text(st, 0), "n123") == 0);
  sqlite3_reset(st);
  /* A failed job rolls back alone, is reported by the next flush, then cleared. */
  CHECK_EQ_INT(ty_store_queue(s, copy_text("refuse"), job_add, job_free, err, sizeof err), TY_STORAGE_OK);
  CHECK_EQ_INT(ty_store_queue(s, copy_text("after"), job_add, job_free, err, sizeof err), TY_STORAGE_OK);
  ty_store_drain(s);
  CHECK(ty_store_last_error(s, err, sizeof err));
  CHECK(strstr(err, "refused refuse") != NULL);
  err[0] = 0;
  CHECK_EQ_INT(ty_store_flush(s, err, sizeof err), TY_STORAGE_FAILED);
  CHECK(strstr(err, "refused refuse") != NULL);
  CHECK_EQ_INT(ty_store_flush(s, err, sizeof err), TY_STORAGE_OK);
  CHECK_EQ_INT(count_notes(s), 201);
  /* Close writes what is still queued. */
  for (int i = 0; i < 10; i++) ty_store_queue(s, copy_text("late"), job_add, job_free, err, sizeof err);
  ty_store_close(s);
  CHECK_EQ_INT(freed, 212);
  s = ty_store_open(path_in("queue.sqlite"), &notes_v1, err, sizeof err);
  CHECK(s && count_notes(s) == 211);
  ty_store_close(s);
}

/* ---- batches and checkpoints ---- */

/* Notes in path's file as another connection (another process) sees them. */
static int64_t count_outside(const char *path) {
  sqlite3 *db;
  sqlite3_stmt *st;
  int64_t n = -1;
  if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
      sqlite3_prepare_v2(db, "SELECT count(*) FROM notes", -1, &st, NULL) == SQLITE_OK) {
    if (sqlite3_step(st) == SQLITE_ROW) n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  return n;
}

static ty_storage_status add_in_transaction(ty_store *s, const char *text, bool fail) {
  char err[512];
  if (!ty_store_begin_incremental(s, err, sizeof err)) return TY_STORAGE_FAILED;
  ty_storage_status st = add_note(s, text);
  return ty_store_finish_incremental(s, fail ? TY_STORAGE_FAILED : st, err, sizeof err);
}

static void test_batches(void) {
  char err[512] = "";
  const char *path = path_in("batch.sqlite");
  ty_store *s = ty_store_open(path, &notes_v1, err, sizeof err);
  CHECK(s);
  if (!s) return;
  freed = 0;
  CHECK(ty_store_batch_begin(s, err, sizeof err));
  CHECK(ty_store_in_batch(s));
  CHECK(!ty_store_batch_begin(s, err, sizeof err)); /* one at a time */
  CHECK(strstr(err, "already open") != NULL);
  CHECK_EQ_INT(add_in_transaction(s, "a", false), TY_STORAGE_OK);
  CHECK_EQ_INT(add_in_transaction(s, "dropped", true), TY_STORAGE_FAILED); /* rolls back alone */
  CHECK_EQ_INT(add_in_transaction(s, "b", false), TY_STORAGE_OK);
  /* A queued job runs at once, in the batch (the writer could not write before it commits). */
  CHECK_EQ_INT(ty_store_queue(s, copy_text("queued"), job_add, job_free, err, sizeof err), TY_STORAGE_OK);
  CHECK_EQ_INT(freed, 1);
  CHECK_EQ_INT(ty_store_pending(s), 0);
  CHECK_EQ_INT(count_notes(s), 3);     /* the batch reads its own writes */
  CHECK_EQ_INT(count_outside(path), 0); /* nobody else sees them before the commit */
  CHECK_EQ_INT(ty_store_batch_end(s, TY_STORAGE_OK, err, sizeof err), TY_STORAGE_OK);
  CHECK(!ty_store_in_batch(s));
  CHECK_EQ_INT(count_outside(path), 3);
  /* A batch ended with a failure saves nothing of it. */
  CHECK(ty_store_batch_begin(s, err, sizeof err));
  CHECK_EQ_INT(add_in_transaction(s, "c", false), TY_STORAGE_OK);
  CHECK_EQ_INT(ty_store_batch_end(s, TY_STORAGE_FAILED, err, sizeof err), TY_STORAGE_FAILED);
  CHECK_EQ_INT(count_outside(path), 3);
  /* Outside a batch, transactions commit alone again. */
  CHECK_EQ_INT(add_in_transaction(s, "d", false), TY_STORAGE_OK);
  CHECK_EQ_INT(count_outside(path), 4);
  ty_store_close(s);
  s = ty_store_open(path, &notes_v1, err, sizeof err);
  CHECK(s && count_notes(s) == 4);
  ty_store_close(s);
}

static long file_size(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fclose(f);
  return n;
}

/* Incremental commits stay in the WAL until a checkpoint, which the writer thread runs when
 * asked: the database file then holds them. */
static void test_checkpoint_on_the_writer(void) {
  char err[512] = "";
  const char *path = path_in("checkpoint.sqlite");
  ty_store *s = ty_store_open(path, &notes_v1, err, sizeof err);
  CHECK(s);
  if (!s) return;
  char text[2048];
  memset(text, 'x', sizeof text - 1);
  text[sizeof text - 1] = 0;
  for (int i = 0; i < 100; i++) CHECK_EQ_INT(add_in_transaction(s, text, false), TY_STORAGE_OK);
  long before = file_size(path);
  CHECK(before < 100 * 2048); /* in the WAL, not checkpointed by the commits */
  ty_store_checkpoint(s);
  long after = before;
  for (int i = 0; i < 200 && after < 100 * 2048; i++) {
    usleep(10000);
    after = file_size(path);
  }
  CHECK(after >= 100 * 2048);
  ty_store_close(s);
  /* Nothing to do for a private store. */
  s = ty_store_open(":memory:", &notes_v1, err, sizeof err);
  CHECK(s);
  if (s) ty_store_checkpoint(s);
  ty_store_close(s);
}

static void test_atomic_write(void) {
  char err[512] = "";
  size_t n;
  CHECK_EQ_INT(ty_store_write_atomic(path_in("out.json"), "{\"a\":1}", 7, err, sizeof err), TY_STORAGE_OK);
  CHECK_EQ_INT(ty_store_write_atomic(path_in("out.json"), "[]", 2, err, sizeof err), TY_STORAGE_OK);
  char *text = read_all(path_in("out.json"), &n);
  CHECK(text && n == 2 && strcmp(text, "[]") == 0);
  free(text);
  /* A folder that does not exist: a message, and nothing left behind. */
  CHECK_EQ_INT(ty_store_write_atomic(path_in("missing/out.json"), "x", 1, err, sizeof err), TY_STORAGE_FAILED);
  CHECK(strstr(err, "missing/out.json") != NULL);
  CHECK(access(path_in("missing"), F_OK) != 0);
}

int main(void) {
  snprintf(dir, sizeof dir, "/tmp/tycho-store-test-XXXXXX");
  if (!mkdtemp(dir)) return 1;
  RUN(test_migrations_run_in_order_once);
  RUN(test_refuses_a_newer_schema_untouched);
  RUN(test_blobs);
  RUN(test_queued_jobs);
  RUN(test_batches);
  RUN(test_checkpoint_on_the_writer);
  RUN(test_atomic_write);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  return check_summary();
}
