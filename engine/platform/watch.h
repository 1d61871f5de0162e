/* engine/platform/watch.h: a file watcher for hot reload, on Linux inotify (no polling).
 *
 * Folders are watched recursively; a folder created (or moved in) later is followed, one
 * renamed or moved inside the tree reports under its new name, and one moved out of it
 * (or a watched root moved away) is no longer watched. The
 * kernel's events are read without blocking and coalesced per file: a file is reported
 * once its burst of writes has been quiet for `settle` seconds, so an editor's save (a
 * temp file written, then renamed over the target) or a save every few milliseconds is
 * one report, not many. Editor litter (dot files, `~` backups, .swp, vim's 4913 probe)
 * is never reported.
 */
#ifndef TY_WATCH_H
#define TY_WATCH_H

#include <stdbool.h>

typedef struct ty_watch ty_watch;

/* settle: seconds a file must stay quiet before it is reported (0: the next poll).
 * NULL (with a watch_failed line) when inotify is unavailable. */
ty_watch *ty_watch_create(double settle);
void ty_watch_destroy(ty_watch *w);

/* Watches dir and every folder below it. False (watch_failed logged) when dir cannot be
 * watched; a missing dir is not an error for callers that watch optional folders, so
 * they test it first. Adding a folder twice is harmless. */
bool ty_watch_add(ty_watch *w, const char *dir);

/* Called once per settled file: path is dir/relative as the folder was added; removed is
 * true when the file is gone (deleted or renamed away) at report time. */
typedef void (*ty_watch_fn)(const char *path, bool removed, void *user);

/* Reads the queued events and reports files whose burst has settled by `now` (ty_now()
 * seconds). Never blocks. Returns how many files it reported. */
int ty_watch_poll(ty_watch *w, double now, ty_watch_fn fn, void *user);

/* True while some file's burst is still settling (a caller may poll again sooner). */
bool ty_watch_pending(const ty_watch *w);

/* The inotify descriptor, readable when events wait (for callers with their own poll). */
int ty_watch_fd(const ty_watch *w);

#endif
