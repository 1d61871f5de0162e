/* engine/storage/storage.h: the storage module's interface, in two floors: the generic store
 * (store.h: sqlite in WAL mode, migrations, named blobs, atomic writes, the writer thread),
 * which knows no game, and crafty's SavedWorld records over it (saved_world.h), a game
 * schema tycho ships for examples/crafty and its server module. */
#ifndef TY_STORAGE_H
#define TY_STORAGE_H

#include "saved_world.h"
#include "store.h"

#endif
