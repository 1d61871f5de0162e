/* engine/storage/saved_world_record.c: freeing a SavedWorld record (saved_world_record.h)
 * that a load, a list or an import filled: every pointer in it is its own. */
#include "saved_world_record_internal.h"

void sw_inventory_free(ty_storage_inventory *inv) {
  TY_FREE((void *)inv->stacks);
  TY_FREE((void *)inv->hotbar);
  memset(inv, 0, sizeof *inv);
}

void ty_storage_world_free(ty_storage_world *w) {
  if (!w) return;
  TY_FREE((void *)w->id);
  TY_FREE((void *)w->name);
  TY_FREE((void *)w->game_mode);
  TY_FREE((void *)w->seed.text);
  TY_FREE((void *)w->screenshot);
  TY_FREE((void *)w->edits);
  sw_inventory_free(&w->inventory);
  memset(w, 0, sizeof *w);
}

void ty_storage_worlds_free(ty_storage_world *worlds, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) ty_storage_world_free(&worlds[i]);
  TY_FREE(worlds);
}

void ty_storage_player_free(ty_storage_player *p) {
  if (p) sw_inventory_free(&p->inventory);
}
