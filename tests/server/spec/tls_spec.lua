-- tests/server/spec/tls_spec.lua: `tycho serve --tls-cert FILE --tls-key FILE` serves wss://.
-- The certificate is self-signed, made here with `openssl req`; node's `ws` connects with
-- rejectUnauthorized false (tests/server/client.js, target "wss:PORT"). Without openssl on
-- PATH the test is reported pending.

local H = dofile(require("tycho.testing").here() .. "/../harness.lua")

local FIXTURES = H.HERE .. "/fixtures"

-- Writes a throwaway self-signed certificate and key into dir; false when openssl is missing.
local function makeCert(dir)
  if H.run("command -v openssl") ~= 0 then return false end
  local code, out = H.run(("openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes "
    .. "-days 1 -subj /CN=localhost -keyout %s -out %s"):format(H.shq(dir .. "/key.pem"), H.shq(dir .. "/cert.pem")))
  assert(code == 0, "openssl req failed:\n" .. out)
  return true
end

describe("tycho serve over TLS", function()
  it("serves wss:// with --tls-cert/--tls-key and refuses plain ws:// on that port", function()
    local dir = H.tempDir()
    if not makeCert(dir) then
      H.removeTree(dir)
      pending("openssl is not on PATH: cannot make a test certificate")
      return
    end
    local ok, err = pcall(function()
      local log = H.with(FIXTURES, dir .. "/data", function(s)
        assert.equals("wss:" .. s.port, s.target)
        local ev = H.client(s.target, {
          { open = "a", path = "/echo" },
          { send = "a", json = { t = "ping", list = tycho.json.array() } }, { recv = "a" },
        })
        assert.same({ open = "a" }, ev[1])
        assert.same({ t = "echo", data = { t = "ping", list = {} } }, ev[2].json)
        -- an empty list the client sent comes back as [] (decoded arrays stay arrays)
        assert.is_true(tycho.json.isArray(ev[2].json.data.list))
        -- The same port without TLS: the handshake never completes.
        ev = H.client(s.port, { { open = "b", path = "/echo" } })
        assert.is_nil(ev[1].open, "a plain ws:// connection opened on the TLS port")
        assert.truthy(ev[1].error or ev[1].timeout)
      end, "--tls-cert", dir .. "/cert.pem", "--tls-key", dir .. "/key.pem")
      assert.truthy(log:find("with TLS", 1, true))
    end)
    H.removeTree(dir)
    if not ok then error(err, 0) end
  end)

  it("closes a client that sends an unmasked frame over TLS with 1002, and hands the module nothing of it", function()
    local dir = H.tempDir()
    if not makeCert(dir) then
      H.removeTree(dir)
      pending("openssl is not on PATH: cannot make a test certificate")
      return
    end
    local ok, err = pcall(function()
      H.with(FIXTURES, dir .. "/data", function(s)
        local ev = H.raw(s.target, {
          { open = "a", path = "/echo" }, { send = "a", text = '{"ok":1}' }, { recv = "a" },
          { send = "a", text = '{"bad":1}', masked = false }, { send = "a", text = '{"after":1}' }, { closed = "a" },
          { state = "a" },
        })
        assert.same({ t = "echo", data = { ok = 1 } }, tycho.json.decode(H.find(ev, function(e) return e.recv == "a" end).text))
        assert.equals(1002, H.find(ev, function(e) return e.closed == "a" end).code)
        assert.equals(0, H.find(ev, function(e) return e.state == "a" end).received) -- no echo of either
      end, "--tls-cert", dir .. "/cert.pem", "--tls-key", dir .. "/key.pem")
    end)
    H.removeTree(dir)
    if not ok then error(err, 0) end
  end)

  it("refuses to start with a certificate it cannot load, and with only one of the two options", function()
    local dir = H.tempDir()
    local code, out = H.run(("%s serve --port 0 --modules %s --data %s --tls-cert %s --tls-key %s")
      :format(H.shq(tycho.executable), H.shq(FIXTURES), H.shq(dir), H.shq(dir .. "/none.pem"), H.shq(dir .. "/none.key")))
    assert.equals(1, code, out)
    assert.truthy(out:find("TLS", 1, true), out)
    code, out = H.run(("%s serve --port 0 --modules %s --tls-cert x.pem"):format(H.shq(tycho.executable), H.shq(FIXTURES)))
    assert.equals(2, code, out)
    assert.truthy(out:find("go together", 1, true), out)
    H.removeTree(dir)
  end)
end)
