-- Specs for tycho._useFastTraceback (bindings/lua_host.c): `tycho test` makes debug.traceback
-- a function that searches package.loaded once per call instead of once per frame; its text
-- must be Lua's own, frame for frame. Each case calls both on one line, so that every frame,
-- the caller's included, is the same for the two.
local original = tycho._useFastTraceback()
local fast = debug.traceback

local function both(...)
  local a, b = original(...), fast(...)
  return a, b
end

local function same(...)
  local a, b = both(...)
  assert.equals(a, b)
  return a
end

describe("the fast debug.traceback", function()
  it("is what tycho test runs with, and not Lua's own", function()
    assert.are_not.equal(original, fast)
    assert.equals(fast, debug.traceback)
    assert.equals(original, tycho._useFastTraceback()) -- installing twice keeps Lua's own
  end)

  it("writes Lua's text for a shallow stack, with messages and levels", function()
    local text = same()
    assert.matches("^stack traceback:\n", text)
    same("a message")
    same("a message", 1)
    same("a message", 2)
    same(nil, 3)
    same(42)
    same("beyond the stack", 200)
    local t = {}
    local a, b = both(t)
    assert.equals(t, a)
    assert.equals(t, b)
  end)

  it("names functions as Lua does: globals, module fields, locals, methods", function()
    package.loaded.tbmod = { call = function(f) local r = f(); return r end }
    local ok, text = pcall(package.loaded.tbmod.call, function() return same("m") end)
    package.loaded.tbmod = nil
    assert.is_true(ok)
    assert.matches("function 'pcall'", text)
    assert.matches("function 'tbmod.call'", text)
    local sorted = {}
    table.sort({ 3, 1, 2 }, function(x, y)
      sorted[#sorted + 1] = same()
      return x < y
    end)
    assert.matches("function 'table.sort'", sorted[1])
    local obj = { method = function(self) local t = same(self.name); return t end, name = "obj" }
    assert.matches("in method 'method'", obj:method())
  end)

  it("skips the middle of a deep stack as Lua does, and marks tail calls", function()
    local function deep(n)
      if n == 0 then return (same("deep")) end
      local r = deep(n - 1)
      return r
    end
    for _, n in ipairs({ 1, 15, 16, 17, 18, 19, 20, 25, 60 }) do deep(n) end
    assert.matches("%(skipping %d+ levels%)", deep(60))
    local function tail(n)
      if n == 0 then return same() end
      return tail(n - 1)
    end
    assert.matches("%(%.%.%.tail calls%.%.%.%)", tail(3))
  end)

  it("walks another coroutine's stack", function()
    local co = coroutine.create(function(x)
      local function inner() coroutine.yield(x) end
      inner()
    end)
    coroutine.resume(co, 1)
    same(co)
    same(co, "msg")
    same(co, "msg", 1)
    same(co, nil, 0)
    assert.matches("in local 'inner'", same(co, "x", 0))
    local done = coroutine.create(function() end)
    coroutine.resume(done)
    same(done)
  end)

  it("works as xpcall's message handler", function()
    local function boom() error("boom") end
    local _, a = xpcall(boom, original); local _, b = xpcall(boom, fast)
    assert.equals(a, b)
    assert.matches("in function 'error'", b)
  end)
end)
