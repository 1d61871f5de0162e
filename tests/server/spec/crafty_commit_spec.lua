-- tests/server/spec/crafty_commit_spec.lua: crafty commits an edit to the store before anyone
-- is sent it (the group commit once a host tick: M.commitEdits on its 0.001 s timer). Runs
-- crafty.lua in this state (tests/server/crafty_local.lua), with its store wrapped so that a
-- test can make saveMeta fail.

local H = dofile(require("tycho.testing").here() .. "/../harness.lua")
local C = dofile(H.HERE .. "/crafty_local.lua")

local function messages(c, id, t)
  local out = {}
  for _, m in ipairs(c.take(id)) do if m.t == t then out[#out + 1] = m end end
  return out
end

describe("crafty's edits are committed before they are sent", function()
  it("sends an edit only after its group is in the store, and holds it while the store fails", function()
    local data = H.tempDir()
    local ok, err = pcall(function()
      local c = C.start({ data = data })
      local real = c.host.storage
      local failing = false
      local commits = {} -- the edits of each saveMeta that went through
      -- crafty reaches its store through M.storage: a stand-in that can refuse saveMeta.
      c.M.storage = setmetatable({
        saveMeta = function(_, world, edits)
          if failing then return nil, "disk full" end
          commits[#commits + 1] = #edits
          return real:saveMeta(world, edits)
        end,
      }, { __index = function(_, k) return function(_, ...) return real[k](real, ...) end end })

      local id = c.world("Commit", "abc")
      local ground = H.surface("abc", 10, 11)
      for sid = 1, 2 do
        c.connect(sid, "p" .. sid)
        c.send(sid, { t = "join_world", worldId = id })
      end
      c.send(1, { t = "transform", x = 10.5, y = ground + 1, z = 11.5, yaw = 0, pitch = 0 })
      c.take(1)
      c.take(2)

      -- Two edits in one tick: nothing is sent before the commit, then both, in one commit.
      c.send(1, { t = "block_edit", action = "place", x = 10, y = ground + 1, z = 11, type = 3 })
      c.send(1, { t = "block_edit", action = "place", x = 10, y = ground + 2, z = 11, type = 4 })
      assert.same({}, messages(c, 2, "block_edit"))
      assert.same({}, commits)
      c.runTimers(0.001)
      assert.same({ 2 }, commits)
      assert.equals(2, #messages(c, 2, "block_edit"))
      assert.equals(2, #messages(c, 1, "block_edit"))
      local stored = real:load(id)
      assert.equals(2, #stored.edits)

      -- The store fails: the edit stays unsent, its editor hears storage_failed once.
      failing = true
      c.send(1, { t = "block_edit", action = "place", x = 10, y = ground + 3, z = 11, type = 5 })
      c.runTimers(0.001)
      assert.same({}, messages(c, 2, "block_edit"))
      local errs = messages(c, 1, "error")
      assert.equals(1, #errs)
      assert.equals("storage_failed", errs[1].code)
      c.runTimers(0.001) -- retried no sooner than a second later: still nothing, no second error
      assert.same({}, messages(c, 1, "error"))
      -- The store is back: after the retry delay the edit is committed, then sent.
      failing = false
      c.M.rooms[id].commitRetryAt = 0
      c.runTimers(0.001)
      local sent = messages(c, 2, "block_edit")
      assert.equals(1, #sent)
      assert.equals(5, sent[1].type)
      assert.equals(3, #real:load(id).edits)
      c.stop()
    end)
    H.removeTree(data)
    assert(ok, err)
  end)
end)
