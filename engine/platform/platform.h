/* engine/platform/platform.h: the window and its OpenGL 4.5 core context (SDL2 + libepoxy),
 * its events, and the image files screenshots are written to.
 *
 * One window owns one GL context, current on the thread that created it. Every failure
 * to get one (no display, no GL 4.5, a build without GL) returns NULL with one ty_log
 * line that says why, never an abort, so `tycho run` can fall back to headless. With no
 * display, SDL_VIDEODRIVER=offscreen gives a context through EGL (Mesa llvmpipe in CI,
 * NVIDIA's EGL on a GPU machine).
 *
 * A frame with a window: ty_window_poll (events into the input snapshot, then the game's
 * ticks), render, optionally ty_window_read_pixels / ty_window_screenshot (these read the
 * back buffer, so before the swap), ty_window_swap.
 */
#ifndef TY_PLATFORM_H
#define TY_PLATFORM_H

#include <stdbool.h>
#include <stdint.h>

#include "input.h"

typedef struct ty_window ty_window;

/* Zeroed fields mean defaults. */
typedef struct ty_window_desc {
  const char *title; /* NULL: "tycho" */
  int width, height; /* window size in screen units; 0: 1280 x 720 */
  bool vsync;        /* swap on the display's refresh (adaptive where the driver has it) */
  bool hidden;       /* never shown: offscreen rendering, tests */
  bool fixed_size;   /* the user cannot resize it */
  bool gl_debug;     /* a debug context: KHR_debug messages go to ty_log as gl_debug */
} ty_window_desc;

/* True when this build has the window and GL layer (TYCHO_WITH_GL). */
bool ty_platform_has_gl(void);
/* The SDL video driver in use ("x11", "wayland", "offscreen", ...), "" when none is. */
const char *ty_platform_video_driver(void);

/* A window with a current GL 4.5 core context, or NULL with a window_unavailable or
 * gl_unavailable line logged. Free with ty_window_destroy. */
ty_window *ty_window_create(const ty_window_desc *desc);
/* Destroys the context and the window (the last one also shuts SDL down). NULL is fine. */
void ty_window_destroy(ty_window *w);

/* Keeps every library loaded so far (the GL driver, once a context exists) mapped until
 * the process exits. Mesa unloads its driver, and the LLVM inside it, when SDL shuts EGL
 * down, before LeakSanitizer looks at exit: what the driver still held would read as
 * leaks nobody can name. Sanitizer builds call this after making a window, so the report
 * shows only leaks of ours, with no suppressions file. */
void ty_platform_pin_libraries(void);

/* Drains the pending events: keys, mouse, wheel, gamepads (opened as they connect, up to
 * TY_INPUT_MAX_GAMEPADS) and focus loss go into in (may be NULL); resizes update the
 * drawable size; the window's close button sets the close request (SDL installs no
 * signal handlers: SIGINT and SIGTERM stay the caller's). It does not call
 * ty_input_begin_frame: the caller owns the sample point. */
void ty_window_poll(ty_window *w, ty_input *in);
/* Makes ty_input_set_pointer_lock(in, ...) and ty_input_start_text/stop_text reach this
 * window (SDL's relative mouse mode, SDL_StartTextInput), and puts SDL's text input in
 * the state the snapshot asks. The window keeps no pointer to in, so either may be freed
 * first; once the window is destroyed the hooks do nothing, as when headless. */
void ty_window_attach_input(ty_window *w, ty_input *in);

bool ty_window_close_requested(const ty_window *w);
void ty_window_set_close_request(ty_window *w, bool close);

/* The size of the default framebuffer in pixels (larger than the window on HiDPI). */
void ty_window_drawable_size(const ty_window *w, int *width, int *height);
/* How many times the drawable size changed since creation: compare to notice a resize. */
uint32_t ty_window_resize_count(const ty_window *w);

void ty_window_swap(ty_window *w);

/* The title bar's text (tycho.window.setTitle). The window copies title. */
void ty_window_set_title(ty_window *w, const char *title);
const char *ty_window_title(const ty_window *w);
/* The window's size in screen units, the units of mouse coordinates (the drawable may
 * have more pixels on HiDPI). */
void ty_window_size(const ty_window *w, int *width, int *height);
/* Asks for a new size in screen units; the drawable size (and the resize count) follow
 * at once where the driver resized, else with the resize event. In fullscreen this sets
 * the size the window returns to. */
void ty_window_set_size(ty_window *w, int width, int height);
/* Fullscreen at the desktop's resolution, or back to a window. Returns whether the window
 * is now in the mode asked for. */
bool ty_window_set_fullscreen(ty_window *w, bool fullscreen);
bool ty_window_fullscreen(const ty_window *w);

/* Relative mouse mode: the cursor hides and motion arrives as dx, dy only. Returns
 * whether the window is now in the mode asked for (false where the driver has no such
 * mode, e.g. offscreen). */
bool ty_window_set_pointer_lock(ty_window *w, bool locked);

/* Reads a width x height rectangle of the back buffer, (x, y) from the top-left, into
 * rgba (width * height * 4 bytes) with the top row first: GL reads bottom-up, the rows
 * are flipped. False when the rectangle is not inside the drawable. */
bool ty_window_read_pixels(ty_window *w, int x, int y, int width, int height, uint8_t *rgba);
/* Reads the whole back buffer and writes it as a PNG: engine:screenshot(path). False,
 * with a screenshot_failed line logged, when it cannot. */
bool ty_window_screenshot(ty_window *w, const char *path);

/* Image files (stb_image_write / stb_image; need no window). rgba has width * height * 4
 * bytes, top row first. False with an image_write_failed line logged on failure. */
bool ty_image_write_png(const char *path, int width, int height, const uint8_t *rgba);
/* Decodes a PNG, JPEG, TGA or BMP file into RGBA8, top row first. Returns NULL with an
 * image_load_failed line logged on failure; the caller frees the pixels with ty_image_free. */
uint8_t *ty_image_load(const char *path, int *width, int *height);
void ty_image_free(uint8_t *pixels);

#endif
