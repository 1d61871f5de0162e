/* engine/storage/store.c: the generic store over sqlite (see store.h): opening and checking
 * the file, WAL and its checkpoints, migrations, transactions, named blobs and atomic file
 * writes. The queued jobs' writer thread is store_writer.c. */
#include "store_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Marks a file as a tycho store ("TYCH"), so that another program's sqlite file is refused. */
#define STORE_APPLICATION_ID 0x54594348
#define BUSY_TIMEOUT_MS 5000
/* sqlite's default auto-checkpoint size (see wal_hook). */
#define WAL_CHECKPOINT_PAGES 1000

/* The store's own table, whatever the schema: named blobs. Created when absent, so that it
 * joins a file of any schema version (schema 3 of crafty's worlds made it first). */
static const char blobs_table[] =
    "CREATE TABLE IF NOT EXISTS blobs (key TEXT PRIMARY KEY, data BLOB NOT NULL, updated_at REAL NOT NULL) "
    "WITHOUT ROWID;";

static const char *const own_statements[STORE_ST_COUNT] = {
    [STORE_BLOB_PUT] = "INSERT INTO blobs (key, data, updated_at) VALUES (?1, ?2, ?3) ON CONFLICT(key) DO UPDATE "
                       "SET data = ?2, updated_at = ?3",
    [STORE_BLOB_GET] = "SELECT data FROM blobs WHERE key = ?1",
    [STORE_BLOB_DELETE] = "DELETE FROM blobs WHERE key = ?1",
};

ty_storage_status ty_store_fail(char *err, size_t errsz, const char *name, const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (err && errsz) snprintf(err, errsz, "%s", buf);
  ty_log(name, "%s", buf);
  return TY_STORAGE_FAILED;
}

static char *dup_str(const char *s) {
  size_t n = strlen(s) + 1;
  char *p = TY_MALLOC(n);
  TY_ASSERT(p);
  memcpy(p, s, n);
  return p;
}

double ty_storage_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (double)ts.tv_sec * 1000.0 + (double)(ts.tv_nsec / 1000000);
}

/* ---- sqlite helpers ---- */

sqlite3 *ty_store_db(ty_store *s) { return s->db; }

sqlite3_stmt *ty_store_stmt(ty_store *s, int i) {
  TY_ASSERT(i >= 0 && i < s->schema->nstatements);
  return s->st[i];
}

ty_storage_status ty_store_sql_fail(ty_store *s, char *err, size_t errsz, const char *what) {
  return ty_store_fail(err, errsz, "storage_sql", "%s: %s", what, sqlite3_errmsg(s->db));
}

static bool exec_db(sqlite3 *db, const char *sql, char *err, size_t errsz) {
  char *msg = NULL;
  if (sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK) return true;
  ty_store_fail(err, errsz, "storage_sql", "%s", msg ? msg : sqlite3_errmsg(db));
  sqlite3_free(msg);
  return false;
}

bool ty_store_exec(ty_store *s, const char *sql, char *err, size_t errsz) { return exec_db(s->db, sql, err, errsz); }

static int64_t pragma_int(sqlite3 *db, const char *sql, bool *ok) {
  sqlite3_stmt *st;
  int64_t v = 0;
  *ok = false;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return 0;
  int rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) v = sqlite3_column_int64(st, 0);
  *ok = rc == SQLITE_ROW || rc == SQLITE_DONE;
  sqlite3_finalize(st);
  return v;
}

static bool prepare_list(sqlite3 *db, const char *const *sql, int n, sqlite3_stmt **out, char *err, size_t errsz) {
  for (int i = 0; i < n; i++)
    if (sqlite3_prepare_v3(db, sql[i], -1, SQLITE_PREPARE_PERSISTENT, &out[i], NULL) != SQLITE_OK) {
      ty_store_fail(err, errsz, "storage_sql", "preparing statements: %s", sqlite3_errmsg(db));
      return false;
    }
  return true;
}

static bool prepare_all(ty_store *s, char *err, size_t errsz) {
  return prepare_list(s->db, own_statements, STORE_ST_COUNT, s->own, err, errsz) &&
         prepare_list(s->db, s->schema->statements, s->schema->nstatements, s->st, err, errsz);
}

static void finalize_all(ty_store *s) {
  for (int i = 0; i < STORE_ST_COUNT; i++) {
    sqlite3_finalize(s->own[i]);
    s->own[i] = NULL;
  }
  for (int i = 0; s->st && i < s->schema->nstatements; i++) {
    sqlite3_finalize(s->st[i]);
    s->st[i] = NULL;
  }
}

/* ---- transactions ---- */

/* Inside a batch (ty_store_batch_begin) a transaction is a savepoint of the batch's: it
 * commits or rolls back alone, and reaches the file with the batch. */
bool ty_store_begin(ty_store *s, char *err, size_t errsz) {
  return exec_db(s->db, s->batch ? "SAVEPOINT ty_save" : "BEGIN IMMEDIATE", err, errsz);
}

ty_storage_status ty_store_finish(ty_store *s, ty_storage_status st, char *err, size_t errsz) {
  const char *commit = s->batch ? "RELEASE ty_save" : "COMMIT";
  const char *rollback = s->batch ? "ROLLBACK TO ty_save; RELEASE ty_save" : "ROLLBACK";
  if (st != TY_STORAGE_OK) {
    sqlite3_exec(s->db, rollback, NULL, NULL, NULL);
    return st;
  }
  if (!exec_db(s->db, commit, err, errsz)) {
    sqlite3_exec(s->db, rollback, NULL, NULL, NULL);
    return TY_STORAGE_FAILED;
  }
  return st;
}

/* An incremental transaction commits without fsync (synchronous=NORMAL for that one commit):
 * a game saves every few seconds on a frame, and the fsync alone costs more than the frame
 * budget (~4 ms on an ext4 VM disk, against ~0.3 ms without). WAL still makes it atomic and
 * keeps it through a crash of the process (kill -9 included); it reaches the disk at the next
 * checkpoint (made by the writer thread, see wal_hook) or fsynced commit. */
bool ty_store_begin_incremental(ty_store *s, char *err, size_t errsz) {
  if (s->batch) return ty_store_begin(s, err, errsz); /* the batch is incremental already */
  return exec_db(s->db, "PRAGMA synchronous = NORMAL", err, errsz) && ty_store_begin(s, err, errsz);
}

ty_storage_status ty_store_finish_incremental(ty_store *s, ty_storage_status st, char *err, size_t errsz) {
  if (s->batch) return ty_store_finish(s, st, err, errsz);
  st = ty_store_finish(s, st, err, errsz);
  sqlite3_exec(s->db, "PRAGMA synchronous = FULL", NULL, NULL, NULL);
  return st;
}

bool ty_store_batch_begin(ty_store *s, char *err, size_t errsz) {
  if (s->batch) {
    ty_store_fail(err, errsz, "storage_batch", "a batch is already open on this store");
    return false;
  }
  ty_store_drain(s); /* the writer's connection could not write while the batch holds the lock */
  if (!ty_store_begin_incremental(s, err, errsz)) {
    sqlite3_exec(s->db, "PRAGMA synchronous = FULL", NULL, NULL, NULL);
    return false;
  }
  s->batch = true;
  return true;
}

ty_storage_status ty_store_batch_end(ty_store *s, ty_storage_status st, char *err, size_t errsz) {
  TY_ASSERT(s->batch);
  s->batch = false;
  return ty_store_finish_incremental(s, st, err, errsz);
}

bool ty_store_in_batch(const ty_store *s) { return s->batch; }

/* Checkpoints (copying the WAL into the database, two fsyncs) run on the writer thread,
 * never on the caller's: once the WAL holds WAL_CHECKPOINT_PAGES (sqlite's own threshold,
 * whose auto-checkpoint this hook replaces), each commit on the caller's connection asks the
 * writer for one, and the writer's own connection checkpoints after its commits. Passive: a
 * checkpoint never waits for, nor blocks, a reader or writer of another connection or
 * process; what it could not copy is copied by the next. */
static int wal_hook(void *user, sqlite3 *db, const char *name, int pages) {
  ty_store *s = user;
  if (pages < WAL_CHECKPOINT_PAGES) return SQLITE_OK;
  if (s->path) ty_store_checkpoint(s);
  else sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL); /* the writer's connection */
  return SQLITE_OK;
}

/* ---- opening ---- */

/* Brings the tables from whatever version the file holds to the schema's, in one transaction. */
static bool migrate(ty_store *s, char *err, size_t errsz) {
  const ty_store_schema *schema = s->schema;
  if (!ty_store_begin(s, err, errsz)) return false;
  bool ok;
  int64_t from = pragma_int(s->db, "PRAGMA user_version", &ok);
  if (ok && from > schema->version) { /* another process upgraded it meanwhile */
    ty_store_fail(err, errsz, "storage_newer_schema", "the store has schema %lld, newer than this tycho's %d", (long long)from,
                  schema->version);
    ok = false;
  }
  for (int64_t v = from; ok && v < schema->version; v++) ok = exec_db(s->db, schema->migrations[v], err, errsz);
  if (ok) ok = exec_db(s->db, blobs_table, err, errsz);
  if (ok) {
    char sql[96];
    snprintf(sql, sizeof sql, "PRAGMA application_id = %d; PRAGMA user_version = %d", STORE_APPLICATION_ID,
             schema->version);
    ok = exec_db(s->db, sql, err, errsz);
  }
  if (ok) ok = prepare_all(s, err, errsz);
  if (ok && schema->upgrade && from < schema->version) ok = schema->upgrade(s, from, err, errsz);
  return ty_store_finish(s, ok ? TY_STORAGE_OK : TY_STORAGE_FAILED, err, errsz) == TY_STORAGE_OK;
}

/* Reads the first bytes without sqlite, so that a file that is not a database is never
 * handed to it. 1: an sqlite file; 0: absent or empty (a new store); -1: something else. */
static int sniff(const char *path, char *err, size_t errsz) {
  struct stat stt;
  if (stat(path, &stt) != 0) return errno == ENOENT ? 0 : (ty_store_fail(err, errsz, "storage_open", "%s: %s", path, strerror(errno)), -1);
  if (S_ISDIR(stt.st_mode)) return ty_store_fail(err, errsz, "storage_not_a_store", "%s is a folder, not a tycho store", path), -1;
  if (stt.st_size == 0) return 0;
  char head[100];
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ty_store_fail(err, errsz, "storage_open", "%s: %s", path, strerror(errno)), -1;
  ssize_t n = read(fd, head, sizeof head);
  close(fd);
  if (n < (ssize_t)sizeof head || memcmp(head, "SQLite format 3", 16) != 0)
    return ty_store_fail(err, errsz, "storage_not_a_store", "%s is not a tycho store (not an sqlite database)", path), -1;
  return 1;
}

/* An existing file: only reads until it is known to be ours and whole, so that a refused
 * file stays as it was. */
static bool check_existing(ty_store *s, const char *path, char *err, size_t errsz) {
  bool ok1, ok2, ok3;
  int64_t app = pragma_int(s->db, "PRAGMA application_id", &ok1);
  int64_t ver = pragma_int(s->db, "PRAGMA user_version", &ok2);
  int64_t tables = pragma_int(s->db, "SELECT count(*) FROM sqlite_master", &ok3);
  if (!ok1 || !ok2 || !ok3) {
    int code = sqlite3_errcode(s->db) & 0xff;
    if (code == SQLITE_CANTOPEN || code == SQLITE_READONLY || code == SQLITE_PERM || code == SQLITE_AUTH)
      /* Not damage: the folder refuses the journal files (-wal, -shm) or access is denied. */
      ty_store_fail(err, errsz, "storage_open", "%s cannot be opened: %s (the file and its folder must be writable); left as it is",
                    path, sqlite3_errmsg(s->db));
    else ty_store_fail(err, errsz, "storage_corrupt", "%s is damaged: %s", path, sqlite3_errmsg(s->db));
    return false;
  }
  if (app != STORE_APPLICATION_ID && !(app == 0 && tables == 0)) {
    ty_store_fail(err, errsz, "storage_not_a_store", "%s is an sqlite database but not a tycho store", path);
    return false;
  }
  if (ver > s->schema->version) {
    ty_store_fail(err, errsz, "storage_newer_schema", "%s has schema %lld, written by a newer tycho (this one reads up to %d)",
                  path, (long long)ver, s->schema->version);
    return false;
  }
  sqlite3_stmt *st;
  bool whole = false;
  if (sqlite3_prepare_v2(s->db, "PRAGMA quick_check", -1, &st, NULL) == SQLITE_OK) {
    whole = sqlite3_step(st) == SQLITE_ROW && strcmp((const char *)sqlite3_column_text(st, 0), "ok") == 0;
    sqlite3_finalize(st);
  }
  if (!whole) ty_store_fail(err, errsz, "storage_corrupt", "%s is damaged (truncated or overwritten): left as it is", path);
  return whole;
}

static ty_store *store_new(const ty_store_schema *schema) {
  ty_store *s = TY_MALLOC(sizeof *s);
  TY_ASSERT(s);
  memset(s, 0, sizeof *s);
  s->schema = schema;
  if (schema->nstatements > 0) {
    s->st = TY_MALLOC(sizeof *s->st * (size_t)schema->nstatements);
    TY_ASSERT(s->st);
    memset(s->st, 0, sizeof *s->st * (size_t)schema->nstatements);
  }
  pthread_mutex_init(&s->lock, NULL);
  pthread_cond_init(&s->wake, NULL);
  pthread_cond_init(&s->done, NULL);
  return s;
}

ty_store *ty_store_open(const char *path, const ty_store_schema *schema, char *err, size_t errsz) {
  TY_ASSERT(path && schema);
  bool memory = strcmp(path, ":memory:") == 0;
  int kind = memory ? 0 : sniff(path, err, errsz);
  if (kind < 0) return NULL;
  ty_store *s = store_new(schema);
  s->path = memory ? NULL : dup_str(path);
  int flags = SQLITE_OPEN_READWRITE | (kind == 0 ? SQLITE_OPEN_CREATE : 0);
  if (sqlite3_open_v2(path, &s->db, flags, NULL) != SQLITE_OK) {
    ty_store_fail(err, errsz, "storage_open", "%s: %s", path, s->db ? sqlite3_errmsg(s->db) : "out of memory");
    goto refuse;
  }
  sqlite3_busy_timeout(s->db, BUSY_TIMEOUT_MS);
  sqlite3_extended_result_codes(s->db, 1);
  /* sqlite quietly opens a file it may not write (EACCES, EROFS) read-only; every save would
   * then fail. Say so now, as what it is, and leave the file alone. */
  if (!memory && sqlite3_db_readonly(s->db, "main") == 1) {
    const char *why = access(path, W_OK) != 0 ? strerror(errno) : "opened read-only";
    ty_store_fail(err, errsz, "storage_read_only", "%s cannot be written (%s): a store must be writable; left as it is", path,
                  why);
    goto refuse;
  }
  if (kind == 1 && !check_existing(s, path, err, errsz)) goto refuse;
  /* WAL: readers never block the writer and a crash mid-save leaves the last commit intact.
   * synchronous=FULL makes each save durable at its commit, not only at the next checkpoint. */
  if (!memory && !exec_db(s->db, "PRAGMA journal_mode = WAL", err, errsz)) goto refuse;
  sqlite3_wal_hook(s->db, wal_hook, s); /* replaces sqlite's own auto-checkpoint */
  if (!exec_db(s->db, "PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON", err, errsz)) goto refuse;
  if (!migrate(s, err, errsz)) goto refuse;
  return s;
refuse:
  ty_store_close(s);
  return NULL;
}

void ty_store_close(ty_store *s) {
  if (!s) return;
  store_writer_stop(s);
  finalize_all(s);
  sqlite3_close(s->db);
  pthread_cond_destroy(&s->done);
  pthread_cond_destroy(&s->wake);
  pthread_mutex_destroy(&s->lock);
  TY_FREE(s->st);
  TY_FREE(s->path);
  TY_FREE(s);
}

ty_store *store_connect(const ty_store *s, char *err, size_t errsz) {
  ty_store *c = store_new(s->schema);
  bool ok = sqlite3_open_v2(s->path, &c->db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK;
  if (!ok) ty_store_fail(err, errsz, "storage_open", "%s: %s", s->path, c->db ? sqlite3_errmsg(c->db) : "out of memory");
  if (ok) {
    sqlite3_busy_timeout(c->db, BUSY_TIMEOUT_MS);
    sqlite3_extended_result_codes(c->db, 1);
    sqlite3_wal_hook(c->db, wal_hook, c);
    ok = exec_db(c->db, "PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON", err, errsz) && prepare_all(c, err, errsz);
  }
  if (ok) return c;
  ty_store_close(c);
  return NULL;
}

/* ---- blobs ---- */

ty_storage_status ty_store_put_blob(ty_store *s, const char *key, const void *data, size_t len, char *err,
                                    size_t errsz) {
  ty_store_drain(s); /* after the queued jobs, as if they had been made here */
  sqlite3_stmt *st = s->own[STORE_BLOB_PUT];
  sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
  /* A zero-length blob binds as an empty blob, not NULL (the column is NOT NULL). */
  sqlite3_bind_blob64(st, 2, len ? data : "", len, SQLITE_STATIC);
  sqlite3_bind_double(st, 3, ty_storage_now_ms());
  int rc = sqlite3_step(st);
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
  if (rc != SQLITE_DONE) return ty_store_sql_fail(s, err, errsz, "saving a blob");
  return TY_STORAGE_OK;
}

ty_storage_status ty_store_get_blob(ty_store *s, const char *key, void **out, size_t *len, char *err,
                                    size_t errsz) {
  ty_store_drain(s); /* after the queued jobs, as if they had been made here */
  *out = NULL;
  *len = 0;
  sqlite3_stmt *st = s->own[STORE_BLOB_GET];
  sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
  int rc = sqlite3_step(st);
  ty_storage_status status = TY_STORAGE_MISSING;
  if (rc == SQLITE_ROW) {
    size_t n = (size_t)sqlite3_column_bytes(st, 0);
    const void *p = sqlite3_column_blob(st, 0);
    *out = TY_MALLOC(n ? n : 1);
    TY_ASSERT(*out);
    if (n) memcpy(*out, p, n);
    *len = n;
    status = TY_STORAGE_OK;
  } else if (rc != SQLITE_DONE) {
    status = ty_store_sql_fail(s, err, errsz, "loading a blob");
  }
  sqlite3_reset(st);
  return status;
}

ty_storage_status ty_store_delete_blob(ty_store *s, const char *key, char *err, size_t errsz) {
  ty_store_drain(s); /* after the queued jobs, as if they had been made here */
  sqlite3_stmt *st = s->own[STORE_BLOB_DELETE];
  sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
  int rc = sqlite3_step(st);
  sqlite3_reset(st);
  if (rc != SQLITE_DONE) return ty_store_sql_fail(s, err, errsz, "deleting a blob");
  return sqlite3_changes(s->db) ? TY_STORAGE_OK : TY_STORAGE_MISSING;
}

/* ---- atomic file writes ---- */

static bool write_all(int fd, const char *p, size_t n) {
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w, n -= (size_t)w;
  }
  return true;
}

ty_storage_status ty_store_write_atomic(const char *path, const char *text, size_t len, char *err, size_t errsz) {
  size_t pl = strlen(path);
  char *tmp = TY_MALLOC(pl + 16);
  TY_ASSERT(tmp);
  snprintf(tmp, pl + 16, "%s.tmp-XXXXXX", path);
  int fd = mkstemp(tmp);
  if (fd < 0) {
    ty_store_fail(err, errsz, "storage_export", "%s: %s", tmp, strerror(errno));
    TY_FREE(tmp);
    return TY_STORAGE_FAILED;
  }
  fchmod(fd, 0644);
  bool ok = write_all(fd, text, len) && fsync(fd) == 0;
  int saved = errno;
  ok = close(fd) == 0 && ok;
  if (ok && rename(tmp, path) != 0) ok = false, saved = errno;
  if (!ok) {
    unlink(tmp);
    ty_store_fail(err, errsz, "storage_export", "writing %s: %s", path, strerror(saved));
    TY_FREE(tmp);
    return TY_STORAGE_FAILED;
  }
  TY_FREE(tmp);
  /* The rename is durable only once the folder's entry is on disk. */
  char *dir = dup_str(path);
  char *slash = strrchr(dir, '/');
  if (slash == dir) slash[1] = 0;
  else if (slash) *slash = 0;
  int dfd = open(slash ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    fsync(dfd);
    close(dfd);
  }
  TY_FREE(dir);
  return TY_STORAGE_OK;
}
