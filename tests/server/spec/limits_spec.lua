-- tests/server/spec/limits_spec.lua: what one peer can make `tycho serve` spend. The log: a
-- module that raises on every message of a client writes one traceback, then a count once a
-- second. Needs node and `npm ci --prefix tests/server`.

local H = dofile(require("tycho.testing").here() .. "/../harness.lua")

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

describe("tycho serve limits", function()
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
