/* bindings/lua_scene.c: the Lua face of engine/core's scenes: tycho.Scene, tycho.GameObject,
 * the component host and the tick's dispatch into Lua.
 *
 * A GameObject is a userdata holding its id; its name and cached transform views hang off
 * its user values, so `go.position` allocates nothing after the first read. Component
 * instances are plain Lua tables kept in one registry table (INSTANCES) under an integer
 * ref; the core stores (ref, hooks) per object and walks them in join/add order. Each
 * phase runs under one lua_pcall: when a hook raises, the walk's cursor already points
 * past it, so the error is reported through scene.onError and the walk resumes there.
 */
#include "lua_scene.h"
#include "lua_host.h" /* Required for: ty_host_traceback */
#include "lua_physics.h" /* Required for: the physics phase, contacts, bodies leaving at the sweep */

#include <math.h>
#include <string.h>

/* GameObject user values. */
enum { UV_NAME = 1, UV_VIEWS = 2, UV_FIELDS = UV_VIEWS + 6, UV_COUNT = UV_FIELDS };
/* Scene user value 1: a table {time=, systems=, onError=}. */

static const char *const PHASE_NAMES[TY_PHASE_COUNT] = {
    "input", "prePhysics", "physics", "postPhysics", "gameLogic", "animation", "preRender", "render"};
static const char *const HOOK_NAMES[TY_PHASE_COUNT] = {
    "input", "prePhysics", "physics", "postPhysics", "update", "animation", "preRender", "updateRender"};

typedef struct ty_go {
  uint32_t magic; /* TY_GO_MAGIC: go_self's check that a userdata is a GameObject */
  ty_id id;
  uint32_t local[3]; /* 1-based slot of its position/rotation/scale table in the locals list; 0: none */
} ty_go;
#define TY_GO_MAGIC 0x6F47u

static const int LOCAL_N[3] = {3, 4, 3}; /* floats in a position, rotation, scale */
static const char *const LOCAL_NAMES[3] = {"position", "rotation", "scale"};
static const char *const AXES[4] = {"x", "y", "z", "w"};

/* ---- context ---- */

ty_lctx *ty_lctx_get(lua_State *L) { return *(ty_lctx **)lua_getextraspace(L); }

static ty_world *world_of(lua_State *L) { return ty_lctx_get(L)->world; }

static void push_instances(lua_State *L) { lua_rawgeti(L, LUA_REGISTRYINDEX, ty_lctx_get(L)->instances); }
static void push_objects(lua_State *L) { lua_rawgeti(L, LUA_REGISTRYINDEX, ty_lctx_get(L)->objects); }

/* ---- GameObject userdata ---- */

/* The GameObject at idx: a size and a magic number tell, without the registry lookup of
 * luaL_checkudata (a Lua script cannot make a userdata of its own). */
static ty_go *go_ud(lua_State *L, int idx) {
  ty_go *g = lua_touserdata(L, idx);
  if (g && lua_rawlen(L, idx) == sizeof *g && g->magic == TY_GO_MAGIC) return g; /* light userdata: length 0 */
  luaL_typeerror(L, idx, TY_GAMEOBJECT);
  return NULL;
}

static int go_dead_error(lua_State *L, int idx, ty_id id) {
  lua_getiuservalue(L, idx, UV_NAME);
  const char *name = lua_tostring(L, -1);
  return luaL_error(L, "GameObject '%s' (id %I) was destroyed", name ? name : "?", (lua_Integer)id);
}

ty_id ty_check_gameobject(lua_State *L, int idx) {
  ty_go *g = go_ud(L, idx);
  if (!ty_object_alive(world_of(L), g->id)) go_dead_error(L, idx, g->id);
  return g->id;
}

void ty_push_gameobject(lua_State *L, ty_id id) {
  if (!id) {
    lua_pushnil(L);
    return;
  }
  push_objects(L);
  lua_rawgeti(L, -1, TY_ID_NUMBER(id));
  lua_remove(L, -2);
}

static ty_id new_gameobject(lua_State *L, const char *name) {
  ty_lctx *ctx = ty_lctx_get(L);
  ty_id id = ty_object_create(ctx->world);
  if (!id) luaL_error(L, "too many GameObjects: all %d entity numbers are in use", (int)(TY_MAX_NUMBERS - TY_RESERVED_IDS));
  ty_go *g = lua_newuserdatauv(L, sizeof *g, UV_COUNT);
  memset(g, 0, sizeof *g);
  g->magic = TY_GO_MAGIC;
  g->id = id;
  ty_lctx *c = ty_lctx_get(L);
  if (TY_ID_NUMBER(id) >= c->gos_cap) {
    uint32_t cap = c->gos_cap ? c->gos_cap : 1024;
    while (cap <= TY_ID_NUMBER(id)) cap *= 2;
    struct ty_go **gos = TY_REALLOC(c->gos, cap * sizeof *gos);
    if (!gos) luaL_error(L, "out of memory");
    memset(gos + c->gos_cap, 0, (cap - c->gos_cap) * sizeof *gos);
    c->gos = gos;
    c->gos_cap = cap;
  }
  c->gos[TY_ID_NUMBER(id)] = g;
  luaL_setmetatable(L, TY_GAMEOBJECT);
  lua_pushstring(L, name ? name : "GameObject");
  lua_setiuservalue(L, -2, UV_NAME);
  push_objects(L);
  lua_pushvalue(L, -2);
  lua_rawseti(L, -2, TY_ID_NUMBER(id));
  lua_pop(L, 1);
  return id;
}

/* ---- local tables: position, rotation and scale as plain Lua tables ----
 *
 * A script reads and writes go.position.x at table speed; C reads the table back when it
 * needs the value (compare on read): every table at each transform sync, through the hook
 * the transforms call, and an object's own chain before one of its world values is read.
 * A table exists only once Lua asked for it, and every live one is in the locals list: a
 * Lua array (registry ref ctx->locals) beside a C array naming whose table each is. */

typedef struct ty_local_ref {
  struct ty_go *go; /* the GameObject userdata (alive while in the objects map) */
  uint32_t xf;      /* its transform, fixed for the object's life */
  uint8_t kind;     /* 0 position, 1 rotation, 2 scale */
} ty_local_ref;

static float *trs_field(ty_trs *t, int kind) { return kind == 0 ? t->pos : kind == 1 ? t->rot : t->scale; }

/* A field that is not a number is refused: it is set back to the value in force, and said
 * once on stderr (the write itself raised nothing, it was a plain table store). */
static void refuse_field(lua_State *L, int table, ty_go *g, int kind, int axis, float kept) {
  push_objects(L);
  lua_rawgeti(L, -1, TY_ID_NUMBER(g->id));
  lua_getiuservalue(L, -1, UV_NAME);
  lua_getfield(L, table, AXES[axis]);
  fprintf(stderr, "tycho: GameObject '%s' %s.%s must be a number, got %s; kept %.9g\n", lua_tostring(L, -2),
          LOCAL_NAMES[kind], AXES[axis], luaL_typename(L, -1), (double)kept);
  lua_pop(L, 4);
  lua_pushnumber(L, kept);
  lua_setfield(L, table, AXES[axis]);
}

/* Reads the local table on top of the stack into transform xf (g's), writing only what
 * changed (bitwise, as the transforms compare), so an unchanged table costs no rebuild. */
static void pull_table(lua_State *L, ty_transforms *T, uint32_t xf, ty_go *g, int kind) {
  const float *have = trs_field((ty_trs *)ty_transform_local(T, xf), kind);
  int n = LOCAL_N[kind], table = lua_gettop(L);
  float v[4];
  int isnum[4];
  for (int i = 0; i < n; i++) lua_getfield(L, table, AXES[i]); /* raw: no field is missing */
  for (int i = 0; i < n; i++) v[i] = (float)lua_tonumberx(L, table + 1 + i, &isnum[i]);
  lua_settop(L, table);
  bool changed = false;
  for (int i = 0; i < n; i++) {
    if (!isnum[i]) {
      v[i] = have[i];
      refuse_field(L, table, g, kind, i, have[i]);
    }
    uint32_t a, b;
    memcpy(&a, &v[i], sizeof a);
    memcpy(&b, &have[i], sizeof b);
    changed |= a != b;
  }
  if (changed) memcpy(trs_field(ty_transform_write(T, xf), kind), v, sizeof(float) * (size_t)n);
}

/* Pushes the locals list (with stack room for a pull) and returns its index. */
static int push_locals(lua_State *L, ty_lctx *ctx) {
  luaL_checkstack(L, 12, "reading local transforms");
  lua_rawgeti(L, LUA_REGISTRYINDEX, ctx->locals);
  return lua_gettop(L);
}

/* The transforms' pull hook: every live local table, read back before a sync. */
static void pull_all(void *user) {
  ty_lctx *ctx = user;
  if (!ctx->local_count) return;
  lua_State *L = ctx->L;
  int list = push_locals(L, ctx);
  ty_transforms *T = ty_world_transforms(ctx->world);
  for (uint32_t k = 0; k < ctx->local_count; k++) {
    const ty_local_ref *r = &ctx->local_refs[k];
    lua_rawgeti(L, list, (lua_Integer)k + 1);
    pull_table(L, T, r->xf, r->go, r->kind);
    lua_pop(L, 1);
  }
  lua_settop(L, list - 1);
}

/* Reads back the local tables of id and of each of its ancestors: what its world values
 * depend on. */
static void pull_chain(lua_State *L, ty_id id) {
  ty_lctx *ctx = ty_lctx_get(L);
  ty_transforms *T = ty_world_transforms(ctx->world);
  int list = 0;
  for (; id; id = ty_object_parent(ctx->world, id)) {
    ty_go *g = ctx->gos[TY_ID_NUMBER(id)];
    for (int kind = 0; g && kind < 3; kind++) {
      if (!g->local[kind]) continue;
      if (!list) list = push_locals(L, ctx);
      lua_rawgeti(L, list, g->local[kind]);
      pull_table(L, T, ctx->local_refs[g->local[kind] - 1].xf, g, kind);
      lua_pop(L, 1);
    }
  }
  if (list) lua_settop(L, list - 1);
}

void ty_lua_pull(lua_State *L, ty_id id) { pull_chain(L, id); }

/* Pushes the local table of kind for the GameObject g at go_idx, making it on first use. */
static void push_local(lua_State *L, int go_idx, ty_go *g, int kind) {
  if (lua_getiuservalue(L, go_idx, UV_VIEWS + kind) != LUA_TNIL) return;
  lua_pop(L, 1);
  ty_lctx *ctx = ty_lctx_get(L);
  ty_transforms *T = ty_world_transforms(ctx->world);
  ty_push_local(L, trs_field((ty_trs *)ty_transform_local(T, ty_object_transform(ctx->world, g->id)), kind),
                LOCAL_N[kind]);
  lua_pushvalue(L, -1);
  lua_setiuservalue(L, go_idx, UV_VIEWS + kind);
  if (ctx->local_count == ctx->local_cap) {
    uint32_t cap = ctx->local_cap ? ctx->local_cap * 2 : 256;
    ty_local_ref *refs = TY_REALLOC(ctx->local_refs, cap * sizeof *refs);
    if (!refs) luaL_error(L, "out of memory");
    ctx->local_refs = refs;
    ctx->local_cap = cap;
  }
  ctx->local_refs[ctx->local_count] = (ty_local_ref){g, ty_object_transform(ctx->world, g->id), (uint8_t)kind};
  g->local[kind] = ++ctx->local_count;
  lua_rawgeti(L, LUA_REGISTRYINDEX, ctx->locals);
  lua_pushvalue(L, -2);
  lua_rawseti(L, -2, g->local[kind]);
  lua_pop(L, 1);
}

/* Takes g's table of kind off the locals list (the last entry moves into its slot). */
static void drop_local(lua_State *L, ty_go *g, int kind) {
  uint32_t slot = g->local[kind];
  if (!slot) return;
  ty_lctx *ctx = ty_lctx_get(L);
  uint32_t last = ctx->local_count--;
  lua_rawgeti(L, LUA_REGISTRYINDEX, ctx->locals);
  if (slot != last) {
    ty_local_ref moved = ctx->local_refs[last - 1];
    ctx->local_refs[slot - 1] = moved;
    moved.go->local[moved.kind] = slot;
    lua_rawgeti(L, -1, last);
    lua_rawseti(L, -2, slot);
  }
  lua_pushnil(L);
  lua_rawseti(L, -2, last);
  lua_pop(L, 1);
  g->local[kind] = 0;
}

/* Writes v into g's local kind: the transform, and the table when Lua has one. */
static void set_local(lua_State *L, ty_go *g, int go_idx, int kind, const float *v) {
  ty_world *W = world_of(L);
  ty_trs *t = ty_transform_write(ty_world_transforms(W), ty_object_transform(W, g->id));
  memcpy(trs_field(t, kind), v, sizeof(float) * (size_t)LOCAL_N[kind]);
  if (!g->local[kind]) return;
  lua_getiuservalue(L, go_idx, UV_VIEWS + kind);
  for (int i = 0; i < LOCAL_N[kind]; i++) {
    lua_pushnumber(L, v[i]);
    lua_setfield(L, -2, AXES[i]);
  }
  lua_pop(L, 1);
}

void ty_lua_set_local(lua_State *L, ty_id id, int kind, const float *v) {
  ty_lctx *ctx = ty_lctx_get(L);
  ty_go *g = ctx->gos[TY_ID_NUMBER(id)];
  ty_transforms *T = ty_world_transforms(ctx->world);
  memcpy(trs_field(ty_transform_write(T, ty_object_transform(ctx->world, id)), kind), v,
         sizeof(float) * (size_t)LOCAL_N[kind]);
  if (!g || !g->local[kind]) return;
  /* The table is the locals list's entry: no need for the GameObject on the stack. */
  int list = push_locals(L, ctx);
  lua_rawgeti(L, list, g->local[kind]);
  for (int i = 0; i < LOCAL_N[kind]; i++) {
    lua_pushnumber(L, v[i]);
    lua_setfield(L, -2, AXES[i]);
  }
  lua_settop(L, list - 1);
}

uint32_t ty_lua_local_slot(lua_State *L, ty_id id, int kind) {
  ty_go *g = ty_lctx_get(L)->gos[TY_ID_NUMBER(id)];
  return g ? g->local[kind] : 0;
}

/* Forgets the Lua side of object id as its id goes stale: its GameObject leaves the objects
 * map, and its cached transform views (and local tables, emptied) are remembered weakly with
 * its description, "GameObject 'name' (id N)", so one kept past the object's end still
 * names it in the error it raises. */
static void forget_object(lua_State *L, ty_id id) {
  push_objects(L);
  int objects = lua_gettop(L);
  if (lua_rawgeti(L, objects, TY_ID_NUMBER(id)) == LUA_TUSERDATA) {
    int go = lua_gettop(L);
    ty_go *g = lua_touserdata(L, go);
    for (int kind = 0; kind < 3; kind++) drop_local(L, g, kind);
    ty_lctx_get(L)->gos[TY_ID_NUMBER(id)] = NULL;
    lua_rawgeti(L, LUA_REGISTRYINDEX, ty_lctx_get(L)->dead_views);
    lua_getiuservalue(L, go, UV_NAME);
    lua_pushfstring(L, "GameObject '%s' (id %I)", lua_tostring(L, -1), (lua_Integer)id);
    int desc = lua_gettop(L);
    for (int uv = UV_VIEWS; uv < UV_FIELDS; uv++) {
      if (lua_getiuservalue(L, go, uv) == LUA_TNIL) {
        lua_pop(L, 1);
        continue;
      }
      if (lua_istable(L, -1)) ty_kill_local(L, -1);
      lua_pushvalue(L, desc);
      lua_rawset(L, desc - 2);
    }
  }
  lua_pushnil(L);
  lua_rawseti(L, objects, TY_ID_NUMBER(id));
  lua_settop(L, objects - 1);
}

/* ---- scenes: the userdata behind a ty_scene ---- */

ty_lscene *ty_check_scene(lua_State *L, int idx) { return luaL_checkudata(L, idx, TY_SCENE); }

static void push_scene_of(lua_State *L, ty_scene *S) {
  if (!S) {
    lua_pushnil(L);
    return;
  }
  lua_rawgeti(L, LUA_REGISTRYINDEX, ty_lctx_get(L)->scenes);
  lua_rawgetp(L, -1, S);
  lua_remove(L, -2);
}

/* Pushes field `key` of the scene's data table (scene at idx). */
static int scene_data(lua_State *L, int idx, const char *key) {
  lua_getiuservalue(L, idx, 1);
  int t = lua_getfield(L, -1, key);
  lua_remove(L, -2);
  return t;
}

/* ---- errors from hooks ---- */

/* The message and a traceback that starts at the user's line (not at `error` or the walk). */
static int traceback_handler(lua_State *L) {
  const char *msg = lua_tostring(L, 1);
  if (!msg) msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
  ty_host_traceback(L, L, msg, 1);
  return 1;
}

/* tycho._setErrorReporter(fn|nil): fn(message, info) takes the errors of scenes that have
 * no onError (scripts/tycho/errors.lua: deduplicated, counted, shown on screen). */
static const char reporter_key = 0;

static int set_error_reporter(lua_State *L) {
  if (!lua_isnil(L, 1)) luaL_checktype(L, 1, LUA_TFUNCTION);
  lua_settop(L, 1);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &reporter_key);
  return 0;
}

/* Reports the error message on top of the stack: scene.onError(message, info) when the
 * scene (at scene_idx, or 0 for none) has one, else the reporter errors.lua installed,
 * else stderr. Pops the message. An error raised by onError propagates. */
static void report_error(lua_State *L, int scene_idx, const char *hook, ty_id object, int inst_idx) {
  int msg = lua_gettop(L);
  ty_lctx_get(L)->errors_caught++;
  bool handler = scene_idx && scene_data(L, scene_idx, "onError") != LUA_TNIL;
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
 * after it) protected, reporting an error through report_error. */
static void call_hook(lua_State *L, int nargs, int scene_idx, const char *hook, ty_id object, int inst_idx) {
  int fn = lua_gettop(L) - nargs;
  lua_pushcfunction(L, traceback_handler);
  lua_insert(L, fn);
  if (lua_pcall(L, nargs, 0, fn) != LUA_OK) report_error(L, scene_idx, hook, object, inst_idx);
  lua_remove(L, fn);
}

/* Calls inst[method](inst) protected if it exists. inst at inst_idx (absolute). */
static void call_method(lua_State *L, int inst_idx, const char *method, int scene_idx, ty_id object) {
  if (lua_getfield(L, inst_idx, method) != LUA_TFUNCTION) {
    lua_pop(L, 1);
    return;
  }
  lua_pushvalue(L, inst_idx);
  call_hook(L, 1, scene_idx, method, object, inst_idx);
}

void ty_lua_call_components(lua_State *L, int scene_idx, ty_id id, const char *method, int nargs) {
  int args = lua_gettop(L) - nargs + 1;
  ty_world *W = world_of(L);
  push_instances(L);
  int inst_tab = lua_gettop(L);
  /* A hook may add or remove components (or disable the object): check each time round. */
  for (uint32_t i = 0; ty_object_alive(W, id) && ty_object_active(W, id) && i < ty_object_component_count(W, id);
       i++) {
    int32_t ref = ty_object_components(W, id)[i].ref;
    if (ref == TY_COMPONENT_REMOVED) continue;
    lua_rawgeti(L, inst_tab, ref);
    int inst = lua_gettop(L);
    lua_getfield(L, inst, "enabled");
    bool off = lua_isboolean(L, -1) && !lua_toboolean(L, -1);
    lua_pop(L, 1);
    if (!off && lua_getfield(L, inst, method) == LUA_TFUNCTION) {
      lua_pushvalue(L, inst);
      for (int a = 0; a < nargs; a++) lua_pushvalue(L, args + a);
      call_hook(L, nargs + 1, scene_idx, method, id, inst);
    } else if (!off) {
      lua_pop(L, 1);
    }
    lua_settop(L, inst_tab);
  }
  lua_settop(L, args - 1);
}

/* ---- components ---- */

static uint32_t compute_hooks(lua_State *L, int inst_idx) {
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
    push_scene_of(L, S);
    scene_data(L, lua_gettop(L), "time");
    lua_remove(L, -2);
  } else {
    lua_pushnil(L);
  }
  lua_setfield(L, inst_idx, "time");
}

/* Gives every component in id's subtree its scene's clock as `time`. */
static void bind_time_subtree(lua_State *L, ty_id root) {
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
      if (top == 64) bind_time_subtree(L, c); /* deep trees: recurse past the local stack */
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
  ty_object_add_component(W, id, ref, compute_hooks(L, inst));
  ty_scene *S = ty_object_scene(W, id);
  push_scene_of(L, S);
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
  push_scene_of(L, S);
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
static void finish_object(lua_State *L, ty_id id, int scene_idx) {
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
  ty_lua_physics_forget(L, id);
  forget_object(L, id);
}

typedef struct sweep_ctx {
  lua_State *L;
  int scene_idx;
} sweep_ctx;

static void on_sweep(void *user, ty_id id) {
  sweep_ctx *c = user;
  finish_object(c->L, id, c->scene_idx);
}

static int go_destroy(lua_State *L) {
  ty_go *g = go_ud(L, 1);
  ty_world *W = world_of(L);
  if (!ty_object_alive(W, g->id) || ty_object_destroyed(W, g->id)) return 0; /* twice: no-op */
  ty_id loose[256];
  uint32_t n = ty_object_destroy(W, g->id, loose, 256);
  /* Objects in no scene have no sweep to wait for: finish them now. Past 256 (a huge
   * loose tree), walk the list again from the world. */
  TY_ASSERT(n <= 256 && "destroying a sceneless tree of over 256 objects");
  for (uint32_t i = 0; i < n; i++) {
    finish_object(L, loose[i], 0);
    ty_object_free(W, loose[i]);
  }
  return 0;
}

/* ---- hierarchy ---- */

static void set_parent_or_error(lua_State *L, ty_id child, ty_id parent) {
  ty_world *W = world_of(L);
  ty_scene *before = ty_object_scene(W, child);
  if (!ty_object_set_parent(W, child, parent)) {
    if (parent && ty_object_scene(W, parent) != before)
      luaL_error(L, "cannot move a GameObject between two scenes while one of them is ticking");
    luaL_error(L, "setParent would make a GameObject its own ancestor");
  }
  if (ty_object_scene(W, child) != before) bind_time_subtree(L, child);
}

static int go_setParent(lua_State *L) {
  ty_id id = ty_check_gameobject(L, 1);
  ty_id parent = lua_isnoneornil(L, 2) ? 0 : ty_check_gameobject(L, 2);
  set_parent_or_error(L, id, parent);
  return 0;
}

static int go_addChild(lua_State *L) {
  ty_id id = ty_check_gameobject(L, 1);
  set_parent_or_error(L, ty_check_gameobject(L, 2), id);
  lua_settop(L, 2);
  return 1;
}

static int go_removeChild(lua_State *L) {
  ty_id id = ty_check_gameobject(L, 1);
  ty_id child = ty_check_gameobject(L, 2);
  if (ty_object_parent(world_of(L), child) == id) set_parent_or_error(L, child, 0);
  return 0;
}

static void push_children(lua_State *L, ty_id id) {
  ty_world *W = world_of(L);
  lua_newtable(L);
  int k = 0;
  for (ty_id c = ty_object_first_child(W, id); c; c = ty_object_next_sibling(W, c)) {
    ty_push_gameobject(L, c);
    lua_rawseti(L, -2, ++k);
  }
}

/* ---- tags ---- */

static int go_addTag(lua_State *L) {
  ty_id id = ty_check_gameobject(L, 1);
  ty_world *W = world_of(L);
  ty_object_add_tag(W, id, ty_world_tag(W, luaL_checkstring(L, 2), true));
  return 0;
}

static int go_hasTag(lua_State *L) {
  ty_id id = ty_check_gameobject(L, 1);
  ty_world *W = world_of(L);
  uint32_t tag = ty_world_tag(W, luaL_checkstring(L, 2), false);
  lua_pushboolean(L, tag && ty_object_has_tag(W, id, tag));
  return 1;
}

static int go_removeTag(lua_State *L) {
  ty_id id = ty_check_gameobject(L, 1);
  ty_world *W = world_of(L);
  uint32_t tag = ty_world_tag(W, luaL_checkstring(L, 2), false);
  if (tag) ty_object_remove_tag(W, id, tag);
  return 0;
}

static void push_tags(lua_State *L, ty_id id) {
  ty_world *W = world_of(L);
  const uint32_t *tags;
  uint32_t n = ty_object_tags(W, id, &tags);
  lua_createtable(L, (int)n, 0);
  for (uint32_t i = 0; i < n; i++) {
    lua_pushstring(L, ty_world_tag_name(W, tags[i]));
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
}

/* ---- transform access ---- */

/* The error for a view or dead local table (at idx) whose owner is gone, naming the owner
 * forget_object remembered. */
int ty_dead_view_error(lua_State *L, int idx) {
  idx = lua_absindex(L, idx);
  lua_rawgeti(L, LUA_REGISTRYINDEX, ty_lctx_get(L)->dead_views);
  lua_pushvalue(L, idx);
  lua_rawget(L, -2);
  const char *desc = lua_tostring(L, -1);
  return luaL_error(L, "%s was destroyed; its transform can no longer be used", desc ? desc : "a GameObject");
}

/* The view is an argument of the running C function, so its userdata is on the stack. */
static int dead_view_error(lua_State *L, const ty_vec *u) {
  for (int i = 1; i <= lua_gettop(L); i++)
    if (lua_touserdata(L, i) == u) return ty_dead_view_error(L, i);
  return luaL_error(L, "GameObject (id %I) was destroyed; its transform can no longer be used", (lua_Integer)u->owner);
}

float *ty_view_resolve(lua_State *L, ty_vec *u, bool write) {
  if (u->view >= TY_VIEW_VELOCITY_2D) return ty_lua_physics_view(L, u, write);
  ty_world *W = world_of(L);
  if (!ty_object_alive(W, u->owner)) dead_view_error(L, u);
  if (write) luaL_error(L, "world position, rotation and scale are read-only: set position, rotation or scale");
  pull_chain(L, u->owner);
  ty_transforms *T = ty_world_transforms(W);
  uint32_t xf = ty_object_transform(W, u->owner);
  switch ((ty_view_kind)u->view) {
    case TY_VIEW_WORLD_POSITION: ty_transform_world_position(T, xf, u->v); break;
    case TY_VIEW_WORLD_ROTATION: ty_transform_world_rotation(T, xf, u->v); break;
    case TY_VIEW_WORLD_SCALE: ty_transform_world_scale(T, xf, u->v); break;
    default: break;
  }
  return u->v;
}

/* Pushes the cached world view of kind for the GameObject at idx, creating it once. */
static void push_view(lua_State *L, int idx, ty_id id, ty_view_kind kind) {
  int uv = UV_VIEWS + (int)kind - TY_VIEW_POSITION;
  if (lua_getiuservalue(L, idx, uv) != LUA_TNIL) return;
  lua_pop(L, 1);
  ty_push_view(L, id, kind);
  lua_pushvalue(L, -1);
  lua_setiuservalue(L, idx, uv);
}

/* The transform of id with its world values current: its chain's local tables read back. */
static uint32_t current_transform(lua_State *L, ty_id id) {
  pull_chain(L, id);
  return ty_object_transform(world_of(L), id);
}

static int get_world_into(lua_State *L, ty_view_kind kind) {
  ty_id id = ty_check_gameobject(L, 1);
  ty_transforms *T = ty_world_transforms(world_of(L));
  uint32_t xf = current_transform(L, id);
  float v[4];
  if (kind == TY_VIEW_WORLD_ROTATION) ty_transform_world_rotation(T, xf, v);
  else if (kind == TY_VIEW_WORLD_SCALE) ty_transform_world_scale(T, xf, v);
  else ty_transform_world_position(T, xf, v);
  if (lua_isnoneornil(L, 2)) {
    if (kind == TY_VIEW_WORLD_ROTATION) ty_push_quat(L, v[0], v[1], v[2], v[3]);
    else ty_push_vec3(L, v[0], v[1], v[2]);
    return 1;
  }
  if (kind == TY_VIEW_WORLD_ROTATION) ty_write_quat(L, 2, v);
  else ty_write_vec3(L, 2, v);
  lua_settop(L, 2);
  return 1;
}

static int go_getWorldPosition(lua_State *L) { return get_world_into(L, TY_VIEW_WORLD_POSITION); }
static int go_getWorldRotation(lua_State *L) { return get_world_into(L, TY_VIEW_WORLD_ROTATION); }
static int go_getWorldScale(lua_State *L) { return get_world_into(L, TY_VIEW_WORLD_SCALE); }

static const float *world_matrix(lua_State *L, ty_id id) {
  return ty_transform_world(ty_world_transforms(world_of(L)), current_transform(L, id));
}

const float *ty_lua_world_matrix(lua_State *L, ty_id id) { return world_matrix(L, id); }

static int go_localToWorld(lua_State *L) {
  ty_push_mat4(L, world_matrix(L, ty_check_gameobject(L, 1)));
  return 1;
}

static int go_localToWorldInto(lua_State *L) {
  ty_id id = ty_check_gameobject(L, 1);
  float *m = ty_check_mat4(L, 2);
  memcpy(m, world_matrix(L, id), sizeof(float) * 16);
  lua_settop(L, 2);
  return 1;
}

static int go_worldToLocal(lua_State *L) {
  ty_id id = ty_check_gameobject(L, 1);
  ty_push_mat4(L, ty_transform_world_inverse(ty_world_transforms(world_of(L)), current_transform(L, id)));
  return 1;
}

/* Reads argument idx as a point or direction: a Vec3 of any form, a {x=, y=, z=} or
 * {x, y, z} table, or (when objects is true) a GameObject, which stands for its world
 * position. Anything else raises the standard bad argument error. */
static void check_point(lua_State *L, int idx, bool objects, double out[3]) {
  float f[3];
  if (objects && lua_type(L, idx) == LUA_TUSERDATA && lua_rawlen(L, idx) == sizeof(ty_go) &&
      ((ty_go *)lua_touserdata(L, idx))->magic == TY_GO_MAGIC) {
    ty_id id = ty_check_gameobject(L, idx);
    ty_transform_world_position(ty_world_transforms(world_of(L)), current_transform(L, id), f);
  } else if (ty_is_vec3(L, idx)) {
    ty_read_vec3(L, idx, f);
  } else if (lua_type(L, idx) == LUA_TTABLE) {
    for (int i = 0; i < 3; i++) {
      if (lua_getfield(L, idx, AXES[i]) == LUA_TNIL) {
        lua_pop(L, 1);
        lua_rawgeti(L, idx, i + 1);
      }
      int ok;
      f[i] = (float)lua_tonumberx(L, -1, &ok);
      lua_pop(L, 1);
      if (!ok) luaL_argerror(L, idx, lua_pushfstring(L, "the table needs a number for '%s'", AXES[i]));
    }
  } else {
    luaL_typeerror(L, idx, objects ? "Vec3 or GameObject" : "Vec3");
  }
  for (int i = 0; i < 3; i++) out[i] = f[i];
}

static void cross3(const double a[3], const double b[3], double out[3]) {
  double x = a[1] * b[2] - a[2] * b[1], y = a[2] * b[0] - a[0] * b[2], z = a[0] * b[1] - a[1] * b[0];
  out[0] = x, out[1] = y, out[2] = z;
}

static double norm3(const double v[3]) { return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

/* The linear part of the column-major 4x4 m applied to direction v. */
static void mul_dir(const float *m, double v[3]) {
  double x = v[0], y = v[1], z = v[2];
  for (int r = 0; r < 3; r++) v[r] = m[r] * x + m[4 + r] * y + m[8 + r] * z;
}

/* The unit quaternion (x, y, z, w) of the rotation whose columns are the orthonormal axes
 * x, y, z (Shepperd's method: the largest diagonal term keeps the square root away from 0). */
static void quat_from_axes(const double x[3], const double y[3], const double z[3], float q[4]) {
  double t = x[0] + y[1] + z[2], v[4];
  if (t > 0) {
    double s = 0.5 / sqrt(t + 1.0);
    v[0] = (y[2] - z[1]) * s, v[1] = (z[0] - x[2]) * s, v[2] = (x[1] - y[0]) * s, v[3] = 0.25 / s;
  } else if (x[0] >= y[1] && x[0] >= z[2]) {
    double s = 2.0 * sqrt(1.0 + x[0] - y[1] - z[2]);
    v[0] = 0.25 * s, v[1] = (y[0] + x[1]) / s, v[2] = (z[0] + x[2]) / s, v[3] = (y[2] - z[1]) / s;
  } else if (y[1] >= z[2]) {
    double s = 2.0 * sqrt(1.0 + y[1] - x[0] - z[2]);
    v[0] = (y[0] + x[1]) / s, v[1] = 0.25 * s, v[2] = (z[1] + y[2]) / s, v[3] = (z[0] - x[2]) / s;
  } else {
    double s = 2.0 * sqrt(1.0 + z[2] - x[0] - y[1]);
    v[0] = (z[0] + x[2]) / s, v[1] = (z[1] + y[2]) / s, v[2] = 0.25 * s, v[3] = (x[1] - y[0]) / s;
  }
  double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]);
  for (int i = 0; i < 4; i++) q[i] = (float)(v[i] / n);
}

/* go:lookAt(target [, up]) -> go: turns the object so its forward (-Z, where a Camera
 * looks) points at target (a point, or a GameObject's world position) and its +Y leans
 * towards up (default +Y), both in world space. The local rotation is what changes, worked
 * out in the parent's space so a rotated or scaled parent is accounted for. A target at the
 * object's own position leaves the rotation as it is; an up along the line of sight is
 * replaced by -Z or +Z (the limit of tilting towards it from the default view), then +Y. */
static int go_lookAt(lua_State *L) {
  ty_go *g = go_ud(L, 1);
  ty_id id = ty_check_gameobject(L, 1);
  double target[3], up[3] = {0, 1, 0};
  check_point(L, 2, true, target);
  if (!lua_isnoneornil(L, 3)) check_point(L, 3, false, up);
  ty_world *W = world_of(L);
  ty_transforms *T = ty_world_transforms(W);
  float eye[3];
  ty_transform_world_position(T, current_transform(L, id), eye);
  double f[3] = {target[0] - eye[0], target[1] - eye[1], target[2] - eye[2]};
  ty_id parent = ty_object_parent(W, id);
  if (parent) {
    const float *inv = ty_transform_world_inverse(T, current_transform(L, parent));
    mul_dir(inv, f);
    mul_dir(inv, up);
  }
  double len = norm3(f);
  if (!(len > 1e-9) || !isfinite(len)) {
    lua_settop(L, 1);
    return 1;
  }
  double z[3] = {-f[0] / len, -f[1] / len, -f[2] / len}, x[3], y[3];
  cross3(up, z, x);
  double ulen = norm3(up), xlen = norm3(x);
  if (!(xlen > 1e-6 * ulen) || !isfinite(xlen)) {
    /* up is (nearly) along the line of sight, or zero */
    double along = up[0] * f[0] + up[1] * f[1] + up[2] * f[2];
    double alt[3] = {0, 0, along > 0 ? 1.0 : -1.0};
    cross3(alt, z, x);
    xlen = norm3(x);
    if (!(xlen > 1e-6)) {
      double y_up[3] = {0, 1, 0};
      cross3(y_up, z, x);
      xlen = norm3(x);
    }
  }
  for (int i = 0; i < 3; i++) x[i] /= xlen;
  cross3(z, x, y);
  float q[4];
  quat_from_axes(x, y, z, q);
  set_local(L, g, 1, 1, q);
  lua_settop(L, 1);
  return 1;
}

/* Copies a Vec3/Quat (any form) or {x=,y=,z=[,w=]} table at idx into local kind of the
 * GameObject at go_idx. A wrong value raises a bad argument error for argument arg
 * (GameObject.new's table), or a plain error naming the field when arg is 0 (an
 * assignment); nothing is written then. */
static void assign_trs(lua_State *L, int go_idx, int idx, int kind, int arg) {
  const char *field = LOCAL_NAMES[kind];
  const char *type = kind == 1 ? TY_QUAT : TY_VEC3;
  int n = LOCAL_N[kind];
  float v[4];
  const char *bad = NULL;
  if (kind == 1 ? ty_is_quat(L, idx) : ty_is_vec3(L, idx)) {
    if (kind == 1) ty_read_quat(L, idx, v);
    else ty_read_vec3(L, idx, v);
  } else if (lua_istable(L, idx)) {
    /* {x=, y=, z=[, w=]} or {x, y, z[, w]} */
    for (int i = 0; i < n && !bad; i++) {
      if (lua_getfield(L, idx, AXES[i]) == LUA_TNIL) {
        lua_pop(L, 1);
        lua_rawgeti(L, idx, i + 1);
      }
      int ok;
      v[i] = (float)lua_tonumberx(L, -1, &ok);
      lua_pop(L, 1);
      if (!ok) bad = lua_pushfstring(L, "%s table needs a number for '%s'", field, AXES[i]);
    }
  } else {
    bad = lua_pushfstring(L, "%s must be a %s or a table, got %s", field, type, luaL_typename(L, idx));
  }
  if (bad) {
    if (arg) luaL_argerror(L, arg, bad);
    luaL_error(L, "GameObject.%s", bad);
  }
  /* Written only once read: reading a view may bring other transforms up to date. */
  set_local(L, lua_touserdata(L, go_idx), go_idx, kind, v);
}

/* ---- GameObject metamethods ---- */

/* What a key of a GameObject names: go_index and go_newindex look it up in one table
 * (their upvalue 4) instead of comparing strings; 0 is a field the game stored. */
enum {
  F_GAME = 0,
  F_POSITION, F_ROTATION, F_SCALE, /* in TY_VIEW_* order */
  F_WORLD_POSITION, F_WORLD_ROTATION, F_WORLD_SCALE,
  F_NAME, F_ID, F_ENABLED, F_PARENT, F_CHILDREN, F_TAGS, F_SCENE, F_DESTROYED,
  F_COUNT
};
static const char *const FIELD_NAMES[F_COUNT] = {
    NULL, "position", "rotation", "scale", "worldPosition", "worldRotation", "worldScale",
    "name", "id", "enabled", "parent", "children", "tags", "scene", "destroyed"};

/* The field code of key 2 (F_GAME for anything else, and for non-string keys). The
 * hottest key is found by one raw comparison with upvalue 3, "position": short strings are
 * interned, so that compares two pointers. */
static int field_code(lua_State *L) {
  if (lua_rawequal(L, 2, lua_upvalueindex(3))) return F_POSITION;
  if (lua_type(L, 2) != LUA_TSTRING) return F_GAME;
  lua_pushvalue(L, 2);
  int code = lua_rawget(L, lua_upvalueindex(4)) == LUA_TNUMBER ? (int)lua_tointeger(L, -1) : F_GAME;
  lua_pop(L, 1);
  return code;
}

/* __index and __newindex close over: 1 the GameObject metatable, 2 the methods table
 * (tycho.GameObject), 3 the string "position", 4 the field codes. */
static int go_index(lua_State *L) {
  ty_go *g = go_ud(L, 1);
  ty_lctx *ctx = ty_lctx_get(L);
  ty_world *W = ctx->world;
  int code = field_code(L);
  if (code == F_POSITION && ty_object_alive(W, g->id)) { /* the hot path, first */
    push_local(L, 1, g, 0);
    return 1;
  }
  if (code == F_GAME && lua_type(L, 2) == LUA_TSTRING) {
    /* Methods next: each checks its object itself. */
    lua_pushvalue(L, 2);
    if (lua_rawget(L, lua_upvalueindex(2)) != LUA_TNIL) return 1;
    lua_pop(L, 1);
  }
  if (code == F_DESTROYED) { /* the one field a destroyed object still answers */
    lua_pushboolean(L, ty_object_destroyed(W, g->id));
    return 1;
  }
  if (!ty_object_alive(W, g->id)) return go_dead_error(L, 1, g->id);
  switch (code) {
    case F_POSITION:
    case F_ROTATION:
    case F_SCALE: push_local(L, 1, g, code - F_POSITION); return 1;
    case F_WORLD_POSITION:
    case F_WORLD_ROTATION:
    case F_WORLD_SCALE:
      /* Reading go.worldPosition reads it: brought up to date now, as stats count it. */
      push_view(L, 1, g->id, (ty_view_kind)(TY_VIEW_POSITION + code - F_POSITION));
      ty_view_resolve(L, lua_touserdata(L, -1), false);
      return 1;
    case F_NAME: lua_getiuservalue(L, 1, UV_NAME); return 1;
    case F_ID: lua_pushinteger(L, g->id); return 1;
    case F_ENABLED: lua_pushboolean(L, ty_object_enabled(W, g->id)); return 1;
    case F_PARENT: ty_push_gameobject(L, ty_object_parent(W, g->id)); return 1;
    case F_CHILDREN: push_children(L, g->id); return 1;
    case F_TAGS: push_tags(L, g->id); return 1;
    case F_SCENE: push_scene_of(L, ty_object_scene(W, g->id)); return 1;
    default: break;
  }
  /* Anything else is a field the game stored on the object. */
  if (lua_getiuservalue(L, 1, UV_FIELDS) == LUA_TNIL) return 1;
  lua_pushvalue(L, 2);
  lua_rawget(L, -2);
  return 1;
}

static int go_newindex(lua_State *L) {
  ty_go *g = go_ud(L, 1);
  ty_lctx *ctx = ty_lctx_get(L);
  if (!ty_object_alive(ctx->world, g->id)) return go_dead_error(L, 1, g->id);
  int code = field_code(L);
  switch (code) {
    case F_POSITION:
    case F_ROTATION:
    case F_SCALE: assign_trs(L, 1, 3, code - F_POSITION, 0); return 0;
    case F_WORLD_POSITION:
    case F_WORLD_ROTATION:
    case F_WORLD_SCALE:
      return luaL_error(L, "GameObject.%s is read-only: set position, rotation or scale", FIELD_NAMES[code]);
    case F_NAME:
      luaL_checkstring(L, 3);
      lua_pushvalue(L, 3);
      lua_setiuservalue(L, 1, UV_NAME);
      return 0;
    case F_ENABLED: ty_object_set_enabled(ctx->world, g->id, lua_toboolean(L, 3)); return 0;
    case F_PARENT: set_parent_or_error(L, g->id, lua_isnil(L, 3) ? 0 : ty_check_gameobject(L, 3)); return 0;
    case F_ID:
    case F_CHILDREN:
    case F_TAGS:
    case F_SCENE:
    case F_DESTROYED: return luaL_error(L, "GameObject.%s is read-only", FIELD_NAMES[code]);
    default: break;
  }
  if (lua_getiuservalue(L, 1, UV_FIELDS) == LUA_TNIL) {
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_setiuservalue(L, 1, UV_FIELDS);
  }
  lua_pushvalue(L, 2);
  lua_pushvalue(L, 3);
  lua_rawset(L, -3);
  return 0;
}

static int go_tostring(lua_State *L) {
  ty_go *g = go_ud(L, 1);
  lua_getiuservalue(L, 1, UV_NAME);
  lua_pushfstring(L, "GameObject '%s' (id %I)", lua_tostring(L, -1), (lua_Integer)g->id);
  return 1;
}

static int go_eq(lua_State *L) {
  ty_go *a = luaL_testudata(L, 1, TY_GAMEOBJECT), *b = luaL_testudata(L, 2, TY_GAMEOBJECT);
  lua_pushboolean(L, a && b && a->id == b->id);
  return 1;
}

/* Applies a {x=,y=,z=} / Vec3 option if present to the GameObject at go_idx. */
static void apply_trs_option(lua_State *L, int opts, const char *key, int go_idx, int kind) {
  if (lua_getfield(L, opts, key) != LUA_TNIL) assign_trs(L, go_idx, lua_gettop(L), kind, opts);
  lua_pop(L, 1);
}

/* GameObject.new(name) or GameObject.new{name=, tags=, position=, rotation=, scale=, enabled=} */
static int go_new(lua_State *L) {
  if (lua_istable(L, 1)) {
    int t = lua_getfield(L, 1, "name");
    if (t != LUA_TNIL && t != LUA_TSTRING && t != LUA_TNUMBER)
      return luaL_argerror(L, 1, lua_pushfstring(L, "name must be a string, got %s", luaL_typename(L, -1)));
    const char *name = t == LUA_TNIL ? "GameObject" : lua_tostring(L, -1);
    ty_id id = new_gameobject(L, name);
    int go = lua_gettop(L);
    ty_world *W = world_of(L);
    apply_trs_option(L, 1, "position", go, 0);
    apply_trs_option(L, 1, "rotation", go, 1);
    apply_trs_option(L, 1, "scale", go, 2);
    if (lua_getfield(L, 1, "tags") == LUA_TTABLE) {
      for (lua_Integer i = 1; lua_rawgeti(L, -1, i) != LUA_TNIL; i++) {
        if (!lua_isstring(L, -1)) return luaL_argerror(L, 1, "tags must be strings");
        ty_object_add_tag(W, id, ty_world_tag(W, lua_tostring(L, -1), true));
        lua_pop(L, 1);
      }
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
    if (lua_getfield(L, 1, "enabled") != LUA_TNIL) ty_object_set_enabled(W, id, lua_toboolean(L, -1));
    lua_pop(L, 1);
    lua_pushvalue(L, go);
    return 1;
  }
  new_gameobject(L, luaL_optstring(L, 1, "GameObject"));
  return 1;
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
  ty_clock **tp = lua_newuserdatauv(L, sizeof *tp, 1);
  *tp = &ls->clock;
  luaL_setmetatable(L, TY_TIME);
  lua_pushvalue(L, s);
  lua_setiuservalue(L, -2, 1);
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
    forget_object(L, id);
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
  bind_time_subtree(L, id);
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
    bind_time_subtree(L, id);
    return 0;
  }
  /* It leaves at the sweep: remember it so end_section takes its components' clock away. */
  if (scene_data(L, 1, "leaving") != LUA_TTABLE) {
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
  scene_data(L, 1, "systems");
  lua_pushvalue(L, sys);
  lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
  lua_pop(L, 1);
  if (lua_getfield(L, sys, "init") == LUA_TFUNCTION) call_hook(L, 0, 1, "system init", 0, 0);
  else lua_pop(L, 1);
  track(L, "system", sys, 1);
  lua_pushvalue(L, sys);
  return 1;
}

static int scene_removeSystem(lua_State *L) {
  ty_check_scene(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  scene_data(L, 1, "systems");
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
    if (lua_getfield(L, 2, "dispose") == LUA_TFUNCTION) call_hook(L, 0, 1, "system dispose", 0, 0);
    else lua_pop(L, 1);
    lua_pushboolean(L, 1);
    return 1;
  }
  lua_pushboolean(L, 0);
  return 1;
}

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
  if (p == TY_PHASE_PHYSICS) ty_lua_physics_step(L, scene_idx, ls->scene, lua_tonumber(L, arg_idx));
  if (p == TY_PHASE_POST_PHYSICS) ty_lua_physics_contacts(L, scene_idx, ls->scene);
  scene_data(L, scene_idx, "systems");
  int systems = lua_gettop(L);
  for (lua_Integer i = 1; lua_rawgeti(L, systems, i) != LUA_TNIL; i++) {
    lua_getfield(L, -1, "__phase");
    bool mine = lua_tointeger(L, -1) == p;
    lua_pop(L, 1);
    if (mine && lua_getfield(L, -1, "update") == LUA_TFUNCTION) {
      lua_pushvalue(L, arg_idx);
      call_hook(L, 1, scene_idx, PHASE_NAMES[p], 0, 0);
    } else if (mine) {
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
  lua_settop(L, systems - 1);
  if (!ty_scene_hook_count(ls->scene, p)) return;

  walk_args args = {ls->scene, p, {0}};
  for (;;) {
    lua_pushcfunction(L, traceback_handler);
    int handler = lua_gettop(L);
    lua_pushcfunction(L, walk_protected);
    lua_pushlightuserdata(L, &args);
    push_instances(L);
    lua_pushstring(L, HOOK_NAMES[p]);
    lua_pushliteral(L, "enabled");
    lua_pushvalue(L, arg_idx);
    if (lua_pcall(L, 5, 0, handler) == LUA_OK) {
      lua_pop(L, 1);
      return;
    }
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
    report_error(L, scene_idx, HOOK_NAMES[p], object, inst);
    lua_settop(L, handler - 1);
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
      ty_object_set_component_hooks(W, id, c, compute_hooks(L, lua_gettop(L)));
      lua_pop(L, 1);
    }
  }
  lua_settop(L, inst_tab - 1);
}

static void end_section(lua_State *L, int scene_idx, ty_lscene *ls) {
  sweep_ctx sc = {L, scene_idx};
  ty_scene_end(ls->scene, on_sweep, &sc);
  /* Objects removed during the section have left now: their components lose the clock
   * (or take the one of a scene they were moved into). */
  if (scene_data(L, scene_idx, "leaving") == LUA_TTABLE) {
    ty_world *W = world_of(L);
    lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
    for (lua_Integer i = 1; i <= n; i++) {
      lua_rawgeti(L, -1, i);
      ty_id id = (ty_id)lua_tointeger(L, -1);
      lua_pop(L, 1);
      if (ty_object_alive(W, id) && ty_object_scene(W, id) != ls->scene) bind_time_subtree(L, id);
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
  end_section(L, 1, lua_touserdata(L, 1));
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

static int scene_index(lua_State *L) {
  ty_lscene *ls = ty_check_scene(L, 1);
  const char *k = lua_tostring(L, 2);
  if (luaL_getmetafield(L, 1, "__methods") && lua_getfield(L, -1, k) != LUA_TNIL) return 1;
  if (!k) return 0;
  if (strcmp(k, "time") == 0 || strcmp(k, "onError") == 0) {
    scene_data(L, 1, k);
    return 1;
  }
  if (strcmp(k, "physics2d") == 0 || strcmp(k, "physics") == 0) {
    ty_lua_physics_push_world(L, 1, k[7] == '2' ? 2 : 3);
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
  ty_lctx **pp = lua_touserdata(L, 1);
  if (*pp) {
    ty_world_destroy((*pp)->world);
    TY_FREE((*pp)->local_refs);
    TY_FREE((*pp)->gos);
    TY_FREE(*pp);
    *pp = NULL;
    *(ty_lctx **)lua_getextraspace(L) = NULL;
  }
  return 0;
}

static void new_class(lua_State *L, const char *name, const luaL_Reg *meta, const luaL_Reg *methods,
                      const char *global) {
  luaL_newmetatable(L, name);
  luaL_setfuncs(L, meta, 0);
  lua_newtable(L);
  luaL_setfuncs(L, methods, 0);
  lua_pushvalue(L, -1);
  lua_setfield(L, -3, "__methods");
  /* The methods table is tycho.<global>, so Lua code can add methods to the class. */
  lua_setfield(L, -3, global);
  lua_pop(L, 1);
}

void ty_open_scene(lua_State *L) {
  int tycho = lua_gettop(L);
  /* The context lives in a userdata whose __gc frees the world when the state closes;
   * objects and scenes are freed with it. */
  ty_lctx **pp = lua_newuserdatauv(L, sizeof *pp, 0);
  *pp = TY_MALLOC(sizeof **pp);
  TY_ASSERT(*pp);
  memset(*pp, 0, sizeof **pp);
  ty_lctx *ctx = *pp;
  ctx->world = ty_world_create();
  lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_MAINTHREAD);
  ctx->L = lua_tothread(L, -1);
  lua_pop(L, 1);
  ty_transforms_set_pull(ty_world_transforms(ctx->world), pull_all, ctx);
  *(ty_lctx **)lua_getextraspace(L) = ctx;
  lua_newtable(L);
  lua_pushcfunction(L, ctx_gc);
  lua_setfield(L, -2, "__gc");
  lua_setmetatable(L, -2);
  luaL_ref(L, LUA_REGISTRYINDEX);

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

  static const luaL_Reg go_meta[] = {{"__tostring", go_tostring}, {"__eq", go_eq}, {NULL, NULL}};
  static const luaL_Reg go_methods[] = {
      {"new", go_new},
      {"addComponent", go_addComponent},
      {"getComponent", go_getComponent},
      {"getComponents", go_getComponents},
      {"removeComponent", go_removeComponent},
      {"addChild", go_addChild},
      {"removeChild", go_removeChild},
      {"setParent", go_setParent},
      {"addTag", go_addTag},
      {"hasTag", go_hasTag},
      {"removeTag", go_removeTag},
      {"destroy", go_destroy},
      {"getWorldPosition", go_getWorldPosition},
      {"getWorldRotation", go_getWorldRotation},
      {"getWorldScale", go_getWorldScale},
      {"localToWorld", go_localToWorld},
      {"localToWorldInto", go_localToWorldInto},
      {"worldToLocal", go_worldToLocal},
      {"lookAt", go_lookAt},
      {NULL, NULL}};
  lua_pushvalue(L, tycho);
  new_class(L, TY_GAMEOBJECT, go_meta, go_methods, "GameObject");
  /* __index and __newindex close over the metatable, the methods table, "position" and
   * the field codes. */
  luaL_getmetatable(L, TY_GAMEOBJECT);
  int go_mt = lua_gettop(L);
  lua_getfield(L, go_mt, "__methods");
  lua_createtable(L, 0, F_COUNT);
  for (int f = 1; f < F_COUNT; f++) {
    lua_pushstring(L, FIELD_NAMES[f]);
    lua_pushinteger(L, f);
    lua_rawset(L, -3);
  }
  static const struct { const char *name; lua_CFunction fn; } go_access[] = {
      {"__index", go_index}, {"__newindex", go_newindex}};
  for (int i = 0; i < 2; i++) {
    lua_pushvalue(L, go_mt);
    lua_pushvalue(L, go_mt + 1);
    lua_pushliteral(L, "position");
    lua_pushvalue(L, go_mt + 2);
    lua_pushcclosure(L, go_access[i].fn, 4);
    lua_setfield(L, go_mt, go_access[i].name);
  }
  lua_settop(L, go_mt - 1);

  static const luaL_Reg scene_meta[] = {{"__index", scene_index},
                                        {"__newindex", scene_newindex},
                                        {"__gc", scene_gc},
                                        {"__tostring", scene_tostring},
                                        {NULL, NULL}};
  static const luaL_Reg scene_methods[] = {{"new", scene_new},
                                           {"add", scene_add},
                                           {"remove", scene_remove},
                                           {"update", scene_update},
                                           {"updateRender", scene_updateRender},
                                           {"addSystem", scene_addSystem},
                                           {"removeSystem", scene_removeSystem},
                                           {"findById", scene_findById},
                                           {"findByTag", scene_findByTag},
                                           {"findOneByTag", scene_findOneByTag},
                                           {"objects", scene_objects},
                                           {NULL, NULL}};
  new_class(L, TY_SCENE, scene_meta, scene_methods, "Scene");
  lua_pop(L, 1);

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
  lua_pushcfunction(L, set_error_reporter);
  lua_setfield(L, tycho, "_setErrorReporter");
}
