/* engine/app/serve_cmd.c: the `tycho serve` command line: its options, their defaults and
 * checks, and its usage. What it reads goes to the server as a ty_serve_config (serve.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lua_host.h" /* Required for: ty_host_root (where the bundled modules are) */
#include "serve.h"

static void serve_usage(FILE *f) {
  fprintf(f,
          "usage: tycho serve [--port 8787] [--host 127.0.0.1] [--modules server/modules] [--data data]\n"
          "                   [--max-frame BYTES] [--max-queue BYTES] [--max-memory BYTES]\n"
          "                   [--max-instructions N] [--max-clients N] [--ping SECS]\n"
          "                   [--tls-cert FILE --tls-key FILE] [--no-watch]\n"
          "                   [--redis redis://HOST:PORT [--node NAME] [--redis-optional]\n"
          "                    [--relay direct|redis] [--link-port PORT]]\n"
          "Without --modules: ./server/modules when there is one, else the modules that come\n"
          "with tycho (its share/tycho/server/modules).\n");
}

/* The modules folder when --modules is not given: the project's server/modules (the current
 * folder's), else the bundled one beside the engine's scripts, so an installed tycho serves
 * from any folder. */
static const char *default_modules_dir(char *buf, size_t len) {
  struct stat st;
  if (stat("server/modules", &st) == 0 && S_ISDIR(st.st_mode)) return "server/modules";
  const char *root = ty_host_root();
  if (root) {
    snprintf(buf, len, "%s/server/modules", root);
    if (stat(buf, &st) == 0 && S_ISDIR(st.st_mode)) return buf;
  }
  return "server/modules"; /* reported as missing by the server */
}

/* A byte count or number: digits, optionally followed by k or m (KiB, MiB). */
static bool parse_size(const char *s, long long *out) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (errno || end == s || v < 0) return false;
  if (*end == 'k' || *end == 'K') v *= 1024, end++;
  else if (*end == 'm' || *end == 'M') v *= 1024 * 1024, end++;
  if (*end) return false;
  *out = v;
  return true;
}

int cmd_serve(int argc, char **argv) {
  ty_serve_config cfg = {.iface = "127.0.0.1", .data_dir = "data", .watch = true};
  long long port = 8787, link_port = 0, max_frame = 64 * 1024, max_queue = 1024 * 1024, max_mem = 64 * 1024 * 1024,
            max_steps = 100 * 1000 * 1000, ping = 20, max_clients = -1;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    long long *num = NULL;
    if (strcmp(a, "--no-watch") == 0) {
      cfg.watch = false;
      continue;
    }
    if (strcmp(a, "--redis-optional") == 0) {
      cfg.redis_optional = true;
      continue;
    }
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      serve_usage(stdout);
      return 0;
    }
    if (strcmp(a, "--relay") == 0 && v && (strcmp(v, "direct") == 0 || strcmp(v, "redis") == 0)) {
      cfg.relay_redis = v[0] == 'r';
      i++;
      continue;
    }
    if (strcmp(a, "--relay") == 0) {
      fprintf(stderr, "tycho serve: --relay is direct (links between the processes, the default) or redis "
                      "(Redis pub/sub alone)\n");
      return 2;
    }
    if (strcmp(a, "--port") == 0) num = &port;
    else if (strcmp(a, "--link-port") == 0) num = &link_port;
    else if (strcmp(a, "--max-frame") == 0) num = &max_frame;
    else if (strcmp(a, "--max-queue") == 0) num = &max_queue;
    else if (strcmp(a, "--max-memory") == 0) num = &max_mem;
    else if (strcmp(a, "--max-instructions") == 0) num = &max_steps;
    else if (strcmp(a, "--ping") == 0) num = &ping;
    else if (strcmp(a, "--max-clients") == 0) num = &max_clients;
    else if ((strcmp(a, "--tls-cert") == 0 || strcmp(a, "--tls-key") == 0) && v) {
      *(a[6] == 'c' ? &cfg.tls_cert : &cfg.tls_key) = v;
      i++;
      continue;
    } else if ((strcmp(a, "--redis") == 0 || strcmp(a, "--node") == 0) && v) {
      *(a[2] == 'r' ? &cfg.redis_url : &cfg.node) = v;
      i++;
      continue;
    } else if ((strcmp(a, "--modules") == 0 || strcmp(a, "--host") == 0 || strcmp(a, "--data") == 0) && v) {
      if (a[2] == 'm') cfg.modules_dir = v;
      else if (a[2] == 'h') cfg.iface = v;
      else cfg.data_dir = v;
      i++;
      continue;
    } else {
      fprintf(stderr, "tycho serve: unknown option '%s'\n", a);
      serve_usage(stderr);
      return 2;
    }
    if (!v || !parse_size(v, num)) {
      fprintf(stderr, "tycho serve: %s needs a non-negative number\n", a);
      return 2;
    }
    i++;
  }
  if (!cfg.tls_cert != !cfg.tls_key) {
    fprintf(stderr, "tycho serve: --tls-cert and --tls-key go together\n");
    return 2;
  }
  if (port > 65535 || link_port > 65535 || max_frame < 16 || ping < 1 || ping > 30000 || max_clients == 0 ||
      max_steps == 0) {
    fprintf(stderr, "tycho serve: --port must be 0..65535, as must --link-port, --max-frame at least 16, "
                    "--ping 1..30000, --max-clients and --max-instructions at least 1\n");
    return 2;
  }
  cfg.port = (int)port;
  cfg.link_port = (int)link_port;
  cfg.max_frame = max_frame;
  cfg.max_queue = max_queue;
  cfg.max_memory = max_mem;
  cfg.max_instructions = max_steps;
  cfg.max_clients = max_clients;
  cfg.ping_secs = (int)ping;

  char bundled[PATH_MAX];
  if (!cfg.modules_dir) {
    cfg.modules_dir = default_modules_dir(bundled, sizeof bundled);
    fprintf(stderr, "tycho serve: modules from %s (%s)\n", cfg.modules_dir,
            cfg.modules_dir == bundled ? "the ones that come with tycho: no server/modules here"
                                       : "this folder's server/modules");
  }
  return ty_serve(&cfg);
}
