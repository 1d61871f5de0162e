/* engine/platform/input.c: the input snapshot: keys by name, mouse, gamepads, typed text,
 * and the per-frame edges. No SDL here; window.c translates SDL events into ty_input_event. */
#include "input.h"

#include <ctype.h>
#include <math.h>
#include <string.h>
#include <strings.h>

#include "../common.h"

/* Keys past this many distinct names are ignored, so probes stay short. */
#define KEY_LOAD_MAX (TY_INPUT_MAX_KEYS * 3 / 4)

static const char *const mouse_names[TY_MOUSE_BUTTON_COUNT] = {"left", "right", "middle", "x1", "x2"};
static const char *const axis_names[TY_PAD_AXIS_COUNT] = {"leftx",  "lefty",       "rightx",
                                                           "righty", "lefttrigger", "righttrigger"};
static const char *const pad_button_names[TY_PAD_BUTTON_COUNT] = {
    "a",          "b",          "x",           "y",            "back",          "guide",  "start",
    "leftstick",  "rightstick", "leftshoulder", "rightshoulder", "dpup",         "dpdown", "dpleft",
    "dpright",    "misc1",      "paddle1",      "paddle2",       "paddle3",      "paddle4", "touchpad"};

/* Lowercases name into out; false when it is empty or does not fit. */
static bool normalize(const char *name, char out[TY_INPUT_KEY_NAME_MAX]) {
  if (!name || !*name) return false;
  size_t i = 0;
  for (; name[i]; i++) {
    if (i + 1 >= TY_INPUT_KEY_NAME_MAX) return false;
    out[i] = (char)tolower((unsigned char)name[i]);
  }
  out[i] = '\0';
  return true;
}

static uint32_t hash_name(const char *s) {
  uint32_t h = 2166136261u; /* FNV-1a */
  for (; *s; s++) h = (h ^ (uint8_t)*s) * 16777619u;
  return h;
}

/* The slot holding name (already lowercase), or the empty slot where it would go. */
static ty_input_key *find_slot(ty_input_key *keys, const char *name) {
  uint32_t i = hash_name(name) % TY_INPUT_MAX_KEYS;
  for (;;) {
    ty_input_key *k = &keys[i];
    if (!k->name[0] || strcmp(k->name, name) == 0) return k;
    i = (i + 1) % TY_INPUT_MAX_KEYS; /* terminates: the table is never full (KEY_LOAD_MAX) */
  }
}

static const ty_input_key *lookup(const ty_input *in, const char *key) {
  char name[TY_INPUT_KEY_NAME_MAX];
  if (!normalize(key, name)) return NULL;
  const ty_input_key *k = find_slot((ty_input_key *)in->keys, name);
  return k->name[0] ? k : NULL;
}

void ty_input_init(ty_input *in) {
  TY_ASSERT(in);
  memset(in, 0, sizeof *in);
}

void ty_input_reset(ty_input *in) {
  ty_pointer_lock_fn fn = in->pointer_lock;
  void *user = in->pointer_lock_user;
  ty_text_input_fn text_fn = in->text_input;
  void *text_user = in->text_input_user;
  bool locked = in->pointer_locked;
  bool text_on = in->text_active && text_fn; /* headless, the snapshot is the whole story */
  memset(in, 0, sizeof *in);
  in->pointer_lock = fn;
  in->pointer_lock_user = user;
  in->text_input = text_fn;
  in->text_input_user = text_user;
  in->pointer_locked = locked; /* the window's modes did not change */
  in->text_active = text_on;
}

void ty_input_begin_frame(ty_input *in) {
  TY_ASSERT(in);
  for (uint32_t i = 0; i < TY_INPUT_MAX_KEYS; i++) {
    ty_input_key *k = &in->keys[i];
    k->pressed = k->released = false;
    k->presses = 0;
  }
  in->text_len = in->erase_count = 0;
  in->text[0] = '\0';
  ty_input_mouse *m = &in->mouse;
  m->dx = m->dy = m->wheel_x = m->wheel_y = 0;
  memset(m->pressed, 0, sizeof m->pressed);
  memset(m->released, 0, sizeof m->released);
  for (int p = 0; p < TY_INPUT_MAX_GAMEPADS; p++) {
    memset(in->pads[p].pressed, 0, sizeof in->pads[p].pressed);
    memset(in->pads[p].released, 0, sizeof in->pads[p].released);
  }
  in->frame++;
}

static bool key_event(ty_input *in, const ty_input_event *ev, bool down) {
  char name[TY_INPUT_KEY_NAME_MAX];
  if (!normalize(ev->key, name)) return false;
  ty_input_key *k = find_slot(in->keys, name);
  if (!k->name[0]) {
    if (!down) return true; /* a release of a key never seen down: nothing to change */
    if (in->key_count >= KEY_LOAD_MAX) {
      if (!in->keys_full_logged) ty_log("input_keys_full", "more than %d distinct key names; '%s' ignored", KEY_LOAD_MAX, name);
      in->keys_full_logged = true;
      return true;
    }
    memcpy(k->name, name, sizeof name);
    in->key_count++;
  }
  if (down) {
    if (!k->down && !ev->repeat) k->pressed = true;
    k->down = true;
    if (k->presses < UINT16_MAX) k->presses++;
    /* Backspace edits the text being typed, in order with it. */
    if (in->text_active && strcmp(name, "backspace") == 0 && in->erase_count < TY_INPUT_ERASE_MAX)
      in->erase_at[in->erase_count++] = (uint16_t)in->text_len;
  } else {
    if (k->down) k->released = true;
    k->down = false;
  }
  return true;
}

static bool text_event(ty_input *in, const char *text) {
  if (!text) return false;
  size_t n = strlen(text);
  if (!ty_utf8_valid(text, n)) return false;
  if (!in->text_active) return true; /* as SDL: no text while text input is off */
  if (n > TY_INPUT_TEXT_MAX - in->text_len) {
    if (!in->text_full_logged)
      ty_log("input_text_full", "more than %d bytes of text in one frame; the rest is dropped", TY_INPUT_TEXT_MAX);
    in->text_full_logged = true;
    return true;
  }
  memcpy(in->text + in->text_len, text, n + 1);
  in->text_len += (uint32_t)n;
  return true;
}

static void release_all(ty_input *in) {
  for (uint32_t i = 0; i < TY_INPUT_MAX_KEYS; i++) {
    ty_input_key *k = &in->keys[i];
    if (k->down) k->released = true;
    k->down = false;
  }
  for (int b = 0; b < TY_MOUSE_BUTTON_COUNT; b++) {
    if (in->mouse.buttons[b]) in->mouse.released[b] = true;
    in->mouse.buttons[b] = false;
  }
}

static ty_input_pad *pad_for(ty_input *in, int index) {
  if (index < 0 || index >= TY_INPUT_MAX_GAMEPADS) return NULL;
  ty_input_pad *p = &in->pads[index];
  if (!p->connected) {
    memset(p, 0, sizeof *p);
    p->connected = true;
    snprintf(p->name, sizeof p->name, "Gamepad %d", index + 1);
  }
  return p;
}

static float clampf(float v, float lo, float hi) { return v < lo ? lo : v > hi ? hi : v; }

bool ty_input_inject(ty_input *in, const ty_input_event *ev) {
  TY_ASSERT(in && ev);
  ty_input_mouse *m = &in->mouse;
  switch (ev->type) {
  case TY_INPUT_KEY_DOWN: return key_event(in, ev, true);
  case TY_INPUT_KEY_UP: return key_event(in, ev, false);
  case TY_INPUT_MOUSE_MOVE: {
    if (!isfinite(ev->x) || !isfinite(ev->y)) return false;
    float dx = ev->has_delta ? ev->dx : ev->x - m->x, dy = ev->has_delta ? ev->dy : ev->y - m->y;
    if (!isfinite(dx) || !isfinite(dy)) return false;
    m->dx += dx;
    m->dy += dy;
    m->x = ev->x;
    m->y = ev->y;
    return true;
  }
  case TY_INPUT_MOUSE_DOWN:
  case TY_INPUT_MOUSE_UP: {
    if (ev->button < 0 || ev->button >= TY_MOUSE_BUTTON_COUNT) return false;
    bool down = ev->type == TY_INPUT_MOUSE_DOWN, was = m->buttons[ev->button];
    if (down && !was) m->pressed[ev->button] = true;
    if (!down && was) m->released[ev->button] = true;
    m->buttons[ev->button] = down;
    return true;
  }
  case TY_INPUT_WHEEL:
    if (!isfinite(ev->x) || !isfinite(ev->y)) return false;
    m->wheel_x += ev->x;
    m->wheel_y += ev->y;
    return true;
  case TY_INPUT_PAD_CONNECT: {
    ty_input_pad *p = pad_for(in, ev->index);
    if (!p) return false;
    if (ev->name && *ev->name) snprintf(p->name, sizeof p->name, "%s", ev->name);
    return true;
  }
  case TY_INPUT_PAD_DISCONNECT:
    if (ev->index < 0 || ev->index >= TY_INPUT_MAX_GAMEPADS) return false;
    memset(&in->pads[ev->index], 0, sizeof in->pads[ev->index]);
    return true;
  case TY_INPUT_PAD_BUTTON: {
    if (ev->button < 0 || ev->button >= TY_PAD_BUTTON_COUNT || !isfinite(ev->value)) return false;
    ty_input_pad *p = pad_for(in, ev->index);
    if (!p) return false;
    bool down = ev->value >= 0.5f, was = p->buttons[ev->button];
    if (down && !was) p->pressed[ev->button] = true;
    if (!down && was) p->released[ev->button] = true;
    p->buttons[ev->button] = down;
    return true;
  }
  case TY_INPUT_PAD_AXIS: {
    if (ev->axis < 0 || ev->axis >= TY_PAD_AXIS_COUNT || !isfinite(ev->value)) return false;
    ty_input_pad *p = pad_for(in, ev->index);
    if (!p) return false;
    p->axes[ev->axis] = clampf(ev->value, -1.0f, 1.0f);
    return true;
  }
  case TY_INPUT_FOCUS_LOST: release_all(in); return true;
  case TY_INPUT_TEXT: return text_event(in, ev->text);
  case TY_INPUT_NONE: break;
  }
  return false;
}

bool ty_input_key_down(const ty_input *in, const char *key) {
  const ty_input_key *k = lookup(in, key);
  return k && k->down;
}

bool ty_input_key_pressed(const ty_input *in, const char *key) {
  const ty_input_key *k = lookup(in, key);
  return k && k->pressed;
}

bool ty_input_key_released(const ty_input *in, const char *key) {
  const ty_input_key *k = lookup(in, key);
  return k && k->released;
}

int ty_input_key_presses(const ty_input *in, const char *key) {
  const ty_input_key *k = lookup(in, key);
  return k ? k->presses : 0;
}

void ty_input_start_text(ty_input *in, const ty_input_rect *rect) {
  TY_ASSERT(in);
  in->text_active = true;
  if (in->text_input) in->text_input(in->text_input_user, true, rect);
}

void ty_input_stop_text(ty_input *in) {
  TY_ASSERT(in);
  in->text_active = false;
  if (in->text_input) in->text_input(in->text_input_user, false, NULL);
}

bool ty_input_text_active(const ty_input *in) { return in->text_active; }

static bool is_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

size_t ty_input_apply_typing(const ty_input *in, char *s, size_t len, size_t cap, size_t max_chars,
                             size_t max_bytes) {
  TY_ASSERT(in && s && cap >= len + in->text_len);
  size_t chars = 0;
  for (size_t i = 0; i < len; i++) chars += !is_continuation((unsigned char)s[i]);
  /* Once a character does not fit, the typing after it is dropped too (a later shorter
   * one fitting would scramble the text) until a backspace makes room. */
  bool full = false;
  size_t at = 0; /* bytes of in->text applied so far */
  for (uint32_t e = 0; e <= in->erase_count; e++) {
    size_t until = e < in->erase_count ? in->erase_at[e] : in->text_len;
    for (; at < until && !full;) {
      size_t n = 1;
      while (at + n < until && is_continuation((unsigned char)in->text[at + n])) n++;
      full = (max_chars && chars >= max_chars) || (max_bytes && len + n > max_bytes);
      if (!full) {
        memcpy(s + len, in->text + at, n);
        len += n;
        chars++;
        at += n;
      }
    }
    at = until;
    if (e < in->erase_count && len > 0) {
      while (len > 1 && is_continuation((unsigned char)s[len - 1])) len--;
      len--;
      if (chars) chars--;
      full = false;
    }
  }
  return len;
}

bool ty_input_set_pointer_lock(ty_input *in, bool locked) {
  if (!in->pointer_lock) return false;
  bool ok = in->pointer_lock(in->pointer_lock_user, locked);
  if (ok) in->pointer_locked = locked;
  return ok;
}

const ty_input_pad *ty_input_gamepad(const ty_input *in, int index) {
  if (index < 0 || index >= TY_INPUT_MAX_GAMEPADS || !in->pads[index].connected) return NULL;
  return &in->pads[index];
}

static int name_index(const char *const *names, int count, const char *name) {
  if (!name) return -1;
  for (int i = 0; i < count; i++)
    if (strcasecmp(names[i], name) == 0) return i;
  return -1;
}

const char *ty_mouse_button_name(int b) { return b >= 0 && b < TY_MOUSE_BUTTON_COUNT ? mouse_names[b] : NULL; }
const char *ty_pad_axis_name(int a) { return a >= 0 && a < TY_PAD_AXIS_COUNT ? axis_names[a] : NULL; }
const char *ty_pad_button_name(int b) { return b >= 0 && b < TY_PAD_BUTTON_COUNT ? pad_button_names[b] : NULL; }
int ty_mouse_button_from_name(const char *n) { return name_index(mouse_names, TY_MOUSE_BUTTON_COUNT, n); }
int ty_pad_axis_from_name(const char *n) { return name_index(axis_names, TY_PAD_AXIS_COUNT, n); }
int ty_pad_button_from_name(const char *n) { return name_index(pad_button_names, TY_PAD_BUTTON_COUNT, n); }
