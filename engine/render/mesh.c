/* engine/render/mesh.c: mesh data on the CPU: the built-in shapes, bounding spheres and
 * the loaders for Wavefront OBJ and glTF 2.0 (.gltf with external or data-URI buffers,
 * .glb). Loaders treat their input as hostile (it may come from a fuzzer or a modder):
 * every index, accessor and buffer view is bounds-checked and every failure is a
 * message, never a crash. */
#include "mesh.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

#include <cglm/cglm.h>
#include <jansson.h>

#include "../common.h"

/* A file or accessor bigger than this is refused: it would be a mistake or an attack. */
#define MESH_MAX_VERTICES (1u << 24)
#define MESH_MAX_INDICES (1u << 26)
#define GLTF_MAX_DEPTH 64

/* ---- building ----------------------------------------------------------------------- */

typedef struct builder {
  ty_vertex *v;
  uint32_t vn, vcap;
  uint32_t *i;
  uint32_t in, icap;
} builder;

static void error_at(char *err, size_t err_size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void error_at(char *err, size_t err_size, const char *fmt, ...) {
  if (!err || !err_size) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, err_size, fmt, ap);
  va_end(ap);
}

static void push_vertex(builder *b, const float p[3], const float n[3], const float uv[2]) {
  if (b->vn == b->vcap) TY_GROW(b->v, b->vcap, b->vn + 1);
  ty_vertex *v = &b->v[b->vn++];
  memcpy(v->position, p, sizeof v->position);
  memcpy(v->normal, n, sizeof v->normal);
  memcpy(v->uv, uv, sizeof v->uv);
}

static void push_index(builder *b, uint32_t i) {
  if (b->in == b->icap) TY_GROW(b->i, b->icap, b->in + 1);
  b->i[b->in++] = i;
}

static void finish(builder *b, ty_mesh_data *out) {
  out->vertices = b->v;
  out->vertex_count = b->vn;
  out->indices = b->i;
  out->index_count = b->in;
}

static void discard(builder *b) {
  TY_FREE(b->v);
  TY_FREE(b->i);
  memset(b, 0, sizeof *b);
}

/* ---- shapes ------------------------------------------------------------------------- */

void ty_mesh_cube(ty_mesh_data *out) {
  /* Per face: the normal, then the two in-plane axes u and v with u x v = n, so the
   * corners (-u-v, +u-v, +u+v, -u+v) wind counter-clockwise seen from outside. */
  static const float faces[6][3][3] = {
      {{1, 0, 0}, {0, 0, -1}, {0, 1, 0}},  {{-1, 0, 0}, {0, 0, 1}, {0, 1, 0}},
      {{0, 1, 0}, {1, 0, 0}, {0, 0, -1}},  {{0, -1, 0}, {1, 0, 0}, {0, 0, 1}},
      {{0, 0, 1}, {1, 0, 0}, {0, 1, 0}},   {{0, 0, -1}, {-1, 0, 0}, {0, 1, 0}},
  };
  static const float corners[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
  builder b = {0};
  for (int f = 0; f < 6; f++) {
    const float *n = faces[f][0], *u = faces[f][1], *v = faces[f][2];
    uint32_t base = b.vn;
    for (int c = 0; c < 4; c++) {
      float p[3], uv[2] = {(corners[c][0] + 1) * 0.5f, (corners[c][1] + 1) * 0.5f};
      for (int k = 0; k < 3; k++) p[k] = 0.5f * (n[k] + corners[c][0] * u[k] + corners[c][1] * v[k]);
      push_vertex(&b, p, n, uv);
    }
    static const uint32_t quad[6] = {0, 1, 2, 0, 2, 3};
    for (int k = 0; k < 6; k++) push_index(&b, base + quad[k]);
  }
  finish(&b, out);
}

void ty_mesh_sphere(ty_mesh_data *out, uint32_t segments, uint32_t rings) {
  if (segments < 3) segments = 3;
  if (rings < 2) rings = 2;
  builder b = {0};
  for (uint32_t r = 0; r <= rings; r++) {
    float v = (float)r / (float)rings;
    float theta = v * (float)M_PI; /* from the north pole */
    for (uint32_t s = 0; s <= segments; s++) {
      float u = (float)s / (float)segments;
      float phi = u * 2.0f * (float)M_PI;
      float n[3] = {sinf(theta) * sinf(phi), cosf(theta), sinf(theta) * cosf(phi)};
      float p[3] = {n[0] * 0.5f, n[1] * 0.5f, n[2] * 0.5f};
      float uv[2] = {u, 1.0f - v};
      push_vertex(&b, p, n, uv);
    }
  }
  uint32_t row = segments + 1;
  for (uint32_t r = 0; r < rings; r++) {
    for (uint32_t s = 0; s < segments; s++) {
      uint32_t a = r * row + s, c = a + row;
      /* Counter-clockwise from outside: phi grows towards +x from +z. */
      if (r != 0) {
        push_index(&b, a);
        push_index(&b, c);
        push_index(&b, a + 1);
      }
      if (r != rings - 1) {
        push_index(&b, a + 1);
        push_index(&b, c);
        push_index(&b, c + 1);
      }
    }
  }
  finish(&b, out);
}

void ty_mesh_plane(ty_mesh_data *out, uint32_t subdivisions) {
  if (subdivisions < 1) subdivisions = 1;
  builder b = {0};
  uint32_t n = subdivisions;
  static const float up[3] = {0, 1, 0};
  for (uint32_t z = 0; z <= n; z++) {
    for (uint32_t x = 0; x <= n; x++) {
      float fx = (float)x / (float)n, fz = (float)z / (float)n;
      float p[3] = {fx - 0.5f, 0.0f, fz - 0.5f}, uv[2] = {fx, 1.0f - fz};
      push_vertex(&b, p, up, uv);
    }
  }
  for (uint32_t z = 0; z < n; z++) {
    for (uint32_t x = 0; x < n; x++) {
      uint32_t a = z * (n + 1) + x, c = a + n + 1;
      /* Seen from +Y, +Z points down the screen: a, c, a+1 winds counter-clockwise. */
      push_index(&b, a);
      push_index(&b, c);
      push_index(&b, a + 1);
      push_index(&b, a + 1);
      push_index(&b, c);
      push_index(&b, c + 1);
    }
  }
  finish(&b, out);
}

void ty_mesh_quad(ty_mesh_data *out) {
  static const float n[3] = {0, 0, 1};
  static const float pts[4][2] = {{-0.5f, -0.5f}, {0.5f, -0.5f}, {0.5f, 0.5f}, {-0.5f, 0.5f}};
  builder b = {0};
  for (int i = 0; i < 4; i++) {
    float p[3] = {pts[i][0], pts[i][1], 0}, uv[2] = {pts[i][0] + 0.5f, pts[i][1] + 0.5f};
    push_vertex(&b, p, n, uv);
  }
  static const uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
  for (int i = 0; i < 6; i++) push_index(&b, idx[i]);
  finish(&b, out);
}

void ty_mesh_bounds(const ty_mesh_data *m, float center[3], float *radius) {
  center[0] = center[1] = center[2] = 0;
  *radius = 0;
  if (!m || !m->vertex_count) return;
  float lo[3], hi[3];
  memcpy(lo, m->vertices[0].position, sizeof lo);
  memcpy(hi, lo, sizeof hi);
  for (uint32_t i = 1; i < m->vertex_count; i++) {
    for (int k = 0; k < 3; k++) {
      float p = m->vertices[i].position[k];
      if (p < lo[k]) lo[k] = p;
      if (p > hi[k]) hi[k] = p;
    }
  }
  for (int k = 0; k < 3; k++) center[k] = 0.5f * (lo[k] + hi[k]);
  float r2 = 0;
  for (uint32_t i = 0; i < m->vertex_count; i++) {
    float d2 = 0;
    for (int k = 0; k < 3; k++) {
      float d = m->vertices[i].position[k] - center[k];
      d2 += d * d;
    }
    if (d2 > r2) r2 = d2;
  }
  *radius = sqrtf(r2);
}

void ty_mesh_free(ty_mesh_data *m) {
  if (!m) return;
  TY_FREE(m->vertices);
  TY_FREE(m->indices);
  memset(m, 0, sizeof *m);
}

/* Gives every triangle of a mesh with no normals its face normal (vertices are not
 * shared between faces in what the OBJ loader builds, so this is flat shading). */
static void face_normals(builder *b, uint32_t first_index) {
  for (uint32_t t = first_index; t + 2 < b->in; t += 3) {
    ty_vertex *a = &b->v[b->i[t]], *c1 = &b->v[b->i[t + 1]], *c2 = &b->v[b->i[t + 2]];
    vec3 e1, e2, n;
    glm_vec3_sub(c1->position, a->position, e1);
    glm_vec3_sub(c2->position, a->position, e2);
    glm_vec3_cross(e1, e2, n);
    float len = glm_vec3_norm(n);
    if (len > 0) glm_vec3_scale(n, 1.0f / len, n);
    else glm_vec3_copy((vec3){0, 1, 0}, n);
    glm_vec3_copy(n, a->normal);
    glm_vec3_copy(n, c1->normal);
    glm_vec3_copy(n, c2->normal);
  }
}

/* ---- OBJ ---------------------------------------------------------------------------- */

typedef struct farray {
  float *v;
  uint32_t n, cap; /* in floats */
} farray;

static void fpush(farray *a, const float *x, uint32_t k) {
  if (a->n + k > a->cap) TY_GROW(a->v, a->cap, a->n + k);
  memcpy(a->v + a->n, x, k * sizeof *x);
  a->n += k;
}

/* Resolves an OBJ index (1-based, or negative from the end) against count; -1: bad. */
static long obj_index(long i, uint32_t count) {
  if (i > 0 && (unsigned long)i <= count) return i - 1;
  if (i < 0 && i >= -(long)count) return (long)count + i; /* compared, never negated: LONG_MIN */
  return -1;
}

static bool parse_obj(const char *text, ty_mesh_data *out, char *err, size_t err_size) {
  farray pos = {0}, tex = {0}, nor = {0};
  builder b = {0};
  bool ok = true, any_missing_normal = false;
  uint32_t line_no = 0;
  const char *p = text;
  while (*p && ok) {
    line_no++;
    const char *end = strchr(p, '\n');
    if (!end) end = p + strlen(p);
    char line[1024];
    size_t len = (size_t)(end - p);
    if (len >= sizeof line) {
      error_at(err, err_size, "line %u: longer than %zu characters", line_no, sizeof line - 1);
      ok = false;
      break;
    }
    memcpy(line, p, len);
    line[len] = 0;
    p = *end ? end + 1 : end;
    char *hash = strchr(line, '#');
    if (hash) *hash = 0;
    char *s = line;
    while (*s == ' ' || *s == '\t') s++;
    if (s[0] == 'v' && (s[1] == ' ' || s[1] == '\t' || s[1] == 't' || s[1] == 'n')) {
      int want = s[1] == 't' ? 2 : 3;
      char *q = s + (s[1] == ' ' || s[1] == '\t' ? 1 : 2);
      float f[3] = {0, 0, 0};
      int got = 0;
      for (; got < want; got++) {
        char *e;
        f[got] = strtof(q, &e);
        if (e == q) break;
        if (!isfinite(f[got])) { got = -1; break; }
        q = e;
      }
      if (got < want) {
        error_at(err, err_size, "line %u: expected %d numbers after '%.2s'", line_no, want, s);
        ok = false;
        break;
      }
      farray *a = s[1] == 't' ? &tex : s[1] == 'n' ? &nor : &pos;
      if (a->n / (uint32_t)want >= MESH_MAX_VERTICES) {
        error_at(err, err_size, "line %u: too many vertices", line_no);
        ok = false;
        break;
      }
      fpush(a, f, (uint32_t)want);
    } else if (s[0] == 'f' && (s[1] == ' ' || s[1] == '\t')) {
      uint32_t corners[64], nc = 0;
      bool has_normal = true;
      char *q = s + 2;
      for (;;) {
        while (*q == ' ' || *q == '\t' || *q == '\r') q++;
        if (!*q) break;
        long idx[3] = {0, 0, 0};
        for (int k = 0; k < 3; k++) {
          if (k > 0) {
            if (*q != '/') break;
            q++;
          }
          if (*q == '/' || *q == ' ' || !*q) continue; /* v//vn: no texture index */
          char *e;
          idx[k] = strtol(q, &e, 10);
          if (e == q || idx[k] == 0) {
            error_at(err, err_size, "line %u: bad face index", line_no);
            ok = false;
            break;
          }
          q = e;
        }
        if (!ok) break;
        if (*q && *q != ' ' && *q != '\t' && *q != '\r') {
          error_at(err, err_size, "line %u: bad face corner", line_no);
          ok = false;
          break;
        }
        long vi = obj_index(idx[0], pos.n / 3);
        long ti = idx[1] ? obj_index(idx[1], tex.n / 2) : -2;
        long ni = idx[2] ? obj_index(idx[2], nor.n / 3) : -2;
        if (vi < 0 || ti == -1 || ni == -1) {
          error_at(err, err_size, "line %u: face index out of range", line_no);
          ok = false;
          break;
        }
        if (nc == 64) {
          error_at(err, err_size, "line %u: a face with more than 64 corners", line_no);
          ok = false;
          break;
        }
        if (b.vn >= MESH_MAX_VERTICES) {
          error_at(err, err_size, "line %u: too many vertices", line_no);
          ok = false;
          break;
        }
        float uv[2] = {0, 0}, n[3] = {0, 0, 0};
        if (ti >= 0) memcpy(uv, tex.v + ti * 2, sizeof uv);
        if (ni >= 0) memcpy(n, nor.v + ni * 3, sizeof n);
        else has_normal = false;
        corners[nc++] = b.vn;
        push_vertex(&b, pos.v + vi * 3, n, uv);
      }
      if (!ok) break;
      if (nc < 3) {
        error_at(err, err_size, "line %u: a face needs at least 3 corners", line_no);
        ok = false;
        break;
      }
      uint32_t first = b.in;
      for (uint32_t c = 1; c + 1 < nc; c++) { /* fan: convex polygons, as OBJ writers emit */
        push_index(&b, corners[0]);
        push_index(&b, corners[c]);
        push_index(&b, corners[c + 1]);
      }
      if (!has_normal) {
        face_normals(&b, first);
        any_missing_normal = true;
      }
    }
    /* Everything else (o, g, s, usemtl, mtllib, l, p) carries nothing a mesh keeps. */
  }
  (void)any_missing_normal;
  TY_FREE(pos.v);
  TY_FREE(tex.v);
  TY_FREE(nor.v);
  if (ok && b.in == 0) {
    error_at(err, err_size, "no faces");
    ok = false;
  }
  if (!ok) {
    discard(&b);
    return false;
  }
  finish(&b, out);
  return true;
}

/* ---- glTF --------------------------------------------------------------------------- */

typedef struct blob {
  uint8_t *data; /* owned unless borrowed */
  size_t size;
  bool borrowed;
} blob;

typedef struct gltf {
  json_t *root;
  blob *buffers;
  size_t buffer_count;
  const char *base_dir;
  char *err;
  size_t err_size;
  unsigned char *visited; /* per node: a node reached twice makes the tree a graph */
} gltf;

static int b64_value(int c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+' || c == '-') return 62;
  if (c == '/' || c == '_') return 63;
  return -1;
}

static bool b64_decode(const char *s, blob *out) {
  size_t n = strlen(s);
  out->data = TY_MALLOC(n / 4 * 3 + 3);
  TY_ASSERT(out->data);
  size_t o = 0;
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '=') break;
    int v = b64_value((unsigned char)s[i]);
    if (v < 0) {
      TY_FREE(out->data);
      out->data = NULL;
      return false;
    }
    acc = (acc << 6) | (uint32_t)v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out->data[o++] = (uint8_t)(acc >> bits);
    }
  }
  out->size = o;
  return true;
}

static bool read_file(const char *path, uint8_t **data, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return false;
  uint8_t *buf = NULL;
  size_t len = 0, cap = 0;
  for (;;) {
    if (len == cap) {
      cap = cap ? cap * 2 : 65536;
      uint8_t *p = TY_REALLOC(buf, cap + 1);
      TY_ASSERT(p);
      buf = p;
    }
    size_t n = fread(buf + len, 1, cap - len, f);
    if (!n) break;
    len += n;
  }
  bool failed = ferror(f) != 0;
  fclose(f);
  if (failed) {
    TY_FREE(buf);
    return false;
  }
  if (!buf) buf = TY_MALLOC(1);
  buf[len] = 0;
  *data = buf;
  *size = len;
  return true;
}

static bool load_buffers(gltf *g, const uint8_t *glb_bin, size_t glb_bin_size, bool has_bin) {
  json_t *bufs = json_object_get(g->root, "buffers");
  if (!bufs) return true;
  if (!json_is_array(bufs)) {
    error_at(g->err, g->err_size, "buffers: not an array");
    return false;
  }
  g->buffer_count = json_array_size(bufs);
  g->buffers = TY_MALLOC((g->buffer_count ? g->buffer_count : 1) * sizeof *g->buffers);
  TY_ASSERT(g->buffers);
  memset(g->buffers, 0, (g->buffer_count ? g->buffer_count : 1) * sizeof *g->buffers);
  for (size_t i = 0; i < g->buffer_count; i++) {
    json_t *b = json_array_get(bufs, i);
    json_t *len = json_object_get(b, "byteLength");
    if (!json_is_integer(len) || json_integer_value(len) < 0) {
      error_at(g->err, g->err_size, "buffers[%zu].byteLength: missing or negative", i);
      return false;
    }
    size_t want = (size_t)json_integer_value(len);
    const char *uri = json_string_value(json_object_get(b, "uri"));
    blob *bl = &g->buffers[i];
    if (!uri) {
      if (i != 0 || !has_bin) {
        error_at(g->err, g->err_size, "buffers[%zu]: no uri and no GLB binary chunk", i);
        return false;
      }
      bl->data = (uint8_t *)glb_bin;
      bl->size = glb_bin_size;
      bl->borrowed = true;
    } else if (strncmp(uri, "data:", 5) == 0) {
      const char *comma = strstr(uri, ";base64,");
      if (!comma || !b64_decode(comma + 8, bl)) {
        error_at(g->err, g->err_size, "buffers[%zu].uri: not a base64 data URI", i);
        return false;
      }
    } else {
      if (!g->base_dir) {
        error_at(g->err, g->err_size, "buffers[%zu].uri: external file '%s' with no folder to look in", i, uri);
        return false;
      }
      char path[4096];
      snprintf(path, sizeof path, "%s/%s", g->base_dir, uri);
      if (!read_file(path, &bl->data, &bl->size)) {
        error_at(g->err, g->err_size, "buffers[%zu].uri: cannot read '%s'", i, path);
        return false;
      }
    }
    if (bl->size < want) {
      error_at(g->err, g->err_size, "buffers[%zu]: %zu bytes, byteLength says %zu", i, bl->size, want);
      return false;
    }
    bl->size = want;
  }
  return true;
}

static size_t component_size(int type) {
  switch (type) {
  case 5120: case 5121: return 1; /* BYTE, UNSIGNED_BYTE */
  case 5122: case 5123: return 2; /* SHORT, UNSIGNED_SHORT */
  case 5125: case 5126: return 4; /* UNSIGNED_INT, FLOAT */
  default: return 0;
  }
}

static uint32_t type_components(const char *t) {
  if (!t) return 0;
  if (!strcmp(t, "SCALAR")) return 1;
  if (!strcmp(t, "VEC2")) return 2;
  if (!strcmp(t, "VEC3")) return 3;
  if (!strcmp(t, "VEC4")) return 4;
  return 0;
}

/* A validated accessor: count elements of comps components each, at data + i * stride. */
typedef struct accessor {
  const uint8_t *data;
  size_t stride;
  uint32_t count, comps;
  int ctype;
  bool normalized;
} accessor;

static bool get_int(json_t *o, const char *key, long long def, long long *out) {
  json_t *v = json_object_get(o, key);
  if (!v) {
    *out = def;
    return true;
  }
  if (!json_is_integer(v)) return false;
  *out = json_integer_value(v);
  return true;
}

static bool get_accessor(gltf *g, long long index, accessor *a) {
  json_t *accs = json_object_get(g->root, "accessors");
  if (index < 0 || !json_is_array(accs) || (size_t)index >= json_array_size(accs)) {
    error_at(g->err, g->err_size, "accessors[%lld]: no such accessor", index);
    return false;
  }
  json_t *acc = json_array_get(accs, (size_t)index);
  long long view_i, off, count, ctype;
  if (!json_is_object(acc) || !get_int(acc, "bufferView", -1, &view_i) || !get_int(acc, "byteOffset", 0, &off) ||
      !get_int(acc, "count", -1, &count) || !get_int(acc, "componentType", -1, &ctype)) {
    error_at(g->err, g->err_size, "accessors[%lld]: malformed", index);
    return false;
  }
  uint32_t comps = type_components(json_string_value(json_object_get(acc, "type")));
  size_t csize = component_size((int)ctype);
  if (!comps || !csize || count < 1 || count > MESH_MAX_INDICES || off < 0) {
    error_at(g->err, g->err_size, "accessors[%lld]: bad type, componentType, count or byteOffset", index);
    return false;
  }
  if (json_object_get(acc, "sparse")) {
    error_at(g->err, g->err_size, "accessors[%lld]: sparse accessors are not supported", index);
    return false;
  }
  json_t *views = json_object_get(g->root, "bufferViews");
  if (view_i < 0 || !json_is_array(views) || (size_t)view_i >= json_array_size(views)) {
    error_at(g->err, g->err_size, "accessors[%lld].bufferView: missing or out of range", index);
    return false;
  }
  json_t *view = json_array_get(views, (size_t)view_i);
  long long buf_i, voff, vlen, vstride;
  if (!json_is_object(view) || !get_int(view, "buffer", -1, &buf_i) || !get_int(view, "byteOffset", 0, &voff) ||
      !get_int(view, "byteLength", -1, &vlen) || !get_int(view, "byteStride", 0, &vstride)) {
    error_at(g->err, g->err_size, "bufferViews[%lld]: malformed", view_i);
    return false;
  }
  if (buf_i < 0 || (size_t)buf_i >= g->buffer_count || voff < 0 || vlen < 0 || vstride < 0 || vstride > 252) {
    error_at(g->err, g->err_size, "bufferViews[%lld]: bad buffer, byteOffset, byteLength or byteStride", view_i);
    return false;
  }
  const blob *bl = &g->buffers[buf_i];
  if ((unsigned long long)voff + (unsigned long long)vlen > bl->size) {
    error_at(g->err, g->err_size, "bufferViews[%lld]: bytes %lld..%lld past buffer %lld's %zu", view_i, voff,
             voff + vlen, buf_i, bl->size);
    return false;
  }
  size_t elem = csize * comps;
  size_t stride = vstride ? (size_t)vstride : elem;
  if (stride < elem) {
    error_at(g->err, g->err_size, "bufferViews[%lld].byteStride: %zu is less than an element (%zu)", view_i, stride,
             elem);
    return false;
  }
  unsigned long long need = (unsigned long long)off + (unsigned long long)(count - 1) * stride + elem;
  if (need > (unsigned long long)vlen) {
    error_at(g->err, g->err_size, "accessors[%lld]: needs %llu bytes of bufferView %lld's %lld", index, need, view_i,
             vlen);
    return false;
  }
  a->data = bl->data + voff + off;
  a->stride = stride;
  a->count = (uint32_t)count;
  a->comps = comps;
  a->ctype = (int)ctype;
  a->normalized = json_is_true(json_object_get(acc, "normalized"));
  return true;
}

/* Component k of element i as a float (normalised integers scaled to their range). */
static float acc_float(const accessor *a, uint32_t i, uint32_t k) {
  const uint8_t *p = a->data + (size_t)i * a->stride;
  float f;
  switch (a->ctype) {
  case 5126: memcpy(&f, p + k * 4, 4); return isfinite(f) ? f : 0.0f;
  case 5121: return a->normalized ? p[k] / 255.0f : p[k];
  case 5120: return a->normalized ? fmaxf((int8_t)p[k] / 127.0f, -1.0f) : (int8_t)p[k];
  case 5123: { uint16_t v; memcpy(&v, p + k * 2, 2); return a->normalized ? v / 65535.0f : v; }
  case 5122: { int16_t v; memcpy(&v, p + k * 2, 2); return a->normalized ? fmaxf(v / 32767.0f, -1.0f) : v; }
  case 5125: { uint32_t v; memcpy(&v, p + k * 4, 4); return (float)v; }
  default: return 0.0f;
  }
}

static uint32_t acc_uint(const accessor *a, uint32_t i) {
  const uint8_t *p = a->data + (size_t)i * a->stride;
  switch (a->ctype) {
  case 5121: return p[0];
  case 5123: { uint16_t v; memcpy(&v, p, 2); return v; }
  case 5125: { uint32_t v; memcpy(&v, p, 4); return v; }
  default: return UINT32_MAX;
  }
}

static bool add_primitive(gltf *g, builder *b, json_t *prim, mat4 world, const char *where) {
  json_t *attrs = json_object_get(prim, "attributes");
  long long pos_i, nor_i, uv_i, idx_i, mode;
  if (!json_is_object(attrs) || !get_int(attrs, "POSITION", -1, &pos_i) || !get_int(attrs, "NORMAL", -1, &nor_i) ||
      !get_int(attrs, "TEXCOORD_0", -1, &uv_i) || !get_int(prim, "indices", -1, &idx_i) ||
      !get_int(prim, "mode", 4, &mode)) {
    error_at(g->err, g->err_size, "%s: malformed attributes, indices or mode", where);
    return false;
  }
  if (mode != 4) return true; /* points and lines: not triangles, skipped */
  if (pos_i < 0) {
    error_at(g->err, g->err_size, "%s.attributes: no POSITION", where);
    return false;
  }
  accessor pos, nor, uv, idx;
  if (!get_accessor(g, pos_i, &pos)) return false;
  if (pos.comps != 3 || pos.ctype != 5126) {
    error_at(g->err, g->err_size, "%s: POSITION must be VEC3 of FLOAT", where);
    return false;
  }
  bool has_n = nor_i >= 0, has_uv = uv_i >= 0;
  if (has_n && (!get_accessor(g, nor_i, &nor) || nor.comps != 3 || nor.count < pos.count)) {
    if (!g->err[0]) error_at(g->err, g->err_size, "%s: NORMAL must be VEC3 with one per vertex", where);
    return false;
  }
  if (has_uv && (!get_accessor(g, uv_i, &uv) || uv.comps != 2 || uv.count < pos.count)) {
    if (!g->err[0]) error_at(g->err, g->err_size, "%s: TEXCOORD_0 must be VEC2 with one per vertex", where);
    return false;
  }
  if (b->vn + (uint64_t)pos.count > MESH_MAX_VERTICES) {
    error_at(g->err, g->err_size, "%s: more than %u vertices", where, MESH_MAX_VERTICES);
    return false;
  }
  mat3 nm;
  glm_mat4_pick3(world, nm);
  glm_mat3_inv(nm, nm);
  glm_mat3_transpose(nm);
  uint32_t base = b->vn;
  for (uint32_t i = 0; i < pos.count; i++) {
    vec3 p = {acc_float(&pos, i, 0), acc_float(&pos, i, 1), acc_float(&pos, i, 2)}, n = {0, 0, 0};
    glm_mat4_mulv3(world, p, 1.0f, p);
    if (has_n) {
      vec3 n0 = {acc_float(&nor, i, 0), acc_float(&nor, i, 1), acc_float(&nor, i, 2)};
      glm_mat3_mulv(nm, n0, n);
      float len = glm_vec3_norm(n);
      if (len > 0 && isfinite(len)) glm_vec3_scale(n, 1.0f / len, n);
      else glm_vec3_zero(n);
    }
    /* glTF puts uv (0,0) at the image's top-left; the engine at its bottom-left. */
    float t[2] = {has_uv ? acc_float(&uv, i, 0) : 0.0f, has_uv ? 1.0f - acc_float(&uv, i, 1) : 0.0f};
    push_vertex(b, p, n, t);
  }
  uint32_t first = b->in;
  if (idx_i >= 0) {
    if (!get_accessor(g, idx_i, &idx)) return false;
    if (idx.comps != 1 || (idx.ctype != 5121 && idx.ctype != 5123 && idx.ctype != 5125)) {
      error_at(g->err, g->err_size, "%s.indices: must be SCALAR unsigned byte, short or int", where);
      return false;
    }
    if (b->in + (uint64_t)idx.count > MESH_MAX_INDICES) {
      error_at(g->err, g->err_size, "%s: more than %u indices", where, MESH_MAX_INDICES);
      return false;
    }
    uint32_t tri = idx.count - idx.count % 3;
    for (uint32_t i = 0; i < tri; i++) {
      uint32_t v = acc_uint(&idx, i);
      if (v >= pos.count) {
        error_at(g->err, g->err_size, "%s.indices[%u]: %u is past the %u vertices", where, i, v, pos.count);
        return false;
      }
      push_index(b, base + v);
    }
  } else {
    for (uint32_t i = 0; i + 2 < pos.count; i += 3) {
      push_index(b, base + i);
      push_index(b, base + i + 1);
      push_index(b, base + i + 2);
    }
  }
  if (!has_n) face_normals(b, first);
  return true;
}

static bool node_matrix(gltf *g, json_t *node, long long ni, mat4 out) {
  glm_mat4_identity(out);
  json_t *m = json_object_get(node, "matrix");
  if (m) {
    if (!json_is_array(m) || json_array_size(m) != 16) {
      error_at(g->err, g->err_size, "nodes[%lld].matrix: not 16 numbers", ni);
      return false;
    }
    for (int i = 0; i < 16; i++) {
      json_t *v = json_array_get(m, (size_t)i);
      if (!json_is_number(v)) {
        error_at(g->err, g->err_size, "nodes[%lld].matrix[%d]: not a number", ni, i);
        return false;
      }
      out[i / 4][i % 4] = (float)json_number_value(v);
    }
    return true;
  }
  static const char *keys[3] = {"translation", "rotation", "scale"};
  static const size_t sizes[3] = {3, 4, 3};
  float vals[3][4] = {{0, 0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1, 0}};
  for (int k = 0; k < 3; k++) {
    json_t *a = json_object_get(node, keys[k]);
    if (!a) continue;
    if (!json_is_array(a) || json_array_size(a) != sizes[k]) {
      error_at(g->err, g->err_size, "nodes[%lld].%s: needs %zu numbers", ni, keys[k], sizes[k]);
      return false;
    }
    for (size_t i = 0; i < sizes[k]; i++) {
      json_t *v = json_array_get(a, i);
      if (!json_is_number(v)) {
        error_at(g->err, g->err_size, "nodes[%lld].%s[%zu]: not a number", ni, keys[k], i);
        return false;
      }
      vals[k][i] = (float)json_number_value(v);
    }
  }
  mat4 r;
  versor q = {vals[1][0], vals[1][1], vals[1][2], vals[1][3]};
  if (glm_vec4_norm(q) > 0) glm_quat_normalize(q);
  else glm_quat_identity(q);
  glm_translate(out, vals[0]);
  glm_quat_mat4(q, r);
  glm_mat4_mul(out, r, out);
  glm_scale(out, vals[2]);
  return true;
}

static bool add_node(gltf *g, builder *b, long long ni, mat4 parent, int depth) {
  json_t *nodes = json_object_get(g->root, "nodes");
  if (ni < 0 || !json_is_array(nodes) || (size_t)ni >= json_array_size(nodes)) {
    error_at(g->err, g->err_size, "nodes[%lld]: no such node", ni);
    return false;
  }
  if (depth > GLTF_MAX_DEPTH) {
    error_at(g->err, g->err_size, "nodes[%lld]: hierarchy deeper than %d (a cycle?)", ni, GLTF_MAX_DEPTH);
    return false;
  }
  /* glTF's node hierarchy is a forest: a node shared by two parents (or a scene root that
   * is also a child) would be walked once per path, 2^depth times for a crafted file. */
  if (g->visited[ni]) {
    error_at(g->err, g->err_size, "nodes[%lld]: reached twice (glTF nodes form a tree)", ni);
    return false;
  }
  g->visited[ni] = 1;
  json_t *node = json_array_get(nodes, (size_t)ni);
  if (!json_is_object(node)) {
    error_at(g->err, g->err_size, "nodes[%lld]: not an object", ni);
    return false;
  }
  mat4 local, world;
  if (!node_matrix(g, node, ni, local)) return false;
  glm_mat4_mul(parent, local, world);
  long long mi;
  if (!get_int(node, "mesh", -1, &mi)) {
    error_at(g->err, g->err_size, "nodes[%lld].mesh: not an index", ni);
    return false;
  }
  if (mi >= 0) {
    json_t *meshes = json_object_get(g->root, "meshes");
    if (!json_is_array(meshes) || (size_t)mi >= json_array_size(meshes)) {
      error_at(g->err, g->err_size, "nodes[%lld].mesh: %lld is not a mesh", ni, mi);
      return false;
    }
    json_t *prims = json_object_get(json_array_get(meshes, (size_t)mi), "primitives");
    if (!json_is_array(prims)) {
      error_at(g->err, g->err_size, "meshes[%lld].primitives: not an array", mi);
      return false;
    }
    for (size_t p = 0; p < json_array_size(prims); p++) {
      char where[64];
      snprintf(where, sizeof where, "meshes[%lld].primitives[%zu]", mi, p);
      if (!add_primitive(g, b, json_array_get(prims, p), world, where)) return false;
    }
  }
  json_t *children = json_object_get(node, "children");
  if (children) {
    if (!json_is_array(children)) {
      error_at(g->err, g->err_size, "nodes[%lld].children: not an array", ni);
      return false;
    }
    for (size_t c = 0; c < json_array_size(children); c++) {
      json_t *ci = json_array_get(children, c);
      if (!json_is_integer(ci)) {
        error_at(g->err, g->err_size, "nodes[%lld].children[%zu]: not an index", ni, c);
        return false;
      }
      if (!add_node(g, b, json_integer_value(ci), world, depth + 1)) return false;
    }
  }
  return true;
}

static bool parse_gltf_json(const uint8_t *json, size_t json_size, const uint8_t *bin, size_t bin_size, bool has_bin,
                            const char *base_dir, ty_mesh_data *out, char *err, size_t err_size) {
  char fallback[256];
  if (!err || !err_size) {
    err = fallback;
    err_size = sizeof fallback;
  }
  err[0] = 0;
  json_error_t je;
  json_t *root = json_loadb((const char *)json, json_size, JSON_REJECT_DUPLICATES, &je);
  if (!root) {
    error_at(err, err_size, "JSON line %d: %s", je.line, je.text);
    return false;
  }
  gltf g = {.root = root, .base_dir = base_dir, .err = err, .err_size = err_size};
  builder b = {0};
  bool ok = json_is_object(root);
  if (!ok) error_at(err, err_size, "the top level is not an object");
  if (ok) {
    json_t *asset = json_object_get(root, "asset");
    const char *ver = json_string_value(json_object_get(asset, "version"));
    if (!ver || strncmp(ver, "2.", 2) != 0) {
      error_at(err, err_size, "asset.version: not a glTF 2.x file");
      ok = false;
    }
  }
  ok = ok && load_buffers(&g, bin, bin_size, has_bin);
  json_t *all_nodes = json_object_get(root, "nodes");
  size_t node_count = json_is_array(all_nodes) ? json_array_size(all_nodes) : 0;
  g.visited = TY_MALLOC(node_count ? node_count : 1);
  TY_ASSERT(g.visited);
  memset(g.visited, 0, node_count ? node_count : 1);
  if (ok) {
    mat4 id = GLM_MAT4_IDENTITY_INIT;
    json_t *scenes = json_object_get(root, "scenes");
    long long si;
    ok = get_int(root, "scene", 0, &si);
    if (!ok) error_at(err, err_size, "scene: not an index");
    if (ok && json_is_array(scenes) && json_array_size(scenes) > 0) {
      if (si < 0 || (size_t)si >= json_array_size(scenes)) {
        error_at(err, err_size, "scene: %lld is not a scene", si);
        ok = false;
      }
      json_t *roots = ok ? json_object_get(json_array_get(scenes, (size_t)si), "nodes") : NULL;
      if (ok && roots && !json_is_array(roots)) {
        error_at(err, err_size, "scenes[%lld].nodes: not an array", si);
        ok = false;
      }
      for (size_t i = 0; ok && roots && i < json_array_size(roots); i++) {
        json_t *ni = json_array_get(roots, i);
        if (!json_is_integer(ni)) {
          error_at(err, err_size, "scenes[%lld].nodes[%zu]: not an index", si, i);
          ok = false;
        } else {
          ok = add_node(&g, &b, json_integer_value(ni), id, 0);
        }
      }
    } else if (ok) {
      /* No scene: every mesh once, untransformed. */
      json_t *meshes = json_object_get(root, "meshes");
      for (size_t m = 0; ok && json_is_array(meshes) && m < json_array_size(meshes); m++) {
        json_t *prims = json_object_get(json_array_get(meshes, m), "primitives");
        for (size_t p = 0; ok && json_is_array(prims) && p < json_array_size(prims); p++) {
          char where[64];
          snprintf(where, sizeof where, "meshes[%zu].primitives[%zu]", m, p);
          ok = add_primitive(&g, &b, json_array_get(prims, p), id, where);
        }
      }
    }
  }
  if (ok && b.in == 0) {
    error_at(err, err_size, "no triangle primitives");
    ok = false;
  }
  for (size_t i = 0; i < g.buffer_count; i++)
    if (!g.buffers[i].borrowed) TY_FREE(g.buffers[i].data);
  TY_FREE(g.buffers);
  TY_FREE(g.visited);
  json_decref(root);
  if (!ok) {
    discard(&b);
    return false;
  }
  finish(&b, out);
  return true;
}

static uint32_t read_u32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

static bool parse_glb(const uint8_t *bytes, size_t size, const char *base_dir, ty_mesh_data *out, char *err,
                      size_t err_size) {
  if (size < 20 || memcmp(bytes, "glTF", 4) != 0) {
    error_at(err, err_size, "not a GLB file (no glTF header)");
    return false;
  }
  if (read_u32(bytes + 4) != 2) {
    error_at(err, err_size, "GLB version %u, only 2 is supported", read_u32(bytes + 4));
    return false;
  }
  size_t total = read_u32(bytes + 8);
  if (total > size) {
    error_at(err, err_size, "GLB header says %zu bytes, the file has %zu", total, size);
    return false;
  }
  const uint8_t *json = NULL, *bin = NULL;
  size_t json_len = 0, bin_len = 0;
  size_t off = 12;
  while (off + 8 <= total) {
    size_t len = read_u32(bytes + off);
    uint32_t type = read_u32(bytes + off + 4);
    if (len > total - off - 8) {
      error_at(err, err_size, "GLB chunk at byte %zu: %zu bytes past the end", off, len);
      return false;
    }
    if (type == 0x4E4F534Au && !json) {
      json = bytes + off + 8;
      json_len = len;
    } else if (type == 0x004E4942u && !bin) {
      bin = bytes + off + 8;
      bin_len = len;
    }
    off += 8 + len;
  }
  if (!json) {
    error_at(err, err_size, "GLB: no JSON chunk");
    return false;
  }
  return parse_gltf_json(json, json_len, bin, bin_len, bin != NULL, base_dir, out, err, err_size);
}

/* ---- doors -------------------------------------------------------------------------- */

bool ty_mesh_parse(const char *ext, const uint8_t *bytes, size_t size, const char *base_dir, ty_mesh_data *out,
                   char *err, size_t err_size) {
  TY_ASSERT(ext && out);
  memset(out, 0, sizeof *out);
  if (err && err_size) err[0] = 0;
  if (!bytes) size = 0;
  if (!strcmp(ext, "obj")) {
    char *text = TY_MALLOC(size + 1);
    TY_ASSERT(text);
    if (size) memcpy(text, bytes, size);
    text[size] = 0;
    /* An embedded NUL ends the text early rather than hiding lines from the parser. */
    bool ok = parse_obj(text, out, err, err_size);
    TY_FREE(text);
    return ok;
  }
  if (!strcmp(ext, "gltf")) return parse_gltf_json(bytes ? bytes : (const uint8_t *)"", size, NULL, 0, false, base_dir, out, err, err_size);
  if (!strcmp(ext, "glb")) return parse_glb(bytes, size, base_dir, out, err, err_size);
  error_at(err, err_size, "unsupported mesh format '%s' (obj, gltf, glb)", ext);
  return false;
}

bool ty_mesh_load(const char *path, ty_mesh_data *out, char *err, size_t err_size) {
  TY_ASSERT(path && out);
  memset(out, 0, sizeof *out);
  const char *dot = strrchr(path, '.');
  const char *slash = strrchr(path, '/');
  char ext[8] = "";
  if (dot && (!slash || dot > slash) && strlen(dot + 1) < sizeof ext) {
    for (size_t i = 0; dot[1 + i]; i++) ext[i] = (char)(dot[1 + i] >= 'A' && dot[1 + i] <= 'Z' ? dot[1 + i] + 32 : dot[1 + i]);
  }
  if (strcmp(ext, "obj") && strcmp(ext, "gltf") && strcmp(ext, "glb")) {
    error_at(err, err_size, "%s: unsupported mesh format (obj, gltf, glb)", path);
    return false;
  }
  uint8_t *bytes;
  size_t size;
  if (!read_file(path, &bytes, &size)) {
    error_at(err, err_size, "%s: cannot read the file", path);
    return false;
  }
  char dir[4096];
  if (slash) snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
  else snprintf(dir, sizeof dir, ".");
  char inner[512] = "";
  bool ok = ty_mesh_parse(ext, bytes, size, dir, out, inner, sizeof inner);
  TY_FREE(bytes);
  if (!ok) error_at(err, err_size, "%s: %s", path, inner);
  return ok;
}
