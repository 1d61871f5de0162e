/* engine/app/run_cmd.c: `tycho run`, which owns the frame loop: with a window it polls events
 * into the input snapshot, steps the engine (which renders), takes the screenshot asked for
 * and swaps; headless it paces itself at 60 Hz on the wall clock. The engine is reached
 * through lua_app.h's C calls, never by its Lua field names. */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "app.h"
#include "lua_app.h"    /* Required for: ty_app_create_engine, ty_app_step, ty_app_shutdown */
#include "lua_audio.h"  /* Required for: ty_lua_audio_use_device */
#include "lua_host.h"   /* Required for: ty_host_create */
#include "lua_input.h"  /* Required for: ty_lua_input */
#include "lua_render.h" /* Required for: ty_lua_render_set_window */
#include "lua_window.h" /* Required for: ty_lua_window_set_headless_size */
#include "platform/platform.h"

static volatile sig_atomic_t stop_requested;
static void on_signal(int sig) {
  (void)sig;
  stop_requested = 1;
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
      cmd_usage(stderr);
      return 2;
    } else if (!o->path) o->path = a;
    else {
      fprintf(stderr, "tycho run: one game at a time ('%s' and '%s')\n", o->path, a);
      return 2;
    }
  }
  if (!o->path) {
    cmd_usage(stderr);
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

static bool take_screenshot(lua_State *L, const char *path) {
  char why[512];
  int done = ty_app_screenshot(L, path, why, sizeof why);
  if (done == 0)
    fprintf(stderr, "tycho run: screenshot %s failed%s%s\n", path, why[0] ? ": " : "", why);
  return done == 1;
}

int cmd_run(int argc, char **argv) {
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
  if (!ty_app_create_engine(L, headless)) goto fail;
  if (!ty_app_start_game(L, main_lua, dir, !o.no_watch)) goto fail;

  signal(SIGINT, on_signal);
  signal(SIGTERM, on_signal);
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
    /* engine:step notes the frame time for the overlay and toggles it on F3. */
    if (!ty_app_step(L, o.dt > 0 ? o.dt : now - last)) goto fail;
    last = now;
    bool last_frame = o.frames >= 0 ? f == o.frames - 1 : f == 0;
    if (o.screenshot && last_frame && !take_screenshot(L, o.screenshot)) goto fail;
    if (win) ty_window_swap(win);
    if (ty_app_quitting(L)) break;
  }
  /* engine:onQuit hooks (a game's save) run once however the loop ended, the state whole. */
  if (!ty_app_shutdown(L)) goto fail;
  lua_close(L); /* the renderer frees its GPU resources while the context still exists */
  ty_window_destroy(win);
  return 0;
fail:
  lua_close(L);
  ty_window_destroy(win);
  return 1;
}
