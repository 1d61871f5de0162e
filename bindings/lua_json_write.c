/* bindings/lua_json_write.c: the encoder's short way for what a game server sends most
 * (small tables of ASCII strings, integers and coordinates): written straight from the Lua
 * values into one buffer, with no jansson tree in between (an allocation per value, a hash
 * table per object) and no printf per number. It writes exactly the bytes jansson's
 * json_dumps(JSON_COMPACT) writes for the tree lua_json.c builds, and takes only what it can
 * write so: a string with a byte outside ASCII, an object key that is not a string, a real
 * that "%.17g" would not write in plain decimals, nesting past SHORT_DEPTH (a cycle among
 * them), and every value that raises, go the long way, which also words the errors. */
#include "lua_json_write.h"
#include "lua_json_array.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define SHORT_DEPTH 32 /* deeper documents (and cycles) are jansson's */

typedef struct wbuf {
  lua_State *L;
  int slot;  /* stack index that holds the buffer once it outgrows stack[] (a userdata) */
  char *p;
  size_t len, cap;
  char stack[1024];
} wbuf;

/* Past stack[], the buffer is a userdata in the slot kept for it: the state's memory (a
 * module's cap counts it), and nothing to free when a refused allocation raises. */
static void grow(wbuf *b, size_t more) {
  if (b->len + more <= b->cap) return;
  size_t cap = b->cap * 2;
  while (cap < b->len + more) cap *= 2;
  char *p = lua_newuserdatauv(b->L, cap, 0);
  memcpy(p, b->p, b->len);
  lua_replace(b->L, b->slot);
  b->p = p;
  b->cap = cap;
}

static bool put(wbuf *b, const char *s, size_t n) {
  grow(b, n);
  memcpy(b->p + b->len, s, n);
  b->len += n;
  return true;
}

/* "%lld" */
static bool put_integer(wbuf *b, long long v) {
  char tmp[24], *q = tmp + sizeof tmp;
  unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
  do *--q = (char)('0' + u % 10);
  while (u /= 10);
  if (v < 0) *--q = '-';
  return put(b, q, (size_t)(tmp + sizeof tmp - q));
}

size_t ty_json_real_short(double d, char out[32]) {
  if (!isfinite(d) || d == 0) return 0;
  double a = fabs(d);
  if (a < 1e-4 || a >= 1e15) return 0; /* "%.17g" writes these with an exponent, or they are integers */
  int ex;
  double f = frexp(a, &ex); /* a = f * 2^ex, f in [0.5, 1) */
  uint64_t m = (uint64_t)ldexp(f, 53);
  int shift = 53 - ex; /* a = m / 2^shift, shift in [3, 67] here */
  if (shift <= 0 || shift >= 100) return 0;
  static const uint64_t pow10[] = {1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
                                   100000000ull, 1000000000ull, 10000000000ull, 100000000000ull,
                                   1000000000000ull, 10000000000000ull, 100000000000000ull,
                                   1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
                                   1000000000000000000ull, 10000000000000000000ull};
  /* 17 significant digits: q = the integer part of a * 10^k with q in [1e16, 1e17), then
   * rounded half to even on the exact remainder, as glibc's printf rounds. */
  int k = 16 - (int)floor(log10(a));
  unsigned __int128 q = 0, r = 0, half = (unsigned __int128)1 << (shift - 1);
  for (int tries = 0; tries < 3; tries++) {
    if (k < 1 || k > 21) return 0;
    unsigned __int128 p10 = k > 19 ? (unsigned __int128)pow10[k - 19] * pow10[19] : pow10[k];
    unsigned __int128 num = (unsigned __int128)m * p10; /* < 2^53 * 10^21 < 2^123 */
    q = num >> shift;
    r = num - (q << shift);
    if (q < pow10[16]) k++;
    else if (q >= pow10[17]) k--;
    else break;
  }
  if (q < pow10[16] || q >= pow10[17]) return 0;
  if (r > half || (r == half && (q & 1))) q++;
  if (q == pow10[17]) { /* 99999999999999999.5 -> 1e17: one digit fewer after the point */
    q = pow10[16];
    k--;
  }
  int x = 16 - k; /* the decimal exponent of the first digit */
  if (x < -4 || x >= 17) return 0;
  char digits[17];
  uint64_t v = (uint64_t)q;
  for (int i = 16; i >= 0; i--, v /= 10) digits[i] = (char)('0' + v % 10);
  int nd = 17;
  while (nd > 1 && digits[nd - 1] == '0') nd--; /* %g drops trailing zeros */
  size_t o = 0;
  if (d < 0) out[o++] = '-';
  if (x >= 0) {
    for (int i = 0; i <= x; i++) out[o++] = i < nd ? digits[i] : '0';
    if (nd > x + 1) {
      out[o++] = '.';
      for (int i = x + 1; i < nd; i++) out[o++] = digits[i];
    } else { /* no fraction left: jansson adds ".0" so that it reads back as a real */
      out[o++] = '.';
      out[o++] = '0';
    }
  } else {
    out[o++] = '0';
    out[o++] = '.';
    for (int i = 0; i < -x - 1; i++) out[o++] = '0';
    for (int i = 0; i < nd; i++) out[o++] = digits[i];
  }
  out[o] = 0;
  return o;
}

/* A string as jansson writes it, when it is all ASCII (no UTF-8 to check). */
static bool put_string(wbuf *b, const char *s, size_t n) {
  grow(b, n + 2);
  b->p[b->len++] = '"';
  size_t run = 0; /* bytes of s from run on are plain, not yet copied */
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x80) return false;
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    if (!put(b, s + run, i - run)) return false;
    run = i + 1;
    char esc[7] = {'\\', 0};
    size_t en = 2;
    switch (c) {
    case '"': esc[1] = '"'; break;
    case '\\': esc[1] = '\\'; break;
    case '\b': esc[1] = 'b'; break;
    case '\f': esc[1] = 'f'; break;
    case '\n': esc[1] = 'n'; break;
    case '\r': esc[1] = 'r'; break;
    case '\t': esc[1] = 't'; break;
    default:
      memcpy(esc + 1, "u00", 3);
      esc[4] = "0123456789ABCDEF"[c >> 4];
      esc[5] = "0123456789ABCDEF"[c & 15];
      en = 6;
    }
    if (!put(b, esc, en)) return false;
  }
  return put(b, s + run, n - run) && put(b, "\"", 1);
}

static bool put_value(lua_State *L, wbuf *b, int idx, int depth);

static bool put_table(lua_State *L, wbuf *b, int idx, int depth) {
  if (depth > SHORT_DEPTH || !lua_checkstack(L, 4)) return false;
  lua_Unsigned n = lua_rawlen(L, idx);
  bool array = ty_json_table_is_array(L, idx, n);
  if (array) {
    if (!put(b, "[", 1)) return false;
    for (lua_Unsigned i = 1; i <= n; i++) {
      lua_rawgeti(L, idx, (lua_Integer)i);
      bool ok = (i == 1 || put(b, ",", 1)) && put_value(L, b, lua_gettop(L), depth + 1);
      lua_pop(L, 1);
      if (!ok) return false;
    }
    return put(b, "]", 1);
  }
  if (!put(b, "{", 1)) return false;
  bool first = true;
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    size_t kl;
    const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tolstring(L, -2, &kl) : NULL;
    bool ok = k && (first || put(b, ",", 1)) && put_string(b, k, kl) && put(b, ":", 1) &&
              put_value(L, b, lua_gettop(L), depth + 1);
    lua_pop(L, 1);
    if (!ok) {
      lua_pop(L, 1);
      return false;
    }
    first = false;
  }
  return put(b, "}", 1);
}

static bool put_value(lua_State *L, wbuf *b, int idx, int depth) {
  switch (lua_type(L, idx)) {
  case LUA_TNIL: return put(b, "null", 4);
  case LUA_TBOOLEAN: return lua_toboolean(L, idx) ? put(b, "true", 4) : put(b, "false", 5);
  case LUA_TLIGHTUSERDATA: return lua_touserdata(L, idx) == NULL && put(b, "null", 4);
  case LUA_TSTRING: {
    size_t len;
    const char *s = lua_tolstring(L, idx, &len);
    return put_string(b, s, len);
  }
  case LUA_TNUMBER: {
    if (lua_isinteger(L, idx)) return put_integer(b, (long long)lua_tointeger(L, idx));
    double d = lua_tonumber(L, idx);
    if (!isfinite(d)) return false;
    if (d == floor(d) && fabs(d) < 9.2233720368547758e18) return put_integer(b, (long long)d);
    char text[32];
    size_t n = ty_json_real_short(d, text);
    return n && put(b, text, n);
  }
  case LUA_TTABLE: return put_table(L, b, idx, depth);
  default: return false;
  }
}

bool ty_json_push_short(lua_State *L, int idx) {
  idx = lua_absindex(L, idx);
  wbuf b;
  b.L = L;
  b.p = b.stack;
  b.len = 0;
  b.cap = sizeof b.stack;
  lua_pushnil(L);
  b.slot = lua_gettop(L);
  bool ok = put_value(L, &b, idx, 0);
  lua_settop(L, b.slot);
  if (ok) lua_pushlstring(L, b.p, b.len);
  lua_remove(L, b.slot);
  return ok;
}
