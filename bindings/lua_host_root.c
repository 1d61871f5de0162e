/* bindings/lua_host_root.c: finding the engine's home once per process: TYCHO_HOME when it
 * holds scripts/, else beside the executable (a build folder's parent, the folder itself, an
 * installed share/tycho), else the source tree the binary was built from. */
#include "lua_host_root.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char host_root[PATH_MAX];

static bool has_scripts(const char *root) {
  char path[PATH_MAX + 32];
  struct stat st;
  snprintf(path, sizeof path, "%s/scripts/tycho/boot.lua", root);
  return stat(path, &st) == 0;
}

const char *ty_host_root(void) {
  if (host_root[0]) return host_root;
  const char *env = getenv("TYCHO_HOME");
  if (env && *env && has_scripts(env)) {
    snprintf(host_root, sizeof host_root, "%s", env);
    return host_root;
  }
  /* Beside the binary: build/tycho finds ../scripts, an installed bin/tycho its share. */
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (slash) *slash = 0;
    const char *tries[] = {"%s/..", "%s", "%s/../share/tycho"};
    for (size_t i = 0; i < sizeof tries / sizeof *tries; i++) {
      char cand[PATH_MAX + 32];
      snprintf(cand, sizeof cand, tries[i], exe);
      char real[PATH_MAX];
      if (realpath(cand, real) && has_scripts(real)) {
        snprintf(host_root, sizeof host_root, "%s", real);
        return host_root;
      }
    }
  }
#ifdef TYCHO_SOURCE_DIR
  if (has_scripts(TYCHO_SOURCE_DIR)) {
    snprintf(host_root, sizeof host_root, "%s", TYCHO_SOURCE_DIR);
    return host_root;
  }
#endif
  return NULL;
}
