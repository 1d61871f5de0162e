/* bindings/lua_sandbox_pattern.c: string.find, match, gmatch and gsub for sandboxed scenes,
 * with a step budget.
 *
 * Lua's own pattern functions are C code that the instruction hook never interrupts: a
 * pattern that backtracks over a long subject (string.find(("a"):rep(3e4), ".-.-.-b")) could
 * hold the host for hours. These implement the same pattern language (Lua 5.4 manual §6.4.1)
 * and charge every matcher step to the scene's instruction count (ty_fence_charge), which
 * raises once the call's budget is spent. The rest of the scene's library, charged the
 * same way where its work depends on its arguments, is bindings/lua_sandbox_lib.c. */
#include "lua_sandbox.h"

#include "lua_fence.h"

#include <ctype.h>
#include <string.h>

#define MAX_CAPTURES 32
#define MAX_DEPTH 200
#define CAP_UNFINISHED (-1)
#define CAP_POSITION (-2)
#define CHARGE_EVERY 1024 /* steps between calls to charge() */

typedef struct pm_state {
  const char *src, *src_end, *p_end;
  lua_State *L;
  size_t pending; /* steps not yet charged */
  int depth, level;
  struct {
    const char *init;
    ptrdiff_t len;
  } cap[MAX_CAPTURES];
} pm_state;

static void step(pm_state *ms, size_t n) {
  ms->pending += n;
  if (ms->pending >= CHARGE_EVERY) {
    size_t p = ms->pending;
    ms->pending = 0;
    ty_fence_charge(ms->L, p);
  }
}

static const char *pm_match(pm_state *ms, const char *s, const char *p);

static const char *class_end(pm_state *ms, const char *p) {
  if (*p++ == '%') {
    if (p == ms->p_end) luaL_error(ms->L, "malformed pattern (ends with '%%')");
    return p + 1;
  }
  if (p[-1] == '[') {
    if (*p == '^') p++;
    do { /* the first ']' after '[' or '[^' is a member */
      if (p == ms->p_end) luaL_error(ms->L, "malformed pattern (missing ']')");
      if (*(p++) == '%' && p < ms->p_end) p++;
    } while (*p != ']');
    return p + 1;
  }
  return p;
}

static int class_matches(int c, int cl) {
  int r;
  switch (tolower(cl)) {
  case 'a': r = isalpha(c); break;
  case 'c': r = iscntrl(c); break;
  case 'd': r = isdigit(c); break;
  case 'g': r = isgraph(c); break;
  case 'l': r = islower(c); break;
  case 'p': r = ispunct(c); break;
  case 's': r = isspace(c); break;
  case 'u': r = isupper(c); break;
  case 'w': r = isalnum(c); break;
  case 'x': r = isxdigit(c); break;
  case 'z': r = c == 0; break; /* deprecated, but stock Lua 5.4 still has it */
  default: return cl == c;
  }
  if (isupper(cl)) r = !r;
  return r != 0;
}

/* p at '[', ec at its closing ']'. */
static int bracket_matches(int c, const char *p, const char *ec) {
  int yes = 1;
  if (*(p + 1) == '^') {
    yes = 0;
    p++;
  }
  while (++p < ec) {
    if (*p == '%') {
      p++;
      if (class_matches(c, (unsigned char)*p)) return yes;
    } else if (*(p + 1) == '-' && p + 2 < ec) {
      p += 2;
      if ((unsigned char)*(p - 2) <= c && c <= (unsigned char)*p) return yes;
    } else if ((unsigned char)*p == c) {
      return yes;
    }
  }
  return !yes;
}

static int single_matches(pm_state *ms, const char *s, const char *p, const char *ep) {
  if (s >= ms->src_end) return 0;
  int c = (unsigned char)*s;
  switch (*p) {
  case '.': return 1;
  case '%': return class_matches(c, (unsigned char)*(p + 1));
  case '[': return bracket_matches(c, p, ep - 1);
  default: return (unsigned char)*p == c;
  }
}

static const char *match_balance(pm_state *ms, const char *s, const char *p) {
  if (p >= ms->p_end - 1) luaL_error(ms->L, "malformed pattern (missing arguments to '%%b')");
  if (s >= ms->src_end || *s != *p) return NULL;
  int b = *p, e = *(p + 1), open = 1;
  while (++s < ms->src_end) {
    step(ms, 1);
    if (*s == e) {
      if (--open == 0) return s + 1;
    } else if (*s == b) {
      open++;
    }
  }
  return NULL;
}

static const char *max_expand(pm_state *ms, const char *s, const char *p, const char *ep) {
  ptrdiff_t i = 0;
  while (single_matches(ms, s + i, p, ep)) i++, step(ms, 1);
  for (; i >= 0; i--) { /* back off one at a time until the rest matches */
    step(ms, 1);
    const char *r = pm_match(ms, s + i, ep + 1);
    if (r) return r;
  }
  return NULL;
}

static const char *min_expand(pm_state *ms, const char *s, const char *p, const char *ep) {
  for (;;) {
    step(ms, 1);
    const char *r = pm_match(ms, s, ep + 1);
    if (r) return r;
    if (!single_matches(ms, s, p, ep)) return NULL;
    s++;
  }
}

static const char *start_capture(pm_state *ms, const char *s, const char *p, ptrdiff_t what) {
  if (ms->level >= MAX_CAPTURES) luaL_error(ms->L, "too many captures");
  ms->cap[ms->level].init = s;
  ms->cap[ms->level].len = what;
  ms->level++;
  const char *r = pm_match(ms, s, p);
  if (!r) ms->level--;
  return r;
}

static const char *end_capture(pm_state *ms, const char *s, const char *p) {
  int l = -1;
  for (int i = ms->level - 1; i >= 0; i--)
    if (ms->cap[i].len == CAP_UNFINISHED) {
      l = i;
      break;
    }
  if (l < 0) luaL_error(ms->L, "invalid pattern capture");
  ms->cap[l].len = s - ms->cap[l].init;
  const char *r = pm_match(ms, s, p);
  if (!r) ms->cap[l].len = CAP_UNFINISHED;
  return r;
}

static const char *match_capture(pm_state *ms, const char *s, int l) {
  l -= '1';
  if (l < 0 || l >= ms->level || ms->cap[l].len == CAP_UNFINISHED)
    luaL_error(ms->L, "invalid capture index %%%d", l + 1);
  if (ms->cap[l].len == CAP_POSITION) return NULL; /* as stock Lua: its length reads as SIZE_MAX */
  size_t len = (size_t)ms->cap[l].len;
  step(ms, len / 16 + 1);
  if ((size_t)(ms->src_end - s) >= len && memcmp(ms->cap[l].init, s, len) == 0) return s + len;
  return NULL;
}

static const char *pm_match(pm_state *ms, const char *s, const char *p) {
  if (ms->depth++ >= MAX_DEPTH) luaL_error(ms->L, "pattern too complex"); /* stock: 200 nested calls */
  for (;;) {
    step(ms, 1);
    if (p == ms->p_end) break;
    switch (*p) {
    case '(':
      s = *(p + 1) == ')' ? start_capture(ms, s, p + 2, CAP_POSITION) : start_capture(ms, s, p + 1, CAP_UNFINISHED);
      goto done;
    case ')':
      s = end_capture(ms, s, p + 1);
      goto done;
    case '$':
      if (p + 1 != ms->p_end) goto plain;
      s = s == ms->src_end ? s : NULL;
      goto done;
    case '%':
      if (*(p + 1) == 'b') {
        s = match_balance(ms, s, p + 2);
        if (!s) goto done;
        p += 4;
        continue;
      }
      if (*(p + 1) == 'f') {
        p += 2;
        if (*p != '[') luaL_error(ms->L, "missing '[' after '%%f' in pattern");
        const char *ep = class_end(ms, p);
        int prev = s == ms->src ? 0 : (unsigned char)*(s - 1);
        int cur = s < ms->src_end ? (unsigned char)*s : 0;
        if (!bracket_matches(prev, p, ep - 1) && bracket_matches(cur, p, ep - 1)) {
          p = ep;
          continue;
        }
        s = NULL;
        goto done;
      }
      if (isdigit((unsigned char)*(p + 1))) {
        s = match_capture(ms, s, (unsigned char)*(p + 1));
        if (!s) goto done;
        p += 2;
        continue;
      }
      goto plain;
    default:
    plain: {
      const char *ep = class_end(ms, p);
      if (!single_matches(ms, s, p, ep)) {
        if (*ep == '*' || *ep == '?' || *ep == '-') {
          p = ep + 1; /* the item may match nothing */
          continue;
        }
        s = NULL;
        goto done;
      }
      switch (*ep) {
      case '?': {
        const char *r = pm_match(ms, s + 1, ep + 1);
        if (r) {
          s = r;
          goto done;
        }
        p = ep + 1;
        continue;
      }
      case '+': s = max_expand(ms, s + 1, p, ep); goto done;
      case '*': s = max_expand(ms, s, p, ep); goto done;
      case '-': s = min_expand(ms, s, p, ep); goto done;
      default: s++; p = ep; continue;
      }
    }
    }
  }
done:
  ms->depth--;
  return s;
}

static void push_capture(pm_state *ms, int i, const char *s, const char *e) {
  if (i >= ms->level) {
    if (i != 0) luaL_error(ms->L, "invalid capture index %%%d", i + 1);
    lua_pushlstring(ms->L, s, (size_t)(e - s)); /* no captures: the whole match */
    return;
  }
  ptrdiff_t l = ms->cap[i].len;
  if (l == CAP_UNFINISHED) luaL_error(ms->L, "unfinished capture");
  if (l == CAP_POSITION) lua_pushinteger(ms->L, (ms->cap[i].init - ms->src) + 1);
  else lua_pushlstring(ms->L, ms->cap[i].init, (size_t)l);
}

static int push_captures(pm_state *ms, const char *s, const char *e) {
  int n = (ms->level == 0 && s) ? 1 : ms->level;
  luaL_checkstack(ms->L, n, "too many captures");
  for (int i = 0; i < n; i++) push_capture(ms, i, s, e);
  return n;
}

static void prepare(pm_state *ms, lua_State *L, const char *s, size_t ls, const char *p, size_t lp) {
  ms->L = L;
  ms->src = s;
  ms->src_end = s + ls;
  ms->p_end = p + lp;
  ms->pending = 0;
}

static void restart(pm_state *ms) {
  ms->level = 0;
  ms->depth = 0;
}

static void settle(pm_state *ms) {
  if (ms->pending) ty_fence_charge(ms->L, ms->pending);
  ms->pending = 0;
}

static size_t start_index(lua_Integer pos, size_t len) {
  if (pos > 0) return (size_t)pos;
  if (pos == 0) return 1;
  if (pos < -(lua_Integer)len) return 1;
  return len + (size_t)pos + 1;
}

static int has_specials(const char *p, size_t lp) {
  for (size_t i = 0; i < lp; i++)
    if (strchr("^$*+?.([%-", p[i]) && p[i]) return 1;
  return 0;
}

static int find_aux(lua_State *L, int find) {
  size_t ls, lp;
  const char *s = luaL_checklstring(L, 1, &ls);
  const char *p = luaL_checklstring(L, 2, &lp);
  size_t init = start_index(luaL_optinteger(L, 3, 1), ls) - 1;
  if (init > ls) {
    luaL_pushfail(L);
    return 1;
  }
  pm_state ms;
  prepare(&ms, L, s, ls, p, lp);
  if (find && (lua_toboolean(L, 4) || !has_specials(p, lp))) {
    /* plain search, charged per starting position */
    for (size_t i = init; lp <= ls && i + lp <= ls; i++) {
      step(&ms, lp / 16 + 1);
      if (memcmp(s + i, p, lp) == 0) {
        settle(&ms);
        lua_pushinteger(L, (lua_Integer)i + 1);
        lua_pushinteger(L, (lua_Integer)(i + lp));
        return 2;
      }
    }
    settle(&ms);
    luaL_pushfail(L);
    return 1;
  }
  const char *s1 = s + init;
  int anchor = *p == '^';
  if (anchor) p++, lp--, ms.p_end = p + lp;
  do {
    restart(&ms);
    const char *e = pm_match(&ms, s1, p);
    if (e) {
      settle(&ms);
      if (find) {
        lua_pushinteger(L, (s1 - s) + 1);
        lua_pushinteger(L, e - s);
        return push_captures(&ms, NULL, NULL) + 2;
      }
      return push_captures(&ms, s1, e);
    }
  } while (s1++ < ms.src_end && !anchor);
  settle(&ms);
  luaL_pushfail(L);
  return 1;
}

static int sp_find(lua_State *L) { return find_aux(L, 1); }
static int sp_match(lua_State *L) { return find_aux(L, 0); }

/* gmatch's iterator: upvalues subject, pattern, position, last match end (-1: none). */
static int gmatch_next(lua_State *L) {
  size_t ls, lp;
  const char *s = lua_tolstring(L, lua_upvalueindex(1), &ls);
  const char *p = lua_tolstring(L, lua_upvalueindex(2), &lp);
  lua_Integer pos = lua_tointeger(L, lua_upvalueindex(3));
  lua_Integer last = lua_tointeger(L, lua_upvalueindex(4));
  pm_state ms;
  prepare(&ms, L, s, ls, p, lp);
  for (const char *src = s + pos; src <= ms.src_end; src++) {
    restart(&ms);
    const char *e = pm_match(&ms, src, p);
    if (e && (e - s) != last) {
      settle(&ms);
      lua_pushinteger(L, e - s);
      lua_copy(L, -1, lua_upvalueindex(3));
      lua_replace(L, lua_upvalueindex(4));
      return push_captures(&ms, src, e);
    }
  }
  settle(&ms);
  return 0;
}

static int sp_gmatch(lua_State *L) {
  size_t ls;
  luaL_checklstring(L, 1, &ls);
  luaL_checkstring(L, 2);
  size_t init = start_index(luaL_optinteger(L, 3, 1), ls) - 1;
  if (init > ls) init = ls + 1; /* matches nothing */
  lua_settop(L, 2);
  lua_pushinteger(L, (lua_Integer)init);
  lua_pushinteger(L, -1);
  lua_pushcclosure(L, gmatch_next, 4);
  return 1;
}

/* Adds the replacement of the match s..e to b. Returns whether it differs from the match's
 * text as given: a table or function value of nil or false keeps the original, which does not
 * count as a change (gsub then returns the subject itself, as stock Lua does). */
static int add_replacement(pm_state *ms, luaL_Buffer *b, const char *s, const char *e, int tr) {
  lua_State *L = ms->L;
  if (tr == LUA_TSTRING || tr == LUA_TNUMBER) {
    size_t l;
    const char *r = lua_tolstring(L, 3, &l);
    const char *end = r + l;
    for (; r < end; r++) {
      if (*r != '%') {
        luaL_addchar(b, *r);
        continue;
      }
      r++;
      if (*r == '%') luaL_addchar(b, '%');
      else if (*r == '0') luaL_addlstring(b, s, (size_t)(e - s));
      else if (isdigit((unsigned char)*r)) {
        push_capture(ms, *r - '1', s, e);
        luaL_addvalue(b); /* converts a position capture's integer as stock Lua does */
      } else luaL_error(L, "invalid use of '%c' in replacement string", '%');
    }
    return 1;
  }
  if (tr == LUA_TFUNCTION) {
    lua_pushvalue(L, 3);
    int n = push_captures(ms, s, e);
    lua_call(L, n, 1);
  } else {
    push_capture(ms, 0, s, e);
    lua_gettable(L, 3);
  }
  if (!lua_toboolean(L, -1)) { /* nil or false: keep the original text */
    lua_pop(L, 1);
    luaL_addlstring(b, s, (size_t)(e - s));
    return 0;
  }
  if (!lua_isstring(L, -1)) luaL_error(L, "invalid replacement value (a %s)", luaL_typename(L, -1));
  luaL_addvalue(b);
  return 1;
}

static int sp_gsub(lua_State *L) {
  size_t ls, lp;
  const char *src = luaL_checklstring(L, 1, &ls);
  const char *p = luaL_checklstring(L, 2, &lp);
  int tr = lua_type(L, 3);
  lua_Integer max_n = luaL_optinteger(L, 4, (lua_Integer)ls + 1); /* checked before 3, as stock Lua does */
  luaL_argexpected(L, tr == LUA_TNUMBER || tr == LUA_TSTRING || tr == LUA_TFUNCTION || tr == LUA_TTABLE, 3,
                   "string/function/table");
  const char *lastmatch = NULL;
  lua_Integer n = 0;
  int changed = 0;
  pm_state ms;
  prepare(&ms, L, src, ls, p, lp);
  int anchor = *p == '^';
  if (anchor) p++, lp--, ms.p_end = p + lp;
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  while (n < max_n) {
    restart(&ms);
    const char *e = pm_match(&ms, src, p);
    if (e && e != lastmatch) {
      n++;
      settle(&ms); /* a replacement function runs under the hook itself */
      changed |= add_replacement(&ms, &b, src, e, tr);
      src = lastmatch = e;
    } else if (src < ms.src_end) {
      luaL_addchar(&b, *src++);
    } else {
      break;
    }
    if (anchor) break;
  }
  settle(&ms);
  if (!changed) {
    lua_pushvalue(L, 1);
  } else {
    luaL_addlstring(&b, src, (size_t)(ms.src_end - src));
    luaL_pushresult(&b);
  }
  lua_pushinteger(L, n);
  return 2;
}

void ty_sandbox_open_patterns(lua_State *S) {
  static const luaL_Reg fns[] = {{"find", sp_find}, {"match", sp_match}, {"gmatch", sp_gmatch}, {"gsub", sp_gsub}, {NULL, NULL}};
  lua_getglobal(S, LUA_STRLIBNAME); /* also the strings' __index */
  luaL_setfuncs(S, fns, 0);
  lua_pop(S, 1);
}
