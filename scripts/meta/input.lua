---@meta tycho.input
-- scripts/meta/input.lua: LuaLS annotations for tycho.input (bindings/lua_input.c over
-- engine/platform/input.c). Never loaded at run time; scripts/docs/input.md describes the
-- module with examples.

---A key name as SDL writes it (SDL_GetKeyName), compared without case: "w", "space",
---"left shift", "right ctrl", "return", "escape", "tab", "backspace", "up", "down", "left",
---"right", "f1".."f12", "keypad 5", "1".."9", "0".
---@alias tycho.input.Key string

---@alias tycho.input.MouseButton "left"|"right"|"middle"|"x1"|"x2"

---@alias tycho.input.PadButton "a"|"b"|"x"|"y"|"back"|"guide"|"start"|"leftstick"|"rightstick"|"leftshoulder"|"rightshoulder"|"dpup"|"dpdown"|"dpleft"|"dpright"|"misc1"|"paddle1"|"paddle2"|"paddle3"|"paddle4"|"touchpad"

---@alias tycho.input.PadAxis "leftx"|"lefty"|"rightx"|"righty"|"lefttrigger"|"righttrigger"

---One flag per mouse button.
---@class tycho.input.MouseButtons
---@field left boolean
---@field right boolean
---@field middle boolean
---@field x1 boolean
---@field x2 boolean

---The mouse as this frame sees it (a new table each call).
---@class tycho.input.Mouse
---@field x number position in window pixels from the left
---@field y number position in window pixels from the top
---@field dx number motion since the last beginFrame (also under pointer lock)
---@field dy number motion since the last beginFrame, positive downward
---@field buttons tycho.input.MouseButtons held now
---@field pressed tycho.input.MouseButtons went down since the last beginFrame
---@field released tycho.input.MouseButtons went up since the last beginFrame
---@field wheel {x: number, y: number} scrolling since the last beginFrame (y > 0: away from the user)
---@field locked boolean whether pointer lock is on

---A connected gamepad (a new table each call).
---@class tycho.input.Gamepad
---@field index integer 1-based, as passed to gamepad(i)
---@field name string the controller's name ("Gamepad N" for an injected one)
---@field axes table<tycho.input.PadAxis, number> sticks in -1..1 (y down is positive), triggers in 0..1
---@field buttons table<tycho.input.PadButton, boolean> held now
---@field pressed table<tycho.input.PadButton, boolean> went down since the last beginFrame
---@field released table<tycho.input.PadButton, boolean> went up since the last beginFrame

---A synthetic event for inject. By type:
--- - `keydown` / `keyup`: `key` (required), `repeat` (keydown: an auto-repeat, no new press)
--- - `mousemove`: `x`, `y` (absolute; dx, dy derived) and/or `dx`, `dy` (relative; the position follows)
--- - `mousedown` / `mouseup`: `button` (default "left")
--- - `wheel`: `x`, `y` (default 0)
--- - `gamepad`: `index` (1-based, required) and one of `button` + `value` (boolean or number >= 0.5;
---   default true), `axis` + `value` (number, clamped to -1..1), `connected` (+ `name`)
--- - `focuslost`: releases every key and mouse button
--- - `text`: `text` (required, UTF-8): typed text, as injectText
---@class tycho.input.Event
---@field type "keydown"|"keyup"|"mousemove"|"mousedown"|"mouseup"|"wheel"|"gamepad"|"focuslost"|"text"
---@field key? tycho.input.Key
---@field repeat? boolean
---@field x? number
---@field y? number
---@field dx? number
---@field dy? number
---@field button? tycho.input.MouseButton|tycho.input.PadButton
---@field axis? tycho.input.PadAxis
---@field value? number|boolean
---@field index? integer
---@field connected? boolean
---@field name? string
---@field text? string

---Keyboard, mouse, gamepads and typed text, sampled once per frame. State (held keys,
---position, axes) follows events at once; edges (wasPressed, wasReleased, pressCount, dx/dy,
---wheel, the frame's text) last from one beginFrame to the next. One input state per Lua state.
---@class tycho.input
tycho.input = {}

---Whether the key is held now.
---@param key tycho.input.Key
---@return boolean
function tycho.input.isDown(key) end

---Whether the key went down since the last beginFrame (auto-repeats do not count).
---@param key tycho.input.Key
---@return boolean
function tycho.input.wasPressed(key) end

---Whether the key went up since the last beginFrame.
---@param key tycho.input.Key
---@return boolean
function tycho.input.wasReleased(key) end

---How many times the key went down since the last beginFrame, auto-repeats included.
---@param key tycho.input.Key
---@return integer
function tycho.input.pressCount(key) end

---Turns text input on (SDL_StartTextInput): from now on typed text arrives (textInput) and
---backspaces are kept for editText. Off until asked, so an IME never composes out of
---gameplay keys. x, y, w, h (window pixels, as mouse()) are where the text field is drawn:
---the IME puts its candidate window beside it; calling again while on moves it. Give all
---four or none.
---@param x? number
---@param y? number
---@param w? number
---@param h? number
function tycho.input.startTextInput(x, y, w, h) end

---Turns text input off (SDL_StopTextInput): no text arrives until startTextInput.
function tycho.input.stopTextInput() end

---Whether text input is on.
---@return boolean
function tycho.input.isTextInputActive() end

---The text typed since the last beginFrame: SDL_TEXTINPUT events in order, UTF-8, with the
---keyboard layout, Shift and the IME applied; "" when none. Read this for text, never keys.
---@return string
function tycho.input.textInput() end

---`text` with this frame's typing applied in the order it came: the text appended, each
---backspace pressed while text input is on (auto-repeats included) removing one UTF-8
---character, not one byte. Typing stops at the first character that would pass maxChars
---characters or maxBytes bytes (nil or 0: no limit) until a backspace makes room.
---@param text string
---@param maxChars? integer
---@param maxBytes? integer
---@return string
function tycho.input.editText(text, maxChars, maxBytes) end

---Feeds typed text as the window would (headless runs, specs). Returns whether it was
---kept: false while text input is off (a window's text is dropped then too) or when the
---frame's 1024 bytes are full. Raises `bad argument #1 to 'injectText'` for a non-string or
---text that is not UTF-8 (or holds a NUL byte).
---@param text string
---@return boolean
function tycho.input.injectText(text) end

---The mouse: position, motion and wheel this frame, buttons.
---@return tycho.input.Mouse
function tycho.input.mouse() end

---Turns pointer lock (relative mouse mode: hidden cursor, motion as dx, dy) on or off.
---Returns whether the pointer is now as asked; always false without a window.
---@param locked boolean
---@return boolean
function tycho.input.setPointerLock(locked) end

---Gamepad i (1-based, up to 4), or nil when none is connected there.
---@param i integer
---@return tycho.input.Gamepad|nil
function tycho.input.gamepad(i) end

---Applies a synthetic event as if the window had delivered it (headless runs, specs).
---Raises `bad argument #1 to 'inject'` for an unknown type or a bad field.
---@param event tycho.input.Event
function tycho.input.inject(event) end

---The per-frame sample point: clears the edges (wasPressed, wasReleased, pressCount, mouse
---dx/dy, pressed/released, wheel) and the frame's text. The engine's run loop calls it once per frame; specs call it to
---step frames.
function tycho.input.beginFrame() end

---Forgets every key, button, axis, pad and the frame's text; without a window text input
---goes off too (specs call it in before_each).
function tycho.input.reset() end
