/* engine/storage/saved_world_json.h: crafty's SavedWorld record (saved_world_record.h) as
 * the JSON shape crafty's first version saved a world in, which ty_storage_export and
 * ty_storage_import (saved_world.h) write and read. */
#ifndef TY_SAVED_WORLD_JSON_H
#define TY_SAVED_WORLD_JSON_H

#include "saved_world_record.h"
#include "store.h" /* Required for: ty_storage_status */

/* Parses the seed's JSON shape into *out (owned). Records of an older format are upgraded;
 * newer ones refused. */
ty_storage_status ty_storage_world_from_json(const char *text, size_t len, ty_storage_world *out, char *err,
                                             size_t errsz);
/* The JSON text of w; owned by the caller (free()), NULL when out of memory. */
char *ty_storage_world_to_json(const ty_storage_world *w);

#endif
