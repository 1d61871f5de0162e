-- examples/shared-scene/spec: two headless `tycho run examples/shared-scene` instances moving
-- their boxes through a real `tycho serve --port 0` (server/modules/sync.lua). Each prints
-- what it holds; both must end seeing both boxes and the same state (digest of the snapshot).
local testing = require("tycho.testing")

local dir = testing.here() .. "/.."
local root = dir .. "/../.."
local shq = testing.quote

local function readFile(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

local function sleep(s) os.execute("sleep " .. s) end

describe("examples/shared-scene", function()
  it("two instances see each other's boxes and converge to the same state", function()
    local base = os.tmpname()
    local data, log, pidFile, exitFile = base .. ".data", base .. ".log", base .. ".pid", base .. ".exit"
    os.execute(("( %s serve --host 127.0.0.1 --port 0 --modules %s --data %s >%s 2>&1 & echo $! >%s; wait $!; "
      .. "echo $? >%s ) >/dev/null 2>&1 &"):format(shq(tycho.executable), shq(root .. "/server/modules"), shq(data),
      shq(log), shq(pidFile), shq(exitFile)))
    local port
    for _ = 1, 250 do
      port = (readFile(log) or ""):match("listening on 127%.0%.0%.1:(%d+)")
      if port then break end
      sleep(0.02)
    end
    assert(port, "tycho serve did not start:\n" .. (readFile(log) or ""))
    local pid = assert(tonumber(readFile(pidFile)))

    -- Both instances start together, move for 150 frames, then listen until frame 330.
    local outs = { base .. ".a", base .. ".b" }
    local env = ("TYCHO_SYNC_URL=ws://127.0.0.1:%s TYCHO_SYNC_ROOM=spec TYCHO_SYNC_STOP=150"):format(port)
    local cmd = {}
    for i, out in ipairs(outs) do
      cmd[i] = ("%s %s run %s --headless --frames 330 --no-watch >%s 2>&1"):format(env, shq(tycho.executable),
        shq(dir), shq(out))
    end
    os.execute("( " .. cmd[1] .. " & " .. cmd[2] .. " & wait )")

    os.execute("kill -TERM " .. pid)
    for _ = 1, 250 do
      if readFile(exitFile) then break end
      sleep(0.02)
    end
    local serverLog = readFile(log) or ""
    local results = {}
    for i, out in ipairs(outs) do
      local text = readFile(out) or ""
      os.remove(out)
      assert.matches("joined room spec as session %d+", text)
      local last
      for line in text:gmatch("[^\n]+") do
        local boxes, digest = line:match("boxes (%d+) entities %d+ digest (%x+)")
        if boxes then last = { boxes = tonumber(boxes), digest = digest } end
      end
      assert(last, "instance " .. i .. " printed no report:\n" .. text)
      results[i] = last
    end
    for _, suffix in ipairs({ "", ".log", ".pid", ".exit" }) do os.remove(base .. suffix) end
    os.execute("rm -rf " .. shq(data))
    assert.equals(2, results[1].boxes, serverLog)
    assert.equals(2, results[2].boxes)
    assert.equals(results[1].digest, results[2].digest)
  end)
end)
