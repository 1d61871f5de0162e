/* engine/render/items.c: draw items (what MeshRenderer and Sprite components are) and
 * lights, each on a pool of slots behind generation-checked handles: a destroyed item's
 * handle, kept by Lua, finds nothing (NULL) instead of whatever took its slot. */
#include "render_core.h"

#include <string.h>

/* ---- the pool ------------------------------------------------------------------------- */

#define GEN_MASK ((1u << (32u - TY_RENDER_POOL_SLOT_BITS)) - 1u)

/* A free slot (the pool grows when none is), or UINT32_MAX when the pool is at its limit.
 * *grew is set when cap changed, so the caller grows its records to match. */
static uint32_t pool_take(ty_render_pool *p, bool *grew) {
  *grew = false;
  if (!p->free_count) {
    if (p->cap == TY_RENDER_POOL_MAX_SLOTS) return UINT32_MAX;
    uint32_t old = p->cap, cap = old ? old * 2 : 64;
    if (cap > TY_RENDER_POOL_MAX_SLOTS) cap = TY_RENDER_POOL_MAX_SLOTS;
    uint16_t *gen = TY_REALLOC(p->gen, cap * sizeof *gen);
    bool *live = TY_REALLOC(p->live, cap * sizeof *live);
    TY_ASSERT(gen && live);
    p->gen = gen, p->live = live;
    memset(gen + old, 0, (cap - old) * sizeof *gen);
    memset(live + old, 0, (cap - old) * sizeof *live);
    TY_GROW(p->free_slots, p->free_cap, p->free_count + (cap - old));
    for (uint32_t i = cap; i-- > old;) p->free_slots[p->free_count++] = i; /* lowest last: out first */
    p->cap = cap;
    *grew = true;
  }
  uint32_t slot = p->free_slots[--p->free_count];
  p->live[slot] = true;
  p->live_count++;
  return slot;
}

static uint32_t pool_handle(const ty_render_pool *p, uint32_t slot) {
  return (uint32_t)(p->gen[slot] & GEN_MASK) << TY_RENDER_POOL_SLOT_BITS | (slot + 1);
}

/* The live slot behind handle, or UINT32_MAX for 0, a freed slot or an old generation. */
static uint32_t pool_slot(const ty_render_pool *p, uint32_t handle) {
  uint32_t slot = (handle & TY_RENDER_POOL_MAX_SLOTS) - 1u;
  if (!handle || slot >= p->cap || !p->live[slot] || pool_handle(p, slot) != handle) return UINT32_MAX;
  return slot;
}

static bool pool_release(ty_render_pool *p, uint32_t handle) {
  uint32_t slot = pool_slot(p, handle);
  if (slot == UINT32_MAX) return false;
  p->live[slot] = false;
  p->live_count--;
  p->gen[slot]++;
  TY_GROW(p->free_slots, p->free_cap, p->free_count + 1);
  p->free_slots[p->free_count++] = slot;
  return true;
}

static void pool_free(ty_render_pool *p) {
  TY_FREE(p->gen);
  TY_FREE(p->live);
  TY_FREE(p->free_slots);
  memset(p, 0, sizeof *p);
}

/* ---- items ---------------------------------------------------------------------------- */

uint32_t ty_render_item_create(ty_renderer *R, ty_id object) {
  bool grew;
  uint32_t slot = pool_take(&R->item_pool, &grew);
  if (slot == UINT32_MAX) {
    ty_render_fail(R, "render_items_full", "more than %u draw items", TY_RENDER_POOL_MAX_SLOTS);
    return 0;
  }
  if (grew) {
    ty_render_item *items = TY_REALLOC(R->items, R->item_pool.cap * sizeof *items);
    TY_ASSERT(items);
    R->items = items;
  }
  R->items[slot] = (ty_render_item){.object = object, .mesh = TY_RENDER_MESH_PLACEHOLDER,
                                    .material = TY_RENDER_MATERIAL_DEFAULT, .enabled = true, .cast_shadows = true,
                                    .tint = {1, 1, 1, 1}, .rect = {0, 0, 1, 1}};
  return pool_handle(&R->item_pool, slot);
}

void ty_render_item_destroy(ty_renderer *R, uint32_t item) { pool_release(&R->item_pool, item); }

ty_render_item *ty_render_item_at(ty_renderer *R, uint32_t item) {
  uint32_t slot = pool_slot(&R->item_pool, item);
  return slot == UINT32_MAX ? NULL : &R->items[slot];
}

uint32_t ty_render_item_count(const ty_renderer *R) { return R->item_pool.live_count; }

/* ---- lights --------------------------------------------------------------------------- */

uint32_t ty_render_light_create(ty_renderer *R, ty_id object, ty_light_type type) {
  bool grew;
  uint32_t slot = pool_take(&R->light_pool, &grew);
  if (slot == UINT32_MAX) {
    ty_render_fail(R, "render_lights_full", "more than %u lights", TY_RENDER_POOL_MAX_SLOTS);
    return 0;
  }
  if (grew) {
    ty_light *lights = TY_REALLOC(R->lights, R->light_pool.cap * sizeof *lights);
    TY_ASSERT(lights);
    R->lights = lights;
  }
  R->lights[slot] = (ty_light){.object = object, .type = type, .enabled = true,
                               .cast_shadows = type == TY_LIGHT_DIRECTIONAL, .color = {1, 1, 1}, .intensity = 1.0f,
                               .range = 10.0f, .inner_angle = 30.0f, .outer_angle = 45.0f,
                               .direction = {0, -1, 0}};
  return pool_handle(&R->light_pool, slot);
}

void ty_render_light_destroy(ty_renderer *R, uint32_t light) { pool_release(&R->light_pool, light); }

ty_light *ty_render_light_at(ty_renderer *R, uint32_t light) {
  uint32_t slot = pool_slot(&R->light_pool, light);
  return slot == UINT32_MAX ? NULL : &R->lights[slot];
}

void ty_render_items_free(ty_renderer *R) {
  TY_FREE(R->items);
  TY_FREE(R->lights);
  pool_free(&R->item_pool);
  pool_free(&R->light_pool);
}
