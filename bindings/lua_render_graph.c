/* bindings/lua_render_graph.c: the render graph as a feature's addPasses sees it: the
 * Frame (the frame's resources, buckets and fields), its RenderGraph (transient targets,
 * fullscreen passes, passes whose execute is a Lua function) and RenderResource handles.
 *
 * Graph and resource handles carry the serial of the frame that made them: one kept past
 * its frame raises an error instead of naming a stranger. A Lua pass runs under ty_pcall;
 * its error is logged and listed in the frame's failures, and the frame goes on. */
#include "lua_render_state.h"

#include <string.h>

typedef struct lgraph {
  uint64_t serial;
} lgraph;

typedef struct lresource {
  rg_resource r;
  uint64_t serial;
} lresource;

void lr_release_passes(lua_State *L, lrender *lr) {
  for (uint32_t i = 0; i < lr->pass_count; i++) {
    luaL_unref(L, LUA_REGISTRYINDEX, lr->passes[i]->fn_ref);
    luaL_unref(L, LUA_REGISTRYINDEX, lr->passes[i]->owner_ref);
    TY_FREE(lr->passes[i]);
  }
  lr->pass_count = 0;
}

void lr_push_frame(lua_State *L, lrender *lr) {
  lua_rawgeti(L, LUA_REGISTRYINDEX, lr->frame_ref);
  if (lua_getiuservalue(L, -1, 1) != LUA_TTABLE) {
    lua_pop(L, 1);
    lua_createtable(L, 0, 4);
    lua_pushvalue(L, -1);
    lua_setiuservalue(L, -3, 1);
  }
  lgraph *g = lua_newuserdatauv(L, sizeof *g, 0);
  g->serial = lr->serial;
  luaL_setmetatable(L, TY_GRAPH);
  lua_setfield(L, -2, "graph");
  lua_pop(L, 1);
}

/* ---- resources and the graph ---- */

static void push_resource(lua_State *L, lrender *lr, rg_resource r) {
  if (!r.id) {
    lua_pushnil(L);
    return;
  }
  lresource *u = lua_newuserdatauv(L, sizeof *u, 0);
  u->r = r;
  u->serial = lr->serial;
  luaL_setmetatable(L, TY_RESOURCE);
}

/* The graph of the current frame; raises when there is none or the handle is stale. */
static rg_graph *graph_of(lua_State *L, lrender *lr, uint64_t serial) {
  if (!lr->F || serial != lr->serial) luaL_error(L, "this render graph belongs to an earlier frame");
  return lr->F->graph;
}

static rg_graph *check_graph(lua_State *L, int idx, lrender *lr, bool building) {
  lgraph *g = luaL_checkudata(L, idx, TY_GRAPH);
  rg_graph *rg = graph_of(L, lr, g->serial);
  if (building && !lr->in_frame) luaL_error(L, "passes can only be added while the frame is being built (addPasses)");
  return rg;
}

/* A resource argument: a RenderResource of this frame or the name of one. */
static rg_resource to_resource(lua_State *L, lrender *lr, int idx, const char *what) {
  idx = lua_absindex(L, idx);
  if (lua_type(L, idx) == LUA_TSTRING) {
    rg_resource r = lr->F ? rg_find(lr->F->graph, lua_tostring(L, idx)) : (rg_resource){0};
    if (!r.id) luaL_error(L, "%s: no resource named '%s' in this frame", what, lua_tostring(L, idx));
    return r;
  }
  lresource *u = luaL_testudata(L, idx, TY_RESOURCE);
  if (!u) luaL_error(L, "%s: a RenderResource or a resource name expected, got %s", what, luaL_typename(L, idx));
  if (u->serial != lr->serial) luaL_error(L, "%s: the resource belongs to an earlier frame", what);
  return u->r;
}

static int resource_tostring(lua_State *L) {
  lresource *u = luaL_checkudata(L, 1, TY_RESOURCE);
  lua_pushfstring(L, "RenderResource #%d", (int)u->r.id);
  return 1;
}

static int resource_eq(lua_State *L) {
  lresource *a = lua_touserdata(L, 1), *b = lua_touserdata(L, 2);
  lua_pushboolean(L, a->r.id == b->r.id && a->serial == b->serial);
  return 1;
}

static int resource_index(lua_State *L) {
  lresource *u = luaL_checkudata(L, 1, TY_RESOURCE);
  const char *k = luaL_checkstring(L, 2);
  lrender *lr = lr_get(L);
  if (strcmp(k, "id") == 0) {
    lua_pushinteger(L, u->r.id);
    return 1;
  }
  const rg_texture_info *info = lr->F && u->serial == lr->serial ? rg_resource_info(lr->F->graph, u->r) : NULL;
  if (!info) return lua_pushnil(L), 1;
  if (strcmp(k, "width") == 0) lua_pushinteger(L, info->width);
  else if (strcmp(k, "height") == 0) lua_pushinteger(L, info->height);
  else if (strcmp(k, "format") == 0) lua_pushstring(L, rg_format_name(info->format));
  else lua_pushnil(L);
  return 1;
}

static const char *const FORMAT_NAMES[] = {"default", "rgba8",     "srgb8_a8", "rgba16f", "rgba32f", "r11g11b10f",
                                           "rgb10_a2", "r8",       "rg8",      "r16f",    "rg16f",   "r32f",
                                           "rg32f",   "r32ui",     "depth16",  "depth24s8", "depth32f", NULL};

/* graph:transient(name [, {width=, height=, scale=, format=, layers=, samples=}]) -> RenderResource */
static int graph_transient(lua_State *L) {
  lrender *lr = lr_get(L);
  rg_graph *g = check_graph(L, 1, lr, true);
  const char *name = luaL_checkstring(L, 2);
  rg_texture_desc d = {0};
  if (!lua_isnoneornil(L, 3)) {
    luaL_checktype(L, 3, LUA_TTABLE);
    d.width = (uint32_t)lr_opt_number(L, 3, "width", 0, "transient");
    d.height = (uint32_t)lr_opt_number(L, 3, "height", 0, "transient");
    d.scale = lr_opt_number(L, 3, "scale", 0, "transient");
    d.layers = (uint32_t)lr_opt_number(L, 3, "layers", 0, "transient");
    d.samples = (uint32_t)lr_opt_number(L, 3, "samples", 0, "transient");
    lua_getfield(L, 3, "format");
    if (!lua_isnil(L, -1)) d.format = (rg_format)luaL_checkoption(L, -1, NULL, FORMAT_NAMES);
    lua_pop(L, 1);
  }
  rg_resource r = rg_transient(g, name, &d);
  if (!r.id) return luaL_error(L, "transient: the frame's graph is full (65535 resources)");
  push_resource(L, lr, r);
  return 1;
}

static int graph_find(lua_State *L) {
  lrender *lr = lr_get(L);
  rg_graph *g = check_graph(L, 1, lr, false);
  push_resource(L, lr, rg_find(g, luaL_checkstring(L, 2)));
  return 1;
}

static int graph_dump(lua_State *L) {
  lrender *lr = lr_get(L);
  rg_graph *g = check_graph(L, 1, lr, false);
  size_t need = rg_dump(g, NULL, 0);
  luaL_Buffer b;
  char *buf = luaL_buffinitsize(L, &b, need + 1);
  rg_dump(g, buf, need + 1);
  luaL_pushresultsize(&b, need);
  return 1;
}

/* Reads the array or map of resources at idx into out; names[i] gets the key (maps) or
 * "input<i>" (arrays). Returns how many. */
static uint32_t read_resources(lua_State *L, lrender *lr, int idx, rg_resource *out, const char **names,
                               uint32_t max, const char *what) {
  if (lua_isnil(L, idx)) return 0;
  if (!lua_istable(L, idx)) luaL_error(L, "%s must be a table of resources", what);
  idx = lua_absindex(L, idx);
  uint32_t n = 0;
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    if (n == max) luaL_error(L, "%s: at most %d resources", what, (int)max);
    out[n] = to_resource(L, lr, -1, what);
    if (names) {
      if (lua_type(L, -2) == LUA_TSTRING) {
        names[n] = lua_tostring(L, -2); /* the key stays in the table, so the string lives */
      } else {
        static const char *const inputs[] = {"input0", "input1", "input2", "input3",
                                             "input4", "input5", "input6", "input7"};
        lua_Integer i = lua_isinteger(L, -2) ? lua_tointeger(L, -2) : 0;
        names[n] = i >= 1 && i <= 8 ? inputs[i - 1] : inputs[n];
      }
    }
    n++;
    lua_pop(L, 1);
  }
  return n;
}

/* graph:fullscreen{name=, shader=path_or_source, reads={name=resource, ...}, write=resource,
 * params={...}} -> the written RenderResource */
static int graph_fullscreen(lua_State *L) {
  lrender *lr = lr_get(L);
  check_graph(L, 1, lr, true);
  luaL_checktype(L, 2, LUA_TTABLE);
  ty_fullscreen_desc d = {0};
  lua_getfield(L, 2, "name");
  bool named = !lua_isnil(L, -1);
  d.name = luaL_optstring(L, -1, "fullscreen");
  lua_getfield(L, 2, "shader");
  const char *shader = lua_tostring(L, -1);
  if (!shader) return luaL_argerror(L, 2, "'shader' (a path or GLSL source) is required");
  char path[4096];
  if (strchr(shader, '\n') || strstr(shader, "void main")) {
    /* The program is cached under this name. A named pass keeps its program when its source
     * changes (a failed rebuild keeps the last good one); unnamed passes are told apart by
     * their source, so two of them never share a program. */
    d.shader_source = shader;
    if (named) {
      d.shader_path = d.name;
    } else {
      uint64_t h = 1469598103934665603ull; /* FNV-1a */
      for (const char *c = shader; *c; c++) h = (h ^ (unsigned char)*c) * 1099511628211ull;
      snprintf(path, sizeof path, "fullscreen-%016llx", (unsigned long long)h);
      d.shader_path = path;
    }
  } else {
    lr_resolve_path(L, shader, path, sizeof path);
    d.shader_path = path;
  }
  lua_getfield(L, 2, "reads");
  d.read_count = read_resources(L, lr, -1, d.reads, d.read_names, TY_RENDER_MAX_PASS_READS, "fullscreen reads");
  lua_getfield(L, 2, "write");
  if (lua_isnil(L, -1)) return luaL_argerror(L, 2, "'write' (a resource) is required");
  d.write = to_resource(L, lr, -1, "fullscreen write");
  if (lua_getfield(L, 2, "params") == LUA_TTABLE) {
    lua_Integer n = luaL_len(L, -1);
    if (n > 16) return luaL_argerror(L, 2, "'params' holds at most 16 numbers");
    for (lua_Integer i = 1; i <= n; i++) {
      lua_geti(L, -1, i);
      d.params[i - 1] = (float)lua_tonumber(L, -1);
      lua_pop(L, 1);
    }
  }
  rg_resource old_hdr = lr->F->hdr;
  if (!ty_render_add_fullscreen(lr->R, lr->F, &d))
    return luaL_error(L, "fullscreen pass '%s': %s", d.name, ty_render_error(lr->R));
  /* A read-modify-write makes a fresh version: hand back the latest one. */
  if (d.write.id == old_hdr.id) push_resource(L, lr, lr->F->hdr);
  else if (lua_getfield(L, 2, "write") == LUA_TSTRING) push_resource(L, lr, rg_find(lr->F->graph, lua_tostring(L, -1)));
  else push_resource(L, lr, d.write);
  return 1;
}

static void push_bindings(lua_State *L, const rg_binding *b, uint32_t n) {
  lua_createtable(L, (int)n, 0);
  for (uint32_t i = 0; i < n; i++) {
    lua_createtable(L, 0, 4);
    lua_pushinteger(L, b[i].texture);
    lua_setfield(L, -2, "texture");
    lua_pushinteger(L, b[i].info.width);
    lua_setfield(L, -2, "width");
    lua_pushinteger(L, b[i].info.height);
    lua_setfield(L, -2, "height");
    lua_pushstring(L, rg_format_name(b[i].info.format));
    lua_setfield(L, -2, "format");
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
}

/* The execute of a Lua pass: calls its function with a context table, containing errors. */
static void lua_pass_execute(const rg_pass_context *ctx, void *user) {
  lua_pass *p = user;
  lua_State *L = p->L;
  int top = lua_gettop(L);
  lua_rawgeti(L, LUA_REGISTRYINDEX, p->fn_ref);
  lua_createtable(L, 0, 5);
  lua_pushstring(L, ctx->name);
  lua_setfield(L, -2, "name");
  lua_pushinteger(L, ctx->frame_width);
  lua_setfield(L, -2, "width");
  lua_pushinteger(L, ctx->frame_height);
  lua_setfield(L, -2, "height");
  push_bindings(L, ctx->reads, ctx->read_count);
  lua_setfield(L, -2, "reads");
  push_bindings(L, ctx->writes, ctx->write_count);
  lua_setfield(L, -2, "writes");
  if (!ty_pcall(L, 1, 0)) {
    const char *msg = lua_tostring(L, -1);
    /* A feature's pass is reported with the feature when the engine disables it. */
    if (p->owner_ref == LUA_NOREF || p->owner_ref == LUA_REFNIL)
      ty_log("render_pass_failed", "pass '%s': %s", p->name, msg ? msg : "?");
    lrender *lr = lr_get(L);
    lua_rawgeti(L, LUA_REGISTRYINDEX, lr->failures_ref);
    lua_createtable(L, 0, 3);
    lua_pushstring(L, p->name);
    lua_setfield(L, -2, "pass");
    lua_pushvalue(L, -3);
    lua_setfield(L, -2, "message");
    lua_rawgeti(L, LUA_REGISTRYINDEX, p->owner_ref);
    lua_setfield(L, -2, "owner");
    lua_rawseti(L, -2, (lua_Integer)luaL_len(L, -2) + 1);
  }
  lua_settop(L, top);
}

/* graph:addPass{name=, reads={}, writes={}, sideEffect=, compute=, execute=function(ctx) end} */
static int graph_addPass(lua_State *L) {
  lrender *lr = lr_get(L);
  rg_graph *g = check_graph(L, 1, lr, true);
  luaL_checktype(L, 2, LUA_TTABLE);
  rg_resource reads[32], writes[32];
  lua_getfield(L, 2, "name");
  const char *name = luaL_optstring(L, -1, "pass");
  lua_getfield(L, 2, "reads");
  uint32_t nr = read_resources(L, lr, -1, reads, NULL, 32, "addPass reads");
  lua_getfield(L, 2, "writes");
  uint32_t nw = read_resources(L, lr, -1, writes, NULL, 32, "addPass writes");
  rg_pass_desc d = {.name = name,
                    .kind = lr_opt_bool(L, 2, "compute", false) ? RG_PASS_COMPUTE : RG_PASS_RASTER,
                    .reads = reads,
                    .read_count = nr,
                    .writes = writes,
                    .write_count = nw,
                    .side_effect = lr_opt_bool(L, 2, "sideEffect", false)};
  int t = lua_getfield(L, 2, "execute");
  if (t != LUA_TNIL && t != LUA_TFUNCTION) return luaL_argerror(L, 2, "'execute' must be a function");
  if (t == LUA_TFUNCTION) {
    lua_pass *p = TY_MALLOC(sizeof *p);
    TY_ASSERT(p);
    p->L = L;
    snprintf(p->name, sizeof p->name, "%s", name);
    p->fn_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_rawgeti(L, LUA_REGISTRYINDEX, lr->owner_ref);
    p->owner_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    TY_GROW(lr->passes, lr->pass_cap, lr->pass_count + 1);
    lr->passes[lr->pass_count++] = p;
    d.execute = lua_pass_execute;
    d.user = p;
  }
  rg_pass pass = rg_add_pass(g, &d);
  if (!pass.id) return luaL_error(L, "addPass: the frame's graph is full (65535 passes)");
  lua_pushinteger(L, pass.id);
  return 1;
}

static int graph_tostring(lua_State *L) {
  luaL_checkudata(L, 1, TY_GRAPH);
  lua_pushliteral(L, "RenderGraph");
  return 1;
}

/* ---- Frame ---- */

static int frame_index(lua_State *L) {
  lrender *lr = lr_get(L);
  const char *k = luaL_checkstring(L, 2);
  ty_frame *F = lr->F;
  if (F) {
    struct {
      const char *name;
      rg_resource r;
    } res[] = {{"hdr", F->hdr},         {"depth", F->depth},         {"shadowMap", F->shadow_map},
               {"ao", F->ao},           {"lightGrid", F->light_grid}, {"bloom", F->bloom},
               {"backbuffer", F->backbuffer}};
    for (size_t i = 0; i < sizeof res / sizeof *res; i++) {
      if (strcmp(k, res[i].name) == 0) {
        push_resource(L, lr, res[i].r);
        return 1;
      }
    }
    if (strcmp(k, "gbuffer") == 0) {
      lua_createtable(L, 0, 3);
      push_resource(L, lr, F->gbuffer_albedo);
      lua_setfield(L, -2, "albedo");
      push_resource(L, lr, F->gbuffer_normal);
      lua_setfield(L, -2, "normal");
      push_resource(L, lr, F->gbuffer_material);
      lua_setfield(L, -2, "material");
      return 1;
    }
    if (strcmp(k, "buckets") == 0) {
      lua_createtable(L, 0, 6);
      lua_pushinteger(L, F->buckets.opaque);
      lua_setfield(L, -2, "opaque");
      lua_pushinteger(L, F->buckets.transparent);
      lua_setfield(L, -2, "transparent");
      lua_pushinteger(L, F->buckets.shadow);
      lua_setfield(L, -2, "shadow");
      lua_pushinteger(L, F->buckets.culled);
      lua_setfield(L, -2, "culled");
      lua_pushinteger(L, F->buckets.disabled);
      lua_setfield(L, -2, "disabled");
      lua_pushinteger(L, F->buckets.batches);
      lua_setfield(L, -2, "batches");
      return 1;
    }
    if (strcmp(k, "width") == 0) return lua_pushinteger(L, F->width), 1;
    if (strcmp(k, "height") == 0) return lua_pushinteger(L, F->height), 1;
    if (strcmp(k, "index") == 0) return lua_pushinteger(L, (lua_Integer)F->index), 1;
    if (strcmp(k, "time") == 0) return lua_pushnumber(L, F->time), 1;
    if (strcmp(k, "delta") == 0) return lua_pushnumber(L, F->delta), 1;
    if (strcmp(k, "lightCount") == 0) return lua_pushinteger(L, F->light_count), 1;
    if (strcmp(k, "hasSun") == 0) return lua_pushboolean(L, F->has_sun), 1;
  }
  /* graph, camera and whatever features stash live in the user value. */
  lua_getiuservalue(L, 1, 1);
  lua_pushvalue(L, 2);
  lua_rawget(L, -2);
  return 1;
}

static int frame_newindex(lua_State *L) {
  lua_getiuservalue(L, 1, 1);
  lua_pushvalue(L, 2);
  lua_pushvalue(L, 3);
  lua_rawset(L, -3);
  return 0;
}

static int frame_tostring(lua_State *L) {
  lrender *lr = lr_get(L);
  lua_pushfstring(L, "Frame #%d", lr->F ? (int)lr->F->index : 0);
  return 1;
}

/* ---- opening ---- */

void lr_open_graph(lua_State *L, lrender *lr) {
  static const luaL_Reg resource_meta[] = {
      {"__index", resource_index}, {"__eq", resource_eq}, {"__tostring", resource_tostring}, {NULL, NULL}};
  ty_type_register(L, TY_RESOURCE, resource_meta, NULL);
  static const luaL_Reg frame_meta[] = {
      {"__index", frame_index}, {"__newindex", frame_newindex}, {"__tostring", frame_tostring}, {NULL, NULL}};
  ty_type_register(L, TY_FRAME, frame_meta, NULL);

  static const luaL_Reg graph_methods[] = {{"fullscreen", graph_fullscreen},
                                           {"addPass", graph_addPass},
                                           {"transient", graph_transient},
                                           {"find", graph_find},
                                           {"dump", graph_dump},
                                           {NULL, NULL}};
  static const luaL_Reg graph_meta[] = {{"__tostring", graph_tostring}, {NULL, NULL}};
  ty_type_register(L, TY_GRAPH, graph_meta, graph_methods);

  /* The one Frame userdata; its user value holds graph, camera and feature fields. */
  lua_newuserdatauv(L, 1, 1);
  lua_newtable(L);
  lua_setiuservalue(L, -2, 1);
  luaL_setmetatable(L, TY_FRAME);
  lr->frame_ref = luaL_ref(L, LUA_REGISTRYINDEX);
}
