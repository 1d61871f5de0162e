-- tycho.test.junit: JUnit XML for CI servers, what `tycho test -o junit` writes.
-- busted's own junit handler (still there as `-o busted.outputHandlers.junit`) writes a
-- document that Jenkins' and Ant's JUnit schemas refuse: a `skip` count where they read
-- `skipped`, and an error outside any test (a file that does not compile, a failing hook or
-- describe) as a bare <error> beside the test cases, or outside every suite, with no name,
-- which CI servers drop. This one writes the same suites, cases, messages and tracebacks,
-- with `skipped` counts per suite, each error outside a test as a <testcase> of its own named as
-- tycho.test.output names it (the file, or "block (hook)"), a message attribute on each
-- failure and error, and only characters XML allows. It validates against
-- tests/busted/junit.xsd. `-Xoutput FILE` writes it to FILE instead of stdout.

local HOOKS = { before_each = true, after_each = true, lazy_setup = true, lazy_teardown = true,
  strict_setup = true, strict_teardown = true, setup = true, teardown = true }

-- Text XML 1.0 can hold: control characters other than tab and newlines, and bytes that
-- are not UTF-8, are written as \ddd escapes, as Lua would write them.
local function clean(s)
  s = s:gsub("[%z\1-\8\11\12\14-\31\127]", function(c) return ("\\%03d"):format(c:byte()) end)
  if utf8.len(s) then return s end
  local out, i = {}, 1
  while i <= #s do
    local _, bad = utf8.len(s, i)
    if not bad then out[#out + 1] = s:sub(i); break end
    out[#out + 1] = s:sub(i, bad - 1) .. ("\\%03d"):format(s:byte(bad))
    i = bad + 1
  end
  return table.concat(out)
end

local ESCAPES = { ["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;", ['"'] = "&quot;", ["'"] = "&apos;" }
local function esc(s) return (clean(tostring(s)):gsub("[&<>\"']", ESCAPES)) end

local function attrs(list)
  local parts = {}
  for i = 1, #list, 2 do
    if list[i + 1] ~= nil then parts[#parts + 1] = (' %s="%s"'):format(list[i], esc(list[i + 1])) end
  end
  return table.concat(parts)
end

local function messageText(message)
  if type(message) == "string" then return message end
  if message == nil then return "Nil error" end
  local mt = getmetatable(message)
  if type(mt) == "table" and mt.__tostring then return tostring(message) end
  return require("pl.pretty").write(message)
end

local function seconds(s) return ("%.3f"):format(math.max(0, s or 0)) end

return function(options)
  local busted = require("busted")
  local handler = require("busted.outputHandlers.base")()
  local file = type(options.arguments) == "table" and options.arguments[1] or nil
  local suites = {}   -- finished suites' XML
  local suite         -- the suite being written: { cases = {}, tests, failures, errors, skipped }
  local early = {}    -- errors before the first suite started (files that do not load)
  local current       -- the test case being run
  local startTick = busted.monotime()
  local totals = { tests = 0, failures = 0, errors = 0, skipped = 0 }

  local function nameOf(element)
    if element.descriptor == "file" then return element.name end
    if HOOKS[element.descriptor] then
      local parent = busted.parent(element)
      local block = parent and parent.descriptor ~= "file" and handler.getFullName(parent)
      return (block and block .. " " or "") .. "(" .. (element.name or element.descriptor) .. ")"
    end
    local name = element.name and handler.getFullName(element) or ""
    return name ~= "" and name or "tycho test"
  end

  local function where(trace)
    if type(trace) ~= "table" or not trace.short_src then return nil end
    return trace.short_src .. ":" .. tostring(trace.currentline)
  end

  local function outcome(kind, parent, message, trace)
    local text = messageText(message)
    local body = {}
    if kind ~= "skipped" and parent and parent.randomseed then
      body[#body + 1] = "Random seed: " .. parent.randomseed .. "\n"
    end
    body[#body + 1] = text
    if type(trace) == "table" and type(trace.traceback) == "string" then body[#body + 1] = trace.traceback end
    return ("<%s%s>%s</%s>"):format(kind, attrs({ "message", text:match("^[^\n]*") }),
      esc(table.concat(body)), kind)
  end

  local function newSuite(count, total)
    suite = { name = "Run " .. count .. " of " .. total, cases = {}, tests = 0, failures = 0,
      errors = 0, skipped = 0, timestamp = os.date("!%Y-%m-%dT%H:%M:%S"), start = busted.monotime() }
  end

  -- An error outside a test: a test case of its own.
  local function looseError(element, parent, message, trace)
    local case = { name = nameOf(element),
      classname = where(trace) or where(element.trace) or (element.descriptor == "file" and element.name) or "",
      time = 0, body = { outcome("error", parent, message, trace) } }
    if not suite then early[#early + 1] = case; return end
    suite.cases[#suite.cases + 1] = case
    suite.tests, suite.errors = suite.tests + 1, suite.errors + 1
  end

  local function caseXml(c)
    local head = ("<testcase%s"):format(attrs({ "name", c.name, "classname", c.classname, "time", seconds(c.time) }))
    if #c.body == 0 then return "\t\t" .. head .. "/>" end
    return "\t\t" .. head .. ">\n\t\t\t" .. table.concat(c.body, "\n\t\t\t") .. "\n\t\t</testcase>"
  end

  local function closeSuite(duration)
    local lines = { ("\t<testsuite%s>"):format(attrs({ "name", suite.name, "tests", suite.tests,
      "failures", suite.failures, "errors", suite.errors, "skipped", suite.skipped,
      "time", seconds(duration), "timestamp", suite.timestamp })) }
    for _, c in ipairs(suite.cases) do lines[#lines + 1] = caseXml(c) end
    lines[#lines + 1] = "\t</testsuite>"
    suites[#suites + 1] = table.concat(lines, "\n")
    for k in pairs(totals) do totals[k] = totals[k] + suite[k] end
    suite = nil
  end

  handler.suiteStart = function(_, count, total)
    newSuite(count, total)
    for _, case in ipairs(early) do
      suite.cases[#suite.cases + 1] = case
      suite.tests, suite.errors = suite.tests + 1, suite.errors + 1
    end
    early = {}
    return nil, true
  end

  handler.suiteEnd = function(s)
    if suite then closeSuite(s.duration or (busted.monotime() - suite.start)) end
    return nil, true
  end

  handler.testStart = function(element)
    current = { name = nameOf(element), classname = where(element.trace) or "", time = 0, body = {} }
    suite.cases[#suite.cases + 1] = current
    return nil, true
  end

  handler.testEnd = function(element, parent, status)
    suite.tests = suite.tests + 1
    current.time = element.duration
    if status == "pending" then
      suite.skipped = suite.skipped + 1
      local formatted = handler.pendings[#handler.pendings] or {}
      local trace = element.trace ~= formatted.trace and formatted.trace or nil
      local message = formatted.message
      current.body[#current.body + 1] = outcome("skipped", parent, message ~= nil and message or "pending", trace)
    end
    return nil, true
  end

  handler.failureTest = function(_, parent, message, trace)
    suite.failures = suite.failures + 1
    current.body[#current.body + 1] = outcome("failure", parent, message, trace)
    return nil, true
  end

  handler.errorTest = function(_, parent, message, trace)
    suite.errors = suite.errors + 1
    current.body[#current.body + 1] = outcome("error", parent, message, trace)
    return nil, true
  end

  handler.error = function(element, parent, message, trace)
    if element.descriptor ~= "it" then looseError(element, parent, message, trace) end
    return nil, true
  end

  handler.exit = function()
    if #early > 0 then -- errors with no suite run after them: one suite holds them
      newSuite(1, 1)
      handler.suiteStart(nil, 1, 1)
      closeSuite(0)
    end
    local doc = ('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites%s>\n%s%s</testsuites>\n'):format(
      attrs({ "tests", totals.tests, "failures", totals.failures, "errors", totals.errors,
        "time", seconds(busted.monotime() - startTick) }), -- no `skipped` here: Jenkins' schema refuses it
      table.concat(suites, "\n"), #suites > 0 and "\n" or "")
    local out = file and io.open(file, "wb")
    if out then
      out:write(doc)
      out:close()
    else
      io.write(doc)
      io.flush()
    end
    return nil, true
  end

  busted.subscribe({ "exit" }, handler.exit)
  busted.subscribe({ "suite", "start" }, handler.suiteStart)
  busted.subscribe({ "suite", "end" }, handler.suiteEnd)
  busted.subscribe({ "test", "start" }, handler.testStart, { predicate = handler.cancelOnPending })
  busted.subscribe({ "test", "end" }, handler.testEnd, { predicate = handler.cancelOnPending })
  busted.subscribe({ "error", "it" }, handler.errorTest)
  busted.subscribe({ "failure", "it" }, handler.failureTest)
  busted.subscribe({ "error" }, handler.error)
  busted.subscribe({ "failure" }, handler.error)
  return handler
end
