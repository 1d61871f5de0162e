/* engine/render/features_ui.h: what feature_table.c needs of the UI layer (features_ui.c;
 * its public face is ui.h). */
#ifndef TY_RENDER_FEATURES_UI_H
#define TY_RENDER_FEATURES_UI_H

#include "renderer.h" /* Required for: ty_renderer */

/* Frees the UI layer's vertex buffer and array. */
void ty_features_ui_release(ty_renderer *R);

#endif
