/* engine/render/feature_table.h: how the renderer knows its built-in features: one table
 * of {name, add, release} entries, indexed by ty_feature_kind, then the entries that only
 * release (the UI layer, whose pass ty_render_add_ui declares).
 *
 * feature_table.c alone includes this and the features_*.h; the core reaches the table
 * through the calls feature_table.c implements (renderer.h, render_internal.h). Adding a
 * feature is a row here and a file beside it; the names Lua and the docs use come from the
 * rows. */
#ifndef TY_RENDER_FEATURE_TABLE_H
#define TY_RENDER_FEATURE_TABLE_H

#include <stdint.h>

#include "renderer.h" /* Required for: ty_renderer, ty_frame, ty_feature_opts */

/* Declares the feature's passes on F->graph and returns true, or sets ty_render_error and
 * returns false having declared nothing. */
typedef bool (*ty_feature_add_fn)(ty_renderer *R, ty_frame *F, const ty_feature_opts *o);
/* Frees what the feature keeps on the renderer's device; called when the device goes. */
typedef void (*ty_feature_release_fn)(ty_renderer *R);

typedef struct ty_feature_entry {
  const char *name;              /* as Lua and the docs spell it: "Shadow", "DebugOverlay" */
  ty_feature_add_fn add;         /* NULL: a layer whose passes come from elsewhere */
  ty_feature_release_fn release; /* NULL: keeps nothing on the device */
} ty_feature_entry;

/* Every entry, kinds first (entry k is ty_feature_kind k); *count set. */
const ty_feature_entry *ty_feature_table(uint32_t *count);
/* ty_feature_release_all, which walks this table for the renderer, is declared in
 * render_internal.h. */

#endif
