/* bindings/lua_render.c: the Lua face of engine/render/renderer.h: the engine side.
 *
 * Public names: tycho.stats.render, passTimes, timePasses. The components, features and
 * presets are Lua (scripts/tycho/render.lua, scripts/tycho/presets/) over the private table
 * tycho._render this file fills: item and light slots, a frame's begin and end, the
 * built-in features' options parsed once into a userdata, and the Camera's screen <-> world
 * conversions (engine/render/camera.h). The assets (tycho.mesh, texture, material) are
 * lua_render_assets.c; the Frame and RenderGraph a feature's addPasses sees are
 * lua_render_graph.c; the option readers all three use are lua_render_state.c. This file
 * opens the binding and wires the two others.
 *
 * One renderer per Lua state, made headless when the host opens the binding and kept in
 * the state's context; the run loop gives it a window (ty_lua_render_set_window). */
#include "lua_render.h"
#include "lua_render_state.h"

#include <string.h>

#include "lua_scene.h" /* Required for: ty_lctx_get, ty_check_gameobject */
#include "lua_window.h" /* Required for: ty_lua_window, ty_lua_window_frame_size */
#include "render/camera.h" /* Required for: ty_camera_view */

#define TY_FEATURE_OPTS "FeatureOptions"

typedef struct lfeature {
  ty_feature_kind kind;
  ty_feature_opts opts; /* overlay.text points into the userdata's user value */
} lfeature;

ty_renderer *ty_lua_renderer(lua_State *L) { return lr_get(L)->R; }

ty_window *ty_lua_render_window(lua_State *L) { return ty_lua_window(L); }

bool ty_lua_render_set_window(lua_State *L, ty_window *w) {
  lrender *lr = lr_get(L);
  if (lr->dev) {
    ty_render_attach(lr->R, NULL);
    ty_gl_destroy(lr->dev);
    lr->dev = NULL;
  }
  ty_lua_window_set(L, NULL);
  if (!w) return true;
  /* ty_gl_create logs gl_unavailable itself when the context is missing or too old. */
  lr->dev = ty_gl_create(NULL);
  if (!lr->dev) return false;
  ty_lua_window_set(L, w);
  ty_render_attach(lr->R, lr->dev);
  return true;
}
/* ---- helpers ---- */

static int render_gc(lua_State *L) {
  lrender *lr = lua_touserdata(L, 1);
  if (!lr->R) return 0;
  lr_release_passes(L, lr);
  TY_FREE(lr->passes);
  lr->passes = NULL;
  /* The renderer frees its GPU resources through the device, so the device goes last. */
  ty_render_destroy(lr->R);
  lr->R = NULL;
  ty_gl_destroy(lr->dev);
  lr->dev = NULL;
  return 0;
}

/* ---- items and lights (tycho._render) ---- */

static ty_render_item *check_item(lua_State *L, lrender *lr, int idx) {
  lua_Integer slot = luaL_checkinteger(L, idx);
  ty_render_item *it = slot >= 0 && slot <= UINT32_MAX ? ty_render_item_at(lr->R, (uint32_t)slot) : NULL;
  if (!it) luaL_error(L, "render item %I is not live", slot);
  return it;
}

/* _render.itemCreate(gameObject) -> slot */
static int r_item_create(lua_State *L) {
  ty_id id = ty_check_gameobject(L, 1);
  lua_pushinteger(L, ty_render_item_create(lr_get(L)->R, id));
  return 1;
}

static int r_item_destroy(lua_State *L) {
  lrender *lr = lr_get(L);
  check_item(L, lr, 1);
  ty_render_item_destroy(lr->R, (uint32_t)lua_tointeger(L, 1));
  return 0;
}

/* _render.itemSet(slot, field, value...): mesh, material, enabled, castShadows, tint (r, g,
 * b, a), rect (x, y, w, h). */
static int r_item_set(lua_State *L) {
  lrender *lr = lr_get(L);
  ty_render_item *it = check_item(L, lr, 1);
  const char *k = luaL_checkstring(L, 2);
  if (strcmp(k, "mesh") == 0) it->mesh = lua_isnil(L, 3) ? TY_RENDER_MESH_PLACEHOLDER : ty_check_mesh(L, 3);
  else if (strcmp(k, "material") == 0)
    it->material = lua_isnil(L, 3) ? TY_RENDER_MATERIAL_DEFAULT : ty_check_material(L, 3);
  else if (strcmp(k, "enabled") == 0) it->enabled = lua_toboolean(L, 3);
  else if (strcmp(k, "castShadows") == 0) it->cast_shadows = lua_toboolean(L, 3);
  else if (strcmp(k, "tint") == 0 || strcmp(k, "rect") == 0) {
    float *dst = k[0] == 't' ? it->tint : it->rect;
    for (int i = 0; i < 4; i++) dst[i] = (float)luaL_checknumber(L, 3 + i);
  } else return luaL_argerror(L, 2, "unknown item field");
  return 0;
}

static ty_light *check_light(lua_State *L, lrender *lr, int idx) {
  lua_Integer slot = luaL_checkinteger(L, idx);
  ty_light *l = slot >= 0 && slot <= UINT32_MAX ? ty_render_light_at(lr->R, (uint32_t)slot) : NULL;
  if (!l) luaL_error(L, "light %I is not live", slot);
  return l;
}

/* _render.lightCreate(gameObject, "directional"|"point"|"spot") -> slot */
static int r_light_create(lua_State *L) {
  ty_id id = ty_check_gameobject(L, 1);
  static const char *const types[] = {"directional", "point", "spot", NULL};
  int t = luaL_checkoption(L, 2, NULL, types);
  lua_pushinteger(L, ty_render_light_create(lr_get(L)->R, id, (ty_light_type)t));
  return 1;
}

static int r_light_destroy(lua_State *L) {
  lrender *lr = lr_get(L);
  check_light(L, lr, 1);
  ty_render_light_destroy(lr->R, (uint32_t)lua_tointeger(L, 1));
  return 0;
}

/* _render.lightSet(slot, field, value...): enabled, castShadows, color (r, g, b), intensity,
 * range, innerAngle, outerAngle, direction (x, y, z; nil: the object's -Z). */
static int r_light_set(lua_State *L) {
  lrender *lr = lr_get(L);
  ty_light *l = check_light(L, lr, 1);
  const char *k = luaL_checkstring(L, 2);
  if (strcmp(k, "enabled") == 0) l->enabled = lua_toboolean(L, 3);
  else if (strcmp(k, "castShadows") == 0) l->cast_shadows = lua_toboolean(L, 3);
  else if (strcmp(k, "color") == 0) {
    for (int i = 0; i < 3; i++) l->color[i] = (float)luaL_checknumber(L, 3 + i);
  } else if (strcmp(k, "direction") == 0) {
    l->has_direction = !lua_isnil(L, 3);
    if (l->has_direction)
      for (int i = 0; i < 3; i++) l->direction[i] = (float)luaL_checknumber(L, 3 + i);
  } else if (strcmp(k, "intensity") == 0) l->intensity = (float)luaL_checknumber(L, 3);
  else if (strcmp(k, "range") == 0) l->range = (float)luaL_checknumber(L, 3);
  else if (strcmp(k, "innerAngle") == 0) l->inner_angle = (float)luaL_checknumber(L, 3);
  else if (strcmp(k, "outerAngle") == 0) l->outer_angle = (float)luaL_checknumber(L, 3);
  else return luaL_argerror(L, 2, "unknown light field");
  return 0;
}

/* _render.readColor(value, n) -> r, g, b[, a] or nothing: the components share the colour
 * shapes materials accept. */
static int r_read_color(lua_State *L) {
  int n = (int)luaL_optinteger(L, 2, 4);
  float c[4] = {1, 1, 1, 1};
  if (n != 3) n = 4;
  if (!lr_read_color(L, 1, c, n)) return 0;
  for (int i = 0; i < n; i++) lua_pushnumber(L, c[i]);
  return n;
}
/* _render.beginFrame{width=, height=, camera=GameObject|nil, orthographic=, fov=, size=,
 * near=, far=, time=, delta=, jitter=, scene=Scene|nil} -> Frame; with a scene, only its
 * objects draw and light. */
static int r_begin_frame(lua_State *L) {
  lrender *lr = lr_get(L);
  /* a pass's execute calling engine:frame() would free the pass that is running */
  if (lr->executing) return luaL_error(L, "beginFrame: a frame is executing (engine:frame() called from a pass?)");
  luaL_checktype(L, 1, LUA_TTABLE);
  ty_frame_desc d = {0};
  int w, h;
  ty_lua_window_frame_size(L, &w, &h);
  d.width = (uint32_t)lr_opt_number(L, 1, "width", (float)w, "beginFrame");
  d.height = (uint32_t)lr_opt_number(L, 1, "height", (float)h, "beginFrame");
  if (!d.width) d.width = 1;
  if (!d.height) d.height = 1;
  lua_getfield(L, 1, "camera");
  d.camera.object = ty_opt_gameobject(L, -1);
  lua_pop(L, 1);
  d.camera.orthographic = lr_opt_bool(L, 1, "orthographic", false);
  d.camera.fov_deg = lr_opt_number(L, 1, "fov", 60, "beginFrame");
  d.camera.size = lr_opt_number(L, 1, "size", 5, "beginFrame");
  d.camera.near_plane = lr_opt_number(L, 1, "near", 0.1f, "beginFrame");
  d.camera.far_plane = lr_opt_number(L, 1, "far", 1000, "beginFrame");
  lua_getfield(L, 1, "time");
  d.time = lua_tonumber(L, -1);
  lua_pop(L, 1);
  d.delta = lr_opt_number(L, 1, "delta", 0, "beginFrame");
  d.jitter = lr_opt_bool(L, 1, "jitter", false);
  if (lua_getfield(L, 1, "scene") != LUA_TNIL) d.scene = ty_check_scene(L, -1)->scene;
  lua_pop(L, 1);

  lr_release_passes(L, lr);
  /* The failures list and the frame's field table are kept and emptied, not made anew;
   * only the graph is new each frame, so a graph kept from an earlier frame is refused. */
  lua_rawgeti(L, LUA_REGISTRYINDEX, lr->failures_ref);
  for (lua_Integer i = (lua_Integer)lua_rawlen(L, -1); i > 0; i--) {
    lua_pushnil(L);
    lua_rawseti(L, -2, i);
  }
  lua_pop(L, 1);
  lr->serial++;
  lr->F = ty_render_begin_frame(lr->R, &d);
  lr->in_frame = true;

  lr_push_frame(L, lr);
  return 1;
}

static void parse_feature_opts(lua_State *L, int idx, lfeature *f) {
  ty_feature_opts *o = &f->opts;
  const char *what = ty_feature_name(f->kind);
  switch (f->kind) {
  case TY_FEATURE_SHADOW:
    o->shadow.cascades = (uint32_t)lr_opt_number(L, idx, "cascades", 0, what);
    if (o->shadow.cascades > TY_RENDER_MAX_CASCADES) luaL_error(L, "Shadow: at most %d cascades", TY_RENDER_MAX_CASCADES);
    o->shadow.size = (uint32_t)lr_opt_number(L, idx, "size", 0, what);
    o->shadow.distance = lr_opt_number(L, idx, "distance", 0, what);
    o->shadow.bias = lr_opt_number(L, idx, "bias", 0, what);
    break;
  case TY_FEATURE_SKY: {
    static const char *const kinds[] = {"none", "color", "texture", "atmosphere", NULL};
    o->sky.kind = TY_SKY_COLOR;
    if (lua_getfield(L, idx, "kind") != LUA_TNIL) {
      const char *k = lua_tostring(L, -1);
      int found = -1;
      for (int i = 0; k && kinds[i]; i++)
        if (strcmp(k, kinds[i]) == 0) found = i;
      if (found < 0) luaL_error(L, "Sky: 'kind' must be \"none\", \"color\", \"texture\" or \"atmosphere\"");
      o->sky.kind = (ty_sky_kind)found;
    }
    lua_pop(L, 1);
    o->sky.color[0] = 0.5f, o->sky.color[1] = 0.7f, o->sky.color[2] = 1.0f;
    o->sky.has_color = lr_opt_color(L, idx, "color", o->sky.color, 3, what);
    if (lua_getfield(L, idx, "texture") != LUA_TNIL) {
      if (!ty_test_texture(L, -1)) luaL_error(L, "Sky: 'texture' must be a Texture");
      o->sky.texture = *(uint32_t *)lua_touserdata(L, -1);
    }
    lua_pop(L, 1);
    o->sky.intensity = lr_opt_number(L, idx, "intensity", 0, what);
    break;
  }
  case TY_FEATURE_FORWARD_LIT:
  case TY_FEATURE_FORWARD_OVERLAY:
  case TY_FEATURE_FORWARD_PLUS:
  case TY_FEATURE_DEFERRED_LIGHTING:
    o->lit.ibl = lr_opt_bool(L, idx, "ibl", false);
    o->lit.forward_plus = lr_opt_bool(L, idx, "forwardPlus", false);
    o->lit.has_ambient = lr_opt_color(L, idx, "ambient", o->lit.ambient, 3, what);
    break;
  case TY_FEATURE_AO:
    o->ao.radius = lr_opt_number(L, idx, "radius", 0, what);
    o->ao.intensity = lr_opt_number(L, idx, "intensity", 0, what);
    o->ao.samples = (uint32_t)lr_opt_number(L, idx, "samples", 0, what);
    o->ao.full_resolution = lr_opt_bool(L, idx, "fullResolution", false);
    break;
  case TY_FEATURE_TAA: o->taa.blend = lr_opt_number(L, idx, "blend", 0, what); break;
  case TY_FEATURE_BLOOM:
    o->bloom.threshold = lr_opt_number(L, idx, "threshold", 0, what);
    o->bloom.intensity = lr_opt_number(L, idx, "intensity", 0, what);
    break;
  case TY_FEATURE_DOF:
    o->dof.focus = lr_opt_number(L, idx, "focus", 0, what);
    o->dof.range = lr_opt_number(L, idx, "range", 0, what);
    o->dof.max_radius = lr_opt_number(L, idx, "maxRadius", 0, what);
    break;
  case TY_FEATURE_TONEMAP:
  {
    static const char *const modes[] = {"auto", "aces", "reinhard", "none", NULL};
    o->tonemap.exposure = lr_opt_number(L, idx, "exposure", 1, what);
    o->tonemap.aces = lr_opt_bool(L, idx, "aces", true);
    o->tonemap.mode = TY_TONEMAP_AUTO;
    if (lua_getfield(L, idx, "mode") != LUA_TNIL) {
      const char *m = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
      int found = -1;
      for (int i = 0; m && modes[i]; i++)
        if (strcmp(m, modes[i]) == 0) found = i;
      if (found < 0) luaL_error(L, "Tonemap: 'mode' must be \"auto\", \"aces\", \"reinhard\" or \"none\"");
      o->tonemap.mode = (ty_tonemap_mode)found;
    }
    lua_pop(L, 1);
    break;
  }
  case TY_FEATURE_OVERLAY: {
    static const char *const corners[] = {"bottom-right", "bottom-left", "top-right", "top-left", NULL};
    lua_getfield(L, idx, "corner");
    if (!lua_isnil(L, -1)) {
      const char *c = lua_tostring(L, -1);
      int i = 0;
      while (corners[i] && (!c || strcmp(corners[i], c) != 0)) i++;
      if (!corners[i])
        luaL_error(L, "%s: corner must be \"bottom-right\", \"bottom-left\", \"top-right\" or \"top-left\", got %s",
                   what, c ? c : luaL_typename(L, -1));
      o->overlay.corner = (ty_overlay_corner)i;
    }
    lua_pop(L, 1);
    break;
  }
  default: break;
  }
}

/* _render.featureOptions(kindName, opts) -> FeatureOptions: parsed once, used every frame. */
static int r_feature_options(lua_State *L) {
  ty_feature_kind kind;
  if (!ty_feature_find(luaL_checkstring(L, 1), &kind))
    return luaL_argerror(L, 1, lua_pushfstring(L, "invalid option '%s'", lua_tostring(L, 1)));
  if (!lua_isnoneornil(L, 2)) luaL_checktype(L, 2, LUA_TTABLE);
  else {
    lua_settop(L, 1);
    lua_newtable(L);
  }
  lfeature *f = lua_newuserdatauv(L, sizeof *f, 1);
  memset(f, 0, sizeof *f);
  f->kind = (ty_feature_kind)kind;
  luaL_setmetatable(L, TY_FEATURE_OPTS);
  parse_feature_opts(L, 2, f);
  if (f->kind == TY_FEATURE_OVERLAY && lua_getfield(L, 2, "text") == LUA_TSTRING) {
    f->opts.overlay.text = lua_tostring(L, -1);
    lua_setiuservalue(L, -2, 1); /* keeps the string alive as long as the options */
  }
  lua_settop(L, 3);
  return 1;
}

/* _render.addFeature(options) -> true, or false, message */
static int r_add_feature(lua_State *L) {
  lrender *lr = lr_get(L);
  lfeature *f = luaL_checkudata(L, 1, TY_FEATURE_OPTS);
  if (!lr->in_frame) return luaL_error(L, "features add passes only while a frame is being built");
  if (ty_render_add_feature(lr->R, lr->F, f->kind, &f->opts)) {
    lua_pushboolean(L, 1);
    return 1;
  }
  lua_pushboolean(L, 0);
  lua_pushstring(L, ty_render_error(lr->R));
  return 2;
}

/* _render.setOwner(feature|nil): passes added from now on belong to feature. */
static int r_set_owner(lua_State *L) {
  lrender *lr = lr_get(L);
  luaL_unref(L, LUA_REGISTRYINDEX, lr->owner_ref);
  lua_settop(L, 1);
  lr->owner_ref = lua_isnil(L, 1) ? LUA_NOREF : luaL_ref(L, LUA_REGISTRYINDEX);
  return 0;
}

/* _render.endFrame() -> ok, message|nil, failures ({{pass=, message=, owner=}}) */
static int r_end_frame(lua_State *L) {
  lrender *lr = lr_get(L);
  if (!lr->in_frame) return luaL_error(L, "endFrame without beginFrame");
  lr->in_frame = false;
  lr->executing = true;
  bool ok = ty_render_end_frame(lr->R, lr->F);
  lr->executing = false;
  lua_pushboolean(L, ok);
  if (ok) lua_pushnil(L);
  else lua_pushstring(L, ty_render_error(lr->R));
  lua_rawgeti(L, LUA_REGISTRYINDEX, lr->failures_ref);
  return 3;
}

/* ---- screen <-> world through a camera (Camera:worldToScreen and friends) ---- */

/* Reads _render.camera*(go, orthographic, fov, size, near, far, width, height, ...): the
 * Camera component's fields and the screen it is measured against. */
static void check_camera_view(lua_State *L, ty_camera_view *v) {
  ty_id id = ty_check_gameobject(L, 1);
  ty_camera_desc c = {.object = id,
                      .orthographic = lua_toboolean(L, 2),
                      .fov_deg = (float)luaL_checknumber(L, 3),
                      .size = (float)luaL_checknumber(L, 4),
                      .near_plane = (float)luaL_checknumber(L, 5),
                      .far_plane = (float)luaL_checknumber(L, 6)};
  double w = luaL_checknumber(L, 7), h = luaL_checknumber(L, 8);
  if (!(w > 0 && h > 0)) luaL_error(L, "the screen is %f x %f: both sides must be positive", w, h);
  if (!ty_camera_view_make(v, &c, ty_lua_world_matrix(L, id), w, h))
    luaL_error(L, "the camera's world matrix cannot be inverted (a zero scale?)");
}

/* _render.cameraToScreen(camera args..., x, y, z) -> screen x, y, depth */
static int r_camera_to_screen(lua_State *L) {
  ty_camera_view v;
  check_camera_view(L, &v);
  double p[3] = {luaL_checknumber(L, 9), luaL_checknumber(L, 10), luaL_checknumber(L, 11)}, out[3];
  ty_camera_world_to_screen(&v, p, out);
  for (int i = 0; i < 3; i++) lua_pushnumber(L, out[i]);
  return 3;
}

/* _render.cameraToWorld(camera args..., x, y [, depth]) -> Vec3 (table form: doubles);
 * depth defaults to the near plane the renderer uses */
static int r_camera_to_world(lua_State *L) {
  ty_camera_view v;
  check_camera_view(L, &v);
  double out[3];
  double x = luaL_checknumber(L, 9), y = luaL_checknumber(L, 10), depth = luaL_optnumber(L, 11, v.near_plane);
  ty_camera_screen_to_world(&v, x, y, depth, out);
  ty_push_vec3_table(L, out[0], out[1], out[2]);
  return 1;
}

/* _render.cameraRay(camera args..., x, y) -> origin Vec3, direction Vec3 (table forms) */
static int r_camera_ray(lua_State *L) {
  ty_camera_view v;
  check_camera_view(L, &v);
  double o[3], d[3];
  ty_camera_screen_ray(&v, luaL_checknumber(L, 9), luaL_checknumber(L, 10), o, d);
  ty_push_vec3_table(L, o[0], o[1], o[2]);
  ty_push_vec3_table(L, d[0], d[1], d[2]);
  return 2;
}

static int r_in_frame(lua_State *L) {
  lua_pushboolean(L, lr_get(L)->in_frame);
  return 1;
}

static int r_has_window(lua_State *L) {
  lrender *lr = lr_get(L);
  lua_pushboolean(L, ty_lua_window(L) != NULL && lr->dev != NULL);
  return 1;
}

/* _render.screenshot(path) -> true, or nil, message */
static int r_screenshot(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  ty_window *win = ty_lua_window(L);
  if (!win) return ty_fail(L, "no window");
  if (!ty_window_screenshot(win, path)) return ty_fail(L, "%s: the screenshot could not be written", path);
  lua_pushboolean(L, 1);
  return 1;
}

static int r_note_frame_time(lua_State *L) {
  ty_render_note_frame_time(lr_get(L)->R, luaL_checknumber(L, 1));
  return 0;
}

static int r_set_overlay(lua_State *L) {
  ty_render_set_overlay(lr_get(L)->R, lua_toboolean(L, 1));
  return 0;
}

/* _render.setDrawMode("multiIndirect"|"instanced"|"perObject") */
static int r_set_draw_mode(lua_State *L) {
  static const char *const modes[] = {"multiIndirect", "instanced", "perObject", NULL};
  ty_render_set_draw_mode(lr_get(L)->R, (ty_draw_mode)luaL_checkoption(L, 1, NULL, modes));
  return 0;
}

static int r_reload_shader(lua_State *L) {
  lrender *lr = lr_get(L);
  if (ty_render_reload_shader(lr->R, luaL_checkstring(L, 1))) {
    lua_pushboolean(L, 1);
    return 1;
  }
  return ty_fail(L, "%s", ty_render_error(lr->R));
}

/* _render.reloadFile(path) -> count of textures and meshes reloaded (false: none was
 * loaded from path), or nil, message when the file no longer loads (the old data stays). */
static int r_reload_file(lua_State *L) {
  lrender *lr = lr_get(L);
  int n = ty_render_reload_file(lr->R, luaL_checkstring(L, 1));
  if (n < 0) {
    return ty_fail(L, "%s", ty_render_error(lr->R));
  }
  if (n == 0) lua_pushboolean(L, 0);
  else lua_pushinteger(L, n);
  return 1;
}

static int r_item_count(lua_State *L) {
  lua_pushinteger(L, ty_render_item_count(lr_get(L)->R));
  return 1;
}

/* tycho.stats.render() -> {drawCalls=, draws=, instances=, triangles=, passes=,
 * culledPasses=, cpuMs=, bucketMs=, shadowCasters=, shadowCascades={...}} of the last frame */
static int stats_render(lua_State *L) {
  ty_render_stats s = ty_render_get_stats(lr_get(L)->R);
  lua_createtable(L, 0, 10);
  lua_pushinteger(L, s.draw_calls);
  lua_setfield(L, -2, "drawCalls");
  lua_pushinteger(L, s.draws);
  lua_setfield(L, -2, "draws");
  lua_pushinteger(L, s.instances);
  lua_setfield(L, -2, "instances");
  lua_pushinteger(L, (lua_Integer)s.triangles);
  lua_setfield(L, -2, "triangles");
  lua_pushinteger(L, s.passes);
  lua_setfield(L, -2, "passes");
  lua_pushinteger(L, s.culled_passes);
  lua_setfield(L, -2, "culledPasses");
  lua_pushnumber(L, s.cpu_ms);
  lua_setfield(L, -2, "cpuMs");
  lua_pushnumber(L, s.bucket_ms);
  lua_setfield(L, -2, "bucketMs");
  lua_pushinteger(L, s.shadow_casters);
  lua_setfield(L, -2, "shadowCasters");
  lua_createtable(L, (int)s.cascades, 0);
  for (uint32_t c = 0; c < s.cascades; c++) {
    lua_pushinteger(L, s.cascade_casters[c]);
    lua_rawseti(L, -2, (lua_Integer)c + 1);
  }
  lua_setfield(L, -2, "shadowCascades");
  return 1;
}

/* tycho.stats.passTimes() -> {{name=, ms=, gpuMs=}, ...}: the passes the last executed frame
 * ran, in order (none headless); ms (CPU) only while timing is on (timePasses, or the overlay
 * shown), gpuMs only once timer queries of a frame the GPU finished have been read. */
static int stats_pass_times(lua_State *L) {
  uint32_t n = 0;
  const ty_render_pass_time *t = ty_render_pass_times(lr_get(L)->R, &n);
  lua_createtable(L, (int)n, 0);
  for (uint32_t i = 0; i < n; i++) {
    lua_createtable(L, 0, 3);
    lua_pushstring(L, t[i].name);
    lua_setfield(L, -2, "name");
    if (t[i].ms >= 0) {
      lua_pushnumber(L, t[i].ms);
      lua_setfield(L, -2, "ms");
    }
    if (t[i].gpu_ms >= 0) {
      lua_pushnumber(L, t[i].gpu_ms);
      lua_setfield(L, -2, "gpuMs");
    }
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  return 1;
}

/* tycho.stats.timePasses(on) -> was: time every pass (CPU time, and GPU time through timer
 * queries, never waiting for the GPU) from the next frame on. */
static int stats_time_passes(lua_State *L) {
  ty_renderer *R = lr_get(L)->R;
  bool was = ty_render_pass_timing(R);
  ty_render_set_pass_timing(R, lua_toboolean(L, 1));
  lua_pushboolean(L, was);
  return 1;
}
/* ---- opening ---- */

void ty_open_render(lua_State *L) {
  int tycho = lua_gettop(L);
  /* Made after the scene binding's world, so at lua_close it is finalized first. */
  lrender *lr = ty_ctx_part(L, sizeof *lr, render_gc);
  lr->owner_ref = LUA_NOREF;
  lr->R = ty_render_create(&(ty_render_desc){.world = ty_lctx_get(L)->world});
  TY_ASSERT(lr->R);
  ty_ctx_get(L)->render = lr;
  lua_newtable(L);
  lr->failures_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  lr_open_assets(L, tycho);
  ty_type_register(L, TY_FEATURE_OPTS, NULL, NULL);
  lr_open_graph(L, lr);

  static const luaL_Reg private_fns[] = {{"itemCreate", r_item_create},
                                         {"itemDestroy", r_item_destroy},
                                         {"itemSet", r_item_set},
                                         {"itemCount", r_item_count},
                                         {"lightCreate", r_light_create},
                                         {"lightDestroy", r_light_destroy},
                                         {"lightSet", r_light_set},
                                         {"readColor", r_read_color},
                                         {"beginFrame", r_begin_frame},
                                         {"featureOptions", r_feature_options},
                                         {"addFeature", r_add_feature},
                                         {"setOwner", r_set_owner},
                                         {"endFrame", r_end_frame},
                                         {"inFrame", r_in_frame},
                                         {"hasWindow", r_has_window},
                                         {"cameraToScreen", r_camera_to_screen},
                                         {"cameraToWorld", r_camera_to_world},
                                         {"cameraRay", r_camera_ray},
                                         {"screenshot", r_screenshot},
                                         {"noteFrameTime", r_note_frame_time},
                                         {"setOverlay", r_set_overlay},
                                         {"setDrawMode", r_set_draw_mode},
                                         {"reloadShader", r_reload_shader},
                                         {"reloadFile", r_reload_file},
                                         {NULL, NULL}};
  luaL_newlib(L, private_fns);
  lua_setfield(L, tycho, "_render");

  if (lua_getfield(L, tycho, "stats") != LUA_TTABLE) {
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_setfield(L, tycho, "stats");
  }
  lua_pushcfunction(L, stats_render);
  lua_setfield(L, -2, "render");
  lua_pushcfunction(L, stats_pass_times);
  lua_setfield(L, -2, "passTimes");
  lua_pushcfunction(L, stats_time_passes);
  lua_setfield(L, -2, "timePasses");
  lua_pop(L, 1);
  lua_settop(L, tycho);
}
