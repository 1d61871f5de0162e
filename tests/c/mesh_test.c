/* tests/c/mesh_test.c: the built-in shapes (counts, bounds, outward normals, winding) and
 * the OBJ, glTF and GLB loaders, with the messages malformed files get. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "common.h" /* Required for: ty_now */
#include "render/mesh.h"

static bool contains(const char *haystack, const char *needle) { return strstr(haystack, needle) != NULL; }

/* Every triangle winds counter-clockwise seen from where its normals point, and every
 * normal points away from the centre (for convex shapes around the origin). */
static bool outward_and_ccw(const ty_mesh_data *m) {
  for (uint32_t t = 0; t + 2 < m->index_count; t += 3) {
    const float *a = m->vertices[m->indices[t]].position, *b = m->vertices[m->indices[t + 1]].position,
                *c = m->vertices[m->indices[t + 2]].position;
    float e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    float n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
    const float *vn = m->vertices[m->indices[t]].normal;
    float centroid[3] = {(a[0] + b[0] + c[0]) / 3, (a[1] + b[1] + c[1]) / 3, (a[2] + b[2] + c[2]) / 3};
    if (n[0] * vn[0] + n[1] * vn[1] + n[2] * vn[2] <= 0) return false;
    if (centroid[0] * vn[0] + centroid[1] * vn[1] + centroid[2] * vn[2] <= 0) return false;
  }
  return true;
}

static bool indices_in_range(const ty_mesh_data *m) {
  for (uint32_t i = 0; i < m->index_count; i++)
    if (m->indices[i] >= m->vertex_count) return false;
  return true;
}

static void test_cube(void) {
  ty_mesh_data m;
  ty_mesh_cube(&m);
  CHECK_EQ_INT(m.vertex_count, 24);
  CHECK_EQ_INT(m.index_count, 36);
  CHECK(outward_and_ccw(&m));
  float c[3], r;
  ty_mesh_bounds(&m, c, &r);
  CHECK_NEAR(c[0], 0, 1e-6);
  CHECK_NEAR(r, sqrtf(0.75f), 1e-5);
  ty_mesh_free(&m);
  CHECK(m.vertices == NULL && m.vertex_count == 0);
}

static void test_sphere_and_plane_and_quad(void) {
  ty_mesh_data m;
  ty_mesh_sphere(&m, 16, 8);
  CHECK_EQ_INT(m.vertex_count, 17 * 9);
  CHECK_EQ_INT(m.index_count, 16 * (8 - 1) * 6); /* the pole rows have one triangle per segment */
  CHECK(indices_in_range(&m));
  CHECK(outward_and_ccw(&m));
  float c[3], r;
  ty_mesh_bounds(&m, c, &r);
  CHECK_NEAR(r, 0.5, 1e-5);
  ty_mesh_free(&m);
  ty_mesh_sphere(&m, 1, 1); /* clamped to 3 x 2 */
  CHECK_EQ_INT(m.vertex_count, 4 * 3);
  ty_mesh_free(&m);

  ty_mesh_plane(&m, 4);
  CHECK_EQ_INT(m.vertex_count, 25);
  CHECK_EQ_INT(m.index_count, 4 * 4 * 6);
  for (uint32_t i = 0; i < m.vertex_count; i++) CHECK(m.vertices[i].normal[1] == 1 && m.vertices[i].position[1] == 0);
  /* Seen from above (+Y) every triangle is counter-clockwise. */
  for (uint32_t t = 0; t < m.index_count; t += 3) {
    const float *a = m.vertices[m.indices[t]].position, *b = m.vertices[m.indices[t + 1]].position,
                *c2 = m.vertices[m.indices[t + 2]].position;
    float ny = (b[2] - a[2]) * (c2[0] - a[0]) - (b[0] - a[0]) * (c2[2] - a[2]);
    CHECK(ny > 0);
  }
  ty_mesh_free(&m);

  ty_mesh_quad(&m);
  CHECK_EQ_INT(m.vertex_count, 4);
  CHECK_EQ_INT(m.index_count, 6);
  CHECK(m.vertices[0].uv[0] == 0 && m.vertices[0].uv[1] == 0 && m.vertices[0].position[0] < 0 &&
        m.vertices[0].position[1] < 0); /* uv (0,0) at the bottom-left */
  CHECK(outward_and_ccw(&m) || m.vertices[0].normal[2] == 1);
  ty_mesh_free(&m);
}

static bool parse(const char *ext, const char *text, ty_mesh_data *m, char *err, size_t n) {
  return ty_mesh_parse(ext, (const uint8_t *)text, strlen(text), NULL, m, err, n);
}

static void test_obj(void) {
  const char *obj = "# a square and a triangle, with a comment\n"
                    "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n"
                    "vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\n"
                    "vn 0 0 1\n"
                    "o thing\ng group\ns off\nusemtl m\n"
                    "f 1/1/1 2/2/1 3/3/1 4/4/1\n"
                    "f -4//1 -3//1 -2//1\n";
  ty_mesh_data m;
  char err[256];
  CHECK(parse("obj", obj, &m, err, sizeof err));
  CHECK_EQ_INT(m.index_count, 9); /* the quad fans into two triangles */
  CHECK_EQ_INT(m.vertex_count, 7);
  CHECK(indices_in_range(&m));
  CHECK(m.vertices[2].uv[0] == 1 && m.vertices[2].uv[1] == 1);
  CHECK(m.vertices[0].normal[2] == 1);
  CHECK(m.vertices[4].position[0] == 0 && m.vertices[5].position[0] == 1); /* negative indices */
  ty_mesh_free(&m);

  /* No normals: each face gets its own. */
  CHECK(parse("obj", "v 0 0 0\nv 0 0 1\nv 1 0 0\nf 1 2 3\n", &m, err, sizeof err));
  CHECK_NEAR(m.vertices[0].normal[1], 1, 1e-6);
  ty_mesh_free(&m);
}

static void test_obj_errors(void) {
  ty_mesh_data m;
  char err[256];
  CHECK(!parse("obj", "v 0 0 0\nv 1 0 0\nf 1 2 7\n", &m, err, sizeof err));
  CHECK(contains(err, "line 3"));
  CHECK(m.vertices == NULL && m.index_count == 0);
  CHECK(!parse("obj", "v 0 0\n", &m, err, sizeof err));
  CHECK(contains(err, "line 1"));
  CHECK(!parse("obj", "v 0 0 0\nf 1 1\n", &m, err, sizeof err));
  CHECK(contains(err, "line 2"));
  CHECK(!parse("obj", "# nothing\n", &m, err, sizeof err));
  CHECK(contains(err, "no faces"));
  CHECK(!parse("obj", "v 0 0 0\nf 1/x 1 1\n", &m, err, sizeof err));
  CHECK(!parse("stl", "solid", &m, err, sizeof err));
  CHECK(contains(err, "stl"));
}

/* A glTF triangle: 3 positions, 3 normals, uvs and u16 indices in one base64 buffer,
 * under a node translated by +2 in x. */
static char *triangle_gltf(const char *node_extra) {
  /* Build the buffer: positions (36), normals (36), uvs (24), indices (6 + 2 pad). */
  uint8_t buf[104];
  float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0}, nor[9] = {0, 0, 1, 0, 0, 1, 0, 0, 1}, uv[6] = {0, 0, 1, 0, 0, 1};
  uint16_t idx[4] = {0, 1, 2, 0};
  memcpy(buf, pos, 36);
  memcpy(buf + 36, nor, 36);
  memcpy(buf + 72, uv, 24);
  memcpy(buf + 96, idx, 8);
  static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  char enc[160];
  size_t o = 0;
  for (size_t i = 0; i < sizeof buf; i += 3) {
    uint32_t v = (uint32_t)buf[i] << 16 | (i + 1 < sizeof buf ? (uint32_t)buf[i + 1] << 8 : 0) |
                 (i + 2 < sizeof buf ? buf[i + 2] : 0);
    enc[o++] = b64[(v >> 18) & 63];
    enc[o++] = b64[(v >> 12) & 63];
    enc[o++] = i + 1 < sizeof buf ? b64[(v >> 6) & 63] : '=';
    enc[o++] = i + 2 < sizeof buf ? b64[v & 63] : '=';
  }
  enc[o] = 0;
  char *json = malloc(4096);
  snprintf(json, 4096,
           "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"
           "\"nodes\":[{\"mesh\":0,\"translation\":[2,0,0]%s}],"
           "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"NORMAL\":1,\"TEXCOORD_0\":2},\"indices\":3}]}],"
           "\"buffers\":[{\"byteLength\":104,\"uri\":\"data:application/octet-stream;base64,%s\"}],"
           "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":96},{\"buffer\":0,\"byteOffset\":96,\"byteLength\":6}],"
           "\"accessors\":[{\"bufferView\":0,\"byteOffset\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
           "{\"bufferView\":0,\"byteOffset\":36,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
           "{\"bufferView\":0,\"byteOffset\":72,\"componentType\":5126,\"count\":3,\"type\":\"VEC2\"},"
           "{\"bufferView\":1,\"componentType\":5123,\"count\":3,\"type\":\"SCALAR\"}]}",
           node_extra, enc);
  return json;
}

static void test_gltf(void) {
  char *json = triangle_gltf("");
  ty_mesh_data m;
  char err[256];
  CHECK(parse("gltf", json, &m, err, sizeof err));
  if (err[0]) fprintf(stderr, "  %s\n", err);
  CHECK_EQ_INT(m.vertex_count, 3);
  CHECK_EQ_INT(m.index_count, 3);
  CHECK_NEAR(m.vertices[1].position[0], 3, 1e-6); /* the node's translation */
  CHECK_NEAR(m.vertices[0].normal[2], 1, 1e-6);
  CHECK_NEAR(m.vertices[2].uv[1], 0, 1e-6); /* v flipped: glTF's top is the engine's 1 */
  CHECK_NEAR(m.vertices[0].uv[1], 1, 1e-6);
  ty_mesh_free(&m);
  free(json);

  /* The same JSON inside a GLB with its buffer as a data URI. */
  json = triangle_gltf("");
  size_t jl = strlen(json), pad = (4 - jl % 4) % 4, total = 12 + 8 + jl + pad;
  uint8_t *glb = calloc(1, total);
  memcpy(glb, "glTF", 4);
  uint32_t v = 2, t = (uint32_t)total, cl = (uint32_t)(jl + pad), ct = 0x4E4F534A;
  memcpy(glb + 4, &v, 4);
  memcpy(glb + 8, &t, 4);
  memcpy(glb + 12, &cl, 4);
  memcpy(glb + 16, &ct, 4);
  memcpy(glb + 20, json, jl);
  memset(glb + 20 + jl, ' ', pad);
  CHECK(ty_mesh_parse("glb", glb, total, NULL, &m, err, sizeof err));
  CHECK_EQ_INT(m.index_count, 3);
  ty_mesh_free(&m);
  /* Truncated: the header promises more than there is. */
  CHECK(!ty_mesh_parse("glb", glb, total - 10, NULL, &m, err, sizeof err));
  CHECK(contains(err, "GLB"));
  free(glb);
  free(json);
}

static void test_gltf_errors(void) {
  ty_mesh_data m;
  char err[256];
  CHECK(!parse("gltf", "{", &m, err, sizeof err));
  CHECK(contains(err, "JSON"));
  CHECK(!parse("gltf", "{\"asset\":{\"version\":\"1.0\"}}", &m, err, sizeof err));
  CHECK(contains(err, "asset.version"));
  /* An accessor that runs past its buffer view. */
  char *json = triangle_gltf("");
  char *p = strstr(json, "\"count\":3,\"type\":\"VEC2\"");
  memcpy(p, "\"count\":9", 9);
  CHECK(!parse("gltf", json, &m, err, sizeof err));
  CHECK(contains(err, "accessors[2]"));
  free(json);
  /* An external buffer with no folder to look in. */
  CHECK(!parse("gltf",
               "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":4,\"uri\":\"x.bin\"}]}", &m, err,
               sizeof err));
  CHECK(contains(err, "buffers[0]"));
  /* A node cycle. */
  json = triangle_gltf(",\"children\":[0]");
  CHECK(!parse("gltf", json, &m, err, sizeof err));
  CHECK(contains(err, "reached twice"));
  free(json);
  /* Nodes shared by two parents, 60 levels deep: 2^60 paths if walked per path. Refused at
   * once (this test would not finish otherwise). */
  char dag[4096];
  int n = snprintf(dag, sizeof dag, "{\"asset\":{\"version\":\"2.0\"},\"scenes\":[{\"nodes\":[0]}],\"nodes\":[");
  for (int i = 0; i < 60; i++) n += snprintf(dag + n, sizeof dag - (size_t)n, "{\"children\":[%d,%d]},", i + 1, i + 1);
  snprintf(dag + n, sizeof dag - (size_t)n, "{}]}");
  double t0 = ty_now();
  CHECK(!parse("gltf", dag, &m, err, sizeof err));
  CHECK(contains(err, "reached twice"));
  CHECK(ty_now() - t0 < 1.0);
  CHECK(!ty_mesh_load("no/such/file.gltf", &m, err, sizeof err));
  CHECK(contains(err, "no/such/file.gltf"));
}

/* The files the repository ships, found from this source file's own path. */
static void test_sample_models_load(void) {
  char root[1024];
  snprintf(root, sizeof root, "%s", __FILE__);
  char *cut = strstr(root, "tests/c/mesh_test.c");
  if (cut) *cut = 0;
  else snprintf(root, sizeof root, "./");
  const char *files[] = {"content/models/crate.obj", "content/models/pyramid.gltf", "tests/fuzz/corpus/mesh/cube.obj",
                         "tests/fuzz/corpus/mesh/triangle.glb", "tests/fuzz/corpus/mesh/triangle.gltf"};
  for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
    ty_mesh_data m;
    char err[512], path[2048];
    snprintf(path, sizeof path, "%s%s", root, files[i]);
    bool ok = ty_mesh_load(path, &m, err, sizeof err);
    if (!ok) fprintf(stderr, "  %s\n", err);
    CHECK(ok);
    CHECK(m.index_count >= 3 && m.index_count % 3 == 0);
    CHECK(indices_in_range(&m));
    ty_mesh_free(&m);
  }
}

int main(void) {
  RUN(test_cube);
  RUN(test_sphere_and_plane_and_quad);
  RUN(test_obj);
  RUN(test_obj_errors);
  RUN(test_gltf);
  RUN(test_gltf_errors);
  RUN(test_sample_models_load);
  return check_summary();
}
