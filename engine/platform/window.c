/* engine/platform/window.c: the SDL2 window, its GL 4.5 core context (libepoxy loads the
 * entry points), and SDL events translated into ty_input events. Built without GL
 * (TYCHO_WITH_GL off), every constructor fails cleanly so callers run headless. */
#define _GNU_SOURCE /* Required for: dl_iterate_phdr, RTLD_NODELETE */
#include "platform.h"

#include <dlfcn.h>
#include <link.h>
#include <string.h>

#include "../common.h"

#if TYCHO_WITH_GL

#include <SDL.h>        /* Required for: windows, GL contexts, events, game controllers */
#include <epoxy/gl.h>   /* Required for: GL 4.5 entry points */

struct ty_window {
  SDL_Window *window;
  SDL_GLContext context;
  int drawable_w, drawable_h;
  uint32_t resize_count;
  bool close_requested;
  bool pads_ok; /* the game controller subsystem started */
  SDL_GameController *pads[TY_INPUT_MAX_GAMEPADS];
  SDL_JoystickID pad_ids[TY_INPUT_MAX_GAMEPADS];
  ty_window *next_live;
};

/* ty_input's gamepad enums follow SDL's order so events pass through unchanged. */
_Static_assert((int)TY_PAD_AXIS_COUNT == (int)SDL_CONTROLLER_AXIS_MAX, "pad axes follow SDL");
_Static_assert((int)TY_PAD_BUTTON_COUNT == (int)SDL_CONTROLLER_BUTTON_MAX, "pad buttons follow SDL");
_Static_assert((int)TY_PAD_DPRIGHT == (int)SDL_CONTROLLER_BUTTON_DPAD_RIGHT, "pad buttons follow SDL");

/* Every window not yet destroyed: SDL is shut down with the last one, and an input
 * snapshot's pointer-lock hook checks its window is still here before using it. */
static ty_window *live_windows;

bool ty_platform_has_gl(void) { return true; }

const char *ty_platform_video_driver(void) {
  const char *d = SDL_WasInit(SDL_INIT_VIDEO) ? SDL_GetCurrentVideoDriver() : NULL;
  return d ? d : "";
}

static void APIENTRY on_gl_debug(GLenum source, GLenum type, GLuint id, GLenum severity, GLsizei length,
                                 const GLchar *message, const void *user) {
  (void)id, (void)length, (void)user;
  /* Compile errors come back through the GL device, mapped to file:line. */
  if (severity == GL_DEBUG_SEVERITY_NOTIFICATION || source == GL_DEBUG_SOURCE_SHADER_COMPILER) return;
  ty_log("gl_debug", "%s%s", type == GL_DEBUG_TYPE_ERROR ? "error: " : "", message);
}

static void shutdown_sdl_if_last(void) {
  if (!live_windows) SDL_Quit();
}

ty_window *ty_window_create(const ty_window_desc *desc) {
  ty_window_desc d = desc ? *desc : (ty_window_desc){0};
  if (!d.title) d.title = "tycho";
  if (d.width <= 0) d.width = 1280;
  if (d.height <= 0) d.height = 720;

  /* Ctrl-C and SIGTERM stay with the run loop's own handlers. */
  SDL_SetHint(SDL_HINT_NO_SIGNAL_HANDLERS, "1");
  /* The IME draws its own composition and candidates: tycho draws no preedit text. */
  SDL_SetHint(SDL_HINT_IME_SHOW_UI, "1");
  if (SDL_InitSubSystem(SDL_INIT_VIDEO) != 0) {
    const char *drv = getenv("SDL_VIDEODRIVER");
    ty_log("window_unavailable", "cannot start SDL video%s%s: %s (no display? SDL_VIDEODRIVER=offscreen gives GL without one)",
           drv ? " with SDL_VIDEODRIVER=" : "", drv ? drv : "", SDL_GetError());
    shutdown_sdl_if_last();
    return NULL;
  }
  SDL_GL_ResetAttributes();
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 4);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 5);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_CORE);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_FLAGS, SDL_GL_CONTEXT_FORWARD_COMPATIBLE_FLAG | (d.gl_debug ? SDL_GL_CONTEXT_DEBUG_FLAG : 0));
  SDL_GL_SetAttribute(SDL_GL_DOUBLEBUFFER, 1);
  SDL_GL_SetAttribute(SDL_GL_DEPTH_SIZE, 24);
  SDL_GL_SetAttribute(SDL_GL_STENCIL_SIZE, 8);

  Uint32 flags = SDL_WINDOW_OPENGL | SDL_WINDOW_ALLOW_HIGHDPI;
  flags |= d.hidden ? SDL_WINDOW_HIDDEN : SDL_WINDOW_SHOWN;
  if (!d.fixed_size) flags |= SDL_WINDOW_RESIZABLE;
  SDL_Window *sw = SDL_CreateWindow(d.title, SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, d.width, d.height, flags);
  if (!sw) {
    ty_log("window_unavailable", "cannot create a %dx%d window on SDL video driver '%s': %s", d.width, d.height,
           ty_platform_video_driver(), SDL_GetError());
    SDL_QuitSubSystem(SDL_INIT_VIDEO);
    shutdown_sdl_if_last();
    return NULL;
  }
  SDL_GLContext ctx = SDL_GL_CreateContext(sw);
  if (!ctx) {
    ty_log("gl_unavailable", "cannot create an OpenGL 4.5 core context on SDL video driver '%s': %s",
           ty_platform_video_driver(), SDL_GetError());
    SDL_DestroyWindow(sw);
    SDL_QuitSubSystem(SDL_INIT_VIDEO);
    shutdown_sdl_if_last();
    return NULL;
  }
  int version = epoxy_is_desktop_gl() ? epoxy_gl_version() : 0;
  if (version < 45) {
    ty_log("gl_unavailable", "the context is %s %d.%d (%s); tycho needs OpenGL 4.5 core",
           epoxy_is_desktop_gl() ? "OpenGL" : "OpenGL ES", version / 10, version % 10,
           (const char *)glGetString(GL_RENDERER));
    SDL_GL_DeleteContext(ctx);
    SDL_DestroyWindow(sw);
    SDL_QuitSubSystem(SDL_INIT_VIDEO);
    shutdown_sdl_if_last();
    return NULL;
  }

  ty_window *w = TY_MALLOC(sizeof *w);
  TY_ASSERT(w);
  memset(w, 0, sizeof *w);
  w->window = sw;
  w->context = ctx;
  w->next_live = live_windows;
  live_windows = w;
  SDL_GL_GetDrawableSize(sw, &w->drawable_w, &w->drawable_h);
  /* Adaptive vsync (-1) where the driver has it, else plain vsync. */
  if (d.vsync) {
    if (SDL_GL_SetSwapInterval(-1) != 0) SDL_GL_SetSwapInterval(1);
  } else {
    SDL_GL_SetSwapInterval(0);
  }
  if (d.gl_debug && epoxy_has_gl_extension("GL_KHR_debug")) {
    glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS);
    glDebugMessageCallback(on_gl_debug, NULL);
  }
  /* SDL2 starts with text input on; it stays off until a text field asks for it
   * (ty_input_start_text), so an IME never composes out of WASD. */
  SDL_StopTextInput();
  /* Gamepads are optional: a machine without the joystick subsystem still gets a window. */
  w->pads_ok = SDL_InitSubSystem(SDL_INIT_GAMECONTROLLER) == 0;
  for (int i = 0; i < TY_INPUT_MAX_GAMEPADS; i++) w->pad_ids[i] = -1;
  return w;
}

void ty_window_destroy(ty_window *w) {
  if (!w) return;
  for (ty_window **p = &live_windows; *p; p = &(*p)->next_live)
    if (*p == w) {
      *p = w->next_live;
      break;
    }
  for (int i = 0; i < TY_INPUT_MAX_GAMEPADS; i++)
    if (w->pads[i]) SDL_GameControllerClose(w->pads[i]);
  if (w->pads_ok) SDL_QuitSubSystem(SDL_INIT_GAMECONTROLLER);
  SDL_GL_MakeCurrent(w->window, NULL);
  SDL_GL_DeleteContext(w->context);
  SDL_DestroyWindow(w->window);
  SDL_QuitSubSystem(SDL_INIT_VIDEO);
  TY_FREE(w);
  shutdown_sdl_if_last();
}

/* ---- events ---- */

static void emit(ty_input *in, ty_input_event ev) {
  if (in) ty_input_inject(in, &ev);
}

static int pad_slot(const ty_window *w, SDL_JoystickID id) {
  for (int i = 0; i < TY_INPUT_MAX_GAMEPADS; i++)
    if (w->pads[i] && w->pad_ids[i] == id) return i;
  return -1;
}

static void pad_added(ty_window *w, ty_input *in, int device_index) {
  int slot = -1;
  for (int i = 0; i < TY_INPUT_MAX_GAMEPADS && slot < 0; i++)
    if (!w->pads[i]) slot = i;
  if (slot < 0) return; /* more pads than the snapshot holds */
  SDL_GameController *gc = SDL_GameControllerOpen(device_index);
  if (!gc) {
    ty_log("gamepad_open_failed", "%s", SDL_GetError());
    return;
  }
  SDL_JoystickID id = SDL_JoystickInstanceID(SDL_GameControllerGetJoystick(gc));
  if (pad_slot(w, id) >= 0) { /* SDL reports pads present at start twice: once is enough */
    SDL_GameControllerClose(gc);
    return;
  }
  w->pads[slot] = gc;
  w->pad_ids[slot] = id;
  emit(in, (ty_input_event){.type = TY_INPUT_PAD_CONNECT, .index = slot, .name = SDL_GameControllerName(gc)});
}

static void pad_removed(ty_window *w, ty_input *in, SDL_JoystickID id) {
  int slot = pad_slot(w, id);
  if (slot < 0) return;
  SDL_GameControllerClose(w->pads[slot]);
  w->pads[slot] = NULL;
  w->pad_ids[slot] = -1;
  emit(in, (ty_input_event){.type = TY_INPUT_PAD_DISCONNECT, .index = slot});
}

static int mouse_button(Uint8 b) {
  switch (b) {
  case SDL_BUTTON_LEFT: return TY_MOUSE_LEFT;
  case SDL_BUTTON_RIGHT: return TY_MOUSE_RIGHT;
  case SDL_BUTTON_MIDDLE: return TY_MOUSE_MIDDLE;
  case SDL_BUTTON_X1: return TY_MOUSE_X1;
  case SDL_BUTTON_X2: return TY_MOUSE_X2;
  default: return -1;
  }
}

static void key_event(ty_input *in, const SDL_KeyboardEvent *k) {
  const char *name = SDL_GetKeyName(k->keysym.sym);
  if (!name || !*name) name = SDL_GetScancodeName(k->keysym.scancode);
  if (!name || !*name) return;
  emit(in, (ty_input_event){.type = k->type == SDL_KEYDOWN ? TY_INPUT_KEY_DOWN : TY_INPUT_KEY_UP,
                            .key = name, .repeat = k->repeat != 0});
}

void ty_window_poll(ty_window *w, ty_input *in) {
  TY_ASSERT(w);
  SDL_Event e;
  while (SDL_PollEvent(&e)) {
    switch (e.type) {
    case SDL_QUIT: w->close_requested = true; break;
    case SDL_WINDOWEVENT:
      if (e.window.event == SDL_WINDOWEVENT_SIZE_CHANGED) {
        int dw, dh;
        SDL_GL_GetDrawableSize(w->window, &dw, &dh);
        if (dw != w->drawable_w || dh != w->drawable_h) w->resize_count++;
        w->drawable_w = dw;
        w->drawable_h = dh;
      } else if (e.window.event == SDL_WINDOWEVENT_FOCUS_LOST) {
        emit(in, (ty_input_event){.type = TY_INPUT_FOCUS_LOST});
      } else if (e.window.event == SDL_WINDOWEVENT_CLOSE) {
        w->close_requested = true;
      }
      break;
    case SDL_KEYDOWN:
    case SDL_KEYUP: key_event(in, &e.key); break;
    case SDL_TEXTINPUT: emit(in, (ty_input_event){.type = TY_INPUT_TEXT, .text = e.text.text}); break;
    case SDL_MOUSEMOTION:
      emit(in, (ty_input_event){.type = TY_INPUT_MOUSE_MOVE, .x = (float)e.motion.x, .y = (float)e.motion.y,
                                .dx = (float)e.motion.xrel, .dy = (float)e.motion.yrel, .has_delta = true});
      break;
    case SDL_MOUSEBUTTONDOWN:
    case SDL_MOUSEBUTTONUP: {
      int b = mouse_button(e.button.button);
      if (b >= 0)
        emit(in, (ty_input_event){.type = e.type == SDL_MOUSEBUTTONDOWN ? TY_INPUT_MOUSE_DOWN : TY_INPUT_MOUSE_UP,
                                  .button = b});
      break;
    }
    case SDL_MOUSEWHEEL: {
      float flip = e.wheel.direction == SDL_MOUSEWHEEL_FLIPPED ? -1.0f : 1.0f;
      emit(in, (ty_input_event){.type = TY_INPUT_WHEEL, .x = e.wheel.preciseX * flip, .y = e.wheel.preciseY * flip});
      break;
    }
    case SDL_CONTROLLERDEVICEADDED: pad_added(w, in, e.cdevice.which); break;
    case SDL_CONTROLLERDEVICEREMOVED: pad_removed(w, in, e.cdevice.which); break;
    case SDL_CONTROLLERAXISMOTION: {
      int slot = pad_slot(w, e.caxis.which);
      float v = e.caxis.value < 0 ? (float)e.caxis.value / 32768.0f : (float)e.caxis.value / 32767.0f;
      if (slot >= 0) emit(in, (ty_input_event){.type = TY_INPUT_PAD_AXIS, .index = slot, .axis = e.caxis.axis, .value = v});
      break;
    }
    case SDL_CONTROLLERBUTTONDOWN:
    case SDL_CONTROLLERBUTTONUP: {
      int slot = pad_slot(w, e.cbutton.which);
      if (slot >= 0)
        emit(in, (ty_input_event){.type = TY_INPUT_PAD_BUTTON, .index = slot, .button = e.cbutton.button,
                                  .value = e.type == SDL_CONTROLLERBUTTONDOWN ? 1.0f : 0.0f});
      break;
    }
    default: break;
    }
  }
}

static bool lock_hook(void *user, bool locked) {
  for (ty_window *w = live_windows; w; w = w->next_live)
    if (w == user) return ty_window_set_pointer_lock(w, locked);
  return false; /* the window is gone: as headless */
}

/* Window coordinates to SDL's ints; anything not finite or out of range lands at 0 or the bound. */
static int to_coord(float v) { return v >= -1e6f && v <= 1e6f ? (int)v : v > 0 ? 1000000 : 0; }

static void text_hook(void *user, bool on, const ty_input_rect *rect) {
  for (ty_window *w = live_windows; w; w = w->next_live)
    if (w == user) {
      if (!on) {
        SDL_StopTextInput();
        return;
      }
      if (rect) {
        SDL_Rect r = {to_coord(rect->x), to_coord(rect->y), to_coord(rect->w), to_coord(rect->h)};
        SDL_SetTextInputRect(&r);
      }
      if (!SDL_IsTextInputActive()) SDL_StartTextInput();
      return;
    }
}

void ty_window_attach_input(ty_window *w, ty_input *in) {
  TY_ASSERT(w && in);
  in->pointer_lock = lock_hook;
  in->pointer_lock_user = w;
  in->text_input = text_hook;
  in->text_input_user = w;
  /* The snapshot may have asked for text before the window came. */
  text_hook(w, in->text_active, NULL);
}

bool ty_window_close_requested(const ty_window *w) { return w->close_requested; }
void ty_window_set_close_request(ty_window *w, bool close) { w->close_requested = close; }

void ty_window_drawable_size(const ty_window *w, int *width, int *height) {
  if (width) *width = w->drawable_w;
  if (height) *height = w->drawable_h;
}

uint32_t ty_window_resize_count(const ty_window *w) { return w->resize_count; }

void ty_window_swap(ty_window *w) { SDL_GL_SwapWindow(w->window); }

void ty_window_set_title(ty_window *w, const char *title) {
  TY_ASSERT(w && title);
  SDL_SetWindowTitle(w->window, title);
}

const char *ty_window_title(const ty_window *w) { return SDL_GetWindowTitle(w->window); }

void ty_window_size(const ty_window *w, int *width, int *height) {
  int ww = 0, wh = 0;
  SDL_GetWindowSize(w->window, &ww, &wh);
  if (width) *width = ww;
  if (height) *height = wh;
}

/* Reads the drawable size now rather than waiting for the event: a game that resizes and
 * renders in the same frame gets a frame of the new size. */
static void refresh_drawable(ty_window *w) {
  int dw, dh;
  SDL_GL_GetDrawableSize(w->window, &dw, &dh);
  if (dw != w->drawable_w || dh != w->drawable_h) w->resize_count++;
  w->drawable_w = dw;
  w->drawable_h = dh;
}

void ty_window_set_size(ty_window *w, int width, int height) {
  TY_ASSERT(w && width > 0 && height > 0);
  SDL_SetWindowSize(w->window, width, height);
  refresh_drawable(w);
}

bool ty_window_set_fullscreen(ty_window *w, bool fullscreen) {
  TY_ASSERT(w);
  if (SDL_SetWindowFullscreen(w->window, fullscreen ? SDL_WINDOW_FULLSCREEN_DESKTOP : 0) != 0) {
    ty_log("fullscreen_failed", "%s", SDL_GetError());
    return false;
  }
  refresh_drawable(w);
  return ty_window_fullscreen(w) == fullscreen;
}

bool ty_window_fullscreen(const ty_window *w) {
  return (SDL_GetWindowFlags(w->window) & SDL_WINDOW_FULLSCREEN) != 0;
}

bool ty_window_set_pointer_lock(ty_window *w, bool locked) {
  TY_ASSERT(w);
  if (SDL_SetRelativeMouseMode(locked ? SDL_TRUE : SDL_FALSE) != 0) return false;
  return (SDL_GetRelativeMouseMode() == SDL_TRUE) == locked;
}

bool ty_window_read_pixels(ty_window *w, int x, int y, int width, int height, uint8_t *rgba) {
  TY_ASSERT(w && rgba);
  if (x < 0 || y < 0 || width <= 0 || height <= 0 || x + width > w->drawable_w || y + height > w->drawable_h)
    return false;
  GLint read_fb = 0, pack_buffer = 0, pack_alignment = 4;
  glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &read_fb);
  glGetIntegerv(GL_PIXEL_PACK_BUFFER_BINDING, &pack_buffer);
  glGetIntegerv(GL_PACK_ALIGNMENT, &pack_alignment);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
  glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  glNamedFramebufferReadBuffer(0, GL_BACK);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  /* GL's origin is bottom-left: the rectangle's top row is GL row h - y - 1. */
  glReadPixels(x, w->drawable_h - y - height, width, height, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
  glPixelStorei(GL_PACK_ALIGNMENT, pack_alignment);
  glBindBuffer(GL_PIXEL_PACK_BUFFER, (GLuint)pack_buffer);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, (GLuint)read_fb);
  size_t row = (size_t)width * 4;
  uint8_t tmp[1024];
  for (int top = 0, bottom = height - 1; top < bottom; top++, bottom--) {
    uint8_t *a = rgba + (size_t)top * row, *b = rgba + (size_t)bottom * row;
    for (size_t off = 0; off < row; off += sizeof tmp) {
      size_t n = row - off < sizeof tmp ? row - off : sizeof tmp;
      memcpy(tmp, a + off, n);
      memcpy(a + off, b + off, n);
      memcpy(b + off, tmp, n);
    }
  }
  return true;
}

bool ty_window_screenshot(ty_window *w, const char *path) {
  TY_ASSERT(w && path);
  size_t size = (size_t)w->drawable_w * (size_t)w->drawable_h * 4;
  uint8_t *pixels = size ? TY_MALLOC(size) : NULL;
  if (!pixels) {
    ty_log("screenshot_failed", "%s: the drawable is %dx%d", path, w->drawable_w, w->drawable_h);
    return false;
  }
  bool ok = ty_window_read_pixels(w, 0, 0, w->drawable_w, w->drawable_h, pixels) &&
            ty_image_write_png(path, w->drawable_w, w->drawable_h, pixels);
  TY_FREE(pixels);
  return ok;
}

#else /* !TYCHO_WITH_GL: a build with no window; everything fails cleanly. */

struct ty_window {
  int unused;
};

bool ty_platform_has_gl(void) { return false; }
const char *ty_platform_video_driver(void) { return ""; }

ty_window *ty_window_create(const ty_window_desc *desc) {
  (void)desc;
  ty_log("window_unavailable", "this tycho was built without a window (TYCHO_WITH_GL=OFF)");
  return NULL;
}

void ty_window_destroy(ty_window *w) { (void)w; }
void ty_window_poll(ty_window *w, ty_input *in) { (void)w, (void)in; }
void ty_window_attach_input(ty_window *w, ty_input *in) { (void)w, (void)in; }
bool ty_window_close_requested(const ty_window *w) { (void)w; return true; }
void ty_window_set_close_request(ty_window *w, bool close) { (void)w, (void)close; }
void ty_window_drawable_size(const ty_window *w, int *width, int *height) {
  (void)w;
  if (width) *width = 0;
  if (height) *height = 0;
}
uint32_t ty_window_resize_count(const ty_window *w) { (void)w; return 0; }
void ty_window_swap(ty_window *w) { (void)w; }
void ty_window_set_title(ty_window *w, const char *title) { (void)w, (void)title; }
const char *ty_window_title(const ty_window *w) { (void)w; return ""; }
void ty_window_size(const ty_window *w, int *width, int *height) { ty_window_drawable_size(w, width, height); }
void ty_window_set_size(ty_window *w, int width, int height) { (void)w, (void)width, (void)height; }
bool ty_window_set_fullscreen(ty_window *w, bool fullscreen) { (void)w, (void)fullscreen; return false; }
bool ty_window_fullscreen(const ty_window *w) { (void)w; return false; }
bool ty_window_set_pointer_lock(ty_window *w, bool locked) { (void)w, (void)locked; return false; }
bool ty_window_read_pixels(ty_window *w, int x, int y, int width, int height, uint8_t *rgba) {
  (void)w, (void)x, (void)y, (void)width, (void)height, (void)rgba;
  return false;
}
bool ty_window_screenshot(ty_window *w, const char *path) {
  (void)w;
  ty_log("screenshot_failed", "%s: this tycho was built without a window", path);
  return false;
}

#endif

static int pin_library(struct dl_phdr_info *info, size_t size, void *user) {
  (void)size, (void)user;
  if (info->dlpi_name && info->dlpi_name[0]) dlopen(info->dlpi_name, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
  return 0;
}

void ty_platform_pin_libraries(void) { dl_iterate_phdr(pin_library, NULL); }
