-- tycho.test.coverage: the line coverage of `tycho test --coverage` when LuaCov is not
-- installed (Debian 12 does not package it): a line hook counts the lines the specs run in
-- the project's own Lua files, and the report is LCOV (lcov.info), which CI servers read
-- (GitLab, Codecov, genhtml). The engine's scripts, installed Lua modules and the spec files
-- themselves are left out. Lines no spec reached are found by reading the file: a line is
-- counted as code unless it is blank, a comment, inside a long comment or string, or only
-- closes a block (`end`, `else`, `}`, `)`, `until` ...), as LuaCov's own scanner does it.

local M = {}

local hits = {}     -- path -> {line -> count}
local skip = {}     -- source -> true when left out
local home
local specPatterns = {} -- busted's --pattern: the spec files, left out

local function leftOut(source)
  if source:sub(1, 1) ~= "@" then return true end
  local path = source:sub(2)
  if home and path:sub(1, #home) == home then return true end
  if path:sub(1, 1) == "/" and path:match("^/usr/") then return true end
  local name = path:match("[^/]*$")
  for _, p in ipairs(specPatterns) do
    if name:find(p) then return true end
  end
  return false
end

local function hook(_, line)
  local source = debug.getinfo(2, "S").source
  local counts = hits[source]
  if not counts then
    if skip[source] then return end
    if leftOut(source) then
      skip[source] = true
      return
    end
    counts = {}
    hits[source] = counts
  end
  counts[line] = (counts[line] or 0) + 1
end

---Starts counting lines (every coroutine made from now on inherits the hook). patterns:
---busted's file patterns, whose files (the specs) are left out.
---@param patterns? string[]
function M.start(patterns)
  specPatterns = patterns or { "_spec", "_test%.lua$" }
  home = (require("tycho").home or "") .. "/scripts/"
  hits, skip = {}, {}
  debug.sethook(hook, "l")
end

function M.stop() debug.sethook() end

-- Lines that hold code, read from the file: {line -> true}.
local CLOSERS = { ["end"] = true, ["else"] = true, ["}"] = true, [")"] = true, ["},"] = true, ["),"] = true,
  ["end)"] = true, ["end,"] = true, ["})"] = true, ["do"] = true, ["then"] = true, ["repeat"] = true }
local function codeLines(path)
  local f = io.open(path, "r")
  if not f then return {} end
  local lines, n, longEnd = {}, 0, nil
  for text in f:lines() do
    n = n + 1
    local rest = text
    if longEnd then
      local e = rest:find(longEnd, 1, true)
      if not e then goto continue end
      rest, longEnd = rest:sub(e + #longEnd), nil
    end
    -- A long comment or string opening on this line and not closing on it.
    local open, eqs = rest:match("()%-%-%[(=*)%[")
    if not open then open, eqs = rest:match("()%[(=*)%[") end
    if open and not rest:find("]" .. eqs .. "]", open, true) then
      longEnd = "]" .. eqs .. "]"
      rest = rest:sub(1, open - 1)
    end
    rest = rest:gsub("%-%-.*$", ""):match("^%s*(.-)%s*$")
    if rest ~= "" and not CLOSERS[rest] and not rest:match("^end[%s%)%],;]*$") then lines[n] = true end
    ::continue::
  end
  f:close()
  return lines
end

---Writes the LCOV report; returns lines hit, lines of code and files.
---@param path string
---@return integer hit, integer total, integer files
function M.write(path)
  local names = {}
  for source in pairs(hits) do names[#names + 1] = source:sub(2) end
  table.sort(names)
  local out = assert(io.open(path, "w"))
  local hitTotal, total = 0, 0
  for _, name in ipairs(names) do
    local counts = hits["@" .. name]
    local code = codeLines(name)
    for line in pairs(counts) do code[line] = true end
    local sorted = {}
    for line in pairs(code) do sorted[#sorted + 1] = line end
    table.sort(sorted)
    out:write("SF:", name, "\n")
    local lh = 0
    for _, line in ipairs(sorted) do
      local c = counts[line] or 0
      if c > 0 then lh = lh + 1 end
      out:write("DA:", line, ",", c, "\n")
    end
    out:write("LF:", #sorted, "\nLH:", lh, "\nend_of_record\n")
    hitTotal, total = hitTotal + lh, total + #sorted
  end
  out:close()
  return hitTotal, total, #names
end

return M
