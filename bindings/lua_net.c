/* bindings/lua_net.c: tycho.net, the game's WebSocket client over engine/net/client.h.
 * Nothing runs inside libwebsockets: tycho.net.update services the sockets, then hands the
 * queued events to each Connection's handlers, JSON decoded, errors caught and logged.
 *
 * The bootstrap rule: a game switches from its lobby handlers to its in-game handlers
 * while the world loads. The message after which that switch happens is `welcome`: from
 * the moment one arrives, later messages are held back until the game calls
 * conn:setHandlers(h) or conn:ready(), then handed over in arrival order before anything
 * newer, so no event is lost or reordered between the two sets of handlers. */
#include "bindings.h"
#include "lua_json.h"
#include "net/client.h"

#include <string.h>

#define TY_CONNECTION "Connection"
#define TY_NET_CLIENT "NetClient"

/* A Connection's user values. */
enum { UV_HANDLERS = 1, UV_QUEUE, UV_INFO, UV_COUNT = UV_INFO };

typedef struct lua_conn {
  ty_net_conn *conn;
  lua_Integer head, tail; /* held-back messages are queue[head .. tail-1] */
  bool buffering;         /* a welcome arrived and no setHandlers/ready yet */
  bool replaying;         /* a replay loop is running further up the stack */
} lua_conn;

typedef struct lua_net {
  ty_net_client *client;
  bool dispatching; /* inside tycho.net.update's handler calls */
} lua_net;

/* Registry slot of the per-state table {client = NetClient, live = {[conn] = Connection}}.
 * live keeps every Connection reachable until its last event has been handled, so a game
 * that drops its reference still hears onClose. */
static const char net_key = 0;

static const char *const state_names[] = {"connecting", "open", "closing", "closed"};

static lua_conn *check_conn(lua_State *L, int idx) {
  lua_conn *lc = luaL_checkudata(L, idx, TY_CONNECTION);
  if (!lc->conn) luaL_error(L, "Connection used after it was collected"); /* resurrected by a finalizer */
  return lc;
}

/* Pushes the per-state table; creates the client first when create is true. Returns NULL
 * (pushing nothing) when there is no client and none was asked for or it could not be made. */
static lua_net *get_net(lua_State *L, bool create) {
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &net_key) == LUA_TTABLE) {
    lua_getfield(L, -1, "client");
    lua_net *ln = lua_touserdata(L, -1);
    lua_pop(L, 1);
    return ln;
  }
  lua_pop(L, 1);
  if (!create) return NULL;
  ty_net_client *client = ty_net_client_create();
  if (!client) return NULL;
  lua_createtable(L, 0, 2);
  /* Made before any Connection, so at lua_close its __gc runs after theirs (Lua finalizes
   * in reverse order of marking). */
  lua_net *ln = lua_newuserdatauv(L, sizeof *ln, 0);
  ln->client = client;
  ln->dispatching = false;
  luaL_setmetatable(L, TY_NET_CLIENT);
  lua_setfield(L, -2, "client");
  lua_newtable(L);
  lua_setfield(L, -2, "live");
  lua_pushvalue(L, -1);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &net_key);
  return ln;
}

static int net_client_gc(lua_State *L) {
  lua_net *ln = luaL_checkudata(L, 1, TY_NET_CLIENT);
  ty_net_client_destroy(ln->client);
  ln->client = NULL;
  return 0;
}

/* ---- calling the game ---- */

/* Calls handlers[name] of the Connection at conn with the nargs values on top (popped).
 * A missing handler is skipped; an error is logged with its traceback, never raised. */
static void call_handler(lua_State *L, int conn, const char *name, int nargs) {
  lua_getiuservalue(L, conn, UV_HANDLERS);
  lua_getfield(L, -1, name);
  lua_remove(L, -2);
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1 + nargs);
    return;
  }
  lua_insert(L, -1 - nargs);
  if (!ty_pcall(L, nargs, 0)) {
    lua_getiuservalue(L, conn, UV_INFO);
    lua_getfield(L, -1, "url");
    ty_log("net_handler_error", "%s (%s): %s", name, lua_tostring(L, -1), lua_tostring(L, -3));
    lua_pop(L, 3);
  }
}

static bool is_welcome(lua_State *L, int idx) {
  if (!lua_istable(L, idx)) return false;
  lua_pushliteral(L, "t");
  lua_rawget(L, idx < 0 ? idx - 1 : idx);
  bool welcome = lua_type(L, -1) == LUA_TSTRING && strcmp(lua_tostring(L, -1), "welcome") == 0;
  lua_pop(L, 1);
  return welcome;
}

/* Hands the message on top (popped) to onMessage, or holds it back (see the file comment).
 * While a replay is draining the queue, new messages join its end to keep the order. */
static void deliver(lua_State *L, int conn, lua_conn *lc) {
  if (lc->buffering || lc->head < lc->tail) {
    lua_getiuservalue(L, conn, UV_QUEUE);
    lua_insert(L, -2);
    lua_rawseti(L, -2, lc->tail++);
    lua_pop(L, 1);
    return;
  }
  /* Set before the call: a handler that switches handlers inside onMessage(welcome)
   * replays an empty queue and ends the hold at once. */
  if (is_welcome(L, -1)) lc->buffering = true;
  call_handler(L, conn, "onMessage", 1);
}

/* Hands held-back messages to the current handlers until none are left or another welcome
 * starts a new hold. */
static void replay(lua_State *L, int conn, lua_conn *lc) {
  if (lc->replaying) return; /* the loop further up picks up the new handlers */
  lc->replaying = true;
  while (!lc->buffering && lc->head < lc->tail) {
    lua_getiuservalue(L, conn, UV_QUEUE);
    lua_rawgeti(L, -1, lc->head);
    lua_pushnil(L);
    lua_rawseti(L, -3, lc->head);
    lua_remove(L, -2);
    lc->head++;
    if (is_welcome(L, -1)) lc->buffering = true;
    call_handler(L, conn, "onMessage", 1);
  }
  if (lc->head == lc->tail) lc->head = lc->tail = 1;
  lc->replaying = false;
}

/* ---- tycho.net ---- */

/* Handles one event; stack: [live] on top. */
static void dispatch(lua_State *L, const ty_net_event *ev) {
  int live = lua_gettop(L);
  if (lua_rawgetp(L, live, ev->conn) != LUA_TUSERDATA) {
    lua_pop(L, 1);
    return;
  }
  int conn = lua_gettop(L);
  lua_conn *lc = lua_touserdata(L, conn);
  switch (ev->kind) {
  case TY_NET_EVENT_OPEN:
    lua_pushvalue(L, conn);
    call_handler(L, conn, "onOpen", 1);
    break;
  case TY_NET_EVENT_MESSAGE:
    if (ev->binary) {
      lua_pushlstring(L, ev->data, ev->len);
      deliver(L, conn, lc);
    } else {
      /* The message cap already bounds the work; every value takes at least one byte. */
      ty_json_limits lim = {TY_JSON_DEFAULT_DEPTH, (long)ev->len + 1};
      char err[256];
      ty_json_status st = ty_json_push_decoded(L, ev->data, ev->len, &lim, err, sizeof err);
      if (st == TY_JSON_OK) deliver(L, conn, lc);
      else ty_log("net_bad_json", "%s sent a text message that is not usable JSON (%s): dropped",
                  ty_net_conn_url(lc->conn), err);
    }
    break;
  case TY_NET_EVENT_CLOSE:
  case TY_NET_EVENT_ERROR:
    lua_pushnil(L);
    lua_rawsetp(L, live, ev->conn);
    if (ev->kind == TY_NET_EVENT_CLOSE) {
      lua_pushinteger(L, ev->code);
      lua_pushstring(L, ev->reason);
      call_handler(L, conn, "onClose", 2);
    } else {
      lua_pushstring(L, ev->reason);
      call_handler(L, conn, "onError", 1);
    }
    break;
  }
  lua_settop(L, live);
}

/* Protected body of tycho.net.update: arg 1 is the lua_net, 2 the live table. */
static int dispatch_all(lua_State *L) {
  lua_net *ln = lua_touserdata(L, 1);
  lua_Integer count = 0;
  ty_net_event ev;
  while (ty_net_client_poll(ln->client, &ev)) {
    if (!ev.conn) continue;
    dispatch(L, &ev);
    count++;
  }
  lua_pushinteger(L, count);
  return 1;
}

/* tycho.net.update([timeoutSeconds]) -> number of events handled */
static int net_update(lua_State *L) {
  lua_Number timeout = luaL_optnumber(L, 1, 0);
  luaL_argcheck(L, timeout >= 0 && timeout <= 3600, 1, "timeout must be 0..3600 seconds");
  lua_net *ln = get_net(L, false);
  if (!ln) {
    lua_pushinteger(L, 0);
    return 1;
  }
  if (ln->dispatching) return luaL_error(L, "tycho.net.update called from inside a network handler");
  ty_net_client_service(ln->client, (double)timeout);
  lua_pushcfunction(L, dispatch_all);
  lua_pushlightuserdata(L, ln);
  lua_getfield(L, -3, "live");
  ln->dispatching = true;
  int rc = lua_pcall(L, 2, 1, 0); /* bare: only to clear dispatching before raising again */
  ln->dispatching = false;
  if (rc != LUA_OK) return lua_error(L);
  return 1;
}

/* Characters a module path may hold: what a URL path takes without escaping. */
static bool game_id_ok(const char *s, size_t len) {
  for (size_t i = 0; i < len; i++) {
    unsigned char ch = (unsigned char)s[i];
    if (ch <= 0x20 || ch >= 0x7f || ch == '?' || ch == '#' || ch == '%') return false;
  }
  return true;
}

static size_t opt_size(lua_State *L, int opts, const char *field) {
  size_t v = 0;
  if (lua_getfield(L, opts, field) != LUA_TNIL) {
    lua_Integer n = lua_tointeger(L, -1);
    if (!lua_isinteger(L, -1) || n < 1)
      luaL_argerror(L, 4, lua_pushfstring(L, "%s must be a positive integer", field));
    v = (size_t)n;
  }
  lua_pop(L, 1);
  return v;
}

/* tycho.net.connect(baseUrl, gameId, handlers [, {maxMessage=, maxQueue=, timeout=}])
 * -> Connection | nil, message. Waits up to timeout seconds (default 5) for the handshake, so
 * a refused connection is nil, message as every expected failure is; onOpen still runs at
 * the next tycho.net.update. timeout = 0 returns at once and a failure reaches onError. */
static int net_connect(lua_State *L) {
  size_t blen, glen;
  const char *base = luaL_checklstring(L, 1, &blen);
  const char *game = luaL_optlstring(L, 2, "", &glen);
  if (!lua_isnoneornil(L, 3)) luaL_checktype(L, 3, LUA_TTABLE);
  ty_net_conn_desc desc = {0};
  lua_Number wait = 5;
  if (!lua_isnoneornil(L, 4)) {
    luaL_checktype(L, 4, LUA_TTABLE);
    desc.max_message = opt_size(L, 4, "maxMessage");
    desc.max_queue = opt_size(L, 4, "maxQueue");
    if (lua_getfield(L, 4, "timeout") != LUA_TNIL) {
      wait = lua_tonumber(L, -1);
      if (!lua_isnumber(L, -1) || wait < 0 || wait > 3600) luaL_argerror(L, 4, "timeout must be 0..3600 seconds");
    }
    lua_pop(L, 1);
  }
  while (glen && *game == '/') game++, glen--;
  luaL_argcheck(L, game_id_ok(game, glen), 2, "a module path has no spaces, control characters, ?, # or %");
  while (blen && base[blen - 1] == '/') blen--;
  lua_pushlstring(L, base, blen);
  lua_pushliteral(L, "/");
  lua_pushlstring(L, game, glen);
  lua_concat(L, 3);
  const char *url = lua_tostring(L, -1);
  int urlidx = lua_gettop(L);

  lua_net *ln = get_net(L, true);
  if (!ln) {
    return ty_fail(L, "the network client could not start (see the log)");
  }
  char err[1200];
  ty_net_conn *c = ty_net_client_connect(ln->client, url, &desc, err, sizeof err);
  if (!c) {
    return ty_fail(L, "%s", err);
  }
  /* Other connections' events met while waiting stay queued for the next update. */
  for (double deadline = ty_now() + wait; ty_net_conn_state(c) == TY_NET_CONNECTING && ty_now() < deadline;)
    ty_net_client_service(ln->client, 0.01);
  if (ty_net_conn_state(c) == TY_NET_CLOSED && ty_net_conn_error(c)[0]) {
    int n = ty_fail(L, "%s", ty_net_conn_error(c));
    ty_net_conn_release(c);
    return n;
  }
  int net = lua_gettop(L);
  lua_conn *lc = lua_newuserdatauv(L, sizeof *lc, UV_COUNT);
  lc->conn = c;
  lc->head = lc->tail = 1;
  lc->buffering = lc->replaying = false;
  luaL_setmetatable(L, TY_CONNECTION);
  if (lua_istable(L, 3)) lua_pushvalue(L, 3);
  else lua_newtable(L);
  lua_setiuservalue(L, -2, UV_HANDLERS);
  lua_newtable(L);
  lua_setiuservalue(L, -2, UV_QUEUE);
  lua_createtable(L, 0, 2);
  lua_pushvalue(L, urlidx);
  lua_setfield(L, -2, "url");
  lua_pushlstring(L, game, glen);
  lua_setfield(L, -2, "gameId");
  lua_setiuservalue(L, -2, UV_INFO);
  lua_getfield(L, net, "live");
  lua_pushvalue(L, -2);
  lua_rawsetp(L, -2, c);
  lua_pop(L, 1);
  return 1;
}

/* ---- Connection ---- */

/* Run protected by conn:send, which turns a value JSON cannot hold into a bad argument. */
static int encode_body(lua_State *L) {
  ty_json_push_encoded(L, 1);
  return 1;
}

static int conn_send(lua_State *L) {
  lua_conn *lc = check_conn(L, 1);
  luaL_checkany(L, 2);
  lua_pushcfunction(L, encode_body);
  lua_pushvalue(L, 2);
  if (lua_pcall(L, 1, 1, 0) != LUA_OK) return luaL_argerror(L, 2, lua_tostring(L, -1));
  size_t len;
  const char *text = lua_tolstring(L, -1, &len);
  ty_net_send_status st = ty_net_conn_send(lc->conn, text, len, false);
  if (st == TY_NET_SEND_OK) {
    lua_pushboolean(L, 1);
    return 1;
  }
  return ty_fail(L, "%s", st == TY_NET_SEND_FULL ? "send queue full" : "connection is closed");
}

static int conn_send_binary(lua_State *L) {
  lua_conn *lc = check_conn(L, 1);
  size_t len;
  const char *bytes = luaL_checklstring(L, 2, &len);
  ty_net_send_status st = ty_net_conn_send(lc->conn, bytes, len, true);
  if (st == TY_NET_SEND_OK) {
    lua_pushboolean(L, 1);
    return 1;
  }
  return ty_fail(L, "%s", st == TY_NET_SEND_FULL ? "send queue full" : "connection is closed");
}

/* conn:close([code [, reason]]): code 1000 (default) or 3000..4999, reason up to 123 bytes. */
static int conn_close(lua_State *L) {
  lua_conn *lc = check_conn(L, 1);
  lua_Integer code = luaL_optinteger(L, 2, 1000);
  luaL_argcheck(L, code == 1000 || (code >= 3000 && code <= 4999), 2, "close code must be 1000 or 3000..4999");
  size_t len;
  const char *reason = luaL_optlstring(L, 3, "", &len);
  char cut[124];
  if (len > sizeof cut - 1) {
    len = sizeof cut - 1;
    while (len && ((unsigned char)reason[len] & 0xC0) == 0x80) len--; /* keep UTF-8 whole */
  }
  memcpy(cut, reason, len);
  cut[len] = 0;
  ty_net_conn_close(lc->conn, (int)code, cut);
  return 0;
}

/* conn:setHandlers(handlers): the in-game callbacks; ends a welcome hold and replays it. */
static int conn_set_handlers(lua_State *L) {
  lua_conn *lc = check_conn(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  lua_settop(L, 2);
  lua_setiuservalue(L, 1, UV_HANDLERS);
  lc->buffering = false;
  replay(L, 1, lc);
  return 0;
}

/* conn:ready(): ends a welcome hold, replaying it to the handlers already installed. */
static int conn_ready(lua_State *L) {
  lua_conn *lc = check_conn(L, 1);
  lc->buffering = false;
  replay(L, 1, lc);
  return 0;
}

static int conn_index(lua_State *L) {
  lua_conn *lc = check_conn(L, 1);
  const char *key = lua_tostring(L, 2);
  if (key && strcmp(key, "state") == 0) {
    lua_pushstring(L, state_names[ty_net_conn_state(lc->conn)]);
    return 1;
  }
  if (key && (strcmp(key, "url") == 0 || strcmp(key, "gameId") == 0)) {
    lua_getiuservalue(L, 1, UV_INFO);
    lua_getfield(L, -1, key);
    return 1;
  }
  if (key && strcmp(key, "buffered") == 0) {
    lua_pushinteger(L, lc->tail - lc->head);
    return 1;
  }
  if (!luaL_getmetafield(L, 1, "__methods")) return 0;
  lua_pushvalue(L, 2);
  lua_rawget(L, -2);
  return 1;
}

static int conn_tostring(lua_State *L) {
  lua_conn *lc = check_conn(L, 1);
  lua_pushfstring(L, "Connection(%s, %s)", ty_net_conn_url(lc->conn), state_names[ty_net_conn_state(lc->conn)]);
  return 1;
}

static int conn_gc(lua_State *L) {
  lua_conn *lc = luaL_checkudata(L, 1, TY_CONNECTION);
  if (lc->conn) ty_net_conn_release(lc->conn);
  lc->conn = NULL;
  return 0;
}

void ty_open_net(lua_State *L) {
  static const luaL_Reg client_meta[] = {{"__gc", net_client_gc}, {NULL, NULL}};
  ty_type_register(L, TY_NET_CLIENT, client_meta, NULL);

  static const luaL_Reg methods[] = {
      {"send", conn_send},       {"sendBinary", conn_send_binary}, {"close", conn_close},
      {"setHandlers", conn_set_handlers}, {"ready", conn_ready}, {NULL, NULL},
  };
  static const luaL_Reg meta[] = {
      {"__index", conn_index}, {"__tostring", conn_tostring}, {"__gc", conn_gc}, {NULL, NULL}};
  ty_type_register(L, TY_CONNECTION, meta, methods);

  static const luaL_Reg fns[] = {{"connect", net_connect}, {"update", net_update}, {NULL, NULL}};
  luaL_newlib(L, fns);
  lua_setfield(L, -2, "net");
}
