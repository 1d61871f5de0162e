-- examples/shared-scene: boxes shared by every `tycho run` connected to the same room of
-- server/modules/sync.lua. Each instance owns one box (arrow keys move it; with
-- TYCHO_SYNC_AUTO=1 or headless it circles by itself); the boxes of the others appear and
-- move as their CRDT messages arrive.
--
--   tycho serve &                      # ws://127.0.0.1:8787, server/modules
--   tycho run examples/shared-scene    # twice
--
-- Environment: TYCHO_SYNC_URL (default ws://127.0.0.1:8787), TYCHO_SYNC_ROOM (default
-- "shared"), TYCHO_SYNC_AUTO=1 (automatic motion), TYCHO_SYNC_STOP=N (stop moving after frame
-- N; headless runs print what they see, for examples/shared-scene/spec).
local tycho = require("tycho")
local sync = require("tycho.sync")

local engine = tycho.engine
local scene = engine.scene
local url = os.getenv("TYCHO_SYNC_URL") or "ws://127.0.0.1:8787"
local room = os.getenv("TYCHO_SYNC_ROOM") or "shared"
local auto = os.getenv("TYCHO_SYNC_AUTO") == "1" or engine.headless
local stopAt = tonumber(os.getenv("TYCHO_SYNC_STOP") or "")
local SPEED = 3

local camera = scene:add(tycho.GameObject.new({ name = "camera", position = { x = 0, y = 6, z = 10 } }))
camera.rotation = tycho.quat.axisAngle(1, 0, 0, -0.5)
camera:addComponent(tycho.Camera.perspective(60))
local sun = scene:add(tycho.GameObject.new("sun"))
sun:addComponent(tycho.DirectionalLight, { direction = { -0.4, -1, -0.3 }, intensity = 3 })
local ground = scene:add(tycho.GameObject.new({ name = "ground", scale = { x = 20, y = 1, z = 20 } }))
ground:addComponent(tycho.MeshRenderer, tycho.mesh.plane(), tycho.material({ baseColor = { 0.3, 0.35, 0.3, 1 } }))

local shared, mine, conn, status
local frame, lastReport = 0, nil

local function say(fmt, ...) print(("shared-scene: " .. fmt):format(...)) end

local function onJoined(msg)
  -- Entities this instance creates come from the block the server gave it.
  shared = sync.new(scene, { first = msg.first, last = msg.last, name = "peer" })
  local hue = (msg.session % 6) / 6
  local colour = { 0.4 + 0.6 * math.abs(math.sin(hue * 6.28)), 0.4 + 0.6 * hue, 1 - 0.6 * hue, 1 }
  mine = scene:add(tycho.GameObject.new({ name = "mine", position = { x = (msg.session % 5) * 2 - 4, y = 0.5, z = 0 } }))
  mine:addComponent(tycho.MeshRenderer, tycho.mesh.cube(), tycho.material({ baseColor = colour }))
  shared:track(mine)
  status = "joined"
  say("joined room %s as session %d (entities %d..%d)", msg.room, msg.session, msg.first, msg.last)
end

conn = tycho.net.connect(url, "sync/" .. room, {
  onMessage = function(msg)
    if type(msg) == "string" then
      if shared then
        local _, corrections = shared:apply(msg)
        if corrections then conn:sendBinary(corrections) end
      end
    elseif msg.t == "joined" then
      onJoined(msg)
    elseif msg.t == "error" then
      say("server refused a frame: %s", tostring(msg.message))
    end
  end,
  onClose = function(code, reason) status = "closed"; say("connection closed (%d): %s", code, reason) end,
  onError = function(message) status = "failed"; say("cannot connect to %s: %s", url, message) end,
})

engine:beforeFrame(function()
  frame = frame + 1
  if not mine then return end
  local dt = engine.frameTime > 0 and math.min(engine.frameTime, 0.1) or 1 / 60
  local moving = not stopAt or frame < stopAt
  if moving and auto then
    local t = frame / 60
    mine.position.x = mine.position.x + math.cos(t * 2) * SPEED * dt
    mine.position.z = mine.position.z + math.sin(t * 2) * SPEED * dt
  elseif moving then
    local input = tycho.input
    local dx = (input.isDown("right") and 1 or 0) - (input.isDown("left") and 1 or 0)
    local dz = (input.isDown("down") and 1 or 0) - (input.isDown("up") and 1 or 0)
    mine.position.x = mine.position.x + dx * SPEED * dt
    mine.position.z = mine.position.z + dz * SPEED * dt
  end
  local bytes = shared:flush()
  if bytes ~= "" and status == "joined" then conn:sendBinary(bytes) end
end)

-- A short digest of the shared state, so instances can compare what they hold.
local function digest(s)
  local h = 2166136261
  for i = 1, #s do h = ((h ~ s:byte(i)) * 16777619) & 0xFFFFFFFF end
  return ("%08x"):format(h)
end

engine:afterFrame(function()
  if not shared or not engine.headless then return end
  if frame % 30 == 0 or engine.quitting then
    local boxes = 0
    for _, go in ipairs(scene.roots) do
      if go.name:match("^peer#") then boxes = boxes + 1 end
    end
    local report = ("boxes %d entities %d digest %s"):format(boxes + 1, shared.state:count(),
      digest(shared.state:snapshot()))
    if report ~= lastReport then say("frame %d %s", frame, report) end
    lastReport = report
  end
end)

return { sync = function() return shared end, mine = function() return mine end }
