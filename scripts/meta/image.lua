---@meta tycho.image
-- scripts/meta/image.lua: LuaLS annotations for tycho.image (bindings/lua_image.c over
-- the platform's stb image files). Never loaded at run time; scripts/docs/reference.md
-- lists it under Testing.

---A decoded image: RGBA8 pixels as one string, top row first.
---@class tycho.Image
---@field width integer
---@field height integer
---@field pixels string width * height * 4 bytes

---@class tycho.image
tycho.image = {}

---Decodes a PNG, JPEG, TGA or BMP file.
---@param path string
---@return tycho.Image|nil image
---@return string? message when the file cannot be read or decoded
function tycho.image.load(path) end

---Writes RGBA8 pixels (width * height * 4 bytes, top row first) as a PNG file.
---@param path string
---@param width integer
---@param height integer
---@param pixels string
---@return true|nil ok
---@return string? message when the file cannot be written
function tycho.image.save(path, width, height, pixels) end
