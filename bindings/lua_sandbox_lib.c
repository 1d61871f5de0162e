/* bindings/lua_sandbox_lib.c: the standard library a sandboxed scene sees, function by
 * function.
 *
 * The instruction hook counts Lua instructions, not the C loops inside library functions,
 * so every function a scene can reach is one of three kinds (the table is in
 * scripts/docs/sync.md, "What each library function costs"):
 * - stock: its work is constant, or it calls back into Lua code that the hook counts;
 * - charged: it loops in C over values or bytes its arguments choose; the count is charged
 *   to the call's budget (ty_fence_charge) before the stock function runs, so a call
 *   that would pass the budget raises instead of running. The arguments the charge reads
 *   are checked first, with the stock function's own checks, so honest calls and their
 *   errors read the same as in stock Lua;
 * - refused: raises "... is not available in a sandboxed scene".
 * Memory any call allocates is charged as well, by the scene's allocator (lua_sandbox.c),
 * which covers the bytes a call writes (string.rep, table.concat, string.format, ...). The
 * pattern functions are reimplemented with a step count in lua_sandbox_pattern.c. */
#include "lua_sandbox.h"

#include "lua_fence.h"

#include <limits.h>
#include <stdbool.h>
#include <string.h>

/* Bytes a scanning C loop (case mapping, UTF-8 decoding, number parsing) covers per step. */
#define BYTES_PER_STEP 8
/* Results past Lua's stack limit make the stock function raise "too many results" by
 * itself; charging them first would turn that error into a stop. */
#define MAX_RESULTS 1000000

static size_t clamp(lua_Unsigned n) { return n > (lua_Unsigned)(SIZE_MAX / 4) ? SIZE_MAX / 4 : (size_t)n; }

/* j - i + 1 when j >= i, else 0, without overflow. */
static size_t span(lua_Integer i, lua_Integer j) { return j >= i ? clamp((lua_Unsigned)j - (lua_Unsigned)i + 1u) : 0; }

static size_t scan(size_t bytes) { return bytes / BYTES_PER_STEP; }

/* The length of the value at idx as the stock table functions read it: the raw length of a
 * plain table (no side effects), luaL_len (which may run __len, counted by the hook) for
 * anything with a metatable. */
static lua_Integer len_of(lua_State *S, int idx) {
  if (lua_type(S, idx) == LUA_TTABLE && !lua_getmetatable(S, idx)) return (lua_Integer)lua_rawlen(S, idx);
  if (lua_type(S, idx) == LUA_TTABLE) lua_pop(S, 1);
  return luaL_len(S, idx);
}

/* The stock table functions accept a table, or anything whose metatable gives the access
 * they need; anything else gets the standard "table expected" error. */
static void check_tab(lua_State *S, int idx) {
  if (lua_type(S, idx) == LUA_TTABLE) return;
  if (lua_getmetatable(S, idx)) {
    lua_pop(S, 1);
    return; /* the stock function checks the fields it needs */
  }
  luaL_checktype(S, idx, LUA_TTABLE);
}

/* string.byte's and utf8.codepoint's start position. */
static lua_Integer start_pos(lua_Integer pos, size_t len) {
  if (pos > 0) return pos;
  if (pos == 0) return 1;
  if (pos < -(lua_Integer)len) return 1;
  return (lua_Integer)len + pos + 1;
}

/* string.byte's end position. */
static lua_Integer end_pos(lua_Integer pos, size_t len) {
  if (pos > (lua_Integer)len) return (lua_Integer)len;
  if (pos >= 0) return pos;
  if (pos < -(lua_Integer)len) return 0;
  return (lua_Integer)len + pos + 1;
}

/* ---- what each charged function costs, read from its arguments ---- */

/* string.byte(s [, i [, j]]): one step per result. */
static size_t cost_byte(lua_State *S) {
  size_t len;
  luaL_checklstring(S, 1, &len);
  lua_Integer i = start_pos(luaL_optinteger(S, 2, 1), len);
  lua_Integer j = end_pos(luaL_optinteger(S, 3, i), len);
  size_t n = span(i, j);
  return n < MAX_RESULTS ? n : 0;
}

/* table.pack(...): one step per argument. */
static size_t cost_args(lua_State *S) { return (size_t)lua_gettop(S); }

/* string.char(...) and utf8.char(...): one step per argument, each an integer up to max. */
static size_t chars(lua_State *S, lua_Unsigned max) {
  int n = lua_gettop(S);
  for (int i = 1; i <= n; i++) luaL_argcheck(S, (lua_Unsigned)luaL_checkinteger(S, i) <= max, i, "value out of range");
  return (size_t)n;
}
static size_t cost_char(lua_State *S) { return chars(S, UCHAR_MAX); }
static size_t cost_utf8_char(lua_State *S) { return chars(S, 0x7FFFFFFFu); }

/* tonumber(v [, base]): the bytes of a string it parses. */
static size_t cost_tonumber(lua_State *S) {
  if (lua_isnoneornil(S, 2)) {
    luaL_checkany(S, 1);
  } else {
    lua_Integer base = luaL_checkinteger(S, 2);
    luaL_checktype(S, 1, LUA_TSTRING);
    luaL_argcheck(S, 2 <= base && base <= 36, 2, "base out of range");
  }
  return lua_type(S, 1) == LUA_TSTRING ? scan(lua_rawlen(S, 1)) : 0;
}

/* select(n, ...): one step per result it copies. */
static size_t cost_select(lua_State *S) {
  int n = lua_gettop(S);
  if (lua_type(S, 1) == LUA_TSTRING && *lua_tostring(S, 1) == '#') return 0;
  lua_Integer i = luaL_checkinteger(S, 1);
  if (i < 0) i = n + i;
  else if (i > n) i = n;
  luaL_argcheck(S, 1 <= i, 1, "index out of range");
  return (size_t)(n - i);
}

/* string.lower, upper, reverse (s): a step per BYTES_PER_STEP bytes. */
static size_t cost_scan1(lua_State *S) {
  size_t len;
  luaL_checklstring(S, 1, &len);
  return scan(len);
}

/* string.format, string.pack, tonumber: the bytes of every string argument scanned, and a
 * step per argument. */
static size_t cost_strings(lua_State *S) {
  int n = lua_gettop(S);
  size_t bytes = 0;
  for (int i = 1; i <= n; i++)
    if (lua_type(S, i) == LUA_TSTRING) bytes += lua_rawlen(S, i);
  return (size_t)n + scan(bytes);
}

/* string.packsize(fmt), string.unpack(fmt, s [, pos]): a step per format byte (each can
 * read one value). */
static size_t cost_format(lua_State *S) {
  size_t len;
  luaL_checklstring(S, 1, &len);
  return len;
}

/* string.rep(s, n [, sep]): n iterations (s and sep may be empty), plus the bytes written. */
static size_t cost_rep(lua_State *S) {
  size_t ls, lsep;
  luaL_checklstring(S, 1, &ls);
  lua_Integer n = luaL_checkinteger(S, 2);
  luaL_optlstring(S, 3, "", &lsep);
  if (n <= 0) return 0;
  lua_Unsigned count = (lua_Unsigned)n, unit = (lua_Unsigned)ls + lsep;
  lua_Unsigned bytes = unit && count > (lua_Unsigned)SIZE_MAX / unit ? (lua_Unsigned)SIZE_MAX : count * unit;
  return clamp(count) + scan(clamp(bytes));
}

/* table.concat(t [, sep [, i [, j]]]): a step per item. */
static size_t cost_concat(lua_State *S) {
  check_tab(S, 1);
  lua_Integer last = len_of(S, 1);
  luaL_optstring(S, 2, "");
  lua_Integer i = luaL_optinteger(S, 3, 1);
  last = luaL_optinteger(S, 4, last);
  return span(i, last);
}

/* table.unpack(t [, i [, j]]): a step per result. */
static size_t cost_unpack(lua_State *S) {
  lua_Integer i = luaL_optinteger(S, 2, 1);
  lua_Integer e = lua_isnoneornil(S, 3) ? len_of(S, 1) : luaL_checkinteger(S, 3);
  size_t n = span(i, e);
  return n < MAX_RESULTS ? n : 0;
}

/* table.insert(t, [pos,] v): a step per element it shifts up. */
static size_t cost_insert(lua_State *S) {
  check_tab(S, 1);
  lua_Integer e = len_of(S, 1);
  if (lua_gettop(S) != 3) return 1; /* appends, or raises its own error */
  e = (lua_Integer)((lua_Unsigned)e + 1u);
  lua_Integer pos = luaL_checkinteger(S, 2);
  luaL_argcheck(S, (lua_Unsigned)pos - 1u < (lua_Unsigned)e, 2, "position out of bounds");
  return span(pos, e);
}

/* table.remove(t [, pos]): a step per element it shifts down. */
static size_t cost_remove(lua_State *S) {
  check_tab(S, 1);
  lua_Integer size = len_of(S, 1);
  lua_Integer pos = luaL_optinteger(S, 2, size);
  if (pos != size) luaL_argcheck(S, (lua_Unsigned)pos - 1u <= (lua_Unsigned)size, 2, "position out of bounds");
  return span(pos, size);
}

/* table.move(a1, f, e, t [, a2]): a step per element moved. */
static size_t cost_move(lua_State *S) {
  lua_Integer f = luaL_checkinteger(S, 2), e = luaL_checkinteger(S, 3);
  luaL_checkinteger(S, 4);
  check_tab(S, 1);
  if (!lua_isnoneornil(S, 5)) check_tab(S, 5);
  return span(f, e);
}

/* table.sort(t [, comp]): n log2 n comparisons (a comparator's own instructions are
 * counted by the hook besides). */
static size_t cost_sort(lua_State *S) {
  check_tab(S, 1);
  lua_Integer n = len_of(S, 1);
  if (n > 1) luaL_argcheck(S, n < INT_MAX, 1, "array too big");
  if (!lua_isnoneornil(S, 2)) luaL_checktype(S, 2, LUA_TFUNCTION);
  if (n <= 1) return 0;
  size_t log = 1;
  while (((lua_Integer)1 << log) < n) log++;
  return clamp((lua_Unsigned)n * log);
}

/* utf8's relative positions (utf8.codepoint): negative counts from the end, 0 when it
 * falls before the start. */
static lua_Integer utf8_pos(lua_Integer pos, size_t len) {
  if (pos >= 0) return pos;
  if (0u - (size_t)pos > len) return 0;
  return (lua_Integer)len + pos + 1;
}

/* utf8.codepoint(s [, i [, j]]): a step per byte of the range. */
static size_t cost_codepoint(lua_State *S) {
  size_t len;
  luaL_checklstring(S, 1, &len);
  lua_Integer i = utf8_pos(luaL_optinteger(S, 2, 1), len);
  lua_Integer j = utf8_pos(luaL_optinteger(S, 3, i), len);
  luaL_argcheck(S, i >= 1, 2, "out of bounds");
  luaL_argcheck(S, j <= (lua_Integer)len, 3, "out of bounds");
  size_t n = span(i, j);
  return n < MAX_RESULTS ? n : 0;
}

/* ---- refused and restricted ---- */

/* collectgarbage("count") only: a full collection over the scene's heap is work the hook
 * never sees, and the engine runs the collector for it anyway. */
static int sb_collectgarbage(lua_State *S) {
  const char *opt = luaL_optstring(S, 1, "collect");
  if (strcmp(opt, "count") != 0)
    return luaL_error(S, "collectgarbage(\"%s\") is not available in a sandboxed scene: only \"count\" is", opt);
  lua_pushnumber(S, (lua_Number)lua_gc(S, LUA_GCCOUNT, 0) + (lua_Number)lua_gc(S, LUA_GCCOUNTB, 0) / 1024.0);
  return 1;
}

static int sb_refused(lua_State *S) {
  return luaL_error(S, "%s is not available in a sandboxed scene", lua_tostring(S, lua_upvalueindex(1)));
}

/* ---- wiring ---- */

typedef size_t (*cost_fn)(lua_State *S);

static const cost_fn costs[] = {cost_byte,   cost_args,   cost_char,     cost_utf8_char, cost_tonumber,
                                cost_select, cost_scan1,  cost_strings,  cost_format,    cost_rep,
                                cost_concat, cost_unpack, cost_insert,   cost_remove,    cost_move,
                                cost_sort,   cost_codepoint};
enum {
  BYTE, ARGS, CHAR, UTF8_CHAR, TONUMBER, SELECT, SCAN1, STRINGS, FORMAT, REP,
  CONCAT, UNPACK, INSERT, REMOVE, MOVE, SORT, CODEPOINT
};

/* A charged function: upvalue 1 the stock function, 2 the index of its cost, 3 its weight. */
static int charged(lua_State *S) {
  size_t units = costs[lua_tointeger(S, lua_upvalueindex(2))](S);
  if (units) ty_fence_charge(S, clamp((lua_Unsigned)units * (lua_Unsigned)lua_tointeger(S, lua_upvalueindex(3))));
  lua_pushvalue(S, lua_upvalueindex(1));
  lua_insert(S, 1);
  lua_call(S, lua_gettop(S) - 1, LUA_MULTRET);
  return lua_gettop(S);
}

/* weight: steps per unit of the cost (a value or BYTES_PER_STEP bytes), as measured against
 * the time a plain Lua instruction takes: a table.concat item costs about four, a utf8.char
 * argument (a formatted string each) about ten. checked: the cost function makes every
 * argument check the stock function makes, so no argument error comes from inside it. */
static const struct {
  const char *lib, *name; /* lib NULL: a global */
  int cost, weight;
  bool checked;
} charged_fns[] = {
    {NULL, "select", SELECT, 1, true},
    {NULL, "tonumber", TONUMBER, 2, true},
    {LUA_STRLIBNAME, "byte", BYTE, 2, true},
    {LUA_STRLIBNAME, "char", CHAR, 2, true},
    {LUA_STRLIBNAME, "format", STRINGS, 2, false},
    {LUA_STRLIBNAME, "lower", SCAN1, 2, true},
    {LUA_STRLIBNAME, "upper", SCAN1, 2, true},
    {LUA_STRLIBNAME, "reverse", SCAN1, 2, true},
    {LUA_STRLIBNAME, "rep", REP, 1, true},
    {LUA_STRLIBNAME, "pack", STRINGS, 2, false},
    {LUA_STRLIBNAME, "packsize", FORMAT, 1, false},
    {LUA_STRLIBNAME, "unpack", FORMAT, 2, false},
    {LUA_TABLIBNAME, "concat", CONCAT, 4, true},
    {LUA_TABLIBNAME, "unpack", UNPACK, 2, true},
    {LUA_TABLIBNAME, "insert", INSERT, 4, true},
    {LUA_TABLIBNAME, "remove", REMOVE, 4, true},
    {LUA_TABLIBNAME, "move", MOVE, 4, true},
    {LUA_TABLIBNAME, "sort", SORT, 4, true},
    {LUA_TABLIBNAME, "pack", ARGS, 2, true},
    {LUA_UTF8LIBNAME, "char", UTF8_CHAR, 10, true},
    {LUA_UTF8LIBNAME, "codepoint", CODEPOINT, 4, true},
    {LUA_UTF8LIBNAME, "len", SCAN1, 2, false},
    {LUA_UTF8LIBNAME, "offset", SCAN1, 2, false},
};

/* Pushes the table a library function lives in (the globals for lib NULL). */
static void push_lib(lua_State *S, const char *lib) {
  if (lib) lua_getglobal(S, lib);
  else lua_pushglobaltable(S);
}

/* The scene sees copies of string, table and utf8 (the strings' __index included), while
 * the loaded-modules table, which the scene cannot reach, is where Lua looks up the name of
 * a C function called without a call site (through pcall, or by the wrapper): it holds the
 * wrapper where the wrapper makes all the argument checks, the stock function where the
 * stock one makes some, so that `pcall(string.rep)` and `pcall(string.format, "%d", "x")`
 * both name their function as stock Lua does. */
static void copy_lib(lua_State *S, const char *lib) {
  lua_getglobal(S, lib);
  lua_newtable(S);
  for (lua_pushnil(S); lua_next(S, -3);) {
    lua_pushvalue(S, -2);
    lua_insert(S, -2);
    lua_rawset(S, -4);
  }
  lua_setglobal(S, lib);
  lua_pop(S, 1);
}

void ty_sandbox_open_lib(lua_State *S) {
  copy_lib(S, LUA_STRLIBNAME);
  copy_lib(S, LUA_TABLIBNAME);
  copy_lib(S, LUA_UTF8LIBNAME);
  lua_pushliteral(S, "");
  lua_getmetatable(S, -1);
  lua_getglobal(S, LUA_STRLIBNAME);
  lua_setfield(S, -2, "__index");
  lua_pop(S, 2);
  for (size_t i = 0; i < sizeof charged_fns / sizeof *charged_fns; i++) {
    push_lib(S, charged_fns[i].lib);
    lua_getfield(S, -1, charged_fns[i].name);
    lua_pushinteger(S, charged_fns[i].cost);
    lua_pushinteger(S, charged_fns[i].weight);
    lua_pushcclosure(S, charged, 3);
    if (charged_fns[i].lib && charged_fns[i].checked) {
      luaL_getsubtable(S, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
      lua_getfield(S, -1, charged_fns[i].lib);
      lua_pushvalue(S, -3);
      lua_setfield(S, -2, charged_fns[i].name);
      lua_pop(S, 2);
    }
    lua_setfield(S, -2, charged_fns[i].name);
    lua_pop(S, 1);
  }
  static const struct {
    const char *lib, *name, *shown;
  } refused[] = {
      {NULL, "dofile", "dofile"},
      {NULL, "loadfile", "loadfile"},
      {LUA_STRLIBNAME, "dump", "string.dump"},
  };
  for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
    push_lib(S, refused[i].lib);
    lua_pushstring(S, refused[i].shown);
    lua_pushcclosure(S, sb_refused, 1);
    lua_setfield(S, -2, refused[i].name);
    lua_pop(S, 1);
  }
  lua_pushcfunction(S, sb_collectgarbage);
  lua_setglobal(S, "collectgarbage");
}
