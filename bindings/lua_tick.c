/* bindings/lua_tick.c: one tick of a scene: its phases in order (systems first, then the
 * objects' hooks in join and add order), the physics step and contacts inside them, then the
 * sweep of destroyed objects and the flush of spawned ones; Scene:update and updateRender.
 *
 * Each phase runs under one protected call: when a hook raises, the walk's cursor already
 * points past it, so the error is reported through scene.onError and the walk resumes there. */
#include "lua_scene_private.h"

/* ---- the tick ---- */

/* Stack layout inside a protected walk (see walk_protected). */
enum { W_ARGS = 1, W_INSTANCES, W_HOOK, W_ENABLED, W_ARG };

typedef struct walk_args {
  ty_scene *scene;
  ty_phase phase;
  ty_cursor cursor;
} walk_args;

static void dispatch(void *user, ty_id object, int32_t ref, ty_phase phase) {
  lua_State *L = user;
  (void)object;
  (void)phase;
  lua_rawgeti(L, W_INSTANCES, ref);
  lua_pushvalue(L, W_ENABLED);
  if (lua_rawget(L, -2) == LUA_TBOOLEAN && !lua_toboolean(L, -1)) {
    lua_pop(L, 2);
    return;
  }
  lua_pop(L, 1);
  lua_pushvalue(L, W_HOOK);
  if (lua_gettable(L, -2) != LUA_TFUNCTION) { /* the method went away since the mask was made */
    lua_pop(L, 2);
    return;
  }
  lua_insert(L, -2);
  lua_pushvalue(L, W_ARG);
  lua_call(L, 2, 0);
}

static int walk_protected(lua_State *L) {
  walk_args *a = lua_touserdata(L, W_ARGS);
  ty_scene_walk(a->scene, a->phase, &a->cursor, dispatch, L);
  return 0;
}

/* Runs phase p: its systems, then the object walk; each error is reported and the walk
 * resumes after the hook that raised it. arg_idx holds what hooks receive. */
static void run_phase(lua_State *L, int scene_idx, ty_lscene *ls, ty_phase p, int arg_idx) {
  /* The worlds step before any physics hook; contacts reach components before postPhysics. */
  const ty_physics_ops *physics = ty_ctx_get(L)->physics;
  if (p == TY_PHASE_PHYSICS && physics) physics->step(L, scene_idx, ls->scene, lua_tonumber(L, arg_idx));
  if (p == TY_PHASE_POST_PHYSICS && physics) physics->contacts(L, scene_idx, ls->scene);
  ls_scene_data(L, scene_idx, "systems");
  int systems = lua_gettop(L);
  for (lua_Integer i = 1; lua_rawgeti(L, systems, i) != LUA_TNIL; i++) {
    lua_getfield(L, -1, "__phase");
    bool mine = lua_tointeger(L, -1) == p;
    lua_pop(L, 1);
    if (mine && lua_getfield(L, -1, "update") == LUA_TFUNCTION) {
      lua_pushvalue(L, arg_idx);
      ls_call_hook(L, 1, scene_idx, PHASE_NAMES[p], 0, 0);
    } else if (mine) {
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
  lua_settop(L, systems - 1);
  if (!ty_scene_hook_count(ls->scene, p)) return;

  walk_args args = {ls->scene, p, {0}};
  for (;;) {
    int top = lua_gettop(L);
    lua_pushcfunction(L, walk_protected);
    lua_pushlightuserdata(L, &args);
    push_instances(L);
    lua_pushstring(L, HOOK_NAMES[p]);
    lua_pushliteral(L, "enabled");
    lua_pushvalue(L, arg_idx);
    if (ty_pcall(L, 5, 0)) return;
    /* The cursor names the call that raised; report it with its instance. */
    ty_id object = args.cursor.object;
    int inst = 0;
    if (ty_object_alive(ty_scene_world(ls->scene), object) &&
        args.cursor.component < ty_object_component_count(ty_scene_world(ls->scene), object)) {
      int32_t ref = ty_object_components(ty_scene_world(ls->scene), object)[args.cursor.component].ref;
      push_instances(L);
      lua_rawgeti(L, -1, ref);
      lua_remove(L, -2);
      lua_insert(L, -2); /* message back on top, the instance just below it */
      inst = lua_gettop(L) - 1;
    }
    ls_report_error(L, scene_idx, HOOK_NAMES[p], object, inst);
    lua_settop(L, top);
  }
}

/* Recomputes every component's hook mask after a class changed. Every object in the
 * world, not only this scene's: an object outside any scene may join one later, and
 * would otherwise bring a mask from before the change. */
static void refresh_hooks(lua_State *L) {
  ty_lctx *ctx = ty_lctx_get(L);
  if (ctx->hooks_epoch == ctx->class_epoch) return;
  ctx->hooks_epoch = ctx->class_epoch;
  ty_world *W = ctx->world;
  push_instances(L);
  int inst_tab = lua_gettop(L);
  push_objects(L);
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    ty_id id = ((ty_go *)lua_touserdata(L, -1))->id;
    lua_pop(L, 1);
    if (!ty_object_alive(W, id)) continue;
    uint32_t nc = ty_object_component_count(W, id);
    for (uint32_t c = 0; c < nc; c++) {
      int32_t ref = ty_object_components(W, id)[c].ref;
      if (ref == TY_COMPONENT_REMOVED) continue;
      lua_rawgeti(L, inst_tab, ref);
      ty_object_set_component_hooks(W, id, c, ls_compute_hooks(L, lua_gettop(L)));
      lua_pop(L, 1);
    }
  }
  lua_settop(L, inst_tab - 1);
}

typedef struct sweep_ctx {
  lua_State *L;
  int scene_idx;
} sweep_ctx;

static void on_sweep(void *user, ty_id id) {
  sweep_ctx *c = user;
  ls_finish_object(c->L, id, c->scene_idx);
}

void ls_end_section(lua_State *L, int scene_idx, ty_lscene *ls) {
  sweep_ctx sc = {L, scene_idx};
  ty_scene_end(ls->scene, on_sweep, &sc);
  /* Objects removed during the section have left now: their components lose the clock
   * (or take the one of a scene they were moved into). */
  if (ls_scene_data(L, scene_idx, "leaving") == LUA_TTABLE) {
    ty_world *W = world_of(L);
    lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
    for (lua_Integer i = 1; i <= n; i++) {
      lua_rawgeti(L, -1, i);
      ty_id id = (ty_id)lua_tointeger(L, -1);
      lua_pop(L, 1);
      if (ty_object_alive(W, id) && ty_object_scene(W, id) != ls->scene) ls_bind_time_subtree(L, id);
    }
    lua_getiuservalue(L, scene_idx, 1);
    lua_pushnil(L);
    lua_setfield(L, -2, "leaving");
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
}

/* Section bodies, run protected by run_section: the scene at 1, the hooks' argument at 2. */
static int tick_body(lua_State *L) {
  ty_lscene *ls = lua_touserdata(L, 1);
  for (int p = 0; p < TY_PHASE_RENDER; p++) run_phase(L, 1, ls, (ty_phase)p, 2);
  return 0;
}

static int render_body(lua_State *L) {
  run_phase(L, 1, lua_touserdata(L, 1), TY_PHASE_RENDER, 2);
  return 0;
}

static int end_body(lua_State *L) {
  ls_end_section(L, 1, lua_touserdata(L, 1));
  return 0;
}

/* Runs body as one walking section of the scene. Only an error raised by scene.onError gets
 * out of body; the section still ends (sweep and flush) so the scene stays usable, and then
 * the error goes on to the caller. A further raise from the sweep's onError is dropped:
 * the sweep resumes past it, and the first error is the one reported. */
static void run_section(lua_State *L, int scene_idx, ty_lscene *ls, lua_CFunction body, int arg_idx) {
  ty_scene_begin(ls->scene);
  lua_pushcfunction(L, body);
  lua_pushvalue(L, scene_idx);
  lua_pushvalue(L, arg_idx);
  bool failed = lua_pcall(L, 2, 0, 0) != LUA_OK;
  for (;;) {
    lua_pushcfunction(L, end_body);
    lua_pushvalue(L, scene_idx);
    if (lua_pcall(L, 1, 0, 0) == LUA_OK) break;
    if (failed) lua_pop(L, 1);
    failed = true;
  }
  if (failed) lua_error(L);
}

void ty_scene_run_tick(lua_State *L, int scene_idx, double dt) {
  scene_idx = lua_absindex(L, scene_idx);
  ty_lscene *ls = ty_check_scene(L, scene_idx);
  int top = lua_gettop(L);
  refresh_hooks(L);
  lua_pushnumber(L, dt);
  run_section(L, scene_idx, ls, tick_body, lua_gettop(L));
  lua_settop(L, top);
}

static int scene_update(lua_State *L) {
  ty_lscene *ls = ty_check_scene(L, 1);
  double dt = luaL_checknumber(L, 2);
  if (ty_scene_walking(ls->scene)) return luaL_error(L, "scene:update called from inside the same scene's tick");
  ty_clock_tick(&ls->clock, dt);
  ty_scene_run_tick(L, 1, ls->clock.delta);
  return 0;
}

/* scene:updateRender(ctx): the once-per-frame render hook on every component. */
static int scene_updateRender(lua_State *L) {
  ty_lscene *ls = ty_check_scene(L, 1);
  lua_settop(L, 2);
  if (ty_scene_walking(ls->scene)) return luaL_error(L, "scene:updateRender called from inside the scene's tick");
  refresh_hooks(L);
  run_section(L, 1, ls, render_body, 2);
  return 0;
}


const luaL_Reg ls_tick_methods[] = {{"update", scene_update}, {"updateRender", scene_updateRender}, {NULL, NULL}};
