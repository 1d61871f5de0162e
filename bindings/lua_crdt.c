/* bindings/lua_crdt.c: tycho.crdt, the Lua face of engine/sync/crdt.h: the CrdtState
 * userdata (apply, local writes, get, snapshot, stats), entity id helpers, @dcl/ecs
 * component numbers and the core::Transform codec. Wire bytes are Lua strings. */
#include "bindings.h"
#include "sync/crdt.h"

#include <string.h>

#define TY_CRDT_STATE "CrdtState"

typedef struct ty_lcrdt {
  ty_crdt_state *state; /* NULL once collected */
  ty_crdt_buf out;      /* reused for every reply, so a put costs no allocation here */
} ty_lcrdt;

static ty_lcrdt *check_state(lua_State *L, int idx) {
  ty_lcrdt *c = luaL_checkudata(L, idx, TY_CRDT_STATE);
  if (!c->state) luaL_argerror(L, idx, "CrdtState was closed");
  return c;
}

/* A u32 argument (entity id, component id, parent). */
static uint32_t check_u32(lua_State *L, int idx, const char *what) {
  lua_Integer v = luaL_checkinteger(L, idx);
  if (v < 0 || v > (lua_Integer)UINT32_MAX)
    luaL_argerror(L, idx, lua_pushfstring(L, "%s must be an integer in 0..4294967295", what));
  return (uint32_t)v;
}

static uint32_t check_u16(lua_State *L, int idx, const char *what) {
  lua_Integer v = luaL_checkinteger(L, idx);
  if (v < 0 || v > 0xFFFF) luaL_argerror(L, idx, lua_pushfstring(L, "%s must be an integer in 0..65535", what));
  return (uint32_t)v;
}

/* Pushes c->out as a string and empties it. */
static int push_out(lua_State *L, ty_lcrdt *c) {
  lua_pushlstring(L, c->out.len ? (const char *)c->out.data : "", c->out.len);
  c->out.len = 0;
  return 1;
}

/* The reply to a local write: its bytes ("" when there is nothing to send), or nil and why. */
static int push_status(lua_State *L, ty_lcrdt *c, ty_crdt_status st, uint32_t entity) {
  switch (st) {
  case TY_CRDT_OK:
  case TY_CRDT_UNCHANGED:
    return push_out(L, c);
  case TY_CRDT_REMOVED:
    c->out.len = 0;
    return ty_fail(L, "entity %I (number %d, version %d) is deleted", (lua_Integer)entity,
                    (int)ty_crdt_entity_number(entity), (int)ty_crdt_entity_version(entity));
  case TY_CRDT_CLOCK_EXHAUSTED:
    c->out.len = 0;
    return ty_fail(L, "the timestamp is at its maximum (4294967295): no later write can win");
  case TY_CRDT_COMPONENT_LIMIT:
    c->out.len = 0;
    return ty_fail(L, "the state holds as many component ids as maxComponents allows");
  case TY_CRDT_STATE_LIMIT:
    c->out.len = 0;
    return ty_fail(L, "the state holds as many entries/bytes as maxEntries/maxBytes allows");
  }
  return 0;
}

/* ---- CrdtState ---- */

/* Option `key` of the table at 1: an integer in lo..hi, or def when absent. */
static lua_Integer opt_field(lua_State *L, const char *key, lua_Integer lo, lua_Integer hi, lua_Integer def) {
  if (lua_getfield(L, 1, key) == LUA_TNIL) {
    lua_pop(L, 1);
    return def;
  }
  int ok;
  lua_Integer v = lua_tointegerx(L, -1, &ok);
  if (!ok || v < lo || v > hi)
    luaL_argerror(L, 1, lua_pushfstring(L, "'%s' must be an integer in %I..%I", key, lo, hi));
  lua_pop(L, 1);
  return v;
}

/* tycho.crdt.new([{maxMessageSize=, maxComponents=, maxEntries=, maxBytes=, quiet=}]) -> CrdtState */
static int crdt_new(lua_State *L) {
  ty_crdt_desc desc = {0};
  if (!lua_isnoneornil(L, 1)) {
    luaL_checktype(L, 1, LUA_TTABLE);
    if (lua_getfield(L, 1, "maxMessageSize") != LUA_TNIL) {
      int ok;
      lua_Integer v = lua_tointegerx(L, -1, &ok);
      if (!ok || v < TY_CRDT_HEADER_SIZE || v > (lua_Integer)UINT32_MAX)
        return luaL_argerror(L, 1, "'maxMessageSize' must be an integer in 8..4294967295");
      desc.max_message = (uint32_t)v;
    }
    if (lua_getfield(L, 1, "maxComponents") != LUA_TNIL) {
      int ok;
      lua_Integer v = lua_tointegerx(L, -1, &ok);
      if (!ok || v < 1 || v > (lua_Integer)UINT32_MAX)
        return luaL_argerror(L, 1, "'maxComponents' must be an integer in 1..4294967295");
      desc.max_components = (uint32_t)v;
    }
    lua_pop(L, 2);
    desc.max_entries = (uint32_t)opt_field(L, "maxEntries", 0, UINT32_MAX, 0);
    desc.max_bytes = (uint64_t)opt_field(L, "maxBytes", 0, LUA_MAXINTEGER, 0);
    lua_getfield(L, 1, "quiet");
    desc.quiet = lua_toboolean(L, -1);
    lua_pop(L, 1);
  }
  ty_lcrdt *c = lua_newuserdatauv(L, sizeof *c, 0);
  memset(c, 0, sizeof *c);
  luaL_setmetatable(L, TY_CRDT_STATE);
  c->state = ty_crdt_create(&desc);
  return 1;
}

static int state_gc(lua_State *L) {
  ty_lcrdt *c = luaL_checkudata(L, 1, TY_CRDT_STATE);
  ty_crdt_destroy(c->state);
  c->state = NULL;
  ty_crdt_buf_free(&c->out);
  return 0;
}

/* state:apply(bytes) -> applied, corrections or nil */
static int state_apply(lua_State *L) {
  ty_lcrdt *c = check_state(L, 1);
  size_t len;
  const char *bytes = luaL_checklstring(L, 2, &len);
  c->out.len = 0;
  uint32_t applied = ty_crdt_apply(c->state, bytes, len, &c->out);
  lua_pushinteger(L, applied);
  if (c->out.len) push_out(L, c);
  else lua_pushnil(L);
  return 2;
}

/* state:put(entity, componentId, data) -> bytes | nil, message */
static int state_put(lua_State *L) {
  ty_lcrdt *c = check_state(L, 1);
  uint32_t entity = check_u32(L, 2, "entity");
  uint32_t component = check_u32(L, 3, "componentId");
  size_t len;
  const char *data = luaL_checklstring(L, 4, &len);
  if (len > UINT32_MAX - 64) return luaL_argerror(L, 4, "data is too large for one message");
  c->out.len = 0;
  return push_status(L, c, ty_crdt_put(c->state, entity, component, data, (uint32_t)len, &c->out), entity);
}

/* state:deleteComponent(entity, componentId) -> bytes | nil, message */
static int state_delete_component(lua_State *L) {
  ty_lcrdt *c = check_state(L, 1);
  uint32_t entity = check_u32(L, 2, "entity");
  uint32_t component = check_u32(L, 3, "componentId");
  c->out.len = 0;
  return push_status(L, c, ty_crdt_delete_component(c->state, entity, component, &c->out), entity);
}

/* state:deleteEntity(entity) -> bytes | nil, message */
static int state_delete_entity(lua_State *L) {
  ty_lcrdt *c = check_state(L, 1);
  uint32_t entity = check_u32(L, 2, "entity");
  c->out.len = 0;
  return push_status(L, c, ty_crdt_delete_entity(c->state, entity, &c->out), entity);
}

/* state:get(entity, componentId) -> data, timestamp | nil, timestamp (tombstone) | nil */
static int state_get(lua_State *L) {
  ty_lcrdt *c = check_state(L, 1);
  uint32_t entity = check_u32(L, 2, "entity");
  uint32_t component = check_u32(L, 3, "componentId");
  const uint8_t *data;
  uint32_t len, ts;
  if (!ty_crdt_get(c->state, entity, component, &data, &len, &ts)) {
    lua_pushnil(L);
    return 1;
  }
  if (data) lua_pushlstring(L, (const char *)data, len);
  else lua_pushnil(L);
  lua_pushinteger(L, ts);
  return 2;
}

/* state:isRemoved(entity) -> boolean */
static int state_is_removed(lua_State *L) {
  ty_lcrdt *c = check_state(L, 1);
  lua_pushboolean(L, ty_crdt_removed(c->state, check_u32(L, 2, "entity")));
  return 1;
}

/* state:count() -> stored (component, entity) pairs, tombstones included */
static int state_count(lua_State *L) {
  lua_pushinteger(L, ty_crdt_count(check_state(L, 1)->state));
  return 1;
}

/* state:bytes() -> total length of the live component data stored */
static int state_bytes(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)ty_crdt_bytes(check_state(L, 1)->state));
  return 1;
}

/* state:snapshot([{dump=true}]) -> bytes */
static int state_snapshot(lua_State *L) {
  ty_lcrdt *c = check_state(L, 1);
  unsigned flags = 0;
  if (!lua_isnoneornil(L, 2)) {
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_getfield(L, 2, "dump");
    if (lua_toboolean(L, -1)) flags |= TY_CRDT_SNAPSHOT_DUMP;
    lua_pop(L, 1);
  }
  c->out.len = 0;
  ty_crdt_snapshot(c->state, &c->out, flags);
  return push_out(L, c);
}

static void set_count(lua_State *L, const char *key, uint64_t v) {
  lua_pushinteger(L, (lua_Integer)v);
  lua_setfield(L, -2, key);
}

/* state:stats() -> {messages=, accepted=, ..., malformed=, rejected={truncated=, ...}} */
static int state_stats(lua_State *L) {
  const ty_crdt_stats *st = ty_crdt_get_stats(check_state(L, 1)->state);
  lua_createtable(L, 0, 12);
  set_count(L, "messages", st->messages);
  set_count(L, "accepted", st->accepted);
  set_count(L, "unchanged", st->unchanged);
  set_count(L, "stale", st->stale);
  set_count(L, "removedEntity", st->removed_entity);
  set_count(L, "appendIgnored", st->append_ignored);
  set_count(L, "networkIgnored", st->network_ignored);
  set_count(L, "unknownType", st->unknown_type);
  set_count(L, "componentLimit", st->component_limit);
  set_count(L, "stateLimit", st->state_limit);
  set_count(L, "malformed", st->malformed);
  lua_createtable(L, 0, TY_CRDT_REJECT_COUNT);
  for (int i = 0; i < TY_CRDT_REJECT_COUNT; i++) set_count(L, ty_crdt_reject_name((ty_crdt_reject)i), st->rejected[i]);
  lua_setfield(L, -2, "rejected");
  return 1;
}

static int state_tostring(lua_State *L) {
  ty_lcrdt *c = luaL_checkudata(L, 1, TY_CRDT_STATE);
  if (!c->state) lua_pushliteral(L, "CrdtState (closed)");
  else lua_pushfstring(L, "CrdtState (%d entries)", (int)ty_crdt_count(c->state));
  return 1;
}

/* ---- entity ids and component numbers ---- */

/* tycho.crdt.entity(number [, version]) -> id */
static int crdt_entity(lua_State *L) {
  uint32_t number = check_u16(L, 1, "number");
  uint32_t version = lua_isnoneornil(L, 2) ? 0 : check_u16(L, 2, "version");
  lua_pushinteger(L, ty_crdt_entity(number, version));
  return 1;
}

static int crdt_entity_number(lua_State *L) {
  lua_pushinteger(L, ty_crdt_entity_number(check_u32(L, 1, "entity")));
  return 1;
}

static int crdt_entity_version(lua_State *L) {
  lua_pushinteger(L, ty_crdt_entity_version(check_u32(L, 1, "entity")));
  return 1;
}

/* tycho.crdt.componentId(name) -> @dcl/ecs's component number */
static int crdt_component_id(lua_State *L) {
  size_t len;
  const char *name = luaL_checklstring(L, 1, &len);
  lua_pushinteger(L, ty_crdt_component_id(name, len));
  return 1;
}

/* ---- core::Transform ---- */

/* Reads n floats of field `key` of the table at 1: a table or userdata with x y z (w)
 * fields, such as a Vec3 or Quat, or an array {x, y, z (, w)}. Absent keeps out's defaults. */
static void read_floats(lua_State *L, const char *key, float *out, int n) {
  static const char *const names[] = {"x", "y", "z", "w"};
  int top = lua_gettop(L);
  int t = lua_getfield(L, 1, key);
  if (t == LUA_TNIL) {
    lua_settop(L, top);
    return;
  }
  if (t != LUA_TTABLE && t != LUA_TUSERDATA)
    luaL_argerror(L, 1, lua_pushfstring(L, "'%s' must be a table with x, y, z%s, got %s", key,
                                        n == 4 ? ", w" : "", luaL_typename(L, -1)));
  int v = lua_gettop(L);
  for (int i = 0; i < n; i++) {
    if (lua_getfield(L, v, names[i]) == LUA_TNIL && t == LUA_TTABLE) {
      lua_pop(L, 1);
      lua_rawgeti(L, v, i + 1);
    }
    int ok;
    lua_Number x = lua_tonumberx(L, -1, &ok);
    if (!ok) luaL_argerror(L, 1, lua_pushfstring(L, "'%s.%s' must be a number", key, names[i]));
    out[i] = (float)x;
    lua_pop(L, 1);
  }
  lua_settop(L, top);
}

/* tycho.crdt.transform.encode{position=, rotation=, scale=, parent=} -> 44 bytes */
static int transform_encode(lua_State *L) {
  ty_crdt_transform t;
  ty_crdt_transform_default(&t);
  if (!lua_isnoneornil(L, 1)) {
    luaL_checktype(L, 1, LUA_TTABLE);
    read_floats(L, "position", t.position, 3);
    read_floats(L, "rotation", t.rotation, 4);
    read_floats(L, "scale", t.scale, 3);
    if (lua_getfield(L, 1, "parent") != LUA_TNIL) {
      int ok;
      lua_Integer p = lua_tointegerx(L, -1, &ok);
      if (!ok || p < 0 || p > (lua_Integer)UINT32_MAX)
        return luaL_argerror(L, 1, "'parent' must be an entity id (an integer in 0..4294967295)");
      t.parent = (uint32_t)p;
    }
    lua_pop(L, 1);
  }
  uint8_t out[TY_CRDT_TRANSFORM_SIZE];
  ty_crdt_transform_encode(&t, out);
  lua_pushlstring(L, (const char *)out, sizeof out);
  return 1;
}

static void push_floats(lua_State *L, const float *v, int n) {
  static const char *const names[] = {"x", "y", "z", "w"};
  lua_createtable(L, 0, n);
  for (int i = 0; i < n; i++) {
    lua_pushnumber(L, v[i]);
    lua_setfield(L, -2, names[i]);
  }
}

/* tycho.crdt.transform.decode(bytes) -> {position=, rotation=, scale=, parent=} | nil, message */
static int transform_decode(lua_State *L) {
  size_t len;
  const char *data = luaL_checklstring(L, 1, &len);
  ty_crdt_transform t;
  if (!ty_crdt_transform_decode((const uint8_t *)data, len, &t)) {
    return ty_fail(L, "Transform data must be %d bytes, got %d", TY_CRDT_TRANSFORM_SIZE, (int)len);
  }
  lua_createtable(L, 0, 4);
  push_floats(L, t.position, 3);
  lua_setfield(L, -2, "position");
  push_floats(L, t.rotation, 4);
  lua_setfield(L, -2, "rotation");
  push_floats(L, t.scale, 3);
  lua_setfield(L, -2, "scale");
  lua_pushinteger(L, t.parent);
  lua_setfield(L, -2, "parent");
  return 1;
}

void ty_open_crdt(lua_State *L) {
  static const luaL_Reg methods[] = {
      {"apply", state_apply},
      {"put", state_put},
      {"deleteComponent", state_delete_component},
      {"deleteEntity", state_delete_entity},
      {"get", state_get},
      {"isRemoved", state_is_removed},
      {"count", state_count},
      {"bytes", state_bytes},
      {"snapshot", state_snapshot},
      {"stats", state_stats},
      {NULL, NULL},
  };
  static const luaL_Reg meta[] = {{"__gc", state_gc}, {"__tostring", state_tostring}, {NULL, NULL}};
  static const luaL_Reg funcs[] = {
      {"new", crdt_new},
      {"entity", crdt_entity},
      {"entityNumber", crdt_entity_number},
      {"entityVersion", crdt_entity_version},
      {"componentId", crdt_component_id},
      {NULL, NULL},
  };
  static const luaL_Reg transform[] = {{"encode", transform_encode}, {"decode", transform_decode}, {NULL, NULL}};

  ty_type_register(L, TY_CRDT_STATE, meta, methods);

  luaL_newlib(L, funcs);
  luaL_newlib(L, transform);
  lua_setfield(L, -2, "transform");
  lua_setfield(L, -2, "crdt");
}
