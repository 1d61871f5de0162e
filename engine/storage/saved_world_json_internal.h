/* engine/storage/saved_world_json_internal.h: the inventory column's text, which
 * saved_world.c stores and reads back in the shape the JSON export uses; no other file
 * includes it. */
#ifndef TY_SAVED_WORLD_JSON_INTERNAL_H
#define TY_SAVED_WORLD_JSON_INTERNAL_H

#include "saved_world_json.h"

/* An inventory as the column's compact JSON text (owned, free()); NULL when the inventory
 * is absent. */
char *sw_inventory_text(const ty_storage_inventory *inv);
/* Parses the column's text (len bytes) into *inv (owned); false when it is not an inventory. */
bool sw_inventory_parse(const char *text, size_t len, ty_storage_inventory *inv);

#endif
