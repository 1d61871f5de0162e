/* tests/c/check.h: the tiny harness the C unit tests share. A test file defines
 * functions `static void test_x(void)`, lists them in main with RUN(test_x), and
 * ends with `return check_summary();`, which prints "N passed, N failed". */
#ifndef TY_CHECK_H
#define TY_CHECK_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int check_failures_now, check_passed, check_failed;

#define CHECK(cond)                                                           \
  do {                                                                        \
    if (!(cond)) {                                                            \
      fprintf(stderr, "  %s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      check_failures_now++;                                                   \
    }                                                                         \
  } while (0)

#define CHECK_EQ_INT(a, b)                                                            \
  do {                                                                                \
    long long check_a_ = (long long)(a), check_b_ = (long long)(b);                   \
    if (check_a_ != check_b_) {                                                       \
      fprintf(stderr, "  %s:%d: %s == %s failed: %lld != %lld\n", __FILE__, __LINE__, \
              #a, #b, check_a_, check_b_);                                            \
      check_failures_now++;                                                           \
    }                                                                                 \
  } while (0)

#define CHECK_NEAR(a, b, eps)                                                          \
  do {                                                                                 \
    double check_a_ = (double)(a), check_b_ = (double)(b);                             \
    if (!(fabs(check_a_ - check_b_) <= (eps))) {                                       \
      fprintf(stderr, "  %s:%d: %s ~= %s failed: %.9g vs %.9g\n", __FILE__, __LINE__, \
              #a, #b, check_a_, check_b_);                                             \
      check_failures_now++;                                                            \
    }                                                                                  \
  } while (0)

#define RUN(fn)                                                   \
  do {                                                            \
    check_failures_now = 0;                                       \
    fn();                                                         \
    if (check_failures_now) {                                     \
      check_failed++;                                             \
      fprintf(stderr, "FAIL %s\n", #fn);                          \
    } else {                                                      \
      check_passed++;                                             \
      printf("ok   %s\n", #fn);                                   \
    }                                                             \
  } while (0)

static inline int check_summary(void) {
  printf("%d passed, %d failed\n", check_passed, check_failed);
  return check_failed ? 1 : 0;
}

#endif
