/* engine/app/main.c: the tycho executable's three doors, `run` (run_cmd.c), `test`
 * (test_cmd.c) and `serve` (the game host's command line), and the usage (usage.c) for the
 * rest; engine/app/ is the top floor, the one place that includes the bindings and the
 * server. */
#include <lua.h> /* Required for: LUA_RELEASE */
#include <string.h>

#include "app.h"
#include "serve.h" /* Required for: cmd_serve */

int main(int argc, char **argv) {
  if (argc < 2) {
    cmd_usage(stderr);
    return 2;
  }
  const char *cmd = argv[1];
  if (strcmp(cmd, "run") == 0) return cmd_run(argc - 2, argv + 2);
  if (strcmp(cmd, "test") == 0) return cmd_test(argc - 2, argv + 2);
  if (strcmp(cmd, "serve") == 0) return cmd_serve(argc - 2, argv + 2);
  if (strcmp(cmd, "version") == 0 || strcmp(cmd, "--version") == 0) {
    printf("tycho 0.1.0 (%s)\n", LUA_RELEASE);
    return 0;
  }
  if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
    cmd_usage(stdout);
    return 0;
  }
  fprintf(stderr, "tycho: unknown command '%s'\n", cmd);
  cmd_usage(stderr);
  return 2;
}
