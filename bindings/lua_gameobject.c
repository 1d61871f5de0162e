/* bindings/lua_gameobject.c: tycho.GameObject: the userdata holding an object's id, its
 * name and cached views in user values (so `go.position` allocates nothing after the first
 * read), its local position, rotation and scale as plain Lua tables read back on demand
 * (compare on read), its hierarchy and tags, and the field access of __index/__newindex. */
#include "lua_scene_private.h"

/* ---- GameObject userdata ---- */

static int go_dead_error(lua_State *L, int idx, ty_id id) {
  lua_getiuservalue(L, idx, UV_NAME);
  const char *name = lua_tostring(L, -1);
  return luaL_error(L, "GameObject '%s' (id %I) was destroyed", name ? name : "?", (lua_Integer)id);
}

ty_id ty_check_gameobject(lua_State *L, int idx) {
  ty_go *g = ls_go_ud(L, idx);
  if (!ty_object_alive(world_of(L), g->id)) go_dead_error(L, idx, g->id);
  return g->id;
}

ty_id ty_opt_gameobject(lua_State *L, int idx) { return lua_isnoneornil(L, idx) ? 0 : ty_check_gameobject(L, idx); }

ty_id ty_test_gameobject(lua_State *L, int idx) {
  ty_go *g = lua_touserdata(L, idx);
  if (!g || lua_rawlen(L, idx) != sizeof *g || g->magic != TY_GO_MAGIC) return 0;
  return ty_check_gameobject(L, idx);
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
void ls_pull_all(void *user) {
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
void ls_pull_chain(lua_State *L, ty_id id) {
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

void ty_lua_pull(lua_State *L, ty_id id) { ls_pull_chain(L, id); }

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
  ctx->locals_epoch++;
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
  ctx->locals_epoch++;
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
void ls_set_local(lua_State *L, ty_go *g, int go_idx, int kind, const float *v) {
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
void ls_forget_object(lua_State *L, ty_id id) {
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

/* ---- hierarchy ---- */

static void set_parent_or_error(lua_State *L, ty_id child, ty_id parent) {
  ty_world *W = world_of(L);
  ty_scene *before = ty_object_scene(W, child);
  if (!ty_object_set_parent(W, child, parent)) {
    if (parent && ty_object_scene(W, parent) != before)
      luaL_error(L, "cannot move a GameObject between two scenes while one of them is ticking");
    luaL_error(L, "setParent would make a GameObject its own ancestor");
  }
  if (ty_object_scene(W, child) != before) ls_bind_time_subtree(L, child);
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
  ty_go *g = ls_go_ud(L, 1);
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
      ls_push_view(L, 1, g->id, (ty_view_kind)(TY_VIEW_POSITION + code - F_POSITION));
      ty_view_resolve(L, lua_touserdata(L, -1), false);
      return 1;
    case F_NAME: lua_getiuservalue(L, 1, UV_NAME); return 1;
    case F_ID: lua_pushinteger(L, g->id); return 1;
    case F_ENABLED: lua_pushboolean(L, ty_object_enabled(W, g->id)); return 1;
    case F_PARENT: ty_push_gameobject(L, ty_object_parent(W, g->id)); return 1;
    case F_CHILDREN: push_children(L, g->id); return 1;
    case F_TAGS: push_tags(L, g->id); return 1;
    case F_SCENE: ls_push_scene_of(L, ty_object_scene(W, g->id)); return 1;
    default: break;
  }
  /* Anything else is a field the game stored on the object. */
  if (lua_getiuservalue(L, 1, UV_FIELDS) == LUA_TNIL) return 1;
  lua_pushvalue(L, 2);
  lua_rawget(L, -2);
  return 1;
}

static int go_newindex(lua_State *L) {
  ty_go *g = ls_go_ud(L, 1);
  ty_lctx *ctx = ty_lctx_get(L);
  if (!ty_object_alive(ctx->world, g->id)) return go_dead_error(L, 1, g->id);
  int code = field_code(L);
  switch (code) {
    case F_POSITION:
    case F_ROTATION:
    case F_SCALE: ls_assign_trs(L, 1, 3, code - F_POSITION, 0); return 0;
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
  ty_go *g = ls_go_ud(L, 1);
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
  if (lua_getfield(L, opts, key) != LUA_TNIL) ls_assign_trs(L, go_idx, lua_gettop(L), kind, opts);
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


/* ---- opening ---- */

void ls_open_gameobject(lua_State *L, int tycho) {
  static const luaL_Reg go_meta[] = {{"__tostring", go_tostring}, {"__eq", go_eq}, {NULL, NULL}};
  static const luaL_Reg go_methods[] = {
      {"new", go_new},
      {"addChild", go_addChild},
      {"removeChild", go_removeChild},
      {"setParent", go_setParent},
      {"addTag", go_addTag},
      {"hasTag", go_hasTag},
      {"removeTag", go_removeTag},
      {NULL, NULL}};
  ty_type_register(L, TY_GAMEOBJECT, go_meta, go_methods);
  /* The methods table is tycho.GameObject, so Lua code can add methods to the class; the
   * component host and the transform access add theirs. */
  ty_type_push_methods(L, TY_GAMEOBJECT);
  luaL_setfuncs(L, ls_component_methods, 0);
  luaL_setfuncs(L, ls_transform_methods, 0);
  lua_setfield(L, tycho, "GameObject");
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
}
