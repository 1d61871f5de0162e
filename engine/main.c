/* engine/main.c: the tycho executable's three doors: `run`, `test` and `serve`. `run`
 * owns the frame loop: with a window it polls events into the input snapshot, steps the
 * engine (which renders), takes the screenshot asked for and swaps; headless it paces
 * itself at 60 Hz on the wall clock. */
#if defined(__SANITIZE_ADDRESS__)
#endif
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "lua_audio.h"  /* Required for: ty_lua_audio_use_device */
#include "lua_host.h"
#include "lua_input.h"  /* Required for: ty_lua_input */
#include "lua_render.h" /* Required for: ty_lua_render_set_window */
#include "lua_window.h" /* Required for: ty_lua_window_set_headless_size */
#include "platform/platform.h"
#include "serve.h"

static volatile sig_atomic_t stop_requested;
static void on_signal(int sig) {
  (void)sig;
  stop_requested = 1;
}

static void usage(FILE *f) {
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

typedef struct run_opts {
  const char *path;
  const char *screenshot;
  long frames; /* -1: until quit */
  bool headless;
  int width, height; /* 0: the window's default */
  double dt;         /* > 0: every frame advances exactly this much */
  bool no_watch;     /* --no-watch: no hot reload */
} run_opts;

static bool parse_long(const char *opt, const char *text, long lo, long *out) {
  char *end;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (*end || errno || v < lo) {
    fprintf(stderr, "tycho run: %s needs a %s integer, got '%s'\n", opt, lo > 0 ? "positive" : "non-negative", text);
    return false;
  }
  *out = v;
  return true;
}

/* Returns 0 when opts is filled, else the exit code. */
static int parse_run(int argc, char **argv, run_opts *o) {
  *o = (run_opts){.frames = -1};
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    bool has_value = i + 1 < argc;
    long v;
    if (strcmp(a, "--headless") == 0) o->headless = true;
    else if (strcmp(a, "--no-watch") == 0) o->no_watch = true;
    else if (strcmp(a, "--frames") == 0 && has_value) {
      if (!parse_long(a, argv[++i], 0, &o->frames)) return 2;
    } else if ((strcmp(a, "--width") == 0 || strcmp(a, "--height") == 0) && has_value) {
      if (!parse_long(a, argv[++i], 1, &v) || v > 16384) return 2;
      if (a[2] == 'w') o->width = (int)v;
      else o->height = (int)v;
    } else if (strcmp(a, "--screenshot") == 0 && has_value) {
      o->screenshot = argv[++i];
    } else if (strcmp(a, "--dt") == 0 && has_value) {
      char *end;
      o->dt = strtod(argv[++i], &end);
      if (*end || !(o->dt > 0 && o->dt < 10)) {
        fprintf(stderr, "tycho run: --dt needs seconds in (0, 10), got '%s'\n", argv[i]);
        return 2;
      }
    } else if (a[0] == '-') {
      fprintf(stderr, "tycho run: unknown option '%s'%s\n", a, has_value ? "" : " (or its value is missing)");
      usage(stderr);
      return 2;
    } else if (!o->path) o->path = a;
    else {
      fprintf(stderr, "tycho run: one game at a time ('%s' and '%s')\n", o->path, a);
      return 2;
    }
  }
  if (!o->path) {
    usage(stderr);
    return 2;
  }
  if (o->headless && o->screenshot) {
    fprintf(stderr, "tycho run: --screenshot needs rendering; drop --headless (SDL_VIDEODRIVER=offscreen renders with no display)\n");
    return 2;
  }
  return 0;
}

/* Sanitizer builds keep the GL driver mapped to exit (ty_platform_pin_libraries says why). */
#if defined(__SANITIZE_ADDRESS__)
static void pin_gl_driver(void) { ty_platform_pin_libraries(); }
#else
static void pin_gl_driver(void) {}
#endif

/* A window where there is a display; else, unless the user chose a video driver, one
 * through SDL's offscreen driver (EGL); else NULL: the caller runs headless. */
static ty_window *open_window(const run_opts *o) {
  ty_window_desc desc = {.title = "tycho", .width = o->width, .height = o->height, .vsync = true};
  ty_window *w = ty_window_create(&desc);
  if (!w && ty_platform_has_gl() && !getenv("SDL_VIDEODRIVER")) {
    setenv("SDL_VIDEODRIVER", "offscreen", 1);
    w = ty_window_create(&desc);
    if (!w) unsetenv("SDL_VIDEODRIVER");
  }
  if (w) pin_gl_driver();
  return w;
}

/* engine:method(...) with nargs arguments already pushed above the engine at index engine. */
static bool call_engine(lua_State *L, int engine, const char *method, int nargs, int nresults) {
  lua_getfield(L, engine, method);
  if (!lua_isfunction(L, -1)) {
    lua_pop(L, 1 + nargs);
    fprintf(stderr, "tycho run: the engine has no %s method\n", method);
    return false;
  }
  lua_insert(L, -1 - nargs);
  lua_pushvalue(L, engine);
  lua_insert(L, -1 - nargs);
  return ty_host_call(L, nargs + 1, nresults, method);
}

static bool take_screenshot(lua_State *L, int engine, const char *path) {
  lua_pushstring(L, path);
  if (!call_engine(L, engine, "screenshot", 1, 2)) return false;
  /* engine:screenshot answers true, or nil/false and a message (a Lua expected failure). */
  bool ok = lua_toboolean(L, -2);
  if (!ok) {
    const char *why = lua_tostring(L, -1);
    fprintf(stderr, "tycho run: screenshot %s failed%s%s\n", path, why ? ": " : "", why ? why : "");
  }
  lua_pop(L, 2);
  return ok;
}

static int cmd_run(int argc, char **argv) {
  run_opts o;
  int code = parse_run(argc, argv, &o);
  if (code) return code;
  char dir[4096], main_lua[4200];
  if (!resolve_game(o.path, dir, sizeof dir, main_lua, sizeof main_lua)) return 1;

  ty_window *win = NULL;
  if (!o.headless) {
    win = open_window(&o);
    if (!win && o.screenshot) {
      fprintf(stderr, "tycho run: no window or GL 4.5 context here, so no --screenshot\n");
      return 1;
    }
    if (!win) fprintf(stderr, "tycho run: no window or GL 4.5 context here; running headless\n");
  }
  bool headless = win == NULL;

  lua_State *L = ty_host_create(dir);
  if (!L) {
    ty_window_destroy(win);
    return 1;
  }
  ty_input *in = ty_lua_input(L);
  if (win) {
    /* The renderer gets its device before the engine exists, so the engine (and
     * main.lua) see a renderer that can draw. */
    if (!ty_lua_render_set_window(L, win)) {
      fprintf(stderr, "tycho run: no GL device on this window; running headless\n");
      if (o.screenshot) goto fail;
      ty_window_destroy(win);
      win = NULL;
      headless = true;
    } else if (in) {
      ty_window_attach_input(win, in);
    }
  }
  /* With a window, sound goes to the system's device; headless it mixes only on request. */
  if (win) ty_lua_audio_use_device(L);
  /* Headless, --width and --height are the size frames render at and tycho.window reports. */
  if (headless && (o.width || o.height))
    ty_lua_window_set_headless_size(L, o.width ? o.width : 1280, o.height ? o.height : 720);
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

  if (!o.no_watch) {
    /* Hot reload: scripts/tycho/reload.lua runs main.lua, tracking what it registers,
     * and the engine polls the watcher over these folders at the start of each frame. */
    lua_getglobal(L, "require");
    lua_pushliteral(L, "tycho.reload");
    if (!ty_host_call(L, 1, 1, "loading tycho.reload")) goto fail;
    lua_getfield(L, -1, "start");
    lua_remove(L, -2);
    lua_pushvalue(L, engine);
    lua_pushstring(L, main_lua);
    lua_createtable(L, 4, 0);
    const char *root = ty_host_root();
    const char *subdirs[] = {"scripts", "shaders", "content"};
    lua_pushstring(L, dir);
    lua_rawseti(L, -2, 1);
    for (int i = 0; i < 3 && root; i++) {
      lua_pushfstring(L, "%s/%s", root, subdirs[i]);
      lua_rawseti(L, -2, i + 2);
    }
    if (!ty_host_call(L, 3, 0, main_lua)) goto fail;
  } else {
    if (luaL_loadfile(L, main_lua) != LUA_OK) {
      fprintf(stderr, "tycho run: %s\n", lua_tostring(L, -1));
      goto fail;
    }
    if (!ty_host_call(L, 0, 0, main_lua)) goto fail;
  }

  signal(SIGINT, on_signal);
  signal(SIGTERM, on_signal);
  lua_getfield(L, engine, "step");
  int frame_fn = lua_gettop(L);
  /* With a window and vsync the swap paces the loop. Headless, and offscreen with no end
   * in sight, sleep to 60 Hz instead; offscreen with --frames runs flat out. */
  bool paced = headless || (o.frames < 0 && strcmp(ty_platform_video_driver(), "offscreen") == 0);
  const double period = 1.0 / 60.0;
  /* The first frame advances one period so the first tick runs at once. */
  double last = ty_now() - period, next = ty_now();
  for (long f = 0; (o.frames < 0 || f < o.frames) && !stop_requested; f++) {
    if (paced) {
      sleep_until(next);
      next += period;
    }
    double now = ty_now();
    if (paced && next < now - 0.25) next = now; /* fell far behind (a stall): don't sprint to catch up */
    /* The sample point: edges since the last frame close here, then this frame's events
     * arrive (from the window, or injected by the game when headless). */
    if (in) ty_input_begin_frame(in);
    if (win) {
      ty_window_poll(win, in);
      if (ty_window_close_requested(win)) break;
    }
    lua_pushvalue(L, frame_fn);
    lua_pushvalue(L, engine);
    /* engine:step notes the frame time for the overlay and toggles it on F3. */
    lua_pushnumber(L, o.dt > 0 ? o.dt : now - last);
    last = now;
    if (!ty_host_call(L, 2, 0, "frame")) goto fail;
    bool last_frame = o.frames >= 0 ? f == o.frames - 1 : f == 0;
    if (o.screenshot && last_frame && !take_screenshot(L, engine, o.screenshot)) goto fail;
    if (win) ty_window_swap(win);
    lua_getfield(L, engine, "quitting");
    bool quit = lua_toboolean(L, -1);
    lua_pop(L, 1);
    if (quit) break;
  }
  /* engine:onQuit hooks (a game's save) run once however the loop ended, the state whole. */
  lua_getfield(L, engine, "_shutdown");
  lua_pushvalue(L, engine);
  if (!ty_host_call(L, 1, 1, "quitting") || !lua_toboolean(L, -1)) goto fail;
  lua_close(L); /* the renderer frees its GPU resources while the context still exists */
  ty_window_destroy(win);
  return 0;
fail:
  lua_close(L);
  ty_window_destroy(win);
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
  lua_createtable(L, argc, 0);
  for (int i = 0; i < argc; i++) {
    lua_pushstring(L, argv[i]);
    lua_rawseti(L, -2, i + 1);
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
