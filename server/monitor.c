/* server/monitor.c: the figures behind /_monitor (server/monitor.h). Samples are taken once a
 * second from the host's tick: messages in and out per second, the mean and longest host
 * tick (timers and the Lua they run) in that second, clients; the last HISTORY are kept. */
#include "monitor.h"

#include <jansson.h>
#include <lauxlib.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "lua_host.h" /* Required for: ty_host_root, where monitor.html is */
#include "lua_json.h" /* Required for: host:monitor(table) */

#define HISTORY 60
#define MAX_REPORTS 32

typedef struct sample {
  double in_rate, out_rate, tick_avg_ms, tick_max_ms;
  int clients;
} sample;

typedef struct report {
  char module[64];
  json_t *value;
} report;

struct ty_monitor {
  char node[64];
  double second_at;
  double tick_sum, tick_max;
  int ticks;
  uint64_t in_at, out_at;
  sample hist[HISTORY];
  int nhist, head; /* head: where the next sample goes */
  int clients;
  report reports[MAX_REPORTS];
  int nreports;
  json_t *cluster; /* array of records, or NULL alone */
};

ty_monitor *ty_monitor_create(const char *node) {
  ty_monitor *m = TY_MALLOC(sizeof *m);
  TY_ASSERT(m);
  memset(m, 0, sizeof *m);
  snprintf(m->node, sizeof m->node, "%s", node);
  return m;
}

void ty_monitor_destroy(ty_monitor *m) {
  if (!m) return;
  for (int i = 0; i < m->nreports; i++) json_decref(m->reports[i].value);
  json_decref(m->cluster);
  TY_FREE(m);
}

void ty_monitor_tick(ty_monitor *m, double now, double spent, uint64_t in, uint64_t out, int clients) {
  if (m->second_at == 0) {
    m->second_at = now;
    m->in_at = in;
    m->out_at = out;
  }
  m->tick_sum += spent;
  m->tick_max = spent > m->tick_max ? spent : m->tick_max;
  m->ticks++;
  m->clients = clients;
  double elapsed = now - m->second_at;
  if (elapsed < 1.0) return;
  m->hist[m->head] = (sample){.in_rate = (double)(in - m->in_at) / elapsed, .out_rate = (double)(out - m->out_at) / elapsed,
                              .tick_avg_ms = m->tick_sum / m->ticks * 1000, .tick_max_ms = m->tick_max * 1000,
                              .clients = clients};
  m->head = (m->head + 1) % HISTORY;
  if (m->nhist < HISTORY) m->nhist++;
  m->second_at = now;
  m->in_at = in;
  m->out_at = out;
  m->tick_sum = m->tick_max = 0;
  m->ticks = 0;
}

void ty_monitor_report(ty_monitor *m, const char *module, const char *json) {
  json_t *value = json ? json_loads(json, 0, NULL) : NULL;
  for (int i = 0; i < m->nreports; i++) {
    if (strcmp(m->reports[i].module, module) != 0) continue;
    json_decref(m->reports[i].value);
    m->reports[i].value = value;
    return;
  }
  if (!value || m->nreports == MAX_REPORTS) {
    json_decref(value);
    return;
  }
  snprintf(m->reports[m->nreports].module, sizeof m->reports[0].module, "%s", module);
  m->reports[m->nreports++].value = value;
}

void ty_monitor_cluster(ty_monitor *m, const char *const *records, int n) {
  json_decref(m->cluster);
  m->cluster = json_array();
  for (int i = 0; i < n; i++) {
    json_t *r = json_loads(records[i], 0, NULL);
    if (json_is_object(r)) json_array_append_new(m->cluster, r);
    else json_decref(r);
  }
}

static json_t *record(ty_monitor *m) {
  json_t *tick = json_array(), *rates = json_array();
  for (int i = 0; i < m->nhist; i++) {
    const sample *s = &m->hist[(m->head - m->nhist + i + HISTORY) % HISTORY];
    json_array_append_new(tick, json_pack("[f,f]", s->tick_avg_ms, s->tick_max_ms));
    json_array_append_new(rates, json_pack("[f,f]", s->in_rate, s->out_rate));
  }
  const sample *last = m->nhist ? &m->hist[(m->head - 1 + HISTORY) % HISTORY] : NULL;
  json_t *modules = json_object();
  for (int i = 0; i < m->nreports; i++)
    if (m->reports[i].value) json_object_set(modules, m->reports[i].module, m->reports[i].value);
  return json_pack("{s:s, s:i, s:f, s:f, s:o, s:o, s:o}", "node", m->node, "clients", m->clients, "inPerSec",
                   last ? last->in_rate : 0.0, "outPerSec", last ? last->out_rate : 0.0, "tickMs", tick,
                   "rates", rates, "modules", modules);
}

char *ty_monitor_record(ty_monitor *m) {
  json_t *r = record(m);
  char *text = json_dumps(r, JSON_COMPACT);
  json_decref(r);
  return text;
}

/* Under --redis, every process's record as last read, this one's figures fresh (its record
 * in Redis is up to a beat old); alone, this process's. */
char *ty_monitor_api(ty_monitor *m) {
  json_t *processes = json_array();
  json_t *self = record(m);
  bool found = false;
  size_t i;
  json_t *r;
  if (m->cluster) {
    json_array_foreach(m->cluster, i, r) {
      json_t *copy = json_deep_copy(r);
      const char *node = json_string_value(json_object_get(r, "node"));
      if (node && strcmp(node, m->node) == 0 && !found) {
        json_object_update(copy, self);
        found = true;
      }
      json_array_append_new(processes, copy);
    }
  }
  if (!found) json_array_append(processes, self);
  json_decref(self);
  json_t *api = json_pack("{s:s, s:b, s:o}", "node", m->node, "clustered", m->cluster != NULL, "processes", processes);
  char *text = json_dumps(api, JSON_COMPACT);
  json_decref(api);
  return text;
}

/* host:monitor(table): the module's section of its process's record (JSON-encoded here). */
int ty_monitor_lua_report(lua_State *L, ty_monitor *m, const char *module) {
  if (!m) return 0; /* before the host listens */
  if (lua_isnoneornil(L, 2)) {
    ty_monitor_report(m, module, NULL);
    return 0;
  }
  luaL_checktype(L, 2, LUA_TTABLE);
  ty_json_push_encoded(L, 2);
  ty_monitor_report(m, module, lua_tostring(L, -1));
  return 0;
}

/* host:monitorCluster(records): records is an array of JSON texts, one per process. */
int ty_monitor_lua_cluster(lua_State *L, ty_monitor *m) {
  luaL_checktype(L, 2, LUA_TTABLE);
  if (!m) return 0;
  int n = (int)luaL_len(L, 2);
  if (n > 1024) n = 1024;
  const char **records = TY_MALLOC(sizeof *records * (size_t)(n ? n : 1));
  TY_ASSERT(records);
  int k = 0;
  for (int i = 1; i <= n; i++) {
    lua_rawgeti(L, 2, i); /* kept on the stack while records points into it */
    if (lua_type(L, -1) == LUA_TSTRING) records[k++] = lua_tostring(L, -1);
  }
  ty_monitor_cluster(m, records, k);
  TY_FREE(records);
  return 0;
}

/* host:monitorRecord(): this process's record, JSON text. */
int ty_monitor_lua_record(lua_State *L, ty_monitor *m) {
  char *text = m ? ty_monitor_record(m) : NULL;
  lua_pushstring(L, text ? text : "{}");
  free(text);
  return 1;
}

char *ty_monitor_page(size_t *len) {
  const char *root = ty_host_root();
  char path[4096];
  snprintf(path, sizeof path, "%s/server/monitor.html", root ? root : ".");
  FILE *f = fopen(path, "rb");
  if (!f) {
    ty_log("monitor_page_missing", "%s: cannot be read", path);
    return NULL;
  }
  char *buf = NULL;
  size_t cap = 0, n = 0, got;
  do {
    if (n + 4096 > cap) {
      cap = cap ? cap * 2 : 16384;
      buf = realloc(buf, cap);
      TY_ASSERT(buf);
    }
    got = fread(buf + n, 1, cap - n, f);
    n += got;
  } while (got > 0);
  fclose(f);
  *len = n;
  return buf;
}
