/* engine/core/scene.h: GameObjects, scenes and the tick's walk.
 *
 * A ty_world owns every GameObject: generational ids in Decentraland's layout (entity
 * number in the low 16 bits, version in the high 16, numbers below 512 reserved), one
 * transform each, an ordered component list, tags and flags, all in contiguous arrays.
 * A ty_scene is an ordered membership over a world: objects tick in the order they
 * joined. The core knows components only as (ref, hooks) pairs: ref is the host's handle
 * (the Lua binding's registry slot), hooks a bit per phase the component implements, so
 * the walk skips objects and whole phases nobody hooks without calling out.
 *
 * Structural changes while a scene is walking are deferred exactly as the tick rules say:
 * joins wait in a pending list until the flush, destroys and leaves are marked and
 * applied by the sweep, removed components are blanked and compacted afterwards.
 */
#ifndef TY_SCENE_H
#define TY_SCENE_H

#include "transform.h"

typedef uint32_t ty_id;
#define TY_ID_NUMBER(id) ((id) & 0xFFFFu)
#define TY_ID_VERSION(id) ((id) >> 16)
#define TY_ID_MAKE(number, version) ((uint32_t)(number) | ((uint32_t)(version) << 16))
#define TY_RESERVED_IDS 512u
#define TY_MAX_NUMBERS 65536u

/* The tick's phases in order; TY_PHASE_RENDER is the once-per-frame updateRender hook. */
typedef enum ty_phase {
  TY_PHASE_INPUT,
  TY_PHASE_PRE_PHYSICS,
  TY_PHASE_PHYSICS,
  TY_PHASE_POST_PHYSICS,
  TY_PHASE_GAME_LOGIC,
  TY_PHASE_ANIMATION,
  TY_PHASE_PRE_RENDER,
  TY_PHASE_RENDER,
  TY_PHASE_COUNT
} ty_phase;

typedef struct ty_component {
  int32_t ref;    /* host handle; TY_COMPONENT_REMOVED once removed mid-walk */
  uint32_t hooks; /* bit p set: implements phase p */
} ty_component;
#define TY_COMPONENT_REMOVED (-1)

typedef struct ty_world ty_world;
typedef struct ty_scene ty_scene;

/* ---- world and objects ---- */
ty_world *ty_world_create(void);
void ty_world_destroy(ty_world *W);
ty_transforms *ty_world_transforms(ty_world *W);
uint32_t ty_world_count(const ty_world *W); /* live objects */

/* A new object at the identity, enabled, in no scene. Returns 0 when every number is in
 * use or retired (a number whose version reached 0xFFFF is never handed out again). */
ty_id ty_object_create(ty_world *W);
bool ty_object_alive(const ty_world *W, ty_id id);
uint32_t ty_object_transform(const ty_world *W, ty_id id);
ty_id ty_object_of_transform(const ty_world *W, uint32_t xf);
ty_scene *ty_object_scene(const ty_world *W, ty_id id);

bool ty_object_enabled(const ty_world *W, ty_id id);          /* its own flag */
bool ty_object_active(const ty_world *W, ty_id id);           /* it and every ancestor enabled */
void ty_object_set_enabled(ty_world *W, ty_id id, bool on);
/* One lookup for the renderer's per-item test: the object's transform when it is alive,
 * active and (scene non-NULL) in scene; TY_TRANSFORM_NONE otherwise. */
uint32_t ty_object_drawable(const ty_world *W, ty_id id, const ty_scene *scene);
bool ty_object_destroyed(const ty_world *W, ty_id id);        /* marked, awaiting its sweep */

/* Parent/children through the transforms. set_parent returns false on a cycle, and on a
 * move between scenes that cannot be made now (one of them walks, or an object below is
 * still leaving a walking scene). A child follows its parent into (or out of) the
 * parent's scene, deferred while it walks. */
bool ty_object_set_parent(ty_world *W, ty_id id, ty_id parent /* 0: none */);
ty_id ty_object_parent(const ty_world *W, ty_id id);
ty_id ty_object_first_child(const ty_world *W, ty_id id);
ty_id ty_object_next_sibling(const ty_world *W, ty_id id);

/* Components, in the order they were added. Removing during a walk blanks the entry. */
void ty_object_add_component(ty_world *W, ty_id id, int32_t ref, uint32_t hooks);
bool ty_object_remove_component(ty_world *W, ty_id id, int32_t ref);
uint32_t ty_object_component_count(const ty_world *W, ty_id id);
const ty_component *ty_object_components(const ty_world *W, ty_id id);
void ty_object_set_component_hooks(ty_world *W, ty_id id, uint32_t index, uint32_t hooks);

/* Tags are interned strings; an object holds each at most once. */
uint32_t ty_world_tag(ty_world *W, const char *name, bool create); /* 0: unknown */
void ty_object_add_tag(ty_world *W, ty_id id, uint32_t tag);
void ty_object_remove_tag(ty_world *W, ty_id id, uint32_t tag);
bool ty_object_has_tag(const ty_world *W, ty_id id, uint32_t tag);
uint32_t ty_object_tags(const ty_world *W, ty_id id, const uint32_t **tags);
const char *ty_world_tag_name(const ty_world *W, uint32_t tag);

/* Marks the object and its descendants destroyed (pre-order). Those in a scene are
 * queued for that scene's sweep; the ids of those in no scene are written to out
 * (up to cap, count returned) and must be finished by ty_object_free. */
uint32_t ty_object_destroy(ty_world *W, ty_id id, ty_id *out, uint32_t cap);
/* Frees a destroyed object's id and transform: the id is stale from here on. */
void ty_object_free(ty_world *W, ty_id id);

/* ---- scenes ---- */
ty_scene *ty_scene_create(ty_world *W);
/* Frees the scene; objects still in it are freed too (their ids go stale). */
void ty_scene_destroy(ty_scene *S);
ty_world *ty_scene_world(const ty_scene *S);

/* Joins the object and its subtree (detaching it from a parent in another scene). While
 * the scene walks, they wait in the pending list. Returns false if it, or an object below
 * it still leaving a walking scene, is in another scene. */
bool ty_scene_add(ty_scene *S, ty_id id);
/* Takes the object and its subtree out (detaching it from its parent); deferred while
 * walking. */
void ty_scene_remove(ty_scene *S, ty_id id);
uint32_t ty_scene_count(const ty_scene *S);          /* live + pending */
/* Objects in join order: live ones, then pending ones. */
ty_id ty_scene_object_at(const ty_scene *S, uint32_t i);
bool ty_scene_is_pending(const ty_scene *S, ty_id id);
bool ty_scene_walking(const ty_scene *S);
/* Components whose hooks include phase p, among live objects. */
uint32_t ty_scene_hook_count(const ty_scene *S, ty_phase p);

/* A walk position that survives a longjmp out of the callback: it is advanced before
 * each call, and (object, component) name the call in progress. */
typedef struct ty_cursor {
  uint32_t next_object;    /* index into the live list */
  uint32_t next_component;
  ty_id object;            /* the call in progress */
  uint32_t component;
} ty_cursor;

typedef void (*ty_hook_fn)(void *user, ty_id object, int32_t ref, ty_phase phase);

/* Calls fn for every component hooking phase, on every active live object not marked
 * destroyed, objects in join order and components in add order, from *cur on. */
void ty_scene_walk(ty_scene *S, ty_phase phase, ty_cursor *cur, ty_hook_fn fn, void *user);
void ty_scene_begin(ty_scene *S); /* start of a walking section: joins defer */
/* Sweep then flush. on_destroy is called once per destroyed object (pre-order per
 * destroy call) before its id goes stale; it may longjmp, and calling ty_scene_end
 * again resumes the sweep where it stopped. */
typedef void (*ty_object_fn)(void *user, ty_id object);
void ty_scene_end(ty_scene *S, ty_object_fn on_destroy, void *user);

#endif
