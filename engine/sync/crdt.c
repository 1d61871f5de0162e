/* engine/sync/crdt.c: the CRDT state: per component an open-addressing table from entity id
 * to {timestamp, bytes or tombstone}, the removed-version of every entity number, and the
 * rules that apply received messages and make local writes (see crdt.h). */
#include "crdt.h"

#include <string.h>

/* Data up to this size lives inside the entry (a Transform is 44), so an entry is one
 * 64-byte cache line and a steady stream of puts touches no allocator. */
#define CRDT_INLINE 48
#define CRDT_MIN_SLOTS 8u
#define CRDT_PAGE 256u /* entity numbers per page of removed versions */

typedef struct crdt_entry {
  uint32_t entity;
  uint32_t timestamp;
  uint32_t len;   /* data bytes, when live */
  uint8_t used;   /* the slot holds an entry */
  uint8_t live;   /* data, not a tombstone */
  uint8_t heap;   /* data is in u.big (at most 4x len, so caps on len bound memory), else in u.small */
  uint8_t pad_;
  union {
    uint8_t small[CRDT_INLINE];
    struct {
      uint8_t *ptr;
      uint32_t cap;
    } big;
  } u;
} crdt_entry;

_Static_assert(sizeof(crdt_entry) == 64, "an entry is meant to fill one cache line");

/* The highest removed version of 256 consecutive entity numbers; version[i] is valid when
 * bit i is set. Pages are made on a number's first removal, so the whole 65536-number
 * range costs at most 256 pages (136 KiB) and a state that removes little costs little. */
typedef struct crdt_removed_page {
  uint64_t bits[CRDT_PAGE / 64];
  uint16_t version[CRDT_PAGE];
} crdt_removed_page;

/* One component's entries: linear probing, power-of-two size, at most half full. */
typedef struct crdt_table {
  uint32_t component;
  uint32_t count;
  uint32_t mask;  /* slots - 1 */
  uint32_t shift; /* 32 - log2(slots), for the multiplicative hash */
  crdt_entry *slots;
} crdt_table;

/* A table's place in component id order. */
typedef struct crdt_order {
  uint32_t component;
  uint32_t table;
} crdt_order;

struct ty_crdt_state {
  ty_crdt_desc desc;
  ty_crdt_stats stats;
  uint32_t nentries; /* stored pairs, tombstones included: what desc.max_entries caps */
  uint64_t nbytes;   /* live data bytes: what desc.max_bytes caps */
  bool capped;       /* desc has max_entries or max_bytes: uncapped states skip the checks */
  crdt_table *tables; /* in creation order: an index into it never changes */
  uint32_t ntables, tables_cap;
  uint32_t *index;    /* component id -> table: slots hold table index + 1, 0 is empty */
  uint32_t index_mask;
  uint32_t last;      /* index of the last table used: streams of one component skip the lookup */
  /* The tables sorted by component id, for output that must not depend on arrival order;
   * sorted again only after a table was added. */
  crdt_order *order;
  uint32_t order_cap;
  bool order_stale;
  /* Removed entities: a u16 per entity number, in pages by number / 256. */
  crdt_removed_page *removed[65536 / CRDT_PAGE];
  /* DELETE_ENTITY messages of the batch being applied; they run after the rest. */
  uint32_t *pending;
  uint32_t npending, pending_cap;
  /* Snapshot scratch: entries of one table, sorted by entity. */
  const crdt_entry **sorted;
  uint32_t sorted_cap;
};

static void *xcalloc(size_t n, size_t size) {
  void *p = TY_MALLOC(n * size);
  if (!p) {
    fprintf(stderr, "tycho: out of memory (%zu bytes for the crdt state)\n", n * size);
    abort();
  }
  memset(p, 0, n * size);
  return p;
}

static uint32_t hash32(uint32_t x, uint32_t shift) { return (x * 0x9E3779B1u) >> shift; }

static uint32_t log2u(uint32_t x) {
  uint32_t r = 0;
  while (x >>= 1) r++;
  return r;
}

/* ---- entries ---- */

static const uint8_t *entry_data(const crdt_entry *e) { return e->heap ? e->u.big.ptr : e->u.small; }

static void entry_free(crdt_entry *e) {
  if (e->heap) TY_FREE(e->u.big.ptr);
  e->heap = 0;
}

/* Stores data in e, reusing its heap buffer when the bytes fit in it and fill at least a
 * quarter of it: a steady stream of same-size writes touches no allocator, while the memory
 * an entry holds stays within a small factor of the length that the caps count. */
static void entry_set(crdt_entry *e, const uint8_t *data, uint32_t len) {
  uint8_t *dst;
  if (e->heap && (len <= CRDT_INLINE || len > e->u.big.cap || len < e->u.big.cap / 4)) entry_free(e);
  if (e->heap) {
    dst = e->u.big.ptr;
  } else if (len <= CRDT_INLINE) {
    dst = e->u.small;
  } else {
    uint8_t *p = TY_MALLOC(len);
    if (!p) {
      fprintf(stderr, "tycho: out of memory (%u bytes of component data)\n", len);
      abort();
    }
    e->heap = 1;
    e->u.big.ptr = p;
    e->u.big.cap = len;
    dst = p;
  }
  if (len) memcpy(dst, data, len);
  e->len = len;
  e->live = 1;
}

/* Whether writing e (NULL: a new entry) to hold len live bytes (a tombstone when !live) stays
 * within desc.max_entries and desc.max_bytes. A write that does not grow always fits. */
static bool fits(const ty_crdt_state *s, const crdt_entry *e, bool live, uint32_t len) {
  if (!s->capped) return true;
  if (!e && s->desc.max_entries && s->nentries >= s->desc.max_entries) return false;
  uint64_t was = e && e->live ? e->len : 0, now = live ? len : 0;
  return now <= was || !s->desc.max_bytes || s->nbytes - was + now <= s->desc.max_bytes;
}

/* entry_set, keeping the byte total. */
static void entry_store(ty_crdt_state *s, crdt_entry *e, const uint8_t *data, uint32_t len) {
  if (e->live) s->nbytes -= e->len;
  entry_set(e, data, len);
  s->nbytes += len;
}

/* Makes e a tombstone (its timestamp is the caller's), giving its data back. */
static void entry_tombstone(ty_crdt_state *s, crdt_entry *e) {
  if (e->live) s->nbytes -= e->len;
  entry_free(e);
  e->live = 0;
  e->len = 0;
}

/* The conflict order on data: a tombstone (NULL) is below any bytes, longer bytes are above
 * shorter ones, then the first differing byte decides. Returns <0, 0 or >0 as a vs b. */
static int data_compare(const uint8_t *a, uint32_t alen, const uint8_t *b, uint32_t blen) {
  if (!a || !b) return (a != NULL) - (b != NULL);
  if (alen != blen) return alen > blen ? 1 : -1;
  return alen ? memcmp(a, b, alen) : 0; /* memcmp compares as unsigned char */
}

/* ---- tables ---- */

static crdt_entry *table_find(const crdt_table *t, uint32_t entity) {
  if (!t->slots) return NULL;
  for (uint32_t i = hash32(entity, t->shift);; i = (i + 1) & t->mask) {
    crdt_entry *e = &t->slots[i];
    if (!e->used) return NULL;
    if (e->entity == entity) return e;
  }
}

static void table_resize(crdt_table *t, uint32_t nslots) {
  crdt_entry *old = t->slots;
  uint32_t oldn = old ? t->mask + 1 : 0;
  t->slots = xcalloc(nslots, sizeof *t->slots);
  t->mask = nslots - 1;
  t->shift = 32 - log2u(nslots);
  for (uint32_t i = 0; i < oldn; i++) {
    if (!old[i].used) continue;
    uint32_t j = hash32(old[i].entity, t->shift);
    while (t->slots[j].used) j = (j + 1) & t->mask;
    t->slots[j] = old[i]; /* moves the heap pointer with it */
  }
  TY_FREE(old);
}

/* Adds an empty entry (used, no timestamp or data yet) for entity, which t must not hold. */
static crdt_entry *table_add(ty_crdt_state *s, crdt_table *t, uint32_t entity) {
  crdt_entry *e;
  if (!t->slots || (t->count + 1) * 2 > t->mask + 1) table_resize(t, t->slots ? (t->mask + 1) * 2 : CRDT_MIN_SLOTS);
  uint32_t i = hash32(entity, t->shift);
  while (t->slots[i].used) i = (i + 1) & t->mask;
  e = &t->slots[i];
  memset(e, 0, sizeof *e);
  e->used = 1;
  e->entity = entity;
  t->count++;
  s->nentries++;
  return e;
}

/* Removes e (a slot of t) by shifting later members of its probe run back, so lookups never
 * need deletion markers. A table shrinks as it empties (freed at 0, halved below 1/8 full),
 * so the slots a state keeps follow what it stores now, not the most it ever stored. */
static void table_remove(ty_crdt_state *s, crdt_table *t, crdt_entry *e) {
  if (e->live) s->nbytes -= e->len;
  s->nentries--;
  entry_free(e);
  uint32_t i = (uint32_t)(e - t->slots);
  for (uint32_t j = (i + 1) & t->mask;; j = (j + 1) & t->mask) {
    crdt_entry *f = &t->slots[j];
    if (!f->used) break;
    uint32_t home = hash32(f->entity, t->shift);
    /* f may move to i when its home is not in (i, j] cyclically. */
    bool stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
    if (stays) continue;
    t->slots[i] = *f;
    i = j;
  }
  memset(&t->slots[i], 0, sizeof t->slots[i]);
  t->count--;
  uint32_t nslots = t->mask + 1;
  if (t->count == 0) {
    TY_FREE(t->slots);
    t->slots = NULL;
    t->mask = 0;
  } else if (t->count * 8 < nslots && nslots > CRDT_MIN_SLOTS) {
    table_resize(t, nslots / 2);
  }
}

static void index_put(ty_crdt_state *s, uint32_t k) {
  uint32_t i = hash32(s->tables[k].component, 0) & s->index_mask;
  while (s->index[i]) i = (i + 1) & s->index_mask;
  s->index[i] = k + 1;
}

/* Makes room for one more table in the index, doubling it (and re-placing all) when it
 * would pass half full, so adding n tables costs O(n) overall. */
static void index_reserve(ty_crdt_state *s) {
  if (s->index && (s->ntables + 1) * 2 <= s->index_mask + 1) return;
  uint32_t n = s->index ? (s->index_mask + 1) * 2 : CRDT_MIN_SLOTS;
  TY_FREE(s->index);
  s->index = xcalloc(n, sizeof *s->index);
  s->index_mask = n - 1;
  for (uint32_t k = 0; k < s->ntables; k++) index_put(s, k);
}

static crdt_table *table_lookup(ty_crdt_state *s, uint32_t component) {
  if (s->last < s->ntables && s->tables[s->last].component == component) return &s->tables[s->last];
  if (!s->index) return NULL;
  for (uint32_t i = hash32(component, 0) & s->index_mask;; i = (i + 1) & s->index_mask) {
    uint32_t k = s->index[i];
    if (!k) return NULL;
    if (s->tables[k - 1].component == component) {
      s->last = k - 1;
      return &s->tables[k - 1];
    }
  }
}

/* The table for component, made if needed; NULL when the state already holds
 * desc.max_components components. */
static crdt_table *table_get(ty_crdt_state *s, uint32_t component) {
  crdt_table *t = table_lookup(s, component);
  if (t) return t;
  if (s->ntables >= s->desc.max_components) return NULL;
  index_reserve(s);
  TY_GROW(s->tables, s->tables_cap, s->ntables + 1);
  uint32_t k = s->ntables++;
  memset(&s->tables[k], 0, sizeof s->tables[k]);
  s->tables[k].component = component;
  index_put(s, k);
  s->last = k;
  s->order_stale = true;
  return &s->tables[k];
}

static int order_cmp(const void *a, const void *b) {
  uint32_t x = ((const crdt_order *)a)->component, y = ((const crdt_order *)b)->component;
  return (x > y) - (x < y);
}

/* The tables by component id. */
static const crdt_order *table_order(ty_crdt_state *s) {
  if (s->order_stale) {
    TY_GROW(s->order, s->order_cap, s->ntables);
    for (uint32_t k = 0; k < s->ntables; k++) s->order[k] = (crdt_order){s->tables[k].component, k};
    qsort(s->order, s->ntables, sizeof *s->order, order_cmp);
    s->order_stale = false;
  }
  return s->order;
}

/* const lookup for ty_crdt_get (no last-table cache update). */
static const crdt_table *table_peek(const ty_crdt_state *s, uint32_t component) {
  if (!s->index) return NULL;
  for (uint32_t i = hash32(component, 0) & s->index_mask;; i = (i + 1) & s->index_mask) {
    uint32_t k = s->index[i];
    if (!k) return NULL;
    if (s->tables[k - 1].component == component) return &s->tables[k - 1];
  }
}

/* ---- removed entities ---- */

static bool number_removed(const ty_crdt_state *s, uint32_t n, uint32_t *version) {
  const crdt_removed_page *p = s->removed[n / CRDT_PAGE];
  uint32_t i = n % CRDT_PAGE;
  if (!p || !(p->bits[i / 64] >> (i % 64) & 1)) return false;
  *version = p->version[i];
  return true;
}

bool ty_crdt_removed(const ty_crdt_state *s, uint32_t entity) {
  uint32_t n = ty_crdt_entity_number(entity), rv;
  return n >= TY_CRDT_RESERVED_ENTITIES && number_removed(s, n, &rv) && rv >= ty_crdt_entity_version(entity);
}

/* Drops every entry of entity from every table. */
static void purge_entity(ty_crdt_state *s, uint32_t entity) {
  for (uint32_t k = 0; k < s->ntables; k++) {
    crdt_entry *e = table_find(&s->tables[k], entity);
    if (e) table_remove(s, &s->tables[k], e);
  }
}

/* Marks versions <= version of number n removed. Returns false when they already were.
 *
 * Invariant this keeps: a number >= 512 has entries at one version only, the one right
 * above its removed version (0 when none was removed), because storing (n, v) first marks
 * (n, v - 1) removed. So raising the removed version purges at most that one entity. */
static bool mark_removed(ty_crdt_state *s, uint32_t n, uint32_t version) {
  uint32_t rv;
  bool had = number_removed(s, n, &rv);
  if (had && rv >= version) return false;
  crdt_removed_page **p = &s->removed[n / CRDT_PAGE];
  if (!*p) *p = xcalloc(1, sizeof **p);
  uint32_t i = n % CRDT_PAGE, live = had ? rv + 1 : 0;
  (*p)->version[i] = (uint16_t)version;
  (*p)->bits[i / 64] |= 1ull << (i % 64);
  if (live <= version) purge_entity(s, ty_crdt_entity(n, live));
  return true;
}

/* What every message about an entity does first (@dcl/ecs receiveMessages): refuse it when
 * the entity is removed; otherwise a version v > 0 retires (n, v - 1). */
static bool entity_touch(ty_crdt_state *s, uint32_t entity) {
  uint32_t n = ty_crdt_entity_number(entity), v = ty_crdt_entity_version(entity), rv;
  if (n < TY_CRDT_RESERVED_ENTITIES) return true;
  if (number_removed(s, n, &rv) && rv >= v) return false;
  if (v > 0) mark_removed(s, n, v - 1);
  return true;
}

/* ---- create / destroy ---- */

ty_crdt_state *ty_crdt_create(const ty_crdt_desc *desc) {
  ty_crdt_state *s = xcalloc(1, sizeof *s);
  if (desc) s->desc = *desc;
  if (!s->desc.max_message) s->desc.max_message = TY_CRDT_DEFAULT_MAX_MESSAGE;
  if (!s->desc.max_components) s->desc.max_components = TY_CRDT_DEFAULT_MAX_COMPONENTS;
  s->capped = s->desc.max_entries || s->desc.max_bytes;
  return s;
}

void ty_crdt_destroy(ty_crdt_state *s) {
  if (!s) return;
  for (uint32_t k = 0; k < s->ntables; k++) {
    crdt_table *t = &s->tables[k];
    for (uint32_t i = 0; t->slots && i <= t->mask; i++)
      if (t->slots[i].used) entry_free(&t->slots[i]);
    TY_FREE(t->slots);
  }
  TY_FREE(s->tables);
  TY_FREE(s->index);
  for (uint32_t k = 0; k < sizeof s->removed / sizeof *s->removed; k++) TY_FREE(s->removed[k]);
  TY_FREE(s->pending);
  TY_FREE(s->sorted);
  TY_FREE(s->order);
  TY_FREE(s);
}

const ty_crdt_stats *ty_crdt_get_stats(const ty_crdt_state *s) { return &s->stats; }

uint32_t ty_crdt_count(const ty_crdt_state *s) { return s->nentries; }

uint64_t ty_crdt_bytes(const ty_crdt_state *s) { return s->nbytes; }

/* ---- applying received messages ---- */

typedef enum crdt_outcome { OUT_ACCEPTED, OUT_UNCHANGED, OUT_STALE, OUT_FULL, OUT_LIMIT } crdt_outcome;

static void write_state(ty_crdt_buf *out, const crdt_entry *e, uint32_t component) {
  if (e->live) ty_crdt_write_put(out, e->entity, component, e->timestamp, entry_data(e), e->len);
  else ty_crdt_write_delete_component(out, e->entity, component, e->timestamp);
}

/* PUT_COMPONENT (data != NULL) or DELETE_COMPONENT (data == NULL): @dcl/ecs's
 * crdtRuleForCurrentState. */
static crdt_outcome apply_lww(ty_crdt_state *s, const ty_crdt_msg *m, const uint8_t *data, ty_crdt_buf *corrections) {
  crdt_table *t = table_lookup(s, m->component);
  crdt_entry *e = t ? table_find(t, m->entity) : NULL;
  if (e) {
    if (m->timestamp < e->timestamp) goto stale;
    if (m->timestamp == e->timestamp) {
      if (!data && !e->live) return OUT_UNCHANGED;
      int c = data_compare(e->live ? entry_data(e) : NULL, e->len, data, m->data_len);
      if (c == 0) return OUT_UNCHANGED;
      if (c > 0) goto stale;
    }
  }
  /* The message wins: only now may the caps refuse it, so a stale one is still corrected. */
  if (!fits(s, e, data != NULL, m->data_len)) return OUT_LIMIT;
  if (!e) {
    if (!t && !(t = table_get(s, m->component))) return OUT_FULL;
    e = table_add(s, t, m->entity);
  }
  e->timestamp = m->timestamp;
  if (data) entry_store(s, e, data, m->data_len);
  else entry_tombstone(s, e);
  return OUT_ACCEPTED;
stale:
  if (corrections) write_state(corrections, e, m->component);
  return OUT_STALE;
}

/* DELETE_ENTITY, after the batch's other messages. Reserved numbers are never marked
 * removed; each of their components that held data becomes a tombstone one tick later:
 * @dcl/ecs's entityDeleted marks it dirty, and its next send turns that into a
 * DELETE_COMPONENT at timestamp + 1 (which peers that saw the same DELETE_ENTITY already
 * hold, so it need not be sent from here). */
static bool apply_delete_entity(ty_crdt_state *s, uint32_t entity) {
  uint32_t n = ty_crdt_entity_number(entity);
  if (n >= TY_CRDT_RESERVED_ENTITIES) return mark_removed(s, n, ty_crdt_entity_version(entity));
  bool changed = false;
  for (uint32_t k = 0; k < s->ntables; k++) {
    crdt_entry *e = table_find(&s->tables[k], entity);
    if (e && e->live) {
      entry_tombstone(s, e);
      if (e->timestamp != UINT32_MAX) e->timestamp++;
      changed = true;
    }
  }
  return changed;
}

static void tally(ty_crdt_state *s, crdt_outcome o) {
  if (o == OUT_ACCEPTED) s->stats.accepted++;
  else if (o == OUT_UNCHANGED) s->stats.unchanged++;
  else if (o == OUT_STALE) s->stats.stale++;
  else if (o == OUT_FULL) s->stats.component_limit++;
  else s->stats.state_limit++;
}

uint32_t ty_crdt_apply(ty_crdt_state *s, const void *buf, size_t len, ty_crdt_buf *corrections) {
  const uint8_t *p = buf;
  size_t off = 0;
  uint32_t applied = 0, refused = 0;
  size_t first_at = 0;
  ty_crdt_reject first_why = TY_CRDT_REJECT_TRUNCATED;
  s->npending = 0;
  while (off < len) { /* not `for (;;)`: buf may be NULL when len is 0 */
    ty_crdt_msg m;
    uint32_t used;
    ty_crdt_reject why;
    ty_crdt_decode_status st = ty_crdt_decode(p + off, len - off, s->desc.max_message, &m, &used, &why);
    if (st == TY_CRDT_DECODE_END) break;
    if (st != TY_CRDT_DECODED) {
      s->stats.rejected[why]++;
      s->stats.malformed++;
      if (!refused++) first_at = off, first_why = why;
      if (st == TY_CRDT_DECODE_STOP) break;
      off += used;
      continue;
    }
    off += used;
    s->stats.messages++;
    switch (m.type) {
    case TY_CRDT_MSG_PUT_COMPONENT:
    case TY_CRDT_MSG_DELETE_COMPONENT: {
      if (!entity_touch(s, m.entity)) {
        s->stats.removed_entity++;
        break;
      }
      crdt_outcome o = apply_lww(s, &m, m.type == TY_CRDT_MSG_PUT_COMPONENT ? m.data : NULL, corrections);
      tally(s, o);
      applied += o == OUT_ACCEPTED;
      break;
    }
    case TY_CRDT_MSG_DELETE_ENTITY:
      TY_GROW(s->pending, s->pending_cap, s->npending + 1);
      s->pending[s->npending++] = m.entity;
      break;
    case TY_CRDT_MSG_APPEND_VALUE:
      /* Still an entity sighting in @dcl/ecs, even though no LWW component takes it. */
      if (!entity_touch(s, m.entity)) s->stats.removed_entity++;
      else s->stats.append_ignored++;
      break;
    case TY_CRDT_MSG_PUT_COMPONENT_NETWORK:
    case TY_CRDT_MSG_DELETE_COMPONENT_NETWORK:
    case TY_CRDT_MSG_DELETE_ENTITY_NETWORK:
      s->stats.network_ignored++;
      break;
    default:
      s->stats.unknown_type++;
      break;
    }
  }
  for (uint32_t i = 0; i < s->npending; i++) {
    crdt_outcome o = apply_delete_entity(s, s->pending[i]) ? OUT_ACCEPTED : OUT_UNCHANGED;
    tally(s, o);
    applied += o == OUT_ACCEPTED;
  }
  s->npending = 0;
  if (refused && !s->desc.quiet)
    ty_log("crdt_malformed", "%u message(s) refused, the first at byte %zu: %s", refused, first_at,
           ty_crdt_reject_name(first_why));
  return applied;
}

/* ---- local writes ---- */

/* The timestamp a local write of e (NULL: a new entry) uses, or false when it cannot be raised. */
static bool next_timestamp(const crdt_entry *e, uint32_t *ts) {
  if (!e) {
    *ts = 1;
    return true;
  }
  if (e->timestamp == UINT32_MAX) return false;
  *ts = e->timestamp + 1;
  return true;
}

ty_crdt_status ty_crdt_put(ty_crdt_state *s, uint32_t entity, uint32_t component, const void *data, uint32_t len,
                           ty_crdt_buf *out) {
  TY_ASSERT(data || len == 0);
  if (!entity_touch(s, entity)) return TY_CRDT_REMOVED;
  crdt_table *t = table_lookup(s, component);
  crdt_entry *e = t ? table_find(t, entity) : NULL;
  if (e && e->live && e->len == len && (len == 0 || memcmp(entry_data(e), data, len) == 0))
    return TY_CRDT_UNCHANGED; /* @dcl/ecs sends nothing when the bytes equal the last sent */
  uint32_t ts;
  if (!next_timestamp(e, &ts)) return TY_CRDT_CLOCK_EXHAUSTED;
  if (!fits(s, e, true, len)) return TY_CRDT_STATE_LIMIT;
  if (!e) {
    if (!t && !(t = table_get(s, component))) return TY_CRDT_COMPONENT_LIMIT;
    e = table_add(s, t, entity);
  }
  e->timestamp = ts;
  entry_store(s, e, data ? data : (const void *)"", len);
  if (out) ty_crdt_write_put(out, entity, component, ts, entry_data(e), len);
  return TY_CRDT_OK;
}

ty_crdt_status ty_crdt_delete_component(ty_crdt_state *s, uint32_t entity, uint32_t component, ty_crdt_buf *out) {
  if (ty_crdt_removed(s, entity)) return TY_CRDT_REMOVED;
  crdt_table *t = table_lookup(s, component);
  crdt_entry *e = t ? table_find(t, entity) : NULL;
  if (!e || !e->live) return TY_CRDT_UNCHANGED;
  uint32_t ts;
  if (!next_timestamp(e, &ts)) return TY_CRDT_CLOCK_EXHAUSTED;
  e->timestamp = ts;
  entry_tombstone(s, e);
  if (out) ty_crdt_write_delete_component(out, entity, component, ts);
  return TY_CRDT_OK;
}

ty_crdt_status ty_crdt_delete_entity(ty_crdt_state *s, uint32_t entity, ty_crdt_buf *out) {
  uint32_t n = ty_crdt_entity_number(entity);
  /* @dcl/ecs removeEntity leaves the renderer's avatar range alone. */
  if (n >= TY_CRDT_NAMED_ENTITIES && n < TY_CRDT_RESERVED_ENTITIES) return TY_CRDT_UNCHANGED;
  if (ty_crdt_removed(s, entity)) return TY_CRDT_REMOVED;
  bool changed = false;
  const crdt_order *order = table_order(s);
  for (uint32_t k = 0; k < s->ntables; k++) {
    crdt_entry *e = table_find(&s->tables[order[k].table], entity);
    uint32_t ts;
    if (!e || !e->live || !next_timestamp(e, &ts)) continue;
    e->timestamp = ts;
    entry_tombstone(s, e);
    changed = true;
    if (out) ty_crdt_write_delete_component(out, entity, order[k].component, ts);
  }
  if (n < TY_CRDT_RESERVED_ENTITIES) return changed ? TY_CRDT_OK : TY_CRDT_UNCHANGED;
  if (out) ty_crdt_write_delete_entity(out, entity);
  mark_removed(s, n, ty_crdt_entity_version(entity));
  return TY_CRDT_OK;
}

/* ---- reading ---- */

bool ty_crdt_get(const ty_crdt_state *s, uint32_t entity, uint32_t component, const uint8_t **data, uint32_t *len,
                 uint32_t *timestamp) {
  const crdt_table *t = table_peek(s, component);
  const crdt_entry *e = t ? table_find(t, entity) : NULL;
  if (!e || ty_crdt_removed(s, entity)) return false;
  if (data) *data = e->live ? entry_data(e) : NULL;
  if (len) *len = e->live ? e->len : 0;
  if (timestamp) *timestamp = e->timestamp;
  return true;
}

static int entry_order(const void *a, const void *b) {
  uint32_t x = (*(const crdt_entry *const *)a)->entity, y = (*(const crdt_entry *const *)b)->entity;
  return (x > y) - (x < y);
}

void ty_crdt_snapshot(ty_crdt_state *s, ty_crdt_buf *out, unsigned flags) {
  const crdt_order *order = table_order(s);
  for (uint32_t k = 0; k < s->ntables; k++) {
    const crdt_table *t = &s->tables[order[k].table];
    if (!t->count) continue;
    TY_GROW(s->sorted, s->sorted_cap, t->count);
    uint32_t n = 0;
    for (uint32_t i = 0; i <= t->mask; i++)
      if (t->slots[i].used) s->sorted[n++] = &t->slots[i];
    qsort(s->sorted, n, sizeof *s->sorted, entry_order);
    for (uint32_t i = 0; i < n; i++) write_state(out, s->sorted[i], t->component);
  }
  if (flags & TY_CRDT_SNAPSHOT_DUMP) return;
  /* Reserved numbers are never marked, so starting at page 0 writes the same bytes. */
  for (uint32_t k = 0; k < sizeof s->removed / sizeof *s->removed; k++) {
    const crdt_removed_page *p = s->removed[k];
    for (uint32_t w = 0; p && w < CRDT_PAGE / 64; w++) {
      for (uint64_t bits = p->bits[w]; bits; bits &= bits - 1) {
        uint32_t i = w * 64 + (uint32_t)__builtin_ctzll(bits);
        ty_crdt_write_delete_entity(out, ty_crdt_entity(k * CRDT_PAGE + i, p->version[i]));
      }
    }
  }
}
