/* tests/c/storage_test.c: crafty's SavedWorld schema (engine/storage/saved_world.h; the
 * generic store beneath is store_test.c's): every SavedWorld field round trips, list order,
 * delete, per-player records, the schema 1 -> 2 and 3 -> 4 migrations, refusal of newer
 * schemas and records, of files that are not stores or are truncated (left byte-identical),
 * the atomic JSON export/import, and incremental saves (save_meta, append_edits, compact)
 * loading the same log as a full save, and the same saves queued for the writer thread. */
#include "check.h"
#include "storage/storage.h"

#include <dirent.h>
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
  fclose(f);
  return buf;
}

static void write_all(const char *path, const void *data, size_t n) {
  FILE *f = fopen(path, "wb");
  fwrite(data, 1, n, f);
  fclose(f);
}

static const ty_storage_stack stacks[] = {{3, 12}, {7, 64}};
static const int32_t hotbar[] = {3, 7, 0, 0, 1, 0, 0, 0, 9};
static const unsigned char png[] = {0x89, 'P', 'N', 'G', 0, 1, 2, 255};

static ty_storage_world sample(const char *id, double last_played, ty_storage_edit *edits, uint32_t nedits) {
  return (ty_storage_world){
      .id = id, .name = "Meadow", .game_mode = "survival",
      .seed = {.kind = TY_STORAGE_SEED_INTEGER, .integer = 1234567890123LL},
      .created_at = 1700000000000.0, .last_played_at = last_played,
      .player = {10.5, 70.25, -3.75, 1.5, -0.25}, .sun_angle = 0.9, .has_moon_phase = true, .moon_phase = 3,
      .inventory = {.present = true, .stacks = stacks, .nstacks = 2, .hotbar = hotbar, .nhotbar = 9},
      .screenshot = png, .screenshot_len = sizeof png, .version = TY_STORAGE_FORMAT_VERSION,
      .edits = edits, .nedits = nedits};
}

static void test_round_trip_every_field(void) {
  char err[512];
  ty_storage *s = ty_storage_open(path_in("rt.sqlite"), err, sizeof err);
  CHECK(s != NULL);
  if (!s) return;
  ty_storage_edit edits[] = {{1, 65, 2, 3}, {4, 66, 5, 1}, {1, 65, 2, 0}, {-7, 0, 2147483647, 255}};
  ty_storage_world w = sample("world-a", 1700000005000.0, edits, 4);
  CHECK_EQ_INT(ty_storage_save(s, &w, err, sizeof err), TY_STORAGE_OK);
  ty_storage_world got;
  CHECK_EQ_INT(ty_storage_load(s, "world-a", &got, err, sizeof err), TY_STORAGE_OK);
  CHECK(strcmp(got.id, "world-a") == 0);
  CHECK(strcmp(got.name, "Meadow") == 0);
  CHECK(strcmp(got.game_mode, "survival") == 0);
  CHECK_EQ_INT(got.seed.kind, TY_STORAGE_SEED_INTEGER);
  CHECK_EQ_INT(got.seed.integer, 1234567890123LL);
  CHECK_NEAR(got.created_at, 1700000000000.0, 0);
  CHECK_NEAR(got.last_played_at, 1700000005000.0, 0);
  CHECK_NEAR(got.player.x, 10.5, 0);
  CHECK_NEAR(got.player.y, 70.25, 0);
  CHECK_NEAR(got.player.z, -3.75, 0);
  CHECK_NEAR(got.player.yaw, 1.5, 0);
  CHECK_NEAR(got.player.pitch, -0.25, 0);
  CHECK_NEAR(got.sun_angle, 0.9, 0);
  CHECK(got.has_moon_phase);
  CHECK_NEAR(got.moon_phase, 3, 0);
  CHECK(got.inventory.present);
  CHECK_EQ_INT(got.inventory.nstacks, 2);
  CHECK_EQ_INT(got.inventory.nhotbar, 9);
  if (got.inventory.nstacks == 2 && got.inventory.nhotbar == 9) {
    CHECK(memcmp(got.inventory.stacks, stacks, sizeof stacks) == 0);
    CHECK(memcmp(got.inventory.hotbar, hotbar, sizeof hotbar) == 0);
  }
  CHECK_EQ_INT(got.screenshot_len, sizeof png);
  CHECK(got.screenshot && memcmp(got.screenshot, png, sizeof png) == 0);
  CHECK_EQ_INT(got.version, TY_STORAGE_FORMAT_VERSION);
  /* The later edit of (1, 65, 2) replaced the earlier one. */
  CHECK_EQ_INT(got.nedits, 3);
  if (got.nedits == 3) {
    CHECK(got.edits[0].x == 1 && got.edits[0].y == 65 && got.edits[0].z == 2 && got.edits[0].type == 0);
    CHECK(got.edits[1].x == 4 && got.edits[1].type == 1);
    CHECK(got.edits[2].x == -7 && got.edits[2].z == 2147483647 && got.edits[2].type == 255);
  }
  ty_storage_world_free(&got);

  /* A text seed, no optional fields, and a second save replacing the first. */
  ty_storage_world bare = {.id = "world-a", .name = "Renamed", .game_mode = "creative",
                           .seed = {.kind = TY_STORAGE_SEED_TEXT, .text = "glacier"}, .created_at = 1, .last_played_at = 2,
                           .sun_angle = 0.5, .version = TY_STORAGE_FORMAT_VERSION};
  CHECK_EQ_INT(ty_storage_save(s, &bare, err, sizeof err), TY_STORAGE_OK);
  CHECK_EQ_INT(ty_storage_load(s, "world-a", &got, err, sizeof err), TY_STORAGE_OK);
  CHECK(strcmp(got.name, "Renamed") == 0);
  CHECK(got.seed.kind == TY_STORAGE_SEED_TEXT && strcmp(got.seed.text, "glacier") == 0);
  CHECK(!got.has_moon_phase && !got.inventory.present && got.screenshot == NULL);
  CHECK_EQ_INT(got.nedits, 0);
  ty_storage_world_free(&got);
  CHECK_EQ_INT(ty_storage_load(s, "nope", &got, err, sizeof err), TY_STORAGE_MISSING);
  ty_storage_close(s);
}

static void test_list_delete_and_players(void) {
  char err[512];
  ty_storage *s = ty_storage_open(path_in("list.sqlite"), err, sizeof err);
  CHECK(s != NULL);
  if (!s) return;
  ty_storage_edit e[] = {{0, 0, 0, 1}, {1, 0, 0, 1}};
  ty_storage_world a = sample("a", 100, e, 2), b = sample("b", 300, NULL, 0), c = sample("c", 200, e, 1);
  CHECK_EQ_INT(ty_storage_save(s, &a, err, sizeof err), TY_STORAGE_OK);
  CHECK_EQ_INT(ty_storage_save(s, &b, err, sizeof err), TY_STORAGE_OK);
  CHECK_EQ_INT(ty_storage_save(s, &c, err, sizeof err), TY_STORAGE_OK);
  ty_storage_world *list;
  uint32_t n;
  CHECK_EQ_INT(ty_storage_list(s, &list, &n, err, sizeof err), TY_STORAGE_OK);
  CHECK_EQ_INT(n, 3);
  if (n == 3) {
    CHECK(strcmp(list[0].id, "b") == 0 && strcmp(list[1].id, "c") == 0 && strcmp(list[2].id, "a") == 0);
    CHECK_EQ_INT(list[2].nedits, 2);
    CHECK(list[2].edits == NULL);
  }
  ty_storage_worlds_free(list, n);

  ty_storage_player p = {.pose = {1, 2, 3, 0.5, -0.5}, .inventory = {.present = true, .stacks = stacks, .nstacks = 1}};
  CHECK_EQ_INT(ty_storage_save_player(s, "a", "key-1", &p, err, sizeof err), TY_STORAGE_OK);
  p.pose.x = 9; /* a second save replaces the first */
  CHECK_EQ_INT(ty_storage_save_player(s, "a", "key-1", &p, err, sizeof err), TY_STORAGE_OK);
  ty_storage_player got;
  CHECK_EQ_INT(ty_storage_load_player(s, "a", "key-1", &got, err, sizeof err), TY_STORAGE_OK);
  CHECK(got.pose.x == 9 && got.pose.y == 2 && got.pose.z == 3 && got.pose.yaw == 0.5 && got.pose.pitch == -0.5);
  CHECK(got.inventory.present && got.inventory.nstacks == 1 && got.inventory.stacks[0].count == 12);
  ty_storage_player_free(&got);
  CHECK_EQ_INT(ty_storage_load_player(s, "a", "key-2", &got, err, sizeof err), TY_STORAGE_MISSING);
  CHECK_EQ_INT(ty_storage_save_player(s, "no-such-world", "key-1", &p, err, sizeof err), TY_STORAGE_FAILED);

  /* Delete takes the world's edits and players with it. */
  CHECK_EQ_INT(ty_storage_delete(s, "a", err, sizeof err), TY_STORAGE_OK);
  CHECK_EQ_INT(ty_storage_delete(s, "a", err, sizeof err), TY_STORAGE_MISSING);
  CHECK_EQ_INT(ty_storage_load_player(s, "a", "key-1", &got, err, sizeof err), TY_STORAGE_MISSING);
  ty_storage_world w;
  CHECK_EQ_INT(ty_storage_load(s, "a", &w, err, sizeof err), TY_STORAGE_MISSING);
  CHECK_EQ_INT(ty_storage_list(s, &list, &n, err, sizeof err), TY_STORAGE_OK);
  CHECK_EQ_INT(n, 2);
  ty_storage_worlds_free(list, n);
  ty_storage_close(s);
}

static void sql(const char *path, const char *text) {
  sqlite3 *db;
  sqlite3_open(path, &db);
  char *msg = NULL;
  if (sqlite3_exec(db, text, NULL, NULL, &msg) != SQLITE_OK) fprintf(stderr, "  sql: %s\n", msg);
  sqlite3_free(msg);
  sqlite3_close(db);
}

static void test_migrates_schema_1(void) {
  const char *p = path_in("v1.sqlite");
  /* A schema 1 store (one JSON document per world) holding a format 1 record: no gameMode,
   * no sunAngle. */
  sql(p, "PRAGMA application_id = 1415136072; PRAGMA user_version = 1;"
         "CREATE TABLE worlds (id TEXT PRIMARY KEY, json TEXT NOT NULL);"
         "INSERT INTO worlds VALUES ('old', '{\"id\":\"old\",\"name\":\"Old\",\"seed\":42,\"createdAt\":5,"
         "\"lastPlayedAt\":6,\"edits\":[{\"x\":1,\"y\":2,\"z\":3,\"type\":4}],"
         "\"player\":{\"x\":1,\"y\":2,\"z\":3,\"yaw\":0,\"pitch\":0},\"version\":1}');");
  char err[512];
  ty_storage *s = ty_storage_open(p, err, sizeof err);
  CHECK(s != NULL);
  if (!s) return;
  ty_storage_world w;
  CHECK_EQ_INT(ty_storage_load(s, "old", &w, err, sizeof err), TY_STORAGE_OK);
  CHECK(w.name && strcmp(w.name, "Old") == 0);
  CHECK(w.game_mode && strcmp(w.game_mode, "creative") == 0);
  CHECK_NEAR(w.sun_angle, 3.14159265358979 * 0.3, 1e-9);
  CHECK_EQ_INT(w.version, TY_STORAGE_FORMAT_VERSION);
  CHECK(w.nedits == 1 && w.edits[0].type == 4 && w.edits[0].z == 3);
  ty_storage_world_free(&w);
  ty_storage_close(s);
  sqlite3 *db;
  sqlite3_open(p, &db);
  sqlite3_stmt *st;
  sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL);
  sqlite3_step(st);
  CHECK_EQ_INT(sqlite3_column_int(st, 0), TY_STORAGE_SCHEMA_VERSION);
  sqlite3_finalize(st);
  sqlite3_close(db);
}

static int64_t query_int(const char *path, const char *text) {
  sqlite3 *db;
  sqlite3_open(path, &db);
  sqlite3_stmt *st;
  int64_t v = -1;
  if (sqlite3_prepare_v2(db, text, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    v = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(db);
  return v;
}

/* A store as schema 3 wrote it (the DDL of migrations 1..3, frozen here): one world whose
 * packed log holds (1, 2, 3) type 4 and (-5, 6, 7) type 0, little-endian int32 quads. */
static void test_migrates_schema_3(void) {
  const char *p = path_in("v3.sqlite");
  sql(p, "PRAGMA application_id = 1415136072; PRAGMA user_version = 3; PRAGMA journal_mode = WAL;"
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
         " WITHOUT ROWID;"
         "CREATE TABLE blobs (key TEXT PRIMARY KEY, data BLOB NOT NULL, updated_at REAL NOT NULL) WITHOUT ROWID;"
         "INSERT INTO worlds VALUES ('w3', 'Three', 9, 'creative', 1, 2, 64, 80, 64, 0, 0, 0.5, NULL, NULL, NULL, 2);"
         "INSERT INTO world_edits VALUES ('w3', 2, x'01000000020000000300000004000000fbffffff060000000700000000000000');");
  /* The blob above is hand-written hex: check it is the 32 bytes it should be first. */
  CHECK_EQ_INT(query_int(p, "SELECT length(data) FROM world_edits"), 32);
  char err[512];
  ty_storage *s = ty_storage_open(p, err, sizeof err);
  CHECK(s != NULL);
  if (!s) return;
  ty_storage_world w;
  CHECK_EQ_INT(ty_storage_load(s, "w3", &w, err, sizeof err), TY_STORAGE_OK);
  CHECK(w.name && strcmp(w.name, "Three") == 0 && w.seed.integer == 9);
  CHECK_EQ_INT(w.nedits, 2);
  if (w.nedits == 2) {
    CHECK(w.edits[0].x == 1 && w.edits[0].y == 2 && w.edits[0].z == 3 && w.edits[0].type == 4);
    CHECK(w.edits[1].x == -5 && w.edits[1].y == 6 && w.edits[1].z == 7 && w.edits[1].type == 0);
  }
  ty_storage_world_free(&w);
  /* The migrated store takes appends at once. */
  ty_storage_edit more[] = {{1, 2, 3, 9}, {8, 8, 8, 1}};
  CHECK_EQ_INT(ty_storage_append_edits(s, "w3", more, 2, err, sizeof err), TY_STORAGE_OK);
  CHECK_EQ_INT(ty_storage_load(s, "w3", &w, err, sizeof err), TY_STORAGE_OK);
  CHECK(w.nedits == 3 && w.edits[0].type == 9 && w.edits[2].x == 8);
  ty_storage_world_free(&w);
  ty_storage_close(s);
  CHECK_EQ_INT(query_int(p, "PRAGMA user_version"), TY_STORAGE_SCHEMA_VERSION);
}

static bool same_edits(const ty_storage_world *a, const ty_storage_world *b) {
  return a->nedits == b->nedits && (a->nedits == 0 || memcmp(a->edits, b->edits, sizeof *a->edits * a->nedits) == 0);
}

/* Incremental saves load exactly what a full save of the same edits loads, in the same
 * order; compacting changes nothing a load sees; a full save replaces what was appended. */
static void test_incremental_saves(void) {
  const char *p = path_in("inc.sqlite");
  char err[512];
  ty_storage *s = ty_storage_open(p, err, sizeof err);
  CHECK(s != NULL);
  if (!s) return;
  /* One log in four parts: what the first save had, then three batches, each touching
   * blocks of earlier parts (and itself) as a game does. */
  enum { N = 4000 };
  static ty_storage_edit all[N];
  uint32_t r = 7;
  for (uint32_t i = 0; i < N; i++) {
    r = r * 1103515245u + 12345u;
    all[i] = (ty_storage_edit){(int32_t)(r >> 8 & 63), (int32_t)(r >> 16 & 7), (int32_t)(r >> 24 & 31), (int32_t)(i & 255)};
  }
  ty_storage_world inc = sample("inc", 10, all, 1000), full = sample("full", 10, all, N);
  CHECK_EQ_INT(ty_storage_save(s, &inc, err, sizeof err), TY_STORAGE_OK);
  CHECK_EQ_INT(ty_storage_append_edits(s, "inc", all + 1000, 1000, err, sizeof err), TY_STORAGE_OK);
  inc.last_played_at = 20;
  inc.sun_angle = 2.5;
  inc.edits = NULL, inc.nedits = 0; /* save_meta does not read the log */
  CHECK_EQ_INT(ty_storage_save_meta(s, &inc, all + 2000, 1500, err, sizeof err), TY_STORAGE_OK);
  CHECK_EQ_INT(ty_storage_save_meta(s, &inc, all + 3500, 500, err, sizeof err), TY_STORAGE_OK);
  CHECK_EQ_INT(ty_storage_append_edits(s, "inc", NULL, 0, err, sizeof err), TY_STORAGE_OK);
  CHECK_EQ_INT(ty_storage_save(s, &full, err, sizeof err), TY_STORAGE_OK);
  CHECK_EQ_INT(query_int(p, "SELECT count(*) FROM world_journal WHERE world_id = 'inc'"), 3);

  ty_storage_world a, b;
  CHECK_EQ_INT(ty_storage_load(s, "inc", &a, err, sizeof err), TY_STORAGE_OK);
  CHECK_EQ_INT(ty_storage_load(s, "full", &b, err, sizeof err), TY_STORAGE_OK);
  CHECK(b.nedits < N); /* the data does repeat blocks */
  CHECK(same_edits(&a, &b));
  CHECK_NEAR(a.last_played_at, 20, 0);
  CHECK_NEAR(a.sun_angle, 2.5, 0);
  CHECK(a.inventory.nhotbar == 9 && a.screenshot_len == sizeof png);
  /* list counts the merged log, as a load would. */
  ty_storage_world *list;
  uint32_t nlist;
  CHECK_EQ_INT(ty_storage_list(s, &list, &nlist, err, sizeof err), TY_STORAGE_OK);
  CHECK_EQ_INT(nlist, 2);
  for (uint32_t i = 0; i < nlist; i++) CHECK_EQ_INT(list[i].nedits, b.nedits);
  ty_storage_worlds_free(list, nlist);

  /* Compaction empties the journal and the load stays the same. */
  CHECK_EQ_INT(ty_storage_compact(s, "inc", err, sizeof err), TY_STORAGE_OK);
  CHECK_EQ_INT(query_int(p, "SELECT count(*) FROM world_journal"), 0);
  CHECK_EQ_INT(query_int(p, "SELECT count FROM world_edits WHERE world_id = 'inc'"), b.nedits);
  ty_storage_world c;
  CHECK_EQ_INT(ty_storage_load(s, "inc", &c, err, sizeof err), TY_STORAGE_OK);
  CHECK(same_edits(&c, &b));
  ty_storage_world_free(&c);
  CHECK_EQ_INT(ty_storage_compact(s, "inc", err, sizeof err), TY_STORAGE_OK); /* nothing to fold */

  /* A full save is the whole log: what was appended before it is gone. */
  ty_storage_edit one = {5, 5, 5, 5};
  CHECK_EQ_INT(ty_storage_append_edits(s, "inc", &one, 1, err, sizeof err), TY_STORAGE_OK);
  ty_storage_world two = sample("inc", 30, all, 2);
  CHECK_EQ_INT(ty_storage_save(s, &two, err, sizeof err), TY_STORAGE_OK);
  CHECK_EQ_INT(ty_storage_load(s, "inc", &c, err, sizeof err), TY_STORAGE_OK);
  CHECK(c.nedits == 2 && memcmp(c.edits, all, sizeof all[0] * 2) == 0);
  ty_storage_world_free(&c);

  /* save_meta creates a world it does not know yet, with an empty log plus what it appends. */
  ty_storage_world fresh = sample("fresh", 40, NULL, 0);
  CHECK_EQ_INT(ty_storage_save_meta(s, &fresh, &one, 1, err, sizeof err), TY_STORAGE_OK);
  CHECK_EQ_INT(ty_storage_load(s, "fresh", &c, err, sizeof err), TY_STORAGE_OK);
  CHECK(c.nedits == 1 && c.edits[0].type == 5);
  ty_storage_world_free(&c);

  /* No such world: refused with a message, nothing written; delete takes the journal too. */
  err[0] = 0;
  CHECK_EQ_INT(ty_storage_append_edits(s, "nope", &one, 1, err, sizeof err), TY_STORAGE_MISSING);
  CHECK(strstr(err, "no world") != NULL);
  CHECK_EQ_INT(ty_storage_compact(s, "nope", err, sizeof err), TY_STORAGE_MISSING);
  CHECK_EQ_INT(ty_storage_delete(s, "fresh", err, sizeof err), TY_STORAGE_OK);
  CHECK_EQ_INT(query_int(p, "SELECT count(*) FROM world_journal"), 0);
  ty_storage_world_free(&a);
  ty_storage_world_free(&b);
  ty_storage_close(s);
}

/* Queued saves: written in order by the writer thread, seen by the next load (which waits for
 * them), a failure returned by the next flush (once), the queue bounded, close flushing. */
static void test_queued_saves(void) {
  const char *p = path_in("queued.sqlite");
  char err[512];
  ty_storage *s = ty_storage_open(p, err, sizeof err);
  CHECK(s != NULL);
  if (!s) return;
  enum { N = 4000 };
  static ty_storage_edit all[N], scratch[N];
  uint32_t r = 11;
  for (uint32_t i = 0; i < N; i++) {
    r = r * 1103515245u + 12345u;
    all[i] = (ty_storage_edit){(int32_t)(r >> 8 & 63), (int32_t)(r >> 16 & 7), (int32_t)(r >> 24 & 31), (int32_t)(i & 255)};
  }
  ty_storage_world q = sample("q", 10, all, 1000), full = sample("full", 10, all, N);
  CHECK_EQ_INT(ty_storage_save(s, &q, err, sizeof err), TY_STORAGE_OK);
  CHECK_EQ_INT(ty_storage_save(s, &full, err, sizeof err), TY_STORAGE_OK);
  /* The queue copies: the caller's buffer is overwritten as soon as each call returns. */
  memcpy(scratch, all + 1000, sizeof all[0] * 1000);
  CHECK_EQ_INT(ty_storage_queue_append_edits(s, "q", scratch, 1000, err, sizeof err), TY_STORAGE_OK);
  memset(scratch, 0x7f, sizeof scratch);
  q.edits = NULL, q.nedits = 0;
  q.last_played_at = 20;
  memcpy(scratch, all + 2000, sizeof all[0] * 2000);
  CHECK_EQ_INT(ty_storage_queue_save_meta(s, &q, scratch, 1500, err, sizeof err), TY_STORAGE_OK);
  CHECK_EQ_INT(ty_storage_queue_save_meta(s, &q, scratch + 1500, 500, err, sizeof err), TY_STORAGE_OK);
  memset(scratch, 0x7f, sizeof scratch);
  /* A load waits for them: the same log as the full save, in the same order. */
  ty_storage_world a, b;
  CHECK_EQ_INT(ty_storage_load(s, "q", &a, err, sizeof err), TY_STORAGE_OK);
  CHECK_EQ_INT(ty_storage_pending(s), 0);
  CHECK_EQ_INT(ty_storage_load(s, "full", &b, err, sizeof err), TY_STORAGE_OK);
  CHECK(same_edits(&a, &b));
  CHECK_NEAR(a.last_played_at, 20, 0);
  CHECK(a.inventory.nhotbar == 9 && a.screenshot_len == sizeof png && strcmp(a.game_mode, "survival") == 0);
  CHECK_EQ_INT(ty_storage_flush(s, err, sizeof err), TY_STORAGE_OK);
  ty_storage_world_free(&a);
  ty_storage_world_free(&b);

  /* A record refused without the database is refused at once, nothing queued. */
  ty_storage_world newer = sample("q", 30, NULL, 0);
  newer.version = TY_STORAGE_FORMAT_VERSION + 1;
  CHECK_EQ_INT(ty_storage_queue_save_meta(s, &newer, NULL, 0, err, sizeof err), TY_STORAGE_FAILED);
  CHECK(strstr(err, "newer") != NULL);

  /* Failing jobs: no such world, and a world deleted (by another handle) before its job ran.
   * Each call returns OK; the next flush returns the first failure, then it is cleared. */
  ty_storage_edit one = {1, 2, 3, 4};
  ty_storage_world doomed = sample("doomed", 5, NULL, 0);
  CHECK_EQ_INT(ty_storage_save(s, &doomed, err, sizeof err), TY_STORAGE_OK);
  ty_storage *other = ty_storage_open(p, err, sizeof err);
  CHECK(other != NULL);
  CHECK_EQ_INT(ty_storage_delete(other, "doomed", err, sizeof err), TY_STORAGE_OK);
  ty_storage_close(other);
  CHECK_EQ_INT(ty_storage_queue_append_edits(s, "doomed", &one, 1, err, sizeof err), TY_STORAGE_OK);
  CHECK_EQ_INT(ty_storage_queue_append_edits(s, "nope", &one, 1, err, sizeof err), TY_STORAGE_OK);
  CHECK_EQ_INT(ty_storage_queue_append_edits(s, "q", &one, 1, err, sizeof err), TY_STORAGE_OK); /* still written */
  err[0] = 0;
  CHECK_EQ_INT(ty_storage_flush(s, err, sizeof err), TY_STORAGE_FAILED);
  CHECK(strstr(err, "no world with id doomed") != NULL);
  CHECK(!ty_storage_last_error(s, err, sizeof err));
  CHECK_EQ_INT(ty_storage_flush(s, err, sizeof err), TY_STORAGE_OK);
  CHECK_EQ_INT(ty_storage_queue_append_edits(s, "nope", &one, 1, err, sizeof err), TY_STORAGE_OK);
  while (ty_storage_pending(s)) usleep(1000);
  CHECK(ty_storage_last_error(s, err, sizeof err) && strstr(err, "nope") != NULL);
  CHECK_EQ_INT(ty_storage_flush(s, err, sizeof err), TY_STORAGE_FAILED);

  /* Many jobs, faster than the disk: the queue never holds more than TY_STORE_QUEUE_JOBS,
   * every one is written, in order (the later edit of a block wins). */
  enum { MANY = 300 };
  uint32_t most = 0;
  for (int32_t i = 0; i < MANY; i++) {
    ty_storage_edit e = {100 + i % 50, 1, 1, i};
    CHECK_EQ_INT(ty_storage_queue_append_edits(s, "q", &e, 1, err, sizeof err), TY_STORAGE_OK);
    uint32_t n = ty_storage_pending(s);
    if (n > most) most = n;
  }
  CHECK(most <= TY_STORE_QUEUE_JOBS);
  /* Close flushes: a fresh handle sees every job. */
  ty_storage_close(s);
  s = ty_storage_open(p, err, sizeof err);
  CHECK(s != NULL);
  if (!s) return;
  CHECK_EQ_INT(query_int(p, "SELECT count(*) FROM world_journal WHERE world_id = 'q'"), 3 + 1 + MANY);
  CHECK_EQ_INT(ty_storage_load(s, "q", &a, err, sizeof err), TY_STORAGE_OK);
  int found = 0;
  for (uint32_t i = 0; i < a.nedits; i++)
    if (a.edits[i].x >= 100 && a.edits[i].x < 150 && a.edits[i].y == 1 && a.edits[i].z == 1) {
      found++;
      CHECK_EQ_INT(a.edits[i].type, MANY - 50 + (a.edits[i].x - 100));
    }
  CHECK_EQ_INT(found, 50);
  ty_storage_world_free(&a);
  ty_storage_close(s);

  /* ":memory:" writes queued saves at once; failures still come back from flush. */
  ty_storage *m = ty_storage_open(":memory:", err, sizeof err);
  CHECK(m != NULL);
  if (!m) return;
  ty_storage_world mw = sample("m", 1, NULL, 0);
  CHECK_EQ_INT(ty_storage_queue_save_meta(m, &mw, &one, 1, err, sizeof err), TY_STORAGE_OK);
  CHECK_EQ_INT(ty_storage_queue_append_edits(m, "nope", &one, 1, err, sizeof err), TY_STORAGE_OK);
  CHECK_EQ_INT(ty_storage_flush(m, err, sizeof err), TY_STORAGE_FAILED);
  CHECK_EQ_INT(ty_storage_load(m, "m", &a, err, sizeof err), TY_STORAGE_OK);
  CHECK(a.nedits == 1 && a.edits[0].type == 4);
  ty_storage_world_free(&a);
  ty_storage_close(m);
}

/* Opening must fail with a message and leave the file exactly as it was. */
static void check_refused(const char *p, const char *expect) {
  size_t n0, n1;
  char *before = read_all(p, &n0);
  char err[512] = "";
  ty_storage *s = ty_storage_open(p, err, sizeof err);
  CHECK(s == NULL);
  ty_storage_close(s);
  CHECK(strstr(err, expect) != NULL);
  char *after = read_all(p, &n1);
  CHECK(before && after && n0 == n1 && memcmp(before, after, n0) == 0);
  free(before);
  free(after);
}

static void test_refuses_and_leaves_untouched(void) {
  char err[512];
  /* not sqlite at all */
  const char *text = path_in("notes.txt");
  write_all(text, "hello, I am not a database\n", 27);
  check_refused(text, "not a tycho store");
  /* another program's sqlite file */
  const char *other = path_in("other.sqlite");
  sql(other, "CREATE TABLE t (x); INSERT INTO t VALUES (1);");
  check_refused(other, "not a tycho store");
  /* written by a newer tycho */
  const char *newer = path_in("newer.sqlite");
  ty_storage_close(ty_storage_open(newer, err, sizeof err));
  sql(newer, "PRAGMA journal_mode = DELETE; PRAGMA user_version = 99;");
  check_refused(newer, "newer tycho");
  /* a store cut short */
  const char *cut = path_in("cut.sqlite");
  ty_storage *s = ty_storage_open(cut, err, sizeof err);
  ty_storage_edit edits[3000];
  for (int i = 0; i < 3000; i++) edits[i] = (ty_storage_edit){i, 1, 2, 3};
  for (int i = 0; i < 20; i++) {
    char id[16];
    snprintf(id, sizeof id, "w%d", i);
    ty_storage_world w = sample(id, i, edits, 3000);
    ty_storage_save(s, &w, err, sizeof err);
  }
  ty_storage_close(s); /* checkpoints the WAL into the file */
  size_t n;
  char *whole = read_all(cut, &n);
  CHECK(n > 8192);
  write_all(cut, whole, n / 2);
  free(whole);
  check_refused(cut, "damaged");
  /* a record of a newer format is refused, on save and on import */
  s = ty_storage_open(path_in("fmt.sqlite"), err, sizeof err);
  ty_storage_world future = sample("future", 1, NULL, 0);
  future.version = TY_STORAGE_FORMAT_VERSION + 1;
  CHECK_EQ_INT(ty_storage_save(s, &future, err, sizeof err), TY_STORAGE_FAILED);
  CHECK(strstr(err, "newer") != NULL);
  const char *fj = path_in("future.json");
  const char *json = "{\"id\":\"f\",\"name\":\"F\",\"seed\":1,\"createdAt\":1,\"lastPlayedAt\":1,\"edits\":[],"
                     "\"player\":{\"x\":0,\"y\":0,\"z\":0,\"yaw\":0,\"pitch\":0},\"version\":99}";
  write_all(fj, json, strlen(json));
  char id[TY_STORAGE_ID_SIZE];
  CHECK_EQ_INT(ty_storage_import(s, fj, id, err, sizeof err), TY_STORAGE_FAILED);
  ty_storage_world w;
  CHECK_EQ_INT(ty_storage_load(s, "f", &w, err, sizeof err), TY_STORAGE_MISSING);
  ty_storage_close(s);
}

static void test_export_import(void) {
  char err[512];
  ty_storage *s = ty_storage_open(path_in("ex.sqlite"), err, sizeof err);
  CHECK(s != NULL);
  if (!s) return;
  ty_storage_edit edits[] = {{1, 2, 3, 4}, {-5, 6, -7, 0}};
  ty_storage_world w = sample("exported", 77, edits, 2);
  w.seed = (ty_storage_seed){.kind = TY_STORAGE_SEED_NUMBER, .number = 0.125};
  CHECK_EQ_INT(ty_storage_save(s, &w, err, sizeof err), TY_STORAGE_OK);
  const char *out = path_in("exported.json");
  write_all(out, "old content", 11);
  CHECK_EQ_INT(ty_storage_export(s, "exported", out, err, sizeof err), TY_STORAGE_OK);
  CHECK_EQ_INT(ty_storage_export(s, "missing", path_in("missing.json"), err, sizeof err), TY_STORAGE_MISSING);
  CHECK(access(path_in("missing.json"), F_OK) != 0);
  /* no temporary file is left beside it */
  DIR *d = opendir(dir);
  struct dirent *e;
  int temps = 0;
  while ((e = readdir(d)))
    if (strstr(e->d_name, ".tmp-")) temps++;
  closedir(d);
  CHECK_EQ_INT(temps, 0);
  size_t n;
  char *text = read_all(out, &n);
  CHECK(text && strstr(text, "\"name\":\"Meadow\"") && strstr(text, "data:image/png;base64,"));
  free(text);

  /* Into a second store: the same world; into the same store: a copy with a fresh id. */
  ty_storage *s2 = ty_storage_open(path_in("im.sqlite"), err, sizeof err);
  char id[TY_STORAGE_ID_SIZE];
  CHECK_EQ_INT(ty_storage_import(s2, out, id, err, sizeof err), TY_STORAGE_OK);
  CHECK(strcmp(id, "exported") == 0);
  ty_storage_world got;
  CHECK_EQ_INT(ty_storage_load(s2, "exported", &got, err, sizeof err), TY_STORAGE_OK);
  CHECK(got.seed.kind == TY_STORAGE_SEED_NUMBER && got.seed.number == 0.125);
  CHECK(got.nedits == 2 && got.edits[1].x == -5 && got.edits[1].z == -7 && got.edits[1].type == 0);
  CHECK(got.screenshot_len == sizeof png && memcmp(got.screenshot, png, sizeof png) == 0);
  CHECK(got.inventory.nhotbar == 9 && got.inventory.hotbar[8] == 9);
  CHECK(got.has_moon_phase && got.moon_phase == 3 && got.last_played_at == 77);
  CHECK(got.player.yaw == 1.5 && strcmp(got.game_mode, "survival") == 0);
  ty_storage_world_free(&got);
  CHECK_EQ_INT(ty_storage_import(s, out, id, err, sizeof err), TY_STORAGE_OK);
  CHECK(strcmp(id, "exported") != 0 && strlen(id) == 32);
  const char *bad = path_in("bad.json");
  write_all(bad, "{\"id\": 3", 8);
  CHECK_EQ_INT(ty_storage_import(s, bad, id, err, sizeof err), TY_STORAGE_FAILED);
  ty_storage_close(s2);
  ty_storage_close(s);
}

int main(void) {
  snprintf(dir, sizeof dir, "/tmp/tycho-storage-test-XXXXXX");
  if (!mkdtemp(dir)) return 1;
  RUN(test_round_trip_every_field);
  RUN(test_list_delete_and_players);
  RUN(test_migrates_schema_1);
  RUN(test_migrates_schema_3);
  RUN(test_incremental_saves);
  RUN(test_queued_saves);
  RUN(test_refuses_and_leaves_untouched);
  RUN(test_export_import);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  return check_summary();
}
