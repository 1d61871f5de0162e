/* tests/c/watch_test.c: engine/platform/watch.c on a real temp tree: a subfolder renamed
 * inside the tree reports under its new name, and a folder moved in from outside is
 * watched and reported. */
#include <stdbool.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "platform/watch.h"

#define MAX_SEEN 32

typedef struct seen {
  char paths[MAX_SEEN][512];
  bool removed[MAX_SEEN];
  int n;
} seen;

static void on_file(const char *path, bool removed, void *user) {
  seen *s = user;
  if (s->n == MAX_SEEN) return;
  snprintf(s->paths[s->n], sizeof s->paths[s->n], "%s", path);
  s->removed[s->n++] = removed;
}

/* Polls until nothing is settling any more (settle 0: one poll reports everything). */
static void drain(ty_watch *w, seen *s) {
  for (int i = 0; i < 20; i++) {
    usleep(10000);
    ty_watch_poll(w, (double)i, on_file, s);
  }
}

static bool saw(const seen *s, const char *path, bool removed) {
  for (int i = 0; i < s->n; i++)
    if (strcmp(s->paths[i], path) == 0 && s->removed[i] == removed) return true;
  return false;
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  if (!f) return;
  fputs(text, f);
  fclose(f);
}

static void remove_tree(const char *dir) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  CHECK(system(cmd) == 0);
}

static char root[256];

static void make_root(void) {
  snprintf(root, sizeof root, "/tmp/tycho_watch_XXXXXX");
  CHECK(mkdtemp(root) != NULL);
}

static void test_renamed_folder_reports_its_new_name(void) {
  make_root();
  char a[300], b[300], deep_a[320], deep_b[320], file[400], deep_file[400], old_file[400];
  snprintf(a, sizeof a, "%s/tree/a", root);
  snprintf(b, sizeof b, "%s/tree/b", root);
  snprintf(deep_a, sizeof deep_a, "%s/deep", a);
  snprintf(deep_b, sizeof deep_b, "%s/deep", b);
  char tree[300];
  snprintf(tree, sizeof tree, "%s/tree", root);
  CHECK(mkdir(tree, 0755) == 0);
  CHECK(mkdir(a, 0755) == 0);
  CHECK(mkdir(deep_a, 0755) == 0);

  ty_watch *w = ty_watch_create(0);
  CHECK(w != NULL);
  if (!w) return;
  CHECK(ty_watch_add(w, tree));
  CHECK(rename(a, b) == 0);
  seen s = {0};
  drain(w, &s);
  snprintf(file, sizeof file, "%s/x.lua", b);
  snprintf(deep_file, sizeof deep_file, "%s/y.lua", deep_b);
  write_file(file, "return 1\n");
  write_file(deep_file, "return 2\n");
  drain(w, &s);
  CHECK(saw(&s, file, false));
  CHECK(saw(&s, deep_file, false));
  snprintf(old_file, sizeof old_file, "%s/x.lua", a);
  CHECK(!saw(&s, old_file, false) && !saw(&s, old_file, true));

  /* renamed back, and again: the map follows every move */
  s.n = 0;
  CHECK(rename(b, a) == 0);
  drain(w, &s);
  write_file(old_file, "return 3\n");
  drain(w, &s);
  CHECK(saw(&s, old_file, false));
  CHECK(!saw(&s, file, false));
  ty_watch_destroy(w);
  remove_tree(root);
}

static void test_folder_moved_in_is_watched(void) {
  make_root();
  char tree[300], outside[300], inside[300], sub[320], early[400], late[400], nested[400];
  snprintf(tree, sizeof tree, "%s/tree", root);
  snprintf(outside, sizeof outside, "%s/outside", root);
  snprintf(inside, sizeof inside, "%s/tree/moved", root);
  CHECK(mkdir(tree, 0755) == 0);
  CHECK(mkdir(outside, 0755) == 0);
  snprintf(sub, sizeof sub, "%s/sub", outside);
  CHECK(mkdir(sub, 0755) == 0);
  snprintf(early, sizeof early, "%s/early.lua", outside);
  write_file(early, "return 0\n");

  ty_watch *w = ty_watch_create(0);
  CHECK(w != NULL);
  if (!w) return;
  CHECK(ty_watch_add(w, tree));
  CHECK(rename(outside, inside) == 0);
  seen s = {0};
  drain(w, &s);
  snprintf(early, sizeof early, "%s/early.lua", inside);
  CHECK(saw(&s, early, false)); /* what it held comes as new files */
  snprintf(late, sizeof late, "%s/late.lua", inside);
  snprintf(nested, sizeof nested, "%s/sub/n.lua", inside);
  write_file(late, "return 1\n");
  write_file(nested, "return 2\n");
  drain(w, &s);
  CHECK(saw(&s, late, false));
  CHECK(saw(&s, nested, false));

  /* moved out again: nothing more is reported from where it went */
  char gone[300], gone_file[400];
  snprintf(gone, sizeof gone, "%s/gone", root);
  CHECK(rename(inside, gone) == 0);
  drain(w, &s);
  s.n = 0;
  snprintf(gone_file, sizeof gone_file, "%s/after.lua", gone);
  write_file(gone_file, "return 3\n");
  drain(w, &s);
  CHECK(s.n == 0);
  ty_watch_destroy(w);
  remove_tree(root);
}

int main(void) {
  RUN(test_renamed_folder_reports_its_new_name);
  RUN(test_folder_moved_in_is_watched);
  return check_summary();
}
