-- examples/crafty/sounds.lua: footsteps while walking on the ground, a crunch where a block
-- breaks and a knock where one is placed (both from the block's position, so they pan and
-- fade with distance), and a quiet wind streamed under everything while a world is open.
-- The ears are the camera's (the engine's default listener). The sounds are the WAV files
-- content/sounds/make_sounds.lua writes; a missing one is simply silent.
local tycho = require("tycho")

local Sounds = {}
Sounds.__index = Sounds

local STRIDE = 1.6 -- blocks walked between two footsteps

local function load(name, opts)
  local clip, err = tycho.audio.load(tycho.home .. "/content/sounds/" .. name, opts)
  if not clip then io.stderr:write("crafty: ", tostring(err), "\n") end
  return clip
end

---@param scene tycho.Scene
function Sounds.new(scene)
  local self = setmetatable({
    step = load("crafty_step.wav"),
    breakBlock = load("crafty_break.wav"),
    place = load("crafty_place.wav"),
    walked = 0,
    steps = 0,
  }, Sounds)
  local wind = load("crafty_wind.wav", { stream = true })
  self.ambience = scene:add(tycho.GameObject.new({ name = "ambience" }))
  self.wind = self.ambience:addComponent(tycho.AudioSource.new({
    clip = wind, volume = 0.15, loop = true, spatial = false,
  }))
  return self
end

---Wind while a world is open, none in the menus.
---@param on boolean
function Sounds:setAmbience(on)
  if on and not self.wind.isPlaying then self.wind:play() elseif not on then self.wind:stop() end
end

---Called after each physics step: a footstep every STRIDE blocks walked on the ground.
---@param player table crafty's Player (x, z, onGround, flying)
function Sounds:walk(player)
  local lx, lz = self.lastX, self.lastZ
  self.lastX, self.lastZ = player.x, player.z
  if not lx or not player.onGround or player.flying then return end
  local d = math.sqrt((player.x - lx) ^ 2 + (player.z - lz) ^ 2)
  if d > 2 then return end -- a teleport (respawn, a pose from the save), not a stride
  self.walked = self.walked + d
  if self.walked >= STRIDE then
    self.walked = self.walked - STRIDE
    self.steps = self.steps + 1
    if self.step then tycho.audio.play(self.step, { volume = 0.5, pitch = 0.9 + 0.2 * (self.steps % 3) / 2 }) end
  end
end

---A block broke ("break") or was placed ("place") at block x, y, z.
function Sounds:block(action, x, y, z)
  local clip = action == "break" and self.breakBlock or self.place
  if clip then tycho.audio.play(clip, { position = { x + 0.5, y + 0.5, z + 0.5 }, volume = 0.8 }) end
end

return Sounds
