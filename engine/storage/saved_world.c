/* engine/storage/saved_world.c: A GAME SCHEMA, crafty's SavedWorld records (saved_world.h)
 * over the generic store (store.h).
 *
 * Schema 2: `worlds` holds one row per SavedWorld; `world_edits` one row per world whose
 * `data` packs its deduplicated edit log as little-endian int32 quads (x, y, z, type); `players`
 * one row per (world, playerKey). The edit log is one blob rather than one row per edit
 * because a save rewrites it whole: one 1.6 MB row for 100,000 edits takes a few ms where
 * 100,000 indexed rows take ~100 ms (tests/bench/storage_bench.c measures both).
 * Schema 1 was the seed's shape, one JSON document per world; opening such a store upgrades it.
 * Schema 3 added named blobs, which are the store's own table now (store.c).
 *
 * Schema 4 adds `world_journal`: an incremental save (save_meta, append_edits) adds one row
 * per call holding only the edits since the last save, packed the same way, so its cost
 * follows the edits it writes and not the size of the log. A load reads the packed log and
 * then the journal rows in order, merging later edits of a block into the earlier one's
 * place; a full save or a compaction rewrites the packed log and empties the journal. */
#include "saved_world.h"
#include "saved_world_json_internal.h"   /* Required for: the inventory column */
#include "saved_world_record_internal.h" /* Required for: sw_dup_str, sw_dup_mem */

#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <time.h>
#include <unistd.h>

#define EDIT_BYTES 16

enum {
  ST_WORLD_UPSERT,
  ST_EDITS_REPLACE,
  ST_WORLD_SELECT,
  ST_EDITS_SELECT,
  ST_JOURNAL_APPEND,
  ST_JOURNAL_SELECT,
  ST_JOURNAL_COUNT,
  ST_JOURNAL_CLEAR,
  ST_WORLD_LIST,
  ST_WORLD_DELETE,
  ST_WORLD_EXISTS,
  ST_PLAYER_UPSERT,
  ST_PLAYER_SELECT,
  ST_COUNT
};

#define WORLD_COLUMNS                                                                                      \
  "id, name, seed, game_mode, created_at, last_played_at, player_x, player_y, player_z, player_yaw, " \
  "player_pitch, sun_angle, moon_phase, inventory, screenshot, version"

static const char *const statements[ST_COUNT] = {
    [ST_WORLD_UPSERT] = "INSERT INTO worlds (" WORLD_COLUMNS ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, "
                        "?12, ?13, ?14, ?15, ?16) ON CONFLICT(id) DO UPDATE SET name = ?2, seed = ?3, game_mode = ?4, "
                        "created_at = ?5, last_played_at = ?6, player_x = ?7, player_y = ?8, player_z = ?9, "
                        "player_yaw = ?10, player_pitch = ?11, sun_angle = ?12, moon_phase = ?13, inventory = ?14, "
                        "screenshot = ?15, version = ?16",
    [ST_EDITS_REPLACE] = "INSERT OR REPLACE INTO world_edits (world_id, count, data) VALUES (?1, ?2, ?3)",
    [ST_WORLD_SELECT] = "SELECT " WORLD_COLUMNS " FROM worlds WHERE id = ?1",
    [ST_EDITS_SELECT] = "SELECT count, data FROM world_edits WHERE world_id = ?1",
    [ST_JOURNAL_APPEND] = "INSERT INTO world_journal (world_id, seq, count, data) VALUES (?1, "
                          "(SELECT coalesce(max(seq), 0) + 1 FROM world_journal WHERE world_id = ?1), ?2, ?3)",
    [ST_JOURNAL_SELECT] = "SELECT count, data FROM world_journal WHERE world_id = ?1 ORDER BY seq",
    [ST_JOURNAL_COUNT] = "SELECT count(*) FROM world_journal WHERE world_id = ?1",
    [ST_JOURNAL_CLEAR] = "DELETE FROM world_journal WHERE world_id = ?1",
    [ST_WORLD_LIST] = "SELECT " WORLD_COLUMNS ", (SELECT count FROM world_edits WHERE world_id = worlds.id), "
                      "EXISTS (SELECT 1 FROM world_journal WHERE world_id = worlds.id) "
                      "FROM worlds ORDER BY last_played_at DESC, id",
    [ST_WORLD_DELETE] = "DELETE FROM worlds WHERE id = ?1",
    [ST_WORLD_EXISTS] = "SELECT 1 FROM worlds WHERE id = ?1",
    [ST_PLAYER_UPSERT] = "INSERT INTO players (world_id, player_key, x, y, z, yaw, pitch, inventory, updated_at) "
                         "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) ON CONFLICT(world_id, player_key) DO UPDATE "
                         "SET x = ?3, y = ?4, z = ?5, yaw = ?6, pitch = ?7, inventory = ?8, updated_at = ?9",
    [ST_PLAYER_SELECT] = "SELECT x, y, z, yaw, pitch, inventory FROM players WHERE world_id = ?1 AND player_key = ?2",
};

struct ty_storage {
  ty_store *store;
};

static void bind_text(sqlite3_stmt *st, int i, const char *s) { sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC); }

static char *col_str(sqlite3_stmt *st, int i) {
  const unsigned char *s = sqlite3_column_text(st, i);
  return s ? sw_dup_str((const char *)s) : NULL;
}

/* ---- ids ---- */

void ty_storage_new_id(char out[TY_STORAGE_ID_SIZE]) {
  unsigned char raw[16];
  bool got = false;
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    got = read(fd, raw, sizeof raw) == (ssize_t)sizeof raw;
    close(fd);
  }
  if (!got) { /* no urandom: time and address bits still make a clash unlikely */
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t a = (uint64_t)ts.tv_sec * 1000000007u ^ (uint64_t)ts.tv_nsec, b = (uint64_t)(uintptr_t)out ^ a * 31;
    memcpy(raw, &a, 8);
    memcpy(raw + 8, &b, 8);
  }
  static const char hex[] = "0123456789abcdef";
  for (int i = 0; i < 16; i++) {
    out[2 * i] = hex[raw[i] >> 4];
    out[2 * i + 1] = hex[raw[i] & 15];
  }
  out[32] = 0;
}

/* ---- the edit log ---- */

static void put_i32(unsigned char *p, int32_t v) {
  uint32_t u = (uint32_t)v;
  p[0] = (unsigned char)u, p[1] = (unsigned char)(u >> 8), p[2] = (unsigned char)(u >> 16), p[3] = (unsigned char)(u >> 24);
}

static int32_t get_i32(const unsigned char *p) {
  return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
}

/* Packs the edits, a later edit of a block replacing the type of the earlier one in its
 * place. Returns the blob (owned) and the number of edits in it. */
static unsigned char *pack_edits(const ty_storage_edit *e, uint32_t n, uint32_t *kept) {
  *kept = 0;
  if (n == 0) return NULL;
  uint32_t cap = 16;
  while (cap < n * 2u) cap <<= 1;
  uint32_t *slots = TY_MALLOC(sizeof *slots * cap); /* index + 1 into out, 0 = empty */
  unsigned char *out = TY_MALLOC((size_t)n * EDIT_BYTES);
  TY_ASSERT(slots && out);
  memset(slots, 0, sizeof *slots * cap);
  uint32_t m = 0;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t h = (uint32_t)e[i].x * 73856093u ^ (uint32_t)e[i].y * 19349663u ^ (uint32_t)e[i].z * 83492791u;
    for (uint32_t j = h & (cap - 1);; j = (j + 1) & (cap - 1)) {
      if (slots[j] == 0) {
        unsigned char *p = out + (size_t)m * EDIT_BYTES;
        put_i32(p, e[i].x), put_i32(p + 4, e[i].y), put_i32(p + 8, e[i].z), put_i32(p + 12, e[i].type);
        slots[j] = ++m;
        break;
      }
      unsigned char *p = out + (size_t)(slots[j] - 1) * EDIT_BYTES;
      if (get_i32(p) == e[i].x && get_i32(p + 4) == e[i].y && get_i32(p + 8) == e[i].z) {
        put_i32(p + 12, e[i].type);
        break;
      }
    }
  }
  TY_FREE(slots);
  *kept = m;
  return out;
}

/* Folds every later edit of a block into the first one's place (its type replaced), in
 * place, keeping the order of first appearance; returns how many edits remain. This is
 * what pack_edits does while packing, for a log read back as base + journal. */
static uint32_t merge_edits(ty_storage_edit *e, uint32_t n) {
  if (n < 2) return n;
  uint32_t cap = 16;
  while (cap < n * 2u) cap <<= 1;
  uint32_t *slots = TY_MALLOC(sizeof *slots * cap); /* index + 1 into the kept edits, 0 = empty */
  TY_ASSERT(slots);
  memset(slots, 0, sizeof *slots * cap);
  uint32_t m = 0;
  for (uint32_t i = 0; i < n; i++) {
    ty_storage_edit ed = e[i];
    uint32_t h = (uint32_t)ed.x * 73856093u ^ (uint32_t)ed.y * 19349663u ^ (uint32_t)ed.z * 83492791u;
    for (uint32_t j = h & (cap - 1);; j = (j + 1) & (cap - 1)) {
      if (slots[j] == 0) {
        e[m] = ed;
        slots[j] = ++m;
        break;
      }
      ty_storage_edit *k = &e[slots[j] - 1];
      if (k->x == ed.x && k->y == ed.y && k->z == ed.z) {
        k->type = ed.type;
        break;
      }
    }
  }
  TY_FREE(slots);
  return m;
}

static ty_storage_edit *unpack_edits(const unsigned char *data, uint32_t n) {
  if (n == 0) return NULL;
  ty_storage_edit *e = TY_MALLOC(sizeof *e * n);
  TY_ASSERT(e);
  for (uint32_t i = 0; i < n; i++, data += EDIT_BYTES)
    e[i] = (ty_storage_edit){get_i32(data), get_i32(data + 4), get_i32(data + 8), get_i32(data + 12)};
  return e;
}

/* ---- writing a world (inside a transaction) ---- */

/* What can be refused without the database; a queued save checks it before queueing. */
static ty_storage_status check_world(const ty_storage_world *w, char *err, size_t errsz) {
  if (!w->id || !w->name || !w->game_mode)
    return ty_store_fail(err, errsz, "storage_bad_record", "a world needs an id, a name and a gameMode");
  if (w->version > TY_STORAGE_FORMAT_VERSION)
    return ty_store_fail(err, errsz, "storage_newer_format", "world %s has format version %lld, newer than this tycho's %d: refused",
                         w->id, (long long)w->version, TY_STORAGE_FORMAT_VERSION);
  return TY_STORAGE_OK;
}

/* Writes every field of w but the edit log (the worlds row). */
static ty_storage_status write_world_row(ty_store *s, const ty_storage_world *w, char *err, size_t errsz) {
  if (check_world(w, err, errsz) != TY_STORAGE_OK) return TY_STORAGE_FAILED;
  sqlite3_stmt *st = ty_store_stmt(s, ST_WORLD_UPSERT);
  char *inv = sw_inventory_text(&w->inventory);
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
  bind_text(st, 1, w->id);
  bind_text(st, 2, w->name);
  if (w->seed.kind == TY_STORAGE_SEED_TEXT) bind_text(st, 3, w->seed.text ? w->seed.text : "");
  else if (w->seed.kind == TY_STORAGE_SEED_INTEGER) sqlite3_bind_int64(st, 3, w->seed.integer);
  else sqlite3_bind_double(st, 3, w->seed.number);
  bind_text(st, 4, w->game_mode);
  const double nums[] = {w->created_at, w->last_played_at, w->player.x, w->player.y, w->player.z, w->player.yaw,
                         w->player.pitch, w->sun_angle};
  for (int i = 0; i < 8; i++) sqlite3_bind_double(st, 5 + i, nums[i]);
  if (w->has_moon_phase) sqlite3_bind_double(st, 13, w->moon_phase);
  if (inv) bind_text(st, 14, inv);
  if (w->screenshot) sqlite3_bind_blob(st, 15, w->screenshot, (int)w->screenshot_len, SQLITE_STATIC);
  /* An older record was upgraded when it was read: what is stored now is the current format. */
  sqlite3_bind_int64(st, 16, TY_STORAGE_FORMAT_VERSION);
  int rc = sqlite3_step(st);
  sqlite3_reset(st);
  free(inv); /* jansson allocates with malloc */
  if (rc != SQLITE_DONE) return ty_store_sql_fail(s, err, errsz, "saving a world");
  return TY_STORAGE_OK;
}

/* Packs edits (deduplicated) into one row of the statement ST_EDITS_REPLACE or
 * ST_JOURNAL_APPEND, both bound as (world id, count, data). */
static int write_packed(ty_store *s, int which, const char *id, const ty_storage_edit *edits, uint32_t n) {
  uint32_t kept;
  unsigned char *blob = pack_edits(edits, n, &kept);
  sqlite3_stmt *st = ty_store_stmt(s, which);
  bind_text(st, 1, id);
  sqlite3_bind_int64(st, 2, kept);
  sqlite3_bind_blob64(st, 3, blob ? (const void *)blob : "", (sqlite3_uint64)kept * EDIT_BYTES, SQLITE_STATIC);
  int rc = sqlite3_step(st);
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
  TY_FREE(blob);
  return rc;
}

/* Replaces the world's packed log with edits and empties its journal: the log is now whole. */
static ty_storage_status write_edit_log(ty_store *s, const char *id, const ty_storage_edit *edits, uint32_t n,
                                        char *err, size_t errsz) {
  if (write_packed(s, ST_EDITS_REPLACE, id, edits, n) != SQLITE_DONE)
    return ty_store_sql_fail(s, err, errsz, "saving an edit log");
  sqlite3_stmt *st = ty_store_stmt(s, ST_JOURNAL_CLEAR);
  bind_text(st, 1, id);
  int rc = sqlite3_step(st);
  sqlite3_reset(st);
  if (rc != SQLITE_DONE) return ty_store_sql_fail(s, err, errsz, "emptying an edit journal");
  return TY_STORAGE_OK;
}

/* Adds one journal row; a world that does not exist is TY_STORAGE_MISSING. */
static ty_storage_status append_inner(ty_store *s, const char *id, const ty_storage_edit *edits, uint32_t n,
                                      char *err, size_t errsz) {
  if (n == 0) return TY_STORAGE_OK;
  int rc = write_packed(s, ST_JOURNAL_APPEND, id, edits, n);
  if (rc == SQLITE_CONSTRAINT_FOREIGNKEY) {
    ty_store_fail(err, errsz, "storage_no_world", "no world with id %s", id);
    return TY_STORAGE_MISSING;
  }
  if (rc != SQLITE_DONE) return ty_store_sql_fail(s, err, errsz, "appending edits");
  return TY_STORAGE_OK;
}

static ty_storage_status save_inner(ty_store *s, const ty_storage_world *w, char *err, size_t errsz) {
  ty_storage_status st = write_world_row(s, w, err, errsz);
  return st != TY_STORAGE_OK ? st : write_edit_log(s, w->id, w->edits, w->nedits, err, errsz);
}

/* ---- schema ---- */

static const char *const migrations[TY_STORAGE_SCHEMA_VERSION] = {
    /* 0 -> 1: the seed's shape, one JSON document per world */
    "CREATE TABLE worlds (id TEXT PRIMARY KEY, json TEXT NOT NULL);",
    /* 1 -> 2: a column per field, the edit log packed, per-player records. The rows of
     * schema 1 are moved over by migrate_v1_rows. */
    "ALTER TABLE worlds RENAME TO worlds_v1;"
    "CREATE TABLE worlds (id TEXT PRIMARY KEY, name TEXT NOT NULL, seed NOT NULL, game_mode TEXT NOT NULL,"
    " created_at REAL NOT NULL, last_played_at REAL NOT NULL, player_x REAL NOT NULL, player_y REAL NOT NULL,"
    " player_z REAL NOT NULL, player_yaw REAL NOT NULL, player_pitch REAL NOT NULL, sun_angle REAL NOT NULL,"
    " moon_phase REAL, inventory TEXT, screenshot BLOB, version INTEGER NOT NULL);"
    "CREATE INDEX worlds_by_last_played ON worlds (last_played_at);"
    "CREATE TABLE world_edits (world_id TEXT PRIMARY KEY REFERENCES worlds (id) ON DELETE CASCADE,"
    " count INTEGER NOT NULL, data BLOB NOT NULL);"
    "CREATE TABLE players (world_id TEXT NOT NULL REFERENCES worlds (id) ON DELETE CASCADE,"
    " player_key TEXT NOT NULL, x REAL NOT NULL, y REAL NOT NULL, z REAL NOT NULL, yaw REAL NOT NULL,"
    " pitch REAL NOT NULL, inventory TEXT, updated_at REAL NOT NULL, PRIMARY KEY (world_id, player_key))"
    " WITHOUT ROWID;",
    /* 2 -> 3: named blobs, now the store's own table: store.c creates it for every schema */
    "",
    /* 3 -> 4: the edit journal of incremental saves; one row per append, in seq order */
    "CREATE TABLE world_journal (world_id TEXT NOT NULL REFERENCES worlds (id) ON DELETE CASCADE,"
    " seq INTEGER NOT NULL, count INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (world_id, seq))"
    " WITHOUT ROWID;",
};

/* Schema 1's rows, one JSON document each, move into schema 2's columns once every table
 * exists (the store calls this after the steps, the statements prepared). */
static bool upgrade(ty_store *s, int64_t from, char *err, size_t errsz) {
  if (from > 1) return true;
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(ty_store_db(s), "SELECT id, json FROM worlds_v1", -1, &st, NULL) != SQLITE_OK)
    return ty_store_sql_fail(s, err, errsz, "reading schema 1 worlds") == TY_STORAGE_OK;
  bool ok = true;
  while (ok && sqlite3_step(st) == SQLITE_ROW) {
    ty_storage_world w;
    const char *text = (const char *)sqlite3_column_text(st, 1);
    char why[300];
    if (ty_storage_world_from_json(text ? text : "", (size_t)sqlite3_column_bytes(st, 1), &w, why, sizeof why) !=
        TY_STORAGE_OK) {
      ty_store_fail(err, errsz, "storage_migration", "world %s cannot be upgraded: %s", sqlite3_column_text(st, 0), why);
      ok = false;
      break;
    }
    ok = save_inner(s, &w, err, errsz) == TY_STORAGE_OK;
    ty_storage_world_free(&w);
  }
  sqlite3_finalize(st);
  return ok && ty_store_exec(s, "DROP TABLE worlds_v1", err, errsz);
}

static const ty_store_schema saved_world_schema = {
    .version = TY_STORAGE_SCHEMA_VERSION,
    .migrations = migrations,
    .statements = statements,
    .nstatements = ST_COUNT,
    .upgrade = upgrade,
};

ty_storage *ty_storage_open(const char *path, char *err, size_t errsz) {
  ty_store *store = ty_store_open(path, &saved_world_schema, err, errsz);
  if (!store) return NULL;
  ty_storage *h = TY_MALLOC(sizeof *h);
  TY_ASSERT(h);
  h->store = store;
  return h;
}

void ty_storage_close(ty_storage *h) {
  if (!h) return;
  ty_store_close(h->store);
  TY_FREE(h);
}

ty_store *ty_storage_store(ty_storage *h) { return h->store; }

/* ---- worlds ---- */

ty_storage_status ty_storage_save(ty_storage *h, const ty_storage_world *w, char *err, size_t errsz) {
  ty_store *s = h->store;
  ty_store_drain(s); /* after the queued saves, as if they had been made here */
  if (!ty_store_begin(s, err, errsz)) return TY_STORAGE_FAILED;
  return ty_store_finish(s, save_inner(s, w, err, errsz), err, errsz);
}

static bool read_inventory(sqlite3_stmt *st, int col, ty_storage_inventory *inv) {
  memset(inv, 0, sizeof *inv);
  if (sqlite3_column_type(st, col) == SQLITE_NULL) return true;
  return sw_inventory_parse((const char *)sqlite3_column_text(st, col), (size_t)sqlite3_column_bytes(st, col), inv);
}

/* Fills w from a row of WORLD_COLUMNS. */
static ty_storage_status read_world(sqlite3_stmt *st, ty_storage_world *w, char *err, size_t errsz) {
  memset(w, 0, sizeof *w);
  w->version = sqlite3_column_int64(st, 15);
  if (w->version > TY_STORAGE_FORMAT_VERSION)
    return ty_store_fail(err, errsz, "storage_newer_format", "world %s has format version %lld, newer than this tycho's %d: refused",
                         sqlite3_column_text(st, 0), (long long)w->version, TY_STORAGE_FORMAT_VERSION);
  w->version = TY_STORAGE_FORMAT_VERSION;
  w->id = col_str(st, 0);
  w->name = col_str(st, 1);
  switch (sqlite3_column_type(st, 2)) {
  case SQLITE_INTEGER: w->seed = (ty_storage_seed){.kind = TY_STORAGE_SEED_INTEGER, .integer = sqlite3_column_int64(st, 2)}; break;
  case SQLITE_FLOAT: w->seed = (ty_storage_seed){.kind = TY_STORAGE_SEED_NUMBER, .number = sqlite3_column_double(st, 2)}; break;
  default: w->seed = (ty_storage_seed){.kind = TY_STORAGE_SEED_TEXT, .text = col_str(st, 2)}; break;
  }
  w->game_mode = col_str(st, 3);
  w->created_at = sqlite3_column_double(st, 4);
  w->last_played_at = sqlite3_column_double(st, 5);
  w->player = (ty_storage_pose){sqlite3_column_double(st, 6), sqlite3_column_double(st, 7), sqlite3_column_double(st, 8),
                                sqlite3_column_double(st, 9), sqlite3_column_double(st, 10)};
  w->sun_angle = sqlite3_column_double(st, 11);
  w->has_moon_phase = sqlite3_column_type(st, 12) != SQLITE_NULL;
  w->moon_phase = sqlite3_column_double(st, 12);
  if (!read_inventory(st, 13, &w->inventory)) {
    ty_storage_world_free(w);
    return ty_store_fail(err, errsz, "storage_corrupt", "world %s: its inventory is not readable", sqlite3_column_text(st, 0));
  }
  if (sqlite3_column_type(st, 14) != SQLITE_NULL) {
    w->screenshot_len = (size_t)sqlite3_column_bytes(st, 14);
    w->screenshot = w->screenshot_len ? sw_dup_mem(sqlite3_column_blob(st, 14), w->screenshot_len) : TY_MALLOC(1);
  }
  return TY_STORAGE_OK;
}

/* Appends the packed rows statement `which` yields for id (count, data) to *e. */
static ty_storage_status read_packed(ty_store *s, int which, const char *id, ty_storage_edit **e, uint32_t *n,
                                     uint32_t *cap, char *err, size_t errsz) {
  sqlite3_stmt *st = ty_store_stmt(s, which);
  bind_text(st, 1, id);
  int rc = SQLITE_DONE;
  ty_storage_status status = TY_STORAGE_OK;
  while (status == TY_STORAGE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t count = sqlite3_column_int64(st, 0);
    const unsigned char *data = sqlite3_column_blob(st, 1);
    if (count < 0 || (int64_t)sqlite3_column_bytes(st, 1) != count * EDIT_BYTES || (int64_t)*n + count > INT32_MAX) {
      status = ty_store_fail(err, errsz, "storage_corrupt", "world %s: its edit log is damaged", id);
      break;
    }
    if (*n == 0 && *cap == 0) { /* the common case, one packed row: no copy through TY_GROW */
      *e = unpack_edits(data, (uint32_t)count);
      *n = *cap = (uint32_t)count;
      continue;
    }
    TY_GROW(*e, *cap, *n + (uint32_t)count);
    for (int64_t i = 0; i < count; i++, data += EDIT_BYTES)
      (*e)[(*n)++] = (ty_storage_edit){get_i32(data), get_i32(data + 4), get_i32(data + 8), get_i32(data + 12)};
  }
  if (status == TY_STORAGE_OK && rc != SQLITE_DONE) status = ty_store_sql_fail(s, err, errsz, "loading an edit log");
  sqlite3_reset(st);
  return status;
}

/* The world's whole edit log: the packed log, then its journal merged in. Owned by the caller. */
static ty_storage_status load_edits(ty_store *s, const char *id, ty_storage_edit **out, uint32_t *nout,
                                    bool *journaled, char *err, size_t errsz) {
  ty_storage_edit *e = NULL;
  uint32_t n = 0, cap = 0;
  ty_storage_status status = read_packed(s, ST_EDITS_SELECT, id, &e, &n, &cap, err, errsz);
  uint32_t base = n;
  if (status == TY_STORAGE_OK) status = read_packed(s, ST_JOURNAL_SELECT, id, &e, &n, &cap, err, errsz);
  if (status != TY_STORAGE_OK) {
    TY_FREE(e);
    return status;
  }
  if (journaled) *journaled = n > base;
  if (n > base) n = merge_edits(e, n);
  *out = e;
  *nout = n;
  return TY_STORAGE_OK;
}

static ty_storage_status load_inner(ty_store *s, const char *id, ty_storage_world *out, char *err, size_t errsz) {
  sqlite3_stmt *st = ty_store_stmt(s, ST_WORLD_SELECT);
  bind_text(st, 1, id);
  int rc = sqlite3_step(st);
  ty_storage_status status = TY_STORAGE_MISSING;
  if (rc == SQLITE_ROW) status = read_world(st, out, err, errsz);
  else if (rc != SQLITE_DONE) status = ty_store_sql_fail(s, err, errsz, "loading a world");
  sqlite3_reset(st);
  if (status != TY_STORAGE_OK) return status;
  ty_storage_edit *e = NULL;
  status = load_edits(s, id, &e, &out->nedits, NULL, err, errsz);
  out->edits = e;
  if (status != TY_STORAGE_OK) ty_storage_world_free(out);
  return status;
}

ty_storage_status ty_storage_load(ty_storage *h, const char *id, ty_storage_world *out, char *err, size_t errsz) {
  ty_store *s = h->store;
  ty_store_drain(s); /* after the queued saves, as if they had been made here */
  memset(out, 0, sizeof *out);
  /* One read transaction, so the world row and its edit log come from the same save (a
   * savepoint: inside a batch it reads the batch's writes). */
  if (!ty_store_exec(s, "SAVEPOINT ty_load", err, errsz)) return TY_STORAGE_FAILED;
  ty_storage_status st = load_inner(s, id, out, err, errsz);
  sqlite3_exec(ty_store_db(s), "RELEASE ty_load", NULL, NULL, NULL);
  return st;
}

ty_storage_status ty_storage_save_meta(ty_storage *h, const ty_storage_world *w, const ty_storage_edit *append,
                                       uint32_t nappend, char *err, size_t errsz) {
  ty_store *s = h->store;
  ty_store_drain(s); /* after the queued saves, as if they had been made here */
  if (!ty_store_begin_incremental(s, err, errsz)) return ty_store_finish_incremental(s, TY_STORAGE_FAILED, err, errsz);
  ty_storage_status st = write_world_row(s, w, err, errsz);
  if (st == TY_STORAGE_OK) st = append_inner(s, w->id, append, nappend, err, errsz);
  return ty_store_finish_incremental(s, st, err, errsz);
}

/* TY_STORAGE_MISSING when there is no world id (inside a transaction). */
static ty_storage_status world_exists(ty_store *s, const char *id, char *err, size_t errsz) {
  sqlite3_stmt *st = ty_store_stmt(s, ST_WORLD_EXISTS);
  bind_text(st, 1, id);
  int rc = sqlite3_step(st);
  sqlite3_reset(st);
  if (rc == SQLITE_ROW) return TY_STORAGE_OK;
  if (rc != SQLITE_DONE) return ty_store_sql_fail(s, err, errsz, "finding a world");
  ty_store_fail(err, errsz, "storage_no_world", "no world with id %s", id);
  return TY_STORAGE_MISSING;
}

ty_storage_status ty_storage_append_edits(ty_storage *h, const char *id, const ty_storage_edit *edits, uint32_t n,
                                          char *err, size_t errsz) {
  ty_store *s = h->store;
  ty_store_drain(s); /* after the queued saves, as if they had been made here */
  if (!ty_store_begin_incremental(s, err, errsz)) return ty_store_finish_incremental(s, TY_STORAGE_FAILED, err, errsz);
  /* Checked even for no edits, so that a wrong id is told the same way every time. */
  ty_storage_status st = world_exists(s, id, err, errsz);
  if (st == TY_STORAGE_OK) st = append_inner(s, id, edits, n, err, errsz);
  return ty_store_finish_incremental(s, st, err, errsz);
}

ty_storage_status ty_storage_compact(ty_storage *h, const char *id, char *err, size_t errsz) {
  ty_store *s = h->store;
  ty_store_drain(s); /* after the queued saves, as if they had been made here */
  if (!ty_store_begin(s, err, errsz)) return TY_STORAGE_FAILED;
  ty_storage_status st = world_exists(s, id, err, errsz);
  ty_storage_edit *e = NULL;
  uint32_t n = 0;
  bool journaled = false;
  if (st == TY_STORAGE_OK) { /* an empty journal costs one index lookup, not a read of the log */
    sqlite3_stmt *q = ty_store_stmt(s, ST_JOURNAL_COUNT);
    bind_text(q, 1, id);
    int rc = sqlite3_step(q);
    journaled = rc == SQLITE_ROW && sqlite3_column_int64(q, 0) > 0;
    sqlite3_reset(q);
    if (rc != SQLITE_ROW) st = ty_store_sql_fail(s, err, errsz, "reading an edit journal");
  }
  if (st == TY_STORAGE_OK && journaled) st = load_edits(s, id, &e, &n, &journaled, err, errsz);
  if (st == TY_STORAGE_OK && journaled) st = write_edit_log(s, id, e, n, err, errsz);
  TY_FREE(e);
  return ty_store_finish(s, st, err, errsz);
}

ty_storage_status ty_storage_list(ty_storage *h, ty_storage_world **out, uint32_t *n, char *err, size_t errsz) {
  ty_store *s = h->store;
  ty_store_drain(s); /* after the queued saves, as if they had been made here */
  *out = NULL;
  *n = 0;
  uint32_t cap = 0;
  sqlite3_stmt *st = ty_store_stmt(s, ST_WORLD_LIST);
  int rc;
  ty_storage_status status = TY_STORAGE_OK;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    ty_storage_world w;
    char why[300];
    /* A world this build cannot read is left out; the others still list. */
    if (read_world(st, &w, why, sizeof why) != TY_STORAGE_OK) continue;
    w.nedits = (uint32_t)sqlite3_column_int64(st, 16);
    if (sqlite3_column_int(st, 17)) {
      /* Appended edits may replace logged ones: the count is the merged log's. */
      ty_storage_edit *e = NULL;
      uint32_t merged;
      if (load_edits(s, w.id, &e, &merged, NULL, why, sizeof why) == TY_STORAGE_OK) w.nedits = merged;
      TY_FREE(e);
    }
    TY_GROW(*out, cap, *n + 1);
    (*out)[(*n)++] = w;
  }
  if (rc != SQLITE_DONE) status = ty_store_sql_fail(s, err, errsz, "listing worlds");
  sqlite3_reset(st);
  if (status != TY_STORAGE_OK) {
    ty_storage_worlds_free(*out, *n);
    *out = NULL;
    *n = 0;
  }
  return status;
}

ty_storage_status ty_storage_delete(ty_storage *h, const char *id, char *err, size_t errsz) {
  ty_store *s = h->store;
  ty_store_drain(s); /* after the queued saves, as if they had been made here */
  sqlite3_stmt *st = ty_store_stmt(s, ST_WORLD_DELETE);
  bind_text(st, 1, id);
  int rc = sqlite3_step(st);
  sqlite3_reset(st);
  if (rc != SQLITE_DONE) return ty_store_sql_fail(s, err, errsz, "deleting a world");
  return sqlite3_changes(ty_store_db(s)) ? TY_STORAGE_OK : TY_STORAGE_MISSING;
}

/* ---- players ---- */

/* Incremental, as save_meta: a server saves its players every few seconds on its loop. */
ty_storage_status ty_storage_save_player(ty_storage *h, const char *world_id, const char *player_key,
                                         const ty_storage_player *p, char *err, size_t errsz) {
  ty_store *s = h->store;
  ty_store_drain(s); /* after the queued saves, as if they had been made here */
  if (!ty_store_begin_incremental(s, err, errsz)) return ty_store_finish_incremental(s, TY_STORAGE_FAILED, err, errsz);
  sqlite3_stmt *st = ty_store_stmt(s, ST_PLAYER_UPSERT);
  char *inv = sw_inventory_text(&p->inventory);
  bind_text(st, 1, world_id);
  bind_text(st, 2, player_key);
  const double nums[] = {p->pose.x, p->pose.y, p->pose.z, p->pose.yaw, p->pose.pitch};
  for (int i = 0; i < 5; i++) sqlite3_bind_double(st, 3 + i, nums[i]);
  if (inv) bind_text(st, 8, inv);
  sqlite3_bind_double(st, 9, ty_storage_now_ms());
  int rc = sqlite3_step(st);
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
  free(inv);
  ty_storage_status status = TY_STORAGE_OK;
  if (rc == SQLITE_CONSTRAINT_FOREIGNKEY) status = ty_store_fail(err, errsz, "storage_no_world", "no world with id %s", world_id);
  else if (rc != SQLITE_DONE) status = ty_store_sql_fail(s, err, errsz, "saving a player");
  return ty_store_finish_incremental(s, status, err, errsz);
}

ty_storage_status ty_storage_load_player(ty_storage *h, const char *world_id, const char *player_key,
                                         ty_storage_player *out, char *err, size_t errsz) {
  ty_store *s = h->store;
  ty_store_drain(s); /* after the queued saves, as if they had been made here */
  memset(out, 0, sizeof *out);
  sqlite3_stmt *st = ty_store_stmt(s, ST_PLAYER_SELECT);
  bind_text(st, 1, world_id);
  bind_text(st, 2, player_key);
  int rc = sqlite3_step(st);
  ty_storage_status status = TY_STORAGE_MISSING;
  if (rc == SQLITE_ROW) {
    out->pose = (ty_storage_pose){sqlite3_column_double(st, 0), sqlite3_column_double(st, 1), sqlite3_column_double(st, 2),
                                  sqlite3_column_double(st, 3), sqlite3_column_double(st, 4)};
    status = read_inventory(st, 5, &out->inventory)
                 ? TY_STORAGE_OK
                 : ty_store_fail(err, errsz, "storage_corrupt", "player %s in world %s: inventory not readable", player_key, world_id);
  } else if (rc != SQLITE_DONE) {
    status = ty_store_sql_fail(s, err, errsz, "loading a player");
  }
  sqlite3_reset(st);
  return status;
}

/* ---- export and import ---- */

ty_storage_status ty_storage_export(ty_storage *h, const char *id, const char *path, char *err, size_t errsz) {
  ty_storage_world w;
  ty_storage_status st = ty_storage_load(h, id, &w, err, errsz);
  if (st == TY_STORAGE_MISSING) return ty_store_fail(err, errsz, "storage_no_world", "no world with id %s", id), TY_STORAGE_MISSING;
  if (st != TY_STORAGE_OK) return st;
  char *text = ty_storage_world_to_json(&w);
  ty_storage_world_free(&w);
  if (!text) return ty_store_fail(err, errsz, "storage_export", "out of memory encoding world %s", id);
  st = ty_store_write_atomic(path, text, strlen(text), err, errsz);
  free(text);
  return st;
}

ty_storage_status ty_storage_import(ty_storage *h, const char *path, char id_out[TY_STORAGE_ID_SIZE], char *err,
                                    size_t errsz) {
  ty_store *s = h->store;
  ty_store_drain(s); /* after the queued saves, as if they had been made here */
  FILE *f = fopen(path, "rb");
  if (!f) return ty_store_fail(err, errsz, "storage_import", "%s: %s", path, strerror(errno));
  char *text = NULL;
  size_t len = 0, cap = 0;
  for (;;) {
    if (len + 65536 > cap) {
      cap = cap ? cap * 2 : 1 << 20;
      char *p = TY_REALLOC(text, cap);
      TY_ASSERT(p);
      text = p;
    }
    size_t got = fread(text + len, 1, cap - len, f);
    len += got;
    if (got == 0) break;
  }
  bool read_err = ferror(f);
  fclose(f);
  if (read_err) {
    TY_FREE(text);
    return ty_store_fail(err, errsz, "storage_import", "%s: read error", path);
  }
  ty_storage_world w;
  ty_storage_status st = ty_storage_world_from_json(text, len, &w, err, errsz);
  TY_FREE(text);
  if (st != TY_STORAGE_OK) return st;
  char fresh[TY_STORAGE_ID_SIZE];
  sqlite3_stmt *ex = ty_store_stmt(s, ST_WORLD_EXISTS);
  if (!ty_store_begin(s, err, errsz)) {
    ty_storage_world_free(&w);
    return TY_STORAGE_FAILED;
  }
  bind_text(ex, 1, w.id);
  bool taken = sqlite3_step(ex) == SQLITE_ROW;
  sqlite3_reset(ex);
  const char *keep = w.id;
  if (taken || strlen(w.id) >= TY_STORAGE_ID_SIZE || !w.id[0]) {
    ty_storage_new_id(fresh);
    w.id = fresh;
  }
  st = ty_store_finish(s, save_inner(s, &w, err, errsz), err, errsz);
  if (st == TY_STORAGE_OK) snprintf(id_out, TY_STORAGE_ID_SIZE, "%s", w.id);
  w.id = keep;
  ty_storage_world_free(&w);
  return st;
}

/* ---- queued saves ---- */

/* A queued incremental save (ty_storage_queue_*): an owned copy of what the caller gave.
 * world.edits holds the edits to append (save_meta never reads a world's edit log). */
typedef struct saved_world_job {
  bool meta; /* save_meta; else append_edits, of which only world.id and world.edits count */
  ty_storage_world world;
} saved_world_job;

static void job_free(void *job) {
  saved_world_job *j = job;
  ty_storage_world_free(&j->world);
  TY_FREE(j);
}

/* A copy of what a job needs, owned by the job: the caller's pointers are borrowed. */
static saved_world_job *job_new(bool meta, const ty_storage_world *w, const char *id, const ty_storage_edit *e,
                                uint32_t n) {
  saved_world_job *j = TY_MALLOC(sizeof *j);
  TY_ASSERT(j);
  memset(j, 0, sizeof *j);
  j->meta = meta;
  ty_storage_world *c = &j->world;
  if (meta) {
    *c = *w;
    c->id = sw_dup_str(w->id);
    c->name = sw_dup_str(w->name);
    c->game_mode = sw_dup_str(w->game_mode);
    c->seed.text = w->seed.kind == TY_STORAGE_SEED_TEXT ? sw_dup_str(w->seed.text ? w->seed.text : "") : NULL;
    /* A present but empty screenshot stays present (an empty blob, not NULL). */
    c->screenshot = w->screenshot ? (w->screenshot_len ? sw_dup_mem(w->screenshot, w->screenshot_len) : TY_MALLOC(1)) : NULL;
    c->inventory.stacks = sw_dup_mem(w->inventory.stacks, sizeof *w->inventory.stacks * w->inventory.nstacks);
    c->inventory.hotbar = sw_dup_mem(w->inventory.hotbar, sizeof *w->inventory.hotbar * w->inventory.nhotbar);
  } else {
    c->id = sw_dup_str(id);
  }
  c->edits = sw_dup_mem(e, sizeof *e * n);
  c->nedits = c->edits ? n : 0;
  return j;
}

/* Runs on the store's writer connection, inside the transaction the store opened for it. */
static ty_storage_status job_run(ty_store *conn, void *job, char *err, size_t errsz) {
  const saved_world_job *j = job;
  ty_storage_status st = j->meta ? write_world_row(conn, &j->world, err, errsz) : world_exists(conn, j->world.id, err, errsz);
  if (st == TY_STORAGE_OK) st = append_inner(conn, j->world.id, j->world.edits, j->world.nedits, err, errsz);
  return st;
}

ty_storage_status ty_storage_queue_save_meta(ty_storage *h, const ty_storage_world *w, const ty_storage_edit *append,
                                             uint32_t nappend, char *err, size_t errsz) {
  if (check_world(w, err, errsz) != TY_STORAGE_OK) return TY_STORAGE_FAILED;
  return ty_store_queue(h->store, job_new(true, w, NULL, append, nappend), job_run, job_free, err, errsz);
}

ty_storage_status ty_storage_queue_append_edits(ty_storage *h, const char *id, const ty_storage_edit *edits,
                                                uint32_t n, char *err, size_t errsz) {
  TY_ASSERT(id);
  return ty_store_queue(h->store, job_new(false, NULL, id, edits, n), job_run, job_free, err, errsz);
}

ty_storage_status ty_storage_flush(ty_storage *h, char *err, size_t errsz) { return ty_store_flush(h->store, err, errsz); }

bool ty_storage_batch_begin(ty_storage *h, char *err, size_t errsz) { return ty_store_batch_begin(h->store, err, errsz); }

ty_storage_status ty_storage_batch_end(ty_storage *h, ty_storage_status st, char *err, size_t errsz) {
  return ty_store_batch_end(h->store, st, err, errsz);
}

bool ty_storage_in_batch(ty_storage *h) { return ty_store_in_batch(h->store); }

void ty_storage_checkpoint(ty_storage *h) { ty_store_checkpoint(h->store); }

bool ty_storage_last_error(ty_storage *h, char *err, size_t errsz) { return ty_store_last_error(h->store, err, errsz); }

uint32_t ty_storage_pending(ty_storage *h) { return ty_store_pending(h->store); }

/* ---- the store's blobs, on this store ---- */

ty_storage_status ty_storage_put_blob(ty_storage *h, const char *key, const void *data, size_t len, char *err,
                                      size_t errsz) {
  return ty_store_put_blob(h->store, key, data, len, err, errsz);
}

ty_storage_status ty_storage_get_blob(ty_storage *h, const char *key, void **out, size_t *len, char *err,
                                      size_t errsz) {
  return ty_store_get_blob(h->store, key, out, len, err, errsz);
}

ty_storage_status ty_storage_delete_blob(ty_storage *h, const char *key, char *err, size_t errsz) {
  return ty_store_delete_blob(h->store, key, err, errsz);
}
