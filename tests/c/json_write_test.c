/* tests/c/json_write_test.c: the JSON encoder's short way (bindings/lua_json_write.c) held to
 * the long way's bytes: reals against jansson's own text for the same double, and whole
 * values (random tables of every kind the encoder meets) against the jansson tree path. */
#include <jansson.h>
#include <lauxlib.h>
#include <lualib.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "lua_json.h"
#include "lua_json_write.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next_u64(void) { /* xorshift64* */
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return rng * 2685821657736338717ull;
}
static double next_unit(void) { return (double)(next_u64() >> 11) / 9007199254740992.0; }

/* jansson's text for d as a real, as json_dumps writes it inside a document. */
static void jansson_real(double d, char *out, size_t size) {
  json_t *j = json_real(d);
  char *text = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
  snprintf(out, size, "%s", text ? text : "");
  free(text);
  json_decref(j);
}

static int real_checked, real_short;

static void check_real(double d) {
  char want[64], got[32];
  jansson_real(d, want, sizeof want);
  size_t n = ty_json_real_short(d, got);
  real_checked++;
  if (!n) return;
  real_short++;
  if (strcmp(got, want) != 0) {
    fprintf(stderr, "  real %.17g: short way %s, jansson %s\n", d, got, want);
    check_failures_now++;
  }
}

static void test_reals_match_jansson(void) {
  static const double edges[] = {0.1, 0.2, 0.3, 1.0 / 3, 2.0 / 3, 0.5, 1.5, 123.456, 1e-4, 1.0000000000000001e-4,
                                 9.9999999999999991e-5, 0.00012345, 999999999999999.9, 1e15 - 0.5, 1e15 - 0.125,
                                 99999999999999.99, 9.9999999999999995, 9.99999999999999999, 0.99999999999999989,
                                 12345678.9, 1e14 + 0.5, 5e-324, 2.2250738585072014e-308, 1e21 + 1, 1e300, 0.0,
                                 -0.0, 1e16, 4503599627370495.5, 0.015625, 3.14159265358979, 2.718281828459045};
  for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
    check_real(edges[i]);
    check_real(-edges[i]);
    check_real(nextafter(edges[i], 0));
    check_real(nextafter(edges[i], 1e308));
  }
  for (int e = -6; e <= 16; e++) { /* around every power of ten the fast range meets */
    double p = pow(10, e);
    for (int k = -3; k <= 3; k++) {
      double d = p;
      for (int s = 0; s < (k < 0 ? -k : k); s++) d = nextafter(d, k < 0 ? 0 : 1e308);
      check_real(d);
      check_real(d * 0.5);
      check_real(-d * 3);
    }
  }
  for (int i = 0; i < 400000; i++) {
    double d;
    switch (i % 4) {
    case 0: /* any bit pattern */
      do {
        uint64_t bits = next_u64();
        memcpy(&d, &bits, sizeof d);
      } while (!isfinite(d));
      break;
    case 1: d = (next_unit() - 0.5) * 2000; break;                                     /* game coordinates */
    case 2: d = round((next_unit() - 0.5) * 2e6) / 1000; break;                        /* 3 decimals */
    default: d = (next_unit() + 0.01) * pow(10, (double)(next_u64() % 24) - 6); break; /* every decade */
    }
    check_real(d);
  }
  CHECK(real_short > real_checked / 2); /* the short way takes most of them */
  printf("  reals: %d checked, %d written the short way\n", real_checked, real_short);
}

/* ---- whole values ---- */

static const char *const words[] = {"", "a", "transform", "x", "with \"quotes\"", "back\\slash", "tab\there",
                                    "line\nbreak", "nul\0in", "ctl\x01\x1f\x7f", "slash/", "caf\xc3\xa9",
                                    "bad\xff", "emoji \xf0\x9f\x98\x80"};
static const size_t word_len[] = {0, 1, 9, 1, 13, 10, 8, 10, 6, 6, 6, 5, 4, 10};

static void push_random(lua_State *L, int depth) {
  int kind = (int)(next_u64() % (depth > 3 ? 6 : 9));
  switch (kind) {
  case 0: lua_pushinteger(L, (lua_Integer)(next_u64() % 2000) - 1000); break;
  case 1: lua_pushinteger(L, (lua_Integer)next_u64()); break;
  case 2: {
    double d;
    switch (next_u64() % 5) {
    case 0: d = (next_unit() - 0.5) * 200; break;
    case 1: d = round(next_unit() * 1e4) / 100; break;
    case 2: d = next_unit() * 1e-6; break;
    case 3: d = 1e20 * next_unit() + 1e19; break;
    default: d = (double)(int)(next_u64() % 100); break; /* integral: an integer */
    }
    lua_pushnumber(L, d);
    break;
  }
  case 3: {
    size_t w = next_u64() % (sizeof words / sizeof words[0]);
    lua_pushlstring(L, words[w], word_len[w]);
    break;
  }
  case 4: lua_pushboolean(L, (int)(next_u64() & 1)); break;
  case 5: lua_pushlightuserdata(L, NULL); break;
  case 6: /* a list, marked or not */
  case 7: {
    int n = (int)(next_u64() % 5);
    lua_createtable(L, n, 0);
    for (int i = 1; i <= n; i++) {
      push_random(L, depth + 1);
      lua_rawseti(L, -2, i);
    }
    if (kind == 7 || n == 0) {
      lua_createtable(L, 0, 1);
      lua_pushliteral(L, "array");
      lua_setfield(L, -2, "__jsontype");
      lua_setmetatable(L, -2);
    }
    break;
  }
  default: { /* an object; now and then a number key or a hole in a list */
    int n = (int)(next_u64() % 6);
    lua_createtable(L, 0, n);
    for (int i = 0; i < n; i++) {
      uint64_t r = next_u64() % 12;
      if (r == 0) lua_pushinteger(L, (lua_Integer)(next_u64() % 4) + 1);
      else if (r == 1) lua_pushnumber(L, 2.5);
      else {
        size_t w = next_u64() % (sizeof words / sizeof words[0]);
        lua_pushlstring(L, words[w], word_len[w]);
        if (word_len[w] == 0) lua_pushfstring(L, "k%d", i), lua_remove(L, -2);
      }
      push_random(L, depth + 1);
      lua_rawset(L, -3);
    }
  }
  }
}

static int long_way(lua_State *L) {
  ty_json_push_long(L, 1);
  return 1;
}

/* The long way's text for the value at the top, or NULL where it raises (its error on the
 * stack is popped). */
static const char *encode_long(lua_State *L) {
  lua_pushcfunction(L, long_way);
  lua_pushvalue(L, -2);
  if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
    lua_pop(L, 1);
    return NULL;
  }
  return lua_tostring(L, -1);
}

static void test_values_match_the_long_way(void) {
  lua_State *L = luaL_newstate();
  int shorts = 0, total = 20000;
  for (int i = 0; i < total; i++) {
    push_random(L, 0);
    int top = lua_gettop(L);
    bool ok = ty_json_push_short(L, -1);
    CHECK_EQ_INT(lua_gettop(L), top + (ok ? 1 : 0));
    if (!ok) {
      lua_pop(L, 1);
      continue;
    }
    shorts++;
    lua_pushvalue(L, -2);
    const char *want = encode_long(L);
    const char *got = lua_tostring(L, -3);
    if (!want || strcmp(got, want) != 0) {
      fprintf(stderr, "  value %d: short way %s, long way %s\n", i, got, want ? want : "(raised)");
      check_failures_now++;
    }
    lua_settop(L, 0);
  }
  CHECK(shorts > total / 4);
  printf("  values: %d encoded, %d the short way\n", total, shorts);
  lua_close(L);
}

static int self_ref(lua_State *L) {
  lua_newtable(L);
  lua_pushvalue(L, -1);
  lua_setfield(L, -2, "me");
  return 1;
}

static void test_leaves_what_raises_to_the_long_way(void) {
  lua_State *L = luaL_newstate();
  lua_pushnumber(L, NAN);
  CHECK(!ty_json_push_short(L, -1));
  lua_pushnumber(L, HUGE_VAL);
  CHECK(!ty_json_push_short(L, -1));
  lua_pushcfunction(L, self_ref);
  CHECK(!ty_json_push_short(L, -1));
  self_ref(L); /* a cycle */
  CHECK(!ty_json_push_short(L, -1));
  lua_pushlstring(L, "\xc3\xa9", 2); /* not ASCII: jansson checks its UTF-8 */
  CHECK(!ty_json_push_short(L, -1));
  CHECK_EQ_INT(lua_gettop(L), 5);
  lua_settop(L, 0);
  /* past the stack buffer: a long array of long strings */
  lua_createtable(L, 500, 0);
  for (int i = 1; i <= 500; i++) {
    lua_pushfstring(L, "item number %d with some text to make it long", i);
    lua_rawseti(L, -2, i);
  }
  CHECK(ty_json_push_short(L, 1));
  lua_pushvalue(L, 1);
  const char *want = encode_long(L);
  CHECK(want && strcmp(lua_tostring(L, 2), want) == 0);
  lua_close(L);
}

int main(void) {
  RUN(test_reals_match_jansson);
  RUN(test_values_match_the_long_way);
  RUN(test_leaves_what_raises_to_the_long_way);
  return check_summary();
}
