/* engine/text/shape.c: HarfBuzz shaping behind a cache. A HUD draws the same short
 * strings every frame ("Score: 120", a menu's items), and shaping is most of what drawing
 * a string costs, so the result of each (font, string) up to SHORT bytes is kept in a
 * two-way set-associative table and reused while it stays. Longer strings are shaped each
 * time. Font ids are never reused, so an entry of a freed font is never hit again and
 * simply ages out. */
#include <string.h>

#include <hb.h> /* Required for: hb_shape (libharfbuzz-dev) */

#include "common.h"
#include "text_internal.h"

#define SHORT 64u      /* longest string cached, bytes */
#define SLOTS 32768u   /* power of two; two ways per set */

typedef struct entry {
  uint32_t font, len, count;
  uint64_t hash, used;     /* used: a clock stamp, for replacing the older of two */
  ty_shaped_glyph *glyphs; /* count glyphs, then the string's len bytes */
} entry;

static struct {
  hb_buffer_t *buf;
  ty_shaped_glyph *out;
  uint32_t out_cap;
  entry *slots;
  uint64_t clock;
} sh;

static uint64_t fnv1a(uint32_t font, const char *s, size_t len) {
  uint64_t h = 0xcbf29ce484222325ull ^ font;
  for (size_t i = 0; i < len; i++) h = (h ^ (uint8_t)s[i]) * 0x100000001b3ull;
  return h;
}

/* Shapes with HarfBuzz into sh.out. */
static uint32_t shape_now(void *hb_font, const char *s, size_t len) {
  if (!sh.buf) sh.buf = hb_buffer_create();
  hb_buffer_clear_contents(sh.buf);
  hb_buffer_add_utf8(sh.buf, s, (int)len, 0, (int)len);
  hb_buffer_guess_segment_properties(sh.buf);
  hb_shape(hb_font, sh.buf, NULL, 0);
  unsigned n = 0;
  hb_glyph_info_t *info = hb_buffer_get_glyph_infos(sh.buf, &n);
  hb_glyph_position_t *pos = hb_buffer_get_glyph_positions(sh.buf, NULL);
  TY_GROW(sh.out, sh.out_cap, n + 1);
  for (unsigned i = 0; i < n; i++)
    sh.out[i] = (ty_shaped_glyph){info[i].codepoint, info[i].cluster, pos[i].x_advance, pos[i].x_offset,
                                  pos[i].y_offset};
  return n;
}

uint32_t ty_shape(uint32_t font_id, void *hb_font, const char *s, size_t len, const ty_shaped_glyph **out) {
  if (len > SHORT) {
    uint32_t n = shape_now(hb_font, s, len);
    *out = sh.out;
    return n;
  }
  if (!sh.slots) {
    sh.slots = TY_MALLOC(SLOTS * sizeof *sh.slots);
    TY_ASSERT(sh.slots);
    memset(sh.slots, 0, SLOTS * sizeof *sh.slots);
  }
  uint64_t h = fnv1a(font_id, s, len);
  entry *set = &sh.slots[h & (SLOTS - 2)];
  sh.clock++;
  for (int w = 0; w < 2; w++) {
    entry *e = &set[w];
    if (e->glyphs && e->hash == h && e->font == font_id && e->len == len &&
        memcmp(e->glyphs + e->count, s, len) == 0) {
      e->used = sh.clock;
      *out = e->glyphs;
      return e->count;
    }
  }
  uint32_t n = shape_now(hb_font, s, len);
  entry *e = !set[0].glyphs ? &set[0] : !set[1].glyphs ? &set[1] : set[0].used < set[1].used ? &set[0] : &set[1];
  TY_FREE(e->glyphs);
  e->glyphs = TY_MALLOC(n * sizeof *e->glyphs + len);
  TY_ASSERT(e->glyphs);
  memcpy(e->glyphs, sh.out, n * sizeof *e->glyphs);
  memcpy(e->glyphs + n, s, len);
  *e = (entry){.font = font_id, .len = (uint32_t)len, .count = n, .hash = h, .used = sh.clock, .glyphs = e->glyphs};
  *out = e->glyphs;
  return n;
}
