/* server/route.c: a connection's path picks its module (/NAME serves NAME.lua, / serves
 * default.lua), and the net's events reach that module as its session's calls: onConnect,
 * onMessage (JSON text decoded into Lua values in the module's state, binary as a string)
 * and onClose, each fenced (module.c). */
#include "host_private.h"

#include <jansson.h>
#include <string.h>

static session *session_find_handler(session *s, const char *name) {
  if (s->handler_ref == LUA_NOREF) return NULL;
  lua_State *L = s->m->L;
  lua_rawgeti(L, LUA_REGISTRYINDEX, s->handler_ref);
  lua_getfield(L, -1, name);
  lua_remove(L, -2);
  if (lua_isfunction(L, -1)) return s;
  lua_pop(L, 1);
  return NULL;
}

static void send_error(ty_client *c, const char *code, const char *message) {
  json_t *j = json_pack("{s:s, s:s, s:s}", "t", "error", "code", code, "message", message);
  char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
  if (text) ty_client_send(c, text, strlen(text), false);
  free(text);
  json_decref(j);
}

static module *module_route(host *h, const char *path) {
  const char *seg = path;
  while (*seg == '/') seg++;
  size_t n = strcspn(seg, "/?#");
  char name[64];
  if (n == 0) snprintf(name, sizeof name, "default");
  else if (n >= sizeof name) return NULL;
  else snprintf(name, sizeof name, "%.*s", (int)n, seg);
  for (uint32_t i = 0; i < h->nmodules; i++)
    if (strcmp(h->modules[i].name, name) == 0) return &h->modules[i];
  return NULL;
}

/* ---- net events ---- */

/* Runs in m's state under module_call: makes s's Lua session object, then runs onConnect
 * and keeps its handler table. Everything that allocates in the module's state runs here, so
 * a refused allocation (the memory cap) is an error that stops the module, not a panic. */
static int session_open(lua_State *L) {
  session *s = lua_touserdata(L, 1);
  const char *path = lua_touserdata(L, 2);
  host_lua_push_session(L, s, path);
  lua_pushvalue(L, -1);
  s->box_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  if (!module_push_hook(s->m, "onConnect")) return 0;
  lua_insert(L, -2);
  lua_call(L, 1, 1);
  if (lua_istable(L, -1)) s->handler_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  return 0;
}

void route_open(void *user, ty_client *c, const char *path) {
  host *h = user;
  module *m = module_route(h, path);
  if (!m) {
    char reason[300]; /* ty_client_close cuts it to 123 bytes of UTF-8 */
    snprintf(reason, sizeof reason, "no module serves %s", path);
    ty_client_close(c, 1008, reason);
    return;
  }
  if (m->dead) {
    ty_client_close(c, 1011, "module stopped");
    return;
  }
  session *s = TY_MALLOC(sizeof *s);
  TY_ASSERT(s);
  *s = (session){.h = h, .m = m, .c = c, .id = ty_client_id(c), .handler_ref = LUA_NOREF, .box_ref = LUA_NOREF,
                 .err_at = ERR_NEVER};
  s->next = h->sessions;
  if (h->sessions) h->sessions->prev = s;
  h->sessions = s;
  ty_client_set_user(c, s);

  lua_State *L = m->L;
  lua_pushcfunction(L, session_open);
  lua_pushlightuserdata(L, s);
  lua_pushlightuserdata(L, (void *)path);
  if (!module_call_at(m, &s->err_at, 2, 0, "onConnect") && !m->dead) ty_client_close(c, 1011, "onConnect failed");
}

typedef struct delivery {
  session *s;
  const char *data;
  size_t len;
  bool binary;
} delivery;

/* Runs in the module's state under module_call: decodes one message there (JSON text into
 * Lua values, or binary as a string) and hands it to the session's onMessage. */
static int session_deliver(lua_State *L) {
  delivery *d = lua_touserdata(L, 1);
  session *s = d->s;
  if (d->binary) {
    lua_pushlstring(L, d->data, d->len);
  } else {
    char err[256];
    ty_json_status st = ty_json_push_decoded(L, d->data, d->len, &s->h->limits, err, sizeof err);
    if (st != TY_JSON_OK) {
      send_error(s->c, ty_json_status_code(st), err);
      return 0;
    }
  }
  if (!session_find_handler(s, "onMessage")) return 0;
  lua_insert(L, -2);
  lua_call(L, 1, 0);
  return 0;
}

void route_message(void *user, ty_client *c, const char *data, size_t len, bool binary) {
  (void)user;
  session *s = ty_client_user(c);
  if (!s || !s->m || s->m->dead) return;
  lua_State *L = s->m->L;
  delivery d = {s, data, len, binary};
  lua_pushcfunction(L, session_deliver);
  lua_pushlightuserdata(L, &d);
  module_call_at(s->m, &s->err_at, 1, 0, "onMessage");
}

/* Runs the session's onClose, when it has one, under module_call. */
static int session_closed(lua_State *L) {
  session *s = lua_touserdata(L, 1);
  if (session_find_handler(s, "onClose")) lua_call(L, 0, 0);
  return 0;
}

void session_end(host *h, session *s) {
  if (s->m) { /* NULL once its module restarted in a fresh state (module_restart) */
    lua_State *L = s->m->L;
    if (!s->m->dead && s->handler_ref != LUA_NOREF) {
      lua_pushcfunction(L, session_closed);
      lua_pushlightuserdata(L, s);
      module_call_at(s->m, &s->err_at, 1, 0, "onClose");
    }
    host_lua_session_gone(L, s->box_ref);
    luaL_unref(L, LUA_REGISTRYINDEX, s->box_ref);
    luaL_unref(L, LUA_REGISTRYINDEX, s->handler_ref);
  }
  ty_client_set_user(s->c, NULL);
  if (s->prev) s->prev->next = s->next;
  else h->sessions = s->next;
  if (s->next) s->next->prev = s->prev;
  TY_FREE(s);
}

void route_close(void *user, ty_client *c) {
  session *s = ty_client_user(c);
  if (s) session_end(user, s);
}
