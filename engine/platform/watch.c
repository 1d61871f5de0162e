/* engine/platform/watch.c: the inotify watcher behind hot reload (see watch.h). */
#include "watch.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"

/* Events that mean "this file's contents may be new" or "it is gone". IN_MODIFY is left
 * out on purpose: it fires per write(), mid-save; IN_CLOSE_WRITE closes the save. */
#define FILE_EVENTS (IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CREATE)
#define DIR_EVENTS (IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)

typedef struct watch_dir {
  int wd; /* -1: a free slot */
  char *path;
  dev_t dev; /* which folder path named when it was watched: a move leaves path stale */
  ino_t ino;
} watch_dir;

/* A folder's IN_MOVED_FROM waiting for the IN_MOVED_TO with the same cookie: both found, it
 * moved inside the tree (its watches stay, their paths change); unmatched once the queue is
 * drained, it left the tree (its watches go). */
typedef struct watch_move {
  uint32_t cookie;
  char *from;
} watch_move;

typedef struct watch_pending {
  char *path;
  double last; /* time of the burst's last event */
} watch_pending;

struct ty_watch {
  int fd;
  double settle;
  watch_dir *dirs;
  uint32_t ndirs, dirs_cap;
  watch_pending *pending;
  uint32_t npending, pending_cap;
  watch_move *moves;
  uint32_t nmoves, moves_cap;
};

static char *dup_path(const char *a, const char *b) {
  size_t la = strlen(a), lb = b ? strlen(b) : 0;
  char *s = TY_MALLOC(la + lb + 2);
  TY_ASSERT(s);
  memcpy(s, a, la);
  if (b) {
    s[la] = '/';
    memcpy(s + la + 1, b, lb + 1);
  } else {
    s[la] = 0;
  }
  return s;
}

/* Temp files, backups and probes editors write beside the real file. */
static bool is_litter(const char *name) {
  size_t n = strlen(name);
  if (n == 0 || name[0] == '.' || name[0] == '#') return true;
  if (name[n - 1] == '~') return true;
  if (strcmp(name, "4913") == 0) return true; /* vim checks it may create files */
  static const char *const tails[] = {".swp", ".swx", ".swo", ".tmp", ".bak", ".part"};
  for (size_t i = 0; i < sizeof tails / sizeof *tails; i++) {
    size_t t = strlen(tails[i]);
    if (n > t && strcmp(name + n - t, tails[i]) == 0) return true;
  }
  return false;
}

ty_watch *ty_watch_create(double settle) {
  int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd < 0) {
    ty_log("watch_failed", "inotify_init1: %s", strerror(errno));
    return NULL;
  }
  ty_watch *w = TY_MALLOC(sizeof *w);
  TY_ASSERT(w);
  *w = (ty_watch){.fd = fd, .settle = settle > 0 ? settle : 0};
  return w;
}

void ty_watch_destroy(ty_watch *w) {
  if (!w) return;
  close(w->fd); /* drops every watch the descriptor holds */
  for (uint32_t i = 0; i < w->ndirs; i++) TY_FREE(w->dirs[i].path);
  for (uint32_t i = 0; i < w->npending; i++) TY_FREE(w->pending[i].path);
  for (uint32_t i = 0; i < w->nmoves; i++) TY_FREE(w->moves[i].from);
  TY_FREE(w->dirs);
  TY_FREE(w->pending);
  TY_FREE(w->moves);
  TY_FREE(w);
}

static watch_dir *find_dir(ty_watch *w, int wd) {
  for (uint32_t i = 0; i < w->ndirs; i++)
    if (w->dirs[i].wd == wd) return &w->dirs[i];
  return NULL;
}

/* Watches one folder (the kernel hands back the same wd for a folder watched twice). */
static bool add_one(ty_watch *w, const char *dir) {
  int wd = inotify_add_watch(w->fd, dir, FILE_EVENTS | DIR_EVENTS);
  if (wd < 0) {
    ty_log("watch_failed", "%s: %s", dir, strerror(errno));
    return false;
  }
  struct stat st;
  if (stat(dir, &st) != 0) st = (struct stat){0};
  watch_dir *known = find_dir(w, wd);
  if (known) { /* watched already: keep the first spelling of its path, unless it went stale */
    struct stat now;
    if (stat(known->path, &now) != 0 || now.st_dev != known->dev || now.st_ino != known->ino) {
      TY_FREE(known->path);
      *known = (watch_dir){wd, dup_path(dir, NULL), st.st_dev, st.st_ino};
    }
    return true;
  }
  watch_dir entry = {wd, dup_path(dir, NULL), st.st_dev, st.st_ino};
  for (uint32_t i = 0; i < w->ndirs; i++) {
    if (w->dirs[i].wd < 0) {
      w->dirs[i] = entry;
      return true;
    }
  }
  TY_GROW(w->dirs, w->dirs_cap, w->ndirs + 1);
  w->dirs[w->ndirs++] = entry;
  return true;
}

/* The part of path below root ("" for root itself, "/x/y" below it), or NULL. */
static const char *below(const char *path, const char *root) {
  size_t n = strlen(root);
  if (strncmp(path, root, n) != 0 || (path[n] && path[n] != '/')) return NULL;
  return path + n;
}

/* Stops watching root and every folder below it (it left the tree, or was deleted). */
static void forget_tree(ty_watch *w, const char *root) {
  char *r = dup_path(root, NULL); /* root may be one of the paths freed below */
  for (uint32_t i = 0; i < w->ndirs; i++) {
    watch_dir *d = &w->dirs[i];
    if (d->wd < 0 || !below(d->path, r)) continue;
    inotify_rm_watch(w->fd, d->wd); /* its IN_IGNORED then finds no folder */
    TY_FREE(d->path);
    *d = (watch_dir){.wd = -1};
  }
  TY_FREE(r);
}

/* A folder moved inside the tree: it and every folder below it keep their watches under
 * the new name. */
static void rename_tree(ty_watch *w, const char *from, const char *to) {
  for (uint32_t i = 0; i < w->ndirs; i++) {
    watch_dir *d = &w->dirs[i];
    const char *rest = d->wd < 0 ? NULL : below(d->path, from);
    if (!rest) continue;
    size_t lt = strlen(to), lr = strlen(rest);
    char *path = TY_MALLOC(lt + lr + 1);
    TY_ASSERT(path);
    memcpy(path, to, lt);
    memcpy(path + lt, rest, lr + 1);
    TY_FREE(d->path);
    d->path = path;
  }
}

static char *take_move(ty_watch *w, uint32_t cookie) {
  for (uint32_t i = 0; i < w->nmoves; i++) {
    if (w->moves[i].cookie != cookie) continue;
    char *from = w->moves[i].from;
    w->moves[i] = w->moves[--w->nmoves];
    return from;
  }
  return NULL;
}

static bool add_tree(ty_watch *w, const char *dir, int depth) {
  if (!add_one(w, dir)) return false;
  if (depth > 32) return true; /* a symlink loop, not a project */
  DIR *d = opendir(dir);
  if (!d) return true;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue; /* ., .., .git and friends */
    char *sub = dup_path(dir, e->d_name);
    struct stat st;
    if (stat(sub, &st) == 0 && S_ISDIR(st.st_mode)) add_tree(w, sub, depth + 1);
    TY_FREE(sub);
  }
  closedir(d);
  return true;
}

bool ty_watch_add(ty_watch *w, const char *dir) {
  TY_ASSERT(w && dir);
  size_t n = strlen(dir);
  while (n > 1 && dir[n - 1] == '/') n--; /* "scripts/" reports "scripts/x", not "scripts//x" */
  char *clean = TY_MALLOC(n + 1);
  TY_ASSERT(clean);
  memcpy(clean, dir, n);
  clean[n] = 0;
  bool ok = add_tree(w, clean, 0);
  TY_FREE(clean);
  return ok;
}

static void note(ty_watch *w, char *path, double now) {
  for (uint32_t i = 0; i < w->npending; i++) {
    if (strcmp(w->pending[i].path, path) == 0) {
      w->pending[i].last = now;
      TY_FREE(path);
      return;
    }
  }
  TY_GROW(w->pending, w->pending_cap, w->npending + 1);
  w->pending[w->npending++] = (watch_pending){path, now};
}

static void read_events(ty_watch *w, double now) {
  _Alignas(struct inotify_event) char buf[16384];
  for (;;) {
    ssize_t got = read(w->fd, buf, sizeof buf);
    if (got <= 0) {
      if (got < 0 && errno == EINTR) continue;
      break; /* EAGAIN: drained */
    }
    for (char *p = buf; p < buf + got;) {
      const struct inotify_event *ev = (const struct inotify_event *)p;
      p += sizeof *ev + ev->len;
      if (ev->mask & IN_Q_OVERFLOW) {
        ty_log("watch_overflow", "the kernel dropped file events; save again to reload");
        continue;
      }
      watch_dir *d = find_dir(w, ev->wd);
      if (!d) continue;
      if (ev->mask & (IN_IGNORED | IN_DELETE_SELF)) {
        TY_FREE(d->path);
        *d = (watch_dir){.wd = -1};
        continue;
      }
      if (ev->mask & IN_MOVE_SELF) {
        /* Moved inside the tree, its IN_MOVED_TO renamed it already; anywhere else (out of
         * the tree, or a watched root itself moved) its path names nothing it holds. */
        struct stat st;
        if (stat(d->path, &st) != 0 || st.st_dev != d->dev || st.st_ino != d->ino) forget_tree(w, d->path);
        continue;
      }
      if (!ev->len) continue;
      char *path = dup_path(d->path, ev->name);
      if ((ev->mask & IN_ISDIR) && (ev->mask & IN_MOVED_FROM)) {
        TY_GROW(w->moves, w->moves_cap, w->nmoves + 1);
        w->moves[w->nmoves++] = (watch_move){ev->cookie, path};
        continue;
      }
      char *from = (ev->mask & IN_ISDIR) && (ev->mask & IN_MOVED_TO) ? take_move(w, ev->cookie) : NULL;
      if (from) {
        if (is_litter(ev->name)) forget_tree(w, from); /* renamed out of sight (.trash) */
        else rename_tree(w, from, path);
        TY_FREE(from);
      }
      if (is_litter(ev->name)) {
        TY_FREE(path);
        continue;
      }
      if (ev->mask & IN_ISDIR) {
        /* A folder made or moved in: follow it, and report what it already holds. */
        if (ev->mask & (IN_CREATE | IN_MOVED_TO)) {
          add_tree(w, path, 0);
          DIR *dd = opendir(path);
          struct dirent *e;
          while (dd && (e = readdir(dd))) {
            if (is_litter(e->d_name)) continue;
            char *sub = dup_path(path, e->d_name);
            struct stat st;
            if (stat(sub, &st) == 0 && S_ISREG(st.st_mode)) note(w, sub, now);
            else TY_FREE(sub);
          }
          if (dd) closedir(dd);
        }
        TY_FREE(path);
        continue;
      }
      /* IN_CREATE alone is an empty file about to be written: its close reports it. */
      if ((ev->mask & FILE_EVENTS & ~IN_CREATE) == 0) {
        TY_FREE(path);
        continue;
      }
      note(w, path, now);
    }
  }
  /* Drained: a folder's move with no IN_MOVED_TO took it out of the tree. */
  for (uint32_t i = 0; i < w->nmoves; i++) {
    forget_tree(w, w->moves[i].from);
    TY_FREE(w->moves[i].from);
  }
  w->nmoves = 0;
}

int ty_watch_poll(ty_watch *w, double now, ty_watch_fn fn, void *user) {
  TY_ASSERT(w && fn);
  read_events(w, now);
  int reported = 0;
  uint32_t kept = 0;
  for (uint32_t i = 0; i < w->npending; i++) {
    watch_pending pe = w->pending[i];
    if (now - pe.last < w->settle) {
      w->pending[kept++] = pe;
      continue;
    }
    struct stat st;
    fn(pe.path, stat(pe.path, &st) != 0, user);
    TY_FREE(pe.path);
    reported++;
  }
  w->npending = kept;
  return reported;
}

bool ty_watch_pending(const ty_watch *w) { return w->npending > 0; }

int ty_watch_fd(const ty_watch *w) { return w->fd; }
