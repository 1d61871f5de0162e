/* engine/render/features_post.h: the post-processing features (features_post.c), as
 * feature_table.c lists them. */
#ifndef TY_RENDER_FEATURES_POST_H
#define TY_RENDER_FEATURES_POST_H

#include "renderer.h" /* Required for: ty_renderer, ty_frame, ty_feature_opts */

bool ty_feature_taa(ty_renderer *R, ty_frame *F, const ty_feature_opts *o);
bool ty_feature_bloom(ty_renderer *R, ty_frame *F, const ty_feature_opts *o);
bool ty_feature_dof(ty_renderer *R, ty_frame *F, const ty_feature_opts *o);

#endif
