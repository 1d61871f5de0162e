/* engine/storage/storage.c: the world store over sqlite (see storage.h).
 *
 * Schema 2: `worlds` holds one row per SavedWorld; `world_edits` one row per world whose
 * `data` packs its deduplicated edit log as little-endian int32 quads (x, y, z, type); `players`
 * one row per (world, playerKey). The edit log is one blob rather than one row per edit
 * because a save rewrites it whole: one 1.6 MB row for 100,000 edits takes a few ms where
 * 100,000 indexed rows take ~100 ms (tests/bench/storage_bench.c measures both).
 * Schema 1 was the seed's shape, one JSON document per world; opening such a store upgrades it.
 *
 * Schema 4 adds `world_journal`: an incremental save (save_meta, append_edits) adds one row
 * per call holding only the edits since the last save, packed the same way, so its cost
 * follows the edits it writes and not the size of the log. A load reads the packed log and
 * then the journal rows in order, merging later edits of a block into the earlier one's
 * place; a full save or a compaction rewrites the packed log and empties the journal. */
#include "storage/storage.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <string.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Marks a file as a tycho store ("TYCH"), so that another program's sqlite file is refused. */
#define STORE_APPLICATION_ID 0x54594348
#define BUSY_TIMEOUT_MS 5000
#define EDIT_BYTES 16
/* sqlite's default auto-checkpoint size, and how far an incremental save lets the WAL grow
 * past it before it pays for a checkpoint itself (see wal_hook). */
#define WAL_CHECKPOINT_PAGES 1000
#define WAL_DEFER_PAGES 16384

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
  ST_BLOB_PUT,
  ST_BLOB_GET,
  ST_BLOB_DELETE,
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
    [ST_BLOB_PUT] = "INSERT INTO blobs (key, data, updated_at) VALUES (?1, ?2, ?3) ON CONFLICT(key) DO UPDATE "
                    "SET data = ?2, updated_at = ?3",
    [ST_BLOB_GET] = "SELECT data FROM blobs WHERE key = ?1",
    [ST_BLOB_DELETE] = "DELETE FROM blobs WHERE key = ?1",
};

/* A queued incremental save (ty_storage_queue_*): an owned copy of what the caller gave.
 * world.edits holds the edits to append (save_meta never reads a world's edit log). */
typedef struct storage_job {
  struct storage_job *next;
  bool meta; /* save_meta; else append_edits, of which only world.id and world.edits count */
  ty_storage_world world;
} storage_job;

struct ty_storage {
  sqlite3 *db;
  sqlite3_stmt *st[ST_COUNT];
  bool incremental; /* an incremental save's transaction is under way */
  char *path;       /* for the writer's own connection; NULL for ":memory:" */
  /* The writer thread, started by the first queued job. lock guards every field below;
   * wake tells the writer a job (or stop) came, done tells callers a job was written. */
  pthread_mutex_t lock;
  pthread_cond_t wake, done;
  bool started, stop;
  pthread_t thread;
  storage_job *head, *tail;
  uint32_t pending;      /* queued jobs not yet written, the one being written included */
  bool failed;           /* a queued job failed since the last flush: first_error says which */
  char first_error[512];
};

static void drain(ty_storage *s);

/* Writes the message into err and logs it under a stable name. */
static ty_storage_status fail(char *err, size_t errsz, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static ty_storage_status fail(char *err, size_t errsz, const char *name, const char *fmt, ...) {
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
  if (!s) return NULL;
  size_t n = strlen(s) + 1;
  char *p = TY_MALLOC(n);
  TY_ASSERT(p);
  memcpy(p, s, n);
  return p;
}

static void *dup_mem(const void *src, size_t n) {
  if (!src || n == 0) return NULL;
  void *p = TY_MALLOC(n);
  TY_ASSERT(p);
  memcpy(p, src, n);
  return p;
}

/* ---- ids and time ---- */

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

double ty_storage_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (double)ts.tv_sec * 1000.0 + (double)(ts.tv_nsec / 1000000);
}

/* ---- freeing ---- */

static void inventory_free(ty_storage_inventory *inv) {
  TY_FREE((void *)inv->stacks);
  TY_FREE((void *)inv->hotbar);
  memset(inv, 0, sizeof *inv);
}

void ty_storage_world_free(ty_storage_world *w) {
  if (!w) return;
  TY_FREE((void *)w->id);
  TY_FREE((void *)w->name);
  TY_FREE((void *)w->game_mode);
  TY_FREE((void *)w->seed.text);
  TY_FREE((void *)w->screenshot);
  TY_FREE((void *)w->edits);
  inventory_free(&w->inventory);
  memset(w, 0, sizeof *w);
}

void ty_storage_worlds_free(ty_storage_world *worlds, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) ty_storage_world_free(&worlds[i]);
  TY_FREE(worlds);
}

void ty_storage_player_free(ty_storage_player *p) {
  if (p) inventory_free(&p->inventory);
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

/* ---- JSON: the seed's SavedWorld shape, and the inventory column ---- */

static json_t *number_json(double v) {
  if (v == floor(v) && fabs(v) < 9007199254740992.0) return json_integer((json_int_t)v);
  return json_real(v);
}

static json_t *inventory_to_json(const ty_storage_inventory *inv) {
  json_t *stacks = json_array(), *hotbar = json_array();
  for (uint32_t i = 0; i < inv->nstacks; i++)
    json_array_append_new(stacks, json_pack("{s:I, s:I}", "blockType", (json_int_t)inv->stacks[i].block_type,
                                            "count", (json_int_t)inv->stacks[i].count));
  for (uint32_t i = 0; i < inv->nhotbar; i++) json_array_append_new(hotbar, json_integer(inv->hotbar[i]));
  return json_pack("{s:o, s:o}", "stacks", stacks, "hotbar", hotbar);
}

static bool json_int32(json_t *v, int32_t *out) {
  double d;
  if (json_is_integer(v)) d = (double)json_integer_value(v);
  else if (json_is_real(v)) d = json_real_value(v);
  else return false;
  if (d != floor(d) || d < -2147483648.0 || d > 2147483647.0) return false;
  *out = (int32_t)d;
  return true;
}

static bool json_num(json_t *v, double *out) {
  if (!json_is_number(v)) return false;
  *out = json_number_value(v);
  return isfinite(*out);
}

/* Parses {stacks = [{blockType, count}], hotbar = [types]} into *inv (owned). */
static bool inventory_from_json(json_t *j, ty_storage_inventory *inv, char *why, size_t whysz) {
  memset(inv, 0, sizeof *inv);
  json_t *stacks = json_object_get(j, "stacks"), *hotbar = json_object_get(j, "hotbar");
  if (!json_is_object(j) || (stacks && !json_is_array(stacks)) || (hotbar && !json_is_array(hotbar))) {
    snprintf(why, whysz, "inventory must be {stacks = [...], hotbar = [...]}");
    return false;
  }
  size_t ns = json_array_size(stacks), nh = json_array_size(hotbar);
  ty_storage_stack *s = ns ? TY_MALLOC(sizeof *s * ns) : NULL;
  int32_t *h = nh ? TY_MALLOC(sizeof *h * nh) : NULL;
  inv->present = true;
  inv->stacks = s, inv->nstacks = (uint32_t)ns;
  inv->hotbar = h, inv->nhotbar = (uint32_t)nh;
  for (size_t i = 0; i < ns; i++) {
    json_t *st = json_array_get(stacks, i);
    if (!json_int32(json_object_get(st, "blockType"), &s[i].block_type) ||
        !json_int32(json_object_get(st, "count"), &s[i].count)) {
      snprintf(why, whysz, "inventory.stacks[%zu] needs integer blockType and count", i + 1);
      inventory_free(inv);
      return false;
    }
  }
  for (size_t i = 0; i < nh; i++) {
    json_t *v = json_array_get(hotbar, i);
    if (json_is_null(v)) h[i] = 0; /* an empty slot */
    else if (!json_int32(v, &h[i])) {
      snprintf(why, whysz, "inventory.hotbar[%zu] must be an integer block type", i + 1);
      inventory_free(inv);
      return false;
    }
  }
  return true;
}

static char *inventory_text(const ty_storage_inventory *inv) {
  if (!inv->present) return NULL;
  json_t *j = inventory_to_json(inv);
  char *text = json_dumps(j, JSON_COMPACT);
  json_decref(j);
  return text;
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static char *base64_encode(const unsigned char *src, size_t n, const char *prefix) {
  size_t pl = strlen(prefix), len = pl + (n + 2) / 3 * 4;
  char *out = TY_MALLOC(len + 1), *o = out + pl;
  TY_ASSERT(out);
  memcpy(out, prefix, pl);
  for (size_t i = 0; i < n; i += 3) {
    uint32_t v = (uint32_t)src[i] << 16 | (i + 1 < n ? (uint32_t)src[i + 1] << 8 : 0) | (i + 2 < n ? src[i + 2] : 0);
    *o++ = b64[v >> 18 & 63];
    *o++ = b64[v >> 12 & 63];
    *o++ = i + 1 < n ? b64[v >> 6 & 63] : '=';
    *o++ = i + 2 < n ? b64[v & 63] : '=';
  }
  *o = 0;
  return out;
}

/* Decodes base64 (padding optional); NULL on a bad character. */
static unsigned char *base64_decode(const char *s, size_t *n) {
  size_t len = strlen(s);
  unsigned char *out = TY_MALLOC(len / 4 * 3 + 3);
  TY_ASSERT(out);
  uint32_t acc = 0;
  int bits = 0;
  size_t k = 0;
  for (size_t i = 0; i < len && s[i] != '='; i++) {
    const char *p = s[i] ? strchr(b64, s[i]) : NULL;
    if (!p) {
      TY_FREE(out);
      return NULL;
    }
    acc = acc << 6 | (uint32_t)(p - b64);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[k++] = (unsigned char)(acc >> bits);
    }
  }
  *n = k;
  return out;
}

#define PNG_DATA_URL "data:image/png;base64,"

char *ty_storage_world_to_json(const ty_storage_world *w) {
  json_t *edits = json_array();
  for (uint32_t i = 0; i < w->nedits; i++)
    json_array_append_new(edits, json_pack("{s:i, s:i, s:i, s:i}", "x", w->edits[i].x, "y", w->edits[i].y, "z",
                                           w->edits[i].z, "type", w->edits[i].type));
  json_t *seed = w->seed.kind == TY_STORAGE_SEED_TEXT      ? json_string(w->seed.text ? w->seed.text : "")
                 : w->seed.kind == TY_STORAGE_SEED_INTEGER ? json_integer((json_int_t)w->seed.integer)
                                                           : json_real(w->seed.number);
  json_t *j = json_pack("{s:s, s:s, s:o, s:s, s:o, s:o, s:o, s:{s:o, s:o, s:o, s:o, s:o}, s:o, s:I}", "id", w->id,
                        "name", w->name, "seed", seed, "gameMode", w->game_mode, "createdAt",
                        number_json(w->created_at), "lastPlayedAt", number_json(w->last_played_at), "edits", edits,
                        "player", "x", number_json(w->player.x), "y", number_json(w->player.y), "z",
                        number_json(w->player.z), "yaw", number_json(w->player.yaw), "pitch",
                        number_json(w->player.pitch), "sunAngle", number_json(w->sun_angle), "version",
                        (json_int_t)w->version);
  if (!j) return NULL;
  if (w->has_moon_phase) json_object_set_new(j, "moonPhase", number_json(w->moon_phase));
  if (w->inventory.present) json_object_set_new(j, "inventory", inventory_to_json(&w->inventory));
  if (w->screenshot) {
    char *url = base64_encode(w->screenshot, w->screenshot_len, PNG_DATA_URL);
    json_object_set_new(j, "screenshot", json_string(url));
    TY_FREE(url);
  }
  char *text = json_dumps(j, JSON_COMPACT);
  json_decref(j);
  return text;
}

/* Older records lacked fields that format 2 has: format 1 had no gameMode, sunAngle or
 * moonPhase. Upgrading fills the seed's defaults. */
ty_storage_status ty_storage_world_from_json(const char *text, size_t len, ty_storage_world *out, char *err,
                                             size_t errsz) {
  memset(out, 0, sizeof *out);
  json_error_t je;
  json_t *j = json_loadb(text, len, 0, &je);
  if (!j) return fail(err, errsz, "storage_bad_json", "not JSON: %s (line %d)", je.text, je.line);
  char why[200] = "";
  json_t *v;
  json_t *ver = json_object_get(j, "version");
  int64_t version = 1;
  if (!json_is_object(j)) snprintf(why, sizeof why, "a world must be a JSON object");
  else if (ver && !json_is_integer(ver)) snprintf(why, sizeof why, "version must be an integer");
  if (ver && json_is_integer(ver)) version = json_integer_value(ver);
  if (!why[0] && version > TY_STORAGE_FORMAT_VERSION) {
    json_decref(j);
    return fail(err, errsz, "storage_newer_format",
                "world has format version %lld, newer than this tycho's %d: refused", (long long)version,
                TY_STORAGE_FORMAT_VERSION);
  }
  if (!why[0] && (!json_is_string(json_object_get(j, "id")) || !json_is_string(json_object_get(j, "name"))))
    snprintf(why, sizeof why, "id and name must be strings");
  if (!why[0]) {
    out->id = dup_str(json_string_value(json_object_get(j, "id")));
    out->name = dup_str(json_string_value(json_object_get(j, "name")));
    v = json_object_get(j, "gameMode");
    if (v && !json_is_string(v)) snprintf(why, sizeof why, "gameMode must be a string");
    out->game_mode = dup_str(v ? json_string_value(v) : "creative");
    v = json_object_get(j, "seed");
    if (json_is_string(v)) out->seed = (ty_storage_seed){.kind = TY_STORAGE_SEED_TEXT, .text = dup_str(json_string_value(v))};
    else if (json_is_integer(v)) out->seed = (ty_storage_seed){.kind = TY_STORAGE_SEED_INTEGER, .integer = json_integer_value(v)};
    else if (json_is_real(v)) out->seed = (ty_storage_seed){.kind = TY_STORAGE_SEED_NUMBER, .number = json_real_value(v)};
    else snprintf(why, sizeof why, "seed must be a number or a string");
  }
  if (!why[0] && (!json_num(json_object_get(j, "createdAt"), &out->created_at) ||
                  !json_num(json_object_get(j, "lastPlayedAt"), &out->last_played_at)))
    snprintf(why, sizeof why, "createdAt and lastPlayedAt must be numbers");
  json_t *p = json_object_get(j, "player");
  if (!why[0] && (!json_num(json_object_get(p, "x"), &out->player.x) || !json_num(json_object_get(p, "y"), &out->player.y) ||
                  !json_num(json_object_get(p, "z"), &out->player.z) ||
                  !json_num(json_object_get(p, "yaw"), &out->player.yaw) ||
                  !json_num(json_object_get(p, "pitch"), &out->player.pitch)))
    snprintf(why, sizeof why, "player must be {x, y, z, yaw, pitch} numbers");
  out->sun_angle = 3.14159265358979323846 * 0.3;
  if (!why[0] && (v = json_object_get(j, "sunAngle")) && !json_num(v, &out->sun_angle))
    snprintf(why, sizeof why, "sunAngle must be a number");
  if (!why[0] && (v = json_object_get(j, "moonPhase")) && !json_is_null(v)) {
    out->has_moon_phase = json_num(v, &out->moon_phase);
    if (!out->has_moon_phase) snprintf(why, sizeof why, "moonPhase must be a number");
  }
  if (!why[0] && (v = json_object_get(j, "inventory")) && !json_is_null(v))
    inventory_from_json(v, &out->inventory, why, sizeof why);
  if (!why[0] && (v = json_object_get(j, "screenshot")) && !json_is_null(v)) {
    const char *s = json_string_value(v);
    const char *comma = s ? strchr(s, ',') : NULL;
    if (s && strncmp(s, "data:", 5) == 0 && comma) s = comma + 1; /* a data: URL, as the seed kept it */
    size_t n = 0;
    out->screenshot = s ? base64_decode(s, &n) : NULL;
    out->screenshot_len = n;
    if (!out->screenshot) snprintf(why, sizeof why, "screenshot must be base64 PNG bytes or a data: URL");
  }
  json_t *edits = json_object_get(j, "edits");
  if (!why[0] && edits && !json_is_array(edits)) snprintf(why, sizeof why, "edits must be an array");
  if (!why[0] && json_array_size(edits) > 0) {
    size_t n = json_array_size(edits);
    ty_storage_edit *e = TY_MALLOC(sizeof *e * n);
    TY_ASSERT(e);
    out->edits = e;
    out->nedits = (uint32_t)n;
    for (size_t i = 0; i < n && !why[0]; i++) {
      json_t *ed = json_array_get(edits, i);
      if (!json_int32(json_object_get(ed, "x"), &e[i].x) || !json_int32(json_object_get(ed, "y"), &e[i].y) ||
          !json_int32(json_object_get(ed, "z"), &e[i].z) || !json_int32(json_object_get(ed, "type"), &e[i].type))
        snprintf(why, sizeof why, "edits[%zu] must be {x, y, z, type} integers", i + 1);
    }
  }
  out->version = TY_STORAGE_FORMAT_VERSION;
  json_decref(j);
  if (why[0]) {
    ty_storage_world_free(out);
    return fail(err, errsz, "storage_bad_record", "not a saved world: %s", why);
  }
  return TY_STORAGE_OK;
}

/* ---- sqlite helpers ---- */

static ty_storage_status sql_fail(sqlite3 *db, char *err, size_t errsz, const char *what) {
  return fail(err, errsz, "storage_sql", "%s: %s", what, sqlite3_errmsg(db));
}

static void bind_text(sqlite3_stmt *st, int i, const char *s) { sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC); }

static char *col_str(sqlite3_stmt *st, int i) {
  const unsigned char *s = sqlite3_column_text(st, i);
  return s ? dup_str((const char *)s) : NULL;
}

static bool exec_sql(sqlite3 *db, const char *sql, char *err, size_t errsz) {
  char *msg = NULL;
  if (sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK) return true;
  fail(err, errsz, "storage_sql", "%s", msg ? msg : sqlite3_errmsg(db));
  sqlite3_free(msg);
  return false;
}

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

/* ---- writing a world (inside a transaction) ---- */

/* Writes every field of w but the edit log (the worlds row). */
/* What can be refused without the database; a queued save checks it before queueing. */
static ty_storage_status check_world(const ty_storage_world *w, char *err, size_t errsz) {
  if (!w->id || !w->name || !w->game_mode)
    return fail(err, errsz, "storage_bad_record", "a world needs an id, a name and a gameMode");
  if (w->version > TY_STORAGE_FORMAT_VERSION)
    return fail(err, errsz, "storage_newer_format", "world %s has format version %lld, newer than this tycho's %d: refused",
                w->id, (long long)w->version, TY_STORAGE_FORMAT_VERSION);
  return TY_STORAGE_OK;
}

static ty_storage_status write_world_row(ty_storage *s, const ty_storage_world *w, char *err, size_t errsz) {
  if (check_world(w, err, errsz) != TY_STORAGE_OK) return TY_STORAGE_FAILED;
  sqlite3_stmt *st = s->st[ST_WORLD_UPSERT];
  char *inv = inventory_text(&w->inventory);
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
  if (rc != SQLITE_DONE) return sql_fail(s->db, err, errsz, "saving a world");
  return TY_STORAGE_OK;
}

/* Packs edits (deduplicated) into one row of the statement ST_EDITS_REPLACE or
 * ST_JOURNAL_APPEND, both bound as (world id, count, data). */
static int write_packed(ty_storage *s, int which, const char *id, const ty_storage_edit *edits, uint32_t n) {
  uint32_t kept;
  unsigned char *blob = pack_edits(edits, n, &kept);
  sqlite3_stmt *st = s->st[which];
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
static ty_storage_status write_edit_log(ty_storage *s, const char *id, const ty_storage_edit *edits, uint32_t n,
                                        char *err, size_t errsz) {
  if (write_packed(s, ST_EDITS_REPLACE, id, edits, n) != SQLITE_DONE)
    return sql_fail(s->db, err, errsz, "saving an edit log");
  sqlite3_stmt *st = s->st[ST_JOURNAL_CLEAR];
  bind_text(st, 1, id);
  int rc = sqlite3_step(st);
  sqlite3_reset(st);
  if (rc != SQLITE_DONE) return sql_fail(s->db, err, errsz, "emptying an edit journal");
  return TY_STORAGE_OK;
}

/* Adds one journal row; a world that does not exist is TY_STORAGE_MISSING. */
static ty_storage_status append_inner(ty_storage *s, const char *id, const ty_storage_edit *edits, uint32_t n,
                                      char *err, size_t errsz) {
  if (n == 0) return TY_STORAGE_OK;
  int rc = write_packed(s, ST_JOURNAL_APPEND, id, edits, n);
  if (rc == SQLITE_CONSTRAINT_FOREIGNKEY) {
    fail(err, errsz, "storage_no_world", "no world with id %s", id);
    return TY_STORAGE_MISSING;
  }
  if (rc != SQLITE_DONE) return sql_fail(s->db, err, errsz, "appending edits");
  return TY_STORAGE_OK;
}

static ty_storage_status save_inner(ty_storage *s, const ty_storage_world *w, char *err, size_t errsz) {
  ty_storage_status st = write_world_row(s, w, err, errsz);
  return st != TY_STORAGE_OK ? st : write_edit_log(s, w->id, w->edits, w->nedits, err, errsz);
}

static bool begin(ty_storage *s, char *err, size_t errsz) { return exec_sql(s->db, "BEGIN IMMEDIATE", err, errsz); }

static ty_storage_status finish(ty_storage *s, ty_storage_status st, char *err, size_t errsz) {
  if (st != TY_STORAGE_OK) {
    sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    return st;
  }
  if (!exec_sql(s->db, "COMMIT", err, errsz)) {
    sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    return TY_STORAGE_FAILED;
  }
  return st;
}

/* An incremental save's transaction commits without fsync (synchronous=NORMAL for that one
 * commit): a game makes one every few seconds on a frame, and the fsync alone costs more than
 * the frame budget (~4 ms on an ext4 VM disk, against ~0.3 ms without). WAL still makes it
 * atomic and keeps it through a crash of the process (kill -9 included); it reaches the disk
 * at the next checkpoint or fsynced commit (a full save, a compaction). */
static bool begin_incremental(ty_storage *s, char *err, size_t errsz) {
  s->incremental = true;
  return exec_sql(s->db, "PRAGMA synchronous = NORMAL", err, errsz) && begin(s, err, errsz);
}

static ty_storage_status finish_incremental(ty_storage *s, ty_storage_status st, char *err, size_t errsz) {
  st = finish(s, st, err, errsz);
  sqlite3_exec(s->db, "PRAGMA synchronous = FULL", NULL, NULL, NULL);
  s->incremental = false;
  return st;
}

/* sqlite's auto-checkpoint (copy the WAL into the database once it holds 1000 pages), except
 * that an incremental save leaves it to the next other write (a full save, a compaction)
 * until the WAL reaches WAL_DEFER_PAGES: a checkpoint fsyncs twice, several ms that would
 * land on whichever frame happened to save. */
static int wal_hook(void *user, sqlite3 *db, const char *name, int pages) {
  ty_storage *s = user;
  if (pages >= WAL_CHECKPOINT_PAGES && (!s->incremental || pages >= WAL_DEFER_PAGES))
    sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
  return SQLITE_OK;
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
    /* 2 -> 3: named blobs (a server room's CRDT state) */
    "CREATE TABLE blobs (key TEXT PRIMARY KEY, data BLOB NOT NULL, updated_at REAL NOT NULL) WITHOUT ROWID;",
    /* 3 -> 4: the edit journal of incremental saves; one row per append, in seq order */
    "CREATE TABLE world_journal (world_id TEXT NOT NULL REFERENCES worlds (id) ON DELETE CASCADE,"
    " seq INTEGER NOT NULL, count INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (world_id, seq))"
    " WITHOUT ROWID;",
};

static bool prepare_all(ty_storage *s, char *err, size_t errsz) {
  for (int i = 0; i < ST_COUNT; i++)
    if (sqlite3_prepare_v3(s->db, statements[i], -1, SQLITE_PREPARE_PERSISTENT, &s->st[i], NULL) != SQLITE_OK) {
      sql_fail(s->db, err, errsz, "preparing statements");
      return false;
    }
  return true;
}

static void finalize_all(ty_storage *s) {
  for (int i = 0; i < ST_COUNT; i++) {
    sqlite3_finalize(s->st[i]);
    s->st[i] = NULL;
  }
}

static bool migrate_v1_rows(ty_storage *s, char *err, size_t errsz) {
  if (!prepare_all(s, err, errsz)) return false;
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(s->db, "SELECT id, json FROM worlds_v1", -1, &st, NULL) != SQLITE_OK)
    return sql_fail(s->db, err, errsz, "reading schema 1 worlds") == TY_STORAGE_OK;
  bool ok = true;
  while (ok && sqlite3_step(st) == SQLITE_ROW) {
    ty_storage_world w;
    const char *text = (const char *)sqlite3_column_text(st, 1);
    char why[300];
    if (ty_storage_world_from_json(text ? text : "", (size_t)sqlite3_column_bytes(st, 1), &w, why, sizeof why) !=
        TY_STORAGE_OK) {
      fail(err, errsz, "storage_migration", "world %s cannot be upgraded: %s", sqlite3_column_text(st, 0), why);
      ok = false;
      break;
    }
    ok = save_inner(s, &w, err, errsz) == TY_STORAGE_OK;
    ty_storage_world_free(&w);
  }
  sqlite3_finalize(st);
  finalize_all(s);
  return ok && exec_sql(s->db, "DROP TABLE worlds_v1", err, errsz);
}

/* Brings the schema from whatever version the file holds to the current one, in one transaction. */
static bool migrate(ty_storage *s, char *err, size_t errsz) {
  if (!begin(s, err, errsz)) return false;
  bool ok;
  int64_t v = pragma_int(s->db, "PRAGMA user_version", &ok);
  if (ok && v > TY_STORAGE_SCHEMA_VERSION) { /* another process upgraded it meanwhile */
    fail(err, errsz, "storage_newer_schema", "the store has schema %lld, newer than this tycho's %d", (long long)v,
         TY_STORAGE_SCHEMA_VERSION);
    ok = false;
  }
  bool v1_rows = false;
  for (; ok && v < TY_STORAGE_SCHEMA_VERSION; v++) {
    ok = exec_sql(s->db, migrations[v], err, errsz);
    if (v == 1) v1_rows = true;
  }
  /* Schema 1's rows move once every table exists: migrate_v1_rows prepares all statements. */
  if (ok && v1_rows) ok = migrate_v1_rows(s, err, errsz);
  if (ok) {
    char sql[96];
    snprintf(sql, sizeof sql, "PRAGMA application_id = %d; PRAGMA user_version = %d", STORE_APPLICATION_ID,
             TY_STORAGE_SCHEMA_VERSION);
    ok = exec_sql(s->db, sql, err, errsz);
  }
  return finish(s, ok ? TY_STORAGE_OK : TY_STORAGE_FAILED, err, errsz) == TY_STORAGE_OK;
}

/* Reads the first bytes without sqlite, so that a file that is not a database is never
 * handed to it. 1: an sqlite file; 0: absent or empty (a new store); -1: something else. */
static int sniff(const char *path, char *err, size_t errsz) {
  struct stat stt;
  if (stat(path, &stt) != 0) return errno == ENOENT ? 0 : (fail(err, errsz, "storage_open", "%s: %s", path, strerror(errno)), -1);
  if (S_ISDIR(stt.st_mode)) return fail(err, errsz, "storage_not_a_store", "%s is a folder, not a tycho store", path), -1;
  if (stt.st_size == 0) return 0;
  char head[100];
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fail(err, errsz, "storage_open", "%s: %s", path, strerror(errno)), -1;
  ssize_t n = read(fd, head, sizeof head);
  close(fd);
  if (n < (ssize_t)sizeof head || memcmp(head, "SQLite format 3", 16) != 0)
    return fail(err, errsz, "storage_not_a_store", "%s is not a tycho store (not an sqlite database)", path), -1;
  return 1;
}

ty_storage *ty_storage_open(const char *path, char *err, size_t errsz) {
  TY_ASSERT(path);
  bool memory = strcmp(path, ":memory:") == 0;
  int kind = memory ? 0 : sniff(path, err, errsz);
  if (kind < 0) return NULL;
  ty_storage *s = TY_MALLOC(sizeof *s);
  TY_ASSERT(s);
  memset(s, 0, sizeof *s);
  pthread_mutex_init(&s->lock, NULL);
  pthread_cond_init(&s->wake, NULL);
  pthread_cond_init(&s->done, NULL);
  s->path = memory ? NULL : dup_str(path);
  int flags = SQLITE_OPEN_READWRITE | (kind == 0 ? SQLITE_OPEN_CREATE : 0);
  if (sqlite3_open_v2(path, &s->db, flags, NULL) != SQLITE_OK) {
    fail(err, errsz, "storage_open", "%s: %s", path, s->db ? sqlite3_errmsg(s->db) : "out of memory");
    goto refuse;
  }
  sqlite3_busy_timeout(s->db, BUSY_TIMEOUT_MS);
  sqlite3_extended_result_codes(s->db, 1);
  /* sqlite quietly opens a file it may not write (EACCES, EROFS) read-only; every save would
   * then fail. Say so now, as what it is, and leave the file alone. */
  if (!memory && sqlite3_db_readonly(s->db, "main") == 1) {
    const char *why = access(path, W_OK) != 0 ? strerror(errno) : "opened read-only";
    fail(err, errsz, "storage_read_only", "%s cannot be written (%s): a store must be writable; left as it is", path,
         why);
    goto refuse;
  }
  if (kind == 1) {
    /* Only reads until the file is known to be ours and whole: a refused file stays as it was. */
    bool ok1, ok2, ok3;
    int64_t app = pragma_int(s->db, "PRAGMA application_id", &ok1);
    int64_t ver = pragma_int(s->db, "PRAGMA user_version", &ok2);
    int64_t tables = pragma_int(s->db, "SELECT count(*) FROM sqlite_master", &ok3);
    if (!ok1 || !ok2 || !ok3) {
      int code = sqlite3_errcode(s->db) & 0xff;
      if (code == SQLITE_CANTOPEN || code == SQLITE_READONLY || code == SQLITE_PERM || code == SQLITE_AUTH)
        /* Not damage: the folder refuses the journal files (-wal, -shm) or access is denied. */
        fail(err, errsz, "storage_open", "%s cannot be opened: %s (the file and its folder must be writable); left as it is",
             path, sqlite3_errmsg(s->db));
      else fail(err, errsz, "storage_corrupt", "%s is damaged: %s", path, sqlite3_errmsg(s->db));
      goto refuse;
    }
    if (app != STORE_APPLICATION_ID && !(app == 0 && tables == 0)) {
      fail(err, errsz, "storage_not_a_store", "%s is an sqlite database but not a tycho store", path);
      goto refuse;
    }
    if (ver > TY_STORAGE_SCHEMA_VERSION) {
      fail(err, errsz, "storage_newer_schema", "%s has schema %lld, written by a newer tycho (this one reads up to %d)",
           path, (long long)ver, TY_STORAGE_SCHEMA_VERSION);
      goto refuse;
    }
    sqlite3_stmt *st;
    bool whole = false;
    if (sqlite3_prepare_v2(s->db, "PRAGMA quick_check", -1, &st, NULL) == SQLITE_OK) {
      whole = sqlite3_step(st) == SQLITE_ROW && strcmp((const char *)sqlite3_column_text(st, 0), "ok") == 0;
      sqlite3_finalize(st);
    }
    if (!whole) {
      fail(err, errsz, "storage_corrupt", "%s is damaged (truncated or overwritten): left as it is", path);
      goto refuse;
    }
  }
  /* WAL: readers never block the writer and a crash mid-save leaves the last commit intact.
   * synchronous=FULL makes each save durable at its commit, not only at the next checkpoint. */
  if (!memory && !exec_sql(s->db, "PRAGMA journal_mode = WAL", err, errsz)) goto refuse;
  sqlite3_wal_hook(s->db, wal_hook, s); /* replaces sqlite's own auto-checkpoint */
  if (!exec_sql(s->db, "PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON", err, errsz)) goto refuse;
  if (!migrate(s, err, errsz) || !prepare_all(s, err, errsz)) goto refuse;
  return s;
refuse:
  ty_storage_close(s);
  return NULL;
}

void ty_storage_close(ty_storage *s) {
  if (!s) return;
  if (s->started) { /* every queued job is written first; a failure was logged by the writer */
    pthread_mutex_lock(&s->lock);
    s->stop = true;
    pthread_cond_signal(&s->wake);
    pthread_mutex_unlock(&s->lock);
    pthread_join(s->thread, NULL);
  }
  finalize_all(s);
  sqlite3_close(s->db);
  pthread_cond_destroy(&s->done);
  pthread_cond_destroy(&s->wake);
  pthread_mutex_destroy(&s->lock);
  TY_FREE(s->path);
  TY_FREE(s);
}

/* ---- worlds ---- */

ty_storage_status ty_storage_save(ty_storage *s, const ty_storage_world *w, char *err, size_t errsz) {
  drain(s); /* after the queued saves, as if they had been made here */
  if (!begin(s, err, errsz)) return TY_STORAGE_FAILED;
  return finish(s, save_inner(s, w, err, errsz), err, errsz);
}

static bool read_inventory(sqlite3_stmt *st, int col, ty_storage_inventory *inv) {
  memset(inv, 0, sizeof *inv);
  if (sqlite3_column_type(st, col) == SQLITE_NULL) return true;
  json_t *j = json_loadb((const char *)sqlite3_column_text(st, col), (size_t)sqlite3_column_bytes(st, col), 0, NULL);
  char why[160];
  bool ok = j && inventory_from_json(j, inv, why, sizeof why);
  json_decref(j);
  return ok;
}

/* Fills w from a row of WORLD_COLUMNS. */
static ty_storage_status read_world(sqlite3_stmt *st, ty_storage_world *w, char *err, size_t errsz) {
  memset(w, 0, sizeof *w);
  w->version = sqlite3_column_int64(st, 15);
  if (w->version > TY_STORAGE_FORMAT_VERSION)
    return fail(err, errsz, "storage_newer_format", "world %s has format version %lld, newer than this tycho's %d: refused",
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
    return fail(err, errsz, "storage_corrupt", "world %s: its inventory is not readable", sqlite3_column_text(st, 0));
  }
  if (sqlite3_column_type(st, 14) != SQLITE_NULL) {
    w->screenshot_len = (size_t)sqlite3_column_bytes(st, 14);
    w->screenshot = w->screenshot_len ? dup_mem(sqlite3_column_blob(st, 14), w->screenshot_len) : TY_MALLOC(1);
  }
  return TY_STORAGE_OK;
}

/* Appends the packed rows statement `which` yields for id (count, data) to *e. */
static ty_storage_status read_packed(ty_storage *s, int which, const char *id, ty_storage_edit **e, uint32_t *n,
                                     uint32_t *cap, char *err, size_t errsz) {
  sqlite3_stmt *st = s->st[which];
  bind_text(st, 1, id);
  int rc = SQLITE_DONE;
  ty_storage_status status = TY_STORAGE_OK;
  while (status == TY_STORAGE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t count = sqlite3_column_int64(st, 0);
    const unsigned char *data = sqlite3_column_blob(st, 1);
    if (count < 0 || (int64_t)sqlite3_column_bytes(st, 1) != count * EDIT_BYTES || (int64_t)*n + count > INT32_MAX) {
      status = fail(err, errsz, "storage_corrupt", "world %s: its edit log is damaged", id);
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
  if (status == TY_STORAGE_OK && rc != SQLITE_DONE) status = sql_fail(s->db, err, errsz, "loading an edit log");
  sqlite3_reset(st);
  return status;
}

/* The world's whole edit log: the packed log, then its journal merged in. Owned by the caller. */
static ty_storage_status load_edits(ty_storage *s, const char *id, ty_storage_edit **out, uint32_t *nout,
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

static ty_storage_status load_inner(ty_storage *s, const char *id, ty_storage_world *out, char *err, size_t errsz) {
  sqlite3_stmt *st = s->st[ST_WORLD_SELECT];
  bind_text(st, 1, id);
  int rc = sqlite3_step(st);
  ty_storage_status status = TY_STORAGE_MISSING;
  if (rc == SQLITE_ROW) status = read_world(st, out, err, errsz);
  else if (rc != SQLITE_DONE) status = sql_fail(s->db, err, errsz, "loading a world");
  sqlite3_reset(st);
  if (status != TY_STORAGE_OK) return status;
  ty_storage_edit *e = NULL;
  status = load_edits(s, id, &e, &out->nedits, NULL, err, errsz);
  out->edits = e;
  if (status != TY_STORAGE_OK) ty_storage_world_free(out);
  return status;
}

ty_storage_status ty_storage_load(ty_storage *s, const char *id, ty_storage_world *out, char *err, size_t errsz) {
  drain(s); /* after the queued saves, as if they had been made here */
  memset(out, 0, sizeof *out);
  /* One read transaction, so the world row and its edit log come from the same save. */
  if (!exec_sql(s->db, "BEGIN", err, errsz)) return TY_STORAGE_FAILED;
  ty_storage_status st = load_inner(s, id, out, err, errsz);
  sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
  return st;
}

ty_storage_status ty_storage_save_meta(ty_storage *s, const ty_storage_world *w, const ty_storage_edit *append,
                                       uint32_t nappend, char *err, size_t errsz) {
  drain(s); /* after the queued saves, as if they had been made here */
  if (!begin_incremental(s, err, errsz)) return finish_incremental(s, TY_STORAGE_FAILED, err, errsz);
  ty_storage_status st = write_world_row(s, w, err, errsz);
  if (st == TY_STORAGE_OK) st = append_inner(s, w->id, append, nappend, err, errsz);
  return finish_incremental(s, st, err, errsz);
}

/* TY_STORAGE_MISSING when there is no world id (inside a transaction). */
static ty_storage_status world_exists(ty_storage *s, const char *id, char *err, size_t errsz) {
  sqlite3_stmt *st = s->st[ST_WORLD_EXISTS];
  bind_text(st, 1, id);
  int rc = sqlite3_step(st);
  sqlite3_reset(st);
  if (rc == SQLITE_ROW) return TY_STORAGE_OK;
  if (rc != SQLITE_DONE) return sql_fail(s->db, err, errsz, "finding a world");
  fail(err, errsz, "storage_no_world", "no world with id %s", id);
  return TY_STORAGE_MISSING;
}

ty_storage_status ty_storage_append_edits(ty_storage *s, const char *id, const ty_storage_edit *edits, uint32_t n,
                                          char *err, size_t errsz) {
  drain(s); /* after the queued saves, as if they had been made here */
  if (!begin_incremental(s, err, errsz)) return finish_incremental(s, TY_STORAGE_FAILED, err, errsz);
  /* Checked even for no edits, so that a wrong id is told the same way every time. */
  ty_storage_status st = world_exists(s, id, err, errsz);
  if (st == TY_STORAGE_OK) st = append_inner(s, id, edits, n, err, errsz);
  return finish_incremental(s, st, err, errsz);
}

ty_storage_status ty_storage_compact(ty_storage *s, const char *id, char *err, size_t errsz) {
  drain(s); /* after the queued saves, as if they had been made here */
  if (!begin(s, err, errsz)) return TY_STORAGE_FAILED;
  ty_storage_status st = world_exists(s, id, err, errsz);
  ty_storage_edit *e = NULL;
  uint32_t n = 0;
  bool journaled = false;
  if (st == TY_STORAGE_OK) { /* an empty journal costs one index lookup, not a read of the log */
    sqlite3_stmt *q = s->st[ST_JOURNAL_COUNT];
    bind_text(q, 1, id);
    int rc = sqlite3_step(q);
    journaled = rc == SQLITE_ROW && sqlite3_column_int64(q, 0) > 0;
    sqlite3_reset(q);
    if (rc != SQLITE_ROW) st = sql_fail(s->db, err, errsz, "reading an edit journal");
  }
  if (st == TY_STORAGE_OK && journaled) st = load_edits(s, id, &e, &n, &journaled, err, errsz);
  if (st == TY_STORAGE_OK && journaled) st = write_edit_log(s, id, e, n, err, errsz);
  TY_FREE(e);
  return finish(s, st, err, errsz);
}

ty_storage_status ty_storage_list(ty_storage *s, ty_storage_world **out, uint32_t *n, char *err, size_t errsz) {
  drain(s); /* after the queued saves, as if they had been made here */
  *out = NULL;
  *n = 0;
  uint32_t cap = 0;
  sqlite3_stmt *st = s->st[ST_WORLD_LIST];
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
  if (rc != SQLITE_DONE) status = sql_fail(s->db, err, errsz, "listing worlds");
  sqlite3_reset(st);
  if (status != TY_STORAGE_OK) {
    ty_storage_worlds_free(*out, *n);
    *out = NULL;
    *n = 0;
  }
  return status;
}

ty_storage_status ty_storage_delete(ty_storage *s, const char *id, char *err, size_t errsz) {
  drain(s); /* after the queued saves, as if they had been made here */
  sqlite3_stmt *st = s->st[ST_WORLD_DELETE];
  bind_text(st, 1, id);
  int rc = sqlite3_step(st);
  sqlite3_reset(st);
  if (rc != SQLITE_DONE) return sql_fail(s->db, err, errsz, "deleting a world");
  return sqlite3_changes(s->db) ? TY_STORAGE_OK : TY_STORAGE_MISSING;
}

/* ---- players ---- */

ty_storage_status ty_storage_save_player(ty_storage *s, const char *world_id, const char *player_key,
                                         const ty_storage_player *p, char *err, size_t errsz) {
  drain(s); /* after the queued saves, as if they had been made here */
  sqlite3_stmt *st = s->st[ST_PLAYER_UPSERT];
  char *inv = inventory_text(&p->inventory);
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
  if (rc == SQLITE_CONSTRAINT_FOREIGNKEY) return fail(err, errsz, "storage_no_world", "no world with id %s", world_id);
  if (rc != SQLITE_DONE) return sql_fail(s->db, err, errsz, "saving a player");
  return TY_STORAGE_OK;
}

ty_storage_status ty_storage_load_player(ty_storage *s, const char *world_id, const char *player_key,
                                         ty_storage_player *out, char *err, size_t errsz) {
  drain(s); /* after the queued saves, as if they had been made here */
  memset(out, 0, sizeof *out);
  sqlite3_stmt *st = s->st[ST_PLAYER_SELECT];
  bind_text(st, 1, world_id);
  bind_text(st, 2, player_key);
  int rc = sqlite3_step(st);
  ty_storage_status status = TY_STORAGE_MISSING;
  if (rc == SQLITE_ROW) {
    out->pose = (ty_storage_pose){sqlite3_column_double(st, 0), sqlite3_column_double(st, 1), sqlite3_column_double(st, 2),
                                  sqlite3_column_double(st, 3), sqlite3_column_double(st, 4)};
    status = read_inventory(st, 5, &out->inventory)
                 ? TY_STORAGE_OK
                 : fail(err, errsz, "storage_corrupt", "player %s in world %s: inventory not readable", player_key, world_id);
  } else if (rc != SQLITE_DONE) {
    status = sql_fail(s->db, err, errsz, "loading a player");
  }
  sqlite3_reset(st);
  return status;
}

/* ---- blobs ---- */

ty_storage_status ty_storage_put_blob(ty_storage *s, const char *key, const void *data, size_t len, char *err,
                                      size_t errsz) {
  drain(s); /* after the queued saves, as if they had been made here */
  sqlite3_stmt *st = s->st[ST_BLOB_PUT];
  bind_text(st, 1, key);
  /* A zero-length blob binds as an empty blob, not NULL (the column is NOT NULL). */
  sqlite3_bind_blob64(st, 2, len ? data : "", len, SQLITE_STATIC);
  sqlite3_bind_double(st, 3, ty_storage_now_ms());
  int rc = sqlite3_step(st);
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
  if (rc != SQLITE_DONE) return sql_fail(s->db, err, errsz, "saving a blob");
  return TY_STORAGE_OK;
}

ty_storage_status ty_storage_get_blob(ty_storage *s, const char *key, void **out, size_t *len, char *err,
                                      size_t errsz) {
  drain(s); /* after the queued saves, as if they had been made here */
  *out = NULL;
  *len = 0;
  sqlite3_stmt *st = s->st[ST_BLOB_GET];
  bind_text(st, 1, key);
  int rc = sqlite3_step(st);
  ty_storage_status status = TY_STORAGE_MISSING;
  if (rc == SQLITE_ROW) {
    size_t n = (size_t)sqlite3_column_bytes(st, 0);
    const void *p = sqlite3_column_blob(st, 0);
    *out = dup_mem(n ? p : "", n ? n : 1);
    *len = n;
    status = TY_STORAGE_OK;
  } else if (rc != SQLITE_DONE) {
    status = sql_fail(s->db, err, errsz, "loading a blob");
  }
  sqlite3_reset(st);
  return status;
}

ty_storage_status ty_storage_delete_blob(ty_storage *s, const char *key, char *err, size_t errsz) {
  drain(s); /* after the queued saves, as if they had been made here */
  sqlite3_stmt *st = s->st[ST_BLOB_DELETE];
  bind_text(st, 1, key);
  int rc = sqlite3_step(st);
  sqlite3_reset(st);
  if (rc != SQLITE_DONE) return sql_fail(s->db, err, errsz, "deleting a blob");
  return sqlite3_changes(s->db) ? TY_STORAGE_OK : TY_STORAGE_MISSING;
}

/* ---- export and import ---- */

static bool write_all(int fd, const char *p, size_t n) {
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w, n -= (size_t)w;
  }
  return true;
}

/* Writes text to path so that path holds either its old content or all of text, never a
 * mix: a temporary file in the same folder, fsync, rename over path, fsync of the folder. */
static ty_storage_status write_atomic(const char *path, const char *text, size_t len, char *err, size_t errsz) {
  size_t pl = strlen(path);
  char *tmp = TY_MALLOC(pl + 16);
  TY_ASSERT(tmp);
  snprintf(tmp, pl + 16, "%s.tmp-XXXXXX", path);
  int fd = mkstemp(tmp);
  if (fd < 0) {
    fail(err, errsz, "storage_export", "%s: %s", tmp, strerror(errno));
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
    fail(err, errsz, "storage_export", "writing %s: %s", path, strerror(saved));
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

ty_storage_status ty_storage_export(ty_storage *s, const char *id, const char *path, char *err, size_t errsz) {
  ty_storage_world w;
  ty_storage_status st = ty_storage_load(s, id, &w, err, errsz);
  if (st == TY_STORAGE_MISSING) return fail(err, errsz, "storage_no_world", "no world with id %s", id), TY_STORAGE_MISSING;
  if (st != TY_STORAGE_OK) return st;
  char *text = ty_storage_world_to_json(&w);
  ty_storage_world_free(&w);
  if (!text) return fail(err, errsz, "storage_export", "out of memory encoding world %s", id);
  st = write_atomic(path, text, strlen(text), err, errsz);
  free(text);
  return st;
}

ty_storage_status ty_storage_import(ty_storage *s, const char *path, char id_out[TY_STORAGE_ID_SIZE], char *err,
                                    size_t errsz) {
  drain(s); /* after the queued saves, as if they had been made here */
  FILE *f = fopen(path, "rb");
  if (!f) return fail(err, errsz, "storage_import", "%s: %s", path, strerror(errno));
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
    return fail(err, errsz, "storage_import", "%s: read error", path);
  }
  ty_storage_world w;
  ty_storage_status st = ty_storage_world_from_json(text, len, &w, err, errsz);
  TY_FREE(text);
  if (st != TY_STORAGE_OK) return st;
  char fresh[TY_STORAGE_ID_SIZE];
  sqlite3_stmt *ex = s->st[ST_WORLD_EXISTS];
  if (!begin(s, err, errsz)) {
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
  st = finish(s, save_inner(s, &w, err, errsz), err, errsz);
  if (st == TY_STORAGE_OK) snprintf(id_out, TY_STORAGE_ID_SIZE, "%s", w.id);
  w.id = keep;
  ty_storage_world_free(&w);
  return st;
}

/* ---- queued saves: the writer thread ----
 *
 * An incremental save on a frame costs ~0.1 ms, but about one commit in fifty waits several
 * ms in write() for the kernel's writeback. Queued saves move the sqlite work to a thread
 * with its own connection to the same file: the caller pays for a copy of the record and the
 * new edits only. Every other call waits for the queue to empty first (drain), so reads see
 * queued writes and writes keep the order they were made in. */

static void job_free(storage_job *j) {
  ty_storage_world_free(&j->world);
  TY_FREE(j);
}

/* A copy of what a job needs, owned by the job: the caller's pointers are borrowed. */
static storage_job *job_new(bool meta, const ty_storage_world *w, const char *id, const ty_storage_edit *e, uint32_t n) {
  storage_job *j = TY_MALLOC(sizeof *j);
  TY_ASSERT(j);
  memset(j, 0, sizeof *j);
  j->meta = meta;
  ty_storage_world *c = &j->world;
  if (meta) {
    *c = *w;
    c->id = dup_str(w->id);
    c->name = dup_str(w->name);
    c->game_mode = dup_str(w->game_mode);
    c->seed.text = w->seed.kind == TY_STORAGE_SEED_TEXT ? dup_str(w->seed.text ? w->seed.text : "") : NULL;
    /* A present but empty screenshot stays present (an empty blob, not NULL). */
    c->screenshot = w->screenshot ? (w->screenshot_len ? dup_mem(w->screenshot, w->screenshot_len) : TY_MALLOC(1)) : NULL;
    c->inventory.stacks = dup_mem(w->inventory.stacks, sizeof *w->inventory.stacks * w->inventory.nstacks);
    c->inventory.hotbar = dup_mem(w->inventory.hotbar, sizeof *w->inventory.hotbar * w->inventory.nhotbar);
  } else {
    c->id = dup_str(id);
  }
  c->edits = dup_mem(e, sizeof *e * n);
  c->nedits = c->edits ? n : 0;
  return j;
}

/* One job in one transaction on conn. Unlike the incremental saves made on the caller's
 * thread, this commit fsyncs (synchronous=FULL) and checkpoints as usual: it is off the frame. */
static ty_storage_status job_run(ty_storage *conn, const storage_job *j, char *err, size_t errsz) {
  if (!begin(conn, err, errsz)) return TY_STORAGE_FAILED;
  ty_storage_status st = j->meta ? write_world_row(conn, &j->world, err, errsz) : world_exists(conn, j->world.id, err, errsz);
  if (st == TY_STORAGE_OK) st = append_inner(conn, j->world.id, j->world.edits, j->world.nedits, err, errsz);
  return finish(conn, st, err, errsz);
}

/* Keeps the first failure for the next flush, and logs it under a stable name (lock held). */
static void job_failed(ty_storage *s, const char *why) {
  ty_log("storage_queued_save_failed", "%s", why);
  if (s->failed) return;
  s->failed = true;
  snprintf(s->first_error, sizeof s->first_error, "%s", why);
}

/* The writer's connection: the store was opened, migrated and checked by ty_storage_open. */
static ty_storage *writer_connect(const char *path, char *err, size_t errsz) {
  ty_storage *c = TY_MALLOC(sizeof *c);
  TY_ASSERT(c);
  memset(c, 0, sizeof *c);
  bool ok = sqlite3_open_v2(path, &c->db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK;
  if (!ok) fail(err, errsz, "storage_open", "%s: %s", path, c->db ? sqlite3_errmsg(c->db) : "out of memory");
  if (ok) {
    sqlite3_busy_timeout(c->db, BUSY_TIMEOUT_MS);
    sqlite3_extended_result_codes(c->db, 1);
    sqlite3_wal_hook(c->db, wal_hook, c);
    ok = exec_sql(c->db, "PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON", err, errsz) && prepare_all(c, err, errsz);
  }
  if (ok) return c;
  finalize_all(c);
  sqlite3_close(c->db);
  TY_FREE(c);
  return NULL;
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

static void *writer_main(void *arg) {
  ty_storage *s = arg;
  char open_err[512], err[512];
  writer_lower_priority();
  ty_storage *conn = writer_connect(s->path, open_err, sizeof open_err);
  pthread_mutex_lock(&s->lock);
  for (;;) {
    while (!s->head && !s->stop) pthread_cond_wait(&s->wake, &s->lock);
    storage_job *j = s->head;
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
  if (conn) {
    finalize_all(conn);
    sqlite3_close(conn->db);
    TY_FREE(conn);
  }
  return NULL;
}

static void drain(ty_storage *s) {
  if (!s->started) return; /* only the owner's thread starts it */
  pthread_mutex_lock(&s->lock);
  while (s->pending) pthread_cond_wait(&s->done, &s->lock);
  pthread_mutex_unlock(&s->lock);
}

static ty_storage_status enqueue(ty_storage *s, storage_job *j, char *err, size_t errsz) {
  if (!s->path) { /* ":memory:" has no file a second connection could open: written here */
    char why[512];
    ty_storage_status st = job_run(s, j, why, sizeof why);
    job_free(j);
    pthread_mutex_lock(&s->lock);
    if (st != TY_STORAGE_OK) job_failed(s, why);
    pthread_mutex_unlock(&s->lock);
    return TY_STORAGE_OK;
  }
  pthread_mutex_lock(&s->lock);
  if (!s->started) {
    int rc = pthread_create(&s->thread, NULL, writer_main, s);
    if (rc != 0) {
      pthread_mutex_unlock(&s->lock);
      job_free(j);
      return fail(err, errsz, "storage_writer", "cannot start the writer thread: %s", strerror(rc));
    }
    s->started = true;
  }
  /* Bounded: a caller that outpaces the disk waits here for room, rather than memory grow. */
  while (s->pending >= TY_STORAGE_QUEUE_JOBS) pthread_cond_wait(&s->done, &s->lock);
  if (s->tail) s->tail->next = j;
  else s->head = j;
  s->tail = j;
  s->pending++;
  pthread_cond_signal(&s->wake);
  pthread_mutex_unlock(&s->lock);
  return TY_STORAGE_OK;
}

ty_storage_status ty_storage_queue_save_meta(ty_storage *s, const ty_storage_world *w, const ty_storage_edit *append,
                                             uint32_t nappend, char *err, size_t errsz) {
  if (check_world(w, err, errsz) != TY_STORAGE_OK) return TY_STORAGE_FAILED;
  return enqueue(s, job_new(true, w, NULL, append, nappend), err, errsz);
}

ty_storage_status ty_storage_queue_append_edits(ty_storage *s, const char *id, const ty_storage_edit *edits,
                                                uint32_t n, char *err, size_t errsz) {
  TY_ASSERT(id);
  return enqueue(s, job_new(false, NULL, id, edits, n), err, errsz);
}

ty_storage_status ty_storage_flush(ty_storage *s, char *err, size_t errsz) {
  pthread_mutex_lock(&s->lock);
  while (s->pending) pthread_cond_wait(&s->done, &s->lock);
  bool failed = s->failed;
  if (failed && err && errsz) snprintf(err, errsz, "%s", s->first_error);
  s->failed = false;
  pthread_mutex_unlock(&s->lock);
  return failed ? TY_STORAGE_FAILED : TY_STORAGE_OK;
}

bool ty_storage_last_error(ty_storage *s, char *err, size_t errsz) {
  pthread_mutex_lock(&s->lock);
  bool failed = s->failed;
  if (failed && err && errsz) snprintf(err, errsz, "%s", s->first_error);
  pthread_mutex_unlock(&s->lock);
  return failed;
}

uint32_t ty_storage_pending(ty_storage *s) {
  pthread_mutex_lock(&s->lock);
  uint32_t n = s->pending;
  pthread_mutex_unlock(&s->lock);
  return n;
}
