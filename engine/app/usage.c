/* engine/app/usage.c: the command line's usage, which main.c prints for `help` and for a
 * command it does not know, and each command prints beside a usage error of its own. */
#include "app.h"

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
