/* engine/storage/saved_world_internal.h: what saved_world.c (the records in sqlite) and
 * saved_world_json.c (the JSON shape, also the inventory column's) share; no other file
 * includes it. */
#ifndef TY_SAVED_WORLD_INTERNAL_H
#define TY_SAVED_WORLD_INTERNAL_H

#include "saved_world.h"

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

/* saved_world_json.c: an inventory as the column's compact JSON text (owned, free()); NULL
 * when the inventory is absent. */
char *sw_inventory_text(const ty_storage_inventory *inv);
/* Parses the column's text (len bytes) into *inv (owned); false when it is not an inventory. */
bool sw_inventory_parse(const char *text, size_t len, ty_storage_inventory *inv);
/* saved_world.c: frees what an inventory owns and empties it. */
void sw_inventory_free(ty_storage_inventory *inv);

#endif
