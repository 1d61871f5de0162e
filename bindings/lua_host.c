/* bindings/lua_host.c: the Lua host: state creation, package.path, tycho.fs, tycho.now,
 * tycho.fanout (one message to many members, for server rooms), and protected calls that
 * report file:line with a traceback. */
#include "lua_host.h"
#include "lua_image.h" /* Required for: ty_open_image */
#include "lua_json.h"  /* Required for: tycho.fanout's one encode */
#include "lua_particles.h" /* Required for: ty_open_particles */
#include "lua_physics.h" /* Required for: ty_open_physics */
#include "lua_window.h" /* Required for: ty_open_window */

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- tracebacks that start at the user's line ---- */

/* "@<root>/scripts/": the chunk name prefix of the engine's own Lua files. */
static const char *engine_source_prefix(size_t *len) {
  static char prefix[PATH_MAX + 16];
  static size_t n;
  if (!n) {
    const char *root = ty_host_root();
    if (!root) return NULL;
    snprintf(prefix, sizeof prefix, "@%s/scripts/", root);
    n = strlen(prefix);
  }
  *len = n;
  return prefix;
}

/* A frame the user did not write: a C function, or a function in the engine's scripts/. */
static bool engine_frame(const lua_Debug *ar) {
  if (*ar->what == 'C') return true;
  size_t n;
  const char *prefix = engine_source_prefix(&n);
  return prefix && ar->source && strncmp(ar->source, prefix, n) == 0;
}

/* One traceback line, as luaL_traceback writes it; global is the function's name found in
 * package.loaded, or NULL (ty_host_traceback does not search). */
static void add_frame(luaL_Buffer *b, lua_State *L, const lua_Debug *ar, const char *global) {
  if (ar->currentline <= 0) lua_pushfstring(L, "\n\t%s: in ", ar->short_src);
  else lua_pushfstring(L, "\n\t%s:%d: in ", ar->short_src, ar->currentline);
  luaL_addvalue(b);
  if (global) lua_pushfstring(L, "function '%s'", global);
  else if (*ar->namewhat) lua_pushfstring(L, "%s '%s'", ar->namewhat, ar->name);
  else if (*ar->what == 'm') lua_pushliteral(L, "main chunk");
  else if (*ar->what != 'C') lua_pushfstring(L, "function <%s:%d>", ar->short_src, ar->linedefined);
  else lua_pushliteral(L, "?");
  luaL_addvalue(b);
  if (ar->istailcall) luaL_addstring(b, "\n\t(...tail calls...)");
}

void ty_host_traceback(lua_State *L, lua_State *L1, const char *msg, int level) {
  enum { HEAD = 10, TAIL = 11 }; /* as luaL_traceback: the first and last frames of a deep stack */
  lua_Debug ar;
  int depth = level, first = -1, last = -1;
  for (; lua_getstack(L1, depth, &ar); depth++) {
    lua_getinfo(L1, "S", &ar);
    if (!engine_frame(&ar)) {
      if (first < 0) first = depth;
      last = depth;
    }
  }
  if (first < 0) first = level, last = depth - 1; /* all engine: keep it all, it is the engine's bug */
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  if (msg) {
    luaL_addstring(&b, msg);
    luaL_addchar(&b, '\n');
  }
  luaL_addstring(&b, "stack traceback:");
  int n = last - first + 1;
  for (int i = first; i <= last; i++) {
    if (n > HEAD + TAIL && i == first + HEAD) {
      lua_pushfstring(L, "\n\t...\t(skipping %d levels)", n - HEAD - TAIL);
      luaL_addvalue(&b);
      i = last - TAIL;
      continue;
    }
    if (!lua_getstack(L1, i, &ar)) break;
    lua_getinfo(L1, "Slnt", &ar);
    add_frame(&b, L, &ar, NULL);
  }
  luaL_pushresult(&b);
}

/* tycho._traceback([msg [, level]]): debug.traceback trimmed to the user's frames. */
static int host_traceback(lua_State *L) {
  const char *msg = lua_tostring(L, 1);
  if (msg == NULL && !lua_isnoneornil(L, 1)) { /* a non-string error object goes through */
    lua_settop(L, 1);
    return 1;
  }
  ty_host_traceback(L, L, msg, (int)luaL_optinteger(L, 2, 1));
  return 1;
}

int ty_msgh(lua_State *L) {
  const char *msg = lua_tostring(L, 1);
  if (!msg) {
    if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING) msg = lua_tostring(L, -1);
    else msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
  }
  ty_host_traceback(L, L, msg, 1);
  return 1;
}

/* ---- debug.traceback, one search of the loaded modules per call ---- */

/* luaL_traceback names each frame's function after the first field of package.loaded (two
 * levels deep) that holds it, and searches the whole table again for every frame: in a state
 * that has loaded the engine, busted and its helpers, that search is most of what `tycho
 * test` spends per `it` (busted takes a traceback where each test is declared). This is Lua
 * 5.4's debug.traceback with the same text, frames and skipped levels, that finds every
 * frame's name in one walk of package.loaded in the same order, so each gets the same
 * first match. */
enum { TB_HEAD = 10, TB_TAIL = 11, TB_FRAMES = TB_HEAD + TB_TAIL + 2 };

static int tb_last_level(lua_State *L) {
  lua_Debug ar;
  int li = 1, le = 1;
  while (lua_getstack(L, le, &ar)) { li = le; le *= 2; }
  while (li < le) {
    int m = (li + le) / 2;
    if (lua_getstack(L, m, &ar)) li = m + 1;
    else le = m;
  }
  return le - 1;
}

/* Names (stack slots names..names+n-1, nil where none) for the n functions fns[] in one walk
 * of package.loaded: a field of a module, or a module, as findfield's order finds it first. */
static void tb_name_frames(lua_State *L, int names, const void *const *fns, int n) {
  lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  if (!lua_istable(L, -1)) { lua_pop(L, 1); return; }
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    if (lua_type(L, -2) == LUA_TSTRING) {
      if (lua_type(L, -1) == LUA_TFUNCTION) {
        const void *p = lua_topointer(L, -1);
        for (int i = 0; i < n; i++) {
          if (fns[i] != p || !lua_isnil(L, names + i)) continue;
          const char *name = lua_tostring(L, -2);
          if (strncmp(name, LUA_GNAME ".", 3) == 0) lua_pushstring(L, name + 3);
          else lua_pushvalue(L, -2);
          lua_replace(L, names + i);
        }
      } else if (lua_istable(L, -1)) {
        lua_pushnil(L);
        while (lua_next(L, -2)) {
          if (lua_type(L, -2) == LUA_TSTRING && lua_type(L, -1) == LUA_TFUNCTION) {
            const void *p = lua_topointer(L, -1);
            for (int i = 0; i < n; i++) {
              if (fns[i] != p || !lua_isnil(L, names + i)) continue;
              lua_pushvalue(L, -4); /* module name */
              lua_pushliteral(L, ".");
              lua_pushvalue(L, -4); /* field name */
              lua_concat(L, 3);
              const char *name = lua_tostring(L, -1);
              if (strncmp(name, LUA_GNAME ".", 3) == 0) {
                lua_pushstring(L, name + 3);
                lua_remove(L, -2);
              }
              lua_replace(L, names + i);
            }
          }
          lua_pop(L, 1);
        }
      }
    }
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
}

static int fast_traceback(lua_State *L) {
  int arg = 0;
  lua_State *L1 = L;
  if (lua_isthread(L, 1)) {
    arg = 1;
    L1 = lua_tothread(L, 1);
  }
  const char *msg = lua_tostring(L, arg + 1);
  if (msg == NULL && !lua_isnoneornil(L, arg + 1)) { /* non-string 'msg': returned untouched */
    lua_pushvalue(L, arg + 1);
    return 1;
  }
  int level = (int)luaL_optinteger(L, arg + 2, (L == L1) ? 1 : 0);
  lua_Debug ar[TB_FRAMES];
  const void *fns[TB_FRAMES];
  int n = 0, skip_at = -1, skip_n = 0;
  int last = tb_last_level(L1);
  int limit2show = (last - level > TB_HEAD + TB_TAIL) ? TB_HEAD : -1;
  while (n < TB_FRAMES && lua_getstack(L1, level++, &ar[n])) {
    if (limit2show-- == 0) { /* as luaL_traceback: the first frames, a note, the last ones */
      skip_n = last - level - TB_TAIL + 1;
      skip_at = n;
      level += skip_n;
    } else {
      lua_getinfo(L1, "Slnt", &ar[n]);
      n++;
    }
  }
  luaL_checkstack(L, n + 8, "traceback");
  for (int i = 0; i < n; i++) { /* each frame's function, as pushglobalfuncname gets it */
    lua_getinfo(L, "f", &ar[i]);
    fns[i] = lua_topointer(L, -1);
    lua_pop(L, 1);
  }
  int names = lua_gettop(L) + 1;
  for (int i = 0; i < n; i++) lua_pushnil(L);
  tb_name_frames(L, names, fns, n);
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  if (msg) {
    luaL_addstring(&b, msg);
    luaL_addchar(&b, '\n');
  }
  luaL_addstring(&b, "stack traceback:");
  for (int i = 0; i < n; i++) {
    if (i == skip_at) {
      lua_pushfstring(L, "\n\t...\t(skipping %d levels)", skip_n);
      luaL_addvalue(&b);
    }
    add_frame(&b, L, &ar[i], lua_tostring(L, names + i));
  }
  if (skip_at == n) { /* the stack ended right after the note */
    lua_pushfstring(L, "\n\t...\t(skipping %d levels)", skip_n);
    luaL_addvalue(&b);
  }
  luaL_pushresult(&b);
  return 1;
}

/* tycho._useFastTraceback(): makes debug.traceback the function above (kept out of every
 * other table, so that no traceback names it differently); returns Lua's own, which it
 * keeps in the registry for the specs that compare the two. */
static int host_use_fast_traceback(lua_State *L) {
  static const char KEY[] = "tycho.luaTraceback";
  lua_getglobal(L, LUA_DBLIBNAME);
  if (!lua_istable(L, -1)) return luaL_error(L, "no debug library");
  if (lua_getfield(L, LUA_REGISTRYINDEX, KEY) == LUA_TNIL) {
    lua_pop(L, 1);
    lua_getfield(L, -1, "traceback");
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, KEY);
  }
  lua_pushcfunction(L, fast_traceback);
  lua_setfield(L, -3, "traceback");
  return 1;
}

bool ty_host_call(lua_State *L, int nargs, int nresults, const char *what) {
  if (ty_pcall(L, nargs, nresults)) return true;
  fprintf(stderr, "tycho: %s: %s\n", what, lua_tostring(L, -1));
  lua_pop(L, 1);
  return false;
}

/* ---- tycho.fs ---- */

typedef struct path_list {
  char **items;
  uint32_t n, cap;
} path_list;

static void walk_dir(const char *dir, path_list *out) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue; /* hidden files and . / .. */
    size_t len = strlen(dir) + strlen(e->d_name) + 2;
    char *path = TY_MALLOC(len);
    TY_ASSERT(path);
    snprintf(path, len, "%s/%s", dir, e->d_name);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
      walk_dir(path, out);
      TY_FREE(path);
    } else if (S_ISREG(st.st_mode)) {
      TY_GROW(out->items, out->cap, out->n + 1);
      out->items[out->n++] = path;
    } else {
      TY_FREE(path);
    }
  }
  closedir(d);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* tycho.fs.walk(path) -> sorted array of regular files under path, or nil, message */
static int fs_walk(lua_State *L) {
  const char *root = luaL_checkstring(L, 1);
  struct stat st;
  if (stat(root, &st) != 0) {
    return ty_fail(L, "%s: %s", root, strerror(errno));
  }
  lua_newtable(L);
  if (!S_ISDIR(st.st_mode)) {
    lua_pushvalue(L, 1);
    lua_rawseti(L, -2, 1);
    return 1;
  }
  size_t rl = strlen(root);
  while (rl > 1 && root[rl - 1] == '/') rl--; /* "tests/" lists as "tests/x", not "tests//x" */
  lua_pushlstring(L, root, rl);
  path_list list = {0};
  walk_dir(lua_tostring(L, -1), &list);
  lua_pop(L, 1);
  qsort(list.items, list.n, sizeof *list.items, cmp_str);
  for (uint32_t i = 0; i < list.n; i++) {
    lua_pushstring(L, list.items[i]);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
    TY_FREE(list.items[i]);
  }
  TY_FREE(list.items);
  return 1;
}

static int fs_exists(lua_State *L) {
  struct stat st;
  lua_pushboolean(L, stat(luaL_checkstring(L, 1), &st) == 0);
  return 1;
}

/* tycho.now() -> monotonic seconds, for timing game code. */
static int host_now(lua_State *L) {
  lua_pushnumber(L, ty_now());
  return 1;
}

#define FANOUT_SENDER "tycho.fanout.sender" /* registry: {mt = metatable, send = its sender} */

typedef struct fanout_sender_box {
  ty_fanout_sender send;
} fanout_sender_box;

void ty_fanout_set_sender(lua_State *L, const char *tname, ty_fanout_sender send) {
  lua_createtable(L, 0, 2);
  luaL_getmetatable(L, tname);
  lua_setfield(L, -2, "mt");
  fanout_sender_box *b = lua_newuserdatauv(L, sizeof *b, 0);
  b->send = send;
  lua_setfield(L, -2, "send");
  lua_setfield(L, LUA_REGISTRYINDEX, FANOUT_SENDER);
}

/* tycho.fanout(ids, members, msg [, exceptId]) -> sent, firstError
 * Sends msg to members[id] for each id of the array ids but exceptId, in that order: a
 * member with sendText gets msg's JSON, encoded once here (on the first such member, so an
 * unencodable msg raises before any of them got it); one without gets member:send(msg).
 * Each send is a protected call: one that raises is skipped and its error returned after
 * the others were sent to. The loop is C, so a broadcast to N members costs a server
 * module's instruction fence nothing per member (Room:broadcast is built on it); a member
 * of the type ty_fanout_set_sender named (a server session) gets the text from C, with no
 * look-up and no call of its sendText, which does the same. */
static int host_fanout(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checktype(L, 2, LUA_TTABLE);
  luaL_checkany(L, 3);
  lua_settop(L, 4);
  bool except = !lua_isnil(L, 4);
  lua_pushnil(L); /* 5: msg's text, once made */
  lua_pushnil(L); /* 6: the first error */
  ty_fanout_sender send = NULL; /* 7: the metatable whose members it serves */
  if (lua_getfield(L, LUA_REGISTRYINDEX, FANOUT_SENDER) == LUA_TTABLE) {
    lua_getfield(L, 7, "send");
    fanout_sender_box *b = lua_touserdata(L, -1);
    send = b ? b->send : NULL;
    lua_pop(L, 1);
    lua_getfield(L, 7, "mt");
    lua_replace(L, 7);
  }
  lua_settop(L, 7);
  lua_Integer n = (lua_Integer)lua_rawlen(L, 1), sent = 0;
  for (lua_Integer i = 1; i <= n; i++) {
    lua_rawgeti(L, 1, i); /* id */
    if (except && lua_rawequal(L, -1, 4)) {
      lua_pop(L, 1);
      continue;
    }
    lua_rawget(L, 2); /* member */
    if (lua_isnil(L, -1)) {
      lua_pop(L, 1);
      continue;
    }
    int member = lua_gettop(L);
    if (send && lua_getmetatable(L, member)) {
      bool served = lua_rawequal(L, -1, 7);
      lua_pop(L, 1);
      if (served) { /* what its sendText does, without the look-up and the call */
        if (lua_isnil(L, 5)) {
          ty_json_push_encoded(L, 3);
          lua_replace(L, 5);
        }
        size_t len;
        const char *text = lua_tolstring(L, 5, &len);
        send(lua_touserdata(L, member), text, len);
        sent++;
        lua_settop(L, 7);
        continue;
      }
    }
    int ok;
    if (lua_getfield(L, member, "sendText") != LUA_TNIL) {
      if (lua_isnil(L, 5)) {
        ty_json_push_encoded(L, 3);
        lua_replace(L, 5);
      }
      lua_pushvalue(L, member);
      lua_pushvalue(L, 5);
    } else {
      lua_pop(L, 1);
      lua_getfield(L, member, "send");
      lua_pushvalue(L, member);
      lua_pushvalue(L, 3);
    }
    ok = lua_pcall(L, 2, 0, 0) == LUA_OK; /* bare: broadcast raises the first error again, as it was */
    if (ok) sent++;
    else if (lua_isnil(L, 6)) lua_replace(L, 6);
    lua_settop(L, 7);
  }
  lua_pushinteger(L, sent);
  lua_pushvalue(L, 6);
  return 2;
}

void ty_open_host(lua_State *L) {
  static const luaL_Reg fs[] = {{"walk", fs_walk}, {"exists", fs_exists}, {NULL, NULL}};
  luaL_newlib(L, fs);
  lua_setfield(L, -2, "fs");
  lua_pushcfunction(L, host_now);
  lua_setfield(L, -2, "now");
  lua_pushcfunction(L, host_traceback);
  lua_setfield(L, -2, "_traceback");
  lua_pushcfunction(L, host_use_fast_traceback);
  lua_setfield(L, -2, "_useFastTraceback");
  lua_pushcfunction(L, host_fanout);
  lua_setfield(L, -2, "fanout");
  lua_pushliteral(L, "0.1.0");
  lua_setfield(L, -2, "version");
  /* Built with AddressSanitizer: freed memory sits in its quarantine, so RSS says nothing
   * about leaks (specs that watch RSS check the Lua heap alone). */
#if defined(__SANITIZE_ADDRESS__)
  lua_pushboolean(L, 1);
#else
  lua_pushboolean(L, 0);
#endif
  lua_setfield(L, -2, "sanitized");
  /* The running binary, so tests can start more tycho processes. */
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    lua_pushlstring(L, exe, (size_t)n);
    lua_setfield(L, -2, "executable");
  }
}

/* ---- the state ---- */

static void set_package_path(lua_State *L, const char *root, const char *game_dir) {
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  if (game_dir) {
    lua_pushfstring(L, "%s/?.lua;%s/?/init.lua;", game_dir, game_dir);
    luaL_addvalue(&b);
  }
  lua_pushfstring(L, "%s/scripts/?.lua;%s/scripts/?/init.lua;", root, root);
  luaL_addvalue(&b);
  lua_getglobal(L, "package");
  lua_getfield(L, -1, "path");
  lua_remove(L, -2);
  luaL_addvalue(&b);
  luaL_pushresult(&b);
  lua_getglobal(L, "package");
  lua_insert(L, -2);
  lua_setfield(L, -2, "path");
  lua_pop(L, 1);
}

/* A new state with the standard libraries and its context, the tycho table on its stack;
 * *root is the engine's home. NULL (with a line on stderr for a missing home) on failure. */
static lua_State *new_state(const char **root) {
  *root = ty_host_root();
  if (!*root) {
    fprintf(stderr, "tycho: cannot find the engine's scripts/ folder: set TYCHO_HOME to the folder that holds it\n");
    return NULL;
  }
  lua_State *L = luaL_newstate();
  if (!L) return NULL;
  luaL_openlibs(L);
  ty_ctx_open(L);
  lua_newtable(L);
  return L;
}

/* Pops the tycho table into the global `tycho` and package.loaded.tycho, with tycho.home,
 * and sets package.path for game_dir. */
static void publish_tycho(lua_State *L, const char *root, const char *game_dir) {
  lua_pushstring(L, root);
  lua_setfield(L, -2, "home");
  lua_pushvalue(L, -1);
  lua_setglobal(L, "tycho");
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  lua_pushvalue(L, -2);
  lua_setfield(L, -2, "tycho");
  lua_pop(L, 2);
  set_package_path(L, root, game_dir);
}

lua_State *ty_host_create(const char *game_dir) {
  const char *root;
  lua_State *L = new_state(&root);
  if (!L) return NULL;
  ty_open_math(L);
  ty_open_scene(L);
  ty_open_physics(L); /* after ty_open_scene: its bodies belong to GameObjects */
  ty_open_time(L);
  ty_open_loop(L);
  ty_open_host(L);
  ty_open_crdt(L);
  ty_open_input(L);
  ty_open_sandbox(L);
  ty_open_json(L);
  ty_open_storage(L);
  ty_open_render(L); /* after ty_open_scene: its renderer draws that world */
  ty_open_window(L); /* after ty_open_render: the window is the renderer's */
  ty_open_image(L);
  ty_open_net(L);
  ty_open_watch(L);
  ty_open_voxel(L); /* after ty_open_render: its meshes are the renderer's */
  ty_open_ui(L);    /* after ty_open_render: its layer is the renderer's */
  ty_open_terrain(L); /* its chunks are tycho.voxel's grids */
  ty_open_audio(L);
  ty_open_particles(L); /* after ty_open_render: its pass draws with the renderer */
  ty_open_text(L); /* tycho.font */
  ty_open_draw(L); /* after ty_open_render and ty_open_text: queues for the renderer, in its fonts */
  publish_tycho(L, root, game_dir);
  lua_getglobal(L, "require");
  lua_pushliteral(L, "tycho.boot");
  if (!ty_host_call(L, 1, 0, "loading the engine's scripts")) {
    lua_close(L);
    return NULL;
  }
  return L;
}

lua_State *ty_host_create_module(const char *game_dir) {
  const char *root;
  lua_State *L = new_state(&root);
  if (!L) return NULL;
  ty_open_host(L);
  ty_open_json(L);
  ty_open_storage(L);
  ty_open_crdt(L);
  ty_open_voxel(L); /* terrain's chunks are its grids; its meshes draw, which a module cannot */
  lua_getfield(L, -1, "voxel");
  lua_pushnil(L);
  lua_setfield(L, -2, "mesh");
  lua_pop(L, 1);
  ty_open_terrain(L);
  publish_tycho(L, root, game_dir);
  return L;
}
