/* bindings/lua_fence.c: the budget a call into untrusted Lua runs under (see lua_fence.h).
 *
 * A count hook every `step` instructions adds them to the call's count; C work done for
 * the call is charged to the same count before it runs (ty_fence_charge), and memory the
 * call allocates after it (ty_fence_note_alloc, from the state's allocator). Past the limit,
 * or past the call's time, the hook raises, and from then on raises at every instruction of
 * the thread, while the guarded pcall, xpcall and coroutine functions pass that error on
 * instead of catching it, so nothing the untrusted code does can keep the call going. */
#include "lua_fence.h"

#include <stdio.h>

/* Memory a call allocates is charged as work: one step per ALLOC_BYTES_PER_STEP bytes. When
 * DEBT_NOW steps are owed, the hook is called at the running thread's next instruction
 * instead of up to a thousand later, so a few instructions that each allocate megabytes
 * (s .. s, {...} of a long list) stop as soon as they pass the budget. */
#define ALLOC_BYTES_PER_STEP 16
#define DEBT_NOW (1u << 16)

ty_fence *ty_fence_of(lua_State *S) { return ty_ctx_get(S)->fence; }

void ty_fence_install(lua_State *S, ty_fence *f) { ty_ctx_get(S)->fence = f; }

static void count_hook(lua_State *S, lua_Debug *ar);

/* Adds steps, and the memory debt, to the running call's count. Returns true once the
 * call is past its budget or its time (f->why then says which). */
static bool over_budget(ty_fence *f, size_t steps) {
  steps += f->debt;
  f->debt = 0;
  f->count += steps;
  f->total += steps;
  if (f->limit && f->count > f->limit) {
    if (f->limit_why) snprintf(f->why, sizeof f->why, "%s", f->limit_why);
    else snprintf(f->why, sizeof f->why, "instruction limit exceeded (%llu instructions in one call)",
                  (unsigned long long)f->limit);
  } else if (f->deadline > 0 && ty_now() > f->deadline) {
    snprintf(f->why, sizeof f->why, "time limit exceeded (%.3g s in one call)", f->time_limit);
    f->timed_out = true;
  } else {
    return false;
  }
  f->exceeded = true;
  return true;
}

static void count_hook(lua_State *S, lua_Debug *ar) {
  ty_fence *f = ty_fence_of(S);
  if (!f->exceeded) {
    /* Called early (memory debt) or on a thread made while it was: back to the usual step.
     * The instructions since the last call are not known then, only that they are fewer. */
    int step = lua_gethookcount(S);
    if (step != f->step) lua_sethook(S, count_hook, LUA_MASKCOUNT, f->step);
    if (!over_budget(f, (size_t)step)) return;
  }
  /* From now on raise at every instruction of this thread, so a pcall in the scene
   * cannot catch the stop and go on. */
  lua_sethook(S, count_hook, LUA_MASKCOUNT, 1);
  char where[160] = "";
  if (lua_getinfo(S, "Sl", ar) && ar->currentline > 0)
    snprintf(where, sizeof where, "%s:%d: ", ar->short_src, ar->currentline);
  luaL_error(S, "%s%s", where, f->why);
}

void ty_fence_charge(lua_State *S, size_t steps) {
  ty_fence *f = ty_fence_of(S);
  if (!f->exceeded && !over_budget(f, steps)) return;
  lua_sethook(S, count_hook, LUA_MASKCOUNT, 1); /* as the hook does: no pcall gets past it */
  luaL_where(S, 1); /* the scene's line that called the C function (level 0 is that function) */
  lua_pushstring(S, f->why);
  lua_concat(S, 2);
  lua_error(S);
}

void ty_fence_arm(ty_fence *f, lua_State *S) {
  f->step = (f->limit && f->limit < 1000) ? (int)f->limit : 1000;
  f->count = 0;
  f->debt = 0;
  f->exceeded = f->timed_out = false;
  f->why[0] = '\0';
  f->deadline = f->time_limit > 0 ? ty_now() + f->time_limit : 0;
  f->cur = S;
  lua_sethook(S, count_hook, LUA_MASKCOUNT, f->step);
}

void ty_fence_disarm(ty_fence *f) { f->cur = NULL; }

void ty_fence_stop(lua_State *S) {
  ty_fence_of(S)->exceeded = true;
  lua_sethook(S, count_hook, LUA_MASKCOUNT, 1);
}

void ty_fence_note_alloc(ty_fence *f, size_t grown) {
  size_t before = f->debt;
  f->debt += grown / ALLOC_BYTES_PER_STEP;
  /* lua_sethook only sets fields: it is safe here, as it is in a signal handler. */
  if (before < DEBT_NOW && f->debt >= DEBT_NOW && f->cur && !f->exceeded) lua_sethook(f->cur, count_hook, LUA_MASKCOUNT, 1);
}

/* ---- catching errors, and coroutines, under the fence ---- */

/* pcall and xpcall as the scene has them: the stock ones, except that an error raised
 * because the call is over its budget is not caught: it goes on up at once, and xpcall's
 * message handler is not run for it (Lua runs a handler with the hook off when the error
 * comes from the hook, so a handler that loops would never be stopped). */
static int pcall_done(lua_State *S, int status, lua_KContext extra) {
  if (status != LUA_OK && status != LUA_YIELD) {
    if (ty_fence_of(S)->exceeded) return lua_error(S);
    lua_pushboolean(S, 0);
    lua_pushvalue(S, -2);
    return 2;
  }
  return lua_gettop(S) - (int)extra;
}

static int fence_pcall(lua_State *S) {
  luaL_checkany(S, 1);
  lua_pushboolean(S, 1); /* the first result when nothing fails */
  lua_insert(S, 1);
  return pcall_done(S, lua_pcallk(S, lua_gettop(S) - 2, LUA_MULTRET, 0, 0, pcall_done), 0);
}

/* The message handler xpcall installs: the scene's, unless the call is over its budget. */
static int guarded_handler(lua_State *S) {
  if (ty_fence_of(S)->exceeded) return 1; /* the error object, as it is */
  lua_pushvalue(S, lua_upvalueindex(1));
  lua_insert(S, 1);
  lua_call(S, lua_gettop(S) - 1, 1);
  return 1;
}

static int fence_xpcall(lua_State *S) {
  int n = lua_gettop(S);
  luaL_checktype(S, 2, LUA_TFUNCTION);
  lua_pushvalue(S, 2);
  lua_pushcclosure(S, guarded_handler, 1);
  lua_replace(S, 2);
  lua_pushboolean(S, 1); /* the first result when nothing fails */
  lua_pushvalue(S, 1);   /* the function, called with the arguments after the handler */
  lua_rotate(S, 3, 2);
  return pcall_done(S, lua_pcallk(S, n - 2, LUA_MULTRET, 2, 2, pcall_done), 2);
}

/* Resumes co with the top narg values of S, with co as the running thread while it runs
 * (where memory debt wakes the hook). Returns how many values it yielded or returned, moved
 * onto S, or -1 with the error on S. */
static int resume(lua_State *S, lua_State *co, int narg) {
  if (!lua_checkstack(co, narg)) {
    lua_pushliteral(S, "too many arguments to resume");
    return -1;
  }
  lua_xmove(S, co, narg);
  ty_fence *f = ty_fence_of(S);
  lua_State *outer = f->cur;
  f->cur = co;
  int nres, status = lua_resume(co, S, narg, &nres);
  f->cur = outer;
  if (status != LUA_OK && status != LUA_YIELD) {
    lua_xmove(co, S, 1);
    return -1;
  }
  if (!lua_checkstack(S, nres + 1)) {
    lua_pop(co, nres);
    lua_pushliteral(S, "too many results to resume");
    return -1;
  }
  lua_xmove(co, S, nres);
  return nres;
}

/* coroutine.resume: a coroutine stopped by the budget stops its resumer too. */
static int fence_resume(lua_State *S) {
  lua_State *co = lua_tothread(S, 1);
  luaL_argexpected(S, co, 1, "coroutine");
  int r = resume(S, co, lua_gettop(S) - 1);
  if (r < 0) {
    if (ty_fence_of(S)->exceeded) return lua_error(S);
    lua_pushboolean(S, 0);
    lua_insert(S, -2);
    return 2;
  }
  lua_pushboolean(S, 1);
  lua_insert(S, -(r + 1));
  return r + 1;
}

/* The function coroutine.wrap returns: resumes its coroutine, raising its errors (with the
 * caller's position when the error is a string, after closing a dead coroutine's pending
 * to-be-closed variables), as the stock one does. */
static int wrapped(lua_State *S) {
  lua_State *co = lua_tothread(S, lua_upvalueindex(1));
  int r = resume(S, co, lua_gettop(S));
  if (r >= 0) return r;
  int status = lua_status(co);
  if (status != LUA_OK && status != LUA_YIELD) {
    status = lua_resetthread(co);
    lua_xmove(co, S, 1);
  }
  if (!ty_fence_of(S)->exceeded && status != LUA_ERRMEM && lua_type(S, -1) == LUA_TSTRING) {
    luaL_where(S, 1);
    lua_insert(S, -2);
    lua_concat(S, 2);
  }
  return lua_error(S);
}

static int fence_wrap(lua_State *S) {
  luaL_checktype(S, 1, LUA_TFUNCTION);
  lua_State *co = lua_newthread(S);
  lua_pushvalue(S, 1);
  lua_xmove(S, co, 1);
  lua_pushcclosure(S, wrapped, 1);
  return 1;
}

void ty_fence_open_guards(lua_State *S) {
  lua_pushcfunction(S, fence_pcall);
  lua_setglobal(S, "pcall");
  lua_pushcfunction(S, fence_xpcall);
  lua_setglobal(S, "xpcall");
  lua_getglobal(S, LUA_COLIBNAME);
  lua_pushcfunction(S, fence_resume);
  lua_setfield(S, -2, "resume");
  lua_pushcfunction(S, fence_wrap);
  lua_setfield(S, -2, "wrap");
  lua_pop(S, 1);
}
