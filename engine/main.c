/* engine/main.c: the tycho executable's three doors: `run`, `test` and (later) `serve`. */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "lua_host.h"
#include "serve.h"

static volatile sig_atomic_t stop_requested;
static void on_signal(int sig) {
  (void)sig;
  stop_requested = 1;
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: tycho run PATH [--headless] [--frames N] [--no-watch]\n"
          "       tycho test [PATH...]\n"
          "       tycho serve [--port 8787] [--modules DIR] [--host ADDR] (tycho serve --help)\n"
          "       tycho version\n"
          "\n"
          "  run    runs a game: PATH is a folder holding main.lua, or a .lua file\n"
          "  test   runs every *_spec.lua and *_test.lua under each PATH (default tests/)\n"
          "  serve  runs the WebSocket game host over the Lua modules in DIR (default server/modules)\n");
}

static void sleep_until(double t) {
  double now = ty_now();
  if (t <= now) return;
  double d = t - now;
  struct timespec ts = {(time_t)d, (long)((d - (double)(time_t)d) * 1e9)};
  while (nanosleep(&ts, &ts) == -1 && errno == EINTR && !stop_requested) {
  }
}

/* Splits PATH into the game folder and its entry script. */
static bool resolve_game(const char *path, char *dir, size_t dirsz, char *main_lua, size_t mainsz) {
  struct stat st;
  if (stat(path, &st) != 0) {
    fprintf(stderr, "tycho run: %s: %s\n", path, strerror(errno));
    return false;
  }
  if (S_ISDIR(st.st_mode)) {
    snprintf(dir, dirsz, "%s", path);
    snprintf(main_lua, mainsz, "%s/main.lua", path);
    if (stat(main_lua, &st) != 0) {
      fprintf(stderr, "tycho run: %s has no main.lua\n", path);
      return false;
    }
  } else {
    snprintf(main_lua, mainsz, "%s", path);
    snprintf(dir, dirsz, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    else snprintf(dir, dirsz, ".");
  }
  return true;
}

static int cmd_run(int argc, char **argv) {
  const char *path = NULL;
  long frames = -1;
  bool headless = false;
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--headless") == 0) headless = true;
    else if (strcmp(argv[i], "--no-watch") == 0) continue; /* nothing watches files yet */
    else if (strcmp(argv[i], "--frames") == 0 && i + 1 < argc) {
      char *end;
      frames = strtol(argv[++i], &end, 10);
      if (*end || frames < 0) {
        fprintf(stderr, "tycho run: --frames needs a non-negative integer, got '%s'\n", argv[i]);
        return 2;
      }
    } else if (argv[i][0] == '-' ) {
      fprintf(stderr, "tycho run: unknown option '%s'\n", argv[i]);
      usage(stderr);
      return 2;
    } else if (!path) path = argv[i];
    else {
      fprintf(stderr, "tycho run: one game at a time ('%s' and '%s')\n", path, argv[i]);
      return 2;
    }
  }
  if (!path) {
    usage(stderr);
    return 2;
  }
  if (!headless) {
    fprintf(stderr, "tycho run: this build has no window or renderer yet; running headless\n");
    headless = true;
  }
  char dir[4096], main_lua[4200];
  if (!resolve_game(path, dir, sizeof dir, main_lua, sizeof main_lua)) return 1;

  lua_State *L = ty_host_create(dir);
  if (!L) return 1;
  /* tycho.engine exists before main.lua runs, so the game builds its scene into it. */
  lua_getglobal(L, "require");
  lua_pushliteral(L, "tycho.engine");
  if (!ty_host_call(L, 1, 1, "loading tycho.engine")) goto fail;
  lua_getfield(L, -1, "new");
  lua_createtable(L, 0, 1);
  lua_pushboolean(L, headless);
  lua_setfield(L, -2, "headless");
  if (!ty_host_call(L, 1, 1, "creating the engine")) goto fail;
  lua_getglobal(L, "tycho");
  lua_pushvalue(L, -2);
  lua_setfield(L, -2, "engine");
  lua_pop(L, 1);
  int engine = lua_gettop(L);

  if (luaL_loadfile(L, main_lua) != LUA_OK) {
    fprintf(stderr, "tycho run: %s\n", lua_tostring(L, -1));
    goto fail;
  }
  if (!ty_host_call(L, 0, 0, main_lua)) goto fail;

  signal(SIGINT, on_signal);
  signal(SIGTERM, on_signal);
  lua_getfield(L, engine, "step");
  int frame_fn = lua_gettop(L);
  const double period = 1.0 / 60.0;
  /* The first frame advances one period so the first tick runs at once. */
  double last = ty_now() - period, next = ty_now();
  for (long f = 0; (frames < 0 || f < frames) && !stop_requested; f++) {
    sleep_until(next);
    double now = ty_now();
    next += period;
    if (next < now - 0.25) next = now; /* fell far behind (a stall): don't sprint to catch up */
    lua_pushvalue(L, frame_fn);
    lua_pushvalue(L, engine);
    lua_pushnumber(L, now - last);
    last = now;
    if (!ty_host_call(L, 2, 0, "frame")) goto fail;
    lua_getfield(L, engine, "quitting");
    bool quit = lua_toboolean(L, -1);
    lua_pop(L, 1);
    if (quit) break;
  }
  lua_close(L);
  return 0;
fail:
  lua_close(L);
  return 1;
}

static int cmd_test(int argc, char **argv) {
  lua_State *L = ty_host_create(NULL);
  if (!L) return 1;
  lua_getglobal(L, "require");
  lua_pushliteral(L, "tycho.test");
  if (!ty_host_call(L, 1, 1, "loading the test runner")) {
    lua_close(L);
    return 1;
  }
  lua_getfield(L, -1, "main");
  lua_createtable(L, argc ? argc : 1, 0);
  for (int i = 0; i < argc; i++) {
    lua_pushstring(L, argv[i]);
    lua_rawseti(L, -2, i + 1);
  }
  if (!argc) {
    lua_pushliteral(L, "tests");
    lua_rawseti(L, -2, 1);
  }
  int code = 1;
  if (ty_host_call(L, 1, 1, "test runner")) code = (int)lua_tointeger(L, -1);
  lua_close(L);
  return code;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
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
    usage(stdout);
    return 0;
  }
  fprintf(stderr, "tycho: unknown command '%s'\n", cmd);
  usage(stderr);
  return 2;
}
