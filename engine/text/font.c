/* engine/text/font.c: fonts of text.h: a FreeType face at one pixel size, shaped with
 * HarfBuzz (through hb-ft, so advances match the hinted glyphs FreeType renders), and
 * what is built on the shaped glyphs: widths, word wrap and laid-out quads. */
#include <math.h>
#include <string.h>

#include <ft2build.h>
#include FT_FREETYPE_H
#include <hb-ft.h> /* Required for: hb_ft_font_create_referenced (libharfbuzz-dev) */
#include <hb.h>

#include "common.h"
#include "text_internal.h"

struct ty_font {
  uint32_t id; /* never reused: the atlas keys glyphs by it */
  FT_Face face;
  hb_font_t *hb;
  uint8_t *data; /* the file, which the face reads from */
  float size, ascent, descent, height;
};

/* What every font shares: one FreeType library, scratch arrays. */
static struct {
  FT_Library ft;
  uint32_t next_id;
  ty_text_quad *quads;
  uint32_t quad_cap;
  ty_text_line *lines;
  uint32_t line_cap;
  uint8_t *box;
  uint32_t box_cap;
} text;

static bool read_file(const char *path, uint8_t **data, size_t *size, char *err, size_t err_size) {
  FILE *fp = fopen(path, "rb");
  if (!fp) {
    snprintf(err, err_size, "%s: cannot open the font file", path);
    return false;
  }
  bool ok = fseek(fp, 0, SEEK_END) == 0;
  long n = ok ? ftell(fp) : -1;
  ok = ok && n >= 0 && fseek(fp, 0, SEEK_SET) == 0;
  *data = ok ? TY_MALLOC((size_t)n + 1) : NULL;
  ok = *data && fread(*data, 1, (size_t)n, fp) == (size_t)n;
  fclose(fp);
  if (!ok) {
    TY_FREE(*data);
    snprintf(err, err_size, "%s: cannot read the font file", path);
    return false;
  }
  *size = (size_t)n;
  return true;
}

ty_font *ty_font_load(const char *path, float size, char *err, size_t err_size) {
  TY_ASSERT(path && err);
  if (!(size > 0 && size <= TY_TEXT_MAX_SIZE)) {
    snprintf(err, err_size, "font size %g out of range (0, %g]", (double)size, (double)TY_TEXT_MAX_SIZE);
    return NULL;
  }
  if (!text.ft && FT_Init_FreeType(&text.ft)) {
    snprintf(err, err_size, "FreeType did not start");
    return NULL;
  }
  uint8_t *data;
  size_t n;
  if (!read_file(path, &data, &n, err, err_size)) return NULL;
  FT_Face face;
  FT_Error e = FT_New_Memory_Face(text.ft, data, (FT_Long)n, 0, &face);
  if (e) {
    TY_FREE(data);
    snprintf(err, err_size, "%s: not a font FreeType can read (FreeType error %d)", path, (int)e);
    return NULL;
  }
  if (!FT_IS_SCALABLE(face) || FT_Set_Pixel_Sizes(face, 0, (FT_UInt)lroundf(size))) {
    FT_Done_Face(face);
    TY_FREE(data);
    snprintf(err, err_size, "%s: not a scalable (TrueType/OpenType) font", path);
    return NULL;
  }
  ty_font *f = TY_MALLOC(sizeof *f);
  TY_ASSERT(f);
  *f = (ty_font){.id = ++text.next_id, .face = face, .data = data, .size = roundf(size)};
  f->hb = hb_ft_font_create_referenced(face);
  hb_ft_font_set_load_flags(f->hb, FT_LOAD_DEFAULT | FT_LOAD_TARGET_LIGHT);
  const FT_Size_Metrics *m = &face->size->metrics;
  f->ascent = (float)(m->ascender >> 6);
  f->descent = (float)(-m->descender >> 6);
  f->height = (float)(m->height >> 6);
  if (f->height < f->ascent + f->descent) f->height = f->ascent + f->descent;
  return f;
}

void ty_font_destroy(ty_font *f) {
  if (!f) return;
  hb_font_destroy(f->hb);
  FT_Done_Face(f->face);
  TY_FREE(f->data);
  TY_FREE(f);
}

float ty_font_size(const ty_font *f) { return f->size; }
float ty_font_height(const ty_font *f) { return f->height; }
float ty_font_ascent(const ty_font *f) { return f->ascent; }
float ty_font_descent(const ty_font *f) { return f->descent; }

static uint32_t shape(ty_font *f, const char *s, size_t len, const ty_shaped_glyph **g) {
  return ty_shape(f->id, f->hb, s, len, g);
}

static float line_width(ty_font *f, const char *s, size_t len) {
  const ty_shaped_glyph *g;
  uint32_t n = shape(f, s, len, &g);
  int32_t w = 0;
  for (uint32_t i = 0; i < n; i++) w += g[i].advance;
  return (float)w / 64.0f;
}

float ty_font_width(ty_font *f, const char *s, size_t len) {
  TY_ASSERT(f && (s || !len));
  float widest = 0;
  for (size_t at = 0;;) {
    const char *nl = memchr(s + at, '\n', len - at);
    size_t end = nl ? (size_t)(nl - s) : len;
    float w = line_width(f, s + at, end - at);
    if (w > widest) widest = w;
    if (!nl) return widest;
    at = end + 1;
  }
}

static void push_line(uint32_t *count, size_t start, size_t len, float width) {
  TY_GROW(text.lines, text.line_cap, *count + 1);
  text.lines[(*count)++] = (ty_text_line){start, len, width};
}

/* How much of s[a, b) to shape to find one line's end: a window that doubles until the
 * line ends inside it (or it reaches b), so a long paragraph costs about its length, not
 * its length times its lines. Ends on a character boundary. */
static size_t window(const char *s, size_t a, size_t b, size_t want) {
  if (b - a <= want) return b;
  size_t end = a + want;
  while (end > a + 1 && ((uint8_t)s[end] & 0xC0) == 0x80) end--;
  return end;
}

/* Wraps the paragraph s[a, b) (no '\n'), appending its lines. */
static void wrap_paragraph(ty_font *f, const char *s, size_t a, size_t b, float width, uint32_t *count) {
  int32_t limit = (int32_t)lroundf(width * 64.0f);
  size_t want = 256;
  while (a < b) {
    size_t e = window(s, a, b, want);
    const ty_shaped_glyph *g;
    uint32_t n = shape(f, s + a, e - a, &g);
    /* Clusters are byte offsets from a, rising with the glyphs (a left-to-right run). */
    int32_t pen = 0;
    size_t cut = 0, space = 0; /* cut: where this line ends (0: past the window); space: the last break after a word */
    bool word = false;
    for (uint32_t i = 0; i < n; i++) {
      size_t c = g[i].cluster;
      if (s[a + c] == ' ') {
        if (word) space = c;
      } else if (pen + g[i].advance > limit && c > 0) {
        cut = space ? space : c;
        break;
      } else {
        word = true;
      }
      pen += g[i].advance;
    }
    if (!cut) {
      if (e < b) { /* the line goes on past the window: look further */
        want *= 2;
        continue;
      }
      cut = b - a;
    }
    size_t end = a + cut;
    while (end > a && s[end - 1] == ' ') end--; /* spaces at a break belong to no line */
    push_line(count, a, end - a, line_width(f, s + a, end - a));
    a += cut;
    while (a < b && s[a] == ' ') a++;
  }
}

uint32_t ty_font_wrap(ty_font *f, const char *s, size_t len, float width, const ty_text_line **lines) {
  TY_ASSERT(f && (s || !len) && lines);
  uint32_t count = 0;
  for (size_t at = 0;;) {
    const char *nl = memchr(s + at, '\n', len - at);
    size_t end = nl ? (size_t)(nl - s) : len;
    if (end == at) push_line(&count, at, 0, 0);
    else wrap_paragraph(f, s, at, end, width, &count);
    if (!nl) break;
    at = end + 1;
  }
  *lines = text.lines;
  return count;
}

/* The box a glyph the font lacks draws as: a 1-pixel outline, 0.5 em wide. */
static bool rasterise_box(ty_font *f, ty_glyph_bitmap *bm) {
  uint32_t w = (uint32_t)fmaxf(3, roundf(f->size * 0.5f)), h = (uint32_t)fmaxf(3, f->ascent * 0.8f);
  TY_GROW(text.box, text.box_cap, w * h);
  for (uint32_t y = 0; y < h; y++)
    for (uint32_t x = 0; x < w; x++) text.box[y * w + x] = (x == 0 || y == 0 || x == w - 1 || y == h - 1) ? 255 : 0;
  *bm = (ty_glyph_bitmap){text.box, (int)w, w, h, (int)roundf(f->size * 0.05f), (int)h};
  return true;
}

static bool rasterise(void *font, uint32_t gid, ty_glyph_bitmap *bm) {
  ty_font *f = font;
  if (gid == 0) return rasterise_box(f, bm);
  if (FT_Load_Glyph(f->face, gid, FT_LOAD_DEFAULT | FT_LOAD_TARGET_LIGHT) ||
      FT_Render_Glyph(f->face->glyph, FT_RENDER_MODE_NORMAL))
    return false;
  FT_GlyphSlot g = f->face->glyph;
  if (g->bitmap.pixel_mode != FT_PIXEL_MODE_GRAY) return false;
  *bm = (ty_glyph_bitmap){g->bitmap.buffer, g->bitmap.pitch, g->bitmap.width, g->bitmap.rows,
                          g->bitmap_left, g->bitmap_top};
  return true;
}

/* A signed distance field of the glyph (FreeType's "sdf" renderer): 128 on the outline,
 * more inside; it scales without blurring, for text in the world. */
static bool rasterise_sdf(void *font, uint32_t gid, ty_glyph_bitmap *bm) {
  ty_font *f = font;
  if (gid == 0) return rasterise_box(f, bm);
  if (FT_Load_Glyph(f->face, gid, FT_LOAD_DEFAULT | FT_LOAD_NO_HINTING) ||
      FT_Render_Glyph(f->face->glyph, FT_RENDER_MODE_SDF))
    return false;
  FT_GlyphSlot g = f->face->glyph;
  if (g->bitmap.pixel_mode != FT_PIXEL_MODE_GRAY) return false;
  *bm = (ty_glyph_bitmap){g->bitmap.buffer, g->bitmap.pitch, g->bitmap.width, g->bitmap.rows,
                          g->bitmap_left, g->bitmap_top};
  return true;
}

/* Atlas keys of a font's distance-field glyphs: its id with the top bit set (ids stay below). */
#define SDF_ID 0x80000000u

static uint32_t layout(ty_font *f, const char *s, size_t len, float x, float y, const ty_text_quad **quads,
                       float *width, bool sdf);

uint32_t ty_font_layout(ty_font *f, const char *s, size_t len, float x, float y, const ty_text_quad **quads,
                        float *width) {
  return layout(f, s, len, x, y, quads, width, false);
}

uint32_t ty_font_layout_sdf(ty_font *f, const char *s, size_t len, float x, float y, const ty_text_quad **quads,
                            float *width) {
  return layout(f, s, len, x, y, quads, width, true);
}

static uint32_t layout(ty_font *f, const char *s, size_t len, float x, float y, const ty_text_quad **quads,
                       float *width, bool sdf) {
  TY_ASSERT(f && (s || !len) && quads);
  const ty_shaped_glyph *sg;
  uint32_t n = shape(f, s, len, &sg);
  TY_GROW(text.quads, text.quad_cap, n + 1);
  const float inv = 1.0f / (float)TY_TEXT_PAGE_SIZE;
  float ox = roundf(x), baseline = roundf(y) + f->ascent;
  int32_t pen = 0;
  uint32_t count = 0;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t gid = sg[i].gid;
    const char c = s[sg[i].cluster];
    if (c != '\n' && c != '\r') {
      const ty_atlas_glyph *g =
          sdf ? ty_atlas_glyph_get(f->id | SDF_ID, gid, rasterise_sdf, f) : ty_atlas_glyph_get(f->id, gid, rasterise, f);
      if (g && g->w) {
        float gx = ox + roundf((float)(pen + sg[i].x_offset) / 64.0f) + (float)g->left;
        float gy = baseline - roundf((float)sg[i].y_offset / 64.0f) - (float)g->top;
        text.quads[count++] = (ty_text_quad){gx, gy, gx + g->w, gy + g->h, g->x * inv, g->y * inv,
                                             (g->x + g->w) * inv, (g->y + g->h) * inv, g->page};
      }
    }
    pen += sg[i].advance;
  }
  *quads = text.quads;
  if (width) *width = (float)pen / 64.0f;
  return count;
}
