/* engine/text/atlas.c: the glyph atlas of text.h: fixed-size RGBA8 pages packed in
 * shelves (rows of glyphs of about one height), a hash from (font, glyph) to a glyph's
 * place, and least-recently-used page reuse once TY_TEXT_MAX_PAGES are full. */
#include <string.h>

#include "common.h"
#include "text_internal.h"

#define PAD 1u /* empty pixels around each glyph, so linear filtering never reads a neighbour */

typedef struct shelf {
  uint32_t y, h, x; /* top row, height, next free column */
} shelf;

typedef struct page {
  uint8_t *rgba;
  shelf *shelves;
  uint32_t shelf_count, shelf_cap;
  uint32_t next_y;       /* first row no shelf holds */
  uint64_t last_use;     /* the frame stamp when a glyph of it was last laid out */
  bool dirty;
  uint32_t dirty_rect[4]; /* x0, y0, x1, y1 */
} page;

static struct {
  page pages[TY_TEXT_MAX_PAGES];
  uint32_t page_count;
  uint32_t current;      /* the page new glyphs go to first */
  ty_atlas_glyph *slots; /* open addressing; font 0 marks an empty slot */
  uint32_t slot_cap, used;
  uint64_t frame;
  uint64_t rasterised, evictions;
  bool evict_logged;
} atlas;

static uint32_t hash(uint32_t font, uint32_t gid) {
  uint64_t k = ((uint64_t)font << 32 | gid) * 0x9E3779B97F4A7C15ull;
  return (uint32_t)(k >> 32);
}

static ty_atlas_glyph *find_slot(uint32_t font, uint32_t gid) {
  uint32_t mask = atlas.slot_cap - 1;
  for (uint32_t i = hash(font, gid) & mask;; i = (i + 1) & mask) {
    ty_atlas_glyph *s = &atlas.slots[i];
    if (!s->font || (s->font == font && s->gid == gid)) return s;
  }
}

/* Rebuilds the hash at cap slots, leaving out the glyphs of page `drop` (-1: none). */
static void rehash(uint32_t cap, int drop) {
  ty_atlas_glyph *old = atlas.slots;
  uint32_t old_cap = atlas.slot_cap;
  atlas.slots = TY_MALLOC(cap * sizeof *atlas.slots);
  TY_ASSERT(atlas.slots);
  memset(atlas.slots, 0, cap * sizeof *atlas.slots);
  atlas.slot_cap = cap;
  atlas.used = 0;
  for (uint32_t i = 0; i < old_cap; i++) {
    if (!old[i].font || (drop >= 0 && old[i].w && old[i].page == (uint32_t)drop)) continue;
    *find_slot(old[i].font, old[i].gid) = old[i];
    atlas.used++;
  }
  TY_FREE(old);
}

static void mark_dirty(page *p, uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1) {
  if (!p->dirty) {
    p->dirty = true;
    p->dirty_rect[0] = x0, p->dirty_rect[1] = y0, p->dirty_rect[2] = x1, p->dirty_rect[3] = y1;
    return;
  }
  uint32_t *r = p->dirty_rect;
  if (x0 < r[0]) r[0] = x0;
  if (y0 < r[1]) r[1] = y0;
  if (x1 > r[2]) r[2] = x1;
  if (y1 > r[3]) r[3] = y1;
}

static void page_reset(page *p) {
  memset(p->rgba, 0, (size_t)TY_TEXT_PAGE_SIZE * TY_TEXT_PAGE_SIZE * 4);
  p->shelf_count = 0;
  p->next_y = 0;
  mark_dirty(p, 0, 0, TY_TEXT_PAGE_SIZE, TY_TEXT_PAGE_SIZE);
}

static void page_add(void) {
  page *p = &atlas.pages[atlas.page_count++];
  p->rgba = TY_MALLOC((size_t)TY_TEXT_PAGE_SIZE * TY_TEXT_PAGE_SIZE * 4);
  TY_ASSERT(p->rgba);
  page_reset(p);
}

/* A w x h cell (padding included) in page p, or false when it has no room. */
static bool page_fit(page *p, uint32_t w, uint32_t h, uint32_t *x, uint32_t *y) {
  shelf *best = NULL;
  for (uint32_t i = 0; i < p->shelf_count; i++) {
    shelf *s = &p->shelves[i];
    /* A shelf much taller than the glyph would waste its height: leave it to taller ones. */
    if (s->h >= h && s->h <= h + h / 2 + 2 && s->x + w <= TY_TEXT_PAGE_SIZE && (!best || s->h < best->h)) best = s;
  }
  if (!best) {
    if (p->next_y + h > TY_TEXT_PAGE_SIZE || w > TY_TEXT_PAGE_SIZE) return false;
    TY_GROW(p->shelves, p->shelf_cap, p->shelf_count + 1);
    best = &p->shelves[p->shelf_count++];
    *best = (shelf){p->next_y, h, 0};
    p->next_y += h;
  }
  *x = best->x, *y = best->y;
  best->x += w;
  return true;
}

/* Room for a w x h cell somewhere: the current page, a new one, or the page used least
 * recently, emptied (its glyphs forgotten). */
static bool place(uint32_t w, uint32_t h, uint32_t *pg, uint32_t *x, uint32_t *y) {
  if (w > TY_TEXT_PAGE_SIZE || h > TY_TEXT_PAGE_SIZE) return false;
  if (!atlas.page_count) page_add();
  if (page_fit(&atlas.pages[atlas.current], w, h, x, y)) return *pg = atlas.current, true;
  for (uint32_t i = 0; i < atlas.page_count; i++) {
    if (page_fit(&atlas.pages[i], w, h, x, y)) return atlas.current = *pg = i, true;
  }
  if (atlas.page_count < TY_TEXT_MAX_PAGES) {
    page_add();
    atlas.current = atlas.page_count - 1;
  } else {
    uint32_t oldest = 0;
    for (uint32_t i = 1; i < atlas.page_count; i++)
      if (atlas.pages[i].last_use < atlas.pages[oldest].last_use) oldest = i;
    if (atlas.pages[oldest].last_use == atlas.frame && !atlas.evict_logged) {
      atlas.evict_logged = true;
      ty_log("text_atlas_full", "one frame uses more glyphs than %u atlas pages hold: some draw wrong this frame",
             TY_TEXT_MAX_PAGES);
    }
    rehash(atlas.slot_cap, (int)oldest);
    page_reset(&atlas.pages[oldest]);
    atlas.evictions++;
    atlas.current = oldest;
  }
  *pg = atlas.current;
  return page_fit(&atlas.pages[atlas.current], w, h, x, y);
}

const ty_atlas_glyph *ty_atlas_glyph_get(uint32_t font_id, uint32_t gid, ty_rasterise_fn fn, void *font) {
  TY_ASSERT(font_id != 0);
  if (!atlas.slot_cap) rehash(1024, -1);
  ty_atlas_glyph *s = find_slot(font_id, gid);
  if (s->font) {
    if (s->w) atlas.pages[s->page].last_use = atlas.frame;
    return s;
  }
  ty_glyph_bitmap bm = {0};
  ty_atlas_glyph g = {.font = font_id, .gid = gid};
  if (fn(font, gid, &bm) && bm.w && bm.h) {
    uint32_t pg, x, y;
    if (!place(bm.w + 2 * PAD, bm.h + 2 * PAD, &pg, &x, &y)) return NULL;
    page *p = &atlas.pages[pg];
    for (uint32_t r = 0; r < bm.h; r++) {
      const uint8_t *src = bm.pixels + (ptrdiff_t)r * bm.pitch;
      uint8_t *dst = p->rgba + ((size_t)(y + PAD + r) * TY_TEXT_PAGE_SIZE + x + PAD) * 4;
      for (uint32_t c = 0; c < bm.w; c++) dst[c * 4] = dst[c * 4 + 1] = dst[c * 4 + 2] = 255, dst[c * 4 + 3] = src[c];
    }
    mark_dirty(p, x, y, x + bm.w + 2 * PAD, y + bm.h + 2 * PAD);
    p->last_use = atlas.frame;
    g.page = (uint16_t)pg, g.x = (uint16_t)(x + PAD), g.y = (uint16_t)(y + PAD);
    g.w = (uint16_t)bm.w, g.h = (uint16_t)bm.h, g.left = (int16_t)bm.left, g.top = (int16_t)bm.top;
  }
  atlas.rasterised++;
  /* A page reuse above rebuilt the hash: look the slot up again. */
  if (2 * (atlas.used + 1) > atlas.slot_cap) rehash(atlas.slot_cap * 2, -1);
  s = find_slot(font_id, gid);
  *s = g;
  atlas.used++;
  return s;
}

uint32_t ty_text_page_count(void) { return atlas.page_count; }

const uint8_t *ty_text_page_pixels(uint32_t pg) { return pg < atlas.page_count ? atlas.pages[pg].rgba : NULL; }

bool ty_text_page_take_dirty(uint32_t pg, uint32_t rect[4]) {
  if (pg >= atlas.page_count || !atlas.pages[pg].dirty) return false;
  const uint32_t *r = atlas.pages[pg].dirty_rect;
  rect[0] = r[0], rect[1] = r[1], rect[2] = r[2] - r[0], rect[3] = r[3] - r[1];
  atlas.pages[pg].dirty = false;
  return true;
}

void ty_text_next_frame(void) { atlas.frame++; }

void ty_text_atlas_stats(uint64_t *rasterised, uint64_t *evictions) {
  if (rasterised) *rasterised = atlas.rasterised;
  if (evictions) *evictions = atlas.evictions;
}
