-- scripts/tycho/particles.lua: tycho.ParticleSystem, the particle emitter component, and
-- tycho.features.Particles, the feature the presets place after the lit passes to draw
-- every system.
--
-- A ParticleSystem owns one C system (tycho._particles, engine/particles): the simulation,
-- its pools and its generator live in C; this file only feeds it the emitter's world
-- position and the scene's delta once per tick, in the animation phase (scaled time, so a
-- paused scene freezes its particles), and says which systems are drawn.

local tycho = require("tycho")
local P = tycho._particles
local features = require("tycho.render.features")

-- Attached systems (weak): the feature decides each frame which of them are drawn.
local attached = setmetatable({}, { __mode = "k" })

local check = require("tycho.check")
local typeName = check.typeName

---@class tycho.ParticleSystem: tycho.Component
---@field native userdata the C system (tycho._particles)
local ParticleSystem = tycho.component("ParticleSystem")

---@class tycho.ParticleOptions
---@field maxParticles? integer live particles at most (1000; capped at 1,000,000 with a log line)
---@field rate? number particles emitted per second (0)
---@field lifetime? number|number[] seconds, or {min, max} (1)
---@field speed? number|number[] world units per second, or {min, max} (0)
---@field direction? table|tycho.Vec3 the way particles leave ({0, 1, 0})
---@field spread? number radians: the full angle of the cone (or arc, 2D) around direction (0)
---@field dimensions? 2|3 2: directions stay in the XY plane (2D games) (3)
---@field gravity? table|tycho.Vec3 acceleration in world units per second squared ({0, 0, 0})
---@field damping? number fraction of velocity lost per second (0)
---@field radius? number particles start within this distance of the emitter (0)
---@field colors? number[][] up to 8 sRGB colours {r, g, b[, a]} over each particle's life ({{1, 1, 1, 1}})
---@field sizes? number[] up to 8 sizes in world units over each particle's life ({1})
---@field seed? integer the generator's seed: the same seed gives the same particles
---@field texture? tycho.Texture what each particle shows (a soft round dot)
---@field blend? "alpha"|"additive" ("alpha")
---@field emitting? boolean false stops the rate; bursts still emit (true)

local seeds = 0

---@param opts? tycho.ParticleOptions
function ParticleSystem:init(opts)
  if opts ~= nil and type(opts) ~= "table" then
    error(("bad argument #1 to 'new' (table expected, got %s)"):format(typeName(opts)), 3)
  end
  opts = opts or {}
  if opts.seed == nil then
    -- Distinct systems differ; a given seed is what makes a run reproducible.
    seeds = seeds + 1
    local copy = {}
    for k, v in pairs(opts) do copy[k] = v end
    copy.seed = seeds
    opts = copy
  end
  local ok, native = pcall(P.new, opts)
  if not ok then error(("bad argument #1 to 'new' (ParticleSystem %s)"):format(native), 3) end
  self.native = native
end

---Changes some options; the others keep their values, and live particles stay.
---@param opts tycho.ParticleOptions
function ParticleSystem:configure(opts)
  if type(opts) ~= "table" then
    error(("bad argument #1 to 'configure' (table expected, got %s)"):format(typeName(opts)), 2)
  end
  local ok, err = pcall(self.native.configure, self.native, opts)
  if not ok then error(("bad argument #1 to 'configure' (ParticleSystem %s)"):format(err), 2) end
end

local origin = tycho.vec3(0, 0, 0)

local function emitterPosition(self)
  local go = rawget(self, "gameObject")
  if not go then return 0, 0, 0 end
  go:getWorldPosition(origin)
  return origin.x, origin.y, origin.z
end

---Emits n particles at once at the emitter (a burst); returns how many fit under maxParticles.
---@param n integer
---@return integer
function ParticleSystem:emit(n)
  if math.type(n) ~= "integer" or n < 0 then
    error(("bad argument #1 to 'emit' (a count >= 0 expected, got %s)"):format(tostring(n)), 2)
  end
  local x, y, z = emitterPosition(self)
  return self.native:emit(n, x, y, z)
end

---Live particles now.
---@return integer
function ParticleSystem:getCount() return self.native:count() end

---Particles emitted since creation or the last reset.
---@return integer
function ParticleSystem:getEmitted() return self.native:emitted() end

---Removes every particle and restarts the generator from its seed.
function ParticleSystem:reset() self.native:reset() end

---Simulates `dt` seconds at the emitter's world position (the animation phase calls it
---with the scene's delta; a system not on a scene can be stepped by hand).
---@param dt number
function ParticleSystem:simulate(dt)
  if type(dt) ~= "number" then
    error(("bad argument #1 to 'simulate' (number expected, got %s)"):format(typeName(dt)), 2)
  end
  local x, y, z = emitterPosition(self)
  self.native:update(dt, x, y, z)
end

function ParticleSystem:animation(dt) self:simulate(dt) end

function ParticleSystem:onAttach()
  attached[self] = true
end

function ParticleSystem:onDetach()
  attached[self] = nil
  self.native:setVisible(false)
end

function ParticleSystem:onDestroy()
  attached[self] = nil
  self.native:destroy()
end

tycho.ParticleSystem = ParticleSystem

-- A system is drawn while it is attached and enabled on an enabled object; hidden ones
-- keep their particles.
local function addPasses(_self, frame)
  local scene = frame and frame.scene
  for system in pairs(attached) do
    local go = rawget(system, "gameObject")
    local shown = system.enabled ~= false and go ~= nil and not go.destroyed and go.enabled ~= false
      and (scene == nil or go.scene == scene)
    system.native:setVisible(shown)
  end
  P.addPasses()
end

---Draws every ParticleSystem over the lit scene (the presets place it before TAA and
---Tonemap); declares nothing while no particle is alive.
---@return tycho.Feature
function features.Particles()
  return { name = "Particles", enabled = true, builtin = true, addPasses = addPasses }
end

return ParticleSystem
