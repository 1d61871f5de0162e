/* tests/fuzz/mesh_fuzz.c: fuzzes ty_mesh_parse (OBJ, glTF and GLB from bytes) and checks
 * what must hold for any input: it returns, a failure leaves the mesh empty with a
 * message, and a success gives whole triangles whose indices all name a vertex.
 *
 * The first byte picks the format (its value mod 3: obj, gltf, glb); the rest is the file.
 * Seeds (tests/fuzz/corpus/mesh/) are whole files: a seed's extension picks its format
 * in the replay below, and libFuzzer's mutations soon find the selector byte.
 *
 * Built two ways. With TYCHO_LIBFUZZER (cmake -DTYCHO_FUZZ=ON, clang) libFuzzer drives it:
 *   build-fuzz/mesh_fuzz -max_total_time=300 /tmp/mesh-corpus tests/fuzz/corpus/mesh
 * Without, main() below replays files and folders given on the command line, so every
 * build (ASan included) runs the seed corpus as the ctest fuzz.mesh_fuzz. */
#include "render/mesh.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_CHECK(cond)                                                                      \
  do {                                                                                        \
    if (!(cond)) {                                                                            \
      fprintf(stderr, "mesh_fuzz: invariant failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
      abort();                                                                                \
    }                                                                                         \
  } while (0)

static const char *const formats[3] = {"obj", "gltf", "glb"};

static void check_one(const char *ext, const uint8_t *data, size_t size) {
  ty_mesh_data m;
  char err[512];
  memset(err, 'x', sizeof err);
  /* No base folder: external buffers are refused, so the fuzzer never reads files. */
  bool ok = ty_mesh_parse(ext, data, size, NULL, &m, err, sizeof err);
  FUZZ_CHECK(memchr(err, 0, sizeof err) != NULL);
  if (!ok) {
    FUZZ_CHECK(err[0] != 0);
    FUZZ_CHECK(m.vertices == NULL && m.indices == NULL && m.vertex_count == 0 && m.index_count == 0);
    return;
  }
  FUZZ_CHECK(m.index_count > 0 && m.index_count % 3 == 0);
  for (uint32_t i = 0; i < m.index_count; i++) FUZZ_CHECK(m.indices[i] < m.vertex_count);
  float c[3], r;
  ty_mesh_bounds(&m, c, &r);
  FUZZ_CHECK(r >= 0);
  ty_mesh_free(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  check_one(formats[data[0] % 3], data + 1, size - 1);
  return 0;
}

#ifndef TYCHO_LIBFUZZER
#include "replay.h"

/* A file runs as libFuzzer wrote it (selector byte first); a seed named .obj, .gltf or
 * .glb also runs whole in its format, and with each selector byte put in front. */
static int replay_file(const char *path) {
  size_t len = 0;
  uint8_t *buf = fuzz_read_file("mesh_fuzz", path, 1, &len);
  if (!buf) return -1;
  LLVMFuzzerTestOneInput(buf + 1, len - 1); /* as libFuzzer saved it: a crash it found replays */
  const char *dot = strrchr(path, '.');
  for (int k = 0; k < 3; k++) {
    if (dot && !strcmp(dot + 1, formats[k])) check_one(formats[k], buf + 1, len - 1);
    buf[0] = (uint8_t)k;
    LLVMFuzzerTestOneInput(buf, len);
  }
  /* Every prefix of the seed too: truncated files are the commonest malformed input. */
  for (size_t cut = 1; cut < len; cut += (len / 64) + 1) {
    for (int k = 0; k < 3; k++) {
      buf[0] = (uint8_t)k;
      LLVMFuzzerTestOneInput(buf, cut);
    }
  }
  free(buf);
  return 1;
}

int main(int argc, char **argv) { return fuzz_replay_main("mesh_fuzz", argc, argv, replay_file); }
#endif
