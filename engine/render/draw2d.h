/* engine/render/draw2d.h: immediate-mode 2D drawing (tycho.draw): text, rectangles,
 * circles, lines and images in screen pixels from the top-left, queued by any code during
 * a frame and drawn over the next rendered frame, in call order, by one pass after every
 * feature's; then the queue is empty again.
 *
 * Everything is a quad (a triangle is a quad with its last corner repeated) in one vertex
 * stream; consecutive quads with the same texture (the white texture, an image, a glyph
 * atlas page of engine/text) are one draw, so a HUD of text and shapes is a few draws.
 * Headless (no device) every call returns at once: nothing queues, nothing is kept. */
#ifndef TY_RENDER_DRAW2D_H
#define TY_RENDER_DRAW2D_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "renderer.h"      /* Required for: ty_renderer, ty_frame */
#include "../text/text.h"  /* Required for: ty_font */

/* At most this many quads queue per frame; more are dropped, logged once a frame. */
#define TY_DRAW_MAX_QUADS (1u << 21)

typedef enum ty_draw_align { TY_ALIGN_LEFT = 0, TY_ALIGN_CENTER, TY_ALIGN_RIGHT } ty_draw_align;

/* Colours are sRGB as given, 0..1, as the UI layer's. */
void ty_draw_rect(ty_renderer *R, bool fill, float x, float y, float w, float h, const float rgba[4]);
void ty_draw_circle(ty_renderer *R, bool fill, float x, float y, float radius, const float rgba[4]);
void ty_draw_line(ty_renderer *R, float x1, float y1, float x2, float y2, const float rgba[4], float width);
/* Texture id `texture` (renderer.h) with its top-left at (x, y), turned by rotation
 * radians about that corner; rect {x, y, w, h} in pixels of the image (NULL: all of it),
 * drawn scale_x by scale_y times its pixel size. */
void ty_draw_image(ty_renderer *R, uint32_t texture, float x, float y, const float rect[4], float scale_x,
                   float scale_y, float rotation, const float rgba[4]);
/* Text with its box's top-left at (x, y); '\n' starts a line. width > 0 wraps it to that
 * width and aligns each line in it; width 0 aligns the lines in the widest one's box. */
void ty_draw_text(ty_renderer *R, ty_font *font, const char *text, size_t len, float x, float y,
                  const float rgba[4], ty_draw_align align, float width);

/* World text (the Text component): laid out in the font's pixels and placed by world (a
 * column-major 4x4 matrix), one pixel 1 / pixels_per_unit units, lines running down the
 * object's -Y; the object's origin is the top of the text's box, at its left, centre or
 * right edge per align. The next frame projects it with its camera and draws every world
 * text back to front (not depth-tested: over the scene) before the 2D queue. */
void ty_draw_world_text(ty_renderer *R, ty_font *font, const char *text, size_t len, const float world[16],
                        const float rgba[4], ty_draw_align align, float width, float pixels_per_unit);

/* Quads and draws (texture runs) queued now. */
uint32_t ty_draw_queued(const ty_renderer *R, uint32_t *runs);
/* Drops the queue undrawn. */
void ty_draw_clear(ty_renderer *R);
/* Declares the pass that draws the queue over F's backbuffer (nothing when the queue is
 * empty or no feature made a backbuffer), then empties the queue. False (ty_render_error
 * says why) when its shader never compiled. */
bool ty_render_add_draw2d(ty_renderer *R, ty_frame *F);
/* Declares WorldText: this frame's world text (ty_draw_world_text) drawn into F's HDR
 * target, depth-tested, back to front; Tonemap declares it just before itself. Without an
 * HDR target (or a device) it declares nothing and the 2D pass draws the text as before.
 * False (ty_render_error says why) when its shader never compiled. */
bool ty_render_add_world_text(ty_renderer *R, ty_frame *F);

#endif
