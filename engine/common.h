/* engine/common.h: what every engine module shares: allocation, assertions, logging. */
#ifndef TY_COMMON_H
#define TY_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/* All engine allocation goes through these three; define them before including to override. */
#ifndef TY_MALLOC
#define TY_MALLOC(size) malloc(size)
#define TY_REALLOC(ptr, size) realloc((ptr), (size))
#define TY_FREE(ptr) free(ptr)
#endif

/* Programmer misuse: stop with the file and line. Never used for data or runtime failures. */
#define TY_ASSERT(cond)                                                                 \
  do {                                                                                  \
    if (!(cond)) {                                                                      \
      fprintf(stderr, "tycho: assertion failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
      abort();                                                                          \
    }                                                                                   \
  } while (0)

/* Grows *ptr (an array of *cap elements of elem bytes) to hold at least need; aborts on OOM. */
void ty_grow(void **ptr, uint32_t *cap, uint32_t need, size_t elem);
#define TY_GROW(arr, cap, need) ty_grow((void **)&(arr), &(cap), (need), sizeof *(arr))

/* Appends n bytes to a byte buffer that doubles as it fills (from 1 KiB), its capacity
 * capped at max: the caller refuses anything past max before appending. */
void ty_bytes_append(char **buf, size_t *len, size_t *cap, const void *data, size_t n, size_t max);

/* Data and runtime failures: one line on stderr that starts with a stable error name. */
void ty_log(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Monotonic seconds since an arbitrary origin. */
double ty_now(void);

/* The length (1..4) of the well-formed UTF-8 character that starts s (len > 0 bytes left),
 * or 0: a stray continuation byte, a form cut short, an overlong form, a UTF-16 surrogate, or
 * a code point past U+10FFFF. A NUL byte is a character of length 1. */
size_t ty_utf8_char(const char *s, size_t len);
/* Whether s (len bytes) is well-formed UTF-8 with no NUL. */
bool ty_utf8_valid(const char *s, size_t len);

#endif
