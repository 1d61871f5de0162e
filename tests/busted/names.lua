-- tests/busted/names.lua: an output handler that busted and `tycho test` both load
-- (`-o tests/busted/names.lua -Xoutput FILE`) for tests/busted/check.sh: one line per
-- outcome, in the order busted publishes them, `status | kind | full name | file:line [|
-- first line of the message]`, so that the two runners' results can be compared name by
-- name. busted's JSON handler cannot serve: under busted 2.1.1 it writes nothing when a
-- describe raises (the element it encodes holds functions, which dkjson refuses), and its
-- JUnit gives no name to an error outside a test.
return function(options)
  local busted = require("busted")
  local handler = require("busted.outputHandlers.base")()
  local out = assert(io.open(assert(options.arguments[1], "-Xoutput FILE"), "w"))
  local pendingMessage = {}

  local function first(message)
    if message == nil then return nil end
    local text = (type(message) == "string" and message or type(message)):match("^[^\n]*"):gsub("%s+$", "")
    return text ~= "" and text or nil
  end

  local function line(status, element, message, trace)
    trace = type(trace) == "table" and trace.short_src and trace or element.trace or {}
    local text = first(message)
    out:write(("%s | %s | %s | %s:%s%s\n"):format(status, element.descriptor or "?",
      element.descriptor and handler.getFullName(element) or "", trace.short_src or "?",
      tostring(trace.currentline or "?"), text and " | " .. text or ""))
    out:flush()
  end

  busted.subscribe({ "pending" }, function(element, _, message)
    pendingMessage[element] = message
    return nil, true
  end)
  busted.subscribe({ "test", "end" }, function(element, _, status)
    if status == "success" then line("success", element) end
    if status == "pending" then line("pending", element, pendingMessage[element]) end
    return nil, true
  end, { predicate = handler.cancelOnPending }) -- --suppress-pending, as busted's handlers do
  busted.subscribe({ "failure" }, function(element, _, message, trace)
    line("failure", element, message, trace)
    return nil, true
  end)
  busted.subscribe({ "error" }, function(element, _, message, trace)
    line("error", element, message, trace)
    return nil, true
  end)
  busted.subscribe({ "exit" }, function() out:close(); return nil, true end)
  return handler
end
