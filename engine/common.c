/* engine/common.c: allocation growth, logging and the clock every module shares. */
#include "common.h"

#include <stdarg.h>
#include <string.h>
#include <time.h>

void ty_grow(void **ptr, uint32_t *cap, uint32_t need, size_t elem) {
  if (need <= *cap) return;
  uint32_t next = *cap ? *cap : 8;
  while (next < need) next = next > UINT32_MAX / 2 ? need : next * 2;
  void *p = TY_REALLOC(*ptr, (size_t)next * elem);
  if (!p) {
    fprintf(stderr, "tycho: out of memory growing an array to %u elements\n", next);
    abort();
  }
  *ptr = p;
  *cap = next;
}

void ty_bytes_append(char **buf, size_t *len, size_t *cap, const void *data, size_t n, size_t max) {
  if (*len + n > *cap) {
    size_t c = *cap ? *cap : 1024;
    while (c < *len + n) c *= 2;
    if (c > max) c = max;
    TY_ASSERT(c >= *len + n);
    *buf = TY_REALLOC(*buf, c);
    TY_ASSERT(*buf);
    *cap = c;
  }
  if (n) memcpy(*buf + *len, data, n);
  *len += n;
}

void ty_log(const char *name, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "tycho: %s: ", name);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

double ty_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

size_t ty_utf8_char(const char *str, size_t len) {
  const unsigned char *s = (const unsigned char *)str;
  unsigned char c = s[0];
  size_t n;
  uint32_t cp;
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) n = 2, cp = c & 0x1F;
  else if (c >= 0xE0 && c <= 0xEF) n = 3, cp = c & 0x0F;
  else if (c >= 0xF0 && c <= 0xF4) n = 4, cp = c & 0x07;
  else return 0; /* a stray continuation byte, an overlong lead, or past U+10FFFF */
  if (len < n) return 0;
  for (size_t k = 1; k < n; k++) {
    if ((s[k] & 0xC0) != 0x80) return 0;
    cp = cp << 6 | (s[k] & 0x3F);
  }
  /* Overlong forms, UTF-16 surrogates and code points past U+10FFFF are not UTF-8. */
  if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

bool ty_utf8_valid(const char *s, size_t len) {
  for (size_t i = 0; i < len;) {
    size_t n = s[i] ? ty_utf8_char(s + i, len - i) : 0;
    if (!n) return false;
    i += n;
  }
  return true;
}
