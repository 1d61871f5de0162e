/* engine/render/bucket.h: draw bucketing, once per frame.
 *
 * Takes every enabled draw item (a world matrix, a mesh, a material, flags and a local
 * bounding sphere) and the camera, and produces the three lists the passes draw:
 *  - opaque: frustum-culled, sorted by a 64-bit key: state group, material, mesh, then
 *    quantised depth front-to-back (fewest state changes, then early-z);
 *  - transparent: frustum-culled, sorted back-to-front by view depth;
 *  - shadow: every caster, sorted by mesh then material for instancing; culled only
 *    against the light's optional cascades, since off-screen casters throw visible
 *    shadows. With cascades, a caster is listed once per cascade its sphere overlaps and
 *    the list is sorted cascade first: each cascade draws its own range of runs.
 * Each list is cut into instanced batches (a run of equal mesh + material) with one
 * DrawElementsIndirectCommand each, ready for glMultiDrawElementsIndirect, and into runs
 * of batches sharing a material (one multi-draw call per run). The per-instance data
 * (the world matrix, then optional per-item bytes) of all three lists is written once
 * per frame into one contiguous buffer: opaque instances, then transparent, then shadow;
 * each command's baseInstance indexes that buffer.
 *
 * Sorting is an LSD radix sort on the keys; every buffer is kept and grown, so a frame
 * of a steady size allocates nothing.
 */
#ifndef TY_RENDER_BUCKET_H
#define TY_RENDER_BUCKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ty_bucket_item.flags */
enum {
  TY_BUCKET_ENABLED = 1u << 0,
  TY_BUCKET_TRANSPARENT = 1u << 1,
  TY_BUCKET_CASTS_SHADOW = 1u << 2,
};
/* Bits 24..31 of flags: the item's pipeline state group (0..255), the most significant
 * part of the opaque key, so items sharing shaders and fixed-function state draw together. */
#define TY_BUCKET_STATE_SHIFT 24
#define TY_BUCKET_STATE(group) ((uint32_t)(group) << TY_BUCKET_STATE_SHIFT)

/* The most cascades a shadow list is split into. */
#define TY_BUCKET_MAX_CASCADES 4

typedef struct ty_bucket_item {
  const float *world; /* mat4, column-major, 16 floats; read during build and write */
  uint32_t mesh;      /* index into the frame's mesh table */
  uint32_t material;
  uint32_t flags;
  float center[3]; /* bounding sphere, local space */
  float radius;
  const void *instance_data; /* instance_bytes after the matrix; NULL writes zeros */
} ty_bucket_item;

/* Where a mesh lives in the shared index and vertex buffers. */
typedef struct ty_bucket_mesh {
  uint32_t index_count;
  uint32_t first_index;
  int32_t base_vertex;
} ty_bucket_mesh;

/* GL's DrawElementsIndirectCommand, laid out as glMultiDrawElementsIndirect reads it. */
typedef struct ty_bucket_command {
  uint32_t count;
  uint32_t instance_count;
  uint32_t first_index;
  int32_t base_vertex;
  uint32_t base_instance;
} ty_bucket_command;

/* Consecutive sorted items with the same mesh and material: one instanced draw. */
typedef struct ty_bucket_batch {
  uint32_t mesh, material;
  uint32_t first_instance; /* in the whole instance buffer */
  uint32_t count;
} ty_bucket_batch;

/* Consecutive batches with the same material: one glMultiDrawElementsIndirect. */
typedef struct ty_bucket_run {
  uint32_t material;
  uint32_t first_batch, batch_count; /* into the list's batches and commands */
} ty_bucket_run;

typedef enum ty_bucket_kind {
  TY_BUCKET_LIST_OPAQUE = 0,
  TY_BUCKET_LIST_TRANSPARENT,
  TY_BUCKET_LIST_SHADOW,
  TY_BUCKET_LIST_COUNT
} ty_bucket_kind;

/* A cascade's part of a split shadow list: consecutive items, batches and runs. */
typedef struct ty_bucket_range {
  uint32_t first_item, item_count;
  uint32_t first_run, run_count;
} ty_bucket_range;

/* One list, valid until the next ty_bucket_build. */
typedef struct ty_bucket_list {
  const uint32_t *items; /* indices into the frame's items, in draw order */
  uint32_t count;
  uint32_t first_instance; /* where this list starts in the instance buffer */
  const ty_bucket_batch *batches;
  const ty_bucket_command *commands; /* one per batch */
  uint32_t batch_count;
  const ty_bucket_run *runs;
  uint32_t run_count;
  /* The shadow list with cascades: each one's range, in cascade order; 0 otherwise. */
  uint32_t cascade_count;
  ty_bucket_range cascades[TY_BUCKET_MAX_CASCADES];
} ty_bucket_list;

typedef struct ty_bucket_frame {
  const ty_bucket_item *items;
  uint32_t item_count;
  const ty_bucket_mesh *meshes;
  uint32_t mesh_count;
  float view_proj[16];      /* camera, column-major; its frustum culls opaque and transparent */
  float camera_position[3]; /* depth is measured from here ... */
  float camera_forward[3];  /* ... along this axis; all zero: straight-line distance */
  /* Optional: the light's cascades, column-major orthographic matrices of one
   * orientation (the sun's). A caster joins each cascade whose box (its clip volume,
   * near plane included) its sphere overlaps. 0: every caster once, unsplit. */
  const float (*shadow_cascades)[16];
  uint32_t shadow_cascade_count;
} ty_bucket_frame;

/* The numbers frame.buckets reports. */
typedef struct ty_bucket_counts {
  uint32_t opaque, transparent; /* items in each list */
  uint32_t shadow;                      /* casters, each counted once however many cascades it joins */
  uint32_t cascades;                    /* how many the shadow list is split into; 0: unsplit */
  uint32_t shadow_cascade[TY_BUCKET_MAX_CASCADES]; /* casters in each cascade, when split */
  uint32_t culled;   /* enabled items outside the camera frustum */
  uint32_t disabled; /* items without TY_BUCKET_ENABLED */
  uint32_t invalid;  /* enabled items whose mesh is not in the mesh table (skipped) */
  uint32_t batches;  /* over all three lists */
} ty_bucket_counts;

typedef struct ty_bucket_desc {
  /* Per-instance bytes after the 64-byte matrix, a multiple of 16 (std430 vec4
   * alignment); 0: the matrix only. */
  uint32_t instance_bytes;
} ty_bucket_desc;

typedef struct ty_bucket ty_bucket;

/* desc may be NULL. */
ty_bucket *ty_bucket_create(const ty_bucket_desc *desc);
void ty_bucket_destroy(ty_bucket *b);

/* Culls, keys, sorts and batches. Keeps frame->items (not a copy) for
 * ty_bucket_write_instances, so the items and their matrices must outlive that call. */
void ty_bucket_build(ty_bucket *b, const ty_bucket_frame *frame);

const ty_bucket_list *ty_bucket_get(const ty_bucket *b, ty_bucket_kind kind);
ty_bucket_counts ty_bucket_count(const ty_bucket *b);

/* Bytes per instance and in all: what the upload buffer must hold for the last build. */
uint32_t ty_bucket_instance_stride(const ty_bucket *b);
size_t ty_bucket_instance_size(const ty_bucket *b);
/* Writes every list's instances into dst (ty_bucket_instance_size bytes; a persistently
 * mapped buffer is fine: it is written sequentially and never read). */
void ty_bucket_write_instances(const ty_bucket *b, void *dst);

#endif
