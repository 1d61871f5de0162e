---@meta tycho
-- scripts/meta/tycho.lua: LuaLS annotations for the Lua API tycho has today.
--
-- Never loaded at run time. Point lua-language-server at this folder (add "scripts/meta"
-- under the engine's home to `workspace.library`); scripts/docs/reference.md says how and
-- describes every name with an example. The names here follow bindings/*.c and
-- scripts/tycho/*.lua; the other files of this folder declare the modules (render, input,
-- crdt, sync, sandbox, storage, net, server, reload, voxel, image).

-- ---------------------------------------------------------------------------------------
-- Shared shapes

---A phase name, in tick order; "render" is the once-per-frame updateRender step.
---@alias tycho.Phase "input"|"prePhysics"|"physics"|"postPhysics"|"gameLogic"|"animation"|"preRender"|"render"

---A position or scale: a Vec3, `{x=, y=, z=}` or `{x, y, z}`.
---@alias tycho.Vec3Like tycho.Vec3|{x: number, y: number, z: number}|number[]

---A rotation: a Quat, `{x=, y=, z=, w=}` or `{x, y, z, w}`.
---@alias tycho.QuatLike tycho.Quat|{x: number, y: number, z: number, w: number}|number[]

-- ---------------------------------------------------------------------------------------
-- The tycho table

---The engine's table: a global in every mode, and what `require("tycho")` returns.
---@class tycho
tycho = {}

---The engine version string, e.g. "0.1.0".
---@type string
tycho.version = "0.1.0"

---True when this binary was built with AddressSanitizer (RSS then says little about leaks).
---@type boolean
tycho.sanitized = false

---Path of the folder holding the engine's `scripts/` (from TYCHO_HOME, or found beside the binary).
---@type string
tycho.home = ""

---Absolute path of the running tycho binary (absent only if /proc/self/exe cannot be read).
---@type string
tycho.executable = ""

---The phase names in tick order: input, prePhysics, physics, postPhysics, gameLogic, animation, preRender, render.
---@type tycho.Phase[]
tycho.PHASES = {}

---Monotonic wall-clock seconds, for timing code (not the scene clock).
---@return number seconds
function tycho.now() end

-- ---------------------------------------------------------------------------------------
-- Math: Vec3

---A 3-component float vector: an owned value, or a live view of a GameObject's transform.
---@class tycho.Vec3
---@operator add(tycho.Vec3): tycho.Vec3
---@operator sub(tycho.Vec3): tycho.Vec3
---@operator mul(number): tycho.Vec3
---@operator unm: tycho.Vec3
---X component; assigning a non-number raises.
---@field x number
---Y component; assigning a non-number raises.
---@field y number
---Z component; assigning a non-number raises.
---@field z number
local Vec3 = {}

---Sets the components (missing ones become 0); returns self.
---@param x? number
---@param y? number
---@param z? number
---@return tycho.Vec3 self
function Vec3:set(x, y, z) end

---Copies v's components into self; returns self.
---@param v tycho.Vec3
---@return tycho.Vec3 self
function Vec3:copy(v) end

---A new owned Vec3 with the same components (use it to keep a transform view's value).
---@return tycho.Vec3
function Vec3:clone() end

---The three components as numbers.
---@return number x, number y, number z
function Vec3:unpack() end

---Euclidean length.
---@return number
function Vec3:length() end

---Dot product with v.
---@param v tycho.Vec3
---@return number
function Vec3:dot(v) end

---Cross product self x v, as a new Vec3.
---@param v tycho.Vec3
---@return tycho.Vec3
function Vec3:cross(v) end

---Scales self to length 1 in place (a zero vector stays zero); returns self.
---@return tycho.Vec3 self
function Vec3:normalize() end

---Makes an owned Vec3; missing components are 0.
---@param x? number
---@param y? number
---@param z? number
---@return tycho.Vec3
function tycho.vec3(x, y, z) end

-- ---------------------------------------------------------------------------------------
-- Math: Quat

---A rotation quaternion (x, y, z, w): an owned value, or a live view of a GameObject's rotation.
---`q * q2` composes like q:mul(q2); `q * v` rotates a Vec3 like q:rotate(v).
---@class tycho.Quat
---@operator mul(tycho.Quat): tycho.Quat
---@operator mul(tycho.Vec3): tycho.Vec3
---X component.
---@field x number
---Y component.
---@field y number
---Z component.
---@field z number
---W (scalar) component.
---@field w number
local Quat = {}

---Sets the components (missing x, y, z are 0, a missing w is 1); returns self.
---@param x? number
---@param y? number
---@param z? number
---@param w? number
---@return tycho.Quat self
function Quat:set(x, y, z, w) end

---Sets self to a rotation of angle radians about axis (ax, ay, az), normalized; a zero axis gives the identity. Returns self.
---@param ax number
---@param ay number
---@param az number
---@param angle number radians
---@return tycho.Quat self
function Quat:setAxisAngle(ax, ay, az, angle) end

---Copies q's components into self; returns self.
---@param q tycho.Quat
---@return tycho.Quat self
function Quat:copy(q) end

---A new owned Quat with the same components.
---@return tycho.Quat
function Quat:clone() end

---The four components as numbers.
---@return number x, number y, number z, number w
function Quat:unpack() end

---Scales self to unit length in place (a zero quaternion becomes the identity); returns self.
---@return tycho.Quat self
function Quat:normalize() end

---The product self * q as a new Quat: q is applied first, then self.
---@param q tycho.Quat
---@return tycho.Quat
function Quat:mul(q) end

---v rotated by self, as a new Vec3.
---@param v tycho.Vec3
---@return tycho.Vec3
function Quat:rotate(v) end

---tycho.quat: call it to make a Quat, or use its constructors.
---@class tycho.QuatModule
---@overload fun(x?: number, y?: number, z?: number, w?: number): tycho.Quat
local QuatModule = {}

---A new identity Quat (0, 0, 0, 1).
---@return tycho.Quat
function QuatModule.identity() end

---A new Quat rotating angle radians about axis (ax, ay, az); the axis is normalized, a zero axis gives the identity.
---@param ax number
---@param ay number
---@param az number
---@param angle number radians
---@return tycho.Quat
function QuatModule.axisAngle(ax, ay, az, angle) end

---Makes a Quat: `tycho.quat(x, y, z, w)` (defaults 0, 0, 0, 1), `tycho.quat.identity()`, `tycho.quat.axisAngle(...)`.
tycho.quat = QuatModule

-- ---------------------------------------------------------------------------------------
-- Math: Mat4

---A 4x4 float matrix, column-major; `m * m2` is m:mul(m2).
---@class tycho.Mat4
---@operator mul(tycho.Mat4): tycho.Mat4
local Mat4 = {}

---Element i (1..16, column-major: 13, 14, 15 hold the translation).
---@param i integer
---@return number
function Mat4:get(i) end

---Sets element i (1..16, column-major); returns self.
---@param i integer
---@param value number
---@return tycho.Mat4 self
function Mat4:set(i, value) end

---The point v (w = 1) transformed by self, as a new Vec3.
---@param v tycho.Vec3
---@return tycho.Vec3
function Mat4:transformPoint(v) end

---Inverts self in place; raises "Mat4:invert: matrix is singular" when it has no inverse. Returns self.
---@return tycho.Mat4 self
function Mat4:invert() end

---The product self * m as a new Mat4 (m is applied first).
---@param m tycho.Mat4
---@return tycho.Mat4
function Mat4:mul(m) end

---A new Mat4 with the same elements.
---@return tycho.Mat4
function Mat4:clone() end

---tycho.mat4: call it for an identity Mat4, or use its constructors.
---@class tycho.Mat4Module
---@overload fun(): tycho.Mat4
local Mat4Module = {}

---A new identity Mat4 (same as `tycho.mat4()`).
---@return tycho.Mat4
function Mat4Module.identity() end

---A new Mat4 = translate(position) * rotate(rotation) * scale(scale); rotation and scale may be nil.
---@param position tycho.Vec3
---@param rotation? tycho.Quat
---@param scale? tycho.Vec3
---@return tycho.Mat4
function Mat4Module.fromTRS(position, rotation, scale) end

---Makes a Mat4: `tycho.mat4()` (identity), `tycho.mat4.identity()`, `tycho.mat4.fromTRS(p, r, s)`.
tycho.mat4 = Mat4Module

-- ---------------------------------------------------------------------------------------
-- Scene graph: GameObject

---The table form of `tycho.GameObject.new{...}`.
---@class tycho.GameObjectOptions
---Name (default "GameObject").
---@field name? string
---Tags to add.
---@field tags? string[]
---Local position.
---@field position? tycho.Vec3Like
---Local rotation.
---@field rotation? tycho.QuatLike
---Local scale.
---@field scale? tycho.Vec3Like
---Starts disabled when false.
---@field enabled? boolean

---An object in the scene graph: a transform, an ordered list of components, tags and
---any fields the game stores on it. Once swept, everything but `destroyed`, `destroy()` and tostring raises.
---@class tycho.GameObject
---Integer id, stable for the object's life; never silently reused. Read-only.
---@field id integer
---Name; settable.
---@field name string
---Its own enabled flag; phase hooks run only when it and every ancestor are enabled.
---@field enabled boolean
---Parent object or nil; assigning it is setParent.
---@field parent tycho.GameObject|nil
---Children in order, a new array on each read. Read-only.
---@field children tycho.GameObject[]
---Tag names, a new array on each read. Read-only.
---@field tags string[]
---The scene it belongs to (pending joins included), or nil. Read-only.
---@field scene tycho.Scene|nil
---True from destroy() on, and after the sweep (the one field a swept object still answers). Read-only.
---@field destroyed boolean
---Local position: a plain table {x=, y=, z=} with Vec3's methods, read back by the engine when it needs
---the value (go.position.y = 2 moves it); assign a Vec3 or table to set all three.
---@field position tycho.Vec3
---Local rotation: a plain table {x=, y=, z=, w=} with Quat's methods; assign a Quat or table to set it.
---@field rotation tycho.Quat
---Local scale: a plain table {x=, y=, z=} with Vec3's methods; assign a Vec3 or table to set it.
---@field scale tycho.Vec3
---World position: a read-only view brought up to date on every read (clone() to keep one).
---@field worldPosition tycho.Vec3
---World rotation: a read-only view that always reads the current value.
---@field worldRotation tycho.Quat
---World scale: a read-only view that always reads the current value.
---@field worldScale tycho.Vec3
---Any other key is a field the game stores on the object.
---@field [string] any
local GameObject = {}

---Creates a GameObject (in no scene): `new(name)` or `new{name=, tags=, position=, rotation=, scale=, enabled=}`.
---@param nameOrOptions? string|tycho.GameObjectOptions
---@return tycho.GameObject
function GameObject.new(nameOrOptions) end

---Adds a component: `addComponent(Class, ...)` constructs `Class.new(...)`; `addComponent(instance)` attaches a detached instance. Runs onAttach; returns the instance.
---@generic T: tycho.Component
---@param classOrInstance T
---@param ... any arguments for Class.new
---@return T instance
function GameObject:addComponent(classOrInstance, ...) end

---The first component whose class is Class, or nil.
---@generic T: tycho.Component
---@param class T
---@return T|nil
function GameObject:getComponent(class) end

---Every component whose class is Class, in add order; every component when Class is nil.
---@generic T: tycho.Component
---@param class? T
---@return T[]
function GameObject:getComponents(class) end

---Detaches a component: runs its onDetach and clears its gameObject. Returns false when it is not on this object.
---@param instance tycho.Component
---@return boolean removed
function GameObject:removeComponent(instance) end

---Makes child a child of self (it keeps its local TRS and joins self's scene); returns child.
---@param child tycho.GameObject
---@return tycho.GameObject child
function GameObject:addChild(child) end

---Makes child a root again when self is its parent (it stays in the scene).
---@param child tycho.GameObject
function GameObject:removeChild(child) end

---Sets the parent (nil: root). The local TRS is kept, so it moves with its new parent; raises on a cycle.
---@param parent tycho.GameObject|nil
function GameObject:setParent(parent) end

---Adds a tag (no-op if present).
---@param tag string
function GameObject:addTag(tag) end

---True when the object has the tag.
---@param tag string
---@return boolean
function GameObject:hasTag(tag) end

---Removes a tag (no-op if absent).
---@param tag string
function GameObject:removeTag(tag) end

---Marks it and its children destroyed: no more hooks; onDestroy and removal at its scene's next sweep (at once when in no scene). Twice is a no-op.
function GameObject:destroy() end

---Writes the world position into out (a new Vec3 when nil) and returns it.
---@param out? tycho.Vec3
---@return tycho.Vec3
function GameObject:getWorldPosition(out) end

---Writes the world rotation into out (a new Quat when nil) and returns it.
---@param out? tycho.Quat
---@return tycho.Quat
function GameObject:getWorldRotation(out) end

---Writes the world scale into out (a new Vec3 when nil) and returns it.
---@param out? tycho.Vec3
---@return tycho.Vec3
function GameObject:getWorldScale(out) end

---The local-to-world matrix as a new Mat4.
---@return tycho.Mat4
function GameObject:localToWorld() end

---Writes the local-to-world matrix into m and returns m.
---@param m tycho.Mat4
---@return tycho.Mat4 m
function GameObject:localToWorldInto(m) end

---The world-to-local matrix (inverse of localToWorld) as a new Mat4.
---@return tycho.Mat4
function GameObject:worldToLocal() end

---Turns the object so its forward (-Z, the way a Camera looks) points at target in world
---space, its +Y leaning towards up (default {0, 1, 0}). Sets the local rotation, worked out
---in the parent's space. A target at the object's own position leaves the rotation as it
---is; an up along the line of sight falls back to -Z or +Z, then +Y (never NaN).
---@param target tycho.Vec3|number[]|{x: number, y: number, z: number}|tycho.GameObject a point, or an object's world position
---@param up? tycho.Vec3|number[]|{x: number, y: number, z: number}
---@return tycho.GameObject self
function GameObject:lookAt(target, up) end

---The GameObject class table: its methods, and `new`. Methods added here are seen by every GameObject.
tycho.GameObject = GameObject

-- ---------------------------------------------------------------------------------------
-- Scene graph: Scene

---The `info` table scene.onError receives.
---@class tycho.ErrorInfo
---The hook that raised: a component method ("update", "onAttach", ...), a phase name for a system's update, "system init" or "system dispose".
---@field hook string
---The GameObject whose component raised (nil for systems).
---@field object? tycho.GameObject
---The component instance that raised (nil for systems).
---@field component? tycho.Component

---Options for findByTag and findOneByTag.
---@class tycho.FindOptions
---Also return objects added during the current tick that have not joined yet.
---@field includePending? boolean

---A system: a function run once per tick in its phase, before the objects.
---@class tycho.System
---The phase it runs in ("render": in scene:updateRender, receiving the render context).
---@field phase tycho.Phase
---Called as update(dt) with time.delta (no self); update(ctx) for "render".
---@field update? fun(dtOrCtx: any)
---Called once as init() (no arguments) when the system is added.
---@field init? fun()
---Called once as dispose() (no arguments) when the system is removed.
---@field dispose? fun()

---An ordered set of GameObjects with a clock and systems; `scene:update(dt)` runs one tick.
---@class tycho.Scene
---The scene's clock.
---@field time tycho.Time
---Called as onError(message, info) for every error raised in a hook; nil hands it to tycho.errors (each distinct error logged once with its traceback, repeats as a count a second, the latest on screen).
---@field onError fun(message: string, info: tycho.ErrorInfo)|nil
---Objects with no parent, in join order (pending joins included); a new array on each read.
---@field roots tycho.GameObject[]
---Number of objects in the scene, pending joins included.
---@field count integer
local Scene = {}

---Creates an empty scene with its own clock.
---@return tycho.Scene
function Scene.new() end

---Adds go and its children (deferred to the end of the tick during a tick); raises if go is in another scene. Returns go.
---@param go tycho.GameObject
---@return tycho.GameObject go
function Scene:add(go) end

---Takes go and its children out of the scene (at the sweep during a tick) without destroying them; go becomes a root.
---@param go tycho.GameObject
function Scene:remove(go) end

---Runs one tick: advances the clock by dt (scaled by time.scale), runs the phases, sweeps and flushes.
---@param dt number seconds
function Scene:update(dt) end

---Runs the render step: "render" systems, then updateRender(ctx) on every active component that has it; then sweeps and flushes.
---@param ctx any passed to every updateRender and render system
function Scene:updateRender(ctx) end

---Adds a system: `addSystem(phase, fn)` or `addSystem{phase=, init=, update=, dispose=}`; runs its init. Returns the system table.
---@param phaseOrSystem tycho.Phase|tycho.System a phase name, or a system table
---@param fn? fun(dt: number) with a phase name: the function to run, as fn(time.delta)
---@return tycho.System
function Scene:addSystem(phaseOrSystem, fn) end

---Removes a system and runs its dispose; returns false when it was not added to this scene.
---@param system tycho.System
---@return boolean removed
function Scene:removeSystem(system) end

---The object with this id in this scene (pending joins and not-yet-swept objects included), or nil.
---@param id integer
---@return tycho.GameObject|nil
function Scene:findById(id) end

---Objects with the tag in join order, skipping destroyed ones and (unless includePending) pending joins.
---@param tag string
---@param opts? tycho.FindOptions
---@return tycho.GameObject[]
function Scene:findByTag(tag, opts) end

---The first object findByTag would return, or nil.
---@param tag string
---@param opts? tycho.FindOptions
---@return tycho.GameObject|nil
function Scene:findOneByTag(tag, opts) end

---Every object in the scene in join order, pending joins last; a new array.
---@return tycho.GameObject[]
function Scene:objects() end

---Builds a prefab (a registered name, a table or a function) as a new object in this scene, optionally at position; extra arguments go to a function prefab.
---@param prefab string|tycho.PrefabDef|fun(go: tycho.GameObject, ...: any)
---@param position? tycho.Vec3Like
---@param ... any
---@return tycho.GameObject
function Scene:spawn(prefab, position, ...) end

---The first tycho.Camera component in join order, or nil.
---@return tycho.Camera|nil
function Scene:findCamera() end

---The Scene class table: its methods, and `new`. Methods added here are seen by every Scene.
tycho.Scene = Scene

-- ---------------------------------------------------------------------------------------
-- Components

---A component instance: a plain Lua table attached to one GameObject. The hooks are
---optional methods, normally defined on the class.
---@class tycho.Component
---The object it is attached to (nil before addComponent and after removeComponent).
---@field gameObject tycho.GameObject
---Its scene's clock (nil while its object is in no scene).
---@field time tycho.Time
---false: no phase hooks and no updateRender (onAttach, onDetach, onDestroy still run). Default true.
---@field enabled boolean
---Called by Class.new(...) with the constructor's arguments, before the instance is attached.
---@field init? fun(self: tycho.Component, ...: any)
---Called when it is attached to a GameObject.
---@field onAttach? fun(self: tycho.Component)
---Called when removeComponent detaches it.
---@field onDetach? fun(self: tycho.Component)
---Called at the sweep that removes its destroyed object.
---@field onDestroy? fun(self: tycho.Component)
---Hot reload: called on every live instance of the class after the file that declares the class ran again.
---@field onReload? fun(self: tycho.Component)
---Phase "input": called once per tick with time.delta.
---@field input? fun(self: tycho.Component, dt: number)
---Phase "prePhysics": called once per tick with time.delta.
---@field prePhysics? fun(self: tycho.Component, dt: number)
---Phase "physics": called once per tick with time.delta.
---@field physics? fun(self: tycho.Component, dt: number)
---Phase "postPhysics": called once per tick with time.delta.
---@field postPhysics? fun(self: tycho.Component, dt: number)
---Phase "gameLogic": called once per tick with time.delta.
---@field update? fun(self: tycho.Component, dt: number)
---Phase "animation": called once per tick with time.delta.
---@field animation? fun(self: tycho.Component, dt: number)
---Phase "preRender": called once per tick with time.delta.
---@field preRender? fun(self: tycho.Component, dt: number)
---Called once per rendered frame by scene:updateRender(ctx).
---@field updateRender? fun(self: tycho.Component, ctx: tycho.RenderContext|any)

---A component class from tycho.component(name): the instances' metatable and __index,
---so methods defined on it are every instance's methods. Declare your own class as
---`---@class Spin: tycho.ComponentClass` above `local Spin = tycho.component("Spin")`.
---@class tycho.ComponentClass: tycho.Component
---The name given to tycho.component.
---@field __name string
---The class itself.
---@field __index tycho.ComponentClass
local ComponentClass = {}

---Creates an instance with enabled = true and calls instance:init(...) when the class defines init.
---@param ... any
---@return tycho.Component
function ComponentClass.new(...) end

---Declares the component class `name`, or returns the existing one: the same table, so methods defined again replace the old ones for every instance.
---@param name string
---@return tycho.ComponentClass
function tycho.component(name) end

-- ---------------------------------------------------------------------------------------
-- Prefabs

---A table prefab: what scene:spawn builds.
---@class tycho.PrefabDef
---Name of the object (default: the registered name, else "GameObject").
---@field name? string
---Tags to add.
---@field tags? string[]
---Local position, used when spawn gets none.
---@field position? tycho.Vec3Like
---Local rotation.
---@field rotation? tycho.QuatLike
---Local scale.
---@field scale? tycho.Vec3Like
---Components to add in order, each `{Class, arg1, arg2, ...}`.
---@field components? table[]
---Child prefabs (registered names, tables or functions), built as children in order.
---@field children? (string|tycho.PrefabDef|fun(go: tycho.GameObject))[]

---Registers a prefab under name (replacing any earlier one) and returns def.
---@param name string
---@param def tycho.PrefabDef|fun(go: tycho.GameObject, ...: any)
---@return tycho.PrefabDef|fun(go: tycho.GameObject, ...: any) def
function tycho.prefab(name, def) end

-- ---------------------------------------------------------------------------------------
-- Time and the fixed-step loop

---A scene's clock (scene.time, component.time). Only scale can be set.
---@class tycho.Time
---Multiplier on time (>= 0): 0 pauses, 0.5 is slow motion. Settable.
---@field scale number
---Seconds of this tick as hooks see them: dt * scale under scene:update, fixedTimestep under a Loop.
---@field delta number
---Raw seconds of the last update or advance.
---@field unscaledDelta number
---Sum of delta.
---@field elapsed number
---Sum of unscaledDelta.
---@field unscaledElapsed number
---Number of ticks run.
---@field frameCount integer
---Updates (or advances) per second, measured over half-second windows of raw time.
---@field fps number

---Options for tycho.Loop.new.
---@class tycho.LoopOptions
---The scene to drive.
---@field scene tycho.Scene
---Seconds per tick, > 0 (default 1/60).
---@field fixedTimestep? number
---Most ticks per advance, 1..1000 (default 8).
---@field maxSubSteps? integer
---Called once per advance with the interpolation alpha.
---@field render? fun(alpha: number)

---A fixed-step driver for one scene.
---@class tycho.Loop
---True between pause() and resume(). Read-only.
---@field paused boolean
---Seconds per tick. Read-only.
---@field fixedTimestep number
---Most ticks per advance. Read-only.
---@field maxSubSteps integer
---Scaled seconds not yet ticked. Read-only.
---@field accumulator number
---The scene it drives. Read-only.
---@field scene tycho.Scene
local Loop = {}

---Creates a loop over opts.scene.
---@param opts tycho.LoopOptions
---@return tycho.Loop
function Loop.new(opts) end

---Adds min(rawDt, fixedTimestep*maxSubSteps) * time.scale to the accumulator, runs the ticks it holds (at most maxSubSteps), calls render(alpha); returns both.
---@param rawDt number seconds, >= 0
---@return integer steps, number alpha
function Loop:advance(rawDt) end

---Runs exactly one tick of fixedTimestep, also while paused; the accumulator is untouched.
function Loop:step() end

---Stops advance from running ticks (it still counts raw time and calls render).
function Loop:pause() end

---Lets advance run ticks again.
function Loop:resume() end

---The Loop class table: `tycho.Loop.new{...}`.
tycho.Loop = Loop

-- ---------------------------------------------------------------------------------------
-- Stats and host helpers

---Transform work counters since the last tycho.stats.reset().
---@class tycho.TransformStats
---Local TRS matrices recomputed.
---@field localRebuilds integer
---World matrices recomputed.
---@field worldRebuilds integer

---Engine counters.
---@class tycho.Stats
local Stats = {}

---How many local and world matrices were recomputed since the last reset.
---@return tycho.TransformStats
function Stats.transforms() end

---Zeroes the transform counters and the caught-error count (tycho.stats.errors()).
function Stats.reset() end

---Number of live GameObjects in this Lua state (every scene and none).
---@return integer
function Stats.objects() end

---Engine counters.
tycho.stats = Stats

---What a rendered frame does first: reads back every position, rotation and scale table Lua holds and
---brings every moved world matrix up to date. World reads are always current without it.
function tycho.syncTransforms() end

---File system helpers.
---@class tycho.Fs
local Fs = {}

---Every regular file under path, recursively, sorted, skipping names that start with "."; `{path}` when path is a file; nil, message when it does not exist.
---@param path string
---@return string[]|nil files
---@return string? message
function Fs.walk(path) end

---True when path exists (file, folder or other).
---@param path string
---@return boolean
function Fs.exists(path) end

---File system helpers.
tycho.fs = Fs

-- ---------------------------------------------------------------------------------------
-- Engine (tycho run)

---The table updateRender receives under tycho.engine (one table, reused every frame).
---@class tycho.RenderContext
---Interpolation alpha of this frame (accumulator / fixedTimestep).
---@field alpha number
---The engine.
---@field engine tycho.Engine
---The scene's clock.
---@field time tycho.Time

---What `tycho run` makes before main.lua runs: one scene, its clock, the loop that drives it, and per-frame hooks.
---@class tycho.Engine
---The game's scene.
---@field scene tycho.Scene
---The scene's clock (same as scene.time).
---@field time tycho.Time
---The fixed-step loop driving the scene (1/60 s, 8 sub-steps).
---@field loop tycho.Loop
---True when running without a window (--headless, or no display and no GL).
---@field headless boolean
---Frames completed (counted after the afterFrame hooks).
---@field frameCount integer
---True once quit() was called.
---@field quitting boolean
---The table passed to every updateRender.
---@field renderContext tycho.RenderContext
local Engine = {}

---Adds fn, run as fn() at the start of every frame, before the ticks. Returns fn.
---@param fn fun()
---@return fun() fn
function Engine:beforeFrame(fn) end

---Adds fn, run as fn(alpha) once per frame after the ticks, before components' updateRender. Returns fn.
---@param fn fun(alpha: number)
---@return fun(alpha: number) fn
function Engine:beforeRender(fn) end

---Adds fn, run as fn() at the end of every frame. Returns fn.
---@param fn fun()
---@return fun() fn
function Engine:afterFrame(fn) end

---Adds fn, run as fn() once when `tycho run`'s loop ends (engine:quit(), --frames reached, the
---window closed, SIGINT or SIGTERM), before the Lua state closes; hooks run in the order added
---and one's error does not stop the others. The place to save on quit. Returns fn.
---@param fn fun()
---@return fun() fn
function Engine:onQuit(fn) end

---Runs one frame of rawDt seconds: beforeFrame hooks, loop:advance (ticks, beforeRender hooks, updateRender), afterFrame hooks.
---@param rawDt number
---@return integer steps, number alpha
function Engine:step(rawDt) end

---Asks `tycho run` to stop after the current frame.
function Engine:quit() end

---The running game's engine; set by `tycho run` only (nil under `tycho test`).
---@type tycho.Engine
tycho.engine = nil

---`require("tycho.engine")`: makes engines.
---@class tycho.EngineModule
---The Engine class table (its methods).
---@field Engine tycho.Engine
---What require("tycho.render") returns: the built-in render component classes (the same
---tables as tycho.Camera, tycho.MeshRenderer, ...).
---@field render {Camera: tycho.Camera, MeshRenderer: tycho.MeshRenderer, Sprite: tycho.Sprite, DirectionalLight: tycho.DirectionalLight, PointLight: tycho.PointLight, SpotLight: tycho.SpotLight}
local EngineModule = {}

---Creates an engine with a new scene (what `tycho run` installs as tycho.engine; this does not set it).
---@param opts? {headless?: boolean, fixedTimestep?: number, maxSubSteps?: integer, width?: integer, height?: integer}
---@return tycho.Engine
function EngineModule.new(opts) end

-- ---------------------------------------------------------------------------------------
-- Testing (tycho test): spec files run under busted 2 itself, so describe, it, pending,
-- before_each, finally, assert, spy, stub, mock and match are busted's and luassert's.
-- LuaLS ships their annotations: add "${3rd}/busted/library" and "${3rd}/luassert/library"
-- to workspace.library (or answer its prompt to configure busted).

---`require("tycho.test")`: the driver behind `tycho test`.
---@class tycho.test
local TestModule = {}

---What `tycho test [OPTIONS] [PATH...]` runs: busted's command line (options, .busted files) with tycho's output and closing line; returns 0 when all passed, else 1.
---@param args? string[] the command line after `test`
---@return integer exitCode
function TestModule.main(args) end

---`require("tycho.testing")`: helpers for specs that drive whole games.
---@class tycho.testing
local Testing = {}

---Loads dir/main.lua into a fresh headless engine (as tycho.engine, restored afterwards) and runs frames frames of dt (default 1/60); returns the engine.
---@param dir string
---@param frames? integer
---@param dt? number
---@return tycho.Engine
function Testing.runGame(dir, frames, dt) end

---The folder of the calling file (level 1) or of a caller further up.
---@param level? integer
---@return string
function Testing.here(level) end

---Runs the tycho binary with these arguments as a child process; returns its exit code and its stdout and stderr together.
---@param ... string
---@return integer code, string output
function Testing.exec(...) end

---Quotes a value for a POSIX shell command line.
---@param value any
---@return string
function Testing.quote(value) end

---Runs a shell command; returns its exit code and its stdout and stderr together.
---@param command string
---@return integer code, string output
function Testing.shell(command) end

return tycho
