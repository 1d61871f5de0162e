/* engine/storage/saved_world_record_internal.h: what the SavedWorld files (saved_world.c,
 * saved_world_json.c) use to fill and empty a record they own; no other file includes it. */
#ifndef TY_SAVED_WORLD_RECORD_INTERNAL_H
#define TY_SAVED_WORLD_RECORD_INTERNAL_H

#include "saved_world_record.h"

#include <string.h>

static inline char *sw_dup_str(const char *s) {
  if (!s) return NULL;
  size_t n = strlen(s) + 1;
  char *p = TY_MALLOC(n);
  TY_ASSERT(p);
  memcpy(p, s, n);
  return p;
}

static inline void *sw_dup_mem(const void *src, size_t n) {
  if (!src || n == 0) return NULL;
  void *p = TY_MALLOC(n);
  TY_ASSERT(p);
  memcpy(p, src, n);
  return p;
}

/* Frees what an inventory owns and empties it. */
void sw_inventory_free(ty_storage_inventory *inv);

#endif
