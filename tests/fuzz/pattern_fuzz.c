/* tests/fuzz/pattern_fuzz.c: fuzzes the sandbox's string.find, match, gmatch and gsub
 * (bindings/lua_sandbox_pattern.c) against stock Lua's. Every input runs the four functions
 * in a state with the counted versions under a step budget; unless the budget ran out, it
 * runs them again in a stock state, and the two must give the same results and the same
 * error messages. Out-of-bounds reads show up under ASan: Lua allocates each string at its
 * exact size, so one byte past a pattern's or a subject's terminator is a report.
 *
 * Input: byte 0 flags (bits 0-1 the replacement: string, table, function, number; bit 2
 * find's `plain`; bit 3 pass byte 1 as init; bit 4 pass byte 2 as gsub's max), byte 1 init
 * (signed), byte 2 max (signed), bytes 3-4 the pattern's length (little-endian, at most
 * 1024), byte 5 the replacement string's length (at most 32), then the pattern, the
 * replacement and the subject (at most 256 bytes). Short inputs read as if padded with zeros.
 *
 * Built two ways. With TYCHO_LIBFUZZER (cmake -DTYCHO_FUZZ=ON, clang) libFuzzer drives it:
 *   build-fuzz/pattern_fuzz -max_total_time=120 /tmp/pattern-corpus tests/fuzz/corpus/pattern
 * Without, main() below replays files and folders given on the command line, so every
 * build (ASan included) runs the seed corpus as the ctest fuzz.pattern_fuzz. */
#include "lua_fence.h"
#include "lua_sandbox.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUDGET 100000 /* steps per input, for all four functions */
#define HEADER 6
#define MAX_PATTERN 1024
#define MAX_SUBJECT 256
#define MAX_REPL 32

/* The scene VM's ty_fence_charge (bindings/lua_fence.c) stops the scene; this one
 * raises once per-input budget is spent and remembers that it did. */
static size_t charged;
static int spent;

void ty_fence_charge(lua_State *S, size_t steps) {
  charged += steps;
  if (charged <= BUDGET) return;
  spent = 1;
  luaL_error(S, "step budget spent");
}

/* run(s, p, init, plain, repl, max) -> the results of find, match, gmatch and gsub as text.
 * Error messages are kept whole: both states run this same chunk, so a "file:line:" prefix
 * is the same on both sides. */
static const char harness[] =
    "local format, select, pcall = string.format, select, pcall\n"
    "local find, match, gmatch, gsub = string.find, string.match, string.gmatch, string.gsub\n"
    "local function text(ok, ...)\n"
    "  local t = { ok and 'ok' or 'err' }\n"
    "  for i = 1, select('#', ...) do\n"
    "    local v = select(i, ...)\n"
    "    local ty = type(v)\n"
    "    t[#t + 1] = (ty == 'string' or ty == 'number') and format('%q', v) or tostring(v)\n"
    "  end\n"
    "  return table.concat(t, ' ')\n"
    "end\n"
    "local function iterate(s, p, init)\n"
    "  local out, it = {}, gmatch(s, p, init)\n"
    "  for _ = 1, 1000 do\n"
    "    local r = table.pack(it())\n"
    "    if r.n == 0 then break end\n"
    "    out[#out + 1] = text(true, table.unpack(r, 1, r.n))\n"
    "  end\n"
    "  return table.concat(out, '; ')\n"
    "end\n"
    "local REPL_TABLE = { a = '<A>', ab = 7, b = false, [''] = 'E', [1] = 'P1', [2] = {}, x = true }\n"
    "local function repl_function(...)\n"
    "  local n, a = select('#', ...), ...\n"
    "  local k = (n + #tostring(a)) % 5\n"
    "  if k == 0 then return nil elseif k == 1 then return false elseif k == 2 then return tostring(a) .. n\n"
    "  elseif k == 3 then return n * 2 end\n"
    "  return a == 'b' and {} or a\n"
    "end\n"
    "return function(s, p, init, plain, kind, repl, max)\n"
    "  if kind == 1 then repl = REPL_TABLE elseif kind == 2 then repl = repl_function\n"
    "  elseif kind == 3 then repl = #repl + 0.5 end\n"
    "  return table.concat({ text(pcall(find, s, p, init, plain)), text(pcall(match, s, p, init)),\n"
    "    text(pcall(iterate, s, p, init)), text(pcall(gsub, s, p, repl, max)) }, '\\n')\n"
    "end\n";

/* A state with the harness in its registry under "pattern_fuzz". */
static lua_State *open_state(int sandboxed) {
  lua_State *L = luaL_newstate();
  if (!L) abort();
  luaL_openlibs(L);
  if (sandboxed) ty_sandbox_open_patterns(L);
  if (luaL_loadbufferx(L, harness, sizeof harness - 1, "=harness", "t") != LUA_OK || lua_pcall(L, 0, 1, 0) != LUA_OK) {
    fprintf(stderr, "pattern_fuzz: harness: %s\n", lua_tostring(L, -1));
    abort();
  }
  lua_setfield(L, LUA_REGISTRYINDEX, "pattern_fuzz");
  return L;
}

typedef struct fuzz_case {
  const char *s, *p, *repl;
  size_t ls, lp, lrepl;
  int flags, init, max;
} fuzz_case;

/* Runs the harness on L; returns its text (a string on L's stack, popped by the caller). */
static const char *run(lua_State *L, const fuzz_case *c, size_t *len) {
  lua_getfield(L, LUA_REGISTRYINDEX, "pattern_fuzz");
  lua_pushlstring(L, c->s, c->ls);
  lua_pushlstring(L, c->p, c->lp);
  if (c->flags & 8) lua_pushinteger(L, c->init);
  else lua_pushnil(L);
  lua_pushboolean(L, c->flags & 4);
  lua_pushinteger(L, c->flags & 3);
  lua_pushlstring(L, c->repl, c->lrepl);
  if (c->flags & 16) lua_pushinteger(L, c->max);
  else lua_pushnil(L);
  if (lua_pcall(L, 7, 1, 0) != LUA_OK || !lua_isstring(L, -1)) {
    fprintf(stderr, "pattern_fuzz: harness failed: %s\n", lua_tostring(L, -1));
    abort();
  }
  return lua_tolstring(L, -1, len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static lua_State *sand, *stock;
  if (!sand) {
    sand = open_state(1);
    stock = open_state(0);
  }
  uint8_t head[HEADER] = {0};
  if (size) memcpy(head, data, size < HEADER ? size : HEADER);
  const char *rest = size > HEADER ? (const char *)data + HEADER : "";
  size_t left = size > HEADER ? size - HEADER : 0;
  fuzz_case c = {.flags = head[0], .init = (int8_t)head[1], .max = (int8_t)head[2]};
  size_t lp = (size_t)(head[3] | head[4] << 8) % (MAX_PATTERN + 1);
  c.lp = lp < left ? lp : left;
  c.p = rest;
  rest += c.lp, left -= c.lp;
  size_t lrepl = head[5] % (MAX_REPL + 1);
  c.lrepl = lrepl < left ? lrepl : left;
  c.repl = rest;
  rest += c.lrepl, left -= c.lrepl;
  c.s = rest;
  c.ls = left < MAX_SUBJECT ? left : MAX_SUBJECT;

  charged = 0;
  spent = 0;
  size_t got_len, want_len;
  const char *got = run(sand, &c, &got_len);
  if (!spent) {
    const char *want = run(stock, &c, &want_len);
    if (got_len != want_len || memcmp(got, want, got_len) != 0) {
      fprintf(stderr, "pattern_fuzz: results differ for pattern \"%.*s\"\n--- stock:\n%s\n--- sandbox:\n%s\n",
              (int)c.lp, c.p, want, got);
      abort();
    }
    lua_pop(stock, 1);
  }
  lua_pop(sand, 1);
  /* Keep the states small between inputs. */
  lua_gc(sand, LUA_GCSTEP, 0);
  lua_gc(stock, LUA_GCSTEP, 0);
  return 0;
}

#ifndef TYCHO_LIBFUZZER
#include "replay.h"

static int replay_file(const char *path) {
  size_t len = 0;
  uint8_t *buf = fuzz_read_file("pattern_fuzz", path, 0, &len);
  if (!buf) return -1;
  LLVMFuzzerTestOneInput(buf, len);
  free(buf);
  return 1;
}

int main(int argc, char **argv) { return fuzz_replay_main("pattern_fuzz", argc, argv, replay_file); }
#endif
