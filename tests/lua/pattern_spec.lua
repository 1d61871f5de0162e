-- tests/lua/pattern_spec.lua: the sandbox's string.find, match, gmatch and gsub
-- (bindings/lua_sandbox_pattern.c) against the stock Lua 5.4 ones. The same chunk, CASES,
-- runs in this (host) state with the stock functions and in a SandboxVM with the counted
-- ones; both make the same cases from a seeded generator (small alphabets, so that patterns
-- match; specials, classes, sets, quantifiers, anchors, captures, %b, %f, back-references
-- and malformed patterns), then a list of edge cases, and write every result, or every
-- error message, as text. Each case must come out identical on both sides.

local SEED, COUNT = 20240611, 10000

local CASES = [==[
local format, pack, unpack, pcall, select = string.format, string.pack, string.unpack, pcall, select
local find, match, gmatch, gsub = string.find, string.match, string.gmatch, string.gsub

-- A 64-bit LCG (integer arithmetic wraps), so both states draw the same numbers.
local function generator(seed)
  local x = seed
  return function(n)
    x = x * 6364136223846793005 + 1442695040888963407
    return (x >> 33) % n + 1
  end
end

local SUBJECT = "aaabbc()[].%-^$ 1x\0\200\255"
local LITERAL = "abcx 1\0\200"
local CLASSES = "adlsuwxpcgADLSUWXPCG.%()[]-^$z1\0"
local SETITEM = "abc-]^%()\0\200"
local GARBAGE = "%[]()^$*+-?."
local QUANT = { "", "", "", "*", "+", "-", "?" }
local REPL = { "x", "%0", "%1", "%2", "%3", "%%", "%", "%a", "<", "%9", "", "%\0" }

local function pick(r, s)
  local i = r(#s)
  return s:sub(i, i)
end

local function set(r)
  local t = { "[" }
  if r(3) == 1 then t[#t + 1] = "^" end
  for _ = 1, r(4) - 1 do
    local k = r(6)
    if k == 1 then t[#t + 1] = pick(r, "abc") .. "-" .. pick(r, "abc")
    elseif k == 2 then t[#t + 1] = "%" .. pick(r, CLASSES)
    elseif k == 3 then t[#t + 1] = "\128-\255"
    else t[#t + 1] = pick(r, SETITEM) end
  end
  if r(12) > 1 then t[#t + 1] = "]" end
  return table.concat(t)
end

local function pattern(r)
  local t = {}
  if r(4) == 1 then t[1] = "^" end
  for _ = 1, r(7) - 1 do
    local k, single = r(20), nil
    if k <= 5 then single = pick(r, LITERAL)
    elseif k <= 7 then single = "."
    elseif k <= 10 then single = "%" .. pick(r, CLASSES)
    elseif k <= 12 then single = set(r)
    elseif k == 13 then t[#t + 1] = "("
    elseif k == 14 then t[#t + 1] = ")"
    elseif k == 15 then t[#t + 1] = "()"
    elseif k == 16 then t[#t + 1] = "%" .. (r(6) - 1)
    elseif k == 17 then t[#t + 1] = ("%b" .. pick(r, "()ab[]") .. pick(r, "()ab[]")):sub(1, 2 + r(3))
    elseif k == 18 then t[#t + 1] = "%f" .. (r(8) > 1 and set(r) or pick(r, "a%"))
    elseif k == 19 then t[#t + 1] = pick(r, GARBAGE)
    else t[#t + 1] = "(" .. pick(r, LITERAL) .. "*)" end
    if single then t[#t + 1] = single .. QUANT[r(#QUANT)] end
  end
  if r(4) == 1 then t[#t + 1] = "$" end
  if r(30) == 1 then t[#t + 1] = "%" end
  return table.concat(t)
end

-- Case: {subject, pattern, init, plain, replacement, max}; the replacement is a string, or
-- "\1T" / "\1F" for REPL_TABLE / repl_function below, "\1B" for true, "\1#" for 5.5, "\1N" for nil.
local function cases(seed, count)
  local r, list = generator(seed), {}
  for i = 1, count do
    local s = {}
    for j = 1, r(14) - 1 do s[j] = pick(r, SUBJECT) end
    local init = r(2) == 1 and r(31) - 16 or nil
    local repl
    local k = r(4)
    if k == 1 then repl = "\1T"
    elseif k == 2 then repl = "\1F"
    else
      local parts = {}
      for j = 1, r(4) - 1 do parts[j] = REPL[r(#REPL)] end
      repl = table.concat(parts)
    end
    list[i] = { table.concat(s), pattern(r), init, r(4) == 1, repl, r(3) == 1 and r(5) - 2 or nil }
  end
  local a200, a250 = ("a"):rep(200), ("a"):rep(250)
  local edge = {
    -- nesting: stock Lua stops at 200 levels of its matcher ("pattern too complex")
    { a250, ("a?"):rep(197) }, { a250, ("a?"):rep(198) }, { a250, ("a?"):rep(199) }, { a250, ("a?"):rep(200) },
    { a250, ("a?"):rep(201) }, { a200, ("(a)"):rep(30) }, { a250, ("a-"):rep(197) .. "a*$" },
    { a250, ("a-"):rep(199) .. "a*$" }, { a250, ("a-"):rep(200) .. "a*$" },
    -- 32 captures at most
    { "abc", ("()"):rep(32) }, { "abc", ("()"):rep(33) }, { a200, ("(a)"):rep(32) }, { a200, ("(a)"):rep(33) },
    { "abc", ("("):rep(32) .. ("a"):rep(1) .. (")"):rep(32) },
    -- back-references
    { "abab", "(ab)%1" }, { "aa", "()a%1" }, { "a", "(a)%2" }, { "a", "(a%1)" }, { "a", "%0" }, { "a", "(a)%0" },
    { "xyzxyz", "(x(y)z)%1" }, { "aa", "(a*)%1$" }, { "", "()%1" },
    -- captures in replacements and results
    { "abc", "()", nil, false, "%1" }, { "abc", "(b)()", nil, false, "%2%1" }, { "abc", "(b)", nil, false, "%2" },
    { "abc", "b", nil, false, "%1" }, { "abc", "b", nil, false, "%2" }, { "abc", "(b", nil, false, "x" },
    { "abc", "b)", nil, false, "x" }, { "abc", "()", nil, false, "\1T" }, { "abc", "", nil, false, "-" },
    { "abc", "b*", nil, false, "-" }, { "abc", "^", nil, false, "-" }, { "abc", "$", nil, false, "-" },
    { "abc", ".", nil, false, "%" }, { "abc", ".", nil, false, "%x" }, { "abc", "a", nil, false, "x", 0 },
    { "abc", ".", nil, false, "x", -1 }, { "aaa", "a", nil, false, "\1F", 2 },
    -- %b and %f
    { "((a)(b))", "%b()" }, { "(((", "%b()" }, { "x", "%b" }, { "x", "%b(" }, { "x)", "%b)" }, { "aXb", "%bab" },
    { "THE (quick) fox", "%f[%a]%a+" }, { "a\0b", "%f[%z]" }, { "ab", "%f[^\0]" }, { "ab", "%fa" },
    { "ab", "%f" }, { "ab", "%f[a" }, { "", "%f[\0]" }, { "a", "%f[^a]$" }, { "a\0", "%f[\0]" },
    -- sets
    { "a]b", "[]]" }, { "a]b", "[^]]+" }, { "a-b", "[a-]" }, { "a-b", "[-a]" }, { "^", "[^^]" }, { "%", "[%%]" },
    { "x", "[%" }, { "x", "[" }, { "x", "[^" }, { "x", "[a-" }, { "x", "[]" }, { "b", "[a-%]" },
    { "\200\255", "[\128-\255]+" }, { "z", "[%z]" }, { "5", "[%d-z]" },
    -- anchors and plain text
    { "^a", "^^a" }, { "a$b", "a$b" }, { "a$", "a$$" }, { "a.b", ".", 1, true }, { "a.b", "", 5, true },
    { "abc", "", 4 }, { "abc", "", 5 }, { "abc", "c", -1 }, { "abc", "a", -100 }, { "abc", "a", 0 },
    { "a\0b", "\0" }, { "a\0b", "%z" }, { "a\0b", "[\0]" }, { "a\0b", "a\0b", nil, true }, { "a+b", "a+b" },
    { "x", "%" }, { "x", "x%" }, { "", "" }, { "", "^$" }, { "", ".-" }, { "", "()" },
    { "abc", "", math.maxinteger }, { "abc", "", math.mininteger }, { "abc", "b", math.mininteger + 1 },
    -- arguments: conversions and the order in which bad ones are reported
    { 12345, 3 }, { 12345, 3, nil, false, "\1#" }, { "abc", "b", "2" }, { "abc", "b", "x" }, { "abc", "b", 2.5 },
    { "abc", "b", nil, false, "\1B" }, { "abc", "b", nil, false, "\1N" }, { "abc", "b", nil, false, "x", "y" },
    { "abc", "b", nil, false, "\1B", "y" }, { "abc", "b", nil, false, "x", 1.5 }, { "abc", "b", nil, false, "x", "2" },
    { {}, "b" }, { "abc", {} }, { "abc", nil },
  }
  for i = 1, #edge do
    local e = edge[i]
    list[#list + 1] = { e[1], e[2], e[3], e[4] or false, e[5] or "%0", e[6] }
  end
  return list
end

local REPL_TABLE = { a = "<A>", ab = 7, b = false, [""] = "E", [1] = "P1", [2] = {}, x = true, c = 1.5 }

local function repl_function(...)
  local n, a = select("#", ...), ...
  local k = (n + #tostring(a)) % 5
  if k == 0 then return nil end
  if k == 1 then return false end
  if k == 2 then return tostring(a) .. n end
  if k == 3 then return n * 2 end
  return a == "b" and {} or a
end

local function text(ok, ...)
  local t = { ok and "ok" or "err" }
  for i = 1, select("#", ...) do
    local v = select(i, ...)
    local ty = type(v)
    t[#t + 1] = (ty == "string" or ty == "number") and format("%q", v) or tostring(v)
  end
  return table.concat(t, " ")
end

local function iterate(s, p, init)
  local out, it = {}, gmatch(s, p, init)
  for _ = 1, 300 do
    local r = table.pack(it())
    if r.n == 0 then break end
    out[#out + 1] = text(true, table.unpack(r, 1, r.n))
  end
  return table.concat(out, "; ")
end

local function run_case(c)
  local s, p, init, plain, repl, max = c[1], c[2], c[3], c[4], c[5], c[6]
  local special = { ["\1T"] = REPL_TABLE, ["\1F"] = repl_function, ["\1B"] = true, ["\1#"] = 5.5, ["\1N"] = false }
  if special[repl] ~= nil then repl = special[repl] or nil end
  return table.concat({
    text(pcall(find, s, p, init, plain)),
    text(pcall(match, s, p, init)),
    text(pcall(iterate, s, p, init)),
    text(pcall(gsub, s, p, repl, max)),
  }, "\n")
end

-- All results, each as a string.pack("s4") record.
function runAll(seed, count)
  local out = {}
  for i, c in ipairs(cases(seed, count)) do out[i] = pack("s4", run_case(c)) end
  return table.concat(out)
end

local function show(v) return type(v) == "string" and format("%q", v) or tostring(v) end

function describeCase(seed, count, i)
  local c = cases(seed, count)[i]
  return format("s=%s p=%s init=%s plain=%s repl=%q max=%s", show(c[1]), show(c[2]), show(c[3]), tostring(c[4]),
    c[5], show(c[6]))
end

function unpackAll(blob)
  local list, pos = {}, 1
  while pos <= #blob do
    list[#list + 1], pos = unpack("s4", blob, pos)
  end
  return list
end
]==]

-- The results from inside a SandboxVM.
local function sandboxed(seed, count)
  local lines = {}
  local vm = tycho.sandbox.vm({ quiet = true, instructionLimit = 10 ^ 12 // 1,
    callbacks = { log = function(line) lines[#lines + 1] = line end } })
  assert.is_true(vm:load(CASES .. "\nfunction main(seed, count) print(runAll(seed, count)) end", "=cases"))
  local ok, err = vm:call("main", seed, count)
  vm:close()
  assert.is_true(ok, err)
  return lines[1]
end

-- The same chunk in this state, with the stock functions.
local function stock()
  local env = setmetatable({}, { __index = _G })
  assert(load(CASES, "=cases", "t", env))()
  return env
end

local function strip(result)
  -- "file:line:" before an error message is where the call was made from, not the matcher's
  return (result:gsub('err "[^"\n]-:%d+: ', 'err "'))
end

describe("sandboxed string patterns", function()
  it("give stock Lua's results and errors for generated and edge-case patterns", function()
    local host = stock()
    local want = host.unpackAll(host.runAll(SEED, COUNT))
    local got = host.unpackAll(sandboxed(SEED, COUNT))
    assert.equals(#want, #got)
    local bad = {}
    for i = 1, #want do
      if strip(want[i]) ~= strip(got[i]) then
        bad[#bad + 1] = host.describeCase(SEED, COUNT, i) .. "\n  stock:\n" .. want[i] .. "\n  sandbox:\n" .. got[i]
        if #bad == 5 then break end
      end
    end
    assert.equals("", table.concat(bad, "\n\n"))
    assert.truthy(#want > COUNT) -- the edge cases ran too
  end)

  it("stop a runaway pattern at the line that called it, from any of the four functions", function()
    local calls = {
      'string.find(s, ".-.-.-b")', 'string.match(s, ".-.-.-b")', 'string.gsub(s, ".-.-.-b", "")',
      'for _ in string.gmatch(s, ".-.-.-b") do end', 's:gsub("a", function() return s:find(".-.-.-b") end)',
    }
    for _, call in ipairs(calls) do
      local vm = tycho.sandbox.vm({ quiet = true, instructionLimit = 200000 })
      assert.is_true(vm:load("local s = ('a'):rep(3000)\nlocal function f()\n  " .. call
        .. "\nend\nfunction onUpdate()\n  f()\nend", "=scene"))
      local ok, err = vm:call("onUpdate")
      assert.is_false(ok, call)
      assert.matches("^scene:3: instruction limit exceeded", err)
      assert.equals("instruction limit exceeded", vm:stopped())
      vm:close()
    end
  end)

  it("match at least some of the generated cases", function()
    -- guards the generator: a change that makes nothing match would test little
    local host = stock()
    local found = 0
    for _, r in ipairs(host.unpackAll(host.runAll(SEED, 500))) do
      if r:match("^ok %d") then found = found + 1 end
    end
    assert.truthy(found > 100, found)
  end)
end)
