/* engine/render/feature_table.c: the built-in features' table, and the walk over it that
 * adds a feature by kind, names it, finds it by name and releases every feature's GPU
 * objects. The only file of the renderer that includes the features' headers. */
#include "feature_table.h"

#include <string.h>

#include "features_deferred.h"
#include "features_forward.h"
#include "features_post.h"
#include "features_ui.h"
#include "particles_pass.h"
#include "render_internal.h" /* Required for: ty_render_fail */

static const ty_feature_entry table[] = {
    [TY_FEATURE_SHADOW] = {"Shadow", ty_feature_shadow, NULL},
    [TY_FEATURE_SKY] = {"Sky", ty_feature_sky, NULL},
    [TY_FEATURE_FORWARD_LIT] = {"ForwardLit", ty_feature_forward_lit, NULL},
    [TY_FEATURE_GEOMETRY] = {"Geometry", ty_feature_geometry, NULL},
    [TY_FEATURE_AO] = {"AO", ty_feature_ao, NULL},
    [TY_FEATURE_DEFERRED_LIGHTING] = {"DeferredLighting", ty_feature_deferred_lighting, NULL},
    [TY_FEATURE_POINT_SPOT_LIGHT] = {"PointSpotLight", ty_feature_point_spot_light, NULL},
    [TY_FEATURE_FORWARD_OVERLAY] = {"ForwardOverlay", ty_feature_forward_overlay, NULL},
    [TY_FEATURE_FORWARD_PLUS] = {"ForwardPlus", ty_feature_forward_plus, NULL},
    [TY_FEATURE_TAA] = {"TAA", ty_feature_taa, NULL},
    [TY_FEATURE_BLOOM] = {"Bloom", ty_feature_bloom, NULL},
    [TY_FEATURE_DOF] = {"DoF", ty_feature_dof, NULL},
    [TY_FEATURE_TONEMAP] = {"Tonemap", ty_feature_tonemap, NULL},
    [TY_FEATURE_OVERLAY] = {"DebugOverlay", ty_feature_overlay, ty_feature_overlay_release},
    [TY_FEATURE_COUNT] = {"UI", NULL, ty_features_ui_release}, /* ty_render_add_ui declares its pass */
    [TY_FEATURE_COUNT + 1] = {"Particles", NULL, ty_render_particles_release}, /* ty_render_add_particles */
};

#define TABLE_SIZE ((uint32_t)(sizeof table / sizeof *table))

const ty_feature_entry *ty_feature_table(uint32_t *count) {
  if (count) *count = TABLE_SIZE;
  return table;
}

void ty_feature_release_all(ty_renderer *R) {
  for (uint32_t i = 0; i < TABLE_SIZE; i++)
    if (table[i].release) table[i].release(R);
}

const char *ty_feature_name(ty_feature_kind kind) {
  return (unsigned)kind < TY_FEATURE_COUNT ? table[kind].name : "?";
}

bool ty_feature_find(const char *name, ty_feature_kind *kind) {
  for (uint32_t k = 0; name && k < TY_FEATURE_COUNT; k++)
    if (strcmp(table[k].name, name) == 0) {
      if (kind) *kind = (ty_feature_kind)k;
      return true;
    }
  return false;
}

bool ty_render_add_feature(ty_renderer *R, ty_frame *F, ty_feature_kind kind, const ty_feature_opts *opts) {
  static const ty_feature_opts zero;
  if ((unsigned)kind >= TY_FEATURE_COUNT) {
    ty_render_fail(R, NULL, "unknown feature kind %d", (int)kind);
    return false;
  }
  return table[kind].add(R, F, opts ? opts : &zero);
}
