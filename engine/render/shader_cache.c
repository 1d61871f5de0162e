/* engine/render/shader_cache.c: programs built from files under the shader folder (with
 * #include resolved there), cached by stages and defines; a program keeps its last good
 * build when a reload fails, and the failure reads as file:line. */
#include "render_core.h"

#include <stdlib.h> /* Required for: getenv */
#include <string.h>
#include <unistd.h> /* Required for: access, readlink */

/* ---- shader folder ------------------------------------------------------------------ */

static bool dir_has_shaders(const char *dir) {
  char probe[4400];
  snprintf(probe, sizeof probe, "%s/common/frame.glsl", dir);
  return access(probe, R_OK) == 0;
}

/* TYCHO_HOME/shaders, then beside the executable (or one folder up: a build folder),
 * then the source tree this was built from. */
char *ty_render_find_shader_dir(void) {
  char cand[4200];
  const char *home = getenv("TYCHO_HOME");
  if (home) {
    snprintf(cand, sizeof cand, "%s/shaders", home);
    if (dir_has_shaders(cand)) return ty_render_strdup(cand);
  }
  char exe[4000];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (slash) *slash = 0;
    snprintf(cand, sizeof cand, "%s/shaders", exe);
    if (dir_has_shaders(cand)) return ty_render_strdup(cand);
    snprintf(cand, sizeof cand, "%s/../shaders", exe);
    if (dir_has_shaders(cand)) return ty_render_strdup(cand);
  }
#ifdef TYCHO_SOURCE_DIR
  snprintf(cand, sizeof cand, "%s/shaders", TYCHO_SOURCE_DIR);
  if (dir_has_shaders(cand)) return ty_render_strdup(cand);
#endif
  return ty_render_strdup("shaders");
}

/* ---- programs ----------------------------------------------------------------------- */

#if TYCHO_WITH_GL /* the files are read only to build on the device */
static char *read_text(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  if (n < 0) {
    fclose(f);
    return NULL;
  }
  char *s = TY_MALLOC((size_t)n + 1);
  TY_ASSERT(s);
  size_t got = fread(s, 1, (size_t)n, f);
  fclose(f);
  s[got] = 0;
  return s;
}

/* A stage's file: an engine shader under the shader folder, or a user's file as given. */
static void resolve_path(const ty_renderer *R, const char *path, char *out, size_t size) {
  if (path[0] == '/' || access(path, R_OK) == 0) snprintf(out, size, "%s", path);
  else snprintf(out, size, "%s/%s", R->shader_dir, path);
}
#endif

static bool same_str(const char *a, const char *b) { return (!a && !b) || (a && b && !strcmp(a, b)); }

/* Builds p on the device; on success replaces the last good program. */
static bool program_build(ty_renderer *R, ty_program *p) {
#if TYCHO_WITH_GL
  if (!R->dev) return false;
  p->tried = true;
  char vs_path[4096] = "", fs_path[4096] = "", cs_path[4096] = "";
  char *vs = NULL, *fs = NULL, *cs = NULL;
  bool ok = true;
  if (p->vs) {
    resolve_path(R, p->vs, vs_path, sizeof vs_path);
    if (!(vs = read_text(vs_path))) ok = false;
  }
  if (ok && p->fs) {
    if (p->fs_source) {
      snprintf(fs_path, sizeof fs_path, "%s", p->fs);
      fs = ty_render_strdup(p->fs_source);
    } else {
      resolve_path(R, p->fs, fs_path, sizeof fs_path);
      if (!(fs = read_text(fs_path))) ok = false;
    }
  }
  if (ok && p->cs) {
    resolve_path(R, p->cs, cs_path, sizeof cs_path);
    if (!(cs = read_text(cs_path))) ok = false;
  }
  ty_gl_program gl = {0};
  if (!ok) {
    const char *missing = p->cs ? cs_path : (!vs && p->vs) ? vs_path : fs_path;
    ty_render_fail(R, "shader_load_failed", "%s: cannot read the shader file", missing);
  } else {
    ty_gl_program_desc d = {.defines = p->defines, .include_dir = R->shader_dir, .label = p->fs ? p->fs : p->cs};
    if (p->cs) {
      d.compute = (ty_gl_shader_source){cs, cs_path};
    } else {
      d.vertex = (ty_gl_shader_source){vs, vs_path};
      if (fs) d.fragment = (ty_gl_shader_source){fs, fs_path};
    }
    gl = ty_gl_make_program(R->dev, &d);
    if (!gl.id) {
      ty_render_fail(R, NULL, "%s", ty_gl_error(R->dev));
      ok = false;
    }
  }
  TY_FREE(vs);
  TY_FREE(fs);
  TY_FREE(cs);
  TY_FREE(p->error);
  p->error = NULL;
  if (!ok) {
    p->error = ty_render_strdup(R->error);
    return false;
  }
  if (p->gl.id) ty_gl_destroy_program(R->dev, p->gl);
  p->gl = gl;
  /* depth-only programs have no material: setting location 0 there would hit whatever the
   * driver put at 0 (Mesa numbers uniform block members too) */
  p->has_material = ty_gl_uniform_location(R->dev, gl, "u_material") == TY_LOC_MATERIAL;
  return true;
#else
  (void)R, (void)p;
  return false;
#endif
}

ty_program *ty_render_program_get(ty_renderer *R, const char *vs, const char *fs, const char *cs, const char *fs_source,
                               const char *defines) {
  if (defines && !defines[0]) defines = NULL;
  ty_program *p = NULL;
  for (uint32_t i = 0; i < R->program_count && !p; i++) {
    ty_program *q = R->programs[i];
    if (same_str(q->vs, vs) && same_str(q->fs, fs) && same_str(q->cs, cs) && same_str(q->defines, defines)) p = q;
  }
  if (!p) {
    p = TY_MALLOC(sizeof *p);
    TY_ASSERT(p);
    memset(p, 0, sizeof *p);
    p->vs = ty_render_strdup(vs);
    p->fs = ty_render_strdup(fs);
    p->cs = ty_render_strdup(cs);
    p->defines = ty_render_strdup(defines);
    p->fs_source = ty_render_strdup(fs_source);
    TY_GROW(R->programs, R->program_cap, R->program_count + 1);
    R->programs[R->program_count++] = p;
  } else if (fs_source && !same_str(p->fs_source, fs_source)) {
    /* New source under the same name: a reload; a failure keeps the last good build. */
    TY_FREE(p->fs_source);
    p->fs_source = ty_render_strdup(fs_source);
    if (R->dev) program_build(R, p);
  }
  if (!R->dev) return p;
  if (!p->tried) program_build(R, p);
  if (!p->gl.id) {
    if (p->error) snprintf(R->error, sizeof R->error, "%s", p->error);
    return NULL;
  }
  return p;
}

ty_program *ty_render_program(ty_renderer *R, const char *vs_path, const char *fs_path, const char *defines) {
  TY_ASSERT(vs_path);
  return ty_render_program_get(R, vs_path, fs_path, NULL, NULL, defines);
}

ty_program *ty_render_compute_program(ty_renderer *R, const char *cs_path, const char *defines) {
  TY_ASSERT(cs_path);
  return ty_render_program_get(R, NULL, NULL, cs_path, NULL, defines);
}

/* a names b when they are equal or one ends with "/" + the other. */
static bool path_matches(const char *a, const char *b) {
  if (!a || !b) return false;
  size_t la = strlen(a), lb = strlen(b);
  if (la == lb) return !strcmp(a, b);
  const char *lng = la > lb ? a : b, *sht = la > lb ? b : a;
  size_t ll = la > lb ? la : lb, ls = la > lb ? lb : la;
  return lng[ll - ls - 1] == '/' && !strcmp(lng + ll - ls, sht);
}

bool ty_render_reload_shader(ty_renderer *R, const char *path) {
  TY_ASSERT(path);
  size_t n = strlen(path);
  bool include = n > 5 && !strcmp(path + n - 5, ".glsl");
  bool ok = true;
  char first_error[2048] = "";
  for (uint32_t i = 0; i < R->program_count; i++) {
    ty_program *p = R->programs[i];
    bool hit = include || path_matches(p->vs, path) || (path_matches(p->fs, path) && !p->fs_source) ||
               path_matches(p->cs, path);
    if (!hit) continue;
    if (!R->dev) {
      p->tried = false;
      continue;
    }
    if (!program_build(R, p)) {
      if (ok) snprintf(first_error, sizeof first_error, "%s", R->error);
      ok = false;
    }
  }
  if (!ok) snprintf(R->error, sizeof R->error, "%s", first_error);
  return ok;
}

void ty_render_programs_free(ty_renderer *R) {
  for (uint32_t i = 0; i < R->program_count; i++) {
    ty_program *p = R->programs[i];
    TY_FREE(p->vs);
    TY_FREE(p->fs);
    TY_FREE(p->cs);
    TY_FREE(p->fs_source);
    TY_FREE(p->defines);
    TY_FREE(p->error);
    TY_FREE(p);
  }
  TY_FREE(R->programs);
  R->program_count = R->program_cap = 0;
}
