---@meta tycho.animation
-- scripts/meta/animation.lua: LuaLS annotations for sprite sheets, tycho.SpriteAnimation,
-- tycho.tween and tycho.ParticleSystem (scripts/tycho/animation.lua, tween.lua and
-- particles.lua; bindings/lua_particles.c over engine/particles/). Never loaded at run
-- time; scripts/docs/animation.md and scripts/docs/particles.md describe them.

-- ---------------------------------------------------------------------------------------
-- Sprite sheets and SpriteAnimation

---A texture cut into equal frames, numbered from 1 left to right, then top to bottom.
---@class tycho.SpriteSheet
---@field texture tycho.Texture
---@field frameWidth integer pixels
---@field frameHeight integer pixels
---@field frames number[][] each frame's rect {x, y, w, h} in pixels
---@field nearest boolean pixel-art filtering for the Sprite a SpriteAnimation adds
local SpriteSheet = {}

---Frame i's rect {x, y, w, h} in pixels; raises for a frame the sheet does not have.
---@param i integer
---@return number[]
function SpriteSheet:frame(i) end

---Cuts texture into frames of frameWidth x frameHeight pixels.
---@param texture tycho.Texture
---@param frameWidth integer
---@param frameHeight integer
---@param opts? {margin?: integer, spacing?: integer, count?: integer, nearest?: boolean}
---@return tycho.SpriteSheet
function tycho.spriteSheet(texture, frameWidth, frameHeight, opts) end

---One clip: `frames` (frame numbers of the sheet) or `from`..`to` (default all), `fps`
---(10), `loop` (true), `events` ({[clipFrame] = value}: onEvent hears value each time
---playback enters that frame of the clip).
---@class tycho.AnimationClip
---@field frames? integer[]
---@field from? integer
---@field to? integer
---@field fps? number
---@field loop? boolean
---@field events? table<integer, any>

---@class tycho.SpriteAnimationOptions
---@field sheet tycho.SpriteSheet
---@field clips table<string, tycho.AnimationClip>
---@field clip? string the clip to play at once
---@field speed? number time multiplier (1)
---@field onEvent? fun(self: tycho.SpriteAnimation, event: any, frame: integer)
---@field onFinish? fun(self: tycho.SpriteAnimation, clip: string)

---Plays clips of a sheet on its object's tycho.Sprite (added when the object has none),
---advancing in the animation phase by the scene's scaled delta.
---@class tycho.SpriteAnimation: tycho.Component
---@field sheet tycho.SpriteSheet
---@field clip string|nil the clip playing, or last played
---@field frame integer the clip's frame shown, from 1
---@field clipTime number seconds into the clip
---@field speed number
---@field playing boolean
---@field finished boolean a one-shot clip reached its end
---@field onEvent fun(self: tycho.SpriteAnimation, event: any, frame: integer)|nil
---@field onFinish fun(self: tycho.SpriteAnimation, clip: string)|nil
tycho.SpriteAnimation = {}

---@param opts tycho.SpriteAnimationOptions
---@return tycho.SpriteAnimation
function tycho.SpriteAnimation.new(opts) end

---Plays clip `name` from its start; a clip already playing goes on unless `restart`.
---Raises for an unknown name, listing the clips.
---@param name string
---@param opts? {restart?: boolean}
function tycho.SpriteAnimation:play(name, opts) end
---Stops on the current frame.
function tycho.SpriteAnimation:stop() end
---Holds the current frame.
function tycho.SpriteAnimation:pause() end
---Goes on from the held frame.
function tycho.SpriteAnimation:resume() end
---Advances by dt seconds (times speed); the animation phase calls it.
---@param dt number
function tycho.SpriteAnimation:advance(dt) end
---The clip frame clip `name` shows after t seconds, and whether a one-shot clip is over.
---@param name string
---@param t number
---@return integer frame
---@return boolean over
function tycho.SpriteAnimation:frameAt(name, t) end

-- ---------------------------------------------------------------------------------------
-- Tweens

---@alias tycho.Easing "linear"|"quadIn"|"quadOut"|"quadInOut"|"cubicIn"|"cubicOut"|"cubicInOut"|"quartIn"|"quartOut"|"quartInOut"|"quintIn"|"quintOut"|"quintInOut"|"sineIn"|"sineOut"|"sineInOut"|"expoIn"|"expoOut"|"expoInOut"|"circIn"|"circOut"|"circInOut"|"backIn"|"backOut"|"backInOut"|"elasticIn"|"elasticOut"|"elasticInOut"|"bounceIn"|"bounceOut"|"bounceInOut"

---@class tycho.Tween
---@field target any
---@field duration number seconds
---@field elapsed number seconds played, after the delay
---@field done boolean finished, cancelled, or stopped with its object
---@field cancelled boolean
local Tween = {}
---Stops where it is; completion callbacks do not run.
function Tween:cancel() end
---Adds a completion callback; returns the tween.
---@param fn fun(tween: tycho.Tween)
---@return tycho.Tween
function Tween:onComplete(fn) end

---Moves target's numeric fields to the values in `to` over `seconds`, on a scene's scaled
---clock (the animation phase, before the components' hooks).
---@param target table|userdata
---@param seconds number
---@param to table<string, number>
---@param easing? tycho.Easing|fun(t: number): number ("linear")
---@param opts? {delay?: number, onComplete?: fun(tween: tycho.Tween), scene?: tycho.Scene, owner?: tycho.GameObject}
---@return tycho.Tween
function tycho.tween(target, seconds, to, easing, opts) end

---The easing curves by name: f(t) for t in 0..1, 0 at 0 and 1 at 1.
---@type table<tycho.Easing, fun(t: number): number>
tycho.easing = {}

-- ---------------------------------------------------------------------------------------
-- Particles

---@class tycho.ParticleOptions
---@field maxParticles? integer live particles at most (1000; more than 1,000,000 is capped with a log line)
---@field rate? number particles per second (0)
---@field lifetime? number|number[] seconds, or {min, max} (1)
---@field speed? number|number[] world units per second, or {min, max} (0)
---@field direction? tycho.Vec3Like the way particles leave ({0, 1, 0})
---@field spread? number radians, the full angle of the cone (the arc in 2D) (0)
---@field dimensions? 2|3 2: directions stay in the XY plane (3)
---@field gravity? tycho.Vec3Like acceleration, units per second squared ({0, 0, 0})
---@field damping? number fraction of velocity lost per second (0)
---@field radius? number particles start within this distance of the emitter (0)
---@field colors? tycho.Color[] up to 8 sRGB colours over each particle's life (white)
---@field sizes? number[] up to 8 sizes in world units over each particle's life ({1})
---@field seed? integer the generator's seed: the same seed, the same particles
---@field texture? tycho.Texture what each particle shows (a soft round dot)
---@field blend? "alpha"|"additive" ("alpha")
---@field emitting? boolean false stops the rate; bursts still emit (true)

---Particles simulated in C, in world space, from its object's world position; advanced in
---the animation phase by the scene's scaled delta and drawn by tycho.features.Particles.
---@class tycho.ParticleSystem: tycho.Component
---@field native userdata the C system
tycho.ParticleSystem = {}

---@param opts? tycho.ParticleOptions
---@return tycho.ParticleSystem
function tycho.ParticleSystem.new(opts) end
---Changes the given options; the others and the live particles stay.
---@param opts tycho.ParticleOptions
function tycho.ParticleSystem:configure(opts) end
---Emits n particles now at the emitter; returns how many fit under maxParticles.
---@param n integer
---@return integer
function tycho.ParticleSystem:emit(n) end
---@return integer live particles
function tycho.ParticleSystem:getCount() end
---@return integer particles emitted since creation or the last reset
function tycho.ParticleSystem:getEmitted() end
---Removes every particle and restarts the generator from its seed.
function tycho.ParticleSystem:reset() end
---Simulates dt seconds at the emitter's world position now.
---@param dt number
function tycho.ParticleSystem:simulate(dt) end

---Draws every ParticleSystem over the lit scene; the presets place it before TAA and Tonemap.
---@return tycho.Feature
function tycho.features.Particles() end
