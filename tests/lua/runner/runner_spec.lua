-- Specs for scripts/tycho/test.lua (the Lua side of `tycho test`). They run the runner on the
-- fixture files in tests/lua/fixtures/runner/ and check counts, names and printed output.
local runner = require("tycho.test")

local source = debug.getinfo(1, "S").source:sub(2)
local FIX = source:match("^(.*)runner/runner_spec%.lua$")
assert(FIX, "cannot locate fixtures from " .. source)
FIX = FIX .. "fixtures/runner/"

-- Shared with the fixtures through require (fixtures cannot see this file's locals).
local ctx = { dir = FIX, log = {} }

local function capture()
  local parts = {}
  return function(s) parts[#parts + 1] = s end, function() return table.concat(parts) end
end

-- Runs one fixture quietly; returns the result and everything it printed.
local function runFixture(name, verbose)
  local out, text = capture()
  local result = runner.runFile(FIX .. name, out, verbose or false)
  return result, text()
end

-- Line of the fixture line marked `-- @marker`.
local function lineOf(name, marker)
  local n = 0
  for line in io.lines(FIX .. name) do
    n = n + 1
    if line:find("-- @" .. marker, 1, true) then return n end
  end
  error("marker @" .. marker .. " not in " .. name)
end

local function contains(text, piece)
  assert(type(text) == "string" and text:find(piece, 1, true),
    "expected text to contain " .. string.format("%q", piece) .. ", got:\n" .. tostring(text))
end

-- Runs fn, which must raise; returns the message and the line fn was defined on.
local function failure(fn)
  local ok, err = pcall(fn)
  assert(not ok, "expected an error, got none")
  return err, debug.getinfo(fn, "S").linedefined
end

before_each(function()
  ctx.log = {}
  package.loaded["tycho_test_fixture_ctx"] = ctx
end)
after_each(function() package.loaded["tycho_test_fixture_ctx"] = nil end)

describe("tycho.test runner", function()
  it("runs a passing file quietly", function()
    local r, text = runFixture("passing.lua.txt")
    assert.same({ 3, 0, 0 }, { r.passed, r.failed, r.skipped })
    assert.equals("3 passed, 0 failed\n", text)
  end)

  it("prints ok lines in verbose mode", function()
    local _, text = runFixture("passing.lua.txt", true)
    assert.equals("ok   passing uses plain assert\nok   passing uses assert.equals\n"
      .. "ok   passing uses assert.same\n3 passed, 0 failed\n", text)
  end)

  it("reports failing tests with name, file:line and a trimmed traceback", function()
    local r, text = runFixture("failing.lua.txt")
    assert.same({ 1, 3, 0 }, { r.passed, r.failed, r.skipped })
    assert.same({ "failing suite compares numbers", "failing suite uses plain assert",
      "failing suite indexes nil" }, { r.failures[1].name, r.failures[2].name, r.failures[3].name })

    local eq = r.failures[1]
    contains(eq.message, "failing.lua.txt:" .. lineOf("failing.lua.txt", "equals") .. ": expected values to be equal")
    contains(eq.message, "expected: 1")
    contains(eq.message, "actual:   2")
    -- the traceback starts at the spec line: the assertion's own frame is trimmed
    contains(eq.traceback:match("^[^\n]*"), "failing.lua.txt:" .. lineOf("failing.lua.txt", "equals") .. ": in ")
    assert.is_nil(eq.traceback:find("test.lua", 1, true), "runner frames must be trimmed")
    contains(r.failures[2].message, "failing.lua.txt:" .. lineOf("failing.lua.txt", "plain") .. ": plain boom")

    local nilIndex = r.failures[3]
    contains(nilIndex.message, "failing.lua.txt:" .. lineOf("failing.lua.txt", "helper") .. ": attempt to")
    contains(nilIndex.traceback, "failing.lua.txt:" .. lineOf("failing.lua.txt", "helper") .. ": in ")
    contains(nilIndex.traceback, "failing.lua.txt:" .. lineOf("failing.lua.txt", "call") .. ": in ")
    assert.is_nil(nilIndex.traceback:find("test.lua", 1, true), "runner frames must be trimmed")
    assert.is_nil(nilIndex.traceback:find("xpcall", 1, true), "runner frames must be trimmed")

    contains(text, "FAIL failing suite compares numbers\n    ")
    contains(text, "FAIL failing suite indexes nil\n")
    assert.is_nil(text:find("FAIL failing suite passes", 1, true))
    assert.truthy(text:find("\n1 passed, 3 failed\n$"))
  end)

  it("counts a syntax error as one failure with the compiler's message", function()
    local r, text = runFixture("syntax_error.lua.txt")
    assert.same({ 0, 1, 0 }, { r.passed, r.failed, r.skipped })
    assert.equals(FIX .. "syntax_error.lua.txt", r.failures[1].name)
    assert.truthy(r.failures[1].message:find("syntax_error%.lua%.txt:%d+: .*expected"), r.failures[1].message)
    contains(text, "FAIL " .. FIX .. "syntax_error.lua.txt\n")
    assert.truthy(text:find("0 passed, 1 failed\n$"))
  end)

  it("counts an error in a describe body as one failure and skips that block", function()
    local r = runFixture("describe_error.lua.txt")
    assert.same({ 1, 1, 0 }, { r.passed, r.failed, r.skipped })
    assert.equals("broken block", r.failures[1].name)
    contains(r.failures[1].message,
      "describe_error.lua.txt:" .. lineOf("describe_error.lua.txt", "boom") .. ": describe exploded")
  end)

  it("counts an error at file top level as one failure and runs nothing", function()
    local r = runFixture("toplevel_error.lua.txt")
    assert.same({ 0, 1, 0 }, { r.passed, r.failed, r.skipped })
    assert.equals(FIX .. "toplevel_error.lua.txt", r.failures[1].name)
    contains(r.failures[1].message, "toplevel_error.lua.txt:" .. lineOf("toplevel_error.lua.txt", "top") .. ": ")
  end)

  it("runs setup/teardown once per block and each-hooks outer to inner", function()
    local r = runFixture("hooks.lua.txt")
    assert.same({ 2, 0, 0 }, { r.passed, r.failed, r.skipped })
    assert.same({
      "file setup", "outer setup",
      "file before", "outer before", "first", "outer after", "file after",
      "inner setup",
      "file before", "outer before", "inner before 1", "inner before 2", "second",
      "inner after", "outer after", "file after",
      "inner teardown", "outer teardown", "file teardown",
    }, ctx.log)
  end)

  it("fails tests whose hooks fail, still running after_each and teardown", function()
    local r = runFixture("hook_errors.lua.txt")
    assert.same({ 1, 4, 0 }, { r.passed, r.failed, r.skipped })
    assert.same({ "after ran", "second body ran", "teardown ran" }, ctx.log)
    local names, messages = {}, {}
    for i, f in ipairs(r.failures) do names[i], messages[i] = f.name, f.message end
    assert.same({ "before_each fails body skipped", "after_each fails body passes but the test fails",
      "setup fails (setup)", "teardown fails (teardown)" }, names)
    contains(messages[1], "before broke")
    contains(messages[2], "after broke")
    contains(messages[3], "setup broke")
    contains(messages[4], "teardown broke")
  end)

  it("counts pending tests as skipped", function()
    local r, text = runFixture("pending.lua.txt")
    assert.same({ 1, 0, 3 }, { r.passed, r.failed, r.skipped })
    contains(text, "PEND pending has no body (")
    contains(text, "pending.lua.txt:" .. lineOf("pending.lua.txt", "nobody") .. ")\n")
    contains(text, "PEND pending declared pending (")
    contains(text, "PEND pending calls pending inside (")
    contains(text, "): not yet\n")
    assert.truthy(text:find("\n1 passed, 0 failed, 3 skipped\n$"))
  end)

  it("keeps a fixture's globals in its own environment", function()
    local r = runner.run({ FIX .. "env.lua.txt", FIX .. "env.lua.txt" }, capture(), false)
    assert.same({ 4, 0, 0 }, { r.passed, r.failed, r.skipped })
    assert.is_nil(rawget(_G, "tycho_fixture_global"))
    assert.is_nil(rawget(_G, "tycho_fixture_function"))
    assert.is_nil(rawget(_G, "describe"), "runner functions must not be installed in _G")
  end)

  it("names tests by their enclosing describe blocks", function()
    local _, text = runFixture("nested.lua.txt", true)
    assert.equals("ok   level one a\nok   level one level two level three b\nok   top level test\n"
      .. "3 passed, 0 failed\n", text)
  end)

  it("is re-entrant: a nested run does not disturb the outer one", function()
    local out, text = capture()
    local r = runner.runFile(FIX .. "reentrant.lua.txt", out, false)
    assert.same({ 2, 1, 0 }, { r.passed, r.failed, r.skipped })
    assert.equals("outer can still fail", r.failures[1].name)
    contains(r.failures[1].message, "reentrant.lua.txt:" .. lineOf("reentrant.lua.txt", "outer") .. ": outer failure")
    assert.is_nil(text():find("failing suite", 1, true), "inner output must go to the inner out")
  end)

  it("adds up counts over several files", function()
    local out, text = capture()
    local r = runner.run({ FIX .. "passing.lua.txt", FIX .. "failing.lua.txt", FIX .. "pending.lua.txt" }, out, false)
    assert.same({ 5, 3, 3 }, { r.passed, r.failed, r.skipped })
    assert.truthy(text():find("\n5 passed, 3 failed, 3 skipped\n$"))
  end)

  it("rejects describe/it while tests are running", function()
    local err, line = failure(function() describe("late", function() end) end)
    contains(err, "runner_spec.lua:" .. line .. ": describe() must be called in a describe block")
    err, line = failure(function() it("late", function() end) end)
    contains(err, "runner_spec.lua:" .. line .. ": it() must be called")
  end)
end)

describe("tycho.test main", function()
  local function main(paths)
    local out, text = capture()
    local code = runner.main(paths, out)
    return code, text():match("(%d+ passed, %d+ failed[^\n]*)\n$"), text()
  end

  it("discovers *_spec.lua and *_test.lua files, recursively and once each", function()
    local code, closing = main({ FIX .. "discover" })
    assert.equals(0, code)
    assert.equals("2 passed, 0 failed", closing)
    code, closing = main({ FIX .. "discover", FIX .. "discover/a_spec.lua", FIX .. "discover/sub" })
    assert.equals(0, code)
    assert.equals("2 passed, 0 failed", closing)
  end)

  it("returns 1 when a test fails", function()
    local code, closing = main({ FIX .. "failing.lua.txt" })
    assert.equals(1, code)
    assert.equals("1 passed, 3 failed", closing)
  end)

  it("treats a missing path as a load failure", function()
    local code, closing, text = main({ FIX .. "discover", FIX .. "no_such_dir" })
    assert.equals(1, code)
    assert.equals("2 passed, 1 failed", closing)
    contains(text, "FAIL " .. FIX .. "no_such_dir\n")
  end)

  it("fails when no test files are found", function()
    local code, closing, text = main({ FIX .. "no_specs" })
    assert.equals(1, code)
    assert.equals("0 passed, 1 failed", closing)
    contains(text, "no *_spec.lua or *_test.lua files found")
  end)

  it("recognises spec file names", function()
    assert.is_true(runner.isTestFile("a/b/thing_spec.lua"))
    assert.is_true(runner.isTestFile("thing_test.lua"))
    assert.is_false(runner.isTestFile("thing_spec.lua.txt"))
    assert.is_false(runner.isTestFile("spec.lua"))
    assert.is_false(runner.isTestFile("x_spec.lua/readme"))
  end)
end)

describe("tycho.test assert", function()
  it("keeps plain assert's behaviour", function()
    assert.same({ 1, "two", nil, n = 3 }, table.pack(assert(1, "two", nil)))
    local err, line = failure(function() assert(false, "plain message") end)
    assert.equals("runner_spec.lua:" .. line .. ": plain message", err:match("[^/]*$"))
    err, line = failure(function() assert(nil) end)
    assert.equals("runner_spec.lua:" .. line .. ": assertion failed!", err:match("[^/]*$"))
    local t = {}
    assert.equals(t, (failure(function() assert(false, t) end)))
  end)

  it("equals compares with == and reports expected and actual at the caller's line", function()
    assert.equals(3, 1 + 2)
    assert.are.equal("a", "a")
    assert.is_equal(true, true)
    local err, line = failure(function() assert.equals(1, 2) end)
    contains(err, "runner_spec.lua:" .. line .. ": expected values to be equal\n  expected: 1\n  actual:   2")
    err = failure(function() assert.are.equal("x", "y") end)
    contains(err, 'expected: "x"')
    err = failure(function() assert.equals({}, {}) end)
    contains(err, "expected: {}")
    err = failure(function() assert.equals(1, 2, "custom note") end)
    contains(err, "custom note\nexpected values to be equal")
  end)

  it("negated equals", function()
    assert.are_not.equal(1, 2)
    assert.not_equals("a", "b")
    local err, line = failure(function() assert.are_not.equal(5, 5) end)
    contains(err, "runner_spec.lua:" .. line .. ": expected values to differ, both are: 5")
  end)

  it("same compares deeply and shows both values", function()
    assert.same({ a = { 1, 2 }, b = "x" }, { b = "x", a = { 1, 2 } })
    assert.are.same(1, 1)
    local err, line = failure(function() assert.same({ 1, { k = 2 } }, { 1, { k = 3 } }) end)
    contains(err, "runner_spec.lua:" .. line .. ": expected values to be the same")
    contains(err, "expected: {1, {k = 2}}")
    contains(err, "actual:   {1, {k = 3}}")
    err = failure(function() assert.same({ 1 }, { 1, 2 }) end)
    contains(err, "[2]")
  end)

  it("truthiness, nil and type checks", function()
    assert.is_true(true)
    assert.is_false(false)
    assert.truthy(0)
    assert.is_truthy("")
    assert.falsy(nil)
    assert.is_nil(nil)
    assert.is_not_nil(false)
    assert.not_nil(0)
    assert.is_table({})
    assert.is_string("s")
    assert.is_number(1.5)
    assert.is_function(print)
    local err, line = failure(function() assert.is_true(1) end)
    contains(err, "runner_spec.lua:" .. line .. ": expected true, got: 1")
    contains(failure(function() assert.is_false(nil) end), "expected false, got: nil")
    contains(failure(function() assert.truthy(false) end), "expected a truthy value, got: false")
    contains(failure(function() assert.falsy("x") end), 'expected a falsy value, got: "x"')
    contains(failure(function() assert.is_nil(3) end), "expected nil, got: 3")
    contains(failure(function() assert.is_not_nil(nil) end), "expected not nil, got: nil")
    contains(failure(function() assert.is_table("t") end), 'expected a table, got: "t"')
    contains(failure(function() assert.is_number("1") end), 'expected a number, got: "1"')
  end)

  it("near", function()
    assert.near(1.0, 1.05, 0.1)
    assert.are.near(-2, -2.001, 0.01)
    local err, line = failure(function() assert.near(1, 2, 0.5) end)
    contains(err, "runner_spec.lua:" .. line .. ": expected values within 0.5\n  expected: 1\n  actual:   2")
  end)

  it("has_error and friends", function()
    assert.has_error(function() error("boom") end)
    assert.has_error(function() error("a long message") end, "long mess")
    assert.has.error(function() error({ code = 1 }) end, { code = 1 })
    assert.error(function() error("x") end)
    assert.error_matches(function() error("code 42") end, "code %d+")
    assert.has_no.errors(function() end)
    assert.no_error(function() end)

    local err, line = failure(function() assert.has_error(function() end) end)
    contains(err, "runner_spec.lua:" .. line .. ": expected an error, got none")
    err = failure(function() assert.has_error(function() error("actual text") end, "other text") end)
    contains(err, 'expected an error containing "other text"')
    contains(err, "actual error: ")
    contains(err, "actual text")
    err = failure(function() assert.error_matches(function() error("abc") end, "^%d+$") end)
    contains(err, 'expected an error matching "^%d+$"')
    err, line = failure(function() assert.has_no.errors(function() error("unexpected") end) end)
    contains(err, "runner_spec.lua:" .. line .. ": expected no error, got: ")
    contains(err, "unexpected")
    contains(failure(function() assert.no_error(function() error("y") end) end), "expected no error")
  end)

  it("serializes values readably", function()
    assert.equals('{1, "two", {x = true}, ["a b"] = 3}', runner.serialize({ 1, "two", { x = true }, ["a b"] = 3 }))
    local cyclic = {}
    cyclic.self = cyclic
    assert.equals("{self = <cycle>}", runner.serialize(cyclic))
    assert.equals('"line\\nbreak"', runner.serialize("line\nbreak"))
  end)
end)
