/* engine/render/graph.c: the render graph behind graph.h.
 *
 * Declaration only records: passes, resources and one flat array of references (each
 * pass's reads, then its writes). rg_compile does the work in five sweeps over those
 * arrays, all of which are kept between frames so a steady frame allocates nothing:
 *  1. versions: walk passes in declaration order tracking, per resource, the pass that
 *     wrote the current version and the references that read it; emit an edge for every
 *     read-after-write, write-after-write and write-after-read hazard;
 *  2. cull: mark the roots alive and propagate along read-after-write edges to producers;
 *  3. order: Kahn's algorithm over the survivors, taking the lowest declaration index
 *     among the ready passes, so independent passes keep the order they were declared in;
 *  4. alias: walk the order, give each transient a physical slot at its first use (the
 *     lowest free slot with an equal description, else a new one) and free the slot
 *     after its last use;
 *  5. pool: claim a previous frame's texture for each slot, create only what is missing,
 *     destroy textures idle for max_idle_frames.
 */
#include "graph.h"

#include <stdarg.h>
#include <string.h>

#include "../common.h"

enum { RG_INDEX_LIMIT = 0xFFFF }; /* handle ids carry a 16-bit index + 1 */

typedef struct rg_res {
  uint32_t name; /* offset into names */
  bool imported, read_only;
  rg_texture_info info;
  uint32_t texture; /* imports: the given handle; transients: set by compile */
  /* compile */
  uint32_t version, writer, readers; /* current version, its writer, head of its readers */
  uint32_t first, last, slot;
} rg_res;

typedef struct rg_ref {
  uint32_t res;  /* RG_NONE for a handle that was not valid when declared */
  uint32_t pass;
  uint32_t version;     /* the version read, or the version this write produced */
  uint32_t producer;    /* reads: the pass that wrote that version (RG_NONE: import) */
  uint32_t next_reader; /* reads: the next reader of the same version */
} rg_ref;

typedef struct rg_pass_rec {
  uint32_t name;
  rg_pass_kind kind;
  bool side_effect, alive;
  rg_execute_fn execute;
  void *user;
  uint32_t refs, read_count, write_count; /* reads at refs[refs...], then the writes */
  uint32_t order;
  uint32_t succ_first, succ_count, indegree;
} rg_pass_rec;

typedef struct rg_edge { uint32_t from, to; } rg_edge;

typedef struct rg_slot {
  rg_texture_info info;
  uint32_t texture;
  bool busy;
} rg_slot;

typedef struct rg_pooled {
  rg_texture_info info;
  uint32_t texture;
  uint32_t last_frame; /* the frame that last claimed it */
} rg_pooled;

struct rg_graph {
  rg_backend backend;
  uint32_t max_idle;
  void (*pass_begin)(void *user, const rg_pass_context *ctx);
  void (*pass_end)(void *user, const rg_pass_context *ctx);
  void *pass_user;
  uint32_t frame, gen; /* gen: the frame's 16-bit handle generation, never 0 */
  uint32_t width, height;

  rg_pass_rec *passes;
  uint32_t pass_count, pass_cap;
  rg_res *res;
  uint32_t res_count, res_cap;
  rg_ref *refs;
  uint32_t ref_count, ref_cap;
  char *names;
  uint32_t names_len, names_cap;

  rg_edge *edges;
  uint32_t edge_count, edge_cap;
  uint32_t *succ; /* successors of each surviving pass, grouped by pass */
  uint32_t succ_cap;
  uint32_t *order, *scratch;
  uint32_t order_count, order_cap, scratch_cap;
  rg_slot *slots;
  uint32_t slot_count, slot_cap;
  rg_pooled *pool;
  uint32_t pool_count, pool_cap;
  rg_binding *bindings;
  uint32_t binding_cap;

  bool compile_called;
  bool overflowed; /* a declaration past RG_INDEX_LIMIT was refused this frame */
  rg_status status;
  rg_stats stats;
  char error[256];
  char logged[256]; /* the last message logged, so a graph broken every frame logs once */
};

/* ---- small helpers ------------------------------------------------------------------ */

static const char *name_at(const rg_graph *g, uint32_t off) { return g->names + off; }

static uint32_t intern(rg_graph *g, const char *s) {
  if (!s) s = "";
  uint32_t len = (uint32_t)strlen(s) + 1, off = g->names_len;
  TY_GROW(g->names, g->names_cap, g->names_len + len);
  memcpy(g->names + off, s, len);
  g->names_len += len;
  return off;
}

static uint32_t make_id(const rg_graph *g, uint32_t index) { return g->gen << 16 | (index + 1); }

/* The index behind a handle id, RG_NONE when it is not from this frame or out of range. */
static uint32_t index_of(const rg_graph *g, uint32_t id, uint32_t count) {
  if (id == 0 || id >> 16 != g->gen) return RG_NONE;
  uint32_t i = (id & 0xFFFF) - 1;
  return i < count ? i : RG_NONE;
}

static bool info_equal(const rg_texture_info *a, const rg_texture_info *b) {
  return a->width == b->width && a->height == b->height && a->format == b->format &&
         a->layers == b->layers && a->samples == b->samples;
}

static rg_texture_info info_normalized(rg_texture_info i) {
  if (i.format == RG_FORMAT_DEFAULT) i.format = RG_FORMAT_RGBA8;
  if (i.layers == 0) i.layers = 1;
  if (i.samples == 0) i.samples = 1;
  return i;
}

static uint32_t scaled(uint32_t frame, float scale) {
  float v = (float)frame * scale + 0.5f;
  return v < 1.0f ? 1u : (uint32_t)v;
}

static rg_status fail(rg_graph *g, rg_status status, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static rg_status fail(rg_graph *g, rg_status status, const char *code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(g->error, sizeof g->error, fmt, ap);
  va_end(ap);
  g->status = status;
  if (strcmp(g->error, g->logged) != 0) {
    ty_log(code, "%s", g->error);
    memcpy(g->logged, g->error, sizeof g->logged);
  }
  return status;
}

/* ---- lifetime ----------------------------------------------------------------------- */

rg_graph *rg_create(const rg_graph_desc *desc) {
  rg_graph *g = TY_MALLOC(sizeof *g);
  TY_ASSERT(g);
  memset(g, 0, sizeof *g);
  if (desc) {
    g->backend = desc->backend;
    g->max_idle = desc->max_idle_frames;
    g->pass_begin = desc->pass_begin;
    g->pass_end = desc->pass_end;
    g->pass_user = desc->pass_user;
  }
  if (g->max_idle == 0) g->max_idle = 3;
  rg_begin(g, 1, 1);
  return g;
}

static void destroy_pooled(rg_graph *g, const rg_pooled *p) {
  if (g->backend.destroy_texture && p->texture) g->backend.destroy_texture(g->backend.user, p->texture);
}

void rg_destroy(rg_graph *g) {
  if (!g) return;
  for (uint32_t i = 0; i < g->pool_count; i++) destroy_pooled(g, &g->pool[i]);
  TY_FREE(g->passes);
  TY_FREE(g->res);
  TY_FREE(g->refs);
  TY_FREE(g->names);
  TY_FREE(g->edges);
  TY_FREE(g->succ);
  TY_FREE(g->order);
  TY_FREE(g->scratch);
  TY_FREE(g->slots);
  TY_FREE(g->pool);
  TY_FREE(g->bindings);
  TY_FREE(g);
}

void rg_begin(rg_graph *g, uint32_t frame_width, uint32_t frame_height) {
  g->frame++;
  g->gen = g->frame % 0xFFFF + 1;
  g->width = frame_width;
  g->height = frame_height;
  g->pass_count = g->res_count = g->ref_count = g->names_len = 0;
  g->edge_count = g->order_count = g->slot_count = 0;
  g->compile_called = false;
  g->overflowed = false;
  g->status = RG_ERROR_NOT_COMPILED;
  g->error[0] = '\0';
  uint32_t pooled = g->stats.pooled;
  memset(&g->stats, 0, sizeof g->stats);
  g->stats.pooled = pooled;
}

/* ---- declaration -------------------------------------------------------------------- */

static rg_resource add_resource(rg_graph *g, const char *name, rg_texture_info info, bool imported,
                                bool read_only, uint32_t texture) {
  TY_ASSERT(!g->compile_called); /* declare everything before rg_compile */
  TY_ASSERT((unsigned)info.format < RG_FORMAT_COUNT);
  if (g->res_count >= RG_INDEX_LIMIT) { /* Lua can get here: refuse, and fail the compile */
    g->overflowed = true;
    return (rg_resource){0};
  }
  TY_GROW(g->res, g->res_cap, g->res_count + 1);
  rg_res *r = &g->res[g->res_count];
  memset(r, 0, sizeof *r);
  r->name = intern(g, name);
  r->imported = imported;
  r->read_only = read_only;
  r->info = info_normalized(info);
  r->texture = texture;
  if (imported) g->stats.imports++;
  else g->stats.transients++;
  return (rg_resource){make_id(g, g->res_count++)};
}

rg_resource rg_import(rg_graph *g, const char *name, const rg_import_desc *desc) {
  rg_import_desc d = desc ? *desc : (rg_import_desc){0};
  return add_resource(g, name, d.info, true, d.read_only, d.texture);
}

rg_resource rg_transient(rg_graph *g, const char *name, const rg_texture_desc *desc) {
  rg_texture_desc d = desc ? *desc : (rg_texture_desc){0};
  float s = d.scale > 0.0f ? d.scale : 1.0f;
  rg_texture_info info = {
      .width = d.width ? d.width : scaled(g->width, s),
      .height = d.height ? d.height : scaled(g->height, s),
      .format = d.format,
      .layers = d.layers,
      .samples = d.samples,
  };
  return add_resource(g, name, info, false, false, 0);
}

rg_resource rg_find(const rg_graph *g, const char *name) {
  for (uint32_t i = g->res_count; i-- > 0;)
    if (strcmp(name_at(g, g->res[i].name), name) == 0) return (rg_resource){make_id(g, i)};
  return (rg_resource){0};
}

const rg_texture_info *rg_resource_info(const rg_graph *g, rg_resource r) {
  uint32_t i = index_of(g, r.id, g->res_count);
  return i == RG_NONE ? NULL : &g->res[i].info;
}

static void add_ref(rg_graph *g, uint32_t pass, rg_resource r) {
  TY_GROW(g->refs, g->ref_cap, g->ref_count + 1);
  g->refs[g->ref_count++] = (rg_ref){
      .res = index_of(g, r.id, g->res_count), .pass = pass, .producer = RG_NONE, .next_reader = RG_NONE};
}

rg_pass rg_add_pass(rg_graph *g, const rg_pass_desc *desc) {
  TY_ASSERT(desc);
  TY_ASSERT(!g->compile_called); /* declare everything before rg_compile */
  TY_ASSERT(desc->read_count == 0 || desc->reads);
  if (g->pass_count >= RG_INDEX_LIMIT) {
    g->overflowed = true;
    return (rg_pass){0};
  }
  TY_ASSERT(desc->write_count == 0 || desc->writes);
  TY_GROW(g->passes, g->pass_cap, g->pass_count + 1);
  uint32_t pi = g->pass_count++;
  rg_pass_rec *p = &g->passes[pi];
  memset(p, 0, sizeof *p);
  p->name = intern(g, desc->name);
  p->kind = desc->kind;
  p->side_effect = desc->side_effect;
  p->execute = desc->execute;
  p->user = desc->user;
  p->refs = g->ref_count;
  p->read_count = desc->read_count;
  p->write_count = desc->write_count;
  p->order = RG_NONE;
  for (uint32_t i = 0; i < desc->read_count; i++) add_ref(g, pi, desc->reads[i]);
  for (uint32_t i = 0; i < desc->write_count; i++) add_ref(g, pi, desc->writes[i]);
  g->stats.passes++;
  return (rg_pass){make_id(g, pi)};
}

/* ---- compile ------------------------------------------------------------------------ */

static void add_edge(rg_graph *g, uint32_t from, uint32_t to) {
  if (from == to) return;
  TY_GROW(g->edges, g->edge_cap, g->edge_count + 1);
  g->edges[g->edge_count++] = (rg_edge){from, to};
}

/* Sweep 1: resolve which version every reference sees and record the hazards. */
static rg_status resolve_versions(rg_graph *g) {
  for (uint32_t i = 0; i < g->res_count; i++) {
    rg_res *r = &g->res[i];
    r->version = 0;
    r->writer = r->readers = RG_NONE;
    r->first = r->last = r->slot = RG_NONE;
    if (!r->imported) r->texture = 0;
  }
  for (uint32_t pi = 0; pi < g->pass_count; pi++) {
    rg_pass_rec *p = &g->passes[pi];
    const char *pname = name_at(g, p->name);
    for (uint32_t k = 0; k < p->read_count + p->write_count; k++) {
      uint32_t ri = p->refs + k;
      rg_ref *ref = &g->refs[ri];
      if (ref->res == RG_NONE)
        return fail(g, RG_ERROR_BAD_HANDLE, "RG_BAD_HANDLE",
                    "pass '%s' uses a resource handle that is not from this frame", pname);
      rg_res *r = &g->res[ref->res];
      const char *rname = name_at(g, r->name);
      if (k < p->read_count) {
        if (!r->imported && r->writer == RG_NONE)
          return fail(g, RG_ERROR_UNWRITTEN_READ, "RG_UNWRITTEN_READ",
                      "pass '%s' reads resource '%s' which no pass writes", pname, rname);
        ref->version = r->version;
        ref->producer = r->writer;
        if (r->writer != RG_NONE) add_edge(g, r->writer, pi);
        ref->next_reader = r->readers;
        r->readers = ri;
      } else {
        if (r->imported && r->read_only)
          return fail(g, RG_ERROR_READ_ONLY_WRITE, "RG_READ_ONLY_WRITE",
                      "pass '%s' writes resource '%s' which is imported read-only", pname, rname);
        if (r->writer == pi) { /* listed twice among the writes: one new version */
          ref->version = r->version;
          continue;
        }
        if (r->writer != RG_NONE) add_edge(g, r->writer, pi);
        for (uint32_t rd = r->readers; rd != RG_NONE; rd = g->refs[rd].next_reader)
          add_edge(g, g->refs[rd].pass, pi);
        r->readers = RG_NONE;
        r->writer = pi;
        ref->version = ++r->version;
      }
    }
  }
  return RG_OK;
}

/* Sweep 2: roots are side-effect passes and writers of imports; producers of what a
 * surviving pass reads survive too. */
static void cull(rg_graph *g) {
  TY_GROW(g->scratch, g->scratch_cap, g->pass_count);
  uint32_t top = 0;
  for (uint32_t pi = 0; pi < g->pass_count; pi++) {
    rg_pass_rec *p = &g->passes[pi];
    p->alive = p->side_effect;
    for (uint32_t k = p->read_count; k < p->read_count + p->write_count && !p->alive; k++)
      p->alive = g->res[g->refs[p->refs + k].res].imported;
    if (p->alive) g->scratch[top++] = pi;
  }
  while (top) {
    const rg_pass_rec *p = &g->passes[g->scratch[--top]];
    for (uint32_t k = 0; k < p->read_count; k++) {
      uint32_t prod = g->refs[p->refs + k].producer;
      if (prod != RG_NONE && !g->passes[prod].alive) {
        g->passes[prod].alive = true;
        g->scratch[top++] = prod;
      }
    }
  }
}

/* A binary min-heap of pass indices in scratch: the ready set of Kahn's algorithm. */
static void heap_push(uint32_t *h, uint32_t *n, uint32_t v) {
  uint32_t i = (*n)++;
  while (i > 0 && h[(i - 1) / 2] > v) {
    h[i] = h[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  h[i] = v;
}

static uint32_t heap_pop(uint32_t *h, uint32_t *n) {
  uint32_t top = h[0], v = h[--*n], i = 0;
  for (;;) {
    uint32_t c = 2 * i + 1;
    if (c >= *n) break;
    if (c + 1 < *n && h[c + 1] < h[c]) c++;
    if (h[c] >= v) break;
    h[i] = h[c];
    i = c;
  }
  if (*n) h[i] = v;
  return top;
}

/* Sweep 3: topological order of the survivors, declaration order among independents. */
static rg_status order(rg_graph *g) {
  uint32_t alive = 0;
  for (uint32_t pi = 0; pi < g->pass_count; pi++) {
    rg_pass_rec *p = &g->passes[pi];
    p->succ_first = p->succ_count = p->indegree = 0;
    p->order = RG_NONE;
    alive += p->alive;
  }
  g->stats.culled = g->pass_count - alive;
  /* successor lists grouped by pass: count, prefix-sum, fill */
  for (uint32_t e = 0; e < g->edge_count; e++) {
    const rg_edge *ed = &g->edges[e];
    if (g->passes[ed->from].alive && g->passes[ed->to].alive) g->passes[ed->from].succ_count++;
  }
  uint32_t total = 0;
  for (uint32_t pi = 0; pi < g->pass_count; pi++) {
    g->passes[pi].succ_first = total;
    total += g->passes[pi].succ_count;
    g->passes[pi].succ_count = 0;
  }
  TY_GROW(g->succ, g->succ_cap, total);
  for (uint32_t e = 0; e < g->edge_count; e++) {
    const rg_edge *ed = &g->edges[e];
    if (!g->passes[ed->from].alive || !g->passes[ed->to].alive) continue;
    rg_pass_rec *from = &g->passes[ed->from];
    g->succ[from->succ_first + from->succ_count++] = ed->to;
    g->passes[ed->to].indegree++;
  }
  TY_GROW(g->order, g->order_cap, alive);
  TY_GROW(g->scratch, g->scratch_cap, g->pass_count);
  uint32_t ready = 0;
  for (uint32_t pi = 0; pi < g->pass_count; pi++)
    if (g->passes[pi].alive && g->passes[pi].indegree == 0) heap_push(g->scratch, &ready, pi);
  g->order_count = 0;
  while (ready) {
    uint32_t pi = heap_pop(g->scratch, &ready);
    rg_pass_rec *p = &g->passes[pi];
    p->order = g->order_count;
    g->order[g->order_count++] = pi;
    for (uint32_t s = 0; s < p->succ_count; s++) {
      uint32_t to = g->succ[p->succ_first + s];
      if (--g->passes[to].indegree == 0) heap_push(g->scratch, &ready, to);
    }
  }
  if (g->order_count != alive) {
    for (uint32_t pi = 0; pi < g->pass_count; pi++)
      if (g->passes[pi].alive && g->passes[pi].order == RG_NONE)
        return fail(g, RG_ERROR_CYCLE, "RG_CYCLE", "render graph has a cycle through pass '%s'",
                    name_at(g, g->passes[pi].name));
  }
  return RG_OK;
}

/* Sweep 4: lifetimes in the final order, then greedy slot assignment. */
static void alias(rg_graph *g) {
  for (uint32_t pos = 0; pos < g->order_count; pos++) {
    const rg_pass_rec *p = &g->passes[g->order[pos]];
    for (uint32_t k = 0; k < p->read_count + p->write_count; k++) {
      rg_res *r = &g->res[g->refs[p->refs + k].res];
      if (r->first == RG_NONE) r->first = pos;
      r->last = pos;
    }
  }
  for (uint32_t pos = 0; pos < g->order_count; pos++) {
    const rg_pass_rec *p = &g->passes[g->order[pos]];
    uint32_t n = p->read_count + p->write_count;
    for (uint32_t k = 0; k < n; k++) {
      rg_res *r = &g->res[g->refs[p->refs + k].res];
      if (r->imported || r->slot != RG_NONE) continue;
      uint32_t s = 0;
      while (s < g->slot_count && (g->slots[s].busy || !info_equal(&g->slots[s].info, &r->info))) s++;
      if (s == g->slot_count) {
        TY_GROW(g->slots, g->slot_cap, g->slot_count + 1);
        g->slots[g->slot_count++] = (rg_slot){.info = r->info};
      }
      g->slots[s].busy = true;
      r->slot = s;
    }
    /* free only after every first use here is placed: resources meeting in one pass overlap */
    for (uint32_t k = 0; k < n; k++) {
      rg_res *r = &g->res[g->refs[p->refs + k].res];
      if (!r->imported && r->last == pos) g->slots[r->slot].busy = false;
    }
  }
  g->stats.physical = g->slot_count;
}

/* Sweep 5: a texture for every slot, reusing last frames' where descriptions match. */
static rg_status claim_textures(rg_graph *g) {
  rg_status status = RG_OK;
  for (uint32_t s = 0; s < g->slot_count && status == RG_OK; s++) {
    rg_slot *slot = &g->slots[s];
    uint32_t i = 0;
    while (i < g->pool_count &&
           (g->pool[i].last_frame == g->frame || !info_equal(&g->pool[i].info, &slot->info)))
      i++;
    if (i == g->pool_count) {
      uint32_t tex = 0;
      if (g->backend.create_texture) {
        tex = g->backend.create_texture(g->backend.user, &slot->info);
        if (!tex) {
          status = fail(g, RG_ERROR_BACKEND, "RG_BACKEND",
                        "the backend could not create a %ux%u %s texture (%u layers, %u samples)",
                        slot->info.width, slot->info.height, rg_format_name(slot->info.format),
                        slot->info.layers, slot->info.samples);
          break;
        }
        g->stats.created++;
      }
      TY_GROW(g->pool, g->pool_cap, g->pool_count + 1);
      g->pool[g->pool_count++] = (rg_pooled){.info = slot->info, .texture = tex};
    }
    g->pool[i].last_frame = g->frame;
    slot->texture = g->pool[i].texture;
  }
  /* drop idle textures, keeping the pool's order so equal frames claim equal textures */
  uint32_t kept = 0;
  for (uint32_t i = 0; i < g->pool_count; i++) {
    if (g->frame - g->pool[i].last_frame >= g->max_idle) {
      destroy_pooled(g, &g->pool[i]);
      if (g->backend.destroy_texture && g->pool[i].texture) g->stats.destroyed++;
    } else {
      g->pool[kept++] = g->pool[i];
    }
  }
  g->pool_count = kept;
  g->stats.pooled = kept;
  if (status != RG_OK) return status;
  for (uint32_t i = 0; i < g->res_count; i++)
    if (!g->res[i].imported && g->res[i].slot != RG_NONE)
      g->res[i].texture = g->slots[g->res[i].slot].texture;
  return RG_OK;
}

rg_status rg_compile(rg_graph *g) {
  TY_ASSERT(!g->compile_called); /* once per frame: rg_begin starts the next */
  g->compile_called = true;
  g->error[0] = '\0';
  if (g->overflowed)
    return fail(g, RG_ERROR_BAD_HANDLE, "render_graph_overflow",
                "more than %u resources or passes were declared this frame", (unsigned)RG_INDEX_LIMIT);
  rg_status st = resolve_versions(g);
  if (st != RG_OK) return st;
  cull(g);
  if ((st = order(g)) != RG_OK) return st;
  alias(g);
  if ((st = claim_textures(g)) != RG_OK) return st;
  g->status = RG_OK;
  g->logged[0] = '\0';
  return RG_OK;
}

const char *rg_error(const rg_graph *g) { return g->error; }

/* ---- execute ------------------------------------------------------------------------ */

static rg_binding binding_of(const rg_graph *g, uint32_t res) {
  const rg_res *r = &g->res[res];
  return (rg_binding){
      .resource = {make_id(g, res)}, .slot = r->slot, .texture = r->texture, .info = r->info};
}

rg_status rg_execute(rg_graph *g) {
  if (g->status != RG_OK) return RG_ERROR_NOT_COMPILED;
  for (uint32_t pos = 0; pos < g->order_count; pos++) {
    const rg_pass_rec *p = &g->passes[g->order[pos]];
    if (!p->execute) continue;
    uint32_t n = p->read_count + p->write_count;
    TY_GROW(g->bindings, g->binding_cap, n);
    for (uint32_t k = 0; k < n; k++) g->bindings[k] = binding_of(g, g->refs[p->refs + k].res);
    rg_pass_context ctx = {
        .name = name_at(g, p->name),
        .kind = p->kind,
        .frame_width = g->width,
        .frame_height = g->height,
        .reads = g->bindings,
        .read_count = p->read_count,
        .writes = g->bindings + p->read_count,
        .write_count = p->write_count,
    };
    if (g->pass_begin) g->pass_begin(g->pass_user, &ctx);
    p->execute(&ctx, p->user);
    if (g->pass_end) g->pass_end(g->pass_user, &ctx);
  }
  return RG_OK;
}

uint32_t rg_context_texture(const rg_pass_context *ctx, rg_resource r) {
  for (uint32_t i = 0; i < ctx->read_count; i++)
    if (ctx->reads[i].resource.id == r.id) return ctx->reads[i].texture;
  for (uint32_t i = 0; i < ctx->write_count; i++)
    if (ctx->writes[i].resource.id == r.id) return ctx->writes[i].texture;
  return 0;
}

/* ---- queries ------------------------------------------------------------------------ */

uint32_t rg_pass_order(const rg_graph *g, rg_pass p) {
  uint32_t i = index_of(g, p.id, g->pass_count);
  return i == RG_NONE || g->status != RG_OK ? RG_NONE : g->passes[i].order;
}

bool rg_pass_culled(const rg_graph *g, rg_pass p) {
  uint32_t i = index_of(g, p.id, g->pass_count);
  return i != RG_NONE && g->status == RG_OK && !g->passes[i].alive;
}

uint32_t rg_resource_slot(const rg_graph *g, rg_resource r) {
  uint32_t i = index_of(g, r.id, g->res_count);
  return i == RG_NONE || g->status != RG_OK ? RG_NONE : g->res[i].slot;
}

uint32_t rg_resource_texture(const rg_graph *g, rg_resource r) {
  uint32_t i = index_of(g, r.id, g->res_count);
  return i == RG_NONE || g->status != RG_OK ? 0 : g->res[i].texture;
}

bool rg_resource_lifetime(const rg_graph *g, rg_resource r, uint32_t *first, uint32_t *last) {
  uint32_t i = index_of(g, r.id, g->res_count);
  if (i == RG_NONE || g->status != RG_OK || g->res[i].first == RG_NONE) return false;
  if (first) *first = g->res[i].first;
  if (last) *last = g->res[i].last;
  return true;
}

rg_stats rg_get_stats(const rg_graph *g) { return g->stats; }

const char *rg_format_name(rg_format f) {
  static const char *const names[RG_FORMAT_COUNT] = {
      [RG_FORMAT_DEFAULT] = "RGBA8",       [RG_FORMAT_RGBA8] = "RGBA8",
      [RG_FORMAT_SRGB8_A8] = "SRGB8_A8",   [RG_FORMAT_RGBA16F] = "RGBA16F",
      [RG_FORMAT_RGBA32F] = "RGBA32F",     [RG_FORMAT_R11G11B10F] = "R11G11B10F",
      [RG_FORMAT_RGB10_A2] = "RGB10_A2",   [RG_FORMAT_R8] = "R8",
      [RG_FORMAT_RG8] = "RG8",             [RG_FORMAT_R16F] = "R16F",
      [RG_FORMAT_RG16F] = "RG16F",         [RG_FORMAT_R32F] = "R32F",
      [RG_FORMAT_RG32F] = "RG32F",         [RG_FORMAT_R32UI] = "R32UI",
      [RG_FORMAT_DEPTH16] = "DEPTH16",     [RG_FORMAT_DEPTH24S8] = "DEPTH24S8",
      [RG_FORMAT_DEPTH32F] = "DEPTH32F",
  };
  return (unsigned)f < RG_FORMAT_COUNT ? names[f] : "?";
}

/* ---- dump --------------------------------------------------------------------------- */

typedef struct rg_out {
  char *buf;
  size_t size, len;
} rg_out;

static void out(rg_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void out(rg_out *o, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  size_t room = o->len < o->size ? o->size - o->len : 0;
  int n = vsnprintf(room ? o->buf + o->len : NULL, room, fmt, ap);
  va_end(ap);
  if (n > 0) o->len += (size_t)n;
}

static void out_refs(rg_out *o, const rg_graph *g, const rg_pass_rec *p, uint32_t from, uint32_t to,
                     bool versions) {
  if (from == to) out(o, " -");
  for (uint32_t k = from; k < to; k++) {
    const rg_ref *ref = &g->refs[p->refs + k];
    if (ref->res == RG_NONE) out(o, " <bad handle>");
    else if (versions) out(o, " %s@%u", name_at(g, g->res[ref->res].name), ref->version);
    else out(o, " %s", name_at(g, g->res[ref->res].name));
  }
}

size_t rg_dump(const rg_graph *g, char *buf, size_t size) {
  rg_out o = {buf, size, 0};
  if (size) buf[0] = '\0';
  bool ok = g->status == RG_OK;
  out(&o, "render graph %ux%u: %u passes", g->width, g->height, g->pass_count);
  if (ok) out(&o, " (%u culled), %u transients in %u textures\n", g->stats.culled, g->stats.transients,
              g->stats.physical);
  else out(&o, ", not compiled%s%s\n", g->error[0] ? ": " : "", g->error);
  for (uint32_t pi = 0; pi < g->pass_count; pi++) {
    const rg_pass_rec *p = &g->passes[pi];
    if (!ok) out(&o, "   ? ");
    else if (p->alive) out(&o, "  %2u ", p->order);
    else out(&o, "  -- ");
    out(&o, "%-20s %-7s%s%s reads:", name_at(g, p->name),
        p->kind == RG_PASS_COMPUTE ? "compute" : "raster", ok && !p->alive ? " culled" : "",
        p->side_effect ? " side-effect" : "");
    out_refs(&o, g, p, 0, p->read_count, ok);
    out(&o, "  writes:");
    out_refs(&o, g, p, p->read_count, p->read_count + p->write_count, ok);
    out(&o, "\n");
  }
  for (uint32_t i = 0; i < g->res_count; i++) {
    const rg_res *r = &g->res[i];
    out(&o, "  %-20s %-9s %ux%u %s", name_at(g, r->name),
        r->imported ? (r->read_only ? "import-ro" : "import") : "transient", r->info.width,
        r->info.height, rg_format_name(r->info.format));
    if (r->info.layers > 1) out(&o, " x%u layers", r->info.layers);
    if (r->info.samples > 1) out(&o, " %ux msaa", r->info.samples);
    if (ok && r->first != RG_NONE) {
      out(&o, "  uses %u..%u", r->first, r->last);
      if (!r->imported) out(&o, "  slot %u", r->slot);
    } else if (ok) {
      out(&o, "  unused");
    }
    out(&o, "\n");
  }
  return o.len;
}
