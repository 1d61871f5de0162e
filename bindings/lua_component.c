/* bindings/lua_component.c: the component host: addComponent, getComponent(s),
 * removeComponent and destroy on a GameObject, and the protected calls of their hooks.
 *
 * Component instances are plain Lua tables kept in one registry table (instances) under an
 * integer ref; the core stores (ref, hooks) per object. A hook that raises is reported
 * through scene.onError, else the reporter tycho._setErrorReporter installed, else stderr. */
#include "lua_scene_private.h"

/* ---- errors from hooks ---- */

/* tycho._setErrorReporter(fn|nil): fn(message, info) takes the errors of scenes that have
 * no onError (scripts/tycho/errors.lua: deduplicated, counted, shown on screen). */
static const char reporter_key = 0;

int ls_set_error_reporter(lua_State *L) {
  if (!lua_isnil(L, 1)) luaL_checktype(L, 1, LUA_TFUNCTION);
  lua_settop(L, 1);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &reporter_key);
  return 0;
}

/* Reports the error message on top of the stack: scene.onError(message, info) when the
 * scene (at scene_idx, or 0 for none) has one, else the reporter errors.lua installed,
 * else stderr. Pops the message. An error raised by onError propagates. */
void ls_report_error(lua_State *L, int scene_idx, const char *hook, ty_id object, int inst_idx) {
  int msg = lua_gettop(L);
  ty_lctx_get(L)->errors_caught++;
  bool handler = scene_idx && ls_scene_data(L, scene_idx, "onError") != LUA_TNIL;
  if (!handler) {
    if (scene_idx) lua_pop(L, 1);
    handler = lua_rawgetp(L, LUA_REGISTRYINDEX, &reporter_key) == LUA_TFUNCTION;
    if (!handler) lua_pop(L, 1);
  }
  if (handler) {
    lua_pushvalue(L, msg);
    lua_createtable(L, 0, 3);
    lua_pushstring(L, hook);
    lua_setfield(L, -2, "hook");
    if (object) {
      ty_push_gameobject(L, object);
      lua_setfield(L, -2, "object");
    }
    if (inst_idx) {
      lua_pushvalue(L, inst_idx);
      lua_setfield(L, -2, "component");
    }
    lua_call(L, 2, 0);
  } else {
    const char *name = "?";
    if (object) {
      ty_push_gameobject(L, object);
      if (lua_isuserdata(L, -1)) {
        lua_getiuservalue(L, -1, UV_NAME);
        name = lua_tostring(L, -1);
      }
    }
    fprintf(stderr, "tycho: error in %s of GameObject '%s': %s\n", hook, name ? name : "?", lua_tostring(L, msg));
  }
  lua_settop(L, msg - 1);
}

/* Calls the function at the top of the stack (with nargs arguments below it... pushed
 * after it) protected, reporting an error through ls_report_error. */
void ls_call_hook(lua_State *L, int nargs, int scene_idx, const char *hook, ty_id object, int inst_idx) {
  if (!ty_pcall(L, nargs, 0)) ls_report_error(L, scene_idx, hook, object, inst_idx);
}

/* Calls inst[method](inst) protected if it exists. inst at inst_idx (absolute). */
static void call_method(lua_State *L, int inst_idx, const char *method, int scene_idx, ty_id object) {
  if (lua_getfield(L, inst_idx, method) != LUA_TFUNCTION) {
    lua_pop(L, 1);
    return;
  }
  lua_pushvalue(L, inst_idx);
  ls_call_hook(L, 1, scene_idx, method, object, inst_idx);
}

void ty_lua_call_found(lua_State *L, int scene_idx, ty_id id, const char *method,
                       int (*push)(lua_State *L, void *user), void *user) {
  ty_world *W = world_of(L);
  luaL_checkstack(L, 16, "calling a hook");
  int top = lua_gettop(L);
  push_instances(L);
  lua_pushstring(L, method);
  int inst_tab = top + 1, key = top + 2, base = top + 2, args = 0, nargs = 0;
  /* A hook may add or remove components (or disable the object): check each time round. */
  for (uint32_t i = 0; ty_object_alive(W, id) && ty_object_active(W, id) && i < ty_object_component_count(W, id);
       i++) {
    int32_t ref = ty_object_components(W, id)[i].ref;
    if (ref == TY_COMPONENT_REMOVED || lua_rawgeti(L, inst_tab, ref) != LUA_TTABLE) {
      lua_settop(L, base);
      continue;
    }
    int inst = base + 1;
    lua_pushvalue(L, key);
    bool found = lua_rawget(L, inst) == LUA_TFUNCTION;
    if (!found) {
      lua_settop(L, inst);
      found = lua_getmetatable(L, inst) && lua_getfield(L, -1, method) == LUA_TFUNCTION;
      if (found) lua_remove(L, -2); /* the metatable */
    }
    if (!found) {
      lua_settop(L, base);
      continue;
    }
    lua_getfield(L, inst, "enabled");
    bool off = lua_isboolean(L, -1) && !lua_toboolean(L, -1);
    lua_pop(L, 1);
    if (off) {
      lua_settop(L, base);
      continue;
    }
    if (!args) { /* the arguments go below the instance and its hook, kept for the next ones */
      nargs = push(L, user);
      lua_rotate(L, inst, nargs);
      args = inst;
      base += nargs;
      inst += nargs;
    }
    lua_pushvalue(L, inst);
    for (int a = 0; a < nargs; a++) lua_pushvalue(L, args + a);
    ls_call_hook(L, nargs + 1, scene_idx, method, id, inst);
    lua_settop(L, base);
  }
  lua_settop(L, top);
}

/* ---- components ---- */

uint32_t ls_compute_hooks(lua_State *L, int inst_idx) {
  uint32_t hooks = 0;
  for (int p = 0; p < TY_PHASE_COUNT; p++) {
    if (lua_getfield(L, inst_idx, HOOK_NAMES[p]) == LUA_TFUNCTION) hooks |= 1u << p;
    lua_pop(L, 1);
  }
  return hooks;
}

/* A class is a table that indexes itself (Class.__index == Class) and has `new`. A class
 * whose instances route fields through an __index function (the built-in render
 * components) names itself in __class instead. */
static bool is_class(lua_State *L, int idx) {
  if (!lua_istable(L, idx)) return false;
  lua_getfield(L, idx, "__index");
  bool self = lua_rawequal(L, -1, idx);
  lua_pop(L, 1);
  if (!self) {
    lua_pushliteral(L, "__class");
    lua_rawget(L, idx);
    self = lua_rawequal(L, -1, idx);
    lua_pop(L, 1);
  }
  return self;
}

static void set_time_field(lua_State *L, int inst_idx, ty_scene *S) {
  if (S) {
    ls_push_scene_of(L, S);
    ls_scene_data(L, lua_gettop(L), "time");
    lua_remove(L, -2);
  } else {
    lua_pushnil(L);
  }
  lua_setfield(L, inst_idx, "time");
}

/* Gives every component in id's subtree its scene's clock as `time`. */
void ls_bind_time_subtree(lua_State *L, ty_id root) {
  ty_world *W = world_of(L);
  push_instances(L);
  int inst_tab = lua_gettop(L);
  ty_id stack[64];
  uint32_t top = 0;
  stack[top++] = root;
  while (top) {
    ty_id id = stack[--top];
    ty_scene *S = ty_object_scene(W, id);
    uint32_t n = ty_object_component_count(W, id);
    for (uint32_t i = 0; i < n; i++) {
      int32_t ref = ty_object_components(W, id)[i].ref;
      if (ref == TY_COMPONENT_REMOVED) continue;
      lua_rawgeti(L, inst_tab, ref);
      set_time_field(L, lua_gettop(L), S);
      lua_pop(L, 1);
    }
    for (ty_id c = ty_object_first_child(W, id); c; c = ty_object_next_sibling(W, c)) {
      if (top == 64) ls_bind_time_subtree(L, c); /* deep trees: recurse past the local stack */
      else stack[top++] = c;
    }
  }
  lua_pop(L, 1);
}

/* go:addComponent(Class, ...) or go:addComponent(instance) */
static int go_addComponent(lua_State *L) {
  ty_id id = ty_check_gameobject(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  int nargs = lua_gettop(L) - 2;
  if (is_class(L, 2)) {
    if (lua_getfield(L, 2, "new") != LUA_TFUNCTION) return luaL_argerror(L, 2, "component class has no 'new'");
    lua_insert(L, 3);
    lua_call(L, nargs, 1);
    if (!lua_istable(L, 3)) return luaL_error(L, "component constructor returned %s, not a table", luaL_typename(L, 3));
  } else {
    lua_settop(L, 2);
  }
  int inst = 3 - (lua_gettop(L) == 2);
  if (lua_getfield(L, inst, "gameObject") != LUA_TNIL)
    return luaL_argerror(L, 2, "component is already attached to a GameObject");
  lua_pop(L, 1);
  ty_world *W = world_of(L);
  lua_pushvalue(L, 1);
  lua_setfield(L, inst, "gameObject");
  set_time_field(L, inst, ty_object_scene(W, id));
  push_instances(L);
  lua_pushvalue(L, inst);
  int ref = luaL_ref(L, -2);
  lua_pop(L, 1);
  ty_object_add_component(W, id, ref, ls_compute_hooks(L, inst));
  ty_scene *S = ty_object_scene(W, id);
  ls_push_scene_of(L, S);
  call_method(L, inst, "onAttach", S ? lua_gettop(L) : 0, id);
  lua_pushvalue(L, inst);
  return 1;
}

/* Finds the ref of instance at idx on object id; -1 if absent. */
static int32_t find_ref(lua_State *L, ty_id id, int idx) {
  ty_world *W = world_of(L);
  push_instances(L);
  uint32_t n = ty_object_component_count(W, id);
  int32_t found = -1;
  for (uint32_t i = 0; i < n && found < 0; i++) {
    int32_t ref = ty_object_components(W, id)[i].ref;
    if (ref == TY_COMPONENT_REMOVED) continue;
    lua_rawgeti(L, -1, ref);
    if (lua_rawequal(L, -1, idx)) found = ref;
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return found;
}

static int go_removeComponent(lua_State *L) {
  ty_id id = ty_check_gameobject(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  int32_t ref = find_ref(L, id, 2);
  if (ref < 0) {
    lua_pushboolean(L, 0);
    return 1;
  }
  ty_world *W = world_of(L);
  ty_object_remove_component(W, id, ref);
  ty_scene *S = ty_object_scene(W, id);
  ls_push_scene_of(L, S);
  call_method(L, 2, "onDetach", S ? lua_gettop(L) : 0, id);
  lua_pushnil(L);
  lua_setfield(L, 2, "gameObject");
  lua_pushnil(L);
  lua_setfield(L, 2, "time");
  push_instances(L);
  luaL_unref(L, -1, ref);
  lua_pushboolean(L, 1);
  return 1;
}

/* Pushes components of id whose metatable is the class at class_idx (all when 0), into
 * a new array, or just the first when first_only. Returns how many were pushed. */
static int collect_components(lua_State *L, ty_id id, int class_idx, bool first_only) {
  ty_world *W = world_of(L);
  push_instances(L);
  int inst_tab = lua_gettop(L);
  if (!first_only) lua_newtable(L);
  int out = lua_gettop(L), k = 0;
  uint32_t n = ty_object_component_count(W, id);
  for (uint32_t i = 0; i < n; i++) {
    int32_t ref = ty_object_components(W, id)[i].ref;
    if (ref == TY_COMPONENT_REMOVED) continue;
    lua_rawgeti(L, inst_tab, ref);
    bool match = !class_idx;
    if (!match && lua_getmetatable(L, -1)) {
      match = lua_rawequal(L, -1, class_idx);
      lua_pop(L, 1);
    }
    if (!match) {
      lua_pop(L, 1);
      continue;
    }
    if (first_only) {
      lua_remove(L, inst_tab);
      return 1;
    }
    lua_rawseti(L, out, ++k);
  }
  if (first_only) {
    lua_pop(L, 1);
    return 0;
  }
  lua_remove(L, inst_tab);
  return 1;
}

static int go_getComponent(lua_State *L) {
  ty_id id = ty_check_gameobject(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  if (!collect_components(L, id, 2, true)) lua_pushnil(L);
  return 1;
}

static int go_getComponents(lua_State *L) {
  ty_id id = ty_check_gameobject(L, 1);
  if (!lua_isnoneornil(L, 2)) luaL_checktype(L, 2, LUA_TTABLE);
  collect_components(L, id, lua_isnoneornil(L, 2) ? 0 : 2, false);
  return 1;
}

/* ---- destroy ---- */

/* Runs onDestroy on every component of id, then forgets its Lua side. Object at top. */
void ls_finish_object(lua_State *L, ty_id id, int scene_idx) {
  ty_world *W = world_of(L);
  push_instances(L);
  int inst_tab = lua_gettop(L);
  uint32_t n = ty_object_component_count(W, id);
  for (uint32_t i = 0; i < n; i++) {
    int32_t ref = ty_object_components(W, id)[i].ref;
    if (ref == TY_COMPONENT_REMOVED) continue;
    lua_rawgeti(L, inst_tab, ref);
    call_method(L, lua_gettop(L), "onDestroy", scene_idx, id);
    lua_pop(L, 1);
  }
  /* onDestroy may have added or removed components: release whatever is there now. */
  n = ty_object_component_count(W, id);
  for (uint32_t i = 0; i < n; i++) {
    int32_t ref = ty_object_components(W, id)[i].ref;
    if (ref != TY_COMPONENT_REMOVED) luaL_unref(L, inst_tab, ref);
  }
  lua_pop(L, 1);
  const ty_physics_ops *physics = ty_ctx_get(L)->physics;
  if (physics) physics->forget(L, id); /* its body leaves its world */
  ls_forget_object(L, id);
}

static int go_destroy(lua_State *L) {
  ty_go *g = ls_go_ud(L, 1);
  ty_world *W = world_of(L);
  if (!ty_object_alive(W, g->id) || ty_object_destroyed(W, g->id)) return 0; /* twice: no-op */
  ty_id loose[256];
  uint32_t n = ty_object_destroy(W, g->id, loose, 256);
  /* Objects in no scene have no sweep to wait for: finish them now. Past 256 (a huge
   * loose tree), walk the list again from the world. */
  TY_ASSERT(n <= 256 && "destroying a sceneless tree of over 256 objects");
  for (uint32_t i = 0; i < n; i++) {
    ls_finish_object(L, loose[i], 0);
    ty_object_free(W, loose[i]);
  }
  return 0;
}


const luaL_Reg ls_component_methods[] = {{"addComponent", go_addComponent},
                                         {"getComponent", go_getComponent},
                                         {"getComponents", go_getComponents},
                                         {"removeComponent", go_removeComponent},
                                         {"destroy", go_destroy},
                                         {NULL, NULL}};
