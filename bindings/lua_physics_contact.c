/* bindings/lua_physics_contact.c: contact and trigger events of both worlds, told to the
 * components of the objects in them: onCollisionEnter(other, contact) and
 * onCollisionExit(other), onTriggerEnter(other) and onTriggerExit(other), after the step. */
#include "lua_physics_world.h"

static const char *const CONTACT_HOOKS[2][2] = {{"onCollisionEnter", "onCollisionExit"},
                                                {"onTriggerEnter", "onTriggerExit"}};

/* One contact event of either dimension, as reported. */
typedef struct contact_ev {
  ty_contact_kind kind;
  bool trigger;
  uint64_t user_a, user_b;
  float point[3], normal[3], impulse;
} contact_ev;

/* What a contact hook is called with, made only when a component has the hook. */
typedef struct contact_args {
  const contact_ev *c;
  ty_id other;
  float upm, sign; /* sign: -1 seen from a (the normal points from other towards self) */
} contact_args;

/* Pushes other and, for a collision begin, the contact table. */
static int push_contact_args(lua_State *L, void *user) {
  const contact_args *a = user;
  const contact_ev *c = a->c;
  ty_push_gameobject(L, a->other);
  if (c->trigger || c->kind != TY_CONTACT_BEGIN) return 1;
  lua_createtable(L, 0, 3);
  ty_push_vec3(L, c->point[0] * a->upm, c->point[1] * a->upm, c->point[2] * a->upm);
  lua_setfield(L, -2, "point");
  ty_push_vec3(L, c->normal[0] * a->sign, c->normal[1] * a->sign, c->normal[2] * a->sign);
  lua_setfield(L, -2, "normal");
  lua_pushnumber(L, (double)c->impulse * a->upm);
  lua_setfield(L, -2, "impulse");
  return 2;
}

/* Calls the hook on self's components with other (and for a collision begin, the contact
 * seen from self: normal pointing from other towards self). A hook is found on the instance
 * or its class without calling an __index function (the physics components route their
 * fields through one): a contact no component hears builds no contact table. */
static void report_contact(lua_State *L, int scene_idx, float upm, const contact_ev *c, bool as_a) {
  ty_id self = (ty_id)(as_a ? c->user_a : c->user_b), other = (ty_id)(as_a ? c->user_b : c->user_a);
  contact_args a = {c, other, upm, as_a ? -1.0f : 1.0f};
  const char *hook = CONTACT_HOOKS[c->trigger][c->kind == TY_CONTACT_END];
  ty_lua_call_found(L, scene_idx, self, hook, push_contact_args, &a);
}

/* A contact of either world as one contact_ev (2D at z 0). */
static contact_ev contact_from2d(const ty_contact2d *c) {
  return (contact_ev){c->kind, c->trigger, c->user_a, c->user_b, {c->point[0], c->point[1], 0},
                      {c->normal[0], c->normal[1], 0}, c->impulse};
}

static contact_ev contact_from3d(const ty_contact3d *c) {
  return (contact_ev){c->kind, c->trigger, c->user_a, c->user_b, {c->point[0], c->point[1], c->point[2]},
                      {c->normal[0], c->normal[1], c->normal[2]}, c->impulse};
}

/* Takes a world's contacts (copied and cleared: hooks may end bodies, whose contacts then
 * queue for the next tick). */
static contact_ev *take_contacts(lworld *w, uint32_t *n) {
  *n = 0;
  const ty_contact2d *c2 = w->dims == 2 ? ty_phys2d_contacts(w->w2, n) : NULL;
  const ty_contact3d *c3 = w->dims == 3 ? ty_phys3d_contacts(w->w3, n) : NULL;
  if (!*n) return NULL;
  contact_ev *cs = TY_MALLOC(*n * sizeof *cs);
  TY_ASSERT(cs);
  for (uint32_t i = 0; i < *n; i++) cs[i] = c2 ? contact_from2d(&c2[i]) : contact_from3d(&c3[i]);
  if (w->dims == 2) ty_phys2d_clear_contacts(w->w2);
  else ty_phys3d_clear_contacts(w->w3);
  return cs;
}

void ty_lua_physics_contacts(lua_State *L, int scene_idx, ty_scene *S) {
  (void)S;
  ty_world *W = lphys_world_of(L);
  luaL_checkstack(L, 8, "reporting contacts");
  for (int dims = 3; dims >= 2; dims--) {
    lworld *w = lphys_scene_world(L, scene_idx, dims);
    if (!w) continue;
    float upm = w->upm;
    uint32_t n;
    contact_ev *cs = take_contacts(w, &n);
    for (uint32_t i = 0; i < n; i++) {
      ty_id a = (ty_id)cs[i].user_a, b = (ty_id)cs[i].user_b;
      /* An object destroyed since (or swept with its body) is told nothing, nor told of. */
      if (!ty_object_alive(W, a) || !ty_object_alive(W, b) || ty_object_destroyed(W, a) || ty_object_destroyed(W, b))
        continue;
      report_contact(L, scene_idx, upm, &cs[i], true);
      if (ty_object_alive(W, b) && !ty_object_destroyed(W, b)) report_contact(L, scene_idx, upm, &cs[i], false);
    }
    TY_FREE(cs);
  }
}
