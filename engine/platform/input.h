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
 *
 * Typed text is separate from keys: a key says which switch moved, text says what the
 * keyboard layout, Shift and the IME made of it. Text arrives only while text input is
 * on (ty_input_start_text, as SDL_StartTextInput), is kept in arrival order until the
 * next begin_frame, and backspaces pressed while it is on are kept in order with it
 * (ty_input_apply_typing), so a text field replays a frame's typing exactly.
 */
#ifndef TY_PLATFORM_INPUT_H
#define TY_PLATFORM_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Longest key name kept (SDL's longest is about 20 bytes); longer names never match. */
#define TY_INPUT_KEY_NAME_MAX 32
/* Distinct key names one snapshot tracks; keys past this are ignored (logged once). */
#define TY_INPUT_MAX_KEYS 256
#define TY_INPUT_MAX_GAMEPADS 4
/* Bytes of typed text one frame keeps (a fast typist makes a few; a paste through the IME
 * a few hundred); a text event that does not fit is dropped whole (logged once). */
#define TY_INPUT_TEXT_MAX 1024
/* Backspaces (auto-repeats included) one frame keeps in order with its text. */
#define TY_INPUT_ERASE_MAX 64

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
  TY_INPUT_TEXT,           /* text: UTF-8 typed text (SDL_TEXTINPUT); dropped while text input is off */
} ty_input_event_type;

typedef struct ty_input_event {
  ty_input_event_type type;
  const char *key;  /* key events: a key name, any case; read during the call only */
  const char *name; /* PAD_CONNECT: the pad's name; read during the call only */
  const char *text; /* TEXT: valid UTF-8, NUL-terminated; read during the call only */
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
  uint16_t presses; /* key-downs since begin_frame, auto-repeats included */
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

/* Where the text being typed sits, in window coordinates (as the mouse's): the IME puts
 * its candidate window beside it. */
typedef struct ty_input_rect {
  float x, y, w, h;
} ty_input_rect;

/* Told by ty_input_start_text (on, rect or NULL) and ty_input_stop_text (off, NULL). */
typedef void (*ty_text_input_fn)(void *user, bool on, const ty_input_rect *rect);

/* The snapshot. Plain memory: zero it with ty_input_init, no destroy needed. */
typedef struct ty_input {
  ty_input_key keys[TY_INPUT_MAX_KEYS]; /* open-addressed by name hash */
  uint32_t key_count;
  ty_input_mouse mouse;
  ty_input_pad pads[TY_INPUT_MAX_GAMEPADS];
  bool pointer_locked;
  bool keys_full_logged;
  bool text_active;      /* text input is on: TEXT events and backspaces are kept */
  bool text_full_logged;
  uint32_t text_len;     /* bytes in text, not counting its NUL */
  uint32_t erase_count;
  char text[TY_INPUT_TEXT_MAX + 1]; /* this frame's typed text, NUL-terminated */
  uint16_t erase_at[TY_INPUT_ERASE_MAX]; /* each backspace: text_len when it came, in order */
  uint64_t frame; /* begin_frame calls so far */
  /* Set by whoever owns the window (ty_window_attach_input); NULL when headless. */
  ty_pointer_lock_fn pointer_lock;
  void *pointer_lock_user;
  ty_text_input_fn text_input;
  void *text_input_user;
} ty_input;

void ty_input_init(ty_input *in);
/* Forgets every key, button, axis, pad and the frame's text; keeps the window hooks and
 * what the window is doing (pointer lock, text input). With no window text input goes
 * off, so each spec starts with it off. */
void ty_input_reset(ty_input *in);

/* The per-frame sample point: clears the edges (pressed, released, mouse dx/dy, wheel)
 * and the frame's text and backspaces. */
void ty_input_begin_frame(ty_input *in);

/* Applies one event. Returns false (and changes nothing) for a malformed event: an
 * unknown type, an empty or overlong key name, a button, axis or index out of range. */
bool ty_input_inject(ty_input *in, const ty_input_event *ev);

bool ty_input_key_down(const ty_input *in, const char *key);
bool ty_input_key_pressed(const ty_input *in, const char *key);
bool ty_input_key_released(const ty_input *in, const char *key);
/* Key-downs since begin_frame, auto-repeats included (what holding backspace makes). */
int ty_input_key_presses(const ty_input *in, const char *key);

/* Text input on (rect: where the text field is, or NULL) or off. Off by default: an IME
 * composing while the player walks with WASD would swallow the keys. Starting again
 * while on moves the rect. */
void ty_input_start_text(ty_input *in, const ty_input_rect *rect);
void ty_input_stop_text(ty_input *in);
bool ty_input_text_active(const ty_input *in);

/* Applies this frame's typing to the UTF-8 string s (len bytes in a buffer of cap):
 * the text in order, each backspace removing the last UTF-8 character (not byte) where
 * it came. A character is added only while the result stays within max_chars
 * characters and max_bytes bytes (0: no limit), so a field never holds half a
 * character. Needs cap >= len + in->text_len; returns the new length (s is not
 * NUL-terminated). */
size_t ty_input_apply_typing(const ty_input *in, char *s, size_t len, size_t cap, size_t max_chars, size_t max_bytes);

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
