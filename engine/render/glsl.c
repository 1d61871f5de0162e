/* engine/render/glsl.c: GLSL source preparation, no GL: #version kept first (or
 * generated), defines injected after it, #include expanded once per stage from a table or
 * a folder, and a line map that turns a driver log's locations back into file:line.
 * The driver compiles one expanded text with no #line in it, so the line numbers in its
 * log are lines of that text; map_file/map_line turn each back into (file, line). */
#include "glsl.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common.h"

#define MAX_INCLUDE_DEPTH 16

void ty_glsl_free(ty_glsl_text *st) {
  TY_FREE(st->buf);
  TY_FREE(st->map_file);
  TY_FREE(st->map_line);
  for (uint32_t i = 0; i < st->file_count; i++) TY_FREE(st->files[i]);
  TY_FREE(st->files);
  memset(st, 0, sizeof *st);
}

static uint32_t st_file(ty_glsl_text *st, const char *name) {
  TY_GROW(st->files, st->file_cap, st->file_count + 1);
  size_t n = strlen(name) + 1;
  char *copy = TY_MALLOC(n);
  TY_ASSERT(copy);
  memcpy(copy, name, n);
  st->files[st->file_count] = copy;
  return st->file_count++;
}

static void st_emit(ty_glsl_text *st, const char *line, size_t n, uint32_t file, uint32_t lineno) {
  while (st->len + n + 2 > st->cap) {
    size_t cap = st->cap ? st->cap * 2 : 4096;
    char *b = TY_REALLOC(st->buf, cap);
    TY_ASSERT(b);
    st->buf = b;
    st->cap = cap;
  }
  memcpy(st->buf + st->len, line, n);
  st->len += n;
  st->buf[st->len++] = '\n';
  st->buf[st->len] = '\0';
  uint32_t cap = st->map_cap;
  TY_GROW(st->map_file, cap, st->lines + 1);
  TY_GROW(st->map_line, st->map_cap, st->lines + 1);
  st->map_file[st->lines] = file;
  st->map_line[st->lines] = lineno;
  st->lines++;
}

/* The next line of *p (without its newline, a trailing \r dropped); false at the end. */
static bool next_line(const char **p, const char **line, size_t *n) {
  if (!**p) return false;
  const char *s = *p, *e = strchr(s, '\n');
  size_t len = e ? (size_t)(e - s) : strlen(s);
  *p = e ? e + 1 : s + len;
  if (len && s[len - 1] == '\r') len--;
  *line = s;
  *n = len;
  return true;
}

/* For "#name rest": true when the directive is name; *rest points after it. */
static bool directive(const char *line, size_t n, const char *name, const char **rest) {
  const char *s = line, *end = line + n;
  while (s < end && (*s == ' ' || *s == '\t')) s++;
  if (s == end || *s != '#') return false;
  s++;
  while (s < end && (*s == ' ' || *s == '\t')) s++;
  size_t k = strlen(name);
  if ((size_t)(end - s) < k || strncmp(s, name, k) != 0) return false;
  s += k;
  if (s < end && !(*s == ' ' || *s == '\t' || *s == '"' || *s == '<')) return false;
  *rest = s;
  return true;
}

static char *read_text_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *buf = NULL;
  size_t len = 0, cap = 0;
  for (;;) {
    if (len + 4096 + 1 > cap) {
      cap = cap ? cap * 2 : 8192;
      char *b = TY_REALLOC(buf, cap);
      TY_ASSERT(b);
      buf = b;
    }
    size_t got = fread(buf + len, 1, cap - len - 1, f);
    len += got;
    if (got == 0) break;
  }
  bool bad = ferror(f);
  fclose(f);
  if (bad) {
    TY_FREE(buf);
    return NULL;
  }
  buf[len] = '\0';
  return buf;
}

typedef struct expand_ctx {
  const ty_glsl_desc *desc;
  ty_glsl_text *st;
  char *err;
  size_t err_size;
} expand_ctx;

static bool expand(expand_ctx *x, const char *text, uint32_t file, uint32_t first_line, int depth) {
  ty_glsl_text *st = x->st;
  const char *p = text, *line, *rest;
  size_t n;
  for (uint32_t lineno = first_line; next_line(&p, &line, &n); lineno++) {
    if (!directive(line, n, "include", &rest)) {
      st_emit(st, line, n, file, lineno);
      continue;
    }
    const char *end = line + n;
    while (rest < end && (*rest == ' ' || *rest == '\t')) rest++;
    char close = rest < end && *rest == '"' ? '"' : rest < end && *rest == '<' ? '>' : 0;
    const char *name_end = close ? memchr(rest + 1, close, (size_t)(end - rest - 1)) : NULL;
    if (!name_end || name_end == rest + 1) {
      snprintf(x->err, x->err_size, "%s:%u: #include needs a \"name\" or <name>", st->files[file], lineno);
      return false;
    }
    char name[256];
    size_t nl = (size_t)(name_end - rest - 1);
    if (nl >= sizeof name) {
      snprintf(x->err, x->err_size, "%s:%u: include name too long", st->files[file], lineno);
      return false;
    }
    memcpy(name, rest + 1, nl);
    name[nl] = '\0';
    st_emit(st, "", 0, file, lineno); /* the directive itself becomes a blank line */
    bool seen = false;
    for (uint32_t f = 1; f < st->file_count && !seen; f++) seen = strcmp(st->files[f], name) == 0;
    if (seen) continue; /* once per stage */
    if (depth >= MAX_INCLUDE_DEPTH) {
      snprintf(x->err, x->err_size, "%s:%u: includes nest deeper than %d (including '%s')", st->files[file], lineno,
           MAX_INCLUDE_DEPTH, name);
      return false;
    }
    const char *src = NULL;
    char *owned = NULL;
    for (uint32_t k = 0; k < x->desc->include_count && !src; k++)
      if (x->desc->includes[k].name && strcmp(x->desc->includes[k].name, name) == 0) src = x->desc->includes[k].source;
    if (!src && x->desc->include_dir) {
      size_t len = strlen(x->desc->include_dir) + nl + 2;
      char *path = TY_MALLOC(len);
      TY_ASSERT(path);
      snprintf(path, len, "%s/%s", x->desc->include_dir, name);
      src = owned = read_text_file(path);
      TY_FREE(path);
    }
    if (!src) {
      snprintf(x->err, x->err_size, "%s:%u: cannot find include '%s' (%s)", st->files[file], lineno, name,
           x->desc->include_dir ? "not in the include table nor the include folder" : "not in the include table");
      return false;
    }
    uint32_t inc = st_file(st, name);
    bool good = expand(x, src, inc, 1, depth + 1);
    TY_FREE(owned);
    if (!good) return false;
  }
  return true;
}

/* Builds the text the driver compiles: the source's lines up to #version (or a generated
 * one), the defines, then the rest with includes expanded. */
bool ty_glsl_expand(const ty_glsl_desc *desc, const char *source, const char *path, ty_glsl_text *st, char *err,
                    size_t err_size) {
  TY_ASSERT(desc && source && path && st);
  st_file(st, path);
  const char *p = source, *line, *rest;
  size_t n;
  uint32_t version_line = 0;
  for (uint32_t k = 1; next_line(&p, &line, &n); k++)
    if (directive(line, n, "version", &rest)) {
      version_line = k;
      break;
    }
  const char *body = source;
  uint32_t body_line = 1;
  if (version_line) {
    p = source;
    for (uint32_t k = 1; k <= version_line && next_line(&p, &line, &n); k++) st_emit(st, line, n, 0, k);
    body = p;
    body_line = version_line + 1;
  } else {
    uint32_t gen = st_file(st, "<generated>");
    st_emit(st, "#version 450 core", 17, gen, 1);
  }
  if (desc->defines && *desc->defines) {
    uint32_t def = st_file(st, "<defines>");
    p = desc->defines;
    for (uint32_t k = 1; next_line(&p, &line, &n); k++) st_emit(st, line, n, def, k);
  }
  expand_ctx x = {desc, st, err, err_size};
  return expand(&x, body, 0, body_line, 0);
}

/* Parses a driver location at s: Mesa "0:12(5)", AMD/Intel "0:12:", NVIDIA "0(12)". */
static size_t parse_location(const char *s, uint32_t *line, uint32_t *col, bool *has_col) {
  const char *q = s;
  if (!isdigit((unsigned char)*q)) return 0;
  while (isdigit((unsigned char)*q)) q++;
  char *end;
  if (*q == ':' && isdigit((unsigned char)q[1])) {
    unsigned long l = strtoul(q + 1, &end, 10);
    if (*end == '(' && isdigit((unsigned char)end[1])) {
      char *e2;
      unsigned long c = strtoul(end + 1, &e2, 10);
      if (*e2 != ')') return 0;
      *line = (uint32_t)l, *col = (uint32_t)c, *has_col = true;
      return (size_t)(e2 + 1 - s);
    }
    if (*end != ':') return 0;
    *line = (uint32_t)l, *has_col = false;
    return (size_t)(end - s);
  }
  if (*q == '(' && isdigit((unsigned char)q[1])) {
    unsigned long l = strtoul(q + 1, &end, 10);
    if (*end != ')') return 0;
    *line = (uint32_t)l, *has_col = false;
    return (size_t)(end + 1 - s);
  }
  return 0;
}

/* The driver's log with each location rewritten as file:line[:column]. Owned by the caller. */
char *ty_glsl_map_log(const ty_glsl_text *st, const char *log) {
  size_t cap = strlen(log) * 2 + 256, len = 0;
  char *out = TY_MALLOC(cap);
  TY_ASSERT(out);
  const char *p = log, *line;
  size_t n;
  while (next_line(&p, &line, &n)) {
    if (n == 0) continue;
    size_t at = n, tok = 0;
    uint32_t l = 0, c = 0;
    bool has_col = false;
    for (size_t i = 0; i < n && i < 24 && !tok; i++)
      if ((i == 0 || line[i - 1] == ' ') && (tok = parse_location(line + i, &l, &c, &has_col))) at = i;
    char loc[512] = "";
    if (tok && l >= 1 && l <= st->lines) {
      const char *file = st->files[st->map_file[l - 1]];
      if (has_col) snprintf(loc, sizeof loc, "%s:%u:%u", file, st->map_line[l - 1], c);
      else snprintf(loc, sizeof loc, "%s:%u", file, st->map_line[l - 1]);
    } else {
      at = n, tok = 0;
    }
    size_t need = len + n + strlen(loc) + 2;
    if (need > cap) {
      cap = need * 2;
      char *o = TY_REALLOC(out, cap);
      TY_ASSERT(o);
      out = o;
    }
    memcpy(out + len, line, at);
    len += at;
    memcpy(out + len, loc, strlen(loc));
    len += strlen(loc);
    memcpy(out + len, line + at + tok, n - at - tok);
    len += n - at - tok;
    out[len++] = '\n';
  }
  while (len && out[len - 1] == '\n') len--;
  out[len] = '\0';
  return out;
}
