/* engine/app/app.h: the tycho executable's commands, each in its own file of engine/app/,
 * the one folder allowed to include the bindings and the server (serve.h declares
 * cmd_serve). Each takes the arguments after its name and returns the process exit code:
 * 0 done, 1 failed, 2 a usage error. */
#ifndef TY_APP_H
#define TY_APP_H

#include <stdio.h>

/* `tycho run`: runs a game (run_cmd.c). */
int cmd_run(int argc, char **argv);
/* `tycho test`: runs specs with busted (test_cmd.c). */
int cmd_test(int argc, char **argv);
/* Writes the command line's usage to f (usage.c). */
void cmd_usage(FILE *f);

#endif
