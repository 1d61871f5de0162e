-- examples/crafty/player.lua: first-person movement: walking relative to the view's yaw,
-- gravity and jumping, and an axis-aligned box (0.6 x 1.8 x 0.6) kept out of solid blocks by
-- moving one axis at a time and stopping at the first block face it would cross. Creative
-- players may fly (F toggles). Pure logic over a world's solid(x, y, z): testable headless.
local Player = {}
Player.__index = Player

Player.HALF_WIDTH, Player.HEIGHT, Player.EYE = 0.3, 1.8, 1.62
Player.GRAVITY, Player.JUMP_SPEED, Player.WALK_SPEED, Player.FLY_SPEED = 28, 8.4, 4.6, 11
Player.REACH = 6

local floor = math.floor
local EPS = 1e-4

---@param world table a World (solid(x, y, z))
---@param p {x: number, y: number, z: number, yaw?: number, pitch?: number}
function Player.new(world, p)
  return setmetatable({
    world = world,
    x = p.x, y = p.y, z = p.z, yaw = p.yaw or 0, pitch = p.pitch or 0,
    vx = 0, vy = 0, vz = 0,
    onGround = false, flying = false,
  }, Player)
end

-- Whether the box at feet (x, y, z) overlaps any solid block.
function Player:collides(x, y, z)
  local hw = Player.HALF_WIDTH
  for bx = floor(x - hw + EPS), floor(x + hw - EPS) do
    for by = floor(y + EPS), floor(y + Player.HEIGHT - EPS) do
      for bz = floor(z - hw + EPS), floor(z + hw - EPS) do
        if self.world:solid(bx, by, bz) then return true end
      end
    end
  end
  return false
end

-- Moves along one axis by d, stopping flush against the first block in the way.
-- Returns whether it was stopped.
function Player:_move(axis, d)
  if d == 0 then return false end
  -- Steps of at most 0.45 blocks, so a fast fall never tunnels through a block.
  local steps = math.ceil(math.abs(d) / 0.45)
  local step = d / steps
  for _ = 1, steps do
    local nx, ny, nz = self.x, self.y, self.z
    if axis == 1 then nx = nx + step elseif axis == 2 then ny = ny + step else nz = nz + step end
    if self:collides(nx, ny, nz) then
      local hw = Player.HALF_WIDTH
      -- Snap to the block face that stopped it.
      if axis == 1 then
        self.x = step > 0 and floor(nx + hw) - hw - EPS or floor(nx - hw) + 1 + hw + EPS
      elseif axis == 2 then
        self.y = step > 0 and floor(ny + Player.HEIGHT) - Player.HEIGHT - EPS or floor(ny) + 1
      else
        self.z = step > 0 and floor(nz + hw) - hw - EPS or floor(nz - hw) + 1 + hw + EPS
      end
      if self:collides(self.x, self.y, self.z) then
        -- The snap was no better (spawned inside a block): stay where it was.
        if axis == 1 then self.x = nx - step elseif axis == 2 then self.y = ny - step else self.z = nz - step end
      end
      return true
    end
    self.x, self.y, self.z = nx, ny, nz
  end
  return false
end

---One physics step. input: {forward=, right=, jump=, down=} in -1..1 / booleans.
---@param dt number
---@param input {forward: number, right: number, jump: boolean, down?: boolean}
function Player:step(dt, input)
  local sy, cy = math.sin(self.yaw), math.cos(self.yaw)
  -- yaw 0 looks down -Z; forward is (-sin yaw, -cos yaw), right is (cos yaw, -sin yaw).
  local f, r = input.forward or 0, input.right or 0
  local mx, mz = -sy * f + cy * r, -cy * f - sy * r
  local len = math.sqrt(mx * mx + mz * mz)
  if len > 1 then mx, mz = mx / len, mz / len end
  local speed = self.flying and Player.FLY_SPEED or Player.WALK_SPEED
  self.vx, self.vz = mx * speed, mz * speed
  if self.flying then
    self.vy = ((input.jump and 1 or 0) - (input.down and 1 or 0)) * Player.FLY_SPEED
  else
    if input.jump and self.onGround then self.vy = Player.JUMP_SPEED end
    self.vy = math.max(self.vy - Player.GRAVITY * dt, -60)
  end
  self:_move(1, self.vx * dt)
  self:_move(3, self.vz * dt)
  local stopped = self:_move(2, self.vy * dt)
  self.onGround = stopped and self.vy <= 0
  if stopped then self.vy = 0 end
  if self.y < -64 then self.y, self.vy = 140, 0 end -- fell out of the world: back from the sky
end

---The eye position.
function Player:eye() return self.x, self.y + Player.EYE, self.z end

---The unit view direction.
function Player:look()
  local cp = math.cos(self.pitch)
  return -math.sin(self.yaw) * cp, math.sin(self.pitch), -math.cos(self.yaw) * cp
end

---Whether the block cell (bx, by, bz) overlaps the player (placing there is refused).
function Player:occupies(bx, by, bz)
  local hw = Player.HALF_WIDTH
  return bx + 1 > self.x - hw and bx < self.x + hw and by + 1 > self.y and by < self.y + Player.HEIGHT
    and bz + 1 > self.z - hw and bz < self.z + hw
end

---Turns by mouse motion (radians), pitch clamped short of straight up and down.
function Player:turn(dyaw, dpitch)
  self.yaw = (self.yaw + dyaw) % (2 * math.pi)
  self.pitch = math.max(-1.55, math.min(1.55, self.pitch + dpitch))
end

return Player
