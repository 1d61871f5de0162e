/* bindings/lua_sandbox.c: tycho.sandbox, separate lua_States for untrusted scene scripts
 * (see lua_sandbox.h). tycho.sandbox.vm(opts) makes a SandboxVM; tycho.sandbox.load, the
 * SceneRunner with the CRDT bridge, is written in Lua (scripts/tycho/sandbox.lua) and
 * required on first use.
 *
 * Safety rules this file keeps:
 * - nothing from the host state is ever pushed into the scene state except copies of
 *   strings, numbers and booleans;
 * - every run of scene code (main chunk, onStart/onUpdate, finalizers) is under the
 *   instruction hook; once a call passes its budget (instructions, the C work charged for
 *   it, the memory it allocated, or its time) the hook raises on every instruction, and
 *   the scene's pcall, xpcall and coroutine.resume pass that error straight on without
 *   running a message handler, so nothing in the scene can swallow the stop;
 * - the memory cap holds from the end of the state's setup to lua_close, so every push
 *   into the scene state made for the host happens inside a protected call (sb_entry);
 * - the scene's error objects are read only when they are strings (no __tostring call). */
#include "lua_sandbox.h"

#include "lua_fence.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The default time limit of a call: this many nanoseconds per instruction of its budget
 * (at least MIN_TIME_LIMIT seconds). A backstop for work the counts cannot see, such as a
 * `next` over a table emptied of a million keys; honest calls stop on the count long before. */
#define FUSE_NS_PER_INSTRUCTION 100
#define MIN_TIME_LIMIT 0.25
/* EngineApi work done on the host for the scene, charged to it: a call, a CRDT message the
 * runner frames, validates, applies and mirrors, and the bytes copied between the states. */
#define API_CALL_STEPS 1000
#define API_MESSAGE_STEPS 400
#define API_BYTES_PER_STEP 4

typedef struct ty_sbox {
  ty_fence fence;      /* first: the state's extra space points at it, and so at the box */
  lua_State *S;        /* the scene's state; NULL once closed */
  char name[64];
  bool quiet;
  /* memory */
  size_t mem_used, mem_peak, mem_limit, mem_cap; /* mem_limit: the enforced cap (0 during setup) */
  uint64_t mem_refused;
  /* the host side while scene code runs (NULL otherwise) */
  lua_State *host;
  int host_idx;        /* the SandboxVM userdata on the host stack (holds the callbacks) */
  bool running;
  bool called;         /* vm:call found the function */
  /* counts */
  uint64_t calls, errors;
  char stopped[256];   /* why the VM refuses further calls; "" while it runs */
} ty_sbox;

typedef struct ty_lsbox {
  ty_sbox *sb;
} ty_lsbox;

static ty_sbox *sbox_of(lua_State *S) { return (ty_sbox *)ty_fence_of(S); }

static void *sbox_alloc(void *u, void *ptr, size_t osize, size_t nsize) {
  ty_sbox *sb = u;
  size_t old = ptr ? osize : 0;
  if (nsize == 0) {
    free(ptr);
    sb->mem_used -= old;
    return NULL;
  }
  if (nsize > old && sb->mem_limit && sb->mem_used - old + nsize > sb->mem_limit) {
    sb->mem_refused++;
    return NULL;
  }
  void *p = realloc(ptr, nsize);
  if (!p) return NULL;
  sb->mem_used = sb->mem_used - old + nsize;
  if (sb->mem_used > sb->mem_peak) sb->mem_peak = sb->mem_used;
  if (sb->running && nsize > old) ty_fence_note_alloc(&sb->fence, nsize - old);
  return p;
}

/* ---- the instruction cap ---- */

/* ---- what the scene sees ---- */

/* Steps charged per byte of source load compiles. */
#define LOAD_STEPS_PER_BYTE 2

/* load(chunk [, chunkname [, mode [, env]]]) with mode forced to "t", charged by the size of
 * the source. A reader function's pieces are gathered first (its calls are counted by the
 * hook), so the source is charged before the compiler sees it. */
static int sb_load(lua_State *S) {
  int n = lua_gettop(S);
  if (n < 3) lua_settop(S, 3), n = 3;
  if (lua_type(S, 1) == LUA_TFUNCTION) {
    int pieces = 0;
    for (;;) {
      luaL_checkstack(S, 2, "too many pieces");
      lua_pushvalue(S, 1);
      lua_call(S, 0, 1);
      if (lua_isnil(S, -1) || (lua_type(S, -1) == LUA_TSTRING && lua_rawlen(S, -1) == 0)) {
        lua_pop(S, 1);
        break;
      }
      if (lua_type(S, -1) != LUA_TSTRING) return ty_fail(S, "reader function must return a string");
      if (++pieces > 1) lua_concat(S, 2);
    }
    if (!pieces) lua_pushliteral(S, "");
    lua_replace(S, 1);
    if (lua_isnil(S, 2)) {
      lua_pushliteral(S, "=(load)");
      lua_replace(S, 2);
    }
  }
  if (lua_type(S, 1) == LUA_TSTRING) ty_fence_charge(S, lua_rawlen(S, 1) * LOAD_STEPS_PER_BYTE);
  lua_pushliteral(S, "t");
  lua_replace(S, 3);
  lua_pushvalue(S, lua_upvalueindex(1));
  lua_insert(S, 1);
  lua_call(S, n, LUA_MULTRET);
  return lua_gettop(S);
}

/* setmetatable(t, mt) refusing __gc: Lua runs finalizers with hooks off, so the
 * instruction cap could not stop one. (A __gc added to mt later does not mark t.) */
static int sb_setmetatable(lua_State *S) {
  lua_settop(S, 2);
  lua_pushliteral(S, "__gc");
  if (lua_type(S, 2) == LUA_TTABLE && lua_rawget(S, 2) != LUA_TNIL)
    return luaL_error(S, "__gc metamethods are not available in a sandboxed scene");
  lua_settop(S, 2);
  lua_pushvalue(S, lua_upvalueindex(1));
  lua_insert(S, 1);
  lua_call(S, 2, 1);
  return 1;
}

/* require(name): only "~system/EngineApi". */
static int sb_require(lua_State *S) {
  const char *name = luaL_checkstring(S, 1);
  if (strcmp(name, "~system/EngineApi") != 0)
    return luaL_error(S, "module '%s' is not available in a sandboxed scene: only \"~system/EngineApi\" can be required",
                      name);
  lua_pushvalue(S, lua_upvalueindex(1));
  return 1;
}

/* Starts a host callback: pushes callbacks[field] on the host stack, or returns NULL. */
static lua_State *host_callback(lua_State *S, const char *field) {
  ty_sbox *sb = sbox_of(S);
  lua_State *H = sb->host;
  if (!H) luaL_error(S, "EngineApi is only available while the engine runs the scene");
  if (!lua_checkstack(H, 8)) luaL_error(S, "EngineApi: host stack overflow");
  int top = lua_gettop(H);
  if (lua_getiuservalue(H, sb->host_idx, 1) != LUA_TTABLE || lua_getfield(H, -1, field) != LUA_TFUNCTION) {
    lua_settop(H, top);
    return NULL;
  }
  lua_remove(H, -2);
  return H;
}

/* Calls the function under its nargs arguments on H; raises in S on error. */
static void host_pcall(lua_State *S, lua_State *H, int nargs, int nresults, const char *what) {
  if (lua_pcall(H, nargs, nresults, 0) != LUA_OK) {
    const char *msg = lua_type(H, -1) == LUA_TSTRING ? lua_tostring(H, -1) : "(non-string error)";
    lua_pushfstring(S, "%s: the engine failed: %s", what, msg);
    lua_pop(H, 1);
    lua_error(S);
  }
}

/* Adds item i of the table at t (a string, or an array of byte values) to b. Nothing is
 * left on the stack between buffer operations, as luaL_Buffer requires; the strings stay
 * anchored in the table while they are copied. */
static void add_item(lua_State *S, luaL_Buffer *b, int t, lua_Integer i, const char *what) {
  int type = lua_rawgeti(S, t, i);
  if (type == LUA_TSTRING) {
    size_t len;
    const char *s = lua_tolstring(S, -1, &len);
    lua_pop(S, 1);
    luaL_addlstring(b, s, len);
    return;
  }
  if (type != LUA_TTABLE) luaL_error(S, "%s: data[%I] must be a string or an array of bytes", what, i);
  lua_Integer n = (lua_Integer)lua_rawlen(S, -1);
  lua_pop(S, 1);
  for (lua_Integer j = 1; j <= n; j++) {
    lua_rawgeti(S, t, i);
    lua_rawgeti(S, -1, j);
    int ok;
    lua_Integer v = lua_tointegerx(S, -1, &ok);
    lua_pop(S, 2);
    if (!ok || v < 0 || v > 255) luaL_error(S, "%s: data[%I][%I] is not an integer in 0..255", what, i, j);
    luaL_addchar(b, (char)v);
  }
}

/* EngineApi.crdtSendToRenderer({data = bytes | {bytes...}}) -> {data = {bytes...}} */
static int sb_send(lua_State *S) {
  const char *what = "crdtSendToRenderer";
  luaL_checktype(S, 1, LUA_TTABLE);
  lua_settop(S, 1);
  lua_getfield(S, 1, "data");
  luaL_Buffer b;
  luaL_buffinit(S, &b);
  if (lua_type(S, 2) == LUA_TSTRING) {
    size_t len;
    const char *s = lua_tolstring(S, 2, &len);
    luaL_addlstring(&b, s, len);
  } else if (lua_type(S, 2) == LUA_TTABLE) {
    lua_Integer n = (lua_Integer)lua_rawlen(S, 2);
    for (lua_Integer i = 1; i <= n; i++) add_item(S, &b, 2, i, what);
  } else if (!lua_isnil(S, 2)) {
    return luaL_error(S, "%s: 'data' must be a string or an array of strings", what);
  }
  luaL_pushresult(&b);
  size_t len;
  const char *bytes = lua_tolstring(S, -1, &len);
  /* The host frames, checks, applies and mirrors every message: charged before it does. */
  size_t messages = 0;
  for (size_t at = 0; len - at >= 8; messages++) {
    uint32_t n = (uint32_t)(unsigned char)bytes[at] | (uint32_t)(unsigned char)bytes[at + 1] << 8 |
                 (uint32_t)(unsigned char)bytes[at + 2] << 16 | (uint32_t)(unsigned char)bytes[at + 3] << 24;
    if (n < 8 || n > len - at) {
      messages++; /* the malformed rest, refused as one */
      break;
    }
    at += n;
  }
  ty_fence_charge(S, API_CALL_STEPS + messages * API_MESSAGE_STEPS + len / API_BYTES_PER_STEP);

  lua_State *H = host_callback(S, "send");
  lua_createtable(S, 0, 1);
  lua_newtable(S);
  if (H) {
    lua_pushlstring(H, bytes, len);
    host_pcall(S, H, 1, 1, what);
    if (lua_type(H, -1) == LUA_TSTRING) {
      size_t rl;
      const char *r = lua_tolstring(H, -1, &rl);
      if (rl) {
        lua_pushlstring(S, r, rl);
        lua_rawseti(S, -2, 1);
      }
    } else if (lua_type(H, -1) == LUA_TTABLE) {
      lua_Integer n = (lua_Integer)lua_rawlen(H, -1), k = 0;
      for (lua_Integer i = 1; i <= n; i++) {
        if (lua_rawgeti(H, -1, i) == LUA_TSTRING) {
          size_t rl;
          const char *r = lua_tolstring(H, -1, &rl);
          lua_pushlstring(S, r, rl);
          lua_rawseti(S, -2, ++k);
        }
        lua_pop(H, 1);
      }
    }
    lua_pop(H, 1);
  }
  lua_setfield(S, -2, "data");
  return 1;
}

/* EngineApi.crdtGetState() -> {hasEntities = bool, data = {bytes}} */
static int sb_get_state(lua_State *S) {
  const char *what = "crdtGetState";
  lua_State *H = host_callback(S, "getState");
  lua_createtable(S, 0, 2);
  lua_newtable(S);
  bool has = false;
  ty_fence_charge(S, API_CALL_STEPS);
  if (H) {
    host_pcall(S, H, 0, 2, what);
    has = lua_toboolean(H, -2);
    if (lua_type(H, -1) == LUA_TSTRING) {
      size_t rl;
      const char *r = lua_tolstring(H, -1, &rl);
      ty_fence_charge(S, rl / API_BYTES_PER_STEP);
      lua_pushlstring(S, r, rl);
      lua_rawseti(S, -2, 1);
    }
    lua_pop(H, 2);
  }
  lua_setfield(S, -2, "data");
  lua_pushboolean(S, has);
  lua_setfield(S, -2, "hasEntities");
  return 1;
}

/* print(...): one line to the host's log callback, or stderr. */
static int sb_print(lua_State *S) {
  int n = lua_gettop(S);
  luaL_Buffer b;
  luaL_buffinit(S, &b);
  for (int i = 1; i <= n; i++) {
    if (i > 1) luaL_addchar(&b, '\t');
    luaL_tolstring(S, i, NULL);
    luaL_addvalue(&b);
  }
  luaL_pushresult(&b);
  size_t len;
  const char *line = lua_tolstring(S, -1, &len);
  ty_fence_charge(S, API_CALL_STEPS + len / API_BYTES_PER_STEP);
  ty_sbox *sb = sbox_of(S);
  lua_State *H = sb->host ? host_callback(S, "log") : NULL;
  if (H) {
    lua_pushlstring(H, line, len);
    host_pcall(S, H, 1, 0, "print");
  } else if (!sb->quiet) {
    fprintf(stderr, "[%s] %s\n", sb->name, line);
  }
  return 0;
}

static void open_scene_libs(lua_State *S) {
  static const struct {
    const char *name;
    lua_CFunction open;
  } libs[] = {{LUA_GNAME, luaopen_base},        {LUA_STRLIBNAME, luaopen_string}, {LUA_TABLIBNAME, luaopen_table},
              {LUA_MATHLIBNAME, luaopen_math},  {LUA_UTF8LIBNAME, luaopen_utf8},  {LUA_COLIBNAME, luaopen_coroutine}};
  for (size_t i = 0; i < sizeof libs / sizeof *libs; i++) {
    luaL_requiref(S, libs[i].name, libs[i].open, 1);
    lua_pop(S, 1);
  }
  /* C loops the hook cannot see, charged to the instruction cap */
  ty_sandbox_open_patterns(S);
  ty_sandbox_open_lib(S);
  /* os: the clock only */
  luaL_requiref(S, LUA_OSLIBNAME, luaopen_os, 0);
  lua_createtable(S, 0, 2);
  lua_getfield(S, -2, "time");
  lua_setfield(S, -2, "time");
  lua_getfield(S, -2, "clock");
  lua_setfield(S, -2, "clock");
  lua_setglobal(S, "os");
  lua_pop(S, 1);
  luaL_getsubtable(S, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  lua_pushnil(S);
  lua_setfield(S, -2, LUA_OSLIBNAME);
  lua_pop(S, 1);

  ty_fence_open_guards(S);
  lua_getglobal(S, "setmetatable");
  lua_pushcclosure(S, sb_setmetatable, 1);
  lua_setglobal(S, "setmetatable");
  lua_getglobal(S, "load");
  lua_pushcclosure(S, sb_load, 1);
  lua_setglobal(S, "load");
  lua_pushcfunction(S, sb_print);
  lua_setglobal(S, "print");

  static const luaL_Reg api[] = {{"crdtSendToRenderer", sb_send}, {"crdtGetState", sb_get_state}, {NULL, NULL}};
  luaL_newlib(S, api);
  lua_pushcclosure(S, sb_require, 1);
  lua_setglobal(S, "require");
}

/* ---- running scene code ---- */

/* The scene state's message handler. Not ty_msgh, on purpose: the scene's error objects are
 * read only when they are strings (ty_msgh would call a table's __tostring, scene code run
 * by the handler), and the scene state has no engine frames to trim from its traceback. */
static int sb_msgh(lua_State *S) {
  const char *msg = lua_tostring(S, 1);
  if (!msg) msg = lua_pushfstring(S, "(error object is a %s value)", luaL_typename(S, 1));
  luaL_traceback(S, S, msg, 1);
  return 1;
}

/* Runs the function under nargs arguments on S's stack (already pushed with the cap
 * lifted) under the limits. Returns true, or false with the message on the host stack. */
static bool sbox_run(lua_State *H, ty_sbox *sb, int nargs) {
  lua_State *S = sb->S;
  int base = lua_gettop(S) - nargs; /* the function */
  lua_pushcfunction(S, sb_msgh);
  lua_insert(S, base);
  int htop = lua_gettop(H);
  sb->host = H;
  sb->host_idx = 1;
  sb->running = true;
  sb->calls++;
  ty_fence_arm(&sb->fence, S);
  int rc = lua_pcall(S, nargs, 0, base);
  sb->running = false;
  sb->host = NULL;
  ty_fence_disarm(&sb->fence);
  lua_settop(H, htop); /* a scene-side error may have left EngineApi's work on it */
  if (rc == LUA_OK) {
    lua_settop(S, base - 1);
    return true;
  }
  sb->errors++;
  const char *msg = lua_type(S, -1) == LUA_TSTRING ? lua_tostring(S, -1) : "(non-string error)";
  if (rc == LUA_ERRMEM) {
    lua_pushfstring(H, "not enough memory: the scene passed its memory limit (%I bytes)", (lua_Integer)sb->mem_cap);
    snprintf(sb->stopped, sizeof sb->stopped, "memory limit exceeded");
  } else {
    lua_pushstring(H, msg);
    if (sb->fence.exceeded)
      snprintf(sb->stopped, sizeof sb->stopped, "%s",
               sb->fence.timed_out ? "time limit exceeded" : "instruction limit exceeded");
  }
  lua_settop(S, base - 1);
  if (!sb->quiet) {
    const char *m = lua_tostring(H, -1);
    const char *nl = strchr(m, '\n');
    fprintf(stderr, "tycho: sandbox '%s': %.*s\n", sb->name, nl ? (int)(nl - m) : (int)strlen(m), m);
  }
  if (sb->stopped[0] || rc == LUA_ERRMEM) lua_gc(S, LUA_GCCOLLECT);
  return false;
}

static ty_sbox *check_vm(lua_State *L, int idx) {
  ty_lsbox *u = luaL_checkudata(L, idx, TY_SANDBOX_VM);
  if (!u->sb || !u->sb->S) luaL_argerror(L, idx, "SandboxVM was closed");
  return u->sb;
}

/* Refuses a call on a stopped or busy VM: pushes false, message. */
static int refuse(lua_State *L, ty_sbox *sb) {
  lua_pushboolean(L, 0);
  if (sb->running) lua_pushliteral(L, "the scene is already running (EngineApi callbacks cannot re-enter it)");
  else lua_pushfstring(L, "scene '%s' was stopped: %s", sb->name, sb->stopped);
  return 2;
}

static uint64_t opt_limit(lua_State *L, int t, const char *field, uint64_t def, uint64_t min) {
  uint64_t v = def;
  if (lua_getfield(L, t, field) != LUA_TNIL) {
    int ok;
    lua_Integer i = lua_tointegerx(L, -1, &ok);
    if (!ok || i < 0 || (i > 0 && (uint64_t)i < min))
      luaL_error(L, "bad argument #1 to 'vm' ('%s' must be 0 or an integer >= %I)", field, (lua_Integer)min);
    v = (uint64_t)i;
  }
  lua_pop(L, 1);
  return v;
}

/* timeLimit: seconds (a number >= 0; 0: none), by default derived from the instruction limit. */
static double opt_time(lua_State *L, int t, uint64_t instr) {
  double v = instr ? (double)instr * FUSE_NS_PER_INSTRUCTION * 1e-9 : 0;
  if (instr && v < MIN_TIME_LIMIT) v = MIN_TIME_LIMIT;
  if (lua_getfield(L, t, "timeLimit") != LUA_TNIL) {
    int ok;
    v = lua_tonumberx(L, -1, &ok);
    if (!ok || !(v >= 0) || v > 1e9) luaL_error(L, "bad argument #1 to 'vm' ('timeLimit' must be a number of seconds >= 0)");
  }
  lua_pop(L, 1);
  return v;
}

/* tycho.sandbox.vm{name=, instructionLimit=, memoryLimit=, timeLimit=, quiet=, callbacks={send=, getState=, log=}} */
static int vm_new(lua_State *L) {
  if (lua_isnoneornil(L, 1)) lua_newtable(L);
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_settop(L, 1);
  uint64_t instr = opt_limit(L, 1, "instructionLimit", TY_SANDBOX_DEFAULT_INSTRUCTIONS, 1);
  uint64_t mem = opt_limit(L, 1, "memoryLimit", TY_SANDBOX_DEFAULT_MEMORY, 64 * 1024);
  double seconds = opt_time(L, 1, instr);
  ty_lsbox *u = lua_newuserdatauv(L, sizeof *u, 1);
  u->sb = NULL;
  luaL_setmetatable(L, TY_SANDBOX_VM);
  ty_sbox *sb = calloc(1, sizeof *sb);
  TY_ASSERT(sb);
  u->sb = sb;
  lua_getfield(L, 1, "name");
  snprintf(sb->name, sizeof sb->name, "%s", lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "scene");
  lua_getfield(L, 1, "quiet");
  sb->quiet = lua_toboolean(L, -1);
  lua_pop(L, 2);
  sb->fence.limit = instr;
  sb->fence.time_limit = seconds;
  sb->mem_cap = (size_t)mem;
  sb->S = lua_newstate(sbox_alloc, sb);
  if (!sb->S) return luaL_error(L, "cannot create the scene's Lua state");
  ty_ctx_open(sb->S);
  ty_fence_install(sb->S, &sb->fence);
  open_scene_libs(sb->S);
  sb->mem_limit = sb->mem_cap; /* from here on every allocation of the scene is capped */
  ty_fence_arm(&sb->fence, sb->S);
  ty_fence_disarm(&sb->fence);
  if (lua_getfield(L, 1, "callbacks") == LUA_TTABLE) lua_setiuservalue(L, 2, 1);
  else lua_pop(L, 1);
  return 1;
}

/* vm:load(source, chunkname) -> true | false, message: compiles text and runs it. */
static int vm_load(lua_State *L) {
  ty_sbox *sb = check_vm(L, 1);
  size_t len;
  const char *src = luaL_checklstring(L, 2, &len);
  const char *chunk = luaL_optstring(L, 3, "=scene");
  if (sb->running || sb->stopped[0]) return refuse(L, sb);
  if (luaL_loadbufferx(sb->S, src, len, chunk, "t") != LUA_OK) {
    lua_pushboolean(L, 0);
    lua_pushstring(L, lua_type(sb->S, -1) == LUA_TSTRING ? lua_tostring(sb->S, -1) : "cannot load the scene");
    lua_pop(sb->S, 1);
    sb->errors++;
    return 2;
  }
  if (!sbox_run(L, sb, 0)) {
    lua_pushboolean(L, 0);
    lua_insert(L, -2);
    return 2;
  }
  lua_pushboolean(L, 1);
  return 1;
}

/* The protected start of vm:call, in the scene's state: reads the global's name and the
 * arguments from the host stack (sb->host, indices 2..) and calls the function. Every
 * allocation it makes is under the memory cap, inside the pcall. */
static int sb_entry(lua_State *S) {
  ty_sbox *sb = sbox_of(S);
  lua_State *H = sb->host;
  int nargs = lua_gettop(H) - 2;
  luaL_checkstack(S, nargs + 2, "too many arguments");
  lua_pushglobaltable(S);
  size_t len;
  const char *name = lua_tolstring(H, 2, &len);
  lua_pushlstring(S, name, len);
  if (lua_rawget(S, -2) != LUA_TFUNCTION) return 0;
  for (int i = 3; i < 3 + nargs; i++) {
    switch (lua_type(H, i)) {
    case LUA_TBOOLEAN: lua_pushboolean(S, lua_toboolean(H, i)); break;
    case LUA_TNUMBER:
      if (lua_isinteger(H, i)) lua_pushinteger(S, lua_tointeger(H, i));
      else lua_pushnumber(S, lua_tonumber(H, i));
      break;
    case LUA_TSTRING: {
      const char *v = lua_tolstring(H, i, &len);
      lua_pushlstring(S, v, len);
      break;
    }
    default: lua_pushnil(S); break;
    }
  }
  sb->called = true;
  lua_call(S, nargs, 0);
  return 0;
}

/* vm:call(globalName, ...) -> true, called | false, message. Arguments: nil, booleans,
 * numbers and strings (copied). A missing global is not an error: true, false. */
static int vm_call(lua_State *L) {
  ty_sbox *sb = check_vm(L, 1);
  luaL_checkstring(L, 2);
  int n = lua_gettop(L);
  for (int i = 3; i <= n; i++) {
    int t = lua_type(L, i);
    if (t != LUA_TNIL && t != LUA_TBOOLEAN && t != LUA_TNUMBER && t != LUA_TSTRING)
      return luaL_argerror(L, i, "only nil, booleans, numbers and strings can be passed to a scene");
  }
  if (sb->running || sb->stopped[0]) return refuse(L, sb);
  if (!lua_checkstack(sb->S, 4)) return luaL_error(L, "the scene's stack is exhausted");
  lua_pushcfunction(sb->S, sb_entry);
  sb->called = false;
  if (!sbox_run(L, sb, 0)) {
    lua_pushboolean(L, 0);
    lua_insert(L, -2);
    return 2;
  }
  lua_pushboolean(L, 1);
  lua_pushboolean(L, sb->called);
  return 2;
}

/* vm:stats() -> {instructions=, totalInstructions=, memory=, peakMemory=, ...} */
static int vm_stats(lua_State *L) {
  ty_lsbox *u = luaL_checkudata(L, 1, TY_SANDBOX_VM);
  ty_sbox *sb = u->sb;
  lua_createtable(L, 0, 10);
  if (!sb) return 1;
#define SET(field, v)                                                                                              \
  do {                                                                                                             \
    lua_pushinteger(L, (lua_Integer)(v));                                                                          \
    lua_setfield(L, -2, field);                                                                                    \
  } while (0)
  SET("instructions", sb->fence.count);
  SET("totalInstructions", sb->fence.total);
  SET("instructionLimit", sb->fence.limit);
  lua_pushnumber(L, sb->fence.time_limit);
  lua_setfield(L, -2, "timeLimit");
  SET("memory", sb->mem_used);
  SET("peakMemory", sb->mem_peak);
  SET("memoryLimit", sb->mem_cap);
  SET("refusedAllocations", sb->mem_refused);
  SET("calls", sb->calls);
  SET("errors", sb->errors);
#undef SET
  if (sb->stopped[0]) {
    lua_pushstring(L, sb->stopped);
    lua_setfield(L, -2, "stopped");
  }
  return 1;
}

/* vm:stopped() -> the reason, or nil while the VM runs. */
static int vm_stopped(lua_State *L) {
  ty_lsbox *u = luaL_checkudata(L, 1, TY_SANDBOX_VM);
  if (!u->sb || !u->sb->S) lua_pushliteral(L, "closed");
  else if (u->sb->stopped[0]) lua_pushstring(L, u->sb->stopped);
  else lua_pushnil(L);
  return 1;
}

static int vm_close(lua_State *L) {
  ty_lsbox *u = luaL_checkudata(L, 1, TY_SANDBOX_VM);
  ty_sbox *sb = u->sb;
  if (!sb) return 0;
  if (sb->running) return luaL_error(L, "cannot close a SandboxVM while its scene runs");
  u->sb = NULL;
  if (sb->S) {
    /* Finalizers the scene left run during lua_close: stop each at its first instruction. */
    ty_fence_stop(sb->S);
    lua_close(sb->S);
  }
  free(sb);
  return 0;
}

static int vm_tostring(lua_State *L) {
  ty_lsbox *u = luaL_checkudata(L, 1, TY_SANDBOX_VM);
  lua_pushfstring(L, "SandboxVM '%s'%s", u->sb ? u->sb->name : "?", u->sb ? "" : " (closed)");
  return 1;
}

/* tycho.sandbox.load(pathOrSource, opts): the SceneRunner from scripts/tycho/sandbox.lua. */
static int sandbox_load(lua_State *L) {
  int n = lua_gettop(L);
  lua_getglobal(L, "require");
  lua_pushliteral(L, "tycho.sandbox");
  lua_call(L, 1, 1);
  lua_getfield(L, -1, "load");
  lua_remove(L, -2);
  lua_insert(L, 1);
  lua_call(L, n, LUA_MULTRET);
  return lua_gettop(L);
}

void ty_open_sandbox(lua_State *L) {
  static const luaL_Reg methods[] = {{"load", vm_load},       {"call", vm_call},   {"stats", vm_stats},
                                     {"stopped", vm_stopped}, {"close", vm_close}, {NULL, NULL}};
  static const luaL_Reg meta[] = {{"__gc", vm_close}, {"__close", vm_close}, {"__tostring", vm_tostring}, {NULL, NULL}};
  ty_type_register(L, TY_SANDBOX_VM, meta, methods);
  static const luaL_Reg funcs[] = {{"vm", vm_new}, {"load", sandbox_load}, {NULL, NULL}};
  luaL_newlib(L, funcs);
  lua_setfield(L, -2, "sandbox");
}
