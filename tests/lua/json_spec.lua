-- tests/lua/json_spec.lua: tycho.json.encode/decode edge cases (bindings/lua_json.c).
local json = tycho.json

describe("tycho.json.encode", function()
  it("encodes arrays, objects, nesting and scalars", function()
    assert.equals("[1,2,3]", json.encode({ 1, 2, 3 }))
    assert.equals('{"a":1}', json.encode({ a = 1 }))
    assert.equals('[{"b":[true,false]},"s"]', json.encode({ { b = { true, false } }, "s" }))
    assert.equals('"x\\ny"', json.encode("x\ny"))
    assert.equals("null", json.encode(nil))
    assert.equals("null", json.encode(json.null))
    assert.equals("{}", json.encode({}))
  end)

  it("writes integral numbers as integers and keeps fractions", function()
    assert.equals("3", json.encode(3.0))
    assert.equals("-7", json.encode(-7))
    assert.equals("1.5", json.encode(1.5))
    assert.equals("9007199254740993", json.encode(9007199254740993))
  end)

  it("treats a table with holes or extra keys as an object with string keys", function()
    local t = json.decode(json.encode({ [1] = "a", [3] = "c" }))
    assert.same({ ["1"] = "a", ["3"] = "c" }, t)
    assert.same({ ["1"] = "a", x = 1 }, json.decode(json.encode({ "a", x = 1 })))
  end)

  it("raises for what JSON cannot hold", function()
    assert.has_error(function() json.encode(function() end) end)
    assert.has_error(function() json.encode({ f = print }) end)
    local cycle = {}
    cycle[1] = cycle
    local ok, err = pcall(json.encode, cycle)
    assert.is_false(ok)
    assert.truthy(err:find("cycle", 1, true))
    assert.has_error(function() json.encode(0 / 0) end)
    assert.has_error(function() json.encode(math.huge) end)
    assert.has_error(function() json.encode("\xff\xfe") end)
    assert.has_error(function() json.encode({ [true] = 1 }) end)
  end)

  it("encodes a table met twice (not a cycle) twice", function()
    local shared = { 1 }
    assert.equals("[[1],[1]]", json.encode({ shared, shared }))
  end)
end)

describe("tycho.json.decode", function()
  it("decodes to Lua values: integers stay integers, null is json.null", function()
    local v = json.decode('{"a":[1,2.5,"s",true,null],"o":{}}')
    assert.equals(1, v.a[1])
    assert.equals("integer", math.type(v.a[1]))
    assert.equals(2.5, v.a[2])
    assert.equals("s", v.a[3])
    assert.is_true(v.a[4])
    assert.equals(json.null, v.a[5])
    assert.same({}, v.o)
    assert.equals(42, json.decode("42"))
  end)

  it("returns nil, message, code for bad input", function()
    local v, msg, code = json.decode("{bad")
    assert.is_nil(v)
    assert.is_string(msg)
    assert.equals("bad_json", code)
    assert.equals("bad_json", select(3, json.decode("")))
    assert.equals("bad_json", select(3, json.decode("[1,]")))
    assert.equals("bad_json", select(3, json.decode('"\xff"')))
  end)

  it("enforces depth and size caps (default 64 deep, 10000 values; both configurable)", function()
    local deep = string.rep("[", 65) .. string.rep("]", 65)
    assert.equals("too_deep", select(3, json.decode(deep)))
    assert.is_table(json.decode(string.rep("[", 64) .. string.rep("]", 64)))
    assert.equals("too_deep", select(3, json.decode(string.rep("[", 5000) .. string.rep("]", 5000))))
    local huge = "[" .. string.rep("0,", 10000) .. "0]"
    assert.equals("too_large", select(3, json.decode(huge)))
    assert.equals(10001, #json.decode(huge, { maxItems = 20000 }))
    assert.equals("too_deep", select(3, json.decode("[[1]]", { maxDepth = 1 })))
  end)

  -- A flat object is read straight into its table (bindings/lua_json_flat.c); the same
  -- document with its first key escaped ("\u0074" is "t") goes through jansson: both must
  -- give the same fields, number kinds and pairs order.
  local function fields(t)
    local out = {}
    for k, v in pairs(t) do out[#out + 1] = { k, v, math.type(v) or type(v) } end
    return out
  end

  it("reads a flat object as the full decoder does: values, number kinds, field order", function()
    local docs = {
      '{"t":"transform","x":64.25,"y":80,"z":-0.5,"yaw":3,"pitch":0}',
      ' { "t" : "a b", "n" : -0 , "e" : 1E+2, "f" : 2.5e-3, "g": 1e-400,\n"ok":true,"no":false,"nil":null } ',
      '{"t":"","big":9223372036854775807,"neg":-9223372036854775808,"k1":1,"k2":2,"k3":3,"k4":4}',
      '{"t":1}',
    }
    for _, doc in ipairs(docs) do
      local escaped = doc:gsub('"t"', '"\\u0074"', 1)
      local flat, full = json.decode(doc), json.decode(escaped)
      assert.is_table(flat, doc)
      assert.same(fields(full), fields(flat))
    end
    assert.equals(json.null, json.decode('{"n":null}').n)
    assert.same({}, json.decode(" {} "))
  end)

  it("reads every real of a flat object to the same double as the full decoder", function()
    local rng = math.random
    math.randomseed(7)
    local texts = { "0.1", "-0.0", "1.5", "2.5e-3", "1E+22", "1e23", "9007199254740993.0", "9007199254740992.5",
      "0.000000000000000000001", "123456789012345678.9", "1.7976931348623157e308", "4.9e-324", "1e-400",
      "3.0e-22", "12345678901234567890.0", "0.30000000000000004", "-64.25e0" }
    for _ = 1, 3000 do
      local digits = {}
      for k = 1, rng(1, 20) do digits[k] = tostring(rng(0, 9)) end
      local int = tostring(rng(0, 99999))
      texts[#texts + 1] = (rng() < 0.5 and "-" or "") .. int .. "." .. table.concat(digits)
        .. (rng() < 0.3 and ("e" .. rng(-30, 30)) or "")
      texts[#texts + 1] = string.format("%.17g", (rng() - 0.5) * 10 ^ rng(-8, 16))
      texts[#texts + 1] = string.format("%.3f", (rng() - 0.5) * 2000)
    end
    for _, text in ipairs(texts) do
      if not text:find("[.eE]") then text = text .. ".0" end
      local flat = json.decode('{"x":' .. text .. '}')
      local full = json.decode('{"\\u0078":' .. text .. '}')
      assert.equals(math.type(full.x), math.type(flat.x), text)
      assert.equals(full.x, flat.x, text)
      assert.equals(1 / full.x, 1 / flat.x, text) -- the sign of a zero
      assert.equals(tonumber(text), flat.x, text)
    end
  end)

  it("reads integers of every length as the full decoder does", function()
    for digits = 1, 19 do
      for _, sign in ipairs({ "", "-" }) do
        local text = sign .. ("1234567890123456789"):sub(1, digits)
        local flat, full = json.decode('{"n":' .. text .. '}'), json.decode('{"\\u006e":' .. text .. '}')
        assert.equals("integer", math.type(flat.n), text)
        assert.equals(full.n, flat.n, text)
        assert.equals(math.tointeger(text), flat.n, text)
      end
    end
    assert.equals(0, json.decode('{"n":-0}').n)
    assert.equals(math.mininteger, json.decode('{"n":-9223372036854775808}').n)
  end)

  it("leaves to the full decoder what a flat read cannot take, with its answers", function()
    assert.equals(2, json.decode('{"a":1,"a":2}').a) -- a repeated key: the last one
    assert.equals("caf\u{e9}", json.decode('{"a":"caf\u{e9}"}').a)
    assert.equals("x\ny", json.decode('{"a":"x\\ny"}').a)
    for _, bad in ipairs({ '{"a":1,}', '{"a":01}', '{"a":1e999}', '{"a":99999999999999999999}', '{"a":1}x',
      '{"a":-}', '{"a":1.}', '{"a":tru}', '{"a" 1}', '{"a":"\1"}', '{"a":1', '{a:1}' }) do
      local v, msg, code = json.decode(bad)
      assert.is_nil(v, bad)
      assert.is_string(msg)
      assert.equals("bad_json", code, bad)
    end
    assert.equals("too_large", select(3, json.decode('{"a":1,"b":2}', { maxItems = 2 })))
    assert.is_table(json.decode('{"a":1,"b":2}', { maxItems = 3 }))
    assert.equals("too_deep", select(3, json.decode('{"a":1}', { maxDepth = 0 })))
  end)
end)

describe("tycho.json.array", function()
  it("encodes a marked table as an array even while empty, and keeps the mark as it fills", function()
    local list = json.array({})
    assert.equals("[]", json.encode(list))
    assert.equals('{"edits":[]}', json.encode({ edits = list }))
    list[#list + 1] = { x = 1 }
    list[#list + 1] = 2
    assert.equals('[{"x":1},2]', json.encode(list))
    list[1], list[2] = nil, nil
    assert.equals("[]", json.encode(list))
    assert.is_true(json.isArray(list))
    assert.is_false(json.isArray({}))
    assert.is_false(json.isArray("[]"))
  end)

  it("returns its argument, or a new marked table when given nothing", function()
    local t = { 1, 2 }
    assert.equals(t, json.array(t))
    assert.equals("[]", json.encode(json.array()))
    assert.equals(t, json.array(t)) -- marking twice is harmless
  end)

  it("writes a marked table as t[1..#t], leaving other keys out", function()
    local t = json.array({ "a", "b" })
    t.name = "ignored"
    assert.equals('["a","b"]', json.encode(t))
  end)

  it("honours __jsontype = \"array\" on a table's own metatable and refuses to replace one", function()
    local mt = { __jsontype = "array", __index = {} }
    local t = setmetatable({}, mt)
    assert.equals("[]", json.encode(t))
    assert.equals(t, json.array(t))
    local other = setmetatable({}, { __index = {} })
    local ok, err = pcall(function() return json.array(other) end)
    assert.is_false(ok)
    assert.truthy(err:find("bad argument #1 to 'array'", 1, true))
    assert.has_error(function() json.array(42) end)
  end)

  it("marks decoded arrays so that decode then encode gives the same text", function()
    for _, text in ipairs({ "[]", '{"edits":[]}', '{"o":{}}', '[[],[[]],{"a":[]}]', '[1,[2,[]]]' }) do
      assert.equals(text, json.encode(json.decode(text)))
    end
    local v = json.decode('{"list":[],"obj":{}}')
    assert.is_true(json.isArray(v.list))
    assert.is_false(json.isArray(v.obj))
    assert.is_false(json.isArray(v))
    v.list[1] = 5
    assert.equals(5, v.list[1])
    assert.equals(1, #v.list)
  end)
end)
