---@meta tycho.window
-- scripts/meta/window.lua: LuaLS annotations for tycho.window (bindings/lua_window.c over
-- engine/platform/window.c). Never loaded at run time; scripts/docs/render.md ("The
-- window") describes the module with an example.

---The window `tycho run` opened. Sizes are in screen units, the units of mouse
---coordinates. Headless every function still works: the title and size are remembered
---and the size is what frames render at.
---@class tycho.window
tycho.window = {}

---Sets the title bar's text.
---@param title string
function tycho.window.setTitle(title) end

---The title (default "tycho").
---@return string
function tycho.window.getTitle() end

---The window's size in screen units; headless, the headless size (1280 x 720 unless
---`tycho run --headless --width W --height H` or setSize changed it).
---@return integer width, integer height
function tycho.window.getSize() end

---Resizes the window; headless, sets the size frames render at. Each side in 1..16384.
---@param width integer
---@param height integer
function tycho.window.setSize(width, height) end

---The drawable's size in pixels: what frames render at (more than getSize on HiDPI).
---@return integer width, integer height
function tycho.window.getPixelSize() end

---Fullscreen at the desktop's resolution, or back to a window. Returns whether the window
---is now as asked (always false headless).
---@param fullscreen boolean
---@return boolean
function tycho.window.setFullscreen(fullscreen) end

---Whether the window is fullscreen (false headless).
---@return boolean
function tycho.window.getFullscreen() end

---Whether there is a window (false headless).
---@return boolean
function tycho.window.isOpen() end
