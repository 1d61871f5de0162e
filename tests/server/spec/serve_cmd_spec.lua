-- tests/server/spec/serve_cmd_spec.lua: `tycho serve`'s command line (engine/app/serve_cmd.c):
-- each kind of bad option is refused with exit code 2 and a line that names it, before
-- anything listens; --help prints the usage; a missing modules folder is exit code 1.

local H = dofile(require("tycho.testing").here() .. "/../harness.lua")

local function serve(args)
  return H.run(("%s serve %s 2>&1"):format(H.shq(tycho.executable), args))
end

describe("tycho serve's command line", function()
  it("prints its usage for --help and exits 0", function()
    local code, out = serve("--help")
    assert.equals(0, code, out)
    assert.truthy(out:find("usage: tycho serve", 1, true), out)
    assert.truthy(out:find("--max-instructions N", 1, true), out)
    assert.truthy(out:find("[--relay direct|redis] [--link-port PORT]", 1, true), out)
  end)

  it("refuses each bad option with exit code 2 and says which", function()
    local cases = {
      { "--bogus", "unknown option '--bogus'" },
      { "--port", "--port needs a non-negative number" },
      { "--port 80x", "--port needs a non-negative number" },
      { "--max-memory -5", "--max-memory needs a non-negative number" },
      { "--port 70000", "--port must be 0..65535" },
      { "--max-frame 8", "--max-frame at least 16" },
      { "--ping 0", "--ping 1..30000" },
      { "--max-clients 0", "--max-clients and --max-instructions at least 1" },
      { "--max-instructions 0", "--max-clients and --max-instructions at least 1" },
      { "--tls-key k.pem", "--tls-cert and --tls-key go together" },
      { "--relay fast", "--relay is direct (links between the processes, the default) or redis" },
      { "--relay", "--relay is direct" },
      { "--link-port 70000", "as must --link-port" },
      { "--link-port x", "--link-port needs a non-negative number" },
    }
    for _, case in ipairs(cases) do
      local code, out = serve("--port 0 " .. case[1])
      assert.equals(2, code, case[1] .. ": " .. out)
      assert.truthy(out:find(case[2], 1, true), case[1] .. ": " .. out)
      assert.falsy(out:find("listening", 1, true), case[1] .. ": " .. out)
    end
  end)

  it("exits 1 and names the folder when the modules folder cannot be read", function()
    local dir = H.tempDir()
    local code, out = serve(("--port 0 --modules %s --data %s"):format(H.shq(dir .. "/none"), H.shq(dir)))
    assert.equals(1, code, out)
    assert.truthy(out:find("modules folder " .. dir .. "/none", 1, true), out)
    H.removeTree(dir)
  end)
end)
