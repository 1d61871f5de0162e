-- Specs for `tycho test` (scripts/tycho/test.lua and tycho.test.output): busted 2 running in
-- tycho's state. Each case runs `tycho test` as a child process on the fixtures in
-- tests/lua/fixtures/runner/ (named so that a run of tests/lua does not pick them up) and
-- checks its exit code, closing line and output.
local testing = require("tycho.testing")

local FIX = testing.here() .. "/../fixtures/runner/"

-- Runs `tycho test ARGS...` inside dir (busted reads .busted files from the cwd, and a short
-- relative path keeps file names whole in messages); returns code, closing line, output.
local function runIn(dir, ...)
  local parts = { "cd", testing.quote(dir), "&&", testing.quote(tycho.executable), "test" }
  for i = 1, select("#", ...) do parts[#parts + 1] = testing.quote(select(i, ...)) end
  local code, out = testing.shell(table.concat(parts, " "))
  return code, out:match("(%d+ passed, %d+ failed[^\n]*)"), out
end

local function run(...) return runIn(FIX, ...) end

local function lineOf(name, marker)
  local n = 0
  for line in io.lines(FIX .. name) do
    n = n + 1
    if line:find("-- @" .. marker, 1, true) then return n end
  end
  error("marker @" .. marker .. " not in " .. name)
end

local function contains(text, piece)
  assert(text:find(piece, 1, true), "expected text to contain " .. string.format("%q", piece) .. ", got:\n" .. text)
end

describe("tycho test", function()
  it("runs a passing file quietly and exits 0", function()
    local code, closing, out = run("passing.lua")
    assert.equals(0, code, out)
    assert.equals("3 passed, 0 failed", closing)
    assert.equals("3 passed, 0 failed\n", out)
  end)

  it("prints ok lines with --verbose", function()
    local _, _, out = run("--verbose", "passing.lua")
    assert.equals("ok   passing uses plain assert\nok   passing uses assert.equals\n"
      .. "ok   passing uses assert.same\n3 passed, 0 failed\n", out)
  end)

  it("prints each failure with its name and file:line, and exits 1", function()
    local code, closing, out = run("failing.lua")
    assert.equals(1, code, out)
    assert.equals("1 passed, 3 failed", closing)
    contains(out, "FAIL failing suite compares numbers\n    failing.lua:" .. lineOf("failing.lua", "equals")
      .. ": Expected objects to be equal.")
    contains(out, "FAIL failing suite uses plain assert\n    failing.lua:" .. lineOf("failing.lua", "plain")
      .. ": plain boom")
    contains(out, "FAIL failing suite indexes nil\n    failing.lua:" .. lineOf("failing.lua", "index")
      .. ": attempt to index a nil value")
  end)

  it("counts a spec file that does not compile as a failure", function()
    local code, closing, out = run("syntax.lua", "passing.lua")
    assert.equals(1, code, out)
    assert.equals("3 passed, 1 failed", closing)
    contains(out, "FAIL syntax.lua\n    syntax.lua:4:")
  end)

  it("runs what busted users write: hooks, finally, luassert, custom assertions, spies, insulate", function()
    local code, closing, out = run("features.lua")
    assert.equals(0, code, out)
    assert.equals("10 passed, 0 failed, 2 skipped", closing)
    contains(out, "PEND busted features is pending by declaration (features.lua:")
    contains(out, "PEND busted features is pending from inside (features.lua:")
    contains(out, "): not yet\n")
  end)

  it("counts as busted does: a failing hook per test it stops, a test and its failing finally", function()
    local code, closing, out = runIn(testing.here() .. "/../../busted/failures")
    assert.equals(1, code, out)
    assert.equals("1 passed, 9 failed", closing)
    contains(out, "FAIL failures a failing before_each (before_each)\n    spec/failing_spec.lua:")
    contains(out, "FAIL failures a failing strict setup (setup)\n")
    contains(out, "FAIL spec/broken_spec.lua\n    spec/broken_spec.lua:4:")
  end)

  it("refuses --lua: specs run in tycho's own Lua", function()
    local code, _, out = run("--lua=lua5.1", "passing.lua")
    assert.equals(1, code)
    contains(out, "--lua is not supported")
  end)

  it("discovers *_spec.lua and *_test.lua files recursively", function()
    local code, closing, out = run("discover")
    assert.equals(0, code, out)
    assert.equals("2 passed, 0 failed", closing)
  end)

  it("counts a missing path and a folder without specs as failures", function()
    local code, closing, out = run("no_such_dir")
    assert.equals(1, code, out)
    assert.equals("0 passed, 2 failed", closing)
    contains(out, "Cannot find file or directory: " .. "no_such_dir")
    code, closing, out = run("no_specs")
    assert.equals(1, code, out)
    assert.equals("0 passed, 1 failed", closing)
    contains(out, "No test files found matching Lua pattern")
  end)

  it("selects tests with --filter, --filter-out, --tags and --exclude-tags", function()
    local _, closing = run("--filter", "t[wh]", "tagged.lua")
    assert.equals("2 passed, 0 failed", closing)
    _, closing = run("--filter-out", "#fast", "tagged.lua")
    assert.equals("4 passed, 0 failed", closing)
    _, closing = run("--tags", "fast", "tagged.lua")
    assert.equals("2 passed, 0 failed", closing)
    _, closing = run("--exclude-tags=slow,net", "tagged.lua")
    assert.equals("4 passed, 0 failed", closing)
  end)

  it("shuffles with --shuffle, the same way for the same --seed", function()
    local _, _, first = run("--shuffle", "--seed", "3", "-v", "tagged.lua")
    local _, _, again = run("--shuffle", "--seed", "3", "-v", "tagged.lua")
    local _, _, inOrder = run("-v", "tagged.lua")
    assert.equals(first, again)
    assert.are_not.equal(inOrder, first)
    contains(first, "6 passed, 0 failed")
  end)

  it("runs everything again with --repeat", function()
    local _, closing = run("--repeat", "3", "passing.lua")
    assert.equals("9 passed, 0 failed", closing)
  end)

  it("writes TAP and JUnit XML with --output, the closing line beside them on stderr", function()
    local function stdout(...)
      local parts = { "(cd", testing.quote(FIX), "&&", testing.quote(tycho.executable), "test" }
      for i = 1, select("#", ...) do parts[#parts + 1] = testing.quote(select(i, ...)) end
      return testing.shell(table.concat(parts, " ") .. " 2>/dev/null)")
    end
    local code, out = stdout("-o", "tap", "--tags", "fast", "tagged.lua")
    assert.equals(0, code)
    assert.equals("ok 1 - tagged one #fast\nok 2 - tagged three #fast #net\n1..2\n", out)
    code, out = stdout("--output=junit", "failing.lua")
    assert.equals(1, code)
    contains(out, '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites tests="4" failures="2" errors="1" ')
    contains(out, 'skipped="0"') -- per suite, where Jenkins' schema reads it
    contains(out, '<testcase name="failing suite compares numbers" classname="failing.lua:')
    contains(out, '<failure message="failing.lua:' .. lineOf("failing.lua", "equals") .. ': Expected objects to be equal.">')
    local _, closing = run("-o", "plain", "passing.lua")
    assert.equals("3 passed, 0 failed", closing)
  end)

  it("writes an error outside a test into JUnit as a test case of its own, named", function()
    local dir = testing.here() .. "/../../busted/failures"
    local code, out = testing.shell("cd " .. testing.quote(dir) .. " && " .. testing.quote(tycho.executable)
      .. " test -o junit 2>/dev/null")
    assert.equals(1, code)
    contains(out, '<testsuites tests="9" failures="2" errors="7" ')
    contains(out, '<testcase name="spec/broken_spec.lua" classname="spec/broken_spec.lua" time="0.000">\n'
      .. '\t\t\t<error message="spec/broken_spec.lua:4: ')
    contains(out, '<testcase name="failures a failing before_each (before_each)" classname="spec/failing_spec.lua:12"')
    contains(out, '<testcase name="failures a describe that raises" classname="spec/failing_spec.lua:24"')
    assert.is_nil(out:find("\n\t\t?<error"), "no error outside a test case")
  end)

  it("reads .busted files and their tasks with --run", function()
    local code, closing, out = runIn(FIX .. "config")
    assert.equals(0, code, out)
    assert.equals("2 passed, 0 failed", closing)
    contains(out, "ok   config check two\n") -- the default task sets verbose
    code, closing, out = runIn(FIX .. "config", "--run", "fast")
    assert.equals(0, code, out)
    assert.equals("1 passed, 0 failed", closing)
    code, closing, out = runIn(FIX .. "config", "--run", "tap") -- tycho's short output names too
    assert.equals(0, code, out)
    contains(out, "ok 2 - config check two\n1..2\n")
  end)

  it("lists tests with --list and prints busted's version with --version", function()
    local code, _, out = run("--list", "passing.lua")
    assert.equals(0, code, out)
    contains(out, "passing uses assert.same")
    code, out = testing.exec("test", "--version")
    assert.equals(0, code)
    assert.matches("^2%.%d", out)
  end)

  it("--coverage writes an LCOV report of the project's lines the specs ran", function()
    local dir = FIX .. "coverage"
    os.remove(dir .. "/lcov.info")
    local code, closing, out = runIn(dir, "--coverage", "--pattern=_check")
    assert.equals(0, code, out)
    assert.equals("1 passed, 0 failed", closing)
    contains(out, "coverage: lcov.info: ")
    local f = assert(io.open(dir .. "/lcov.info"))
    local report = f:read("a")
    f:close()
    os.remove(dir .. "/lcov.info")
    contains(report, "SF:./mylib.lua\n")
    assert.is_nil(report:find("_check.lua", 1, true), "spec files are left out")
    assert.is_nil(report:find("scripts/tycho", 1, true), "the engine's scripts are left out")
    contains(report, "DA:5,1\n")   -- return a + b ran
    contains(report, "DA:10,0\n")  -- return 1 did not
    contains(report, "DA:12,0\n")  -- return 2 did not
    assert.is_nil(report:find("DA:11,", 1, true), "else is no line of code")
    assert.is_nil(report:find("DA:3,", 1, true), "a comment is no line of code")
    contains(report, "end_of_record\n")
  end)
end)
