/* engine/physics/box2d_world.cpp: physics2d.h over Box2D 2.4. The only file that sees
 * Box2D's C++; everything it exports is extern "C".
 *
 * Bodies and shapes sit in pools of (pointer, generation) slots; a handle names a slot
 * and the generation it was made with, so a handle kept past its body's end is refused.
 * Contacts are collected by a b2ContactListener into a flat array the binding reads after
 * the step: begins with their manifold and first-step impulse, ends, and trigger overlaps. */
#include "physics/physics2d.h"

#include <box2d/box2d.h>

#include <cfloat>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <unordered_map>
#include <vector>

namespace {

const uint32_t SLOT_BITS = 20, SLOT_MASK = (1u << SLOT_BITS) - 1, GEN_MASK = 0xFFFu;

template <typename T> struct pool {
  struct slot {
    T *ptr;
    uint32_t gen;
  };
  std::vector<slot> slots;
  std::vector<uint32_t> free_list;

  uint32_t add(T *p) {
    uint32_t i;
    if (!free_list.empty()) {
      i = free_list.back();
      free_list.pop_back();
    } else {
      if (slots.size() >= SLOT_MASK) return 0;
      slots.push_back(slot{nullptr, 1});
      i = (uint32_t)slots.size() - 1;
    }
    slots[i].ptr = p;
    return (slots[i].gen << SLOT_BITS) | (i + 1);
  }
  T *get(uint32_t h) const {
    uint32_t i = (h & SLOT_MASK);
    if (!i || i > slots.size()) return nullptr;
    const slot &s = slots[i - 1];
    return s.gen == (h >> SLOT_BITS) ? s.ptr : nullptr;
  }
  void remove(uint32_t h) {
    uint32_t i = (h & SLOT_MASK) - 1;
    slots[i].ptr = nullptr;
    slots[i].gen = (slots[i].gen + 1) & GEN_MASK;
    if (!slots[i].gen) slots[i].gen = 1;
    free_list.push_back(i);
  }
};

/* What a body's user data holds: its handle and the caller's user value. */
struct body_info {
  ty_body2d handle;
  uint64_t user;
};

uint64_t user_of(b2Fixture *f) { return reinterpret_cast<body_info *>(f->GetBody()->GetUserData().pointer)->user; }

struct listener : b2ContactListener {
  std::vector<ty_contact2d> contacts;
  std::unordered_map<b2Contact *, size_t> begun; /* contacts begun this step -> their event */

  void BeginContact(b2Contact *c) override {
    ty_contact2d e{};
    e.kind = TY_CONTACT_BEGIN;
    e.trigger = c->GetFixtureA()->IsSensor() || c->GetFixtureB()->IsSensor();
    e.user_a = user_of(c->GetFixtureA());
    e.user_b = user_of(c->GetFixtureB());
    if (!e.trigger) {
      b2WorldManifold wm;
      c->GetWorldManifold(&wm);
      int n = c->GetManifold()->pointCount;
      for (int i = 0; i < n; i++) {
        e.point[0] += wm.points[i].x / (float)n;
        e.point[1] += wm.points[i].y / (float)n;
      }
      e.normal[0] = wm.normal.x;
      e.normal[1] = wm.normal.y;
      begun[c] = contacts.size();
    }
    contacts.push_back(e);
  }
  void EndContact(b2Contact *c) override {
    ty_contact2d e{};
    e.kind = TY_CONTACT_END;
    e.trigger = c->GetFixtureA()->IsSensor() || c->GetFixtureB()->IsSensor();
    e.user_a = user_of(c->GetFixtureA());
    e.user_b = user_of(c->GetFixtureB());
    begun.erase(c);
    contacts.push_back(e);
  }
  void PostSolve(b2Contact *c, const b2ContactImpulse *imp) override {
    auto it = begun.find(c);
    if (it == begun.end()) return;
    float sum = 0;
    for (int i = 0; i < imp->count; i++) sum += imp->normalImpulses[i];
    ty_contact2d &e = contacts[it->second];
    if (sum > e.impulse) e.impulse = sum;
  }
};

/* A shape's layer and mask, by pool slot: Box2D's own b2Filter has 16 bits, tycho's
 * layers 32, so a contact filter reads these instead. */
struct layers {
  uint32_t layer, mask;
};

struct layer_filter : b2ContactFilter {
  const std::vector<layers> *of = nullptr;
  const layers &get(b2Fixture *f) const { return (*of)[((uint32_t)f->GetUserData().pointer & SLOT_MASK) - 1]; }
  bool ShouldCollide(b2Fixture *a, b2Fixture *b) override {
    const layers &la = get(a), &lb = get(b);
    return (la.layer & lb.mask) && (lb.layer & la.mask);
  }
};

struct closest_ray : b2RayCastCallback {
  const layer_filter *filter = nullptr;
  uint32_t mask = ~0u;
  b2Fixture *fixture = nullptr;
  b2Vec2 point, normal;
  float fraction = 1;
  float ReportFixture(b2Fixture *f, const b2Vec2 &p, const b2Vec2 &n, float frac) override {
    if (f->IsSensor()) return -1; /* triggers are not hit: go on as if it were not there */
    if (!(filter->get(f).layer & mask)) return -1; /* nor are layers outside the mask */
    fixture = f;
    point = p;
    normal = n;
    fraction = frac;
    return frac; /* clip the ray here: only nearer shapes report next */
  }
};

} // namespace

struct ty_phys2d {
  b2World world;
  listener contacts;
  pool<b2Body> bodies;
  pool<b2Fixture> shapes;
  pool<b2Joint> joints;
  b2Body *ground = nullptr; /* the fixed end of joints to the world, made on first use */
  std::vector<layers> shape_layers; /* by shape slot */
  layer_filter filter;
  explicit ty_phys2d(b2Vec2 g) : world(g) {
    world.SetContactListener(&contacts);
    filter.of = &shape_layers;
    world.SetContactFilter(&filter);
  }
};

static b2Body *body(const ty_phys2d *W, ty_body2d b) {
  b2Body *p = W->bodies.get(b);
  if (!p) {
    fprintf(stderr, "tycho: physics2d: stale or invalid body handle %u\n", b);
    abort();
  }
  return p;
}

static bool convex(const b2Vec2 *p, int n) {
  if (n < 3 || n > b2_maxPolygonVertices) return false;
  float sign = 0;
  for (int i = 0; i < n; i++) {
    b2Vec2 a = p[i], b = p[(i + 1) % n], c = p[(i + 2) % n];
    if ((b - a).LengthSquared() < 4 * b2_linearSlop * b2_linearSlop) return false;
    float cross = b2Cross(b - a, c - b);
    if (cross * cross < 1e-12f) return false;
    if (sign == 0) sign = cross;
    else if ((cross > 0) != (sign > 0)) return false;
  }
  return true;
}

static b2BodyType b2type(ty_body_type t) {
  return t == TY_BODY_DYNAMIC ? b2_dynamicBody : t == TY_BODY_KINEMATIC ? b2_kinematicBody : b2_staticBody;
}

extern "C" {

ty_phys2d *ty_phys2d_create(float gx, float gy) { return new (std::nothrow) ty_phys2d(b2Vec2(gx, gy)); }

void ty_phys2d_destroy(ty_phys2d *W) {
  if (!W) return;
  for (b2Body *b = W->world.GetBodyList(); b; b = b->GetNext())
    delete reinterpret_cast<body_info *>(b->GetUserData().pointer);
  W->world.SetContactListener(nullptr); /* the world's destructor ends no contacts, but be sure */
  delete W;
}

void ty_phys2d_set_gravity(ty_phys2d *W, float gx, float gy) { W->world.SetGravity(b2Vec2(gx, gy)); }

void ty_phys2d_gravity(const ty_phys2d *W, float out[2]) {
  b2Vec2 g = W->world.GetGravity();
  out[0] = g.x, out[1] = g.y;
}

void ty_phys2d_step(ty_phys2d *W, float dt) {
  W->contacts.begun.clear();
  W->world.Step(dt, 8, 3);
  W->contacts.begun.clear();
}

uint32_t ty_phys2d_body_count(const ty_phys2d *W) { return (uint32_t)W->world.GetBodyCount(); }

const ty_contact2d *ty_phys2d_contacts(const ty_phys2d *W, uint32_t *count) {
  *count = (uint32_t)W->contacts.contacts.size();
  return W->contacts.contacts.data();
}

void ty_phys2d_clear_contacts(ty_phys2d *W) { W->contacts.contacts.clear(); }

bool ty_phys2d_raycast(ty_phys2d *W, const float p1[2], const float p2[2], uint32_t mask, ty_ray2d_hit *hit) {
  closest_ray cb;
  cb.filter = &W->filter;
  cb.mask = mask;
  b2Vec2 a(p1[0], p1[1]), b(p2[0], p2[1]);
  if ((b - a).LengthSquared() <= 0) return false;
  W->world.RayCast(&cb, a, b);
  if (!cb.fixture) return false;
  hit->user = user_of(cb.fixture);
  hit->point[0] = cb.point.x, hit->point[1] = cb.point.y;
  hit->normal[0] = cb.normal.x, hit->normal[1] = cb.normal.y;
  hit->fraction = cb.fraction;
  return true;
}

ty_body2d ty_body2d_create(ty_phys2d *W, const ty_body2d_desc *d) {
  b2BodyDef def;
  def.type = b2type(d->type);
  def.position.Set(d->x, d->y);
  def.angle = d->angle;
  def.linearDamping = d->linear_damping;
  def.angularDamping = d->angular_damping;
  def.gravityScale = d->no_gravity ? 0.0f : d->gravity_scale != 0 ? d->gravity_scale : 1.0f;
  def.fixedRotation = d->fixed_rotation;
  def.bullet = d->bullet;
  body_info *info = new (std::nothrow) body_info{0, d->user};
  if (!info) return 0;
  def.userData.pointer = reinterpret_cast<uintptr_t>(info);
  b2Body *b = W->world.CreateBody(&def);
  info->handle = W->bodies.add(b);
  if (!info->handle) {
    W->world.DestroyBody(b);
    delete info;
    return 0;
  }
  return info->handle;
}

void ty_body2d_destroy(ty_phys2d *W, ty_body2d h) {
  b2Body *b = body(W, h);
  for (b2Fixture *f = b->GetFixtureList(); f; f = f->GetNext()) W->shapes.remove((uint32_t)f->GetUserData().pointer);
  body_info *info = reinterpret_cast<body_info *>(b->GetUserData().pointer);
  for (b2JointEdge *e = b->GetJointList(); e; e = e->next) /* DestroyBody ends them */
    W->joints.remove((uint32_t)e->joint->GetUserData().pointer);
  W->world.DestroyBody(b); /* EndContact runs here, while info is still readable */
  delete info;
  W->bodies.remove(h);
}

bool ty_body2d_valid(const ty_phys2d *W, ty_body2d b) { return W->bodies.get(b) != nullptr; }

ty_joint2d ty_joint2d_create(ty_phys2d *W, const ty_joint2d_desc *d) {
  b2Body *a = W->bodies.get(d->a), *b = d->b ? W->bodies.get(d->b) : nullptr;
  if (!a || (d->b && !b)) return 0;
  if (!b) {
    if (!W->ground) {
      b2BodyDef def; /* static, no shapes: touches nothing */
      W->ground = W->world.CreateBody(&def);
    }
    b = W->ground;
  }
  b2Vec2 la(d->anchor_a[0], d->anchor_a[1]), lb(d->anchor_b[0], d->anchor_b[1]), axis(d->axis[0], d->axis[1]);
  b2RevoluteJointDef rev;
  b2DistanceJointDef dist;
  b2WeldJointDef weld;
  b2PrismaticJointDef pri;
  b2WheelJointDef wheel;
  b2JointDef *def = nullptr;
  switch (d->kind) {
    case TY_JOINT2D_REVOLUTE:
      rev.localAnchorA = la, rev.localAnchorB = lb, rev.referenceAngle = d->reference_angle;
      def = &rev;
      break;
    case TY_JOINT2D_DISTANCE:
      dist.localAnchorA = la, dist.localAnchorB = lb, dist.length = d->length;
      dist.minLength = dist.maxLength = d->length;
      dist.stiffness = d->stiffness, dist.damping = d->damping;
      if (d->stiffness > 0) dist.minLength = 0, dist.maxLength = FLT_MAX; /* a spring stretches */
      def = &dist;
      break;
    case TY_JOINT2D_WELD:
      weld.localAnchorA = la, weld.localAnchorB = lb, weld.referenceAngle = d->reference_angle;
      def = &weld;
      break;
    case TY_JOINT2D_PRISMATIC:
      pri.localAnchorA = la, pri.localAnchorB = lb, pri.localAxisA = axis, pri.referenceAngle = d->reference_angle;
      def = &pri;
      break;
    case TY_JOINT2D_WHEEL:
      wheel.localAnchorA = la, wheel.localAnchorB = lb, wheel.localAxisA = axis;
      wheel.stiffness = d->stiffness, wheel.damping = d->damping;
      def = &wheel;
      break;
  }
  if (!def) return 0;
  def->bodyA = a, def->bodyB = b, def->collideConnected = d->collide_connected;
  b2Joint *j = W->world.CreateJoint(def);
  ty_joint2d h = W->joints.add(j);
  if (!h) {
    W->world.DestroyJoint(j);
    return 0;
  }
  j->GetUserData().pointer = h;
  ty_joint2d_set_drive(W, h, &d->drive);
  a->SetAwake(true);
  b->SetAwake(true);
  return h;
}

void ty_joint2d_set_drive(ty_phys2d *W, ty_joint2d h, const ty_joint2d_drive *d) {
  b2Joint *j = W->joints.get(h);
  if (!j) return;
  switch (j->GetType()) {
    case e_revoluteJoint: {
      b2RevoluteJoint *r = static_cast<b2RevoluteJoint *>(j);
      r->EnableMotor(d->motor), r->SetMotorSpeed(d->speed), r->SetMaxMotorTorque(d->max_force);
      r->EnableLimit(d->limit), r->SetLimits(d->lower, d->upper);
      break;
    }
    case e_prismaticJoint: {
      b2PrismaticJoint *p = static_cast<b2PrismaticJoint *>(j);
      p->EnableMotor(d->motor), p->SetMotorSpeed(d->speed), p->SetMaxMotorForce(d->max_force);
      p->EnableLimit(d->limit), p->SetLimits(d->lower, d->upper);
      break;
    }
    case e_wheelJoint: {
      b2WheelJoint *w = static_cast<b2WheelJoint *>(j);
      w->EnableMotor(d->motor), w->SetMotorSpeed(d->speed), w->SetMaxMotorTorque(d->max_force);
      w->EnableLimit(d->limit), w->SetLimits(d->lower, d->upper);
      break;
    }
    default: return;
  }
  j->GetBodyA()->SetAwake(true); /* a changed motor moves a sleeping body */
  j->GetBodyB()->SetAwake(true);
}

float ty_joint2d_angle(const ty_phys2d *W, ty_joint2d h) {
  b2Joint *j = W->joints.get(h);
  if (!j) return 0;
  if (j->GetType() == e_revoluteJoint) return static_cast<b2RevoluteJoint *>(j)->GetJointAngle();
  if (j->GetType() == e_wheelJoint) return static_cast<b2WheelJoint *>(j)->GetJointAngle();
  return 0;
}

float ty_joint2d_translation(const ty_phys2d *W, ty_joint2d h) {
  b2Joint *j = W->joints.get(h);
  if (!j) return 0;
  if (j->GetType() == e_prismaticJoint) return static_cast<b2PrismaticJoint *>(j)->GetJointTranslation();
  if (j->GetType() == e_wheelJoint) return static_cast<b2WheelJoint *>(j)->GetJointTranslation();
  return 0;
}

void ty_joint2d_destroy(ty_phys2d *W, ty_joint2d h) {
  b2Joint *j = W->joints.get(h);
  if (!j) return;
  j->GetBodyA()->SetAwake(true);
  j->GetBodyB()->SetAwake(true);
  W->world.DestroyJoint(j);
  W->joints.remove(h);
}

bool ty_joint2d_valid(const ty_phys2d *W, ty_joint2d h) { return W->joints.get(h) != nullptr; }

ty_shape2d ty_shape2d_create(ty_phys2d *W, ty_body2d h, const ty_shape2d_desc *d) {
  b2Body *b = body(W, h);
  b2PolygonShape poly;
  b2CircleShape circle;
  b2FixtureDef def;
  switch (d->kind) {
    case TY_SHAPE2D_BOX: poly.SetAsBox(d->hx, d->hy, b2Vec2(d->cx, d->cy), 0); def.shape = &poly; break;
    case TY_SHAPE2D_CIRCLE:
      circle.m_radius = d->radius;
      circle.m_p.Set(d->cx, d->cy);
      def.shape = &circle;
      break;
    case TY_SHAPE2D_POLYGON: {
      b2Vec2 pts[TY_SHAPE2D_MAX_POINTS];
      for (int i = 0; i < d->point_count; i++) pts[i].Set(d->points[2 * i], d->points[2 * i + 1]);
      /* Box2D asserts on a degenerate set: refuse anything but a convex polygon with
       * corners apart and an area, in either winding. */
      if (!convex(pts, d->point_count)) return 0;
      poly.Set(pts, d->point_count);
      def.shape = &poly;
      break;
    }
  }
  def.density = d->density;
  def.friction = d->friction;
  def.restitution = d->restitution;
  def.isSensor = d->trigger;
  /* The slot and its layers are set before CreateFixture: the filter may ask at once. */
  ty_shape2d s = W->shapes.add(nullptr);
  if (!s) return 0;
  uint32_t slot = (s & SLOT_MASK) - 1;
  if (W->shape_layers.size() < W->shapes.slots.size()) W->shape_layers.resize(W->shapes.slots.size());
  bool defaults = !d->layer && !d->mask;
  W->shape_layers[slot] = layers{defaults ? 1u : d->layer, defaults ? ~0u : d->mask};
  def.userData.pointer = s;
  b2Fixture *f = b->CreateFixture(&def);
  W->shapes.slots[slot].ptr = f;
  return s;
}

ty_body_type ty_body2d_type(const ty_phys2d *W, ty_body2d h) {
  b2BodyType t = body(W, h)->GetType();
  return t == b2_dynamicBody ? TY_BODY_DYNAMIC : t == b2_kinematicBody ? TY_BODY_KINEMATIC : TY_BODY_STATIC;
}

void ty_body2d_set_type(ty_phys2d *W, ty_body2d h, ty_body_type t) { body(W, h)->SetType(b2type(t)); }

void ty_body2d_transform(const ty_phys2d *W, ty_body2d h, float *x, float *y, float *angle) {
  const b2Body *b = body(W, h);
  b2Vec2 p = b->GetPosition();
  *x = p.x, *y = p.y, *angle = b->GetAngle();
}

void ty_body2d_set_transform(ty_phys2d *W, ty_body2d h, float x, float y, float angle) {
  body(W, h)->SetTransform(b2Vec2(x, y), angle);
}

void ty_body2d_velocity(const ty_phys2d *W, ty_body2d h, float out[2]) {
  b2Vec2 v = body(W, h)->GetLinearVelocity();
  out[0] = v.x, out[1] = v.y;
}

void ty_body2d_set_velocity(ty_phys2d *W, ty_body2d h, float vx, float vy) {
  body(W, h)->SetLinearVelocity(b2Vec2(vx, vy));
}

float ty_body2d_angular_velocity(const ty_phys2d *W, ty_body2d h) { return body(W, h)->GetAngularVelocity(); }

void ty_body2d_set_angular_velocity(ty_phys2d *W, ty_body2d h, float w) { body(W, h)->SetAngularVelocity(w); }

void ty_body2d_apply_force(ty_phys2d *W, ty_body2d h, float fx, float fy) {
  body(W, h)->ApplyForceToCenter(b2Vec2(fx, fy), true);
}

void ty_body2d_apply_impulse(ty_phys2d *W, ty_body2d h, float ix, float iy) {
  body(W, h)->ApplyLinearImpulseToCenter(b2Vec2(ix, iy), true);
}

bool ty_body2d_awake(const ty_phys2d *W, ty_body2d h) { return body(W, h)->IsAwake(); }

void ty_body2d_set_awake(ty_phys2d *W, ty_body2d h, bool awake) { body(W, h)->SetAwake(awake); }

float ty_body2d_mass(const ty_phys2d *W, ty_body2d h) { return body(W, h)->GetMass(); }

void ty_body2d_set_mass(ty_phys2d *W, ty_body2d h, float mass) {
  b2Body *b = body(W, h);
  if (b->GetType() != b2_dynamicBody || !(mass > 0)) return;
  b2MassData md;
  b->ResetMassData();
  b->GetMassData(&md);
  if (md.mass > 0) {
    float k = mass / md.mass;
    md.I *= k;
  } else {
    md.I = 0; /* no shape yet: a point mass */
  }
  md.mass = mass;
  b->SetMassData(&md);
}

void ty_body2d_set_damping(ty_phys2d *W, ty_body2d h, float linear, float angular) {
  b2Body *b = body(W, h);
  b->SetLinearDamping(linear);
  b->SetAngularDamping(angular);
}

void ty_body2d_set_gravity_scale(ty_phys2d *W, ty_body2d h, float s) { body(W, h)->SetGravityScale(s); }

void ty_body2d_set_fixed_rotation(ty_phys2d *W, ty_body2d h, bool fixed) { body(W, h)->SetFixedRotation(fixed); }

void ty_body2d_set_bullet(ty_phys2d *W, ty_body2d h, bool bullet) { body(W, h)->SetBullet(bullet); }

void ty_body2d_set_enabled(ty_phys2d *W, ty_body2d h, bool enabled) { body(W, h)->SetEnabled(enabled); }

} /* extern "C" */
