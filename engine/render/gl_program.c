/* engine/render/gl_program.c: the device's shader programs: each stage's source prepared
 * by glsl.c (defines, #include), compiled and linked, with the driver's log mapped back to
 * file:line; their use, and the default block's uniforms set on them. */
#include "gl_device.h"

#include <stdio.h>
#include <string.h>

#include "../common.h"

#if TYCHO_WITH_GL

#include "gl_device_internal.h"

static char *info_log(GLuint obj, bool program) {
  GLint n = 0;
  if (program) glGetProgramiv(obj, GL_INFO_LOG_LENGTH, &n);
  else glGetShaderiv(obj, GL_INFO_LOG_LENGTH, &n);
  char *log = TY_MALLOC((size_t)(n > 0 ? n : 1) + 1);
  TY_ASSERT(log);
  log[0] = '\0';
  if (n > 0) {
    if (program) glGetProgramInfoLog(obj, n, NULL, log);
    else glGetShaderInfoLog(obj, n, NULL, log);
  }
  return log;
}

/* Compiles one stage; 0 with the status set on failure. */
static GLuint compile_stage(ty_gl_device *dev, const ty_gl_program_desc *desc, GLenum stage, const char *stage_name,
                            const ty_gl_shader_source *src) {
  char fallback[32];
  snprintf(fallback, sizeof fallback, "<%s>", stage_name);
  const char *path = src->path && *src->path ? src->path : fallback;
  ty_glsl_text st = {0};
  ty_glsl_desc gd = {.defines = desc->defines, .includes = desc->includes, .include_count = desc->include_count,
                     .include_dir = desc->include_dir};
  char err[512];
  if (!ty_glsl_expand(&gd, src->source, path, &st, err, sizeof err)) {
    ty_gl_fail(dev, TY_GL_ERROR_INCLUDE, "%s", err);
    ty_glsl_free(&st);
    return 0;
  }
  GLuint sh = glCreateShader(stage);
  const GLchar *text = st.buf;
  glShaderSource(sh, 1, &text, NULL);
  glCompileShader(sh);
  GLint compiled = GL_FALSE;
  glGetShaderiv(sh, GL_COMPILE_STATUS, &compiled);
  if (!compiled) {
    char *log = info_log(sh, false);
    char *mapped = ty_glsl_map_log(&st, log);
    ty_gl_fail(dev, TY_GL_ERROR_COMPILE, "%s shader %s did not compile:\n%s", stage_name, path, mapped);
    TY_FREE(mapped);
    TY_FREE(log);
    glDeleteShader(sh);
    sh = 0;
  }
  ty_glsl_free(&st);
  return sh;
}

ty_gl_program ty_gl_make_program(ty_gl_device *dev, const ty_gl_program_desc *desc) {
  TY_ASSERT(dev && desc);
  static const char fn[] = "ty_gl_make_program";
  bool compute = desc->compute.source != NULL;
  if (compute ? (desc->vertex.source || desc->fragment.source) : !desc->vertex.source) {
    ty_gl_fail(dev, TY_GL_ERROR_INVALID, "%s: a program is vertex (+ fragment) or compute alone", fn);
    return (ty_gl_program){0};
  }
  gl_program_slot *p = ty_gl_take_slot(dev, &dev->programs, fn);
  if (!p) return (ty_gl_program){0};
  GLuint shaders[2] = {0, 0};
  uint32_t count = 0;
  bool good = true;
  if (compute) {
    good = (shaders[count++] = compile_stage(dev, desc, GL_COMPUTE_SHADER, "compute", &desc->compute)) != 0;
  } else {
    good = (shaders[count++] = compile_stage(dev, desc, GL_VERTEX_SHADER, "vertex", &desc->vertex)) != 0;
    if (good && desc->fragment.source)
      good = (shaders[count++] = compile_stage(dev, desc, GL_FRAGMENT_SHADER, "fragment", &desc->fragment)) != 0;
  }
  GLuint prog = 0;
  if (good) {
    prog = glCreateProgram();
    for (uint32_t s = 0; s < count; s++) glAttachShader(prog, shaders[s]);
    glLinkProgram(prog);
    GLint linked = GL_FALSE;
    glGetProgramiv(prog, GL_LINK_STATUS, &linked);
    for (uint32_t s = 0; s < count; s++) glDetachShader(prog, shaders[s]);
    if (!linked) {
      char *log = info_log(prog, true);
      const char *name = desc->label ? desc->label
                         : compute   ? (desc->compute.path ? desc->compute.path : "<compute>")
                                     : (desc->vertex.path ? desc->vertex.path : "<vertex>");
      size_t ll = strlen(log);
      while (ll && (log[ll - 1] == '\n' || log[ll - 1] == ' ')) log[--ll] = '\0';
      ty_gl_fail(dev, TY_GL_ERROR_LINK, "program %s did not link:\n%s", name, log);
      TY_FREE(log);
      glDeleteProgram(prog);
      good = false;
    }
  }
  for (uint32_t s = 0; s < count; s++)
    if (shaders[s]) glDeleteShader(shaders[s]);
  if (!good) {
    ty_gl_drop_slot(&dev->programs, p);
    return (ty_gl_program){0};
  }
  *p = (gl_program_slot){prog, compute};
  return (ty_gl_program){ty_gl_made(dev, &dev->programs, p, GL_PROGRAM, desc->label)};
}

void ty_gl_delete_program_slot(void *slot) { glDeleteProgram(((gl_program_slot *)slot)->name); }

ty_gl_status ty_gl_destroy_program(ty_gl_device *dev, ty_gl_program prog) {
  return ty_gl_destroy_slot(dev, &dev->programs, prog.id, "ty_gl_destroy_program");
}

ty_gl_status ty_gl_use_program(ty_gl_device *dev, ty_gl_program prog) {
  gl_program_slot *p = ty_gl_get_slot(dev, &dev->programs, prog.id, "ty_gl_use_program");
  if (!p) return dev->status;
  glUseProgram(p->name);
  return ty_gl_ok(dev);
}

int ty_gl_uniform_location(ty_gl_device *dev, ty_gl_program prog, const char *name) {
  gl_program_slot *p = ty_gl_get_slot(dev, &dev->programs, prog.id, "ty_gl_uniform_location");
  if (!p) return -1;
  ty_gl_ok(dev);
  return glGetUniformLocation(p->name, name);
}

/* ---- uniforms (the default block) ---- */

ty_gl_status ty_gl_set_uniform(ty_gl_device *dev, ty_gl_program prog, int location, ty_gl_uniform_type type,
                               uint32_t count, const void *data) {
  static const char fn[] = "ty_gl_set_uniform";
  gl_program_slot *p = ty_gl_get_slot(dev, &dev->programs, prog.id, fn);
  if (!p) return dev->status;
  if (location < 0 || count == 0) return ty_gl_ok(dev);
  TY_ASSERT(data);
  GLuint name = p->name;
  GLsizei n = (GLsizei)count;
  switch (type) {
  case TY_GL_UNIFORM_INT: glProgramUniform1iv(name, location, n, data); break;
  case TY_GL_UNIFORM_UINT: glProgramUniform1uiv(name, location, n, data); break;
  case TY_GL_UNIFORM_VEC2: glProgramUniform2fv(name, location, n, data); break;
  case TY_GL_UNIFORM_VEC4: glProgramUniform4fv(name, location, n, data); break;
  case TY_GL_UNIFORM_MAT4: glProgramUniformMatrix4fv(name, location, n, GL_FALSE, data); break;
  default: return ty_gl_fail(dev, TY_GL_ERROR_INVALID, "%s: type %d is not a ty_gl_uniform_type", fn, (int)type);
  }
  return ty_gl_ok(dev);
}

#endif
