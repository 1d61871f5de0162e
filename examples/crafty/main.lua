-- examples/crafty: a voxel sandbox. A start screen lists the saved worlds (thumbnails, most
-- recently played first); a world is terrain generated from its seed plus its edit log;
-- walk (WASD, space, mouse look under pointer lock), break (left click) and place (right
-- click) blocks from the hotbar (1..9, wheel), chat (T), creative or survival worlds named
-- as they are made, a day/night sun and moon, autosave (incremental) every 5 s and on quit,
-- and multiplayer through `tycho serve`'s crafty module (M on the start screen; the
-- player's name, P, is saved with the settings and shown over their avatar to others).
-- Logic lives in the modules beside this file; this file wires them to the engine.
--
-- Environment: CRAFTY_AUTOSTART=SEED skips the start screen (a fresh world from SEED);
-- CRAFTY_SAVES=FILE picks the save file; CRAFTY_SERVER=ws://HOST:PORT the server;
-- CRAFTY_VIEW=N the view distance in chunks (default 6).
local tycho = require("tycho")
local World = require("world")
local Player = require("player")
local Inventory = require("inventory")
local Chunks = require("chunks")
local Save = require("save")
local Net = require("net")
local UI = require("ui")
local blocks = require("blocks")
local Sounds = require("sounds")

local engine = tycho.engine
local scene = engine.scene
local input = tycho.input

local DAY_SECONDS = 600 -- one full turn of the sun
-- The server's limits (server/modules/crafty.lua MAX_CHAT, MAX_WORLD_NAME), in bytes.
local CHAT_MAX_BYTES, NAME_MAX_BYTES = 256, 64
local SKY_DAY, SKY_NIGHT, SKY_DUSK = { 0.52, 0.72, 0.98 }, { 0.02, 0.03, 0.08 }, { 0.85, 0.5, 0.3 }

local game = {
  state = "menu", -- "menu", "playing"
  message = nil,
  chat = {},
  thumbs = {},
  unfolded = {}, -- world id -> true: left this session with edits appended, folded on quit
  viewDistance = tonumber(os.getenv("CRAFTY_VIEW") or "") or 6,
  server = os.getenv("CRAFTY_SERVER") or "ws://127.0.0.1:8787",
}
engine.crafty = game -- specs and tools reach the game through the engine

local store, storeError = Save.open()
game.store = store
if not store then game.message = "saves unavailable: " .. tostring(storeError) end
game.settings = Save.loadSettings(store)
-- The name others see in multiplayer: the saved one, else the login name, else "player".
game.playerName = Net.cleanName(game.settings.name) or Net.cleanName(os.getenv("USER") or "") or "player"

-- ---- the scene: camera, sun, moon, highlight ----

local camera = scene:add(tycho.GameObject.new({ name = "camera", position = { x = 0, y = 80, z = 0 } }))
local cameraComponent = camera:addComponent(tycho.Camera.perspective(70, 0.1, 400))
local sun = scene:add(tycho.GameObject.new("sun"))
local sunLight = sun:addComponent(tycho.DirectionalLight.new({ direction = tycho.vec3(-0.3, -1, -0.2), intensity = 3,
  color = { 1, 0.96, 0.88 }, castShadows = false }))
local moon = scene:add(tycho.GameObject.new("moon"))
local moonLight = moon:addComponent(tycho.DirectionalLight.new({ direction = tycho.vec3(0.3, -1, 0.2), intensity = 0.4,
  color = { 0.55, 0.65, 1.0 }, castShadows = false }))
game.sounds = Sounds.new(scene) -- footsteps, block sounds, the wind
local highlight = scene:add(tycho.GameObject.new({ name = "highlight", scale = { x = 1.01, y = 1.01, z = 1.01 } }))
local highlightRenderer = highlight:addComponent(tycho.MeshRenderer.new(tycho.mesh.cube(),
  tycho.material({ baseColor = { 1, 1, 1, 0.28 }, transparent = true, unlit = true })))
highlightRenderer.castShadows = false
highlight.enabled = false

local preset = tycho.presets.forward({ sky = { kind = "color", color = SKY_DAY }, shadow = false, ibl = true })
engine:setPreset(preset)
engine:addFeature(tycho.ui.feature())
local atlas = Chunks.material().texture

local function skyFeature()
  for _, f in ipairs(engine._features or {}) do
    if f.name == "Sky" then return f end
  end
end

local function say(line)
  game.chat[#game.chat + 1] = line
  while #game.chat > 50 do table.remove(game.chat, 1) end
end
game.say = say

-- ---- text fields (chat, a new world's name) ----

-- Typed text comes from tycho.input's text input (layout, Shift and IME applied), not
-- from keys; it is on only while a field is open, so gameplay keys never type. `rect`
-- (x, y, w, h from ui.lua's layout, in frame pixels: window pixels unless the display
-- scales) puts the IME's candidates beside the field.
local function startTyping(rect)
  if rect then input.startTextInput(rect[1], rect[2], rect[3], rect[4]) else input.startTextInput() end
end

-- This frame's typing applied to `text`: "return" when Enter finished it, "cancel" when
-- Esc dropped it, else nil (still typing). Backspace erases one character, not one byte.
local function editField(text, maxBytes)
  text = input.editText(text, nil, maxBytes)
  if input.wasPressed("return") or input.wasPressed("keypad enter") then
    input.stopTextInput()
    return text, "return"
  elseif input.wasPressed("escape") then
    input.stopTextInput()
    return text, "cancel"
  end
  return text, nil
end

local function screenRect(layout)
  return game.screenW and { layout(game.screenW, game.screenH) } or nil
end

-- ---- worlds ----

local function refreshList()
  if game.net then
    game.worlds = game.net.worlds or {} -- none until the server's list arrives
  else
    local list, err = Save.list(store)
    game.worlds = list
    if err then game.message = err end
  end
  game.selected = math.min(math.max(game.selected or 1, 1), math.max(#game.worlds, 1))
end

-- PNG bytes -> a texture, through a temporary file (tycho.image decodes files).
local function thumbTexture(png)
  local path = os.tmpname()
  local f = io.open(path, "wb")
  if not f then return nil end
  f:write(png)
  f:close()
  local img = tycho.image.load(path)
  os.remove(path)
  if not img then return nil end
  return tycho.texture.new(img.width, img.height, img.pixels, "thumbnail")
end

local function loadThumbs()
  for _, w in ipairs(game.worlds or {}) do
    if w.screenshot and not game.thumbs[w.id] then game.thumbs[w.id] = thumbTexture(w.screenshot) end
  end
end

-- Starts playing `world` (a World) described by `record` (a SavedWorld).
local function enter(record, world, opts)
  opts = opts or {}
  game.record, game.world = record, world
  game.remote = opts.remote
  game.player = Player.new(world, record.player)
  game.inventory = Inventory.new(record.gameMode, record.inventory)
  game.sunAngle = record.sunAngle or math.pi * 0.3
  game.moonPhase = record.moonPhase or 0
  game.screenshot = record.screenshot
  game.chunks = Chunks.new(scene, world, { viewDistance = game.viewDistance })
  game.chunks:update(game.player.x, game.player.z, 9) -- the ground underfoot on the first frame
  -- Spawned inside terrain (a fresh world's default pose): stand on top instead.
  local p = game.player
  while p:collides(p.x, p.y, p.z) and p.y < World.CY do p.y = math.floor(p.y) + 1 end
  game.autosave = (not game.remote) and Save.autosave(store, game) or nil
  world.onEdit = function() if game.autosave then game.autosave.note() end end
  if game.autosave then
    game.autosave.note() -- lastPlayedAt moves: saved within 5 s
  end
  game.state = "playing"
  game.sounds:setAmbience(true)
  game.message = nil
  game.shotAt, game.shotSaves = tycho.now(), nil -- the thumbnail: see the afterFrame hook
  input.setPointerLock(true)
end

-- Back to the list: a server world goes back to that server's world list (the connection
-- stays; opts.keepNet), anything else to the local saves.
local function leave(message, opts)
  game.leaving = nil
  if game.autosave then
    -- Incremental, like every autosave (folding the appended edits waits for quit), and
    -- written before the start screen lists the worlds.
    game.autosave.note()
    game.autosave.settle()
    if game.autosave.appended then game.unfolded[game.record.id] = true end
  end
  if game.chunks then game.chunks:clear() end
  for _, a in pairs(game.avatars or {}) do a:destroy() end
  game.avatars = {}
  if game.net and not (opts and opts.keepNet) then
    game.net:close()
    game.net = nil
  end
  game.chunks, game.world, game.player, game.autosave = nil, nil, nil, nil
  if game.typing then input.stopTextInput() end
  game.typing = nil
  highlight.enabled = false
  game.state = "menu"
  game.sounds:setAmbience(false)
  game.message = message
  input.setPointerLock(false)
  refreshList()
  loadThumbs()
end
game.leave = leave

local function newWorld(gameMode, seed, name)
  seed = seed or (os.time() % 1000000)
  local record = tycho.storage.createSavedWorld(name or ("World " .. seed), seed, gameMode)
  enter(record, World.new(seed))
end
game.newWorld = newWorld

-- N or S on the start screen: name the world first. Enter makes it (an empty name takes
-- the default shown), Esc goes back to the list.
local function startNaming(gameMode)
  local seed = os.time() % 1000000
  game.naming = { gameMode = gameMode, seed = seed, name = "", default = "World " .. seed }
  startTyping(screenRect(UI.nameField))
end

local function namingFrame()
  local n = game.naming
  local done
  n.name, done = editField(n.name, NAME_MAX_BYTES)
  if not done then return end
  game.naming = nil
  if done == "cancel" then return end
  local name = n.name:match("^%s*(.-)%s*$")
  if name == "" then name = n.default end
  if game.net then game.net:createWorld(name, n.seed, n.gameMode)
  else newWorld(n.gameMode, n.seed, name) end
end

-- Delete on the start screen asks first: Delete again or Y removes the world, any other
-- key keeps it.
local CONFIRM_KEYS = { "delete", "y" }
local OTHER_KEYS = { "escape", "return", "keypad enter", "space", "backspace", "tab", "up", "down", "left", "right" }
for c = string.byte("a"), string.byte("z") do
  if c ~= string.byte("y") then OTHER_KEYS[#OTHER_KEYS + 1] = string.char(c) end
end
for d = 0, 9 do OTHER_KEYS[#OTHER_KEYS + 1] = tostring(d) end

local function askDelete(i)
  local w = game.worlds[i]
  if not w then return end
  game.confirmDelete = { id = w.id, name = w.name }
end

local function confirmDeleteFrame()
  local c = game.confirmDelete
  for _, k in ipairs(CONFIRM_KEYS) do
    if input.wasPressed(k) then
      game.confirmDelete = nil
      if game.net then -- the server says: a new list, or why not (only its creator may)
        game.net:deleteWorld(c.id)
        game.message = "asked the server to remove " .. tostring(c.name)
        return
      end
      store:delete(c.id)
      game.thumbs[c.id] = nil
      game.message = "removed " .. tostring(c.name)
      refreshList()
      return
    end
  end
  for _, k in ipairs(OTHER_KEYS) do
    if input.wasPressed(k) then
      game.confirmDelete = nil
      game.message = "kept " .. tostring(c.name)
      return
    end
  end
end

local function continueWorld(i)
  local w = game.worlds[i]
  if not w then return end
  if game.net then return game.net:join(w.id) end
  local record, world = Save.load(store, w.id, say)
  if not record then
    -- A damaged or newer record: said, and left exactly as it is on disk.
    game.message = "cannot load " .. tostring(w.name) .. ": " .. tostring(world)
    return
  end
  enter(record, world)
end
game.continueWorld = continueWorld

-- ---- multiplayer ----

local function playerKey()
  local k = os.getenv("CRAFTY_PLAYER_KEY")
  if k then return k end
  if not game.key then game.key = ("p%08x"):format(math.random(0, 0x7fffffff)) end
  return game.key
end

-- P on the start screen: type the name others see. Enter keeps it (saved with the
-- settings, so it lasts), Esc keeps the old one; a name the server would refuse is said
-- and not kept.
local function startNamingPlayer()
  game.namingPlayer = { name = game.playerName }
  startTyping(screenRect(UI.nameField))
end

local function namingPlayerFrame()
  local n = game.namingPlayer
  local done
  n.name, done = editField(n.name, Net.NAME_MAX_BYTES)
  if not done then return end
  game.namingPlayer = nil
  if done == "cancel" then return end
  local name, why = Net.cleanName(n.name)
  if not name then
    game.message = "name not changed: " .. why
    return
  end
  game.playerName, game.settings.name = name, name
  local ok, err = Save.saveSettings(store, game.settings)
  game.message = ok and nil or ("your name is not saved: " .. tostring(err))
end

local function connect()
  local net, err = Net.connect(game.server, game.playerName, playerKey(), {
    onWorlds = function()
      game.message = nil -- the list is here: nothing pending to report
      refreshList()
      loadThumbs()
    end,
    onWelcome = function(msg)
      local record = msg.world
      record.player = msg.you or record.player
      record.inventory = msg.you and msg.you.inventory or nil
      local world = World.new(record.seed)
      world.log = say
      world:applyEdits(record.edits or {})
      world.dirty = {}
      enter(record, world, { remote = true })
      game.net:start({
        applyEdit = function(x, y, z, t)
          if game.world then game.world:set(x, y, z, t) end
        end,
        onChat = function(from, message) say(tostring(from) .. ": " .. tostring(message)) end,
        onError = function(code, message)
          say("server: " .. tostring(message))
          if game.pendingPlace and game.inventory then game.inventory:refund(game.pendingPlace) end
          game.pendingPlace = nil
        end,
      })
    end,
    onLost = function(message)
      -- Back to the start screen; a remote world is never written to the local saves.
      game.net = nil
      leave(message)
    end,
    onError = function(code, message) game.message = tostring(code) .. ": " .. tostring(message) end,
  }, { timeout = 0 }) -- the start screen says "connecting" meanwhile; a failure comes as onLost
  if not net then
    game.message = "cannot connect to " .. game.server .. ": " .. tostring(err)
    return
  end
  game.net = net
  game.message = nil
  refreshList()
end
game.connect = connect

-- ---- playing ----

local function breakOrPlace(action)
  local p, w = game.player, game.world
  local ex, ey, ez = p:eye()
  local dx, dy, dz = p:look()
  local bx, by, bz, nx, ny, nz = w:raycast(ex, ey, ez, dx, dy, dz, Player.REACH)
  if not bx then return false end
  if action == "break" then
    local t = w:get(bx, by, bz)
    if game.net then
      game.net:sendEdit("break", bx, by, bz, 0)
    else
      w:set(bx, by, bz, 0)
    end
    game.inventory:gather(t)
    game.sounds:block("break", bx, by, bz)
    return true
  end
  local px, py, pz = bx + nx, by + ny, bz + nz
  local t = game.inventory:current()
  if p:occupies(px, py, pz) or w:get(px, py, pz) ~= 0 then return false end
  if not game.inventory:take(t) then return false end
  if game.net then
    game.pendingPlace = t
    game.net:sendEdit("place", px, py, pz, t)
  else
    w:set(px, py, pz, t)
  end
  game.sounds:block("place", px, py, pz)
  return true
end
game.breakOrPlace = breakOrPlace

-- Movement in fixed ticks, from the keys held.
scene:addSystem("physics", function(dt)
  if game.state ~= "playing" or game.typing then return end
  local f = (input.isDown("w") and 1 or 0) - (input.isDown("s") and 1 or 0)
  local r = (input.isDown("d") and 1 or 0) - (input.isDown("a") and 1 or 0)
  game.player:step(dt, { forward = f, right = r, jump = input.isDown("space"), down = input.isDown("left shift") })
  game.sounds:walk(game.player)
end)

-- Sends a chat line exactly as typed (to the server, or to the local chat).
local function sendChat(message)
  if game.net then game.net:say(message) else say("you: " .. message) end
end

local function playingFrame()
  local p = game.player
  if game.typing then
    local done
    game.typing, done = editField(game.typing, CHAT_MAX_BYTES)
    if done then
      local message = game.typing
      game.typing = nil
      if done == "return" and message:find("%S") then sendChat(message) end
    end
    return
  end
  if input.wasPressed("escape") then
    -- Leaves after this frame has rendered, so the thumbnail is this last view.
    game.leaving = true
    return
  end
  if input.wasPressed("t") then
    game.typing = ""
    startTyping(screenRect(UI.chatField))
    return
  end
  local m = input.mouse()
  if m.locked or m.buttons.right then p:turn(-m.dx * 0.0025, -m.dy * 0.0025) end
  for i = 1, 9 do
    if input.wasPressed(tostring(i)) then game.inventory:select(i) end
  end
  if m.wheel and m.wheel.y ~= 0 then game.inventory:scroll(m.wheel.y > 0 and -1 or 1) end
  if input.wasPressed("f") and game.inventory:creative() then p.flying = not p.flying end
  if m.pressed and m.pressed.left then breakOrPlace("break") end
  if m.pressed and m.pressed.right and not m.locked then
    -- right button drags the view without pointer lock; a click without drag places
    if math.abs(m.dx) + math.abs(m.dy) == 0 then breakOrPlace("place") end
  elseif m.pressed and m.pressed.right then
    breakOrPlace("place")
  end
  if game.net then
    game.net:sendPose(p)
    if game.inventory.changed and not game.inventory:creative() then
      game.inventory.changed = false
      game.net:sendInventory(game.inventory:toSaved())
    end
  end
end

-- Sun, moon and sky from sunAngle: 0 sunrise, pi/2 noon, pi sunset.
local function updateSky(dt)
  game.sunAngle = (game.sunAngle + dt * 2 * math.pi / DAY_SECONDS) % (2 * math.pi)
  local a = game.sunAngle
  local sx, sy, sz = math.cos(a), math.sin(a), 0.35
  sunLight.direction = tycho.vec3(-sx, -sy, -sz)
  moonLight.direction = tycho.vec3(sx, sy, sz)
  local day = math.max(0, math.min(1, sy * 3 + 0.3))
  sunLight.intensity = 3.2 * day
  moonLight.intensity = 0.35 * (1 - day)
  local dusk = math.max(0, 1 - math.abs(sy) * 4) * (sx ~= 0 and 1 or 0)
  local c = {}
  for i = 1, 3 do
    c[i] = SKY_NIGHT[i] + (SKY_DAY[i] - SKY_NIGHT[i]) * day
    c[i] = c[i] + (SKY_DUSK[i] - c[i]) * dusk * 0.5
  end
  game.skyColor = c
  local sky = skyFeature()
  if sky and sky.configure then sky:configure({ kind = "color", color = c }) end
end

-- Remote players: a box each, drawn between the poses received.
local avatarMaterial = tycho.material({ baseColor = { 0.9, 0.55, 0.25 }, roughness = 0.7 })
local function updateAvatars()
  game.avatars = game.avatars or {}
  local net = game.net
  local now = tycho.now()
  for id, a in pairs(game.avatars) do
    if not (net and net.players[id]) then
      a:destroy()
      game.avatars[id] = nil
    end
  end
  if not net then return end
  for id, p in pairs(net.players) do
    local a = game.avatars[id]
    if not a then
      a = scene:add(tycho.GameObject.new({ name = "avatar " .. tostring(id), scale = { x = 0.6, y = 1.8, z = 0.6 } }))
      a:addComponent(tycho.MeshRenderer.new(tycho.mesh.cube(), avatarMaterial))
      a:addTag("avatar")
      game.avatars[id] = a
    end
    local x, y, z, yaw = Net.interpolate(p, now)
    if x then
      a.position:set(x, y + 0.9, z)
      a.rotation:setAxisAngle(0, 1, 0, yaw or 0)
    end
  end
end

-- A small thumbnail of the view for the start screen, from a screenshot of the window.
-- Called after a frame has rendered (afterFrame), so the screenshot is that frame, taken
-- at once. Headless there is no window and the world keeps the thumbnail it had.
local function takeThumbnail()
  local path = os.tmpname() .. ".png"
  local ok = engine:screenshot(path)
  game.shotAt = tycho.now()
  if not ok then
    os.remove(path)
    return
  end
  local img = tycho.image.load(path)
  os.remove(path)
  if not img then return end
  local tw, th = 160, 90
  local out, px, W, H = {}, img.pixels, img.width, img.height
  for y = 0, th - 1 do
    local sy = math.floor((y + 0.5) * H / th)
    for x = 0, tw - 1 do
      local i = (sy * W + math.floor((x + 0.5) * W / tw)) * 4
      out[#out + 1] = px:sub(i + 1, i + 3) .. "\255"
    end
  end
  local small = os.tmpname() .. ".png"
  if tycho.image.save(small, tw, th, table.concat(out)) then
    local f = io.open(small, "rb")
    if f then
      game.screenshot = f:read("a")
      f:close()
    end
  end
  os.remove(small)
end

-- From a server's world list back to the local saves.
local function disconnect()
  game.net:close()
  game.net = nil
  game.message = nil
  refreshList()
  loadThumbs()
end

engine:beforeFrame(function()
  local dt = engine.frameTime or 1 / 60
  if game.state == "menu" then
    if game.naming then return namingFrame() end
    if game.namingPlayer then return namingPlayerFrame() end
    if game.confirmDelete then return confirmDeleteFrame() end
    if game.net and game.net.state ~= "lobby" then
      -- Connecting (or joining): only going back works until the server answers.
      if input.wasPressed("m") or input.wasPressed("escape") then disconnect() end
      return
    end
    local n = #(game.worlds or {})
    if input.wasPressed("down") then game.selected = math.min(n, (game.selected or 1) + 1) end
    if input.wasPressed("up") then game.selected = math.max(1, (game.selected or 1) - 1) end
    if input.wasPressed("n") then
      startNaming("creative")
    elseif input.wasPressed("s") then
      startNaming("survival")
    elseif input.wasPressed("return") then
      continueWorld(game.selected or 1)
    elseif input.wasPressed("delete") and (game.net or store) then
      askDelete(game.selected or 1)
    elseif input.wasPressed("r") and game.net then
      game.net:listWorlds()
    elseif input.wasPressed("p") and not game.net then
      startNamingPlayer()
    elseif input.wasPressed("m") then
      if game.net then disconnect() else connect() end
    elseif input.wasPressed("escape") then
      if game.net then disconnect() else engine:quit() end
    end
    return
  end
  playingFrame()
  if game.state ~= "playing" then return end
  updateSky(dt)
  if game.autosave then game.autosave.tick() end
end)

-- After the frame has rendered: leaving (Esc) takes the thumbnail of this last view first.
-- While playing, an autosave that wrote something also refreshes it (at most every
-- THUMB_SECONDS: a screenshot costs ~0.1 s on llvmpipe at 1280 x 720), for a session that
-- ends without Esc (the window closed); the next save carries it. A server world keeps none.
local THUMB_SECONDS = 60
engine:afterFrame(function()
  if game.state ~= "playing" then return end
  if game.leaving then
    if not game.remote then takeThumbnail() end
    if game.net then
      game.net:leaveWorld()
      return leave(nil, { keepNet = true })
    end
    return leave()
  end
  local saves = game.autosave and game.autosave.saves
  if saves and saves ~= game.shotSaves and tycho.now() - (game.shotAt or 0) >= THUMB_SECONDS then
    game.shotSaves = saves
    takeThumbnail()
  end
end)

-- The other players' names where they stand on screen (their avatars, placed this frame).
local function nameTags(w, h)
  local tags, net = {}, game.net
  if not net then return tags end
  local p = game.player
  local ex, ey, ez = p:eye()
  for id, a in pairs(game.avatars or {}) do
    local info = net.players[id]
    if info then
      local pos = a.position -- the box's centre: the head's top is 0.9 above, the tag above that
      local sx, sy, dist = UI.project(ex, ey, ez, p.yaw, p.pitch, cameraComponent.fov or 70, w, h,
        pos.x, pos.y + 1.3, pos.z)
      if sx and dist <= UI.NAME_TAG_RANGE then tags[#tags + 1] = { x = sx, y = sy, name = info.name, distance = dist } end
    end
  end
  return tags
end

-- The start screen's line about the server: where it stands, from the connection's state.
local function lobbyStatus()
  local net = game.net
  if not net then return nil end
  if net.state == "connecting" then return "connecting to " .. game.server .. " ..." end
  return "on " .. game.server .. " as " .. tostring(net.name)
end

-- The HUD draws in a feature's update, where the frame's size is known; the UI feature
-- (last) draws what it queued.
local function drawHud(w, h)
  game.screenW, game.screenH = w, h -- where the text fields sit, for the IME
  if game.state == "playing" then
    if game.leaving then return end -- the thumbnail taken after this frame shows the view alone
    local p = game.player
    UI.hud({ width = w, height = h, inventory = game.inventory, atlas = atlas, chat = game.chat,
      typing = game.typing, mode = game.inventory.gameMode .. (game.net and "  online" or "") .. (p.flying and "  flying" or ""),
      status = ("%d, %d, %d"):format(math.floor(p.x), math.floor(p.y), math.floor(p.z)), tags = nameTags(w, h) })
  else
    UI.menu({ width = w, height = h, worlds = game.worlds or {}, selected = game.selected or 1, thumbs = game.thumbs,
      naming = game.naming, namingPlayer = game.namingPlayer, confirmDelete = game.confirmDelete,
      playerName = game.playerName, message = game.message, server = lobbyStatus(),
      connecting = game.net ~= nil and game.net.state == "connecting" })
  end
end
engine:addFeature({ name = "CraftyHUD", update = function(_, frame) drawHud(frame.width, frame.height) end },
  { before = "UI" })

engine:beforeRender(function()
  if game.state == "playing" then
    local p = game.player
    game.chunks:update(p.x, p.z)
    local ex, ey, ez = p:eye()
    camera.position:set(ex, ey, ez)
    local q = tycho.quat.axisAngle(0, 1, 0, p.yaw):mul(tycho.quat.axisAngle(1, 0, 0, p.pitch))
    camera.rotation:set(q.x, q.y, q.z, q.w)
    local dx, dy, dz = p:look()
    local bx, by, bz = game.world:raycast(ex, ey, ez, dx, dy, dz, Player.REACH)
    highlight.enabled = bx ~= nil
    if bx then highlight.position:set(bx + 0.5, by + 0.5, bz + 0.5) end
    updateAvatars()
  end
end)

-- Saves on quit (engine:quit(), window closed, --frames done, Ctrl-C): the world being
-- played, then the worlds left earlier in this session get their appended edits folded
-- into their packed logs. Off the frames: the game is ending, so finish() waits for the
-- store's queued saves (storage:flush) before it folds.
engine:onQuit(function()
  if game.autosave then
    game.autosave.finish()
    game.unfolded[game.record.id] = nil
  end
  if store then
    for id in pairs(game.unfolded) do store:compact(id) end
  end
  game.unfolded = {}
end)

refreshList()
loadThumbs()

-- CRAFTY_BENCH=N (tests/bench/crafty_bench.sh): once every chunk in view is meshed, times
-- N frames and prints the median frame time and frames per second.
local benchFrames = tonumber(os.getenv("CRAFTY_BENCH") or "")
if benchFrames then
  local times, last = {}, nil
  engine:afterFrame(function()
    if game.state ~= "playing" or game.chunks:update(game.player.x, game.player.z, 0) > 0 then return end
    local now = tycho.now()
    if last then times[#times + 1] = now - last end
    last = now
    if #times == benchFrames then
      table.sort(times)
      local median = times[(#times + 1) // 2]
      print(("crafty view %d chunks (%d columns): median frame %.2f ms, %.1f fps")
        :format(game.viewDistance, game.chunks:count(), median * 1000, 1 / median))
      engine:quit()
    end
  end)
end

local autostart = os.getenv("CRAFTY_AUTOSTART")
if autostart and autostart ~= "" then
  newWorld(os.getenv("CRAFTY_MODE") or "creative", math.tointeger(tonumber(autostart)) or autostart)
end
