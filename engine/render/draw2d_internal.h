/* engine/render/draw2d_internal.h: what draw2d.c (the queue) hands draw2d_pass.c (the
 * pass that draws it): quads of four vertices in pixels, in runs of one texture. */
#ifndef TY_RENDER_DRAW2D_INTERNAL_H
#define TY_RENDER_DRAW2D_INTERNAL_H

#include "draw2d.h"

typedef struct ty_draw2d_vertex {
  float x, y, u, v;
  uint8_t rgba[4];
} ty_draw2d_vertex; /* 20 bytes */

/* A texture key: a renderer texture id, or TY_DRAW2D_ATLAS | a glyph atlas page, with
 * TY_DRAW2D_SMOOTH for world text: scaled distance-field glyphs, sampled linearly and
 * drawn by the SDF shader. Screen text and shapes sit on whole pixels, texel for pixel,
 * so they sample nearest (a quarter of the fetches, the same pixels). */
#define TY_DRAW2D_ATLAS 0x80000000u
#define TY_DRAW2D_SMOOTH 0x40000000u

typedef struct ty_draw2d_run {
  uint32_t key, first, count; /* quads */
} ty_draw2d_run;

typedef struct ty_draw2d_queue {
  ty_draw2d_vertex *verts;
  uint32_t quads, cap; /* cap in vertices */
  ty_draw2d_run *runs;
  uint32_t run_count, run_cap;
} ty_draw2d_queue;

/* World text laid out in the world: six vertices (two triangles) a glyph, positions in
 * world units, in runs of one atlas page (run keys are pages), farthest text first. */
typedef struct ty_draw2d_world_vertex {
  float x, y, z, u, v;
  uint8_t rgba[4];
} ty_draw2d_world_vertex; /* 24 bytes */

typedef struct ty_draw2d_world {
  ty_draw2d_world_vertex *verts;
  uint32_t quads, cap; /* cap in vertices */
  ty_draw2d_run *runs;
  uint32_t run_count, run_cap;
} ty_draw2d_world;

/* This frame's world text, sorted back to front for F's camera, for a pass that draws it
 * into the scene (depth-tested); valid until the next call. The world list starts again
 * empty, so ty_draw2d_take no longer puts it in the 2D queue. */
const ty_draw2d_world *ty_draw2d_take_world(const ty_frame *F);

/* This frame's queue for its pass, world text first (projected with F's camera, back to
 * front), then the 2D calls; valid until the next call. The queue starts again empty. */
const ty_draw2d_queue *ty_draw2d_take(ty_renderer *R, const ty_frame *F);

#endif
