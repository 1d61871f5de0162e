-- tests/server/spec/limits_spec.lua: what one peer can make `tycho serve` spend. Descriptors:
-- clients are capped below the process's descriptor limit (--max-clients, by default what the
-- limit leaves after a reserve), so a flood of idle TCP connections under a small `ulimit -n`
-- is refused at once instead of failing accept() on every turn of the loop (which spun a core
-- and wrote a log line each time). The log: a module that raises on every message of a client
-- writes one traceback, then a count once a second. Needs node and `npm ci --prefix tests/server`.

local H = dofile(require("tycho.testing").here() .. "/../harness.lua")

local ECHO = 'return dofile(tycho.home .. "/server/modules/echo.lua")\n'

local function writeFile(path, text)
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
end

-- A modules folder of {name = source}, and a data folder; both removed after fn.
local function withModules(files, fn)
  local dir, data = H.tempDir(), H.tempDir()
  for name, text in pairs(files) do writeFile(dir .. "/" .. name .. ".lua", text) end
  local ok, err = pcall(fn, dir, data)
  H.removeTree(dir)
  H.removeTree(data)
  if not ok then error(err, 0) end
end

-- The process's CPU time (user + system) in seconds, from /proc/PID/stat.
local function cpuSeconds(pid)
  local stat = assert(H.readFile("/proc/" .. pid .. "/stat"), "no /proc/" .. pid)
  local fields = {}
  for f in stat:match("%) (.*)$"):gmatch("%S+") do fields[#fields + 1] = f end
  -- after "pid (comm)": field 3 is state, so utime (14) and stime (15) are fields[12], fields[13]
  local _, tick = H.run("getconf CLK_TCK")
  return (tonumber(fields[12]) + tonumber(fields[13])) / (tonumber(tick) or 100)
end

local function countLines(text)
  local _, n = text:gsub("\n", "")
  return n
end

local function limitPrefix()
  if H.run("command -v prlimit") == 0 then return "prlimit --nofile=128 --" end
  return "sh -c 'ulimit -n 128 && exec \"$0\" \"$@\"'"
end

describe("tycho serve limits", function()
  it("refuses connections past what its descriptor limit leaves, without spinning or flooding the log", function()
    withModules({ echo = ECHO }, function(dir, data)
      local s = H.startWith({ modules = dir, data = data, prefix = limitPrefix() })
      local ok, err = pcall(function()
        local start = H.readFile(s.log)
        -- 128 descriptors, 32 + 4 for the one module kept: 92 clients
        assert.truthy(start:find("descriptor limit 128, up to 92 clients", 1, true), start)
        local out = os.tmpname()
        -- 300 TCP connections that never speak, held 4 s (lws closes one that never handshakes after about 10 s)
        os.execute(("cd %s && node raw.js %d %s >%s 2>&1 &"):format(H.shq(H.HERE), s.port,
          H.shq('[{"idle":300,"ms":4000}]'), H.shq(out)))
        H.sleep(0.7)
        local cpu0 = cpuSeconds(s.pid)
        H.sleep(2)
        local used = cpuSeconds(s.pid) - cpu0
        assert.is_true(used < 0.5, ("the server used %.2f s of CPU in 2 s"):format(used))
        -- at the cap a WebSocket client is told so, in HTTP
        local ev = H.raw(s.port, { { open = "late", path = "/echo" } })
        assert.equals(503, ev[1].status, H.readFile(out))
        for _ = 1, 100 do
          if (H.readFile(out) or ""):find("idle") then break end
          H.sleep(0.1)
        end
        local idle = H.parseLines(H.readFile(out))[1]
        os.remove(out)
        assert.equals(300, idle.connected)
        assert.equals(300 - 92, idle.ended) -- the ones past the cap were closed at once
        -- room again once the idle ones are gone
        ev = H.client(s.port, { { open = "e", path = "/echo" }, { send = "e", json = { hi = 1 } }, { recv = "e" } })
        assert.same({ t = "echo", data = { hi = 1 } }, ev[2].json)
      end)
      local code, log = H.stop(s)
      if not ok then error(tostring(err) .. "\n--- server log ---\n" .. log, 0) end
      assert.equals(0, code, log)
      assert.is_true(countLines(log) < 20, log)
      assert.truthy(log:find("net_client_cap: refused", 1, true), log)
      assert.falsy(log:find("errno 24", 1, true), log)
    end)
  end)

  it("sheds connections it has no descriptor for, without spinning, when a module holds the reserve", function()
    -- Holds every descriptor left once the host listens: accept() itself fails then.
    local hog = [[
local held = {}
return {
  onStart = function(host)
    while true do
      local f = io.open("/dev/null")
      if not f then break end
      held[#held + 1] = f
    end
    host:log("holding", #held, "descriptors")
  end,
}
]]
    withModules({ fdhog = hog }, function(dir, data)
      local s = H.startWith({ modules = dir, data = data, prefix = limitPrefix(), args = { "--no-watch" } })
      local ok, err = pcall(function()
        for _ = 1, 50 do
          if (H.readFile(s.log) or ""):find("holding") then break end
          H.sleep(0.05)
        end
        local out = os.tmpname()
        os.execute(("cd %s && node raw.js %d %s >%s 2>&1 &"):format(H.shq(H.HERE), s.port,
          H.shq('[{"idle":20,"ms":3000}]'), H.shq(out)))
        H.sleep(0.7)
        local cpu0 = cpuSeconds(s.pid)
        H.sleep(2)
        local used = cpuSeconds(s.pid) - cpu0
        assert.is_true(used < 0.5, ("the server used %.2f s of CPU in 2 s"):format(used))
        for _ = 1, 100 do
          if (H.readFile(out) or ""):find("idle") then break end
          H.sleep(0.1)
        end
        local idle = H.parseLines(H.readFile(out))[1]
        os.remove(out)
        assert.equals(20, idle.ended) -- each closed at accept
      end)
      local code, log = H.stop(s)
      if not ok then error(tostring(err) .. "\n--- server log ---\n" .. log, 0) end
      assert.equals(0, code, log)
      assert.is_true(countLines(log) < 20, log)
      local shed = 0
      for n in log:gmatch("net_accept_shed: closed (%d+) connection") do shed = shed + tonumber(n) end
      assert.equals(20, shed, log)
    end)
  end)

  it("--max-clients caps connections; one past it gets 503 and the next after a close gets in", function()
    withModules({ echo = ECHO }, function(dir, data)
      local log = H.with(dir, data, function(s)
        local ev = H.client(s.port, {
          { open = "a", path = "/echo" }, { open = "b", path = "/echo" }, { open = "c", path = "/echo" },
          { close = "a" }, { sleep = 300 }, { open = "d", path = "/echo" }, { send = "d", json = { n = 1 } },
          { recv = "d", t = "echo" },
        })
        local refused = H.find(ev, function(e) return e.name == "c" end)
        assert.truthy(refused and refused.error:find("503", 1, true), H.readFile(s.log))
        assert.same({ t = "echo", data = { n = 1 } }, H.messages(ev, "d", "echo")[1])
      end, "--max-clients", "2")
      assert.truthy(log:find("up to 2 clients", 1, true), log)
    end)
    local code, out = H.run(H.shq(tycho.executable) .. " serve --max-clients 0")
    assert.equals(2, code, out)
  end)

  it("writes one traceback per session, then a count a second, however fast a client makes errors", function()
    withModules({ faulty = H.readFile(H.HERE .. "/fixtures/faulty.lua") }, function(dir, data)
      local log = H.with(dir, data, function(s)
        local ev = H.client(s.port, {
          { open = "a", path = "/faulty" }, { open = "b", path = "/faulty" },
          { send = "a", json = { t = "boom" }, times = 1500 }, { send = "b", json = { t = "boom" }, times = 1500 },
          { send = "a", json = { t = "hi" } }, { recv = "a", t = "ok" }, { send = "b", json = { t = "hi" } },
          { recv = "b", t = "ok" }, { sleep = 1200 },
        })
        assert.equals("ok", H.messages(ev, "a", "ok")[1].t) -- still served
      end)
      local _, tracebacks = log:gsub("stack traceback:", "")
      assert.equals(2, tracebacks, log) -- one for each session
      assert.truthy(log:find("server_module_errors: module faulty: %d+ more errors"), log)
      local hidden = 0
      for n in log:gmatch("module faulty: (%d+) more error") do hidden = hidden + tonumber(n) end
      assert.equals(2998, hidden, log)
      assert.is_true(#log < 8000, ("%d bytes of log"):format(#log))
    end)
  end)
end)
