/* engine/render/features_deferred.h: the deferred path and Forward+ (features_deferred.c),
 * as feature_table.c lists them. */
#ifndef TY_RENDER_FEATURES_DEFERRED_H
#define TY_RENDER_FEATURES_DEFERRED_H

#include "renderer.h" /* Required for: ty_renderer, ty_frame, ty_feature_opts */

bool ty_feature_geometry(ty_renderer *R, ty_frame *F, const ty_feature_opts *o);
bool ty_feature_ao(ty_renderer *R, ty_frame *F, const ty_feature_opts *o);
bool ty_feature_deferred_lighting(ty_renderer *R, ty_frame *F, const ty_feature_opts *o);
bool ty_feature_point_spot_light(ty_renderer *R, ty_frame *F, const ty_feature_opts *o);
bool ty_feature_forward_overlay(ty_renderer *R, ty_frame *F, const ty_feature_opts *o);
bool ty_feature_forward_plus(ty_renderer *R, ty_frame *F, const ty_feature_opts *o);

#endif
