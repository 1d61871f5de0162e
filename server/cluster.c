/* server/cluster.c: host.cluster for the modules of `tycho serve --redis URL --node NAME`. It
 * is only the pipes: to Redis, commands with a callback for the reply, channels with a handler
 * for their messages, and a handler for each (re)connect; to other processes, direct links
 * (server/peer_link.c) whose frames reach the same channel handlers. What the keys and
 * messages mean is Lua's (scripts/tycho/server/cluster.lua). Every callback into a module runs under the
 * module's fences, and is dropped when the module has been restarted in a fresh state since. */
#include "cluster.h"

#include <hiredis/hiredis.h>
#include <lauxlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "lua_floor.h" /* Required for: ty_type_register */
#include "peer_link.h"
#include "redis.h"

#define CLUSTER_MT "tycho.Cluster"
#define MAX_ARGS 64
#define MAX_MODS 64

struct ty_cluster {
  ty_redis *redis;
  ty_links *links; /* NULL: the relay is pub/sub's alone */
  ty_cluster_hooks hooks;
  char node[64];
  char instance[24]; /* this process's start: a restart under the same node name is another owner */
  void *mods[MAX_MODS]; /* modules that made their host.cluster */
  int nmods;
};

typedef struct cluster_box {
  ty_cluster *c;
  void *mod;
} cluster_box;

typedef struct pending {
  ty_cluster *c;
  void *mod;
  lua_State *L;       /* the state the callback belongs to */
  cluster_box *box;   /* and its host.cluster there: a state made at the same address is not it */
  int ref;
} pending;

/* The object's handler table (its user value): {connect = fn, channels = {name = fn}}. */
static bool push_handlers(lua_State *L) {
  if (lua_getfield(L, LUA_REGISTRYINDEX, CLUSTER_MT ".object") != LUA_TUSERDATA) {
    lua_pop(L, 1);
    return false;
  }
  lua_getiuservalue(L, -1, 1);
  lua_remove(L, -2);
  return true;
}

/* Pushes module i's handler (handlers[name], or handlers.channels[channel] when name is
 * NULL) and returns the module's state, or NULL (nothing pushed) when it has none. */
static lua_State *push_handler(ty_cluster *c, int i, const char *name, const char *channel) {
  lua_State *L = c->hooks.state(c->mods[i]);
  if (!L) return NULL;
  int top = lua_gettop(L);
  if (!push_handlers(L)) return NULL;
  bool found = name ? lua_getfield(L, -1, name) == LUA_TFUNCTION
                    : lua_getfield(L, -1, "channels") == LUA_TTABLE && lua_getfield(L, -1, channel) == LUA_TFUNCTION;
  if (!found) {
    lua_settop(L, top);
    return NULL;
  }
  lua_insert(L, top + 1);
  lua_settop(L, top + 1);
  return L;
}

/* Calls each module's handler of channel with the payload and the process it came from over
 * a link (nil: through Redis). */
static void call_channel(ty_cluster *c, const char *channel, const char *data, size_t len, const char *peer) {
  for (int i = 0; i < c->nmods; i++) {
    lua_State *L = push_handler(c, i, NULL, channel);
    if (!L) continue;
    lua_pushlstring(L, data, len);
    if (peer) lua_pushstring(L, peer);
    else lua_pushnil(L);
    c->hooks.call(c->mods[i], 2);
  }
}

static void on_connected(void *user) {
  ty_cluster *c = user;
  for (int i = 0; i < c->nmods; i++)
    if (push_handler(c, i, "connect", NULL)) c->hooks.call(c->mods[i], 0);
}

static void on_message(void *user, const char *channel, const char *data, size_t len) {
  call_channel(user, channel, data, len, NULL);
}

static void on_link_frame(void *user, const char *peer, const char *channel, size_t channel_len, const char *data,
                          size_t len) {
  char name[256]; /* a frame's channel is at most 255 bytes */
  memcpy(name, channel, channel_len);
  name[channel_len] = 0;
  call_channel(user, name, data, len, peer);
}

/* Calls each module's handlers.linkDown(peer). */
static void on_link_down(void *user, const char *peer) {
  ty_cluster *c = user;
  for (int i = 0; i < c->nmods; i++) {
    lua_State *L = push_handler(c, i, "linkDown", NULL);
    if (!L) continue;
    lua_pushstring(L, peer);
    c->hooks.call(c->mods[i], 1);
  }
}

/* The links' listener on relay->iface; peers are told the address this process reaches Redis
 * from when iface is every interface. NULL (logged) when none can be made. */
static ty_links *open_links(ty_cluster *c, struct ev_loop *loop, const ty_cluster_relay *relay) {
  char self[TY_LINK_PEER_MAX], toward[64], err[300];
  snprintf(self, sizeof self, "%s/%s", c->node, c->instance);
  const char *advertise = NULL;
  if (strcmp(relay->iface, "0.0.0.0") == 0 || strcmp(relay->iface, "::") == 0) {
    int port;
    const char *host = ty_redis_host(c->redis, &port);
    if (ty_links_address_toward(host, port, toward, sizeof toward)) advertise = toward;
  }
  ty_links_events ev = {.frame = on_link_frame, .down = on_link_down};
  ty_links *links = ty_links_create(loop, self, relay->iface, relay->port, advertise, &ev, c, err, sizeof err);
  if (!links) ty_log("cluster_link_off", "%s: the relay goes through Redis pub/sub alone", err);
  return links;
}

ty_cluster *ty_cluster_create(struct ev_loop *loop, const char *url, const char *node, const ty_cluster_relay *relay,
                              const ty_cluster_hooks *hooks, char *err, size_t errsz) {
  if (!node[0] || strlen(node) >= 64 || strspn(node, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")
      != strlen(node)) {
    snprintf(err, errsz, "--node %s: 1..63 letters, digits, '-', '_' or '.'", node);
    return NULL;
  }
  if (!loop) {
    snprintf(err, errsz, "--redis needs lws's libev loop, which did not load here (net_evlib_unavailable)");
    return NULL;
  }
  ty_cluster *c = TY_MALLOC(sizeof *c);
  TY_ASSERT(c);
  memset(c, 0, sizeof *c);
  c->hooks = *hooks;
  snprintf(c->node, sizeof c->node, "%s", node);
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  snprintf(c->instance, sizeof c->instance, "%lx%05lx", (unsigned long)ts.tv_sec,
           ((unsigned long)ts.tv_nsec / 1000 ^ (unsigned long)getpid()) & 0xfffff);
  ty_redis_events ev = {.connected = on_connected, .message = on_message};
  c->redis = ty_redis_create(loop, url, &ev, c, err, errsz);
  if (!c->redis) {
    TY_FREE(c);
    return NULL;
  }
  if (!relay->redis_only) c->links = open_links(c, loop, relay);
  return c;
}

void ty_cluster_destroy(ty_cluster *c) {
  if (!c) return;
  c->nmods = 0; /* the pending callbacks fail now, with no module left to hear it */
  ty_links_destroy(c->links);
  ty_redis_destroy(c->redis);
  TY_FREE(c);
}

/* ---- the Lua object ---- */

static cluster_box *check_cluster(lua_State *L) { return luaL_checkudata(L, 1, CLUSTER_MT); }

/* Pushes a reply as Lua values: strings and statuses as strings, integers, nil, arrays as
 * sequences (a nil inside one as false). */
static void push_reply(lua_State *L, redisReply *r, int depth) {
  luaL_checkstack(L, 4, "redis reply");
  switch (r->type) {
  case REDIS_REPLY_STRING:
  case REDIS_REPLY_STATUS: lua_pushlstring(L, r->str, r->len); break;
  case REDIS_REPLY_INTEGER: lua_pushinteger(L, (lua_Integer)r->integer); break;
  case REDIS_REPLY_ARRAY:
    lua_createtable(L, (int)r->elements, 0);
    for (size_t i = 0; i < r->elements; i++) {
      if (depth > 8 || r->element[i]->type == REDIS_REPLY_NIL) lua_pushboolean(L, 0);
      else push_reply(L, r->element[i], depth + 1);
      lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    break;
  default: lua_pushnil(L); break;
  }
}

static void on_reply(void *ud, redisReply *r, const char *err) {
  pending *p = ud;
  ty_cluster *c = p->c;
  bool live = false;
  for (int i = 0; i < c->nmods; i++) live = live || c->mods[i] == p->mod;
  lua_State *L = live ? c->hooks.state(p->mod) : NULL;
  if (L && L == p->L) {
    lua_getfield(L, LUA_REGISTRYINDEX, CLUSTER_MT ".object");
    if (lua_touserdata(L, -1) != p->box) L = NULL;
    lua_pop(p->L, 1);
  }
  if (L) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, p->ref);
    luaL_unref(L, LUA_REGISTRYINDEX, p->ref);
    if (r) {
      push_reply(L, r, 0);
      lua_pushnil(L);
    } else {
      lua_pushnil(L);
      lua_pushstring(L, err);
    }
    c->hooks.call(p->mod, 2);
  }
  TY_FREE(p);
}

static void on_reply_ignored(void *ud, redisReply *r, const char *err) {
  (void)ud;
  (void)r;
  (void)err;
}

/* cluster:command({"SET", key, value, ...} [, fn(reply, err)]) -> true, or false while Redis
 * is unreachable (fn is then never called). Arguments are strings or numbers. */
static int c_command(lua_State *L) {
  cluster_box *b = check_cluster(L);
  luaL_checktype(L, 2, LUA_TTABLE);
  int argc = (int)luaL_len(L, 2);
  luaL_argcheck(L, argc >= 1 && argc <= MAX_ARGS, 2, "1..64 arguments expected");
  bool has_fn = !lua_isnoneornil(L, 3);
  if (has_fn) luaL_checktype(L, 3, LUA_TFUNCTION);
  const char *argv[MAX_ARGS];
  size_t lens[MAX_ARGS];
  for (int i = 0; i < argc; i++) {
    lua_rawgeti(L, 2, i + 1);
    if (!lua_isstring(L, -1)) return luaL_argerror(L, 2, "arguments must be strings or numbers");
    argv[i] = lua_tolstring(L, -1, &lens[i]); /* kept alive: the values stay on the stack */
  }
  bool ok;
  if (has_fn) {
    pending *p = TY_MALLOC(sizeof *p);
    TY_ASSERT(p);
    lua_pushvalue(L, 3);
    *p = (pending){b->c, b->mod, L, b, luaL_ref(L, LUA_REGISTRYINDEX)};
    ok = ty_redis_command(b->c->redis, argc, argv, lens, on_reply, p);
    if (!ok) {
      luaL_unref(L, LUA_REGISTRYINDEX, p->ref);
      TY_FREE(p);
    }
  } else {
    ok = ty_redis_command(b->c->redis, argc, argv, lens, on_reply_ignored, NULL);
  }
  lua_pushboolean(L, ok);
  return 1;
}

/* cluster:subscribe(channel, fn(payload)): fn hears every message on channel, across reconnects. */
static int c_subscribe(lua_State *L) {
  cluster_box *b = check_cluster(L);
  const char *channel = luaL_checkstring(L, 2);
  luaL_checktype(L, 3, LUA_TFUNCTION);
  lua_getiuservalue(L, 1, 1);
  lua_getfield(L, -1, "channels");
  lua_pushvalue(L, 3);
  lua_setfield(L, -2, channel);
  ty_redis_subscribe(b->c->redis, channel);
  return 0;
}

/* Keeps the function at 2 as the object's handler called `name`. */
static int set_handler(lua_State *L, const char *name) {
  check_cluster(L);
  luaL_checktype(L, 2, LUA_TFUNCTION);
  lua_getiuservalue(L, 1, 1);
  lua_pushvalue(L, 2);
  lua_setfield(L, -2, name);
  return 0;
}

/* cluster:onConnect(fn): fn() after every (re)connect of the command connection, when what
 * this process keeps in Redis may have been lost. */
static int c_on_connect(lua_State *L) { return set_handler(L, "connect"); }

/* cluster:onLinkDown(fn): fn(peer) when this process's link to process peer went down. */
static int c_on_link_down(lua_State *L) { return set_handler(L, "linkDown"); }

/* cluster:linkDial(peer, address, token): opens a link to process peer (see peer_link.h). */
static int c_link_dial(lua_State *L) {
  cluster_box *b = check_cluster(L);
  const char *peer = luaL_checkstring(L, 2), *addr = luaL_checkstring(L, 3), *token = luaL_checkstring(L, 4);
  if (b->c->links) ty_links_dial(b->c->links, peer, addr, token);
  return 0;
}

/* cluster:linkUp(peer) -> whether a link to process peer is up. */
static int c_link_up(lua_State *L) {
  cluster_box *b = check_cluster(L);
  const char *peer = luaL_checkstring(L, 2);
  lua_pushboolean(L, b->c->links && ty_links_up(b->c->links, peer));
  return 1;
}

/* cluster:linkSend(peer, channel, payload) -> true when queued on the link up to peer; false
 * when there is none (or it was too far behind, and is dropped). */
static int c_link_send(lua_State *L) {
  cluster_box *b = check_cluster(L);
  const char *peer = luaL_checkstring(L, 2);
  size_t channel_len, len;
  const char *channel = luaL_checklstring(L, 3, &channel_len);
  const char *payload = luaL_checklstring(L, 4, &len);
  luaL_argcheck(L, channel_len >= 1 && channel_len <= 255 && !memchr(channel, 0, channel_len), 3,
                "1..255 bytes, no NUL expected");
  lua_pushboolean(L, b->c->links && ty_links_send(b->c->links, peer, channel, payload, len));
  return 1;
}

static int c_index(lua_State *L) {
  cluster_box *b = check_cluster(L);
  const char *k = luaL_checkstring(L, 2);
  if (strcmp(k, "node") == 0) lua_pushstring(L, b->c->node);
  else if (strcmp(k, "instance") == 0) lua_pushstring(L, b->c->instance);
  else if (strcmp(k, "connected") == 0) lua_pushboolean(L, ty_redis_connected(b->c->redis));
  else if (strcmp(k, "link") == 0 || strcmp(k, "linkToken") == 0) { /* nil without links */
    ty_links *l = b->c->links;
    if (l) lua_pushstring(L, k[4] ? ty_links_token(l) : ty_links_address(l));
    else lua_pushnil(L);
  } else {
    lua_getmetatable(L, 1);
    lua_getfield(L, -1, "__methods");
    lua_getfield(L, -1, k);
  }
  return 1;
}

int ty_cluster_push(lua_State *L, ty_cluster *c, void *mod) {
  if (lua_getfield(L, LUA_REGISTRYINDEX, CLUSTER_MT ".object") == LUA_TUSERDATA) return 1;
  lua_pop(L, 1);
  if (luaL_getmetatable(L, CLUSTER_MT) == LUA_TNIL) {
    static const luaL_Reg meta[] = {{"__index", c_index}, {NULL, NULL}};
    static const luaL_Reg methods[] = {
        {"command", c_command},     {"subscribe", c_subscribe}, {"onConnect", c_on_connect},
        {"onLinkDown", c_on_link_down}, {"linkDial", c_link_dial}, {"linkUp", c_link_up},
        {"linkSend", c_link_send},  {NULL, NULL}};
    ty_type_register(L, CLUSTER_MT, meta, methods);
  }
  lua_pop(L, 1);
  cluster_box *b = lua_newuserdatauv(L, sizeof *b, 1);
  b->c = c;
  b->mod = mod;
  lua_newtable(L);
  lua_newtable(L);
  lua_setfield(L, -2, "channels");
  lua_setiuservalue(L, -2, 1);
  luaL_setmetatable(L, CLUSTER_MT);
  lua_pushvalue(L, -1);
  lua_setfield(L, LUA_REGISTRYINDEX, CLUSTER_MT ".object");
  bool known = false;
  for (int i = 0; i < c->nmods; i++) known = known || c->mods[i] == mod;
  if (!known && c->nmods < MAX_MODS) c->mods[c->nmods++] = mod;
  return 1;
}
