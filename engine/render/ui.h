/* engine/render/ui.h: a screen-space layer over the finished frame: coloured and
 * textured rectangles and text in the engine's TrueType face, in pixels from the top-left.
 *
 * Draw calls queue up during a frame (from anywhere, any number of times); then
 * ty_render_add_ui, called by the UI feature after Tonemap, declares one pass that draws
 * the queue in call order over the backbuffer with alpha blending and empties it. Headless
 * the pass never executes but the queue is still emptied, so nothing accumulates. */
#ifndef TY_RENDER_UI_H
#define TY_RENDER_UI_H

#include <stdbool.h>
#include <stdint.h>

#include "renderer.h" /* Required for: ty_renderer, ty_frame */

/* At most this many vertices queue per frame (6 a rectangle); more are dropped, logged once. */
#define TY_UI_MAX_VERTICES (1u << 20)

/* A rectangle of w x h pixels at (x, y), colour rgba (0..1) multiplied with texture
 * (TY_RENDER_TEXTURE_WHITE: flat colour) sampled over uv = {u0, v0, u1, v1} (NULL: the
 * whole texture, its top row at the top). */
void ty_ui_rect(ty_renderer *R, float x, float y, float w, float h, const float rgba[4], uint32_t texture,
                const float uv[4]);
/* Text (UTF-8) at (x, y) (its top-left) in the engine font (engine_font.c) at 10 * scale
 * pixels to the em; '\n' starts a new line. Returns the width in pixels of its widest line.
 * A character the face lacks draws as a box. */
float ty_ui_text(ty_renderer *R, float x, float y, float scale, const float rgba[4], const char *text);
/* The size text would take: width of its widest line and total height, in pixels. */
void ty_ui_measure(ty_renderer *R, const char *text, float scale, float *width, float *height);
/* Vertices queued now. */
uint32_t ty_ui_queued(const ty_renderer *R);
/* Drops the queue undrawn (nothing in this frame draws it). */
void ty_ui_clear(ty_renderer *R);
/* Declares the pass that draws the queue over F's backbuffer and empties the queue. False
 * (ty_render_error says why) when its shader never compiled; the queue is emptied anyway. */
bool ty_render_add_ui(ty_renderer *R, ty_frame *F);

#endif
