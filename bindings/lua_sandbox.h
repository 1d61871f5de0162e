/* bindings/lua_sandbox.h: sandboxed scene states (tycho.sandbox).
 *
 * A SandboxVM is a separate lua_State for one untrusted scene script: its own allocator
 * with a byte cap, only the safe standard libraries (base without dofile/loadfile, `load`
 * of text only, string, table, math, utf8, coroutine, os.time/os.clock), a `require` that
 * resolves only "~system/EngineApi", and an instruction-count hook that stops a call that
 * runs past its budget. The scene reaches the engine only through EngineApi's functions,
 * which call host-side Lua callbacks (scripts/tycho/sandbox.lua builds the SceneRunner,
 * with the CRDT bridge and the GameObject mapping, on top of this). */
#ifndef TY_LUA_SANDBOX_H
#define TY_LUA_SANDBOX_H

#include "bindings.h"

#define TY_SANDBOX_VM "SandboxVM"

enum {
  TY_SANDBOX_DEFAULT_INSTRUCTIONS = 10000000, /* per call (start, update, main chunk) */
  TY_SANDBOX_DEFAULT_MEMORY = 64 << 20,       /* bytes */
};

/* Replaces string.find, match, gmatch and gsub in the scene state S with versions that
 * charge their matcher steps (bindings/lua_sandbox_pattern.c). */
void ty_sandbox_open_patterns(lua_State *S);
/* Makes the rest of S's standard library safe to call (bindings/lua_sandbox_lib.c): the
 * functions whose C loops their arguments size are charged before they run, string.dump,
 * dofile and loadfile are refused, collectgarbage answers "count" only. */
void ty_sandbox_open_lib(lua_State *S);

#endif
