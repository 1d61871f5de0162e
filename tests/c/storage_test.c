/* tests/c/storage_test.c: engine/storage: every SavedWorld field round trips, list order,
 * delete, per-player records, the schema 1 -> 2 migration, refusal of newer schemas and
 * records, of files that are not stores or are truncated (left byte-identical), and the
 * atomic JSON export/import. */
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
  RUN(test_refuses_and_leaves_untouched);
  RUN(test_export_import);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  return check_summary();
}
