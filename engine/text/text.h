/* engine/text/text.h: TrueType/OpenType text: fonts (FreeType faces at one pixel size),
 * shaping (HarfBuzz: kerning, ligatures, marks), metrics and word wrap of UTF-8 strings,
 * and the glyph atlas their glyphs are packed into on demand.
 *
 * No GL here: the atlas is pages of RGBA8 pixels (white, coverage in alpha) that a
 * renderer uploads, page by page, the changed rectangle at a time (ty_text_page_*).
 * Pages are added as glyphs fill them, up to TY_TEXT_MAX_PAGES; past that the page used
 * least recently is emptied and reused, so no string or number of distinct glyphs ever
 * overflows it. A glyph the font lacks (glyph 0) draws as a box.
 *
 * One atlas per process, shared by every font: text of any font and size batches into
 * the same few textures. Single-threaded, as the renderer is. */
#ifndef TY_TEXT_TEXT_H
#define TY_TEXT_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TY_TEXT_PAGE_SIZE 1024u /* pixels a side */
#define TY_TEXT_MAX_PAGES 16u
#define TY_TEXT_MAX_SIZE 512.0f /* largest pixel size a font loads at */

typedef struct ty_font ty_font;

/* Loads the face in a TrueType/OpenType file at size pixels (the em). The file is read
 * whole, so it may change or go afterwards. NULL with a message in err (snprintf rules)
 * for a missing, unreadable or corrupt file, or a size out of (0, TY_TEXT_MAX_SIZE]. */
ty_font *ty_font_load(const char *path, float size, char *err, size_t err_size);
/* Frees the font; its glyphs stay in the atlas until their page is reused. NULL is fine. */
void ty_font_destroy(ty_font *f);

float ty_font_size(const ty_font *f);
/* Whole pixels: the line's height (what consecutive lines advance by), above and below the
 * baseline (descent is positive, below it). */
float ty_font_height(const ty_font *f);
float ty_font_ascent(const ty_font *f);
float ty_font_descent(const ty_font *f);

/* Width in pixels of the widest '\n'-separated line of text (len bytes). */
float ty_font_width(ty_font *f, const char *text, size_t len);

/* One line of wrapped text: bytes [start, start + len) of the input, and its width. */
typedef struct ty_text_line {
  size_t start, len;
  float width;
} ty_text_line;

/* Breaks text into lines no wider than width: at '\n', else at the last space that fits
 * (the spaces at a break belong to no line), else, for a word wider than width alone,
 * between glyphs (a line holds at least one). Returns the line count; lines are written
 * to a buffer borrowed until the next call (*lines). */
uint32_t ty_font_wrap(ty_font *f, const char *text, size_t len, float width, const ty_text_line **lines);

/* A glyph laid out in pixels (y down), its texture rectangle in page `page`. */
typedef struct ty_text_quad {
  float x0, y0, x1, y1;
  float u0, v0, u1, v1; /* 0..1 over the page; v counts rows from the page's row 0 */
  uint32_t page;
} ty_text_quad;

/* Lays out one line (bytes up to len; a '\n' in it draws nothing) with the top of its box
 * at y and its pen starting at x: a quad per visible glyph, packed into the atlas as
 * needed. Returns the quad count, quads in a buffer borrowed until the next call (*quads),
 * and the line's advance in *width (may be NULL). */
uint32_t ty_font_layout(ty_font *f, const char *text, size_t len, float x, float y, const ty_text_quad **quads,
                        float *width);

/* The same with distance-field glyphs (FreeType's sdf renderer: 128 on the outline, more
 * inside, in alpha): they scale without blurring, for text in the world; a shader turns
 * the distance into coverage. */
uint32_t ty_font_layout_sdf(ty_font *f, const char *text, size_t len, float x, float y, const ty_text_quad **quads,
                            float *width);

/* ---- the atlas, for the renderer --------------------------------------------------- */

uint32_t ty_text_page_count(void);
/* TY_TEXT_PAGE_SIZE squared RGBA8 pixels, row 0 first. NULL past the count. */
const uint8_t *ty_text_page_pixels(uint32_t page);
/* The rectangle {x, y, w, h} changed since the last call, then forgets it; false: none. */
bool ty_text_page_take_dirty(uint32_t page, uint32_t rect[4]);
/* Ends a frame of use: pages used from now on count as newer than those used before
 * (eviction takes the page whose last use is oldest). */
void ty_text_next_frame(void);
/* Glyphs rasterised and pages emptied for reuse since the process started. */
void ty_text_atlas_stats(uint64_t *rasterised, uint64_t *evictions);

#endif
