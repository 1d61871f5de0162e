-- tests/server/spec/fence_spec.lua: what a module's state holds (only what a module needs,
-- in a fraction of the engine's size), and server/module.c's fences against one client's
-- message and their way back: a message whose decode passes a module's memory cap stops
-- that module (not the process); a module stopped by a cap starts over on its next good
-- save, and by itself after a backoff (1 s, then 2 s, ...); the instruction budget's message
-- reads right, and no pcall, xpcall or coroutine in the module can catch its way past it.
-- Needs node and `npm ci --prefix tests/server`.

local H = dofile(require("tycho.testing").here() .. "/../harness.lua")

local ECHO = 'return dofile(tycho.home .. "/server/modules/echo.lua")\n'

-- Spins on {t = "spin"} (the instruction budget stops it); answers anything else with ok.
local SPIN = [[
return {
  onStart = function(host) host:log("started") end,
  onConnect = function(session)
    return {
      onMessage = function(msg)
        if msg.t == "spin" then while true do end end
        session:send({ t = "ok" })
      end,
    }
  end,
}
]]

-- Runs past its budget inside a catch that tries again forever: {t = "pcall"}, {t = "xpcall"}
-- (whose handler loops too) or {t = "wrap"} (a coroutine); answers anything else with ok.
local CATCHER = [[
local function spin() while true do end end
return {
  onConnect = function(session)
    return {
      onMessage = function(msg)
        if msg.t == "pcall" then
          while true do pcall(spin) end
        elseif msg.t == "xpcall" then
          while true do xpcall(spin, spin) end
        elseif msg.t == "wrap" then
          while true do pcall(coroutine.wrap(spin)) end
        end
        session:send({ t = "ok" })
      end,
    }
  end,
}
]]

-- Runs away under the default budget (lazy calls: no hook until a grace has passed) in the
-- way its message names; {t = "big"} runs 30 M instructions, under the budget, and answers;
-- anything else is answered with ok.
local RUNAWAY = [[
local function spin() while true do end end
local parked
return {
  onConnect = function(session)
    return {
      onMessage = function(msg)
        local t = msg.t
        if t == "spin" then
          spin()
        elseif t == "pcall" then
          while true do pcall(spin) end
        elseif t == "xpcall" then
          while true do xpcall(spin, spin) end
        elseif t == "wrap" then
          while true do pcall(coroutine.wrap(spin)) end
        elseif t == "alloc" then
          while true do local _ = {} end -- garbage at once: the memory cap never comes near
        elseif t == "yield" then
          -- armed while the coroutine runs: the resumer it yields back to must count too
          local co = coroutine.wrap(function()
            for _ = 1, 3000000 do end
            coroutine.yield()
          end)
          co()
          spin()
        elseif t == "park" then
          -- made (and left unhooked) in one call, closed in another, where its close loops
          parked = coroutine.create(function()
            local _ <close> = setmetatable({}, { __close = spin })
            coroutine.yield()
          end)
          coroutine.resume(parked)
        elseif t == "close" then
          for _ = 1, 3000000 do end
          pcall(coroutine.close, parked)
        elseif t == "big" then
          local n = 0
          for i = 1, 30000000 do n = i end
          session:send({ t = "big", n = n })
          return
        end
        session:send({ t = "ok" })
      end,
    }
  end,
}
]]

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

-- Polls until a fresh connection's steps give a result pred accepts (reloads land within ms).
local function eventually(port, steps, pred)
  local ev
  for _ = 1, 50 do
    ev = H.client(port, steps)
    if pred(ev) then return ev end
    H.sleep(0.1)
  end
  return ev
end

describe("tycho serve fences", function()
  it("gives a module a small state with what a module needs and no renderer, window, input, audio or physics", function()
    local probe = [[
collectgarbage("collect")
local kib = collectgarbage("count")
local seen = {}
for _, name in ipairs({ "json", "storage", "crdt", "terrain", "voxel", "now", "fanout", "ui", "scene", "render",
  "window", "input", "audio", "physics", "sandbox" }) do
  seen[#seen + 1] = name .. "=" .. type(tycho[name])
end
seen[#seen + 1] = "mesh=" .. type(tycho.voxel.mesh)
seen[#seen + 1] = "room=" .. type(require("tycho.server.room").new)
return { onStart = function(host) host:log(("heap %d KiB; %s"):format(math.ceil(kib), table.concat(seen, " "))) end }
]]
    withModules({ probe = probe }, function(dir, data)
      local log = H.with(dir, data, function() end)
      local line = log:match("%[probe%] heap [^\n]*")
      assert.is_not_nil(line, log)
      for _, there in ipairs({ "json", "storage", "crdt", "terrain", "voxel", "now", "fanout" }) do
        assert.truthy(line:find(" " .. there .. "=", 1, true) and not line:find(" " .. there .. "=nil", 1, true), line)
      end
      for _, gone in ipairs({ "ui", "scene", "render", "window", "input", "audio", "physics", "sandbox", "mesh" }) do
        assert.truthy(line:find(" " .. gone .. "=nil", 1, true), line)
      end
      assert.truthy(line:find("room=function", 1, true), line)
      -- the whole engine's state took 240 KiB; a module's is a fraction of it
      assert.is_true(tonumber(line:match("heap (%d+) KiB")) < 80, line)
    end)
  end)

  it("stops only the module whose message decode passes its memory cap; the process keeps serving", function()
    withModules({ echo = ECHO, other = ECHO }, function(dir, data)
      local items = {}
      for i = 1, 9990 do items[i] = "{}" end
      local big = "[" .. table.concat(items, ",") .. "]"
      local log = H.with(dir, data, function(s)
        local ev = H.client(s.port, {
          { open = "e", path = "/echo" }, { open = "o", path = "/other" },
          { send = "e", text = big }, { closed = "e" },
          { send = "o", json = { alive = true } }, { recv = "o" },
          { open = "e2", path = "/echo" }, { closed = "e2" },
        })
        local closed = H.find(ev, function(e) return e.closed == "e" end)
        assert.equals(1011, closed.code)
        assert.same({ t = "echo", data = { alive = true } }, H.messages(ev, "o", "echo")[1])
        assert.equals(1011, H.find(ev, function(e) return e.closed == "e2" end).code)
      end, "--max-memory", "256K")
      assert.truthy(log:find("module echo passed its memory cap", 1, true))
    end)
  end)

  it("says so when --max-memory is too small for a module to run at all, and keeps serving", function()
    withModules({ echo = ECHO }, function(dir, data)
      local log = H.with(dir, data, function(s)
        local ev = H.client(s.port, { { open = "e", path = "/echo" }, { closed = "e" } })
        assert.equals(1011, H.find(ev, function(e) return e.closed == "e" end).code)
      end, "--max-memory", "1")
      assert.truthy(log:find("module echo: a fresh module state takes %d+ bytes, more than %-%-max%-memory 1"), log)
      assert.truthy(log:find("(/echo [failed])", 1, true), log)
    end)
  end)

  it("restarts a module stopped by its memory cap on its next good save", function()
    local hog = [[
local stored = 0
return {
  onStart = function(host) host:log("started") end,
  onConnect = function(session)
    return {
      onMessage = function(msg)
        if msg.t == "hog" then
          local t = {}
          while true do t[#t + 1] = ("x"):rep(1000) .. #t end
        end
        stored = stored + 1
        session:send({ t = "ok", version = VERSION, n = stored })
      end,
    }
  end,
}
]]
    withModules({ hog = hog:gsub("VERSION", "1") }, function(dir, data)
      local log = H.with(dir, data, function(s)
        local ev = H.client(s.port, {
          { open = "h", path = "/hog" }, { send = "h", json = { t = "hi" } }, { recv = "h" },
          { send = "h", json = { t = "hog" } }, { closed = "h" },
          { open = "h2", path = "/hog" }, { closed = "h2" },
        })
        assert.equals(1, H.messages(ev, "h", "ok")[1].version)
        assert.equals(1011, H.find(ev, function(e) return e.closed == "h" end).code)
        assert.equals(1011, H.find(ev, function(e) return e.closed == "h2" end).code)
        writeFile(dir .. "/hog.lua", (hog:gsub("VERSION", "2")))
        ev = eventually(s.port, { { open = "h", path = "/hog" }, { send = "h", json = { t = "hi" } }, { recv = "h" } },
          function(e) return #H.messages(e, "h", "ok") > 0 end)
        local ok = H.messages(ev, "h", "ok")[1]
        assert.is_not_nil(ok, "the module never came back")
        assert.same({ t = "ok", version = 2, n = 1 }, ok) -- a fresh state: its count starts over
        -- and a fence still stops it again
        ev = H.client(s.port, { { open = "h", path = "/hog" }, { send = "h", json = { t = "hog" } }, { closed = "h" } })
        assert.equals(1011, H.find(ev, function(e) return e.closed == "h" end).code)
      end, "--max-memory", "16M")
      assert.truthy(log:find("server_module_restarted", 1, true))
      local _, starts = log:gsub("%[hog%] started", "")
      assert.equals(2, starts)
    end)
  end)

  it("says in its log which budget a module ran past, in numbers", function()
    withModules({ spin = SPIN }, function(dir, data)
      local log = H.with(dir, data, function(s)
        local ev = H.client(s.port, { { open = "s", path = "/spin" }, { send = "s", json = { t = "spin" } }, { closed = "s" } })
        assert.equals(1011, H.find(ev, function(e) return e.closed == "s" end).code)
      end, "--max-instructions", "1000000")
      -- luaL_error formats with lua_pushfstring, which refused the %lld it was given
      assert.truthy(log:find("module 'spin' ran past its budget of 1000000 instructions in one call", 1, true), log)
      assert.falsy(log:find("invalid option", 1, true), log)
    end)
  end)

  it("stops a module that catches its budget's error and runs on, with pcall, xpcall or a coroutine", function()
    withModules({ catcher = CATCHER }, function(dir, data)
      local log = H.with(dir, data, function(s)
        for _, how in ipairs({ "pcall", "xpcall", "wrap" }) do
          local ev = H.client(s.port, {
            { open = "c", path = "/catcher" }, { send = "c", json = { t = "hi" } }, { recv = "c" },
            { send = "c", json = { t = how } }, { closed = "c" },
          })
          assert.equals(1, #H.messages(ev, "c", "ok"), how)
          local closed = H.find(ev, function(e) return e.closed == "c" end)
          assert.is_not_nil(closed, how .. ": the module was not stopped")
          assert.equals(1011, closed.code, how)
          -- back after its backoff, for the next way round
          local back
          for _ = 1, 50 do
            back = H.client(s.port, { { open = "c", path = "/catcher" }, { send = "c", json = { t = "hi" } }, { recv = "c" } })
            if #H.messages(back, "c", "ok") > 0 then break end
            H.sleep(0.2)
          end
          assert.equals(1, #H.messages(back, "c", "ok"), how .. ": the module did not come back")
        end
      end, "--no-watch", "--max-instructions", "1000000")
      local _, stops = log:gsub("module catcher passed its instruction budget", "")
      assert.equals(3, stops, log)
    end)
  end)

  it("stops a runaway callback under the default budget, whose hook comes only past a grace, however it loops", function()
    local hows = { "spin", "pcall", "xpcall", "wrap", "alloc", "yield", "close" }
    local files = {}
    for _, how in ipairs(hows) do files["r_" .. how] = RUNAWAY end
    withModules(files, function(dir, data)
      local log = H.with(dir, data, function(s)
        for _, how in ipairs(hows) do
          local path = "/r_" .. how
          local steps = { { open = "c", path = path }, { send = "c", json = { t = "hi" } }, { recv = "c" } }
          if how == "close" then
            steps[#steps + 1] = { send = "c", json = { t = "park" } }
            steps[#steps + 1] = { recv = "c" }
          end
          steps[#steps + 1] = { send = "c", json = { t = how } }
          steps[#steps + 1] = { closed = "c" }
          local ev = H.client(s.port, steps)
          local closed = H.find(ev, function(e) return e.closed == "c" end)
          if closed then
            assert.equals(1011, closed.code, how)
          else
            -- 100 M steps take a second or two, more on a busy machine than the client's 5 s
            -- wait: then the log says when the stop came
            local stopped = "module r_" .. how .. " passed its instruction budget"
            for _ = 1, 300 do
              if (H.readFile(s.log) or ""):find(stopped, 1, true) then break end
              H.sleep(0.1)
            end
            assert.truthy((H.readFile(s.log) or ""):find(stopped, 1, true), how .. ": the module was not stopped")
          end
        end
        -- each is back after its backoff and serves again
        for _, how in ipairs(hows) do
          local ev = eventually(s.port, { { open = "c", path = "/r_" .. how }, { send = "c", json = { t = "hi" } },
            { recv = "c" } }, function(e) return #H.messages(e, "c", "ok") > 0 end)
          assert.equals(1, #H.messages(ev, "c", "ok"), how .. ": the module did not come back")
        end
      end, "--no-watch")
      for _, how in ipairs(hows) do
        assert.truthy(log:find("module r_" .. how .. " passed its instruction budget", 1, true), how .. "\n" .. log)
        assert.truthy(log:find("module 'r_" .. how .. "' ran past its budget of 100000000 instructions", 1, true), log)
      end
    end)
  end)

  it("lets a long callback under the default budget run to its end", function()
    withModules({ big = RUNAWAY }, function(dir, data)
      local log = H.with(dir, data, function(s)
        local ev = H.client(s.port, {
          { open = "b", path = "/big" }, { send = "b", json = { t = "big" } }, { recv = "b" },
          { send = "b", json = { t = "hi" } }, { recv = "b" },
        })
        assert.same({ t = "big", n = 30000000 }, H.messages(ev, "b", "big")[1])
        assert.equals(1, #H.messages(ev, "b", "ok"))
        assert.is_nil(H.find(ev, function(e) return e.closed == "b" end))
      end)
      assert.falsy(log:find("passed its instruction budget", 1, true), log)
    end)
  end)

  it("restarts a module stopped by its instruction budget by itself, backing off", function()
    local ok = { { open = "s", path = "/spin" }, { send = "s", json = { t = "hi" } }, { recv = "s" } }
    local function served(e) return #H.messages(e, "s", "ok") > 0 end
    withModules({ spin = SPIN }, function(dir, data)
      local log = H.with(dir, data, function(s)
        for round = 1, 2 do
          local ev = H.client(s.port, {
            { open = "s", path = "/spin" }, { send = "s", json = { t = "spin" } }, { closed = "s" },
            { open = "s2", path = "/spin" }, { closed = "s2" },
          })
          local t0 = tycho.now()
          assert.equals(1011, H.find(ev, function(e) return e.closed == "s" end).code)
          assert.equals(1011, H.find(ev, function(e) return e.closed == "s2" end).code) -- down for now
          ev = eventually(s.port, ok, served)
          local waited = tycho.now() - t0
          assert.is_true(served(ev), "the module did not come back by itself (round " .. round .. ")")
          -- the first restart comes after 1 s, the second after 2 s
          assert.is_true(waited > round - 0.6 and waited < round + 1.5, ("round %d: back after %.1f s"):format(round, waited))
        end
      end, "--no-watch", "--max-instructions", "1000000")
      assert.truthy(log:find("it restarts in 1 s", 1, true), log)
      assert.truthy(log:find("it restarts in 2 s", 1, true), log)
      assert.truthy(log:find("restarted in a fresh state after it was stopped (restart 2)", 1, true), log)
      local _, starts = log:gsub("%[spin%] started", "")
      assert.equals(3, starts)
    end)
  end)
end)
