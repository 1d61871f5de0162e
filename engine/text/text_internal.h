/* engine/text/text_internal.h: what font.c and atlas.c share. */
#ifndef TY_TEXT_INTERNAL_H
#define TY_TEXT_INTERNAL_H

#include "text.h"

/* A glyph's place in the atlas and its bitmap's offset from the pen (pixels, y down
 * from the baseline to the bitmap's top). w == 0: nothing to draw (a space). */
typedef struct ty_atlas_glyph {
  uint32_t font, gid;
  uint16_t page, x, y, w, h;
  int16_t left, top;
} ty_atlas_glyph;

/* A coverage bitmap to place: rows of w bytes, pitch apart. */
typedef struct ty_glyph_bitmap {
  const uint8_t *pixels;
  int pitch;
  uint32_t w, h;
  int left, top;
} ty_glyph_bitmap;

/* Renders glyph gid of font into bm; false when it cannot (then it draws nothing). */
typedef bool (*ty_rasterise_fn)(void *font, uint32_t gid, ty_glyph_bitmap *bm);

/* The atlas entry of (font_id, gid), rasterised by fn on first use; marks its page used. */
const ty_atlas_glyph *ty_atlas_glyph_get(uint32_t font_id, uint32_t gid, ty_rasterise_fn fn, void *font);

/* A shaped glyph: its index in the font, the byte offset of the character it came from,
 * and its advance and offset in 26.6 fixed point. */
typedef struct ty_shaped_glyph {
  uint32_t gid, cluster;
  int32_t advance, x_offset, y_offset;
} ty_shaped_glyph;

/* Shapes s (len bytes of UTF-8) with hb_font (an hb_font_t) into a buffer borrowed until
 * the next call; shape.c caches the glyphs of short strings per font_id. */
uint32_t ty_shape(uint32_t font_id, void *hb_font, const char *s, size_t len, const ty_shaped_glyph **out);

#endif
