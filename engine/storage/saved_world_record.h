/* engine/storage/saved_world_record.h: crafty's SavedWorld record in memory (saved_world.h
 * keeps it in the store, saved_world_json.h reads and writes it as JSON): its fields, the
 * format version they follow, and the calls that free what a filled record owns. */
#ifndef TY_SAVED_WORLD_RECORD_H
#define TY_SAVED_WORLD_RECORD_H

#include "common.h"

/* The SavedWorld record format this build writes; newer records are refused, older ones
 * are upgraded when loaded. */
#define TY_STORAGE_FORMAT_VERSION 2

typedef enum ty_storage_seed_kind {
  TY_STORAGE_SEED_INTEGER = 0,
  TY_STORAGE_SEED_NUMBER,
  TY_STORAGE_SEED_TEXT,
} ty_storage_seed_kind;

/* A seed is kept as given: an integer, a float or a string. */
typedef struct ty_storage_seed {
  ty_storage_seed_kind kind;
  int64_t integer;
  double number;
  const char *text;
} ty_storage_seed;

/* One block change; type 0 is air (a broken block). */
typedef struct ty_storage_edit {
  int32_t x, y, z, type;
} ty_storage_edit;

typedef struct ty_storage_stack {
  int32_t block_type, count;
} ty_storage_stack;

typedef struct ty_storage_inventory {
  bool present;
  const ty_storage_stack *stacks;
  uint32_t nstacks;
  const int32_t *hotbar;
  uint32_t nhotbar;
} ty_storage_inventory;

typedef struct ty_storage_pose {
  double x, y, z, yaw, pitch;
} ty_storage_pose;

/* The SavedWorld record of the Lua API. In a world given to ty_storage_save every pointer is
 * borrowed; a world filled by load/list/import owns them: free it with ty_storage_world_free. */
typedef struct ty_storage_world {
  const char *id, *name, *game_mode;
  ty_storage_seed seed;
  double created_at, last_played_at; /* milliseconds since 1970, as the seed's Date.now() */
  ty_storage_pose player;
  double sun_angle;
  bool has_moon_phase;
  double moon_phase;
  ty_storage_inventory inventory;
  const unsigned char *screenshot; /* PNG bytes, NULL when none */
  size_t screenshot_len;
  int64_t version;
  const ty_storage_edit *edits;
  uint32_t nedits;
} ty_storage_world;

/* A server's record of one player in one world. */
typedef struct ty_storage_player {
  ty_storage_pose pose;
  ty_storage_inventory inventory;
} ty_storage_player;

void ty_storage_world_free(ty_storage_world *w);
void ty_storage_worlds_free(ty_storage_world *worlds, uint32_t n);
void ty_storage_player_free(ty_storage_player *p);

#endif
