/* engine/app/main.c: the tycho executable's three doors, `run` (run_cmd.c), `test`
 * (test_cmd.c) and `serve` (the game host's command line); engine/app/ is the top floor,
 * the one place that includes the bindings and the server. */
#include <lua.h> /* Required for: LUA_RELEASE */
#include <string.h>

#include "app.h"
#include "serve.h" /* Required for: cmd_serve */

void cmd_usage(FILE *f) {
  fprintf(f,
          "usage: tycho run PATH [--headless] [--frames N] [--screenshot FILE] [--no-watch]\n"
          "                      [--width W --height H] [--dt SECONDS]\n"
          "       tycho test [OPTIONS] [PATH...]\n"
          "       tycho serve [--port 8787] [--modules DIR] [--host ADDR] [--data DIR] [--no-watch]\n"
          "       tycho version | --version\n"
          "       tycho help | --help | -h\n"
          "\n"
          "  run    runs a game: PATH is a folder holding main.lua, or a .lua file; in a window\n"
          "         where there is a display, else through SDL's offscreen driver, else headless.\n"
          "         --headless: no window, no GL, frames paced at 60 Hz;\n"
          "         --frames N stops after N frames;\n"
          "         --screenshot FILE writes a PNG after the last frame (the first without --frames);\n"
          "         --dt gives every frame the same delta (reproducible images and benchmarks);\n"
          "         --no-watch turns hot reload of the game's files off\n"
          "  test   runs every *_spec.lua and *_test.lua under each PATH (default spec/, else tests/)\n"
          "         with busted 2: its options (tycho test --help), .busted files and assertions\n"
          "  serve  runs the WebSocket game host over the Lua modules in DIR (default server/modules);\n"
          "         --data DIR holds the store (default data); --no-watch turns module hot reload off;\n"
          "         every option: tycho serve --help\n");
}

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
