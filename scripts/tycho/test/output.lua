-- tycho.test.output: busted's default output handler under `tycho test`.
-- Prints each failure as it happens (`FAIL <full name>`, then `file:line: message` and the
-- traceback, indented), each pending test (`PEND <full name> (file:line)`), and with
-- --verbose an `ok   <full name>` line per passing test. The closing `N passed, N failed`
-- line is the driver's (tycho.test), which sums the counts of every --repeat run.
-- Loaded by busted's output handler loader: a function of the options returning a handler.

local function indent(text) return "    " .. text:gsub("\n", "\n    ") end

local function messageText(message)
  if type(message) == "string" then return message end
  if message == nil then return "Nil error" end
  local mt = getmetatable(message)
  if type(mt) == "table" and mt.__tostring then return tostring(message) end
  return require("pl.pretty").write(message)
end

-- busted's traceback starts with "\nstack traceback:\n\t"; the first frame is enough to
-- find the line, the rest helps when the failure is deep in a helper.
local function tracebackText(trace)
  local tb = type(trace) == "table" and trace.traceback
  if type(tb) ~= "string" then return nil end
  tb = tb:gsub("^%s+", ""):gsub("%s+$", ""):gsub("\n\t", "\n  ")
  if tb == "" or tb == "stack traceback:" then return nil end
  return tb
end

return function(options)
  local busted = require("busted")
  local handler = require("busted.outputHandlers.base")()
  local write = function(s) io.write(s); io.stdout:flush() end

  local HOOKS = { before_each = true, after_each = true, lazy_setup = true, lazy_teardown = true,
    strict_setup = true, strict_teardown = true, setup = true, teardown = true }

  local function nameOf(element)
    if element.descriptor == "file" then return element.name end
    if HOOKS[element.descriptor] then -- a hook is named after its block: "outer inner (setup)"
      local parent = busted.parent(element)
      local block = parent and parent.descriptor ~= "file" and handler.getFullName(parent)
      return (block and block .. " " or "") .. "(" .. (element.name or element.descriptor) .. ")"
    end
    local name = handler.getFullName(element)
    return name ~= "" and name or "tycho test"
  end

  local function report(element, message, trace)
    local text = "FAIL " .. nameOf(element) .. "\n" .. indent(messageText(message)) .. "\n"
    local tb = tracebackText(trace)
    if tb then text = text .. indent(tb) .. "\n" end
    write(text)
  end

  handler.testEnd = function(element, _, status)
    if status == "success" and options.verbose then
      write("ok   " .. nameOf(element) .. "\n")
    elseif status == "pending" then
      -- base's handler (subscribed first) has just filed it, with pending()'s message
      local filed = handler.pendings[#handler.pendings] or {}
      local trace = filed.trace or element.trace or {}
      local where = (trace.short_src or "?") .. ":" .. (trace.currentline or "?")
      local reason = ""
      if filed.message ~= nil then
        local text = messageText(filed.message)
        if text:sub(1, #where + 2) == where .. ": " then text = text:sub(#where + 3) end
        reason = ": " .. text
      end
      write("PEND " .. nameOf(element) .. " (" .. where .. ")" .. reason .. "\n")
    end
    return nil, true
  end

  -- Failures and errors of tests, hooks, describes and files alike (busted publishes a
  -- failing hook once per test it stops, and counts it so).
  handler.failed = function(element, _, message, trace)
    report(element, message, trace)
    return nil, true
  end

  handler.suiteStart = function(_, count, total)
    if total > 1 then write(("run %d of %d\n"):format(count, total)) end
    return nil, true
  end

  busted.subscribe({ "test", "end" }, handler.testEnd, { predicate = handler.cancelOnPending })
  busted.subscribe({ "suite", "start" }, handler.suiteStart)
  busted.subscribe({ "failure" }, handler.failed)
  busted.subscribe({ "error" }, handler.failed)

  return handler
end
