/* engine/render/mesh.h: mesh data on the CPU: the built-in shapes and the file loaders
 * (Wavefront OBJ; glTF 2.0 as .gltf with external or data-URI buffers, or .glb, read
 * with jansson). Needs no GL: the renderer uploads what these produce. */
#ifndef TY_RENDER_MESH_H
#define TY_RENDER_MESH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ty_vertex {
  float position[3];
  float normal[3];
  float uv[2];
} ty_vertex; /* 32 bytes: attributes 0, 1, 2 */

/* Owns its arrays (ty_mesh_free). Triangles, counter-clockwise front faces. */
typedef struct ty_mesh_data {
  ty_vertex *vertices;
  uint32_t vertex_count;
  uint32_t *indices;
  uint32_t index_count;
} ty_mesh_data;

/* A unit cube centred on the origin (side 1), 24 vertices with flat normals. */
void ty_mesh_cube(ty_mesh_data *out);
/* A UV sphere of radius 0.5; segments around (>= 3), rings pole to pole (>= 2). */
void ty_mesh_sphere(ty_mesh_data *out, uint32_t segments, uint32_t rings);
/* A plane of side 1 in XZ facing +Y, subdivided n times per side (>= 1). */
void ty_mesh_plane(ty_mesh_data *out, uint32_t subdivisions);
/* A quad of side 1 in XY facing +Z, uv (0,0) at the bottom-left: sprites. */
void ty_mesh_quad(ty_mesh_data *out);

/* Loads path by its extension (.obj, .gltf, .glb), every triangle primitive of every
 * mesh merged into one (glTF node transforms applied). False with a message in err
 * (err_size bytes; names the file and, where known, the line or the JSON path) on any
 * malformed or unsupported input; out is then left empty. */
bool ty_mesh_load(const char *path, ty_mesh_data *out, char *err, size_t err_size);
/* The same from bytes in memory (the fuzzer's door); ext is "obj", "gltf" or "glb";
 * base_dir resolves a .gltf's external buffers (NULL: refused). */
bool ty_mesh_parse(const char *ext, const uint8_t *bytes, size_t size, const char *base_dir, ty_mesh_data *out,
                   char *err, size_t err_size);

/* Bounding sphere: centre and radius around every vertex. */
void ty_mesh_bounds(const ty_mesh_data *m, float center[3], float *radius);
void ty_mesh_free(ty_mesh_data *m);

#endif
