/* tests/c/text_test.c: engine/text: loading and its failures, the glyph atlas's packing
 * (every glyph inside its page, no two overlapping, its pixels where its quad says) and
 * page reuse once full, distance-field glyphs, and wrap widths. */
#include <stdlib.h>

#include "check.h"
#include "text/text.h"

static char font_path[1024];

static ty_font *load(float size) {
  char err[256];
  ty_font *f = ty_font_load(font_path, size, err, sizeof err);
  if (!f) fprintf(stderr, "  %s\n", err);
  return f;
}

static void test_load_failures(void) {
  char err[256] = "";
  CHECK(!ty_font_load("/no/such/font.ttf", 12, err, sizeof err));
  CHECK(strstr(err, "/no/such/font.ttf") != NULL);
  char tmp[] = "/tmp/tycho_text_testXXXXXX";
  int fd = mkstemp(tmp);
  CHECK(fd >= 0);
  FILE *fp = fdopen(fd, "wb");
  fputs("definitely not a font", fp);
  fclose(fp);
  err[0] = 0;
  CHECK(!ty_font_load(tmp, 12, err, sizeof err));
  CHECK(strstr(err, "not a font") != NULL);
  remove(tmp);
  CHECK(!ty_font_load(font_path, 0, err, sizeof err));
  CHECK(!ty_font_load(font_path, TY_TEXT_MAX_SIZE + 1, err, sizeof err));
}

/* Whether the pixel rectangles of two quads (in page pixels) overlap. */
static bool overlap(const ty_text_quad *a, const ty_text_quad *b) {
  return a->page == b->page && a->u0 < b->u1 && b->u0 < a->u1 && a->v0 < b->v1 && b->v0 < a->v1;
}

static void test_packing(void) {
  enum { MAX = 4000 };
  static ty_text_quad all[MAX];
  uint32_t count = 0;
  const char *samples[] = {"ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz0123456789",
                           "\xd0\x90\xd0\x91\xd0\x92\xd0\x93\xd0\x94\xce\xb1\xce\xb2\xce\xb3"};
  const float sizes[] = {9, 12, 17, 24, 40, 72};
  for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
    ty_font *f = load(sizes[s]);
    CHECK(f != NULL);
    if (!f) return;
    for (size_t k = 0; k < sizeof samples / sizeof *samples; k++) {
      const ty_text_quad *q;
      uint32_t n = ty_font_layout(f, samples[k], strlen(samples[k]), 0, 0, &q, NULL);
      CHECK(n > 0);
      for (uint32_t i = 0; i < n && count < MAX; i++) all[count++] = q[i];
    }
    ty_font_destroy(f);
  }
  CHECK(count > 300);
  for (uint32_t i = 0; i < count; i++) {
    const ty_text_quad *a = &all[i];
    CHECK(a->u0 >= 0 && a->v0 >= 0 && a->u1 <= 1 && a->v1 <= 1 && a->u0 < a->u1 && a->v0 < a->v1);
    CHECK(a->page < ty_text_page_count());
    /* Its pixels hold ink where the quad points. */
    const uint8_t *px = ty_text_page_pixels(a->page);
    uint32_t x0 = (uint32_t)(a->u0 * TY_TEXT_PAGE_SIZE + 0.5f), x1 = (uint32_t)(a->u1 * TY_TEXT_PAGE_SIZE + 0.5f);
    uint32_t y0 = (uint32_t)(a->v0 * TY_TEXT_PAGE_SIZE + 0.5f), y1 = (uint32_t)(a->v1 * TY_TEXT_PAGE_SIZE + 0.5f);
    uint32_t ink = 0;
    for (uint32_t y = y0; y < y1; y++)
      for (uint32_t x = x0; x < x1; x++) ink += px[(y * TY_TEXT_PAGE_SIZE + x) * 4 + 3] > 0;
    CHECK(ink > 0);
    /* The same glyph laid out twice shares its cell; different glyphs never overlap. */
    for (uint32_t j = i + 1; j < count; j++)
      if (memcmp(&all[i].u0, &all[j].u0, 4 * sizeof(float)) != 0 || all[i].page != all[j].page)
        CHECK(!overlap(&all[i], &all[j]));
  }
}

static void test_reuse_when_full(void) {
  ty_font *f = load(200);
  CHECK(f != NULL);
  if (!f) return;
  uint64_t before, after;
  ty_text_atlas_stats(NULL, &before);
  char buf[8];
  /* 0x100..0x24ff at 200 px: far more than the pages hold. */
  for (uint32_t cp = 0x100; cp < 0x2500; cp++) {
    size_t n = 0;
    if (cp < 0x800) buf[n++] = (char)(0xC0 | cp >> 6);
    else buf[n++] = (char)(0xE0 | cp >> 12), buf[n++] = (char)(0x80 | ((cp >> 6) & 0x3F));
    buf[n++] = (char)(0x80 | (cp & 0x3F));
    const ty_text_quad *q;
    ty_font_layout(f, buf, n, 0, 0, &q, NULL);
    if (cp % 256 == 0) ty_text_next_frame();
  }
  ty_text_atlas_stats(NULL, &after);
  CHECK(after > before);
  CHECK(ty_text_page_count() <= TY_TEXT_MAX_PAGES);
  const ty_text_quad *q;
  CHECK_EQ_INT(ty_font_layout(f, "Hi", 2, 0, 0, &q, NULL), 2);
  ty_font_destroy(f);
}

/* A distance-field glyph: its own cell, its outline at 128 with inside above and outside
 * below, and a larger cell than the coverage glyph (the field reaches past the outline). */
static void test_sdf(void) {
  ty_font *f = load(32);
  CHECK(f != NULL);
  if (!f) return;
  ty_text_quad cov, sdf;
  const ty_text_quad *q;
  CHECK_EQ_INT(ty_font_layout(f, "O", 1, 0, 0, &q, NULL), 1);
  cov = q[0];
  CHECK_EQ_INT(ty_font_layout_sdf(f, "O", 1, 0, 0, &q, NULL), 1);
  sdf = q[0];
  CHECK(!overlap(&cov, &sdf));
  CHECK(sdf.x1 - sdf.x0 > cov.x1 - cov.x0);
  const uint8_t *px = ty_text_page_pixels(sdf.page);
  uint32_t x0 = (uint32_t)(sdf.u0 * TY_TEXT_PAGE_SIZE + 0.5f), y0 = (uint32_t)(sdf.v0 * TY_TEXT_PAGE_SIZE + 0.5f);
  uint32_t w = (uint32_t)(sdf.x1 - sdf.x0), h = (uint32_t)(sdf.y1 - sdf.y0);
  int inside = 0, outside = 0;
  for (uint32_t y = 0; y < h; y++)
    for (uint32_t x = 0; x < w; x++) {
      uint8_t a = px[((y0 + y) * TY_TEXT_PAGE_SIZE + x0 + x) * 4 + 3];
      inside += a > 136, outside += a < 96; /* the stroke is a few pixels: inside stays near the edge */
    }
  CHECK(inside > 20 && outside > 20);
  /* The ring of an O: its centre is outside, the corner of its cell too. */
  CHECK(px[((y0 + h / 2) * TY_TEXT_PAGE_SIZE + x0 + w / 2) * 4 + 3] < 128);
  CHECK(px[(y0 * TY_TEXT_PAGE_SIZE + x0) * 4 + 3] < 128);
  ty_font_destroy(f);
}

static void test_wrap(void) {
  ty_font *f = load(14);
  CHECK(f != NULL);
  if (!f) return;
  const char *t = "one two three four five six seven eight nine ten";
  for (float w = 30; w < 400; w += 37) {
    const ty_text_line *lines;
    uint32_t n = ty_font_wrap(f, t, strlen(t), w, &lines);
    CHECK(n >= 1);
    for (uint32_t i = 0; i < n; i++) {
      CHECK(lines[i].width <= w);
      CHECK_NEAR(lines[i].width, ty_font_width(f, t + lines[i].start, lines[i].len), 1e-3);
      CHECK(t[lines[i].start] != ' ');
    }
  }
  CHECK(ty_font_width(f, "AV", 2) < ty_font_width(f, "A", 1) + ty_font_width(f, "V", 1));
  ty_font_destroy(f);
}

int main(void) {
  const char *here = __FILE__; /* .../tests/c/text_test.c */
  const char *cut = strstr(here, "tests/c/text_test.c");
  snprintf(font_path, sizeof font_path, "%.*scontent/fonts/DejaVuSans.ttf", cut ? (int)(cut - here) : 0, here);
  RUN(test_load_failures);
  RUN(test_packing);
  RUN(test_reuse_when_full);
  RUN(test_sdf);
  RUN(test_wrap);
  return check_summary();
}
