/* server/serve.h: `tycho serve`, the WebSocket game host over Lua modules (server/host.c). */
#ifndef TY_SERVE_H
#define TY_SERVE_H

/* argv holds the options after "serve". Returns the process exit code: 0 after a clean
 * shutdown (SIGINT/SIGTERM), 1 when the host cannot start, 2 on a usage error. */
int cmd_serve(int argc, char **argv);

#endif
