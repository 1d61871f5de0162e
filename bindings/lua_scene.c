/* bindings/lua_scene.c: the Lua face of engine/core's scenes: tycho.Scene (objects, tags,
 * systems, onError), tycho.stats, tycho.PHASES, and the scene binding's part of the state's
 * context. GameObjects, their transforms, the component host and the tick are the files
 * lua_scene_private.h names. */
#include "lua_scene_private.h"
#include "lua_time.h"    /* Required for: ty_push_time (scene.time) */

/* ---- scenes: the userdata behind a ty_scene ---- */

ty_lscene *ty_check_scene(lua_State *L, int idx) { return ty_check(L, idx, TY_SCENE); }
ty_lscene *ty_test_scene(lua_State *L, int idx) { return ty_test(L, idx, TY_SCENE); }

void ls_push_scene_of(lua_State *L, ty_scene *S) {
  if (!S) {
    lua_pushnil(L);
    return;
  }
  lua_rawgeti(L, LUA_REGISTRYINDEX, ty_lctx_get(L)->scenes);
  lua_rawgetp(L, -1, S);
  lua_remove(L, -2);
}

/* Pushes field `key` of the scene's data table (scene at idx). */
int ls_scene_data(lua_State *L, int idx, const char *key) {
  lua_getiuservalue(L, idx, 1);
  int t = lua_getfield(L, -1, key);
  lua_remove(L, -2);
  return t;
}

/* ---- Scene ---- */

static int scene_new(lua_State *L) {
  ty_lctx *ctx = ty_lctx_get(L);
  ty_lscene *ls = lua_newuserdatauv(L, sizeof *ls, 1);
  ls->scene = ty_scene_create(ctx->world);
  ty_clock_init(&ls->clock);
  luaL_setmetatable(L, TY_SCENE);
  int s = lua_gettop(L);
  lua_createtable(L, 0, 4);
  lua_newtable(L);
  lua_setfield(L, -2, "systems");
  /* scene.time: a Time userdata over ls->clock that keeps the scene alive. */
  ty_push_time(L, &ls->clock, s);
  lua_setfield(L, -2, "time");
  lua_setiuservalue(L, s, 1);
  lua_rawgeti(L, LUA_REGISTRYINDEX, ctx->scenes);
  lua_pushvalue(L, s);
  lua_rawsetp(L, -2, ls->scene);
  lua_pop(L, 1);
  return 1;
}

static int scene_gc(lua_State *L) {
  ty_lscene *ls = luaL_checkudata(L, 1, TY_SCENE);
  if (!ls->scene) return 0;
  ty_scene *S = ls->scene;
  /* Objects still in the scene go with it: forget their Lua side first. */
  for (uint32_t i = ty_scene_count(S); i-- > 0;) {
    ty_id id = ty_scene_object_at(S, i);
    push_instances(L);
    uint32_t n = ty_object_component_count(ty_scene_world(S), id);
    for (uint32_t c = 0; c < n; c++) {
      int32_t ref = ty_object_components(ty_scene_world(S), id)[c].ref;
      if (ref != TY_COMPONENT_REMOVED) luaL_unref(L, -1, ref);
    }
    lua_pop(L, 1);
    ls_forget_object(L, id);
  }
  ty_scene_destroy(S);
  ls->scene = NULL;
  return 0;
}

/* tycho._setTracker(fn|nil): fn(kind, value, scene) is called after every successful
 * scene:add ("object", the GameObject) and scene:addSystem ("system", the system). Hot
 * reload uses it to know what a file's top level registered, without wrapping these
 * functions (a wrapper would change their error messages and cost every call). */
static const char tracker_key = 0;

static int set_tracker(lua_State *L) {
  if (!lua_isnoneornil(L, 1)) luaL_checktype(L, 1, LUA_TFUNCTION);
  lua_settop(L, 1);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &tracker_key);
  return 0;
}

static void track(lua_State *L, const char *kind, int idx, int scene_idx) {
  idx = lua_absindex(L, idx);
  scene_idx = lua_absindex(L, scene_idx);
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &tracker_key) != LUA_TFUNCTION) {
    lua_pop(L, 1);
    return;
  }
  lua_pushstring(L, kind);
  lua_pushvalue(L, idx);
  lua_pushvalue(L, scene_idx);
  lua_call(L, 3, 0);
}

static int scene_add(lua_State *L) {
  ty_lscene *ls = ty_check_scene(L, 1);
  ty_id id = ty_check_gameobject(L, 2);
  if (!ty_scene_add(ls->scene, id)) {
    if (ty_object_scene(world_of(L), id)) return luaL_argerror(L, 2, "GameObject is already in another scene");
    return luaL_argerror(L, 2, "a child of this GameObject is still leaving another scene until its tick ends");
  }
  ls_bind_time_subtree(L, id);
  lua_settop(L, 2);
  track(L, "object", 2, 1);
  return 1;
}

static int scene_remove(lua_State *L) {
  ty_lscene *ls = ty_check_scene(L, 1);
  ty_id id = ty_check_gameobject(L, 2);
  bool walking = ty_scene_walking(ls->scene);
  ty_scene_remove(ls->scene, id);
  if (!walking) {
    ls_bind_time_subtree(L, id);
    return 0;
  }
  /* It leaves at the sweep: remember it so ls_end_section takes its components' clock away. */
  if (ls_scene_data(L, 1, "leaving") != LUA_TTABLE) {
    lua_pop(L, 1);
    lua_newtable(L);
    lua_getiuservalue(L, 1, 1);
    lua_pushvalue(L, -2);
    lua_setfield(L, -2, "leaving");
    lua_pop(L, 1);
  }
  lua_pushinteger(L, id);
  lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
  return 0;
}

static int scene_findById(lua_State *L) {
  ty_lscene *ls = ty_check_scene(L, 1);
  lua_Integer raw = luaL_checkinteger(L, 2);
  ty_world *W = world_of(L);
  ty_id id = (ty_id)raw;
  if (raw < 0 || raw > UINT32_MAX || !ty_object_alive(W, id) || ty_object_scene(W, id) != ls->scene) lua_pushnil(L);
  else ty_push_gameobject(L, id);
  return 1;
}

/* scene:findByTag(tag [, {includePending=true}]) */
static int find_by_tag(lua_State *L, bool first_only) {
  ty_lscene *ls = ty_check_scene(L, 1);
  const char *name = luaL_checkstring(L, 2);
  bool pending = false;
  if (lua_istable(L, 3)) {
    lua_getfield(L, 3, "includePending");
    pending = lua_toboolean(L, -1);
    lua_pop(L, 1);
  }
  ty_world *W = world_of(L);
  uint32_t tag = ty_world_tag(W, name, false);
  if (!first_only) lua_newtable(L);
  int k = 0;
  uint32_t n = ty_scene_count(ls->scene);
  for (uint32_t i = 0; tag && i < n; i++) {
    ty_id id = ty_scene_object_at(ls->scene, i);
    if (!pending && ty_scene_is_pending(ls->scene, id)) continue;
    if (ty_object_destroyed(W, id) || !ty_object_has_tag(W, id, tag)) continue;
    ty_push_gameobject(L, id);
    if (first_only) return 1;
    lua_rawseti(L, -2, ++k);
  }
  if (first_only) lua_pushnil(L);
  return 1;
}

static int scene_findByTag(lua_State *L) { return find_by_tag(L, false); }
static int scene_findOneByTag(lua_State *L) { return find_by_tag(L, true); }

static int scene_objects(lua_State *L) {
  ty_lscene *ls = ty_check_scene(L, 1);
  uint32_t n = ty_scene_count(ls->scene);
  lua_createtable(L, (int)n, 0);
  for (uint32_t i = 0; i < n; i++) {
    ty_push_gameobject(L, ty_scene_object_at(ls->scene, i));
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  return 1;
}

static void push_roots(lua_State *L, ty_lscene *ls) {
  ty_world *W = world_of(L);
  lua_newtable(L);
  int k = 0;
  uint32_t n = ty_scene_count(ls->scene);
  for (uint32_t i = 0; i < n; i++) {
    ty_id id = ty_scene_object_at(ls->scene, i);
    if (ty_object_parent(W, id)) continue;
    ty_push_gameobject(L, id);
    lua_rawseti(L, -2, ++k);
  }
}

static int phase_index(lua_State *L, int idx) {
  const char *name = luaL_checkstring(L, idx);
  for (int p = 0; p < TY_PHASE_COUNT; p++)
    if (strcmp(name, PHASE_NAMES[p]) == 0) return p;
  return luaL_argerror(L, idx, lua_pushfstring(L, "unknown phase '%s'", name));
}

/* scene:addSystem(phase, fn) or scene:addSystem{phase=, init=, update=, dispose=} */
static int scene_addSystem(lua_State *L) {
  ty_check_scene(L, 1);
  int sys;
  if (lua_istable(L, 2)) {
    lua_getfield(L, 2, "phase");
    int p = phase_index(L, lua_gettop(L));
    lua_pop(L, 1);
    if (lua_getfield(L, 2, "update") != LUA_TFUNCTION && !lua_isnil(L, -1))
      return luaL_argerror(L, 2, "system 'update' must be a function");
    lua_pop(L, 1);
    lua_pushinteger(L, p);
    lua_setfield(L, 2, "__phase");
    sys = 2;
  } else {
    int p = phase_index(L, 2);
    luaL_checktype(L, 3, LUA_TFUNCTION);
    lua_createtable(L, 0, 3);
    lua_pushvalue(L, 2);
    lua_setfield(L, -2, "phase");
    lua_pushvalue(L, 3);
    lua_setfield(L, -2, "update");
    lua_pushinteger(L, p);
    lua_setfield(L, -2, "__phase");
    sys = lua_gettop(L);
  }
  ls_scene_data(L, 1, "systems");
  lua_pushvalue(L, sys);
  lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
  lua_pop(L, 1);
  if (lua_getfield(L, sys, "init") == LUA_TFUNCTION) ls_call_hook(L, 0, 1, "system init", 0, 0);
  else lua_pop(L, 1);
  track(L, "system", sys, 1);
  lua_pushvalue(L, sys);
  return 1;
}

static int scene_removeSystem(lua_State *L) {
  ty_check_scene(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  ls_scene_data(L, 1, "systems");
  lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
  for (lua_Integer i = 1; i <= n; i++) {
    lua_rawgeti(L, -1, i);
    bool hit = lua_rawequal(L, -1, 2);
    lua_pop(L, 1);
    if (!hit) continue;
    /* Shift down; a running tick reads the array by index, so a removal during it at
     * most moves a later system one slot earlier. */
    for (lua_Integer j = i; j < n; j++) {
      lua_rawgeti(L, -1, j + 1);
      lua_rawseti(L, -2, j);
    }
    lua_pushnil(L);
    lua_rawseti(L, -2, n);
    if (lua_getfield(L, 2, "dispose") == LUA_TFUNCTION) ls_call_hook(L, 0, 1, "system dispose", 0, 0);
    else lua_pop(L, 1);
    lua_pushboolean(L, 1);
    return 1;
  }
  lua_pushboolean(L, 0);
  return 1;
}

static int scene_index(lua_State *L) {
  ty_lscene *ls = ty_check_scene(L, 1);
  const char *k = lua_tostring(L, 2);
  if (luaL_getmetafield(L, 1, "__methods") && lua_getfield(L, -1, k) != LUA_TNIL) return 1;
  if (!k) return 0;
  if (strcmp(k, "time") == 0 || strcmp(k, "onError") == 0) {
    ls_scene_data(L, 1, k);
    return 1;
  }
  if (strcmp(k, "physics2d") == 0 || strcmp(k, "physics") == 0) {
    const ty_physics_ops *physics = ty_ctx_get(L)->physics; /* nil in a state without physics */
    if (physics) physics->push_world(L, 1, k[7] == '2' ? 2 : 3);
    else lua_pushnil(L);
    return 1;
  }
  if (strcmp(k, "roots") == 0) {
    push_roots(L, ls);
    return 1;
  }
  if (strcmp(k, "count") == 0) {
    lua_pushinteger(L, ty_scene_count(ls->scene));
    return 1;
  }
  lua_pushnil(L);
  return 1;
}

static int scene_newindex(lua_State *L) {
  ty_check_scene(L, 1);
  const char *k = luaL_checkstring(L, 2);
  if (strcmp(k, "onError") != 0) return luaL_error(L, "Scene.%s cannot be set", k);
  if (!lua_isnil(L, 3)) luaL_checktype(L, 3, LUA_TFUNCTION);
  lua_getiuservalue(L, 1, 1);
  lua_pushvalue(L, 3);
  lua_setfield(L, -2, "onError");
  return 0;
}

static int scene_tostring(lua_State *L) {
  ty_lscene *ls = ty_check_scene(L, 1);
  lua_pushfstring(L, "Scene (%d objects)", ls->scene ? (int)ty_scene_count(ls->scene) : 0);
  return 1;
}

/* ---- tycho.stats ---- */

static int stats_transforms(lua_State *L) {
  ty_transform_stats s = ty_transforms_stats(ty_world_transforms(world_of(L)));
  lua_createtable(L, 0, 2);
  lua_pushinteger(L, (lua_Integer)s.local_rebuilds);
  lua_setfield(L, -2, "localRebuilds");
  lua_pushinteger(L, (lua_Integer)s.world_rebuilds);
  lua_setfield(L, -2, "worldRebuilds");
  return 1;
}

static int stats_reset(lua_State *L) {
  ty_transforms_reset_stats(ty_world_transforms(world_of(L)));
  ty_lctx_get(L)->errors_caught = 0;
  return 0;
}

/* tycho.stats.errors() -> {caught=}: every error a scene caught in a hook, whoever reported
 * it (the log shows repeats only as a count; this counts each one). */
static int stats_errors(lua_State *L) {
  lua_createtable(L, 0, 1);
  lua_pushinteger(L, (lua_Integer)ty_lctx_get(L)->errors_caught);
  lua_setfield(L, -2, "caught");
  return 1;
}

/* tycho.syncTransforms(): what a rendered frame runs first (every local table read back,
 * then every touched subtree brought up to date), for headless games, specs and benches. */
static int sync_transforms(lua_State *L) {
  ty_transforms_sync(ty_world_transforms(world_of(L)));
  return 0;
}

static int stats_objects(lua_State *L) {
  lua_pushinteger(L, ty_world_count(world_of(L)));
  return 1;
}

/* tycho._classChanged(): component.lua calls this when a class is declared again or
 * gains a method, so hook masks are recomputed before the next tick. */
static int class_changed(lua_State *L) {
  ty_lctx_get(L)->class_epoch++;
  return 0;
}

/* ---- opening ---- */

static int ctx_gc(lua_State *L) {
  ty_lctx *ctx = lua_touserdata(L, 1);
  ty_world_destroy(ctx->world);
  TY_FREE(ctx->local_refs);
  TY_FREE(ctx->gos);
  ty_ctx_get(L)->scene = NULL;
  return 0;
}

void ty_open_scene(lua_State *L) {
  int tycho = lua_gettop(L);
  /* The scene's part of the context frees the world when the state closes; objects and
   * scenes are freed with it. */
  ty_lctx *ctx = ty_ctx_part(L, sizeof *ctx, ctx_gc);
  ctx->world = ty_world_create();
  lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_MAINTHREAD);
  ctx->L = lua_tothread(L, -1);
  lua_pop(L, 1);
  ty_transforms_set_pull(ty_world_transforms(ctx->world), ls_pull_all, ctx);
  ty_ctx_get(L)->scene = ctx;
  ty_ctx_get(L)->views = &ls_view_ops;

  lua_newtable(L);
  ctx->instances = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_newtable(L);
  ctx->objects = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_newtable(L);
  lua_newtable(L);
  lua_pushliteral(L, "v");
  lua_setfield(L, -2, "__mode");
  lua_setmetatable(L, -2);
  ctx->scenes = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_newtable(L);
  lua_newtable(L);
  lua_pushliteral(L, "k");
  lua_setfield(L, -2, "__mode");
  lua_setmetatable(L, -2);
  ctx->dead_views = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_newtable(L);
  ctx->locals = luaL_ref(L, LUA_REGISTRYINDEX);

  ls_open_gameobject(L, tycho);

  static const luaL_Reg scene_meta[] = {{"__index", scene_index},
                                        {"__newindex", scene_newindex},
                                        {"__gc", scene_gc},
                                        {"__tostring", scene_tostring},
                                        {NULL, NULL}};
  static const luaL_Reg scene_methods[] = {{"new", scene_new},
                                           {"add", scene_add},
                                           {"remove", scene_remove},
                                           {"addSystem", scene_addSystem},
                                           {"removeSystem", scene_removeSystem},
                                           {"findById", scene_findById},
                                           {"findByTag", scene_findByTag},
                                           {"findOneByTag", scene_findOneByTag},
                                           {"objects", scene_objects},
                                           {NULL, NULL}};
  ty_type_register(L, TY_SCENE, scene_meta, scene_methods);
  ty_type_push_methods(L, TY_SCENE); /* tycho.Scene, so Lua code can add methods */
  luaL_setfuncs(L, ls_tick_methods, 0);
  lua_setfield(L, tycho, "Scene");

  lua_createtable(L, TY_PHASE_COUNT, 0);
  for (int p = 0; p < TY_PHASE_COUNT; p++) {
    lua_pushstring(L, PHASE_NAMES[p]);
    lua_rawseti(L, -2, p + 1);
  }
  lua_setfield(L, tycho, "PHASES");

  static const luaL_Reg stats[] = {
      {"transforms", stats_transforms}, {"reset", stats_reset}, {"objects", stats_objects},
      {"errors", stats_errors},         {NULL, NULL}};
  luaL_newlib(L, stats);
  lua_setfield(L, tycho, "stats");
  lua_pushcfunction(L, class_changed);
  lua_setfield(L, tycho, "_classChanged");
  lua_pushcfunction(L, sync_transforms);
  lua_setfield(L, tycho, "syncTransforms");
  lua_pushcfunction(L, set_tracker);
  lua_setfield(L, tycho, "_setTracker");
  lua_pushcfunction(L, ls_set_error_reporter);
  lua_setfield(L, tycho, "_setErrorReporter");
}
