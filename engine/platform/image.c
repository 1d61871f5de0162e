/* engine/platform/image.c: PNG writing for screenshots and image decoding for textures,
 * through Debian's libstb-dev headers. The stb implementations are compiled here, once,
 * and kept static so they never clash with another copy (libstb.so, a dependency's). */
#include "platform.h"

#include <errno.h>
#include <string.h>

#include "../common.h"

/* Kept static, stb declares a few functions it never defines under these options; GCC
 * reports those at the end of the file, so the warning stays off for the rest of it. */
#pragma GCC diagnostic ignored "-Wunused-function"
#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h> /* Required for: stbi_write_png */

#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#define STBI_ONLY_JPEG
#define STBI_ONLY_TGA
#define STBI_ONLY_BMP
#include <stb/stb_image.h> /* Required for: stbi_load, stbi_failure_reason */

bool ty_image_write_png(const char *path, int width, int height, const uint8_t *rgba) {
  TY_ASSERT(path && rgba);
  if (width <= 0 || height <= 0) {
    ty_log("image_write_failed", "%s: bad size %dx%d", path, width, height);
    return false;
  }
  errno = 0;
  if (!stbi_write_png(path, width, height, 4, rgba, width * 4)) {
    ty_log("image_write_failed", "%s: %s", path, errno ? strerror(errno) : "cannot write the PNG");
    return false;
  }
  return true;
}

uint8_t *ty_image_load(const char *path, int *width, int *height) {
  TY_ASSERT(path && width && height);
  int channels = 0;
  uint8_t *pixels = stbi_load(path, width, height, &channels, 4);
  if (!pixels) ty_log("image_load_failed", "%s: %s", path, stbi_failure_reason());
  return pixels;
}

void ty_image_free(uint8_t *pixels) { stbi_image_free(pixels); }
