---@meta tycho.physics
-- scripts/meta/physics.lua: LuaLS annotations for the physics components and worlds
-- (scripts/tycho/physics.lua over bindings/lua_physics.c and engine/physics/). Never loaded
-- at run time; scripts/docs/physics.md describes them with examples.

---@alias tycho.BodyType "dynamic"|"static"|"kinematic"

---A collision layer: a number 1..32 or a name (tycho.physics.layers gives names numbers).
---@alias tycho.Layer string|integer

---Layers to touch or hit: one layer, or a list of them ({} is none).
---@alias tycho.LayerMask tycho.Layer|tycho.Layer[]

---Collision layer names. Two colliders touch (and a trigger hears a body) only when each
---one's layer is in the other's mask; by default everything is on layer 1 ("default") with
---every layer in its mask, so everything collides.
---@class tycho.physics
---@field layers table<string, integer> name -> number; "default" is 1, a new name gets the lowest number no name holds (set entries first to choose)
tycho.physics = {}

---The number of a layer name (given one now if new) or number.
---@param v tycho.Layer
---@return integer
function tycho.physics.layer(v) end

---Options of RigidBody.new and RigidBody2D.new.
---@class tycho.RigidBodyOptions
---@field type? tycho.BodyType "dynamic" (default), "static" or "kinematic" (moved by the game)
---@field mass? number kilograms (1): finite and > 0, else a bad argument naming it
---@field friction? number (0.5) used by colliders without their own
---@field restitution? number bounciness (0)
---@field linearDamping? number (0)
---@field angularDamping? number (0)
---@field gravityScale? number (1)
---@field lockRotation? boolean the body never turns (false)
---@field bullet? boolean continuous collision, as LÖVE's setBullet: a fast body is swept through the step instead of passing through thin things (false; 2D: Box2D sweeps every body against static ones anyway, this adds dynamic ones)
---@field interpolate? boolean drawn between its last two steps under a fixed-step Loop (true); scripts read the stepped pose
---@field layer? tycho.Layer the layer of its colliders that name none (1, "default")
---@field mask? tycho.LayerMask the layers its colliders touch (every layer)

---Options of World2D:joint and World3D:joint. Points and directions are in the world (game
---units) and read against the bodies' poses when the joint is made.
---@class tycho.JointOptions
---@field type string 2D: "revolute" (a pin), "distance" (a rod, or a spring with stiffness), "weld", "prismatic" (a slider), "wheel" (free turning and a spring along axis); 3D: "fixed", "hinge", "point" (ball and socket), "slider"
---@field a tycho.GameObject an object with a body in this world (built now if it waits)
---@field b? tycho.GameObject the other one; nil holds a to the world
---@field anchor? tycho.Vec3|number[] where the joint holds a (a's position)
---@field anchorB? tycho.Vec3|number[] distance: where the rod holds b (b's position; the anchor on the world when b is nil)
---@field axis? tycho.Vec3|number[] prismatic, wheel, hinge, slider (required): the direction of sliding, of the wheel's spring, or the hinge's turning axis
---@field length? number distance: the rod's length (the anchors' distance now), >= 0
---@field stiffness? number distance, wheel: a spring's stiffness, newtons a meter (0: a rigid rod for distance)
---@field damping? number distance, wheel: the spring's damping, newton-seconds a meter (0)
---@field collideConnected? boolean the two bodies still touch each other (false)
---@field motor? boolean revolute, wheel, prismatic, hinge, slider: drive the joint (true when motorSpeed or the most force or torque is given)
---@field motorSpeed? number the motor's speed: radians a second (revolute, wheel, hinge) or game units a second along the axis (prismatic, slider) (0)
---@field maxMotorTorque? number revolute, wheel, hinge: the most torque the motor gives (0), >= 0
---@field maxMotorForce? number prismatic, slider: the most force the motor gives (0), >= 0
---@field limit? boolean revolute, wheel, prismatic, hinge, slider: keep the joint between lower and upper (true when either is given)
---@field lower? number the limit's low end: radians (revolute, hinge) or game units along the axis (prismatic, wheel, slider) (0)
---@field upper? number the limit's high end, >= lower (0)

---A joint: world:joint's result. It ends with joint:destroy() or when either object is
---destroyed (at the sweep); a body rebuilt is held again at the next tick.
---@class tycho.Joint
---@field type string read-only (raises once ended)
---@field a tycho.GameObject read-only (raises once ended)
---@field b tycho.GameObject|nil read-only: nil when held to the world (raises once ended)
---@field alive boolean false once ended
---@field angle number|nil read-only: revolute, wheel, hinge: b's turn from a's since the joint was made, radians
---@field translation number|nil read-only: prismatic, wheel, slider: b's travel from a's along a's axis since the joint was made (game units)
---@field motor boolean|nil revolute, wheel, prismatic, hinge, slider: the motor drives the joint
---@field motorSpeed number|nil the motor's speed (radians or game units a second)
---@field maxMotorTorque number|nil revolute, wheel, hinge: the most torque the motor gives
---@field maxMotorForce number|nil prismatic, slider: the most force the motor gives
---@field limit boolean|nil revolute, wheel, prismatic, hinge, slider: the joint is kept between lower and upper
---@field lower number|nil the limit's low end (radians, or game units along the axis)
---@field upper number|nil the limit's high end
local Joint = {}

---Ends the joint now (a second call does nothing).
function Joint:destroy() end

---What onCollisionEnter receives with the other object.
---@class tycho.Contact
---@field point tycho.Vec3 where they touch, in world units (the middle of the touching points)
---@field normal tycho.Vec3 unit, pointing from the other object towards this one
---@field impulse number the normal impulse the first step of the contact applied (mass times units per second)

---What raycast returns for the nearest hit (triggers are not hit).
---@class tycho.RayHit
---@field object tycho.GameObject
---@field point tycho.Vec3
---@field normal tycho.Vec3 the surface's, unit
---@field distance number from the origin along the direction

---Hooks a component may define to hear of its object's contacts; all run in the postPhysics
---phase, before the postPhysics hooks.
---@class tycho.ContactHooks
---@field onCollisionEnter? fun(self, other: tycho.GameObject, contact: tycho.Contact)
---@field onCollisionExit? fun(self, other: tycho.GameObject)
---@field onTriggerEnter? fun(self, other: tycho.GameObject)
---@field onTriggerExit? fun(self, other: tycho.GameObject)

-- ---------------------------------------------------------------------------------------
-- 2D (Box2D)

---A 2D body: moves in the XY plane, turns about Z. Values are in game units
---(meters times scene.physics2d.unitsPerMeter).
---@class tycho.RigidBody2D: tycho.Component
---@field type tycho.BodyType
---@field mass number
---@field friction number
---@field restitution number
---@field linearDamping number
---@field angularDamping number
---@field gravityScale number
---@field lockRotation boolean
---@field bullet boolean
---@field layer integer (1) read as a number; assign a name or number
---@field mask integer[] the layer numbers it touches (all 32); assign a tycho.LayerMask
---@field interpolate boolean drawn between its last two steps under a fixed-step Loop (true)
---@field renderPosition tycho.Vec3 read-only: where its object is drawn this frame (the blend, or its world position)
---@field velocity tycho.Vec3 units per second, live: each read of a field reads the body, a field written reaches it (z is 0)
---@field angularVelocity number radians per second about Z
---@field sleeping boolean read-only: at rest, not simulated until woken or touched
tycho.RigidBody2D = {}

---@param opts? tycho.RigidBodyOptions
---@return tycho.RigidBody2D
function tycho.RigidBody2D.new(opts) end

---@param v tycho.Vec3|{x: number, y: number}
function tycho.RigidBody2D:setVelocity(v) end

---A force at the centre of mass, for the next step.
---@param v tycho.Vec3|{x: number, y: number}
function tycho.RigidBody2D:applyForce(v) end

---An impulse at the centre of mass: the velocity changes by v / mass at once.
---@param v tycho.Vec3|{x: number, y: number}
function tycho.RigidBody2D:applyImpulse(v) end

function tycho.RigidBody2D:wake() end

---Options every collider takes.
---@class tycho.ColliderOptions
---@field trigger? boolean overlaps are reported (onTriggerEnter/Exit), nothing is pushed
---@field friction? number overrides the body's
---@field restitution? number overrides the body's
---@field layer? tycho.Layer overrides the body's (3D: a body has one layer, the first collider's that sets one)
---@field mask? tycho.LayerMask overrides the body's (3D: as layer)

---@class tycho.BoxCollider2DOptions: tycho.ColliderOptions
---@field size? {x: number, y: number} full extents in the object's units (1 x 1)
---@field center? {x: number, y: number} offset in the object's units

---@class tycho.BoxCollider2D: tycho.Component
---@field trigger boolean
---@field layer integer read as a number; assign a name or number (rebuilds the body)
---@field mask integer[] the layer numbers it touches; assign a tycho.LayerMask (rebuilds the body)
---@field friction number?
---@field restitution number?
tycho.BoxCollider2D = {}

---@param opts? tycho.BoxCollider2DOptions
---@return tycho.BoxCollider2D
function tycho.BoxCollider2D.new(opts) end

---@class tycho.CircleCollider2DOptions: tycho.ColliderOptions
---@field radius? number in the object's units (0.5)
---@field center? {x: number, y: number}

---@class tycho.CircleCollider2D: tycho.Component
---@field trigger boolean
---@field layer integer read as a number; assign a name or number (rebuilds the body)
---@field mask integer[] the layer numbers it touches; assign a tycho.LayerMask (rebuilds the body)
---@field friction number?
---@field restitution number?
tycho.CircleCollider2D = {}

---@param opts? tycho.CircleCollider2DOptions
---@return tycho.CircleCollider2D
function tycho.CircleCollider2D.new(opts) end

---@class tycho.PolygonCollider2DOptions: tycho.ColliderOptions
---@field points number[] {x1, y1, x2, y2, ...}: 3 to 8 corners of a convex polygon, either winding

---@class tycho.PolygonCollider2D: tycho.Component
---@field trigger boolean
---@field layer integer read as a number; assign a name or number (rebuilds the body)
---@field mask integer[] the layer numbers it touches; assign a tycho.LayerMask (rebuilds the body)
---@field friction number?
---@field restitution number?
tycho.PolygonCollider2D = {}

---@param opts tycho.PolygonCollider2DOptions
---@return tycho.PolygonCollider2D
function tycho.PolygonCollider2D.new(opts) end

---A scene's 2D world (scene.physics2d, made on first use).
---@class tycho.World2D
---@field gravity tycho.Vec3 units per second squared ((0, -9.81)); assign a Vec3 or {x=, y=}
---@field unitsPerMeter number game units per Box2D meter (1), as LÖVE's setMeter; set it before adding bodies
---@field bodyCount integer read-only: bodies in the world
---@field jointCount integer read-only: joints in the world
---@field stepTime number read-only: seconds Box2D's step call alone took at the last tick (what tycho adds is the rest)
local World2D = {}

---The nearest solid hit along the ray, or nil.
---@param origin tycho.Vec3|{x: number, y: number}
---@param direction tycho.Vec3|{x: number, y: number} any length but 0
---@param maxDistance? number (1e6)
---@param mask? tycho.LayerMask only colliders on these layers are hit (every layer)
---@return tycho.RayHit|nil
function World2D:raycast(origin, direction, maxDistance, mask) end

---Many rays in one call, flat arrays in and out (no table a ray): rays holds ox, oy, dx, dy,
---maxDistance for each ray; out (made when nil; pass it again each frame) gets, for ray i from
---index (i - 1) * 6 + 1, the object hit, px, py, nx, ny and the distance, or just false in
---place of the object when the ray hits nothing (the five after it are then left as they
---were). Every ray is checked first: a bad one raises naming its index, and out is untouched.
---Each ray gives exactly what raycast gives for it.
---@param rays number[] 5 numbers a ray; a direction of any length but 0, maxDistance >= 0
---@param out? table reused: 6 values a ray
---@param mask? tycho.LayerMask only colliders on these layers are hit (every layer)
---@return table out
---@return integer hits how many rays hit something
function World2D:raycastBatch(rays, out, mask) end

---Joins a to b (or to the world): type "revolute", "distance", "weld", "prismatic" or "wheel".
---Bad options raise a bad argument naming them.
---@param opts tycho.JointOptions
---@return tycho.Joint
function World2D:joint(opts) end

-- ---------------------------------------------------------------------------------------
-- 3D (Bullet)

---A 3D body. Changing any field but the velocities rebuilds it (velocity kept).
---@class tycho.RigidBody: tycho.Component
---@field type tycho.BodyType
---@field mass number
---@field friction number
---@field restitution number Bullet multiplies the two bodies' restitutions
---@field linearDamping number
---@field angularDamping number
---@field gravityScale number
---@field lockRotation boolean
---@field bullet boolean
---@field layer integer (1) read as a number; assign a name or number
---@field mask integer[] the layer numbers it touches (all 32); assign a tycho.LayerMask
---@field interpolate boolean drawn between its last two steps under a fixed-step Loop (true)
---@field renderPosition tycho.Vec3 read-only: where its object is drawn this frame (the blend, or its world position)
---@field velocity tycho.Vec3 units per second, live: each read of a field reads the body, a field written reaches it
---@field angularVelocity tycho.Vec3 radians per second about each axis, live as velocity
---@field sleeping boolean read-only
tycho.RigidBody = {}

---@param opts? tycho.RigidBodyOptions
---@return tycho.RigidBody
function tycho.RigidBody.new(opts) end

---@param v tycho.Vec3|{x: number, y: number, z: number}
function tycho.RigidBody:setVelocity(v) end

---@param v tycho.Vec3|{x: number, y: number, z: number}
function tycho.RigidBody:applyForce(v) end

---@param v tycho.Vec3|{x: number, y: number, z: number}
function tycho.RigidBody:applyImpulse(v) end

function tycho.RigidBody:wake() end

---@class tycho.BoxColliderOptions: tycho.ColliderOptions
---@field size? {x: number, y: number, z: number} full extents (1, 1, 1)
---@field center? {x: number, y: number, z: number}

---@class tycho.BoxCollider: tycho.Component
---@field trigger boolean
---@field layer integer read as a number; assign a name or number (rebuilds the body)
---@field mask integer[] the layer numbers it touches; assign a tycho.LayerMask (rebuilds the body)
tycho.BoxCollider = {}

---@param opts? tycho.BoxColliderOptions
---@return tycho.BoxCollider
function tycho.BoxCollider.new(opts) end

---@class tycho.SphereColliderOptions: tycho.ColliderOptions
---@field radius? number (0.5)
---@field center? {x: number, y: number, z: number}

---@class tycho.SphereCollider: tycho.Component
---@field trigger boolean
---@field layer integer read as a number; assign a name or number (rebuilds the body)
---@field mask integer[] the layer numbers it touches; assign a tycho.LayerMask (rebuilds the body)
tycho.SphereCollider = {}

---@param opts? tycho.SphereColliderOptions
---@return tycho.SphereCollider
function tycho.SphereCollider.new(opts) end

---@class tycho.CapsuleColliderOptions: tycho.ColliderOptions
---@field radius? number (0.5)
---@field height? number along Y, caps included (2); at least twice the radius
---@field center? {x: number, y: number, z: number}

---@class tycho.CapsuleCollider: tycho.Component
---@field trigger boolean
---@field layer integer read as a number; assign a name or number (rebuilds the body)
---@field mask integer[] the layer numbers it touches; assign a tycho.LayerMask (rebuilds the body)
tycho.CapsuleCollider = {}

---@param opts? tycho.CapsuleColliderOptions
---@return tycho.CapsuleCollider
function tycho.CapsuleCollider.new(opts) end

---@class tycho.MeshColliderOptions: tycho.ColliderOptions
---@field mesh tycho.Mesh|{vertices: number[], indices: integer[]} a render Mesh (its triangles when the collider is made), or vertices {x1, y1, z1, ...} and indices from 1, three per triangle

---A triangle mesh: static bodies only, and the object's only 3D collider.
---@class tycho.MeshCollider: tycho.Component
---@field trigger boolean
---@field layer integer read as a number; assign a name or number (rebuilds the body)
---@field mask integer[] the layer numbers it touches; assign a tycho.LayerMask (rebuilds the body)
tycho.MeshCollider = {}

---@param opts tycho.MeshColliderOptions
---@return tycho.MeshCollider
function tycho.MeshCollider.new(opts) end

---A scene's 3D world (scene.physics, made on first use).
---@class tycho.World3D
---@field gravity tycho.Vec3 ((0, -9.81, 0)); assign a Vec3 or {x=, y=, z=}
---@field bodyCount integer read-only
---@field jointCount integer read-only: joints in the world
---@field stepTime number read-only: seconds Bullet's step call alone took at the last tick (what tycho adds is the rest)
local World3D = {}

---@param origin tycho.Vec3|{x: number, y: number, z: number}
---@param direction tycho.Vec3|{x: number, y: number, z: number}
---@param maxDistance? number (1e6)
---@param mask? tycho.LayerMask only bodies on these layers are hit (every layer)
---@return tycho.RayHit|nil
function World3D:raycast(origin, direction, maxDistance, mask) end

---Many rays in one call, flat arrays in and out: rays holds ox, oy, oz, dx, dy, dz,
---maxDistance for each ray; out (made when nil; pass it again each frame) gets, for ray i from
---index (i - 1) * 8 + 1, the object hit, px, py, pz, nx, ny, nz and the distance, or just
---false in place of the object when the ray hits nothing. Checked, and equal to raycast ray
---by ray, as World2D:raycastBatch.
---@param rays number[] 7 numbers a ray
---@param out? table reused: 8 values a ray
---@param mask? tycho.LayerMask only bodies on these layers are hit (every layer)
---@return table out
---@return integer hits how many rays hit something
function World3D:raycastBatch(rays, out, mask) end

---Joins a to b (or to the world): type "fixed", "hinge", "point" or "slider".
---@param opts tycho.JointOptions
---@return tycho.Joint
function World3D:joint(opts) end

---@class tycho.Scene
---@field physics tycho.World3D made on first use
---@field physics2d tycho.World2D made on first use
