/* bindings/lua_json_flat.c: the decoder's short way for the frames a game server gets most
 * (a flat object such as {"t":"transform","x":1.5,...}): read straight into a Lua table,
 * with no jansson tree in between. It takes only what it can read exactly as jansson would,
 * and gives the same table (the same values, fields set in the same order); anything else
 * (nesting, escapes, bytes outside printable ASCII, a repeated key, a number jansson would
 * refuse, a document over the caps) is left to the full decoder, which also words the
 * errors. */
#include "lua_json_flat.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FLAT_MAX_FIELDS 16
#define FLAT_NUMBER_MAX 64 /* longer numbers go the long way (they are copied to end them) */
#define INTEGER_DIGITS 18  /* an integer this long can not pass lua_Integer's range */

typedef enum flat_kind { FLAT_STRING, FLAT_INTEGER, FLAT_REAL, FLAT_TRUE, FLAT_FALSE, FLAT_NULL } flat_kind;

typedef struct flat_field {
  const char *key, *text; /* text: a string's bytes */
  size_t key_len, text_len;
  flat_kind kind;
  lua_Integer i;
  double d;
} flat_field;

static const char *skip_ws(const char *p, const char *end) {
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
  return p;
}

/* A string of printable ASCII with no escape, after its opening quote: returns the byte
 * after its closing quote, or NULL. */
static const char *scan_string(const char *p, const char *end, const char **s, size_t *n) {
  const char *start = p;
  while (p < end && *p != '"') {
    unsigned char c = (unsigned char)*p;
    if (c < 0x20 || c > 0x7e || c == '\\') return NULL;
    p++;
  }
  if (p >= end) return NULL;
  *s = start;
  *n = (size_t)(p - start);
  return p + 1;
}

static const char *scan_digits(const char *p, const char *end) {
  while (p < end && *p >= '0' && *p <= '9') p++;
  return p;
}

/* A real whose digits make an integer w of at most 2^53 and whose decimal exponent e is
 * within 22: w and 10^|e| are both exact doubles, so one multiplication or division rounds
 * once, to the same double strtod gives (the correctly rounded one), without strtod's
 * general machinery. False (d untouched) for any other: strtod reads those. p..end is a
 * number already in JSON's grammar. */
static bool real_exact(const char *p, const char *end, double *d) {
  static const double pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  bool neg = *p == '-';
  if (neg) p++;
  uint64_t w = 0;
  int digits = 0, e = 0;
  for (; p < end && *p != 'e' && *p != 'E'; p++) {
    if (*p == '.') {
      e = -(int)(end - p); /* corrected below by the digits after the point */
      continue;
    }
    if (w || *p != '0') digits++;
    if (digits > 19) return false;
    w = w * 10 + (uint64_t)(*p - '0');
  }
  if (e) e += (int)(end - p) + 1; /* -(digits after the point) */
  if (p < end) { /* the exponent */
    p++;
    bool eneg = *p == '-';
    if (*p == '-' || *p == '+') p++;
    int x = 0;
    for (; p < end; p++) {
      x = x * 10 + (*p - '0');
      if (x > 1000) return false;
    }
    e += eneg ? -x : x;
  }
  if (w > (1ull << 53) || e < -22 || e > 22) return false;
  double v = (double)w;
  v = e < 0 ? v / pow10[-e] : v * pow10[e];
  *d = neg ? -v : v;
  return true;
}

/* A number in JSON's grammar, read as jansson reads it: an integer (no fraction, no
 * exponent) with strtoll, else a real with strtod. NULL where jansson would refuse it (out
 * of range) or where the grammar does not hold. */
static const char *scan_number(const char *p, const char *end, flat_field *f) {
  const char *start = p;
  if (p < end && *p == '-') p++;
  const char *digits = p;
  if (p >= end || *p < '0' || *p > '9') return NULL;
  if (*p == '0') {
    p++;
    if (p < end && *p >= '0' && *p <= '9') return NULL;
  } else {
    p = scan_digits(p, end);
  }
  bool real = false;
  if (p < end && *p == '.') {
    real = true;
    const char *q = scan_digits(++p, end);
    if (q == p) return NULL;
    p = q;
  }
  if (p < end && (*p == 'e' || *p == 'E')) {
    real = true;
    p++;
    if (p < end && (*p == '+' || *p == '-')) p++;
    const char *q = scan_digits(p, end);
    if (q == p) return NULL;
    p = q;
  }
  if (real && real_exact(start, p, &f->d)) {
    f->kind = FLAT_REAL;
    return p;
  }
  size_t n = (size_t)(p - start);
  if (!real && (size_t)(p - digits) <= INTEGER_DIGITS) { /* what strtoll gives, without its locale */
    lua_Integer v = 0;
    for (const char *q = digits; q < p; q++) v = v * 10 + (*q - '0');
    f->kind = FLAT_INTEGER;
    f->i = start < digits ? -v : v;
    return p;
  }
  if (n >= FLAT_NUMBER_MAX) return NULL;
  char buf[FLAT_NUMBER_MAX];
  memcpy(buf, start, n);
  buf[n] = '\0';
  char *stop;
  errno = 0;
  if (real) {
    f->kind = FLAT_REAL;
    f->d = strtod(buf, &stop);
    if ((f->d == HUGE_VAL || f->d == -HUGE_VAL) && errno == ERANGE) return NULL;
  } else {
    f->kind = FLAT_INTEGER;
    long long v = strtoll(buf, &stop, 10);
    if (errno == ERANGE) return NULL;
    f->i = (lua_Integer)v;
  }
  if (stop != buf + n) return NULL; /* a locale whose decimal point is not '.' */
  return p;
}

static const char *scan_word(const char *p, const char *end, const char *word, flat_kind kind, flat_field *f) {
  size_t n = strlen(word);
  if ((size_t)(end - p) < n || memcmp(p, word, n) != 0) return NULL;
  f->kind = kind;
  return p + n;
}

static const char *scan_value(const char *p, const char *end, flat_field *f) {
  if (p >= end) return NULL;
  switch (*p) {
  case '"': f->kind = FLAT_STRING; return scan_string(p + 1, end, &f->text, &f->text_len);
  case 't': return scan_word(p, end, "true", FLAT_TRUE, f);
  case 'f': return scan_word(p, end, "false", FLAT_FALSE, f);
  case 'n': return scan_word(p, end, "null", FLAT_NULL, f);
  default: return scan_number(p, end, f);
  }
}

static bool key_seen(const flat_field *fields, int n, const char *key, size_t len) {
  for (int i = 0; i < n; i++)
    if (fields[i].key_len == len && memcmp(fields[i].key, key, len) == 0) return true;
  return false;
}

/* Reads the whole frame into fields; returns how many, or -1 where it is not a flat object
 * this decoder takes. */
static int scan_object(const char *s, size_t len, flat_field *fields) {
  const char *p = skip_ws(s, s + len), *end = s + len;
  if (p >= end || *p != '{') return -1;
  p = skip_ws(p + 1, end);
  int n = 0;
  if (p < end && *p == '}') {
    p++;
  } else {
    for (;;) {
      if (n == FLAT_MAX_FIELDS || p >= end || *p != '"') return -1;
      flat_field *f = &fields[n];
      if (!(p = scan_string(p + 1, end, &f->key, &f->key_len))) return -1;
      if (key_seen(fields, n, f->key, f->key_len)) return -1;
      p = skip_ws(p, end);
      if (p >= end || *p != ':') return -1;
      if (!(p = scan_value(skip_ws(p + 1, end), end, f))) return -1;
      n++;
      p = skip_ws(p, end);
      if (p < end && *p == ',') {
        p = skip_ws(p + 1, end);
        continue;
      }
      if (p < end && *p == '}') {
        p++;
        break;
      }
      return -1;
    }
  }
  return skip_ws(p, end) == end ? n : -1;
}

bool ty_json_push_flat(lua_State *L, const char *s, size_t len, int max_depth, long max_items) {
  flat_field fields[FLAT_MAX_FIELDS];
  int n = scan_object(s, len, fields);
  if (n < 0 || max_depth < 1 || n + 1 > max_items) return false;
  lua_createtable(L, 0, n);
  for (int i = 0; i < n; i++) {
    const flat_field *f = &fields[i];
    lua_pushlstring(L, f->key, f->key_len);
    switch (f->kind) {
    case FLAT_STRING: lua_pushlstring(L, f->text, f->text_len); break;
    case FLAT_INTEGER: lua_pushinteger(L, f->i); break;
    case FLAT_REAL: lua_pushnumber(L, f->d); break;
    case FLAT_TRUE: lua_pushboolean(L, 1); break;
    case FLAT_FALSE: lua_pushboolean(L, 0); break;
    case FLAT_NULL: lua_pushlightuserdata(L, NULL); break;
    }
    lua_rawset(L, -3);
  }
  return true;
}
