/* engine/render/lifetime.c: the renderer's life: creation with its built-in mesh, textures
 * and material, attaching a device (and the render graph that goes with it), and
 * destruction. It stands above every part that holds memory or GPU objects (the registry,
 * items, frame memory, programs, the GPU side, the features, the engine's fonts), so that
 * those parts, which all report through renderer.c, never call back up into it. */
#include "render_core.h"

#include <string.h>

/* ---- creation ----------------------------------------------------------------------- */

static void add_builtin_texture(ty_renderer *R, uint32_t w, uint32_t h, const uint8_t *px, const char *name) {
  uint32_t id = ty_render_add_texture(R, w, h, px, name);
  (void)id;
}

ty_renderer *ty_render_create(const ty_render_desc *desc) {
  TY_ASSERT(desc && desc->world);
  ty_renderer *R = TY_MALLOC(sizeof *R);
  TY_ASSERT(R);
  memset(R, 0, sizeof *R);
  R->world = desc->world;
  R->shader_dir = desc->shader_dir ? ty_render_strdup(desc->shader_dir) : ty_render_find_shader_dir();
  R->bucket = ty_bucket_create(&(ty_bucket_desc){.instance_bytes = 32});
  R->graph = rg_create(NULL);

  ty_mesh_data cube;
  ty_mesh_cube(&cube);
  ty_render_add_mesh(R, &cube, "placeholder");
  ty_mesh_free(&cube);

  static const uint8_t white[4] = {255, 255, 255, 255};
  add_builtin_texture(R, 1, 1, white, "white");
  uint8_t checker[8 * 8 * 4];
  for (int y = 0; y < 8; y++)
    for (int x = 0; x < 8; x++) {
      bool m = ((x ^ y) & 1) == 0;
      uint8_t *p = checker + (y * 8 + x) * 4;
      p[0] = m ? 255 : 0, p[1] = 0, p[2] = m ? 255 : 0, p[3] = 255;
    }
  add_builtin_texture(R, 8, 8, checker, "placeholder");

  ty_material def = ty_material_default();
  ty_render_add_material(R, &def);
  return R;
}

void ty_render_destroy(ty_renderer *R) {
  if (!R) return;
  ty_render_attach(R, NULL);
  rg_destroy(R->graph);
  ty_bucket_destroy(R->bucket);
  ty_render_programs_free(R);
  ty_render_frame_memory_free(R);
  ty_render_registry_free(R);
  ty_render_items_free(R);
  TY_FREE(R->fbs); /* the framebuffer cache (submit.c); its GL objects went with the device */
  TY_FREE(R->dump);
  ty_render_engine_fonts_free(R);
  TY_FREE(R->shader_dir);
  TY_FREE(R);
}

/* ---- the device ---------------------------------------------------------------------- */

void ty_render_attach(ty_renderer *R, ty_gl_device *dev) {
  if (R->dev == dev) return;
  if (R->dev) {
    ty_feature_release_all(R); /* what features keep on the device, then the renderer's own */
    ty_render_gpu_release(R);
    ty_render_pass_clock_release(R);
  }
  R->dev = dev;
  /* The graph's pool belongs to one backend: a new device gets a new graph. */
  rg_destroy(R->graph);
  if (dev) {
    rg_backend be = ty_gl_graph_backend(dev);
    R->graph = rg_create(
        &(rg_graph_desc){.backend = be, .pass_begin = ty_render_pass_begin, .pass_end = ty_render_pass_end, .pass_user = R});
  } else {
    R->graph = rg_create(NULL);
  }
  R->frame_open = false;
}
