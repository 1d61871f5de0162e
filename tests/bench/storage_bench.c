/* tests/bench/storage_bench.c: engine/storage: the save of a world with 100,000 edits
 * (target <= 50 ms) and the load of one with 10,000 (target <= 100 ms), medians of --frames
 * runs (default 9), against two baselines measured in the same run on the same file system:
 * the same edits written as one indexed row each (prepared statement, one transaction, the
 * same pragmas) and the world's JSON export. Then the incremental path on the 100,000-edit
 * world: ty_storage_save_meta with 100 and 1,000 new edits (what an autosave blocks a frame
 * for; target <= 2 ms, median and worst), against its full save; a compaction; and the load
 * of 10,000 edits of which 1,000 sit in ten journal rows. */
#include "bench.h"
#include "common.h"
#include "storage/storage.h"

#include <sqlite3.h>
#include <unistd.h>

static ty_storage_edit *make_edits(uint32_t n) {
  ty_storage_edit *e = malloc(sizeof *e * n);
  uint32_t r = 12345;
  for (uint32_t i = 0; i < n; i++) {
    r = r * 1103515245u + 12345u;
    e[i] = (ty_storage_edit){(int32_t)(i % 317) - 150, (int32_t)(i / 317 % 256), (int32_t)(i / 81152) * 7 + (int32_t)(r >> 28),
                             (int32_t)(r >> 24 & 15)};
  }
  return e;
}

static ty_storage_world world_of(const char *id, ty_storage_edit *e, uint32_t n) {
  return (ty_storage_world){.id = id, .name = "bench", .game_mode = "creative", .seed = {.integer = 1},
                            .player = {64, 80, 64, 0, 0}, .sun_angle = 1, .version = TY_STORAGE_FORMAT_VERSION,
                            .edits = e, .nedits = n};
}

/* One row per edit: what a naive schema would do. */
static double rows_save(sqlite3 *db, const ty_storage_edit *e, uint32_t n) {
  double t0 = ty_now();
  sqlite3_exec(db, "BEGIN IMMEDIATE; DELETE FROM edit_rows WHERE world = 1", NULL, NULL, NULL);
  sqlite3_stmt *st;
  sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO edit_rows VALUES (1, ?, ?, ?, ?)", -1, &st, NULL);
  for (uint32_t i = 0; i < n; i++) {
    sqlite3_bind_int(st, 1, e[i].x);
    sqlite3_bind_int(st, 2, e[i].y);
    sqlite3_bind_int(st, 3, e[i].z);
    sqlite3_bind_int(st, 4, e[i].type);
    sqlite3_step(st);
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
  return ty_now() - t0;
}

int main(int argc, char **argv) {
  int runs = bench_frames(argc, argv, 9);
  char dir[] = "/tmp/tycho-storage-bench-XXXXXX";
  if (!mkdtemp(dir)) return 1;
  char path[128], rows_path[128], json_path[128];
  snprintf(path, sizeof path, "%s/worlds.sqlite", dir);
  snprintf(rows_path, sizeof rows_path, "%s/rows.sqlite", dir);
  snprintf(json_path, sizeof json_path, "%s/world.json", dir);
  char err[512];
  ty_storage *s = ty_storage_open(path, err, sizeof err);
  if (!s) return 1;
  sqlite3 *db;
  sqlite3_open(rows_path, &db);
  sqlite3_exec(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;"
                   "CREATE TABLE edit_rows (world INTEGER, x INTEGER, y INTEGER, z INTEGER, type INTEGER,"
                   " PRIMARY KEY (world, x, y, z)) WITHOUT ROWID", NULL, NULL, NULL);

  enum { BIG = 100000, SMALL = 10000 };
  ty_storage_edit *big = make_edits(BIG), *small = make_edits(SMALL);
  ty_storage_world wb = world_of("big", big, BIG), ws = world_of("small", small, SMALL);
  ty_storage_save(s, &ws, err, sizeof err);
  double *save = malloc(sizeof(double) * (size_t)runs), *rows = malloc(sizeof(double) * (size_t)runs);
  double *load = malloc(sizeof(double) * (size_t)runs), *json = malloc(sizeof(double) * (size_t)runs);
  uint32_t loaded = 0;
  for (int i = 0; i < runs; i++) {
    double t0 = ty_now();
    if (ty_storage_save(s, &wb, err, sizeof err) != TY_STORAGE_OK) return 1;
    save[i] = ty_now() - t0;
    rows[i] = rows_save(db, big, BIG);
    ty_storage_world got;
    t0 = ty_now();
    if (ty_storage_load(s, "small", &got, err, sizeof err) != TY_STORAGE_OK) return 1;
    load[i] = ty_now() - t0;
    loaded = got.nedits;
    ty_storage_world_free(&got);
    t0 = ty_now();
    if (ty_storage_export(s, "big", json_path, err, sizeof err) != TY_STORAGE_OK) return 1;
    json[i] = ty_now() - t0;
  }
  double ms = 1000.0;
  double m_save = bench_median(save, runs) * ms, m_rows = bench_median(rows, runs) * ms;
  double m_load = bench_median(load, runs) * ms, m_json = bench_median(json, runs) * ms;
  printf("storage_bench: medians of %d runs (WAL, synchronous=FULL, %s)\n", runs, dir);
  printf("  save, 100000 edits:            %8.2f ms  (target <= 50)\n", m_save);
  printf("  baseline, one row per edit:    %8.2f ms  (%.1fx slower)\n", m_rows, m_rows / m_save);
  printf("  baseline, JSON export:         %8.2f ms  (%.1fx slower)\n", m_json, m_json / m_save);
  printf("  load, %u edits:               %8.2f ms  (target <= 100)\n", loaded, m_load);

  /* Incremental saves: each batch is new blocks above the log's, as a player builds. */
  enum { SLICES = 25 };
  double inc[SLICES];
  int32_t next_y = 300;
  bool inc_ok = true;
  for (int b = 0; b < 2; b++) {
    uint32_t n = b == 0 ? 100 : 1000;
    ty_storage_edit *batch = make_edits(n);
    for (int i = 0; i < SLICES; i++) {
      for (uint32_t k = 0; k < n; k++) batch[k].y = next_y;
      next_y++;
      double t0 = ty_now();
      if (ty_storage_save_meta(s, &wb, batch, n, err, sizeof err) != TY_STORAGE_OK) return 1;
      inc[i] = ty_now() - t0;
    }
    double worst = 0;
    for (int i = 0; i < SLICES; i++) worst = inc[i] > worst ? inc[i] : worst;
    double m_inc = bench_median(inc, SLICES) * ms;
    printf("  incremental save, %4u new:    %8.3f ms  (target <= 2; worst of %d %.2f ms; full save %.0fx slower)\n", n,
           m_inc, SLICES, worst * ms, m_save / m_inc);
    inc_ok = inc_ok && m_inc <= 2;
    free(batch);
  }
  double t0 = ty_now();
  if (ty_storage_compact(s, "big", err, sizeof err) != TY_STORAGE_OK) return 1;
  printf("  compaction of the above:       %8.2f ms  (on quit)\n", (ty_now() - t0) * ms);
  ty_storage_world wj = world_of("journaled", small, SMALL - 1000);
  ty_storage_save(s, &wj, err, sizeof err);
  for (int i = 0; i < 10; i++)
    if (ty_storage_append_edits(s, "journaled", small + SMALL - 1000 + i * 100, 100, err, sizeof err) != TY_STORAGE_OK)
      return 1;
  for (int i = 0; i < runs; i++) {
    ty_storage_world got;
    t0 = ty_now();
    if (ty_storage_load(s, "journaled", &got, err, sizeof err) != TY_STORAGE_OK) return 1;
    load[i] = ty_now() - t0;
    loaded = got.nedits;
    ty_storage_world_free(&got);
  }
  double m_jload = bench_median(load, runs) * ms;
  printf("  load, %u edits, 10 appends:   %8.2f ms  (target <= 100)\n", loaded, m_jload);
  ty_storage_close(s);
  sqlite3_close(db);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) return 1;
  free(big), free(small), free(save), free(rows), free(load), free(json);
  return m_save <= 50 && m_load <= 100 && m_jload <= 100 && inc_ok ? 0 : 1;
}
