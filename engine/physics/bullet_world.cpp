/* engine/physics/bullet_world.cpp: physics3d.h over Bullet 3 (btDiscreteDynamicsWorld).
 * The only file that sees Bullet's C++; everything it exports is extern "C".
 *
 * Bullet reports no contact begins or ends, so after each step the touching pairs of the
 * dispatcher's manifolds are compared with the last step's (a sorted map, so the order of
 * the events is the same every run). Triggers are bodies with CF_NO_CONTACT_RESPONSE. */
#include "physics/physics3d.h"

#include <btBulletDynamicsCommon.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace {

const uint32_t SLOT_BITS = 20, SLOT_MASK = (1u << SLOT_BITS) - 1, GEN_MASK = 0xFFFu;
/* Manifold points nearer than this count as touching (Bullet keeps points a little apart). */
const btScalar TOUCH = btScalar(0.005);

struct body_info {
  ty_body3d handle = 0;
  uint64_t user = 0;
  bool trigger = false;
  bool disabled = false; /* out of the dynamics world */
  float gravity_scale = 1;
  int layer = 1, mask = -1; /* Bullet's filter group and mask: 32 bits */
  std::vector<std::unique_ptr<btCollisionShape>> shapes; /* the body's shape is the last */
  std::vector<btScalar> vertices;
  std::vector<int> indices;
  std::unique_ptr<btTriangleIndexVertexArray> mesh;
};

/* Which pairs the broadphase keeps: each body's layer in the other's mask, and never two
 * bodies that do not move by contact (static and kinematic), as Bullet's default filter. */
struct layer_filter : btOverlapFilterCallback {
  bool needBroadphaseCollision(btBroadphaseProxy *a, btBroadphaseProxy *b) const override {
    if (!(a->m_collisionFilterGroup & b->m_collisionFilterMask) || !(b->m_collisionFilterGroup & a->m_collisionFilterMask))
      return false;
    const btCollisionObject *oa = static_cast<const btCollisionObject *>(a->m_clientObject);
    const btCollisionObject *ob = static_cast<const btCollisionObject *>(b->m_clientObject);
    return !(oa->isStaticOrKinematicObject() && ob->isStaticOrKinematicObject());
  }
};

struct pair_state {
  ty_contact3d begin;
};

} // namespace

struct ty_phys3d {
  btDefaultCollisionConfiguration config;
  btCollisionDispatcher dispatcher{&config};
  btDbvtBroadphase broadphase;
  btSequentialImpulseConstraintSolver solver;
  btDiscreteDynamicsWorld world{&dispatcher, &broadphase, &solver, &config};
  struct slot {
    btRigidBody *body;
    uint32_t gen;
  };
  std::vector<slot> slots;
  std::vector<uint32_t> free_list;
  struct joint_slot {
    btTypedConstraint *c;
    uint32_t gen;
    float hinge_torque; /* a hinge motor's most torque: Bullet takes an impulse, torque * dt at each step */
  };
  std::vector<joint_slot> joints; /* slot i: handle (gen << SLOT_BITS) | (i + 1) */
  std::vector<uint32_t> free_joints;
  std::map<std::pair<uint64_t, uint64_t>, bool> touching; /* pair -> trigger, as of the last step */
  std::vector<ty_contact3d> contacts;
  btVector3 gravity{0, btScalar(-9.81), 0};
  layer_filter filter;
};

static body_info *info_of(const btCollisionObject *o) { return static_cast<body_info *>(o->getUserPointer()); }

static btRigidBody *get(const ty_phys3d *W, ty_body3d h) {
  uint32_t i = h & SLOT_MASK;
  if (i && i <= W->slots.size() && W->slots[i - 1].gen == (h >> SLOT_BITS) && W->slots[i - 1].body)
    return W->slots[i - 1].body;
  fprintf(stderr, "tycho: physics3d: stale or invalid body handle %u\n", h);
  abort();
}

static btVector3 v3(const float *v) { return btVector3(v[0], v[1], v[2]); }
static void out3(const btVector3 &v, float *o) { o[0] = (float)v.x(), o[1] = (float)v.y(), o[2] = (float)v.z(); }

static void apply_gravity(ty_phys3d *W, btRigidBody *b) { b->setGravity(W->gravity * info_of(b)->gravity_scale); }

/* Wakes whatever b's manifolds hold against it: Bullet leaves a body resting on one that
 * goes away asleep in mid-air. */
static void wake_touching(ty_phys3d *W, const btRigidBody *b) {
  int n = W->dispatcher.getNumManifolds();
  for (int m = 0; m < n; m++) {
    btPersistentManifold *pm = W->dispatcher.getManifoldByIndexInternal(m);
    const btCollisionObject *other = pm->getBody0() == b ? pm->getBody1() : pm->getBody1() == b ? pm->getBody0() : nullptr;
    if (other) const_cast<btCollisionObject *>(other)->activate(true);
  }
}

extern "C" {

ty_phys3d *ty_phys3d_create(const float g[3]) {
  ty_phys3d *W = new ty_phys3d(); /* aligned members: Bullet's operator new */
  W->gravity = v3(g);
  W->world.setGravity(W->gravity);
  W->world.getPairCache()->setOverlapFilterCallback(&W->filter);
  return W;
}

void ty_phys3d_destroy(ty_phys3d *W) {
  if (!W) return;
  for (auto &j : W->joints)
    if (j.c) {
      W->world.removeConstraint(j.c);
      delete j.c;
    }
  for (auto &s : W->slots)
    if (s.body) {
      if (!info_of(s.body)->disabled) W->world.removeRigidBody(s.body);
      delete info_of(s.body);
      delete s.body;
    }
  delete W;
}

void ty_phys3d_set_gravity(ty_phys3d *W, const float g[3]) {
  W->gravity = v3(g);
  W->world.setGravity(W->gravity);
  for (auto &s : W->slots)
    if (s.body) {
      apply_gravity(W, s.body);
      s.body->activate();
    }
}

void ty_phys3d_gravity(const ty_phys3d *W, float out[3]) { out3(W->gravity, out); }

void ty_phys3d_step(ty_phys3d *W, float dt) {
  for (auto &j : W->joints)
    if (j.c && j.c->getConstraintType() == HINGE_CONSTRAINT_TYPE)
      static_cast<btHingeConstraint *>(j.c)->setMaxMotorImpulse(btScalar(j.hinge_torque * dt));
  W->world.stepSimulation(dt, 0); /* exactly one step of dt: the tick is the fixed step */
  std::map<std::pair<uint64_t, uint64_t>, bool> now;
  int n = W->dispatcher.getNumManifolds();
  for (int m = 0; m < n; m++) {
    btPersistentManifold *pm = W->dispatcher.getManifoldByIndexInternal(m);
    const body_info *a = info_of(pm->getBody0()), *b = info_of(pm->getBody1());
    btVector3 point(0, 0, 0), normal(0, 0, 0);
    float impulse = 0;
    int touching = 0;
    for (int i = 0; i < pm->getNumContacts(); i++) {
      const btManifoldPoint &p = pm->getContactPoint(i);
      if (p.getDistance() > TOUCH) continue;
      touching++;
      point += p.getPositionWorldOnB();
      normal += p.m_normalWorldOnB;
      impulse += (float)p.getAppliedImpulse();
    }
    if (!touching) continue;
    bool swap = a->user > b->user;
    auto key = swap ? std::make_pair(b->user, a->user) : std::make_pair(a->user, b->user);
    bool trigger = a->trigger || b->trigger;
    if (now.count(key)) continue;
    now[key] = trigger;
    if (W->touching.count(key)) continue;
    ty_contact3d e{};
    e.kind = TY_CONTACT_BEGIN;
    e.trigger = trigger;
    e.user_a = key.first, e.user_b = key.second;
    if (!trigger) {
      out3(point / btScalar(touching), e.point);
      /* normalWorldOnB points from body1 towards body0; the event's from a towards b. */
      btVector3 nrm = normal.length2() > 0 ? normal.normalized() : normal;
      if (!swap) nrm = -nrm;
      out3(nrm, e.normal);
      e.impulse = impulse;
    }
    W->contacts.push_back(e);
  }
  for (auto &kv : W->touching) {
    if (now.count(kv.first)) continue;
    ty_contact3d e{};
    e.kind = TY_CONTACT_END;
    e.trigger = kv.second;
    e.user_a = kv.first.first, e.user_b = kv.first.second;
    W->contacts.push_back(e);
  }
  W->touching.swap(now);
}

const ty_contact3d *ty_phys3d_contacts(const ty_phys3d *W, uint32_t *count) {
  *count = (uint32_t)W->contacts.size();
  return W->contacts.data();
}

void ty_phys3d_clear_contacts(ty_phys3d *W) { W->contacts.clear(); }

namespace {
/* The nearest hit along from -> to among the solid bodies on a layer in mask (the bodies'
 * own masks do not matter), walking the broadphase's tree. A box is hit by the slab test in
 * its own frame, exact and several times faster than Bullet's general convex cast; other
 * shapes go through btCollisionWorld::rayTestSingle. */
struct nearest_ray : btBroadphaseRayCallback {
  btVector3 from, to;
  uint32_t mask;
  btScalar fraction = 1;
  btVector3 normal{0, 0, 0};
  const btCollisionObject *object = nullptr;

  nearest_ray(const btVector3 &a, const btVector3 &b, uint32_t m) : from(a), to(b), mask(m) {
    btVector3 dir = (b - a).normalized();
    for (int k = 0; k < 3; k++) {
      m_rayDirectionInverse[k] = dir[k] == 0 ? btScalar(BT_LARGE_FLOAT) : 1 / dir[k];
      m_signs[k] = m_rayDirectionInverse[k] < 0;
    }
    m_lambda_max = dir.dot(b - a);
  }

  /* The slab test of the segment against box o (half extents h, margin included). */
  void hit_box(const btCollisionObject *o, const btVector3 &h) {
    const btTransform &t = o->getWorldTransform();
    btVector3 a = t.invXform(from), d = t.getBasis().transpose() * (to - from);
    btScalar enter = 0, leave = fraction;
    int axis = -1;
    btScalar side = 0;
    for (int k = 0; k < 3; k++) {
      if (btFabs(d[k]) < SIMD_EPSILON) {
        if (a[k] < -h[k] || a[k] > h[k]) return;
        continue;
      }
      btScalar t0 = (-h[k] - a[k]) / d[k], t1 = (h[k] - a[k]) / d[k], s = -1;
      if (t0 > t1) std::swap(t0, t1), s = 1;
      if (t0 > enter) enter = t0, axis = k, side = s;
      if (t1 < leave) leave = t1;
      if (enter > leave) return;
    }
    if (axis < 0 || enter >= fraction) return; /* starts inside: not a hit, as Bullet's cast */
    btVector3 n(0, 0, 0);
    n[axis] = side;
    fraction = enter;
    normal = t.getBasis() * n;
    object = o;
  }

  bool process(const btBroadphaseProxy *proxy) override {
    const btCollisionObject *o = static_cast<const btCollisionObject *>(proxy->m_clientObject);
    if (o->getCollisionFlags() & btCollisionObject::CF_NO_CONTACT_RESPONSE) return true;
    if (!((uint32_t)proxy->m_collisionFilterGroup & mask)) return true;
    const btCollisionShape *shape = o->getCollisionShape();
    if (shape->getShapeType() == BOX_SHAPE_PROXYTYPE) {
      hit_box(o, static_cast<const btBoxShape *>(shape)->getHalfExtentsWithMargin());
      return true;
    }
    btCollisionWorld::ClosestRayResultCallback cb(from, to);
    cb.m_closestHitFraction = fraction;
    btTransform ta, tb;
    ta.setIdentity(), tb.setIdentity();
    ta.setOrigin(from), tb.setOrigin(to);
    btCollisionWorld::rayTestSingle(ta, tb, const_cast<btCollisionObject *>(o), shape, o->getWorldTransform(), cb);
    if (cb.hasHit() && cb.m_closestHitFraction < fraction) {
      fraction = cb.m_closestHitFraction;
      normal = cb.m_hitNormalWorld.normalized();
      object = o;
    }
    return true;
  }
};
} // namespace

bool ty_phys3d_raycast(ty_phys3d *W, const float p1[3], const float p2[3], uint32_t mask, ty_ray3d_hit *hit) {
  btVector3 a = v3(p1), b = v3(p2);
  if ((b - a).length2() <= 0) return false;
  nearest_ray ray(a, b, mask);
  W->broadphase.rayTest(a, b, ray);
  if (!ray.object) return false;
  hit->user = info_of(ray.object)->user;
  out3(a.lerp(b, ray.fraction), hit->point);
  out3(ray.normal, hit->normal);
  hit->fraction = (float)ray.fraction;
  return true;
}

ty_body3d ty_body3d_create(ty_phys3d *W, const ty_body3d_desc *d, const ty_shape3d_desc *shapes, uint32_t n) {
  std::unique_ptr<body_info> info(new (std::nothrow) body_info());
  if (!info) return 0;
  info->user = d->user;
  info->trigger = d->trigger;
  info->gravity_scale = d->gravity_scale;
  if (d->layer || d->mask) info->layer = (int)d->layer, info->mask = (int)d->mask;
  bool single = n == 1 && shapes[0].center[0] == 0 && shapes[0].center[1] == 0 && shapes[0].center[2] == 0;
  btCompoundShape *compound = nullptr;
  btCollisionShape *root = nullptr;
  if (!single) {
    compound = new btCompoundShape();
    info->shapes.emplace_back(compound);
    root = compound;
  }
  for (uint32_t i = 0; i < n; i++) {
    const ty_shape3d_desc &s = shapes[i];
    btCollisionShape *shape = nullptr;
    switch (s.kind) {
      case TY_SHAPE3D_BOX: shape = new btBoxShape(btVector3(s.half[0], s.half[1], s.half[2])); break;
      case TY_SHAPE3D_SPHERE: shape = new btSphereShape(s.radius); break;
      case TY_SHAPE3D_CAPSULE: {
        btScalar cyl = s.height - 2 * s.radius;
        shape = new btCapsuleShape(s.radius, cyl > 0 ? cyl : 0);
        break;
      }
      case TY_SHAPE3D_MESH: {
        /* A triangle mesh only on a static body, and alone (not in a compound). */
        if (d->type != TY_BODY_STATIC || !single || s.index_count < 3 || s.index_count % 3) return 0;
        info->vertices.assign(s.vertices, s.vertices + 3 * s.vertex_count);
        for (uint32_t k = 0; k < s.index_count; k++) {
          if (s.indices[k] >= s.vertex_count) return 0;
          info->indices.push_back((int)s.indices[k]);
        }
        info->mesh.reset(new btTriangleIndexVertexArray((int)s.index_count / 3, info->indices.data(), 3 * sizeof(int),
                                                        (int)s.vertex_count, info->vertices.data(),
                                                        3 * sizeof(btScalar)));
        shape = new btBvhTriangleMeshShape(info->mesh.get(), true);
        break;
      }
    }
    info->shapes.emplace(info->shapes.begin(), shape);
    if (compound) {
      btTransform t;
      t.setIdentity();
      t.setOrigin(v3(s.center));
      compound->addChildShape(t, shape);
    } else {
      root = shape;
    }
  }
  if (!root) {
    compound = new btCompoundShape(); /* a body with no collider: a point that falls */
    info->shapes.emplace_back(compound);
    root = compound;
  }
  btScalar mass = d->type == TY_BODY_DYNAMIC ? (d->mass > 0 ? d->mass : 1) : 0;
  btVector3 inertia(0, 0, 0);
  if (mass > 0 && root->getShapeType() != EMPTY_SHAPE_PROXYTYPE && !(compound && compound->getNumChildShapes() == 0))
    root->calculateLocalInertia(mass, inertia);
  else if (mass > 0)
    inertia = btVector3(mass, mass, mass) * btScalar(0.1);
  btRigidBody::btRigidBodyConstructionInfo ci(mass, nullptr, root, inertia);
  ci.m_startWorldTransform.setOrigin(v3(d->position));
  ci.m_startWorldTransform.setRotation(btQuaternion(d->rotation[0], d->rotation[1], d->rotation[2], d->rotation[3]));
  ci.m_friction = d->friction;
  ci.m_restitution = d->restitution;
  ci.m_linearDamping = d->linear_damping;
  ci.m_angularDamping = d->angular_damping;
  btRigidBody *b = new btRigidBody(ci); /* Bullet's aligned operator new has no nothrow form */
  int flags = b->getCollisionFlags();
  if (d->type == TY_BODY_KINEMATIC) flags |= btCollisionObject::CF_KINEMATIC_OBJECT;
  if (d->type == TY_BODY_STATIC) flags |= btCollisionObject::CF_STATIC_OBJECT;
  if (d->trigger) flags |= btCollisionObject::CF_NO_CONTACT_RESPONSE;
  b->setCollisionFlags(flags);
  if (d->type == TY_BODY_KINEMATIC) b->setActivationState(DISABLE_DEACTIVATION);
  if (d->lock_rotation) b->setAngularFactor(0);
  if (d->ccd && d->type == TY_BODY_DYNAMIC) {
    /* Swept as a sphere inside the body when it moves more than its own half size a step. */
    btVector3 lo, hi;
    root->getAabb(btTransform::getIdentity(), lo, hi);
    btVector3 half = (hi - lo) * btScalar(0.5);
    btScalar m = btMin(half.x(), btMin(half.y(), half.z()));
    if (m > 0 && m < BT_LARGE_FLOAT) { /* an empty compound has no size */
      b->setCcdMotionThreshold(m);
      b->setCcdSweptSphereRadius(m * btScalar(0.9));
    }
  }
  b->setFlags(b->getFlags() | BT_DISABLE_WORLD_GRAVITY);
  uint32_t i;
  if (!W->free_list.empty()) {
    i = W->free_list.back();
    W->free_list.pop_back();
  } else {
    if (W->slots.size() >= SLOT_MASK) {
      delete b;
      return 0;
    }
    W->slots.push_back({nullptr, 1});
    i = (uint32_t)W->slots.size() - 1;
  }
  W->slots[i].body = b;
  info->handle = (W->slots[i].gen << SLOT_BITS) | (i + 1);
  b->setUserPointer(info.get());
  ty_body3d h = info->handle;
  info.release();
  W->world.addRigidBody(b, info_of(b)->layer, info_of(b)->mask);
  apply_gravity(W, b);
  return h;
}

void ty_body3d_destroy(ty_phys3d *W, ty_body3d h) {
  btRigidBody *b = get(W, h);
  body_info *info = info_of(b);
  while (b->getNumConstraintRefs()) /* its joints end with it */
    ty_joint3d_destroy(W, (ty_joint3d)b->getConstraintRef(0)->getUserConstraintId());
  /* Its touching pairs end with it, unreported: the binding drops events of gone objects. */
  for (auto it = W->touching.begin(); it != W->touching.end();)
    it = (it->first.first == info->user || it->first.second == info->user) ? W->touching.erase(it) : std::next(it);
  if (!info->disabled) {
    wake_touching(W, b);
    W->world.removeRigidBody(b);
  }
  delete b;
  delete info;
  uint32_t i = (h & SLOT_MASK) - 1;
  W->slots[i].body = nullptr;
  W->slots[i].gen = (W->slots[i].gen + 1) & GEN_MASK;
  if (!W->slots[i].gen) W->slots[i].gen = 1;
  W->free_list.push_back(i);
}

ty_body_type ty_body3d_type(const ty_phys3d *W, ty_body3d h) {
  const btRigidBody *b = get(W, h);
  if (b->isKinematicObject()) return TY_BODY_KINEMATIC;
  if (b->isStaticObject()) return TY_BODY_STATIC;
  return TY_BODY_DYNAMIC;
}

void ty_body3d_transform(const ty_phys3d *W, ty_body3d h, float pos[3], float rot[4]) {
  const btTransform &t = get(W, h)->getWorldTransform();
  out3(t.getOrigin(), pos);
  btQuaternion q = t.getRotation();
  rot[0] = (float)q.x(), rot[1] = (float)q.y(), rot[2] = (float)q.z(), rot[3] = (float)q.w();
}

void ty_body3d_set_transform(ty_phys3d *W, ty_body3d h, const float pos[3], const float rot[4]) {
  btRigidBody *b = get(W, h);
  btTransform t(btQuaternion(rot[0], rot[1], rot[2], rot[3]), v3(pos));
  b->setWorldTransform(t);
  if (!b->isKinematicObject()) b->setInterpolationWorldTransform(t); /* kinematic: moves through the step */
  b->activate(true);
}

void ty_body3d_velocity(const ty_phys3d *W, ty_body3d h, float out[3]) { out3(get(W, h)->getLinearVelocity(), out); }

void ty_body3d_set_velocity(ty_phys3d *W, ty_body3d h, const float v[3]) {
  btRigidBody *b = get(W, h);
  b->setLinearVelocity(v3(v));
  b->activate(true);
}

void ty_body3d_angular_velocity(const ty_phys3d *W, ty_body3d h, float out[3]) {
  out3(get(W, h)->getAngularVelocity(), out);
}

void ty_body3d_set_angular_velocity(ty_phys3d *W, ty_body3d h, const float v[3]) {
  btRigidBody *b = get(W, h);
  b->setAngularVelocity(v3(v));
  b->activate(true);
}

void ty_body3d_apply_force(ty_phys3d *W, ty_body3d h, const float f[3]) {
  btRigidBody *b = get(W, h);
  b->applyCentralForce(v3(f));
  b->activate(true);
}

void ty_body3d_apply_impulse(ty_phys3d *W, ty_body3d h, const float i[3]) {
  btRigidBody *b = get(W, h);
  b->applyCentralImpulse(v3(i));
  b->activate(true);
}

bool ty_body3d_awake(const ty_phys3d *W, ty_body3d h) {
  int s = get(W, h)->getActivationState();
  return s == ACTIVE_TAG || s == DISABLE_DEACTIVATION || s == WANTS_DEACTIVATION;
}

void ty_body3d_wake(ty_phys3d *W, ty_body3d h) { get(W, h)->activate(true); }

float ty_body3d_mass(const ty_phys3d *W, ty_body3d h) {
  btScalar inv = get(W, h)->getInvMass();
  return inv > 0 ? (float)(1 / inv) : 0.0f;
}

static btTypedConstraint *joint_of(const ty_phys3d *W, ty_joint3d h) {
  uint32_t i = h & SLOT_MASK;
  if (!i || i > W->joints.size() || W->joints[i - 1].gen != (h >> SLOT_BITS)) return nullptr;
  return W->joints[i - 1].c;
}

static btTransform frame(const float p[3], const float q[4]) {
  return btTransform(btQuaternion(q[0], q[1], q[2], q[3]), btVector3(p[0], p[1], p[2]));
}

ty_joint3d ty_joint3d_create(ty_phys3d *W, const ty_joint3d_desc *d) {
  uint32_t ia = d->a & SLOT_MASK, ib = d->b & SLOT_MASK;
  auto live = [W](uint32_t i, ty_body3d h) {
    return i && i <= W->slots.size() && W->slots[i - 1].gen == (h >> SLOT_BITS) && W->slots[i - 1].body;
  };
  if (!live(ia, d->a) || (d->b && !live(ib, d->b))) return 0;
  btRigidBody &a = *W->slots[ia - 1].body, &b = d->b ? *W->slots[ib - 1].body : btTypedConstraint::getFixedBody();
  btTransform fa = frame(d->pos_a, d->rot_a), fb = frame(d->pos_b, d->rot_b);
  /* Bullet's hinge turns about its frames' Z axis: the frame turned by a quarter about Y has its Z where ours has X. */
  btTransform x_to_z(btQuaternion(btVector3(0, 1, 0), SIMD_HALF_PI));
  btTypedConstraint *c = nullptr;
  switch (d->kind) {
    case TY_JOINT3D_FIXED: c = new btFixedConstraint(a, b, fa, fb); break;
    case TY_JOINT3D_HINGE: c = new btHingeConstraint(a, b, fa * x_to_z, fb * x_to_z); break;
    case TY_JOINT3D_POINT: {
      /* btPoint2PointConstraint swings a long pendulum several percent slow; the 6-dof
       * constraint with its angles free holds the point as exactly as the hinge does. */
      btGeneric6DofSpring2Constraint *p = new btGeneric6DofSpring2Constraint(a, b, fa, fb);
      p->setLinearLowerLimit(btVector3(0, 0, 0)), p->setLinearUpperLimit(btVector3(0, 0, 0));
      p->setAngularLowerLimit(btVector3(1, 1, 1)), p->setAngularUpperLimit(btVector3(-1, -1, -1));
      c = p;
      break;
    }
    case TY_JOINT3D_SLIDER: {
      btSliderConstraint *sl = new btSliderConstraint(a, b, fa, fb, true);
      sl->setLowerLinLimit(1), sl->setUpperLinLimit(-1); /* free along the axis */
      sl->setLowerAngLimit(0), sl->setUpperAngLimit(0);  /* no turning about it */
      c = sl;
      break;
    }
  }
  if (!c) return 0;
  uint32_t i;
  if (!W->free_joints.empty()) {
    i = W->free_joints.back();
    W->free_joints.pop_back();
  } else if (W->joints.size() < SLOT_MASK) {
    W->joints.push_back({nullptr, 1, 0});
    i = (uint32_t)W->joints.size() - 1;
  } else {
    delete c;
    return 0;
  }
  W->joints[i].c = c;
  ty_joint3d h = (W->joints[i].gen << SLOT_BITS) | (i + 1);
  c->setUserConstraintId((int)h);
  ty_joint3d_set_drive(W, h, &d->drive);
  W->world.addConstraint(c, !d->collide_connected);
  /* Bullet puts a body to sleep after two seconds under 0.8 m/s, which a swinging pendulum
   * or a slow hinge spends most of its time under: a jointed body sleeps only once it is
   * as still as Box2D asks (1 cm/s, 2 degrees a second). */
  for (btRigidBody *r : {&a, &b})
    if (!r->isStaticOrKinematicObject()) {
      r->setSleepingThresholds(btScalar(0.01), btScalar(0.035));
      r->activate(true);
    }
  return h;
}

void ty_joint3d_destroy(ty_phys3d *W, ty_joint3d h) {
  btTypedConstraint *c = joint_of(W, h);
  if (!c) return;
  W->world.removeConstraint(c);
  for (btRigidBody *b : {&c->getRigidBodyA(), &c->getRigidBodyB()})
    if (!b->isStaticOrKinematicObject()) b->activate(true);
  delete c;
  uint32_t i = (h & SLOT_MASK) - 1;
  W->joints[i].c = nullptr;
  W->joints[i].gen = (W->joints[i].gen + 1) & GEN_MASK;
  if (!W->joints[i].gen) W->joints[i].gen = 1;
  W->free_joints.push_back(i);
}

bool ty_joint3d_valid(const ty_phys3d *W, ty_joint3d h) { return joint_of(W, h) != nullptr; }

void ty_body3d_set_enabled(ty_phys3d *W, ty_body3d h, bool enabled) {
  btRigidBody *b = get(W, h);
  body_info *info = info_of(b);
  if (info->disabled == !enabled) return;
  info->disabled = !enabled;
  if (enabled) {
    W->world.addRigidBody(b, info->layer, info->mask);
    apply_gravity(W, b);
    b->activate(true);
  } else {
    wake_touching(W, b);
    W->world.removeRigidBody(b);
  }
}

} /* extern "C" */

void ty_joint3d_set_drive(ty_phys3d *W, ty_joint3d h, const ty_joint3d_drive *d) {
  btTypedConstraint *c = joint_of(W, h);
  if (!c) return;
  if (c->getConstraintType() == HINGE_CONSTRAINT_TYPE) {
    btHingeConstraint *hc = static_cast<btHingeConstraint *>(c);
    W->joints[(h & SLOT_MASK) - 1].hinge_torque = d->motor ? d->max_force : 0;
    /* Bullet's hinge angle is a's turn from b's; ours, as Box2D's, b's from a's: negated. */
    hc->enableAngularMotor(d->motor, btScalar(-d->speed), 0); /* the impulse is set at each step */
    if (d->limit) hc->setLimit(btScalar(-d->upper), btScalar(-d->lower), 0.9f, 0.3f, 1.0f);
    else hc->setLimit(1, -1); /* lower above upper: free */
  } else if (c->getConstraintType() == SLIDER_CONSTRAINT_TYPE) {
    btSliderConstraint *sl = static_cast<btSliderConstraint *>(c);
    sl->setPoweredLinMotor(d->motor);
    sl->setTargetLinMotorVelocity(btScalar(d->speed)), sl->setMaxLinMotorForce(btScalar(d->max_force));
    if (d->limit) sl->setLowerLinLimit(btScalar(d->lower)), sl->setUpperLinLimit(btScalar(d->upper));
    else sl->setLowerLinLimit(1), sl->setUpperLinLimit(-1);
  } else {
    return;
  }
  for (btRigidBody *b : {&c->getRigidBodyA(), &c->getRigidBodyB()})
    if (!b->isStaticOrKinematicObject()) b->activate(true);
}

float ty_joint3d_position(const ty_phys3d *W, ty_joint3d h) {
  btTypedConstraint *c = joint_of(W, h);
  if (!c) return 0;
  if (c->getConstraintType() == HINGE_CONSTRAINT_TYPE) return -(float)static_cast<btHingeConstraint *>(c)->getHingeAngle();
  if (c->getConstraintType() == SLIDER_CONSTRAINT_TYPE) {
    btSliderConstraint *sl = static_cast<btSliderConstraint *>(c);
    sl->calculateTransforms(sl->getRigidBodyA().getCenterOfMassTransform(), sl->getRigidBodyB().getCenterOfMassTransform());
    return (float)sl->getLinearPos();
  }
  return 0;
}
