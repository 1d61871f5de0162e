/* server/monitor.h: what `GET /_monitor/api` shows (and the page `GET /_monitor` draws): this
 * process's clients, messages per second, host tick times over the last minute and what each
 * module reports (host:monitor), and under --redis every process's record as the cluster
 * logic last read them from Redis. */
#ifndef TY_MONITOR_H
#define TY_MONITOR_H

#include <lua.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ty_monitor ty_monitor;

ty_monitor *ty_monitor_create(const char *node);
void ty_monitor_destroy(ty_monitor *m);
/* Once a host tick: spent is the seconds the tick took (timers, Lua), in/out the messages
 * received and sent since the start, clients those connected now. */
void ty_monitor_tick(ty_monitor *m, double now, double spent, uint64_t in, uint64_t out, int clients);
/* A module's section (JSON text of an object; copied), or NULL to drop it. */
void ty_monitor_report(ty_monitor *m, const char *module, const char *json);
/* The cluster's process records (JSON texts of objects; copied); n = 0 alone. */
void ty_monitor_cluster(ty_monitor *m, const char *const *records, int n);
/* This process's record / the whole API answer, as JSON text the caller frees (free()). */
char *ty_monitor_record(ty_monitor *m);
char *ty_monitor_api(ty_monitor *m);
/* The Lua side (server/host.c's methods call these with the host's monitor): host:monitor(t),
 * host:monitorCluster(records), host:monitorRecord(). */
int ty_monitor_lua_report(lua_State *L, ty_monitor *m, const char *module);
int ty_monitor_lua_cluster(lua_State *L, ty_monitor *m);
int ty_monitor_lua_record(lua_State *L, ty_monitor *m);
/* The page (server/monitor.html, read from tycho's files), or NULL with a message on stderr;
 * the caller frees it. */
char *ty_monitor_page(size_t *len);

#endif
