/* engine/render/glsl.h: GLSL source preparation (no GL): the text a driver compiles for
 * one stage, with #version first (or "#version 450 core" generated), the defines after
 * it, and every #include expanded (once per stage, as with #pragma once, at most 16 deep),
 * plus the line map that rewrites a driver log's locations as path:line.
 *
 * `#include "name"` (or <name>) resolves in the include table first, then as a file under
 * include_dir (NULL: the table only). */
#ifndef TY_RENDER_GLSL_H
#define TY_RENDER_GLSL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ty_glsl_include {
  const char *name;
  const char *source;
} ty_glsl_include;

typedef struct ty_glsl_desc {
  const char *defines; /* lines put after #version, e.g. "#define SHADOWS 1\n"; NULL: none */
  const ty_glsl_include *includes;
  uint32_t include_count;
  const char *include_dir;
} ty_glsl_desc;

/* The expanded text (buf, NUL-terminated) and, for each of its lines, the file (an index
 * into files: [0] the stage's path, then includes, "<generated>" and "<defines>") and
 * line it came from. Zero it before ty_glsl_expand; ty_glsl_free releases it. */
typedef struct ty_glsl_text {
  char *buf;
  size_t len, cap;
  uint32_t *map_file, *map_line;
  uint32_t lines, map_cap;
  char **files;
  uint32_t file_count, file_cap;
} ty_glsl_text;

/* Expands source (named path in messages) into out. False, with "path:line: why" in err,
 * when an #include is malformed, missing or nests too deep. */
bool ty_glsl_expand(const ty_glsl_desc *desc, const char *source, const char *path, ty_glsl_text *out, char *err,
                    size_t err_size);
void ty_glsl_free(ty_glsl_text *text);

/* A driver log (Mesa "0:12(5)", AMD/Intel "0:12:", NVIDIA "0(12)" locations) with each
 * location rewritten as file:line[:column]. Owned by the caller (TY_FREE). */
char *ty_glsl_map_log(const ty_glsl_text *text, const char *log);

#endif
