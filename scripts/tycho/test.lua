-- tycho.test: the Lua side of `tycho test [PATH...]`.
-- Finds *_spec.lua / *_test.lua files, runs them busted-style (describe, it, before_each,
-- after_each, setup, teardown, pending) and prints one line per failing or pending test,
-- then the closing line `N passed, N failed[, N skipped]`.
-- All state lives in a per-run object, so a spec may run a nested suite (see M.run).

local M = {}

local RUNNER_SOURCE = debug.getinfo(1, "S").source
local MAX_FRAMES = 12

--------------------------------------------------------------------------------------------
-- Values as text

local function serialize(v, depth, seen)
  local t = type(v)
  if t == "string" then return (string.format("%q", v):gsub("\\\n", "\\n")) end
  local mt = getmetatable(v)
  if t ~= "table" or (type(mt) == "table" and mt.__tostring) then return tostring(v) end
  if seen[v] then return "<cycle>" end
  if depth > 4 then return "{...}" end
  seen[v] = true
  local items, n = {}, #v
  for i = 1, math.min(n, 40) do items[#items + 1] = serialize(v[i], depth + 1, seen) end
  if n > 40 then items[#items + 1] = "..." end
  local keys = {}
  for k in pairs(v) do
    if not (math.type(k) == "integer" and k >= 1 and k <= n) then keys[#keys + 1] = k end
  end
  table.sort(keys, function(a, b)
    if type(a) ~= type(b) then return type(a) < type(b) end
    if type(a) == "number" or type(a) == "string" then return a < b end
    return tostring(a) < tostring(b)
  end)
  for _, k in ipairs(keys) do
    local key = (type(k) == "string" and k:match("^[%a_][%w_]*$")) and k
      or "[" .. serialize(k, depth + 1, seen) .. "]"
    items[#items + 1] = key .. " = " .. serialize(v[k], depth + 1, seen)
    if #items > 40 then items[#items + 1] = "..." break end
  end
  seen[v] = nil
  return "{" .. table.concat(items, ", ") .. "}"
end

---Renders any value as readable Lua-like text (tables deep, strings quoted).
---@param v any
---@return string
function M.serialize(v) return serialize(v, 1, {}) end

-- Deep comparison; on mismatch also returns the path of the first difference.
local function deepEqual(a, b, path, seen)
  if a == b then return true end
  if type(a) ~= "table" or type(b) ~= "table" then return false, path end
  seen[a] = seen[a] or {}
  if seen[a][b] then return true end
  seen[a][b] = true
  for k, va in pairs(a) do
    local sub = path .. "[" .. serialize(k, 5, {}) .. "]"
    local ok, where = deepEqual(va, b[k], sub, seen)
    if not ok then return false, where end
  end
  for k in pairs(b) do
    if a[k] == nil then return false, path .. "[" .. serialize(k, 5, {}) .. "]" end
  end
  return true
end

--------------------------------------------------------------------------------------------
-- Assertions. Each check returns ok plus a function building the message (negated or not).

local function errorText(err) return type(err) == "string" and err or serialize(err, 1, {}) end

local function twoValues(title, e, a)
  return title .. "\n  expected: " .. M.serialize(e) .. "\n  actual:   " .. M.serialize(a)
end

local function callExpectingError(fn)
  if type(fn) ~= "function" then error("expected a function to call, got " .. type(fn), 4) end
  local ok, err = pcall(fn)
  return not ok, err
end

local checks = {
  equals = { 2, function(e, a)
    return e == a, function(neg)
      if neg then return "expected values to differ, both are: " .. M.serialize(a) end
      return twoValues("expected values to be equal", e, a)
    end
  end },
  same = { 2, function(e, a)
    local ok, where = deepEqual(e, a, "", {})
    return ok, function(neg)
      if neg then return "expected values to differ, both are: " .. M.serialize(a) end
      local at = (where and where ~= "") and (" (first difference at " .. where .. ")") or ""
      return twoValues("expected values to be the same" .. at, e, a)
    end
  end },
  near = { 3, function(e, a, tol)
    if type(e) ~= "number" or type(a) ~= "number" or type(tol) ~= "number" then
      error("near(expected, actual, tolerance) needs three numbers", 3)
    end
    return math.abs(e - a) <= tol, function(neg)
      return twoValues("expected values " .. (neg and "not " or "") .. "within " .. tol, e, a)
    end
  end },
  matches = { 2, function(pattern, s)
    return type(s) == "string" and s:find(pattern) ~= nil, function(neg)
      return "expected " .. M.serialize(s) .. (neg and " not" or "") .. " to match " .. M.serialize(pattern)
    end
  end },
  has_error = { 2, function(fn, expected)
    local raised, err = callExpectingError(fn)
    local ok = raised
    if raised and expected ~= nil then
      if type(expected) == "string" and type(err) == "string" then
        ok = err:find(expected, 1, true) ~= nil
      else
        ok = deepEqual(expected, err, "", {})
      end
    end
    return ok, function(neg)
      if neg then return "expected no error, got: " .. errorText(err) end
      if not raised then return "expected an error, got none" end
      return "expected an error containing " .. M.serialize(expected) .. "\n  actual error: " .. errorText(err)
    end
  end },
  error_matches = { 2, function(fn, pattern)
    local raised, err = callExpectingError(fn)
    return raised and type(err) == "string" and err:find(pattern) ~= nil, function(neg)
      if not raised then return "expected an error matching " .. M.serialize(pattern) .. ", got none" end
      return "expected an error " .. (neg and "not " or "") .. "matching " .. M.serialize(pattern)
        .. "\n  actual error: " .. errorText(err)
    end
  end },
}

local function valueCheck(title, test)
  return { 1, function(v)
    return test(v), function(neg)
      return "expected " .. (neg and "not " or "") .. title .. ", got: " .. M.serialize(v)
    end
  end }
end
checks.is_true = valueCheck("true", function(v) return v == true end)
checks.is_false = valueCheck("false", function(v) return v == false end)
checks.truthy = valueCheck("a truthy value", function(v) return not not v end)
checks.falsy = valueCheck("a falsy value", function(v) return not v end)
checks.is_nil = valueCheck("nil", function(v) return v == nil end)
for _, ty in ipairs({ "table", "string", "number", "function", "boolean", "userdata" }) do
  checks["is_" .. ty] = valueCheck("a " .. ty, function(v) return type(v) == ty end)
end

-- Builds the callable taking (args..., message?): called straight from the spec, so level 2
-- in error() is the spec's line.
local function makeAssertion(check, negated)
  local nargs, test = check[1], check[2]
  return function(...)
    local ok, message = test(...)
    if ok == negated then
      local text = message(negated)
      local custom = select(nargs + 1, ...)
      if custom ~= nil then text = tostring(custom) .. "\n" .. text end
      error(text, debug.getinfo(1, "t").istailcall and 0 or 2)
    end
    return ...
  end
end

-- Aliases: "positive names | negated names"; a dotted name goes into a modifier table.
local aliases = {
  equals = "equals equal is_equal are_equal are.equal are.equals is.equal"
    .. " | not_equals not_equal is_not_equal are_not_equal are_not.equal are_not.equals is_not.equal",
  same = "same is_same are_same are.same is.same | not_same is_not_same are_not_same are_not.same is_not.same",
  near = "near is_near are_near are.near is.near | not_near is_not_near are_not.near is_not.near",
  matches = "matches match | not_matches no_match",
  has_error = "has_error has_errors error errors has.error has.errors"
    .. " | has_no_error has_no_errors no_error no_errors has_no.error has_no.errors",
  error_matches = "error_matches has_error_matches has.error_matches matches_error |",
  is_true = "is_true True is.True is.is_true | is_not_true is_not.True",
  is_false = "is_false False is.False is.is_false | is_not_false is_not.False",
  truthy = "truthy is_truthy is.truthy | not_truthy is_not_truthy is_not.truthy",
  falsy = "falsy is_falsy is.falsy | not_falsy is_not_falsy is_not.falsy",
  is_nil = "is_nil Nil is.Nil is.is_nil | is_not_nil not_nil is_not.Nil is_not.is_nil",
}
for _, ty in ipairs({ "table", "string", "number", "function", "boolean", "userdata" }) do
  aliases["is_" .. ty] = ("is_T is.T | is_not_T is_not.T"):gsub("T", ty)
end

local assertions = { is = {}, are = {}, has = {}, has_no = {}, is_not = {}, are_not = {} }
for name, list in pairs(aliases) do
  local positive, negative = list:match("^(.-)|(.*)$")
  for _, side in ipairs({ { positive, false }, { negative, true } }) do
    local fn = makeAssertion(checks[name], side[2])
    for alias in side[1]:gmatch("%S+") do
      local modifier, key = alias:match("^(.-)%.(.+)$")
      if modifier then assertions[modifier][key] = fn else assertions[alias] = fn end
    end
  end
end

---`assert(v, msg)` exactly as Lua's, plus luassert-style checks: assert.equals(expected, actual),
---assert.same, assert.near, assert.has_error(fn [, substring]), assert.error_matches(fn, pattern),
---assert.is_true/is_false/truthy/falsy/is_nil/is_not_nil/is_table..., assert.are_not.equal...
M.assert = setmetatable(assertions, {
  -- Lua's own assert, re-created so that the position in the message is the caller's line.
  __call = function(_, ...)
    local n, v = select("#", ...), ...
    if v then return ... end
    local level = debug.getinfo(1, "t").istailcall and 0 or 2 -- a tail call hides the caller
    if n == 0 then error("bad argument #1 to 'assert' (value expected)", level) end
    if n == 1 then error("assertion failed!", level) end
    error((select(2, ...)), level)
  end,
})

--------------------------------------------------------------------------------------------
-- Failures: the error message (given a file:line when it lacks one) and a trimmed traceback.

local FAILURE, PENDING = {}, {}

local function frameText(info, anonymous)
  local where = info.short_src .. ":" .. info.currentline .. ": in "
  if info.what == "main" then return where .. "main chunk" end
  if info.name and not anonymous then
    return where .. (info.namewhat ~= "" and info.namewhat or "function") .. " '" .. info.name .. "'"
  end
  return where .. "function <" .. info.short_src .. ":" .. info.linedefined .. ">"
end

-- Every protected call goes through here; a traceback walk stops at this frame. Not a tail
-- call, so the frame stays on the stack even when fn tail-calls.
local function boundary(fn) fn() end

local function traceback(firstLevel, fn)
  local frames, last, repeats = {}, nil, 0
  for level = firstLevel, firstLevel + 200 do
    local info = debug.getinfo(level, "Slnf")
    if not info or info.func == boundary then break end
    if #frames >= MAX_FRAMES then frames[#frames + 1] = "..." break end
    if info.what ~= "C" and info.source ~= RUNNER_SOURCE and info.currentline > 0 then
      local text = frameText(info, info.func == fn)
      if text == last then
        repeats = repeats + 1
      else
        if repeats > 0 then frames[#frames + 1] = "(the frame above " .. repeats .. " more times)" end
        frames[#frames + 1], last, repeats = text, text, 0
      end
    end
  end
  if repeats > 0 then frames[#frames + 1] = "(the frame above " .. repeats .. "+ more times)" end
  return frames
end

-- Runs fn() protected. Returns true, or false and a FAILURE/PENDING record. A message that
-- lacks a position gets the innermost frame's (or fn's definition line, when fn tail-called).
local function protect(fn)
  return xpcall(boundary, function(err)
    if getmetatable(err) == PENDING then return err end
    local frames = traceback(3, fn)
    local message = errorText(err)
    if not message:match("^[^\n]-:%d+: ") then
      local first = frames[1] and frames[1]:match("^(.-:%d+):")
      local info = debug.getinfo(fn, "S")
      first = first or (info.what ~= "C" and info.short_src .. ":" .. info.linedefined)
      if first then message = first .. ": " .. message end
    end
    return setmetatable({ message = message, traceback = table.concat(frames, "\n") }, FAILURE)
  end, fn)
end

local function asFailure(err)
  if getmetatable(err) == FAILURE or getmetatable(err) == PENDING then return err end
  return setmetatable({ message = errorText(err), traceback = "" }, FAILURE)
end

local function indent(text) return "    " .. text:gsub("\n", "\n    ") end

--------------------------------------------------------------------------------------------
-- One run: counts, output, and the block being collected.

local function newRun(out, verbose)
  if verbose == nil then verbose = os.getenv("TYCHO_TEST_VERBOSE") == "1" end
  return { out = out or function(s) io.write(s); io.stdout:flush() end, verbose = verbose,
           passed = 0, failed = 0, skipped = 0, failures = {}, pending = {}, current = nil }
end

local function recordFailure(run, name, err)
  err = asFailure(err)
  run.failed = run.failed + 1
  run.failures[#run.failures + 1] = { name = name, message = err.message, traceback = err.traceback }
  local text = "FAIL " .. name .. "\n" .. indent(err.message) .. "\n"
  if err.traceback ~= "" then text = text .. indent(err.traceback) .. "\n" end
  run.out(text)
end

local function recordPending(run, name, where, reason)
  run.skipped = run.skipped + 1
  run.pending[#run.pending + 1] = { name = name, where = where, reason = reason }
  run.out("PEND " .. name .. " (" .. where .. ")" .. (reason and (": " .. reason) or "") .. "\n")
end

local function newBlock(name, parent)
  return { name = name, parent = parent, children = {}, before_each = {}, after_each = {},
           setup = {}, teardown = {} }
end

local function fullName(block, leaf)
  local parts = { leaf }
  while block do
    if block.name then table.insert(parts, 1, block.name) end
    block = block.parent
  end
  return table.concat(parts, " ")
end

local function callSite(level)
  local info = debug.getinfo(level + 1, "Sl")
  return info and (info.short_src .. ":" .. info.currentline) or "?"
end

-- The globals a spec file sees, bound to one run.
local function makeEnv(run)
  local function collecting(what, level) -- level: the caller of `what`, relative to our caller
    if not run.current then
      error(what .. "() must be called in a describe block or at file level", level + 1)
    end
    return run.current
  end
  local function hook(kind)
    return function(fn)
      local block = collecting(kind, 2)
      if type(fn) ~= "function" then error(kind .. "() expects a function", 2) end
      table.insert(block[kind], fn)
    end
  end
  local env = setmetatable({ assert = M.assert }, { __index = _G })
  function env.describe(name, fn)
    local parent = collecting("describe", 2)
    if type(name) ~= "string" or type(fn) ~= "function" then
      error("describe(name, fn) expects a string and a function", 2)
    end
    local block = newBlock(name, parent)
    parent.children[#parent.children + 1] = block
    run.current = block
    local ok, err = protect(fn)
    run.current = parent
    if not ok then block.error, block.children = err, {} end
  end
  local function addTest(what, name, fn)
    local block = collecting(what, 3)
    if type(name) ~= "string" or (fn ~= nil and type(fn) ~= "function") then
      error(what .. "(name [, fn]) expects a string and a function", 3)
    end
    block.children[#block.children + 1] = { name = name, fn = fn, parent = block, where = callSite(3) }
  end
  function env.it(name, fn) addTest("it", name, fn) end
  -- pending(name) declares a pending test; called inside a running test it marks that test pending.
  function env.pending(name)
    if run.current then addTest("pending", tostring(name or "pending")) return end
    error(setmetatable({ reason = name }, PENDING))
  end
  env.context = env.describe
  env.before_each, env.after_each = hook("before_each"), hook("after_each")
  env.setup, env.teardown = hook("setup"), hook("teardown")
  env.lazy_setup, env.lazy_teardown = env.setup, env.teardown
  return env
end

-- Runs every hook in order; returns the first failure (or nil).
local function runHooks(hooks)
  local firstErr
  for _, hook in ipairs(hooks) do
    local ok, err = protect(hook)
    if not ok then firstErr = firstErr or err end
  end
  return firstErr
end

local function runTest(run, test)
  local name = fullName(test.parent, test.name)
  if not test.fn then return recordPending(run, name, test.where) end
  local chain, block = {}, test.parent
  while block do table.insert(chain, 1, block); block = block.parent end
  local err
  for _, b in ipairs(chain) do
    err = runHooks(b.before_each)
    if err then break end
  end
  if not err then
    local ok, e = protect(test.fn)
    if not ok then err = e end
  end
  for i = #chain, 1, -1 do -- after_each always runs, inner to outer
    local afterErr = runHooks(chain[i].after_each)
    err = err or afterErr
  end
  if getmetatable(err) == PENDING then
    recordPending(run, name, test.where, err.reason and tostring(err.reason))
  elseif err then
    recordFailure(run, name, err)
  else
    run.passed = run.passed + 1
    if run.verbose then run.out("ok   " .. name .. "\n") end
  end
end

local function runBlock(run, block, label)
  if block.error then return recordFailure(run, label or fullName(block), block.error) end
  local err = runHooks(block.setup)
  if err then
    recordFailure(run, (label or fullName(block)) .. " (setup)", err)
  else
    for _, child in ipairs(block.children) do
      if child.children then runBlock(run, child) else runTest(run, child) end
    end
  end
  err = runHooks(block.teardown)
  if err then recordFailure(run, (label or fullName(block)) .. " (teardown)", err) end
end

local function runFileIn(run, path)
  local env = makeEnv(run)
  local chunk, loadErr = loadfile(path, "t", env)
  if not chunk then return recordFailure(run, path, loadErr) end
  local root = newBlock(nil, nil)
  local saved = run.current
  run.current = root
  local ok, err = protect(chunk)
  run.current = saved
  if not ok then root.error = err end
  runBlock(run, root, path)
end

local function finish(run)
  local line = string.format("%d passed, %d failed", run.passed, run.failed)
  if run.skipped > 0 then line = line .. string.format(", %d skipped", run.skipped) end
  run.out(line .. "\n")
  return { passed = run.passed, failed = run.failed, skipped = run.skipped,
           failures = run.failures, pending = run.pending }
end

---@class tycho.test.Result
---@field passed integer
---@field failed integer
---@field skipped integer
---@field failures {name: string, message: string, traceback: string}[]
---@field pending {name: string, where: string, reason: string?}[]

---Runs the given spec files in order and prints failures, pending tests and the closing line.
---@param files string[]
---@param out? fun(text: string) where output goes (default: io.write, flushed)
---@param verbose? boolean print `ok   <name>` per passing test (default: TYCHO_TEST_VERBOSE=1)
---@return tycho.test.Result
function M.run(files, out, verbose)
  local run = newRun(out, verbose)
  for _, path in ipairs(files) do runFileIn(run, path) end
  return finish(run)
end

---Runs one spec file; same as M.run({path}, out, verbose).
---@param path string
---@param out? fun(text: string)
---@param verbose? boolean
---@return tycho.test.Result
function M.runFile(path, out, verbose) return M.run({ path }, out, verbose) end

---True when a path names a spec file (`*_spec.lua` or `*_test.lua`).
---@param path string
---@return boolean
function M.isTestFile(path)
  local base = path:match("[^/\\]*$")
  return base:match("_spec%.lua$") ~= nil or base:match("_test%.lua$") ~= nil
end

---Entry point of `tycho test [PATH...]`: discovers spec files under each path (default
---`tests`), runs them and returns the process exit code. A path named directly as a file
---runs whatever its name.
---@param paths? string[]
---@param out? fun(text: string)
---@return integer exitCode 0 when everything passed, 1 otherwise
function M.main(paths, out)
  if not paths or #paths == 0 then paths = { "tests" } end
  local run = newRun(out)
  local files, seen = {}, {}
  for _, root in ipairs(paths) do
    ---@diagnostic disable-next-line: undefined-global
    local list, err = tycho.fs.walk(root)
    if not list then
      recordFailure(run, root, err or ("cannot read " .. root))
    else
      for _, path in ipairs(list) do
        local key = path:gsub("/+", "/"):gsub("^%./", "")
        if (path == root or M.isTestFile(path)) and not seen[key] then
          seen[key] = true
          files[#files + 1] = path
        end
      end
    end
  end
  table.sort(files)
  if #files == 0 and run.failed == 0 then
    local where = table.concat(paths, ", ")
    recordFailure(run, "tycho test", "no *_spec.lua or *_test.lua files found in: " .. where)
  end
  local errors = require("tycho.errors")
  for _, path in ipairs(files) do
    runFileIn(run, path)
    errors.flush(true) -- repeats of errors its scenes caught, counted beside the file that made them
  end
  local result = finish(run)
  return result.failed == 0 and 0 or 1
end

return M
