/* bindings/lua_json.c: tycho.json.encode/decode over jansson. Which tables are arrays is
 * lua_json_array.c's rule (keys exactly 1..n, or the __jsontype = "array" mark that
 * tycho.json.array sets and decoded arrays get); integral floats encode as integers;
 * decoded documents are checked against depth and size caps before any Lua value is built,
 * so a hostile frame costs no Lua memory. A flat object (most client frames) is read
 * straight into its table by lua_json_flat.c, and most values are written straight to text
 * by lua_json_write.c, each with the same result as the long way. */
#include "lua_json.h"
#include "lua_json_array.h"
#include "lua_json_flat.h"
#include "lua_json_write.h"

#include <jansson.h>
#include <math.h>

const char *ty_json_status_code(ty_json_status s) {
  switch (s) {
  case TY_JSON_OK: return "ok";
  case TY_JSON_BAD: return "bad_json";
  case TY_JSON_TOO_DEEP: return "too_deep";
  case TY_JSON_TOO_LARGE: return "too_large";
  }
  return "bad_json";
}

/* ---- decode ---- */

/* Walks the parsed document once to enforce the caps. */
static ty_json_status check_limits(const json_t *v, int depth, long *items, const ty_json_limits *lim) {
  if (++*items > lim->max_items) return TY_JSON_TOO_LARGE;
  if (json_is_array(v) || json_is_object(v)) {
    if (depth + 1 > lim->max_depth) return TY_JSON_TOO_DEEP;
  }
  if (json_is_array(v)) {
    size_t i;
    json_t *e;
    json_array_foreach(v, i, e) {
      ty_json_status s = check_limits(e, depth + 1, items, lim);
      if (s) return s;
    }
  } else if (json_is_object(v)) {
    const char *k;
    json_t *e;
    json_object_foreach((json_t *)v, k, e) {
      ty_json_status s = check_limits(e, depth + 1, items, lim);
      if (s) return s;
    }
  }
  return TY_JSON_OK;
}

/* array_mt: stack index of the array marker metatable, set on every decoded array. */
static void push_value(lua_State *L, const json_t *v, int array_mt) {
  luaL_checkstack(L, 3, "JSON nesting");
  switch (json_typeof(v)) {
  case JSON_OBJECT: {
    lua_createtable(L, 0, (int)json_object_size(v));
    const char *k;
    json_t *e;
    json_object_foreach((json_t *)v, k, e) {
      push_value(L, e, array_mt);
      lua_setfield(L, -2, k);
    }
    break;
  }
  case JSON_ARRAY: {
    size_t n = json_array_size(v);
    lua_createtable(L, (int)n, 0);
    lua_pushvalue(L, array_mt);
    lua_setmetatable(L, -2);
    for (size_t i = 0; i < n; i++) {
      push_value(L, json_array_get(v, i), array_mt);
      lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    break;
  }
  case JSON_STRING: lua_pushlstring(L, json_string_value(v), json_string_length(v)); break;
  case JSON_INTEGER: lua_pushinteger(L, (lua_Integer)json_integer_value(v)); break;
  case JSON_REAL: lua_pushnumber(L, json_real_value(v)); break;
  case JSON_TRUE: lua_pushboolean(L, 1); break;
  case JSON_FALSE: lua_pushboolean(L, 0); break;
  case JSON_NULL: lua_pushlightuserdata(L, NULL); break;
  }
}

static int push_tree(lua_State *L) {
  const json_t *root = lua_touserdata(L, 1);
  luaL_checkstack(L, 4, "JSON decode");
  ty_json_push_array_mt(L);
  push_value(L, root, lua_gettop(L));
  lua_remove(L, -2);
  return 1;
}

ty_json_status ty_json_push_decoded(lua_State *L, const char *s, size_t len, const ty_json_limits *lim,
                                    char *err, size_t errsz) {
  ty_json_limits def = {TY_JSON_DEFAULT_DEPTH, TY_JSON_DEFAULT_ITEMS};
  if (!lim) lim = &def;
  if (ty_json_push_flat(L, s, len, lim->max_depth, lim->max_items)) return TY_JSON_OK;
  json_error_t je;
  json_t *root = json_loadb(s, len, JSON_DECODE_ANY, &je);
  if (!root) {
    bool deep = json_error_code(&je) == json_error_stack_overflow;
    snprintf(err, errsz, "%s (at line %d, column %d)", je.text, je.line, je.column);
    return deep ? TY_JSON_TOO_DEEP : TY_JSON_BAD;
  }
  long items = 0;
  ty_json_status st = check_limits(root, 0, &items, lim);
  if (st == TY_JSON_TOO_DEEP) snprintf(err, errsz, "nesting deeper than %d", lim->max_depth);
  else if (st == TY_JSON_TOO_LARGE) snprintf(err, errsz, "more than %ld values", lim->max_items);
  else {
    /* Pushed under a protected call: a refused allocation (a module's memory cap) frees the
     * tree here and is raised again to the caller, instead of leaking it. */
    lua_pushcfunction(L, push_tree);
    lua_pushlightuserdata(L, root);
    if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
      json_decref(root);
      lua_error(L);
    }
  }
  json_decref(root);
  return st;
}

/* ---- encode ---- */

typedef struct enc {
  lua_State *L;
  int seen; /* stack index of the table of tables being encoded (cycle check) */
  char err[160];
} enc;

static json_t *to_json(enc *e, int idx, int depth);

static json_t *table_to_json(enc *e, int idx, int depth) {
  lua_State *L = e->L;
  if (depth > 1000) {
    snprintf(e->err, sizeof e->err, "nesting deeper than 1000");
    return NULL;
  }
  lua_pushvalue(L, idx);
  if (lua_rawget(L, e->seen) != LUA_TNIL) {
    lua_pop(L, 1);
    snprintf(e->err, sizeof e->err, "cannot encode a table that contains itself (a cycle)");
    return NULL;
  }
  lua_pop(L, 1);
  lua_pushvalue(L, idx);
  lua_pushboolean(L, 1);
  lua_rawset(L, e->seen);

  lua_Unsigned n = lua_rawlen(L, idx);
  bool array = ty_json_table_is_array(L, idx, n);

  json_t *out = array ? json_array() : json_object();
  if (array) {
    for (lua_Unsigned i = 1; i <= n; i++) {
      lua_rawgeti(L, idx, (lua_Integer)i);
      json_t *v = to_json(e, lua_gettop(L), depth + 1);
      lua_pop(L, 1);
      if (!v) goto fail;
      json_array_append_new(out, v);
    }
  } else {
    lua_pushnil(L);
    while (lua_next(L, idx)) {
      int kt = lua_type(L, -2);
      if (kt != LUA_TSTRING && kt != LUA_TNUMBER) {
        snprintf(e->err, sizeof e->err, "cannot encode a table key of type %s", lua_typename(L, kt));
        lua_pop(L, 2);
        goto fail;
      }
      json_t *v = to_json(e, lua_gettop(L), depth + 1);
      if (!v) {
        lua_pop(L, 2);
        goto fail;
      }
      lua_pushvalue(L, -2); /* a copy: lua_tolstring on a number key would confuse lua_next */
      size_t kl;
      const char *k = lua_tolstring(L, -1, &kl);
      if (json_object_setn_new(out, k, kl, v) != 0) {
        snprintf(e->err, sizeof e->err, "table key is not valid UTF-8");
        lua_pop(L, 3);
        goto fail;
      }
      lua_pop(L, 2);
    }
  }
  lua_pushvalue(L, idx);
  lua_pushnil(L);
  lua_rawset(L, e->seen);
  return out;
fail:
  json_decref(out);
  return NULL;
}

static json_t *to_json(enc *e, int idx, int depth) {
  lua_State *L = e->L;
  luaL_checkstack(L, 6, "JSON nesting");
  switch (lua_type(L, idx)) {
  case LUA_TNIL: return json_null();
  case LUA_TBOOLEAN: return json_boolean(lua_toboolean(L, idx));
  case LUA_TNUMBER: {
    if (lua_isinteger(L, idx)) return json_integer((json_int_t)lua_tointeger(L, idx));
    double d = lua_tonumber(L, idx);
    if (!isfinite(d)) {
      snprintf(e->err, sizeof e->err, "cannot encode %s", isnan(d) ? "NaN" : "infinity");
      return NULL;
    }
    if (d == floor(d) && fabs(d) < 9.2233720368547758e18) return json_integer((json_int_t)d);
    return json_real(d);
  }
  case LUA_TSTRING: {
    size_t len;
    const char *s = lua_tolstring(L, idx, &len);
    json_t *v = json_stringn(s, len);
    if (!v) snprintf(e->err, sizeof e->err, "cannot encode a string that is not valid UTF-8");
    return v;
  }
  case LUA_TTABLE: return table_to_json(e, idx, depth);
  case LUA_TLIGHTUSERDATA:
    if (lua_touserdata(L, idx) == NULL) return json_null();
    /* fallthrough */
  default:
    snprintf(e->err, sizeof e->err, "cannot encode a %s", luaL_typename(L, idx));
    return NULL;
  }
}

void ty_json_push_long(lua_State *L, int idx) {
  idx = lua_absindex(L, idx);
  enc e = {.L = L};
  lua_newtable(L);
  e.seen = lua_gettop(L);
  json_t *v = to_json(&e, idx, 0);
  lua_pop(L, 1);
  if (!v) luaL_error(L, "json: %s", e.err);
  char *text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
  json_decref(v);
  if (!text) luaL_error(L, "json: out of memory");
  lua_pushstring(L, text);
  free(text);
}

void ty_json_push_encoded(lua_State *L, int idx) {
  if (!ty_json_push_short(L, idx)) ty_json_push_long(L, idx);
}

/* tycho.json.encode(value) -> string */
static int l_encode(lua_State *L) {
  luaL_checkany(L, 1);
  ty_json_push_encoded(L, 1);
  return 1;
}

/* tycho.json.decode(text [, {maxDepth=, maxItems=}]) -> value | nil, message, code */
static int l_decode(lua_State *L) {
  size_t len;
  const char *s = luaL_checklstring(L, 1, &len);
  ty_json_limits lim = {TY_JSON_DEFAULT_DEPTH, TY_JSON_DEFAULT_ITEMS};
  if (!lua_isnoneornil(L, 2)) {
    luaL_checktype(L, 2, LUA_TTABLE);
    if (lua_getfield(L, 2, "maxDepth") != LUA_TNIL) lim.max_depth = (int)luaL_checkinteger(L, -1);
    if (lua_getfield(L, 2, "maxItems") != LUA_TNIL) lim.max_items = (long)luaL_checkinteger(L, -1);
    lua_pop(L, 2);
  }
  char err[256];
  ty_json_status st = ty_json_push_decoded(L, s, len, &lim, err, sizeof err);
  if (st == TY_JSON_OK) return 1;
  lua_pushnil(L);
  lua_pushstring(L, err);
  lua_pushstring(L, ty_json_status_code(st));
  return 3;
}

/* tycho.json.array([t]) -> t: marks t (a new table when nil) to encode as a JSON array, even
 * while empty; the mark is the metatable, so it stays as the table fills. */
static int l_array(lua_State *L) {
  if (lua_isnoneornil(L, 1)) {
    lua_settop(L, 0);
    lua_newtable(L);
  }
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_settop(L, 1);
  if (lua_getmetatable(L, 1)) {
    ty_json_push_array_mt(L);
    bool ours = lua_rawequal(L, -1, -2);
    lua_pop(L, 2);
    if (!ours && !ty_json_is_marked_array(L, 1))
      return luaL_argerror(L, 1, "table has a metatable already (add __jsontype = \"array\" to it instead)");
    return 1;
  }
  ty_json_push_array_mt(L);
  lua_setmetatable(L, 1);
  return 1;
}

/* tycho.json.isArray(v) -> boolean: whether v is a table marked as a JSON array. */
static int l_is_array(lua_State *L) {
  lua_pushboolean(L, lua_istable(L, 1) && ty_json_is_marked_array(L, 1));
  return 1;
}

void ty_open_json(lua_State *L) {
  static const luaL_Reg fns[] = {{"encode", l_encode}, {"decode", l_decode}, {"array", l_array},
                                 {"isArray", l_is_array}, {NULL, NULL}};
  luaL_newlib(L, fns);
  lua_pushlightuserdata(L, NULL);
  lua_setfield(L, -2, "null");
  lua_setfield(L, -2, "json");
}
