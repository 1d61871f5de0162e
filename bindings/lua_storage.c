/* bindings/lua_storage.c: tycho.storage: open a world store, the WorldStorage type over
 * engine/storage (save, load, list, delete, the incremental saveMeta/appendEdits/compact,
 * queued on the writer thread with {async = true} and waited for by flush, transactions
 * batching saves into one commit, checkpoints, export, import,
 * per-player records) and
 * createSavedWorld with the seed's defaults. Expected failures are `nil, message`. */
#include "lua_storage.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>

#include "storage/storage.h"

#define WORLD_STORAGE "WorldStorage"

typedef struct storage_box {
  ty_storage *s; /* NULL once closed */
} storage_box;

static ty_storage *check_open(lua_State *L) {
  storage_box *b = luaL_checkudata(L, 1, WORLD_STORAGE);
  if (!b->s) luaL_error(L, "this WorldStorage is closed");
  return b->s;
}

static int push_failure(lua_State *L, const char *err) {
  return ty_fail(L, "%s", err);
}

/* An integral double comes back as a Lua integer, so that 64 saved is 64 loaded. */
static void push_number(lua_State *L, double v) {
  if (v == floor(v) && fabs(v) < 9007199254740992.0) lua_pushinteger(L, (lua_Integer)v);
  else lua_pushnumber(L, v);
}

/* ---- Lua -> C (argument arg; borrowed strings stay valid while the table is on the stack) ---- */

static double field_number(lua_State *L, int arg, int t, const char *key, const char *where) {
  lua_getfield(L, t, key);
  if (lua_type(L, -1) != LUA_TNUMBER || !isfinite(lua_tonumber(L, -1)))
    luaL_argerror(L, arg, lua_pushfstring(L, "%s%s must be a finite number, got %s", where, key, luaL_typename(L, -1)));
  double v = lua_tonumber(L, -1);
  lua_pop(L, 1);
  return v;
}

static const char *field_string(lua_State *L, int arg, int t, const char *key) {
  lua_getfield(L, t, key);
  if (lua_type(L, -1) != LUA_TSTRING)
    luaL_argerror(L, arg, lua_pushfstring(L, "world.%s must be a string, got %s", key, luaL_typename(L, -1)));
  const char *s = lua_tostring(L, -1);
  lua_pop(L, 1); /* still referenced by the table */
  return s;
}

/* The integer at idx; raises `bad argument` naming what[i].key (key may be NULL) otherwise. */
static int32_t to_int32(lua_State *L, int arg, int idx, const char *what, lua_Integer i, const char *key) {
  int isnum = 0;
  lua_Integer v = lua_type(L, idx) == LUA_TNUMBER ? lua_tointegerx(L, idx, &isnum) : 0;
  if (!isnum || v < INT32_MIN || v > INT32_MAX) {
    if (key) lua_pushfstring(L, "%s[%I].%s must be a 32-bit integer, got %s", what, i, key, luaL_typename(L, idx));
    else lua_pushfstring(L, "%s[%I] must be a 32-bit integer, got %s", what, i, luaL_typename(L, idx));
    luaL_argerror(L, arg, lua_tostring(L, -1));
  }
  return (int32_t)v;
}

static int32_t field_int32(lua_State *L, int arg, int t, const char *key, const char *what, lua_Integer i) {
  lua_getfield(L, t, key);
  int32_t v = to_int32(L, arg, lua_gettop(L), what, i, key);
  lua_pop(L, 1);
  return v;
}

/* Reads {stacks = {{blockType, count}...}, hotbar = {types...}} at t; arrays live in
 * userdata left on the stack until the caller returns. */
static void read_inventory(lua_State *L, int arg, int t, ty_storage_inventory *inv) {
  memset(inv, 0, sizeof *inv);
  if (lua_isnil(L, t)) return;
  if (!lua_istable(L, t)) luaL_argerror(L, arg, "inventory must be a table {stacks = ..., hotbar = ...}");
  t = lua_absindex(L, t);
  inv->present = true;
  if (lua_getfield(L, t, "stacks") != LUA_TNIL) {
    if (!lua_istable(L, -1)) luaL_argerror(L, arg, "inventory.stacks must be an array");
    lua_Integer n = luaL_len(L, -1);
    ty_storage_stack *s = lua_newuserdatauv(L, sizeof *s * (size_t)(n > 0 ? n : 1), 0);
    lua_insert(L, -2);
    for (lua_Integer i = 1; i <= n; i++) {
      if (lua_geti(L, -1, i) != LUA_TTABLE) luaL_argerror(L, arg, lua_pushfstring(L, "inventory.stacks[%I] must be a table", i));
      s[i - 1].block_type = field_int32(L, arg, lua_gettop(L), "blockType", "inventory.stacks", i);
      s[i - 1].count = field_int32(L, arg, lua_gettop(L), "count", "inventory.stacks", i);
      lua_pop(L, 1);
    }
    inv->stacks = s;
    inv->nstacks = (uint32_t)n;
  }
  lua_pop(L, 1);
  if (lua_getfield(L, t, "hotbar") != LUA_TNIL) {
    if (!lua_istable(L, -1)) luaL_argerror(L, arg, "inventory.hotbar must be an array");
    lua_Integer n = luaL_len(L, -1);
    int32_t *h = lua_newuserdatauv(L, sizeof *h * (size_t)(n > 0 ? n : 1), 0);
    lua_insert(L, -2);
    for (lua_Integer i = 1; i <= n; i++) {
      lua_geti(L, -1, i);
      h[i - 1] = to_int32(L, arg, lua_gettop(L), "inventory.hotbar", i, NULL);
      lua_pop(L, 1);
    }
    inv->hotbar = h;
    inv->nhotbar = (uint32_t)n;
  }
  lua_pop(L, 1);
}

static void read_pose(lua_State *L, int arg, int t, const char *where, ty_storage_pose *p) {
  p->x = field_number(L, arg, t, "x", where);
  p->y = field_number(L, arg, t, "y", where);
  p->z = field_number(L, arg, t, "z", where);
  p->yaw = field_number(L, arg, t, "yaw", where);
  p->pitch = field_number(L, arg, t, "pitch", where);
}

/* Reads the array of {x, y, z, type} at idx (arg for errors, what names it) into userdata left
 * on the stack above idx; returns the edits and their number in *n. */
static ty_storage_edit *read_edits(lua_State *L, int arg, int idx, const char *what, uint32_t *n) {
  idx = lua_absindex(L, idx);
  if (!lua_istable(L, idx)) luaL_argerror(L, arg, lua_pushfstring(L, "%s must be an array of {x, y, z, type}", what));
  lua_Integer len = luaL_len(L, idx);
  luaL_argcheck(L, len >= 0 && len <= INT32_MAX / 16, arg, lua_pushfstring(L, "%s is too long", what));
  ty_storage_edit *e = lua_newuserdatauv(L, sizeof *e * (size_t)(len > 0 ? len : 1), 0);
  for (lua_Integer i = 1; i <= len; i++) {
    if (lua_geti(L, idx, i) != LUA_TTABLE) luaL_argerror(L, arg, lua_pushfstring(L, "%s[%I] must be a table", what, i));
    int et = lua_gettop(L);
    e[i - 1].x = field_int32(L, arg, et, "x", what, i);
    e[i - 1].y = field_int32(L, arg, et, "y", what, i);
    e[i - 1].z = field_int32(L, arg, et, "z", what, i);
    e[i - 1].type = field_int32(L, arg, et, "type", what, i);
    lua_pop(L, 1);
  }
  *n = (uint32_t)len;
  return e;
}

/* Reads the SavedWorld table at arg into w; raises `bad argument` on a wrong field.
 * with_edits false (saveMeta): the edit log is not read at all, which is what keeps an
 * incremental save's cost independent of the log's length. */
static void read_world(lua_State *L, int arg, ty_storage_world *w, bool with_edits) {
  luaL_checktype(L, arg, LUA_TTABLE);
  memset(w, 0, sizeof *w);
  w->id = field_string(L, arg, arg, "id");
  w->name = field_string(L, arg, arg, "name");
  w->game_mode = field_string(L, arg, arg, "gameMode");
  luaL_argcheck(L, w->id[0], arg, "world.id must not be empty");
  lua_getfield(L, arg, "seed");
  if (lua_type(L, -1) == LUA_TSTRING) w->seed = (ty_storage_seed){.kind = TY_STORAGE_SEED_TEXT, .text = lua_tostring(L, -1)};
  else if (lua_isinteger(L, -1)) w->seed = (ty_storage_seed){.kind = TY_STORAGE_SEED_INTEGER, .integer = lua_tointeger(L, -1)};
  else if (lua_type(L, -1) == LUA_TNUMBER && isfinite(lua_tonumber(L, -1)))
    w->seed = (ty_storage_seed){.kind = TY_STORAGE_SEED_NUMBER, .number = lua_tonumber(L, -1)};
  else luaL_argerror(L, arg, lua_pushfstring(L, "world.seed must be a number or a string, got %s", luaL_typename(L, -1)));
  lua_pop(L, 1);
  w->created_at = field_number(L, arg, arg, "createdAt", "world.");
  w->last_played_at = field_number(L, arg, arg, "lastPlayedAt", "world.");
  w->sun_angle = field_number(L, arg, arg, "sunAngle", "world.");
  lua_getfield(L, arg, "version");
  if (!lua_isinteger(L, -1)) luaL_argerror(L, arg, "world.version must be an integer");
  w->version = lua_tointeger(L, -1);
  lua_pop(L, 1);
  if (lua_getfield(L, arg, "player") != LUA_TTABLE) luaL_argerror(L, arg, "world.player must be a table {x, y, z, yaw, pitch}");
  read_pose(L, arg, lua_gettop(L), "world.player.", &w->player);
  lua_pop(L, 1);
  if (lua_getfield(L, arg, "moonPhase") != LUA_TNIL) {
    w->has_moon_phase = true;
    w->moon_phase = field_number(L, arg, arg, "moonPhase", "world.");
  }
  lua_pop(L, 1);
  lua_getfield(L, arg, "inventory");
  read_inventory(L, arg, -1, &w->inventory); /* leaves its arrays under the inventory table */
  if (lua_getfield(L, arg, "screenshot") != LUA_TNIL) {
    size_t n;
    if (lua_type(L, -1) != LUA_TSTRING) luaL_argerror(L, arg, "world.screenshot must be a string of PNG bytes");
    w->screenshot = (const unsigned char *)lua_tolstring(L, -1, &n);
    w->screenshot_len = n;
  }
  lua_pop(L, 1);
  if (!with_edits) return;
  if (lua_getfield(L, arg, "edits") != LUA_TNIL) {
    w->edits = read_edits(L, arg, -1, "world.edits", &w->nedits);
    lua_insert(L, -2); /* the edits' userdata stays on the stack, under the table */
  }
  lua_pop(L, 1);
}

/* ---- C -> Lua ---- */

static void push_inventory(lua_State *L, const ty_storage_inventory *inv) {
  lua_createtable(L, 0, 2);
  lua_createtable(L, (int)inv->nstacks, 0);
  for (uint32_t i = 0; i < inv->nstacks; i++) {
    lua_createtable(L, 0, 2);
    lua_pushinteger(L, inv->stacks[i].block_type);
    lua_setfield(L, -2, "blockType");
    lua_pushinteger(L, inv->stacks[i].count);
    lua_setfield(L, -2, "count");
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  lua_setfield(L, -2, "stacks");
  lua_createtable(L, (int)inv->nhotbar, 0);
  for (uint32_t i = 0; i < inv->nhotbar; i++) {
    lua_pushinteger(L, inv->hotbar[i]);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  lua_setfield(L, -2, "hotbar");
}

static void push_pose_fields(lua_State *L, const ty_storage_pose *p) {
  push_number(L, p->x);
  lua_setfield(L, -2, "x");
  push_number(L, p->y);
  lua_setfield(L, -2, "y");
  push_number(L, p->z);
  lua_setfield(L, -2, "z");
  push_number(L, p->yaw);
  lua_setfield(L, -2, "yaw");
  push_number(L, p->pitch);
  lua_setfield(L, -2, "pitch");
}

/* How push_world gives the edit log: left out (list), as {x, y, z, type} tables, or packed. */
typedef enum edits_as { EDITS_COUNT, EDITS_TABLES, EDITS_PACKED } edits_as;

/* Pushes the edits as one string of 16-byte records, string.pack("<i4i4i4i4", x, y, z, type)
 * each: a server keeps a long log in ~16 bytes an edit instead of a table per edit. */
static void push_packed_edits(lua_State *L, const ty_storage_edit *edits, uint32_t n) {
  luaL_Buffer b;
  unsigned char *out = (unsigned char *)luaL_buffinitsize(L, &b, (size_t)n * 16);
  for (uint32_t i = 0; i < n; i++) {
    const int32_t v[4] = {edits[i].x, edits[i].y, edits[i].z, edits[i].type};
    for (int k = 0; k < 4; k++) {
      uint32_t u = (uint32_t)v[k];
      for (int j = 0; j < 4; j++) *out++ = (unsigned char)(u >> (8 * j));
    }
  }
  luaL_pushresultsize(&b, (size_t)n * 16);
}

/* EDITS_COUNT (list): `edits` is left out and `editCount` says how many there are. */
static void push_world(lua_State *L, const ty_storage_world *w, edits_as edits) {
  lua_createtable(L, 0, 16);
  lua_pushstring(L, w->id);
  lua_setfield(L, -2, "id");
  lua_pushstring(L, w->name);
  lua_setfield(L, -2, "name");
  if (w->seed.kind == TY_STORAGE_SEED_TEXT) lua_pushstring(L, w->seed.text ? w->seed.text : "");
  else if (w->seed.kind == TY_STORAGE_SEED_INTEGER) lua_pushinteger(L, (lua_Integer)w->seed.integer);
  else lua_pushnumber(L, w->seed.number);
  lua_setfield(L, -2, "seed");
  lua_pushstring(L, w->game_mode);
  lua_setfield(L, -2, "gameMode");
  push_number(L, w->created_at);
  lua_setfield(L, -2, "createdAt");
  push_number(L, w->last_played_at);
  lua_setfield(L, -2, "lastPlayedAt");
  lua_createtable(L, 0, 5);
  push_pose_fields(L, &w->player);
  lua_setfield(L, -2, "player");
  push_number(L, w->sun_angle);
  lua_setfield(L, -2, "sunAngle");
  if (w->has_moon_phase) {
    push_number(L, w->moon_phase);
    lua_setfield(L, -2, "moonPhase");
  }
  if (w->inventory.present) {
    push_inventory(L, &w->inventory);
    lua_setfield(L, -2, "inventory");
  }
  if (w->screenshot) {
    lua_pushlstring(L, (const char *)w->screenshot, w->screenshot_len);
    lua_setfield(L, -2, "screenshot");
  }
  lua_pushinteger(L, (lua_Integer)w->version);
  lua_setfield(L, -2, "version");
  if (edits == EDITS_PACKED) {
    push_packed_edits(L, w->edits, w->nedits);
    lua_setfield(L, -2, "edits");
  } else if (edits == EDITS_TABLES) {
    lua_createtable(L, (int)w->nedits, 0);
    for (uint32_t i = 0; i < w->nedits; i++) {
      lua_createtable(L, 0, 4);
      lua_pushinteger(L, w->edits[i].x);
      lua_setfield(L, -2, "x");
      lua_pushinteger(L, w->edits[i].y);
      lua_setfield(L, -2, "y");
      lua_pushinteger(L, w->edits[i].z);
      lua_setfield(L, -2, "z");
      lua_pushinteger(L, w->edits[i].type);
      lua_setfield(L, -2, "type");
      lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "edits");
  } else {
    lua_pushinteger(L, w->nedits);
    lua_setfield(L, -2, "editCount");
  }
}

/* ---- WorldStorage ---- */

/* storage:save(world) -> true, or nil, message */
static int ws_save(lua_State *L) {
  ty_storage *s = check_open(L);
  ty_storage_world w;
  read_world(L, 2, &w, true);
  char err[512];
  if (ty_storage_save(s, &w, err, sizeof err) != TY_STORAGE_OK) return push_failure(L, err);
  lua_pushboolean(L, 1);
  return 1;
}

/* The options table at arg: {async = true} queues the save for the writer thread. */
static bool opt_async(lua_State *L, int arg) {
  if (lua_isnoneornil(L, arg)) return false;
  luaL_checktype(L, arg, LUA_TTABLE);
  lua_getfield(L, arg, "async");
  bool async = lua_toboolean(L, -1);
  lua_pop(L, 1);
  return async;
}

/* storage:saveMeta(world [, newEdits [, {async}]]) -> true, or nil, message. Every field but
 * world.edits (not read), and newEdits appended to the log, in one transaction; queued for
 * the writer thread with async (its failure comes back from flush). */
static int ws_save_meta(lua_State *L) {
  ty_storage *s = check_open(L);
  bool async = opt_async(L, 4);
  ty_storage_world w;
  read_world(L, 2, &w, false);
  const ty_storage_edit *e = NULL;
  uint32_t n = 0;
  if (!lua_isnoneornil(L, 3)) e = read_edits(L, 3, 3, "newEdits", &n);
  char err[512];
  ty_storage_status st = async ? ty_storage_queue_save_meta(s, &w, e, n, err, sizeof err)
                               : ty_storage_save_meta(s, &w, e, n, err, sizeof err);
  if (st != TY_STORAGE_OK) return push_failure(L, err);
  lua_pushboolean(L, 1);
  return 1;
}

/* storage:appendEdits(worldId, edits [, {async}]) -> true, or nil, message (no such world, a
 * failure); with async, queued, and a missing world is reported by flush. */
static int ws_append_edits(lua_State *L) {
  ty_storage *s = check_open(L);
  const char *id = luaL_checkstring(L, 2);
  bool async = opt_async(L, 4);
  uint32_t n;
  const ty_storage_edit *e = read_edits(L, 3, 3, "edits", &n);
  char err[512];
  ty_storage_status st = async ? ty_storage_queue_append_edits(s, id, e, n, err, sizeof err)
                               : ty_storage_append_edits(s, id, e, n, err, sizeof err);
  if (st != TY_STORAGE_OK) return push_failure(L, err);
  lua_pushboolean(L, 1);
  return 1;
}

/* storage:compact(worldId) -> true, false (no such world), or nil, message */
static int ws_compact(lua_State *L) {
  ty_storage *s = check_open(L);
  char err[512];
  ty_storage_status st = ty_storage_compact(s, luaL_checkstring(L, 2), err, sizeof err);
  if (st == TY_STORAGE_FAILED) return push_failure(L, err);
  lua_pushboolean(L, st == TY_STORAGE_OK);
  return 1;
}

/* storage:load(id [, {packedEdits}]) -> world, or nil (no such world), or nil, message.
 * packedEdits: world.edits is one string of 16-byte records (push_packed_edits). */
static int ws_load(lua_State *L) {
  ty_storage *s = check_open(L);
  const char *id = luaL_checkstring(L, 2);
  bool packed = false;
  if (!lua_isnoneornil(L, 3)) {
    luaL_checktype(L, 3, LUA_TTABLE);
    lua_getfield(L, 3, "packedEdits");
    packed = lua_toboolean(L, -1);
    lua_pop(L, 1);
  }
  ty_storage_world w;
  char err[512];
  ty_storage_status st = ty_storage_load(s, id, &w, err, sizeof err);
  if (st == TY_STORAGE_MISSING) {
    lua_pushnil(L);
    return 1;
  }
  if (st != TY_STORAGE_OK) return push_failure(L, err);
  push_world(L, &w, packed ? EDITS_PACKED : EDITS_TABLES);
  ty_storage_world_free(&w);
  return 1;
}

/* storage:list() -> array of worlds (no edits; editCount), most recently played first */
static int ws_list(lua_State *L) {
  ty_storage *s = check_open(L);
  ty_storage_world *worlds;
  uint32_t n;
  char err[512];
  if (ty_storage_list(s, &worlds, &n, err, sizeof err) != TY_STORAGE_OK) return push_failure(L, err);
  lua_createtable(L, (int)n, 0);
  for (uint32_t i = 0; i < n; i++) {
    push_world(L, &worlds[i], EDITS_COUNT);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  ty_storage_worlds_free(worlds, n);
  return 1;
}

/* storage:delete(id) -> true (deleted) or false (no such world), or nil, message */
static int ws_delete(lua_State *L) {
  ty_storage *s = check_open(L);
  char err[512];
  ty_storage_status st = ty_storage_delete(s, luaL_checkstring(L, 2), err, sizeof err);
  if (st == TY_STORAGE_FAILED) return push_failure(L, err);
  lua_pushboolean(L, st == TY_STORAGE_OK);
  return 1;
}

/* storage:flush() -> true, or nil, message (the first queued save that failed since the last flush) */
static int ws_flush(lua_State *L) {
  ty_storage *s = check_open(L);
  char err[512];
  if (ty_storage_flush(s, err, sizeof err) != TY_STORAGE_OK) return push_failure(L, err);
  lua_pushboolean(L, 1);
  return 1;
}

/* storage:lastError() -> the message of a queued save that failed since the last flush, or nil; never waits */
static int ws_last_error(lua_State *L) {
  ty_storage *s = check_open(L);
  char err[512];
  if (ty_storage_last_error(s, err, sizeof err)) lua_pushstring(L, err);
  else lua_pushnil(L);
  return 1;
}

/* storage:pending() -> queued saves not yet written */
static int ws_pending(lua_State *L) {
  lua_pushinteger(L, ty_storage_pending(check_open(L)));
  return 1;
}

/* storage:transaction(fn) -> true, or nil, message. fn(storage) runs inside one batch
 * (engine/storage/store.h): each save it makes is a savepoint that succeeds or fails alone,
 * and all of them reach the file in one commit (incremental: not fsynced) when fn returns.
 * If fn raises, or the commit fails, nothing of it is saved: nil and the message. */
static int ws_transaction(lua_State *L) {
  storage_box *b = luaL_checkudata(L, 1, WORLD_STORAGE);
  ty_storage *s = check_open(L);
  luaL_checktype(L, 2, LUA_TFUNCTION);
  char err[512];
  if (!ty_storage_batch_begin(s, err, sizeof err)) return push_failure(L, err);
  lua_pushvalue(L, 2);
  lua_pushvalue(L, 1);
  int rc = lua_pcall(L, 1, 0, 0);
  if (!b->s) return ty_fail(L, "the store was closed inside its transaction; nothing of it was saved");
  ty_storage_status st = ty_storage_batch_end(b->s, rc == LUA_OK ? TY_STORAGE_OK : TY_STORAGE_FAILED, err, sizeof err);
  if (rc != LUA_OK)
    return ty_fail(L, "the transaction's function failed, nothing of it was saved: %s", luaL_tolstring(L, -1, NULL));
  if (st != TY_STORAGE_OK) return push_failure(L, err);
  lua_pushboolean(L, 1);
  return 1;
}

/* storage:checkpoint(): asks the writer thread to copy the WAL into the database file, with
 * its fsyncs, so that every commit so far is on disk; returns at once. */
static int ws_checkpoint(lua_State *L) {
  ty_storage_checkpoint(check_open(L));
  return 0;
}

/* storage:close() -> true, or nil, message: flushes first (also __gc and __close) */
static int ws_close(lua_State *L) {
  storage_box *b = luaL_checkudata(L, 1, WORLD_STORAGE);
  if (!b->s) return 0;
  if (ty_storage_in_batch(b->s)) return luaL_error(L, "a WorldStorage cannot be closed inside its transaction");
  char err[512];
  ty_storage_status st = ty_storage_flush(b->s, err, sizeof err);
  ty_storage_close(b->s);
  b->s = NULL;
  if (st != TY_STORAGE_OK) return push_failure(L, err);
  lua_pushboolean(L, 1);
  return 1;
}

/* storage:exportWorld(id, path) -> true, or nil, message */
static int ws_export(lua_State *L) {
  ty_storage *s = check_open(L);
  const char *id = luaL_checkstring(L, 2), *path = luaL_checkstring(L, 3);
  char err[512];
  if (ty_storage_export(s, id, path, err, sizeof err) != TY_STORAGE_OK) return push_failure(L, err);
  lua_pushboolean(L, 1);
  return 1;
}

/* storage:importWorld(path) -> id, or nil, message */
static int ws_import(lua_State *L) {
  ty_storage *s = check_open(L);
  char id[TY_STORAGE_ID_SIZE], err[512];
  if (ty_storage_import(s, luaL_checkstring(L, 2), id, err, sizeof err) != TY_STORAGE_OK) return push_failure(L, err);
  lua_pushstring(L, id);
  return 1;
}

/* storage:savePlayer(worldId, playerKey, {x, y, z, yaw, pitch, inventory?}) -> true, or nil, message */
static int ws_save_player(lua_State *L) {
  ty_storage *s = check_open(L);
  const char *world = luaL_checkstring(L, 2), *key = luaL_checkstring(L, 3);
  luaL_checktype(L, 4, LUA_TTABLE);
  ty_storage_player p;
  memset(&p, 0, sizeof p);
  read_pose(L, 4, 4, "record.", &p.pose);
  lua_getfield(L, 4, "inventory");
  read_inventory(L, 4, -1, &p.inventory);
  char err[512];
  if (ty_storage_save_player(s, world, key, &p, err, sizeof err) != TY_STORAGE_OK) return push_failure(L, err);
  lua_pushboolean(L, 1);
  return 1;
}

/* storage:loadPlayer(worldId, playerKey) -> record, or nil (none), or nil, message */
static int ws_load_player(lua_State *L) {
  ty_storage *s = check_open(L);
  const char *world = luaL_checkstring(L, 2), *key = luaL_checkstring(L, 3);
  ty_storage_player p;
  char err[512];
  ty_storage_status st = ty_storage_load_player(s, world, key, &p, err, sizeof err);
  if (st == TY_STORAGE_MISSING) {
    lua_pushnil(L);
    return 1;
  }
  if (st != TY_STORAGE_OK) return push_failure(L, err);
  lua_createtable(L, 0, 6);
  push_pose_fields(L, &p.pose);
  if (p.inventory.present) {
    push_inventory(L, &p.inventory);
    lua_setfield(L, -2, "inventory");
  }
  ty_storage_player_free(&p);
  return 1;
}

/* storage:putBlob(key, bytes) -> true, or nil, message */
static int ws_put_blob(lua_State *L) {
  ty_storage *s = check_open(L);
  const char *key = luaL_checkstring(L, 2);
  size_t len;
  const char *data = luaL_checklstring(L, 3, &len);
  char err[512];
  if (ty_storage_put_blob(s, key, data, len, err, sizeof err) != TY_STORAGE_OK) return push_failure(L, err);
  lua_pushboolean(L, 1);
  return 1;
}

/* storage:getBlob(key) -> bytes, or nil (none), or nil, message */
static int ws_get_blob(lua_State *L) {
  ty_storage *s = check_open(L);
  const char *key = luaL_checkstring(L, 2);
  void *data;
  size_t len;
  char err[512];
  ty_storage_status st = ty_storage_get_blob(s, key, &data, &len, err, sizeof err);
  if (st == TY_STORAGE_MISSING) {
    lua_pushnil(L);
    return 1;
  }
  if (st != TY_STORAGE_OK) return push_failure(L, err);
  lua_pushlstring(L, data, len);
  free(data);
  return 1;
}

/* storage:deleteBlob(key) -> true (deleted) or false (none), or nil, message */
static int ws_delete_blob(lua_State *L) {
  ty_storage *s = check_open(L);
  char err[512];
  ty_storage_status st = ty_storage_delete_blob(s, luaL_checkstring(L, 2), err, sizeof err);
  if (st == TY_STORAGE_FAILED) return push_failure(L, err);
  lua_pushboolean(L, st == TY_STORAGE_OK);
  return 1;
}

static int ws_tostring(lua_State *L) {
  storage_box *b = luaL_checkudata(L, 1, WORLD_STORAGE);
  lua_pushstring(L, b->s ? "WorldStorage" : "WorldStorage (closed)");
  return 1;
}

bool ty_storage_push_open(lua_State *L, const char *path) {
  char err[512];
  ty_storage *s = ty_storage_open(path, err, sizeof err);
  if (!s) {
    push_failure(L, err);
    return false;
  }
  storage_box *b = lua_newuserdatauv(L, sizeof *b, 0);
  b->s = s;
  luaL_setmetatable(L, WORLD_STORAGE);
  return true;
}

void ty_storage_close_at(lua_State *L, int idx) {
  storage_box *b = luaL_testudata(L, idx, WORLD_STORAGE);
  if (b && b->s) {
    ty_storage_close(b->s);
    b->s = NULL;
  }
}

bool ty_storage_is_open_at(lua_State *L, int idx) {
  storage_box *b = luaL_testudata(L, idx, WORLD_STORAGE);
  return b && b->s;
}

/* Creates every folder along path's parent (mkdir -p). */
static void make_parents(char *path) {
  for (char *p = path + 1; *p; p++) {
    if (*p != '/') continue;
    *p = 0;
    mkdir(path, 0755);
    *p = '/';
  }
}

/* tycho.storage.open([path]) -> WorldStorage, or nil, message. The default is the user's
 * data folder: $XDG_DATA_HOME/tycho/worlds.sqlite (~/.local/share/tycho/worlds.sqlite). */
static int st_open(lua_State *L) {
  const char *path = luaL_optstring(L, 1, NULL);
  if (!path) {
    const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
    if (xdg && *xdg) lua_pushfstring(L, "%s/tycho/worlds.sqlite", xdg);
    else if (home && *home) lua_pushfstring(L, "%s/.local/share/tycho/worlds.sqlite", home);
    else lua_pushliteral(L, "worlds.sqlite");
    char buf[PATH_MAX];
    snprintf(buf, sizeof buf, "%s", lua_tostring(L, -1));
    make_parents(buf);
    path = lua_tostring(L, -1);
  }
  return ty_storage_push_open(L, path) ? 1 : 2;
}

/* tycho.storage.createSavedWorld(name, seed [, gameMode]) -> a world with the seed's defaults */
static int st_create(lua_State *L) {
  luaL_checkstring(L, 1);
  int seed_type = lua_type(L, 2);
  luaL_argexpected(L, seed_type == LUA_TNUMBER || seed_type == LUA_TSTRING, 2, "number or string");
  const char *mode = luaL_optstring(L, 3, "creative");
  char id[TY_STORAGE_ID_SIZE];
  ty_storage_new_id(id);
  double now = ty_storage_now_ms();
  lua_createtable(L, 0, 12);
  lua_pushstring(L, id);
  lua_setfield(L, -2, "id");
  lua_pushvalue(L, 1);
  lua_setfield(L, -2, "name");
  lua_pushvalue(L, 2);
  lua_setfield(L, -2, "seed");
  lua_pushstring(L, mode);
  lua_setfield(L, -2, "gameMode");
  push_number(L, now);
  lua_setfield(L, -2, "createdAt");
  push_number(L, now);
  lua_setfield(L, -2, "lastPlayedAt");
  lua_newtable(L);
  lua_setfield(L, -2, "edits");
  lua_createtable(L, 0, 5);
  push_pose_fields(L, &(ty_storage_pose){64, 80, 64, 0, 0});
  lua_setfield(L, -2, "player");
  lua_pushnumber(L, 3.14159265358979323846 * 0.3);
  lua_setfield(L, -2, "sunAngle");
  lua_pushinteger(L, TY_STORAGE_FORMAT_VERSION);
  lua_setfield(L, -2, "version");
  return 1;
}

void ty_open_storage(lua_State *L) {
  static const luaL_Reg methods[] = {
      {"save", ws_save},           {"load", ws_load},           {"list", ws_list},
      {"delete", ws_delete},       {"close", ws_close},         {"exportWorld", ws_export},
      {"importWorld", ws_import},  {"savePlayer", ws_save_player}, {"loadPlayer", ws_load_player},
      {"putBlob", ws_put_blob},    {"getBlob", ws_get_blob},    {"deleteBlob", ws_delete_blob},
      {"saveMeta", ws_save_meta},  {"appendEdits", ws_append_edits}, {"compact", ws_compact},
      {"flush", ws_flush},         {"lastError", ws_last_error}, {"pending", ws_pending},
      {"transaction", ws_transaction}, {"checkpoint", ws_checkpoint},
      {NULL, NULL}};
  static const luaL_Reg meta[] = {
      {"__gc", ws_close}, {"__close", ws_close}, {"__tostring", ws_tostring}, {NULL, NULL}};
  ty_type_register(L, WORLD_STORAGE, meta, methods);

  static const luaL_Reg fns[] = {{"open", st_open}, {"createSavedWorld", st_create}, {NULL, NULL}};
  luaL_newlib(L, fns);
  lua_pushinteger(L, TY_STORAGE_FORMAT_VERSION);
  lua_setfield(L, -2, "CURRENT_FORMAT_VERSION");
  lua_setfield(L, -2, "storage");
}
