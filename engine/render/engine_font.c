/* engine/render/engine_font.c: the font the engine draws its own text with: the face
 * shipped in content/fonts, found beside the shaders folder (the source tree and an
 * install keep both under one root), one loaded font a pixel size. */
#include <stdio.h>

#include "../text/text.h"
#include "render_core.h"

#define ENGINE_FONT "content/fonts/DejaVuSans.ttf"
#define MAX_FONTS (sizeof ((ty_renderer *)0)->engine_fonts / sizeof *((ty_renderer *)0)->engine_fonts)

ty_font *ty_render_engine_font(ty_renderer *R, float size) {
  TY_ASSERT(R && size > 0);
  size_t free_slot = MAX_FONTS;
  for (size_t i = 0; i < MAX_FONTS; i++) {
    if (!R->engine_fonts[i]) {
      if (free_slot == MAX_FONTS) free_slot = i;
      continue;
    }
    if (ty_font_size(R->engine_fonts[i]) == size) return R->engine_fonts[i];
  }
  /* Every slot taken by another size (a window resized across many scales): the oldest goes. */
  if (free_slot == MAX_FONTS) {
    ty_font_destroy(R->engine_fonts[0]);
    for (size_t i = 1; i < MAX_FONTS; i++) R->engine_fonts[i - 1] = R->engine_fonts[i];
    free_slot = MAX_FONTS - 1;
    R->engine_fonts[free_slot] = NULL;
  }
  char path[4200], err[512];
  snprintf(path, sizeof path, "%s/../" ENGINE_FONT, R->shader_dir);
  ty_font *f = ty_font_load(path, size, err, sizeof err);
  if (!f) {
    ty_render_fail(R, NULL, "engine font: %s", err);
    return NULL;
  }
  R->engine_fonts[free_slot] = f;
  return f;
}

void ty_render_engine_fonts_free(ty_renderer *R) {
  for (size_t i = 0; i < MAX_FONTS; i++) ty_font_destroy(R->engine_fonts[i]), R->engine_fonts[i] = NULL;
}
