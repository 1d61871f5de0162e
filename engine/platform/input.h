/* engine/platform/input.h: the input snapshot a frame reads.
 *
 * Keyboard, mouse and gamepad state as plain memory, fed by events: the window's SDL
 * events (ty_window_poll in platform.h) or synthetic ones (ty_input_inject, what
 * `tycho.input.inject` and headless runs use). Pure C with no SDL in it, so it works
 * with no window at all.
 *
 * State ("down", mouse position, axes) follows the events at once. Edges ("pressed this
 * frame", "released this frame", mouse motion and wheel amounts) accumulate from one
 * ty_input_begin_frame to the next: begin_frame is the sample point that closes the
 * previous frame's window. Key repeats never make a new pressed edge. A key pressed and
 * released between two begin_frames reads wasPressed and wasReleased, and not down.
 *
 * Keys are named as SDL names them (SDL_GetKeyName), compared without case: "w",
 * "space", "left shift", "return", "escape", "up", "keypad 5", "f1".
 */
#ifndef TY_PLATFORM_INPUT_H
#define TY_PLATFORM_INPUT_H

#include <stdbool.h>
#include <stdint.h>

/* Longest key name kept (SDL's longest is about 20 bytes); longer names never match. */
#define TY_INPUT_KEY_NAME_MAX 32
/* Distinct key names one snapshot tracks; keys past this are ignored (logged once). */
#define TY_INPUT_MAX_KEYS 256
#define TY_INPUT_MAX_GAMEPADS 4

typedef enum ty_mouse_button {
  TY_MOUSE_LEFT = 0,
  TY_MOUSE_RIGHT,
  TY_MOUSE_MIDDLE,
  TY_MOUSE_X1,
  TY_MOUSE_X2,
  TY_MOUSE_BUTTON_COUNT
} ty_mouse_button;

/* Same order as SDL_GameControllerAxis, names as SDL_GameControllerGetStringForAxis. */
typedef enum ty_pad_axis {
  TY_PAD_LEFTX = 0,
  TY_PAD_LEFTY,
  TY_PAD_RIGHTX,
  TY_PAD_RIGHTY,
  TY_PAD_LEFTTRIGGER,
  TY_PAD_RIGHTTRIGGER,
  TY_PAD_AXIS_COUNT
} ty_pad_axis;

/* Same order as SDL_GameControllerButton, names as SDL_GameControllerGetStringForButton. */
typedef enum ty_pad_button {
  TY_PAD_A = 0,
  TY_PAD_B,
  TY_PAD_X,
  TY_PAD_Y,
  TY_PAD_BACK,
  TY_PAD_GUIDE,
  TY_PAD_START,
  TY_PAD_LEFTSTICK,
  TY_PAD_RIGHTSTICK,
  TY_PAD_LEFTSHOULDER,
  TY_PAD_RIGHTSHOULDER,
  TY_PAD_DPUP,
  TY_PAD_DPDOWN,
  TY_PAD_DPLEFT,
  TY_PAD_DPRIGHT,
  TY_PAD_MISC1,
  TY_PAD_PADDLE1,
  TY_PAD_PADDLE2,
  TY_PAD_PADDLE3,
  TY_PAD_PADDLE4,
  TY_PAD_TOUCHPAD,
  TY_PAD_BUTTON_COUNT
} ty_pad_button;

typedef enum ty_input_event_type {
  TY_INPUT_NONE = 0,
  TY_INPUT_KEY_DOWN,       /* key, repeat */
  TY_INPUT_KEY_UP,         /* key */
  TY_INPUT_MOUSE_MOVE,     /* x, y; dx, dy when has_delta, else derived from the last x, y */
  TY_INPUT_MOUSE_DOWN,     /* button (ty_mouse_button) */
  TY_INPUT_MOUSE_UP,       /* button */
  TY_INPUT_WHEEL,          /* x, y: scroll amounts (y > 0 away from the user) */
  TY_INPUT_PAD_CONNECT,    /* index, name (may be NULL) */
  TY_INPUT_PAD_DISCONNECT, /* index */
  TY_INPUT_PAD_BUTTON,     /* index, button (ty_pad_button), value (>= 0.5: down); connects the pad */
  TY_INPUT_PAD_AXIS,       /* index, axis (ty_pad_axis), value in -1..1; connects the pad */
  TY_INPUT_FOCUS_LOST,     /* releases every key and button (no stuck keys after alt-tab) */
} ty_input_event_type;

typedef struct ty_input_event {
  ty_input_event_type type;
  const char *key;  /* key events: a key name, any case; read during the call only */
  const char *name; /* PAD_CONNECT: the pad's name; read during the call only */
  float x, y;       /* mouse move: position in window pixels; wheel: amounts */
  float dx, dy;     /* mouse move with has_delta: relative motion (pointer lock) */
  bool has_delta;
  bool repeat;      /* KEY_DOWN: an auto-repeat (no new pressed edge) */
  int button;       /* ty_mouse_button or ty_pad_button */
  int axis;         /* ty_pad_axis */
  int index;        /* gamepad index, 0-based */
  float value;      /* pad button or axis value */
} ty_input_event;

typedef struct ty_input_key {
  char name[TY_INPUT_KEY_NAME_MAX]; /* lowercase; "" for an empty slot */
  bool down, pressed, released;
} ty_input_key;

typedef struct ty_input_pad {
  bool connected;
  char name[64];
  float axes[TY_PAD_AXIS_COUNT];
  bool buttons[TY_PAD_BUTTON_COUNT];
  bool pressed[TY_PAD_BUTTON_COUNT];  /* edges since begin_frame */
  bool released[TY_PAD_BUTTON_COUNT];
} ty_input_pad;

typedef struct ty_input_mouse {
  float x, y;   /* position in window pixels, origin top-left */
  float dx, dy; /* motion since begin_frame */
  float wheel_x, wheel_y; /* scrolling since begin_frame */
  bool buttons[TY_MOUSE_BUTTON_COUNT];
  bool pressed[TY_MOUSE_BUTTON_COUNT]; /* edges since begin_frame */
  bool released[TY_MOUSE_BUTTON_COUNT];
} ty_input_mouse;

/* Asked by ty_input_set_pointer_lock; returns whether the lock is now as asked. */
typedef bool (*ty_pointer_lock_fn)(void *user, bool locked);

/* The snapshot. Plain memory: zero it with ty_input_init, no destroy needed. */
typedef struct ty_input {
  ty_input_key keys[TY_INPUT_MAX_KEYS]; /* open-addressed by name hash */
  uint32_t key_count;
  ty_input_mouse mouse;
  ty_input_pad pads[TY_INPUT_MAX_GAMEPADS];
  bool pointer_locked;
  bool keys_full_logged;
  uint64_t frame; /* begin_frame calls so far */
  /* Set by whoever owns the window (ty_window_attach_input); NULL when headless. */
  ty_pointer_lock_fn pointer_lock;
  void *pointer_lock_user;
} ty_input;

void ty_input_init(ty_input *in);
/* Forgets every key, button, axis and pad; keeps the pointer-lock hook. */
void ty_input_reset(ty_input *in);

/* The per-frame sample point: clears the edges (pressed, released, mouse dx/dy, wheel). */
void ty_input_begin_frame(ty_input *in);

/* Applies one event. Returns false (and changes nothing) for a malformed event: an
 * unknown type, an empty or overlong key name, a button, axis or index out of range. */
bool ty_input_inject(ty_input *in, const ty_input_event *ev);

bool ty_input_key_down(const ty_input *in, const char *key);
bool ty_input_key_pressed(const ty_input *in, const char *key);
bool ty_input_key_released(const ty_input *in, const char *key);

/* Asks the window for relative mouse mode; false (and nothing changes) when headless. */
bool ty_input_set_pointer_lock(ty_input *in, bool locked);

/* The pad at index, NULL when out of range or not connected. */
const ty_input_pad *ty_input_gamepad(const ty_input *in, int index);

/* Name tables: NULL past the end; lookups return -1 for an unknown name (case-insensitive). */
const char *ty_mouse_button_name(int button);
const char *ty_pad_axis_name(int axis);
const char *ty_pad_button_name(int button);
int ty_mouse_button_from_name(const char *name);
int ty_pad_axis_from_name(const char *name);
int ty_pad_button_from_name(const char *name);

#endif
