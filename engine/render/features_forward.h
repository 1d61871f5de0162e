/* engine/render/features_forward.h: the forward path's features (features_forward.c),
 * as feature_table.c lists them. */
#ifndef TY_RENDER_FEATURES_FORWARD_H
#define TY_RENDER_FEATURES_FORWARD_H

#include "renderer.h" /* Required for: ty_renderer, ty_frame, ty_feature_opts */

bool ty_feature_shadow(ty_renderer *R, ty_frame *F, const ty_feature_opts *o);
bool ty_feature_sky(ty_renderer *R, ty_frame *F, const ty_feature_opts *o);
bool ty_feature_forward_lit(ty_renderer *R, ty_frame *F, const ty_feature_opts *o);
bool ty_feature_tonemap(ty_renderer *R, ty_frame *F, const ty_feature_opts *o);
bool ty_feature_overlay(ty_renderer *R, ty_frame *F, const ty_feature_opts *o);
/* Frees the debug overlay's vertex buffer and array. */
void ty_feature_overlay_release(ty_renderer *R);

#endif
