/* bindings/lua_input.c: tycho.input, the Lua face of engine/platform/input.h: key and
 * mouse queries on this frame's snapshot, gamepads, pointer lock, typed text (text input
 * on and off, the frame's text, editText for text fields), and inject()/injectText() for
 * synthetic events (headless runs and specs).
 *
 * The snapshot is a userdata owned by the Lua state: one per state, the input part of the
 * state's context (lua_floor.h) and the upvalue of every function here, so two states (two
 * games, a spec runner and the game it starts) never share input. The C run loop reaches
 * it through ty_lua_input (lua_input.h). */
#include "lua_input.h"

#include <string.h>

static ty_input *state(lua_State *L) { return lua_touserdata(L, lua_upvalueindex(1)); }

ty_input *ty_lua_input(lua_State *L) { return ty_ctx_get(L)->input; }

/* ---- queries ---- */

static int input_is_down(lua_State *L) {
  lua_pushboolean(L, ty_input_key_down(state(L), luaL_checkstring(L, 1)));
  return 1;
}

static int input_was_pressed(lua_State *L) {
  lua_pushboolean(L, ty_input_key_pressed(state(L), luaL_checkstring(L, 1)));
  return 1;
}

static int input_was_released(lua_State *L) {
  lua_pushboolean(L, ty_input_key_released(state(L), luaL_checkstring(L, 1)));
  return 1;
}

/* tycho.input.pressCount(key) -> key-downs this frame, auto-repeats included */
static int input_press_count(lua_State *L) {
  lua_pushinteger(L, ty_input_key_presses(state(L), luaL_checkstring(L, 1)));
  return 1;
}

/* ---- text ---- */

/* tycho.input.textInput() -> this frame's typed text (UTF-8, "" when none) */
static int input_text_input(lua_State *L) {
  const ty_input *in = state(L);
  lua_pushlstring(L, in->text, in->text_len);
  return 1;
}

/* tycho.input.editText(text [, maxChars [, maxBytes]]) -> text with this frame's typing
 * applied; a limit of nil or 0 is none */
static int input_edit_text(lua_State *L) {
  const ty_input *in = state(L);
  size_t len;
  const char *s = luaL_checklstring(L, 1, &len);
  lua_Integer max_chars = luaL_optinteger(L, 2, 0), max_bytes = luaL_optinteger(L, 3, 0);
  luaL_argcheck(L, max_chars >= 0, 2, "maxChars must be 0 (no limit) or more");
  luaL_argcheck(L, max_bytes >= 0, 3, "maxBytes must be 0 (no limit) or more");
  luaL_Buffer b;
  size_t cap = len + in->text_len;
  char *buf = luaL_buffinitsize(L, &b, cap > 0 ? cap : 1);
  memcpy(buf, s, len);
  luaL_pushresultsize(&b, ty_input_apply_typing(in, buf, len, cap, (size_t)max_chars, (size_t)max_bytes));
  return 1;
}

/* tycho.input.startTextInput([x, y, w, h]): text input on; the rectangle is where the
 * text field is, for the IME's candidate window. */
static int input_start_text_input(lua_State *L) {
  ty_input *in = state(L);
  if (lua_isnoneornil(L, 1)) {
    ty_input_start_text(in, NULL);
    return 0;
  }
  float v[4];
  for (int i = 0; i < 4; i++) {
    lua_Number n = luaL_checknumber(L, i + 1);
    luaL_argcheck(L, n == n && n > -1e9 && n < 1e9, i + 1, "must be a finite number");
    if (i >= 2) luaL_argcheck(L, n >= 0, i + 1, "width and height must be 0 or more");
    v[i] = (float)n;
  }
  ty_input_start_text(in, &(ty_input_rect){v[0], v[1], v[2], v[3]});
  return 0;
}

static int input_stop_text_input(lua_State *L) {
  ty_input_stop_text(state(L));
  return 0;
}

static int input_is_text_input_active(lua_State *L) {
  lua_pushboolean(L, ty_input_text_active(state(L)));
  return 1;
}

/* tycho.input.injectText(text) -> whether it was taken (false while text input is off) */
static int input_inject_text(lua_State *L) {
  ty_input *in = state(L);
  luaL_checktype(L, 1, LUA_TSTRING); /* a number is no typed text */
  size_t len;
  const char *text = lua_tolstring(L, 1, &len);
  if (!ty_utf8_valid(text, len)) return luaL_argerror(L, 1, "text must be UTF-8 with no NUL bytes");
  uint32_t before = in->text_len;
  ty_input_inject(in, &(ty_input_event){.type = TY_INPUT_TEXT, .text = text});
  lua_pushboolean(L, len == 0 ? in->text_active : in->text_len != before);
  return 1;
}

/* Pushes {name = flags[i], ...} for the first count names. */
static void push_flags(lua_State *L, const bool *flags, int count, const char *(*name)(int)) {
  lua_createtable(L, 0, count);
  for (int i = 0; i < count; i++) {
    lua_pushboolean(L, flags[i]);
    lua_setfield(L, -2, name(i));
  }
}

/* tycho.input.mouse() -> {x=, y=, dx=, dy=, buttons={left=, right=, middle=, x1=, x2=},
 * pressed={...}, released={...}, wheel={x=, y=}, locked=} */
static int input_mouse(lua_State *L) {
  const ty_input *in = state(L);
  const ty_input_mouse *m = &in->mouse;
  lua_createtable(L, 0, 9);
  lua_pushnumber(L, m->x);
  lua_setfield(L, -2, "x");
  lua_pushnumber(L, m->y);
  lua_setfield(L, -2, "y");
  lua_pushnumber(L, m->dx);
  lua_setfield(L, -2, "dx");
  lua_pushnumber(L, m->dy);
  lua_setfield(L, -2, "dy");
  push_flags(L, m->buttons, TY_MOUSE_BUTTON_COUNT, ty_mouse_button_name);
  lua_setfield(L, -2, "buttons");
  push_flags(L, m->pressed, TY_MOUSE_BUTTON_COUNT, ty_mouse_button_name);
  lua_setfield(L, -2, "pressed");
  push_flags(L, m->released, TY_MOUSE_BUTTON_COUNT, ty_mouse_button_name);
  lua_setfield(L, -2, "released");
  lua_createtable(L, 0, 2);
  lua_pushnumber(L, m->wheel_x);
  lua_setfield(L, -2, "x");
  lua_pushnumber(L, m->wheel_y);
  lua_setfield(L, -2, "y");
  lua_setfield(L, -2, "wheel");
  lua_pushboolean(L, in->pointer_locked);
  lua_setfield(L, -2, "locked");
  return 1;
}

/* tycho.input.gamepad(i) -> {index=, name=, axes={leftx=, ...}, buttons={a=, ...},
 * pressed={...}, released={...}} or nil when pad i (1-based) is not connected */
static int input_gamepad(lua_State *L) {
  lua_Integer i = luaL_checkinteger(L, 1);
  if (i < 1) return luaL_argerror(L, 1, "gamepad index must be 1 or more");
  const ty_input_pad *p = i <= TY_INPUT_MAX_GAMEPADS ? ty_input_gamepad(state(L), (int)i - 1) : NULL;
  if (!p) {
    lua_pushnil(L);
    return 1;
  }
  lua_createtable(L, 0, 6);
  lua_pushinteger(L, i);
  lua_setfield(L, -2, "index");
  lua_pushstring(L, p->name);
  lua_setfield(L, -2, "name");
  lua_createtable(L, 0, TY_PAD_AXIS_COUNT);
  for (int a = 0; a < TY_PAD_AXIS_COUNT; a++) {
    lua_pushnumber(L, p->axes[a]);
    lua_setfield(L, -2, ty_pad_axis_name(a));
  }
  lua_setfield(L, -2, "axes");
  push_flags(L, p->buttons, TY_PAD_BUTTON_COUNT, ty_pad_button_name);
  lua_setfield(L, -2, "buttons");
  push_flags(L, p->pressed, TY_PAD_BUTTON_COUNT, ty_pad_button_name);
  lua_setfield(L, -2, "pressed");
  push_flags(L, p->released, TY_PAD_BUTTON_COUNT, ty_pad_button_name);
  lua_setfield(L, -2, "released");
  return 1;
}

/* tycho.input.setPointerLock(locked) -> whether the pointer is now as asked; false headless */
static int input_set_pointer_lock(lua_State *L) {
  luaL_checktype(L, 1, LUA_TBOOLEAN);
  lua_pushboolean(L, ty_input_set_pointer_lock(state(L), lua_toboolean(L, 1)));
  return 1;
}

static int input_begin_frame(lua_State *L) {
  ty_input_begin_frame(state(L));
  return 0;
}

static int input_reset(lua_State *L) {
  ty_input_reset(state(L));
  return 0;
}

/* ---- inject ---- */

/* Event fields are checked by hand: luaL_check* on a field would name its stack slot. */
static bool opt_number(lua_State *L, const char *field, float *out) {
  int t = lua_getfield(L, 1, field);
  if (t == LUA_TNIL) {
    lua_pop(L, 1);
    return false;
  }
  int isnum;
  lua_Number v = lua_tonumberx(L, -1, &isnum);
  if (!isnum) luaL_argerror(L, 1, lua_pushfstring(L, "'%s' must be a number, got %s", field, luaL_typename(L, -1)));
  lua_pop(L, 1);
  *out = (float)v;
  return true;
}

static float need_number(lua_State *L, const char *field) {
  float v = 0;
  if (!opt_number(L, field, &v)) luaL_argerror(L, 1, lua_pushfstring(L, "'%s' must be a number, got nil", field));
  return v;
}

/* A name field looked up in a table of names; dflt when absent (NULL: required). */
static int need_name(lua_State *L, const char *field, int (*lookup)(const char *), const char *dflt,
                     const char *choices) {
  const char *s = dflt;
  int t = lua_getfield(L, 1, field);
  if (t == LUA_TSTRING) s = lua_tostring(L, -1);
  else if (t != LUA_TNIL || !dflt)
    luaL_argerror(L, 1, lua_pushfstring(L, "'%s' must be one of %s, got %s", field, choices, luaL_typename(L, -1)));
  int v = lookup(s);
  if (v < 0) luaL_argerror(L, 1, lua_pushfstring(L, "'%s' must be one of %s, got '%s'", field, choices, s));
  lua_pop(L, 1);
  return v;
}

static const char mouse_choices[] = "left, right, middle, x1, x2";
static const char axis_choices[] = "leftx, lefty, rightx, righty, lefttrigger, righttrigger";
static const char button_choices[] =
    "a, b, x, y, back, guide, start, leftstick, rightstick, leftshoulder, rightshoulder, dpup, dpdown, dpleft, "
    "dpright, misc1, paddle1..paddle4, touchpad";

static void inject_key(lua_State *L, ty_input *in, ty_input_event *ev) {
  if (lua_getfield(L, 1, "key") != LUA_TSTRING)
    luaL_argerror(L, 1, lua_pushfstring(L, "'key' must be a key name (a string), got %s", luaL_typename(L, -1)));
  size_t len;
  ev->key = lua_tolstring(L, -1, &len);
  if (len == 0 || len >= TY_INPUT_KEY_NAME_MAX)
    luaL_argerror(L, 1, lua_pushfstring(L, "'key' must be a key name of 1 to %d characters", TY_INPUT_KEY_NAME_MAX - 1));
  lua_getfield(L, 1, "repeat");
  ev->repeat = lua_toboolean(L, -1);
  ty_input_inject(in, ev);
  lua_pop(L, 2);
}

static void inject_mouse_move(lua_State *L, ty_input *in, ty_input_event *ev) {
  float x = 0, y = 0, dx = 0, dy = 0;
  bool has_x = opt_number(L, "x", &x), has_y = opt_number(L, "y", &y);
  bool has_dx = opt_number(L, "dx", &dx), has_dy = opt_number(L, "dy", &dy);
  if (!has_x && !has_y && !has_dx && !has_dy) luaL_argerror(L, 1, "a mousemove event needs x, y or dx, dy");
  /* Position only: the motion is derived. Motion only (pointer lock): the position follows it. */
  ev->has_delta = has_dx || has_dy;
  ev->dx = dx;
  ev->dy = dy;
  ev->x = has_x ? x : in->mouse.x + dx;
  ev->y = has_y ? y : in->mouse.y + dy;
  if (!ty_input_inject(in, ev)) luaL_argerror(L, 1, "mousemove coordinates must be finite");
}

static void inject_gamepad(lua_State *L, ty_input *in, ty_input_event *ev) {
  if (lua_getfield(L, 1, "index") != LUA_TNUMBER || !lua_isinteger(L, -1))
    luaL_argerror(L, 1, lua_pushfstring(L, "'index' must be an integer gamepad index (1..%d)", TY_INPUT_MAX_GAMEPADS));
  lua_Integer index = lua_tointeger(L, -1);
  lua_pop(L, 1);
  if (index < 1 || index > TY_INPUT_MAX_GAMEPADS)
    luaL_argerror(L, 1, lua_pushfstring(L, "'index' must be in 1..%d, got %d", TY_INPUT_MAX_GAMEPADS, (int)index));
  ev->index = (int)index - 1;
  bool has_button = lua_getfield(L, 1, "button") != LUA_TNIL;
  bool has_axis = lua_getfield(L, 1, "axis") != LUA_TNIL;
  int connected = lua_getfield(L, 1, "connected");
  lua_pop(L, 3);
  if (has_button) {
    ev->type = TY_INPUT_PAD_BUTTON;
    ev->button = need_name(L, "button", ty_pad_button_from_name, NULL, button_choices);
    int t = lua_getfield(L, 1, "value");
    if (t == LUA_TNIL || t == LUA_TBOOLEAN) ev->value = (t == LUA_TNIL || lua_toboolean(L, -1)) ? 1.0f : 0.0f;
    else if (t == LUA_TNUMBER) ev->value = (float)lua_tonumber(L, -1);
    else luaL_argerror(L, 1, lua_pushfstring(L, "'value' of a button must be a boolean or a number, got %s", luaL_typename(L, -1)));
    lua_pop(L, 1);
  } else if (has_axis) {
    ev->type = TY_INPUT_PAD_AXIS;
    ev->axis = need_name(L, "axis", ty_pad_axis_from_name, NULL, axis_choices);
    ev->value = need_number(L, "value");
  } else if (connected != LUA_TNIL) {
    if (connected != LUA_TBOOLEAN) luaL_argerror(L, 1, "'connected' must be a boolean");
    lua_getfield(L, 1, "connected");
    bool on = lua_toboolean(L, -1);
    lua_getfield(L, 1, "name");
    ev->type = on ? TY_INPUT_PAD_CONNECT : TY_INPUT_PAD_DISCONNECT;
    ev->name = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    ty_input_inject(in, ev);
    lua_pop(L, 2);
    return;
  } else {
    luaL_argerror(L, 1, "a gamepad event needs 'button', 'axis' or 'connected'");
  }
  if (!ty_input_inject(in, ev)) luaL_argerror(L, 1, "gamepad 'value' must be a finite number");
}

/* tycho.input.inject(event): applies one synthetic event, as if SDL had delivered it. */
static int input_inject(lua_State *L) {
  ty_input *in = state(L);
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_settop(L, 1);
  if (lua_getfield(L, 1, "type") != LUA_TSTRING)
    return luaL_argerror(L, 1, lua_pushfstring(L, "'type' must be an event type (a string), got %s", luaL_typename(L, -1)));
  const char *type = lua_tostring(L, -1);
  ty_input_event ev = {0};
  if (strcmp(type, "keydown") == 0 || strcmp(type, "keyup") == 0) {
    ev.type = type[3] == 'd' ? TY_INPUT_KEY_DOWN : TY_INPUT_KEY_UP;
    inject_key(L, in, &ev);
  } else if (strcmp(type, "mousemove") == 0) {
    ev.type = TY_INPUT_MOUSE_MOVE;
    inject_mouse_move(L, in, &ev);
  } else if (strcmp(type, "mousedown") == 0 || strcmp(type, "mouseup") == 0) {
    ev.type = type[5] == 'd' ? TY_INPUT_MOUSE_DOWN : TY_INPUT_MOUSE_UP;
    ev.button = need_name(L, "button", ty_mouse_button_from_name, "left", mouse_choices);
    ty_input_inject(in, &ev);
  } else if (strcmp(type, "wheel") == 0) {
    ev.type = TY_INPUT_WHEEL;
    opt_number(L, "x", &ev.x);
    opt_number(L, "y", &ev.y);
    if (!ty_input_inject(in, &ev)) return luaL_argerror(L, 1, "wheel amounts must be finite");
  } else if (strcmp(type, "gamepad") == 0) {
    inject_gamepad(L, in, &ev);
  } else if (strcmp(type, "focuslost") == 0) {
    ev.type = TY_INPUT_FOCUS_LOST;
    ty_input_inject(in, &ev);
  } else if (strcmp(type, "text") == 0) {
    if (lua_getfield(L, 1, "text") != LUA_TSTRING)
      return luaL_argerror(L, 1, lua_pushfstring(L, "'text' must be a string, got %s", luaL_typename(L, -1)));
    size_t len;
    ev.text = lua_tolstring(L, -1, &len);
    if (!ty_utf8_valid(ev.text, len)) return luaL_argerror(L, 1, "'text' must be UTF-8 with no NUL bytes");
    ev.type = TY_INPUT_TEXT;
    ty_input_inject(in, &ev);
  } else {
    return luaL_argerror(L, 1, lua_pushfstring(L, "unknown event type '%s' (expected keydown, keyup, mousemove, "
                                                  "mousedown, mouseup, wheel, gamepad, focuslost or text)", type));
  }
  return 0;
}

void ty_open_input(lua_State *L) {
  static const luaL_Reg fns[] = {
      {"isDown", input_is_down},
      {"wasPressed", input_was_pressed},
      {"wasReleased", input_was_released},
      {"pressCount", input_press_count},
      {"textInput", input_text_input},
      {"editText", input_edit_text},
      {"startTextInput", input_start_text_input},
      {"stopTextInput", input_stop_text_input},
      {"isTextInputActive", input_is_text_input_active},
      {"injectText", input_inject_text},
      {"mouse", input_mouse},
      {"gamepad", input_gamepad},
      {"setPointerLock", input_set_pointer_lock},
      {"inject", input_inject},
      {"beginFrame", input_begin_frame},
      {"reset", input_reset},
      {NULL, NULL},
  };
  luaL_newlibtable(L, fns);
  ty_input *in = lua_newuserdatauv(L, sizeof *in, 0);
  ty_input_init(in);
  ty_ctx_get(L)->input = in;
  lua_pushvalue(L, -1);
  luaL_ref(L, LUA_REGISTRYINDEX); /* lives as long as the state, whatever becomes of tycho.input */
  luaL_setfuncs(L, fns, 1);
  lua_setfield(L, -2, "input");
}
