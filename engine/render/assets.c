/* engine/render/assets.c: meshes and textures loaded from files into the registry, and
 * hot reload: a changed file is loaded again in place, keeping the last good copy when
 * the new one is bad. */
#include "render_core.h"

#include <limits.h> /* Required for: PATH_MAX */
#include <stdlib.h> /* Required for: realpath */
#include <string.h>

#include "../platform/platform.h" /* Required for: ty_image_load */

uint32_t ty_render_load_mesh(ty_renderer *R, const char *path, bool *ok) {
  ty_mesh_data m;
  char err[1024];
  if (!ty_mesh_load(path, &m, err, sizeof err)) {
    ty_render_fail(R, "mesh_load_failed", "%s", err);
    if (ok) *ok = false;
    return TY_RENDER_MESH_PLACEHOLDER;
  }
  uint32_t id = ty_render_add_mesh(R, &m, path);
  ty_mesh_free(&m);
  R->meshes[id].path = ty_render_strdup(path);
  if (ok) *ok = true;
  return id;
}

/* Two spellings of one file ("./a.png", "/game/a.png") are the same when both resolve. */
static bool same_file(const char *a, const char *b) {
  if (!a || !b) return false;
  if (strcmp(a, b) == 0) return true;
  char ra[PATH_MAX], rb[PATH_MAX];
  return realpath(a, ra) && realpath(b, rb) && strcmp(ra, rb) == 0;
}

int ty_render_reload_file(ty_renderer *R, const char *path) {
  TY_ASSERT(path);
  int reloaded = 0;
  for (uint32_t i = 0; i < R->texture_count; i++) {
    tex_rec *t = &R->textures[i];
    if (!same_file(t->path, path)) continue;
    int w = 0, h = 0;
    uint8_t *px = ty_image_load(path, &w, &h);
    if (!px) {
      ty_render_fail(R, "texture_reload_failed", "%s: cannot load the image; keeping the last one", path);
      return -1;
    }
    size_t bytes = (size_t)w * (size_t)h * 4;
    uint8_t *copy = TY_MALLOC(bytes);
    TY_ASSERT(copy);
    memcpy(copy, px, bytes);
    ty_image_free(px);
    TY_FREE(t->pixels);
    t->pixels = copy;
    t->width = (uint32_t)w, t->height = (uint32_t)h;
    if (R->dev && t->gl.id) ty_gl_destroy_texture(R->dev, t->gl);
    t->gl.id = 0; /* made again, from the new pixels, on its next use */
    reloaded++;
  }
  for (uint32_t i = 0; i < R->mesh_count; i++) {
    if (!same_file(R->meshes[i].path, path)) continue;
    ty_mesh_data m;
    char err[1024];
    if (!ty_mesh_load(path, &m, err, sizeof err)) {
      ty_render_fail(R, "mesh_reload_failed", "%s; keeping the last mesh", err);
      return -1;
    }
    ty_render_update_mesh(R, i, &m);
    ty_mesh_free(&m);
    reloaded++;
  }
  return reloaded;
}


uint32_t ty_render_load_texture(ty_renderer *R, const char *path, bool *ok) {
  TY_ASSERT(path);
  for (uint32_t i = 0; i < R->texture_count; i++) {
    if (R->textures[i].path && !strcmp(R->textures[i].path, path)) {
      if (ok) *ok = true;
      return i;
    }
  }
  int w = 0, h = 0;
  uint8_t *px = ty_image_load(path, &w, &h);
  if (!px) {
    ty_render_fail(R, "texture_load_failed", "%s: cannot load the image; drawing the placeholder", path);
    if (ok) *ok = false;
    return TY_RENDER_TEXTURE_PLACEHOLDER;
  }
  uint32_t id = ty_render_add_texture(R, (uint32_t)w, (uint32_t)h, px, path);
  ty_image_free(px);
  R->textures[id].path = ty_render_strdup(path);
  if (ok) *ok = true;
  return id;
}
