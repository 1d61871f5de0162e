/* engine/core/scene.c: the object pool, scene membership and the tick's walk.
 * See scene.h for the rules; the comments here say why the code is shaped as it is. */
#include "scene.h"

#include <string.h>

enum {
  OBJ_ALLOCATED = 1 << 0,
  OBJ_ENABLED = 1 << 1,
  OBJ_DESTROYED = 1 << 2, /* marked; swept at its scene's next end */
  OBJ_PENDING = 1 << 3,   /* joined during a walk; in the pending list */
  OBJ_LEAVING = 1 << 4,   /* removed during a walk; leaves at the sweep */
  OBJ_BLANKS = 1 << 5,    /* has components removed mid-walk, to compact */
};

typedef struct ty_object {
  uint16_t version;
  uint16_t flags;
  uint32_t hooks; /* union of its components' hooks: the walk's first filter */
  uint32_t xf;
  ty_scene *scene;
  ty_component *comps;
  uint32_t ncomps, capcomps;
  uint32_t *tags;
  uint32_t ntags, captags;
} ty_object;

struct ty_world {
  ty_object *objs; /* indexed by entity number */
  uint32_t nobjs, capobjs;
  uint32_t *freeq; /* FIFO of freed numbers: spreads versions so they wrap late */
  uint32_t fq_head, fq_len, fq_cap;
  uint32_t *xf_owner; /* transform index -> entity number */
  uint32_t cap_owner;
  ty_transforms *T;
  uint32_t live;
  char **tag_names; /* tag t is tag_names[t - 1] */
  uint32_t ntags, captags;
};

struct ty_scene {
  ty_world *W;
  ty_id *live;
  uint32_t nlive, caplive;
  ty_id *pending;
  uint32_t npending, cappending;
  ty_id *doomed; /* destroyed or leaving, in the order they were marked */
  uint32_t ndoomed, capdoomed;
  uint32_t sweep_pos;
  bool sweep_called; /* on_destroy already ran for doomed[sweep_pos] */
  int walking;
  uint32_t hook_count[TY_PHASE_COUNT];
};

/* ---- objects ---- */

static ty_object *obj_get(const ty_world *W, ty_id id) {
  uint32_t n = TY_ID_NUMBER(id);
  if (n < TY_RESERVED_IDS || n >= W->nobjs) return NULL;
  ty_object *o = &W->objs[n];
  if (!(o->flags & OBJ_ALLOCATED) || o->version != TY_ID_VERSION(id)) return NULL;
  return o;
}

static ty_object *obj_must(const ty_world *W, ty_id id) {
  ty_object *o = obj_get(W, id);
  TY_ASSERT(o && "stale or unknown GameObject id");
  return o;
}

static ty_id obj_id(const ty_world *W, const ty_object *o) {
  return TY_ID_MAKE((uint32_t)(o - W->objs), o->version);
}

ty_world *ty_world_create(void) {
  ty_world *W = TY_MALLOC(sizeof *W);
  TY_ASSERT(W);
  memset(W, 0, sizeof *W);
  W->T = ty_transforms_create();
  W->nobjs = TY_RESERVED_IDS; /* numbers below 512 belong to the engine's basic entities */
  TY_GROW(W->objs, W->capobjs, W->nobjs);
  memset(W->objs, 0, sizeof *W->objs * W->nobjs);
  return W;
}

void ty_world_destroy(ty_world *W) {
  if (!W) return;
  for (uint32_t n = TY_RESERVED_IDS; n < W->nobjs; n++) {
    TY_FREE(W->objs[n].comps);
    TY_FREE(W->objs[n].tags);
  }
  for (uint32_t t = 0; t < W->ntags; t++) TY_FREE(W->tag_names[t]);
  TY_FREE(W->tag_names);
  TY_FREE(W->objs);
  TY_FREE(W->freeq);
  TY_FREE(W->xf_owner);
  ty_transforms_destroy(W->T);
  TY_FREE(W);
}

ty_transforms *ty_world_transforms(ty_world *W) { return W->T; }
uint32_t ty_world_count(const ty_world *W) { return W->live; }

ty_id ty_object_create(ty_world *W) {
  uint32_t n;
  if (W->fq_len) {
    n = W->freeq[W->fq_head];
    W->fq_head = (W->fq_head + 1) % W->fq_cap;
    W->fq_len--;
  } else if (W->nobjs < TY_MAX_NUMBERS) {
    n = W->nobjs++;
    TY_GROW(W->objs, W->capobjs, W->nobjs);
    memset(&W->objs[n], 0, sizeof W->objs[n]);
  } else {
    return 0;
  }
  ty_object *o = &W->objs[n];
  uint16_t version = o->version;
  memset(o, 0, sizeof *o);
  o->version = version;
  o->flags = OBJ_ALLOCATED | OBJ_ENABLED;
  o->xf = ty_transform_create(W->T);
  TY_GROW(W->xf_owner, W->cap_owner, o->xf + 1);
  W->xf_owner[o->xf] = n;
  W->live++;
  return TY_ID_MAKE(n, o->version);
}

bool ty_object_alive(const ty_world *W, ty_id id) { return obj_get(W, id) != NULL; }
uint32_t ty_object_transform(const ty_world *W, ty_id id) { return obj_must(W, id)->xf; }

ty_id ty_object_of_transform(const ty_world *W, uint32_t xf) {
  if (xf == TY_TRANSFORM_NONE) return 0;
  uint32_t n = W->xf_owner[xf];
  return TY_ID_MAKE(n, W->objs[n].version);
}

ty_scene *ty_object_scene(const ty_world *W, ty_id id) {
  ty_object *o = obj_get(W, id);
  return o ? o->scene : NULL;
}

bool ty_object_enabled(const ty_world *W, ty_id id) { return obj_must(W, id)->flags & OBJ_ENABLED; }

static bool obj_active(const ty_world *W, const ty_object *o) {
  for (;;) {
    if (!(o->flags & OBJ_ENABLED)) return false;
    uint32_t p = ty_transform_parent(W->T, o->xf);
    if (p == TY_TRANSFORM_NONE) return true;
    o = &W->objs[W->xf_owner[p]];
  }
}

bool ty_object_active(const ty_world *W, ty_id id) { return obj_active(W, obj_must(W, id)); }

uint32_t ty_object_drawable(const ty_world *W, ty_id id, const ty_scene *scene) {
  const ty_object *o = obj_get(W, id);
  if (!o || (scene && o->scene != scene) || !obj_active(W, o)) return TY_TRANSFORM_NONE;
  return o->xf;
}

void ty_object_set_enabled(ty_world *W, ty_id id, bool on) {
  ty_object *o = obj_must(W, id);
  if (on) o->flags |= OBJ_ENABLED;
  else o->flags &= (uint16_t)~OBJ_ENABLED;
}

bool ty_object_destroyed(const ty_world *W, ty_id id) {
  ty_object *o = obj_get(W, id);
  return !o || (o->flags & OBJ_DESTROYED);
}

ty_id ty_object_parent(const ty_world *W, ty_id id) {
  return ty_object_of_transform(W, ty_transform_parent(W->T, obj_must(W, id)->xf));
}
ty_id ty_object_first_child(const ty_world *W, ty_id id) {
  return ty_object_of_transform(W, ty_transform_first_child(W->T, obj_must(W, id)->xf));
}
ty_id ty_object_next_sibling(const ty_world *W, ty_id id) {
  return ty_object_of_transform(W, ty_transform_next_sibling(W->T, obj_must(W, id)->xf));
}

/* Pre-order walk of id's subtree through the transform links, without recursion. */
typedef void (*subtree_fn)(ty_world *W, ty_object *o, void *user);
static void each_in_subtree(ty_world *W, ty_id root, subtree_fn fn, void *user) {
  uint32_t top = obj_must(W, root)->xf, xf = top;
  while (xf != TY_TRANSFORM_NONE) {
    fn(W, &W->objs[W->xf_owner[xf]], user);
    uint32_t next = ty_transform_first_child(W->T, xf);
    while (next == TY_TRANSFORM_NONE && xf != top) {
      next = ty_transform_next_sibling(W->T, xf);
      if (next == TY_TRANSFORM_NONE) xf = ty_transform_parent(W->T, xf);
    }
    if (xf == top && next == TY_TRANSFORM_NONE) break;
    xf = next;
  }
}

static void scene_count_hooks(ty_scene *S, uint32_t hooks, int sign) {
  for (int p = 0; p < TY_PHASE_COUNT; p++)
    if (hooks & (1u << p)) S->hook_count[p] += (uint32_t)sign;
}

static void obj_count_hooks(ty_scene *S, const ty_object *o, int sign) {
  for (uint32_t i = 0; i < o->ncomps; i++) scene_count_hooks(S, o->comps[i].hooks, sign);
}

static bool obj_is_live_in_scene(const ty_object *o) {
  return o->scene && !(o->flags & OBJ_PENDING);
}

static void join_one(ty_world *W, ty_object *o, void *user) {
  ty_scene *S = user;
  /* A destroyed object stays where its sweep will find it, in or out of a scene. */
  if (o->flags & OBJ_DESTROYED) return;
  o->scene = S;
  ty_id id = obj_id(W, o);
  if (S->walking) {
    o->flags |= OBJ_PENDING;
    TY_GROW(S->pending, S->cappending, S->npending + 1);
    S->pending[S->npending++] = id;
  } else {
    TY_GROW(S->live, S->caplive, S->nlive + 1);
    S->live[S->nlive++] = id;
    obj_count_hooks(S, o, +1);
  }
}

static void remove_from(ty_id *list, uint32_t *n, ty_id id) {
  for (uint32_t i = 0; i < *n; i++) {
    if (list[i] == id) {
      memmove(&list[i], &list[i + 1], sizeof *list * (*n - i - 1));
      (*n)--;
      return;
    }
  }
}

/* Leaving at once (not walking): drops the subtree from the live or pending list. */
static void leave_one(ty_world *W, ty_object *o, void *user) {
  (void)user;
  ty_scene *S = o->scene;
  if (!S || (o->flags & OBJ_DESTROYED)) return; /* see join_one */
  ty_id id = obj_id(W, o);
  if (o->flags & OBJ_PENDING) remove_from(S->pending, &S->npending, id);
  else {
    obj_count_hooks(S, o, -1);
    remove_from(S->live, &S->nlive, id);
  }
  o->flags &= (uint16_t)~(OBJ_PENDING | OBJ_LEAVING);
  o->scene = NULL;
}

static void mark_leaving(ty_world *W, ty_object *o, void *user) {
  (void)user;
  ty_scene *S = o->scene;
  if (!S || (o->flags & (OBJ_LEAVING | OBJ_DESTROYED))) return;
  o->flags |= OBJ_LEAVING;
  TY_GROW(S->doomed, S->capdoomed, S->ndoomed + 1);
  S->doomed[S->ndoomed++] = obj_id(W, o);
}

/* Moves id's subtree out of its scene, now or at the sweep. Returns false when the scene
 * walks and the subtree would have to enter another scene at once. */
static void subtree_leave(ty_world *W, ty_id id) {
  ty_object *o = obj_must(W, id);
  if (!o->scene) return;
  each_in_subtree(W, id, o->scene->walking ? mark_leaving : leave_one, NULL);
}

/* An object below the root may still be listed in a scene other than the root's: it left a
 * walking scene by re-parenting and waits for that scene's sweep. Joining it anywhere before
 * then would list it twice, so such joins are refused. */
typedef struct split_ctx {
  ty_scene *scene;
  bool split;
} split_ctx;

static void find_split(ty_world *W, ty_object *o, void *user) {
  (void)W;
  split_ctx *c = user;
  if (o->scene != c->scene) c->split = true;
}

static bool subtree_split(ty_world *W, ty_id id) {
  split_ctx c = {obj_must(W, id)->scene, false};
  each_in_subtree(W, id, find_split, &c);
  return c.split;
}

/* Cancels a deferred leave of user's scene (the sweep then skips the object). */
static void stay_one(ty_world *W, ty_object *o, void *user) {
  (void)W;
  if (o->scene == user) o->flags &= (uint16_t)~OBJ_LEAVING;
}

/* The scene an object will be in once its scene's walk ends: none when it is leaving. */
static ty_scene *scene_after_sweep(const ty_object *o) {
  return (o->flags & OBJ_LEAVING) ? NULL : o->scene;
}

bool ty_object_set_parent(ty_world *W, ty_id id, ty_id parent) {
  ty_object *o = obj_must(W, id);
  ty_object *p = parent ? obj_must(W, parent) : NULL;
  /* Scenes as they will be after the sweep: under a leaving parent the child leaves too;
   * a leaving child put back under a parent staying in its scene stays as well. */
  ty_scene *from = scene_after_sweep(o);
  ty_scene *to = p ? scene_after_sweep(p) : from;
  /* Moving straight from one scene into another while either walks would need the
   * object in two lists at once: refused. */
  if (o->scene && to && to != o->scene && (o->scene->walking || to->walking)) return false;
  if (to && to != o->scene && subtree_split(W, id)) return false;
  if (!ty_transform_set_parent(W->T, o->xf, p ? p->xf : TY_TRANSFORM_NONE)) return false;
  if (to == from) return true;
  if (to && to == o->scene) {
    each_in_subtree(W, id, stay_one, to);
  } else {
    subtree_leave(W, id);
    if (to) each_in_subtree(W, id, join_one, to);
  }
  return true;
}

/* ---- components ---- */

static void obj_refresh_hooks(ty_object *o) {
  uint32_t h = 0;
  for (uint32_t i = 0; i < o->ncomps; i++) h |= o->comps[i].hooks;
  o->hooks = h;
}

void ty_object_add_component(ty_world *W, ty_id id, int32_t ref, uint32_t hooks) {
  ty_object *o = obj_must(W, id);
  TY_GROW(o->comps, o->capcomps, o->ncomps + 1);
  o->comps[o->ncomps++] = (ty_component){ref, hooks};
  o->hooks |= hooks;
  if (obj_is_live_in_scene(o)) scene_count_hooks(o->scene, hooks, +1);
}

bool ty_object_remove_component(ty_world *W, ty_id id, int32_t ref) {
  ty_object *o = obj_must(W, id);
  for (uint32_t i = 0; i < o->ncomps; i++) {
    if (o->comps[i].ref != ref) continue;
    if (obj_is_live_in_scene(o)) scene_count_hooks(o->scene, o->comps[i].hooks, -1);
    if (o->scene && o->scene->walking) {
      /* The walk may be positioned on this list: blank the entry, compact at the end. */
      o->comps[i] = (ty_component){TY_COMPONENT_REMOVED, 0};
      o->flags |= OBJ_BLANKS;
    } else {
      memmove(&o->comps[i], &o->comps[i + 1], sizeof *o->comps * (o->ncomps - i - 1));
      o->ncomps--;
    }
    obj_refresh_hooks(o);
    return true;
  }
  return false;
}

uint32_t ty_object_component_count(const ty_world *W, ty_id id) { return obj_must(W, id)->ncomps; }
const ty_component *ty_object_components(const ty_world *W, ty_id id) { return obj_must(W, id)->comps; }

void ty_object_set_component_hooks(ty_world *W, ty_id id, uint32_t index, uint32_t hooks) {
  ty_object *o = obj_must(W, id);
  TY_ASSERT(index < o->ncomps);
  ty_component *c = &o->comps[index];
  if (c->ref == TY_COMPONENT_REMOVED || c->hooks == hooks) return;
  if (obj_is_live_in_scene(o)) {
    scene_count_hooks(o->scene, c->hooks, -1);
    scene_count_hooks(o->scene, hooks, +1);
  }
  c->hooks = hooks;
  obj_refresh_hooks(o);
}

static void obj_compact(ty_object *o) {
  uint32_t k = 0;
  for (uint32_t i = 0; i < o->ncomps; i++)
    if (o->comps[i].ref != TY_COMPONENT_REMOVED) o->comps[k++] = o->comps[i];
  o->ncomps = k;
  o->flags &= (uint16_t)~OBJ_BLANKS;
}

/* ---- tags ---- */

uint32_t ty_world_tag(ty_world *W, const char *name, bool create) {
  for (uint32_t t = 0; t < W->ntags; t++)
    if (strcmp(W->tag_names[t], name) == 0) return t + 1;
  if (!create) return 0;
  size_t len = strlen(name) + 1;
  char *copy = TY_MALLOC(len);
  TY_ASSERT(copy);
  memcpy(copy, name, len);
  TY_GROW(W->tag_names, W->captags, W->ntags + 1);
  W->tag_names[W->ntags++] = copy;
  return W->ntags;
}

const char *ty_world_tag_name(const ty_world *W, uint32_t tag) {
  return tag && tag <= W->ntags ? W->tag_names[tag - 1] : NULL;
}

bool ty_object_has_tag(const ty_world *W, ty_id id, uint32_t tag) {
  const ty_object *o = obj_must(W, id);
  for (uint32_t i = 0; i < o->ntags; i++)
    if (o->tags[i] == tag) return true;
  return false;
}

void ty_object_add_tag(ty_world *W, ty_id id, uint32_t tag) {
  if (ty_object_has_tag(W, id, tag)) return;
  ty_object *o = obj_must(W, id);
  TY_GROW(o->tags, o->captags, o->ntags + 1);
  o->tags[o->ntags++] = tag;
}

void ty_object_remove_tag(ty_world *W, ty_id id, uint32_t tag) {
  ty_object *o = obj_must(W, id);
  for (uint32_t i = 0; i < o->ntags; i++) {
    if (o->tags[i] == tag) {
      o->tags[i] = o->tags[--o->ntags];
      return;
    }
  }
}

uint32_t ty_object_tags(const ty_world *W, ty_id id, const uint32_t **tags) {
  const ty_object *o = obj_must(W, id);
  *tags = o->tags;
  return o->ntags;
}

/* ---- destroy ---- */

typedef struct destroy_ctx {
  ty_id *out;
  uint32_t cap, n;
} destroy_ctx;

static void mark_destroyed(ty_world *W, ty_object *o, void *user) {
  destroy_ctx *ctx = user;
  if (o->flags & OBJ_DESTROYED) return;
  o->flags |= OBJ_DESTROYED;
  ty_id id = obj_id(W, o);
  ty_scene *S = o->scene;
  if (S) {
    if (o->flags & OBJ_LEAVING) return; /* already queued: the sweep sees DESTROYED */
    TY_GROW(S->doomed, S->capdoomed, S->ndoomed + 1);
    S->doomed[S->ndoomed++] = id;
  } else {
    if (ctx->n < ctx->cap) ctx->out[ctx->n] = id;
    ctx->n++;
  }
}

uint32_t ty_object_destroy(ty_world *W, ty_id id, ty_id *out, uint32_t cap) {
  destroy_ctx ctx = {out, cap, 0};
  each_in_subtree(W, id, mark_destroyed, &ctx);
  return ctx.n;
}

void ty_object_free(ty_world *W, ty_id id) {
  ty_object *o = obj_must(W, id);
  if (o->scene) {
    ty_scene *S = o->scene;
    if (o->flags & OBJ_PENDING) remove_from(S->pending, &S->npending, id);
    else {
      obj_count_hooks(S, o, -1);
      remove_from(S->live, &S->nlive, id);
    }
  }
  /* Children outlive a freed parent only when they were not destroyed with it. */
  ty_transform_destroy(W->T, o->xf);
  uint32_t n = TY_ID_NUMBER(id);
  TY_FREE(o->comps);
  TY_FREE(o->tags);
  memset(o, 0, sizeof *o);
  o->version = (uint16_t)(TY_ID_VERSION(id) + 1);
  W->live--;
  if (o->version == 0xFFFF) return; /* retired: a wrapped version would reuse an id */
  if (W->fq_len == W->fq_cap) {
    /* Grow the ring and unroll it so head is 0. */
    uint32_t oldcap = W->fq_cap;
    uint32_t *q = TY_MALLOC(sizeof *q * (oldcap ? oldcap * 2 : 64));
    TY_ASSERT(q);
    for (uint32_t i = 0; i < W->fq_len; i++) q[i] = W->freeq[(W->fq_head + i) % oldcap];
    TY_FREE(W->freeq);
    W->freeq = q;
    W->fq_head = 0;
    W->fq_cap = oldcap ? oldcap * 2 : 64;
  }
  W->freeq[(W->fq_head + W->fq_len) % W->fq_cap] = n;
  W->fq_len++;
}

/* ---- scenes ---- */

ty_scene *ty_scene_create(ty_world *W) {
  ty_scene *S = TY_MALLOC(sizeof *S);
  TY_ASSERT(S);
  memset(S, 0, sizeof *S);
  S->W = W;
  return S;
}

void ty_scene_destroy(ty_scene *S) {
  if (!S) return;
  ty_world *W = S->W;
  while (S->npending) ty_object_free(W, S->pending[S->npending - 1]);
  while (S->nlive) ty_object_free(W, S->live[S->nlive - 1]);
  TY_FREE(S->live);
  TY_FREE(S->pending);
  TY_FREE(S->doomed);
  TY_FREE(S);
}

ty_world *ty_scene_world(const ty_scene *S) { return S->W; }

bool ty_scene_add(ty_scene *S, ty_id id) {
  ty_object *o = obj_must(S->W, id);
  if (o->scene == S) {
    /* Removed (or re-parented out) earlier in this walk: joining again cancels the leave,
     * which the sweep then skips, and takes it from a parent that is leaving or outside. */
    if (o->flags & OBJ_LEAVING) {
      ty_object *p = obj_get(S->W, ty_object_parent(S->W, id));
      if (p && (p->scene != S || (p->flags & OBJ_LEAVING)))
        ty_transform_set_parent(S->W->T, o->xf, TY_TRANSFORM_NONE);
      each_in_subtree(S->W, id, stay_one, S);
    }
    return true;
  }
  if (o->scene) return false;
  if (o->flags & OBJ_DESTROYED) return true; /* it will never tick; nothing to join */
  if (subtree_split(S->W, id)) return false;
  ty_object *p = obj_get(S->W, ty_object_parent(S->W, id));
  if (p && p->scene != S) ty_transform_set_parent(S->W->T, o->xf, TY_TRANSFORM_NONE);
  each_in_subtree(S->W, id, join_one, S);
  return true;
}

void ty_scene_remove(ty_scene *S, ty_id id) {
  ty_object *o = obj_must(S->W, id);
  if (o->scene != S) return;
  ty_object *p = obj_get(S->W, ty_object_parent(S->W, id));
  if (p) ty_transform_set_parent(S->W->T, o->xf, TY_TRANSFORM_NONE);
  subtree_leave(S->W, id);
}

uint32_t ty_scene_count(const ty_scene *S) { return S->nlive + S->npending; }

ty_id ty_scene_object_at(const ty_scene *S, uint32_t i) {
  if (i < S->nlive) return S->live[i];
  i -= S->nlive;
  return i < S->npending ? S->pending[i] : 0;
}

bool ty_scene_is_pending(const ty_scene *S, ty_id id) {
  ty_object *o = obj_get(S->W, id);
  return o && o->scene == S && (o->flags & OBJ_PENDING);
}

bool ty_scene_walking(const ty_scene *S) { return S->walking > 0; }
uint32_t ty_scene_hook_count(const ty_scene *S, ty_phase p) { return S->hook_count[p]; }

void ty_scene_walk(ty_scene *S, ty_phase phase, ty_cursor *cur, ty_hook_fn fn, void *user) {
  const uint32_t bit = 1u << phase;
  ty_world *W = S->W;
  if (!S->hook_count[phase]) cur->next_object = S->nlive;
  /* nlive is stable here: joins wait in pending and removals wait for the sweep. */
  while (cur->next_object < S->nlive) {
    ty_id id = S->live[cur->next_object];
    uint32_t n = TY_ID_NUMBER(id);
    /* W->objs is re-read after every call: a hook may create objects and grow it. */
    const ty_object *o = &W->objs[n];
    if ((o->hooks & bit) && !(o->flags & (OBJ_DESTROYED | OBJ_LEAVING)) && obj_active(W, o)) {
      while (cur->next_component < o->ncomps) {
        uint32_t ci = cur->next_component++;
        ty_component c = o->comps[ci];
        if (!(c.hooks & bit)) continue;
        cur->object = id;
        cur->component = ci;
        fn(user, id, c.ref, phase);
        o = &W->objs[n];
        if ((o->flags & (OBJ_DESTROYED | OBJ_LEAVING)) || !obj_active(W, o)) break;
      }
    }
    cur->next_object++;
    cur->next_component = 0;
  }
}

void ty_scene_begin(ty_scene *S) { S->walking++; }

static void flag_clear(ty_world *W, ty_id id, uint16_t flag) {
  ty_object *o = obj_get(W, id);
  if (o) o->flags &= (uint16_t)~flag;
}

void ty_scene_end(ty_scene *S, ty_object_fn on_destroy, void *user) {
  ty_world *W = S->W;
  if (S->walking > 1) { /* a nested section (a tick inside updateRender, say) */
    S->walking--;
    return;
  }
  /* Sweep. on_destroy may longjmp out; sweep_pos and sweep_called make a later call resume. */
  while (S->sweep_pos < S->ndoomed) {
    ty_id id = S->doomed[S->sweep_pos];
    ty_object *o = obj_get(W, id);
    if (o && (o->flags & OBJ_DESTROYED)) {
      if (!S->sweep_called) {
        S->sweep_called = true;
        if (on_destroy) on_destroy(user, id);
      }
      if (obj_get(W, id)) ty_object_free(W, id);
    } else if (o && (o->flags & OBJ_LEAVING) && o->scene == S) {
      leave_one(W, o, NULL);
    }
    S->sweep_pos++;
    S->sweep_called = false;
  }
  S->ndoomed = S->sweep_pos = 0;
  /* Flush: pending objects join the live set in the order they were added. */
  for (uint32_t i = 0; i < S->npending; i++) {
    ty_id id = S->pending[i];
    ty_object *o = obj_get(W, id);
    if (!o) continue;
    flag_clear(W, id, OBJ_PENDING);
    TY_GROW(S->live, S->caplive, S->nlive + 1);
    S->live[S->nlive++] = id;
    obj_count_hooks(S, o, +1);
  }
  S->npending = 0;
  for (uint32_t i = 0; i < S->nlive; i++) {
    ty_object *o = &W->objs[TY_ID_NUMBER(S->live[i])];
    if (o->flags & OBJ_BLANKS) obj_compact(o);
  }
  S->walking = 0;
}
