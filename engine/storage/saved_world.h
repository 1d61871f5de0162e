/* engine/storage/saved_world.h: A GAME SCHEMA, crafty's: the SavedWorld records of
 * examples/crafty (and of server/modules/crafty.lua, the game module tycho ships as an
 * example), kept in the generic store (store.h). It is not the engine's idea of a world: a
 * game with other records writes its own schema over ty_store as this file does, or keeps
 * its data in the store's named blobs. tycho.storage and the game host's host.storage expose
 * it to Lua (scripts/docs/storage.md).
 *
 * The record (saved_world_record.h): a world's fields (name, seed, game mode, times, player
 * pose, sun and moon, inventory, screenshot), its block edit log, and per-player records,
 * plus its export to and import from the JSON shape crafty's first version saved
 * (saved_world_json.h), written atomically. Two ways to
 * save a world: ty_storage_save writes the whole record (a full save), while
 * ty_storage_save_meta and ty_storage_append_edits write only what changed since the last
 * save (an incremental save: every field but the edit log, and the new edits appended to a
 * journal). A load merges the journal into the log; a full save or ty_storage_compact folds
 * it in for good. One ty_storage per thread: every call runs on the caller's thread, except
 * the queued saves (ty_storage_queue_*), which the store's writer thread writes. */
#ifndef TY_SAVED_WORLD_H
#define TY_SAVED_WORLD_H

#include "saved_world_json.h"   /* Required for: the record as JSON */
#include "saved_world_record.h" /* Required for: the record's types */
#include "store.h"

/* The sqlite schema (PRAGMA user_version) this build migrates every store to on open. */
#define TY_STORAGE_SCHEMA_VERSION 4
/* Room for a world id: 32 hex digits and the NUL. */
#define TY_STORAGE_ID_SIZE 33

typedef struct ty_storage ty_storage;

/* Opens (creating when absent) the store at path, ":memory:" for a private one, and applies
 * the schema migrations. NULL with a message in err when the file is not a tycho store, is
 * damaged, or was written by a newer tycho; such a file is left as it was. */
ty_storage *ty_storage_open(const char *path, char *err, size_t errsz);
void ty_storage_close(ty_storage *s);
/* The generic store beneath: its blobs, or a game's own statements beside these. */
ty_store *ty_storage_store(ty_storage *s);

/* Stores every field of w in one transaction, replacing the world with the same id. Later
 * edits of the same block replace earlier ones. Refuses a record newer than this build's. */
ty_storage_status ty_storage_save(ty_storage *s, const ty_storage_world *w, char *err, size_t errsz);
/* Stores every field of w but its edit log (w->edits is not read), creating the world when
 * absent, and appends the nappend edits of append (may be 0) to its log, in one
 * transaction. The cost is that of the fields and the new edits, not of the whole log. */
ty_storage_status ty_storage_save_meta(ty_storage *s, const ty_storage_world *w, const ty_storage_edit *append,
                                       uint32_t nappend, char *err, size_t errsz);
/* Appends n edits to the log of world id in one transaction: a load returns them after the
 * earlier ones, a later edit of a block replacing the type of the earlier one in its place,
 * as if the whole log had been saved. TY_STORAGE_MISSING when there is no such world. */
ty_storage_status ty_storage_append_edits(ty_storage *s, const char *id, const ty_storage_edit *edits, uint32_t n,
                                          char *err, size_t errsz);
/* Queued saves: ty_storage_save_meta and ty_storage_append_edits, written in the order
 * queued by a thread with its own connection to the file, so that the commit's disk wait
 * never lands on the caller. They copy what they are given (the caller keeps ownership) and
 * return at once: TY_STORAGE_FAILED only for a record refused without the database (as
 * save_meta refuses it) or a writer that cannot start. A failure of the write itself is
 * logged (storage_queued_save_failed) and returned by the next ty_storage_flush. Every other
 * call on s (load, list, save, compact...) first waits for the queued saves to be written,
 * so it sees them. Waits only when TY_STORE_QUEUE_JOBS saves are already queued. A
 * ":memory:" store, which a second connection cannot open, writes them at once instead. */
ty_storage_status ty_storage_queue_save_meta(ty_storage *s, const ty_storage_world *w, const ty_storage_edit *append,
                                             uint32_t nappend, char *err, size_t errsz);
ty_storage_status ty_storage_queue_append_edits(ty_storage *s, const char *id, const ty_storage_edit *edits,
                                                uint32_t n, char *err, size_t errsz);
/* Waits until every queued save is written. TY_STORAGE_FAILED, with the first failure since
 * the previous flush in err, when one failed; the failure is then cleared. ty_storage_close
 * flushes too (its failures are only logged). */
ty_storage_status ty_storage_flush(ty_storage *s, char *err, size_t errsz);
/* Without waiting: true, with its message in err, when a queued save failed since the last
 * flush (which still reports it). */
bool ty_storage_last_error(ty_storage *s, char *err, size_t errsz);
/* Queued saves not yet written. */
uint32_t ty_storage_pending(ty_storage *s);
/* A batch on the store beneath (store.h ty_store_batch_begin): every save until
 * ty_storage_batch_end is a savepoint of one incremental transaction, committed once. */
bool ty_storage_batch_begin(ty_storage *s, char *err, size_t errsz);
ty_storage_status ty_storage_batch_end(ty_storage *s, ty_storage_status st, char *err, size_t errsz);
bool ty_storage_in_batch(ty_storage *s);
/* Asks the writer thread for a checkpoint (store.h ty_store_checkpoint); returns at once. */
void ty_storage_checkpoint(ty_storage *s);
/* Folds the appended edits of world id into its packed log (what a full save leaves), in one
 * transaction; nothing to do when none were appended. TY_STORAGE_MISSING when there is no
 * such world. */
ty_storage_status ty_storage_compact(ty_storage *s, const char *id, char *err, size_t errsz);
/* Fills *out (owned: ty_storage_world_free) on TY_STORAGE_OK: the edit log with any appended
 * edits merged in. */
ty_storage_status ty_storage_load(ty_storage *s, const char *id, ty_storage_world *out, char *err, size_t errsz);
/* Every world, most recently played first, without edit logs (nedits counts them).
 * *out is owned: ty_storage_worlds_free(*out, *n). */
ty_storage_status ty_storage_list(ty_storage *s, ty_storage_world **out, uint32_t *n, char *err, size_t errsz);
/* Removes the world, its edit log and its player records. */
ty_storage_status ty_storage_delete(ty_storage *s, const char *id, char *err, size_t errsz);

/* In one incremental transaction (as save_meta: kept through a crash of the process, on disk
 * at the next checkpoint). */
ty_storage_status ty_storage_save_player(ty_storage *s, const char *world_id, const char *player_key,
                                         const ty_storage_player *p, char *err, size_t errsz);
/* Fills *out (owned: ty_storage_player_free) on TY_STORAGE_OK. */
ty_storage_status ty_storage_load_player(ty_storage *s, const char *world_id, const char *player_key,
                                         ty_storage_player *out, char *err, size_t errsz);

/* The store's named blobs (store.h: ty_store_put_blob...), on this store. */
ty_storage_status ty_storage_put_blob(ty_storage *s, const char *key, const void *data, size_t len, char *err,
                                      size_t errsz);
ty_storage_status ty_storage_get_blob(ty_storage *s, const char *key, void **out, size_t *len, char *err,
                                      size_t errsz);
ty_storage_status ty_storage_delete_blob(ty_storage *s, const char *key, char *err, size_t errsz);

/* Writes the world as the seed's JSON (SavedWorld; the screenshot as a data: URL) to path:
 * a temporary file beside it, fsync, rename over path, fsync of the folder. */
ty_storage_status ty_storage_export(ty_storage *s, const char *id, const char *path, char *err, size_t errsz);
/* Reads such a file and saves the world. A world whose id is already stored gets a fresh
 * id, so an import never overwrites one; the id used is written to id_out. */
ty_storage_status ty_storage_import(ty_storage *s, const char *path, char id_out[TY_STORAGE_ID_SIZE], char *err,
                                    size_t errsz);

/* A fresh world id: 32 random hex digits. */
void ty_storage_new_id(char out[TY_STORAGE_ID_SIZE]);
/* createdAt and lastPlayedAt hold ty_storage_now_ms() (store.h): milliseconds since 1970. */

#endif
